/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "contain.h"
#include "cuda.h"
#include "plugin/nve_plugin_common.h"
#include "reproduce.h"
#include "sandbox.h"
#include "sanitize.h"
#include "strbuf.h"

/* nc_options_init's default of a case option (texts stay NULL: the
 * profile's, else the row's default, is decided later). */
#define DEFAULT_OF(TYPE, member, deflt) DEFAULT_##TYPE(opt->member, deflt)
#define DEFAULT_VALUE(m, d) (m) = (d)
#define DEFAULT_NONE(m, d)
#define DEFAULT_FLAG DEFAULT_VALUE
#define DEFAULT_INT DEFAULT_VALUE
#define DEFAULT_WORD DEFAULT_VALUE
#define DEFAULT_LONG DEFAULT_VALUE
#define DEFAULT_NUMBER DEFAULT_VALUE
#define DEFAULT_U64 DEFAULT_NONE /* the seed: random, below */
#define DEFAULT_TEXT DEFAULT_NONE
#define DEFAULT_JSON DEFAULT_NONE
#define DEFAULT_ABI(m, d)                                                                       \
  (opt->host_abi_major = NVE_PLUGIN_ABI_VERSION_MAJOR,                                          \
   opt->host_abi_minor = NVE_PLUGIN_ABI_VERSION_MINOR)

void nc_options_init(nc_options *opt)
{
  memset(opt, 0, sizeof(*opt));
  opt->struct_size = sizeof(*opt);
#define NC_CASE_OPTION(name, letter, arg, TYPE, lo, hi, word, member, config, line, deflt, sec, help) \
  DEFAULT_OF(TYPE, member, deflt);
#include "run_options.def"
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  opt->seed = ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
}

/* A case option into nc_config: zero (a caller that set no value) is the
 * row's default. */
#define COPY_VALUE(c, o, d) (c) = (o) ? (o) : (d)
#define COPY_FLAG COPY_VALUE
#define COPY_INT COPY_VALUE
#define COPY_WORD COPY_VALUE
#define COPY_LONG COPY_VALUE
#define COPY_NUMBER COPY_VALUE
#define COPY_U64 COPY_VALUE
#define COPY_TEXT COPY_VALUE
#define COPY_JSON COPY_VALUE
#define COPY_ABI(c, o, d) (cfg->host_major = opt->host_abi_major, cfg->host_minor = opt->host_abi_minor)

static void copy_case_options(const nc_options *opt, nc_config *cfg)
{
#define NC_CASE_OPTION(name, letter, arg, TYPE, lo, hi, word, member, config, line, deflt, sec, help) \
  COPY_##TYPE(cfg->config, opt->member, deflt);
#include "run_options.def"
}

/* Under AddressSanitizer every allocation a plugin makes goes through the
 * sanitizer's allocator (the plugin runs in the harness's processes),
 * which is far slower for large blocks (a table of 1 MiB rows: 100 times),
 * so a sanitizer build stretches its time limits by this factor. */
#if defined(__SANITIZE_ADDRESS__)
#define BUILD_TIMEOUT_FACTOR 4.0
#else
#define BUILD_TIMEOUT_FACTOR 1.0
#endif

/* NVE_CONFORM_TIMEOUT_MULTIPLIER: 1 when unset; -1 when it is not a
 * number in (0, 1000]. */
static double timeout_multiplier(void)
{
  const char *m = getenv("NVE_CONFORM_TIMEOUT_MULTIPLIER");
  if (!m || !*m)
    return 1.0;
  char *end;
  double v = strtod(m, &end);
  return *end || !isfinite(v) || v <= 0 || v > 1000 ? -1 : v;
}

