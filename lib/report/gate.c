/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "gate.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "atomic_file.h"
#include "date.h"
#include "json_strict.h"
#include "rules.h"

/* Rules a host cannot survive (the rule table marks them NC_FIXED): broken,
 * they crash it, corrupt it, or make it refuse the plugin. No waiver
 * applies to them. */
int nc_rule_waivable(const char *id)
{
  int rule = nc_rule_parse(id);
  return rule < 0 || nc_rule_defs[rule].waivable;
}

static void add_note(nc_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(nc_report *r, const char *fmt, ...)
{
  char **p = realloc(r->gate_notes, (r->ngate_notes + 1) * sizeof(*p));
  if (!p)
    return;
  r->gate_notes = p;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&r->gate_notes[r->ngate_notes], fmt, ap) >= 0)
    r->ngate_notes++;
  va_end(ap);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* A member that must be a string when present; -1 with err otherwise. */
static int optional_string(const cJSON *obj, const char *name, const char **out, int index,
                           char *err, size_t errlen)
{
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
  *out = NULL;
  if (!item)
    return 0;
  if (!cJSON_IsString(item)) {
    snprintf(err, errlen, "waiver #%d: \"%s\" must be a string", index, name);
    return -1;
  }
  *out = item->valuestring;
  return 0;
}

/* ---- waivers ---------------------------------------------------------------------- */

static int read_waiver(const cJSON *w, int index, nc_waiver *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof(*out));
  out->expires_day = -1;
  if (!cJSON_IsObject(w)) {
    snprintf(err, errlen, "waiver #%d is not a JSON object", index);
    return -1;
  }
  /* A misspelt member ("expire") would silently drop what it meant. */
  static const char *const known[] = {"rules",      "reason",        "issue",
                                      "expires",    "plugin_sha256", "plugin_abi"};
  for (const cJSON *m = w->child; m; m = m->next) {
    size_t k = 0;
    while (k < sizeof(known) / sizeof(known[0]) && strcmp(m->string, known[k]) != 0)
      k++;
    if (k == sizeof(known) / sizeof(known[0])) {
      snprintf(err, errlen, "waiver #%d: unknown member \"%.40s\" (a waiver has rules, reason, "
               "issue, expires, plugin_sha256 and plugin_abi)", index, m->string);
      return -1;
    }
  }
  const cJSON *rules = cJSON_GetObjectItemCaseSensitive(w, "rules");
  int count = cJSON_IsString(rules) ? 1 : cJSON_IsArray(rules) ? cJSON_GetArraySize(rules) : 0;
  if (count == 0) {
    snprintf(err, errlen, "waiver #%d: \"rules\" must name at least one rule", index);
    return -1;
  }
  const char *reason, *issue, *sha, *abi, *expires;
  if (optional_string(w, "reason", &reason, index, err, errlen) != 0 ||
      optional_string(w, "issue", &issue, index, err, errlen) != 0 ||
      optional_string(w, "plugin_sha256", &sha, index, err, errlen) != 0 ||
      optional_string(w, "plugin_abi", &abi, index, err, errlen) != 0 ||
      optional_string(w, "expires", &expires, index, err, errlen) != 0)
    return -1;
  if (!reason || !*reason) {
    snprintf(err, errlen, "waiver #%d: a waiver needs a \"reason\"", index);
    return -1;
  }
  if (expires && nc_date_parse(expires, &out->expires_day) != 0) {
    snprintf(err, errlen, "waiver #%d: \"expires\" must be a calendar date YYYY-MM-DD (got \"%.40s\")",
             index, expires);
    return -1;
  }
  out->rules = calloc((size_t)count, sizeof(char *));
  if (!out->rules) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  /* Walked, never indexed: a cJSON array is a list. */
  const cJSON *g = cJSON_IsString(rules) ? rules : rules->child;
  for (int k = 0; k < count; k++, g = cJSON_IsString(rules) ? NULL : g->next) {
    if (!cJSON_IsString(g) || !*g->valuestring) {
      snprintf(err, errlen, "waiver #%d: \"rules\" holds something that is not a rule or glob",
               index);
      return -1;
    }
    out->rules[out->nrules++] = strdup(g->valuestring);
  }
  out->reason = strdup(reason);
  out->issue = dup_or_null(issue);
  out->plugin_sha256 = dup_or_null(sha);
  out->plugin_abi = dup_or_null(abi);
  out->expires = dup_or_null(expires);
  return 0;
}

static void waiver_free(nc_waiver *w)
{
  for (size_t i = 0; i < w->nrules; i++)
    free(w->rules[i]);
  free(w->rules);
  free(w->reason);
  free(w->issue);
  free(w->plugin_sha256);
  free(w->plugin_abi);
  free(w->expires);
}

