/* SPDX-License-Identifier: Apache-2.0 */
/* nc_run: checks the options, inspects the file, runs the load probe, runs
 * every selected case in its own child, and turns what the children
 * reported (or how they died) into verdicts. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "atomic_file.h"
#include "catalog.h"
#include "config.h"
#include "cuda.h"
#include "gate.h"
#include "json_span.h"
#include "report.h"
#include "pool.h"
#include "runner.h"
#include "services.h"
#include "sha256.h"
#include "strbuf.h"
#include "trace.h"

void nc_options_init(nc_options *opt)
{
  memset(opt, 0, sizeof(*opt));
  opt->factory_config = NULL; /* the profile's, else "{}" */
  opt->table_config = NULL;
  opt->host_abi_major = NVE_PLUGIN_ABI_VERSION_MAJOR;
  opt->host_abi_minor = NVE_PLUGIN_ABI_VERSION_MINOR;
  opt->timeout_s = 5.0;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  opt->seed = ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
}

/* What the load probe found out about the plugin. */
typedef struct probe_state {
  int opened;
  int loaded;
  int mode_known;
  int32_t mode;
  char blocker_rule[16];
  char blocker[768];
} probe_state;

typedef struct job {
  const nc_config *cfg;
  const nc_case_def *def;
  int probe;
} job;

static void case_body(void *arg)
{
  job *j = arg;
  nc_case c = {j->cfg, j->def, NULL};
  static nc_plugin plugin;
  char err[1024];
  /* The runtime goes first, RTLD_GLOBAL: the plugin's libcudart
   * references then bind to it (the simulation included). */
  if (nc_cuda_open((nc_cuda_mode)j->cfg->cuda_mode, j->cfg->sim_devices, err, sizeof(err)) != 0) {
    nc_harness_error(&c, "the CUDA runtime did not load: %s", err);
    return;
  }
  if (j->def->stage >= NC_STAGE_OPEN) {
    if (nc_plugin_open(&plugin, j->cfg->plugin_path, err, sizeof(err)) != 0) {
      nc_harness_error(&c, "the plugin did not open in this case's process: %s", err);
      return;
    }
    c.plugin = &plugin;
  }
  nc_pool_configure(j->cfg->workers, j->cfg->schedule, j->cfg->seed);
  nc_alloc_enable(1);
  if (j->def->stage >= NC_STAGE_ACCEPTED) {
    nc_host_load load;
    nc_host_load_run(&plugin, j->cfg->host_major, j->cfg->host_minor,
                     j->def->stage >= NC_STAGE_LOADED ? nc_services_table() : NULL, &load);
    if (!load.accepted) {
      nc_harness_error(&c, "the host refused the plugin in this case's process: %s",
                       load.reason);
      return;
    }
  }
  j->def->fn(&c);
  if (j->probe) {
    nc_trace_record("SETTLED", 0, NULL);
    nc_load_probe(&c);
  }
  nc_pool_shutdown(); /* no helper thread outlives the case */
}

/* ---- turning a child's records into a verdict --------------------------- */

static char *sanitized(const char *s)
{
  char *copy = strdup(s ? s : "");
  if (copy && !nc_utf8_valid(copy))
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
      if (*p >= 0x80)
        *p = '?';
  return copy;
}


/* A frame in the plugin that dladdr could not name ("x.so+0x10f7") gets its
 * function from the file's symbol table, which also lists static ones. */
static char *symbolized_frame(const char *frame, const nc_config *cfg)
{
  const char *base = strrchr(cfg->plugin_path, '/');
  base = base ? base + 1 : cfg->plugin_path;
  size_t blen = strlen(base);
  unsigned long offset;
  char sym[300];
  if (strncmp(frame, base, blen) == 0 && strncmp(frame + blen, "+0x", 3) == 0 &&
      !strchr(frame, '(') && sscanf(frame + blen + 3, "%lx", &offset) == 1 &&
      nc_elf_symbolize_file(cfg->plugin_path, offset, sym, sizeof(sym)) == 0)
    return nc_strdupf("%s (%s)", frame, sym);
  return sanitized(frame);
}

