/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "alloc.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Set by the interposer (interposer.c) when the program carries one. */
static atomic_int available;

int nc_alloc_available(void) { return atomic_load(&available); }

static void lock(void);
static void unlock(void);

void nc_alloc_interposer_present(void)
{
  atomic_store(&available, 1);
  /* Cases fork while pool threads allocate: the child must not inherit the
   * set's lock held by a thread that does not exist there. */
  pthread_atfork(lock, unlock, unlock);
}

/* ---- accounting state ------------------------------------------------------ */

static atomic_int enabled;
static _Thread_local int in_plugin;
static _Thread_local int pause_depth;
static atomic_long counted;
static atomic_long fail_at;
static int fail_persistent;
static atomic_int fired;

static const volatile unsigned char *watch_slot;
static size_t watch_len;
static atomic_int watch_state = -1;

void nc_alloc_enable(int on) { atomic_store(&enabled, on && nc_alloc_available()); }
void nc_alloc_plugin_enter(void) { in_plugin = 1; }
void nc_alloc_plugin_leave(void) { in_plugin = 0; }
void nc_alloc_pause(void) { pause_depth++; }
void nc_alloc_resume(void) { pause_depth--; }

int nc_alloc_task_begin(void)
{
  int saved = (in_plugin << 16) | pause_depth;
  in_plugin = 1;
  pause_depth = 0;
  return saved;
}

void nc_alloc_task_end(int saved)
{
  in_plugin = saved >> 16;
  pause_depth = saved & 0xffff;
}

int nc_alloc_accounting(void)
{
  return atomic_load_explicit(&enabled, memory_order_relaxed) && in_plugin &&
         pause_depth == 0;
}

void nc_alloc_watch(const void *slot, size_t len)
{
  watch_slot = slot;
  watch_len = len;
  atomic_store(&watch_state, -1);
}

void nc_alloc_watch_event(void)
{
  const volatile unsigned char *slot = watch_slot;
  if (!slot || atomic_load(&watch_state) != -1)
    return;
  int zero = 1;
  for (size_t i = 0; i < watch_len; i++)
    zero &= slot[i] == 0;
  atomic_store(&watch_state, zero);
  watch_slot = NULL;
}

int nc_alloc_watch_state(void) { return atomic_load(&watch_state); }

void nc_alloc_watch_stop(void) { watch_slot = NULL; }

#if defined(__x86_64__) || defined(__i386__)
typedef struct tls_index {
  unsigned long module;
  unsigned long offset;
} tls_index;
extern void *__tls_get_addr(tls_index *ti);

static int touch_module_tls(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  (void)arg;
  if (info->dlpi_tls_modid > 0) {
    tls_index ti = {info->dlpi_tls_modid, 0};
    __tls_get_addr(&ti);
  }
  return 0;
}
#endif

void nc_alloc_warm_tls(void)
{
#if defined(__x86_64__) || defined(__i386__)
  dl_iterate_phdr(touch_module_tls, NULL);
#else
  /* Elsewhere, at least the C++ runtime's exception state. */
  void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_NOLOAD);
  if (cxx) {
    void *(*globals)(void) = (void *(*)(void))dlsym(cxx, "__cxa_get_globals");
    if (globals)
      globals();
    dlclose(cxx);
  }
#endif
}

void nc_alloc_arm(long k, int persistent)
{
  atomic_store(&fired, 0);
  fail_persistent = persistent;
  atomic_store(&fail_at, k > 0 ? atomic_load(&counted) + k : 0);
}

int nc_alloc_fired(void) { return atomic_load(&fired); }

/* ---- the set of live counted blocks (no heap: it serves the heap) ---------- */

/* The set starts small and doubles when half full, up to SET_SLOTS: a
 * remembered block lands on a random slot, and each page of the set
 * touched for the first time costs a fault, which a set of a million slots
 * paid for every few blocks after each reset. */
#define SET_SLOTS (1u << 20)
#define SET_FIRST_SLOTS (1u << 12)
#define FREED_RING 256

typedef struct block {
  uintptr_t ptr; /* 0 empty, 1 deleted */
  size_t size;
} block;

static block *set;
static size_t set_cap;    /* slots of set (0: none mapped) */
static size_t set_filled; /* live and deleted slots */
/* A bit per home slot of the largest set, set once a block whose probe
 * starts there was remembered: a free whose bit is clear (the harness's
 * own frees, mostly) returns without the lock and the probe. Static, so
 * that a free racing nc_alloc_reset never reads unmapped memory; a stale
 * bit only costs the probe. */
static uint64_t homes[SET_SLOTS / 64];
static int homes_dirty; /* a bit was set since the last reset (under the lock) */
static atomic_flag set_lock = ATOMIC_FLAG_INIT;
static long set_live, set_live_bytes;
static block freed[FREED_RING];
static unsigned freed_next;

