/* SPDX-License-Identifier: Apache-2.0 */
/* ERR: statuses and thread-local last_error (doc/rules.md "ERR"; ERR-05 is in
 * own.c). Failures are provoked with calls a conforming table must or may
 * reject, and with configs produce must reject. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "threads.h"
#include "calls.h"
#include "cases.h"
#include "guarded.h"
#include "common.h"
#include "device_feed.h"
#include "isolated_call.h"
#include "services.h"
#include "table_kit.h"
#include "callback.h"
#include "violations.h"

#define MESSAGE_BOUND 4096
#define ROUNDS 50

/* ---- provoking failures --------------------------------------------------------- */

/* A produce call that should fail: a config, and the allocation of the
 * call to fail (0: none). */
typedef struct produce_call {
  char label[160];
  const char *json;
  long alloc_k;
} produce_call;

#define MAX_PRODUCE_CALLS 32
typedef struct produce_calls {
  produce_call call[MAX_PRODUCE_CALLS];
  int n;
} produce_calls;

typedef struct subject {
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  int64_t key_size, row; /* row: what the harness writes (nc_value_stride) */
  int64_t max_row;       /* what the table declares */
  unsigned char key[8];
  float *values; /* room for a row and a bit more */
  nc_device_feed feed;
  void *dkey, *dvalues; /* what calls pass: device copies for a DEVICE table */
  produce_calls produce; /* ERR-04's failing produce calls (factory_calls) */
} subject;

static void close_subject(subject *s)
{
  if (s->t.ops)
    nc_call_table_destroy(&s->t);
  if (s->f.ops)
    nc_call_factory_destroy(&s->f);
  if (s->feed.device >= 0) {
    nc_feed_free(s->dkey);
    nc_feed_free(s->dvalues);
  }
  nc_feed_end(&s->feed);
  free(s->values);
}

static int open_subject(nc_case *c, subject *s)
{
  memset(s, 0, sizeof(*s));
  s->feed.device = -1;
  if (nc_open_table(c, &s->f, &s->t) != 0)
    return -1;
  s->key_size = nc_call_key_size(&s->t);
  s->max_row = nc_call_max_row_size(&s->t);
  nc_table_caps caps;
  nc_call_capabilities(&s->t, &caps);
  s->row = s->max_row > 0 ? nc_value_stride(c, &caps) : 0;
  if (s->row <= 0 || s->row > (1 << 20) || (s->key_size != 4 && s->key_size != 8)) {
    nc_skip_blocked(c, NC_RULE_TBL_01, "the table's key size or row size is unusable");
    nc_close_table(&s->f, &s->t);
    return -1;
  }
  size_t room = (size_t)s->row + 64;
  s->values = calloc(1, room);
  uint64_t k = 42;
  memcpy(s->key, &k, 8);
  s->dkey = s->key;
  s->dvalues = s->values;
  if (!s->values || nc_feed_begin_for(c, &s->t, &s->feed) != 0) {
    close_subject(s);
    return -1;
  }
  if (s->feed.device >= 0) {
    s->dkey = nc_feed_alloc(&s->feed, sizeof(s->key));
    s->dvalues = nc_feed_alloc(&s->feed, room);
    if (!s->dkey || !s->dvalues || nc_feed_put(s->dkey, s->key, sizeof(s->key)) != 0 ||
        nc_feed_put(s->dvalues, s->values, room) != 0) {
      nc_harness_error(c, "could not copy a key and a row to device %d", s->feed.device);
      close_subject(s);
      return -1;
    }
  }
  nc_call_insert(&s->t, 1, s->dkey, s->row, s->row, s->dvalues);
  return 0;
}

/* A find of the subject's key with every output given (NULL outputs are
 * TBL-05's business), on the table's device for a DEVICE table. */
