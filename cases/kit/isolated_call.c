/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "isolated_call.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "calls.h"
#include "case_child.h"
#include "common.h"
#include "contain.h"
#include "pool.h"
#include "record.h"
#include "runner.h"
#include "services.h"
#include "sha256.h"
#include "threads.h"
#include "trace.h"
#include "violations.h"

/* ---- in the fresh child ------------------------------------------------------ */

typedef struct call_job {
  nc_case *c;
  nc_target target;
  const char *json;
  long k;
  unsigned flags; /* NC_CALL_* */
} call_job;

typedef union out_slot {
  nve_ext_table_factory_t factory;
  nve_ext_table_t table;
} out_slot;

static int handle_usable(nc_target target, const out_slot *slot)
{
  if (target == NC_TARGET_CREATE)
    return nc_handle_usable(slot->factory.self, slot->factory.ops,
                            sizeof(nve_ext_table_factory_ops_t), NC_FACTORY_OPS_FNS);
  return nc_handle_usable(slot->table.self, slot->table.ops, sizeof(nve_ext_table_ops_t),
                          NC_TABLE_OPS_FNS);
}

static void destroy(nc_target target, const out_slot *slot)
{
  if (target == NC_TARGET_CREATE)
    nc_call_factory_destroy(&slot->factory);
  else
    nc_call_table_destroy(&slot->table);
}

/* Calls target once; slot must be zeroed by the plugin. */
static nve_status_t call_target(nc_case *c, nc_target target, const nve_ext_table_factory_t *f,
                                const char *json, out_slot *slot, const char **err)
{
  if (target == NC_TARGET_CREATE)
    return nc_call_create_factory(c->plugin, json, &slot->factory, err);
  return nc_call_produce(f, 1, json, &slot->table);
}

typedef struct other_creation {
  nc_case *c;
} other_creation;

static void *create_elsewhere(void *arg)
{
  other_creation *o = arg;
  nve_ext_table_factory_t f;
  const char *err;
  if (nc_call_create_factory(o->c->plugin, "this is not JSON", &f, &err) == NVE_SUCCESS &&
      f.ops && f.ops->destroy)
    nc_call_factory_destroy(&f);
  if (nc_call_create_factory(o->c->plugin, o->c->cfg->factory_config, &f, &err) == NVE_SUCCESS &&
      f.ops && f.ops->destroy)
    nc_call_factory_destroy(&f);
  return NULL;
}

/* Classifies creation's out_error after a failure. */
static int examine_error(nc_case *c, const char *err, char *message, size_t msglen)
{
  if (!err)
    return NC_ERR_NULL;
  if (nc_alloc_recently_freed(err))
    return NC_ERR_DANGLING;
  if (nc_read_plugin_string(err, message, msglen) < 0)
    return NC_ERR_UNREADABLE;
  /* Another thread's creation calls must not touch this thread's text. */
  pthread_t th;
  other_creation o = {c};
  if (nc_thread_create(&th, create_elsewhere, &o) == 0)
    pthread_join(th, NULL);
  char again[160];
  if (nc_read_plugin_string(err, again, sizeof(again)) < 0 || strcmp(again, message) != 0)
    return NC_ERR_CHANGED;
  return NC_ERR_MESSAGE;
}

/* Keys per batch of the workload below: past a mask word and a find task of a
 * plugin that splits at 1024, and a quarter of the full workload's, since
 * every point of a sweep runs it in a process of its own (their pages are
 * most of a sweep's cost). */
#define EXERCISE_BATCH 1280

/* A handle a call made while an allocation failed must work like any
 * other: the workload on it (on a table the factory produces, for a
 * factory). A crash here is the call's, as any crash under failure. What
 * else the workload breaks the table cases see for themselves: recorded
 * here (streamed or counted) it would be charged to whichever case ran
 * the shared sweep first, and the report would depend on the job count. */
static void exercise(nc_case *c, nc_target target, const out_slot *slot)
{
  nc_violation_mute(1);
  /* Tasks on this thread alone: a pool thread's first task would make
   * its one-time allocations (the plugin's TLS) look like what the call
   * left behind. */
  nc_pool_configure(c->cfg->workers, NC_SCHEDULE_INLINE, c->cfg->seed);
  nc_workload_result w;
  nve_ext_table_t t = {0};
  if (target == NC_TARGET_PRODUCE) {
    nc_workload_run_batch(c, &slot->table, EXERCISE_BATCH, &w);
  } else if (nc_call_produce(&slot->factory, 1, c->cfg->table_config, &t) == NVE_SUCCESS &&
             nc_handle_usable(t.self, t.ops, sizeof(nve_ext_table_ops_t), NC_TABLE_OPS_FNS)) {
    nc_workload_run_batch(c, &t, EXERCISE_BATCH, &w);
    nc_call_table_destroy(&t);
  }
  nc_pool_configure(c->cfg->workers, c->cfg->schedule, c->cfg->seed);
  nc_violation_mute(0);
}

