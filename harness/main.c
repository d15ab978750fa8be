/* SPDX-License-Identifier: Apache-2.0 */
/* nve-conform: the command line. Parses arguments, runs the suite through
 * libnveconform, prints and writes the reports, and sets the exit code. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

#include "cli_options.h"
#include "coverage.h"
#include "interposer.h"
#include "nve_conform.h"
#include "plugin/nve_plugin_common.h"
#include "rule_page.h"
#include "sanitize.h"
#include "suite.h"

#define MAX_FILTERS 64

typedef struct cli {
  nc_options opt;
  const char *rules[MAX_FILTERS + 1];
  const char *families[MAX_FILTERS + 1];
  size_t nrules, nfamilies;
  const char *json_path, *junit_path, *tap_path, *sarif_path, *html_path;
  int list, quiet, verbose, colour; /* colour: -1 auto, 0 never, 1 always */
  int markdown;                     /* --format markdown */
  const char *format, *explain;
  char *error;                      /* first usage error */
} cli;

static void usage_error(cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void usage_error(cli *c, const char *fmt, ...)
{
  if (c->error)
    return; /* the first error wins */
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&c->error, fmt, ap) < 0)
    c->error = NULL;
  va_end(ap);
}

/* Splits a comma-separated argument into list (pointers into arg). */
static void add_list(cli *c, char *arg, const char **list, size_t *n, const char *what)
{
  if (arg[strspn(arg, ", ")] == '\0') {
    usage_error(c, "%s needs a rule or family name (got '%s')", what, arg);
    return;
  }
  for (char *save = NULL, *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (*n == MAX_FILTERS) {
      usage_error(c, "too many %s filters (at most %d)", what, MAX_FILTERS);
      return;
    }
    list[(*n)++] = tok;
  }
}

/* A finite decimal number, nothing around it ("nan", "inf", "5s" and ""
 * are not). */
static int parse_number(const char *s, double *out)
{
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return errno == 0 && end != s && *end == '\0' && isfinite(*out) && !isspace((unsigned char)*s);
}

/* An unsigned decimal of at most 9 digits ("1", "42"; not "-1", "+1", "0x1"). */
static int parse_decimal(const char *s, const char **end, unsigned *out)
{
  unsigned long v = 0;
  const char *p = s;
  while (*p >= '0' && *p <= '9' && p - s < 9)
    v = v * 10 + (unsigned long)(*p++ - '0');
  *end = p;
  *out = (unsigned)v;
  return p > s;
}

