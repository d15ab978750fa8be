/* SPDX-License-Identifier: Apache-2.0 */
/* C reproducers (--repro DIR): a case leaves each one in the run's scratch
 * directory, sealed with the run's secret; at the end of the run the ones
 * whose seal holds are copied to DIR. A file plugin code planted there
 * (it cannot know the secret cheaply) is not copied: the user compiles and
 * runs what lands in DIR. */
#ifndef NC_REPRO_OUT_H
#define NC_REPRO_OUT_H

#include <stddef.h>

#include "run_config.h"
#include "rules.h"

/* The last line of a sealed reproducer: this text, the seal in hex, and
 * the end of the comment it opens. */
#define NC_REPRO_SEAL "/* nve-conform seal "

/* Writes body and its seal to dir/name. 0, or -1. */
int nc_repro_save(const char *dir, const char *secret, const char *name, const char *body,
                  size_t len);
/* Whether text (a whole file called name) ends in the seal of its body
 * under secret; *body_len gets the length before the seal line. */
int nc_repro_sealed(const char *secret, const char *name, const char *text, size_t len,
                    size_t *body_len);
/* Copies every sealed reproducer (repro-*.c) from scratch to dest (made
 * when missing). Returns how many, or -1 with a message in err. */
int nc_repro_collect(const char *scratch, const char *secret, const char *dest, char *err,
                     size_t errlen);

/* The record of a case whose valid call the plugin refused: the call's
 * line in the crash log and its status (table_kit.h's nc_tk_note_refused). */
#define NC_TAG_REFUSED_CALL "REFUSED_CALL"

/* Where rule's case process keeps its crash log (lib/host/call_log.h)
 * under --repro: in the run's scratch directory. */
void nc_repro_crash_log(const nc_config *cfg, nc_rule rule, char *path, size_t len);

#endif
