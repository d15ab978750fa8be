/* SPDX-License-Identifier: Apache-2.0 */
/* Running the explorer's sequences on fresh tables (explore_seq.h), with
 * features switched off for blame experiments. */
#ifndef NC_EXPLORE_RUN_H
#define NC_EXPLORE_RUN_H

#include "explore_seq.h"

/* What a replay may switch off. */
#define NC_XT_MAIN_THREAD 1u  /* every step on the case's thread */
#define NC_XT_OUTPUTS 2u      /* finds get every optional output */
#define NC_XT_NO_MASK 4u      /* no key resolved on entry */
#define NC_XT_KEEP_FACTORY 8u /* the factory is never destroyed early */
#define NC_XT_ALONE 16u       /* only the failing table's steps */
#define NC_XT_PLAIN_STRIDE 32u /* strides equal to the least stride */
#define NC_XT_KEEP_TABLES 64u  /* destroyed tables live on (unused) to the end */
/* Not a toggle but a view: the tables' answers are not judged (their
 * rules' cases own them), only what the plugin still holds once the
 * tables, the factory and the sequence's threads are gone (LIF-03). */
#define NC_XT_LEAKS 128u
/* A view's calls: every output, no resolved keys, the least stride, no
 * empty batch (the calls a host makes most; what the others break is the
 * table rules' to judge, and a crash there would leave the view's rule
 * untested). NC_XT_LEAKS implies it. */
#define NC_XT_PLAIN_CALLS 256u
/* Toggles again (512 is NC_XD_EARLIER_TABLES, explore_shrink.h). */
#define NC_XT_WHOLE_ROWS 1024u /* inserts and updates write whole rows */
#define NC_XT_ONE_CONFIG 2048u /* every produce uses the table config */
#define NC_XT_NO_OVERSIZE 4096u /* no write past max_row_size before a step, nor its keys stored */
#define NC_XT_NO_PAST_ROW 8192u /* the same, but its keys still stored */

typedef struct nc_x_failure {
  long at; /* the step after which a table disagreed; the count when none did */
  char why[768];
  nc_rule owners[2]; /* the rules the disagreement may break */
  int nowners;
  int counted; /* judged on the whole run's failed calls, not on one step */
  /* A check of the owner's own rule (a bootstrap call left a decoy device
   * changed), not a disagreement with the model: blamed on that rule,
   * whatever feature it depends on. */
  int direct;
  const char *expected; /* a direct failure's: what its rule expects */
} nc_x_failure;

typedef struct nc_x_replay_stats {
  int64_t keys;           /* keys the calls carried */
  int refused_produce;    /* another table was refused (steps on it skipped) */
  int64_t other_dtype[2]; /* accumulates in another dtype than the table's: refused, summed */
  int64_t counter_reads;  /* judged reads of a lookup counter */
  int64_t counter_most;   /* the most hits (or misses) one of them had to show */
  int64_t caps_reads;     /* capability re-reads between steps */
  int64_t decoys;         /* bootstrap calls made with a decoy device current */
  int64_t oversize[2];    /* writes past max_row_size: refused, taken */
  int64_t short_writes[2]; /* inserts and updates short of the row: refused, taken */
} nc_x_replay_stats;

/* Whether the runner sends this table writes past max_row_size (host
 * tables whose rows past it fit the harness's buffers). */
struct nc_table_caps;
int nc_x_oversize_possible(const struct nc_table_caps *caps);

/* The draws of a step's extra calls, from the step alone (the C
 * reproducer makes the same calls): whether it reads the capabilities again
 * after its op; whether a write past max_row_size goes before it (in a
 * sequence with NC_XF_OVERSIZE, a host table whose rows allow it), and the
 * seed of that write's keys. */
int nc_x_rereads_caps(const nc_x_seq *q, const nc_x_step *st);
int nc_x_oversized(const nc_x_seq *q, const nc_x_step *st);
/* The rule of the op of the latest of steps[0..len) made with a write past
 * max_row_size before it (a failure that needs that write is that op's). */
nc_rule nc_x_oversize_owner(const nc_x_seq *q, const nc_x_step *steps, size_t len);
uint64_t nc_x_oversize_seed(const nc_x_seq *q, const nc_x_step *st);
#define NC_X_OVERSIZE_BYTES (8 << 20) /* the most bytes of one such write's rows */
/* An update or accumulate past the row first stores this many of its keys
 * (whole rows), so that a table that takes it writes past stored rows. */
#define NC_X_OVERSIZE_STORED 64
#define NC_X_OVERSIZE_BYTE 0x3c /* every byte of such a write's rows */

/* Whether a step of action reads back what it changed (a probe). */
int nc_x_probes(int action);
/* The keys of that probe: the step's own first keys, as many as fit a call
 * of rows of stride bytes beside the extra ones, then NC_X_PROBE_EXTRA of
 * the sequence's keys drawn from the step alone. out holds NC_X_PROBE_MAX;
 * returns how many. The C reproducer reads back the same keys. */
#define NC_X_PROBE_MAX (256 + 16)
#define NC_X_PROBE_EXTRA 16
int64_t nc_x_probe_keys(const nc_x_seq *q, const nc_x_step *st, int64_t stride, int64_t *out);

/* The steps a replay under toggles makes of in[0..n) (alone_slot as
 * nc_x_replay's), into out (n of them), for a reproducer that knows no
 * toggles: how many, or -1 under toggles a list of steps cannot say
 * (NC_XT_KEEP_TABLES, NC_XT_LEAKS). A replay under NC_XT_PLAIN_CALLS also
 * makes no write past max_row_size: the reproducer's writer says so. */
long nc_x_bake(const nc_x_step *in, size_t n, unsigned toggles, int alone_slot, nc_x_step *out);
/* Whether nc_x_bake can say a replay under toggles. */
int nc_x_bakeable(unsigned toggles);

/* Runs steps[0..count) (keys in q's arena) on fresh tables from a fresh
 * factory with the toggles; alone_slot: the slot NC_XT_ALONE keeps.
 * Returns 0 when the sequence ran (fail->at says where it disagreed), -1
 * when no table could be made (recorded). stats may be NULL. */
int nc_x_replay(nc_case *c, const nc_x_seq *q, const nc_x_step *steps, size_t count,
                unsigned toggles, int alone_slot, nc_x_failure *fail, nc_x_replay_stats *stats);

#endif