static void parse(cli *c, int argc, char **argv)
{
  /* The options, from their table (cli_options.c). */
  static struct option longopts[64];
  static char shortopts[3 * 64 + 2];
  if (!longopts[0].name)
    nc_cli_getopt_tables(longopts, shortopts);
  opterr = 0;
  int ch;
  while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
    double num;
    switch (ch) {
    case 'l': c->list = 1; break;
    case OPT_FORMAT:
      c->format = optarg;
      if (strcmp(optarg, "markdown") == 0)
        c->markdown = 1;
      else if (strcmp(optarg, "text") != 0)
        usage_error(c, "--format takes text or markdown (got '%s')", optarg);
      break;
    case OPT_EXPLAIN: c->explain = optarg; break;
    case 'r': add_list(c, optarg, c->rules, &c->nrules, "--rule"); break;
    case 'f': add_list(c, optarg, c->families, &c->nfamilies, "--family"); break;
    case OPT_FACTORY: c->opt.factory_config = optarg; break;
    case OPT_TABLE: c->opt.table_config = optarg; break;
    case OPT_HOST_ABI: {
      unsigned major = 0, minor = 0;
      const char *p;
      if (!parse_decimal(optarg, &p, &major) || *p++ != '.' || !parse_decimal(p, &p, &minor) ||
          *p)
        usage_error(c, "--host-abi takes MAJOR.MINOR as two unsigned decimals, e.g. 1.0 (got "
                       "'%s')",
                    optarg);
      c->opt.host_abi_major = major;
      c->opt.host_abi_minor = minor;
      break;
    }
    case OPT_SEED: {
      char *end;
      errno = 0;
      unsigned long long seed = strtoull(optarg, &end, 0);
      if (errno || end == optarg || *end || optarg[0] == '-')
        usage_error(c, "--seed takes a non-negative integer (got '%s')", optarg);
      c->opt.seed = seed;
      break;
    }
    case OPT_TIMEOUT:
      if (!parse_number(optarg, &num) || num < NC_MIN_TIMEOUT_S || num > 86400)
        usage_error(c, "--timeout takes seconds, from %g to 86400 (got '%s')", NC_MIN_TIMEOUT_S,
                    optarg);
      c->opt.timeout_s = num;
      break;
    case OPT_WORKERS:
      if (!parse_number(optarg, &num) || num < 1 || num > 256 || num != (int)num)
        usage_error(c, "--workers takes a whole number from 1 to 256 (got '%s')", optarg);
      c->opt.workers = (int)num;
      break;
    case OPT_SCHEDULE:
      c->opt.schedule = nc_schedule_parse(optarg);
      if (c->opt.schedule < 0) {
        usage_error(c, "--schedule takes pool, inline, reverse, shuffle or delays (got '%s')",
                    optarg);
        c->opt.schedule = 0;
      }
      break;
    case OPT_PROFILE: c->opt.profile_path = optarg; break;
    case OPT_SWEEP_K:
      if (!parse_number(optarg, &num) || num < 1 || num > 1000000 || num != (long)num)
        usage_error(c, "--sweep-k takes a whole number from 1 to 1000000 (got '%s')", optarg);
      c->opt.sweep_k = (long)num;
      break;
    case 'j':
      if (!parse_number(optarg, &num) || num < 1 || num > NC_MAX_JOBS || num != (int)num)
        usage_error(c, "--jobs takes a whole number from 1 to %d (got '%s')", NC_MAX_JOBS,
                    optarg);
      else
        c->opt.jobs = (int)num;
      break;
    case OPT_NO_FORK: c->opt.no_fork = 1; break;
    case OPT_STRESS: c->opt.stress = 1; break;
    case OPT_CUDA:
      if (nc_cuda_mode_parse(optarg) < 0)
        usage_error(c, "--cuda takes auto, real, sim or off (got '%s')", optarg);
      else
        c->opt.cuda_mode = nc_cuda_mode_parse(optarg);
      break;
    case OPT_SANITIZE:
      if (nc_sanitize_parse(optarg) < 0)
        usage_error(c, "--sanitize takes valgrind, asan or none (got '%s')", optarg);
      else
        c->opt.sanitize = nc_sanitize_parse(optarg);
      break;
    case OPT_SIM_DEVICES:
      if (!parse_number(optarg, &num) || num < 1 || num > 16 || num != (long)num)
        usage_error(c, "--sim-devices takes a whole number from 1 to 16 (got '%s')", optarg);
      else
        c->opt.sim_devices = (int)num;
      break;
    case OPT_JSON: c->json_path = optarg; break;
    case OPT_JUNIT: c->junit_path = optarg; break;
    case OPT_TAP: c->tap_path = optarg; break;
    case OPT_HTML: c->html_path = optarg; break;
    case OPT_WAIVERS: c->opt.waivers_path = optarg; break;
    case OPT_BASELINE: c->opt.baseline_path = optarg; break;
    case OPT_BASELINE_ANY: c->opt.baseline_any_build = 1; break;
    case OPT_SARIF: c->sarif_path = optarg; break;
    case OPT_STRICT: c->opt.strict = 1; break;
    case OPT_EVIDENCE:
      if (strcmp(optarg, "all") == 0)
        c->opt.evidence_all = 1;
      else if (strcmp(optarg, "bounded") == 0)
        c->opt.evidence_all = 0;
      else
        usage_error(c, "--evidence takes bounded or all (got '%s')", optarg);
      break;
    case OPT_COLOR:
      if (strcmp(optarg, "auto") == 0)
        c->colour = -1;
      else if (strcmp(optarg, "always") == 0)
        c->colour = 1;
      else if (strcmp(optarg, "never") == 0)
        c->colour = 0;
      else
        usage_error(c, "--color takes auto, always or never (got '%s')", optarg);
      break;
    case 'v': c->verbose = 1; break;
    case 'q': c->quiet = 1; break;
    case 'h':
      nc_cli_print_help(stdout);
      exit(0);
    case 'V':
      printf("nve-conform %s (ruleset %s, plugin ABI %u.%u)\n", NC_HARNESS_VERSION_STRING,
             NC_RULESET_VERSION_STRING, NVE_PLUGIN_ABI_VERSION_MAJOR, NVE_PLUGIN_ABI_VERSION_MINOR);
      exit(0);
    case ':': usage_error(c, "option '%s' needs an argument", argv[optind - 1]); break;
    default:
      if (optopt)
        usage_error(c, "unknown option '-%c'", optopt);
      else
        usage_error(c, "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (c->format && !c->list)
    usage_error(c, "--format applies to --list");
  if (c->list || c->explain) {
    if (optind < argc)
      usage_error(c, "%s takes no plugin (got '%s')", c->list ? "--list" : "--explain",
                  argv[optind]);
  } else {
    if (optind == argc)
      usage_error(c, "no plugin given");
    else if (argc - optind > 1)
      usage_error(c, "one plugin at a time (got %d arguments)", argc - optind);
    else
      c->opt.plugin_path = argv[optind];
  }
}

/* Prints a built text on stdout; the exit code. */
static int print_and_free(nc_strbuf *b)
{
  int ok = !b->failed && b->data;
  if (ok)
    fputs(b->data, stdout);
  else
    fprintf(stderr, "nve-conform: out of memory\n");
  nc_strbuf_free(b);
  return ok ? 0 : NC_EXIT_HARNESS;
}

/* --explain: one rule's page. The ID is matched without regard to case. */
static int explain_rule(const char *id)
{
  char upper[16];
  size_t i = 0;
  for (; id[i] && i < sizeof(upper) - 1; i++)
    upper[i] = (char)toupper((unsigned char)id[i]);
  upper[i] = '\0';
  int rule = id[i] ? -1 : nc_rule_parse(upper);
  if (rule < 0) {
    fprintf(stderr, "nve-conform: no rule '%s'; nve-conform --list shows them all\n", id);
    return NC_EXIT_USAGE;
  }
  nc_strbuf page = {0};
  nc_rule_page(&page, (nc_rule)rule, NC_PAGE_TERMINAL);
  return print_and_free(&page);
}

/* --list --format=markdown: the catalogue, as doc/rules.md holds it. */
static int list_markdown(void)
{
  nc_strbuf doc = {0};
  nc_rules_document(&doc);
  return print_and_free(&doc);
}

static void list_rules(void)
{
  size_t n = nc_rule_count();
  const nc_rule_info **sorted = calloc(n, sizeof(*sorted));
  if (!sorted)
    return;
  for (size_t i = 0; i < n; i++)
    sorted[i] = nc_rule_at(i);
  for (size_t i = 1; i < n; i++) /* insertion sort: the table is small */
    for (size_t k = i; k > 0 && strcmp(sorted[k - 1]->id, sorted[k]->id) > 0; k--) {
      const nc_rule_info *t = sorted[k];
      sorted[k] = sorted[k - 1];
      sorted[k - 1] = t;
    }
  for (size_t i = 0; i < n; i++)
    printf("%-7s %-6s %s\n", sorted[i]->id, nc_severity_name(sorted[i]->severity),
           sorted[i]->title);
  free(sorted);
}

/* The live line on a terminal: the case running now and the counts so far. */
static void show_running(void *user, size_t done, size_t total, const char *id)
{
  const size_t *counts = user;
  fprintf(stderr, "\r\033[K[%zu/%zu] running %s  (%zu PASS, %zu FAIL, %zu WARN, %zu SKIP)",
          done + 1, total, id, counts[NC_VERDICT_PASS], counts[NC_VERDICT_FAIL],
          counts[NC_VERDICT_WARN], counts[NC_VERDICT_SKIP]);
  fflush(stderr);
}

static void show_progress(void *user, size_t done, size_t total, const char *id, nc_verdict v)
{
  (void)id;
  size_t *counts = user;
  if (v < NC_VERDICT_COUNT_)
    counts[v]++;
  if (done == total) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
  }
}

/* Where path leads: the file itself, or (when it does not exist yet) its
 * directory resolved and its name; "" when neither resolves. */
static void resolve(const char *path, char *out, size_t len)
{
  char real[PATH_MAX], copy[PATH_MAX];
  out[0] = '\0';
  if (realpath(path, real)) {
    snprintf(out, len, "%s", real);
    return;
  }
  snprintf(copy, sizeof(copy), "%s", path);
  char *name = strrchr(copy, '/');
  const char *dir = name ? (name == copy ? "/" : copy) : ".";
  if (name)
    *name++ = '\0';
  else
    name = copy;
  if (realpath(dir, real))
    snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", name);
}

/* Every report can be written, and none over a file the run reads or over
 * another report: checked before the run, so a bad path costs no time. */
static void check_report_paths(cli *c)
{
  const char **fields[] = {&c->json_path, &c->junit_path, &c->tap_path, &c->sarif_path,
                           &c->html_path};
  const char *paths[] = {c->json_path, c->junit_path, c->tap_path, c->sarif_path, c->html_path};
  char *refused = c->error; /* a path refused here is not written at all */
  const char *flags[] = {"--json", "--junit", "--tap", "--sarif", "--html"};
  const char *inputs[] = {c->opt.plugin_path, c->opt.profile_path, c->opt.waivers_path,
                          c->opt.baseline_path};
  const char *what[] = {"the plugin", "the profile", "the waivers file", "the baseline"};
  for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
    if (!paths[i] || strncmp(paths[i], "/dev/", 5) == 0)
      continue;
    char mine[2 * PATH_MAX + 2], theirs[2 * PATH_MAX + 2];
    resolve(paths[i], mine, sizeof(mine));
    for (size_t k = 0; k < sizeof(inputs) / sizeof(inputs[0]); k++) {
      if (!inputs[k])
        continue;
      resolve(inputs[k], theirs, sizeof(theirs));
      if (mine[0] && strcmp(mine, theirs) == 0)
        usage_error(c, "%s '%s' is %s: refusing to write a report over it", flags[i], paths[i],
                    what[k]);
    }
    for (size_t k = i + 1; k < sizeof(paths) / sizeof(paths[0]); k++) {
      if (!paths[k])
        continue;
      resolve(paths[k], theirs, sizeof(theirs));
      if (mine[0] && strcmp(mine, theirs) == 0)
        usage_error(c, "%s and %s name the same file '%s'", flags[i], flags[k], paths[i]);
    }
    struct stat st;
    if (stat(paths[i], &st) == 0) {
      if (S_ISDIR(st.st_mode))
        usage_error(c, "%s '%s' is a directory", flags[i], paths[i]);
      else if (access(paths[i], W_OK) != 0)
        usage_error(c, "cannot write %s '%s': %s", flags[i], paths[i], strerror(errno));
      continue;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", paths[i]);
    char *slash = strrchr(dir, '/');
    if (slash)
      *(slash == dir ? slash + 1 : slash) = '\0';
    else
      snprintf(dir, sizeof(dir), ".");
    if (access(dir, W_OK | X_OK) != 0)
      usage_error(c, "cannot write %s '%s': directory '%s': %s", flags[i], paths[i], dir,
                  strerror(errno));
  }
  for (size_t i = 0; c->error != refused && i < sizeof(paths) / sizeof(paths[0]); i++)
    if (paths[i] && strstr(c->error, paths[i]))
      *fields[i] = NULL;
}

/* Ctrl-C or a CI timeout: the first signal ends the run early, and the
 * report so far is printed and written, marked interrupted (exit 128 +
 * signal). A second one (or any under --no-fork) takes the running cases
 * down at once and leaves no temporary file behind. */
static volatile sig_atomic_t interruptions;
static int interrupt_gracefully;

static void on_terminate(int signo)
{
  if (interrupt_gracefully && interruptions++ == 0) {
    nc_interrupt_run(signo);
    return;
  }
  nc_abort_running_case();
  nc_coverage_flush();
  signal(signo, SIG_DFL);
  raise(signo);
}

/* A report file from an earlier run must never pass for this run's: gone
 * before the run starts (it is written again at the end). */
static void remove_old_reports(const cli *c)
{
  const char *paths[] = {c->json_path, c->junit_path, c->tap_path, c->sarif_path, c->html_path};
  for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
    struct stat st;
    if (paths[i] && strncmp(paths[i], "/dev/", 5) != 0 && lstat(paths[i], &st) == 0 &&
        S_ISREG(st.st_mode))
      unlink(paths[i]);
  }
}