void nc_waivers_free(nc_waivers *w)
{
  for (size_t i = 0; i < w->n; i++)
    waiver_free(&w->list[i]);
  free(w->list);
  memset(w, 0, sizeof(*w));
}

/* The JSON document in the file at path (a waivers file, a baseline), or
 * NULL with why in err: the file cannot be read, or where its JSON breaks. */
static cJSON *read_json_input(const char *path, const char *what, char *err, size_t errlen)
{
  char why[600];
  char *text = nc_read_file(path, why, sizeof(why));
  if (!text) {
    snprintf(err, errlen, "%s: %s", what, why);
    return NULL;
  }
  cJSON *root = nc_json_parse_strict(text, why, sizeof(why));
  if (!root)
    snprintf(err, errlen, "%s '%s' is not valid JSON (%s)", what, path, why);
  free(text);
  return root;
}

int nc_waivers_load(const char *path, nc_waivers *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof(*out));
  cJSON *root = read_json_input(path, "waivers", err, errlen);
  if (!root)
    return -1;
  const cJSON *list = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "waivers");
  if (!cJSON_IsArray(list)) {
    cJSON_Delete(root);
    snprintf(err, errlen, "waivers '%s': expected a JSON array or {\"waivers\": [...]}", path);
    return -1;
  }
  int count = cJSON_GetArraySize(list), rc = 0;
  for (const cJSON *m = cJSON_IsArray(root) ? NULL : root->child; m && rc == 0; m = m->next)
    if (strcmp(m->string, "waivers") != 0) {
      snprintf(err, errlen, "waivers '%s': unknown member \"%.40s\" (the file holds "
               "{\"waivers\": [...]})", path, m->string);
      rc = -1;
    }
  out->list = calloc(count > 0 ? (size_t)count : 1, sizeof(nc_waiver));
  /* cJSON arrays are lists: walk them, never index them (quadratic). */
  const cJSON *item = list->child;
  for (int i = 0; out->list && item && rc == 0; i++, item = item->next) {
    rc = read_waiver(item, i + 1, &out->list[i], err, errlen);
    out->n = (size_t)i + 1; /* the failed one too: its parts are freed */
  }
  cJSON_Delete(root);
  if (!out->list || rc != 0) {
    if (!out->list)
      snprintf(err, errlen, "out of memory");
    nc_waivers_free(out);
    return -1;
  }
  return 0;
}

/* Waives what w covers; returns whether it covered a failure. */
static int apply_one(const nc_waiver *w, int index, nc_report *r)
{
  int used = 0;
  for (size_t k = 0; k < w->nrules; k++) {
    const char *glob = w->rules[k];
    for (size_t i = 0; i < r->nresults; i++) {
      nc_result *res = &r->results[i];
      if (fnmatch(glob, res->rule->id, FNM_CASEFOLD) != 0)
        continue;
      /* A rule the harness could not test is excused only by its name:
       * a glob would hide the next rule that stops being tested. */
      int named = !strpbrk(glob, "*?[");
      int failing = res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN ||
                    (named && nc_result_untested(res));
      if (!nc_rule_waivable(res->rule->id)) {
        /* Said when the waiver names the rule itself, or would cover its failure. */
        if (failing || named) {
          add_note(r, "waiver #%d names %s, which cannot be waived: a host cannot survive it",
                   index, res->rule->id);
          r->gate_problems++;
        }
        continue;
      }
      if (!failing)
        continue;
      res->waived_from = res->verdict;
      res->verdict = NC_VERDICT_WAIVED;
      free(res->waiver);
      res->waiver = nc_strdupf("%s%s%s", w->reason, w->issue ? " - " : "", w->issue ? w->issue : "");
      used = 1;
    }
  }
  return used;
}

void nc_waivers_apply(const nc_waivers *ws, nc_report *r)
{
  long today = nc_date_today();
  for (size_t i = 0; i < ws->n; i++) {
    const nc_waiver *w = &ws->list[i];
    int index = (int)i + 1;
    if (w->expires_day >= 0 && today > w->expires_day) {
      add_note(r, "waiver #%d expired on %s and no longer applies", index, w->expires);
      r->gate_problems++;
    } else if (w->plugin_sha256 && strcasecmp(w->plugin_sha256, r->sha256) != 0) {
      add_note(r, "waiver #%d is for another build of the plugin (sha256 %.12s...)", index,
               w->plugin_sha256);
      r->gate_problems++;
    } else if (w->plugin_abi && (!r->plugin_abi || strcmp(w->plugin_abi, r->plugin_abi) != 0)) {
      /* The plugin has no version symbol; its ABI version is what it declares. */
      add_note(r, "waiver #%d is for plugins built for ABI %s, this one declares %s", index,
               w->plugin_abi, r->plugin_abi ? r->plugin_abi : "none");
      r->gate_problems++;
    } else if (!apply_one(w, index, r)) {
      add_note(r, "waiver #%d matched no failing rule: remove it", index);
      r->gate_problems++;
    }
  }
}

