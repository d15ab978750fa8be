/* SPDX-License-Identifier: Apache-2.0 */
/* Replays of the explorer's sequences in a fresh process: one forked
 * before the case made its first table, so that what the plugin keeps
 * from tables made and destroyed earlier in the case (a free list, a
 * cache, a process-wide count) is not there. A shortest failing sequence
 * that agrees there fails only after the process's earlier tables: its
 * failure needs them (LIF-02's), and a reproducer made of its steps alone,
 * run in a process of its own, would not fail. */
#ifndef NC_EXPLORE_FRESH_H
#define NC_EXPLORE_FRESH_H

#include "explore_history.h"
#include "explore_run.h"

/* A replay in a fresh process may take this long, beyond NC_X_FRESH_FACTOR
 * times what it took in the case's own process: a plugin that hangs in a
 * forked child (a lock its thread held at the fork) costs that, and then
 * the case's fresh replays stop. */
#define NC_X_FRESH_SLACK_S 5.0
#define NC_X_FRESH_FACTOR 20.0

/* Forks the replayer; an explorer case calls it before its first table.
 * Without it (a real CUDA runtime, which does not survive fork; no
 * process left to fork), nc_x_fresh_agrees says it cannot tell. */
void nc_x_fresh_start(nc_case *c);

/* Whether fresh replays can be made in this case. */
int nc_x_fresh_available(void);
/* Whether count steps of q are small enough to send to the replayer. */
int nc_x_fresh_fits(const nc_x_seq *q, size_t count);
/* Whether this case had a replayer and lost it (a replay hung, or the
 * replayer could not be talked to): what a fresh replay would have shown
 * is unknown from then on, unlike a case that never had one (a real CUDA
 * runtime, --no-fork). */
int nc_x_fresh_lost(void);

/* Replays steps[0..count) of q (toggles and alone_slot as nc_x_replay) in
 * a child of the replayer: 0 with fail filled as nc_x_replay fills it, or
 * -1 when it cannot tell (no replayer, the replay could not run or
 * crashed, the sequence is too large to send, or the deadline passed). */
int nc_x_fresh_replay(const nc_x_seq *q, const nc_x_step *steps, size_t count, unsigned toggles,
                      int alone_slot, double deadline, nc_x_failure *fail);

/* The same, after the replays before[0..nbefore) in the same child, in
 * order: what a failure that needs earlier tables needs of them. 1 when
 * one of those disagreed or made no table (fail still filled). */
int nc_x_fresh_replay_after(const nc_x_segment *before, size_t nbefore, const nc_x_seq *q,
                            const nc_x_step *steps, size_t count, unsigned toggles,
                            int alone_slot, double deadline, nc_x_failure *fail);

#endif
