/* SPDX-License-Identifier: Apache-2.0 */
/* Contract violations the host side observes while plugin code runs (a
 * service called with a retired context, scratch from inside a task, ...),
 * kept per rule so the case for that rule can report them. Recording is
 * async-signal-safe: the fault handler records too. */
#ifndef NC_VIOLATIONS_H
#define NC_VIOLATIONS_H

#include <stddef.h>

#define NC_VIOLATION_TEXT 320

/* Records a violation of rule (e.g. "SVC-04"); text is one line. */
void nc_violation_record(const char *rule, const char *text);
/* Same, with printf formatting (not for signal handlers). */
void nc_violation_recordf(const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* How many violations of rule were recorded in this process. */
size_t nc_violation_count(const char *rule);
/* The i-th kept text for rule (the first few are kept), or NULL. */
const char *nc_violation_text(const char *rule, size_t i);
/* Forgets everything (between phases of one case). */
void nc_violation_reset(void);

#endif
