/* SPDX-License-Identifier: Apache-2.0 */
/* The reproducer of a case that plugin code ended (crash_repro.h). */
#define _GNU_SOURCE
#include "crash_repro.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "crash_log.h"
#include "explore_shrink.h"
#include "repro_out.h"
#include "runner.h"
#include "strbuf.h"
#include "trace.h"

/* The replay's child writes nothing on the case's channel: what plugin
 * code does there (an exit's handlers) is not this process's. */
static void leave_channel(void)
{
  int fd = nc_trace_fd();
  nc_trace_start(-1, NULL);
  if (fd >= 0)
    close(fd);
}
/* While a replay runs: the case's timeout counts from the last beat. */
static void keep_alive(void)
{
  static double last;
  double now = nc_now();
  if (now - last > 0.5) {
    nc_trace_beat(0);
    last = now;
  }
}
#define CRASH_CHILD_HOOK leave_channel
#define CRASH_WAIT_HOOK keep_alive
#define CRASH_LIBRARY
#include "crash_runtime.c"

static const char runtime[] =
#include "crash_runtime.h" /* made from crash_runtime.c (Makefile.am) */
    ;

/* Replays at most, and the bytes of keys a reproducer holds at most. */
#define REPLAYS_MAX 150
#define DATA_MAX (4u << 20)
/* Calls listed in the report. */
#define SHOWN_CALLS 8

/* How the case ended, from the runner's word. */
/* How the case ended, from the runner's word: "signal:N", "exit:N",
 * "hang", or "refused:LINE:STATUS" (the log's line of a valid call the
 * plugin refused, *upto; else -1), then "@RULE", the rule the failure is
 * charged to (*owner). */
static int parse_how(const char *how, struct crash_end *e, long long *upto, nc_rule *owner)
{
  e->at = -1;
  e->code = 0;
  *upto = -1;
  const char *at = strchr(how, '@');
  int rule = at ? nc_rule_parse(at + 1) : -1;
  if (rule < 0)
    return -1;
  *owner = (nc_rule)rule;
  if (strncmp(how, "hang@", 5) == 0)
    e->how = CR_HANG;
  else if (sscanf(how, "signal:%d", &e->code) == 1)
    e->how = CR_SIGNAL;
  else if (sscanf(how, "exit:%d", &e->code) == 1)
    e->how = CR_EXIT;
  else if (sscanf(how, "refused:%lld:%d", upto, &e->code) == 2 && *upto >= 0)
    e->how = CR_REFUSED;
  else
    return -1;
  return 0;
}

typedef struct shrinker {
  nc_case *c;
  crash_log *l;
  struct crash_call *kept, *trial;
  size_t len;
  struct crash_end want;
  int replays;
  double deadline;
} shrinker;

/* The reproducer waits the case's timeout for a call; the replays here
 * wait less (HANG_AFTER_S at most): a call of the case's that hangs hangs
 * in every replay that ends in it, and a slow call elsewhere only makes a
 * replay fail to end alike. */
#define HANG_AFTER_S 2.0
static double case_timeout(const nc_case *c) { return c->cfg->timeout_s > 0 ? c->cfg->timeout_s : 5; }

/* 1 when calls[0..n) in a child of this process end as wanted, in the
 * last call. */
static int dies_alike(shrinker *s, const struct crash_call *calls, size_t n, struct crash_end *e)
{
  double t = case_timeout(s->c);
  s->replays++;
  cr_run(s->c->cfg->plugin_path, calls, n, s->l->data, t < HANG_AFTER_S ? t : HANG_AFTER_S, e);
  return e->how == s->want.how && e->code == s->want.code && e->at == (int64_t)n - 1;
}

static int more_replays(void *ctx)
{
  shrinker *s = ctx;
  return s->replays < REPLAYS_MAX && nc_now() < s->deadline;
}

static int calls_without(void *ctx, size_t start, size_t end)
{
  shrinker *s = ctx;
  size_t n = nc_x_copy_without(s->trial, s->kept, s->len, sizeof(*s->kept), start, end);
  struct crash_end e;
  if (!dies_alike(s, s->trial, n, &e))
    return 0;
  memcpy(s->kept, s->trial, n * sizeof(*s->kept));
  s->len = n;
  return 1;
}

