/* SPDX-License-Identifier: Apache-2.0 */
/* The NVE services the harness offers a plugin (doc/contract.md#services): a real
 * thread pool behind num_workers, execute_n and execute_n_wg, per-context
 * streams and scratch, and an error channel. Every misuse a host could
 * survive is recorded as a violation of its rule (violations.h):
 *   SVC-03 get_scratch from inside a task     SVC-04 a retired context
 *   SVC-05 a scratch pointer used after growth SVC-06 invalid arguments
 *   SVC-08 execute_n from inside a task        VER-06 a service beyond struct_size */
#ifndef NC_SERVICES_H
#define NC_SERVICES_H

#include "context.h"
#include "plugin/nve_external_plugin.h"

/* The process-lifetime services table handed over in the handshake. */
const nve_ext_nve_services_t *nc_services_table(void);

/* A table from a newer host: struct_size 128, the fields after 1.0 are
 * traps that record a call (VER-05). */
const nve_ext_nve_services_t *nc_services_table_newer(void);

/* A table from an older host whose struct_size ends before field_offset;
 * the missing entries are traps that record a VER-06 violation and then do
 * the service's work. */
const nve_ext_nve_services_t *nc_services_table_truncated(size_t struct_size);

/* The table the plugin was last handed (nc_call_set_services records it),
 * and whether it lets the plugin ask for the context's streams: both
 * stream services within its struct_size and neither made to fail. A
 * plugin that cannot ask may work on the default stream (DEV-08). */
void nc_services_note_handed(const nve_ext_nve_services_t *svc);
int nc_services_streams_offered(void);

/* ERR-06: makes every call of the named service fail with
 * NVE_ERROR_RUNTIME from now on (NULL: none), and counts calls. Both
 * concern calls made with a live context (during the op it was issued
 * for), on any thread. */
void nc_services_fail(const char *service);
long nc_services_calls(const char *service);

#endif
