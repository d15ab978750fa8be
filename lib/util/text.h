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

/* The length of the character at s that must not reach a terminal or a
 * reader raw: 1 for a C0 control other than newline and tab, or DEL; 2
 * for a C1 control (U+0080 to U+009F); 3 for a bidirectional override,
 * embedding, isolate or mark (U+202A to U+202E, U+2066 to U+2069, U+200E,
 * U+200F); 0 for any other. */
size_t nc_text_unsafe_len(const char *s);

/* A heap copy of s for a text report: the characters above as \xHH or
 * \uHHHH, and each byte of s as \xHH when s is not valid UTF-8 (so
 * nothing is lost to a '?'). keep_lines: newlines and tabs kept, else
 * written \n and \t (a path, a name). NULL when out of memory. */
char *nc_text_escaped(const char *s, int keep_lines);

/* A heap copy of printed JSON with every character above (DEL, C1, the
 * bidirectional ones) written \uHHHH: they stand only inside strings,
 * whose values stay the same, and the file is then safe to cat. NULL
 * when out of memory. */
char *nc_json_text_safe(const char *json);

/* A heap copy of a path as a URI reference: RFC 3986's unreserved
 * characters and '/' as they are, every other byte %HH. NULL when out of
 * memory. */
char *nc_uri_path(const char *path);

#endif
