/* SPDX-License-Identifier: Apache-2.0 */
#include "violations.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define KEPT 128

typedef struct entry {
  char rule[8];
  char text[NC_VIOLATION_TEXT];
  _Atomic int ready;
} entry;

static entry kept[KEPT];
static atomic_size_t next_slot;
static atomic_size_t counts[32];
static char count_rules[32][8];
static atomic_int count_rules_used;

static size_t rule_index(const char *rule)
{
  int used = atomic_load(&count_rules_used);
  for (int i = 0; i < used; i++)
    if (strncmp(count_rules[i], rule, 7) == 0)
      return (size_t)i;
  int i = atomic_fetch_add(&count_rules_used, 1);
  if (i >= 32)
    return 31;
  strncpy(count_rules[i], rule, 7);
  return (size_t)i;
}

void nc_violation_record(const char *rule, const char *text)
{
  atomic_fetch_add(&counts[rule_index(rule)], 1);
  size_t slot = atomic_fetch_add(&next_slot, 1);
  if (slot >= KEPT)
    return;
  entry *e = &kept[slot];
  strncpy(e->rule, rule, sizeof(e->rule) - 1);
  strncpy(e->text, text, sizeof(e->text) - 1);
  atomic_store(&e->ready, 1);
}

void nc_violation_recordf(const char *rule, const char *fmt, ...)
{
  char text[NC_VIOLATION_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  nc_violation_record(rule, text);
}

size_t nc_violation_count(const char *rule)
{
  int used = atomic_load(&count_rules_used);
  for (int i = 0; i < used && i < 32; i++)
    if (strncmp(count_rules[i], rule, 7) == 0)
      return atomic_load(&counts[i]);
  return 0;
}

const char *nc_violation_text(const char *rule, size_t i)
{
  size_t n = atomic_load(&next_slot);
  for (size_t k = 0; k < n && k < KEPT; k++) {
    if (!atomic_load(&kept[k].ready) || strncmp(kept[k].rule, rule, 7) != 0)
      continue;
    if (i-- == 0)
      return kept[k].text;
  }
  return NULL;
}

void nc_violation_reset(void)
{
  memset(kept, 0, sizeof(kept));
  atomic_store(&next_slot, 0);
  for (int i = 0; i < 32; i++)
    atomic_store(&counts[i], 0);
}
