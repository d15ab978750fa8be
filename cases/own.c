/* SPDX-License-Identifier: Apache-2.0 */
/* OWN: output ownership under failure, with ERR-05 (no crash under
 * allocation failure) and LIF-03 (no memory left behind). Failures are
 * provoked by malformed configs, by configs a profile declares failing,
 * and by the allocation-failure sweep (isolated_call.c). */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "calls.h"
#include "case_child.h"
#include "cases.h"
#include "common.h"
#include "explore.h"
#include "isolated_call.h"
#include "pool.h"
#include "runner.h"
#include "services.h"
#include "trace.h"

/* Every observed call: both sweeps and the config calls of both targets. */
typedef struct observed {
  nc_sweep parts[4];
} observed;

static const char *const part_names[4] = {"creation sweep", "produce sweep",
                                          "creation with malformed configs",
                                          "produce with malformed configs"};

/* The points a sweep made fail: its runs with the later allocations
 * failing too, but the last, clean one. */
static size_t allocation_points(const nc_sweep *s)
{
  size_t n = 0;
  for (size_t i = 0; i < s->n; i++)
    n += s->steps[i].k && !s->steps[i].transient && s->steps[i].fired;
  return n;
}

/* Gathers the calls; 0, or -1 when the case cannot go on (recorded). */
static int observe(nc_case *c, observed *obs)
{
  memset(obs, 0, sizeof(*obs));
  if (!nc_alloc_available()) {
    nc_untested(c, "needs the allocation interposer, which sanitizer builds leave out "
               "(AddressSanitizer owns malloc) and valgrind replaces (--sanitize valgrind)");
    return -1;
  }
  /* The calls under failure are judged against a plugin whose ordinary
   * handles the host accepts; VER-03 judges the ordinary handles. When
   * the run's own config is refused, that refused call is one of the
   * calls judged (the sweep's first step makes it), and produce is
   * observed only when there is a factory to ask. */
  nc_refusal refused = nc_config_refusal(c);
  if (refused == NC_REFUSAL_NONE) {
    nve_ext_table_factory_t f;
    nve_ext_table_t t;
    if (nc_open_table(c, &f, &t) != 0)
      return -1;
    nc_close_table(&f, &t);
  } else {
    nc_note(c, refused == NC_REFUSAL_CREATION ? "creation with the run's config"
                                              : "produce with the run's config",
            "accepted", "refused: judged on that call%s",
            refused == NC_REFUSAL_CREATION ? " and on creation with malformed configs; produce "
                                             "could not be observed (no factory)"
                                           : " and the others");
  }
  int produce = refused != NC_REFUSAL_CREATION;
  if (nc_sweep_run(c, NC_TARGET_CREATE, &obs->parts[0]) != 0 ||
      (produce && nc_sweep_run(c, NC_TARGET_PRODUCE, &obs->parts[1]) != 0) ||
      nc_config_calls_run(c, NC_TARGET_CREATE, &obs->parts[2]) != 0 ||
      (produce && nc_config_calls_run(c, NC_TARGET_PRODUCE, &obs->parts[3]) != 0))
    return -1;
  for (int i = 0; i < 2; i++) {
    const nc_sweep *s = &obs->parts[i];
    if (!s->n)
      continue; /* not observed (said above) */
    /* A bound of the harness, not a defect of the plugin, and one that
     * depends on the machine's load: a note, never a verdict. */
    if (s->capped)
      nc_note(c, part_names[i], "every allocation point exercised",
              "stopped after %zu allocation points (cap %d, budget %.0f s): the later points "
              "were not exercised",
              allocation_points(s), NC_SWEEP_CAP, NC_SWEEP_BUDGET_S);
    else
      nc_note(c, part_names[i], "every allocation point exercised",
              "%zu runs (%zu allocation points, each failing with the later ones and alone) "
              "in %.2f s; cap %d, budget %.0f s", s->n, allocation_points(s), s->seconds,
              NC_SWEEP_CAP, NC_SWEEP_BUDGET_S);
  }
  return 0;
}

static void release(observed *obs)
{
  for (int i = 0; i < 4; i++)
    nc_sweep_free(&obs->parts[i]);
}

/* Calls visit for every completed call; returns how many it flagged. */
typedef int (*visit_fn)(nc_case *c, const nc_call_outcome *o, const char *label);

static int visit_all(nc_case *c, observed *obs, visit_fn visit)
{
  int flagged = 0;
  for (int i = 0; i < 4; i++)
    for (size_t k = 0; k < obs->parts[i].n; k++) {
      const nc_call_outcome *o = &obs->parts[i].steps[k];
      char label[200];
      nc_outcome_label(o, label, sizeof(label));
      if (flagged < 6)
        flagged += visit(c, o, label);
    }
  return flagged;
}

