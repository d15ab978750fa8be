/* SPDX-License-Identifier: Apache-2.0 */
/* Turning what a case process reported (or how it died) into its rule's
 * verdict, and folding into each rule the violations its instrumentation
 * saw in the other cases of the run. */
#define _GNU_SOURCE
#include "verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_child.h"
#include "case_table.h"
#include "elf_info.h"
#include "evidence.h"
#include "reproduce.h"
#include "text.h"

char *nc_sanitized(const char *s)
{
  char *copy = strdup(s ? s : "");
  if (copy && !nc_utf8_valid(copy))
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
      if (*p >= 0x80)
        *p = '?';
  /* Control characters (ESC above all, and the C1 ones a terminal also
   * obeys) would reach a terminal from the text report, and bidirectional
   * overrides reorder what a reader sees: each one a '?'. What plugin code
   * wrote keeps its line breaks and tabs. */
  char *out = copy;
  for (const char *p = copy; copy && *p;) {
    size_t n = nc_text_unsafe_len(p);
    *out++ = n ? '?' : *p;
    p += n ? n : 1;
  }
  if (copy)
    *out = '\0';
  return copy;
}

/* A frame in the plugin that dladdr could not name ("x.so+0x10f7") gets its
 * function from the file's symbol table, which also lists static ones. */
static char *symbolized_frame(const char *frame, const nc_config *cfg)
{
  const char *base = strrchr(cfg->plugin_path, '/');
  base = base ? base + 1 : cfg->plugin_path;
  size_t blen = strlen(base);
  unsigned long offset;
  char sym[300];
  if (strncmp(frame, base, blen) == 0 && strncmp(frame + blen, "+0x", 3) == 0 &&
      !strchr(frame, '(') && sscanf(frame + blen + 3, "%lx", &offset) == 1 &&
      nc_elf_symbolize_file(cfg->plugin_path, offset, sym, sizeof(sym)) == 0)
    return nc_strdupf("%s (%s)", frame, sym);
  return nc_sanitized(frame);
}

/* The first evidence of a level; the caller knows one exists. */
static const nc_evidence *first_evidence(const nc_result *res, const char *level)
{
  for (size_t i = 0; i < res->nevidence; i++)
    if (strcmp(res->evidence[i].level, level) == 0)
      return &res->evidence[i];
  return &res->evidence[0];
}

/* "TBL-08,TBL-06" into res's candidate owners. */
static void read_owners(const char *list, nc_result *res)
{
  char copy[128];
  res->owner_proven = list[0] == '!';
  snprintf(copy, sizeof(copy), "%s", list + res->owner_proven);
  res->nfailure_owners = 0;
  for (char *save = NULL, *id = strtok_r(copy, ",", &save);
       id && res->nfailure_owners < NC_RESULT_OWNERS; id = strtok_r(NULL, ",", &save)) {
    int r = nc_rule_parse(id);
    if (r >= 0)
      res->failure_owners[res->nfailure_owners++] = &nc_rule_defs[r].info;
  }
}

/* A COVER record (evidence.h) into res's coverage. */
static void take_cover(nc_result *res, const nc_record *rec)
{
  const char *state = rec->fields[3];
  nc_cover_state st = strcmp(state, "ran") == 0         ? NC_COVER_RAN
                      : strcmp(state, "elsewhere") == 0 ? NC_COVER_ELSEWHERE
                                                        : NC_COVER_NOT_RUN;
  int by = nc_rule_parse(rec->fields[5]);
  nc_result_add_cover(res, rec->fields[0], rec->fields[1], rec->fields[2], st, rec->fields[4],
                      st == NC_COVER_ELSEWHERE && by >= 0 ? &nc_rule_defs[by].info : NULL);
}

/* Which evidence lines are failures other rules own (nc_fail_owned_by). */
typedef struct owned_lines {
  unsigned char *flags; /* one per evidence line, 1: owned */
  size_t n;
} owned_lines;

static void mark_owned(owned_lines *o, size_t index)
{
  if (index >= o->n) {
    unsigned char *p = realloc(o->flags, index + 64);
    if (!p)
      return;
    memset(p + o->n, 0, index + 64 - o->n);
    o->flags = p;
    o->n = index + 64;
  }
  o->flags[index] = 1;
}