static void find_one(subject *s)
{
  nc_feed_enter(&s->feed);
  if (s->feed.device < 0) {
    uint64_t hit = 0;
    int64_t size = 0;
    nc_guarded row;
    if (nc_guarded_alloc(&row, "find values", (size_t)s->row) == 0)
      nc_call_find(&s->t, 1, s->dkey, &hit, s->row, row.data, &size);
    nc_guarded_free(&row);
    return;
  }
  static const uint64_t no_hit = 0;
  void *hit = nc_feed_alloc(&s->feed, sizeof(no_hit)), *row = nc_feed_alloc(&s->feed, (size_t)s->row),
       *size = nc_feed_alloc(&s->feed, sizeof(int64_t));
  if (hit && row && size && nc_feed_put(hit, &no_hit, sizeof(no_hit)) == 0)
    nc_call_find(&s->t, 1, s->dkey, hit, s->row, row, size);
  nc_feed_free(hit);
  nc_feed_free(row);
  nc_feed_free(size);
}

enum { N_TABLE_PROVOCATIONS = 6, N_FACTORY_PROVOCATIONS = 4 };

/* What provoke_table returns for a call it did not make. */
#define NOT_SENT ((nve_status_t)-1000)

static const char *const table_provocations[N_TABLE_PROVOCATIONS] = {
    "insert with value_size above max_row_size",
    "update with value_size above max_row_size",
    "update_accumulate with NVE_DTYPE_UNKNOWN",
    "update_accumulate with dtype 999 (outside the enum)",
    "update_accumulate with an update_size that is not a multiple of 4",
    "find with n = -1"};

static nve_status_t provoke_table(subject *s, int which)
{
  int64_t big = s->max_row + 4;
  nc_feed_enter(&s->feed);
  if (which < 2 && big > s->row + 64)
    return NOT_SENT; /* a row past max_row_size would not fit the buffers */
  switch (which) {
  case 0: return nc_call_insert(&s->t, 1, s->dkey, big, big, s->dvalues);
  case 1: return nc_call_update(&s->t, 1, s->dkey, big, big, s->dvalues);
  case 2:
    return nc_call_update_accumulate(&s->t, 1, s->dkey, s->row, 4, s->dvalues, NVE_DTYPE_UNKNOWN);
  case 3: return nc_call_update_accumulate(&s->t, 1, s->dkey, s->row, 4, s->dvalues, 999);
  case 4:
    return nc_call_update_accumulate(&s->t, 1, s->dkey, s->row, 3, s->dvalues, NVE_DTYPE_FLOAT32);
  default: return nc_call_find(&s->t, -1, s->dkey, NULL, s->row, NULL, NULL);
  }
}

static const char *const factory_provocations[N_FACTORY_PROVOCATIONS] = {
    "this is not JSON", "{\"max_row_size\": \"many\"}", "{", "[1, 2]"};

static void add_produce_call(produce_calls *p, const char *json, long alloc_k, const char *fmt,
                             ...) __attribute__((format(printf, 4, 5)));
static void add_produce_call(produce_calls *p, const char *json, long alloc_k, const char *fmt,
                             ...)
{
  if (p->n == MAX_PRODUCE_CALLS || !json)
    return;
  produce_call *call = &p->call[p->n++];
  call->json = json;
  call->alloc_k = alloc_k;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(call->label, sizeof(call->label), fmt, ap);
  va_end(ap);
}

/* Every produce the run makes fail (ERR-04): the invalid configs, the
 * profile's failing table configs, the run's own table config when it is
 * refused, and the run's config with one of its allocations failing at
 * the points where the allocation-failure sweep saw produce fail (the
 * sweep is shared with the OWN cases and cached per run; each point is
 * judged again here, on a thread of its own). */