/* The common shape of these rules: observe every call, let visit flag the
 * calls that break the rule, and note when none did. */
static void judge(nc_case *c, visit_fn visit, const char *calls, const char *expected)
{
  observed obs;
  if (observe(c, &obs) == 0 && visit_all(c, &obs, visit) == 0)
    nc_note(c, calls, expected, "held");
  release(&obs);
}

static const char *slot_name(const nc_call_outcome *o)
{
  return o->target == NC_TARGET_CREATE ? "*out_factory" : "*out_table";
}

/* A failed call that left a handle in its output breaks OWN-01 and OWN-02
 * alike: both say so in the same words. */
static void handle_on_failure(nc_case *c, const nc_call_outcome *o, const char *label)
{
  nc_fail(c, label, "a failure leaves the output zero, and a handle comes only with NVE_SUCCESS",
          "status %d, and %s holds a handle", (int)o->status, slot_name(o));
}

static int own01_visit(nc_case *c, const nc_call_outcome *o, const char *label)
{
  if (o->completed && o->must_fail_with != -2 &&
      (o->status == NVE_SUCCESS || (o->must_fail_with >= 0 && o->status != o->must_fail_with))) {
    nc_fail(c, label, "the failure the profile declares",
            "status %d (the profile declares %d)", (int)o->status, o->must_fail_with);
    return 1;
  }
  if (!o->completed || o->status == NVE_SUCCESS || o->output == 0)
    return 0;
  if (o->output == 2)
    handle_on_failure(c, o, label);
  else
    nc_fail(c, label, "a failure leaves the output zero",
            "status %d, and %s still holds the pattern the harness wrote before the call",
            (int)o->status, slot_name(o));
  return 1;
}

void nc_case_OWN_01(nc_case *c)
{
  judge(c, own01_visit, "every failed creation and produce",
        "output zero");
}

static int own02_visit(nc_case *c, const nc_call_outcome *o, const char *label)
{
  if (!o->completed)
    return 0;
  if (o->status == NVE_SUCCESS && !o->usable) {
    nc_fail(c, label, "NVE_SUCCESS only with a usable handle",
            "NVE_SUCCESS, but %s is not usable (NULL self or ops, or a short vtable)",
            slot_name(o));
    return 1;
  }
  if (o->status != NVE_SUCCESS && o->output == 2) {
    handle_on_failure(c, o, label);
    return 1;
  }
  return 0;
}

void nc_case_OWN_02(nc_case *c)
{
  judge(c, own02_visit, "every creation and produce",
        "handles only with NVE_SUCCESS, and usable");
}

static int own03_seen;

static int own03_visit(nc_case *c, const nc_call_outcome *o, const char *label)
{
  if (!o->completed || o->zero_first < 0)
    return 0;
  own03_seen++;
  if (o->zero_first == 1)
    return 0;
  nc_fail(c, label, "the output zeroed before any work",
          "%s was not zero yet at the plugin's first allocation or service call", slot_name(o));
  return 1;
}

void nc_case_OWN_03(nc_case *c)
{
  observed obs;
  own03_seen = 0;
  if (observe(c, &obs) == 0 && visit_all(c, &obs, own03_visit) == 0) {
    if (own03_seen == 0)
      nc_untested(c, "inconclusive: no creation or produce call allocated memory or called a host "
                 "service, so there was no moment to look at the output before the work");
    else
      nc_note(c, "creation and produce", "output zero at the first allocation or service call",
              "held in %d calls", own03_seen);
  }
  release(&obs);
}

static int own04_visit(nc_case *c, const nc_call_outcome *o, const char *label)
{
  if (!o->completed || o->status == NVE_SUCCESS || o->leaked == 0)
    return 0;
  nc_fail(c, label, "a failed call frees everything it allocated",
          "status %d, and %ld block%s (%ld bytes) allocated during the call were not freed",
          (int)o->status, o->leaked, o->leaked == 1 ? "" : "s", o->leaked_bytes);
  return 1;
}

void nc_case_OWN_04(nc_case *c)
{
  judge(c, own04_visit, "every failed creation and produce",
        "no allocation left behind");
}

