/* SPDX-License-Identifier: Apache-2.0 */
#include "json_span.h"

#include <stdlib.h>
#include <string.h>

/* Nesting deeper than this is refused rather than recursed into. */
#define MAX_DEPTH 512

typedef struct cursor {
  const char *p;
  int depth;
} cursor;

static void skip_space(cursor *c)
{
  while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')
    c->p++;
}

/* Past a string at c->p; copies its decoded text (simple escapes, others
 * kept as written) into out when given. Returns 0 or -1. */
static int skip_string(cursor *c, char *out, size_t outlen)
{
  if (*c->p != '"')
    return -1;
  size_t used = 0;
  for (c->p++; *c->p && *c->p != '"'; c->p++) {
    char ch = *c->p;
    if (ch == '\\') {
      c->p++;
      if (!*c->p)
        return -1;
      ch = *c->p == 'n' ? '\n' : *c->p == 't' ? '\t' : *c->p;
    }
    if (out && used + 1 < outlen)
      out[used++] = ch;
  }
  if (out && outlen)
    out[used < outlen ? used : outlen - 1] = '\0';
  if (*c->p != '"')
    return -1;
  c->p++;
  return 0;
}

static int skip_value(cursor *c);

/* Past the rest of an object or array whose opening bracket c->p is on. */
static int skip_container(cursor *c, char close)
{
  if (++c->depth > MAX_DEPTH)
    return -1;
  c->p++;
  skip_space(c);
  if (*c->p == close) {
    c->p++;
    c->depth--;
    return 0;
  }
  for (;;) {
    if (close == '}') {
      if (skip_string(c, NULL, 0) != 0)
        return -1;
      skip_space(c);
      if (*c->p++ != ':')
        return -1;
    }
    if (skip_value(c) != 0)
      return -1;
    skip_space(c);
    if (*c->p == ',') {
      c->p++;
      skip_space(c);
      continue;
    }
    if (*c->p != close)
      return -1;
    c->p++;
    c->depth--;
    return 0;
  }
}

static int skip_value(cursor *c)
{
  skip_space(c);
  switch (*c->p) {
  case '"': return skip_string(c, NULL, 0);
  case '{': return skip_container(c, '}');
  case '[': return skip_container(c, ']');
  case '\0': return -1;
  default: {
    /* A number or a literal: up to the next delimiter. */
    const char *from = c->p;
    while (*c->p && !strchr(",]} \t\n\r", *c->p))
      c->p++;
    return c->p > from ? 0 : -1;
  }
  }
}

/* Moves c to the value of member name of the object at c->p. */
static int enter_member(cursor *c, const char *name)
{
  if (*c->p != '{')
    return -1;
  c->p++;
  skip_space(c);
  if (*c->p == '}')
    return -1;
  for (;;) {
    char key[256];
    if (skip_string(c, key, sizeof(key)) != 0)
      return -1;
    skip_space(c);
    if (*c->p++ != ':')
      return -1;
    skip_space(c);
    if (strcmp(key, name) == 0)
      return 0;
    if (skip_value(c) != 0)
      return -1;
    skip_space(c);
    if (*c->p++ != ',')
      return -1;
    skip_space(c);
  }
}

/* Moves c to element index of the array at c->p. */
static int enter_element(cursor *c, long index)
{
  if (*c->p != '[' || index < 0)
    return -1;
  c->p++;
  skip_space(c);
  if (*c->p == ']')
    return -1;
  for (long i = 0; i < index; i++) {
    if (skip_value(c) != 0)
      return -1;
    skip_space(c);
    if (*c->p++ != ',')
      return -1;
    skip_space(c);
  }
  return 0;
}

int nc_json_span(const char *text, const char *const *path, size_t depth, size_t *start,
                 size_t *len)
{
  if (!text)
    return -1;
  cursor c = {text, 0};
  skip_space(&c);
  for (size_t i = 0; i < depth; i++) {
    int rc;
    if (path[i][0] == '#') {
      char *end;
      long index = strtol(path[i] + 1, &end, 10);
      rc = *end || end == path[i] + 1 ? -1 : enter_element(&c, index);
    } else {
      rc = enter_member(&c, path[i]);
    }
    if (rc != 0)
      return -1;
    skip_space(&c);
  }
  const char *from = c.p;
  if (skip_value(&c) != 0)
    return -1;
  *start = (size_t)(from - text);
  *len = (size_t)(c.p - from);
  return 0;
}

char *nc_json_value_text(const char *text, const char *const *path, size_t depth)
{
  size_t start, len;
  if (nc_json_span(text, path, depth, &start, &len) != 0)
    return NULL;
  char *copy = malloc(len + 1);
  if (copy) {
    memcpy(copy, text + start, len);
    copy[len] = '\0';
  }
  return copy;
}
