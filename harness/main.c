/* SPDX-License-Identifier: Apache-2.0 */
/* nve-conform: the command line. Parses arguments, runs the suite through
 * libnveconform, prints and writes the reports, and sets the exit code. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

#include "atomic_file.h"
#include "cli_options.h"
#include "coverage.h"
#include "interposer.h"
#include "nve_conform.h"
#include "plugin/nve_plugin_common.h"
#include "progress.h"
#include "rule_page.h"
#include "sanitize.h"
#include "suite.h"

/* The command line by the option rows (cli_options.c), then what relates
 * one option to another or to the operand. */
static void parse(nc_cli *c, int argc, char **argv)
{
  nc_cli_parse(c, argc, argv);
  if (nc_cli_given(c, "format") && !c->list)
    nc_cli_error(c, "--format applies to --list");
  if (c->list || c->explain) {
    if (c->plugin)
      nc_cli_error(c, "%s takes no plugin (got '%s')", c->list ? "--list" : "--explain",
                   c->plugin);
  } else if (!c->plugin) {
    nc_cli_error(c, "no plugin given");
  }
  c->opt.plugin_path = c->list || c->explain ? NULL : c->plugin;
  c->opt.rule_globs = c->rules.n ? c->rules.items : NULL;
  c->opt.families = c->families.n ? c->families.items : NULL;
  c->opt.argc = argc;
  c->opt.argv = argv;
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

/* The same file: the same resolved path (one not created yet, by its
 * directory and name), or the same device and inode (a hard link, a
 * symlink). */
static int same_file(const char *a, const char *b)
{
  char ra[2 * PATH_MAX + 2], rb[2 * PATH_MAX + 2];
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
      sa.st_ino == sb.st_ino)
    return 1;
  resolve(a, ra, sizeof(ra));
  resolve(b, rb, sizeof(rb));
  return ra[0] && strcmp(ra, rb) == 0;
}

/* A report file can be written at path: a regular file, or a symlink to
 * one, that is writable, or an absent name in a writable directory. A
 * FIFO, a device or a symlink to one or to nothing is refused
 * (nc_report_path_check): waiting on it would hang, and writing to it
 * would lose the report with exit 0. */
static void check_writable(nc_cli *c, const char *flag, const char *path)
{
  char why[PATH_MAX + 160];
  struct stat st;
  if (nc_report_path_check(path, why, sizeof(why)) != 0) {
    nc_cli_error(c, "%s %s", flag, why);
    return;
  }
  if (stat(path, &st) == 0) {
    if (access(path, W_OK) != 0)
      nc_cli_error(c, "cannot write %s '%s': %s", flag, path, strerror(errno));
    return;
  }
  char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *(slash == dir ? slash + 1 : slash) = '\0';
  else
    snprintf(dir, sizeof(dir), ".");
  if (access(dir, W_OK | X_OK) != 0)
    nc_cli_error(c, "cannot write %s '%s': directory '%s': %s", flag, path, dir,
                 strerror(errno));
}

/* Every report can be written, and none over a file the run reads or over
 * another report, by any path to it: checked before the run, so a bad path
 * costs no time. Two in-place streams (--json /dev/stdout --tap
 * /dev/stdout) may share one: they are written one after the other. */
