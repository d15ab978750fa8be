/* SPDX-License-Identifier: Apache-2.0 */
/* Whether plugin code can still run unasked (lib/host/quiet.c): threads
 * that are not the harness's, child processes, and signal handlers
 * installed from outside the harness's program. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
  assert_int_equal(nc_quiet_now(), 1);
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
  assert_int_equal(nc_quiet_now(), 1);
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

static void test_a_handler_from_another_object_is_not_quiet(void **state)
{
  (void)state;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = own_handler; /* in this program: the harness's own code */
  sigaction(SIGUSR1, &sa, &old);
  assert_int_equal(nc_quiet_now(), 1);
  sa.sa_handler = (void (*)(int))abort; /* in libc: code the harness did not write */
  sigaction(SIGUSR1, &sa, NULL);
  assert_int_equal(nc_quiet_now(), 0);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGUSR1, &sa, NULL);
  assert_int_equal(nc_quiet_now(), 1);
  sigaction(SIGUSR1, &old, NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quiet_only_after_begin),
      cmocka_unit_test(test_a_thread_of_its_own_is_not_quiet),
      cmocka_unit_test(test_a_harness_thread_is_quiet),
      cmocka_unit_test(test_a_child_process_is_not_quiet),
      cmocka_unit_test(test_a_handler_from_another_object_is_not_quiet),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
