/* SPDX-License-Identifier: Apache-2.0 */
#include "cli_options.h"

#include <string.h>

#include "nve_conform.h"
#include "plugin/nve_plugin_common.h"

#define TEXT(x) #x
#define NUMBER(x) TEXT(x)

/* Where a help text names the ABI version this build implements (its
 * macros are unsigned literals, which the preprocessor cannot print). */
#define ABI_MARK "{abi}"

#define RULES "Selecting rules"
#define DRIVING "Driving the plugin"
#define REPORTS "Reports"

const nc_cli_option nc_cli_options[] = {
    {"list", 'l', NULL, RULES, "List the rules and exit."},
    {"format", OPT_FORMAT, "FORMAT",
     RULES, "How --list prints the rules: text (one line each, the default) or markdown (the "
            "whole rule catalogue, as doc/rules.md)."},
    {"explain", OPT_EXPLAIN, "RULE", RULES,
     "Print what RULE (an ID as --list shows it) asks, the contract section it enforces, why a host needs "
     "it, how it is checked, the usual mistakes, how to fix them and the fixture that fails it; "
     "then exit."},
    {"rule", 'r', "GLOB", RULES,
     "Run the rules whose ID matches GLOB (case-insensitive), e.g. 'SYM-*'. Repeat the option "
     "or separate globs with commas."},
    {"family", 'f', "NAME", RULES,
     "Run the rules of a family (SYM, VER, ...). With --rule, a rule must match both."},
    {"profile", OPT_PROFILE, "FILE", DRIVING,
     "A JSON profile: what the harness cannot guess about the plugin (the factory and table "
     "configs, configs that must fail and their status, key and row size, whether the table is "
     "exact)."},
    {"factory-config", OPT_FACTORY, "JSON", DRIVING,
     "The JSON text handed to factory creation (default: the profile's, else {})."},
    {"table-config", OPT_TABLE, "JSON", DRIVING,
     "The JSON text handed to produce (default: the profile's, else {})."},
    {"host-abi", OPT_HOST_ABI, "MAJOR.MINOR", DRIVING,
     "Act as a host of this ABI version (default " ABI_MARK ")."},
    {"seed", OPT_SEED, "N", DRIVING, "The seed of randomised cases (default: random; always "
                                     "reported)."},
    {"workers", OPT_WORKERS, "N", DRIVING,
     "Threads in the NVE services pool handed to the plugin (default " NUMBER(
         NC_DEFAULT_WORKERS) ")."},
    {"schedule", OPT_SCHEDULE, "NAME", DRIVING,
     "How that pool orders tasks: pool (default), inline, reverse, shuffle or delays."},
    {"timeout", OPT_TIMEOUT, "SEC", DRIVING,
     "The time a case may stay silent, 0.1 to 86400 (default " NUMBER(
         NC_DEFAULT_TIMEOUT_S) "); the environment variable NVE_CONFORM_TIMEOUT_MULTIPLIER "
                               "scales it, and a loaded machine stretches it by its load "
                               "(the 1-minute load average per CPU, up to x20) before a "
                               "silence counts as a hang."},
    {"cuda", OPT_CUDA, "MODE", DRIVING,
     "The CUDA runtime the cases load before the plugin: auto (default: the real runtime when "
     "it sees a device, else the simulated one), real (exit 2 without a device), sim or off."},
    {"sim-devices", OPT_SIM_DEVICES, "N", DRIVING,
     "Devices of the simulated runtime, 1 to 16 (default " NUMBER(NC_DEFAULT_SIM_DEVICES) ")."},
    {"stress", OPT_STRESS, NULL, DRIVING,
     "Longer seeded random sequences with larger batches, and more threads in the concurrent "
     "finds; the op and key rates are reported."},
    {"sanitize", OPT_SANITIZE, "TOOL", DRIVING,
     "Run every case under a memory-error detector: valgrind (memcheck; any build of the "
     "plugin; time limits x20) or asan (a plugin built with -fsanitize=address; limits x3). An "
     "error whose stack reaches into the plugin fails the rule whose case ran, or the table "
     "op's rule when another case made the call. The rules a tool cannot run are SKIP with the "
     "reason (see README)."},
    {"sweep-k", OPT_SWEEP_K, "K", DRIVING,
     "Run only step K of the allocation-failure sweeps (reproduction lines use it)."},
    {"jobs", 'j', "N", DRIVING,
     "Run N cases at once, each in a process of its own (default: one per online CPU, at most "
     "64). The report is the same for every N."},
    {"no-fork", OPT_NO_FORK, NULL, DRIVING,
     "Run the cases in this process, for a debugger (a crashing plugin then ends nve-conform)."},
    {"json", OPT_JSON, "FILE", REPORTS, "Write the JSON report (schema nve-conform-report/1)."},
    {"junit", OPT_JUNIT, "FILE", REPORTS, "Write a JUnit XML report."},
    {"tap", OPT_TAP, "FILE", REPORTS, "Write a TAP version 13 report."},
    {"sarif", OPT_SARIF, "FILE", REPORTS, "Write a SARIF 2.1.0 report."},
    {"html", OPT_HTML, "FILE", REPORTS,
     "Write one self-contained HTML page (no script, no external asset)."},
    {"evidence", OPT_EVIDENCE, "WHICH", REPORTS,
     "bounded (default): each case reports the first lines of each kind of evidence and a count "
     "of the rest; all: every line."},
    {"strict", OPT_STRICT, NULL, REPORTS,
     "SHOULD-rule warnings, and unused, expired or refused waivers, fail the run."},
    {"waivers", OPT_WAIVERS, "FILE", REPORTS,
     "Accept listed failures for a while, each with a reason (JSON; see README)."},
    {"baseline", OPT_BASELINE, "FILE", REPORTS,
     "An earlier --json report on the same plugin file: failures it already had do not fail the "
     "run; new ones do, and fixed ones are listed."},
    {"baseline-any-build", OPT_BASELINE_ANY, NULL, REPORTS,
     "The baseline may be a report on another build of the plugin (the same plugin name)."},
    {"color", OPT_COLOR, "WHEN", REPORTS,
     "Colour the text report: auto (on a terminal, unless NO_COLOR is set; the default), "
     "always or never. --colour is the same."},
    {"verbose", 'v', NULL, REPORTS, "Also show the evidence of the rules that passed."},
    {"quiet", 'q', NULL, REPORTS, "Print only the rules that did not pass and the summary line."},
    {"help", 'h', NULL, REPORTS, "Show the options and exit."},
    {"version", 'V', NULL, REPORTS, "Show the harness, ruleset and plugin ABI versions and exit."},
};
const size_t nc_cli_option_count = sizeof(nc_cli_options) / sizeof(nc_cli_options[0]);

