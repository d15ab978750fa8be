/* SPDX-License-Identifier: Apache-2.0 */
#include "run_settings.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "plugin/nve_plugin_common.h"
#include "sandbox.h"
#include "sanitize.h"

const char *nc_schedule_word(int v) { return nc_schedule_name((nc_schedule)v); }
const char *nc_cuda_word(int v) { return nc_cuda_mode_name((nc_cuda_mode)v); }
const char *nc_evidence_word(int v) { return v == 0 ? "bounded" : v == 1 ? "all" : "?"; }

const char *nc_effort_name(int effort)
{
  static const char *const words[] = {[NC_EFFORT_DEFAULT] = "default", [NC_EFFORT_QUICK] = "quick",
                                      [NC_EFFORT_DEEP] = "deep"};
  return effort >= 0 && effort <= NC_EFFORT_DEEP ? words[effort] : "?";
}

/* How an option's type is written in the case configuration. */
#define KIND_FLAG NC_SET_FLAG
#define KIND_TEXT NC_SET_OPT_TEXT
#define KIND_JSON NC_SET_TEXT
#define KIND_INT NC_SET_INT
#define KIND_WORD NC_SET_INT
#define KIND_LONG NC_SET_LONG
#define KIND_U64 NC_SET_U64
#define KIND_NUMBER NC_SET_DOUBLE
#define KIND_ABI NC_SET_ABI
/* The default the reproduction line leaves out, as text or as a number. */
#define OMIT_TEXT_JSON(d) d
#define OMIT_NUMBER_JSON(d) 0
#define OMIT_TEXT_TEXT(d) NULL
#define OMIT_NUMBER_TEXT(d) 0
#define OMIT_NUMERIC(d) d
#define OMIT_TEXT_FLAG(d) NULL
#define OMIT_NUMBER_FLAG OMIT_NUMERIC
#define OMIT_TEXT_INT(d) NULL
#define OMIT_NUMBER_INT OMIT_NUMERIC
#define OMIT_TEXT_WORD(d) NULL
#define OMIT_NUMBER_WORD OMIT_NUMERIC
#define OMIT_TEXT_LONG(d) NULL
#define OMIT_NUMBER_LONG OMIT_NUMERIC
#define OMIT_TEXT_U64(d) NULL
#define OMIT_NUMBER_U64 OMIT_NUMERIC
#define OMIT_TEXT_NUMBER(d) NULL
#define OMIT_NUMBER_NUMBER OMIT_NUMERIC
#define OMIT_TEXT_ABI(d) NULL
#define OMIT_NUMBER_ABI OMIT_NUMERIC
/* Whether the reproduction line names the option, and always. */
#define LINE_OPTION_OMIT_DEFAULT(name) name
#define LINE_OPTION_ALWAYS(name) name
#define LINE_OPTION_NEVER(name) NULL
#define LINE_ALWAYS_OMIT_DEFAULT 0
#define LINE_ALWAYS_ALWAYS 1
#define LINE_ALWAYS_NEVER 0

#define AT(member) offsetof(nc_config, member)
/* A setting the cases need that no option sets directly. */
#define INTERNAL(key, kind, member) {key, kind, AT(member), NULL, NULL, 0, 0, NULL}

