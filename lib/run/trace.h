/* SPDX-License-Identifier: Apache-2.0 */
/* The result channel of a case child: records (see record.h) streamed to
 * the parent, and the crash handlers, which report the signal, the
 * callback the crashing thread was in (callback.h) and a backtrace. */
#ifndef NC_TRACE_H
#define NC_TRACE_H

#include <stddef.h>

#include "callback.h"

#define NC_TRACE_PHASE_MAX NC_CALLBACK_NAME_MAX

/* Starts streaming to fd (-1: stop) and installs the crash handlers. The
 * last entered callback's name goes to phase_page (NC_TRACE_PHASE_MAX
 * bytes, shared with the parent), or to private memory when it is NULL. */
void nc_trace_start(int fd, char *phase_page);
/* The channel fd, or -1. */
int nc_trace_fd(void);
/* Set when a write failed because the descriptor was closed under us. */
int nc_trace_channel_lost(void);

/* Writes one record on the channel (no-op without one). */
void nc_trace_record(const char *tag, size_t nfields, const char *const *fields);
/* Progress: the runner's timeout counts silence from here. expect_s > 0
 * says the work up to the next record may take that long without being a
 * hang (one call on a table of millions of keys); 0: the timeout. */
void nc_trace_beat(double expect_s);

/* The case's key (a random token its parent chose; "" for none): every
 * record's tag is then "KEY:TAG", and the reader drops and counts records
 * without it (nc_trace_unkey). */
#define NC_TRACE_KEY_MAX 40

/* The plugin's path: a crash outside any callback whose instruction lies
 * in that file is the plugin's (a thread it started). */
void nc_trace_set_plugin(const char *path);
void nc_trace_set_key(const char *key);
const char *nc_trace_key(void);

#endif
