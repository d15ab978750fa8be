/* SPDX-License-Identifier: Apache-2.0 */
/* Contract violations the host side observes while plugin code runs (a
 * service called with a retired context, scratch from inside a task, a
 * touch of a guard page, a changed input, an undefined status), kept per
 * rule in this process and handed to a sink that streams each to the
 * parent, which counts it for its rule whichever case saw it.
 *
 * nc_violation_record is async-signal-safe (the fault handlers call it):
 * it takes preformatted text, stores it in a fixed slot, and the sink
 * writes with write(2). nc_violation_recordf formats first: not for
 * signal handlers. */
#ifndef NC_VIOLATIONS_H
#define NC_VIOLATIONS_H

#include <stddef.h>

#include "rules.h"

#define NC_VIOLATION_TEXT 320

/* Records a violation of rule; text is one line. */
void nc_violation_record(nc_rule rule, const char *text);
void nc_violation_recordf(nc_rule rule, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* How many violations of rule were recorded in this process. */
size_t nc_violation_count(nc_rule rule);
/* The i-th kept text for rule (the first few of each rule are kept), or
 * NULL. */
const char *nc_violation_text(nc_rule rule, size_t i);
/* Forgets everything (between phases of one case). */
void nc_violation_reset(void);

/* Where each recorded violation goes as well (NULL: nowhere). The sink
 * must be async-signal-safe; it gets the violation's ordinal for its rule. */
typedef void (*nc_violation_sink)(nc_rule rule, const char *text, size_t ordinal);
void nc_violation_set_sink(nc_violation_sink sink);

/* While muted (on nonzero), violations are neither kept, counted nor
 * handed to the sink: harness work whose findings other cases report. */
void nc_violation_mute(int on);

#endif