static void factory_calls(nc_case *c, nc_refusal refused, produce_calls *p)
{
  memset(p, 0, sizeof(*p));
  for (int i = 0; i < N_FACTORY_PROVOCATIONS; i++)
    add_produce_call(p, factory_provocations[i], 0, "produce with config %s",
                     factory_provocations[i]);
  for (size_t i = 0; i < c->cfg->failing_count; i++)
    if (c->cfg->failing[i].target == 1)
      add_produce_call(p, c->cfg->failing[i].json, 0, "produce with the profile's failing config "
                       "%.60s", c->cfg->failing[i].json);
  if (refused == NC_REFUSAL_PRODUCE)
    add_produce_call(p, c->cfg->table_config, 0, "produce with the run's config %.60s (refused)",
                     c->cfg->table_config);
  nc_sweep sweep;
  if (refused != NC_REFUSAL_NONE || !nc_alloc_available() ||
      nc_sweep_run(c, NC_TARGET_PRODUCE, &sweep) != 0)
    return;
  /* Every point where allocation k failing alone (as the produce below
   * fails it) made produce fail, in order, as many as fit: not one per
   * message the sweep read, which it read after a warm-up failure on its
   * thread, so that silent points could all read alike. */
  for (size_t k = 0; k < sweep.n; k++) {
    const nc_call_outcome *o = &sweep.steps[k];
    if (o->completed && o->fired && o->transient && o->status != NVE_SUCCESS)
      add_produce_call(p, c->cfg->table_config, o->k, "produce with allocation %ld failing",
                       o->k);
  }
  nc_sweep_free(&sweep);
}

static nve_status_t provoke_factory(subject *s, int which)
{
  const produce_call *call = &s->produce.call[which];
  nve_ext_table_t t;
  if (call->alloc_k) {
    nc_alloc_warm_tls(); /* the loader's first touch of TLS must not be the one that fails */
    nc_alloc_reset();
    nc_alloc_arm(call->alloc_k, 0);
  }
  nve_status_t st = nc_call_produce(&s->f, 2, call->json, &t);
  if (call->alloc_k)
    nc_alloc_arm(0, 0);
  if (st == NVE_SUCCESS && t.ops && t.ops->destroy)
    nc_call_table_destroy(&t);
  return st;
}

static const char *table_error(subject *s) { return nc_call_table_last_error(&s->t); }
static const char *factory_error(subject *s) { return nc_call_factory_last_error(&s->f); }

/* One provocation made and its last_error read on the same thread. */
typedef struct provocation {
  subject *s;
  int which, factory;
  nve_status_t status;
  const char *msg; /* where last_error pointed (never read again) */
  long len;        /* nc_read_plugin_string's answer */
  char copy[MESSAGE_BOUND];
} provocation;

static void *provoke_and_read(void *arg)
{
  provocation *p = arg;
  const produce_call *call = p->factory ? &p->s->produce.call[p->which] : NULL;
  if (call && call->alloc_k) {
    /* A produce on the success path first: the first calls on a thread may
     * allocate once for it (the plugin's thread-local state), and the sweep
     * counted the allocations on a thread past those. */
    nve_ext_table_t t;
    if (nc_call_produce(&p->s->f, 2, call->json, &t) == NVE_SUCCESS && t.ops && t.ops->destroy)
      nc_call_table_destroy(&t);
  }
  p->status = p->factory ? provoke_factory(p->s, p->which) : provoke_table(p->s, p->which);
  if (p->status != NVE_SUCCESS && p->status != NOT_SENT) {
    p->msg = p->factory ? factory_error(p->s) : table_error(p->s);
    p->len = nc_read_plugin_string(p->msg, p->copy, MESSAGE_BOUND);
  }
  return NULL;
}

/* Runs fn(arg) on a thread of its own, on which nothing has failed yet:
 * a failure that leaves no message reads as none there, not as an earlier
 * failure's message (or one the plugin wrote on a success). 0, or -1
 * after a harness error when no thread could be made (on this thread the
 * check would be the weaker one). */
static int on_fresh_thread(nc_case *c, void *(*fn)(void *), void *arg, const char *what)
{
  pthread_t t;
  if (nc_thread_create(&t, fn, arg) != 0) {
    nc_harness_error(c, "could not start a thread for %s", what);
    return -1;
  }
  pthread_join(t, NULL);
  return 0;
}

static int provoke_alone(nc_case *c, subject *s, int factory, int which, provocation *p)
{
  memset(p, 0, sizeof(*p));
  p->s = s;
  p->factory = factory;
  p->which = which;
  return on_fresh_thread(c, provoke_and_read, p, "a provocation");
}