/* Stable: the case's own failures, then the rest (notes and the failures
 * other rules own), so that the first lines a reader sees are its own. */
static void own_failures_first(nc_result *res, const owned_lines *o)
{
  if (!o->flags || !res->nevidence)
    return;
  nc_evidence *sorted = malloc(res->nevidence * sizeof(*sorted));
  if (!sorted)
    return;
  size_t k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < res->nevidence; i++) {
      int mine = strcmp(res->evidence[i].level, NC_LEVEL_FAIL) == 0 &&
                 !(i < o->n && o->flags[i]);
      if (mine == (pass == 0))
        sorted[k++] = res->evidence[i];
    }
  memcpy(res->evidence, sorted, res->nevidence * sizeof(*sorted));
  free(sorted);
}

/* Records without the case's key: plugin code wrote to the harness's
 * channel. Nothing the case reported can be trusted. */
static void judge_forged(nc_result *res, const nc_child_result *cr)
{
  char observed[200];
  snprintf(observed, sizeof(observed), "%zu record%s without the case's key (plugin code "
           "writing to a descriptor it does not own)", cr->forged, cr->forged == 1 ? "" : "s");
  nc_result_add_evidence(res, NC_LEVEL_FAIL, "the result channel", "only the harness's records",
                         observed);
  nc_result_set_reason(res, "the result channel was tampered with: %s", observed);
  res->verdict = NC_VERDICT_FAIL;
}

/* What a case's records said, counted: the verdict follows from it. */
typedef struct case_tally {
  owned_lines owned;    /* evidence lines other rules own */
  int nfail, nwarn, nerror, settled, crashed_in_plugin;
  int opened;           /* an OPENED record: plugin code was in the process */
  int nowned;           /* failures other rules own */
  int owner;            /* the rule a BLOCKED record names, or -1 */
  int crash_owner;      /* the rule owning the call that crashed, or -1 */
  const char *skip, *blocked;
  nc_skip_kind skip_kind;
  char *refusal;        /* the first refusal of the run's config */
} case_tally;

static void take_refusal(case_tally *t, const nc_record *rec)
{
  char *msg = nc_sanitized(rec->fields[3]), *config = nc_sanitized(rec->fields[1]);
  t->refusal = nc_strdupf("%s with config %.300s: status %s (%.300s)", rec->fields[0], config,
                          rec->fields[2], msg[0] ? msg : "no message");
  free(msg);
  free(config);
}

static void take_check(nc_result *res, case_tally *t, const nc_record *rec)
{
  const char *level = rec->fields[0];
  char *obs = nc_sanitized(rec->fields[3]);
  nc_result_add_evidence(res, level, rec->fields[1], rec->fields[2], obs);
  free(obs);
  if (rec->nfields >= 5 && strcmp(level, NC_LEVEL_FAIL) == 0) { /* nc_fail_owned_by */
    if (!t->nowned++)
      read_owners(rec->fields[4], res);
    mark_owned(&t->owned, res->nevidence - 1);
    return;
  }
  t->nfail += strcmp(level, NC_LEVEL_FAIL) == 0;
  t->nwarn += strcmp(level, NC_LEVEL_WARN) == 0;
  t->nerror += strcmp(level, NC_LEVEL_ERROR) == 0;
}

static void take_crash(nc_result *res, case_tally *t, const nc_record *rec)
{
  free(res->crash);
  res->crash = nc_strdupf("%s in %s %s", nc_signal_name(atoi(rec->fields[0])),
                          rec->fields[1][0] ? rec->fields[1] : "harness code", rec->fields[2]);
  t->crashed_in_plugin = rec->fields[1][0] != '\0';
  t->crash_owner = rec->nfields >= 4 && t->crashed_in_plugin ? nc_rule_parse(rec->fields[3])
                                                               : -1;
}

