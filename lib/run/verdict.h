/* SPDX-License-Identifier: Apache-2.0 */
/* Verdicts from case processes, and run-wide evidence. */
#ifndef NC_VERDICT_H
#define NC_VERDICT_H

#include "run_config.h"
#include "report.h"
#include "rules.h"
#include "runner.h"

/* The verdict of res's rule from what its case process reported and how
 * it ended. */
void nc_derive_result(nc_result *res, const nc_child_result *cr, const nc_config *cfg);

/* A copy of s with bytes >= 0x80 replaced when it is not UTF-8. */
char *nc_sanitized(const char *s);

/* The violations streamed by the case processes of a run, kept for the
 * rules they break. */
typedef struct nc_observation {
  nc_rule rule;   /* the rule broken */
  nc_rule seen_in; /* the case that was running */
  char *text, *callback, *thread;
  size_t times;   /* identical observations folded into this one */
} nc_observation;

typedef struct nc_observations {
  nc_observation *list;
  size_t n, cap;
  size_t counts[NC_RULE_COUNT]; /* in all, beyond the ones streamed in full */
} nc_observations;

/* A failure a control proved to be a rule the filter left out joins that
 * rule to the report (not_selected), for nc_attribute_blocks to fail it by
 * the proof; otherwise a run of --rule TBL-12 alone would blame TBL-12 for
 * a find's own defect and exit 0 where it breaks a MUST rule. Only where
 * could_run (NULL: any) says the rule's case could have judged this plugin
 * (not N/A, not blocked): a full run would not fail it either. The results
 * stay in rule order. Before nc_attribute_blocks. */
void nc_join_proven_owners(nc_report *r, int (*could_run)(const nc_rule_info *rule, void *arg),
                           void *arg);
/* Cases whose failures are all defects another rule owns (nc_fail_owned)
 * become SKIP "blocked by OWNER" where that rule failed on its own; the
 * owner gets a note of where else it showed. After every verdict and the
 * folded observations are in. */
void nc_attribute_blocks(nc_report *r);
/* Blocks that no failed rule of the report owns: a block by a rule that
 * passed in its own case is inconclusive (untested, saying so), one by a
 * rule not selected or by none is ERROR, never a clean skip; a block by
 * the refused config stays (the run's root cause). Reads only skip,
 * blocked_by and refused, never the reason's text. After
 * nc_attribute_blocks. */
void nc_settle_unowned_blocks(nc_report *r);
/* A class of the call space left to another rule's case ("elsewhere")
 * that did not run there (the rule was not selected, or its case was
 * blocked or skipped) is "not run", saying why: coverage claims only what
 * ran. After the verdicts are settled. */
void nc_settle_coverage(nc_report *r);
/* The report's root cause when the run's config was refused: the first
 * case blocked by the refusal says what was refused (r->refusal). */
void nc_find_refusal(nc_report *r);

void nc_observations_take(nc_observations *obs, const nc_child_result *cr);
/* Folds into each selected rule the violations seen in the cases of other
 * rules: evidence "seen during RULE (callback, thread N)", and FAIL (MUST)
 * or WARN (SHOULD) unless the rule failed already. */
void nc_observations_fold(const nc_observations *obs, nc_report *r);
void nc_observations_free(nc_observations *obs);

#endif
