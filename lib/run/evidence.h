/* SPDX-License-Identifier: Apache-2.0 */
/* How a case records what it checked: each call writes one record on the
 * channel to the parent (CHECK, SKIP, INFO), which derives the rule's
 * verdict from them. A case never aborts on a failed check. */
#ifndef NC_EVIDENCE_H
#define NC_EVIDENCE_H

#include <stdarg.h>

#include "case_table.h"

/* Records a check. observed is a printf format. */
void nc_fail(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_warn(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_note(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_harness_error(nc_case *c, const char *what, ...) __attribute__((format(printf, 2, 3)));
/* The rule does not apply, or cannot be decided; reason is printf. */
void nc_skip(nc_case *c, const char *reason, ...) __attribute__((format(printf, 2, 3)));
/* Facts for the report header (the load probe emits these). */
void nc_info(nc_case *c, const char *key, const char *value, ...)
    __attribute__((format(printf, 3, 4)));

#endif