/* Every record up to SETTLED into res's evidence and t's counts. */
static void read_records(nc_result *res, case_tally *t, const nc_child_result *cr,
                         const nc_config *cfg)
{
  for (size_t i = 0; i < cr->nrecords && !t->settled; i++) {
    const nc_record *rec = &cr->records[i];
    const char *f0 = rec->nfields > 0 ? rec->fields[0] : "";
    if (strcmp(rec->tag, "SETTLED") == 0) {
      t->settled = 1;
    } else if (strcmp(rec->tag, NC_TAG_OPENED) == 0) {
      t->opened = 1;
    } else if (strcmp(rec->tag, NC_TAG_COVER) == 0 && rec->nfields >= 6) {
      take_cover(res, rec);
    } else if (strcmp(rec->tag, "SKIP") == 0) {
      t->skip = f0;
      t->skip_kind = rec->nfields >= 2 && strcmp(rec->fields[1], NC_SKIP_WORD_NA) == 0
                         ? NC_SKIP_NOT_APPLICABLE
                         : NC_SKIP_UNTESTED;
    } else if (strcmp(rec->tag, NC_TAG_REFUSED) == 0 && rec->nfields >= 4 && !t->refusal) {
      take_refusal(t, rec);
    } else if (strcmp(rec->tag, NC_TAG_BLOCKED) == 0 && rec->nfields >= 2 && !t->blocked) {
      t->owner = nc_rule_parse(f0);
      t->blocked = rec->fields[1];
    } else if (strcmp(rec->tag, "CHECK") == 0 && rec->nfields >= 4) {
      take_check(res, t, rec);
    } else if (strcmp(rec->tag, "CRASH") == 0 && rec->nfields >= 3) {
      take_crash(res, t, rec);
    } else if (strcmp(rec->tag, "FRAME") == 0 && rec->nfields >= 1) {
      char **p = realloc(res->frames, (res->nframes + 1) * sizeof(*p));
      if (p) {
        res->frames = p;
        res->frames[res->nframes++] = symbolized_frame(f0, cfg);
      }
    }
  }
}

/* A case that did not finish: the plugin's fault (a crash, an exit, a
 * hang in its code, a lost channel), or the harness's. */
static void judge_unfinished(nc_result *res, const case_tally *t, const nc_child_result *cr,
                             const nc_config *cfg)
{
  if (t->nerror && cr->exit_code == NC_CHILD_EXIT_NO_RUNNER) {
    res->verdict = NC_VERDICT_ERROR;
    nc_result_set_reason(res, "could not check: %s", first_evidence(res, NC_LEVEL_ERROR)->observed);
    return;
  }
  const char *phase = cr->phase;
  char how[256];
  nc_child_describe_end(cr, cfg->timeout_s, how, sizeof(how));
  /* The harness sends a case one signal, SIGKILL, at the deadline or for a
   * flood; any other end by a signal once the plugin was opened is the
   * plugin's (a timer it armed, a kill of its own, the limits it hit). */
  int foreign = t->opened && cr->signo && !cr->timed_out && !cr->flooded;
  int in_plugin = phase[0] != '\0' || t->crashed_in_plugin || foreign;
  if (!in_plugin && !cr->flooded && (cr->signo || cr->timed_out)) {
    nc_result_set_reason(res, "the harness itself %s outside plugin code", how);
    res->verdict = NC_VERDICT_ERROR;
    return;
  }
  /* Exits and lost channels come from plugin code (a destructor, a thread
   * it left running): the harness does neither. */
  const char *who = phase[0] ? phase
                    : t->crashed_in_plugin || !foreign
                        ? "plugin code"
                        : "the case, with the plugin loaded (a signal the harness never sends),";
  nc_result_add_evidence(res, NC_LEVEL_FAIL, who, "returns normally", how);
  nc_result_set_reason(res, "%s %s", who, how);
  /* The plugin's verdict, at the rule's severity (a SHOULD rule warns). */
  res->verdict = res->rule->severity == NC_MUST ? NC_VERDICT_FAIL : NC_VERDICT_WARN;
  /* A crash in an op another rule owns (an erase made by TBL-02's sweep):
   * that rule's defect, if it fails on its own too. */
  if (t->crash_owner >= 0 && &nc_rule_defs[t->crash_owner].info != res->rule) {
    res->failure_owners[0] = &nc_rule_defs[t->crash_owner].info;
    res->nfailure_owners = 1;
  } else {
    res->nfailure_owners = 0; /* its own */
  }
  res->owner_proven = 0; /* a crash is no control's proof */
}

