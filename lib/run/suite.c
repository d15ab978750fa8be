/* SPDX-License-Identifier: Apache-2.0 */
/* nc_run: checks the options, inspects the file, runs the load probe, runs
 * every selected rule's case in a process of its own, and turns what the
 * processes reported (or how they died) into verdicts, with the evidence
 * every case's instrumentation saw folded into the rules it concerns. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callback.h"
#include "case_child.h"
#include "case_table.h"
#include "config_io.h"
#include "contain.h"
#include "coverage.h"
#include "cuda.h"
#include "atomic_file.h"
#include "gate.h"
#include "module_dir.h"
#include "options.h"
#include "probe.h"
#include "profile.h"
#include "report.h"
#include "call_log.h"
#include "repro_out.h"
#include "reproduce.h"
#include "runner.h"
#include "sandbox.h"
#include "sanitize.h"
#include "sha256.h"
#include "suite.h"
#include "verdict.h"

#ifndef NC_CASE_RUNNER_INSTALLED
#define NC_CASE_RUNNER_INSTALLED ""
#endif
#define CASE_RUNNER "nve-conform-case"

nc_report *nc_report_new_error(const nc_options *opt, const char *message)
{
  nc_report *r = nc_report_new();
  if (!r)
    return NULL;
  nc_config cfg;
  nc_config_from_options(opt, &cfg, r);
  nc_report_usage_error(r, "%s", message);
  return r;
}

/* ---- selecting rules ------------------------------------------------------------ */

static int family_known(const char *f)
{
  for (int i = 0; i < NC_RULE_COUNT; i++)
    if (strcasecmp(nc_rule_defs[i].info.family, f) == 0)
      return 1;
  return 0;
}

static int selected(const nc_options *opt, nc_rule rule)
{
  const nc_rule_info *info = &nc_rule_defs[rule].info;
  int by_rule = !opt->rule_globs || !opt->rule_globs[0];
  for (size_t i = 0; !by_rule && opt->rule_globs[i]; i++)
    by_rule = fnmatch(opt->rule_globs[i], info->id, FNM_CASEFOLD) == 0;
  int by_family = !opt->families || !opt->families[0];
  for (size_t i = 0; !by_family && opt->families[i]; i++)
    by_family = strcasecmp(opt->families[i], info->family) == 0;
  return by_rule && by_family;
}

/* ---- before the first case ------------------------------------------------------ */

static int check_json(nc_report *r, const char *what, const char *text)
{
  cJSON *j = cJSON_Parse(text);
  if (!j) {
    const char *at = cJSON_GetErrorPtr();
    return nc_report_usage_error(r, "%s is not valid JSON (near \"%.20s\"): %s", what,
                                 at ? at : "", text);
  }
  cJSON_Delete(j);
  return 0;
}

/* Checks the options and inspects the file; -1 on a usage or input error. */
static int prepare(const nc_options *opt, nc_config *cfg, nc_report *r)
{
  if (nc_config_from_options(opt, cfg, r) != 0)
    return -1;
  for (size_t i = 0; opt->families && opt->families[i]; i++)
    if (!family_known(opt->families[i]))
      return nc_report_usage_error(r, "unknown rule family '%s' (see --list)", opt->families[i]);
  for (int i = 0; i < NC_RULE_COUNT; i++)
    r->selected += selected(opt, (nc_rule)i);
  if (r->selected == 0)
    return nc_report_usage_error(r, "the rule filter selects no rule (see --list)");
  if (opt->profile_path && nc_profile_load(opt, cfg, r) != 0)
    return -1;
  if (cfg->cuda_mode == NC_CUDA_AUTO || cfg->cuda_mode == NC_CUDA_REAL) {
    char why[300];
    int devices = nc_cuda_probe_real(why, sizeof(why));
    if (cfg->cuda_mode == NC_CUDA_REAL && devices < 1)
      return nc_report_usage_error(r, "--cuda real: %s", why);
    cfg->cuda_mode = devices > 0 ? NC_CUDA_REAL : NC_CUDA_SIM;
  }
  if (check_json(r, "--factory-config", cfg->factory_config) != 0 ||
      check_json(r, "--table-config", cfg->table_config) != 0)
    return -1;
  for (size_t i = 0; i < cfg->more_count; i++)
    if (check_json(r, "the profile's more_table_configs", cfg->more_tables[i]) != 0)
      return -1;

  if (!opt->plugin_path || !*opt->plugin_path)
    return nc_report_usage_error(r, "no plugin given");
  struct stat st;
  if (stat(opt->plugin_path, &st) != 0)
    return nc_report_usage_error(r, "cannot open plugin '%s': %s", opt->plugin_path,
                                 strerror(errno));
  if (S_ISDIR(st.st_mode))
    return nc_report_usage_error(r, "'%s' is a directory, not a plugin shared object",
                                 opt->plugin_path);
  if (!S_ISREG(st.st_mode))
    return nc_report_usage_error(r, "'%s' is not a regular file", opt->plugin_path);
  if (access(opt->plugin_path, R_OK) != 0)
    return nc_report_usage_error(r, "cannot read plugin '%s': %s", opt->plugin_path,
                                 strerror(errno));
  char *abs = realpath(opt->plugin_path, NULL);
  snprintf(cfg->plugin_path, sizeof(cfg->plugin_path), "%s", abs ? abs : opt->plugin_path);
  free(abs);
  free(r->plugin_path);
  r->plugin_path = strdup(cfg->plugin_path);
  /* The header first: a file that is not ELF (SYM-06) is not worth
   * hashing when it is large. */
  if (nc_elf_inspect_file(cfg->plugin_path, &cfg->elf, cfg->elf_error, sizeof(cfg->elf_error)) ==
      0)
    cfg->elf.loadable = 1;
  nc_plugin_file_id(cfg->plugin_path, cfg->plugin_file);
  if ((cfg->elf.loadable || st.st_size <= NC_INPUT_MAX) &&
      nc_sha256_file(cfg->plugin_path, r->sha256) != 0)
    return nc_report_usage_error(r, "cannot read plugin '%s': %s", cfg->plugin_path,
                                 strerror(errno));
  r->elf_class = cfg->elf.class_name[0] ? strdup(cfg->elf.class_name) : NULL;
  r->elf_machine = cfg->elf.machine_name[0] ? strdup(cfg->elf.machine_name) : NULL;
  r->elf_type = cfg->elf.type_name[0] ? strdup(cfg->elf.type_name) : NULL;
  r->elf_soname = cfg->elf.soname[0] ? strdup(cfg->elf.soname) : NULL;
  if (cfg->elf.needed_count) {
    r->needed = calloc(cfg->elf.needed_count, sizeof(char *));
    for (size_t i = 0; r->needed && i < cfg->elf.needed_count; i++)
      r->needed[r->nneeded++] = strdup(cfg->elf.needed[i]);
  }
  return 0;
}

