/* SPDX-License-Identifier: Apache-2.0 */
/* One self-contained HTML page: the header, then a table of rules per
 * family with colour-coded verdicts, and for every rule that did not pass
 * its evidence, crash and reproduce line. No script, no external asset:
 * the page opens from a CI artifact store as it is. */
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"
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

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1d1d1f}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}"
    "table{border-collapse:collapse;width:100%}"
    "th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #ddd;vertical-align:top}"
    "th{background:#f4f4f6}code,pre{font:12px/1.4 ui-monospace,monospace}"
    "pre{white-space:pre-wrap;background:#f7f7f9;padding:.5em;margin:.3em 0}"
    ".v{display:inline-block;min-width:4.5em;text-align:center;border-radius:3px;"
    "font-weight:600;color:#fff;padding:.05em .4em}"
    ".PASS{background:#2e7d32}.FAIL{background:#c62828}.WARN{background:#ef6c00}"
    ".SKIP{background:#757575}.ERROR{background:#6a1b9a}.WAIVED{background:#1565c0}"
    ".head td:first-child{color:#555;width:9em}.summary{font-size:1.1em;margin:1em 0}"
    "details{margin:.2em 0}.rules{table-layout:fixed}.rules th:nth-child(1){width:6.5em}"
    ".rules th:nth-child(2){width:5em}.rules th:nth-child(3){width:5.5em}"
    ".cov span{display:inline-block;margin:.1em .15em;padding:0 .35em;border-radius:3px}"
    ".ran{background:#c8e6c9}.elsewhere{background:#e0e0e0}.notrun{background:#ffcdd2}";

static void header(nc_strbuf *b, const nc_report *r)
{
  nc_strbuf_puts(b, "<table class=\"head\">\n");
  const struct {
    const char *key, *value;
  } rows[] = {{"plugin", r->plugin_path},   {"sha256", r->sha256[0] ? r->sha256 : NULL},
              {"name", r->plugin_name},     {"author", r->plugin_author},
              {"mode", r->plugin_mode},     {"built for ABI", r->plugin_abi},
              {"accepted by", r->accepting_hosts}, {"CUDA runtime", r->cuda},
              {"command", r->command_line},
              {"started", r->started_at}};
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    if (!rows[i].value)
      continue;
    nc_strbuf_puts(b, "<tr><td>");
    put_text(b, rows[i].key);
    nc_strbuf_puts(b, "</td><td><code>");
    put_text(b, rows[i].value);
    nc_strbuf_puts(b, "</code></td></tr>\n");
  }
  nc_strbuf_printf(b, "<tr><td>host</td><td>ABI %u.%u, %d workers, seed %llu, timeout %g s"
                      "</td></tr>\n</table>\n",
                   r->host_major, r->host_minor, r->workers, (unsigned long long)r->seed,
                   r->timeout_s);
}

static void summary(nc_strbuf *b, const nc_report *r)
{
  nc_strbuf_printf(b, "<p class=\"summary\">%zu rules:", r->nresults);
  for (int v = 0; v < NC_VERDICT_COUNT_; v++) {
    size_t n = nc_report_count(r, (nc_verdict)v);
    if (n || v <= NC_VERDICT_FAIL)
      nc_strbuf_printf(b, " <span class=\"v %s\">%zu %s</span>", nc_verdict_name((nc_verdict)v),
                       n, nc_verdict_name((nc_verdict)v));
  }
  nc_strbuf_printf(b, " &mdash; exit %d, %.2f s</p>\n", nc_report_exit_code(r), r->seconds);
  /* What needs attention first, linked to its row. */
  int listed = 0;
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    if (res->verdict == NC_VERDICT_PASS ||
        (res->verdict == NC_VERDICT_SKIP && !nc_result_untested(res)))
      continue;
    if (!listed++)
      nc_strbuf_puts(b, "<ul>\n");
    nc_strbuf_printf(b, "<li><span class=\"v %s\">%s</span> <a href=\"#%s\">%s</a> ",
                     nc_verdict_name(res->verdict), nc_result_label(res), res->rule->id,
                     res->rule->id);
    put_text(b, res->rule->title);
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
    nc_strbuf_printf(b, "<tr id=\"%s\"><td><span class=\"v %s\">%s</span></td><td>", res->rule->id,
                     nc_verdict_name(res->verdict), nc_result_label(res));
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

/* The call space the op sweeps covered: a row per op and dimension, each
 * class green (ran), grey (another rule's case makes it) or red (ran
 * nowhere); hovering gives why. */
static void coverage_table(nc_strbuf *b, const nc_report *r)
{
  int any = 0;
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    for (size_t k = 0; k < res->ncover; k++) {
      const nc_cover_cell *c = &res->cover[k];
      int new_row = k == 0 || strcmp(c->op, res->cover[k - 1].op) != 0 ||
                    strcmp(c->dimension, res->cover[k - 1].dimension) != 0;
      if (new_row) {
        if (!any++)
          nc_strbuf_puts(b, "<h2>Coverage of the call space</h2>\n<table class=\"cov\">\n<tr>"
                            "<th>op</th><th>rule</th><th>dimension</th><th>classes</th></tr>\n");
        else
          nc_strbuf_puts(b, "</td></tr>\n");
        nc_strbuf_puts(b, "<tr><td>");
        put_text(b, c->op);
        nc_strbuf_printf(b, "</td><td><a href=\"#%s\">%s</a></td><td>", res->rule->id,
                         res->rule->id);
        put_text(b, c->dimension);
        nc_strbuf_puts(b, "</td><td>");
      }
      static const char *const css[] = {"ran", "elsewhere", "notrun"};
      nc_strbuf_printf(b, "<span class=\"%s\" title=\"", css[c->state]);
      put_text(b, nc_cover_state_name(c->state));
      if (c->by)
        nc_strbuf_printf(b, " in %s", c->by->id);
      if (c->why) {
        nc_strbuf_puts(b, ": ");
        put_text(b, c->why);
      }
      nc_strbuf_puts(b, "\">");
      put_text(b, c->cls);
      nc_strbuf_puts(b, "</span>");
    }
  }
  if (any)
    nc_strbuf_puts(b, "</td></tr>\n</table>\n");
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
    nc_strbuf_puts(&b, "<p class=\"summary\"><span class=\"v ERROR\">ERROR</span> the run did not "
                       "happen: ");
    put_text(&b, r->error);
    nc_strbuf_printf(&b, " (exit %d)</p>\n", nc_report_exit_code(r));
  } else {
    header(&b, r);
    summary(&b, r);
    /* Families in the order they first appear. */
    for (size_t i = 0; i < r->nresults; i++) {
      int seen = 0;
      for (size_t j = 0; j < i && !seen; j++)
        seen = strcmp(r->results[j].rule->family, r->results[i].rule->family) == 0;
      if (!seen)
        family_table(&b, r, r->results[i].rule->family);
    }
    coverage_table(&b, r);
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
