/* SPDX-License-Identifier: Apache-2.0 */
/* The human-readable report printed on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "text.h"

/* fprintf(out, format, s) with s escaped for a terminal (nc_text_escaped):
 * a path, a name or a command line, on one line. */
static void print_escaped(FILE *out, const char *format, const char *s)
{
  char *e = nc_text_escaped(s, 0);
  fprintf(out, format, e ? e : "?");
  free(e);
}

static const char *colour_of(const nc_result *res)
{
  if (nc_result_untested(res))
    return "\033[1;35m";
  switch (res->verdict) {
  case NC_VERDICT_PASS: return "\033[32m";
  case NC_VERDICT_FAIL: return "\033[1;31m";
  case NC_VERDICT_WARN: return "\033[33m";
  case NC_VERDICT_SKIP: return "\033[36m";
  case NC_VERDICT_WAIVED: return "\033[34m";
  default: return "\033[1;35m";
  }
}

static void print_header(const nc_report *r, FILE *out)
{
  fprintf(out, "nve-conform %s (ruleset %s)\n", NC_HARNESS_VERSION_STRING,
          NC_RULESET_VERSION_STRING);
  print_escaped(out, "plugin   %s\n", r->plugin_path ? r->plugin_path : "(none)");
  if (r->sha256[0])
    fprintf(out, "  sha256 %s\n", r->sha256);
  if (r->plugin_name || r->plugin_author) {
    print_escaped(out, "  name   \"%s\"", r->plugin_name ? r->plugin_name : "?");
    print_escaped(out, " by \"%s\"\n", r->plugin_author ? r->plugin_author : "?");
  }
  if (r->plugin_mode || r->plugin_abi)
    fprintf(out, "  mode   %s, built for ABI %s; accepted by %s\n",
            r->plugin_mode ? r->plugin_mode : "?", r->plugin_abi ? r->plugin_abi : "?",
            r->accepting_hosts ? r->accepting_hosts : "?");
  if (r->elf_class) {
    fprintf(out, "  file   %s %s %s", r->elf_class, r->elf_machine ? r->elf_machine : "",
            r->elf_type ? r->elf_type : "");
    for (size_t i = 0; i < r->nneeded; i++)
      fprintf(out, "%s%s", i == 0 ? ", needs " : " ", r->needed[i]);
    fputc('\n', out);
  }
  fprintf(out, "host     ABI %u.%u, %d workers (%s schedule), seed %llu, timeout %gs per case%s\n",
          r->host_major, r->host_minor, r->workers, r->schedule,
          (unsigned long long)r->seed, r->timeout_s, r->no_fork ? ", no fork" : "");
  if (r->cuda)
    fprintf(out, "cuda     %s\n", r->cuda);
  if (r->sandbox)
    fprintf(out, "sandbox  %s\n", r->sandbox);
  if (r->sanitize && strcmp(r->sanitize, "none") != 0)
    fprintf(out, "sanitize %s: every case under it, time limits x%g; memory errors in plugin "
                 "code fail the rule whose case ran\n",
            r->sanitize, r->sanitize_slowdown);
  if (r->command_line)
    print_escaped(out, "command  %s\n", r->command_line);
  fputc('\n', out);
}

static void print_result(const nc_result *res, FILE *out, int colour, int verbose)
{
  const char *on = colour ? colour_of(res) : "";
  const char *off = colour ? "\033[0m" : "";
  fprintf(out, "%s%-8s%s %-7s %-6s  %s%s\n", on, nc_result_label(res), off, res->rule->id,
          nc_severity_name(res->rule->severity), res->rule->title,
          res->known ? " [known: in the baseline]" : "");
  if (res->verdict == NC_VERDICT_WAIVED)
    fprintf(out, "         waived %s: %s\n", nc_waived_from_label(res), res->waiver);
  if (res->verdict == NC_VERDICT_PASS && !verbose)
    return;
  if (res->reason)
    fprintf(out, "         %s\n", res->reason);
  if (res->blocked_by && !verbose)
    return; /* its rule's entry has the evidence; -v shows what this case saw */
  nc_evidence_line lines[NC_EVIDENCE_SHOWN];
  /* An untested rule's notes say what was tried. */
  size_t more, n = nc_evidence_lines(res, verbose || nc_result_untested(res), lines, &more);
  for (size_t i = 0; i < n; i++) {
    const nc_evidence *e = lines[i].e;
    fprintf(out, "         - [%s] %s: observed %s; expected %s", e->level, e->call, e->observed,
            e->expected);
    if (lines[i].times > 1)
      fprintf(out, " (%zu times)", lines[i].times);
    fputc('\n', out);
  }
  if (more)
    fprintf(out, "         ... and %zu more lines (the JSON report has them)\n",
            more);
  if (res->crash) {
    fprintf(out, "         crash: %s\n", res->crash);
    for (size_t i = 0; i < res->nframes; i++)
      fprintf(out, "           at %s\n", res->frames[i]);
  }
  if (res->output && res->verdict != NC_VERDICT_SKIP)
    fprintf(out, "         plugin output (last bytes):\n%s%s", res->output,
            res->output[0] && res->output[strlen(res->output) - 1] != '\n' ? "\n" : "");
  if (res->verdict == NC_VERDICT_SKIP)
    return;
  if (res->reproduce)
    print_escaped(out, "         reproduce: %s\n", res->reproduce);
  fprintf(out, "         explain:   nve-conform --explain %s\n", res->rule->id);
}

static void print_summary_line(const nc_report *r, FILE *out);

/* 0: failed on its own (FAIL, WARN, ERROR); 1: blocked by another rule;
 * 2: the rest; 3: blocked by the refused config (listed once). */
