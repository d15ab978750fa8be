/* SPDX-License-Identifier: Apache-2.0 */
/* Whether plugin code can still run unasked (lib/host/quiet.c): threads
 * that are not the harness's, child processes and processes beside it,
 * signal handlers set since the start, and armed timers. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "quiet.h"
#include "threads.h"

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void *wait_at_gate(void *arg)
{
  (void)arg;
  pthread_mutex_lock(&gate);
  pthread_mutex_unlock(&gate);
  return NULL;
}

/* Until the joined thread has left the process's task list too. */
static int quiet_soon(void)
{
  for (int i = 0; i < 1000; i++) {
    if (nc_quiet_now())
      return 1;
    usleep(1000);
  }
  return 0;
}

static void test_quiet_only_after_begin(void **state)
{
  (void)state;
  assert_int_equal(nc_quiet_now(), 0);
  nc_quiet_begin();
  assert_int_equal(nc_quiet_now(), 1);
}

static void test_a_thread_of_its_own_is_not_quiet(void **state)
{
  (void)state;
  pthread_t t;
  pthread_mutex_lock(&gate);
  assert_int_equal(pthread_create(&t, NULL, wait_at_gate, NULL), 0);
  assert_int_equal(nc_quiet_now(), 0);
  pthread_mutex_unlock(&gate);
  pthread_join(t, NULL);
  assert_true(quiet_soon());
}

static void test_a_harness_thread_is_quiet(void **state)
{
  (void)state;
  pthread_t t;
  pthread_mutex_lock(&gate);
  assert_int_equal(nc_thread_create(&t, wait_at_gate, NULL), 0);
  assert_int_equal(nc_quiet_now(), 1);
  pthread_mutex_unlock(&gate);
  pthread_join(t, NULL);
  assert_true(quiet_soon());
}

static void test_a_child_process_is_not_quiet(void **state)
{
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    pause();
    _exit(0);
  }
  assert_int_equal(nc_quiet_now(), 0);
  kill(pid, SIGKILL);
  /* Dead but not reaped still counts: it was the plugin's to reap. */
  assert_int_equal(nc_quiet_now(), 0);
  waitpid(pid, NULL, 0);
  assert_int_equal(nc_quiet_now(), 1);
}

static void own_handler(int sig) { (void)sig; }

static void test_a_new_handler_is_not_quiet(void **state)
{
  (void)state;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = own_handler; /* code outside the C library, in this program too */
  sigaction(SIGUSR1, &sa, &old);
  assert_int_equal(nc_quiet_now(), 0);
  sa.sa_handler = (void (*)(int))abort; /* the C library's own code: runs no plugin code */
  sigaction(SIGUSR1, &sa, NULL);
  assert_int_equal(nc_quiet_now(), 1);
  sa.sa_handler = SIG_IGN; /* runs nothing */
  sigaction(SIGUSR1, &sa, NULL);
  assert_int_equal(nc_quiet_now(), 1);
  sigaction(SIGUSR1, &old, NULL);
  assert_int_equal(nc_quiet_now(), 1);
}

static void test_a_handler_on_the_c_library_s_signals_is_seen(void **state)
{
  (void)state;
  /* glibc's sigaction refuses 32 and 33; the raw system call does not. */
  struct {
    void *handler;
    unsigned long flags;
    void *restorer;
    unsigned long mask;
  } k = {(void *)own_handler, 0, NULL, 0}, old;
  assert_int_equal(syscall(SYS_rt_sigaction, 33, &k, &old, sizeof(k.mask)), 0);
  assert_int_equal(nc_quiet_now(), 0);
  assert_int_equal(syscall(SYS_rt_sigaction, 33, &old, NULL, sizeof(k.mask)), 0);
  assert_int_equal(nc_quiet_now(), 1);
}

static void test_an_armed_timer_is_not_quiet(void **state)
{
  (void)state;
  struct itimerval later = {{0, 0}, {3600, 0}}, off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_VIRTUAL, &later, NULL);
  assert_int_equal(nc_quiet_now(), 0);
  setitimer(ITIMER_VIRTUAL, &off, NULL);
  assert_int_equal(nc_quiet_now(), 1);
  timer_t t;
  struct sigevent ev;
  memset(&ev, 0, sizeof(ev));
  ev.sigev_notify = SIGEV_NONE;
  assert_int_equal(timer_create(CLOCK_MONOTONIC, &ev, &t), 0);
  assert_int_equal(nc_quiet_now(), 0);
  timer_delete(t);
  assert_int_equal(nc_quiet_now(), 1);
}

static int beside(void *arg)
{
  (void)arg;
  pause();
  return 0;
}

static void test_a_process_beside_it_is_not_quiet(void **state)
{
  (void)state;
  /* Cloned with CLONE_PARENT: not its child, not its thread. */
  static char stack[64 * 1024];
  pid_t pid = clone(beside, stack + sizeof(stack), CLONE_PARENT | SIGCHLD, NULL);
  assert_true(pid > 0);
  assert_int_equal(nc_quiet_now(), 0);
  kill(pid, SIGKILL);
}

/* The tests run in a child of their own: a process beside the test
 * program (the test driver's other children) would make nothing quiet. */
int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quiet_only_after_begin),
      cmocka_unit_test(test_a_thread_of_its_own_is_not_quiet),
      cmocka_unit_test(test_a_harness_thread_is_quiet),
      cmocka_unit_test(test_a_child_process_is_not_quiet),
      cmocka_unit_test(test_a_new_handler_is_not_quiet),
      cmocka_unit_test(test_a_handler_on_the_c_library_s_signals_is_seen),
      cmocka_unit_test(test_an_armed_timer_is_not_quiet),
      cmocka_unit_test(test_a_process_beside_it_is_not_quiet),
  };
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0)
    _exit(cmocka_run_group_tests(tests, NULL, NULL));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    ;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
