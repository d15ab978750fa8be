/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON report (schema "nve-conform-report/1", documented in README). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"
#include "rules.h"
#include "text.h"

static void add_string(cJSON *obj, const char *key, const char *value)
{
  if (value)
    cJSON_AddStringToObject(obj, key, value);
  else
    cJSON_AddNullToObject(obj, key);
}

static cJSON *header_json(const nc_report *r)
{
  cJSON *h = cJSON_CreateObject();
  cJSON *harness = cJSON_AddObjectToObject(h, "harness");
  cJSON_AddStringToObject(harness, "name", "nve-conform");
  cJSON_AddStringToObject(harness, "version", NC_HARNESS_VERSION_STRING);
  cJSON_AddStringToObject(harness, "ruleset", NC_RULESET_VERSION_STRING);

  cJSON *plugin = cJSON_AddObjectToObject(h, "plugin");
  add_string(plugin, "path", r->plugin_path);
  add_string(plugin, "sha256", r->sha256[0] ? r->sha256 : NULL);
  add_string(plugin, "name", r->plugin_name);
  add_string(plugin, "author", r->plugin_author);
  add_string(plugin, "mode", r->plugin_mode);
  add_string(plugin, "abi", r->plugin_abi);
  add_string(plugin, "accepted_by_hosts", r->accepting_hosts);
  cJSON *elf = cJSON_AddObjectToObject(plugin, "elf");
  add_string(elf, "class", r->elf_class);
  add_string(elf, "machine", r->elf_machine);
  add_string(elf, "type", r->elf_type);
  add_string(elf, "soname", r->elf_soname);
  cJSON *needed = cJSON_AddArrayToObject(elf, "needed");
  for (size_t i = 0; i < r->nneeded; i++)
    cJSON_AddItemToArray(needed, cJSON_CreateString(r->needed[i]));

  cJSON *host = cJSON_AddObjectToObject(h, "host");
  char abi[32];
  snprintf(abi, sizeof(abi), "%u.%u", r->host_major, r->host_minor);
  cJSON_AddStringToObject(host, "abi", abi);
  add_string(host, "cuda", r->cuda);

  cJSON *opt = cJSON_AddObjectToObject(h, "options");
  add_string(opt, "command_line", r->command_line);
  add_string(opt, "factory_config", r->factory_config);
  add_string(opt, "table_config", r->table_config);
  add_string(opt, "profile", r->profile);
  add_string(opt, "waivers", r->waivers_path);
  add_string(opt, "baseline", r->baseline_path);
  cJSON_AddNumberToObject(opt, "timeout_s", r->timeout_s);
  cJSON_AddNumberToObject(opt, "workers", r->workers);
  cJSON_AddStringToObject(opt, "schedule", r->schedule);
  cJSON_AddBoolToObject(opt, "no_fork", r->no_fork);
  cJSON_AddBoolToObject(opt, "strict", r->strict);
  cJSON_AddStringToObject(opt, "sanitize", r->sanitize ? r->sanitize : "none");
  cJSON *sandbox = cJSON_AddObjectToObject(h, "sandbox");
  cJSON_AddStringToObject(sandbox, "mode", r->sandbox_mode ? r->sandbox_mode : "auto");
  cJSON_AddBoolToObject(sandbox, "on", r->sandbox_on);
  add_string(sandbox, "detail", r->sandbox);
  char seed[32];
  snprintf(seed, sizeof(seed), "%llu", (unsigned long long)r->seed);
  cJSON_AddStringToObject(h, "seed", seed); /* a string: JSON numbers lose 64-bit precision */
  add_string(h, "started_at", r->started_at);
  return h;
}

static cJSON *result_json(const nc_result *res)
{
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "id", res->rule->id);
  cJSON_AddStringToObject(o, "family", res->rule->family);
  cJSON_AddStringToObject(o, "title", res->rule->title);
  cJSON_AddStringToObject(o, "severity", nc_severity_name(res->rule->severity));
  cJSON_AddStringToObject(o, "clause", res->rule->clause);
  cJSON_AddStringToObject(o, "verdict", nc_verdict_name(res->verdict));
  add_string(o, "reason", res->reason);
  add_string(o, "skip", res->verdict == NC_VERDICT_SKIP ? nc_skip_kind_name(res->skip) : NULL);
  cJSON_AddBoolToObject(o, "untested", nc_result_untested(res));
  if (res->blocked_by)
    cJSON_AddStringToObject(o, "blocked_by", res->blocked_by->id);
  else
    cJSON_AddNullToObject(o, "blocked_by");
  cJSON_AddNumberToObject(o, "evidence_count", (double)res->nevidence);
  cJSON *ev = cJSON_AddArrayToObject(o, "evidence");
  for (size_t i = 0; i < res->nevidence; i++) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "level", res->evidence[i].level);
    cJSON_AddStringToObject(e, "call", res->evidence[i].call);
    cJSON_AddStringToObject(e, "expected", res->evidence[i].expected);
    cJSON_AddStringToObject(e, "observed", res->evidence[i].observed);
    cJSON_AddItemToArray(ev, e);
  }
  if (res->crash) {
    cJSON *c = cJSON_AddObjectToObject(o, "crash");
    cJSON_AddStringToObject(c, "summary", res->crash);
    cJSON *frames = cJSON_AddArrayToObject(c, "backtrace");
    for (size_t i = 0; i < res->nframes; i++)
      cJSON_AddItemToArray(frames, cJSON_CreateString(res->frames[i]));
  } else {
    cJSON_AddNullToObject(o, "crash");
  }
  if (res->verdict == NC_VERDICT_WAIVED) {
    cJSON *w = cJSON_AddObjectToObject(o, "waived");
    cJSON_AddStringToObject(w, "verdict", nc_waived_from_label(res));
    cJSON_AddStringToObject(w, "reason", res->waiver ? res->waiver : "");
  } else {
    cJSON_AddNullToObject(o, "waived");
  }
  cJSON_AddBoolToObject(o, "known_failure", res->known);
  add_string(o, "output", res->output);
  add_string(o, "reproduce", res->reproduce);
  cJSON_AddBoolToObject(o, "executed", res->executed);
  cJSON_AddBoolToObject(o, "selected", !res->not_selected);
  cJSON_AddNumberToObject(o, "seconds", res->seconds);
  return o;
}

