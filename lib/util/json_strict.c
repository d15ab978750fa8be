/* SPDX-License-Identifier: Apache-2.0 */
#include "json_strict.h"

#include <stdio.h>
#include <string.h>

/* Line and column (from 1) of at in text. */
static void position(const char *text, const char *at, int *line, int *column)
{
  *line = *column = 1;
  for (const char *p = text; p < at && *p; p++)
    if (*p == '\n')
      ++*line, *column = 1;
    else
      ++*column;
}

/* The first byte of text that is not part of valid UTF-8, or NULL. */
static const char *bad_utf8(const char *text)
{
  const unsigned char *p = (const unsigned char *)text;
  while (*p) {
    int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2
                        : (*p & 0xf8) == 0xf0 ? 3 : -1;
    if (n < 0 || (n == 1 && *p < 0xc2) || (n == 3 && *p > 0xf4))
      return (const char *)p;
    for (int i = 1; i <= n; i++)
      if ((p[i] & 0xc0) != 0x80)
        return (const char *)p;
    if ((n == 2 && *p == 0xe0 && p[1] < 0xa0) || (n == 2 && *p == 0xed && p[1] >= 0xa0) ||
        (n == 3 && *p == 0xf0 && p[1] < 0x90) || (n == 3 && *p == 0xf4 && p[1] >= 0x90))
      return (const char *)p; /* overlong, a surrogate, or past U+10FFFF */
    p += n + 1;
  }
  return NULL;
}

/* The first member named twice in one object below v, or NULL. */
static const cJSON *duplicate(const cJSON *v)
{
  for (const cJSON *a = v ? v->child : NULL; a; a = a->next) {
    if (cJSON_IsObject(v))
      for (const cJSON *b = a->next; b; b = b->next)
        if (a->string && b->string && strcmp(a->string, b->string) == 0)
          return b;
    const cJSON *below = duplicate(a);
    if (below)
      return below;
  }
  return NULL;
}

cJSON *nc_json_parse_strict(const char *text, char *err, size_t errlen)
{
  int line, column;
  const char *bad = bad_utf8(text);
  if (bad) {
    position(text, bad, &line, &column);
    snprintf(err, errlen, "line %d, column %d: not UTF-8 (byte 0x%02x)", line, column,
             (unsigned char)*bad);
    return NULL;
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  if (!root) {
    position(text, end ? end : text, &line, &column);
    snprintf(err, errlen, "line %d, column %d: %s", line, column,
             end && *end ? "not valid JSON here, or something after the value" : "ends early");
    return NULL;
  }
  const cJSON *twice = duplicate(root);
  if (twice) {
    snprintf(err, errlen, "the member \"%.80s\" is given twice in one object", twice->string);
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}