int nc_output_state(const void *slot, size_t size)
{
  const unsigned char *b = slot;
  int zero = 1, pattern = 1;
  for (size_t i = 0; i < size; i++) {
    zero &= b[i] == 0;
    pattern &= b[i] == NC_OUTPUT_PATTERN;
  }
  return zero ? 0 : pattern ? 1 : 2;
}

static void call_body(void *arg)
{
  call_job *j = arg;
  nc_case *c = j->c;
  nc_pool_after_fork();
  nc_case_child_forked();
  nc_pool_configure(c->cfg->workers, c->cfg->schedule, c->cfg->seed);
  nc_alloc_enable(1);

  nve_ext_table_factory_t f;
  memset(&f, 0, sizeof(f));
  const char *err = NULL;
  if (j->target == NC_TARGET_PRODUCE &&
      (nc_call_create_factory(c->plugin, c->cfg->factory_config, &f, &err) != NVE_SUCCESS ||
       !f.ops)) {
    nc_harness_error(c, "the factory for produce could not be created with config %s",
                     c->cfg->factory_config);
    return;
  }
  /* Warm up, on the success path and on a failure path: the first calls on
   * a thread make one-time allocations (the plugin's thread-local storage,
   * which the dynamic loader allocates on first touch and cannot survive
   * failing; C++ runtime state) that are neither leaks nor failures. */
  out_slot slot;
  const char *default_json =
      j->target == NC_TARGET_CREATE ? c->cfg->factory_config : c->cfg->table_config;
  const char *warm_json[2] = {default_json, "this is not JSON"};
  for (int w = 0; w < 2; w++) {
    memset(&slot, 0, sizeof(slot));
    if (call_target(c, j->target, &f, warm_json[w], &slot, &err) == NVE_SUCCESS &&
        handle_usable(j->target, &slot)) {
      if (j->flags & NC_CALL_EXERCISE)
        exercise(c, j->target, &slot); /* its one-time allocations too */
      destroy(j->target, &slot);
    }
  }
  if (j->target == NC_TARGET_PRODUCE)
    nc_call_factory_last_error(&f);
  nc_alloc_warm_tls();

  memset(&slot, NC_OUTPUT_PATTERN, sizeof(slot));
  err = (const char *)&slot; /* not NULL: success must set it to NULL */
  nc_alloc_reset();
  nc_alloc_watch(&slot, sizeof(slot));
  nc_alloc_arm(j->k, !(j->flags & NC_CALL_TRANSIENT));
  nve_status_t status = call_target(c, j->target, &f, j->json, &slot, &err);
  int fired = nc_alloc_fired();
  nc_alloc_arm(0, 0);
  nc_alloc_watch_stop();
  nc_alloc_stats stats;
  nc_alloc_get_stats(&stats);

  int output = nc_output_state(&slot, sizeof(slot));
  int usable = 0, error_state = NC_ERR_NULL;
  long destroy_left = 0;
  char message[160] = "";
  if (status == NVE_SUCCESS) {
    usable = handle_usable(j->target, &slot);
    if (j->target == NC_TARGET_CREATE && err != NULL)
      error_state = err == (const char *)&slot ? NC_ERR_UNREADABLE : NC_ERR_MESSAGE;
    if (usable) {
      if ((j->flags & NC_CALL_EXERCISE) && (fired || !j->k))
        exercise(c, j->target, &slot);
      destroy(j->target, &slot);
      /* What produce made may belong to the factory: count after both go. */
      if (j->target == NC_TARGET_PRODUCE) {
        nc_call_factory_destroy(&f);
        f.ops = NULL;
      }
      nc_alloc_stats after;
      nc_alloc_get_stats(&after);
      destroy_left = after.live;
    }
  } else if (j->target == NC_TARGET_CREATE) {
    error_state = err == (const char *)&slot ? NC_ERR_UNREADABLE
                                             : examine_error(c, err, message, sizeof(message));
  } else {
    nc_read_plugin_string(nc_call_factory_last_error(&f), message, sizeof(message));
  }
  char numbers[256];
  snprintf(numbers, sizeof(numbers), "%d %d %d %d %ld %ld %ld %ld %d %d", (int)status, fired,
           output, usable, stats.allocations, stats.live, stats.live_bytes, destroy_left,
           nc_alloc_watch_state(), error_state);
  const char *fields[] = {numbers, message};
  nc_trace_record("OUTCOME", 2, fields);
  if (f.ops)
    nc_call_factory_destroy(&f);
  nc_pool_shutdown();
  nc_case_child_send_counts();
}