/* The first evidence of a level; the caller knows one exists. */
static const nc_evidence *first_evidence(const nc_result *res, const char *level)
{
  for (size_t i = 0; i < res->nevidence; i++)
    if (strcmp(res->evidence[i].level, level) == 0)
      return &res->evidence[i];
  return &res->evidence[0];
}

static void derive_result(nc_result *res, const nc_child_result *cr, const nc_config *cfg)
{
  int nfail = 0, nwarn = 0, nerror = 0, settled = 0, crashed_in_plugin = 0;
  const char *phase = cr->phase, *skip = NULL;
  for (size_t i = 0; i < cr->nrecords && !settled; i++) {
    const nc_record *rec = &cr->records[i];
    const char *f0 = rec->nfields > 0 ? rec->fields[0] : "";
    if (strcmp(rec->tag, "SETTLED") == 0) {
      settled = 1;
    } else if (strcmp(rec->tag, "SKIP") == 0) {
      skip = f0;
    } else if (strcmp(rec->tag, "CHECK") == 0 && rec->nfields >= 4) {
      char *obs = sanitized(rec->fields[3]);
      nc_result_add_evidence(res, rec->fields[0], rec->fields[1], rec->fields[2], obs);
      free(obs);
      nfail += strcmp(f0, NC_LEVEL_FAIL) == 0;
      nwarn += strcmp(f0, NC_LEVEL_WARN) == 0;
      nerror += strcmp(f0, NC_LEVEL_ERROR) == 0;
    } else if (strcmp(rec->tag, "CRASH") == 0 && rec->nfields >= 3) {
      free(res->crash);
      res->crash = nc_strdupf("%s in %s at address %s", nc_signal_name(atoi(f0)),
                              rec->fields[1][0] ? rec->fields[1] : "harness code",
                              rec->fields[2]);
      crashed_in_plugin = rec->fields[1][0] != '\0';
    } else if (strcmp(rec->tag, "FRAME") == 0 && rec->nfields >= 1) {
      char **p = realloc(res->frames, (res->nframes + 1) * sizeof(*p));
      if (p) {
        res->frames = p;
        res->frames[res->nframes++] = symbolized_frame(f0, cfg);
      }
    }
  }
  if (!cr->ended && !settled) {
    char how[256];
    nc_child_describe_end(cr, cfg->timeout_s, how, sizeof(how));
    int in_plugin = phase[0] != '\0' || crashed_in_plugin;
    if (in_plugin || (!cr->signo && !cr->timed_out)) {
      /* Exits and lost channels come from plugin code (a destructor, a
       * thread it left running): the harness does neither. */
      nc_result_add_evidence(res, NC_LEVEL_FAIL, phase[0] ? phase : "plugin code",
                             "returns normally", how);
      nc_result_set_reason(res, "%s %s", phase[0] ? phase : "plugin code", how);
      res->verdict = NC_VERDICT_FAIL;
    } else {
      nc_result_set_reason(res, "the harness itself %s outside plugin code", how);
      res->verdict = NC_VERDICT_ERROR;
    }
    return;
  }
  const nc_evidence *e;
  if (nfail) {
    res->verdict = res->rule->severity == NC_MUST ? NC_VERDICT_FAIL : NC_VERDICT_WARN;
    e = first_evidence(res, NC_LEVEL_FAIL);
    nc_result_set_reason(res, "%s: %s (expected %s)", e->call, e->observed, e->expected);
  } else if (nerror) {
    res->verdict = NC_VERDICT_ERROR;
    e = first_evidence(res, NC_LEVEL_ERROR);
    nc_result_set_reason(res, "could not check: %s", e->observed);
  } else if (nwarn) {
    res->verdict = NC_VERDICT_WARN;
    e = first_evidence(res, NC_LEVEL_WARN);
    nc_result_set_reason(res, "%s: %s (should be %s)", e->call, e->observed, e->expected);
  } else if (skip) {
    res->verdict = NC_VERDICT_SKIP;
    nc_result_set_reason(res, "%s", skip);
  } else {
    res->verdict = NC_VERDICT_PASS;
  }
}

