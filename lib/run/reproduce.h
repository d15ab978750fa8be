/* SPDX-License-Identifier: Apache-2.0 */
/* Reproduction lines: the options that differ from the defaults, the seed,
 * and the plugin, quoted for a POSIX shell. */
#ifndef NC_REPRODUCE_H
#define NC_REPRODUCE_H

#include "config.h"
#include "strbuf.h"

/* "nve-conform --rule ID ... --seed N PLUGIN" (heap, or NULL). */
char *nc_reproduce_line(const nc_config *cfg, const char *id);
/* Appends s to b, quoted when the shell would split or expand it. */
void nc_shell_quote(nc_strbuf *b, const char *s);

#endif