/* ---- in the case's own process --------------------------------------------------- */

int nc_isolated_call(nc_case *c, nc_target target, const char *label, const char *json, long k,
                     unsigned flags, nc_call_outcome *out)
{
  memset(out, 0, sizeof(out[0]));
  out->target = target;
  out->k = k;
  out->transient = (flags & NC_CALL_TRANSIENT) != 0;
  out->zero_first = -1;
  out->must_fail_with = -2;
  snprintf(out->config, sizeof(out->config), "%s", label);
  call_job j = {c, target, json, k, flags};
  nc_child_result cr;
  char err[256];
  if (nc_run_isolated(call_body, &j, nc_step_timeout(c), 0, 0, &cr, err, sizeof(err)) != 0) {
    nc_isolation_failed(c, err);
    return -1;
  }
  nc_case_child_forward(&cr);
  const nc_record *rec = nc_child_last(&cr, "OUTCOME");
  const nc_record *error = NULL;
  for (size_t i = 0; i < cr.nrecords; i++)
    if (strcmp(cr.records[i].tag, "CHECK") == 0 && cr.records[i].nfields >= 4 &&
        strcmp(cr.records[i].fields[0], NC_LEVEL_ERROR) == 0)
      error = &cr.records[i];
  if (rec && rec->nfields >= 2 &&
      sscanf(rec->fields[0], "%d %d %d %d %ld %ld %ld %ld %d %d", &out->status, &out->fired,
             &out->output, &out->usable, &out->allocations, &out->leaked, &out->leaked_bytes,
             &out->destroy_left, &out->zero_first, &out->error_state) == 10) {
    snprintf(out->message, sizeof(out->message), "%s", rec->fields[1]);
    out->completed = 1;
    if (out->status == NVE_SUCCESS)
      out->leaked = out->leaked_bytes = 0;
  } else if (error) {
    nc_harness_error(c, "%s", error->fields[3]);
    nc_child_result_free(&cr);
    return -1;
  } else {
    char how[160];
    nc_child_describe_end(&cr, nc_step_timeout(c), how, sizeof(how));
    snprintf(out->how, sizeof(out->how), "%.159s in %.127s", how,
             cr.phase[0] ? cr.phase : "plugin code");
    out->signo = cr.signo;
  }
  nc_child_result_free(&cr);
  nc_trace_beat(0); /* progress: the parent's timeout is for silence */
  return 0;
}

void nc_isolation_failed(nc_case *c, const char *err)
{
  char why[160];
  if (nc_contain_limits_lowered(why, sizeof(why)))
    nc_fail(c, "plugin code", "the process's resource limits left as the host set them",
            "%s: the host cannot isolate the next call (%s)", why, err);
  else
    nc_harness_error(c, "could not run an isolated call: %s", err);
}

double nc_step_timeout(const nc_case *c) { return c->cfg->timeout_s * 0.6; }

void nc_outcome_label(const nc_call_outcome *o, char *out, size_t outlen)
{
  const char *what = o->target == NC_TARGET_CREATE ? "creation" : "produce";
  if (o->k)
    snprintf(out, outlen, "%s with allocation %ld %s failing (--sweep-k %ld)", what, o->k,
             o->transient ? "alone" : "and later ones", o->k);
  else
    snprintf(out, outlen, "%s with config %s", what, o->config);
}

/* ---- the cache shared by the rules of one run ------------------------------------ */

/* Sweeps are shared only with a scratch directory and the secret that
 * seals them. */
static int shared_cache(const nc_case *c)
{
  return c->cfg->cache_dir[0] && c->cfg->cache_secret[0];
}

static void cache_path(nc_case *c, const char *kind, nc_target target, char *out, size_t outlen)
{
  if (snprintf(out, outlen, "%s/%s-%s", c->cfg->cache_dir, kind,
               target == NC_TARGET_CREATE ? "create" : "produce") >= (int)outlen)
    out[0] = '\0';
}

/* The seal of a cache file: sha256 over the run's secret, the file's name
 * and its body. */
static void seal(const nc_case *c, const char *path, const char *header, const void *steps,
                 size_t len, char hex[65])
{
  nc_sha256 h;
  nc_sha256_init(&h);
  nc_sha256_update(&h, c->cfg->cache_secret, strlen(c->cfg->cache_secret));
  nc_sha256_update(&h, path, strlen(path) + 1);
  nc_sha256_update(&h, header, strlen(header));
  nc_sha256_update(&h, steps, len);
  nc_sha256_final_hex(&h, hex);
}

