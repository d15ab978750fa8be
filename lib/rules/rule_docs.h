/* SPDX-License-Identifier: Apache-2.0 */
/* What each rule means for a vendor: why a host needs it, how the harness
 * checks it, the usual mistakes, the fix, and the fixture that shows the
 * check can fail. doc/rules.md and --explain are written from this table
 * and the rule table (rules.h); nothing else describes a rule. */
#ifndef NC_RULE_DOCS_H
#define NC_RULE_DOCS_H

#include "rules.h"

typedef struct nc_rule_doc {
  const char *section;  /* the title of the contract section the clause points to */
  const char *why;      /* what goes wrong in a host when the rule is broken */
  const char *how;      /* how nve-conform provokes and observes it */
  const char *mistakes; /* the ways plugins usually break it */
  const char *fix;      /* what to do instead */
  const char *snippet;  /* a short correct fragment, or NULL */
  const char *lang;     /* the snippet's language for markdown; NULL: "c" */
  const char *fixture;  /* a fixture in fixtures/fixtures.list that fails the rule */
} nc_rule_doc;

/* Indexed by nc_rule; every entry is filled (tests/unit/test_rules.c). */
extern const nc_rule_doc nc_rule_docs[NC_RULE_COUNT];

/* The anchor of a rule's clause in doc/contract.md ("zero-on-failure"), or
 * NULL when the clause is not of the form "doc/contract.md#anchor". */
const char *nc_rule_anchor(nc_rule rule);

#endif