/* Reads the probe's INFO records into the report header and the probe. */
static void read_probe(const nc_child_result *cr, const nc_config *cfg, nc_report *r,
                       probe_state *ps)
{
  int settled = 0;
  const char *phase = cr->phase;
  for (size_t i = 0; i < cr->nrecords; i++) {
    const nc_record *rec = &cr->records[i];
    if (strcmp(rec->tag, "SETTLED") == 0)
      settled = 1;
    if (strcmp(rec->tag, "INFO") != 0 || rec->nfields < 2)
      continue;
    const char *k = rec->fields[0], *v = rec->fields[1];
    if (strcmp(k, "opened") == 0) {
      ps->opened = 1;
    } else if (strcmp(k, "loaded") == 0) {
      ps->loaded = 1;
    } else if (strcmp(k, "abi") == 0) {
      free(r->plugin_abi);
      r->plugin_abi = sanitized(v);
      unsigned major = 0, minor = 0;
      if (sscanf(v, "%u.%u", &major, &minor) == 2) {
        char hosts[128];
        nc_accepting_hosts(major, minor, cfg->host_major, hosts, sizeof(hosts));
        free(r->accepting_hosts);
        r->accepting_hosts = strdup(hosts);
      }
    } else if (strcmp(k, "name") == 0) {
      free(r->plugin_name);
      r->plugin_name = sanitized(v);
    } else if (strcmp(k, "author") == 0) {
      free(r->plugin_author);
      r->plugin_author = sanitized(v);
    } else if (strcmp(k, "mode") == 0) {
      ps->mode_known = 1;
      ps->mode = (int32_t)atoi(v);
      free(r->plugin_mode);
      r->plugin_mode = ps->mode == NVE_PLUGIN_MODE_EXTERNAL   ? strdup("external")
                       : ps->mode == NVE_PLUGIN_MODE_INTERNAL ? strdup("internal")
                                                              : nc_strdupf("invalid (%s)", v);
    } else if (strcmp(k, "cuda") == 0) {
      free(r->cuda);
      r->cuda = sanitized(v);
    } else if (strcmp(k, "blocker_rule") == 0) {
      snprintf(ps->blocker_rule, sizeof(ps->blocker_rule), "%s", v);
    } else if (strcmp(k, "blocker_reason") == 0) {
      snprintf(ps->blocker, sizeof(ps->blocker), "the host refuses the plugin: %s", v);
    }
  }
  if (!settled || !ps->opened) {
    snprintf(ps->blocker, sizeof(ps->blocker), "the plugin does not load");
    snprintf(ps->blocker_rule, sizeof(ps->blocker_rule), NC_PROBE_RULE);
    ps->opened = ps->loaded = 0;
  } else if (!cr->ended && !ps->loaded) {
    char how[256];
    nc_child_describe_end(cr, cfg->timeout_s, how, sizeof(how));
    snprintf(ps->blocker, sizeof(ps->blocker), "loading the plugin %s in %s", how,
             phase[0] ? phase : "plugin code");
    ps->blocker_rule[0] = '\0';
  }
}

/* Why def cannot run for this plugin, or NULL. Sets *owner to the rule
 * whose failure explains it ("" when none does). */
