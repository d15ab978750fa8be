/* SPDX-License-Identifier: Apache-2.0 */
/* The NVE services the harness offers a plugin (abi.md section 6), and the
 * per-operation contexts handed to table callbacks.
 *
 * This implementation runs tasks on the calling thread in index order and
 * validates every argument; the instrumented thread pool replaces it. */
#ifndef NC_SERVICES_H
#define NC_SERVICES_H

#include "plugin/nve_external_plugin.h"

/* The process-lifetime services table handed over in the handshake. */
const nve_ext_nve_services_t *nc_services_table(void);

/* A context for one table operation; release it when the op returns. */
nve_ext_context_t nc_context_acquire(void);
void nc_context_release(nve_ext_context_t ctx);

#endif
