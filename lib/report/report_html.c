/* SPDX-License-Identifier: Apache-2.0 */
/* One self-contained HTML page that reads at a glance: the header, the
 * root cause right under it, the summary's badges, then a table of rules
 * per family with colour-coded verdicts (and for every rule that did not
 * pass its evidence, crash and reproduce line), the coverage table and
 * the rules explained. No script, no external asset:
 * the page opens from a CI artifact store as it is. */
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"
#include "report_html.h"
#include "rule_page.h"
#include "strbuf.h"

static void put_text(nc_strbuf *b, const char *s)
{
  for (; s && *s; s++) {
    switch (*s) {
    case '&': nc_strbuf_puts(b, "&amp;"); break;
    case '<': nc_strbuf_puts(b, "&lt;"); break;
    case '>': nc_strbuf_puts(b, "&gt;"); break;
    case '"': nc_strbuf_puts(b, "&quot;"); break;
    case '\'': nc_strbuf_puts(b, "&#39;"); break;
    default: nc_strbuf_printf(b, "%c", *s);
    }
  }
}

/* <tag>text</tag>, escaped. */
static void put_element(nc_strbuf *b, const char *tag, const char *text)
{
  nc_strbuf_printf(b, "<%s>", tag);
  put_text(b, text);
  nc_strbuf_printf(b, "</%s>", tag);
}

/* Badges are coloured by what they count: a zero is quiet grey whatever
 * its label, a failure red, a pass green, what was not tested (untested,
 * blocked) amber, not applicable grey. Long values (the command line, a
 * path, a reproduce line) wrap rather than widen the page. */
static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em 2em;color:#1d1d1f;max-width:100em}"
    "h1{font-size:1.5em;margin:0 0 .5em}h2{font-size:1.2em;margin-top:1.6em}"
    "table{border-collapse:collapse;width:100%}"
    "th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #ddd;vertical-align:top}"
    "th{background:#f4f4f6}code,pre{font:12px/1.4 ui-monospace,monospace;overflow-wrap:anywhere}"
    "pre{white-space:pre-wrap;background:#f7f7f9;padding:.5em;margin:.3em 0}"
    ".cmd{white-space:pre-wrap;overflow-wrap:anywhere}a{white-space:nowrap}"
    ".v{display:inline-block;min-width:4.5em;text-align:center;border-radius:3px;"
    "font-weight:600;color:#fff;padding:.05em .4em}"
    ".pass{background:#2e7d32}.fail{background:#c62828}.warn{background:#ef6c00}"
    ".na{background:#757575}.blocked{background:#ffb300;color:#3e2700}"
    ".untested{background:#ff8f00;color:#3e2700}.error{background:#6a1b9a}"
    ".waived{background:#1565c0}.zero{background:#e6e6e6;color:#767676;font-weight:400}"
    ".head{table-layout:fixed}.head td{padding:.12em .6em}"
    ".head td:first-child{color:#555;width:9em}.summary{font-size:1.1em;margin:.8em 0}"
    ".rootcause{border-left:5px solid #c62828;background:#fdf1f1;padding:.5em 1em;margin:1em 0}"
    ".rootcause.refused{border-color:#ff8f00;background:#fff6e5}"
    ".rootcause h2{margin:0 0 .3em;font-size:1.15em}.rootcause ul{margin:.2em 0;padding-left:1.2em}"
    ".why{color:#444}"
    "details{margin:.2em 0}.rules{table-layout:fixed}.rules th:nth-child(1){width:6.5em}"
    ".rules th:nth-child(2){width:5em}.rules th:nth-child(3){width:5.5em}"
    ".cov th[scope=row]{background:none;font-weight:600;white-space:nowrap}"
    ".cov td{font-size:12px}.cov .v{min-width:3.5em;font-size:11px}"
    ".cov span.ran,.cov span.elsewhere,.cov span.notrun,.legend span{display:inline-block;"
    "margin:.1em .15em;padding:0 .35em;border-radius:3px}"
    ".cov .n{font-weight:600;margin-right:.3em}.cov .n.short{color:#c62828}"
    ".nodim{color:#999;text-align:center}"
    ".ran{background:#c8e6c9}.elsewhere{background:#e0e0e0}.notrun{background:#ffcdd2}";

const char *nc_html_badge_class(const char *label)
{
  static const struct {
    const char *label, *css;
  } map[] = {{"PASS", "pass"},         {"FAIL", "fail"},         {"WARN", "warn"},
             {"N/A", "na"},            {"BLOCKED", "blocked"},   {"UNTESTED", "untested"},
             {"ERROR", "error"},       {"WAIVED", "waived"}};
  for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
    if (strcmp(map[i].label, label) == 0)
      return map[i].css;
  return "error";
}

