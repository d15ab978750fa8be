/* SPDX-License-Identifier: Apache-2.0 */
/* JSON inputs read strictly (profiles, waivers, baselines): one value and
 * nothing after it but white space, valid UTF-8, no object with a member
 * named twice. A duplicate would otherwise let the later one win unseen. */
#ifndef NC_JSON_STRICT_H
#define NC_JSON_STRICT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The parsed value, or NULL with err set to what is wrong and where
 * ("line 3, column 7: ..."). */
cJSON *nc_json_parse_strict(const char *text, char *err, size_t errlen);

#endif
