/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "guarded.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "big_alloc.h"
#include "fork_lock.h"
#include "safe_text.h"
#include "violations.h"

/* Generous, so a row written past the end stays inside the guard even for
 * wide rows. PROT_NONE pages cost no memory. */
#define GUARD_BYTES (64u * 1024u)
#define REGISTRY 256

typedef struct registered {
  _Atomic int live;
  _Atomic int reported;
  uintptr_t map, guard; /* mapping start; guard region start */
  size_t map_len;
  uintptr_t data;
  size_t size;
  char name[48];
} registered;

static registered registry[REGISTRY];

/* Unmapped buffers kept for reuse: mapping and protecting pages is most of
 * the cost of a checked call. Only buffers whose guard was never opened
 * come back here. A spare is taken for a buffer of about its size only:
 * the room in front of the data is front canary, filled and checked on
 * every use. */
#define SPARE 16
static struct {
  pthread_mutex_t lock;
  struct spare {
    unsigned char *map;
    size_t body;
  } list[SPARE]; /* oldest first */
  int count;
} spares = {PTHREAD_MUTEX_INITIALIZER, {{0}}, 0};
NC_FORK_SAFE_MUTEX(spares.lock, spares)

static size_t page_size(void);

/* The most room a spare may have beyond body. With canaries, as much as
 * body: the room is front canary, filled and checked on every use, which
 * still costs less than the page fault (and zeroing) per page of a fresh
 * mapping. Without, three times body: a larger mapping costs nothing. */
static size_t spare_slack(size_t body, int canaries)
{
  if (!canaries)
    return 3 * body;
  return body > page_size() ? body : page_size();
}

static unsigned char *take_spare(size_t body, int canaries, size_t *got)
{
  unsigned char *map = NULL;
  pthread_mutex_lock(&spares.lock);
  for (int i = spares.count - 1; i >= 0; i--) /* the newest is the warmest */
    if (spares.list[i].body >= body && spares.list[i].body - body <= spare_slack(body, canaries)) {
      map = spares.list[i].map;
      *got = spares.list[i].body;
      memmove(&spares.list[i], &spares.list[i + 1],
              (size_t)(spares.count - i - 1) * sizeof(spares.list[0]));
      spares.count--;
      break;
    }
  pthread_mutex_unlock(&spares.lock);
  return map;
}

/* Keeps a buffer for reuse. When the list is full the oldest spare makes
 * room: its mapping is returned for the caller to unmap (*len set), else
 * NULL. */
static unsigned char *keep_spare(unsigned char *map, size_t body, size_t *len)
{
  unsigned char *evicted = NULL;
  pthread_mutex_lock(&spares.lock);
  if (spares.count == SPARE) {
    evicted = spares.list[0].map;
    *len = spares.list[0].body + GUARD_BYTES;
    memmove(&spares.list[0], &spares.list[1], (SPARE - 1) * sizeof(spares.list[0]));
    spares.count--;
  }
  spares.list[spares.count++] = (struct spare){map, body};
  pthread_mutex_unlock(&spares.lock);
  return evicted;
}

static size_t page_size(void)
{
  static size_t ps;
  if (!ps)
    ps = (size_t)sysconf(_SC_PAGESIZE);
  return ps;
}

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

/* The pattern repeats every 256 bytes: byte i is 0xa5 ^ ((i + salt) * 131)
 * mod 256. The table holds a block of periods and one more, so that any
 * salt starts a copy or a compare of up to BLOCK bytes from it: filling is
 * a stream of writes from a block in cache, checking a memcmp per block. */
#define PERIOD 256
#define BLOCK 4096

static unsigned char pattern[BLOCK + PERIOD];

static void make_pattern(void)
{
  for (size_t i = 0; i < sizeof(pattern); i++)
    pattern[i] = (unsigned char)(0xa5u ^ (i * 131u));
}

static const unsigned char *pattern_table(void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, make_pattern);
  return pattern;
}

/* The C library's copy, called: inlined for a size known to be at most
 * BLOCK, the compiler's string move is slower on unaligned blocks. */
static void *(*volatile copy_block)(void *, const void *, size_t) = memcpy;

void nc_canary_fill(void *p, size_t len, size_t salt)
{
  const unsigned char *from = pattern_table() + salt % PERIOD;
  unsigned char *b = p;
  /* BLOCK is a multiple of PERIOD: every block starts at the same phase. */
  for (size_t done = 0; done < len; done += BLOCK)
    copy_block(b + done, from, len - done < BLOCK ? len - done : BLOCK);
}

long nc_canary_damage(const void *p, size_t len, size_t salt)
{
  const unsigned char *from = pattern_table() + salt % PERIOD;
  const unsigned char *b = p;
  for (size_t done = 0; done < len; done += BLOCK) {
    size_t n = len - done < BLOCK ? len - done : BLOCK;
    if (memcmp(b + done, from, n) == 0)
      continue;
    for (size_t i = 0; i < n; i++)
      if (b[done + i] != from[i])
        return (long)(done + i);
  }
  return -1;
}

