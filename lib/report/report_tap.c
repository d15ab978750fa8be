/* SPDX-License-Identifier: Apache-2.0 */
/* TAP version 13: one test point per rule, with a YAML block of evidence
 * for each rule that did not pass. SKIP is a TAP skip; WARN passes (with
 * its evidence) unless the run is strict. */
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"
#include "strbuf.h"

/* A YAML double-quoted scalar. */
static void put_yaml(nc_strbuf *b, const char *s)
{
  nc_strbuf_puts(b, "\"");
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\')
      nc_strbuf_printf(b, "\\%c", *s);
    else if (*s == '\n')
      nc_strbuf_puts(b, "\\n");
    else if ((unsigned char)*s < 0x20)
      nc_strbuf_printf(b, "\\x%02x", (unsigned char)*s);
    else
      nc_strbuf_printf(b, "%c", *s);
  }
  nc_strbuf_puts(b, "\"");
}

int nc_report_write_tap(const nc_report *r, const char *path, char *err, size_t errlen)
{
  nc_strbuf b = {0};
  nc_strbuf_puts(&b, "TAP version 13\n");
  if (r->error) {
    nc_strbuf_puts(&b, "1..0 # SKIP the run did not happen: ");
    nc_strbuf_puts(&b, r->error);
    nc_strbuf_puts(&b, "\n");
  } else {
    nc_strbuf_printf(&b, "1..%zu\n", r->nresults);
  }
  if (r->sandbox) { /* one line: the text has none of its own */
    nc_strbuf_printf(&b, "# sandbox (--sandbox %s): ", r->sandbox_mode ? r->sandbox_mode : "auto");
    nc_strbuf_puts(&b, r->sandbox);
    nc_strbuf_puts(&b, "\n");
  }
  for (size_t i = 0; !r->error && i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    /* A MUST rule nothing tested is not a pass: not ok, no directive. */
    int incomplete = nc_result_untested(res) && res->rule->severity == NC_MUST;
    int failed = res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_ERROR ||
                 res->verdict == NC_VERDICT_WAIVED || incomplete ||
                 (r->strict && res->verdict == NC_VERDICT_WARN);
    nc_strbuf_printf(&b, "%s %zu - %s %s", failed ? "not ok" : "ok", i + 1, res->rule->id,
                     res->rule->title);
    if (res->verdict == NC_VERDICT_SKIP && !incomplete)
      nc_strbuf_printf(&b, " # SKIP %s: %s", nc_skip_kind_name(res->skip),
                       res->reason ? res->reason : "");
    else if (res->verdict == NC_VERDICT_WAIVED) /* a known, accepted failure */
      nc_strbuf_printf(&b, " # TODO waived: %s", res->waiver ? res->waiver : "");
    nc_strbuf_puts(&b, "\n");
    if (res->verdict == NC_VERDICT_PASS || (res->verdict == NC_VERDICT_SKIP && !incomplete))
      continue;
    nc_strbuf_puts(&b, "  ---\n  verdict: ");
    nc_strbuf_puts(&b, nc_result_label(res));
    nc_strbuf_printf(&b, "\n  severity: %s\n  clause: ", nc_severity_name(res->rule->severity));
    put_yaml(&b, res->rule->clause);
    nc_strbuf_puts(&b, "\n  message: ");
    put_yaml(&b, res->reason);
    if (res->crash) {
      nc_strbuf_puts(&b, "\n  crash: ");
      put_yaml(&b, res->crash);
    }
    nc_strbuf_puts(&b, "\n  reproduce: ");
    put_yaml(&b, res->reproduce);
    nc_strbuf_puts(&b, "\n  ...\n");
  }
  if (b.failed) {
    nc_strbuf_free(&b);
    snprintf(err, errlen, "out of memory while building the TAP report");
    return -1;
  }
  int rc = nc_write_file_atomic(path, b.data, b.len, err, errlen);
  nc_strbuf_free(&b);
  return rc;
}