static int append(nc_sweep *s, const nc_call_outcome *o)
{
  nc_call_outcome *p = realloc(s->steps, (s->n + 1) * sizeof(*p));
  if (!p)
    return -1;
  s->steps = p;
  s->steps[s->n++] = *o;
  return 0;
}

static void save(nc_case *c, const char *kind, nc_target target, const nc_sweep *s)
{
  if (!shared_cache(c))
    return;
  char path[PATH_MAX];
  cache_path(c, kind, target, path, sizeof(path));
  FILE *f = path[0] ? fopen(path, "wb") : NULL;
  if (!f)
    return;
  char header[128], hex[65];
  snprintf(header, sizeof(header), "%zu %d %.6f", s->n, s->capped, s->seconds);
  seal(c, path, header, s->steps, s->n * sizeof(nc_call_outcome), hex);
  fprintf(f, "%s %s\n", header, hex);
  fwrite(s->steps, sizeof(nc_call_outcome), s->n, f);
  fclose(f);
}

static int load(nc_case *c, const char *kind, nc_target target, nc_sweep *s)
{
  if (!shared_cache(c))
    return -1;
  char path[PATH_MAX];
  cache_path(c, kind, target, path, sizeof(path));
  FILE *f = path[0] ? fopen(path, "rb") : NULL;
  if (!f)
    return -1;
  size_t n;
  char sealed[65] = "", hex[65], header[128];
  int ok = fscanf(f, "%zu %d %lf %64s", &n, &s->capped, &s->seconds, sealed) == 4 &&
           fgetc(f) == '\n' && n <= 2 * NC_SWEEP_CAP;
  if (ok) {
    s->steps = calloc(n ? n : 1, sizeof(nc_call_outcome));
    ok = s->steps && fread(s->steps, sizeof(nc_call_outcome), n, f) == n;
  }
  fclose(f);
  if (ok) { /* written by a case of this run, not by plugin code */
    snprintf(header, sizeof(header), "%zu %d %.6f", n, s->capped, s->seconds);
    seal(c, path, header, s->steps, n * sizeof(nc_call_outcome), hex);
    ok = strcmp(hex, sealed) == 0;
  }
  s->n = ok ? n : 0;
  if (!ok) {
    free(s->steps);
    memset(s, 0, sizeof(*s));
  }
  return ok ? 0 : -1;
}

static double seconds_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The right to compute a shared file: a lock beside it, held until the
 * file is written. At --jobs N the cases that need a sweep start side by
 * side; without it each ran the whole sweep (0.4 s of CPU apiece on the
 * reference) before the first had saved it. A waiting case beats (its
 * timeout is for silence) and, past the sweep's own budget, stops waiting
 * and computes for itself, as it did before: the lock lives in the run's
 * directory, where plugin code can reach it. Returns the lock's fd, to
 * close when done, or -1 to compute unshared. */
static int claim(nc_case *c, const char *kind, nc_target target)
{
  if (!shared_cache(c))
    return -1;
  char path[PATH_MAX + 8];
  cache_path(c, kind, target, path, sizeof(path) - 8);
  if (!path[0])
    return -1;
  strcat(path, ".lock");
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  double t0 = seconds_now(), beat = t0;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    double now = seconds_now();
    if (errno != EWOULDBLOCK || now - t0 > NC_SWEEP_BUDGET_S) {
      close(fd);
      return -1;
    }
    if (now - beat > 0.5) {
      nc_trace_beat(0);
      beat = now;
    }
    nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
  }
  return fd;
}

static void release_claim(int fd)
{
  if (fd >= 0)
    close(fd); /* the lock goes with its last descriptor */
}

static int sweep(nc_case *c, nc_target target, nc_sweep *out)
{
  const char *json = target == NC_TARGET_CREATE ? c->cfg->factory_config : c->cfg->table_config;
  double t0 = seconds_now();
  long first = c->cfg->sweep_k ? c->cfg->sweep_k : 1;
  long last = c->cfg->sweep_k ? c->cfg->sweep_k : NC_SWEEP_CAP;
  out->capped = 1;
  /* The control: the same call and use, nothing failing. A plugin whose
   * plain use crashes has that judged by the cases of its ops. */
  nc_call_outcome o;
  if (nc_isolated_call(c, target, "the run's", json, 0, NC_CALL_EXERCISE, &o) != 0)
    return -1;
  unsigned use = o.completed ? NC_CALL_EXERCISE : 0;
  for (long k = first; k <= last; k++) {
    if (seconds_now() - t0 > NC_SWEEP_BUDGET_S)
      break;
    if (nc_isolated_call(c, target, "the run's", json, k, use, &o) != 0)
      return -1;
    if (append(out, &o) != 0)
      return -1;
    if (o.completed && !o.fired) {
      out->capped = 0; /* a clean run: every allocation point was covered */
      break;
    }
    if (o.fired && (nc_isolated_call(c, target, "the run's", json, k, use | NC_CALL_TRANSIENT,
                                     &o) != 0 ||
                    append(out, &o) != 0))
      return -1;
  }
  if (c->cfg->sweep_k)
    out->capped = 0;
  out->seconds = seconds_now() - t0;
  return 0;
}

