/* SPDX-License-Identifier: Apache-2.0 */
#include "mem_errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies the text between <tag> and </tag> that starts inside [from, end),
 * XML entities decoded; returns the position after the closing tag, or
 * NULL when there is none. */
static const char *element(const char *from, const char *end, const char *tag, char *out,
                           size_t len)
{
  char open[32], close[32];
  snprintf(open, sizeof(open), "<%s>", tag);
  snprintf(close, sizeof(close), "</%s>", tag);
  const char *a = strstr(from, open);
  if (!a || a >= end)
    return NULL;
  a += strlen(open);
  const char *b = strstr(a, close);
  if (!b || b > end)
    return NULL;
  static const struct {
    const char *entity;
    char c;
  } entities[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
  size_t n = 0;
  for (const char *p = a; p < b && n + 1 < len;) {
    size_t e = 0;
    while (e < sizeof(entities) / sizeof(entities[0]) &&
           strncmp(p, entities[e].entity, strlen(entities[e].entity)) != 0)
      e++;
    if (e < sizeof(entities) / sizeof(entities[0])) {
      out[n++] = entities[e].c;
      p += strlen(entities[e].entity);
    } else {
      out[n++] = *p++;
    }
  }
  if (len)
    out[n] = '\0';
  return b + strlen(close);
}

/* The frames of the first <stack> in [from, end). */
static void memcheck_stack(const char *from, const char *end, nc_mem_error *e)
{
  const char *stack = strstr(from, "<stack>");
  const char *stack_end = stack ? strstr(stack, "</stack>") : NULL;
  if (!stack || !stack_end || stack_end > end)
    return;
  for (const char *f = strstr(stack, "<frame>"); f && f < stack_end && e->nframes < NC_MEM_FRAMES;
       f = strstr(f + 1, "<frame>")) {
    const char *fend = strstr(f, "</frame>");
    if (!fend || fend > stack_end)
      break;
    nc_mem_frame *fr = &e->frames[e->nframes++];
    memset(fr, 0, sizeof(*fr));
    element(f, fend, "obj", fr->obj, sizeof(fr->obj));
    element(f, fend, "fn", fr->fn, sizeof(fr->fn));
    char file[96] = "", line[16] = "";
    if (element(f, fend, "file", file, sizeof(file)) && element(f, fend, "line", line, sizeof(line)))
      snprintf(fr->where, sizeof(fr->where), "%s:%s", file, line);
  }
}

int nc_mem_parse_memcheck(const char *xml, nc_mem_error *out, int max, int *seen)
{
  int n = 0, all = 0;
  for (const char *p = xml ? strstr(xml, "<error>") : NULL; p; p = strstr(p + 1, "<error>")) {
    const char *end = strstr(p, "</error>");
    if (!end)
      break;
    char kind[48] = "";
    element(p, end, "kind", kind, sizeof(kind));
    if (strncmp(kind, "Leak_", 5) == 0)
      continue; /* LIF-03 and OWN-04 judge leaks */
    all++;
    if (n >= max)
      continue;
    nc_mem_error *e = &out[n++];
    memset(e, 0, sizeof(*e));
    snprintf(e->kind, sizeof(e->kind), "%s", kind);
    if (!element(p, end, "what", e->what, sizeof(e->what))) {
      const char *x = strstr(p, "<xwhat>");
      if (x && x < end)
        element(x, end, "text", e->what, sizeof(e->what));
    }
    memcheck_stack(p, end, e);
  }
  if (seen)
    *seen = all;
  return n;
}

/* "    #3 0x7f00deadbeef  (/path/obj.so+0x1189)" into a frame; 0 when the
 * line is no frame. */
static int asan_frame(const char *line, nc_mem_frame *fr)
{
  while (*line == ' ')
    line++;
  if (line[0] != '#')
    return 0;
  memset(fr, 0, sizeof(*fr));
  const char *open = strchr(line, '('), *plus = open ? strstr(open, "+0x") : NULL;
  const char *close = plus ? strchr(plus, ')') : NULL;
  const char *in = strstr(line, " in ");
  if (in && (!open || in < open)) { /* symbolized: "#0 0x.. in fn file:line" */
    sscanf(in + 4, "%127s %127s", fr->fn, fr->where);
  }
  if (open && plus && close) {
    size_t len = (size_t)(plus - open - 1);
    if (len >= sizeof(fr->obj))
      len = sizeof(fr->obj) - 1;
    memcpy(fr->obj, open + 1, len);
    fr->obj[len] = '\0';
    fr->offset = strtoull(plus + 1, NULL, 16);
    fr->has_offset = 1;
  }
  return 1;
}

int nc_mem_parse_asan(const char *log, nc_mem_error *out, int max, int *seen)
{
  static const char marker[] = "ERROR: AddressSanitizer: ";
  int n = 0, all = 0;
  for (const char *p = log ? strstr(log, marker) : NULL; p; p = strstr(p + 1, marker)) {
    all++;
    if (n >= max)
      continue;
    nc_mem_error *e = &out[n++];
    memset(e, 0, sizeof(*e));
    sscanf(p + strlen(marker), "%47s", e->kind);
    /* The access ("READ of size 8 at ...") is the next line, when there is one. */
    const char *next = strchr(p, '\n');
    const char *what_end = next ? strchr(next + 1, '\n') : NULL;
    if (next && what_end && strncmp(next + 1, "    #", 5) != 0) {
      size_t len = (size_t)(what_end - next - 1);
      const char *at = strstr(next + 1, " at 0x");
      if (at && at < what_end)
        len = (size_t)(at - next - 1);
      snprintf(e->what, sizeof(e->what), "%.*s", (int)len, next + 1);
    } else {
      snprintf(e->what, sizeof(e->what), "%s", e->kind);
    }
    /* The first stack: consecutive frame lines. */
    const char *line = next ? next + 1 : NULL;
    int in_stack = 0;
    while (line && *line && e->nframes < NC_MEM_FRAMES) {
      const char *eol = strchr(line, '\n');
      char buf[512];
      size_t len = eol ? (size_t)(eol - line) : strlen(line);
      snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), line);
      if (asan_frame(buf, &e->frames[e->nframes])) {
        e->nframes++;
        in_stack = 1;
      } else if (in_stack) {
        break;
      }
      line = eol ? eol + 1 : NULL;
    }
  }
  if (seen)
    *seen = all;
  return n;
}
