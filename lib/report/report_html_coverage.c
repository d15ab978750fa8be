/* SPDX-License-Identifier: Apache-2.0 */
/* The HTML report's coverage table: one row per swept op, one column per
 * dimension of the call space, each cell the classes of that dimension
 * as chips, green (ran here), grey (another rule's case makes such calls)
 * or red (ran nowhere), with the count covered of all; hovering a chip
 * says why. The rows and cells are the JSON report's "coverage" in the
 * same order, so a reader and tests/e2e/check_html.py see one matrix. */
#include <stdlib.h>
#include <string.h>

#include "report_html.h"
#include "rules.h"

/* The dimensions of every op, in the order they first appear. */
typedef struct {
  const char **name;
  size_t n;
} dims;

static int dims_add(dims *d, const char *name)
{
  for (size_t i = 0; i < d->n; i++)
    if (strcmp(d->name[i], name) == 0)
      return 0;
  const char **p = realloc(d->name, (d->n + 1) * sizeof(*p));
  if (!p)
    return -1;
  d->name = p;
  d->name[d->n++] = name;
  return 0;
}

/* Cells [from, return) of res are one op's. */
static size_t op_end(const nc_result *res, size_t from)
{
  size_t to = from;
  while (to < res->ncover && strcmp(res->cover[to].op, res->cover[from].op) == 0)
    to++;
  return to;
}

static void chip(nc_strbuf *b, const nc_cover_cell *c)
{
  static const char *const css[] = {"ran", "elsewhere", "notrun"};
  nc_strbuf_printf(b, "<span class=\"%s\" title=\"", css[c->state]);
  nc_strbuf_put_xml(b, nc_cover_state_name(c->state));
  if (c->by)
    nc_strbuf_printf(b, " in %s", c->by->id);
  if (c->why) {
    nc_strbuf_puts(b, ": ");
    nc_strbuf_put_xml(b, c->why);
  }
  nc_strbuf_puts(b, "\">");
  nc_strbuf_put_xml(b, c->cls);
  nc_strbuf_puts(b, "</span>");
}

/* The op's name and its rule, with the rule's verdict. */
static void row_head(nc_strbuf *b, const char *op, const nc_result *res)
{
  const char *label = nc_result_label(res);
  nc_strbuf_puts(b, "<tr><th scope=\"row\">");
  nc_strbuf_put_xml(b, op);
  nc_strbuf_printf(b, "</th><td><a href=\"#%s\">%s</a> <span class=\"v %s\">%s</span></td>",
                   res->rule->id, res->rule->id, nc_html_badge_class(label), label);
}

/* One op's row: per dimension its classes, or a dash where the op has
 * no such dimension. */
static void op_row(nc_strbuf *b, const nc_result *res, size_t from, size_t to, const dims *d)
{
  row_head(b, res->cover[from].op, res);
  for (size_t j = 0; j < d->n; j++) {
    size_t covered = 0, all = 0;
    for (size_t k = from; k < to; k++)
      if (strcmp(res->cover[k].dimension, d->name[j]) == 0) {
        all++;
        covered += res->cover[k].state != NC_COVER_NOT_RUN;
      }
    if (!all) {
      nc_strbuf_puts(b, "<td class=\"nodim\">&mdash;</td>");
      continue;
    }
    nc_strbuf_printf(b, "<td><span class=\"n%s\">%zu/%zu</span> ", covered < all ? " short" : "",
                     covered, all);
    for (size_t k = from; k < to; k++)
      if (strcmp(res->cover[k].dimension, d->name[j]) == 0)
        chip(b, &res->cover[k]);
    nc_strbuf_puts(b, "</td>");
  }
  nc_strbuf_puts(b, "</tr>\n");
}

/* An op whose case made no sweep: one cell across the dimensions, as the
 * JSON report's one "op"/"every call" item, saying why. */
static void unswept_row(nc_strbuf *b, const nc_result *res, const char *op, size_t ndims)
{
  row_head(b, op, res);
  const char *why = res->reason ? res->reason : "its case made no sweep";
  nc_strbuf_printf(b, "<td class=\"unswept\" colspan=\"%zu\"><span class=\"notrun\" "
                      "title=\"not run: ", ndims);
  nc_strbuf_put_xml(b, why);
  nc_strbuf_puts(b, "\">every call</span> not run: ");
  nc_strbuf_put_xml(b, why);
  nc_strbuf_puts(b, "</td></tr>\n");
}

void nc_html_coverage(nc_strbuf *b, const nc_report *r)
{
  dims d = {0};
  int any = 0;
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    for (size_t k = 0; k < res->ncover; k++)
      if (dims_add(&d, res->cover[k].dimension) < 0)
        b->failed = 1;
    for (size_t o = 0; o < nc_swept_op_count; o++)
      any |= nc_result_unswept(res, o);
  }
  if (!d.n && !any) {
    free(d.name);
    return;
  }
  nc_strbuf_puts(b, "<h2 id=\"coverage\">Coverage of the call space</h2>\n"
                    "<p class=\"legend\">Per op and dimension, the classes covered of all: "
                    "<span class=\"ran\">ran</span> here, <span class=\"elsewhere\">elsewhere"
                    "</span> (another rule's case makes such calls), <span class=\"notrun\">not "
                    "run</span> (nothing in the run did); hover a class for why.</p>\n"
                    "<table class=\"cov\">\n<tr><th>op</th><th>rule</th>");
  if (!d.n)
    nc_strbuf_puts(b, "<th>call space</th>");
  for (size_t j = 0; j < d.n; j++) {
    nc_strbuf_puts(b, "<th>");
    nc_strbuf_put_xml(b, d.name[j]);
    nc_strbuf_puts(b, "</th>");
  }
  nc_strbuf_puts(b, "</tr>\n");
  size_t ncols = d.n ? d.n : 1;
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    for (size_t k = 0; k < res->ncover; k = op_end(res, k))
      op_row(b, res, k, op_end(res, k), &d);
    for (size_t o = 0; o < nc_swept_op_count; o++)
      if (nc_result_unswept(res, o))
        unswept_row(b, res, nc_swept_ops[o].name, ncols);
  }
  nc_strbuf_puts(b, "</table>\n");
  free(d.name);
}
