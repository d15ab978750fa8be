/* SPDX-License-Identifier: Apache-2.0 */
/* A small validating JSON reader for the reference plugin's configs: the
 * plugin must not depend on a JSON library the host may not have. */
#ifndef HM_JSON_CONFIG_H
#define HM_JSON_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* Checks that json is one well-formed JSON object (nesting at most 64 deep)
 * and reads the top-level integer members named in keys (NULL-terminated)
 * into values; members that are absent keep their value. Returns 0, or -1
 * with a message in err (also for a named member that is not an integer). */
int hm_json_read_ints(const char *json, const char *const *keys, int64_t *values, char *err,
                      size_t errlen);

#endif
