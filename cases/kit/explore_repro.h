/* SPDX-License-Identifier: Apache-2.0 */
/* The C reproducer of an explorer failure: a program of its own (the ABI
 * headers only) that loads the plugin, replays the shortest failing
 * sequence and exits 1 while the defect persists (cases/kit/repro_runtime.c). */
#ifndef NC_EXPLORE_REPRO_H
#define NC_EXPLORE_REPRO_H

#include "explore_seq.h"

/* With --repro, writes the reproducer of the failure of steps[0..len),
 * charged to owner, into the run's scratch; name gets its file name.
 * standalone: the steps were seen to fail in a process of their own
 * (nc_x_shrunk); without it the program calls an agreement inconclusive
 * (exit 3), never "fixed". 0, or -1 (none written: not asked, or the
 * sequence is too large). */
int nc_x_write_repro(nc_case *c, const nc_x_seq *q, const nc_x_step *steps, size_t len,
                     const nc_x_table_shape *sh, nc_rule owner, int standalone, char *name,
                     size_t namelen);

#endif
