/* SPDX-License-Identifier: Apache-2.0 */
#include "run_settings.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "plugin/nve_plugin_common.h"
#include "sandbox.h"
#include "sanitize.h"

static const char *schedule_word(int v) { return nc_schedule_name((nc_schedule)v); }
static const char *cuda_word(int v) { return nc_cuda_mode_name((nc_cuda_mode)v); }

const char *nc_effort_name(int effort)
{
  static const char *const words[] = {[NC_EFFORT_DEFAULT] = "default", [NC_EFFORT_QUICK] = "quick",
                                      [NC_EFFORT_DEEP] = "deep"};
  return effort >= 0 && effort <= NC_EFFORT_DEEP ? words[effort] : "?";
}

#define AT(member) offsetof(nc_config, member)
/* An option's row: the reproduction line carries it unless it has the
 * default. The order is the order of the line. */
#define OPTION(key, kind, member, option, omit_text, omit_number, word) \
  {key, kind, AT(member), option, omit_text, omit_number, 0, word}
/* A setting the cases need that no option sets directly. */
#define INTERNAL(key, kind, member) {key, kind, AT(member), NULL, NULL, 0, 0, NULL}

const nc_setting nc_settings[] = {
    OPTION("host_abi", NC_SET_ABI, host_major, "host-abi", NULL,
           NVE_PLUGIN_ABI_VERSION_MAJOR * 1000.0 + NVE_PLUGIN_ABI_VERSION_MINOR, NULL),
    OPTION("factory_config", NC_SET_TEXT, factory_config, "factory-config", "{}", 0, NULL),
    OPTION("table_config", NC_SET_TEXT, table_config, "table-config", "{}", 0, NULL),
    OPTION("workers", NC_SET_INT, workers, "workers", NULL, NC_DEFAULT_WORKERS, NULL),
    OPTION("schedule", NC_SET_INT, schedule, "schedule", NULL, NC_SCHEDULE_POOL, schedule_word),
    OPTION("sweep_k", NC_SET_LONG, sweep_k, "sweep-k", NULL, 0, NULL),
    OPTION("stress", NC_SET_FLAG, stress, "stress", NULL, 0, NULL),
    OPTION("effort", NC_SET_INT, effort, "effort", NULL, NC_EFFORT_DEFAULT, nc_effort_name),
    OPTION("budget_s", NC_SET_DOUBLE, budget_s, "budget", NULL, 0, NULL),
    OPTION("sanitize", NC_SET_INT, sanitize, "sanitize", NULL, 0, nc_sanitize_name),
    OPTION("cuda_asked", NC_SET_INT, cuda_asked, "cuda", NULL, NC_CUDA_AUTO, cuda_word),
    OPTION("sim_devices", NC_SET_INT, sim_devices, "sim-devices", NULL, NC_DEFAULT_SIM_DEVICES,
           NULL),
    OPTION("sandbox", NC_SET_INT, sandbox, "sandbox", NULL, NC_SANDBOX_AUTO, nc_sandbox_mode_name),
    OPTION("profile_path", NC_SET_OPT_TEXT, profile_path, "profile", NULL, 0, NULL),
    /* --timeout as asked: the multipliers apply again when the line runs. */
    OPTION("timeout_asked", NC_SET_DOUBLE, timeout_asked, "timeout", NULL, NC_DEFAULT_TIMEOUT_S,
           NULL),
    {"seed", NC_SET_U64, AT(seed), "seed", NULL, 0, 1, NULL},
    INTERNAL("plugin_path", NC_SET_PATH, plugin_path),
    INTERNAL("plugin_file", NC_SET_FILE_ID, plugin_file),
    INTERNAL("cache_dir", NC_SET_PATH, cache_dir),
    INTERNAL("cache_secret", NC_SET_PATH, cache_secret),
    INTERNAL("timeout_s", NC_SET_DOUBLE, timeout_s),
    INTERNAL("key_size", NC_SET_INT, key_size),
    INTERNAL("row_size", NC_SET_INT, row_size),
    INTERNAL("exact", NC_SET_INT, exact),
    INTERNAL("cuda_mode", NC_SET_INT, cuda_mode),
    INTERNAL("no_fork", NC_SET_INT, no_fork),
    INTERNAL("evidence_all", NC_SET_INT, evidence_all),
    INTERNAL("repro", NC_SET_INT, repro),
};
const size_t nc_setting_count = sizeof(nc_settings) / sizeof(nc_settings[0]);

#define MEMBER(type, s, cfg) ((type *)((char *)(cfg) + (s)->offset))
#define CMEMBER(type, s, cfg) ((const type *)((const char *)(cfg) + (s)->offset))

