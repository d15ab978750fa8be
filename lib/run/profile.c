/* SPDX-License-Identifier: Apache-2.0 */
/* The profile (README "Profiles"): what the harness cannot guess about a
 * plugin, read from a JSON file. Options given on the command line win. */
#define _GNU_SOURCE
#include "profile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "json_span.h"

/* Text that lives as long as the run: profile configs. */
static char *owned_text[40];
static size_t owned_count;

static const char *keep(char *text)
{
  if (text && owned_count < sizeof(owned_text) / sizeof(owned_text[0]))
    owned_text[owned_count++] = text;
  return text;
}

void nc_profile_release(void)
{
  while (owned_count)
    free(owned_text[--owned_count]);
}

/* A config member of a profile: a string is passed on as it is, anything
 * else as its JSON text exactly as the profile wrote it (path leads to it
 * in the profile's text), so large numbers reach the plugin unchanged. */
static const char *profile_config(const cJSON *item, const char *text, const char *const *path,
                                  size_t depth)
{
  if (cJSON_IsString(item))
    return keep(strdup(item->valuestring));
  char *raw = nc_json_value_text(text, path, depth);
  return keep(raw ? raw : cJSON_PrintUnformatted(item));
}

/* Reads the profile (README "Profiles"). Options given on the command line
 * win over it. */
int nc_profile_load(const nc_options *opt, nc_config *cfg, nc_report *r)
{
  char *text = nc_read_file(opt->profile_path);
  if (!text)
    return nc_report_usage_error(r, "cannot open profile '%s': %s", opt->profile_path, strerror(errno));
  cJSON *p = text ? cJSON_Parse(text) : NULL;
  if (!cJSON_IsObject(p)) {
    cJSON_Delete(p);
    free(text);
    return nc_report_usage_error(r, "profile '%s' is not a JSON object", opt->profile_path);
  }
  int rc = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, p)
  {
    const char *k = item->string;
    const char *member[] = {k};
    if (strcmp(k, "factory_config") == 0) {
      if (!opt->factory_config)
        cfg->factory_config = profile_config(item, text, member, 1);
    } else if (strcmp(k, "table_config") == 0) {
      if (!opt->table_config)
        cfg->table_config = profile_config(item, text, member, 1);
    } else if (strcmp(k, "failing_configs") == 0 && cJSON_IsArray(item)) {
      const cJSON *fc;
      int index = 0;
      cJSON_ArrayForEach(fc, item)
      {
        char at[24];
        snprintf(at, sizeof(at), "#%d", index++);
        const char *entry[] = {k, at, "config"};
        const char *target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fc, "target"));
        const cJSON *config = cJSON_GetObjectItemCaseSensitive(fc, "config");
        if (!target || !config || (strcmp(target, "factory") && strcmp(target, "table"))) {
          rc = nc_report_usage_error(r, "profile '%s': each failing_configs entry needs \"target\" "
                             "(\"factory\" or \"table\") and \"config\"",
                          opt->profile_path);
          break;
        }
        if (cfg->failing_count < sizeof(cfg->failing) / sizeof(cfg->failing[0])) {
          cfg->failing[cfg->failing_count].target = strcmp(target, "table") == 0;
          cfg->failing[cfg->failing_count].json = profile_config(config, text, entry, 3);
          const cJSON *st = cJSON_GetObjectItemCaseSensitive(fc, "status");
          cfg->failing[cfg->failing_count].status = cJSON_IsNumber(st) ? st->valueint : -1;
          cfg->failing_count++;
        }
      }
    } else if (strcmp(k, "key_size") == 0 && cJSON_IsNumber(item)) {
      cfg->key_size = item->valueint;
    } else if (strcmp(k, "row_size") == 0 && cJSON_IsNumber(item)) {
      cfg->row_size = item->valueint;
    } else if (strcmp(k, "exact") == 0 && cJSON_IsBool(item)) {
      cfg->exact = cJSON_IsTrue(item);
    } else if (strcmp(k, "stress") == 0 && cJSON_IsBool(item)) {
      cfg->stress |= cJSON_IsTrue(item);
    } else if (strcmp(k, "description") != 0) {
      rc = nc_report_usage_error(r, "profile '%s': unknown member \"%s\"", opt->profile_path, k);
      break;
    }
  }
  cJSON_Delete(p);
  free(text);
  if (rc == 0) {
    free(r->factory_config);
    free(r->table_config);
    r->factory_config = strdup(cfg->factory_config);
    r->table_config = strdup(cfg->table_config);
    r->profile = strdup(opt->profile_path);
  }
  return rc;
}
