/* SPDX-License-Identifier: Apache-2.0 */
/* The parts of the HTML report (report_html.c) kept in files of their own. */
#ifndef NC_REPORT_HTML_H
#define NC_REPORT_HTML_H

#include "report.h"
#include "strbuf.h"

/* The CSS class of a verdict label's badge (PASS, FAIL, WARN, N/A,
 * BLOCKED, UNTESTED, ERROR, WAIVED): "pass", "fail", ... "na". The page's
 * style sheet colours each. */
const char *nc_html_badge_class(const char *label);

/* The coverage section: a table of the swept ops (rows) by the dimensions
 * of their call space (columns), each cell the classes of that dimension,
 * coloured ran / elsewhere / not run. Nothing when no op was swept. */
void nc_html_coverage(nc_strbuf *b, const nc_report *r);

#endif