int nc_config_from_options(const nc_options *opt, nc_config *cfg, nc_report *r)
{
  memset(cfg, 0, sizeof(*cfg));
  copy_case_options(opt, cfg);
  cfg->repro = opt->repro_dir != NULL;
  cfg->cuda_mode = opt->cuda_mode; /* resolved once the run has looked for a device */
  double mult = timeout_multiplier();
  cfg->timeout_s = cfg->timeout_asked * (mult > 0 ? mult : 1) * BUILD_TIMEOUT_FACTOR *
                   nc_sanitize_slowdown(opt->sanitize);

  r->host_major = cfg->host_major;
  r->host_minor = cfg->host_minor;
  r->seed = cfg->seed;
  r->workers = cfg->workers;
  r->schedule = nc_schedule_name(cfg->schedule);
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
      nc_shell_quote(&b, opt->argv[i]);
    }
    r->command_line = b.data;
  }
  time_t now = time(NULL);
  struct tm tm;
  char stamp[32];
  strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  r->started_at = strdup(stamp);
  if (mult < 0)
    return nc_report_usage_error(r, "NVE_CONFORM_TIMEOUT_MULTIPLIER must be a number in (0, 1000] "
                                    "(got '%s')", getenv("NVE_CONFORM_TIMEOUT_MULTIPLIER"));
  char limits_err[320];
  if (nc_contain_limits_check(limits_err, sizeof(limits_err)) != 0)
    return nc_report_usage_error(r, "%s", limits_err);
  /* The same bounds as the command line's, for programs that call nc_run. */
  if (opt->timeout_s != 0 &&
      !(opt->timeout_s >= NC_MIN_TIMEOUT_S && opt->timeout_s <= NC_MAX_TIMEOUT_S))
    return nc_report_usage_error(r, "the timeout must be from %g to %g seconds (got %g)",
                                 NC_MIN_TIMEOUT_S, NC_MAX_TIMEOUT_S, opt->timeout_s);
  /* The scaled limit within --timeout's own range: 1e-300 would make every
   * case time out at once, 1e3 of a day would never end. */
  double scaled = cfg->timeout_asked * mult;
  if (getenv("NVE_CONFORM_TIMEOUT_MULTIPLIER") &&
      !(scaled >= NC_MIN_TIMEOUT_S && scaled <= NC_MAX_TIMEOUT_S))
    return nc_report_usage_error(r, "NVE_CONFORM_TIMEOUT_MULTIPLIER=%s makes the %g s timeout "
                                    "%g s, outside %g to %g s",
                                 getenv("NVE_CONFORM_TIMEOUT_MULTIPLIER"), cfg->timeout_asked,
                                 scaled, NC_MIN_TIMEOUT_S, NC_MAX_TIMEOUT_S);
  if (opt->sandbox < NC_SANDBOX_AUTO || opt->sandbox > NC_SANDBOX_OFF)
    return nc_report_usage_error(r, "unknown sandbox mode %d", opt->sandbox);
  r->sandbox_mode = nc_sandbox_mode_name(opt->sandbox);
  if (opt->sandbox == NC_SANDBOX_REQUIRED && opt->no_fork)
    return nc_report_usage_error(r, "--sandbox required runs every case in a sandbox, in a "
                                    "process of its own: not with --no-fork");
  if (opt->sanitize < NC_SANITIZE_NONE || opt->sanitize > NC_SANITIZE_ASAN)
    return nc_report_usage_error(r, "unknown sanitize mode %d", opt->sanitize);
  if (opt->sanitize && opt->no_fork)
    return nc_report_usage_error(r, "--sanitize runs every case under the tool, in a process "
                                    "of its own: not with --no-fork");
  r->sanitize = nc_sanitize_name(opt->sanitize);
  r->sanitize_slowdown = nc_sanitize_slowdown(opt->sanitize);
  if (opt->jobs > 0 && opt->no_fork)
    return nc_report_usage_error(r, "--jobs runs cases in processes of their own: not with "
                                    "--no-fork (one case at a time, in this process)");
  if (opt->jobs < 0 || opt->jobs > NC_MAX_JOBS)
    return nc_report_usage_error(r, "the job count must be from 1 to %d, or 0 for one per CPU "
                                    "(got %d)", NC_MAX_JOBS, opt->jobs);
  return 0;
}
