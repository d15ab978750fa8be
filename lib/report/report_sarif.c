/* SPDX-License-Identifier: Apache-2.0 */
/* SARIF 2.1.0, so code-scanning views show each rule with its title and
 * severity: one run, the rule catalogue as the driver's rules, one result
 * per rule (kind pass, fail, open for an untested or blocked rule, or
 * notApplicable; level error for MUST failures, warning for SHOULD ones),
 * located at the plugin file. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"
#include "rule_page.h"
#include "text.h"

/* Where helpUri points: the installed catalogue unless configure was told
 * otherwise (--with-doc-url). */
#ifndef NC_RULES_DOC_URI
#define NC_RULES_DOC_URI "doc/rules.md"
#endif

static const char *level_of(const nc_result *res, int strict)
{
  switch (res->verdict) {
  case NC_VERDICT_FAIL:
  case NC_VERDICT_ERROR: return "error";
  case NC_VERDICT_WARN: return strict ? "error" : "warning";
  case NC_VERDICT_WAIVED: return "note";
  default: return "none";
  }
}

static const char *kind_of(const nc_result *res)
{
  switch (res->verdict) {
  case NC_VERDICT_PASS: return "pass";
  case NC_VERDICT_SKIP: /* open: the tool could not decide */
    return res->skip == NC_SKIP_NOT_APPLICABLE ? "notApplicable" : "open";
  case NC_VERDICT_ERROR: return "review";
  default: return "fail";
  }
}

/* The rule's page as help (markdown, and the same text as plain text),
 * and where the installed catalogue has it. */
static void add_help(cJSON *rule, const char *id)
{
  int r = nc_rule_parse(id);
  if (r < 0)
    return;
  char anchor[16];
  nc_rule_doc_anchor((nc_rule)r, anchor);
  char uri[sizeof(NC_RULES_DOC_URI) + 24];
  snprintf(uri, sizeof(uri), "%s#%s", NC_RULES_DOC_URI, anchor);
  cJSON_AddStringToObject(rule, "helpUri", uri);
  nc_strbuf page = {0};
  nc_rule_page(&page, (nc_rule)r, NC_PAGE_EMBEDDED);
  if (page.data && !page.failed) {
    cJSON *help = cJSON_AddObjectToObject(rule, "help");
    cJSON_AddStringToObject(help, "text", page.data);
    cJSON_AddStringToObject(help, "markdown", page.data);
  }
  nc_strbuf_free(&page);
}

int nc_report_write_sarif(const nc_report *r, const char *path, char *err, size_t errlen)
{
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  cJSON_AddStringToObject(root, "version", "2.1.0");
  cJSON *run = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "runs"), run);
  cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
  cJSON_AddStringToObject(driver, "name", "nve-conform");
  cJSON_AddStringToObject(driver, "version", NC_HARNESS_VERSION_STRING);
  cJSON_AddStringToObject(driver, "semanticVersion", NC_HARNESS_VERSION_STRING);
  cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
  cJSON *results = cJSON_AddArrayToObject(run, "results");
  cJSON *sandbox = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "properties"), "sandbox");
  cJSON_AddStringToObject(sandbox, "mode", r->sandbox_mode ? r->sandbox_mode : "auto");
  cJSON_AddBoolToObject(sandbox, "on", r->sandbox_on);
  if (r->sandbox)
    cJSON_AddStringToObject(sandbox, "detail", r->sandbox);
  else
    cJSON_AddNullToObject(sandbox, "detail");
  for (size_t i = 0; i < r->nresults; i++) {
    const nc_result *res = &r->results[i];
    cJSON *rule = cJSON_CreateObject();
    cJSON_AddStringToObject(rule, "id", res->rule->id);
    cJSON_AddStringToObject(rule, "name", res->rule->id);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(rule, "shortDescription"), "text",
                            res->rule->title);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(rule, "fullDescription"), "text",
                            res->rule->clause);
    add_help(rule, res->rule->id);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(rule, "defaultConfiguration"), "level",
                            res->rule->severity == NC_MUST ? "error" : "warning");
    cJSON *props = cJSON_AddObjectToObject(rule, "properties");
    cJSON_AddStringToObject(props, "severity", nc_severity_name(res->rule->severity));
    cJSON_AddStringToObject(props, "family", res->rule->family);
    cJSON_AddItemToArray(rules, rule);

    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "ruleId", res->rule->id);
    cJSON_AddNumberToObject(out, "ruleIndex", (double)i);
    cJSON_AddStringToObject(out, "kind", kind_of(res));
    cJSON_AddStringToObject(out, "level", level_of(res, r->strict));
    cJSON_AddStringToObject(cJSON_AddObjectToObject(out, "message"), "text",
                            res->reason ? res->reason : nc_verdict_name(res->verdict));
    cJSON *loc = cJSON_CreateObject();
    char *uri = nc_uri_path(r->plugin_path ? r->plugin_path : "");
    cJSON_AddStringToObject(
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(loc, "physicalLocation"),
                                "artifactLocation"),
        "uri", uri ? uri : "");
    free(uri);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(out, "locations"), loc);
    if (res->verdict == NC_VERDICT_WAIVED) {
      cJSON *sup = cJSON_CreateObject();
      cJSON_AddStringToObject(sup, "kind", "external");
      cJSON_AddStringToObject(sup, "justification", res->waiver ? res->waiver : "");
      cJSON_AddItemToArray(cJSON_AddArrayToObject(out, "suppressions"), sup);
    }
    cJSON *rprops = cJSON_AddObjectToObject(out, "properties");
    cJSON_AddStringToObject(rprops, "verdict", nc_verdict_name(res->verdict));
    if (res->reproduce) { /* shown as a text report shows it: a reader copies it */
      char *shown = nc_text_escaped(res->reproduce, 0);
      cJSON_AddStringToObject(rprops, "reproduce", shown ? shown : "");
      free(shown);
    }
    cJSON_AddItemToArray(results, out);
  }
  if (r->error) {
    cJSON *notif = cJSON_CreateObject();
    cJSON_AddStringToObject(notif, "level", "error");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(notif, "message"), "text", r->error);
    cJSON *inv = cJSON_CreateObject();
    cJSON_AddBoolToObject(inv, "executionSuccessful", 0);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(inv, "toolExecutionNotifications"), notif);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(run, "invocations"), inv);
  }
  char *printed = cJSON_Print(root);
  cJSON_Delete(root);
  char *text = printed ? nc_json_text_safe(printed) : NULL;
  free(printed);
  if (!text) {
    snprintf(err, errlen, "out of memory while building the SARIF report");
    return -1;
  }
  int rc = nc_write_file_atomic(path, text, strlen(text), err, errlen);
  free(text);
  return rc;
}