/* A case that finished: its failures first, then a block, the run's
 * refusal, a harness error, warnings, a skip, else a pass. */
static void judge_finished(nc_result *res, case_tally *t)
{
  const nc_evidence *e;
  if (t->nfail) {
    res->nfailure_owners = 0; /* its own failure: nothing to charge elsewhere */
    own_failures_first(res, &t->owned); /* what other rules own is theirs to show */
  }
  if (t->nfail || t->nowned) {
    res->verdict = res->rule->severity == NC_MUST ? NC_VERDICT_FAIL : NC_VERDICT_WARN;
    e = first_evidence(res, NC_LEVEL_FAIL);
    nc_result_set_reason(res, "%s: %s (expected %s)", e->call, e->observed, e->expected);
  } else if (t->blocked) {
    /* Another rule's defect kept the case from judging its own. */
    char *why = nc_sanitized(t->blocked);
    nc_result_set_blocked(res, t->owner >= 0 ? &nc_rule_defs[t->owner].info : NULL, why);
    free(why);
  } else if (t->refusal) {
    nc_result_set_refused(res, t->refusal); /* the run's root cause */
  } else if (t->nerror) {
    res->verdict = NC_VERDICT_ERROR;
    e = first_evidence(res, NC_LEVEL_ERROR);
    nc_result_set_reason(res, "could not check: %s", e->observed);
  } else if (t->nwarn) {
    res->verdict = NC_VERDICT_WARN;
    e = first_evidence(res, NC_LEVEL_WARN);
    nc_result_set_reason(res, "%s: %s (should be %s)", e->call, e->observed, e->expected);
  } else if (t->skip) {
    nc_result_set_skip(res, t->skip_kind, "%s", t->skip);
  } else {
    res->verdict = NC_VERDICT_PASS;
  }
}

void nc_derive_result(nc_result *res, const nc_child_result *cr, const nc_config *cfg)
{
  if (cr->forged) {
    judge_forged(res, cr);
    return;
  }
  case_tally t;
  memset(&t, 0, sizeof(t));
  t.owner = t.crash_owner = -1;
  t.skip_kind = NC_SKIP_UNTESTED;
  read_records(res, &t, cr, cfg);
  if (!cr->ended && !t.settled)
    judge_unfinished(res, &t, cr, cfg);
  else
    judge_finished(res, &t);
  free(t.owned.flags);
  free(t.refusal);
}


/* ---- run-wide evidence --------------------------------------------------------- */

/* Lines of run-wide evidence kept per rule; the rest are counted. */
#define FOLDED_LINES 20

static int same(const nc_observation *o, nc_rule rule, nc_rule seen_in, const char *text)
{
  return o->rule == rule && o->seen_in == seen_in && strcmp(o->text, text) == 0;
}

void nc_observations_take(nc_observations *obs, const nc_child_result *cr)
{
  for (size_t i = 0; i < cr->nrecords; i++) {
    const nc_record *rec = &cr->records[i];
    if (strcmp(rec->tag, NC_TAG_VCOUNT) == 0 && rec->nfields >= 2) {
      int rule = nc_rule_parse(rec->fields[0]);
      if (rule >= 0)
        obs->counts[rule] += strtoul(rec->fields[1], NULL, 10);
      continue;
    }
    if (strcmp(rec->tag, NC_TAG_VIOLATION) != 0 || rec->nfields < 5)
      continue;
    int rule = nc_rule_parse(rec->fields[0]), seen_in = nc_rule_parse(rec->fields[2]);
    if (rule < 0 || seen_in < 0)
      continue;
    nc_observation *found = NULL;
    for (size_t k = 0; k < obs->n && !found; k++)
      if (same(&obs->list[k], (nc_rule)rule, (nc_rule)seen_in, rec->fields[1]))
        found = &obs->list[k];
    if (found) {
      found->times++;
      continue;
    }
    if (obs->n == obs->cap) {
      size_t cap = obs->cap ? obs->cap * 2 : 16;
      nc_observation *p = realloc(obs->list, cap * sizeof(*p));
      if (!p)
        return;
      obs->list = p;
      obs->cap = cap;
    }
    obs->list[obs->n++] = (nc_observation){(nc_rule)rule, (nc_rule)seen_in,
                                           nc_sanitized(rec->fields[1]),
                                           nc_sanitized(rec->fields[3]), strdup(rec->fields[4]), 1};
  }
}