const nc_cli_env nc_cli_environment[] = {
    {"NVE_CONFORM_TIMEOUT_MULTIPLIER",
     "Scales every case's time limit (a number in (0, 1000])."},
    {"NVE_CONFORM_LIMITS",
     "Each case process's limits, `as=MIB,fsize=MIB,nproc=N` (address space, file size, "
     "processes; defaults: half the machine's memory (at least 4096, at most 65536), 4096, 4096; "
     "0: none), and `total=MIB`, the run's memory: --jobs is reduced, with a note, so that the "
     "cases at once fit (jobs x as <= total)."},
    {"NVE_CONFORM_CASE_RUNNER",
     "The `nve-conform-case` program every case runs in (default: next to the library, else the "
     "installed one). Without one, nve-conform says where it looked and exits 3; only "
     "--no-fork runs without it."},
    {"NVE_CONFORM_CUDASIM",
     "The simulated CUDA runtime to load (default: the build tree's, else the installed one)."},
    {"NVE_CONFORM_SIM_DEVICES",
     "The simulated runtime's device count, 1 to 16 (default " NUMBER(NC_DEFAULT_SIM_DEVICES)
     "): nve-conform sets it from --sim-devices for its cases; set it yourself when your own "
     "program loads the simulated runtime."},
    {"NVE_CONFORM_CALL_LOG",
     "A file every case appends one line per table call to (`make bench-suite` replays them)."},
    {"TMPDIR", "Where runs keep their scratch files (default `/tmp`)."},
    {"PATH", "Where --sanitize valgrind finds valgrind."},
    {"NO_COLOR", "No colour in the text report under --color auto."},
    {"CI", "No live progress line on a terminal."},
};
const size_t nc_cli_environment_count = sizeof(nc_cli_environment) / sizeof(nc_cli_environment[0]);

void nc_cli_getopt_tables(struct option *longopts, char *shortopts)
{
  size_t k = 0, s = 0;
  shortopts[s++] = ':'; /* a missing argument is ':', not '?' */
  for (size_t i = 0; i < nc_cli_option_count; i++) {
    const nc_cli_option *o = &nc_cli_options[i];
    longopts[k++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->id};
    if (o->id < 256) {
      shortopts[s++] = (char)o->id;
      if (o->arg)
        shortopts[s++] = ':';
    }
    if (o->id == OPT_COLOR) /* the British spelling, the same option */
      longopts[k++] = (struct option){"colour", required_argument, NULL, OPT_COLOR};
  }
  longopts[k] = (struct option){NULL, 0, NULL, 0};
  shortopts[s] = '\0';
}

/* o's help with the ABI version in place of ABI_MARK. */
static const char *help_of(const nc_cli_option *o, char *buf, size_t len)
{
  const char *mark = strstr(o->help, ABI_MARK);
  if (!mark)
    return o->help;
  snprintf(buf, len, "%.*s%u.%u%s", (int)(mark - o->help), o->help,
           (unsigned)NVE_PLUGIN_ABI_VERSION_MAJOR, (unsigned)NVE_PLUGIN_ABI_VERSION_MINOR,
           mark + strlen(ABI_MARK));
  return buf;
}

/* "-l, --list" or "    --rule GLOB": the option as a user types it. */
static void spelling(const nc_cli_option *o, char *out, size_t len)
{
  if (o->id < 256)
    snprintf(out, len, "-%c, --%s%s%s", o->id, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
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
    if (o->id < 256)
      fprintf(out, "| `-%c`, `--%s%s%s` | ", o->id, o->name, o->arg ? " " : "", arg);
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
    if (o->id < 256)
      fprintf(out, "\\fB\\-%c\\fR, ", o->id);
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