static const char *blocked_reason(const nc_case_def *def, const nc_config *cfg,
                                  const probe_state *ps, const char **owner, char *buf,
                                  size_t buflen)
{
  *owner = "";
  if (strcmp(def->info.id, NC_PROBE_RULE) == 0)
    return NULL;
  if (!cfg->elf.loadable || (def->stage >= NC_STAGE_OPEN && !ps->opened)) {
    *owner = NC_PROBE_RULE;
    snprintf(buf, buflen, "blocked: the plugin does not load (%s)", NC_PROBE_RULE);
    return buf;
  }
  if (ps->mode_known && ps->mode == NVE_PLUGIN_MODE_INTERNAL &&
      (def->applies_to == NC_APPLIES_EXTERNAL || def->stage >= NC_STAGE_ACCEPTED)) {
    snprintf(buf, buflen,
             "internal mode: the rule concerns external plugins, and a C harness cannot call "
             "an internal plugin's C++ creation symbol");
    return buf;
  }
  if (def->stage >= NC_STAGE_ACCEPTED && !ps->loaded) {
    *owner = ps->blocker_rule;
    snprintf(buf, buflen, "blocked: %s%s%s%s", ps->blocker, *owner[0] ? " (" : "", *owner,
             *owner[0] ? ")" : "");
    return buf;
  }
  return NULL;
}

/* ---- the run --------------------------------------------------------------- */

static void shell_quote(nc_strbuf *b, const char *s)
{
  int plain = *s != '\0';
  for (const char *p = s; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("-_./=:,+@%", *p))
      plain = 0;
  if (plain) {
    nc_strbuf_puts(b, s);
    return;
  }
  nc_strbuf_puts(b, "'");
  for (const char *p = s; *p; p++) {
    if (*p == '\'')
      nc_strbuf_puts(b, "'\\''");
    else
      nc_strbuf_printf(b, "%c", *p);
  }
  nc_strbuf_puts(b, "'");
}

static char *reproduce_line(const nc_config *cfg, const char *id)
{
  nc_strbuf b = {0};
  nc_strbuf_printf(&b, "nve-conform --rule %s", id);
  if (cfg->host_major != NVE_PLUGIN_ABI_VERSION_MAJOR ||
      cfg->host_minor != NVE_PLUGIN_ABI_VERSION_MINOR)
    nc_strbuf_printf(&b, " --host-abi %u.%u", cfg->host_major, cfg->host_minor);
  if (strcmp(cfg->factory_config, "{}") != 0) {
    nc_strbuf_puts(&b, " --factory-config ");
    shell_quote(&b, cfg->factory_config);
  }
  if (strcmp(cfg->table_config, "{}") != 0) {
    nc_strbuf_puts(&b, " --table-config ");
    shell_quote(&b, cfg->table_config);
  }
  if (cfg->workers != 4)
    nc_strbuf_printf(&b, " --workers %d", cfg->workers);
  if (cfg->schedule != NC_SCHEDULE_POOL)
    nc_strbuf_printf(&b, " --schedule %s", nc_schedule_name(cfg->schedule));
  if (cfg->sweep_k)
    nc_strbuf_printf(&b, " --sweep-k %ld", cfg->sweep_k);
  if (cfg->stress)
    nc_strbuf_puts(&b, " --stress");
  if (cfg->cuda_mode != NC_CUDA_AUTO)
    nc_strbuf_printf(&b, " --cuda %s", nc_cuda_mode_name((nc_cuda_mode)cfg->cuda_mode));
  if (cfg->sim_devices != 2)
    nc_strbuf_printf(&b, " --sim-devices %d", cfg->sim_devices);
  if (cfg->profile_path) {
    nc_strbuf_puts(&b, " --profile ");
    shell_quote(&b, cfg->profile_path);
  }
  if (cfg->timeout_s != 5.0)
    nc_strbuf_printf(&b, " --timeout %g", cfg->timeout_s);
  nc_strbuf_printf(&b, " --seed %llu ", (unsigned long long)cfg->seed);
  shell_quote(&b, cfg->plugin_path);
  return b.data;
}

