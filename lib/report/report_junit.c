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

static void put_case(nc_strbuf *b, const nc_report *r, const nc_result *res)
{
  nc_strbuf_puts(b, "    <testcase classname=\"nve-conform.");
  nc_strbuf_put_xml(b, res->rule->family);
  nc_strbuf_puts(b, "\" name=\"");
  nc_strbuf_put_xml(b, res->rule->id);
  nc_strbuf_puts(b, " ");
  nc_strbuf_put_xml(b, res->rule->title);
  nc_strbuf_printf(b, "\" time=\"%.3f\">\n", res->seconds);
  const char *elem = NULL;
  switch (res->verdict) {
  case NC_VERDICT_FAIL: elem = "failure"; break;
  case NC_VERDICT_WARN: elem = r->strict ? "failure" : NULL; break;
  case NC_VERDICT_ERROR: elem = "error"; break;
  case NC_VERDICT_SKIP:
  case NC_VERDICT_WAIVED: elem = "skipped"; break;
  default: break;
  }
  if (elem) {
    nc_strbuf_printf(b, "      <%s message=\"", elem);
    if (res->verdict == NC_VERDICT_WAIVED) {
      nc_strbuf_puts(b, "waived: ");
      nc_strbuf_put_xml(b, res->waiver);
    } else {
      nc_strbuf_put_xml(b, res->reason ? res->reason : nc_verdict_name(res->verdict));
    }
    nc_strbuf_printf(b, "\" type=\"%s %s\">", nc_severity_name(res->rule->severity),
                     nc_verdict_name(res->verdict));
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

int nc_report_write_junit(const nc_report *r, const char *path, char *err, size_t errlen)
{
  nc_strbuf b = {0};
  size_t failures = nc_report_count(r, NC_VERDICT_FAIL) +
                    (r->strict ? nc_report_count(r, NC_VERDICT_WARN) : 0);
  nc_strbuf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  nc_strbuf_printf(&b,
                   "<testsuites name=\"nve-conform\" tests=\"%zu\" failures=\"%zu\" "
                   "errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                   r->nresults + (r->error != NULL), failures, nc_report_count(r, NC_VERDICT_ERROR) + (r->error != NULL),
                   nc_report_count(r, NC_VERDICT_SKIP) + nc_report_count(r, NC_VERDICT_WAIVED),
                   r->seconds);
  if (r->error) {
    /* No run happened: one errored testcase says why, so CI shows it. */
    nc_strbuf_puts(&b, "  <testsuite name=\"nve-conform\" tests=\"1\" errors=\"1\">\n"
                       "    <testcase classname=\"nve-conform\" name=\"run\">\n"
                       "      <error message=\"");
    nc_strbuf_put_xml(&b, r->error);
    nc_strbuf_puts(&b, "\"/>\n    </testcase>\n  </testsuite>\n");
  }
  for (size_t i = 0; i < r->nresults;) {
    const char *family = r->results[i].rule->family;
    size_t end = i, nfail = 0, nerr = 0, nskip = 0;
    double secs = 0;
    while (end < r->nresults && strcmp(r->results[end].rule->family, family) == 0) {
      nc_verdict v = r->results[end].verdict;
      nfail += v == NC_VERDICT_FAIL || (r->strict && v == NC_VERDICT_WARN);
      nerr += v == NC_VERDICT_ERROR;
      nskip += v == NC_VERDICT_SKIP || v == NC_VERDICT_WAIVED;
      secs += r->results[end].seconds;
      end++;
    }
    nc_strbuf_puts(&b, "  <testsuite name=\"");
    nc_strbuf_put_xml(&b, family);
    nc_strbuf_printf(&b,
                     "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                     "time=\"%.3f\">\n",
                     end - i, nfail, nerr, nskip, secs);
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
