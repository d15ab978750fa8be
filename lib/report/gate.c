/* SPDX-License-Identifier: Apache-2.0 */
/* The CI gate on top of a run: waivers (a failure a vendor accepts for a
 * while, with a reason) and baselines (only failures that are new since an
 * earlier report fail the gate). */
#define _GNU_SOURCE
#include "gate.h"

#include "atomic_file.h"
#include "rules.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static int today_after(const char *date)
{
  time_t now = time(NULL);
  struct tm tm;
  char today[16];
  strftime(today, sizeof(today), "%Y-%m-%d", gmtime_r(&now, &tm));
  return strcmp(today, date) > 0;
}

int nc_gate_apply_waivers(nc_report *r, const char *path, char *err, size_t errlen)
{
  char *text = nc_read_file(path);
  if (!text) {
    snprintf(err, errlen, "cannot read waivers '%s'", path);
    return -1;
  }
  cJSON *root = cJSON_Parse(text);
  free(text);
  const cJSON *list = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "waivers");
  if (!cJSON_IsArray(list)) {
    cJSON_Delete(root);
    snprintf(err, errlen, "waivers '%s': expected a JSON array or {\"waivers\": [...]}", path);
    return -1;
  }
  int index = 0;
  const cJSON *w;
  cJSON_ArrayForEach(w, list)
  {
    index++;
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(w, "rules");
    const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "reason"));
    const char *expires = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "expires"));
    const char *sha = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "plugin_sha256"));
    const char *issue = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "issue"));
    if (cJSON_IsString(rules)) {
      /* one glob is fine too */
    } else if (!cJSON_IsArray(rules) || cJSON_GetArraySize(rules) == 0) {
      snprintf(err, errlen, "waiver #%d: \"rules\" must name at least one rule", index);
      cJSON_Delete(root);
      return -1;
    }
    if (!reason || !*reason) {
      snprintf(err, errlen, "waiver #%d: a waiver needs a \"reason\"", index);
      cJSON_Delete(root);
      return -1;
    }
    if (expires && today_after(expires)) {
      add_note(r, "waiver #%d expired on %s and no longer applies", index, expires);
      r->gate_problems++;
      continue;
    }
    if (sha && strcasecmp(sha, r->sha256) != 0) {
      add_note(r, "waiver #%d is for another build of the plugin (sha256 %.12s...)", index, sha);
      r->gate_problems++;
      continue;
    }
    /* The plugin has no version symbol; its ABI version is what it declares. */
    const char *abi = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "plugin_abi"));
    if (abi && (!r->plugin_abi || strcmp(abi, r->plugin_abi) != 0)) {
      add_note(r, "waiver #%d is for plugins built for ABI %s, this one declares %s", index, abi,
               r->plugin_abi ? r->plugin_abi : "none");
      r->gate_problems++;
      continue;
    }
    int used = 0;
    const cJSON *g;
    const cJSON *single[1] = {rules};
    int nglobs = cJSON_IsString(rules) ? 1 : cJSON_GetArraySize(rules);
    for (int k = 0; k < nglobs; k++) {
      g = cJSON_IsString(rules) ? single[0] : cJSON_GetArrayItem(rules, k);
      const char *glob = cJSON_GetStringValue(g);
      if (!glob)
        continue;
      for (size_t i = 0; i < r->nresults; i++) {
        nc_result *res = &r->results[i];
        if (fnmatch(glob, res->rule->id, FNM_CASEFOLD) != 0)
          continue;
        int failing = res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN;
        if (!nc_rule_waivable(res->rule->id)) {
          /* Said when the waiver names the rule itself, or would cover its failure. */
          if (failing || !strpbrk(glob, "*?[")) {
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
        res->waiver = nc_strdupf("%s%s%s", reason, issue ? " - " : "", issue ? issue : "");
        used = 1;
      }
    }
    if (!used) {
      add_note(r, "waiver #%d matched no failing rule: remove it", index);
      r->gate_problems++;
    }
  }
  cJSON_Delete(root);
  return 0;
}

int nc_gate_apply_baseline(nc_report *r, const char *path, char *err, size_t errlen)
{
  char *text = nc_read_file(path);
  cJSON *root = text ? cJSON_Parse(text) : NULL;
  free(text);
  const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
  if (!cJSON_IsArray(results)) {
    cJSON_Delete(root);
    snprintf(err, errlen, "baseline '%s' is not an nve-conform JSON report", path);
    return -1;
  }
  for (size_t i = 0; i < r->nresults; i++) {
    nc_result *res = &r->results[i];
    const char *before = NULL;
    const cJSON *b;
    cJSON_ArrayForEach(b, results)
    {
      const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "id"));
      if (id && strcmp(id, res->rule->id) == 0)
        before = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "verdict"));
    }
    int failed_before = before && (strcmp(before, "FAIL") == 0 || strcmp(before, "WAIVED") == 0);
    if (res->verdict == NC_VERDICT_FAIL && failed_before)
      res->known = 1;
    else if (res->verdict == NC_VERDICT_PASS && failed_before)
      add_note(r, "%s is fixed since the baseline", res->rule->id);
    else if (res->verdict == NC_VERDICT_FAIL)
      add_note(r, "%s is a new failure since the baseline", res->rule->id);
  }
  cJSON_Delete(root);
  return 0;
}
