/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "threads.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

#define ALT_STACK_BYTES (64 * 1024)

static pthread_key_t stack_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void release_stack(void *stack)
{
  stack_t off = {.ss_flags = SS_DISABLE};
  sigaltstack(&off, NULL);
  munmap(stack, ALT_STACK_BYTES);
}

static void make_key(void) { pthread_key_create(&stack_key, release_stack); }

int nc_thread_altstack(void)
{
  stack_t now;
  if (sigaltstack(NULL, &now) == 0 && !(now.ss_flags & SS_DISABLE))
    return 0; /* this thread has one */
  pthread_once(&key_once, make_key);
  void *stack = mmap(NULL, ALT_STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
  if (stack == MAP_FAILED)
    return -1;
  stack_t ss = {.ss_sp = stack, .ss_size = ALT_STACK_BYTES, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) {
    munmap(stack, ALT_STACK_BYTES);
    return -1;
  }
  pthread_setspecific(stack_key, stack);
  return 0;
}

/* Threads started here that have not ended (returned, exited or been
 * cancelled); in a forked child, only the thread that forked is left. */
static atomic_int live;
static _Thread_local int is_ours;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void forked_child(void) { atomic_store(&live, is_ours); }
static void watch_forks(void) { pthread_atfork(NULL, NULL, forked_child); }
static void thread_ended(void *unused)
{
  (void)unused;
  atomic_fetch_sub(&live, 1);
}

int nc_thread_live(void) { return atomic_load(&live); }

typedef struct start {
  void *(*fn)(void *);
  void *arg;
} start;

static void *trampoline(void *p)
{
  start s = *(start *)p;
  free(p);
  nc_thread_altstack();
  is_ours = 1;
  void *result;
  pthread_cleanup_push(thread_ended, NULL);
  result = s.fn(s.arg);
  pthread_cleanup_pop(1);
  return result;
}

int nc_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
  start *s = malloc(sizeof(*s));
  if (!s)
    return -1;
  s->fn = fn;
  s->arg = arg;
  pthread_once(&atfork_once, watch_forks);
  atomic_fetch_add(&live, 1);
  int rc = pthread_create(thread, NULL, trampoline, s);
  if (rc != 0) {
    atomic_fetch_sub(&live, 1);
    free(s);
  }
  return rc;
}