void nc_observations_fold(const nc_observations *obs, nc_report *r)
{
  for (size_t i = 0; i < r->nresults; i++) {
    nc_result *res = &r->results[i];
    int rule = nc_rule_parse(res->rule->id);
    size_t lines = 0, total = 0;
    const nc_observation *first = NULL;
    /* What the rule's own case saw, its case reports; but a case that
     * passed did not see what its children saw (isolated calls, sweep
     * steps), so then those count too. */
    int own_reported = res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN;
    for (size_t k = 0; k < obs->n; k++) {
      const nc_observation *o = &obs->list[k];
      if ((int)o->rule != rule || ((int)o->seen_in == rule && own_reported))
        continue;
      total += o->times;
      if (!first)
        first = o;
      if (lines++ >= FOLDED_LINES)
        continue;
      char call[300], observed[900];
      snprintf(call, sizeof(call), "seen during %s (%s, thread %s)", nc_rule_text(o->seen_in),
               o->callback[0] ? o->callback : "harness code", o->thread);
      if (o->times > 1)
        snprintf(observed, sizeof(observed), "%s (%zu times)", o->text, o->times);
      else
        snprintf(observed, sizeof(observed), "%s", o->text);
      nc_result_add_evidence(res, NC_LEVEL_FAIL, call, res->rule->title, observed);
    }
    if (!first)
      continue;
    if (lines > FOLDED_LINES)
      nc_result_add_evidence(res, NC_LEVEL_NOTE, "seen during other cases", res->rule->title,
                             "... and more of the same kind");
    if (res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN)
      continue;
    res->verdict = res->rule->severity == NC_MUST ? NC_VERDICT_FAIL : NC_VERDICT_WARN;
    char *line = (int)first->seen_in == rule
                     ? NULL
                     : nc_reproduce_also(res->reproduce, nc_rule_text(first->seen_in));
    if (line) { /* the rule's case alone would not see it */
      free(res->reproduce);
      res->reproduce = line;
    }
    nc_result_set_reason(res, "%s (seen during %s, in %s; %zu observation%s in the run)",
                         first->text, nc_rule_text(first->seen_in),
                         first->callback[0] ? first->callback : "harness code", total,
                         total == 1 ? "" : "s");
  }
}

/* The result of rule in r, or NULL when it was not selected. */
static nc_result *result_of(nc_report *r, const nc_rule_info *rule)
{
  for (size_t i = 0; i < r->nresults; i++)
    if (r->results[i].rule == rule)
      return &r->results[i];
  return NULL;
}

static int failed(const nc_result *res)
{
  return res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN;
}

/* The result that a failure owned by owner is charged to: owner's, when
 * it failed on its own; when owner's own failures belong to yet another
 * rule, that rule's in turn (or owner's, when the chain ends in one that
 * holds). NULL when owner holds or is not selected. Reads the verdicts as
 * the cases left them. path[0..depth) are the results the chain came
 * through: where it comes back to one of them, the failures blame each
 * other round a cycle (two views, each charging the other's op), and the
 * first of the cycle in rule order is charged, so that every case of the
 * cycle reads the same one root cause. */
static nc_result *charged(nc_report *r, const nc_rule_info *owner, nc_result **path, int depth);

/* The first of res's candidate owners that is charged. */
static nc_result *charged_any(nc_report *r, nc_result *res, nc_result **path, int depth)
{
  if (depth > NC_RULE_COUNT)
    return NULL;
  path[depth] = res;
  for (int i = 0; i < res->nfailure_owners; i++) {
    nc_result *o = charged(r, res->failure_owners[i], path, depth + 1);
    if (o)
      return o;
  }
  return NULL;
}

