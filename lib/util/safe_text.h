/* SPDX-License-Identifier: Apache-2.0 */
/* Building a line of text in a signal handler, where snprintf may not be
 * used: strings and numbers appended to a fixed buffer, always terminated,
 * cut short when it is full. */
#ifndef NC_SAFE_TEXT_H
#define NC_SAFE_TEXT_H

#include <stddef.h>

typedef struct nc_safe_text {
  char *buf;
  size_t len, cap;
} nc_safe_text;

/* Starts an empty text in buf (cap bytes, cap >= 1). */
void nc_safe_text_init(nc_safe_text *t, char *buf, size_t cap);
void nc_safe_text_str(nc_safe_text *t, const char *s);
void nc_safe_text_unsigned(nc_safe_text *t, unsigned long v);
void nc_safe_text_signed(nc_safe_text *t, long v);
/* "0x" and lower-case hex digits. */
void nc_safe_text_hex(nc_safe_text *t, unsigned long v);

#endif
