/* SPDX-License-Identifier: Apache-2.0 */
/* JUnit XML, in the shape Jenkins, GitLab and GitHub test reporters read:
 * one testsuite per rule family, one testcase per rule. */
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"
#include "strbuf.h"

static void put_details(nc_strbuf *b, const nc_result *res)
{
  if (res->reason) {
    nc_strbuf_put_xml(b, res->reason);
    nc_strbuf_puts(b, "\n");
  }
  nc_evidence_line lines[NC_EVIDENCE_SHOWN];
  size_t more, n = nc_evidence_lines(res, 1, lines, &more);
  for (size_t i = 0; i < n; i++) {
    const nc_evidence *e = lines[i].e;
    nc_strbuf_puts(b, "[");
    nc_strbuf_put_xml(b, e->level);
    nc_strbuf_puts(b, "] ");
    nc_strbuf_put_xml(b, e->call);
    nc_strbuf_puts(b, ": expected ");
    nc_strbuf_put_xml(b, e->expected);
    nc_strbuf_puts(b, "; observed ");
    nc_strbuf_put_xml(b, e->observed);
    if (lines[i].times > 1)
      nc_strbuf_printf(b, " (%zu times)", lines[i].times);
    nc_strbuf_puts(b, "\n");
  }
  if (more)
    nc_strbuf_printf(b, "... and %zu more lines (the JSON report has them)\n",
                     more);
  for (size_t i = 0; i < res->nframes; i++) {
    nc_strbuf_puts(b, "  at ");
    nc_strbuf_put_xml(b, res->frames[i]);
    nc_strbuf_puts(b, "\n");
  }
  if (res->reproduce) {
    nc_strbuf_puts(b, "reproduce: ");
    nc_strbuf_put_xml(b, res->reproduce);
    nc_strbuf_puts(b, "\n");
  }
  nc_strbuf_printf(b, "explain: nve-conform --explain %s\n", res->rule->id);
}

/* The JUnit element a result gets: failure, error (a MUST rule nothing
 * tested leaves the run incomplete, as CI should show), skipped, or none. */
static const char *element_of(const nc_report *r, const nc_result *res)
{
  switch (res->verdict) {
  case NC_VERDICT_FAIL: return "failure";
  case NC_VERDICT_WARN: return r->strict ? "failure" : NULL;
  case NC_VERDICT_ERROR: return "error";
  case NC_VERDICT_SKIP:
    return nc_result_untested(res) && res->rule->severity == NC_MUST ? "error" : "skipped";
  case NC_VERDICT_WAIVED: return "skipped";
  default: return NULL;
  }
}

/* How many of results [from, to) get the element. */
static size_t count_element(const nc_report *r, size_t from, size_t to, const char *elem)
{
  size_t n = 0;
  for (size_t i = from; i < to; i++) {
    const char *e = element_of(r, &r->results[i]);
    n += e && strcmp(e, elem) == 0;
  }
  return n;
}

static void put_case(nc_strbuf *b, const nc_report *r, const nc_result *res)
{
  nc_strbuf_puts(b, "    <testcase classname=\"nve-conform.");
  nc_strbuf_put_xml(b, res->rule->family);
  nc_strbuf_puts(b, "\" name=\"");
  nc_strbuf_put_xml(b, res->rule->id);
  nc_strbuf_puts(b, " ");
  nc_strbuf_put_xml(b, res->rule->title);
  nc_strbuf_printf(b, "\" time=\"%.3f\">\n", res->seconds);
  const char *elem = element_of(r, res);
  if (elem) {
    nc_strbuf_printf(b, "      <%s message=\"", elem);
    if (res->verdict == NC_VERDICT_WAIVED) {
      nc_strbuf_puts(b, "waived: ");
      nc_strbuf_put_xml(b, res->waiver);
    } else {
      if (res->verdict == NC_VERDICT_SKIP)
        nc_strbuf_printf(b, "%s: ", nc_skip_kind_name(res->skip));
      nc_strbuf_put_xml(b, res->reason ? res->reason : nc_verdict_name(res->verdict));
    }
    nc_strbuf_printf(b, "\" type=\"%s %s\">", nc_severity_name(res->rule->severity),
                     nc_result_label(res));
    put_details(b, res);
    nc_strbuf_printf(b, "</%s>\n", elem);
  } else if (res->verdict == NC_VERDICT_WARN || res->nevidence > 0) {
    nc_strbuf_puts(b, "      <system-out>");
    nc_strbuf_printf(b, "%s\n", nc_verdict_name(res->verdict));
    put_details(b, res);
    nc_strbuf_puts(b, "</system-out>\n");
  }
  nc_strbuf_puts(b, "    </testcase>\n");
}

/* The run's header that CI shows with each suite: its sandbox. */
static void put_properties(nc_strbuf *b, const nc_report *r)
{
  nc_strbuf_puts(b, "    <properties>\n      <property name=\"sandbox\" value=\"");
  nc_strbuf_put_xml(b, r->sandbox ? r->sandbox : "not set up: the run did not happen");
  nc_strbuf_puts(b, "\"/>\n      <property name=\"sandbox-mode\" value=\"");
  nc_strbuf_put_xml(b, r->sandbox_mode ? r->sandbox_mode : "auto");
  nc_strbuf_puts(b, "\"/>\n    </properties>\n");
}

int nc_report_write_junit(const nc_report *r, const char *path, char *err, size_t errlen)
{
  nc_strbuf b = {0};
  size_t n = r->nresults;
  nc_strbuf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  nc_strbuf_printf(&b,
                   "<testsuites name=\"nve-conform\" tests=\"%zu\" failures=\"%zu\" "
                   "errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                   n + (r->error != NULL), count_element(r, 0, n, "failure"),
                   count_element(r, 0, n, "error") + (r->error != NULL),
                   count_element(r, 0, n, "skipped"), r->seconds);
  if (r->error) {
    /* No run happened: one errored testcase says why, so CI shows it. */
    nc_strbuf_puts(&b, "  <testsuite name=\"nve-conform\" tests=\"1\" errors=\"1\">\n");
    put_properties(&b, r);
    nc_strbuf_puts(&b, "    <testcase classname=\"nve-conform\" name=\"run\">\n"
                       "      <error message=\"");
    nc_strbuf_put_xml(&b, r->error);
    nc_strbuf_puts(&b, "\"/>\n    </testcase>\n  </testsuite>\n");
  }
  for (size_t i = 0; i < r->nresults;) {
    const char *family = r->results[i].rule->family;
    size_t end = i;
    double secs = 0;
    while (end < r->nresults && strcmp(r->results[end].rule->family, family) == 0)
      secs += r->results[end++].seconds;
    size_t nfail = count_element(r, i, end, "failure"), nerr = count_element(r, i, end, "error"),
           nskip = count_element(r, i, end, "skipped");
    nc_strbuf_puts(&b, "  <testsuite name=\"");
    nc_strbuf_put_xml(&b, family);
    nc_strbuf_printf(&b,
                     "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                     "time=\"%.3f\">\n",
                     end - i, nfail, nerr, nskip, secs);
    put_properties(&b, r);
    for (; i < end; i++)
      put_case(&b, r, &r->results[i]);
    nc_strbuf_puts(&b, "  </testsuite>\n");
  }
  nc_strbuf_puts(&b, "</testsuites>\n");
  if (b.failed) {
    nc_strbuf_free(&b);
    snprintf(err, errlen, "out of memory while building the JUnit report");
    return -1;
  }
  int rc = nc_write_file_atomic(path, b.data, b.len, err, errlen);
  nc_strbuf_free(&b);
  return rc;
}