static void lock(void)
{
  while (atomic_flag_test_and_set_explicit(&set_lock, memory_order_acquire))
    ;
}

static void unlock(void) { atomic_flag_clear_explicit(&set_lock, memory_order_release); }

static size_t slot_of(uintptr_t p) { return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull >> 44); }

static block *map_set(size_t cap)
{
  void *m = mmap(NULL, cap * sizeof(block), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return m == MAP_FAILED ? NULL : m;
}

static void put(block *into, size_t cap, uintptr_t p, size_t size)
{
  size_t i = slot_of(p) & (cap - 1);
  while (into[i].ptr > 1)
    i = (i + 1) & (cap - 1);
  into[i].ptr = p;
  into[i].size = size;
}

/* Room for one more block (under the lock): the set mapped, or moved into
 * one twice as large (the same size when deleted slots made it full);
 * 0 when there is none, and the block goes uncounted. */
static int make_room(void)
{
  if (!set) {
    set = map_set(SET_FIRST_SLOTS);
    set_cap = set ? SET_FIRST_SLOTS : 0;
    set_filled = 0;
    return set != NULL;
  }
  if ((set_filled + 1) * 2 <= set_cap)
    return 1;
  size_t cap = (size_t)set_live * 4 > set_cap ? set_cap * 2 : set_cap;
  if (cap > SET_SLOTS) /* the largest set: filled to three quarters, then blocks go uncounted */
    return (set_filled + 1) * 4 <= set_cap * 3;
  block *grown = map_set(cap);
  if (!grown)
    return 0;
  for (size_t i = 0; i < set_cap; i++)
    if (set[i].ptr > 1)
      put(grown, cap, set[i].ptr, set[i].size);
  munmap(set, set_cap * sizeof(block));
  set = grown;
  set_cap = cap;
  set_filled = (size_t)set_live;
  return 1;
}

void nc_alloc_remember(void *p, size_t size)
{
  lock();
  if (make_room()) {
    size_t home = slot_of((uintptr_t)p) & (SET_SLOTS - 1);
    __atomic_fetch_or(&homes[home / 64], 1ull << (home % 64), __ATOMIC_RELAXED);
    homes_dirty = 1;
    put(set, set_cap, (uintptr_t)p, size);
    set_filled++; /* counts a reused deleted slot again: at worst an early move */
    set_live++;
    set_live_bytes += (long)size;
  }
  unlock();
}

void nc_alloc_forget(void *p)
{
  if (!p)
    return;
  size_t home = slot_of((uintptr_t)p) & (SET_SLOTS - 1);
  if (!(__atomic_load_n(&homes[home / 64], __ATOMIC_RELAXED) >> (home % 64) & 1))
    return; /* no block whose probe starts at its slot was remembered: not in the set */
  lock();
  if (set && set_live > 0) {
    size_t i = slot_of((uintptr_t)p) & (set_cap - 1);
    for (; set[i].ptr != 0; i = (i + 1) & (set_cap - 1)) {
      if (set[i].ptr != (uintptr_t)p)
        continue;
      freed[freed_next++ % FREED_RING] = set[i];
      set[i].ptr = 1;
      set_live--;
      set_live_bytes -= (long)set[i].size;
      break;
    }
  }
  unlock();
}

void nc_alloc_reset(void)
{
  lock();
  /* Fresh pages instead of clearing the set: the kernel zeroes them lazily. */
  if (set)
    munmap(set, set_cap * sizeof(block));
  set = NULL;
  set_cap = set_filled = 0;
  /* Only when written: a reset in a forked child then copies no page. */
  for (size_t w = 0; homes_dirty && w < SET_SLOTS / 64; w++)
    __atomic_store_n(&homes[w], 0, __ATOMIC_RELAXED);
  homes_dirty = 0;
  set_live = set_live_bytes = 0;
  memset(freed, 0, sizeof(freed));
  unlock();
  atomic_store(&counted, 0);
  atomic_store(&fail_at, 0);
}

void nc_alloc_get_stats(nc_alloc_stats *out)
{
  lock();
  out->live = set_live;
  out->live_bytes = set_live_bytes;
  unlock();
  out->allocations = atomic_load(&counted);
}

int nc_alloc_recently_freed(const void *p)
{
  uintptr_t a = (uintptr_t)p;
  lock();
  int hit = 0;
  for (unsigned i = 0; i < FREED_RING && !hit; i++)
    hit = freed[i].ptr > 1 && a >= freed[i].ptr && a < freed[i].ptr + freed[i].size;
  unlock();
  return hit;
}

/* Decides about one counted allocation: 1 when it must fail. */
int nc_alloc_inject(void)
{
  nc_alloc_watch_event();
  long n = atomic_fetch_add(&counted, 1) + 1;
  long at = atomic_load(&fail_at);
  if (at && (n == at || (fail_persistent && n > at))) {
    atomic_store(&fired, 1);
    return 1;
  }
  return 0;
}

