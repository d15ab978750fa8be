/* SPDX-License-Identifier: Apache-2.0 */
/* What a conformance case sees: the run's configuration, the plugin, and the
 * calls that record evidence. A case never aborts on a failed check: each
 * check becomes a line of evidence (call, expected, observed) and the
 * parent derives the verdict from them. */
#ifndef NC_CASE_API_H
#define NC_CASE_API_H

#include <stdarg.h>

#include "config.h"
#include "loader.h"
#include "nve_conform.h"

/* How far the plugin must get before a case can run. */
typedef enum {
  NC_STAGE_FILE = 0, /* the file is on disk (static checks) */
  NC_STAGE_OPEN,     /* dlopen succeeded and the symbols are resolved */
  NC_STAGE_ACCEPTED, /* the host's loader accepted it; no handshake yet */
  NC_STAGE_LOADED,   /* accepted, and the services handshake done */
} nc_stage;

/* Which plugins a case applies to. */
typedef enum {
  NC_APPLIES_ANY = 0,      /* internal and external mode */
  NC_APPLIES_EXTERNAL = 1, /* external mode only */
} nc_applies;

typedef struct nc_case nc_case;
typedef void (*nc_case_fn)(nc_case *c);

/* One row of the case table. */
typedef struct nc_case_def {
  nc_rule_info info;
  nc_applies applies_to;
  nc_stage stage;
  nc_case_fn fn;
} nc_case_def;

struct nc_case {
  const nc_config *cfg;
  const nc_case_def *def;
  nc_plugin *plugin; /* opened for stage >= NC_STAGE_OPEN, else NULL */
};

/* Evidence levels, as written on the channel. */
#define NC_LEVEL_FAIL "fail"   /* breaks the rule */
#define NC_LEVEL_WARN "warn"   /* breaks a SHOULD part of the rule */
#define NC_LEVEL_NOTE "note"   /* what was checked and held */
#define NC_LEVEL_ERROR "error" /* the harness could not check */

/* Records a check. observed is a printf format. */
void nc_fail(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_warn(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_note(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_harness_error(nc_case *c, const char *what, ...) __attribute__((format(printf, 2, 3)));
/* The rule does not apply, or cannot be decided; reason is printf. */
void nc_skip(nc_case *c, const char *reason, ...) __attribute__((format(printf, 2, 3)));
/* Facts for the report header (the load probe emits these). */
void nc_info(nc_case *c, const char *key, const char *value, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads a string a plugin returned without trusting it: copies at most
 * bound bytes into out (NUL-terminated). Returns the length, -1 for an
 * unreadable pointer, -2 when no NUL came within bound. */
long nc_read_plugin_string(const char *p, char *out, size_t bound);
/* Nonzero when s is valid UTF-8. */
int nc_utf8_valid(const char *s);

#endif