static void remove_cache(const char *dir)
{
  if (!dir[0])
    return;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[PATH_MAX + 256];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (unlink(path) != 0 && errno == EISDIR)
      rmdir(path); /* the cases' TMPDIR mount point, empty here */
  }
  if (d)
    closedir(d);
  rmdir(dir);
}

typedef struct run_state {
  const nc_options *opt; /* the caller's: its callbacks */
  const nc_config *cfg;
  nc_report *report;
  nc_waivers waivers;
  nc_baseline baseline;
  int have_waivers, have_baseline;
  char runner[PATH_MAX];  /* the case runner ("" only under --no-fork) */
  int config_fd;          /* the sealed configuration each runner inherits */
  int was_subreaper;      /* what to put back at the end, or -1 */
  nc_result probe_res;    /* SYM-06's, until its place in the report */
  nc_probe_state probe;   /* what loading the plugin showed */
  char jobs_note[300];    /* why fewer jobs ran at once than asked */
  nc_observations observations;
  nc_sanitizer san;       /* --sanitize: the tool and its reports */
  nc_sandbox sandbox;     /* what every case process runs in */
} run_state;

/* The waivers and the baseline, read and checked before any case runs. */
static int load_gate(const nc_options *opt, run_state *rs, nc_report *r)
{
  char err[700];
  if (opt->waivers_path) {
    if (nc_waivers_load(opt->waivers_path, &rs->waivers, err, sizeof(err)) != 0)
      return nc_report_usage_error(r, "%s", err);
    rs->have_waivers = 1;
  }
  if (opt->baseline_path) {
    if (nc_baseline_load(opt->baseline_path, &rs->baseline, err, sizeof(err)) != 0)
      return nc_report_usage_error(r, "%s", err);
    rs->have_baseline = 1;
    /* The same file can be told now; the same plugin name after the probe. */
    if (!opt->baseline_any_build &&
        nc_baseline_matches(&rs->baseline, r->sha256, NULL, 0, err, sizeof(err)) != 0)
      return nc_report_usage_error(r, "baseline '%s': %s", opt->baseline_path, err);
  }
  return 0;
}

static void release_gate(run_state *rs)
{
  if (rs->have_waivers)
    nc_waivers_free(&rs->waivers);
  if (rs->have_baseline)
    nc_baseline_free(&rs->baseline);
}

/* ---- running one case ------------------------------------------------------------- */

/* The case runner program: NVE_CONFORM_CASE_RUNNER, else next to the
 * module that holds this code (a build tree: the uninstalled library one
 * directory below the runner), else the installed one. "" when none exists;
 * looked names the places tried, for the error. */
static void find_case_runner(char *out, size_t len, char *looked, size_t looked_len)
{
  out[0] = '\0';
  const char *env = getenv("NVE_CONFORM_CASE_RUNNER");
  if (env && *env) {
    if (access(env, X_OK) == 0)
      snprintf(out, len, "%s", env);
    snprintf(looked, looked_len, "NVE_CONFORM_CASE_RUNNER=%s", env);
    return;
  }
  char candidates[3][PATH_MAX + 32] = {"", "", ""}, dir[PATH_MAX];
  if (nc_module_dir((const void *)find_case_runner, dir, sizeof(dir)) == 0) {
    snprintf(candidates[0], sizeof(candidates[0]), "%s/%s", dir, CASE_RUNNER);
    snprintf(candidates[1], sizeof(candidates[1]), "%s/../%s", dir, CASE_RUNNER);
  }
  snprintf(candidates[2], sizeof(candidates[2]), "%s", NC_CASE_RUNNER_INSTALLED);
  size_t at = 0;
  looked[0] = '\0';
  for (int i = 0; i < 3; i++) {
    if (!candidates[i][0])
      continue;
    if (access(candidates[i], X_OK) == 0) {
      snprintf(out, len, "%s", candidates[i]);
      return;
    }
    int n = snprintf(looked + at, looked_len - at, "%s%s", at ? ", " : "", candidates[i]);
    if (n > 0 && (size_t)n < looked_len - at)
      at += (size_t)n;
  }
}