const nc_setting nc_settings[] = {
#define NC_CASE_OPTION(name, letter, arg, TYPE, lo, hi, word, member, config, line, deflt, sec, help) \
  {#config, KIND_##TYPE, AT(config), LINE_OPTION_##line(name), OMIT_TEXT_##TYPE(deflt),       \
   OMIT_NUMBER_##TYPE(deflt), LINE_ALWAYS_##line, word},
#include "run_options.def"
    INTERNAL("plugin_path", NC_SET_PATH, plugin_path),
    INTERNAL("plugin_file", NC_SET_FILE_ID, plugin_file),
    INTERNAL("cache_dir", NC_SET_PATH, cache_dir),
    INTERNAL("cache_secret", NC_SET_PATH, cache_secret),
    INTERNAL("timeout_s", NC_SET_DOUBLE, timeout_s),
    INTERNAL("key_size", NC_SET_INT, key_size),
    INTERNAL("row_size", NC_SET_INT, row_size),
    INTERNAL("exact", NC_SET_INT, exact),
    INTERNAL("cuda_mode", NC_SET_INT, cuda_mode),
    INTERNAL("repro", NC_SET_INT, repro),
};
const size_t nc_setting_count = sizeof(nc_settings) / sizeof(nc_settings[0]);

#define MEMBER(type, s, cfg) ((type *)((char *)(cfg) + (s)->offset))
#define CMEMBER(type, s, cfg) ((const type *)((const char *)(cfg) + (s)->offset))

void nc_setting_format(const nc_setting *s, const nc_config *cfg, nc_strbuf *out)
{
  switch (s->kind) {
  case NC_SET_PATH:
    nc_strbuf_puts(out, CMEMBER(char, s, cfg));
    break;
  case NC_SET_TEXT:
  case NC_SET_OPT_TEXT: {
    const char *text = *CMEMBER(const char *, s, cfg);
    nc_strbuf_puts(out, text ? text : "");
    break;
  }
  case NC_SET_INT:
  case NC_SET_FLAG:
    nc_strbuf_printf(out, "%d", *CMEMBER(int, s, cfg));
    break;
  case NC_SET_LONG:
    nc_strbuf_printf(out, "%ld", *CMEMBER(long, s, cfg));
    break;
  case NC_SET_U64:
    nc_strbuf_printf(out, "%" PRIu64, *CMEMBER(uint64_t, s, cfg));
    break;
  case NC_SET_DOUBLE:
    nc_strbuf_printf(out, "%.17g", *CMEMBER(double, s, cfg));
    break;
  case NC_SET_ABI:
    nc_strbuf_printf(out, "%u %u", cfg->host_major, cfg->host_minor);
    break;
  case NC_SET_FILE_ID: {
    const unsigned long long *v = CMEMBER(unsigned long long, s, cfg);
    nc_strbuf_printf(out, "%llu %llu %llu %llu", v[0], v[1], v[2], v[3]);
    break;
  }
  }
}

void nc_setting_release(const nc_setting *s, nc_config *cfg)
{
  if (s->kind != NC_SET_TEXT && s->kind != NC_SET_OPT_TEXT)
    return;
  const char **member = MEMBER(const char *, s, cfg);
  free((void *)*member);
  *member = NULL;
}

int nc_setting_parse(const nc_setting *s, nc_config *cfg, const char *text)
{
  char *end = NULL;
  errno = 0;
  switch (s->kind) {
  case NC_SET_PATH:
    if (strlen(text) >= PATH_MAX)
      return -1;
    memcpy(MEMBER(char, s, cfg), text, strlen(text) + 1);
    return 0;
  case NC_SET_TEXT:
  case NC_SET_OPT_TEXT: {
    const char **member = MEMBER(const char *, s, cfg);
    *member = s->kind == NC_SET_OPT_TEXT && !text[0] ? NULL : strdup(text);
    return s->kind == NC_SET_TEXT && !*member ? -1 : 0;
  }
  case NC_SET_INT:
  case NC_SET_FLAG: {
    long v = strtol(text, &end, 10);
    *MEMBER(int, s, cfg) = (int)v;
    break;
  }
  case NC_SET_LONG:
    *MEMBER(long, s, cfg) = strtol(text, &end, 10);
    break;
  case NC_SET_U64:
    *MEMBER(uint64_t, s, cfg) = strtoull(text, &end, 10);
    break;
  case NC_SET_DOUBLE:
    *MEMBER(double, s, cfg) = strtod(text, &end);
    break;
  case NC_SET_ABI:
    return sscanf(text, "%u %u", &cfg->host_major, &cfg->host_minor) == 2 ? 0 : -1;
  case NC_SET_FILE_ID: {
    unsigned long long *v = MEMBER(unsigned long long, s, cfg);
    return sscanf(text, "%llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]) == 4 ? 0 : -1;
  }
  }
  return end && end != text && !*end && errno == 0 ? 0 : -1;
}

int nc_setting_in_reproduce(const nc_setting *s, const nc_config *cfg)
{
  if (!s->option)
    return 0;
  if (s->always)
    return 1;
  switch (s->kind) {
  case NC_SET_TEXT:
  case NC_SET_OPT_TEXT: {
    const char *text = *CMEMBER(const char *, s, cfg);
    return text && (!s->omit_text || strcmp(text, s->omit_text) != 0);
  }
  case NC_SET_INT:
  case NC_SET_FLAG:
    return *CMEMBER(int, s, cfg) != (int)s->omit_number;
  case NC_SET_LONG:
    return *CMEMBER(long, s, cfg) != (long)s->omit_number;
  case NC_SET_U64:
    return *CMEMBER(uint64_t, s, cfg) != (uint64_t)s->omit_number;
  case NC_SET_DOUBLE:
    return *CMEMBER(double, s, cfg) != s->omit_number;
  case NC_SET_ABI:
    return cfg->host_major * 1000.0 + cfg->host_minor != s->omit_number;
  case NC_SET_PATH:
  case NC_SET_FILE_ID:
    return 1;
  }
  return 1;
}

void nc_setting_argument(const nc_setting *s, const nc_config *cfg, nc_strbuf *out)
{
  if (s->word) {
    nc_strbuf_puts(out, s->word(*CMEMBER(int, s, cfg)));
  } else if (s->kind == NC_SET_ABI) {
    nc_strbuf_printf(out, "%u.%u", cfg->host_major, cfg->host_minor);
  } else if (s->kind == NC_SET_DOUBLE) {
    nc_strbuf_printf(out, "%g", *CMEMBER(double, s, cfg));
  } else {
    nc_setting_format(s, cfg, out);
  }
}
