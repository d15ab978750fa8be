/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *nc_strdupf(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    s = NULL;
  va_end(ap);
  return s;
}

const char *nc_verdict_name(nc_verdict v)
{
  static const char *const names[] = {"PASS", "FAIL", "WARN", "SKIP", "ERROR", "WAIVED"};
  return v >= 0 && v < NC_VERDICT_COUNT_ ? names[v] : "?";
}

const char *nc_severity_name(nc_severity s) { return s == NC_MUST ? "MUST" : "SHOULD"; }

nc_report *nc_report_new(void) { return calloc(1, sizeof(nc_report)); }

nc_result *nc_report_add(nc_report *r, const nc_rule_info *rule)
{
  nc_result *p = realloc(r->results, (r->nresults + 1) * sizeof(*p));
  if (!p)
    return NULL;
  r->results = p;
  nc_result *res = &r->results[r->nresults++];
  memset(res, 0, sizeof(*res));
  res->rule = rule;
  return res;
}

void nc_result_add_evidence(nc_result *res, const char *level, const char *call,
                            const char *expected, const char *observed)
{
  nc_evidence *p = realloc(res->evidence, (res->nevidence + 1) * sizeof(*p));
  if (!p)
    return;
  res->evidence = p;
  nc_evidence *e = &p[res->nevidence++];
  e->level = strdup(level ? level : "");
  e->call = strdup(call ? call : "");
  e->expected = strdup(expected ? expected : "");
  e->observed = strdup(observed ? observed : "");
}

static void set_reason_v(nc_result *res, const char *fmt, va_list ap)
{
  free(res->reason);
  if (vasprintf(&res->reason, fmt, ap) < 0)
    res->reason = NULL;
}

void nc_result_set_reason(nc_result *res, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  set_reason_v(res, fmt, ap);
  va_end(ap);
}

void nc_result_set_skip(nc_result *res, nc_skip_kind kind, const char *fmt, ...)
{
  res->verdict = NC_VERDICT_SKIP;
  res->skip = kind;
  va_list ap;
  va_start(ap, fmt);
  set_reason_v(res, fmt, ap);
  va_end(ap);
}

void nc_result_set_blocked(nc_result *res, const nc_rule_info *by, const char *why)
{
  res->verdict = NC_VERDICT_SKIP;
  res->skip = NC_SKIP_BLOCKED;
  res->blocked_by = by;
  free(res->blocked_why);
  res->blocked_why = strdup(why ? why : "");
  if (by)
    nc_result_set_reason(res, "blocked by %s: %s", by->id, why ? why : "");
  else
    nc_result_set_reason(res, "blocked: %s", why ? why : "");
}

void nc_result_set_refused(nc_result *res, const char *what)
{
  nc_result_set_blocked(res, NULL, what);
  nc_result_set_reason(res, "blocked by the refused config: %s", what ? what : "");
  res->refused = 1;
}

size_t nc_report_count(const nc_report *r, nc_verdict v)
{
  size_t n = 0;
  for (size_t i = 0; i < r->nresults; i++)
    n += r->results[i].verdict == v;
  return n;
}

size_t nc_report_count_skips(const nc_report *r, nc_skip_kind kind)
{
  size_t n = 0;
  for (size_t i = 0; i < r->nresults; i++)
    n += r->results[i].verdict == NC_VERDICT_SKIP && r->results[i].skip == kind;
  return n;
}

int nc_result_untested(const nc_result *res)
{
  if (res->verdict != NC_VERDICT_SKIP || res->skip == NC_SKIP_NOT_APPLICABLE)
    return 0;
  /* Blocked by a rule: that rule's FAIL is the verdict. Blocked by the
   * run's root cause (a refused config): nothing judged the rule. */
  return res->skip == NC_SKIP_UNTESTED || !res->blocked_by;
}

