/* SPDX-License-Identifier: Apache-2.0 */
/* Breadcrumbs and the result channel of a case child.
 *
 * The child names the plugin callback it is about to call, so that a crash,
 * a hang or an exit inside plugin code can be attributed to it, and streams
 * records (see record.h) to the parent. Both live in process-wide state that
 * the crash handler reads. */
#ifndef NC_TRACE_H
#define NC_TRACE_H

#include <stddef.h>

#define NC_TRACE_PHASE_MAX 128

/* Starts streaming to fd (-1: stop) and installs the crash handlers. The
 * current callback's name is kept in phase_page (NC_TRACE_PHASE_MAX bytes,
 * shared with the parent), or in private memory when it is NULL. */
void nc_trace_start(int fd, char *phase_page);
/* The channel fd, or -1. */
int nc_trace_fd(void);
/* Set when a write failed because the descriptor was closed under us. */
int nc_trace_channel_lost(void);

/* Writes one record on the channel (no-op without one). */
void nc_trace_record(const char *tag, size_t nfields, const char *const *fields);

/* Names the plugin callback about to run; NULL when back in the harness. */
void nc_trace_enter(const char *callback);
void nc_trace_leave(void);
const char *nc_trace_current(void);

#endif
