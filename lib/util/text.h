/* SPDX-License-Identifier: Apache-2.0 */
/* Text a plugin hands over, read without trusting it. */
#ifndef NC_TEXT_H
#define NC_TEXT_H

#include <stddef.h>

/* Reads a string a plugin returned without trusting it: copies at most
 * bound bytes into out (NUL-terminated). Returns the length, -1 for an
 * unreadable pointer, -2 when no NUL came within bound. */
long nc_read_plugin_string(const char *p, char *out, size_t bound);
/* Nonzero when s is valid UTF-8. */
int nc_utf8_valid(const char *s);

#endif
