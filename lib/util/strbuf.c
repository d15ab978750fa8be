/* SPDX-License-Identifier: Apache-2.0 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static int reserve(nc_strbuf *b, size_t extra)
{
  if (b->failed)
    return -1;
  if (b->len + extra + 1 <= b->cap)
    return 0;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = 1;
    return -1;
  }
  b->data = p;
  b->cap = cap;
  return 0;
}

void nc_strbuf_printf(nc_strbuf *b, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || reserve(b, (size_t)n) != 0)
    return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void nc_strbuf_puts(nc_strbuf *b, const char *s)
{
  size_t n = strlen(s);
  if (reserve(b, n) != 0)
    return;
  memcpy(b->data + b->len, s, n + 1);
  b->len += n;
}

void nc_strbuf_put_c(nc_strbuf *b, const char *text)
{
  nc_strbuf_puts(b, "\"");
  for (const unsigned char *p = (const unsigned char *)text; p && *p; p++) {
    if (*p == '"' || *p == '\\' || *p == '?') /* '?': no trigraph under -std=c11 */
      nc_strbuf_printf(b, "\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f)
      nc_strbuf_printf(b, "\\%03o", *p);
    else
      nc_strbuf_printf(b, "%c", *p);
  }
  nc_strbuf_puts(b, "\"");
}

void nc_strbuf_put_xml(nc_strbuf *b, const char *s)
{
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case '<': nc_strbuf_puts(b, "&lt;"); break;
    case '>': nc_strbuf_puts(b, "&gt;"); break;
    case '&': nc_strbuf_puts(b, "&amp;"); break;
    case '"': nc_strbuf_puts(b, "&quot;"); break;
    case '\'': nc_strbuf_puts(b, "&apos;"); break;
    default:
      if (c < 0x20 && c != '\t' && c != '\n')
        break; /* not allowed in XML 1.0 */
      size_t n = nc_text_unsafe_len(s);
      if (n > 1) { /* C1 and bidirectional characters: shown as \uHHHH, never obeyed */
        char one[4] = {0};
        memcpy(one, s, n);
        char *shown = nc_text_escaped(one, 1);
        nc_strbuf_puts(b, shown ? shown : "?");
        free(shown);
        s += n - 1;
        break;
      }
      if (reserve(b, 1) == 0) {
        b->data[b->len++] = (char)c;
        b->data[b->len] = '\0';
      }
    }
  }
}

void nc_strbuf_free(nc_strbuf *b)
{
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->failed = 0;
}