static nc_result *charged(nc_report *r, const nc_rule_info *owner, nc_result **path, int depth)
{
  nc_result *o = result_of(r, owner);
  if (!o || !failed(o))
    return NULL;
  for (int k = 0; k < depth; k++)
    if (path[k] == o) { /* a cycle: path[k..depth) */
      nc_result *first = o;
      for (int m = k; m < depth; m++)
        first = strcmp(path[m]->rule->id, first->rule->id) < 0 ? path[m] : first;
      return first;
    }
  if (!o->nfailure_owners)
    return o;
  nc_result *further = charged_any(r, o, path, depth);
  return further ? further : o;
}

static int rule_index(const nc_rule_info *rule)
{
  for (int i = 0; i < NC_RULE_COUNT; i++)
    if (&nc_rule_defs[i].info == rule)
      return i;
  return NC_RULE_COUNT;
}

static int by_rule_order(const void *a, const void *b)
{
  return rule_index(((const nc_result *)a)->rule) - rule_index(((const nc_result *)b)->rule);
}

void nc_join_proven_owners(nc_report *r, int (*could_run)(const nc_rule_info *, void *),
                           void *arg)
{
  size_t n = r->nresults;
  for (size_t i = 0; i < n; i++) {
    const nc_result *res = &r->results[i];
    if (!res->owner_proven || res->nfailure_owners != 1 || !failed(res) ||
        result_of(r, res->failure_owners[0]) ||
        (could_run && !could_run(res->failure_owners[0], arg)))
      continue;
    const nc_rule_info *owner = res->failure_owners[0];
    char *line = nc_reproduce_also(res->reproduce, owner->id);
    nc_result *o = nc_report_add(r, owner);
    if (!o) {
      free(line);
      break;
    }
    o->verdict = NC_VERDICT_PASS; /* until take_proven fails it */
    o->not_selected = 1;
    o->reproduce = line;
  }
  if (r->nresults > n)
    qsort(r->results, r->nresults, sizeof(*r->results), by_rule_order);
}

/* The owner of res's proven failure, made to fail by it when it passed in
 * its own case (or joined the report for it); NULL when it did not run or
 * could not judge. */
static nc_result *take_proven(nc_report *r, const nc_result *res)
{
  nc_result *o = result_of(r, res->failure_owners[0]);
  if (!o || !(o->executed || o->not_selected) || (o->verdict != NC_VERDICT_PASS && !failed(o)))
    return NULL;
  if (failed(o))
    return o; /* another case's proof got there first */
  const nc_evidence *e = first_evidence(res, NC_LEVEL_FAIL);
  o->verdict = o->rule->severity == NC_MUST ? NC_VERDICT_FAIL : NC_VERDICT_WARN;
  nc_result_set_reason(o, "%s: %s (expected %s; seen during %s%s)", e->call, e->observed,
                       e->expected, res->rule->id,
                       o->not_selected ? "; not selected, this rule is in the report because "
                                         "that case proved the defect its" : "");
  char call[240];
  snprintf(call, sizeof(call), "%s, during %s", e->call, res->rule->id);
  nc_result_add_evidence(o, NC_LEVEL_FAIL, call, e->expected, e->observed);
  /* Its own case alone would not see it (a joined rule's line already
   * selects both). */
  char *line = o->not_selected ? NULL : nc_reproduce_also(o->reproduce, res->rule->id);
  if (line) {
    free(o->reproduce);
    o->reproduce = line;
  }
  return o;
}