/* The call space the sweeps covered, one item per class of each dimension
 * of each op: the full matrix, in long form. */
static void add_cell(cJSON *cells, const char *op, const nc_rule_info *rule, const char *dimension,
                     const char *cls, nc_cover_state state, const char *why,
                     const nc_rule_info *by)
{
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "op", op);
  cJSON_AddStringToObject(o, "rule", rule->id);
  cJSON_AddStringToObject(o, "dimension", dimension);
  cJSON_AddStringToObject(o, "class", cls);
  cJSON_AddStringToObject(o, "state", nc_cover_state_name(state));
  add_string(o, "why", why);
  add_string(o, "by", by ? by->id : NULL);
  cJSON_AddItemToArray(cells, o);
}

/* Every swept op of a selected rule: its cells, or one saying it did not run. */
static cJSON *coverage_json(const nc_report *r)
{
  cJSON *cells = cJSON_CreateArray();
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    for (size_t k = 0; k < res->ncover; k++) {
      const nc_cover_cell *c = &res->cover[k];
      add_cell(cells, c->op, res->rule, c->dimension, c->cls, c->state, c->why, c->by);
    }
    for (size_t o = 0; o < nc_swept_op_count; o++)
      if (nc_result_unswept(res, o))
        add_cell(cells, nc_swept_ops[o].name, res->rule, "op", "every call", NC_COVER_NOT_RUN,
                 res->reason ? res->reason : "its case made no sweep", NULL);
  }
  return cells;
}

int nc_report_write_json(const nc_report *r, const char *path, char *err, size_t errlen)
{
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", NC_REPORT_SCHEMA);
  cJSON_AddItemToObject(root, "header", header_json(r));
  add_string(root, "error", r->error);
  cJSON *sum = cJSON_AddObjectToObject(root, "summary");
  cJSON_AddNumberToObject(sum, "selected", (double)r->selected);
  cJSON_AddNumberToObject(sum, "executed", (double)r->executed);
  for (int v = 0; v < NC_VERDICT_COUNT_; v++)
    cJSON_AddNumberToObject(sum, nc_verdict_name((nc_verdict)v),
                            (double)nc_report_count(r, (nc_verdict)v));
  cJSON *skips = cJSON_AddObjectToObject(sum, "skips");
  for (nc_skip_kind k = NC_SKIP_UNTESTED; k <= NC_SKIP_BLOCKED; k++)
    cJSON_AddNumberToObject(skips, nc_skip_kind_name(k), (double)nc_report_count_skips(r, k));
  cJSON_AddNumberToObject(sum, "untested", (double)nc_report_count_untested(r));
  cJSON_AddNumberToObject(sum, "exit_code", nc_report_exit_code(r));
  cJSON_AddNumberToObject(sum, "seconds", r->seconds);
  add_string(sum, "note", r->note);
  add_string(sum, "refusal", r->refusal);
  cJSON_AddBoolToObject(sum, "interrupted", r->interrupted != 0);
  cJSON *gate = cJSON_AddArrayToObject(sum, "gate");
  for (size_t i = 0; i < r->ngate_notes; i++)
    cJSON_AddItemToArray(gate, cJSON_CreateString(r->gate_notes[i]));
  cJSON *results = cJSON_AddArrayToObject(root, "results");
  for (size_t i = 0; i < r->nresults; i++)
    cJSON_AddItemToArray(results, result_json(&r->results[i]));
  cJSON_AddItemToObject(root, "coverage", coverage_json(r));

  char *printed = cJSON_Print(root);
  cJSON_Delete(root);
  char *text = printed ? nc_json_text_safe(printed) : NULL;
  free(printed);
  if (!text) {
    snprintf(err, errlen, "out of memory while building the JSON report");
    return -1;
  }
  size_t len = strlen(text);
  char *with_nl = realloc(text, len + 2);
  if (with_nl) {
    text = with_nl;
    text[len++] = '\n';
    text[len] = '\0';
  }
  int rc = nc_write_file_atomic(path, text, len, err, errlen);
  free(text);
  return rc;
}
