/* SPDX-License-Identifier: Apache-2.0 */
/* Reproduction lines: the options that differ from the defaults, the seed,
 * and the plugin, quoted for a POSIX shell. */
#ifndef NC_REPRODUCE_H
#define NC_REPRODUCE_H

#include "run_config.h"
#include "strbuf.h"

/* "nve-conform --rule ID ... --seed N PLUGIN" (heap, or NULL). */
char *nc_reproduce_line(const nc_config *cfg, const char *id);
/* line with the case of another rule added to its --rule list (a
 * violation that case saw decided the verdict): "--rule ID" becomes
 * "--rule ID,ALSO". Returns a new heap string, or NULL when line is not a
 * reproduction line for a single rule (then it stays as it is). */
char *nc_reproduce_also(const char *line, const char *also);
/* Appends s to b, quoted when the shell would split or expand it. */
void nc_shell_quote(nc_strbuf *b, const char *s);

#endif
