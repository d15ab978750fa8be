/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "context.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fork_lock.h"
#include "safe_text.h"
#include "violations.h"

#define CONTEXT_MAGIC 0x4e564543u /* "NVEC" */
#define RETIRED_MAX 1024

/* Pages that plugin code must no longer touch. */
typedef struct retired_region {
  uintptr_t base;
  size_t len;
  char what[200]; /* why it is retired, for the violation text */
  nc_rule rule;
  _Atomic int live;
} retired_region;

static retired_region retired[RETIRED_MAX];
/* The CUDA streams contexts hand out (set for device tables), else none. */
static void *device_streams[2];
static atomic_size_t retired_next;
static _Atomic uint32_t generations;

static size_t page_size(void)
{
  static size_t ps;
  if (!ps)
    ps = (size_t)sysconf(_SC_PAGESIZE);
  return ps;
}

/* Makes a region inaccessible and remembers why; once the list is full,
 * the oldest region is unmapped for good ("only later recycled"). */
static void retire_region(void *base, size_t len, nc_rule rule, const char *what)
{
  size_t slot = atomic_fetch_add(&retired_next, 1) % RETIRED_MAX;
  retired_region *r = &retired[slot];
  if (atomic_exchange(&r->live, 0))
    munmap((void *)r->base, r->len + page_size());
  mprotect(base, len, PROT_NONE);
  r->base = (uintptr_t)base;
  r->len = len;
  r->rule = rule;
  snprintf(r->what, sizeof(r->what), "%s", what);
  atomic_store(&r->live, 1);
}

int nc_context_recover_fault(const void *addr)
{
  uintptr_t a = (uintptr_t)addr;
  for (size_t i = 0; i < RETIRED_MAX; i++) {
    retired_region *r = &retired[i];
    if (!atomic_load(&r->live) || a < r->base || a >= r->base + r->len)
      continue;
    /* In the fault handler: no snprintf. */
    char text[NC_VIOLATION_TEXT];
    nc_safe_text t;
    nc_safe_text_init(&t, text, sizeof(text));
    nc_safe_text_str(&t, r->what);
    nc_safe_text_str(&t, "; touched at offset ");
    nc_safe_text_unsigned(&t, (unsigned long)(a - r->base));
    nc_violation_record(r->rule, text);
    mprotect((void *)r->base, r->len, PROT_READ | PROT_WRITE);
    atomic_store(&r->live, 0); /* it stays mapped, never reused */
    return 1;
  }
  return 0;
}

/* Retired contexts wait here before their memory is reused. */
static struct {
  pthread_mutex_t lock;
  nve_ext_context_t ring[NC_CONTEXT_QUARANTINE];
  size_t head, count;
  nve_ext_context_t free_list; /* linked through lookup_stream */
} quarantine = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, 0, NULL};
NC_FORK_SAFE_MUTEX(quarantine.lock, quarantine)

nve_ext_context_t nc_context_acquire(const char *op)
{
  pthread_mutex_lock(&quarantine.lock);
  nve_ext_context_t ctx = quarantine.free_list;
  if (ctx)
    quarantine.free_list = (nve_ext_context_t)ctx->lookup_stream;
  pthread_mutex_unlock(&quarantine.lock);
  if (!ctx)
    ctx = malloc(sizeof(*ctx));
  if (!ctx)
    return NULL;
  memset(ctx, 0, sizeof(*ctx));
  ctx->magic = CONTEXT_MAGIC;
  ctx->generation = atomic_fetch_add(&generations, 1) + 1;
  size_t oplen = strnlen(op, sizeof(ctx->op) - 1);
  memcpy(ctx->op, op, oplen);
  ctx->op[oplen] = '\0';
  static _Thread_local pid_t tid; /* gettid is a system call: once per thread */
  if (!tid)
    tid = (pid_t)syscall(SYS_gettid);
  ctx->issuing_thread = tid;
  if (device_streams[0]) {
    ctx->lookup_stream = (uintptr_t)device_streams[0];
    ctx->modify_stream = (uintptr_t)device_streams[1];
    ctx->cuda_streams = 1;
  } else { /* no runtime: values no real stream has */
    ctx->lookup_stream = 0x5c0000u + 2 * ctx->generation;
    ctx->modify_stream = 0x5c0001u + 2 * ctx->generation;
  }
  return ctx;
}

