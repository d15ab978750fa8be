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
 * come back here. */
#define SPARE 16
static struct {
  pthread_mutex_t lock;
  struct spare {
    unsigned char *map;
    size_t body;
  } list[SPARE];
  int count;
} spares = {PTHREAD_MUTEX_INITIALIZER, {{0}}, 0};
NC_FORK_SAFE_MUTEX(spares.lock, spares)

static unsigned char *take_spare(size_t body, size_t *got)
{
  unsigned char *map = NULL;
  pthread_mutex_lock(&spares.lock);
  for (int i = 0; i < spares.count; i++)
    if (spares.list[i].body >= body && spares.list[i].body <= 4 * body) {
      map = spares.list[i].map;
      *got = spares.list[i].body;
      spares.list[i] = spares.list[--spares.count];
      break;
    }
  pthread_mutex_unlock(&spares.lock);
  return map;
}

/* 1 when kept for reuse, 0 when the caller must unmap it. */
static int keep_spare(unsigned char *map, size_t body)
{
  int kept = 0;
  pthread_mutex_lock(&spares.lock);
  if (spares.count < SPARE) {
    spares.list[spares.count++] = (struct spare){map, body};
    kept = 1;
  }
  pthread_mutex_unlock(&spares.lock);
  return kept;
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
 * mod 256. Two periods in a table let any salt start a block copy. */
#define PERIOD 256

static unsigned char pattern[2 * PERIOD];

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

void nc_canary_fill(void *p, size_t len, size_t salt)
{
  const unsigned char *from = pattern_table() + salt % PERIOD;
  unsigned char *b = p;
  size_t done = len < PERIOD ? len : PERIOD;
  memcpy(b, from, done);
  /* The pattern repeats every PERIOD bytes: copy what is written, doubling. */
  while (done < len) {
    size_t n = len - done < done ? len - done : done;
    memcpy(b + done, b, n);
    done += n;
  }
}

long nc_canary_damage(const void *p, size_t len, size_t salt)
{
  const unsigned char *from = pattern_table() + salt % PERIOD;
  const unsigned char *b = p;
  for (size_t done = 0; done < len; done += PERIOD) {
    size_t n = len - done < PERIOD ? len - done : PERIOD;
    if (memcmp(b + done, from, n) == 0)
      continue;
    for (size_t i = 0; i < n; i++)
      if (b[done + i] != from[i])
        return (long)(done + i);
  }
  return -1;
}

int nc_guarded_alloc(nc_guarded *g, const char *name, size_t size)
{
  memset(g, 0, sizeof(*g));
  g->slot = -1;
  size_t padded = round_up(size ? size : 1, 16);
  size_t body = round_up(NC_GUARD_FRONT + padded, page_size());
  unsigned char *map = take_spare(body, &body);
  if (!map) {
    map = mmap(NULL, body + GUARD_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
               -1, 0);
    if (map == MAP_FAILED)
      return -1;
    mprotect(map + body, GUARD_BYTES, PROT_NONE);
  }
  size_t len = body + GUARD_BYTES;
  g->data = map + body - padded;
  g->size = size;
  g->body = body;
  nc_canary_fill(map, (size_t)(g->data - map), 0);
  memset(g->data, 0, size);
  nc_canary_fill(g->data + size, padded - size, size);
  for (int i = 0; i < REGISTRY; i++) {
    registered *r = &registry[i];
    int expected = 0;
    if (!atomic_compare_exchange_strong(&r->live, &expected, -1))
      continue; /* taken, or being set up */
    r->map = (uintptr_t)map;
    r->map_len = len;
    r->guard = (uintptr_t)(map + body);
    r->data = (uintptr_t)g->data;
    r->size = size;
    snprintf(r->name, sizeof(r->name), "%s", name);
    atomic_store(&r->reported, 0);
    atomic_store(&r->live, 1);
    g->slot = i;
    break;
  }
  return 0;
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
  if (!(g->slot >= 0 && guard_intact && keep_spare(map, g->body)))
    munmap(map, g->body + GUARD_BYTES);
  g->data = NULL;
}

int nc_guarded_edges_damaged(const nc_guarded *g, char *what, size_t whatlen)
{
  if (!g->data)
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
