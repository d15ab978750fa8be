/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nve_conform.h: run the nve-conform suite from C.
 *
 *   nc_options opt;
 *   nc_options_init(&opt);
 *   opt.plugin_path = "libmy-plugin.so";
 *   nc_report *r = nc_run(&opt);
 *   nc_report_print_text(r, stdout, 0);
 *   int code = nc_report_exit_code(r);  // 0 pass, 1 fail, 2 input, 3 incomplete
 *   nc_report_free(r);
 */
#ifndef NVE_CONFORM_H
#define NVE_CONFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "nve_conform_version.h" /* NC_HARNESS_VERSION_STRING, from configure.ac */
#define NC_RULESET_VERSION_STRING "2026.11"

/* The defaults of nc_options_init, the command line and the reproduce line. */
#define NC_DEFAULT_TIMEOUT_S 5.0 /* per case, before NVE_CONFORM_TIMEOUT_MULTIPLIER */
#define NC_DEFAULT_WORKERS 4     /* threads in the services pool */
#define NC_DEFAULT_SIM_DEVICES 4 /* virtual devices of the simulated CUDA runtime */
#define NC_MAX_JOBS 64           /* the most cases --jobs runs at once */
#define NC_MIN_TIMEOUT_S 0.1     /* the shortest --timeout (a case starts in ms, not ns) */
#define NC_MAX_TIMEOUT_S 86400.0 /* the longest --timeout (a day) */
#define NC_MIN_BUDGET_S 0.01     /* the least --budget */
#define NC_MAX_BUDGET_S 86400.0  /* the most --budget (a day) */
#define NC_MAX_WORKERS 256       /* the most threads in the services pool */
#define NC_MAX_SIM_DEVICES 16    /* the most devices of the simulated runtime */
#define NC_MAX_SWEEP_K 1000000   /* the last step --sweep-k can name */

/* Exit codes of the command line and of nc_report_exit_code(). */
enum {
  NC_EXIT_PASS = 0,    /* every MUST rule that ran passed */
  NC_EXIT_FAIL = 1,    /* a MUST rule failed (or a SHOULD rule, under strict) */
  NC_EXIT_USAGE = 2,   /* bad arguments or unreadable input */
  NC_EXIT_HARNESS = 3, /* the harness could not run (some of) the suite */
  /* The same code: a MUST rule the harness could not test (an untested
   * SKIP, or blocked by a refused config) leaves the run incomplete. */
  NC_EXIT_INCOMPLETE = NC_EXIT_HARNESS,
};

typedef enum {
  NC_VERDICT_PASS = 0,
  NC_VERDICT_FAIL,
  NC_VERDICT_WARN,
  NC_VERDICT_SKIP,
  NC_VERDICT_ERROR,
  NC_VERDICT_WAIVED, /* a FAIL or WARN that a waiver accepts */
  NC_VERDICT_COUNT_
} nc_verdict;

typedef enum { NC_MUST = 0, NC_SHOULD = 1 } nc_severity;

/* Static description of one rule (a row of the case table). */
typedef struct nc_rule_info {
  const char *id;     /* the rule ID, e.g. SYM-01 */
  const char *family; /* "SYM" */
  nc_severity severity;
  const char *title;
  const char *clause; /* where the contract says it: "doc/contract.md#exported-symbols" */
} nc_rule_info;

size_t nc_rule_count(void);
const nc_rule_info *nc_rule_at(size_t i); /* catalogue order */
const nc_rule_info *nc_rule_find(const char *id);

