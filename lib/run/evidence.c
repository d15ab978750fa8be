/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "evidence.h"

#include <stdarg.h>
#include <stdio.h>

#include "trace.h"

static void check(const char *level, const char *call, const char *expected, const char *fmt,
                  va_list ap)
{
  char observed[2048];
  vsnprintf(observed, sizeof(observed), fmt, ap);
  const char *f[] = {level, call, expected, observed};
  nc_trace_record("CHECK", 4, f);
}

#define DEFINE_CHECK(NAME, LEVEL)                                                           \
  void NAME(nc_case *c, const char *call, const char *expected, const char *observed, ...) \
  {                                                                                         \
    (void)c;                                                                                \
    va_list ap;                                                                             \
    va_start(ap, observed);                                                                 \
    check(LEVEL, call, expected, observed, ap);                                             \
    va_end(ap);                                                                             \
  }

DEFINE_CHECK(nc_fail, NC_LEVEL_FAIL)
DEFINE_CHECK(nc_warn, NC_LEVEL_WARN)
DEFINE_CHECK(nc_note, NC_LEVEL_NOTE)

void nc_harness_error(nc_case *c, const char *what, ...)
{
  (void)c;
  va_list ap;
  va_start(ap, what);
  check(NC_LEVEL_ERROR, "harness", "the case can run", what, ap);
  va_end(ap);
}

void nc_skip(nc_case *c, const char *reason, ...)
{
  (void)c;
  char text[1024];
  va_list ap;
  va_start(ap, reason);
  vsnprintf(text, sizeof(text), reason, ap);
  va_end(ap);
  const char *f[] = {text};
  nc_trace_record("SKIP", 1, f);
}

void nc_info(nc_case *c, const char *key, const char *value, ...)
{
  (void)c;
  char text[1024];
  va_list ap;
  va_start(ap, value);
  vsnprintf(text, sizeof(text), value, ap);
  va_end(ap);
  const char *f[] = {key, text};
  nc_trace_record("INFO", 2, f);
}