size_t nc_report_count_untested(const nc_report *r)
{
  size_t n = 0;
  for (size_t i = 0; i < r->nresults; i++)
    n += nc_result_untested(&r->results[i]);
  return n;
}

const char *nc_skip_kind_name(nc_skip_kind kind)
{
  switch (kind) {
  case NC_SKIP_NOT_APPLICABLE: return "not applicable";
  case NC_SKIP_BLOCKED: return "blocked";
  default: return "untested";
  }
}

const char *nc_skip_kind_label(nc_skip_kind kind)
{
  switch (kind) {
  case NC_SKIP_NOT_APPLICABLE: return "N/A";
  case NC_SKIP_BLOCKED: return "BLOCKED";
  default: return "UNTESTED";
  }
}

const char *nc_result_label(const nc_result *res)
{
  if (res->verdict == NC_VERDICT_SKIP)
    return nc_skip_kind_label(res->skip);
  return nc_verdict_name(res->verdict);
}

const char *nc_waived_from_label(const nc_result *res)
{
  if (res->waived_from == NC_VERDICT_SKIP)
    return nc_skip_kind_label(res->skip);
  return nc_verdict_name(res->waived_from);
}

/* The MUST rules the harness could not test and no waiver excused. */
static size_t untested_must(const nc_report *r)
{
  size_t n = 0;
  for (size_t i = 0; i < r->nresults; i++)
    n += r->results[i].rule->severity == NC_MUST && nc_result_untested(&r->results[i]);
  return n;
}

int nc_report_exit_code(const nc_report *r)
{
  if (r->interrupted)
    return 128 + r->interrupted; /* as a shell reports a process the signal ended */
  if (r->usage_error)
    return NC_EXIT_USAGE;
  if (r->error || r->harness_error)
    return NC_EXIT_HARNESS;
  size_t new_failures = 0;
  for (size_t i = 0; i < r->nresults; i++)
    new_failures += r->results[i].verdict == NC_VERDICT_FAIL && !r->results[i].known;
  if (new_failures > 0 || (r->strict && (nc_report_count(r, NC_VERDICT_WARN) > 0 ||
                                         r->gate_problems > 0)))
    return NC_EXIT_FAIL;
  /* A rule that could not be tested is not a pass: the run is incomplete. */
  if (nc_report_count(r, NC_VERDICT_ERROR) > 0 || untested_must(r) > 0)
    return NC_EXIT_INCOMPLETE;
  return NC_EXIT_PASS;
}

const char *nc_report_error(const nc_report *r) { return r->error; }

void nc_result_add_cover(nc_result *res, const char *op, const char *dimension, const char *cls,
                         nc_cover_state state, const char *why, const nc_rule_info *by)
{
  nc_cover_cell *cells = realloc(res->cover, (res->ncover + 1) * sizeof(*cells));
  if (!cells)
    return;
  res->cover = cells;
  nc_cover_cell *c = &cells[res->ncover];
  c->op = strdup(op);
  c->dimension = strdup(dimension);
  c->cls = strdup(cls);
  c->why = why && why[0] ? strdup(why) : NULL;
  c->state = state;
  c->by = by;
  if (c->op && c->dimension && c->cls)
    res->ncover++;
  else {
    free(c->op);
    free(c->dimension);
    free(c->cls);
    free(c->why);
  }
}

const char *nc_cover_state_name(nc_cover_state s)
{
  static const char *const names[] = {"ran", "elsewhere", "not run"};
  return s >= NC_COVER_RAN && s <= NC_COVER_NOT_RUN ? names[s] : "?";
}

void nc_result_release(nc_result *res)
{
  for (size_t i = 0; i < res->ncover; i++) {
    free(res->cover[i].op);
    free(res->cover[i].dimension);
    free(res->cover[i].cls);
    free(res->cover[i].why);
  }
  free(res->cover);
  for (size_t i = 0; i < res->nevidence; i++) {
    free(res->evidence[i].level);
    free(res->evidence[i].call);
    free(res->evidence[i].expected);
    free(res->evidence[i].observed);
  }
  free(res->evidence);
  for (size_t i = 0; i < res->nframes; i++)
    free(res->frames[i]);
  free(res->frames);
  free(res->reason);
  free(res->blocked_why);
  free(res->crash);
  free(res->output);
  free(res->reproduce);
  free(res->waiver);
  memset(res, 0, sizeof(*res));
}