void nc_context_use_streams(void *lookup, void *modify)
{
  device_streams[0] = lookup;
  device_streams[1] = modify;
}

void nc_context_release(nve_ext_context_t ctx)
{
  if (!ctx)
    return;
  atomic_store(&ctx->retired, 1);
  for (int i = 0; ctx->scratch && i < NC_SCRATCH_SLOTS; i++) {
    nc_scratch *s = &ctx->scratch[i];
    if (!s->ptr)
      continue;
    char what[200];
    snprintf(what, sizeof(what), "scratch '%s' of context #%u (%s), used after that op returned",
             s->name, (unsigned)ctx->generation, ctx->op);
    retire_region(s->ptr, s->map_size, NC_RULE_SVC_04, what);
    s->ptr = NULL;
  }
  free(ctx->scratch);
  ctx->scratch = NULL;
  pthread_mutex_lock(&quarantine.lock);
  if (quarantine.count == NC_CONTEXT_QUARANTINE) {
    /* The oldest retired context has waited long enough: reuse it. */
    nve_ext_context_t oldest = quarantine.ring[quarantine.head];
    oldest->lookup_stream = (uintptr_t)quarantine.free_list;
    quarantine.free_list = oldest;
    quarantine.count--;
    quarantine.head = (quarantine.head + 1) % NC_CONTEXT_QUARANTINE;
  }
  quarantine.ring[(quarantine.head + quarantine.count) % NC_CONTEXT_QUARANTINE] = ctx;
  quarantine.count++;
  pthread_mutex_unlock(&quarantine.lock);
}

int nc_context_state(nve_ext_context_t ctx)
{
  if (!ctx || ctx->magic != CONTEXT_MAGIC)
    return -1;
  return atomic_load(&ctx->retired) ? 0 : 1;
}

/* A mapping of at least size bytes, with an inaccessible page after it, so
 * running off the end of the mapping faults too. */
static void *map_buffer(size_t size, size_t *map_size)
{
  size_t ps = page_size();
  size_t len = (size + ps - 1) / ps * ps;
  if (len == 0)
    len = ps;
  char *base = mmap(NULL, len + ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return NULL;
  mprotect(base + len, ps, PROT_NONE);
  *map_size = len;
  return base;
}

nve_status_t nc_context_scratch(nve_ext_context_t ctx, const char *name, size_t size,
                                int host, void **out)
{
  if (!ctx->scratch && !(ctx->scratch = calloc(NC_SCRATCH_SLOTS, sizeof(nc_scratch))))
    return NVE_ERROR_OUT_OF_MEMORY;
  nc_scratch *slot = NULL, *free_slot = NULL;
  for (int i = 0; i < NC_SCRATCH_SLOTS; i++) {
    nc_scratch *s = &ctx->scratch[i];
    if (s->ptr && strcmp(s->name, name) == 0 && s->host == host)
      slot = s;
    else if (!s->ptr && !free_slot)
      free_slot = s;
  }
  if (slot && slot->size >= size) {
    *out = slot->ptr;
    return NVE_SUCCESS;
  }
  if (!slot && !free_slot)
    return NVE_ERROR_OUT_OF_MEMORY;
  size_t map_size;
  void *p = map_buffer(size, &map_size);
  if (!p)
    return NVE_ERROR_OUT_OF_MEMORY;
  if (slot) {
    memcpy(p, slot->ptr, slot->size);
    char what[200];
    snprintf(what, sizeof(what),
             "scratch '%s' of context #%u (%s) grew from %zu to %zu bytes; a pointer to the "
             "old buffer was used",
             name, (unsigned)ctx->generation, ctx->op, slot->size, size);
    retire_region(slot->ptr, slot->map_size, NC_RULE_SVC_05, what);
  } else {
    slot = free_slot;
    snprintf(slot->name, sizeof(slot->name), "%s", name);
    slot->host = host;
  }
  slot->ptr = p;
  slot->size = size;
  slot->map_size = map_size;
  *out = p;
  return NVE_SUCCESS;
}