static int write_reports(const cli *c, const nc_report *r);

/* --no-fork: plugin code may end this process in the middle of a case. The
 * report so far is still printed and written, and the exit status says a
 * rule failed. */
static cli *guarded_cli;
static int guarded_colour;

static void finish_cut_short(int status)
{
  nc_report *r = nc_run_cut_short(status);
  if (!r)
    return;
  nc_report_print_text(r, stdout, guarded_colour);
  write_reports(guarded_cli, r);
  fflush(NULL);
  _Exit(NC_EXIT_FAIL);
}

static void exit_called(int status, void *arg)
{
  (void)arg;
  finish_cut_short(status);
}

static int write_reports(const cli *c, const nc_report *r)
{
  const struct {
    const char *path;
    int (*write)(const nc_report *, const char *, char *, size_t);
  } reports[] = {{c->json_path, nc_report_write_json},
                 {c->junit_path, nc_report_write_junit},
                 {c->tap_path, nc_report_write_tap},
                 {c->sarif_path, nc_report_write_sarif},
                 {c->html_path, nc_report_write_html}};
  char err[512];
  int failed = 0;
  fflush(NULL); /* a report may go to /dev/stdout, after the text report */
  for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++)
    if (reports[i].path && reports[i].write(r, reports[i].path, err, sizeof(err)) != 0) {
      fprintf(stderr, "nve-conform: %s\n", err);
      failed = 1;
    }
  return failed;
}

