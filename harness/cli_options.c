/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "cli_options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "plugin/nve_plugin_common.h"
#include "pool.h"
#include "run_config.h"
#include "run_settings.h"
#include "sandbox.h"
#include "sanitize.h"

#define TEXT(x) #x
#define NUMBER(x) TEXT(x)

/* Where a help text names the ABI version this build implements (its
 * macros are unsigned literals, which the preprocessor cannot print). */
#define ABI_MARK "{abi}"

/* The members the rows set. */
#define CLI(member) offsetof(nc_cli, member)
#define OPT(member) (offsetof(nc_cli, opt) + offsetof(nc_options, member))

/* The words of the word-valued options; "?" past the last. The index is
 * the value stored, so the first word is the default. */
static const char *pick(const char *const *words, size_t n, int i)
{
  return i >= 0 && (size_t)i < n ? words[i] : "?";
}
#define WORDS(fn, ...)                                                                          \
  static const char *fn(int i)                                                                  \
  {                                                                                             \
    static const char *const w[] = {__VA_ARGS__};                                               \
    return pick(w, sizeof(w) / sizeof(w[0]), i);                                                \
  }
WORDS(format_word, "text", "markdown")
WORDS(colour_word, "auto", "never", "always") /* NC_CLI_COLOUR_* */
WORDS(progress_word, "auto", "lines", "off")    /* NC_CLI_PROGRESS_* */

#define RULES "Selecting rules"
#define REPORTS "Reports" /* as run_options.def names it */

/* An option type of run_options.def as the command line parses it. */
#define ARG_FLAG NC_ARG_FLAG
#define ARG_TEXT NC_ARG_TEXT
#define ARG_JSON NC_ARG_TEXT
#define ARG_INT NC_ARG_INT
#define ARG_WORD NC_ARG_WORD
#define ARG_LONG NC_ARG_LONG
#define ARG_U64 NC_ARG_U64
#define ARG_NUMBER NC_ARG_NUMBER
#define ARG_ABI NC_ARG_ABI

