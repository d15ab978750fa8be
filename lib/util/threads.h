/* SPDX-License-Identifier: Apache-2.0 */
/* Threads that may run plugin code: each gets an alternate signal stack,
 * so that a stack overflow or a fault in plugin code on any thread still
 * reaches the harness's handlers. */
#ifndef NC_THREADS_H
#define NC_THREADS_H

#include <pthread.h>

/* pthread_create for harness threads that run plugin code (the services
 * pool, the cases' own threads). Returns pthread_create's result. */
int nc_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg);

/* Threads nc_thread_create started that have not ended (one that has may
 * still be leaving); in a forked child, 1 or 0: the forking thread's. */
int nc_thread_live(void);

/* Gives the calling thread an alternate signal stack if it has none (the
 * thread's exit releases it). 0, or -1 when none could be made. */
int nc_thread_altstack(void);

#endif
