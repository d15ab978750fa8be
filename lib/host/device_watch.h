/* SPDX-License-Identifier: Apache-2.0 */
/* DEV-08 for every table callback of every case: a DEVICE table allocates
 * on the device it reports and does its async work on the context's
 * streams. The device each table reported is learned from the calls the
 * cases make anyway (never asked for this); around each table op the
 * simulated runtime watches the calling thread, and what breaks the rule
 * is recorded as a violation, so that it counts whichever case saw it.
 *
 * Allocations are judged only when the table's device was current on
 * entry (the host's promise, which a plugin may rely on), and only on the
 * calling thread: plugin-owned threads and execute_n tasks (on whichever
 * thread they run) are not judged. Streams are judged only where the
 * plugin could ask for the context's (its services table offers them and
 * they are not made to fail). Under the real runtime nothing is watched. */
#ifndef NC_DEVICE_WATCH_H
#define NC_DEVICE_WATCH_H

#include "plugin/nve_external_plugin.h"

/* What the table self answered to preferred_buffer_location / device_id. */
void nc_device_watch_location(const void *self, nve_buffer_location_t location);
void nc_device_watch_device(const void *self, int32_t device);
/* The table is gone (its address may come back for another one). */
void nc_device_watch_forget(const void *self);

/* Around one table op on self, on the calling thread: begin right before
 * the call, end right after it with the op's context and name (e.g.
 * "table find (n=64)"). */
void nc_device_watch_begin(const void *self);
void nc_device_watch_end(nve_ext_context_t ctx, const char *op);

#endif
