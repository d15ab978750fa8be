/* SPDX-License-Identifier: Apache-2.0 */
/* The coverage section of the text report: one line per table op, saying
 * how many classes of each dimension of its call space ran, which ran in
 * other rules' cases, and which ran nowhere and why. A PASS on part of
 * the space says so: a vendor weighs it by what was tried. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "rules.h"

#define MAX_REASONS 8

/* Cells [from, to) of res are one op's. */
static size_t op_end(const nc_result *res, size_t from)
{
  size_t to = from;
  while (to < res->ncover && strcmp(res->cover[to].op, res->cover[from].op) == 0)
    to++;
  return to;
}

/* Per dimension, the classes covered (run here, or in the rule's case
 * that makes such calls) of all: a class run elsewhere is not missing. */
static void print_counts(const nc_cover_cell *cells, size_t n, FILE *out)
{
  for (size_t i = 0; i < n;) {
    size_t j = i, covered = 0;
    for (; j < n && strcmp(cells[j].dimension, cells[i].dimension) == 0; j++)
      covered += cells[j].state != NC_COVER_NOT_RUN;
    fprintf(out, "%s%s %zu/%zu", i ? ", " : "", cells[i].dimension, covered, j - i);
    i = j;
  }
}

/* The rules whose cases made what the sweep did not, each once; not the
 * sweeping rule itself (its case made them outside the sweep). */
static void print_elsewhere(const nc_cover_cell *cells, size_t n, const nc_rule_info *sweeper,
                            FILE *out)
{
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    const nc_rule_info *by = cells[i].by;
    if (cells[i].state != NC_COVER_ELSEWHERE || !by || by == sweeper)
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

/* The result of the rule that sweeps an op, or NULL (not selected, or
 * joined the report by another case's proof: its case made no sweep). */
static const nc_result *sweeper(const nc_report *r, const nc_swept_op *op)
{
  for (size_t i = 0; i < r->nresults; i++)
    if (r->results[i].rule == &nc_rule_defs[op->rule].info && !r->results[i].not_selected)
      return &r->results[i];
  return NULL;
}

int nc_result_unswept(const nc_result *res, size_t o)
{
  if (res->not_selected || res->rule != &nc_rule_defs[nc_swept_ops[o].rule].info)
    return 0;
  for (size_t k = 0; k < res->ncover; k++)
    if (strcmp(res->cover[k].op, nc_swept_ops[o].name) == 0)
      return 0;
  return 1;
}

/* The cells of the op in res: [*from, return). */
static size_t op_cells(const nc_result *res, const char *op, size_t *from)
{
  for (size_t i = 0; i < res->ncover; i = op_end(res, i))
    if (strcmp(res->cover[i].op, op) == 0) {
      *from = i;
      return op_end(res, i);
    }
  *from = 0;
  return 0;
}

void nc_report_print_coverage(const nc_report *r, FILE *out)
{
  int header = 0;
  for (size_t o = 0; !r->error && o < nc_swept_op_count; o++) {
    const nc_swept_op *op = &nc_swept_ops[o];
    const nc_result *res = sweeper(r, op);
    if (!res)
      continue; /* not selected */
    if (!header++)
      fprintf(out, "\ncoverage of the table ops' call space (classes run per dimension, here or "
                   "in the case named; the JSON report lists each):\n");
    fprintf(out, "  %-17s %s %-8s ", op->name, res->rule->id, nc_result_label(res));
    size_t from, to = op_cells(res, op->name, &from), n = to - from;
    if (!n) { /* its case made no sweep: why is its verdict's reason */
      fprintf(out, "not run: %s\n", res->reason ? res->reason : "its case made no sweep");
      continue;
    }
    const nc_cover_cell *cells = &res->cover[from];
    int none_ran = 1;
    for (size_t k = 0; k < n; k++)
      none_ran &= cells[k].state != NC_COVER_RAN;
    if (!none_ran) {
      print_counts(cells, n, out);
      print_elsewhere(cells, n, res->rule, out);
    }
    size_t missing = print_not_run(cells, n, out);
    if (missing && res->verdict == NC_VERDICT_PASS)
      fprintf(out, " -- a PASS on part of the space");
    fputc('\n', out);
  }
}