void nc_setting_format(const nc_setting *s, const nc_config *cfg, nc_strbuf *out)
{
  switch (s->kind) {
  case NC_SET_PATH:
    nc_strbuf_puts(out, CMEMBER(char, s, cfg));
    break;
  case NC_SET_TEXT:
  case NC_SET_OPT_TEXT: {
    const char *text = *CMEMBER(const char *, s, cfg);
    nc_strbuf_puts(out, text ? text : "");
    break;
  }
  case NC_SET_INT:
  case NC_SET_FLAG:
    nc_strbuf_printf(out, "%d", *CMEMBER(int, s, cfg));
    break;
  case NC_SET_LONG:
    nc_strbuf_printf(out, "%ld", *CMEMBER(long, s, cfg));
    break;
  case NC_SET_U64:
    nc_strbuf_printf(out, "%" PRIu64, *CMEMBER(uint64_t, s, cfg));
    break;
  case NC_SET_DOUBLE:
    nc_strbuf_printf(out, "%.17g", *CMEMBER(double, s, cfg));
    break;
  case NC_SET_ABI:
    nc_strbuf_printf(out, "%u %u", cfg->host_major, cfg->host_minor);
    break;
  case NC_SET_FILE_ID: {
    const unsigned long long *v = CMEMBER(unsigned long long, s, cfg);
    nc_strbuf_printf(out, "%llu %llu %llu %llu", v[0], v[1], v[2], v[3]);
    break;
  }
  }
}

int nc_setting_parse(const nc_setting *s, nc_config *cfg, const char *text)
{
  char *end = NULL;
  errno = 0;
  switch (s->kind) {
  case NC_SET_PATH:
    if (strlen(text) >= PATH_MAX)
      return -1;
    memcpy(MEMBER(char, s, cfg), text, strlen(text) + 1);
    return 0;
  case NC_SET_TEXT:
  case NC_SET_OPT_TEXT: {
    const char **member = MEMBER(const char *, s, cfg);
    *member = s->kind == NC_SET_OPT_TEXT && !text[0] ? NULL : strdup(text);
    return s->kind == NC_SET_TEXT && !*member ? -1 : 0;
  }
  case NC_SET_INT:
  case NC_SET_FLAG: {
    long v = strtol(text, &end, 10);
    *MEMBER(int, s, cfg) = (int)v;
    break;
  }
  case NC_SET_LONG:
    *MEMBER(long, s, cfg) = strtol(text, &end, 10);
    break;
  case NC_SET_U64:
    *MEMBER(uint64_t, s, cfg) = strtoull(text, &end, 10);
    break;
  case NC_SET_DOUBLE:
    *MEMBER(double, s, cfg) = strtod(text, &end);
    break;
  case NC_SET_ABI:
    return sscanf(text, "%u %u", &cfg->host_major, &cfg->host_minor) == 2 ? 0 : -1;
  case NC_SET_FILE_ID: {
    unsigned long long *v = MEMBER(unsigned long long, s, cfg);
    return sscanf(text, "%llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]) == 4 ? 0 : -1;
  }
  }
  return end && end != text && !*end && errno == 0 ? 0 : -1;
}

int nc_setting_in_reproduce(const nc_setting *s, const nc_config *cfg)
{
  if (!s->option)
    return 0;
  if (s->always)
    return 1;
  switch (s->kind) {
  case NC_SET_TEXT:
  case NC_SET_OPT_TEXT: {
    const char *text = *CMEMBER(const char *, s, cfg);
    return text && (!s->omit_text || strcmp(text, s->omit_text) != 0);
  }
  case NC_SET_INT:
  case NC_SET_FLAG:
    return *CMEMBER(int, s, cfg) != (int)s->omit_number;
  case NC_SET_LONG:
    return *CMEMBER(long, s, cfg) != (long)s->omit_number;
  case NC_SET_U64:
    return *CMEMBER(uint64_t, s, cfg) != (uint64_t)s->omit_number;
  case NC_SET_DOUBLE:
    return *CMEMBER(double, s, cfg) != s->omit_number;
  case NC_SET_ABI:
    return cfg->host_major * 1000.0 + cfg->host_minor != s->omit_number;
  case NC_SET_PATH:
  case NC_SET_FILE_ID:
    return 1;
  }
  return 1;
}

void nc_setting_argument(const nc_setting *s, const nc_config *cfg, nc_strbuf *out)
{
  if (s->word) {
    nc_strbuf_puts(out, s->word(*CMEMBER(int, s, cfg)));
  } else if (s->kind == NC_SET_ABI) {
    nc_strbuf_printf(out, "%u.%u", cfg->host_major, cfg->host_minor);
  } else if (s->kind == NC_SET_DOUBLE) {
    nc_strbuf_printf(out, "%g", *CMEMBER(double, s, cfg));
  } else {
    nc_setting_format(s, cfg, out);
  }
}