void nc_attribute_blocks(nc_report *r)
{
  nc_result **to = calloc(r->nresults ? r->nresults : 1, sizeof(*to));
  nc_result *path[NC_RULE_COUNT + 1];
  if (!to)
    return;
  /* A defect a control proved to be a rule's that held in its own case
   * (or joined the report for it): that rule fails with the evidence (its
   * case did not make such a call). All of these go first, so that every
   * chain of blame below ends in a rule that failed: a case charged to one
   * whose proof makes a later rule fail is blocked by that later rule, in
   * whatever order the rules come. */
  for (size_t i = 0; i < r->nresults; i++) {
    nc_result *res = &r->results[i];
    if (res->owner_proven && res->nfailure_owners == 1 && failed(res))
      take_proven(r, res);
  }
  for (size_t i = 0; i < r->nresults; i++)
    if (r->results[i].nfailure_owners && failed(&r->results[i]))
      to[i] = charged_any(r, &r->results[i], path, 0);
  for (size_t i = 0; i < r->nresults; i++) {
    nc_result *res = &r->results[i], *o = to[i];
    if (!o || o == res)
      continue; /* the owner holds: the defect shows only in this case */
    const nc_evidence *e = first_evidence(res, NC_LEVEL_FAIL);
    char *why = nc_strdupf("%s: %s (expected %s)", e->call, e->observed, e->expected);
    nc_result_set_blocked(res, o->rule, why);
    free(why);
    char call[200];
    snprintf(call, sizeof(call), "seen during %s (%s)", res->rule->id, e->call);
    nc_result_add_evidence(o, NC_LEVEL_NOTE, call, e->expected, e->observed);
  }
  free(to);
}

/* A case blocked by a rule that did not fail in this report (it was not
 * selected, or no rule owns the blocker) must not read as a clean skip. */
void nc_settle_unowned_blocks(nc_report *r)
{
  for (size_t i = 0; i < r->nresults; i++) {
    nc_result *res = &r->results[i];
    if (res->verdict != NC_VERDICT_SKIP || res->skip != NC_SKIP_BLOCKED || res->refused)
      continue; /* a refusal is the run's root cause, owned by no rule */
    const nc_result *owner = NULL;
    for (size_t k = 0; k < r->nresults && res->blocked_by; k++)
      if (r->results[k].rule == res->blocked_by)
        owner = &r->results[k];
    if (owner && (owner->verdict == NC_VERDICT_FAIL || owner->verdict == NC_VERDICT_WARN))
      continue;
    if (!owner) { /* not selected, or no rule owns the block */
      res->verdict = NC_VERDICT_ERROR;
      continue;
    }
    /* The owner held in its own case: the case saw something no rule has
     * confirmed, and cannot decide. */
    nc_result_set_skip(res, NC_SKIP_UNTESTED, "inconclusive: %s: %s (%s passed in its own case)",
                       owner->rule->id, res->blocked_why ? res->blocked_why : "",
                       owner->rule->id);
    res->blocked_by = NULL;
  }
}

void nc_settle_coverage(nc_report *r)
{
  for (size_t i = 0; i < r->nresults; i++)
    for (size_t k = 0; k < r->results[i].ncover; k++) {
      nc_cover_cell *cell = &r->results[i].cover[k];
      if (cell->state != NC_COVER_ELSEWHERE)
        continue;
      const nc_result *by = result_of(r, cell->by);
      if (by && by->executed && by->verdict != NC_VERDICT_SKIP)
        continue;
      if (by && by->not_selected)
        by = NULL; /* joined the report by a proof: its case did not run */
      char *why = nc_strdupf("%s: %s, whose case makes such calls, %s", cell->why ? cell->why : "",
                             cell->by ? cell->by->id : "another rule",
                             by ? "did not get to make them" : "was not selected");
      free(cell->why);
      cell->why = why;
      cell->state = NC_COVER_NOT_RUN;
      cell->by = NULL;
    }
}

void nc_find_refusal(nc_report *r)
{
  for (size_t i = 0; i < r->nresults && !r->refusal; i++)
    if (r->results[i].verdict == NC_VERDICT_SKIP && r->results[i].refused)
      r->refusal = strdup(r->results[i].blocked_why ? r->results[i].blocked_why : "");
}

void nc_observations_free(nc_observations *obs)
{
  for (size_t i = 0; i < obs->n; i++) {
    free(obs->list[i].text);
    free(obs->list[i].callback);
    free(obs->list[i].thread);
  }
  free(obs->list);
  memset(obs, 0, sizeof(*obs));
}