/* Judges the message after a failed provocation (ERR-02). */
static void check_message(nc_case *c, const char *what, const provocation *p)
{
  char call[200];
  snprintf(call, sizeof(call), "last_error after %s (status %d)", what, (int)p->status);
  if (!p->msg)
    nc_fail(c, call, "a message", "NULL");
  else if (p->len == -1)
    nc_fail(c, call, "a readable message", "an unreadable pointer %p", (const void *)p->msg);
  else if (p->len == -2)
    nc_fail(c, call, "a message terminated within 4096 bytes", "no NUL in 4096 bytes");
  else if (p->len == 0)
    nc_fail(c, call, "a non-empty message", "\"\"");
  else if (!nc_utf8_valid(p->copy))
    nc_warn(c, call, "valid UTF-8", "invalid UTF-8 bytes");
  else
    nc_note(c, call, "a message", "\"%s\"", p->copy);
}

/* ---- ERR-01 ---------------------------------------------------------------------- */

void nc_case_ERR_01(nc_case *c)
{
  /* A refused config is judged too: its status is one the wrappers see. */
  nc_refusal refused = nc_config_refusal(c);
  if (refused == NC_REFUSAL_NONE) {
    subject s;
    if (open_subject(c, &s) != 0)
      return;
    for (int i = 0; i < N_TABLE_PROVOCATIONS; i++)
      provoke_table(&s, i);
    factory_calls(c, refused, &s.produce);
    for (int i = 0; i < s.produce.n; i++)
      if (!s.produce.call[i].alloc_k)
        provoke_factory(&s, i);
    nc_workload_result w;
    nc_workload_run(c, &s.t, &w);
    close_subject(&s);
  } else {
    nc_note(c, refused == NC_REFUSAL_CREATION ? "creation with the run's config"
                                              : "produce with the run's config",
            "accepted", "refused: the statuses of that call and of the malformed configs' calls "
            "are judged; no table could be made for the rest");
  }
  /* Creation and produce with malformed configs, each in a child of its
   * own (a crash there is ERR-05's); the statuses they return come back
   * as evidence. The OWN cases share these calls (cached per run). */
  for (int target = NC_TARGET_CREATE; target <= NC_TARGET_PRODUCE; target++) {
    if (target == NC_TARGET_PRODUCE && refused == NC_REFUSAL_CREATION)
      break; /* no factory to produce with */
    nc_sweep calls;
    if (nc_config_calls_run(c, (nc_target)target, &calls) == 0)
      nc_sweep_free(&calls);
  }
  nc_report_violations(c, NC_RULE_ERR_01, "every status returned in this case",
                       "a nve_status_t value (0..5)");
}

/* ---- ERR-02 ---------------------------------------------------------------------- */

void nc_case_ERR_02(nc_case *c)
{
  subject s;
  if (open_subject(c, &s) != 0)
    return;
  int failures = 0;
  provocation p;
  for (int i = 0; i < N_TABLE_PROVOCATIONS; i++) {
    if (provoke_alone(c, &s, 0, i, &p) != 0) {
      close_subject(&s);
      return;
    }
    if (p.status == NVE_SUCCESS || p.status == NOT_SENT)
      continue;
    failures++;
    check_message(c, table_provocations[i], &p);
  }
  close_subject(&s);
  if (!failures)
    nc_untested(c, "inconclusive: none of the calls a table may reject failed (%s, ...); declare "
               "failing calls in a profile",
            table_provocations[0]);
}

/* ---- ERR-03 and ERR-04: two threads, two failures, barriers ------------------------ */

typedef struct duel {
  nc_case *c;
  subject *s;
  int factory; /* ERR-04 */
  int x, y;    /* the two provocations, with different messages */
  pthread_barrier_t step;
  int b_succeeds, swap; /* the variant of this round */
  char problem[512];
} duel;

static nve_status_t provoke(duel *d, int which)
{
  return d->factory ? provoke_factory(d->s, which) : provoke_table(d->s, which);
}

