/* SPDX-License-Identifier: Apache-2.0 */
/* Mutexes that survive fork(): isolated calls and allocation sweeps fork a
 * case process while other threads (the pool's, the plugin's) may hold a
 * lock; the child has only the forking thread, so a lock held by another
 * would stay held for ever. NC_FORK_SAFE_MUTEX(m) takes m before every
 * fork and releases it on both sides. Only for leaf locks (held briefly,
 * never across fork or while taking another). */
#ifndef NC_FORK_LOCK_H
#define NC_FORK_LOCK_H

#include <pthread.h>

#define NC_FORK_SAFE_MUTEX(mutex, tag)                                                          \
  static void tag##_before_fork(void) { pthread_mutex_lock(&(mutex)); }                         \
  static void tag##_after_fork(void) { pthread_mutex_unlock(&(mutex)); }                        \
  __attribute__((constructor)) static void tag##_fork_safe(void)                                \
  {                                                                                             \
    pthread_atfork(tag##_before_fork, tag##_after_fork, tag##_after_fork);                     \
  }

/* For a lock held while taking another (a malloc under it may take the
 * allocation interposer's): taking it before fork could deadlock against
 * that order, so the child only gets a fresh one. What it guarded belongs
 * to a thread the child does not have. */
#define NC_FORK_RESET_MUTEX(mutex, tag)                                                         \
  static void tag##_in_child(void) { pthread_mutex_init(&(mutex), NULL); }                      \
  __attribute__((constructor)) static void tag##_fork_reset(void)                               \
  {                                                                                             \
    pthread_atfork(NULL, NULL, tag##_in_child);                                                 \
  }

#endif
