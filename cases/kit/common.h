/* SPDX-License-Identifier: Apache-2.0 */
/* What many cases share: making a factory and a table from the run's
 * configs, and a seeded workload that exercises every table operation. */
#ifndef NC_CASES_COMMON_H
#define NC_CASES_COMMON_H

#include <stdint.h>

#include "calls.h"
#include "case_api.h"
#include "plugin/nve_external_plugin.h"

/* Creates a factory with the run's factory config. Returns 0, or -1 after
 * recording the refusal (nc_refused: the case is blocked by it, the run's
 * root cause, unless it judged its rule on other calls). */
int nc_create_factory(nc_case *c, nve_ext_table_factory_t *f);
/* Produces table 1 with the run's table config; 0, or -1 after recording. */
int nc_produce_table(nc_case *c, const nve_ext_table_factory_t *f, nve_ext_table_t *t);
/* The stages a refusal names (nc_refused). */
#define NC_REFUSED_CREATION "factory creation"
#define NC_REFUSED_PRODUCE "produce"

/* Whether the run's configs are refused, found by trying them (nothing is
 * recorded): the cases that can judge their rule on the refused call
 * itself (OWN-01/02/04/05, ERR-01/04) ask before they need a table. */
typedef enum {
  NC_REFUSAL_NONE = 0,
  NC_REFUSAL_CREATION, /* creation fails: no factory, so no produce either */
  NC_REFUSAL_PRODUCE   /* creation works, produce fails */
} nc_refusal;
nc_refusal nc_config_refusal(nc_case *c);
/* Both, for cases that need a working table: handles that the host would
 * reject make the case a SKIP (VER-03 owns them), and so do capabilities
 * it would reject (TBL-01, DEV-01) and a DEVICE table without a CUDA
 * runtime. Returns 0 or -1. */
int nc_open_table(nc_case *c, nve_ext_table_factory_t *f, nve_ext_table_t *t);
/* The same without the capability checks, for the rules that judge them. */
int nc_open_table_unchecked(nc_case *c, nve_ext_table_factory_t *f, nve_ext_table_t *t);
/* The bytes the cases write per key into a table with these capabilities:
 * the profile's row_size where it gives one, else max_row_size, or
 * NC_WIDE_ROW_WRITTEN when max_row_size is more than the harness feeds
 * (NC_TK_ROW_MAX): a caller may write rows shorter than max_row_size. */
int64_t nc_value_size(const nc_case *c, const nc_table_caps *caps);
#define NC_WIDE_ROW_WRITTEN 4096
/* The stride the cases pass: max_row_size, or the row written when that
 * is shorter (a table declaring rows wider than NC_TK_ROW_MAX). */
int64_t nc_value_stride(const nc_case *c, const nc_table_caps *caps);
/* Says so once, for such a table. */
void nc_note_wide_rows(nc_case *c, const nc_table_caps *caps);

/* When the host would reject these capabilities, skips the case with the
 * wording every case uses ("blocked: ... (TBL-01)") and returns -1. */
int nc_caps_block(nc_case *c, const nc_table_caps *caps);
void nc_close_table(const nve_ext_table_factory_t *f, const nve_ext_table_t *t);

typedef struct nc_workload_result {
  nve_status_t status;  /* the first failing operation's status */
  char failed_op[48];   /* and its name */
  char message[256];    /* and the table's last_error */
  uint64_t digest;      /* of every find's outputs: masks, sizes, hit bytes */
  int64_t ops;
  int harness;          /* the harness failed (recorded as an ERROR), not the table */
} nc_workload_result;

/* Runs a sequence of every table operation, seeded with the run's seed
 * (batches big enough to use execute_n), on t; a DEVICE table gets its
 * buffers on its device (cases/device_feed.h). The digest lets runs be
 * compared byte for byte. A harness failure is recorded on c as well. */
void nc_workload_run(nc_case *c, const nve_ext_table_t *t, nc_workload_result *out);
/* The same with batches of at most most keys. */
void nc_workload_run_batch(nc_case *c, const nve_ext_table_t *t, int64_t most,
                           nc_workload_result *out);

/* Opens a table, runs the workload on it (reported as when), closes it.
 * Returns the workload's status, or -1 when no table could be opened. */
int nc_workload_on_new_table(nc_case *c, const char *when, nc_workload_result *w);

/* Records a failed workload as a check of the case's rule. */
/* The rule that judges a valid call of op failing, or its answers being
 * wrong: find and insert TBL-02, update TBL-06, update_accumulate TBL-07,
 * erase and clear TBL-08, the lookup counter TBL-09. op may go on with
 * its arguments ("find (n=5)"). */
nc_rule nc_op_owner(const char *op);
void nc_workload_report(nc_case *c, const char *when, const nc_workload_result *w);

/* Whether the plugin exports the services handshake; skips the case
 * (SYM-07 owns that) when it does not. */
int nc_has_handshake(nc_case *c);

/* Reports the violations of rule recorded so far (after a short wait for
 * plugin threads that use a context late) as failed checks of what. */
void nc_report_violations(nc_case *c, nc_rule rule, const char *call, const char *what);

#endif