static const char *op_name(int op) { return op >= 0 && op < CR_OPS ? crash_op_names[op] : "?"; }

static void emit_calls(nc_strbuf *b, const struct crash_call *calls, size_t n)
{
  static const char *const ids[CR_OPS] = {
      "CR_CREATE", "CR_DROP_FACTORY", "CR_PRODUCE", "CR_DESTROY", "CR_FIND", "CR_INSERT",
      "CR_UPDATE", "CR_ACCUMULATE", "CR_ERASE", "CR_CLEAR", "CR_RESET_COUNTER",
      "CR_GET_COUNTER"};
  nc_strbuf_puts(b, "static const struct crash_call crash_calls[] = {\n");
  for (size_t i = 0; i < n; i++) {
    const struct crash_call *c = &calls[i];
    nc_strbuf_printf(b, "    {%s, %d, %d, %d, %d, %d, %lld, %lld, %lld, %lld, %lld},\n",
                     ids[c->op], c->handle, c->key_size, c->nulls, c->dtype, c->status,
                     (long long)c->n, (long long)c->stride, (long long)c->size,
                     (long long)c->at, (long long)c->len);
  }
  nc_strbuf_printf(b, "};\nstatic const size_t crash_ncalls = %zu;\n", n);
}

/* The calls with their data moved into one compact block (*data). */
static struct crash_call *compact(const crash_log *l, const struct crash_call *calls, size_t n,
                                  unsigned char **data, size_t *len)
{
  *len = 0;
  *data = NULL;
  for (size_t i = 0; i < n; i++)
    *len += calls[i].at >= 0 ? (size_t)calls[i].len : 0;
  if (*len > DATA_MAX)
    return NULL;
  struct crash_call *out = malloc((n ? n : 1) * sizeof(*out));
  *data = malloc(*len ? *len : 1);
  if (!out || !*data) {
    free(out);
    free(*data);
    *data = NULL;
    return NULL;
  }
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    out[i] = calls[i];
    if (calls[i].at < 0)
      continue;
    memcpy(*data + at, l->data + calls[i].at, (size_t)calls[i].len);
    out[i].at = (int64_t)at;
    at += (size_t)calls[i].len;
  }
  return out;
}

/* Writes the reproducer; its name, or "" when it could not be. */
static void write_repro(nc_case *c, const crash_log *l, const struct crash_call *calls, size_t n,
                        const struct crash_end *want, nc_rule owner, const char *seen,
                        char *name, size_t namelen)
{
  unsigned char *data;
  size_t len;
  struct crash_call *out = compact(l, calls, n, &data, &len);
  name[0] = '\0';
  if (!out || len > DATA_MAX) {
    free(out);
    free(data);
    return;
  }
  const char *mark = strstr(runtime, "/* @DATA@ */");
  nc_strbuf b = {0};
  const char *kind = want->how == CR_REFUSED ? "refused" : "crash";
  nc_strbuf_printf(&b, "/* The reproducer of %s's %s call (nve-conform, seed %llu). */\n",
                   nc_rule_text(owner), want->how == CR_REFUSED ? "refused" : "crashing",
                   (unsigned long long)c->cfg->seed);
  nc_strbuf_printf(&b, "%.*s", (int)(mark - runtime), runtime);
  nc_strbuf_puts(&b, "static const char *const crash_plugin_default = ");
  nc_strbuf_put_c(&b, c->cfg->plugin_path);
  nc_strbuf_puts(&b, ";\nstatic const char *const crash_seen = ");
  nc_strbuf_put_c(&b, seen);
  static const char *const hows[] = {"CR_RETURNED", "CR_SIGNAL", "CR_EXIT", "CR_HANG",
                                     "CR_REFUSED"};
  nc_strbuf_printf(&b, ";\nstatic const double crash_timeout_s = %g;\n", case_timeout(c));
  nc_strbuf_printf(&b, "static const struct crash_end crash_want = {%s, %d, -1};\n",
                   hows[want->how], want->code);
  /* This process's limits are the case's (nc_contain_case): the
   * program's child takes them, where they are lower than its own. */
  static const int which[] = {RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NPROC};
  nc_strbuf_puts(&b, "/* RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NPROC (0: none) */\n"
                     "static const unsigned long long crash_limits[3] = {");
  for (int i = 0; i < 3; i++) {
    struct rlimit r;
    unsigned long long v = getrlimit(which[i], &r) == 0 && r.rlim_cur != RLIM_INFINITY
                               ? (unsigned long long)r.rlim_cur : 0;
    nc_strbuf_printf(&b, "%s%lluull", i ? ", " : "", v);
  }
  nc_strbuf_puts(&b, "};\n");
  emit_calls(&b, out, n);
  nc_strbuf_puts(&b, "static const unsigned char crash_data[] = {");
  for (size_t i = 0; i < len; i++)
    nc_strbuf_printf(&b, "%s%u,", i % 24 ? "" : "\n    ", data[i]);
  nc_strbuf_printf(&b, "%s\n};\n", len ? "" : "0");
  nc_strbuf_puts(&b, mark + strlen("/* @DATA@ */"));
  /* Not repro-RULE.c: the case may have written that for a failure its
   * explorer found before. Where the failure is charged to another rule,
   * the case's own name follows, as the explorer's reproducers do. */
  if (owner == c->rule)
    snprintf(name, namelen, "repro-%s-%s.c", nc_rule_text(owner), kind);
  else
    snprintf(name, namelen, "repro-%s-from-%s-%s.c", nc_rule_text(owner),
             nc_rule_text(c->rule), kind);
  if (b.failed || !b.data ||
      nc_repro_save(c->cfg->cache_dir, c->cfg->cache_secret, name, b.data, b.len) != 0)
    name[0] = '\0';
  nc_strbuf_free(&b);
  free(out);
  free(data);
}

