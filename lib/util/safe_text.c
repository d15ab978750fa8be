/* SPDX-License-Identifier: Apache-2.0 */
#include "safe_text.h"

void nc_safe_text_init(nc_safe_text *t, char *buf, size_t cap)
{
  t->buf = buf;
  t->len = 0;
  t->cap = cap;
  buf[0] = '\0';
}

static void put(nc_safe_text *t, char c)
{
  if (t->len + 1 < t->cap) {
    t->buf[t->len++] = c;
    t->buf[t->len] = '\0';
  }
}

void nc_safe_text_str(nc_safe_text *t, const char *s)
{
  while (s && *s)
    put(t, *s++);
}

static void digits(nc_safe_text *t, unsigned long v, unsigned base)
{
  char tmp[24];
  int n = 0;
  do {
    unsigned d = (unsigned)(v % base);
    tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    v /= base;
  } while (v);
  while (n > 0)
    put(t, tmp[--n]);
}

void nc_safe_text_unsigned(nc_safe_text *t, unsigned long v) { digits(t, v, 10); }

void nc_safe_text_signed(nc_safe_text *t, long v)
{
  if (v < 0) {
    put(t, '-');
    digits(t, 0ul - (unsigned long)v, 10);
  } else {
    digits(t, (unsigned long)v, 10);
  }
}

void nc_safe_text_hex(nc_safe_text *t, unsigned long v)
{
  nc_safe_text_str(t, "0x");
  digits(t, v, 16);
}