/* Every case runs in a process of its own, exec'd from the case runner:
 * without it the run cannot isolate a case, and says so (--no-fork, the
 * in-process debugging mode, needs none). */
static int need_runner(run_state *rs, nc_report *r)
{
  char looked[3 * PATH_MAX + 128];
  find_case_runner(rs->runner, sizeof(rs->runner), looked, sizeof(looked));
  if (rs->runner[0] || rs->cfg->no_fork)
    return 0;
  r->error = nc_strdupf("the case runner program %s was not found (looked for %s): reinstall "
                        "nve-conform, set NVE_CONFORM_CASE_RUNNER to its path, or run in one "
                        "process with --no-fork (for debugging)",
                        CASE_RUNNER, looked);
  r->harness_error = 1;
  return -1;
}

typedef struct in_process_case {
  const nc_config *cfg;
  nc_rule rule;
  int probe;
} in_process_case;

static void in_process_case_body(void *arg)
{
  const in_process_case *j = arg;
  nc_case_child_run(j->cfg, j->rule, j->probe);
}

/* Runs rule's case in a process of its own (or here, with --no-fork) and
 * fills res. Returns -1 if the harness could not start it. */
/* A case running in this process (--no-fork), for nc_run_cut_short. */
static struct {
  nc_report *report;
  nc_result *result;
  double started;
} in_process;

nc_report *nc_run_cut_short(int status)
{
  nc_report *r = in_process.report;
  nc_result *res = in_process.result;
  if (!r || !res)
    return NULL;
  in_process.report = NULL;
  const char *where = nc_callback_current();
  res->verdict = NC_VERDICT_FAIL;
  nc_result_set_reason(res, "%s ended the process with exit status %d (exit() or _exit() "
                            "called)",
                       where ? where : "plugin code", status);
  nc_result_add_evidence(res, NC_LEVEL_FAIL, where ? where : "plugin code", "returns normally",
                         res->reason);
  res->executed = 1;
  res->seconds = nc_now() - in_process.started;
  r->executed++;
  r->note = nc_strdupf("--no-fork: the process ended inside %s's case; %zu of %zu selected rules "
                       "ran",
                       res->rule->id, r->executed, r->selected);
  r->seconds = nc_now() - in_process.started;
  nc_runner_remove_scratch(); /* the process ends without nc_run returning */
  return r;
}

/* One case to run: what a worker thread needs, and what it leaves for the
 * main thread, which turns it into a verdict in rule order. */
typedef struct case_job {
  nc_rule rule;
  int probe;
  const char *crash_how; /* the crash replay in place of the case (crash_replay) */
  struct case_job *replay; /* the crash replay of this case, where one ran */
  size_t slot; /* the result's index in the report */
  int rc;      /* 0, or -1: the harness could not start it (err says why) */
  char err[600];
  nc_child_result cr;
  int done;
} case_job;

/* Starts the job's case process and waits for it to end. Touches nothing
 * but the job, so several run at once on worker threads. */
static void spawn_case_now(const run_state *rs, case_job *job)
{
  const nc_config *cfg = rs->cfg;
  if (!cfg->no_fork) {
    char *argv[] = {(char *)rs->runner, "-", (char *)nc_rule_text(job->rule),
                    job->probe ? "probe" : job->crash_how ? "crash" : NULL,
                    (char *)job->crash_how, NULL};
    /* Under --sanitize: the tool's command line around the runner's, and
     * the environment it needs. */
    char *tool_argv[16], *env[3], argbuf[PATH_MAX + 64], envbuf[2 * PATH_MAX + 256];
    nc_sanitize_env(&rs->san, nc_rule_text(job->rule), env, envbuf, sizeof(envbuf));
    if (nc_sanitize_argv(&rs->san, nc_rule_text(job->rule), argv, tool_argv, 16, argbuf,
                         sizeof(argbuf)) != 0) {
      job->rc = -1;
      snprintf(job->err, sizeof(job->err), "the tool's command line does not fit");
      return;
    }
    /* In the sandbox, the run's case server starts it. */
    job->rc = nc_run_program(tool_argv, env, rs->config_fd,
                             rs->sandbox.on ? rs->sandbox.server_fd : -1, cfg->timeout_s,
                             &job->cr, job->err, sizeof(job->err));
  } else { /* --no-fork: here, for debugging */
    in_process_case j = {cfg, job->rule, job->probe};
    job->rc = nc_run_isolated(in_process_case_body, &j, cfg->timeout_s, 1, 1, &job->cr,
                              job->err, sizeof(job->err));
  }
  /* What a killed case left behind. In the sandbox nothing of it is this
   * process's: its handler takes the case's namespace down before the end
   * is reported, so no case costs the scan of every process. */
  if (!cfg->no_fork && !rs->sandbox.on)
    nc_runner_reap_orphans();
}

/* How a case ended that the crash replay can reproduce, as it takes it:
 * "signal:N", "exit:N", "hang" (plugin code ended the process inside a
 * call the log holds) or "refused:LINE:STATUS" (the case's own rule or
 * another was charged with a valid call the plugin refused), then
 * "@RULE", the rule the failure is charged to. 0, or -1 for an end it
 * cannot replay. */
