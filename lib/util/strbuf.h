/* SPDX-License-Identifier: Apache-2.0 */
/* A growable string for building report text. Allocation failure makes
 * the buffer sticky-failed; check nc_strbuf.failed once at the end. */
#ifndef NC_STRBUF_H
#define NC_STRBUF_H

#include <stddef.h>

typedef struct nc_strbuf {
  char *data;
  size_t len, cap;
  int failed;
} nc_strbuf;

void nc_strbuf_printf(nc_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void nc_strbuf_puts(nc_strbuf *b, const char *s);
/* Appends s with XML's five special characters escaped and control
 * characters other than tab and newline dropped. */
void nc_strbuf_put_xml(nc_strbuf *b, const char *s);
/* Appends text as a C string literal (quotes, backslashes and bytes
 * outside printable ASCII escaped). */
void nc_strbuf_put_c(nc_strbuf *b, const char *text);
void nc_strbuf_free(nc_strbuf *b);

#endif