static int own05_visit(nc_case *c, const nc_call_outcome *o, const char *label)
{
  if (!o->completed || o->target != NC_TARGET_CREATE)
    return 0;
  if (o->status == NVE_SUCCESS && o->error_state != NC_ERR_NULL) {
    nc_fail(c, label, "*out_error NULL after a successful creation", "%s",
            o->error_state == NC_ERR_UNREADABLE ? "left as it was before the call"
                                                : "set to a message");
    return 1;
  }
  static const char *const problems[] = {
      [NC_ERR_UNREADABLE] = "not a readable, NUL-terminated string (or left unset)",
      [NC_ERR_DANGLING] = "points into memory the plugin had already freed",
      [NC_ERR_CHANGED] = "changed when another thread created a factory",
  };
  if (o->status != NVE_SUCCESS && o->error_state >= NC_ERR_UNREADABLE &&
      o->error_state <= NC_ERR_CHANGED) {
    nc_fail(c, label, "*out_error NULL, or a message intact until this thread's next creation",
            "status %d; *out_error %s", (int)o->status, problems[o->error_state]);
    return 1;
  }
  return 0;
}

void nc_case_OWN_05(nc_case *c)
{
  judge(c, own05_visit, "every creation",
        "*out_error NULL on success, intact text on failure");
}

/* ---- OWN-06: NULL output pointers ---------------------------------------------- */

typedef struct null_job {
  nc_case *c;
  int which;
} null_job;

static const char *const null_calls[3] = {
    "nve_plugin_create_external_factory(config, NULL, &error)",
    "nve_plugin_create_external_factory(config, &factory, NULL)",
    "produce(self, 1, config, NULL)"};

static void null_body(void *arg)
{
  null_job *j = arg;
  nc_case *c = j->c;
  nc_pool_after_fork();
  nc_case_child_forked();
  nve_ext_table_factory_t f;
  const char *err = NULL;
  nve_status_t s;
  if (j->which == 0) {
    s = nc_call_create_factory(c->plugin, c->cfg->factory_config, NULL, &err);
  } else if (j->which == 1) {
    memset(&f, NC_OUTPUT_PATTERN, sizeof(f)); /* as the other creations' outputs are filled */
    s = nc_call_create_factory(c->plugin, c->cfg->factory_config, &f, NULL);
    int output = nc_output_state(&f, sizeof(f)), written = output == 2;
    if (s == NVE_SUCCESS && !written) {
      /* A success without a handle is OWN-02's; there is nothing to destroy. */
      nc_fail_proven(c, NC_RULE_OWN_02, null_calls[1], "NVE_SUCCESS only with a usable handle",
                     "NVE_SUCCESS, and *out_factory %s",
                     output == 1 ? "was not written" : "was left zero");
      return;
    }
    if (s == NVE_SUCCESS && f.ops && f.ops->destroy)
      nc_call_factory_destroy(&f);
    /* The output it was given is OWN-01's: a failure leaves it zero, or
     * (refused before any work, for the NULL) untouched; never other
     * bytes. OWN-01's own calls all pass out_error: only this one sees it. */
    if (s != NVE_SUCCESS && written)
      nc_fail_proven(c, NC_RULE_OWN_01, null_calls[1],
                     "a failure leaves the output zero (or, refused at once, untouched)",
                     "status %d, and *out_factory holds other bytes (self %p, ops %p)", (int)s,
                     f.self, (const void *)f.ops);
  } else {
    if (nc_call_create_factory(c->plugin, c->cfg->factory_config, &f, &err) != NVE_SUCCESS ||
        !f.ops || !f.ops->produce) {
      /* The creation calls were still checked: only this one is blocked. */
      nc_note(c, null_calls[2], "a factory to call it on",
              "not called: creation gave no usable factory (%s)", nc_rule_text(NC_RULE_VER_03));
      return;
    }
    s = nc_call_produce(&f, 1, c->cfg->table_config, NULL);
    nc_call_factory_destroy(&f);
  }
  if (s == NVE_ERROR_INVALID_ARGUMENT)
    nc_note(c, null_calls[j->which], "NVE_ERROR_INVALID_ARGUMENT", "%d", (int)s);
  else
    nc_fail(c, null_calls[j->which], "NVE_ERROR_INVALID_ARGUMENT", "status %d", (int)s);
}

