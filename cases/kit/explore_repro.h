/* SPDX-License-Identifier: Apache-2.0 */
/* The C reproducer of an explorer failure: a program of its own (the ABI
 * headers only) that loads the plugin, replays the shortest failing
 * sequence and exits 1 while the defect persists (cases/kit/repro_runtime.c). */
#ifndef NC_EXPLORE_REPRO_H
#define NC_EXPLORE_REPRO_H

#include "explore_history.h"

/* With --repro, writes the reproducer of a failure, charged to owner,
 * into the run's scratch; name gets its file name. replays: the replays
 * it makes, in order, each from a fresh factory (the failing one last,
 * any before it those the failure needs, NC_XD_EARLIER_TABLES), each
 * under its toggles. standalone: they were seen to fail in a process of
 * their own (nc_x_shrunk); without it the program calls an agreement
 * inconclusive (exit 3), never "fixed". 0, or -1 (none written: not
 * asked, the replays too large, or under toggles no list of steps says). */
int nc_x_write_repro(nc_case *c, const nc_x_segment *replays, size_t nreplays,
                     const nc_x_table_shape *sh, nc_rule owner, int standalone, char *name,
                     size_t namelen);

#endif