/* ---- baselines -------------------------------------------------------------------- */

static int verdict_known(const char *v)
{
  for (int i = 0; i < NC_VERDICT_COUNT_; i++)
    if (strcmp(v, nc_verdict_name((nc_verdict)i)) == 0)
      return 1;
  return 0;
}

/* "AAA-NN": the shape of a rule ID (a retired or newer one included). */
static int id_shaped(const char *id)
{
  return strlen(id) == 6 && id[0] >= 'A' && id[0] <= 'Z' && id[1] >= 'A' && id[1] <= 'Z' &&
         id[2] >= 'A' && id[2] <= 'Z' && id[3] == '-' && id[4] >= '0' && id[4] <= '9' &&
         id[5] >= '0' && id[5] <= '9';
}

void nc_baseline_free(nc_baseline *b)
{
  for (size_t i = 0; i < b->n; i++) {
    free(b->results[i].id);
    free(b->results[i].verdict);
  }
  free(b->results);
  free(b->sha256);
  free(b->plugin_name);
  memset(b, 0, sizeof(*b));
}

int nc_baseline_load(const char *path, nc_baseline *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof(*out));
  cJSON *root = read_json_input(path, "baseline", err, errlen);
  if (!root)
    return -1;
  const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
  const cJSON *plugin = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(root, "header"), "plugin");
  const char *sha = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(plugin, "sha256"));
  const char *schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "schema"));
  if (!cJSON_IsArray(results) || !sha) {
    cJSON_Delete(root);
    snprintf(err, errlen, "baseline '%s' is not an nve-conform JSON report", path);
    return -1;
  }
  if (!schema || strcmp(schema, NC_REPORT_SCHEMA) != 0) { /* another version's report */
    snprintf(err, errlen, "baseline '%s' is a report of schema '%.60s'; this nve-conform reads "
             NC_REPORT_SCHEMA, path, schema ? schema : "(none)");
    cJSON_Delete(root);
    return -1;
  }
  int count = cJSON_GetArraySize(results);
  out->results = calloc(count > 0 ? (size_t)count : 1, sizeof(*out->results));
  out->sha256 = strdup(sha);
  out->plugin_name = dup_or_null(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(plugin, "name")));
  int rc = out->results ? 0 : -1;
  const cJSON *res = results->child;
  for (int i = 0; rc == 0 && res && i < count; i++, res = res->next) {
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "id"));
    const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "verdict"));
    if (!id || !id_shaped(id) || !verdict || !verdict_known(verdict)) {
      snprintf(err, errlen, "baseline '%s': results[%d] has no rule ID and verdict of an "
               "nve-conform report",
               path, i);
      rc = -1;
      break;
    }
    out->results[out->n].id = strdup(id);
    out->results[out->n].verdict = strdup(verdict);
    out->n++;
  }
  cJSON_Delete(root);
  if (rc != 0)
    nc_baseline_free(out);
  return rc;
}

int nc_baseline_matches(const nc_baseline *b, const char *sha256, const char *plugin_name,
                        int any_build, char *err, size_t errlen)
{
  if (!any_build) {
    if (strcasecmp(b->sha256, sha256) == 0)
      return 0;
    snprintf(err, errlen, "the baseline is a report on another file (sha256 %.12s..., this "
             "plugin %.12s...); --baseline-any-build compares builds of the same plugin",
             b->sha256, sha256);
    return -1;
  }
  if (b->plugin_name && plugin_name && strcmp(b->plugin_name, plugin_name) == 0)
    return 0;
  snprintf(err, errlen, "the baseline is a report on another plugin (\"%s\", this one \"%s\")",
           b->plugin_name ? b->plugin_name : "unnamed", plugin_name ? plugin_name : "unnamed");
  return -1;
}

void nc_baseline_apply(const nc_baseline *b, nc_report *r)
{
  for (size_t i = 0; i < r->nresults; i++) {
    nc_result *res = &r->results[i];
    const char *before = NULL;
    for (size_t k = 0; k < b->n; k++)
      if (strcmp(b->results[k].id, res->rule->id) == 0)
        before = b->results[k].verdict;
    int failed_before = before && (strcmp(before, "FAIL") == 0 || strcmp(before, "WAIVED") == 0);
    if (res->verdict == NC_VERDICT_FAIL && failed_before)
      res->known = 1;
    else if (res->verdict == NC_VERDICT_PASS && failed_before)
      add_note(r, "%s is fixed since the baseline", res->rule->id);
    else if (res->verdict == NC_VERDICT_FAIL)
      add_note(r, "%s is a new failure since the baseline", res->rule->id);
  }
}
