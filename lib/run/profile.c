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
#include "json_strict.h"

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

/* An integer member within [lo, hi]; -1 after recording why not. */
static int integer_member(const nc_options *opt, nc_report *r, const cJSON *item, long lo, long hi,
                          int *out)
{
  if (!cJSON_IsNumber(item))
    return nc_report_usage_error(r, "profile '%s': \"%s\" has the wrong type (a number from "
                                    "%ld to %ld)",
                                 opt->profile_path, item->string, lo, hi);
  double v = item->valuedouble;
  if (v != (double)(long)v || v < (double)lo || v > (double)hi)
    return nc_report_usage_error(r, "profile '%s': \"%s\" must be a whole number from %ld to %ld "
                                    "(got %g)",
                                 opt->profile_path, item->string, lo, hi, v);
  *out = (int)v;
  return 0;
}

static int wrong_type(const nc_options *opt, nc_report *r, const char *member, const char *want)
{
  return nc_report_usage_error(r, "profile '%s': \"%s\" has the wrong type (%s)",
                               opt->profile_path, member, want);
}

/* failing_configs: configs that must fail, each {target, config, status}. */
static int failing_member(const nc_options *opt, nc_config *cfg, nc_report *r, const cJSON *item,
                          const char *text)
{
  if (!cJSON_IsArray(item))
    return wrong_type(opt, r, item->string, "an array of {\"target\", \"config\", \"status\"}");
  size_t room = sizeof(cfg->failing) / sizeof(cfg->failing[0]);
  if ((size_t)cJSON_GetArraySize(item) > room)
    return nc_report_usage_error(r, "profile '%s': at most %zu failing_configs", opt->profile_path,
                                 room);
  const cJSON *fc;
  int index = 0;
  cJSON_ArrayForEach(fc, item)
  {
    char at[24];
    snprintf(at, sizeof(at), "#%d", index++);
    const char *entry[] = {item->string, at, "config"};
    const char *target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fc, "target"));
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(fc, "config");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(fc, "status");
    if (!target || !config || (strcmp(target, "factory") && strcmp(target, "table")))
      return nc_report_usage_error(r, "profile '%s': each failing_configs entry needs \"target\" "
                                      "(\"factory\" or \"table\") and \"config\"",
                                   opt->profile_path);
    struct nc_failing_config *f = &cfg->failing[cfg->failing_count++];
    f->target = strcmp(target, "table") == 0;
    f->json = profile_config(config, text, entry, 3);
    f->status = -1;
    if (status && integer_member(opt, r, status, 1, 5, &f->status) != 0)
      return -1;
  }
  return 0;
}

/* more_table_configs: configs of other tables, each an object or a string. */
static int more_member(const nc_options *opt, nc_config *cfg, nc_report *r, const cJSON *item,
                       const char *text)
{
  size_t room = sizeof(cfg->more_tables) / sizeof(cfg->more_tables[0]);
  if (!cJSON_IsArray(item))
    return wrong_type(opt, r, item->string, "an array of table configs");
  if ((size_t)cJSON_GetArraySize(item) > room)
    return nc_report_usage_error(r, "profile '%s': at most %zu more_table_configs",
                                 opt->profile_path, room);
  const cJSON *tc;
  int index = 0;
  cJSON_ArrayForEach(tc, item)
  {
    char at[24];
    snprintf(at, sizeof(at), "#%d", index++);
    const char *entry[] = {item->string, at};
    if (!cJSON_IsObject(tc) && !cJSON_IsString(tc))
      return wrong_type(opt, r, item->string, "an array of JSON objects or strings");
    cfg->more_tables[cfg->more_count++] = profile_config(tc, text, entry, 2);
  }
  return 0;
}

/* Reads the profile (README "Profiles"). Options given on the command line
 * win over it. Every member is checked: an unknown one, a wrong type or a
 * value out of range is a usage error, so a typo never passes silently. */
int nc_profile_load(const nc_options *opt, nc_config *cfg, nc_report *r)
{
  char why[600];
  char *text = nc_read_file(opt->profile_path, why, sizeof(why));
  if (!text)
    return nc_report_usage_error(r, "profile: %s", why);
  cJSON *p = nc_json_parse_strict(text, why, sizeof(why));
  if (!cJSON_IsObject(p)) {
    cJSON_Delete(p);
    free(text);
    return p ? nc_report_usage_error(r, "profile '%s' is not a JSON object", opt->profile_path)
             : nc_report_usage_error(r, "profile '%s' is not valid JSON (%s)", opt->profile_path,
                                     why);
  }
  int rc = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, p)
  {
    const char *k = item->string;
    const char *member[] = {k};
    int config = cJSON_IsObject(item) || cJSON_IsString(item);
    if (strcmp(k, "description") == 0) {
      if (!cJSON_IsString(item))
        rc = wrong_type(opt, r, k, "a string");
    } else if (strcmp(k, "factory_config") == 0 || strcmp(k, "table_config") == 0) {
      int factory = k[0] == 'f';
      if (!config)
        rc = wrong_type(opt, r, k, "a JSON object, or a string passed as it is");
      else if (!(factory ? opt->factory_config : opt->table_config))
        *(factory ? &cfg->factory_config : &cfg->table_config) =
            profile_config(item, text, member, 1);
    } else if (strcmp(k, "failing_configs") == 0) {
      rc = failing_member(opt, cfg, r, item, text);
    } else if (strcmp(k, "more_table_configs") == 0) {
      rc = more_member(opt, cfg, r, item, text);
    } else if (strcmp(k, "key_size") == 0) {
      if (cJSON_IsNumber(item) && item->valuedouble != 4 && item->valuedouble != 8)
        rc = nc_report_usage_error(r, "profile '%s': \"key_size\" must be 4 or 8 (got %g)",
                                   opt->profile_path, item->valuedouble);
      else
        rc = integer_member(opt, r, item, 4, 8, &cfg->key_size);
    } else if (strcmp(k, "row_size") == 0) {
      rc = integer_member(opt, r, item, 1, 64 << 20, &cfg->row_size);
    } else if (strcmp(k, "exact") == 0 || strcmp(k, "stress") == 0) {
      if (!cJSON_IsBool(item))
        rc = wrong_type(opt, r, k, "true or false");
      else if (k[0] == 'e')
        cfg->exact = cJSON_IsTrue(item);
      else
        cfg->stress |= cJSON_IsTrue(item);
    } else {
      rc = nc_report_usage_error(r, "profile '%s': unknown member \"%s\"", opt->profile_path, k);
    }
    if (rc != 0)
      break;
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
