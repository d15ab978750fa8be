/* SPDX-License-Identifier: Apache-2.0 */
/* A table under test next to its model (lib/oracle.h): every op goes
 * through guarded buffers (lib/guarded.h), the model follows every
 * successful op, and every find is checked against it. A DEVICE table gets
 * device copies of the buffers (canaries included) on its device, made
 * current around each call, and they come back for the same checks. The
 * TBL and LIF cases are written in terms of these calls. */
#ifndef NC_TABLE_KIT_H
#define NC_TABLE_KIT_H

#include <stdint.h>

#include "calls.h"
#include "case_api.h"
#include "device_feed.h"
#include "oracle.h"
#include "row_fill.h" /* nc_fill_rows, for any buffer */

/* The most bytes one buffer of a call may take: wider rows mean fewer keys
 * per call (nc_tk_batch), so a 1 MiB row costs no more than a narrow one. */
#define NC_TK_BUFFER_BYTES (16 << 20)
/* Rows wider than this are more than the harness can feed. */
#define NC_TK_ROW_MAX (64 << 20)

/* A wrong answer waiting for its control (settle_pending in table_kit.c). */
#define NC_TK_PENDING 4
typedef struct nc_tk_pending {
  int64_t key;
  nc_rule owners[2];
  int nowners;
  char call[200], text[600];
} nc_tk_pending;

typedef struct nc_tk {
  nc_case *c;         /* whose rule the mismatches fail */
  nve_ext_table_t t;
  nc_table_caps caps;
  nc_oracle *o;
  int64_t row;        /* bytes the harness writes per key (nc_value_size) */
  int64_t stride;     /* the least stride: the table's max_row_size */
  int check_bounds;   /* TBL-04: canaries and guards (inputs are checked on every call) */
  int check_resolved; /* TBL-03: resolved keys' slots untouched (their bits: every call) */
  int check_values;   /* answers against the model (on unless a case is about other things) */
  int observe;        /* refine the model from answers (off when shared) */
  int quiet;          /* keep the first mismatch in .mismatch, record nothing */
  int64_t mismatches;
  char mismatch[768];
  nc_rule mismatch_owners[2]; /* the rules the first mismatch may break */
  int nmismatch_owners;
  int64_t failed_ops; /* ops that returned a failure (the model forgot their keys) */
  char first_failed[200]; /* the call of the first of them */
  /* The latest of them: its line in the crash log (--repro), its status. */
  long long failed_line;
  nve_status_t failed_status;
  nc_tk_pending pending[NC_TK_PENDING];
  int npending, in_control;
  int64_t pending_more; /* wrong answers past the pending ones, in the same find */
  nc_device_feed feed; /* a DEVICE table's device, streams and buffer copies */
  uint64_t rng;        /* key order, seeded from the run's seed */
  int batch_noted;     /* the memory bound on batches was noted */
  /* The rule of the find in progress: TBL-05 with a NULL output, TBL-03
   * with keys resolved on entry, else TBL-02. A wrong answer a plain find
   * of the key does not repeat is that rule's (variant_at_fault). */
  nc_rule find_rule;
  int proving; /* the mismatch being recorded is one a control proved (settle_pending) */
  int variant_controls, variant_blamed; /* plain reads made for this find; the last said */
} nc_tk;

/* Reads the table's capabilities and builds its model. A table the host
 * would reject, or one the harness cannot feed, makes the case a SKIP
 * (TBL-01 owns capabilities). Returns 0 or -1. */
int nc_tk_init(nc_tk *k, nc_case *c, const nve_ext_table_t *t);
/* The same for a table of another config than the run's: its rows are
 * the size it declares, whatever the profile's row_size says. */
int nc_tk_init_other(nc_tk *k, nc_case *c, const nve_ext_table_t *t);
void nc_tk_done(nc_tk *k);
/* A factory and table from the run's configs, with the kit on the table;
 * 0, or -1 after recording why not. nc_tk_close destroys both. */
int nc_tk_open(nc_tk *k, nve_ext_table_factory_t *f, nc_case *c);
void nc_tk_close(nc_tk *k, const nve_ext_table_factory_t *f);
/* n distinct keys first .. first + n - 1, in a seeded random order (a table
 * must not rely on sorted input, nor sort the caller's buffer). */
void nc_tk_keys(nc_tk *k, int64_t *keys, int64_t n, int64_t first);
/* Keys per call the harness feeds this table: wanted, or fewer when rows
 * are so wide that a buffer would exceed NC_TK_BUFFER_BYTES (noted once in
 * the case's evidence). */