const nc_cli_option nc_cli_options[] = {
    {"list", 'l', NULL, NC_ARG_FLAG, 0, 0, NULL, CLI(list), RULES,
     "List the rules and exit."},
    {"format", 0, "FORMAT", NC_ARG_WORD, 0, 0, format_word, CLI(markdown), RULES,
     "How --list prints the rules: {words}; text (the default) is one line each, markdown the "
     "whole rule catalogue, as doc/rules.md."},
    {"explain", 0, "RULE", NC_ARG_TEXT, 0, 0, NULL, CLI(explain), RULES,
     "Print what RULE (an ID as --list shows it) asks, the contract section it enforces, why a host needs "
     "it, how it is checked, the usual mistakes, how to fix them and the fixture that fails it; "
     "then exit."},
    {"rule", 'r', "GLOB", NC_ARG_LIST, 0, 0, NULL, CLI(rules), RULES,
     "Run the rules whose ID matches GLOB (case-insensitive), e.g. 'SYM-*'. Repeat the option "
     "or separate globs with commas."},
    {"family", 'f', "NAME", NC_ARG_LIST, 0, 0, NULL, CLI(families), RULES,
     "Run the rules of a family (SYM, VER, ...). With --rule, a rule must match both."},
#define NC_RUN_OPTION(name, letter, arg, TYPE, min, max, word, member, section, help)        \
  {name, letter, arg, ARG_##TYPE, min, max, word, OPT(member), section, help},
#define NC_CASE_OPTION(name, letter, arg, TYPE, lo, hi, word, member, config, line, deflt, sec, help) \
  NC_RUN_OPTION(name, letter, arg, TYPE, lo, hi, word, member, sec, help)
#include "run_options.def"
    {"json", 0, "FILE", NC_ARG_TEXT, 0, 0, NULL, CLI(report_path[NC_CLI_JSON]), REPORTS,
     "Write the JSON report (schema nve-conform-report/1)."},
    {"junit", 0, "FILE", NC_ARG_TEXT, 0, 0, NULL, CLI(report_path[NC_CLI_JUNIT]), REPORTS,
     "Write a JUnit XML report."},
    {"tap", 0, "FILE", NC_ARG_TEXT, 0, 0, NULL, CLI(report_path[NC_CLI_TAP]), REPORTS,
     "Write a TAP version 13 report."},
    {"sarif", 0, "FILE", NC_ARG_TEXT, 0, 0, NULL, CLI(report_path[NC_CLI_SARIF]), REPORTS,
     "Write a SARIF 2.1.0 report."},
    {"html", 0, "FILE", NC_ARG_TEXT, 0, 0, NULL, CLI(report_path[NC_CLI_HTML]), REPORTS,
     "Write one self-contained HTML page (no script, no external asset)."},
    {"color", 0, "WHEN", NC_ARG_WORD, 0, 0, colour_word, CLI(colour), REPORTS,
     "Colour the text report: auto (on a terminal, unless NO_COLOR is set; the default), "
     "always or never. --colour is the same."},
    {"quiet", 'q', NULL, NC_ARG_FLAG, 0, 0, NULL, CLI(quiet), REPORTS,
     "Print only the rules that did not pass and the summary line."},
    {"progress", 0, "WHEN", NC_ARG_WORD, 0, 0, progress_word, CLI(progress), REPORTS,
     "Progress on stderr: auto (the default: on a terminal, one status line redrawn in place "
     "and cleared at the end, with the rules done, the cases running and the time so far; "
     "nothing with -q, when CI is set or when stderr is not a terminal), lines (that line "
     "every ten seconds, for CI logs) or off."},
    {"help", 'h', NULL, NC_ARG_FLAG, 0, 0, NULL, CLI(help), REPORTS,
     "Show the options and exit."},
    {"version", 'V', NULL, NC_ARG_FLAG, 0, 0, NULL, CLI(version), REPORTS,
     "Show the harness, ruleset and plugin ABI versions and exit."},
};
const size_t nc_cli_option_count = sizeof(nc_cli_options) / sizeof(nc_cli_options[0]);

const nc_cli_env nc_cli_environment[] = {
    {"NVE_CONFORM_TIMEOUT_MULTIPLIER",
     "Scales every case's time limit (a number in (0, 1000]; the scaled --timeout must stay "
     "within its range, else a usage error)."},
    {"NVE_CONFORM_LIMITS",
     "Each case process's limits, `as=MIB,fsize=MIB,nproc=N` (address space, file size, "
     "processes; defaults: half the machine's memory (at least 4096, at most 65536), 4096, 4096; "
     "0: none), and `total=MIB`, the run's memory: --jobs is reduced, with a note, so that the "
     "cases at once fit (jobs x as <= total). Each key at most once, a plain decimal; anything "
     "else is a usage error."},
    {"NVE_CONFORM_CASE_RUNNER",
     "The `nve-conform-case` program every case runs in (default: next to the library, else the "
     "installed one). Without one, nve-conform says where it looked and exits 3; only "
     "--no-fork runs without it."},
    {"NVE_CONFORM_CUDASIM",
     "The simulated CUDA runtime to load (default: the build tree's, else the installed one)."},
    {"NVE_CONFORM_SIM_DEVICES",
     "The simulated runtime's device count, 1 to " NUMBER(NC_MAX_SIM_DEVICES) " (default " NUMBER(NC_DEFAULT_SIM_DEVICES)
     "): nve-conform sets it from --sim-devices for its cases; set it yourself when your own "
     "program loads the simulated runtime."},
    {"NVE_CONFORM_CALL_LOG",
     "A file every case appends one line per table call to, the calls' keys in a folder beside "
     "it (`FILE.keys/`); `make bench-suite` and `make mutation-score` replay them. Not written "
     "under --repro, whose own log of each case's calls takes its place."},
    {"TMPDIR", "Where runs keep their scratch files (default `/tmp`)."},
    {"PATH", "Where --sanitize valgrind finds valgrind."},
    {"NO_COLOR", "No colour in the text report under --color auto."},
    {"CI", "No live progress line on a terminal (--progress auto)."},
};
const size_t nc_cli_environment_count = sizeof(nc_cli_environment) / sizeof(nc_cli_environment[0]);

/* ---- parsing by the rows ------------------------------------------------ */

#define LONG_ONLY 256 /* getopt's value of row i without a letter: LONG_ONLY + i */

static int getopt_value(size_t i)
{
  return nc_cli_options[i].short_name ? nc_cli_options[i].short_name : LONG_ONLY + (int)i;
}

const nc_cli_option *nc_cli_option_named(const char *name)
{
  for (size_t i = 0; i < nc_cli_option_count; i++)
    if (strcmp(nc_cli_options[i].name, name) == 0)
      return &nc_cli_options[i];
  return NULL;
}

int nc_cli_given(const nc_cli *c, const char *name)
{
  const nc_cli_option *o = nc_cli_option_named(name);
  return o && c->given[o - nc_cli_options];
}

const char *nc_cli_report_flag(int kind)
{
  static char flags[NC_CLI_REPORTS][32];
  for (size_t i = 0; i < nc_cli_option_count; i++)
    if (nc_cli_options[i].member == CLI(report_path[0]) + (size_t)kind * sizeof(const char *)) {
      snprintf(flags[kind], sizeof(flags[kind]), "--%s", nc_cli_options[i].name);
      return flags[kind];
    }
  return "--?";
}

void nc_cli_init(nc_cli *c)
{
  memset(c, 0, sizeof(*c));
  nc_options_init(&c->opt);
}

void nc_cli_error(nc_cli *c, const char *fmt, ...)
{
  if (c->error)
    return; /* the first error wins */
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&c->error, fmt, ap) < 0)
    c->error = NULL;
  va_end(ap);
}