static void badge(nc_strbuf *b, const nc_result *res)
{
  const char *label = nc_result_label(res);
  nc_strbuf_printf(b, "<span class=\"v %s\">%s</span>", nc_html_badge_class(label), label);
}

static void header(nc_strbuf *b, const nc_report *r)
{
  nc_strbuf_puts(b, "<table class=\"head\">\n");
  const struct {
    const char *key, *value;
  } rows[] = {{"plugin", r->plugin_path},   {"sha256", r->sha256[0] ? r->sha256 : NULL},
              {"name", r->plugin_name},     {"author", r->plugin_author},
              {"mode", r->plugin_mode},     {"built for ABI", r->plugin_abi},
              {"accepted by", r->accepting_hosts}, {"CUDA runtime", r->cuda},
              {"sandbox", r->sandbox},
              {"command", r->command_line},
              {"started", r->started_at}};
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    if (!rows[i].value)
      continue;
    nc_strbuf_puts(b, "<tr><td>");
    put_text(b, rows[i].key);
    nc_strbuf_puts(b, "</td><td><code class=\"cmd\">");
    put_text(b, rows[i].value);
    nc_strbuf_puts(b, "</code></td></tr>\n");
  }
  nc_strbuf_printf(b, "<tr><td>host</td><td>ABI %u.%u, %d workers, seed %llu, timeout %g s"
                      "</td></tr>\n</table>\n",
                   r->host_major, r->host_minor, r->workers, (unsigned long long)r->seed,
                   r->timeout_s);
}

/* A rule that failed on its own (not blocked by another): a root cause. */
static int own_failure(const nc_result *res)
{
  return res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN ||
         res->verdict == NC_VERDICT_ERROR;
}

/* The first thing under the header, as the text report's "root cause:"
 * line: the refused config every case met, or the rules that failed on
 * their own, each with how many rules it blocked and why it failed.
 * Nothing on a run where neither happened. */
static void root_cause(nc_strbuf *b, const nc_report *r)
{
  size_t refused = 0, own = 0, blocked = 0;
  for (size_t i = 0; i < r->nresults; i++) {
    refused += r->results[i].verdict == NC_VERDICT_SKIP && r->results[i].refused;
    own += own_failure(&r->results[i]);
    blocked += r->results[i].blocked_by != NULL;
  }
  int refusal = r->refusal && refused;
  if (!refusal && !own)
    return;
  nc_strbuf_printf(b, "<section id=\"root-cause\" class=\"rootcause%s\">\n<h2>Root cause</h2>\n",
                   refusal && !own ? " refused" : "");
  if (refusal) {
    nc_strbuf_puts(b, "<p>The plugin refused the run's config: <code class=\"cmd\">");
    put_text(b, r->refusal);
    nc_strbuf_printf(b, "</code>. %zu rule%s could not make a table and did not run; give "
                        "configs the plugin accepts (<code>--factory-config</code>, "
                        "<code>--table-config</code>, <code>--profile</code>).</p>\n<p><span "
                        "class=\"v blocked\">BLOCKED</span>",
                     refused, refused == 1 ? "" : "s");
    for (size_t i = 0; i < r->nresults; i++)
      if (r->results[i].verdict == NC_VERDICT_SKIP && r->results[i].refused)
        nc_strbuf_printf(b, " <a href=\"#%s\">%s</a>", r->results[i].rule->id,
                         r->results[i].rule->id);
    nc_strbuf_puts(b, "</p>\n");
  }
  if (own) {
    nc_strbuf_puts(b, "<ul>\n");
    for (size_t i = 0; i < r->nresults; i++) {
      const nc_result *res = &r->results[i];
      if (!own_failure(res))
        continue;
      size_t mine = 0;
      for (size_t k = 0; k < r->nresults; k++)
        mine += r->results[k].blocked_by == res->rule;
      nc_strbuf_puts(b, "<li>");
      badge(b, res);
      nc_strbuf_printf(b, " <a href=\"#%s\">%s</a> ", res->rule->id, res->rule->id);
      put_text(b, res->rule->title);
      if (mine)
        nc_strbuf_printf(b, " <strong>(blocks %zu rule%s)</strong>", mine, mine == 1 ? "" : "s");
      if (res->reason) {
        nc_strbuf_puts(b, "<br><span class=\"why\">");
        put_text(b, res->reason);
        nc_strbuf_puts(b, "</span>");
      }
      nc_strbuf_puts(b, "</li>\n");
    }
    nc_strbuf_puts(b, "</ul>\n");
    if (blocked)
      nc_strbuf_printf(b, "<p>%zu rule%s BLOCKED because of %s.</p>\n", blocked,
                       blocked == 1 ? "" : "s", own == 1 ? "it" : "them");
  }
  nc_strbuf_puts(b, "</section>\n");
}

