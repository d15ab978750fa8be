/* SPDX-License-Identifier: Apache-2.0 */
#include "device_watch.h"

#include <pthread.h>
#include <stdint.h>

#include "context.h"
#include "cuda.h"
#include "fork_lock.h"
#include "services.h"
#include "violations.h"

/* Tables a case keeps at once are few; an evicted entry only means that
 * table's callbacks go unjudged. */
#define WATCHED_TABLES 64

typedef struct watched_table {
  const void *self;
  nve_buffer_location_t location;
  int32_t device;
  int location_known, device_known;
} watched_table;

static struct {
  pthread_mutex_t lock;
  watched_table list[WATCHED_TABLES];
  unsigned next; /* the slot to reuse when all are taken */
} tables = {.lock = PTHREAD_MUTEX_INITIALIZER};
NC_FORK_SAFE_MUTEX(tables.lock, tables)

/* Whether this thread is in a watched op, and the table's device then. */
static _Thread_local struct {
  int open;
  int device;
} watching;

/* The entry for self (made when make is set), or NULL. Called locked. */
static watched_table *entry(const void *self, int make)
{
  for (int i = 0; i < WATCHED_TABLES; i++)
    if (tables.list[i].self == self)
      return &tables.list[i];
  if (!make)
    return NULL;
  for (int i = 0; i < WATCHED_TABLES; i++)
    if (!tables.list[i].self)
      return &tables.list[i];
  watched_table *e = &tables.list[tables.next++ % WATCHED_TABLES];
  *e = (watched_table){0};
  return e;
}

/* Remembers one answer of self: its location, or its device. */
static void remember(const void *self, int is_location, int value)
{
  if (!self || !nc_cuda_simulated())
    return;
  pthread_mutex_lock(&tables.lock);
  watched_table *e = entry(self, 1);
  e->self = self;
  if (is_location)
    e->location = (nve_buffer_location_t)value, e->location_known = 1;
  else
    e->device = value, e->device_known = 1;
  pthread_mutex_unlock(&tables.lock);
}

void nc_device_watch_location(const void *self, nve_buffer_location_t location)
{
  remember(self, 1, (int)location);
}

void nc_device_watch_device(const void *self, int32_t device) { remember(self, 0, device); }

void nc_device_watch_forget(const void *self)
{
  pthread_mutex_lock(&tables.lock);
  watched_table *e = self ? entry(self, 0) : NULL;
  if (e)
    *e = (watched_table){0};
  pthread_mutex_unlock(&tables.lock);
}

/* The device of self when it is a DEVICE table with a valid device ID, or
 * -1 (not judged). */
static int device_of(const void *self)
{
  pthread_mutex_lock(&tables.lock);
  const watched_table *e = entry(self, 0);
  int device = e && e->location_known && e->device_known &&
                       e->location == NVE_BUFFER_LOCATION_DEVICE
                   ? e->device
                   : -1;
  pthread_mutex_unlock(&tables.lock);
  return device >= 0 && device < nc_cuda_device_count() ? device : -1;
}

void nc_device_watch_begin(const void *self)
{
  watching.open = 0;
  if (!nc_cuda_simulated())
    return;
  int device = device_of(self);
  if (device < 0)
    return;
  watching.open = 1;
  watching.device = device;
  /* The host's promise: allocations are the plugin's choice only when the
   * table's device was current on entry. */
  nc_cuda_scope_begin(nc_cuda_get_device() == device ? device : -1);
}

void nc_device_watch_end(nve_ext_context_t ctx, const char *op)
{
  if (!watching.open)
    return;
  watching.open = 0;
  int wrong_allocs = 0, wrong_device = -1;
  void *streams[8];
  int nstreams = nc_cuda_scope_end(&wrong_allocs, &wrong_device, streams, 8);
  if (!op)
    op = "a table op";
  if (nstreams < 0)
    return;
  if (wrong_allocs > 0)
    nc_violation_recordf(NC_RULE_DEV_08,
                         "%s made %d allocation%s on device %d; the table reports device %d", op,
                         wrong_allocs, wrong_allocs == 1 ? "" : "s", wrong_device,
                         watching.device);
  /* Judged only where the plugin could ask for the context's streams. */
  if (!ctx || !ctx->cuda_streams || !nc_services_streams_offered())
    return;
  /* No stream values in the text: they differ between runs. */
  for (int i = 0; i < nstreams; i++) {
    uintptr_t s = (uintptr_t)streams[i];
    if (s == ctx->lookup_stream || s == ctx->modify_stream)
      continue;
    nc_violation_recordf(NC_RULE_DEV_08,
                         "%s did async work on %s, not on the context's lookup or modify stream",
                         op, s ? "a stream the context did not give" : "the default stream");
  }
}