static void check_report_paths(nc_cli *c)
{
  const char **paths = c->report_path;
  char *refused = c->error; /* a path refused here is not written at all */
  const char *inputs[] = {c->opt.plugin_path, c->opt.profile_path, c->opt.waivers_path,
                          c->opt.baseline_path};
  const char *what[] = {"the plugin", "the profile", "the waivers file", "the baseline"};
  for (int i = 0; i < NC_CLI_REPORTS; i++) {
    if (!paths[i])
      continue;
    const char *flag = nc_cli_report_flag(i);
    int in_place = nc_report_path_in_place(paths[i]);
    for (size_t k = 0; k < sizeof(inputs) / sizeof(inputs[0]); k++)
      if (inputs[k] && same_file(paths[i], inputs[k]))
        nc_cli_error(c, "%s '%s' is %s: refusing to write a report over it", flag, paths[i],
                     what[k]);
    for (int k = i + 1; k < NC_CLI_REPORTS; k++)
      if (paths[k] && !(in_place && nc_report_path_in_place(paths[k])) &&
          same_file(paths[i], paths[k]))
        nc_cli_error(c, "%s and %s name the same file '%s'", flag, nc_cli_report_flag(k),
                     paths[i]);
    if (!in_place)
      check_writable(c, flag, paths[i]);
  }
  for (int i = 0; c->error != refused && i < NC_CLI_REPORTS; i++)
    if (paths[i] && strstr(c->error, paths[i]))
      paths[i] = NULL;
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
static void remove_old_reports(const nc_cli *c)
{
  for (int i = 0; i < NC_CLI_REPORTS; i++) {
    const char *path = c->report_path[i];
    struct stat st;
    if (path && !nc_report_path_in_place(path) && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
      unlink(path);
  }
}

static int write_reports(const nc_cli *c, const nc_report *r);

/* --no-fork: plugin code may end this process in the middle of a case. The
 * report so far is still printed and written, and the exit status says a
 * rule failed. */
static nc_cli *guarded_cli;
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

static int write_reports(const nc_cli *c, const nc_report *r)
{
  static int (*const writers[NC_CLI_REPORTS])(const nc_report *, const char *, char *, size_t) = {
      [NC_CLI_JSON] = nc_report_write_json,   [NC_CLI_JUNIT] = nc_report_write_junit,
      [NC_CLI_TAP] = nc_report_write_tap,     [NC_CLI_SARIF] = nc_report_write_sarif,
      [NC_CLI_HTML] = nc_report_write_html};
  char err[512];
  int failed = 0;
  fflush(NULL); /* a report may go to /dev/stdout, after the text report */
  for (int i = 0; i < NC_CLI_REPORTS; i++)
    if (c->report_path[i] && writers[i](r, c->report_path[i], err, sizeof(err)) != 0) {
      fprintf(stderr, "nve-conform: %s\n", err);
      failed = 1;
    }
  return failed;
}

int main(int argc, char **argv)
{
  nc_cli c;
  nc_cli_init(&c);
  parse(&c, argc, argv);
  /* --help and --version need no plugin: a usage error ("no plugin
   * given") does not apply to them. */
  if (c.help || c.version)
    free(c.error);
  if (c.help) {
    nc_cli_print_help(stdout);
    return 0;
  }
  if (c.version) {
    printf("nve-conform %s (ruleset %s, plugin ABI %u.%u)\n", NC_HARNESS_VERSION_STRING,
           NC_RULESET_VERSION_STRING, NVE_PLUGIN_ABI_VERSION_MAJOR, NVE_PLUGIN_ABI_VERSION_MINOR);
    return 0;
  }
  if (c.explain && !c.error)
    return explain_rule(c.explain);
  if (c.list && !c.error) {
    if (c.markdown)
      return list_markdown();
    list_rules();
    return 0;
  }
  int tty = isatty(STDOUT_FILENO);
  int colour = c.colour == NC_CLI_COLOUR_AUTO ? tty && !getenv("NO_COLOR")
                                              : c.colour == NC_CLI_COLOUR_ALWAYS;
  /* auto: the live line on a terminal, unless -q or a CI job says so;
   * lines and off are what was asked. */
  nc_progress_mode progress = c.progress == NC_CLI_PROGRESS_LINES ? NC_PROGRESS_LINES
                              : c.progress == NC_CLI_PROGRESS_OFF || c.quiet || getenv("CI") ||
                                      !isatty(STDERR_FILENO)
                                  ? NC_PROGRESS_OFF
                                  : NC_PROGRESS_TTY;
  if (!c.error)
    nc_progress_start(&c.opt, progress, stderr);

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
  nc_progress_stop();
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