/* One badge per label of the text report's summary line, coloured by
 * its count (zero is grey), then what else needs a look, linked. */
static void summary(nc_strbuf *b, const nc_report *r)
{
  const struct {
    const char *label;
    size_t n;
  } counts[] = {{"PASS", nc_report_count(r, NC_VERDICT_PASS)},
                {"FAIL", nc_report_count(r, NC_VERDICT_FAIL)},
                {"WARN", nc_report_count(r, NC_VERDICT_WARN)},
                {"N/A", nc_report_count_skips(r, NC_SKIP_NOT_APPLICABLE)},
                {"BLOCKED", nc_report_count_skips(r, NC_SKIP_BLOCKED)},
                {"UNTESTED", nc_report_count_skips(r, NC_SKIP_UNTESTED)},
                {"ERROR", nc_report_count(r, NC_VERDICT_ERROR)},
                {"WAIVED", nc_report_count(r, NC_VERDICT_WAIVED)}};
  nc_strbuf_printf(b, "<p class=\"summary\" id=\"summary\">%zu rules:", r->nresults);
  for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
    if (!counts[i].n && strcmp(counts[i].label, "WAIVED") == 0)
      continue; /* only a run with waivers has them */
    nc_strbuf_printf(b, " <span class=\"v %s\">%zu %s</span>",
                     counts[i].n ? nc_html_badge_class(counts[i].label) : "zero", counts[i].n,
                     counts[i].label);
  }
  nc_strbuf_printf(b, " &mdash; exit %d, %.2f s</p>\n", nc_report_exit_code(r), r->seconds);
  /* The rest that needs a look (the root causes are above): each rule,
   * but those a rule's failure blocked one line per blocking rule. */
  int listed = 0;
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    if (res->verdict == NC_VERDICT_PASS || own_failure(res) || (res->refused && r->refusal) ||
        res->blocked_by || (res->verdict == NC_VERDICT_SKIP && res->skip == NC_SKIP_NOT_APPLICABLE))
      continue;
    if (!listed++)
      nc_strbuf_puts(b, "<ul class=\"attention\">\n");
    nc_strbuf_puts(b, "<li>");
    badge(b, res);
    nc_strbuf_printf(b, " <a href=\"#%s\">%s</a> ", res->rule->id, res->rule->id);
    put_text(b, res->rule->title);
    nc_strbuf_puts(b, "</li>\n");
  }
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_rule_info *by = r->results[i].rule;
    int first = 1;
    for (size_t k = 0; k < r->nresults; k++) {
      if (r->results[k].blocked_by != by)
        continue;
      if (!listed++)
        nc_strbuf_puts(b, "<ul class=\"attention\">\n");
      if (first)
        nc_strbuf_printf(b, "<li><span class=\"v blocked\">BLOCKED</span> by <a href=\"#%s\">%s"
                            "</a>:", by->id, by->id);
      first = 0;
      nc_strbuf_printf(b, " <a href=\"#%s\">%s</a>", r->results[k].rule->id,
                       r->results[k].rule->id);
    }
    if (!first)
      nc_strbuf_puts(b, "</li>\n");
  }
  if (listed)
    nc_strbuf_puts(b, "</ul>\n");
  if (r->note)
    put_element(b, "p", r->note);
  for (size_t i = 0; i < r->ngate_notes; i++)
    put_element(b, "p", r->gate_notes[i]);
}

static void details(nc_strbuf *b, const nc_result *res)
{
  if (res->waiver) {
    nc_strbuf_puts(b, "<p>waived: ");
    put_text(b, res->waiver);
    nc_strbuf_puts(b, "</p>");
  }
  if (res->nevidence) {
    nc_strbuf_printf(b, "<details%s><summary>evidence (%zu)</summary><ul>",
                     res->verdict == NC_VERDICT_PASS ? "" : " open", res->nevidence);
    nc_evidence_line lines[NC_EVIDENCE_SHOWN];
    size_t more, n = nc_evidence_lines(res, 1, lines, &more);
    for (size_t i = 0; i < n; i++) {
      const nc_evidence *e = lines[i].e;
      nc_strbuf_puts(b, "<li>[");
      put_text(b, e->level);
      nc_strbuf_puts(b, "] <code>");
      put_text(b, e->call);
      nc_strbuf_puts(b, "</code>: observed ");
      put_text(b, e->observed);
      nc_strbuf_puts(b, "; expected ");
      put_text(b, e->expected);
      if (lines[i].times > 1)
        nc_strbuf_printf(b, " (%zu times)", lines[i].times);
      nc_strbuf_puts(b, "</li>");
    }
    if (more)
      nc_strbuf_printf(b, "<li>... and %zu more lines (the JSON report has them)</li>", more);
    nc_strbuf_puts(b, "</ul></details>");
  }
  if (res->crash) {
    nc_strbuf_puts(b, "<pre>crash: ");
    put_text(b, res->crash);
    for (size_t i = 0; i < res->nframes; i++) {
      nc_strbuf_puts(b, "\n  at ");
      put_text(b, res->frames[i]);
    }
    nc_strbuf_puts(b, "</pre>");
  }
  if (res->output && res->verdict != NC_VERDICT_PASS) {
    nc_strbuf_puts(b, "<details><summary>plugin output</summary>");
    put_element(b, "pre", res->output);
    nc_strbuf_puts(b, "</details>");
  }
  if (res->reproduce && res->verdict != NC_VERDICT_PASS && res->verdict != NC_VERDICT_SKIP) {
    nc_strbuf_puts(b, "<p>reproduce: ");
    put_element(b, "code", res->reproduce);
    nc_strbuf_puts(b, "</p>");
  }
}