static void note_calls(nc_case *c, const struct crash_call *calls, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const struct crash_call *k = &calls[i];
    if (i >= SHOWN_CALLS && i + 1 < n) {
      if (i == SHOWN_CALLS)
        nc_note(c, "the reproducer's calls", "its calls, in order", "... %zu more calls ...",
                n - SHOWN_CALLS - 1);
      continue;
    }
    char shape[160] = "";
    if (k->op >= CR_FIND && k->op <= CR_ERASE)
      snprintf(shape, sizeof(shape), " (n=%lld, stride %lld, size %lld%s%s%s)",
               (long long)k->n, (long long)k->stride, (long long)k->size,
               k->nulls & CR_NULL_MASK ? ", NULL hit_mask" : "",
               k->nulls & CR_NULL_VALUES ? ", NULL values" : "",
               k->nulls & CR_NULL_SIZES ? ", NULL value_sizes" : "");
    nc_note(c, "the reproducer's calls", "its calls, in order", "%zu/%zu: %s%s on %s %d", i + 1,
            n, op_name(k->op), shape,
            k->op == CR_CREATE || k->op == CR_DROP_FACTORY ? "factory" : "table", k->handle + 1);
  }
}

static void none(nc_case *c, const char *why)
{
  nc_note(c, "C reproducer", "a program that fails while the defect persists", "none: %s", why);
}

static void describe_want(const struct crash_end *want, char *out, size_t len)
{
  if (want->how == CR_SIGNAL)
    snprintf(out, len, "a crash with signal %d (%s)", want->code, strsignal(want->code));
  else if (want->how == CR_EXIT)
    snprintf(out, len, "an exit with status %d from plugin code", want->code);
  else if (want->how == CR_REFUSED)
    snprintf(out, len, "status %d for a valid call", want->code);
  else
    snprintf(out, len, "a call that did not return");
}

/* The last call with the factory and table it needs, alone: most ends
 * need no more, and one replay shows it (a hang's take a timeout each).
 * 1 when they end alike (s->kept holds them). */
