/* SPDX-License-Identifier: Apache-2.0 */
/* One creation or produce call in a fresh child process, observed closely:
 * the output slot is pre-filled with a pattern, an allocation failure can
 * be injected, and the allocations the call made are tracked until freed.
 * The OWN family, ERR-05 and the failure sweeps are built on it. */
#ifndef NC_ISOLATED_CALL_H
#define NC_ISOLATED_CALL_H

#include "case_api.h"

typedef enum { NC_TARGET_CREATE = 0, NC_TARGET_PRODUCE = 1 } nc_target;

/* The byte the output slot is filled with before the call. */
#define NC_OUTPUT_PATTERN 0xA5

/* What an output slot of size bytes holds after the call, as
 * nc_call_outcome.output says it: 0 zero, 1 the pattern untouched, 2
 * something else (a handle). */
int nc_output_state(const void *slot, size_t size);

/* What creation's out_error held after the call. */
enum {
  NC_ERR_NULL = 0,     /* NULL */
  NC_ERR_MESSAGE,      /* a readable, terminated message that stayed intact */
  NC_ERR_UNREADABLE,   /* a bad pointer or no NUL within the bound */
  NC_ERR_DANGLING,     /* points into memory the plugin freed */
  NC_ERR_CHANGED,      /* changed when another thread created a factory */
};

typedef struct nc_call_outcome {
  nc_target target;
  char config[64];  /* a label for the config used */
  long k;           /* the allocation made to fail (0: none) */
  int transient;    /* only allocation k failed, not the later ones too */
  int completed;    /* the child finished normally */
  char how[300];    /* when it did not: how it ended, and in which callback */
  int signo;
  nve_status_t status;
  int fired;         /* the injected failure happened */
  int output;        /* 0 zero, 1 untouched pattern, 2 something else (a handle) */
  int usable;        /* with NVE_SUCCESS: the handle passes the host's checks */
  long allocations;  /* counted during the call */
  long leaked;       /* failed call: blocks it allocated and did not free */
  long leaked_bytes;
  long destroy_left; /* success: blocks left after destroying the handle */
  int zero_first;    /* -1 no allocation or service call; 0 not zero; 1 zero */
  int error_state;   /* creation: NC_ERR_* */
  int must_fail_with; /* a profile's failing config: the status it declares (-1 any; -2 none) */
  char message[160];
} nc_call_outcome;

/* How an isolated call runs: allocation k alone failing, not the later
 * ones too; and the handle it made used (the workload) when an injected
 * failure fired, or always when k is 0, so that a success that hides a
 * broken object crashes there. */
#define NC_CALL_TRANSIENT 1u
#define NC_CALL_EXERCISE 2u

/* Runs one call of target with config json (NULL allowed), failing the
 * k-th and every later allocation (k = 0: none), as flags (NC_CALL_*)
 * say. Returns 0 with out filled, or -1 when the harness could not run it
 * (recorded as an error). */
int nc_isolated_call(nc_case *c, nc_target target, const char *label, const char *json, long k,
                     unsigned flags, nc_call_outcome *out);

/* The failure sweep: k = 1, 2, ... until a call completes without an
 * injected failure, within a cap and a time budget; each k that fired
 * once more with allocation k alone failing (a plugin that checks only
 * some of its allocations passes when the later ones fail too). The
 * handles made under failure are used when a control call, with no
 * failure, survives the same use: a crash there is then the failure's. Results are cached per
 * run, so the rules that read a sweep share one. */
typedef struct nc_sweep {
  nc_call_outcome *steps;
  size_t n;
  int capped;     /* stopped by the cap or the budget, not by a clean run */
  double seconds; /* spent */
} nc_sweep;

#define NC_SWEEP_CAP 400
#define NC_SWEEP_BUDGET_S 60.0

int nc_sweep_run(nc_case *c, nc_target target, nc_sweep *out);
/* The malformed-config calls of a target (not JSON, not an object, empty,
 * NULL, huge, deeply nested, wrong types), cached the same way. */
int nc_config_calls_run(nc_case *c, nc_target target, nc_sweep *out);
void nc_sweep_free(nc_sweep *s);

/* The time limit of one isolated call: well inside the case's own (so a
 * call that hangs is the plugin's failure, reported by the case, not a
 * case that times out). */
/* An isolated call could not be started (err says why): the plugin's FAIL
 * when its code lowered the limits the harness needs, else an ERROR. */
void nc_isolation_failed(nc_case *c, const char *err);
double nc_step_timeout(const nc_case *c);

/* One line naming a call, for evidence: "produce, config 'not JSON'" or
 * "creation, allocation 3 of the sweep failed". */
void nc_outcome_label(const nc_call_outcome *o, char *out, size_t outlen);

#endif