static int usage_fail(nc_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_fail(nc_report *r, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  free(r->error);
  if (vasprintf(&r->error, fmt, ap) < 0)
    r->error = NULL;
  va_end(ap);
  r->usage_error = 1;
  return -1;
}

static int family_known(const char *f)
{
  for (size_t i = 0; i < nc_case_count; i++)
    if (strcasecmp(nc_case_table[i].info.family, f) == 0)
      return 1;
  return 0;
}

static int selected(const nc_options *opt, const nc_case_def *def)
{
  int by_rule = !opt->rule_globs || !opt->rule_globs[0];
  for (size_t i = 0; !by_rule && opt->rule_globs[i]; i++)
    by_rule = fnmatch(opt->rule_globs[i], def->info.id, FNM_CASEFOLD) == 0;
  int by_family = !opt->families || !opt->families[0];
  for (size_t i = 0; !by_family && opt->families[i]; i++)
    by_family = strcasecmp(opt->families[i], def->info.family) == 0;
  return by_rule && by_family;
}

static int check_json(nc_report *r, const char *what, const char *text)
{
  cJSON *j = cJSON_Parse(text);
  if (!j) {
    const char *at = cJSON_GetErrorPtr();
    return usage_fail(r, "%s is not valid JSON (near \"%.20s\"): %s", what, at ? at : "", text);
  }
  cJSON_Delete(j);
  return 0;
}

/* Fills cfg from the options, and the report header from cfg. */
static void fill_header(const nc_options *opt, nc_config *cfg, nc_report *r)
{
  memset(cfg, 0, sizeof(*cfg));
  cfg->factory_config = opt->factory_config ? opt->factory_config : "{}";
  cfg->table_config = opt->table_config ? opt->table_config : "{}";
  cfg->host_major = opt->host_abi_major;
  cfg->host_minor = opt->host_abi_minor;
  cfg->seed = opt->seed;
  cfg->sweep_k = opt->sweep_k;
  cfg->stress = opt->stress;
  cfg->cuda_mode = opt->cuda_mode;
  cfg->sim_devices = opt->sim_devices > 0 ? opt->sim_devices : 2;
  cfg->profile_path = opt->profile_path;
  cfg->workers = opt->workers > 0 ? opt->workers : 4;
  cfg->schedule = opt->schedule;
  cfg->no_fork = opt->no_fork;
  cfg->verbose = opt->verbose;
  double mult = 1.0;
  const char *m = getenv("NVE_CONFORM_TIMEOUT_MULTIPLIER");
  if (m && atof(m) > 0)
    mult = atof(m);
  cfg->timeout_s = (opt->timeout_s > 0 ? opt->timeout_s : 5.0) * mult;

  r->host_major = cfg->host_major;
  r->host_minor = cfg->host_minor;
  r->seed = cfg->seed;
  r->workers = cfg->workers;
  r->schedule = cfg->schedule;
  r->timeout_s = cfg->timeout_s;
  r->no_fork = cfg->no_fork;
  r->strict = opt->strict;
  r->verbose = opt->verbose;
  r->factory_config = strdup(cfg->factory_config);
  r->table_config = strdup(cfg->table_config);
  if (opt->plugin_path)
    r->plugin_path = strdup(opt->plugin_path);
  if (opt->argv) {
    nc_strbuf b = {0};
    /* argv[0] may be libtool's or a package manager's path: name the tool. */
    nc_strbuf_puts(&b, "nve-conform");
    for (int i = 1; i < opt->argc; i++) {
      nc_strbuf_puts(&b, " ");
      shell_quote(&b, opt->argv[i]);
    }
    r->command_line = b.data;
  }
  time_t now = time(NULL);
  struct tm tm;
  char stamp[32];
  strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  r->started_at = strdup(stamp);
}

nc_report *nc_report_new_error(const nc_options *opt, const char *message)
{
  nc_report *r = nc_report_new();
  if (!r)
    return NULL;
  nc_config cfg;
  fill_header(opt, &cfg, r);
  usage_fail(r, "%s", message);
  return r;
}

/* Text that lives as long as the run: profile configs. */
static char *owned_text[40];
static size_t owned_count;

static const char *keep(char *text)
{
  if (text && owned_count < sizeof(owned_text) / sizeof(owned_text[0]))
    owned_text[owned_count++] = text;
  return text;
}

static void release_owned(void)
{
  while (owned_count)
    free(owned_text[--owned_count]);
}

/* A config member of a profile: a string is passed on as it is, anything
 * else as its JSON text exactly as the profile wrote it (path leads to it
 * in the profile's text), so large numbers reach the plugin unchanged. */
static const char *profile_config(const cJSON *item, const char *text, const char *const *path,
                                  size_t depth)
{
  if (cJSON_IsString(item))
    return keep(strdup(item->valuestring));
  char *raw = nc_json_value_text(text, path, depth);
  return keep(raw ? raw : cJSON_PrintUnformatted(item));
}

/* Reads the profile (README "Profiles"). Options given on the command line
 * win over it. */
static int load_profile(const nc_options *opt, nc_config *cfg, nc_report *r)
{
  char *text = nc_read_file(opt->profile_path);
  if (!text)
    return usage_fail(r, "cannot open profile '%s': %s", opt->profile_path, strerror(errno));
  cJSON *p = text ? cJSON_Parse(text) : NULL;
  if (!cJSON_IsObject(p)) {
    cJSON_Delete(p);
    free(text);
    return usage_fail(r, "profile '%s' is not a JSON object", opt->profile_path);
  }
  int rc = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, p)
  {
    const char *k = item->string;
    const char *member[] = {k};
    if (strcmp(k, "factory_config") == 0) {
      if (!opt->factory_config)
        cfg->factory_config = profile_config(item, text, member, 1);
    } else if (strcmp(k, "table_config") == 0) {
      if (!opt->table_config)
        cfg->table_config = profile_config(item, text, member, 1);
    } else if (strcmp(k, "failing_configs") == 0 && cJSON_IsArray(item)) {
      const cJSON *fc;
      int index = 0;
      cJSON_ArrayForEach(fc, item)
      {
        char at[24];
        snprintf(at, sizeof(at), "#%d", index++);
        const char *entry[] = {k, at, "config"};
        const char *target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fc, "target"));
        const cJSON *config = cJSON_GetObjectItemCaseSensitive(fc, "config");
        if (!target || !config || (strcmp(target, "factory") && strcmp(target, "table"))) {
          rc = usage_fail(r, "profile '%s': each failing_configs entry needs \"target\" "
                             "(\"factory\" or \"table\") and \"config\"",
                          opt->profile_path);
          break;
        }
        if (cfg->failing_count < sizeof(cfg->failing) / sizeof(cfg->failing[0])) {
          cfg->failing[cfg->failing_count].target = strcmp(target, "table") == 0;
          cfg->failing[cfg->failing_count].json = profile_config(config, text, entry, 3);
          const cJSON *st = cJSON_GetObjectItemCaseSensitive(fc, "status");
          cfg->failing[cfg->failing_count].status = cJSON_IsNumber(st) ? st->valueint : -1;
          cfg->failing_count++;
        }
      }
    } else if (strcmp(k, "key_size") == 0 && cJSON_IsNumber(item)) {
      cfg->key_size = item->valueint;
    } else if (strcmp(k, "row_size") == 0 && cJSON_IsNumber(item)) {
      cfg->row_size = item->valueint;
    } else if (strcmp(k, "exact") == 0 && cJSON_IsBool(item)) {
      cfg->exact = cJSON_IsTrue(item);
    } else if (strcmp(k, "stress") == 0 && cJSON_IsBool(item)) {
      cfg->stress |= cJSON_IsTrue(item);
    } else if (strcmp(k, "description") != 0) {
      rc = usage_fail(r, "profile '%s': unknown member \"%s\"", opt->profile_path, k);
      break;
    }
  }
  cJSON_Delete(p);
  free(text);
  if (rc == 0) {
    free(r->factory_config);
    free(r->table_config);
    r->factory_config = strdup(cfg->factory_config);
    r->table_config = strdup(cfg->table_config);
    r->profile = strdup(opt->profile_path);
  }
  return rc;
}

