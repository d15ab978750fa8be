/* SPDX-License-Identifier: Apache-2.0 */
/* SVC: the NVE services handshake and the use of execute_n, scratch and
 * contexts (doc/rules.md "SVC"). The services themselves record misuse as
 * violations (lib/services.c); each case runs the workload and reports the
 * violations of its own rule. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "threads.h"
#include "cases.h"
#include "common.h"
#include "pool.h"
#include "services.h"
#include "callback.h"
#include "violations.h"


/* The cases that watch the services: a workload, then the violations. */
static void workload_then_violations(nc_case *c, const char *what_is_checked)
{
  nc_workload_result w;
  if (nc_workload_on_new_table(c, "workload", &w) >= 0)
    nc_report_violations(c, c->rule, "NVE services during the workload",
                         what_is_checked);
}

void nc_case_SVC_01(nc_case *c)
{
  if (!nc_has_handshake(c))
    return;
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_open_table(c, &f, &t) != 0)
    return;
  nc_workload_result w;
  nc_workload_run(c, &t, &w);
  nc_workload_report(c, "workload before the repeated handshake", &w);
  /* The host repeats the handshake each time it builds a loader object for
   * the same SO; tables made before must keep working, and new ones too. */
  nc_call_set_services(c->plugin, nc_services_table());
  nc_workload_run(c, &t, &w);
  nc_workload_report(c, "workload on an existing table after a repeated handshake", &w);
  nc_close_table(&f, &t);
  nc_workload_on_new_table(c, "workload on a new table after a repeated handshake", &w);
}

typedef struct racer {
  nc_case *c;
  pthread_barrier_t *start;
} racer;

static void *handshake_racer(void *arg)
{
  racer *r = arg;
  pthread_barrier_wait(r->start);
  nc_call_set_services(r->c->plugin, nc_services_table());
  return NULL;
}

void nc_case_SVC_02(nc_case *c)
{
  if (!nc_has_handshake(c))
    return;
  /* This child has not done the handshake yet: all threads do the first. */
  enum { THREADS = 8 };
  pthread_t threads[THREADS];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  racer r = {c, &start};
  nc_callback_enter("nve_plugin_set_nve_services (8 threads at once)");
  int started = 0;
  for (; started < THREADS; started++)
    if (nc_thread_create(&threads[started], handshake_racer, &r) != 0)
      break;
  if (started < THREADS) {
    /* Release the ones waiting at the barrier by joining it ourselves. */
    for (int i = started; i < THREADS; i++)
      pthread_barrier_wait(&start);
  }
  for (int i = 0; i < started; i++)
    pthread_join(threads[i], NULL);
  nc_callback_leave();
  pthread_barrier_destroy(&start);
  nc_note(c, "nve_plugin_set_nve_services", "thread-safe", "%d threads called it at once",
          started);
  nc_workload_result w;
  nc_workload_on_new_table(c, "workload after concurrent handshakes", &w);
}

void nc_case_SVC_03(nc_case *c)
{
  workload_then_violations(c, "get_scratch only on the thread running the table op, never in a task");
}

void nc_case_SVC_04(nc_case *c)
{
  workload_then_violations(c, "no context (or its scratch) used after its op returned");
}

void nc_case_SVC_05(nc_case *c)
{
  workload_then_violations(c, "no scratch pointer used after its buffer grew");
}

void nc_case_SVC_06(nc_case *c)
{
  workload_then_violations(c, "valid arguments to every service");
}

void nc_case_SVC_08(nc_case *c)
{
  workload_then_violations(c, "no execute_n / execute_n_wg from inside a task");
}

/* One run of the workload under a pool configuration; compares its digest
 * with the baseline (the first run). Returns -1 when the workload failed. */
typedef struct svc07_state {
  int runs, differ;
  uint64_t baseline;
  char baseline_name[80];
} svc07_state;

static int svc07_run(nc_case *c, svc07_state *st, int workers, nc_schedule sched, int round)
{
  nc_pool_configure(workers, sched, c->cfg->seed + (uint64_t)st->runs);
  char name[80];
  snprintf(name, sizeof(name), "%d worker%s, %s schedule%s", workers, workers == 1 ? "" : "s",
           nc_schedule_name(sched), round ? " (again)" : "");
  nc_workload_result w;
  if (nc_workload_on_new_table(c, name, &w) != NVE_SUCCESS)
    return -1;
  if (st->runs++ == 0) {
    st->baseline = w.digest;
    snprintf(st->baseline_name, sizeof(st->baseline_name), "%s", name);
  } else if (w.digest != st->baseline && st->differ++ < 3) {
    nc_fail(c, "the same seeded op sequence", "the same find results under every pool",
            "results with %s differ from %s (digest %016llx vs %016llx)", name,
            st->baseline_name, (unsigned long long)w.digest, (unsigned long long)st->baseline);
  }
  return 0;
}

void nc_case_SVC_07(nc_case *c)
{
  static const int workers[] = {1, 2, 8};
  static const nc_schedule schedules[] = {NC_SCHEDULE_POOL, NC_SCHEDULE_REVERSE,
                                          NC_SCHEDULE_SHUFFLE, NC_SCHEDULE_DELAYS};
  /* Races need tasks to overlap: random delays with many workers make that
   * likely, and repeating them makes a miss unlikely. */
  enum { RACE_ROUNDS = 12 };
  svc07_state st = {0, 0, 0, ""};
  /* The caller alone, in order, first: the baseline every pool must match. */
  int failed = svc07_run(c, &st, 1, NC_SCHEDULE_INLINE, 0) != 0;
  for (int wi = 0; wi < 3 && !failed; wi++)
    for (int si = 0; si < 4 && !failed; si++)
      failed = svc07_run(c, &st, workers[wi], schedules[si], 0) != 0;
  for (int round = 1; round <= RACE_ROUNDS && !failed && !st.differ; round++)
    failed = svc07_run(c, &st, round % 2 ? 8 : 4, NC_SCHEDULE_DELAYS, round) != 0;
  nc_pool_configure(c->cfg->workers, c->cfg->schedule, c->cfg->seed);
  if (!failed && !st.differ)
    nc_note(c, "the same seeded op sequence", "the same find results under every pool",
            "%d runs, digest %016llx in each", st.runs, (unsigned long long)st.baseline);
}
