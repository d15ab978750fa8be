/* SPDX-License-Identifier: Apache-2.0 */
#include "limits_env.h"

#include <stdio.h>
#include <string.h>

static const char *const keys[] = {"as", "fsize", "nproc", "total"};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static long *field(nc_limits *l, size_t key)
{
  long *f[NKEYS] = {&l->as_mib, &l->fsize_mib, &l->nproc, &l->total_mib};
  return f[key];
}

/* The key of the item at s (up to '='), or NKEYS. */
static size_t key_at(const char *s, size_t len)
{
  for (size_t k = 0; k < NKEYS; k++)
    if (strlen(keys[k]) == len && strncmp(s, keys[k], len) == 0)
      return k;
  return NKEYS;
}

/* The decimal at s (len digits, nothing else) into *v, at most max. */
static int number_at(const char *s, size_t len, long max, long *v)
{
  if (len == 0)
    return -1;
  long n = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    if (n > (max - (s[i] - '0')) / 10)
      return -2;
    n = n * 10 + (s[i] - '0');
  }
  *v = n;
  return 0;
}

int nc_limits_parse(const char *text, nc_limits *l, char *err, size_t errlen)
{
  if (!text || !*text)
    return 0;
  nc_limits out = *l;
  int seen[NKEYS] = {0};
  for (const char *item = text;; item++) {
    size_t len = strcspn(item, ",");
    const char *eq = memchr(item, '=', len);
    size_t klen = eq ? (size_t)(eq - item) : len;
    size_t key = key_at(item, klen);
    if (len == 0) {
      snprintf(err, errlen, "an empty item (a comma too many)");
      return -1;
    }
    if (key == NKEYS || !eq) {
      snprintf(err, errlen, "'%.*s' is not KEY=NUMBER with KEY as, fsize, nproc or total",
               (int)len, item);
      return -1;
    }
    if (seen[key]++) {
      snprintf(err, errlen, "%s is given twice", keys[key]);
      return -1;
    }
    long max = key == 2 ? NC_LIMITS_MAX_NPROC : NC_LIMITS_MAX_MIB;
    int bad = number_at(eq + 1, len - klen - 1, max, field(&out, key));
    if (bad) {
      snprintf(err, errlen, "%s=%.*s: %s", keys[key], (int)(len - klen - 1), eq + 1,
               bad == -2 ? "too large" : "not a decimal number");
      if (bad == -2)
        snprintf(err + strlen(err), errlen - strlen(err), " (at most %ld)", max);
      return -1;
    }
    item += len;
    if (!*item)
      break;
  }
  *l = out;
  return 0;
}
