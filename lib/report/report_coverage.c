/* SPDX-License-Identifier: Apache-2.0 */
/* The coverage section of the text report: one line per table op, saying
 * how many classes of each dimension of its call space ran, which ran in
 * other rules' cases, and which ran nowhere and why. A PASS on part of
 * the space says so: a vendor weighs it by what was tried. */
#include <stdio.h>
#include <string.h>

#include "report.h"

#define MAX_REASONS 8

/* Cells [from, to) of res are one op's. */
static size_t op_end(const nc_result *res, size_t from)
{
  size_t to = from;
  while (to < res->ncover && strcmp(res->cover[to].op, res->cover[from].op) == 0)
    to++;
  return to;
}

static void print_counts(const nc_cover_cell *cells, size_t n, FILE *out)
{
  for (size_t i = 0; i < n;) {
    size_t j = i, ran = 0;
    for (; j < n && strcmp(cells[j].dimension, cells[i].dimension) == 0; j++)
      ran += cells[j].state == NC_COVER_RAN;
    fprintf(out, "%s%s %zu/%zu", i ? ", " : "", cells[i].dimension, ran, j - i);
    i = j;
  }
}

/* The rules whose cases made what the sweep did not, each once. */
static void print_elsewhere(const nc_cover_cell *cells, size_t n, FILE *out)
{
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    const nc_rule_info *by = cells[i].by;
    if (cells[i].state != NC_COVER_ELSEWHERE || !by)
      continue;
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++)
      seen = cells[k].state == NC_COVER_ELSEWHERE && cells[k].by == by;
    if (!seen)
      fprintf(out, "%s%s", any++ ? ", " : "; also in ", by->id);
  }
}

/* What ran nowhere, grouped by why. Returns how many classes. */
static size_t print_not_run(const nc_cover_cell *cells, size_t n, FILE *out)
{
  const char *reasons[MAX_REASONS];
  size_t nreasons = 0, count = 0;
  for (size_t i = 0; i < n; i++) {
    if (cells[i].state != NC_COVER_NOT_RUN)
      continue;
    count++;
    const char *why = cells[i].why ? cells[i].why : "";
    size_t r = 0;
    while (r < nreasons && strcmp(reasons[r], why) != 0)
      r++;
    if (r == nreasons && nreasons < MAX_REASONS)
      reasons[nreasons++] = why;
  }
  if (count == n) {
    fprintf(out, "not run: %s", nreasons ? reasons[0] : "");
    return count;
  }
  for (size_t r = 0; r < nreasons; r++) {
    fprintf(out, "; not run: ");
    const char *dim = NULL;
    for (size_t i = 0; i < n; i++) {
      const nc_cover_cell *c = &cells[i];
      if (c->state != NC_COVER_NOT_RUN || strcmp(c->why ? c->why : "", reasons[r]) != 0)
        continue;
      if (dim && strcmp(dim, c->dimension) == 0)
        fprintf(out, ", %s", c->cls);
      else
        fprintf(out, "%s%s %s", dim ? "; " : "", c->dimension, c->cls);
      dim = c->dimension;
    }
    fprintf(out, " (%s)", reasons[r]);
  }
  return count;
}

void nc_report_print_coverage(const nc_report *r, FILE *out)
{
  int header = 0;
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    for (size_t from = 0; from < res->ncover;) {
      size_t to = op_end(res, from);
      const nc_cover_cell *cells = &res->cover[from];
      if (!header++)
        fprintf(out, "\ncoverage of the table ops' call space (classes run per dimension; the "
                     "JSON report lists each):\n");
      fprintf(out, "  %-17s %s %-5s ", cells[0].op, res->rule->id, nc_verdict_name(res->verdict));
      size_t n = to - from, missing = 0;
      int none_ran = 1;
      for (size_t k = 0; k < n; k++)
        none_ran &= cells[k].state != NC_COVER_RAN;
      if (!none_ran) {
        print_counts(cells, n, out);
        print_elsewhere(cells, n, out);
      }
      missing = print_not_run(cells, n, out);
      if (missing && res->verdict == NC_VERDICT_PASS)
        fprintf(out, " -- a PASS on part of the space");
      fputc('\n', out);
      from = to;
    }
  }
}
