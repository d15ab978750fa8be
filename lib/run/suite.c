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
#include "cuda.h"
#include "atomic_file.h"
#include "gate.h"
#include "module_dir.h"
#include "options.h"
#include "probe.h"
#include "profile.h"
#include "report.h"
#include "reproduce.h"
#include "runner.h"
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
    unlink(path);
  }
  if (d)
    closedir(d);
  rmdir(dir);
}

typedef struct run_state {
  const nc_config *cfg;
  nc_report *report;
  nc_waivers waivers;
  nc_baseline baseline;
  int have_waivers, have_baseline;
  char runner[PATH_MAX];  /* the case runner, or "": fork instead */
  char config[PATH_MAX];  /* the configuration file the runner reads */
  nc_observations observations;
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
 * directory below the runner), else the installed one. "" when none exists. */
static void find_case_runner(char *out, size_t len)
{
  out[0] = '\0';
  const char *env = getenv("NVE_CONFORM_CASE_RUNNER");
  if (env && *env) {
    snprintf(out, len, "%s", env);
    return;
  }
  char candidates[3][PATH_MAX + 32] = {"", "", ""}, dir[PATH_MAX];
  if (nc_module_dir((const void *)find_case_runner, dir, sizeof(dir)) == 0) {
    snprintf(candidates[0], sizeof(candidates[0]), "%s/%s", dir, CASE_RUNNER);
    snprintf(candidates[1], sizeof(candidates[1]), "%s/../%s", dir, CASE_RUNNER);
  }
  snprintf(candidates[2], sizeof(candidates[2]), "%s", NC_CASE_RUNNER_INSTALLED);
  for (int i = 0; i < 3; i++)
    if (candidates[i][0] && access(candidates[i], X_OK) == 0) {
      snprintf(out, len, "%s", candidates[i]);
      return;
    }
}


typedef struct forked_case {
  const nc_config *cfg;
  nc_rule rule;
  int probe;
} forked_case;