static int crash_how(const nc_child_result *cr, nc_rule rule, char *how, size_t len)
{
  const nc_record *refused = nc_child_last(cr, NC_TAG_REFUSED_CALL);
  const nc_record *crash = nc_child_last(cr, "CRASH");
  /* A crash in a call another rule owns is charged to it (verdict.c,
   * take_crash). */
  int owner = crash && crash->nfields >= 4 && crash->fields[1][0]
                  ? nc_rule_parse(crash->fields[3]) : -1;
  const char *charged = nc_rule_text(owner >= 0 ? (nc_rule)owner : rule);
  if (cr->ended && refused && refused->nfields >= 3) { /* a valid call refused */
    char *end;
    long long line = strtoll(refused->fields[0], &end, 10);
    int to = nc_rule_parse(refused->fields[2]);
    if (*end || line < 0 || to < 0)
      return -1;
    snprintf(how, len, "refused:%lld:%d@%s", line, atoi(refused->fields[1]),
             nc_rule_text((nc_rule)to));
  } else if (cr->ended || cr->flooded || !nc_call_log_holds(cr->phase)) {
    return -1; /* only these calls are in the crash log */
  } else if (cr->timed_out) {
    snprintf(how, len, "hang@%s", charged);
  } else if (cr->signo) {
    snprintf(how, len, "signal:%d@%s", cr->signo, charged);
  } else if (cr->exit_code >= 0 && cr->exit_code != NC_CHILD_EXIT_CHANNEL_LOST) {
    snprintf(how, len, "exit:%d@%s", cr->exit_code, charged);
  } else {
    return -1;
  }
  return 0;
}

/* --repro, for a case plugin code ended inside a table call, or one whose
 * valid call the plugin refused: the process that replays its calls and
 * writes the reproducer (cases/kit/crash_repro.h), on the case's worker,
 * right after it. */
static void crash_replay(const run_state *rs, case_job *job)
{
  const nc_config *cfg = rs->cfg;
  char how[48];
  if (!cfg->repro || cfg->no_fork)
    return;
  if (!cfg->sanitize && !job->probe && job->rc == 0 && !nc_run_interrupted() &&
      crash_how(&job->cr, job->rule, how, sizeof(how)) == 0 &&
      (job->replay = calloc(1, sizeof(*job->replay)))) {
    job->replay->rule = job->rule;
    job->replay->crash_how = how;
    spawn_case_now(rs, job->replay);
    job->replay->crash_how = NULL;
  }
  /* Its log has served: a deep exploration's holds hundreds of MiB. */
  char path[PATH_MAX + 16];
  nc_repro_crash_log(cfg, job->rule, path, sizeof(path) - 8);
  unlink(path);
  strcat(path, ".keys");
  unlink(path);
}

static void free_replay(case_job *replay)
{
  if (replay)
    nc_child_result_free(&replay->cr);
  free(replay);
}

static void note_none(nc_result *res, const char *fmt, const char *what)
{
  char *none = nc_strdupf(fmt, what);
  nc_result_add_evidence(res, NC_LEVEL_NOTE, "C reproducer",
                         "a program that fails while the defect persists", none);
  free(none);
}

/* The replay's notes into res. */
static void merge_replay_notes(const run_state *rs, const case_job *replay, nc_result *res)
{
  const nc_child_result *cr = &replay->cr;
  for (size_t i = 0; replay->rc == 0 && i < cr->nrecords; i++) {
    const nc_record *rec = &cr->records[i];
    if (strcmp(rec->tag, "CHECK") != 0 || rec->nfields < 4)
      continue;
    char *observed = nc_sanitized(rec->fields[3]);
    if (strcmp(rec->fields[0], NC_LEVEL_ERROR) == 0) {
      note_none(res, "none: the replay of the case's calls could not run: %s", observed);
    } else {
      char *call = nc_sanitized(rec->fields[1]), *expected = nc_sanitized(rec->fields[2]);
      nc_result_add_evidence(res, NC_LEVEL_NOTE, call, expected, observed);
      free(call);
      free(expected);
    }
    free(observed);
  }
  if (replay->rc != 0 || !cr->ended) {
    char end[sizeof(replay->err)];
    if (replay->rc != 0)
      snprintf(end, sizeof(end), "%s", replay->err);
    else
      nc_child_describe_end(cr, rs->cfg->timeout_s, end, sizeof(end));
    note_none(res, "none: the process replaying the case's calls did not finish: %s", end);
  }
}

/* The crash replay's notes join the case's evidence (on the main thread,
 * with the verdict); a case plugin code ended without one says why. */
static void take_crash_notes(const run_state *rs, case_job *job, nc_result *res)
{
  case_job *replay = job->replay;
  job->replay = NULL;
  int failed = res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN;
  if (replay && failed) {
    merge_replay_notes(rs, replay, res);
  } else if (rs->cfg->repro && !job->cr.ended && failed) {
    char how[48], *where = nc_sanitized(job->cr.phase[0] ? job->cr.phase : "in no callback");
    if (crash_how(&job->cr, job->rule, how, sizeof(how)) != 0)
      note_none(res, "none: plugin code ended the process outside the table calls the log "
                     "holds (%s)", where);
    else
      note_none(res, "none: %s", rs->cfg->no_fork || rs->cfg->sanitize
                                     ? "no replay under --no-fork or --sanitize"
                                     : "the replay could not be started");
    free(where);
  }
  free_replay(replay);
}

/* The verdict from what the case process reported; in rule order, on the
 * main thread (observations are folded in the order -j1 sees them). */