static const char *last_error_of(duel *d) { return d->factory ? factory_error(d->s) : table_error(d->s); }

static void *thread_b(void *arg)
{
  duel *d = arg;
  for (int round = 0; round < 4 * ROUNDS; round++) {
    pthread_barrier_wait(&d->step); /* A has failed and read its message */
    int mine = d->swap ? d->x : d->y;
    if (d->b_succeeds) {
      if (d->factory) {
        nve_ext_table_t t;
        if (nc_call_produce(&d->s->f, 3, d->c->cfg->table_config, &t) == NVE_SUCCESS)
          nc_call_table_destroy(&t);
      } else {
        find_one(d->s);
      }
    } else {
      provoke(d, mine);
      last_error_of(d);
    }
    pthread_barrier_wait(&d->step); /* B is done; A checks */
  }
  return NULL;
}

/* Thread A's side of the rounds; returns 0, or -1 with d->problem set to
 * the first problem (all rounds still run, so thread B can finish). */
static int thread_a(duel *d)
{
  int bad = 0;
  char before[MESSAGE_BOUND], pointed[MESSAGE_BOUND], again[MESSAGE_BOUND];
  for (int round = 0; round < 4 * ROUNDS; round++) {
    d->b_succeeds = round % 2;
    d->swap = (round / 2) % 2;
    int mine = d->swap ? d->y : d->x;
    provoke(d, mine);
    const char *p = last_error_of(d);
    long len = nc_read_plugin_string(p, before, sizeof(before));
    pthread_barrier_wait(&d->step);
    pthread_barrier_wait(&d->step);
    long len2 = nc_read_plugin_string(p, pointed, sizeof(pointed));
    const char *q = last_error_of(d);
    long len3 = nc_read_plugin_string(q, again, sizeof(again));
    const char *between = d->b_succeeds ? "a success" : "a different failure";
    if (bad)
      continue;
    if (len > 0 && (len2 < 0 || strcmp(before, pointed) != 0)) {
      bad = 1;
      snprintf(d->problem, sizeof(d->problem),
               "round %d: the text at the pointer thread A got changed from \"%.120s\" to "
               "\"%.120s\" after %s on thread B",
               round, before, len2 < 0 ? "(unreadable)" : pointed, between);
    } else if (len > 0 && (len3 < 0 || strcmp(before, again) != 0)) {
      bad = 1;
      snprintf(d->problem, sizeof(d->problem),
               "round %d: thread A's last_error changed from \"%.120s\" to \"%.120s\" after %s "
               "on thread B",
               round, before, len3 < 0 ? "(unreadable)" : again, between);
    }
  }
  return bad ? -1 : 0;
}

/* Picks two provocations that fail with different messages; -1 if none,
 * after saying what each one tried did. */
static int pick_two(nc_case *c, duel *d, int count, const char *(*name)(duel *, int))
{
  char first[MESSAGE_BOUND] = "", msg[MESSAGE_BOUND], tried[900] = "";
  size_t at = 0;
  int have_first = -1;
  for (int i = 0; i < count; i++) {
    nve_status_t st = provoke(d, i);
    int failed = st != NVE_SUCCESS && st != NOT_SENT;
    long len = failed ? nc_read_plugin_string(last_error_of(d), msg, sizeof(msg)) : 0;
    if (at < sizeof(tried))
      at += (size_t)snprintf(tried + at, sizeof(tried) - at, "%s%s: %s", at ? "; " : "",
                             name(d, i), st == NOT_SENT ? "not sent (rows too wide)"
                                         : !failed      ? "accepted"
                                         : len > 0      ? msg
                                                        : "failed without a message");
    if (!failed || len <= 0)
      continue;
    if (have_first < 0) {
      have_first = i;
      snprintf(first, sizeof(first), "%s", msg);
    } else if (strcmp(first, msg) != 0) {
      d->x = have_first;
      d->y = i;
      nc_note(c, "the two failures", "different messages", "X: %s -> \"%.100s\"; Y: %s -> \"%.100s\"",
              name(d, d->x), first, name(d, d->y), msg);
      return 0;
    }
  }
  nc_note(c, "the failures provoked", "two failures with different messages", "%s", tried);
  nc_untested(c, "inconclusive: %s (%d calls tried; the evidence lists each); declare failing "
                 "calls in a profile",
              have_first < 0 ? "no failure with a message could be provoked"
                             : "every provoked failure gave the same message, so a shared "
                               "buffer would go unnoticed",
              count);
  return -1;
}

