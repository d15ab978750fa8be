/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "case_child.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc.h"
#include "call_log.h"
#include "callback.h"
#include "config_io.h"
#include "contain.h"
#include "coverage.h"
#include "cuda.h"
#include "evidence.h"
#include "host_malloc.h"
#include "pool.h"
#include "quiet.h"
#include "repro_out.h"
#include "runner.h"
#include "services.h"
#include "trace.h"
#include "violations.h"

/* Violations sent in full per rule; the rest go as a count at the end. */
#define STREAMED 8

static nc_rule running_rule;

/* Writes numbers without stdio: the sink runs in fault handlers too. */
static void put_decimal(char *out, size_t len, unsigned long v)
{
  char digits[24];
  size_t n = 0;
  do
    digits[n++] = (char)('0' + v % 10);
  while ((v /= 10) && n < sizeof(digits));
  size_t i = 0;
  for (; i < n && i + 1 < len; i++)
    out[i] = digits[n - 1 - i];
  out[i] = '\0';
}

static void stream_violation(nc_rule rule, const char *text, size_t ordinal)
{
  if (ordinal >= STREAMED)
    return;
  const char *where = nc_callback_current();
  char thread[24];
  put_decimal(thread, sizeof(thread), (unsigned long)nc_callback_thread());
  const char *f[] = {nc_rule_text(rule), text, nc_rule_text(running_rule), where ? where : "",
                     thread};
  nc_trace_record(NC_TAG_VIOLATION, 5, f);
}

void nc_case_child_send_counts(void)
{
  for (int r = 0; r < NC_RULE_COUNT; r++) {
    size_t n = nc_violation_count((nc_rule)r);
    if (n <= STREAMED)
      continue;
    char count[24];
    put_decimal(count, sizeof(count), (unsigned long)n);
    const char *f[] = {nc_rule_text((nc_rule)r), count};
    nc_trace_record(NC_TAG_VCOUNT, 2, f);
  }
}

void nc_case_child_forked(void) { nc_violation_reset(); }

void nc_case_child_forward(const nc_child_result *cr)
{
  for (size_t i = 0; i < cr->nrecords; i++) {
    const nc_record *rec = &cr->records[i];
    if (strcmp(rec->tag, NC_TAG_VIOLATION) == 0 || strcmp(rec->tag, NC_TAG_VCOUNT) == 0)
      nc_trace_record(rec->tag, rec->nfields, (const char *const *)rec->fields);
  }
}

/* The cases the program handed over. */
static const nc_case_set *cases;

void nc_engine_use_cases(const nc_case_set *set) { cases = set; }

/* --repro: this process's table calls, for a reproducer should plugin
 * code end it (nc_case_child_crash_repro). */
static void start_crash_log(const nc_config *cfg, nc_rule rule)
{
  if (!cfg->repro || cfg->no_fork || !cfg->cache_dir[0] || !cases || !cases->crash_repro)
    return;
  char path[PATH_MAX + 32];
  nc_repro_crash_log(cfg, rule, path, sizeof(path));
  nc_call_log_crash_open(path); /* without it, the reproducer's note says there is no log */
}

void nc_case_child_run(const nc_config *cfg, nc_rule rule, int probe)
{
  const nc_rule_def *def = &nc_rule_defs[rule];
  nc_case c = {cfg, rule, def, NULL};
  static nc_plugin plugin;
  char err[1024];
  running_rule = rule;
  nc_violation_set_sink(stream_violation);
  if (!cases || !cases->fns[rule]) {
    nc_harness_error(&c, "the program handed the engine no case for %s", def->info.id);
    return;
  }
  start_crash_log(cfg, rule);
  /* The runtime goes first, RTLD_GLOBAL: the plugin's libcudart
   * references then bind to it (the simulation included). */
  if (nc_cuda_open((nc_cuda_mode)cfg->cuda_mode, cfg->sim_devices, err, sizeof(err)) != 0) {
    nc_harness_error(&c, "the CUDA runtime did not load: %s", err);
    return;
  }
  if (nc_plugin_file_changed(cfg)) {
    /* A path that names another file than the one hashed would test it. */
    nc_fail(&c, "the plugin file", "the file that was hashed when the run began",
            "%s names another file now (replaced or rewritten during the run)",
            cfg->plugin_path);
    return;
  }
  nc_trace_set_plugin(cfg->plugin_path);
  nc_quiet_begin();
  if (def->stage >= NC_STAGE_OPEN) {
    /* From here on plugin code is in this process: a signal the harness
     * did not send is the plugin's (verdict.c). */
    nc_trace_record(NC_TAG_OPENED, 0, NULL);
    if (nc_plugin_open(&plugin, cfg->plugin_path, err, sizeof(err)) != 0) {
      nc_harness_error(&c, "the plugin did not open in this case's process: %s", err);
      return;
    }
    c.plugin = &plugin;
  }
  nc_pool_configure(cfg->workers, cfg->schedule, cfg->seed);
  nc_alloc_enable(1);
  if (def->stage >= NC_STAGE_ACCEPTED) {
    nc_host_load load;
    nc_host_load_run(&plugin, cfg->host_major, cfg->host_minor,
                     def->stage >= NC_STAGE_LOADED ? nc_services_table() : NULL, &load);
    if (!load.accepted) {
      nc_harness_error(&c, "the host refused the plugin in this case's process: %s",
                       load.reason);
      return;
    }
  }
  cases->fns[rule](&c);
  if (probe && cases->load_probe) {
    nc_trace_record("SETTLED", 0, NULL);
    cases->load_probe(&c);
  }
  nc_pool_shutdown(); /* no helper thread outlives the case */
  nc_evidence_flush();
  nc_case_child_send_counts();
}

