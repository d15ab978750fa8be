/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "evidence.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* Evidence is bounded per kind (level, op, expected): the first KEPT
 * lines of a kind go out in full, the rest as one count at the end of the
 * case, so that one defect seen in every key makes a few lines, and every
 * kind still shows. --evidence all lifts the bound. */
#define KEPT 5
#define KINDS 256

static struct kind {
  uint64_t hash;
  size_t seen;
  char level[8], op[64], expected[160];
} kinds[KINDS];
static size_t nkinds;

static uint64_t hash_text(uint64_t h, const char *s, size_t len)
{
  for (size_t i = 0; i < len && s[i]; i++)
    h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h;
}

/* The op a call names: "find (n=5, ...)" is find. */
static size_t op_length(const char *call)
{
  const char *paren = strstr(call, " (");
  return paren ? (size_t)(paren - call) : strlen(call);
}

/* 1 when this line goes out in full. */
static int keep_line(const nc_case *c, const char *level, const char *call, const char *expected)
{
  if (c && c->cfg && c->cfg->evidence_all)
    return 1;
  size_t oplen = op_length(call);
  uint64_t h = hash_text(hash_text(hash_text(0xcbf29ce484222325ull, level, 8), call, oplen),
                         expected, 4096);
  for (size_t i = 0; i < nkinds; i++)
    if (kinds[i].hash == h)
      return ++kinds[i].seen <= KEPT;
  if (nkinds == KINDS)
    return 1; /* more kinds than the table holds: nothing is dropped */
  struct kind *k = &kinds[nkinds++];
  k->hash = h;
  k->seen = 1;
  snprintf(k->level, sizeof(k->level), "%s", level);
  snprintf(k->op, sizeof(k->op), "%.*s", (int)(oplen < 63 ? oplen : 63), call);
  snprintf(k->expected, sizeof(k->expected), "%s", expected);
  return 1;
}

void nc_evidence_flush(void)
{
  for (size_t i = 0; i < nkinds; i++) {
    if (kinds[i].seen <= KEPT)
      continue;
    char observed[200];
    snprintf(observed, sizeof(observed), "%zu more %s line%s of this kind, not listed "
             "(--evidence all lists every one)", kinds[i].seen - KEPT, kinds[i].level,
             kinds[i].seen - KEPT == 1 ? "" : "s");
    const char *f[] = {NC_LEVEL_NOTE, kinds[i].op, kinds[i].expected, observed};
    nc_trace_record("CHECK", 4, f);
  }
  nkinds = 0;
}

static void send(const nc_case *c, const char *level, const char *call, const char *expected,
                 const char *observed, const char *owner)
{
  if (!keep_line(c, level, call, expected))
    return;
  const char *f[] = {level, call, expected, observed, owner};
  nc_trace_record("CHECK", owner ? 5 : 4, f);
}

static void check(const nc_case *c, const char *level, const char *call, const char *expected,
                  const char *fmt, va_list ap)
{
  char observed[2048];
  vsnprintf(observed, sizeof(observed), fmt, ap);
  send(c, level, call, expected, observed, NULL);
}

#define DEFINE_CHECK(NAME, LEVEL)                                                           \
  void NAME(nc_case *c, const char *call, const char *expected, const char *observed, ...) \
  {                                                                                         \
    va_list ap;                                                                             \
    va_start(ap, observed);                                                                 \
    check(c, LEVEL, call, expected, observed, ap);                                          \
    va_end(ap);                                                                             \
  }

DEFINE_CHECK(nc_fail, NC_LEVEL_FAIL)
DEFINE_CHECK(nc_warn, NC_LEVEL_WARN)
DEFINE_CHECK(nc_note, NC_LEVEL_NOTE)

void nc_harness_error(nc_case *c, const char *what, ...)
{
  va_list ap;
  va_start(ap, what);
  check(c, NC_LEVEL_ERROR, "harness", "the case can run", what, ap);
  va_end(ap);
}

static void skip(const char *word, const char *reason, va_list ap)
{
  char text[1024];
  vsnprintf(text, sizeof(text), reason, ap);
  const char *f[] = {text, word};
  nc_trace_record("SKIP", 2, f);
}

void nc_not_applicable(nc_case *c, const char *reason, ...)
{
  (void)c;
  va_list ap;
  va_start(ap, reason);
  skip(NC_SKIP_WORD_NA, reason, ap);
  va_end(ap);
}

void nc_untested(nc_case *c, const char *reason, ...)
{
  (void)c;
  va_list ap;
  va_start(ap, reason);
  skip(NC_SKIP_WORD_UNTESTED, reason, ap);
  va_end(ap);
}

void nc_skip_blocked(nc_case *c, nc_rule owner, const char *reason, ...)
{
  (void)c;
  char text[1024];
  va_list ap;
  va_start(ap, reason);
  vsnprintf(text, sizeof(text), reason, ap);
  va_end(ap);
  const char *f[] = {nc_rule_text(owner), text};
  nc_trace_record(NC_TAG_BLOCKED, 2, f);
}

/* The text of a failed check that owners judge: the case's own failure
 * when its rule is among them, else one the run charges (verdict.c). */
static void fail_owned(nc_case *c, const nc_rule *owners, int nowners, int proven,
                       const char *call, const char *expected, const char *text)
{
  char list[64] = ""; /* "TBL-08,TBL-06", or "!TBL-06" when proven */
  size_t at = proven && nowners == 1 ? (size_t)snprintf(list, sizeof(list), "!") : 0;
  for (int i = 0; i < nowners; i++) {
    if (owners[i] == c->rule) {
      nc_fail(c, call, expected, "%s", text);
      return;
    }
    at += (size_t)snprintf(list + at, at < sizeof(list) ? sizeof(list) - at : 0, "%s%s",
                           i ? "," : "", nc_rule_text(owners[i]));
  }
  send(c, NC_LEVEL_FAIL, call, expected, text, list);
}

/* One owner's failure, proven or not, from a printf format. */
static void fail_one_owner(nc_case *c, nc_rule owner, int proven, const char *call,
                           const char *expected, const char *observed, va_list ap)
{
  char text[2048];
  vsnprintf(text, sizeof(text), observed, ap);
  fail_owned(c, &owner, 1, proven, call, expected, text);
}

void nc_fail_owned(nc_case *c, nc_rule owner, const char *call, const char *expected,
                   const char *observed, ...)
{
  va_list ap;
  va_start(ap, observed);
  fail_one_owner(c, owner, 0, call, expected, observed, ap);
  va_end(ap);
}

void nc_fail_proven(nc_case *c, nc_rule owner, const char *call, const char *expected,
                    const char *observed, ...)
{
  va_list ap;
  va_start(ap, observed);
  fail_one_owner(c, owner, 1, call, expected, observed, ap);
  va_end(ap);
}

void nc_fail_owned_by(nc_case *c, const nc_rule *owners, int nowners, const char *call,
                      const char *expected, const char *observed, ...)
{
  char text[2048];
  va_list ap;
  va_start(ap, observed);
  vsnprintf(text, sizeof(text), observed, ap);
  va_end(ap);
  fail_owned(c, owners, nowners, 0, call, expected, text);
}

void nc_refused(nc_case *c, const char *stage, const char *config, int status,
                const char *message)
{
  (void)c;
  char code[16];
  snprintf(code, sizeof(code), "%d", status);
  const char *f[] = {stage, config, code, message ? message : ""};
  nc_trace_record(NC_TAG_REFUSED, 4, f);
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