static const char *provocation_name(duel *d, int which)
{
  return d->factory ? d->s->produce.call[which].label : table_provocations[which];
}

/* The two-thread check on s (opened, produce calls made). */
static void duel_on(nc_case *c, subject *s, int factory)
{
  duel d;
  memset(&d, 0, sizeof(d));
  d.c = c;
  d.s = s;
  d.factory = factory;
  if (pick_two(c, &d, factory ? s->produce.n : N_TABLE_PROVOCATIONS, provocation_name) == 0) {
    pthread_barrier_init(&d.step, NULL, 2);
    pthread_t b;
    if (nc_thread_create(&b, thread_b, &d) != 0) {
      nc_harness_error(c, "could not start a thread");
    } else {
      int bad = thread_a(&d);
      pthread_join(b, NULL);
      if (bad)
        nc_fail(c, "last_error on two threads", "each thread keeps its own message", "%s",
                d.problem);
      else
        nc_note(c, "last_error on two threads", "each thread keeps its own message",
                "%d rounds: A failed, B failed or succeeded, in both orders", 4 * ROUNDS);
    }
    pthread_barrier_destroy(&d.step);
  }
}

void nc_case_ERR_03(nc_case *c)
{
  subject s;
  if (open_subject(c, &s) != 0)
    return;
  duel_on(c, &s, 0);
  close_subject(&s);
}

void nc_case_ERR_04(nc_case *c)
{
  /* Only a factory is needed: a refused table config is one more failing
   * produce to judge. */
  nc_refusal refused = nc_config_refusal(c);
  subject s;
  memset(&s, 0, sizeof(s));
  s.feed.device = -1;
  if (refused == NC_REFUSAL_NONE ? open_subject(c, &s) != 0 : nc_create_factory(c, &s.f) != 0)
    return;
  factory_calls(c, refused, &s.produce);
  if (refused == NC_REFUSAL_NONE && !nc_alloc_available())
    nc_note(c, "produce with one of its allocations failing", "judged",
            "not made: it needs the allocation interposer, which sanitizer builds leave out "
            "and valgrind replaces (--sanitize valgrind)");
  /* ERR-02 for produce first: the factory's last_error after a failure. */
  char tried[900] = "";
  size_t at = 0;
  int failures = 0;
  provocation p;
  for (int i = 0; i < s.produce.n; i++) {
    if (provoke_alone(c, &s, 1, i, &p) != 0) {
      close_subject(&s);
      return;
    }
    if (p.status == NVE_SUCCESS) {
      if (at < sizeof(tried))
        at += (size_t)snprintf(tried + at, sizeof(tried) - at, "%s%s", at ? "; " : "",
                               s.produce.call[i].label);
      continue;
    }
    failures++;
    check_message(c, s.produce.call[i].label, &p);
  }
  if (failures)
    duel_on(c, &s, 1);
  else
    nc_untested(c, "inconclusive: every failing produce the run could provoke succeeded (%s); "
                   "declare failing table configs in a profile", tried);
  close_subject(&s);
}

/* ---- ERR-06: a failing host service ---------------------------------------------- */

static const char *const services[] = {"execute_n", "execute_n_wg", "get_scratch", "num_workers",
                                       "get_lookup_stream", "get_modify_stream"};

#define ERR06_KEYS 4096 /* batches big enough that tables use the services */
#define ERR06_FINDS 4

/* What one run of the sequence showed: the hits of each find (against a
 * run without injected failures), failures without a message, and, from
 * the kit, answers that disagree with the model. */