int main(int argc, char **argv)
{
  cli c;
  memset(&c, 0, sizeof(c));
  c.colour = -1;
  nc_options_init(&c.opt);
  parse(&c, argc, argv);
  c.opt.rule_globs = c.nrules ? c.rules : NULL;
  c.opt.families = c.nfamilies ? c.families : NULL;
  c.opt.verbose = c.verbose;
  c.opt.argc = argc;
  c.opt.argv = argv;
  if (c.explain && !c.error)
    return explain_rule(c.explain);
  if (c.list && !c.error) {
    if (c.markdown)
      return list_markdown();
    list_rules();
    return 0;
  }
  int tty = isatty(STDOUT_FILENO);
  int colour = c.colour == -1 ? tty && !getenv("NO_COLOR") : c.colour;
  if (!c.error && isatty(STDERR_FILENO) && !c.quiet && !getenv("CI")) {
    static size_t counts[NC_VERDICT_COUNT_];
    c.opt.on_result = show_progress;
    c.opt.on_case_start = show_running;
    c.opt.on_result_user = counts;
  }

  if (!c.error)
    check_report_paths(&c);
  if (!c.error)
    remove_old_reports(&c);
  interrupt_gracefully = !c.opt.no_fork;

  signal(SIGINT, on_terminate);
  signal(SIGTERM, on_terminate);
  signal(SIGHUP, on_terminate);

  if (c.opt.no_fork) {
    guarded_cli = &c;
    guarded_colour = colour;
    on_exit(exit_called, NULL);
    nc_exit_hook = finish_cut_short;
  }

  /* On a usage error, still produce the requested report files, so CI finds
   * a complete, valid report that says what went wrong. */
  nc_report *r = c.error ? nc_report_new_error(&c.opt, c.error) : nc_run(&c.opt);
  nc_exit_hook = NULL;
  guarded_cli = NULL;
  if (!r) {
    fprintf(stderr, "nve-conform: out of memory\n");
    return NC_EXIT_HARNESS;
  }
  const char *error = nc_report_error(r);
  int code = nc_report_exit_code(r);
  if (error) {
    fprintf(stderr, "nve-conform: %s\n", error);
    if (code == NC_EXIT_USAGE)
      fprintf(stderr, "Try 'nve-conform --help' for more information.\n");
  } else if (!c.quiet) {
    nc_report_print_text(r, stdout, colour);
  } else {
    nc_report_print_summary(r, stdout);
  }
  /* A report that could not be written is an input error whatever the
   * verdicts: a CI gate must not read a stale or missing file as current. */
  if (write_reports(&c, r) != 0)
    code = NC_EXIT_USAGE;
  nc_report_free(r);
  free(c.error);
  return code;
}