/* "a, b or c": the words of a word-valued row. */
static void words_text(const nc_cli_option *o, char *out, size_t len)
{
  size_t at = 0, n = 0;
  while (strcmp(o->word((int)n), "?") != 0)
    n++;
  out[0] = '\0';
  for (size_t i = 0; i < n && at < len; i++) {
    int w = snprintf(out + at, len - at, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                     o->word((int)i));
    if (w > 0)
      at += (size_t)w;
  }
}

/* "1 to 256": the range of a numeric row. */
static void range_text(const nc_cli_option *o, char *out, size_t len)
{
  snprintf(out, len, "%.15g to %.15g", o->min, o->max);
}

/* A finite decimal number, nothing around it ("nan", "inf", "5s", "0x10"
 * and "" are not). */
static int decimal_number(const char *s, double *out)
{
  if (!*s || isspace((unsigned char)*s) || strpbrk(s, "xXpP"))
    return 0;
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return errno == 0 && end != s && *end == '\0' && isfinite(*out);
}

/* An unsigned decimal of at most 9 digits ("1", "42"; not "-1", "+1", "0x1"). */
static int decimal_unsigned(const char *s, const char **end, unsigned *out)
{
  unsigned long v = 0;
  const char *p = s;
  while (*p >= '0' && *p <= '9' && p - s < 9)
    v = v * 10 + (unsigned long)(*p++ - '0');
  *end = p;
  *out = (unsigned)v;
  return p > s;
}

/* Splits a comma-separated argument into the list (pointers into arg). */
static void add_list(nc_cli *c, const nc_cli_option *o, char *arg, nc_cli_list *list)
{
  if (arg[strspn(arg, ", ")] == '\0') {
    nc_cli_error(c, "--%s needs a rule or family name (got '%s')", o->name, arg);
    return;
  }
  for (char *save = NULL, *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (list->n == NC_CLI_MAX_FILTERS) {
      nc_cli_error(c, "too many --%s filters (at most %d)", o->name, NC_CLI_MAX_FILTERS);
      return;
    }
    list->items[list->n++] = tok;
  }
}

/* One option's argument into its member, by the row's type. */
static void apply(nc_cli *c, const nc_cli_option *o, char *arg)
{
  void *member = (char *)c + o->member;
  char buf[256];
  double num;
  switch (o->type) {
  case NC_ARG_FLAG: *(int *)member = 1; return;
  case NC_ARG_TEXT: *(const char **)member = arg; return;
  case NC_ARG_LIST: add_list(c, o, arg, member); return;
  case NC_ARG_INT:
  case NC_ARG_LONG:
  case NC_ARG_NUMBER:
    if (!decimal_number(arg, &num) || num < o->min || num > o->max ||
        (o->type != NC_ARG_NUMBER && num != floor(num))) {
      range_text(o, buf, sizeof(buf));
      nc_cli_error(c, "--%s takes a %s from %s (got '%s')", o->name,
                   o->type == NC_ARG_NUMBER ? "decimal number" : "whole number", buf, arg);
    } else if (o->type == NC_ARG_INT) {
      *(int *)member = (int)num;
    } else if (o->type == NC_ARG_LONG) {
      *(long *)member = (long)num;
    } else {
      *(double *)member = num;
    }
    return;
  case NC_ARG_U64: {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || !(*arg >= '0' && *arg <= '9'))
      nc_cli_error(c, "--%s takes a non-negative decimal integer (got '%s')", o->name, arg);
    else
      *(uint64_t *)member = v;
    return;
  }
  case NC_ARG_WORD:
    for (int i = 0; strcmp(o->word(i), "?") != 0; i++)
      if (strcmp(arg, o->word(i)) == 0) {
        *(int *)member = i;
        return;
      }
    words_text(o, buf, sizeof(buf));
    nc_cli_error(c, "--%s takes %s (got '%s')", o->name, buf, arg);
    return;
  case NC_ARG_ABI: {
    unsigned major = 0, minor = 0;
    const char *p;
    if (!decimal_unsigned(arg, &p, &major) || *p++ != '.' || !decimal_unsigned(p, &p, &minor) ||
        *p) {
      nc_cli_error(c, "--%s takes MAJOR.MINOR as two unsigned decimals, e.g. 1.0 (got '%s')",
                   o->name, arg);
      return;
    }
    c->opt.host_abi_major = major;
    c->opt.host_abi_minor = minor;
    return;
  }
  }
}

