/* SPDX-License-Identifier: Apache-2.0 */
/* What a host does for a DEVICE table, and the harness with it: streams on
 * the table's device for the contexts of its ops, that device current
 * around each op, and device copies of the buffers it passes (doc/contract.md#buffers). For a HOST table every call here is a no-op and buffers stay
 * on the host. */
#ifndef NC_CASES_DEVICE_FEED_H
#define NC_CASES_DEVICE_FEED_H

#include <stddef.h>

#include "calls.h"
#include "case_api.h"

typedef struct nc_device_feed {
  int device;       /* the table's device; -1 for a HOST table */
  int caller;       /* the device current when the feed began */
  void *streams[2]; /* the contexts' lookup and modify streams */
} nc_device_feed;

/* Sets the feed up for a table in this location (and device). 0, or -1
 * after recording a harness error (streams could not be made). */
int nc_feed_begin(nc_case *c, nve_buffer_location_t location, int device, nc_device_feed *d);
/* The same for table t, whose location (and device) it asks. */
int nc_feed_begin_for(nc_case *c, const nve_ext_table_t *t, nc_device_feed *d);
/* Contexts without streams again, the streams gone, the caller's device
 * current. */
void nc_feed_end(nc_device_feed *d);
/* What the host does before each op: the table's device current on the
 * calling thread, and this feed's streams in the contexts. */
void nc_feed_enter(const nc_device_feed *d);

/* Device memory on the feed's device (NULL when out of memory), copies to
 * and from it (0 or the runtime's error code), and its release. */
void *nc_feed_alloc(const nc_device_feed *d, size_t size);
int nc_feed_put(void *dev, const void *host, size_t size);
int nc_feed_get(void *host, const void *dev, size_t size);
void nc_feed_free(void *dev);

#endif
