/* SPDX-License-Identifier: Apache-2.0 */
#include "violations.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* Texts kept per rule; later ones are only counted. */
#define KEPT 8

typedef struct slot {
  char text[NC_VIOLATION_TEXT];
  _Atomic int ready; /* the text is complete */
} slot;

static slot kept[NC_RULE_COUNT][KEPT];
static atomic_size_t counts[NC_RULE_COUNT];
static nc_violation_sink _Atomic sink;
static atomic_int muted;

void nc_violation_set_sink(nc_violation_sink s) { atomic_store(&sink, s); }
void nc_violation_mute(int on) { atomic_store(&muted, on != 0); }

void nc_violation_record(nc_rule rule, const char *text)
{
  if ((int)rule < 0 || rule >= NC_RULE_COUNT || atomic_load(&muted))
    return;
  /* The ordinal reserves a slot before anything is written to it; the
   * slot is published (ready) only once its text is complete. */
  size_t ordinal = atomic_fetch_add(&counts[rule], 1);
  if (ordinal < KEPT) {
    slot *s = &kept[rule][ordinal];
    size_t n = strnlen(text, sizeof(s->text) - 1);
    memcpy(s->text, text, n);
    s->text[n] = '\0';
    atomic_store(&s->ready, 1);
  }
  nc_violation_sink to = atomic_load(&sink);
  if (to)
    to(rule, text, ordinal);
}

void nc_violation_recordf(nc_rule rule, const char *fmt, ...)
{
  char text[NC_VIOLATION_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  nc_violation_record(rule, text);
}

size_t nc_violation_count(nc_rule rule)
{
  return (int)rule >= 0 && rule < NC_RULE_COUNT ? atomic_load(&counts[rule]) : 0;
}

const char *nc_violation_text(nc_rule rule, size_t i)
{
  if ((int)rule < 0 || rule >= NC_RULE_COUNT || i >= KEPT || i >= atomic_load(&counts[rule]) ||
      !atomic_load(&kept[rule][i].ready))
    return NULL;
  return kept[rule][i].text;
}

/* Only the slots a record reserved: every forked call resets, and a store
 * to each slot would copy (or fault in) every page of the table. */
void nc_violation_reset(void)
{
  for (int r = 0; r < NC_RULE_COUNT; r++) {
    size_t n = atomic_load(&counts[r]);
    if (!n)
      continue;
    for (size_t i = 0; i < n && i < KEPT; i++)
      atomic_store(&kept[r][i].ready, 0);
    atomic_store(&counts[r], 0);
  }
}