typedef struct err06_run {
  unsigned char *hits; /* ERR06_FINDS x n: 1 hit, 0 miss */
  int failed;          /* ops that returned a failure */
  const char *first_failed; /* the op of the first one */
  char silent[160];    /* the first failure without a message */
  int64_t missing;     /* keys the clean run found and this one did not */
  char first_missing[160];
} err06_run;

/* After an op: a failure must come with a message. Returns 1 on failure. */
static int err06_step(nc_tk *k, err06_run *r, const char *op, nve_status_t s)
{
  if (s == NVE_SUCCESS)
    return 0;
  char msg[256] = "";
  nc_read_plugin_string(nc_call_table_last_error(&k->t), msg, sizeof(msg));
  if (!msg[0] && !r->silent[0])
    snprintf(r->silent, sizeof(r->silent), "%s returned status %d with an empty last_error", op,
             (int)s);
  if (!r->failed++)
    r->first_failed = op;
  return 1;
}

/* One find of the sequence; compares its hits with the clean run's while
 * no op has failed yet (a failed op may leave its keys in any state). */
static void err06_find(nc_tk *k, err06_run *r, const err06_run *clean, int which,
                       const int64_t *keys, int64_t n)
{
  nc_find_opts o = {.may_fail = 1};
  unsigned char *hits = r->hits + which * n;
  int before = r->failed;
  memset(hits, 0, (size_t)n);
  if (err06_step(k, r, "find", nc_tk_find(k, n, keys, &o, hits) < 0 ? NVE_ERROR_RUNTIME
                                                                      : NVE_SUCCESS) ||
      !clean || before > 0)
    return;
  const unsigned char *want = clean->hits + which * n;
  for (int64_t i = 0; i < n; i++)
    if (want[i] == 1 && hits[i] != 1 && r->missing++ == 0)
      snprintf(r->first_missing, sizeof(r->first_missing),
               "find %d of %d: key %lld (index %lld) was found without the failure and missed "
               "with it",
               which + 1, ERR06_FINDS, (long long)keys[i], (long long)i);
}

/* insert, find, update, find, accumulate, find, erase, find: every op may
 * fail (quietly: the verdict is the caller's). */
static void err06_sequence(nc_tk *k, const int64_t *keys, int64_t n, err06_run *r,
                           const err06_run *clean)
{
  k->quiet = 1;
  err06_step(k, r, "insert", nc_tk_insert(k, n, keys, 0, 1, 1));
  err06_find(k, r, clean, 0, keys, n);
  err06_step(k, r, "update", nc_tk_update(k, n / 2, keys, 0, 2, 1));
  err06_find(k, r, clean, 1, keys, n);
  int64_t size = nc_tk_update_size(k, k->caps.dtype, 0);
  if (size) {
    nve_status_t s = nc_tk_accumulate(k, n / 2, keys + n / 4, k->caps.dtype, size, 3, 1);
    if (s != NVE_ERROR_NOT_IMPLEMENTED) /* the combination refused: TBL-07's business */
      err06_step(k, r, "update_accumulate", s);
  }
  err06_find(k, r, clean, 2, keys, n);
  err06_step(k, r, "erase", nc_tk_erase(k, n / 4, keys, 1));
  err06_find(k, r, clean, 3, keys, n);
}

typedef struct err06_job {
  nc_tk *k;
  const int64_t *keys;
  int64_t n;
  err06_run *r;
  const err06_run *clean;
} err06_job;

static void *err06_alone(void *arg)
{
  err06_job *j = arg;
  err06_sequence(j->k, j->keys, j->n, j->r, j->clean);
  return NULL;
}

/* Runs the sequence on a fresh table with service failing (NULL: none),
 * on a fresh thread (on_fresh_thread). Returns the calls of that service made for the sequence's ops, or -1
 * when no table or thread could be made (recorded). */