static int report_group(const nc_result *res)
{
  if (res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN ||
      res->verdict == NC_VERDICT_ERROR)
    return 0;
  if (res->verdict == NC_VERDICT_SKIP && res->refused)
    return 3;
  return res->blocked_by ? 1 : 2;
}

static size_t count_refused(const nc_report *r)
{
  size_t n = 0;
  for (size_t i = 0; i < r->nresults; i++)
    n += report_group(&r->results[i]) == 3;
  return n;
}

/* A refused config: the one failure every other case met, first. */
static void print_refusal(const nc_report *r, FILE *out, int colour)
{
  size_t n = count_refused(r);
  if (!r->refusal || !n)
    return;
  fprintf(out, "%sroot cause:%s %s\n", colour ? "\033[1;35m" : "", colour ? "\033[0m" : "",
          r->refusal);
  fprintf(out, "  %zu rule%s could not make a table and did not run; give configs the plugin "
               "accepts (--factory-config, --table-config, --profile)\n",
          n, n == 1 ? "" : "s");
}

/* The rules the refusal blocked, on one line. */
static void print_refused(const nc_report *r, FILE *out, int colour)
{
  size_t n = count_refused(r);
  if (!n)
    return;
  fprintf(out, "%s%-8s%s %zu rule%s blocked by the refused config:", colour ? "\033[36m" : "",
          "BLOCKED", colour ? "\033[0m" : "", n, n == 1 ? "" : "s");
  for (size_t i = 0; i < r->nresults; i++)
    if (report_group(&r->results[i]) == 3)
      fprintf(out, " %s", r->results[i].rule->id);
  fputc('\n', out);
}

/* The root causes first: the rules that failed on their own, and how many
 * rules each blocked. Nothing when no rule is blocked by another. */
static void print_root_causes(const nc_report *r, FILE *out)
{
  size_t blocked = 0, failed = 0;
  for (size_t i = 0; i < r->nresults; i++) {
    blocked += r->results[i].blocked_by != NULL;
    failed += r->results[i].verdict == NC_VERDICT_FAIL || r->results[i].verdict == NC_VERDICT_WARN;
  }
  if (!blocked || !failed) /* blocked by rules not in this report: each line says which */
    return;
  fprintf(out, "root cause:");
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    if (res->verdict != NC_VERDICT_FAIL && res->verdict != NC_VERDICT_WARN)
      continue;
    size_t mine = 0;
    for (size_t k = 0; k < r->nresults; k++)
      mine += r->results[k].blocked_by == res->rule;
    fprintf(out, " %s %s", res->rule->id, nc_verdict_name(res->verdict));
    if (mine)
      fprintf(out, " (blocks %zu rule%s)", mine, mine == 1 ? "" : "s");
    fputc(';', out);
  }
  fprintf(out, " %zu rule%s BLOCKED by them\n", blocked, blocked == 1 ? "" : "s");
}

void nc_report_print_text(const nc_report *r, FILE *out, int colour)
{
  print_header(r, out);
  if (r->error) {
    fprintf(out, "%serror:%s %s\n", colour ? "\033[1;31m" : "", colour ? "\033[0m" : "",
            r->error);
    return;
  }
  print_refusal(r, out, colour);
  print_root_causes(r, out);
  /* What failed on its own first, then what it blocked, then the rest:
   * the cause is on the first screen. Rule order within each group. */
  for (int group = 0; group < 3; group++)
    for (size_t i = 0; i < r->nresults; i++)
      if (report_group(&r->results[i]) == group)
        print_result(&r->results[i], out, colour, r->verbose);
  print_refused(r, out, colour);
  nc_report_print_coverage(r, out);
  fputc('\n', out);
  print_summary_line(r, out);
}

void nc_report_print_summary(const nc_report *r, FILE *out)
{
  if (r->error) {
    fprintf(out, "error: %s\n", r->error);
    return;
  }
  for (size_t i = 0; i < r->nresults; i++)
    if (r->results[i].verdict != NC_VERDICT_PASS &&
        (r->results[i].verdict != NC_VERDICT_SKIP || nc_result_untested(&r->results[i])) &&
        !r->results[i].refused)
      print_result(&r->results[i], out, 0, 0);
  print_refused(r, out, 0);
  print_summary_line(r, out);
}

static void print_summary_line(const nc_report *r, FILE *out)
{
  for (size_t i = 0; i < r->ngate_notes; i++)
    fprintf(out, "gate: %s\n", r->gate_notes[i]);
  if (r->note)
    fprintf(out, "note: %s\n", r->note);
  print_refusal(r, out, 0);
  print_root_causes(r, out);
  fprintf(out, "%zu rules: %zu PASS, %zu FAIL, %zu WARN, %zu N/A, %zu BLOCKED, %zu UNTESTED, "
               "%zu ERROR",
          r->nresults, nc_report_count(r, NC_VERDICT_PASS), nc_report_count(r, NC_VERDICT_FAIL),
          nc_report_count(r, NC_VERDICT_WARN), nc_report_count_skips(r, NC_SKIP_NOT_APPLICABLE),
          nc_report_count_skips(r, NC_SKIP_BLOCKED), nc_report_count_skips(r, NC_SKIP_UNTESTED),
          nc_report_count(r, NC_VERDICT_ERROR));
  if (nc_report_count(r, NC_VERDICT_WAIVED))
    fprintf(out, ", %zu WAIVED", nc_report_count(r, NC_VERDICT_WAIVED));
  int code = nc_report_exit_code(r);
  fprintf(out, " (%.2f s); exit %d%s\n", r->seconds, code,
          code == NC_EXIT_INCOMPLETE && !r->error && nc_report_count_untested(r)
              ? " (incomplete: a MUST rule was not tested)"
              : "");
}
