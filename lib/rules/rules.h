/* SPDX-License-Identifier: Apache-2.0 */
/* The rules as the engine sees them: their IDs (an enum made from the
 * rule table, rules.def), each rule's metadata and explanation, and look-ups
 * by ID. The ID text is "FAMILY-NUMBER", made from the table's tokens. */
#ifndef NC_RULES_H
#define NC_RULES_H

#include <stddef.h>

#include "nve_conform.h"

/* How far the plugin must get before a rule's case can run. */
typedef enum {
  NC_STAGE_FILE = 0, /* the file is on disk (static checks) */
  NC_STAGE_OPEN,     /* dlopen succeeded and the symbols are resolved */
  NC_STAGE_ACCEPTED, /* the host's loader accepted it; no handshake yet */
  NC_STAGE_LOADED,   /* accepted, and the services handshake done */
} nc_stage;

/* Which plugins a rule applies to. */
typedef enum {
  NC_APPLIES_ANY = 0,      /* internal and external mode */
  NC_APPLIES_EXTERNAL = 1, /* external mode only */
} nc_applies;

/* Whether a waiver may accept a failure of the rule: NC_FIXED for the
 * rules a host cannot survive (it refuses the plugin, crashes, or reads
 * memory it must not). */
enum { NC_WAIVABLE = 1, NC_FIXED = 0 };

#define NC_RULE(fam, num, ...) NC_RULE_##fam##_##num,
typedef enum {
#include "rules.def"
  NC_RULE_COUNT
} nc_rule;
#undef NC_RULE

/* What a rule means for a vendor: why a host needs it, how the harness
 * checks it, the usual mistakes, the fix, and the fixture that shows the
 * check can fail. doc/rules.md and --explain are written from it. */
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

/* A rule's static description, for the engine. */
typedef struct nc_rule_def {
  nc_rule_info info; /* what the public API and the reports show */
  int waivable;
  nc_applies applies_to;
  nc_stage stage;
  nc_rule_doc doc; /* every field filled (tests/unit/test_rules.c) */
} nc_rule_def;

extern const nc_rule_def nc_rule_defs[NC_RULE_COUNT];

/* A family of rules (an NC_FAMILY entry of rules.def), in the table's
 * order: the documents' parts, each with its title and introduction. */
typedef struct nc_family_def {
  const char *family; /* "SYM" */
  const char *title;
  const char *intro;
} nc_family_def;
extern const nc_family_def nc_family_defs[];
extern const size_t nc_family_count;

/* The cases that take longest (random sequences, the schedule matrix,
 * failure sweeps, deep tables), longest first: with --jobs they start
 * first, so that the rest runs beside them. A hint for speed only; the
 * report's order and verdicts do not depend on it. */
#define NC_SLOW_RULES(X) \
  X(TBL, 11) X(TBL, 07) X(SVC, 07) X(TBL, 06) X(TBL, 02) X(TBL, 08) X(ERR, 06) X(TBL, 12) \
  X(LIF, 02) X(LIF, 03)

/* The table ops the explorer's directed views cover: each op's name and
 * its action (NC_X_<action>, cases/kit/explore_seq.h), with the rule whose
 * case runs that view (cases/kit/explore_directed.c): the coverage section
 * lists every one, run or not. */
#define NC_SWEPT_OPS(X)                                                                          \
  X("insert", INSERT, TBL, 02) X("update", UPDATE, TBL, 06)                                      \
  X("update_accumulate", ACCUMULATE, TBL, 07) X("erase", ERASE, TBL, 08)
typedef struct nc_swept_op {
  const char *name;
  nc_rule rule;
} nc_swept_op;
extern const nc_swept_op nc_swept_ops[];
extern const size_t nc_swept_op_count;

/* Where the rule stands in NC_SLOW_RULES (0 for the slowest), or
 * NC_RULE_COUNT when it is not listed. */
int nc_rule_slow_rank(nc_rule rule);

/* The anchor of a rule's clause in doc/contract.md ("zero-on-failure"), or
 * NULL when the clause is not of the form "doc/contract.md#anchor". */
const char *nc_rule_anchor(nc_rule rule);

/* "SYM-06" for NC_RULE_SYM_06 (NULL outside the table). */
const char *nc_rule_text(nc_rule rule);
/* The rule of an ID ("SYM-06"), or -1. */
int nc_rule_parse(const char *id);

#endif
