/* SPDX-License-Identifier: Apache-2.0 */
/* Where a value sits in a JSON text, so that it can be handed on byte for
 * byte: re-printing a parsed value would turn 1152921504606846976 into
 * 1.152921504606847e+18 (cJSON keeps numbers as doubles) and change what a
 * plugin is given. */
#ifndef NC_JSON_SPAN_H
#define NC_JSON_SPAN_H

#include <stddef.h>

/* Finds the value at path in text, a JSON document: each step is a member
 * name (of an object; the first member of that name, as cJSON does) or
 * "#N" (element N of an array). Sets *start and *len to the value's bytes
 * (leading and trailing white space excluded). Returns 0, or -1 when the
 * path does not exist or the text is not well-formed there. */
int nc_json_span(const char *text, const char *const *path, size_t depth, size_t *start,
                 size_t *len);

/* A copy of the value at path (NUL-terminated), or NULL. */
char *nc_json_value_text(const char *text, const char *const *path, size_t depth);

#endif