static int alone_ends_alike(shrinker *s)
{
  const crash_log *l = s->l;
  const struct crash_call *last = &l->calls[l->n - 1];
  size_t produce = l->n, create = l->n;
  for (size_t i = l->n - 1; i-- > 0 && produce == l->n;)
    if (l->calls[i].op == CR_PRODUCE && l->calls[i].handle == last->handle)
      produce = i;
  for (size_t i = produce; i-- > 0 && create == l->n && produce < l->n;)
    if (l->calls[i].op == CR_CREATE)
      create = i;
  if (create == l->n || last->op < CR_DESTROY)
    return 0;
  struct crash_call trial[3] = {l->calls[create], l->calls[produce], *last};
  struct crash_end e;
  if (!dies_alike(s, trial, 3, &e))
    return 0;
  memcpy(s->kept, trial, sizeof(trial));
  s->len = 3;
  return 1;
}

/* The calls of the log the end needs, in s->kept (s->len of them); -1
 * when the whole log does not end alike (got says how it ended). */
static int shortest(shrinker *s, char *got, size_t len)
{
  const crash_log *l = s->l;
  if (alone_ends_alike(s))
    return 0;
  struct crash_end e;
  if (!dies_alike(s, l->calls, l->n, &e)) {
    cr_describe(&e, l->calls, l->n, got, len);
    return -1;
  }
  memcpy(s->kept, l->calls, l->n * sizeof(*s->kept));
  s->len = l->n;
  nc_x_drop_chunks(&s->len, 1, more_replays, calls_without, s);
  return 0;
}

void nc_crash_repro(nc_case *c, const char *how)
{
  char path[PATH_MAX], seen[300], got[300], name[64];
  crash_log l = {0};
  const char *why = NULL;
  shrinker s = {c, &l, NULL, NULL, 0, {0, 0, -1}, 0, nc_now() + 60};
  long long upto;
  nc_rule owner;
  if (parse_how(how, &s.want, &upto, &owner) != 0) {
    nc_harness_error(c, "the crash replay was started with '%s'", how);
    return;
  }
  describe_want(&s.want, seen, sizeof(seen));
  nc_repro_crash_log(c->cfg, c->rule, path, sizeof(path));
  if (nc_crash_log_read(path, upto, &l, &why) != 0 || !l.n || l.cut || l.keyless ||
      (upto >= 0 && l.last_line != upto)) {
    none(c, why ? why
         : !l.n ? "the case made no table call the log holds"
         : l.cut ? "the log of the case's calls reached its bound (256 MiB of keys) before "
                   "the call it ended in"
         : upto >= 0 && l.last_line != upto ? "the refused call is not one the log holds"
                 : "the log does not hold the keys of some of the case's calls (a DEVICE "
                   "table's, or a table of a key size it did not know)");
    nc_crash_log_free(&l);
    return;
  }
  s.kept = malloc(l.n * sizeof(*s.kept));
  s.trial = malloc(l.n * sizeof(*s.trial));
  if (!s.kept || !s.trial) {
    nc_harness_error(c, "out of memory shrinking %zu calls", l.n);
  } else if (shortest(&s, got, sizeof(got)) != 0) {
    char text[1200];
    snprintf(text, sizeof(text), "replayed alone with the least host the contract allows, the "
             "%zu table calls the case made did not end as the case did (%s; the case: %s in "
             "its last): the end needs what the case did around them (its services, threads, "
             "rows, or a call the log does not hold)", l.n, got, seen);
    none(c, text);
  } else {
    write_repro(c, &l, s.kept, s.len, &s.want, owner, seen, name, sizeof(name));
    if (name[0])
      nc_note(c, "C reproducer", "a program that fails while the defect persists",
              "%s in the --repro directory: cc -std=c11 -I INCLUDEDIR %s -ldl; ./a.out "
              "[plugin.so] exits 1 while its %zu table calls still end as the case did (%s, in "
              "the last; cut from %zu in %d replay%s in processes of their own%s), 0 once "
              "they all return, the last with NVE_SUCCESS, 3 when they end otherwise", name,
              name, s.len, seen, l.n,
              s.replays, s.replays == 1 ? "" : "s",
              more_replays(&s) ? "" : ", stopped by their bound: perhaps more than needed");
    else
      none(c, "the program could not be written (more keys than a reproducer holds, or no "
              "room in the run's scratch directory)");
    note_calls(c, s.kept, s.len);
  }
  free(s.kept);
  free(s.trial);
  nc_crash_log_free(&l);
}