/* Takes a free slot of the fault registry for the buffer; -1 when none. */
static int register_buffer(const nc_guarded *g, unsigned char *map, size_t len, const char *name)
{
  for (int i = 0; i < REGISTRY; i++) {
    registered *r = &registry[i];
    int expected = 0;
    if (!atomic_compare_exchange_strong(&r->live, &expected, -1))
      continue; /* taken, or being set up */
    r->map = (uintptr_t)map;
    r->map_len = len;
    r->guard = (uintptr_t)(map + g->body);
    r->data = (uintptr_t)g->data;
    r->size = g->size;
    snprintf(r->name, sizeof(r->name), "%s", name);
    atomic_store(&r->reported, 0);
    atomic_store(&r->live, 1);
    return i;
  }
  return -1;
}

int nc_guarded_alloc_with(nc_guarded *g, const char *name, size_t size, unsigned flags)
{
  memset(g, 0, sizeof(*g));
  g->slot = -1;
  size_t padded = round_up(size ? size : 1, 16);
  size_t body = round_up(NC_GUARD_FRONT + padded, page_size());
  int canaries = !(flags & NC_GUARDED_NO_CANARIES);
  unsigned char *map = take_spare(body, canaries, &body);
  int fresh = !map;
  if (fresh) {
    map = mmap(NULL, body + GUARD_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
               -1, 0);
    if (map == MAP_FAILED)
      return -1;
    mprotect(map + body, GUARD_BYTES, PROT_NONE);
    nc_big_advise(map, body);
  }
  g->data = map + body - padded;
  g->size = size;
  g->body = body;
  g->canaries = canaries;
  if (canaries) {
    nc_canary_fill(map, (size_t)(g->data - map), 0);
    nc_canary_fill(g->data + size, padded - size, size);
  }
  if (!(flags & NC_GUARDED_UNZEROED) && !fresh) /* a fresh mapping reads as zeros */
    memset(g->data, 0, size);
  g->slot = register_buffer(g, map, body + GUARD_BYTES, name);
  return 0;
}

int nc_guarded_alloc(nc_guarded *g, const char *name, size_t size)
{
  return nc_guarded_alloc_with(g, name, size, 0);
}

static uintptr_t map_start(const nc_guarded *g)
{
  size_t padded = round_up(g->size ? g->size : 1, 16);
  return (uintptr_t)g->data + padded - g->body;
}

void nc_guarded_free(nc_guarded *g)
{
  if (!g->data)
    return;
  int guard_intact = 1;
  if (g->slot >= 0) {
    guard_intact = !atomic_load(&registry[g->slot].reported);
    atomic_store(&registry[g->slot].live, 0);
  }
  unsigned char *map = (unsigned char *)map_start(g);
  size_t len = g->body + GUARD_BYTES;
  if (g->slot >= 0 && guard_intact)
    map = keep_spare(map, g->body, &len);
  if (map)
    munmap(map, len);
  g->data = NULL;
}

int nc_guarded_edges_damaged(const nc_guarded *g, char *what, size_t whatlen)
{
  if (!g->data || !g->canaries)
    return 0;
  const unsigned char *map = (const unsigned char *)map_start(g);
  size_t front = (size_t)(g->data - map);
  long at = nc_canary_damage(map, front, 0);
  if (at >= 0) {
    snprintf(what, whatlen, "%ld bytes before its start", (long)front - at);
    return 1;
  }
  size_t padded = round_up(g->size ? g->size : 1, 16);
  at = nc_canary_damage(g->data + g->size, padded - g->size, g->size);
  if (at >= 0) {
    snprintf(what, whatlen, "at offset %zu, %ld bytes past its end", g->size + (size_t)at, at);
    return 1;
  }
  return 0;
}

int nc_guarded_recover_fault(const void *addr, int is_write)
{
  uintptr_t a = (uintptr_t)addr;
  size_t ps = page_size();
  for (int i = 0; i < REGISTRY; i++) {
    registered *r = &registry[i];
    if (atomic_load(&r->live) != 1 || a < r->guard || a >= r->map + r->map_len)
      continue;
    if (!atomic_exchange(&r->reported, 1)) {
      /* In the fault handler: no snprintf. */
      char buf[NC_VIOLATION_TEXT];
      nc_safe_text t;
      nc_safe_text_init(&t, buf, sizeof(buf));
      nc_safe_text_str(&t, is_write > 0 ? "a write" : is_write == 0 ? "a read" : "an access");
      nc_safe_text_str(&t, " of ");
      nc_safe_text_str(&t, r->name);
      nc_safe_text_str(&t, " ");
      nc_safe_text_unsigned(&t, (unsigned long)(a - (r->data + r->size)));
      nc_safe_text_str(&t, " bytes past its end (offset ");
      nc_safe_text_unsigned(&t, (unsigned long)(a - r->data));
      nc_safe_text_str(&t, " of a ");
      nc_safe_text_unsigned(&t, (unsigned long)r->size);
      nc_safe_text_str(&t, "-byte buffer)");
      nc_violation_record(NC_RULE_TBL_04, buf);
    }
    mprotect((void *)(a & ~(uintptr_t)(ps - 1)), ps, PROT_READ | PROT_WRITE);
    return 1;
  }
  return 0;
}
