/* SPDX-License-Identifier: Apache-2.0 */
/* How a case records what it checked: each call writes one record on the
 * channel to the parent (CHECK, SKIP, INFO), which derives the rule's
 * verdict from them. A case never aborts on a failed check. */
#ifndef NC_EVIDENCE_H
#define NC_EVIDENCE_H

#include <stdarg.h>

#include "case_table.h"

/* The record of nc_skip_blocked: the owner's ID and the reason. */
#define NC_TAG_BLOCKED "BLOCKED"
/* A class of an op's call space: op, dimension, class, state ("ran",
 * "elsewhere", "not run"), why it did not run here, the rule whose case
 * makes such calls instead (cases/kit/explore_directed.c). */
#define NC_TAG_COVER "COVER"

/* Records a check. observed is a printf format. */
void nc_fail(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_warn(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_note(nc_case *c, const char *call, const char *expected, const char *observed, ...)
    __attribute__((format(printf, 4, 5)));
void nc_harness_error(nc_case *c, const char *what, ...) __attribute__((format(printf, 2, 3)));
/* The rule does not concern this plugin (its mode, its table's residency,
 * or what it declared); reason is printf. */
void nc_not_applicable(nc_case *c, const char *reason, ...) __attribute__((format(printf, 2, 3)));
/* The harness could not make the calls the rule needs (a bound it cannot
 * honour, a runtime it lacks, a failure it could not provoke): the rule is
 * untested, never passed, and a MUST rule left so makes the run exit 3.
 * Say what was tried. */
void nc_untested(nc_case *c, const char *reason, ...) __attribute__((format(printf, 2, 3)));
/* The words the SKIP record carries for each kind (verdict.c reads them). */
#define NC_SKIP_WORD_NA "n/a"
#define NC_SKIP_WORD_UNTESTED "untested"
/* The case cannot judge its rule because of a defect that another rule
 * (owner) judges: its verdict is SKIP "blocked by OWNER: reason" unless it
 * also records a failure of its own. The blocking rule travels as data. */
void nc_skip_blocked(nc_case *c, nc_rule owner, const char *reason, ...)
    __attribute__((format(printf, 3, 4)));
/* A failed check of a defect that owner judges (an op's semantics, seen by
 * a case about something else). When owner is the case's rule, nc_fail.
 * Otherwise the run decides once every verdict is in: if owner failed on
 * its own, this case is SKIP "blocked by OWNER" (its evidence stays); if
 * not, the defect shows only in this case's conditions and is its FAIL. */
void nc_fail_owned(nc_case *c, nc_rule owner, const char *call, const char *expected,
                   const char *observed, ...) __attribute__((format(printf, 5, 6)));
/* The same when a control showed the defect to be owner's (the key read
 * back right through a plain insert and find, so the op or the find's
 * outputs are at fault): when owner holds in its own case, owner fails
 * with this evidence and the case is SKIP "blocked by" it; the rule a
 * defect breaks is judged, whichever case made the call. */
void nc_fail_proven(nc_case *c, nc_rule owner, const char *call, const char *expected,
                    const char *observed, ...) __attribute__((format(printf, 5, 6)));
/* The same when the defect may be any of several rules' (the first that
 * failed on its own is charged), e.g. a hit for a key that was cleared and
 * then updated: clear's (TBL-08) or update's (TBL-06). */
void nc_fail_owned_by(nc_case *c, const nc_rule *owners, int nowners, const char *call,
                      const char *expected, const char *observed, ...)
    __attribute__((format(printf, 6, 7)));

/* At the end of a case: one note per kind of evidence with how many of
 * its lines were not sent (the first few of each kind are). */
void nc_evidence_flush(void);

/* The record of nc_refused: the stage, the config, the status, the
 * plugin's message. */
#define NC_TAG_REFUSED "REFUSED"
/* The run's own config was refused (stage "factory creation" or
 * "produce"): the case cannot make the table it needs. Unless the case
 * judged its rule on other calls (a check of its own), its verdict is SKIP
 * blocked by that refusal, the run's root cause (verdict.c), not a harness
 * ERROR. */
void nc_refused(nc_case *c, const char *stage, const char *config, int status,
                const char *message);

/* Facts for the report header (the load probe emits these). */
void nc_info(nc_case *c, const char *key, const char *value, ...)
    __attribute__((format(printf, 3, 4)));

#endif
