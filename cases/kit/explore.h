/* SPDX-License-Identifier: Apache-2.0 */
/* The call-space explorer: one stateful generator of table calls, checked
 * against the model after every call (doc/rules.md#tbl-11).
 *
 * A run is a series of sequences on fresh tables. Each sequence enables a
 * random subset of the actions and key relations (swarm testing; the
 * first enables all of them), draws every parameter relative to what the
 * tables hold, and grows its tables geometrically deeper than the one
 * before, until the run's budget of checked keys is spent. A sequence that
 * disagrees with the model is shrunk (steps, then parameters) and replayed
 * with each of its features switched off, to find what the failure
 * depends on; that feature's rule, or the op's, is blamed. */
#ifndef NC_EXPLORE_H
#define NC_EXPLORE_H

#include <stdint.h>

#include "case_api.h"

/* Checked keys per second of budget: --budget SECONDS is turned into work
 * at this nominal rate, never by a clock, so that one seed gives one
 * report on any machine at any load. */
#define NC_EXPLORE_KEYS_PER_S 2000000.0
/* A key of a row longer than this counts as row / NC_EXPLORE_ROW_BYTES
 * keys of the budget. */
#define NC_EXPLORE_ROW_BYTES 256

/* Runs the explorer for case c and records its verdict evidence (FAIL
 * with the shortest sequence found, or notes of what it reached). */
void nc_explore(nc_case *c);
/* LIF-03's view of the explorer: sequences with every lifecycle event,
 * each judged only on what the plugin still holds once everything is
 * destroyed (FAIL with the shortest such sequence). Needs the allocation
 * accounting (nc_alloc_available). */
void nc_explore_leaks(nc_case *c);
/* LIF-01's and LIF-02's view: the same sequences judged as TBL-11's, a
 * disagreement FAIL for the case's rule when the blame replays show it
 * needs that rule's lifecycle event (the factory destroyed before the
 * table; another table alive, or one destroyed before). */
void nc_explore_lifecycle(nc_case *c);
/* The op's view for its case (TBL-02 insert, TBL-06 update, TBL-07
 * update_accumulate, TBL-08 erase, rules.h's NC_SWEPT_OPS): the same
 * generator with that op weighted up, writes past max_row_size among the
 * calls, failures blamed as TBL-11's; records what it covered of the op's
 * calls (the report's coverage section). */
void nc_explore_directed(nc_case *c);

#endif