/* The run's shared result of kind: read, or computed by this case while
 * it holds the claim (and saved), or read after waiting for another's. */
static int shared(nc_case *c, const char *kind, nc_target target, nc_sweep *out,
                  int (*compute)(nc_case *, nc_target, nc_sweep *))
{
  memset(out, 0, sizeof(*out));
  if (load(c, kind, target, out) == 0)
    return 0;
  int lock = claim(c, kind, target);
  if (lock >= 0 && load(c, kind, target, out) == 0) { /* computed while this case waited */
    release_claim(lock);
    return 0;
  }
  int rc = compute(c, target, out);
  if (rc == 0)
    save(c, kind, target, out);
  release_claim(lock);
  return rc;
}

int nc_sweep_run(nc_case *c, nc_target target, nc_sweep *out)
{
  if (c->cfg->sweep_k) { /* one point asked for: nothing shared */
    memset(out, 0, sizeof(*out));
    return sweep(c, target, out);
  }
  return shared(c, "sweep", target, out, sweep);
}

/* A JSON object that nests depth arrays. */
static char *deeply_nested(size_t depth)
{
  char *s = malloc(2 * depth + 16);
  if (!s)
    return NULL;
  size_t p = 0;
  p += (size_t)sprintf(s, "{\"a\":");
  memset(s + p, '[', depth);
  p += depth;
  memset(s + p, ']', depth);
  p += depth;
  strcpy(s + p, "}");
  return s;
}

static char *huge_object(size_t bytes)
{
  char *s = malloc(bytes + 32);
  if (!s)
    return NULL;
  strcpy(s, "{\"padding\": \"");
  size_t p = strlen(s);
  memset(s + p, 'x', bytes);
  strcpy(s + p + bytes, "\"}");
  return s;
}

static int config_calls(nc_case *c, nc_target target, nc_sweep *out)
{
  char *nested = deeply_nested(100000), *huge = huge_object(1 << 20);
  const struct {
    const char *label;
    const char *json;
  } configs[] = {
      {"'not JSON'", "this is not JSON"},
      {"'[1, 2, 3]' (not an object)", "[1, 2, 3]"},
      {"'' (empty)", ""},
      {"NULL", NULL},
      {"'{\"max_row_size\": 12' (truncated)", "{\"max_row_size\": 12"},
      {"a 1 MiB object", huge},
      {"an object nested 100000 deep", nested},
      {"wrong-typed values", "{\"max_row_size\": \"many\", \"key_size\": [8], "
                             "\"initial_capacity\": {\"a\": 1}, \"device_id\": null}"},
  };
  double t0 = seconds_now();
  int rc = 0;
  for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]) && rc == 0; i++) {
    nc_call_outcome o;
    if ((configs[i].label[0] == 'a' && !configs[i].json) ||
        nc_isolated_call(c, target, configs[i].label, configs[i].json, 0, 0, &o) != 0 ||
        append(out, &o) != 0)
      rc = -1;
  }
  for (size_t i = 0; rc == 0 && i < c->cfg->failing_count; i++) {
    if (c->cfg->failing[i].target != (int)target)
      continue;
    nc_call_outcome o;
    char label[64];
    snprintf(label, sizeof(label), "#%zu declared failing in the profile", i + 1);
    if (nc_isolated_call(c, target, label, c->cfg->failing[i].json, 0, 0, &o) != 0)
      rc = -1;
    o.must_fail_with = c->cfg->failing[i].status;
    if (rc == 0 && append(out, &o) != 0)
      rc = -1;
  }
  free(nested);
  free(huge);
  out->seconds = seconds_now() - t0;
  return rc;
}

int nc_config_calls_run(nc_case *c, nc_target target, nc_sweep *out)
{
  return shared(c, "configs", target, out, config_calls);
}

void nc_sweep_free(nc_sweep *s)
{
  free(s->steps);
  memset(s, 0, sizeof(*s));
}