static long err06_try(nc_case *c, const char *service, const int64_t *keys, int64_t n,
                      err06_run *r, const err06_run *clean, int64_t *mismatches, char *first,
                      size_t firstlen, nc_rule *owner)
{
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return -1;
  long before = service ? nc_services_calls(service) : 0;
  nc_services_fail(service);
  err06_job job = {&k, keys, n, r, clean};
  int started = on_fresh_thread(c, err06_alone, &job, "the sequence") == 0;
  nc_services_fail(NULL);
  if (!started) {
    nc_tk_close(&k, &f);
    return -1;
  }
  long calls = service ? nc_services_calls(service) - before : 0;
  *mismatches = k.mismatches;
  snprintf(first, firstlen, "%s", k.mismatch);
  if (owner)
    *owner = k.mismatch_owners[0];
  nc_tk_close(&k, &f);
  return calls;
}

void nc_case_ERR_06(nc_case *c)
{
  /* The keys, and the batch size the table's rows allow, from a kit on a
   * table made for the purpose. */
  nve_ext_table_factory_t f;
  nc_tk k;
  if (nc_tk_open(&k, &f, c) != 0)
    return;
  int64_t n = nc_tk_batch(&k, nc_batch_for_rows(k.stride, ERR06_KEYS));
  int64_t *keys = malloc((size_t)n * sizeof(int64_t));
  unsigned char *hits = calloc((size_t)(2 * ERR06_FINDS), (size_t)n);
  if (keys)
    nc_tk_keys(&k, keys, n, 20000);
  nc_tk_close(&k, &f);
  if (!keys || !hits) {
    nc_harness_error(c, "out of memory for %lld keys", (long long)n);
    free(keys);
    free(hits);
    return;
  }
  err06_run clean = {.hits = hits};
  int64_t mismatches;
  char first[768];
  int used = 0;
  nc_rule owner = NC_RULE_TBL_02;
  if (err06_try(c, NULL, keys, n, &clean, NULL, &mismatches, first, sizeof(first), &owner) < 0)
    goto out;
  if (clean.failed || mismatches) {
    /* Without an injected failure the sequence already goes wrong: that is
     * the op's own rule's defect, and this one cannot be judged. */
    if (clean.failed)
      nc_skip_blocked(c, nc_op_owner(clean.first_failed ? clean.first_failed : "find"),
                      "%s fails without an injected service failure",
                      clean.first_failed ? clean.first_failed : "an op");
    else
      nc_skip_blocked(c, owner, "without an injected service failure: %s", first);
    goto out;
  }
  for (size_t i = 0; i < sizeof(services) / sizeof(services[0]); i++) {
    err06_run r = {.hits = hits + ERR06_FINDS * n};
    long calls = err06_try(c, services[i], keys, n, &r, &clean, &mismatches, first,
                           sizeof(first), NULL);
    if (calls < 0)
      goto out;
    if (calls == 0)
      continue;
    used = 1;
    char what[128];
    snprintf(what, sizeof(what), "insert, find, update, accumulate, erase with %s failing",
             services[i]);
    const char *expected = "each op recovers (NVE_SUCCESS, right results) or fails with a message";
    if (mismatches)
      nc_warn(c, what, expected, "%ld calls of %s failed; an op returned NVE_SUCCESS with wrong "
              "results: %s", calls, services[i], first);
    else if (r.missing)
      nc_warn(c, what, expected, "%ld calls of %s failed; finds returned NVE_SUCCESS with %lld "
              "result(s) missing; first: %s", calls, services[i], (long long)r.missing,
              r.first_missing);
    else if (r.silent[0])
      nc_warn(c, what, expected, "%ld calls of %s failed; %s", calls, services[i], r.silent);
    else if (r.failed)
      nc_note(c, what, expected, "%ld calls of %s failed; %d op(s) failed with a message, the "
              "others recovered", calls, services[i], r.failed);
    else
      nc_note(c, what, expected, "%ld calls of %s failed; every op recovered with the results "
              "of a run without the failure", calls, services[i]);
  }
  if (!used)
    nc_not_applicable(c, "the plugin called no host service during its ops");
out:
  free(keys);
  free(hits);
}
