/* SPDX-License-Identifier: Apache-2.0 */
/* The run's settings: each member of nc_config a case process needs, with
 * its key in the configuration the parent hands every case (config_io.c)
 * and, when an option sets it, that option's name and default for the
 * reproduction line (reproduce.c). The options' settings come from their
 * rows in run_options.def; the rest are what the parent works out. */
#ifndef NC_RUN_SETTINGS_H
#define NC_RUN_SETTINGS_H

#include <stddef.h>

#include "run_config.h"
#include "strbuf.h"

typedef enum {
  NC_SET_PATH,     /* char[PATH_MAX] */
  NC_SET_TEXT,     /* const char *; never NULL */
  NC_SET_OPT_TEXT, /* const char *, or NULL */
  NC_SET_INT,
  NC_SET_FLAG,     /* int, 0 or 1: a flag on the command line */
  NC_SET_LONG,
  NC_SET_U64,
  NC_SET_DOUBLE,
  NC_SET_ABI,      /* host_major and host_minor: "1.0" on the command line */
  NC_SET_FILE_ID,  /* unsigned long long[4] */
} nc_setting_kind;

typedef struct nc_setting {
  const char *key; /* in the case's configuration */
  nc_setting_kind kind;
  size_t offset;      /* of the member in nc_config */
  const char *option; /* the option that sets it (no "--"), or NULL: not one */
  /* When the reproduction line leaves the option out: the value of
   * nc_config's default (omit_text for text, omit_number otherwise; for
   * the ABI, major * 1000 + minor). */
  const char *omit_text;
  double omit_number;
  int always;                   /* an option the line always carries (the seed) */
  const char *(*word)(int);     /* an enum's word on the command line, or NULL */
} nc_setting;

extern const nc_setting nc_settings[];
extern const size_t nc_setting_count;

/* The words of the word-valued options (run_options.def): "?" past the last. */
const char *nc_schedule_word(int v);
const char *nc_cuda_word(int v);
const char *nc_evidence_word(int v);

/* The setting's value as the configuration writes it ("" for NULL). */
void nc_setting_format(const nc_setting *s, const nc_config *cfg, nc_strbuf *out);
/* Sets the member from text nc_setting_format wrote; 0, or -1 when it
 * does not parse. Text is copied. */
int nc_setting_parse(const nc_setting *s, nc_config *cfg, const char *text);
/* Frees the copy nc_setting_parse made for the member (text settings),
 * leaving it NULL; other settings are left as they are. */
void nc_setting_release(const nc_setting *s, nc_config *cfg);
/* 1 when the reproduction line carries the setting. */
int nc_setting_in_reproduce(const nc_setting *s, const nc_config *cfg);
/* The option's argument on the command line (the enum's word, "1.0"). */
void nc_setting_argument(const nc_setting *s, const nc_config *cfg, nc_strbuf *out);

#endif