static int finish_case(run_state *rs, case_job *job, nc_result *res)
{
  const nc_config *cfg = rs->cfg;
  int signo = nc_run_interrupted();
  if ((signo && !job->cr.ended) || job->rc != 0) {
    free_replay(job->replay);
    job->replay = NULL;
  }
  if (signo && !job->cr.ended) { /* killed by the interruption, or never started */
    nc_result_set_skip(res, NC_SKIP_UNTESTED, "not run: the run was interrupted (%s)",
                       nc_signal_name(signo));
    return 0;
  }
  if (job->rc != 0) {
    res->verdict = NC_VERDICT_ERROR;
    nc_result_set_reason(res, "the harness could not run the case: %s", job->err);
    return -1;
  }
  nc_child_result *cr = &job->cr;
  nc_derive_result(res, cr, cfg);
  nc_sanitize_take(&rs->san, nc_rule_text(job->rule), cfg->plugin_path, cr->exit_code, res);
  nc_observations_take(&rs->observations, cr);
  res->executed = 1;
  res->seconds = cr->seconds;
  if (cr->output && cr->output[0] && res->verdict != NC_VERDICT_PASS)
    res->output = nc_sanitized(cr->output);
  take_crash_notes(rs, job, res);
  return 0;
}

/* Runs a case, telling the caller when its process starts and ends (from
 * this thread: the workers call it side by side). */
static void spawn_case(const run_state *rs, case_job *job)
{
  const nc_options *opt = rs->opt;
  const char *id = nc_rule_defs[job->rule].info.id;
  if (opt && opt->on_case_running)
    opt->on_case_running(opt->on_result_user, id, 1);
  spawn_case_now(rs, job);
  crash_replay(rs, job);
  if (opt && opt->on_case_running)
    opt->on_case_running(opt->on_result_user, id, 0);
}

static int run_case(run_state *rs, nc_rule rule, int probe, nc_result *res, nc_child_result *cr)
{
  case_job job;
  memset(&job, 0, sizeof(job));
  job.rule = rule;
  job.probe = probe;
  if (rs->cfg->no_fork) {
    in_process.report = rs->report;
    in_process.result = res;
    in_process.started = nc_now();
  }
  spawn_case(rs, &job);
  in_process.report = NULL;
  int rc = finish_case(rs, &job, res);
  *cr = job.cr;
  return rc;
}

/* ---- running the cases, several at once ------------------------------------------ */

typedef struct job_queue {
  const run_state *rs;
  case_job *jobs;
  size_t *order; /* the jobs in the order they start */
  size_t n, next;
  pthread_mutex_t lock;
  pthread_cond_t finished;
} job_queue;

static void *case_worker(void *arg)
{
  job_queue *q = arg;
  for (;;) {
    pthread_mutex_lock(&q->lock);
    size_t i = q->next < q->n ? q->order[q->next++] : q->n;
    pthread_mutex_unlock(&q->lock);
    if (i == q->n)
      return NULL;
    if (!nc_run_interrupted()) /* an interrupted run starts no case */
      spawn_case(q->rs, &q->jobs[i]);
    pthread_mutex_lock(&q->lock);
    q->jobs[i].done = 1;
    pthread_cond_broadcast(&q->finished);
    pthread_mutex_unlock(&q->lock);
  }
}

/* How many cases run at once: what was asked (0: one per online CPU), at
 * most one per job and NC_RUNNER_MAX_JOBS; 1 when cases cannot be exec'd
 * (forking a threaded process to run plugin code is not safe). */
static int job_count(const nc_options *opt, const run_state *rs, size_t njobs)
{
  long want = opt->jobs > 0 ? opt->jobs : sysconf(_SC_NPROCESSORS_ONLN);
  if (want < 1 || !rs->runner[0] || rs->cfg->no_fork)
    want = 1;
  if (want > NC_RUNNER_MAX_JOBS)
    want = NC_RUNNER_MAX_JOBS;
  if ((size_t)want > njobs)
    want = njobs ? (long)njobs : 1;
  return (int)want;
}

/* Runs every job, nthreads at once, and hands each to done() in order as
 * soon as it and all before it have ended. */