typedef struct nc_options {
  /* sizeof(nc_options) as the caller was built (nc_options_init sets it):
   * members a later version adds keep their defaults for older callers. */
  size_t struct_size;
  const char *plugin_path;
  const char *const *rule_globs; /* NULL-terminated; NULL: all rules */
  const char *const *families;   /* NULL-terminated; NULL: all families */
  const char *factory_config;    /* JSON text handed to creation; default "{}" */
  const char *table_config;      /* JSON text handed to produce; default "{}" */
  unsigned host_abi_major;       /* default NVE_PLUGIN_ABI_VERSION_MAJOR */
  unsigned host_abi_minor;       /* default NVE_PLUGIN_ABI_VERSION_MINOR */
  double timeout_s;              /* per case; default NC_DEFAULT_TIMEOUT_S */
  uint64_t seed;
  int workers;  /* size of the NVE services thread pool; default NC_DEFAULT_WORKERS */
  int schedule; /* 0 pool (default), 1 inline, 2 reverse, 3 shuffle, 4 delays */
  int no_fork;  /* run cases in this process (debugging; a crash ends it) */
  const char *profile_path; /* JSON profile (README "Profiles"); may be NULL */
  long sweep_k; /* run only this step of the allocation-failure sweeps */
  const char *waivers_path;  /* JSON waivers (README "Waivers"); may be NULL */
  const char *baseline_path; /* an earlier JSON report; may be NULL */
  int strict;   /* WARN fails the run */
  int verbose;
  /* Called after each case, e.g. for progress output; may be NULL. */
  void (*on_result)(void *user, size_t done, size_t total, const char *rule_id,
                    nc_verdict verdict);
  void *on_result_user;
  /* The command line, recorded in the report header; may be NULL. */
  int argc;
  char *const *argv;
  /* Larger batches, longer random sequences, more threads (TBL-11/12). */
  int stress;
  /* Called before each case that runs (done cases so far, of total); may
   * be NULL. Gets on_result_user. */
  void (*on_case_start)(void *user, size_t done, size_t total, const char *rule_id);
  /* The CUDA runtime cases load before the plugin: 0 auto (the real one
   * when it sees a device, else the simulation), 1 real, 2 sim, 3 off. */
  int cuda_mode;
  int sim_devices; /* virtual devices under the simulation; default NC_DEFAULT_SIM_DEVICES */
  /* With baseline_path: compare with a report on another build of the same
   * plugin (by name), not only on the same file (by SHA-256). */
  int baseline_any_build;
  /* Cases run at once, each in its process; 0: one per online CPU. The
   * report is the same for every value. */
  int jobs;
  /* Every evidence line; by default each case sends the first few of each
   * kind and a count of the rest. */
  int evidence_all;
  /* Every case process under a memory-error detector: 0 none, 1 valgrind
   * memcheck, 2 AddressSanitizer (a plugin built with it). Case time
   * limits grow by the tool's slowdown. */
  int sanitize;
  /* Called when a case's process starts (running 1) and when it has ended
   * (running 0), from the thread that runs it: with several jobs, calls
   * come from several threads at once. May be NULL; gets on_result_user. */
  void (*on_case_running)(void *user, const char *rule_id, int running);
  /* How hard TBL-11's explorer searches: NC_EFFORT_DEFAULT, _QUICK or
   * _DEEP (the budget of each is in README "Exploration"); budget_s > 0
   * sets the budget in seconds at the explorer's nominal rate instead. */
  int effort;
  double budget_s;
  /* A directory for the C reproducers of the explorer's failures (made
   * when missing); NULL: none are written. */
  const char *repro_dir;
  /* The sandbox every case process runs in (README "A plugin is untrusted
   * code"): 0 auto (when it can be set up here; the report says when it
   * cannot), 1 required (a run where it cannot is incomplete: exit 3), 2
   * off. */
  int sandbox;
} nc_options;

/* The values of nc_options.effort. */
#define NC_EFFORT_DEFAULT 0
#define NC_EFFORT_QUICK 1
#define NC_EFFORT_DEEP 2

void nc_options_init(nc_options *opt);

typedef struct nc_report nc_report;

/* Runs the selected rules against opt->plugin_path (opt from
 * nc_options_init). Returns NULL only when out of memory; on an input or
 * usage problem the report carries the message and exit code 2.
 *
 * What it does to the calling process, and puts back before it returns:
 * the SIGCHLD disposition (default while cases run, so that they can be
 * waited for) and the child-subreaper flag (set while cases run, so that
 * what a case leaves behind can be found). It reads the umask without
 * changing it. It starts threads (one per job) and child processes, all
 * ended before it returns. It may be called again after it returns, not
 * from two threads at once (a run owns the process's children). */
nc_report *nc_run(const nc_options *opt);
void nc_report_free(nc_report *r);
/* A report that records a usage error instead of a run (exit code 2), with
 * the header filled from opt, so report files can still be written. */
nc_report *nc_report_new_error(const nc_options *opt, const char *message);

int nc_report_exit_code(const nc_report *r);
const char *nc_report_error(const nc_report *r); /* NULL when the run happened */

/* Human-readable report; colour adds ANSI escapes. With opt.verbose the
 * evidence of passing rules is shown too. */
void nc_report_print_text(const nc_report *r, FILE *out, int colour);
/* Just the non-passing rules and the summary line. */
void nc_report_print_summary(const nc_report *r, FILE *out);

/* Machine-readable reports, written atomically (temp file, then rename).
 * Return 0, or -1 with a message in err. */
int nc_report_write_json(const nc_report *r, const char *path, char *err, size_t errlen);
int nc_report_write_junit(const nc_report *r, const char *path, char *err, size_t errlen);
int nc_report_write_tap(const nc_report *r, const char *path, char *err, size_t errlen);
int nc_report_write_sarif(const nc_report *r, const char *path, char *err, size_t errlen);
/* "auto", "real", "sim" or "off" -> nc_options.cuda_mode, or -1. */
int nc_cuda_mode_parse(const char *name);

/* One self-contained HTML page (no script, no external assets). */
int nc_report_write_html(const nc_report *r, const char *path, char *err, size_t errlen);

/* Kills the process group of the case that is running now, if any, and
 * removes the run's temporary files (and a report file being written).
 * Async-signal-safe: call it from a SIGINT/SIGTERM handler, so that an
 * interrupted run leaves no plugin process and no file behind. */
void nc_abort_running_case(void);

/* Async-signal-safe as well: ends the run early, for a SIGINT/SIGTERM/SIGHUP
 * handler that wants the report so far. The cases running now are killed
 * (as not finished, never as a verdict), no new case starts, and nc_run
 * returns a report marked interrupted with that signal (exit code 128 +
 * signo) whose unfinished rules are SKIP "not run: interrupted". */
void nc_interrupt_run(int signo);

const char *nc_verdict_name(nc_verdict v);
/* The number of a pool schedule name ("pool", "inline", "reverse",
 * "shuffle", "delays"), or -1. */
int nc_schedule_parse(const char *name);
const char *nc_severity_name(nc_severity s);

#ifdef __cplusplus
}
#endif

#endif /* NVE_CONFORM_H */