void nc_cli_parse(nc_cli *c, int argc, char **argv)
{
  static struct option longopts[NC_CLI_MAX_OPTIONS + 2];
  static char shortopts[3 * NC_CLI_MAX_OPTIONS + 2];
  size_t k = 0, sh = 0;
  shortopts[sh++] = ':'; /* a missing argument is ':', not '?' */
  for (size_t i = 0; i < nc_cli_option_count && i < NC_CLI_MAX_OPTIONS; i++) {
    const nc_cli_option *o = &nc_cli_options[i];
    int has_arg = o->arg ? required_argument : no_argument;
    longopts[k++] = (struct option){o->name, has_arg, NULL, getopt_value(i)};
    if (o->short_name) {
      shortopts[sh++] = (char)o->short_name;
      if (o->arg)
        shortopts[sh++] = ':';
    }
    if (strcmp(o->name, "color") == 0) /* the British spelling, the same option */
      longopts[k++] = (struct option){"colour", has_arg, NULL, getopt_value(i)};
  }
  longopts[k] = (struct option){NULL, 0, NULL, 0};
  shortopts[sh] = '\0';
  opterr = 0;
  optind = 1;
  int ch;
  while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
    if (ch == ':') {
      nc_cli_error(c, "option '%s' needs an argument", argv[optind - 1]);
      continue;
    }
    size_t row = nc_cli_option_count;
    for (size_t i = 0; i < nc_cli_option_count; i++)
      if (getopt_value(i) == ch)
        row = i;
    if (row == nc_cli_option_count) {
      if (optopt)
        nc_cli_error(c, "unknown option '-%c'", optopt);
      else
        nc_cli_error(c, "unknown option '%s'", argv[optind - 1]);
      continue;
    }
    c->given[row] = 1;
    apply(c, &nc_cli_options[row], optarg);
  }
  if (optind < argc)
    c->plugin = argv[optind];
  if (argc - optind > 1)
    nc_cli_error(c, "one plugin at a time (got %d arguments)", argc - optind);
}

/* ---- help, README's table, the man page ----------------------------------- */

/* o's help with its marks filled in: {abi} the ABI version this build
 * implements, {range} and {words} from the row. */
static const char *help_of(const nc_cli_option *o, char *buf, size_t len)
{
  size_t at = 0;
  buf[0] = '\0';
  for (const char *p = o->help; *p && at + 1 < len;) {
    char fill[256] = "";
    size_t skip = 0;
    if (strncmp(p, ABI_MARK, strlen(ABI_MARK)) == 0) {
      snprintf(fill, sizeof(fill), "%u.%u", (unsigned)NVE_PLUGIN_ABI_VERSION_MAJOR,
               (unsigned)NVE_PLUGIN_ABI_VERSION_MINOR);
      skip = strlen(ABI_MARK);
    } else if (strncmp(p, "{range}", 7) == 0) {
      range_text(o, fill, sizeof(fill));
      skip = 7;
    } else if (strncmp(p, "{words}", 7) == 0 && o->word) {
      words_text(o, fill, sizeof(fill));
      skip = 7;
    }
    if (skip) {
      at += (size_t)snprintf(buf + at, len - at, "%s", fill);
      p += skip;
    } else {
      buf[at++] = *p++;
      buf[at] = '\0';
    }
  }
  return buf;
}

