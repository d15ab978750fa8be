/* SPDX-License-Identifier: Apache-2.0 */
/* The allocation accounting. The interposer (interposer.c, linked into the
 * programs that run plugin code, never into libnveconform) hands every
 * malloc, calloc, realloc, free and aligned variant to it. While plugin
 * code runs (inside a plugin callback, or a pool task run for the plugin),
 * allocations are counted, remembered until freed, and can be made to
 * fail: the k-th one only (transient) or the k-th and all later ones
 * (persistent). C++ plugins are covered: operator new allocates with
 * malloc and throws std::bad_alloc when it fails.
 *
 * Without an interposer (sanitizer builds, where AddressSanitizer owns
 * malloc, or a program that links the library and runs cases in its own
 * process), or when a tool replaced malloc in the program (valgrind),
 * nc_alloc_available() says 0 and the rules that need it are skipped. */
#ifndef NC_ALLOC_H
#define NC_ALLOC_H

#include <stddef.h>
#include <stdint.h>

int nc_alloc_available(void);

/* For the interposer: it is present (called once, from its constructor);
 * whether this thread's allocations are counted now; 1 when a counted
 * allocation must fail (and counts it); a counted block to remember, and
 * a block freed. */
void nc_alloc_interposer_present(void);
int nc_alloc_accounting(void);
int nc_alloc_inject(void);
void nc_alloc_remember(void *p, size_t size);
void nc_alloc_forget(void *p);

/* Switches accounting on for this process (the case children do). */
void nc_alloc_enable(int on);

/* Marks the calling thread as running a plugin callback (trace.c does, on
 * entering and leaving one). */
void nc_alloc_plugin_enter(void);
void nc_alloc_plugin_leave(void);
/* Brackets harness code that plugin code called (the services). */
void nc_alloc_pause(void);
void nc_alloc_resume(void);
/* Brackets a plugin task run by the pool, on whatever thread runs it. */
int nc_alloc_task_begin(void);
void nc_alloc_task_end(int saved);

/* Allocates, for the calling thread, the thread-local storage of every
 * loaded module that has some. The dynamic loader does that on first touch
 * with malloc and exits the process if it fails, so the failure sweeps warm
 * it up first (libstdc++'s exception state included). */
void nc_alloc_warm_tls(void);

/* Stops watching the output slot (keeps the state seen so far). */
void nc_alloc_watch_stop(void);

/* Forgets the allocations counted and remembered so far. */
void nc_alloc_reset(void);
/* Fails the k-th counted allocation from now (k >= 1), and every later one
 * when persistent; k = 0 disarms. */
void nc_alloc_arm(long k, int persistent);
/* Whether an armed failure was injected since the last arm. */
int nc_alloc_fired(void);

typedef struct nc_alloc_stats {
  long allocations; /* counted since the last reset */
  long live;        /* of those, not freed yet */
  long live_bytes;
} nc_alloc_stats;
void nc_alloc_get_stats(nc_alloc_stats *out);

/* Nonzero when p lies in a block the plugin freed recently. */
int nc_alloc_recently_freed(const void *p);

/* OWN-03: at the first counted allocation (or nc_alloc_watch_event) after
 * this, check that len bytes at slot are zero. State: -1 nothing happened
 * yet, 0 the slot was not zero, 1 it was. */
void nc_alloc_watch(const void *slot, size_t len);
void nc_alloc_watch_event(void);
int nc_alloc_watch_state(void);

#endif