void nc_report_free(nc_report *r)
{
  if (!r)
    return;
  for (size_t i = 0; i < r->nresults; i++)
    nc_result_release(&r->results[i]);
  free(r->results);
  for (size_t i = 0; i < r->ngate_notes; i++)
    free(r->gate_notes[i]);
  free(r->gate_notes);
  free(r->waivers_path);
  free(r->baseline_path);
  free(r->cuda);
  free(r->sandbox);
  free(r->refusal);
  for (size_t i = 0; i < r->nneeded; i++)
    free(r->needed[i]);
  free(r->needed);
  char *strings[] = {r->plugin_path,    r->plugin_name,  r->plugin_author, r->plugin_mode,
                     r->plugin_abi,     r->accepting_hosts, r->elf_class,  r->elf_machine,
                     r->elf_type,       r->elf_soname,   r->command_line,  r->factory_config,
                     r->table_config,   r->started_at,   r->note,          r->error,
                     r->profile};
  for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
    free(strings[i]);
  free(r);
}

int nc_report_usage_error(nc_report *r, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  free(r->error);
  if (vasprintf(&r->error, fmt, ap) < 0)
    r->error = NULL;
  va_end(ap);
  r->usage_error = 1;
  return -1;
}

static int same_evidence(const nc_evidence *a, const nc_evidence *b)
{
  return strcmp(a->level, b->level) == 0 && strcmp(a->call, b->call) == 0 &&
         strcmp(a->expected, b->expected) == 0 && strcmp(a->observed, b->observed) == 0;
}

/* The kind of an item: its level, operation (the call up to its
 * arguments) and expectation. */
static int same_kind(const nc_evidence *a, const nc_evidence *b)
{
  const char *pa = strstr(a->call, " ("), *pb = strstr(b->call, " (");
  size_t la = pa ? (size_t)(pa - a->call) : strlen(a->call);
  size_t lb = pb ? (size_t)(pb - b->call) : strlen(b->call);
  return la == lb && strncmp(a->call, b->call, la) == 0 && strcmp(a->level, b->level) == 0 &&
         strcmp(a->expected, b->expected) == 0;
}

static int by_position(const void *x, const void *y)
{
  const nc_evidence *a = ((const nc_evidence_line *)x)->e, *b = ((const nc_evidence_line *)y)->e;
  return a < b ? -1 : a > b;
}

size_t nc_evidence_lines(const nc_result *res, int with_notes,
                         nc_evidence_line lines[NC_EVIDENCE_SHOWN], size_t *more)
{
  size_t n = 0;
  *more = 0;
  /* First one line of every kind, so that no kind hides behind another;
   * then the rest in order while there is room. */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < res->nevidence; i++) {
      const nc_evidence *e = &res->evidence[i];
      if (!with_notes && strcmp(e->level, "note") == 0)
        continue;
      size_t k = 0, kind = n;
      while (k < n && !same_evidence(lines[k].e, e)) {
        if (kind == n && same_kind(lines[k].e, e))
          kind = k;
        k++;
      }
      if (k < n) { /* an identical line is shown: count it (once) */
        if (pass == 1 && lines[k].e != e)
          lines[k].times++;
        continue;
      }
      if (pass == 0 && kind < n)
        continue; /* its kind is shown: wait for the second pass */
      if (n < NC_EVIDENCE_SHOWN)
        lines[n++] = (nc_evidence_line){e, 1};
      else if (pass == 1)
        (*more)++;
    }
  qsort(lines, n, sizeof(*lines), by_position);
  return n;
}
