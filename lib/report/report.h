/* SPDX-License-Identifier: Apache-2.0 */
/* The report of one run: a self-describing header and one result per
 * selected rule. Filled by suite.c, written by report_*.c. */
#ifndef NC_REPORT_H
#define NC_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "nve_conform.h"

typedef struct nc_evidence {
  char *level; /* fail, warn, note, error */
  char *call;
  char *expected;
  char *observed;
} nc_evidence;

/* One class of one dimension of an op's call space, as the op's view
 * reported it (cases/kit/explore_directed.c). */
typedef enum {
  NC_COVER_RAN = 0,
  NC_COVER_ELSEWHERE, /* another rule's case makes such calls (by) */
  NC_COVER_NOT_RUN    /* nothing in the run made such a call (why) */
} nc_cover_state;

typedef struct nc_cover_cell {
  char *op, *dimension, *cls;
  nc_cover_state state;
  char *why;                /* for a class that did not run here */
  const nc_rule_info *by;   /* with NC_COVER_ELSEWHERE */
} nc_cover_cell;

/* Why a rule is SKIP: the harness could not make the calls the rule needs
 * (untested: never a pass; a MUST rule untested makes the run incomplete,
 * exit 3), the rule does not concern this plugin (its mode, its table's
 * residency, or what it declared), or another rule's defect or the run's
 * root cause kept its case from judging (blocked). Untested is the zero
 * value: a SKIP nobody classified is not excused. */
typedef enum {
  NC_SKIP_UNTESTED = 0,
  NC_SKIP_NOT_APPLICABLE,
  NC_SKIP_BLOCKED
} nc_skip_kind;

typedef struct nc_result {
  const nc_rule_info *rule;
  nc_verdict verdict;
  char *reason; /* one line: why this verdict */
  nc_evidence *evidence;
  size_t nevidence;
  char *crash;   /* "SIGSEGV in nve_plugin_name", or NULL */
  char **frames; /* resolved backtrace of a crash */
  size_t nframes;
  char *output; /* what the plugin printed, for non-PASS verdicts */
  char *reproduce;
  double seconds;
  int executed; /* a child ran it (blocked and filtered-out cases did not) */
  nc_verdict waived_from; /* with NC_VERDICT_WAIVED: FAIL or WARN */
  char *waiver;           /* its reason (and issue) */
  int known;              /* a FAIL the baseline already had */
  /* With NC_VERDICT_SKIP: which kind of SKIP. */
  nc_skip_kind skip;
  /* A SKIP that another rule's defect caused: that rule (data, never read
   * from the reason), or NULL (a block no rule owns, or one the run's root
   * cause made: skip is NC_SKIP_BLOCKED all the same). */
  const nc_rule_info *blocked_by;
  char *blocked_why; /* the reason without its "blocked by" prefix */
  /* Blocked by the run's root cause: its case could not make a table, the
   * run's config being refused (blocked_why says how). */
  int refused;
  /* When every failure the case saw is a defect other rules own
   * (nc_fail_owned_by): the rules its first one may be charged to. The run
   * blocks the case on the first that failed on its own
   * (nc_attribute_blocks). */
#define NC_RESULT_OWNERS 4
  const nc_rule_info *failure_owners[NC_RESULT_OWNERS];
  int nfailure_owners;
  /* The one owner was proven by a control (nc_fail_proven): it fails with
   * this evidence even when it held in its own case. */
  int owner_proven;
  /* The filter left this rule out, and it joined the report because
   * another case proved a defect its (nc_attribute_blocks): its case did
   * not run. */
  int not_selected;
  /* The call space its case explored (empty for most rules). */
  nc_cover_cell *cover;
  size_t ncover;
} nc_result;

struct nc_report {
  /* header */
  char *plugin_path;
  char sha256[65];
  char *plugin_name, *plugin_author, *plugin_mode, *plugin_abi;
  char *accepting_hosts;
  char *elf_class, *elf_machine, *elf_type, *elf_soname;
  char **needed;
  size_t nneeded;
  unsigned host_major, host_minor;
  char *command_line;
  char *factory_config, *table_config;
  char *profile;
  uint64_t seed;
  int workers;
  int jobs; /* cases run at once */
  const char *sanitize;     /* "none", "valgrind", "asan" */
  double sanitize_slowdown; /* the case time limits' factor under the tool */
  const char *schedule; /* the pool schedule's name */
  double timeout_s;
  int no_fork, strict, verbose;
  char *started_at; /* ISO 8601, UTC */
  double seconds;
  /* body */
  nc_result *results;
  size_t nresults;
  size_t selected, executed;
  char *note; /* e.g. "3 of 11 selected rules did not run: ..." */
  char *error; /* usage or input error: the run did not happen */
  int usage_error;
  int harness_error;
  int interrupted; /* the signal that ended the run early, or 0 */
  char **gate_notes; /* what the waivers and the baseline say */
  size_t ngate_notes;
  int gate_problems; /* unused, expired or refused waivers: fail under strict */
  char *waivers_path, *baseline_path;
  char *cuda; /* the CUDA runtime the cases used */
  /* The cases' sandbox: the mode asked ("auto", "required", "off"),
   * whether the cases ran in it, and what it held back or why it was off
   * (NULL: the run did not get that far). */
  const char *sandbox_mode;
  int sandbox_on;
  char *sandbox;
  /* The run's root cause when its config was refused: "factory creation
   * with config {...}: status 3 (message)", from the first case blocked by
   * it; NULL otherwise. */
  char *refusal;
};