/* Every reported rule's explanation, so the page needs nothing else. */
static void explanations(nc_strbuf *b, const nc_report *r)
{
  nc_strbuf_puts(b, "<h2>The rules explained</h2>\n");
  for (size_t i = 0; i < r->nresults; i++) {
    int rule = nc_rule_parse(r->results[i].rule->id);
    if (rule < 0)
      continue;
    nc_strbuf page = {0};
    nc_rule_page(&page, (nc_rule)rule, NC_PAGE_EMBEDDED);
    nc_strbuf_printf(b, "<section id=\"explain-%s\">", r->results[i].rule->id);
    if (page.data)
      put_element(b, "pre", page.data);
    nc_strbuf_puts(b, "</section>\n");
    b->failed |= page.failed;
    nc_strbuf_free(&page);
  }
}

/* The rules of one family, in report order. */
static void family_table(nc_strbuf *b, const nc_report *r, const char *family)
{
  nc_strbuf_puts(b, "<h2>");
  put_text(b, family);
  nc_strbuf_puts(b, "</h2>\n<table class=\"rules\">\n<tr><th>verdict</th><th>rule</th><th>severity</th>"
                    "<th>title and evidence</th></tr>\n");
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    if (strcmp(res->rule->family, family) != 0)
      continue;
    nc_strbuf_printf(b, "<tr id=\"%s\"><td>", res->rule->id);
    badge(b, res);
    nc_strbuf_puts(b, "</td><td>");
    nc_strbuf_printf(b, "<a href=\"#explain-%s\" title=\"what the rule means and how to fix "
                        "it\">%s</a>", res->rule->id, res->rule->id);
    nc_strbuf_printf(b, "</td><td>%s</td><td>", nc_severity_name(res->rule->severity));
    put_text(b, res->rule->title);
    if (res->reason && res->verdict != NC_VERDICT_PASS) {
      nc_strbuf_puts(b, "<br>");
      put_text(b, res->reason);
    }
    details(b, res);
    nc_strbuf_puts(b, "</td></tr>\n");
  }
  nc_strbuf_puts(b, "</table>\n");
}

int nc_report_write_html(const nc_report *r, const char *path, char *err, size_t errlen)
{
  nc_strbuf b = {0};
  nc_strbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
  nc_strbuf_puts(&b, "nve-conform: ");
  put_text(&b, r->plugin_name ? r->plugin_name : r->plugin_path ? r->plugin_path : "report");
  nc_strbuf_printf(&b, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
  nc_strbuf_printf(&b, "<h1>nve-conform %s report (ruleset %s)</h1>\n", NC_HARNESS_VERSION_STRING,
                   NC_RULESET_VERSION_STRING);
  if (r->error) {
    nc_strbuf_puts(&b, "<p class=\"summary\"><span class=\"v error\">ERROR</span> the run did not "
                       "happen: ");
    put_text(&b, r->error);
    nc_strbuf_printf(&b, " (exit %d)</p>\n", nc_report_exit_code(r));
  } else {
    header(&b, r);
    root_cause(&b, r);
    summary(&b, r);
    /* Families in the order they first appear. */
    for (size_t i = 0; i < r->nresults; i++) {
      int seen = 0;
      for (size_t j = 0; j < i && !seen; j++)
        seen = strcmp(r->results[j].rule->family, r->results[i].rule->family) == 0;
      if (!seen)
        family_table(&b, r, r->results[i].rule->family);
    }
    nc_html_coverage(&b, r);
    explanations(&b, r);
  }
  nc_strbuf_puts(&b, "</body>\n</html>\n");
  if (b.failed) {
    nc_strbuf_free(&b);
    snprintf(err, errlen, "out of memory while building the HTML report");
    return -1;
  }
  int rc = nc_write_file_atomic(path, b.data, b.len, err, errlen);
  nc_strbuf_free(&b);
  return rc;
}