int64_t nc_tk_batch(nc_tk *k, int64_t wanted);
/* Keys of rows stride bytes apart that one buffer holds (at least 1). */
int64_t nc_tk_fit(int64_t stride);
/* Keys per call for the large batches of a workload on rows of row bytes:
 * wanted, or fewer when a batch would move more than NC_BATCH_WORK_BYTES
 * (but at least 64 keys, within NC_TK_BUFFER_BYTES). */
#define NC_BATCH_WORK_BYTES (8 << 20)
int64_t nc_batch_for_rows(int64_t row, int64_t wanted);
/* Why the host would reject a table with these key size, row size and
 * dtype (TBL-01), or NULL. */
const char *nc_caps_problem(const nc_table_caps *caps, char *buf, size_t len);
/* The same for its location and device ID (DEV-01); device_count 0: not
 * known. */
const char *nc_caps_location_problem(const nc_table_caps *caps, int device_count, char *buf,
                                     size_t len);

/* Records a mismatch that owner judges (nc_fail_owned: the case's own
 * failure, or a defect of another rule that blocks it), or, quiet, keeps
 * the first one and its owner. */
void nc_tk_mismatch(nc_tk *k, nc_rule owner, const char *call, const char *expected,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Rows the harness writes, distinct for every (tag, i): small integers in
 * the table's element type where it has one (so sums are exact), bytes
 * otherwise, and in the bytes past the last whole element. */
void nc_tk_rows(const nc_tk *k, int64_t n, int64_t stride, uint64_t tag, unsigned char *out);
/* The update_size of an accumulate with updates of dtype: as many elements
 * as fit both the row (in the table's type) and max_row_size bytes of
 * updates; half: about half as many. 0 when the table's values have no
 * element type the harness knows, or dtype is not convertible. */
int64_t nc_tk_update_size(const nc_tk *k, nve_data_type_t dtype, int half);

/* The ops. keys are n 64-bit values, narrowed to the table's key size.
 * Each returns the plugin's status; a failure is recorded as a mismatch
 * unless may_fail, and then the model forgets the keys (doc/contract.md#open-points). */
nve_status_t nc_tk_insert(nc_tk *k, int64_t n, const int64_t *keys, int64_t stride,
                          uint64_t tag, int may_fail);
nve_status_t nc_tk_update(nc_tk *k, int64_t n, const int64_t *keys, int64_t stride,
                          uint64_t tag, int may_fail);
/* The same with value_size size (1 to the row; else the row): the rows'
 * first size bytes written, the rest of the row open (oracle.h). */
nve_status_t nc_tk_write_prefix(nc_tk *k, int update, int64_t n, const int64_t *keys,
                                int64_t stride, int64_t size, uint64_t tag, int may_fail);
/* Updates of dtype, size bytes per key (small integers where dtype is
 * convertible, bytes otherwise). The model follows a success where both
 * types are convertible (dtype.h), and forgets the keys otherwise. */
nve_status_t nc_tk_accumulate(nc_tk *k, int64_t n, const int64_t *keys, nve_data_type_t dtype,
                              int64_t size, uint64_t tag, int may_fail);
/* The same with update_stride (0 or less than size: size). */
nve_status_t nc_tk_accumulate_strided(nc_tk *k, int64_t n, const int64_t *keys,
                                      nve_data_type_t dtype, int64_t size, int64_t stride,
                                      uint64_t tag, int may_fail);
nve_status_t nc_tk_erase(nc_tk *k, int64_t n, const int64_t *keys, int may_fail);
nve_status_t nc_tk_clear(nc_tk *k, int may_fail);

typedef struct nc_find_opts {
  const uint64_t *resolved; /* input hit mask (bits < n), or NULL for none */
  int null_mask, null_values, null_sizes;
  int64_t stride; /* 0: the row size */
  int may_fail;   /* a failure is counted in failed_ops, not a mismatch */
} nc_find_opts;

/* A checked find. Returns the number of hits observed (-1 when the find
 * failed); hits_out (n entries, may be NULL) gets each key's answer. */
int64_t nc_tk_find(nc_tk *k, int64_t n, const int64_t *keys, const nc_find_opts *opts,
                   unsigned char *hits_out);

/* A valid call of k's that the plugin refused with status, on the crash
 * log's line (nc_call_log_last_line right after it), is a defect of
 * owner's: with --repro the runner replays the calls up to it
 * (cases/kit/crash_repro.h). The first one of the process counts; a
 * control's or a quiet replay's none. */
void nc_tk_note_refused(const nc_tk *k, nc_rule owner, long long line, nve_status_t status);
/* The same for a call outside a table kit (a produce). */
void nc_note_refused_call(nc_rule owner, long long line, nve_status_t status);

#endif