/* Checks the options and inspects the file; -1 on a usage or input error. */
static int prepare(const nc_options *opt, nc_config *cfg, nc_report *r)
{
  fill_header(opt, cfg, r);
  for (size_t i = 0; opt->families && opt->families[i]; i++)
    if (!family_known(opt->families[i]))
      return usage_fail(r, "unknown rule family '%s' (see --list)", opt->families[i]);
  for (size_t i = 0; i < nc_case_count; i++)
    r->selected += selected(opt, &nc_case_table[i]);
  if (r->selected == 0)
    return usage_fail(r, "the rule filter selects no rule (see --list)");
  if (opt->profile_path && load_profile(opt, cfg, r) != 0)
    return -1;
  if (cfg->cuda_mode == NC_CUDA_AUTO || cfg->cuda_mode == NC_CUDA_REAL) {
    char why[300];
    int devices = nc_cuda_probe_real(why, sizeof(why));
    if (cfg->cuda_mode == NC_CUDA_REAL && devices < 1)
      return usage_fail(r, "--cuda real: %s", why);
    cfg->cuda_mode = devices > 0 ? NC_CUDA_REAL : NC_CUDA_SIM;
  }
  if (check_json(r, "--factory-config", cfg->factory_config) != 0 ||
      check_json(r, "--table-config", cfg->table_config) != 0)
    return -1;

  if (!opt->plugin_path || !*opt->plugin_path)
    return usage_fail(r, "no plugin given");
  struct stat st;
  if (stat(opt->plugin_path, &st) != 0)
    return usage_fail(r, "cannot open plugin '%s': %s", opt->plugin_path, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return usage_fail(r, "'%s' is a directory, not a plugin shared object", opt->plugin_path);
  if (!S_ISREG(st.st_mode))
    return usage_fail(r, "'%s' is not a regular file", opt->plugin_path);
  if (access(opt->plugin_path, R_OK) != 0)
    return usage_fail(r, "cannot read plugin '%s': %s", opt->plugin_path, strerror(errno));
  char *abs = realpath(opt->plugin_path, NULL);
  snprintf(cfg->plugin_path, sizeof(cfg->plugin_path), "%s", abs ? abs : opt->plugin_path);
  free(abs);
  free(r->plugin_path);
  r->plugin_path = strdup(cfg->plugin_path);
  if (nc_sha256_file(cfg->plugin_path, r->sha256) != 0)
    return usage_fail(r, "cannot read plugin '%s': %s", cfg->plugin_path, strerror(errno));

  if (nc_elf_inspect_file(cfg->plugin_path, &cfg->elf, cfg->elf_error, sizeof(cfg->elf_error)) ==
      0)
    cfg->elf.loadable = 1;
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

static double monotonic_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs one case in a child and fills res. Returns -1 if the harness could
 * not start the child. */
static int run_case(const nc_config *cfg, const nc_case_def *def, int probe, nc_result *res,
                    nc_child_result *cr)
{
  job j = {cfg, def, probe};
  char err[256];
  if (nc_run_isolated(case_body, &j, cfg->timeout_s, cfg->no_fork, cr, err, sizeof(err)) != 0) {
    res->verdict = NC_VERDICT_ERROR;
    nc_result_set_reason(res, "the harness could not run the case: %s", err);
    return -1;
  }
  derive_result(res, cr, cfg);
  res->executed = 1;
  res->seconds = cr->seconds;
  if (cr->output && cr->output[0] && res->verdict != NC_VERDICT_PASS)
    res->output = sanitized(cr->output);
  return 0;
}

nc_report *nc_run(const nc_options *opt)
{
  nc_report *r = nc_report_new();
  if (!r)
    return NULL;
  double t0 = monotonic_s();
  nc_config cfg;
  if (prepare(opt, &cfg, r) != 0) {
    nc_elf_info_clear(&cfg.elf);
    release_owned();
    return r;
  }

  /* Scratch files the cases of this run share (the failure sweeps). */
  const char *tmp = getenv("TMPDIR");
  snprintf(cfg.cache_dir, sizeof(cfg.cache_dir), "%s/nve-conform-run-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(cfg.cache_dir))
    cfg.cache_dir[0] = '\0';

  /* The probe: SYM-06's case, continued through the host's loader. */
  probe_state ps;
  memset(&ps, 0, sizeof(ps));
  const nc_case_def *probe_def = nc_case_lookup(NC_PROBE_RULE);
  nc_result probe_res;
  memset(&probe_res, 0, sizeof(probe_res));
  probe_res.rule = &probe_def->info;
  nc_child_result probe_cr;
  if (run_case(&cfg, probe_def, 1, &probe_res, &probe_cr) != 0) {
    r->error = strdup(probe_res.reason ? probe_res.reason : "the load probe could not run");
    r->harness_error = 1;
  } else {
    read_probe(&probe_cr, &cfg, r, &ps);
    nc_child_result_free(&probe_cr);
  }

  size_t done = 0;
  for (size_t i = 0; i < nc_case_count && !r->error; i++) {
    const nc_case_def *def = &nc_case_table[i];
    if (!selected(opt, def))
      continue;
    nc_result *res = nc_report_add(r, &def->info);
    if (!res)
      break;
    char why[1024];
    const char *owner; /* the rule named in a "blocked" reason */
    if (strcmp(def->info.id, NC_PROBE_RULE) == 0) {
      /* Reuse the probe's result: running the constructors again would only
       * repeat it (and a hang would cost a second timeout). */
      *res = probe_res;
      memset(&probe_res, 0, sizeof(probe_res));
      r->executed++;
    } else if (blocked_reason(def, &cfg, &ps, &owner, why, sizeof(why))) {
      res->verdict = NC_VERDICT_SKIP;
      nc_result_set_reason(res, "%s", why);
    } else {
      if (opt->on_case_start)
        opt->on_case_start(opt->on_result_user, done, r->selected, def->info.id);
      nc_child_result cr;
      if (run_case(&cfg, def, 0, res, &cr) == 0) {
        r->executed++;
        nc_child_result_free(&cr);
      } else {
        r->harness_error = 1;
      }
    }
    res->reproduce = reproduce_line(&cfg, def->info.id);
    done++;
    if (opt->on_result)
      opt->on_result(opt->on_result_user, done, r->selected, def->info.id, res->verdict);
  }
  nc_result_release(&probe_res); /* when SYM-06 was not selected */

  /* A case blocked by a rule that did not fail in this report (it was not
   * selected, or no rule owns the blocker) must not read as a clean skip. */
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
  char gate_err[512];
  if (!r->error && opt->waivers_path &&
      nc_gate_apply_waivers(r, opt->waivers_path, gate_err, sizeof(gate_err)) != 0)
    usage_fail(r, "%s", gate_err);
  if (!r->error && opt->baseline_path &&
      nc_gate_apply_baseline(r, opt->baseline_path, gate_err, sizeof(gate_err)) != 0)
    usage_fail(r, "%s", gate_err);
  if (opt->waivers_path)
    r->waivers_path = strdup(opt->waivers_path);
  if (opt->baseline_path)
    r->baseline_path = strdup(opt->baseline_path);
  if (r->executed < r->selected && !r->error)
    r->note = nc_strdupf("%zu of %zu selected rules ran; the others were skipped or blocked "
                         "(each says why)",
                         r->executed, r->selected);
  r->seconds = monotonic_s() - t0;
  remove_cache(cfg.cache_dir);
  nc_elf_info_clear(&cfg.elf);
  release_owned();
  return r;
}
