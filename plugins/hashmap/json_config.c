/* SPDX-License-Identifier: Apache-2.0 */
#include "json_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct parser {
  const char *p;
  const char *const *keys;
  int64_t *values;
  char *err;
  size_t errlen;
} parser;

static int fail(parser *ps, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ps->err, ps->errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static void skip_ws(parser *ps)
{
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
    ps->p++;
}

/* Parses a string; copies up to outlen-1 bytes of its raw text into out. */
static int parse_string(parser *ps, char *out, size_t outlen)
{
  if (*ps->p != '"')
    return fail(ps, "expected a string at offset");
  ps->p++;
  size_t n = 0;
  while (*ps->p != '"') {
    unsigned char ch = (unsigned char)*ps->p;
    if (ch == '\0')
      return fail(ps, "unterminated string");
    if (ch < 0x20)
      return fail(ps, "control character in string");
    if (ch == '\\') {
      ps->p++;
      if (!strchr("\"\\/bfnrtu", *ps->p) || *ps->p == '\0')
        return fail(ps, "invalid escape in string");
      if (*ps->p == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!strchr("0123456789abcdefABCDEF", ps->p[i]) || ps->p[i] == '\0')
            return fail(ps, "invalid \\u escape in string");
        ps->p += 4;
      }
    }
    if (out && n + 1 < outlen)
      out[n++] = (char)ch;
    ps->p++;
  }
  ps->p++;
  if (out)
    out[n] = '\0';
  return 0;
}

static int parse_number(parser *ps, int *is_int, int64_t *ival)
{
  const char *start = ps->p;
  if (*ps->p == '-')
    ps->p++;
  if (*ps->p < '0' || *ps->p > '9')
    return fail(ps, "invalid number");
  while (*ps->p >= '0' && *ps->p <= '9')
    ps->p++;
  *is_int = 1;
  if (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E') {
    *is_int = 0;
    if (*ps->p == '.') {
      ps->p++;
      if (*ps->p < '0' || *ps->p > '9')
        return fail(ps, "invalid number");
      while (*ps->p >= '0' && *ps->p <= '9')
        ps->p++;
    }
    if (*ps->p == 'e' || *ps->p == 'E') {
      ps->p++;
      if (*ps->p == '+' || *ps->p == '-')
        ps->p++;
      if (*ps->p < '0' || *ps->p > '9')
        return fail(ps, "invalid number");
      while (*ps->p >= '0' && *ps->p <= '9')
        ps->p++;
    }
  }
  if (*is_int) {
    errno = 0;
    *ival = strtoll(start, NULL, 10);
    if (errno == ERANGE)
      *is_int = 0;
  }
  return 0;
}

static int parse_value(parser *ps, int depth, int *is_int, int64_t *ival);

static int parse_container(parser *ps, int depth, int object)
{
  if (depth > MAX_DEPTH)
    return fail(ps, "nested more than %d levels deep", MAX_DEPTH);
  char close = object ? '}' : ']';
  ps->p++;
  skip_ws(ps);
  if (*ps->p == close) {
    ps->p++;
    return 0;
  }
  for (;;) {
    char key[64] = "";
    skip_ws(ps);
    if (object) {
      if (parse_string(ps, key, sizeof(key)) != 0)
        return -1;
      skip_ws(ps);
      if (*ps->p != ':')
        return fail(ps, "expected ':' after a member name");
      ps->p++;
      skip_ws(ps);
    }
    int is_int = 0;
    int64_t ival = 0;
    if (parse_value(ps, depth + 1, &is_int, &ival) != 0)
      return -1;
    for (size_t i = 0; object && depth == 1 && ps->keys[i]; i++) {
      if (strcmp(key, ps->keys[i]) != 0)
        continue;
      if (!is_int)
        return fail(ps, "\"%s\" must be an integer", key);
      ps->values[i] = ival;
    }
    skip_ws(ps);
    if (*ps->p == ',') {
      ps->p++;
      continue;
    }
    if (*ps->p == close) {
      ps->p++;
      return 0;
    }
    return fail(ps, "expected ',' or '%c'", close);
  }
}

static int parse_value(parser *ps, int depth, int *is_int, int64_t *ival)
{
  *is_int = 0;
  switch (*ps->p) {
  case '{': return parse_container(ps, depth, 1);
  case '[': return parse_container(ps, depth, 0);
  case '"': return parse_string(ps, NULL, 0);
  case 't': if (strncmp(ps->p, "true", 4) == 0) { ps->p += 4; return 0; } break;
  case 'f': if (strncmp(ps->p, "false", 5) == 0) { ps->p += 5; return 0; } break;
  case 'n': if (strncmp(ps->p, "null", 4) == 0) { ps->p += 4; return 0; } break;
  default:
    if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
      return parse_number(ps, is_int, ival);
  }
  return fail(ps, "invalid JSON value");
}

int hm_json_read_ints(const char *json, const char *const *keys, int64_t *values, char *err,
                      size_t errlen)
{
  parser ps = {json, keys, values, err, errlen};
  if (!json)
    return fail(&ps, "config is NULL");
  skip_ws(&ps);
  if (*ps.p != '{')
    return fail(&ps, "config must be a JSON object");
  if (parse_container(&ps, 1, 1) != 0)
    return -1;
  skip_ws(&ps);
  if (*ps.p != '\0')
    return fail(&ps, "trailing characters after the JSON object");
  return 0;
}