static void forked_case_body(void *arg)
{
  const forked_case *j = arg;
  if (!j->cfg->no_fork)
    nc_contain_case();
  nc_case_child_run(j->cfg, j->rule, j->probe);
  if (!j->cfg->no_fork)
    nc_contain_kill_children();
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

static int run_case(run_state *rs, nc_rule rule, int probe, nc_result *res, nc_child_result *cr)
{
  const nc_config *cfg = rs->cfg;
  char err[600];
  int rc;
  if (cfg->no_fork) {
    in_process.report = rs->report;
    in_process.result = res;
    in_process.started = nc_now();
  }
  if (rs->runner[0] && !cfg->no_fork) {
    char *argv[] = {rs->runner, rs->config, (char *)nc_rule_text(rule), probe ? "probe" : NULL,
                    NULL};
    rc = nc_run_program(argv, cfg->timeout_s, cr, err, sizeof(err));
  } else {
    forked_case j = {cfg, rule, probe};
    rc = nc_run_isolated(forked_case_body, &j, cfg->timeout_s, cfg->no_fork, 1, cr, err,
                         sizeof(err));
  }
  in_process.report = NULL;
  if (!cfg->no_fork)
    nc_contain_reap_orphans(); /* what a killed case left behind */
  if (rc != 0) {
    res->verdict = NC_VERDICT_ERROR;
    nc_result_set_reason(res, "the harness could not run the case: %s", err);
    return -1;
  }
  nc_derive_result(res, cr, cfg);
  nc_observations_take(&rs->observations, cr);
  res->executed = 1;
  res->seconds = cr->seconds;
  if (cr->output && cr->output[0] && res->verdict != NC_VERDICT_PASS)
    res->output = nc_sanitized(cr->output);
  return 0;
}

/* A case blocked by a rule that did not fail in this report (it was not
 * selected, or no rule owns the blocker) must not read as a clean skip. */
static void unblocked_skips_are_errors(nc_report *r)
{
  for (size_t i = 0; i < r->nresults; i++) {
    nc_result *res = &r->results[i];
    if (res->verdict != NC_VERDICT_SKIP || !res->reason || strncmp(res->reason, "blocked", 7))
      continue;
    int owner_failed = 0;
    for (size_t k = 0; k < r->nresults; k++)
      if (r->results[k].verdict == NC_VERDICT_FAIL && strstr(res->reason, r->results[k].rule->id))
        owner_failed = 1;
    if (!owner_failed)
      res->verdict = NC_VERDICT_ERROR;
  }
}

nc_report *nc_run(const nc_options *opt)
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
  if (prepare(opt, &cfg, r) != 0 || load_gate(opt, &rs, r) != 0) {
    release_gate(&rs);
    nc_elf_info_clear(&cfg.elf);
    nc_profile_release();
    return r;
  }

  /* Scratch files the cases of this run share: the configuration the case
   * runner reads, and the failure sweeps' results. */
  const char *tmp = getenv("TMPDIR");
  snprintf(cfg.cache_dir, sizeof(cfg.cache_dir), "%s/nve-conform-run-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(cfg.cache_dir))
    cfg.cache_dir[0] = '\0';
  nc_runner_scratch(cfg.cache_dir);
  find_case_runner(rs.runner, sizeof(rs.runner));
  int was_subreaper = cfg.no_fork ? -1 : nc_contain_run_begin();
  snprintf(rs.config, sizeof(rs.config), "%s/config", cfg.cache_dir);
  if (rs.runner[0] && (!cfg.cache_dir[0] || nc_config_write(&cfg, rs.config) != 0))
    rs.runner[0] = '\0'; /* the cases are forked instead */

  /* The probe: SYM-06's case, continued through the host's loader. */
  nc_probe_state ps;
  memset(&ps, 0, sizeof(ps));
  nc_result probe_res;
  memset(&probe_res, 0, sizeof(probe_res));
  probe_res.rule = &nc_rule_defs[NC_PROBE_RULE].info;
  nc_child_result probe_cr;
  if (run_case(&rs, NC_PROBE_RULE, 1, &probe_res, &probe_cr) != 0) {
    r->error = strdup(probe_res.reason ? probe_res.reason : "the load probe could not run");
    r->harness_error = 1;
  } else {
    nc_probe_read(&probe_cr, &cfg, r, &ps);
    nc_child_result_free(&probe_cr);
  }
  char mismatch[700];
  if (!r->error && rs.have_baseline && opt->baseline_any_build &&
      nc_baseline_matches(&rs.baseline, r->sha256, r->plugin_name, 1, mismatch,
                          sizeof(mismatch)) != 0)
    nc_report_usage_error(r, "baseline '%s': %s", opt->baseline_path, mismatch);

  size_t done = 0;
  for (int i = 0; i < NC_RULE_COUNT && !r->error; i++) {
    nc_rule rule = (nc_rule)i;
    const nc_rule_info *info = &nc_rule_defs[rule].info;
    if (!selected(opt, rule))
      continue;
    nc_result *res = nc_report_add(r, info);
    if (!res)
      break;
    char why[1024];
    const char *owner; /* the rule named in a "blocked" reason */
    if (rule == NC_PROBE_RULE) {
      /* Reuse the probe's result: running the constructors again would only
       * repeat it (and a hang would cost a second timeout). */
      *res = probe_res;
      memset(&probe_res, 0, sizeof(probe_res));
      r->executed++;
    } else if (nc_probe_blocked(rule, &cfg, &ps, &owner, why, sizeof(why))) {
      res->verdict = NC_VERDICT_SKIP;
      nc_result_set_reason(res, "%s", why);
    } else {
      if (opt->on_case_start)
        opt->on_case_start(opt->on_result_user, done, r->selected, info->id);
      nc_child_result cr;
      if (run_case(&rs, rule, 0, res, &cr) == 0) {
        r->executed++;
        nc_child_result_free(&cr);
      } else {
        r->harness_error = 1;
      }
    }
    res->reproduce = nc_reproduce_line(&cfg, info->id);
    done++;
    if (opt->on_result)
      opt->on_result(opt->on_result_user, done, r->selected, info->id, res->verdict);
  }
  nc_result_release(&probe_res); /* when SYM-06 was not selected */
  nc_observations_fold(&rs.observations, r);
  nc_observations_free(&rs.observations);
  unblocked_skips_are_errors(r);

  if (!r->error && rs.have_waivers)
    nc_waivers_apply(&rs.waivers, r);
  if (!r->error && rs.have_baseline)
    nc_baseline_apply(&rs.baseline, r);
  release_gate(&rs);
  if (opt->waivers_path)
    r->waivers_path = strdup(opt->waivers_path);
  if (opt->baseline_path)
    r->baseline_path = strdup(opt->baseline_path);
  if (r->executed < r->selected && !r->error)
    r->note = nc_strdupf("%zu of %zu selected rules ran; the others were skipped or blocked "
                         "(each says why)",
                         r->executed, r->selected);
  r->seconds = nc_now() - t0;
  nc_runner_scratch(NULL);
  if (was_subreaper >= 0)
    nc_contain_run_end(was_subreaper);
  remove_cache(cfg.cache_dir);
  nc_elf_info_clear(&cfg.elf);
  nc_profile_release();
  return r;
}
