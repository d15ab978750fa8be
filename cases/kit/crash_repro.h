/* SPDX-License-Identifier: Apache-2.0 */
/* C reproducers for cases that plugin code ended (--repro): a case process
 * that died inside a table call leaves no sequence to shrink, but its
 * crash log (lib/host/call_log.h) holds every table call it made, up to
 * the one it died in. A process of its own then replays those calls with
 * the least host the contract allows (crash_runtime.c) in children of its
 * own: if one dies as the case did, it cuts the calls down to those the
 * death needs and writes the reproducer, the runtime with those calls as
 * data. */
#ifndef NC_CRASH_REPRO_H
#define NC_CRASH_REPRO_H

#include "case_api.h"

/* In the process the runner starts for it: replays c's rule's crash log,
 * where the case ended as `how` says ("signal:N", "exit:N" or "hang"),
 * and writes the reproducer; notes "C reproducer" either way. */
void nc_crash_repro(nc_case *c, const char *how);

#endif
