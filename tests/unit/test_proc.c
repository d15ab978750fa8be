/* SPDX-License-Identifier: Apache-2.0 */
/* A process's children as /proc lists them (lib/util/proc.c): the parser
 * of the kernel's lists, and children forked by more than one thread. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

static void lists_parse(void **state)
{
  (void)state;
  pid_t out[4] = {0};
  assert_int_equal(nc_proc_parse_pids("", out, 4, 0), 0);
  assert_int_equal(nc_proc_parse_pids("12 345 6 ", out, 4, 0), 3);
  assert_int_equal(out[0], 12);
  assert_int_equal(out[1], 345);
  assert_int_equal(out[2], 6);
  /* On top of what is counted; past max counted, not stored. */
  assert_int_equal(nc_proc_parse_pids("7 8 9", out, 4, 2), 5);
  assert_int_equal(out[2], 7);
  assert_int_equal(out[3], 8);
  assert_int_equal(nc_proc_parse_pids("41\n", out, 4, 0), 1);
  assert_int_equal(out[0], 41);
  /* Anything but a positive pid ends the list. */
  assert_int_equal(nc_proc_parse_pids("3 x 4", out, 4, 0), 1);
  assert_int_equal(nc_proc_parse_pids("0 5", out, 4, 0), 0);
}

static pid_t sleeper(void)
{
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

static pthread_barrier_t listed;

/* Forks, then lives on until the list is read: the child is on this
 * thread's list, not the main thread's. */
static void *fork_from_thread(void *arg)
{
  *(pid_t *)arg = sleeper();
  pthread_barrier_wait(&listed);
  pthread_barrier_wait(&listed);
  return NULL;
}

static int holds(const pid_t *list, size_t n, pid_t pid)
{
  for (size_t i = 0; i < n; i++)
    if (list[i] == pid)
      return 1;
  return 0;
}

static void children_of_every_thread(void **state)
{
  (void)state;
  pid_t kids[3] = {sleeper(), sleeper(), -1};
  pthread_t t;
  pthread_barrier_init(&listed, NULL, 2);
  assert_int_equal(pthread_create(&t, NULL, fork_from_thread, &kids[2]), 0);
  pthread_barrier_wait(&listed);
  pid_t found[16];
  size_t n = nc_proc_children(getpid(), found, 16);
  pthread_barrier_wait(&listed);
  pthread_join(t, NULL);
  assert_int_equal(n, 3);
  for (int i = 0; i < 3; i++) {
    assert_true(kids[i] > 0);
    assert_true(holds(found, n, kids[i]));
    assert_int_equal(nc_proc_parent(kids[i]), getpid());
  }
  /* Fewer slots than children: all counted. */
  assert_int_equal(nc_proc_children(getpid(), found, 1), 3);
  for (int i = 0; i < 3; i++) {
    kill(kids[i], SIGKILL);
    waitpid(kids[i], NULL, 0);
  }
  assert_int_equal(nc_proc_children(getpid(), found, 16), 0);
}

static void a_process_that_is_gone(void **state)
{
  (void)state;
  pid_t pid = sleeper();
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  pid_t found[4];
  assert_int_equal(nc_proc_children(pid, found, 4), 0);
  assert_int_equal(nc_proc_parent(pid), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lists_parse),
      cmocka_unit_test(children_of_every_thread),
      cmocka_unit_test(a_process_that_is_gone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
