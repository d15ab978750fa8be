/* SPDX-License-Identifier: Apache-2.0 */
/* Progress of a run on stderr: on a terminal, one status line redrawn in
 * place (rules done of total, the cases running, the time so far) and
 * cleared at the end; with --progress lines, a plain line every ten
 * seconds for CI logs. The line's text is nc_progress_format's. */
#ifndef NC_HARNESS_PROGRESS_H
#define NC_HARNESS_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "nve_conform.h"

typedef enum nc_progress_mode {
  NC_PROGRESS_OFF,
  NC_PROGRESS_TTY,   /* redrawn in place with \r */
  NC_PROGRESS_LINES, /* a line every NC_PROGRESS_LINE_INTERVAL_S seconds */
} nc_progress_mode;

#define NC_PROGRESS_LINE_INTERVAL_S 10.0

/* One status line into buf (at most width characters when width > 0;
 * always NUL-terminated): "[12/58 rules] 3 running: TBL-11 TBL-12 +1, 4.2 s".
 * ids are the cases running now (nrunning of them). */
void nc_progress_format(char *buf, size_t len, size_t width, size_t done, size_t total,
                        const char *const *ids, size_t nrunning, double elapsed_s);

/* Whether a line is due in lines mode: NC_PROGRESS_LINE_INTERVAL_S since
 * the last one (or the start). */
int nc_progress_due(double last_s, double now_s);

/* Starts showing the run's progress on out in mode (nothing for OFF):
 * sets opt's callbacks (on_result, on_case_running, on_result_user) and
 * starts the thread that draws. nc_progress_stop ends it and, on a
 * terminal, clears the line. */
void nc_progress_start(nc_options *opt, nc_progress_mode mode, FILE *out);
void nc_progress_stop(void);

#endif