static void run_jobs(run_state *rs, case_job *jobs, size_t n, int nthreads,
                     void (*started)(run_state *, case_job *, void *),
                     void (*done)(run_state *, case_job *, void *), void *user)
{
  if (nthreads <= 1) {
    for (size_t i = 0; i < n; i++) {
      started(rs, &jobs[i], user);
      if (!nc_run_interrupted())
        spawn_case(rs, &jobs[i]);
      done(rs, &jobs[i], user);
    }
    return;
  }
  /* The slowest start first (rules.h); the rest in rule order. */
  size_t *order = malloc(n * sizeof(*order)), k = 0;
  if (!order) {
    run_jobs(rs, jobs, n, 1, started, done, user);
    return;
  }
  for (int rank = 0; rank <= NC_RULE_COUNT; rank++)
    for (size_t i = 0; i < n; i++)
      if (nc_rule_slow_rank(jobs[i].rule) == rank ||
          (rank == NC_RULE_COUNT && nc_rule_slow_rank(jobs[i].rule) >= rank))
        order[k++] = i;
  job_queue q = {rs, jobs, order, n, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
  pthread_t threads[NC_RUNNER_MAX_JOBS];
  int started_threads = 0;
  for (int t = 0; t < nthreads; t++)
    if (pthread_create(&threads[started_threads], NULL, case_worker, &q) == 0)
      started_threads++;
  if (started_threads == 0) {
    free(order);
    run_jobs(rs, jobs, n, 1, started, done, user);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    started(rs, &jobs[i], user);
    pthread_mutex_lock(&q.lock);
    while (!jobs[i].done)
      pthread_cond_wait(&q.finished, &q.lock);
    pthread_mutex_unlock(&q.lock);
    done(rs, &jobs[i], user);
  }
  for (int t = 0; t < started_threads; t++)
    pthread_join(threads[t], NULL);
  free(order);
}

/* The caller's progress callbacks, called in rule order. */
typedef struct progress {
  const nc_options *opt;
  size_t reported; /* results handed to on_result so far */
} progress;

static void report_progress(progress *pg, const nc_report *r, size_t upto)
{
  for (; pg->reported < upto; pg->reported++)
    if (pg->opt->on_result)
      pg->opt->on_result(pg->opt->on_result_user, pg->reported + 1, r->selected,
                         r->results[pg->reported].rule->id, r->results[pg->reported].verdict);
}

static void job_started(run_state *rs, case_job *job, void *user)
{
  progress *pg = user;
  report_progress(pg, rs->report, job->slot);
  if (rs->cfg->no_fork) {
    in_process.report = rs->report;
    in_process.result = &rs->report->results[job->slot];
    in_process.started = nc_now();
  }
  if (pg->opt->on_case_start)
    pg->opt->on_case_start(pg->opt->on_result_user, job->slot, rs->report->selected,
                           nc_rule_defs[job->rule].info.id);
}

static void job_done(run_state *rs, case_job *job, void *user)
{
  nc_report *r = rs->report;
  nc_result *res = &r->results[job->slot];
  in_process.report = NULL;
  if (finish_case(rs, job, res) == 0)
    r->executed += res->executed;
  else
    r->harness_error = 1;
  nc_child_result_free(&job->cr);
  report_progress(user, r, job->slot + 1);
}

/* A plugin built with AddressSanitizer does not load without its runtime
 * first: the reason says how to run it. */
static void hint_asan(const nc_config *cfg, nc_result *probe)
{
  const char *runtime = nc_sanitize_asan_runtime(&cfg->elf);
  if (probe->verdict != NC_VERDICT_FAIL || cfg->sanitize == NC_SANITIZE_ASAN || !runtime)
    return;
  char *why = nc_strdupf("%s; the plugin links AddressSanitizer's runtime (%s): run it with "
                         "--sanitize asan", probe->reason ? probe->reason : "", runtime);
  if (why) {
    free(probe->reason);
    probe->reason = why;
  }
}

/* --sanitize: the tool found and its report directory made, or a usage
 * error. */
static int begin_sanitizer(run_state *rs, nc_report *r)
{
  char err[400];
  if (nc_sanitize_begin(&rs->san, rs->cfg->sanitize, rs->cfg->plugin_path, err, sizeof(err)))
    return nc_report_usage_error(r, "%s", err);
  return 0;
}

static nc_report *run(const nc_options *opt);

nc_report *nc_run_cases(const nc_options *caller)
{
  /* The caller's options as far as its struct goes (it may be older than
   * this library); the members it does not have keep their defaults. */
  nc_options opt;
  nc_options_init(&opt);
  size_t known = caller->struct_size < sizeof(opt) ? caller->struct_size : sizeof(opt);
  if (known >= offsetof(nc_options, plugin_path))
    memcpy(&opt, caller, known);
  opt.struct_size = sizeof(opt);
  /* What a run changes in the process goes back as it was (nve_conform.h). */
  struct sigaction chld;
  sigaction(SIGCHLD, NULL, &chld);
  nc_report *r = caller->struct_size ? run(&opt)
                                     : nc_report_new_error(&opt, "nc_options.struct_size is 0: "
                                                                 "start from nc_options_init");
  sigaction(SIGCHLD, &chld, NULL);
  return r;
}

/* The cases' sandbox, tried once: what the cases must write stays
 * writable (the shared sweeps, the tool's reports, the call log, a
 * coverage build's counters). Where it cannot be set up, auto says so in
 * the report and required makes the run an error. */
static void begin_sandbox(run_state *rs, const nc_config *cfg)
{
  nc_report *r = rs->report;
  const char *log = getenv("NVE_CONFORM_CALL_LOG"), *cov = nc_coverage_dir();
  /* The call log's keys go to a folder beside it (call_log.h), made here. */
  char keys[PATH_MAX + 8] = "";
  if (log && *log) {
    snprintf(keys, sizeof(keys), "%s.keys", log);
    if (mkdir(keys, 0755) != 0 && errno != EEXIST)
      keys[0] = '\0';
  }
  const char *rw[] = {cfg->cache_dir, rs->san.dir, log ? log : "", cov ? cov : "", keys, NULL};
  /* Where each case's private TMPDIR is mounted: in the run's scratch, so
   * that it goes with it (TMPDIR itself stays readable: plugins live there). */
  char scratch[PATH_MAX + 16] = "";
  if (cfg->cache_dir[0] && !cfg->no_fork && cfg->sandbox != NC_SANDBOX_OFF) {
    snprintf(scratch, sizeof(scratch), "%s/case-tmp", cfg->cache_dir);
    if (mkdir(scratch, 0700) != 0)
      scratch[0] = '\0';
  }
  char err[800];
  if (nc_sandbox_begin(&rs->sandbox, cfg->sandbox, cfg->no_fork, rs->runner, scratch, rw, err,
                       sizeof(err)) != 0 &&
      !r->error) {
    r->error = strdup(err);
    r->harness_error = 1;
  }
  r->sandbox_on = rs->sandbox.on;
  free(r->sandbox);
  r->sandbox = strdup(rs->sandbox.why);
}

/* The run's shared scratch: the directory the failure sweeps share, the
 * subreaper that adopts what cases leave behind, and the configuration
 * the runners read, sealed: no case (no plugin) can change what the next
 * case is told, and it has no size limit. */
static void begin_run(run_state *rs, nc_config *cfg)
{
  const char *tmp = getenv("TMPDIR");
  snprintf(cfg->cache_dir, sizeof(cfg->cache_dir), "%s/nve-conform-run-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(cfg->cache_dir))
    cfg->cache_dir[0] = '\0';
  unsigned char raw[16] = {0};
  cfg->cache_secret[0] = '\0'; /* none: nothing is shared, each case sweeps for itself */
  if (getrandom(raw, sizeof(raw), 0) == (ssize_t)sizeof(raw))
    for (size_t i = 0; i < sizeof(raw); i++)
      snprintf(cfg->cache_secret + 2 * i, 3, "%02x", raw[i]);
  nc_runner_scratch(cfg->cache_dir);
  nc_run_interrupt_clear(); /* an earlier run's interruption is not this one's */
  rs->was_subreaper = cfg->no_fork ? -1 : nc_contain_run_begin();
  rs->config_fd = cfg->no_fork ? -1 : nc_config_sealed(cfg);
  if (!cfg->no_fork && rs->config_fd < 0) {
    rs->report->error = nc_strdupf("cannot hand the cases their configuration (a sealed "
                                   "memfd): %s", strerror(errno));
    rs->report->harness_error = 1;
  }
  begin_sandbox(rs, cfg);
}

/* The probe: SYM-06's case, continued through the host's loader. What it
 * found (loaded or not, and why) decides which cases can run. */
static void run_probe(run_state *rs, nc_config *cfg)
{
  nc_report *r = rs->report;
  nc_result *probe_res = &rs->probe_res;
  probe_res->rule = &nc_rule_defs[NC_PROBE_RULE].info;
  nc_child_result probe_cr;
  if (run_case(rs, NC_PROBE_RULE, 1, probe_res, &probe_cr) != 0) {
    r->error = strdup(probe_res->reason ? probe_res->reason : "the load probe could not run");
    r->harness_error = 1;
    return;
  }
  nc_probe_state *ps = &rs->probe;
  nc_probe_read(&probe_cr, cfg, r, ps);
  if (probe_res->verdict == NC_VERDICT_ERROR && probe_cr.ended) {
    /* The harness could not check (its CUDA layer missing, say): no rule
     * was tested, and blaming the plugin's loading would be false. */
    r->error = nc_strdupf("the load probe could not run: %s",
                          probe_res->reason ? probe_res->reason : "no reason given");
    r->harness_error = 1;
    nc_child_result_free(&probe_cr);
    return;
  }
  if (nc_plugin_file_changed(cfg)) { /* its constructor replaced or rewrote its own file */
    ps->loaded = 0;
    ps->file_changed = 1;
    snprintf(ps->blocker, sizeof(ps->blocker), "loading the plugin changed its file (%.500s): "
             "the cases would test another file than the one hashed", cfg->plugin_path);
    ps->blocker_rule = &nc_rule_defs[NC_PROBE_RULE].info;
    probe_res->verdict = NC_VERDICT_FAIL;
    nc_result_add_evidence(probe_res, NC_LEVEL_FAIL, "dlopen (plugin constructors)",
                           "the plugin file unchanged during the run",
                           "the path names another file, or the file was written, after the "
                           "plugin was loaded");
    nc_result_set_reason(probe_res, "%s", ps->blocker);
  }
  if (probe_cr.forged) { /* loading it forged records: no case can trust its channel */
    ps->loaded = 0;
    snprintf(ps->blocker, sizeof(ps->blocker), "loading the plugin wrote to the harness's "
             "result channel");
    ps->blocker_rule = &nc_rule_defs[NC_PROBE_RULE].info;
  }
  nc_child_result_free(&probe_cr);
  hint_asan(cfg, probe_res);
}

/* Every selected rule gets its place in the report now; those whose case
 * must run become jobs, run several at once and finished in rule order,
 * so the report is the same whatever the job count. */
static void run_selected(run_state *rs, const nc_config *cfg)
{
  nc_report *r = rs->report;
  const nc_options *opt = rs->opt;
  case_job *jobs = calloc(r->selected ? r->selected : 1, sizeof(*jobs));
  size_t njobs = 0;
  for (int i = 0; i < NC_RULE_COUNT && jobs; i++) {
    nc_rule rule = (nc_rule)i;
    const nc_rule_info *info = &nc_rule_defs[rule].info;
    if (!selected(opt, rule))
      continue;
    nc_result *res = nc_report_add(r, info);
    if (!res)
      break;
    char why[1024];
    int blocked;
    const nc_rule_info *owner; /* whose failure blocks it */
    if (rule == NC_PROBE_RULE) {
      /* Reuse the probe's result: running the constructors again would only
       * repeat it (and a hang would cost a second timeout). */
      *res = rs->probe_res;
      memset(&rs->probe_res, 0, sizeof(rs->probe_res));
      r->executed++;
    } else if (nc_probe_blocked(rule, cfg, &rs->probe, &blocked, &owner, why, sizeof(why))) {
      if (blocked)
        nc_result_set_blocked(res, owner, why);
      else
        nc_result_set_skip(res, NC_SKIP_NOT_APPLICABLE, "%s", why);
    } else {
      jobs[njobs].rule = rule;
      jobs[njobs].slot = r->nresults - 1;
      njobs++;
    }
    res->reproduce = nc_reproduce_line(cfg, info->id);
  }
  progress pg = {opt, 0};
  r->jobs = nc_contain_max_jobs(job_count(opt, rs, njobs), rs->jobs_note, sizeof(rs->jobs_note));
  run_jobs(rs, jobs, njobs, r->jobs, job_started, job_done, &pg);
  report_progress(&pg, r, r->nresults);
  free(jobs);
}

/* Whether rule's case could have judged the plugin: the probe neither
 * blocks it nor finds it not applicable. */
static int could_run(const nc_rule_info *rule, void *arg)
{
  const run_state *rs = arg;
  char why[1024];
  int blocked;
  const nc_rule_info *owner;
  for (int i = 0; i < NC_RULE_COUNT; i++)
    if (&nc_rule_defs[i].info == rule)
      return !nc_probe_blocked((nc_rule)i, rs->cfg, &rs->probe, &blocked, &owner, why,
                               sizeof(why));
  return 0;
}

/* What no single case can say: observations across cases, blame, the
 * refusal, coverage, then the waivers and the baseline. */
static void settle(run_state *rs)
{
  nc_report *r = rs->report;
  const nc_options *opt = rs->opt;
  nc_result_release(&rs->probe_res); /* when SYM-06 was not selected */
  nc_observations_fold(&rs->observations, r);
  nc_observations_free(&rs->observations);
  if (rs->cfg)
    nc_join_proven_owners(r, could_run, rs);
  nc_attribute_blocks(r);
  nc_settle_unowned_blocks(r);
  nc_find_refusal(r);
  nc_settle_coverage(r);
  if (!r->error && rs->have_waivers)
    nc_waivers_apply(&rs->waivers, r);
  if (!r->error && rs->have_baseline)
    nc_baseline_apply(&rs->baseline, r);
  if (opt->waivers_path)
    r->waivers_path = strdup(opt->waivers_path);
  if (opt->baseline_path)
    r->baseline_path = strdup(opt->baseline_path);
  if (r->interrupted)
    r->note = nc_strdupf("interrupted by %s: %zu of %zu selected rules ran; the rest are SKIP",
                         nc_signal_name(r->interrupted), r->executed, r->selected);
  else if (r->executed < r->selected && !r->error)
    r->note = nc_strdupf("%zu of %zu selected rules ran; the others were skipped or blocked "
                         "(each says why)%s%s",
                         r->executed, r->selected, rs->jobs_note[0] ? "; " : "", rs->jobs_note);
  else if (rs->jobs_note[0] && !r->error)
    r->note = nc_strdupf("%s", rs->jobs_note);
}

/* Puts back what begin_run took; nothing a case started outlives it. */
/* --repro: the sealed reproducers the cases left, into the directory. */
static void collect_repros(run_state *rs, const nc_config *cfg)
{
  if (!rs->opt->repro_dir || rs->report->error)
    return;
  char err[600];
  if (nc_repro_collect(cfg->cache_dir, cfg->cache_secret, rs->opt->repro_dir, err,
                       sizeof(err)) < 0) {
    rs->report->error = nc_strdupf("%s", err);
    rs->report->harness_error = 1;
  }
}

static void end_run(run_state *rs, nc_config *cfg)
{
  collect_repros(rs, cfg);
  nc_sandbox_end(&rs->sandbox);
  if (!cfg->no_fork)
    nc_runner_reap_orphans();
  nc_runner_scratch(NULL);
  if (rs->was_subreaper >= 0)
    nc_contain_run_end(rs->was_subreaper);
  remove_cache(cfg->cache_dir);
  nc_sanitize_end(&rs->san);
  if (rs->config_fd >= 0)
    close(rs->config_fd);
}

static nc_report *run(const nc_options *opt)
{
  nc_report *r = nc_report_new();
  if (!r)
    return NULL;
  double t0 = nc_now();
  nc_config cfg;
  run_state rs;
  memset(&rs, 0, sizeof(rs));
  rs.cfg = &cfg;
  rs.report = r;
  rs.opt = opt;
  rs.config_fd = rs.was_subreaper = rs.sandbox.server_fd = -1;
  if (prepare(opt, &cfg, r) == 0 && load_gate(opt, &rs, r) == 0 && need_runner(&rs, r) == 0 &&
      begin_sanitizer(&rs, r) == 0) {
    begin_run(&rs, &cfg);
    if (!r->error)
      run_probe(&rs, &cfg);
    char mismatch[700];
    if (!r->error && rs.have_baseline && opt->baseline_any_build &&
        nc_baseline_matches(&rs.baseline, r->sha256, r->plugin_name, 1, mismatch,
                            sizeof(mismatch)) != 0)
      nc_report_usage_error(r, "baseline '%s': %s", opt->baseline_path, mismatch);
    if (!r->error)
      run_selected(&rs, &cfg);
    r->interrupted = nc_run_interrupted();
    settle(&rs);
    r->seconds = nc_now() - t0;
    end_run(&rs, &cfg);
  }
  release_gate(&rs);
  nc_elf_info_clear(&cfg.elf);
  nc_profile_release();
  return r;
}