void nc_case_child_crash_repro(const nc_config *cfg, nc_rule rule, const char *how)
{
  nc_case c = {cfg, rule, &nc_rule_defs[rule], NULL};
  char err[1024];
  running_rule = rule;
  nc_violation_set_sink(stream_violation);
  if (!cases || !cases->crash_repro) {
    nc_harness_error(&c, "the program handed the engine no crash replay");
    return;
  }
  /* The replays load the plugin in children, after the runtime the case
   * had, as the case did; this process never runs plugin code. */
  if (nc_cuda_open((nc_cuda_mode)cfg->cuda_mode, cfg->sim_devices, err, sizeof(err)) != 0) {
    nc_harness_error(&c, "the CUDA runtime did not load: %s", err);
    return;
  }
  cases->crash_repro(&c, how);
  nc_evidence_flush();
}

int nc_case_process_main(int argc, char **argv)
{
  nc_host_malloc_settings();
  if (argc < 3) {
    fprintf(stderr, "usage: nve-conform-case - RULE [probe | crash HOW]\n"
                    "(started by nve-conform for each case; not meant to be run by hand)\n");
    return 2;
  }
  /* The key first: every record, a harness error included, carries it. */
  char key[NC_TRACE_KEY_MAX];
  ssize_t got = read(NC_RUNNER_KEY_FD, key, sizeof(key) - 1);
  key[got > 0 ? got : 0] = '\0';
  close(NC_RUNNER_KEY_FD);
  nc_trace_set_key(key[0] ? key : NULL);
  char *page = mmap(NULL, NC_TRACE_PHASE_MAX, PROT_READ | PROT_WRITE, MAP_SHARED,
                    NC_RUNNER_PAGE_FD, 0);
  close(NC_RUNNER_PAGE_FD);
  nc_trace_start(nc_park_high(NC_RUNNER_CHANNEL_FD), page == MAP_FAILED ? NULL : page);
  nc_contain_case();
  static nc_config cfg;
  char why[600];
  int rule = nc_rule_parse(argv[2]);
  nc_case c = {&cfg, (nc_rule)(rule < 0 ? 0 : rule), NULL, NULL};
  if (rule < 0)
    nc_harness_error(&c, "the case runner was given an unknown rule '%s'", argv[2]);
  else if (strcmp(argv[1], "-") != 0)
    nc_harness_error(&c, "the case runner reads its configuration from descriptor %d (\"-\"), "
                         "not '%s'", NC_RUNNER_CONFIG_FD, argv[1]);
  else if (nc_config_read_fd(NC_RUNNER_CONFIG_FD, &cfg, why, sizeof(why)) != 0)
    nc_harness_error(&c, "%s", why);
  else {
    close(NC_RUNNER_CONFIG_FD); /* read before any plugin code runs; nothing to reach now */
    if (argc > 4 && strcmp(argv[3], "crash") == 0)
      nc_case_child_crash_repro(&cfg, (nc_rule)rule, argv[4]);
    else
      nc_case_child_run(&cfg, (nc_rule)rule, argc > 3 && strcmp(argv[3], "probe") == 0);
  }
  nc_contain_kill_children(); /* nothing the plugin started outlives its case */
  nc_trace_record("END", 0, NULL);
  nc_coverage_flush();
  _exit(nc_trace_channel_lost() ? NC_CHILD_EXIT_CHANNEL_LOST : 0);
}