/* The schema every JSON report names, and the one a baseline must name. */
#define NC_REPORT_SCHEMA "nve-conform-report/1"

nc_report *nc_report_new(void);
nc_result *nc_report_add(nc_report *r, const nc_rule_info *rule);
void nc_result_add_evidence(nc_result *res, const char *level, const char *call,
                            const char *expected, const char *observed);
void nc_result_set_reason(nc_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Makes res SKIP "blocked by BY: why" ("blocked: why" when no rule owns
 * the block): the one place a block's reason is written, so that nothing
 * needs to read it back (the owner is blocked_by, the detail blocked_why). */
void nc_result_set_blocked(nc_result *res, const nc_rule_info *by, const char *why);
/* Makes res SKIP blocked by the refusal of the run's config (what). */
void nc_result_set_refused(nc_result *res, const char *what);
/* Makes res SKIP of the kind with the reason (printf). */
void nc_result_set_skip(nc_result *res, nc_skip_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
size_t nc_report_count(const nc_report *r, nc_verdict v);
/* The SKIPs of one kind; the rules untested (nc_result_untested). */
size_t nc_report_count_skips(const nc_report *r, nc_skip_kind kind);
size_t nc_report_count_untested(const nc_report *r);
/* A rule the harness could not test: SKIP, and neither not applicable nor
 * blocked by a rule that failed. */
int nc_result_untested(const nc_result *res);
/* What a report shows in a verdict's place: PASS, FAIL, ..., and for a
 * SKIP its kind (N/A, BLOCKED, UNTESTED). */
const char *nc_result_label(const nc_result *res);
/* What a WAIVED result was: FAIL, WARN or UNTESTED. */
const char *nc_waived_from_label(const nc_result *res);
/* The words of a SKIP kind in reports ("not applicable", "blocked",
 * "untested"), and the label of it ("N/A", ...). */
const char *nc_skip_kind_name(nc_skip_kind kind);
const char *nc_skip_kind_label(nc_skip_kind kind);
/* Appends a cell to res's coverage (copies the strings). */
void nc_result_add_cover(nc_result *res, const char *op, const char *dimension, const char *cls,
                         nc_cover_state state, const char *why, const nc_rule_info *by);
/* "ran", "elsewhere", "not run". */
const char *nc_cover_state_name(nc_cover_state s);
/* Frees what a result owns (not the result itself). */
void nc_result_release(nc_result *res);

/* Records a usage or input error: the run did not happen (exit code 2).
 * Returns -1, for the callers' convenience. */
int nc_report_usage_error(nc_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The evidence a person reads (text, HTML, JUnit): identical items
 * folded into one line with a count, then the first NC_EVIDENCE_SHOWN
 * lines. The JSON report keeps every item. */
#define NC_EVIDENCE_SHOWN 20
typedef struct nc_evidence_line {
  const nc_evidence *e;
  size_t times; /* how many identical items it stands for */
} nc_evidence_line;

/* Fills lines (NC_EVIDENCE_SHOWN entries) from res's evidence, notes only
 * when with_notes; returns how many lines, and in *more how many items
 * did not fit. */
size_t nc_evidence_lines(const nc_result *res, int with_notes,
                         nc_evidence_line lines[NC_EVIDENCE_SHOWN], size_t *more);

/* The text report's coverage section (report_coverage.c); nothing when
 * no op was swept. */
void nc_report_print_coverage(const nc_report *r, FILE *out);
/* Whether res's case was to sweep the op nc_swept_ops[o] and made no
 * sweep of it (every report lists such an op as not run); never for a rule
 * that joined the report by another case's proof (its case did not run). */
int nc_result_unswept(const nc_result *res, size_t o);

/* printf into a fresh heap string (NULL on failure). */
char *nc_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