/* "-l, --list" or "    --rule GLOB": the option as a user types it. */
static void spelling(const nc_cli_option *o, char *out, size_t len)
{
  if (o->short_name)
    snprintf(out, len, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
             o->arg ? o->arg : "");
  else
    snprintf(out, len, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

#define HELP_WIDTH 80
#define HELP_INDENT 27

/* text from column at, wrapped at HELP_WIDTH, later lines at HELP_INDENT. */
static void wrap(FILE *out, const char *text, size_t at)
{
  while (*text) {
    size_t room = HELP_WIDTH - at, len = strlen(text);
    if (len > room) {
      len = room;
      while (len > 0 && text[len] != ' ')
        len--;
      if (len == 0) /* one long word: break after it */
        len = strcspn(text, " ");
    }
    fprintf(out, "%.*s\n", (int)len, text);
    text += len;
    while (*text == ' ')
      text++;
    if (*text)
      fprintf(out, "%*s", HELP_INDENT, "");
    at = HELP_INDENT;
  }
}

void nc_cli_print_help(FILE *out)
{
  fprintf(out, "Usage: nve-conform [OPTIONS] PLUGIN.so\n"
               "Checks an NVE table plugin against the plugin ABI contract, rule by rule.\n");
  const char *section = "";
  for (size_t i = 0; i < nc_cli_option_count; i++) {
    const nc_cli_option *o = &nc_cli_options[i];
    if (strcmp(o->section, section) != 0)
      fprintf(out, "\n%s:\n", section = o->section);
    char left[64];
    spelling(o, left, sizeof(left));
    int w = fprintf(out, "  %s", left);
    if (w < HELP_INDENT - 1)
      w += fprintf(out, "%*s", HELP_INDENT - w, "");
    else
      w += fprintf(out, " ");
    char buf[1024];
    wrap(out, help_of(o, buf, sizeof(buf)), (size_t)w);
  }
  fprintf(out, "\nExit status: 0 every MUST rule that ran passed; 1 a MUST rule failed (or a\n"
               "SHOULD rule, with --strict); 2 usage or input error; 3 the harness could not\n"
               "run (part of) the suite.\n");
}

void nc_cli_print_markdown(FILE *out)
{
  fprintf(out, "| option | meaning |\n|---|---|\n");
  for (size_t i = 0; i < nc_cli_option_count; i++) {
    const nc_cli_option *o = &nc_cli_options[i];
    const char *arg = o->arg ? o->arg : "";
    if (o->short_name)
      fprintf(out, "| `-%c`, `--%s%s%s` | ", o->short_name, o->name, o->arg ? " " : "", arg);
    else
      fprintf(out, "| `--%s%s%s` | ", o->name, o->arg ? " " : "", arg);
    char buf[1024];
    for (const char *p = help_of(o, buf, sizeof(buf)); *p; p++)
      fputs(*p == '|' ? "\\|" : (char[2]){*p, 0}, out);
    fprintf(out, " |\n");
  }
}

/* Text for roff: hyphens and backslashes escaped, no line led by a dot,
 * `code` in bold. */
static void roff(FILE *out, const char *s)
{
  int code = 0;
  for (; *s; s++) {
    if (*s == '`')
      fputs((code = !code) ? "\\fB" : "\\fR", out);
    else if (*s == '-')
      fputs("\\-", out);
    else if (*s == '\\')
      fputs("\\e", out);
    else
      fputc(*s, out);
  }
}

void nc_cli_print_man(FILE *out)
{
  for (size_t i = 0; i < nc_cli_option_count; i++) {
    const nc_cli_option *o = &nc_cli_options[i];
    fprintf(out, ".TP\n");
    if (o->short_name)
      fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
    fprintf(out, "\\fB");
    roff(out, "--");
    roff(out, o->name);
    fprintf(out, "\\fR");
    if (o->arg) {
      fprintf(out, " \\fI");
      roff(out, o->arg);
      fprintf(out, "\\fR");
    }
    fprintf(out, "\n\\&");
    char buf[1024];
    roff(out, help_of(o, buf, sizeof(buf)));
    fprintf(out, "\n");
  }
}

void nc_cli_print_environment_markdown(FILE *out)
{
  fprintf(out, "| variable | effect |\n|---|---|\n");
  for (size_t i = 0; i < nc_cli_environment_count; i++)
    fprintf(out, "| `%s` | %s |\n", nc_cli_environment[i].name, nc_cli_environment[i].help);
}

void nc_cli_print_environment_man(FILE *out)
{
  for (size_t i = 0; i < nc_cli_environment_count; i++) {
    fprintf(out, ".TP\n.B ");
    roff(out, nc_cli_environment[i].name);
    fprintf(out, "\n\\&");
    roff(out, nc_cli_environment[i].help);
    fprintf(out, "\n");
  }
}