void nc_case_OWN_06(nc_case *c)
{
  for (int which = 0; which < 3; which++) {
    null_job j = {c, which};
    nc_child_result cr;
    char err[256];
    if (nc_run_isolated(null_body, &j, nc_step_timeout(c), 0, 0, &cr, err, sizeof(err)) != 0) {
      nc_isolation_failed(c, err);
      return;
    }
    /* Pass the grandchild's evidence on, or say how it died. */
    nc_case_child_forward(&cr);
    for (size_t i = 0; i < cr.nrecords; i++) {
      const nc_record *r = &cr.records[i];
      if (strcmp(r->tag, "CHECK") == 0 && r->nfields >= 5) {
        /* owned by another rule: on as recorded */
        nc_trace_record(r->tag, r->nfields, (const char *const *)r->fields);
      } else if (strcmp(r->tag, "CHECK") == 0 && r->nfields >= 4) {
        if (strcmp(r->fields[0], NC_LEVEL_FAIL) == 0)
          nc_fail(c, r->fields[1], r->fields[2], "%s", r->fields[3]);
        else
          nc_note(c, r->fields[1], r->fields[2], "%s", r->fields[3]);
      } else if (strcmp(r->tag, "SKIP") == 0 && r->nfields >= 2) {
        if (strcmp(r->fields[1], NC_SKIP_WORD_NA) == 0)
          nc_not_applicable(c, "%s", r->fields[0]);
        else
          nc_untested(c, "%s", r->fields[0]);
      }
    }
    if (!cr.ended) {
      char how[200];
      nc_child_describe_end(&cr, nc_step_timeout(c), how, sizeof(how));
      nc_fail(c, null_calls[which], "NVE_ERROR_INVALID_ARGUMENT, not a crash", "%s", how);
    }
    nc_child_result_free(&cr);
  }
}

/* ---- ERR-05: no crash under allocation failure ------------------------------------ */

static int err05_visit(nc_case *c, const nc_call_outcome *o, const char *label)
{
  if (o->completed)
    return 0;
  const char *hint = o->signo == 6 ? "; an exception escaped or the plugin aborted under "
                                     "allocation failure (a C++ plugin must catch std::bad_alloc "
                                     "and return NVE_ERROR_OUT_OF_MEMORY)"
                                   : "";
  nc_fail(c, label, "a status, not a crash or a hang", "%s%s", o->how, hint);
  return 1;
}

void nc_case_ERR_05(nc_case *c)
{
  judge(c, err05_visit, "every creation and produce under failure",
        "a status, never a crash");
}

/* ---- LIF-03: nothing left allocated after a whole lifecycle -------------------------- */

static int lifecycle(nc_case *c, nc_workload_result *w)
{
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_open_table(c, &f, &t) != 0)
    return -1;
  nc_workload_run(c, &t, w);
  nc_close_table(&f, &t);
  return 0;
}

static int lif03_visit(nc_case *c, const nc_call_outcome *o, const char *label)
{
  if (!o->completed || o->status != NVE_SUCCESS || o->destroy_left == 0)
    return 0;
  nc_fail(c, label, "destroying the handle releases everything the call allocated",
          "%ld block%s left after destroy", o->destroy_left, o->destroy_left == 1 ? "" : "s");
  return 1;
}

void nc_case_LIF_03(nc_case *c)
{
  if (!nc_alloc_available()) {
    nc_untested(c, "needs the allocation interposer, which sanitizer builds leave out "
               "(AddressSanitizer owns malloc) and valgrind replaces (--sanitize valgrind)");
    return;
  }
  nc_workload_result w;
  /* A first round absorbs one-time allocations (the plugin's thread-local
   * storage, lazily built tables). The C library allocates a loaded
   * module's thread-local block on each thread's first touch, so the tasks
   * run on this thread alone: a pool thread whose first task came in the
   * second round would look like a leak. */
  nc_pool_configure(c->cfg->workers, NC_SCHEDULE_INLINE, c->cfg->seed);
  if (lifecycle(c, &w) != 0)
    return;
  nc_alloc_reset();
  if (lifecycle(c, &w) != 0)
    return;
  nc_workload_report(c, "create, produce, workload, destroy", &w);
  nc_alloc_stats st;
  nc_alloc_get_stats(&st);
  /* Handles made under the failure sweep must also release everything. */
  observed obs;
  if (observe(c, &obs) == 0)
    visit_all(c, &obs, lif03_visit);
  release(&obs);
  if (st.live > 0) {
    nc_fail(c, "create, produce, workload, destroy (second round)",
            "no memory allocated by the plugin left",
            "%ld of %ld blocks (%ld bytes) still allocated after the table and factory were "
            "destroyed",
            st.live, st.allocations, st.live_bytes);
    return;
  }
  nc_note(c, "create, produce, workload, destroy (second round)", "nothing left",
          "%ld allocations, all freed", st.allocations);
  /* Then the generator's orders of events: destroys before and after the
   * factory's, tables beside tables, threads. */
  nc_explore_leaks(c);
}
