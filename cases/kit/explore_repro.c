/* SPDX-License-Identifier: Apache-2.0 */
/* The C reproducer of an explorer failure (explore_repro.h): the runtime
 * in repro_runtime.c with the shortest sequence as data, sealed with the
 * run's secret and left in the run's scratch directory, from where the run
 * copies it to --repro DIR (lib/run/repro_out.h). */
#include "explore_repro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "explore_run.h"
#include "repro_out.h"
#include "strbuf.h"

static const char runtime[] =
#include "repro_runtime.h" /* made from repro_runtime.c (Makefile.am) */
    ;

/* Keys of a reproducer at most: its data must stay a program a compiler
 * takes in a moment. */
#define REPRO_KEYS_MAX 2000000

static int by_value(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int takes_keys(int action) { return action <= NC_X_ERASE && action != NC_X_CLEAR; }

/* The keys of step s in the order the reproducer lists them: its own,
 * then those its probe reads back (nc_x_probe_keys); *nprobe of those.
 * Returns how many in all (out holds s->n + NC_X_PROBE_MAX). */
static size_t step_keys(const nc_x_seq *q, const nc_x_step *s, const nc_x_table_shape *sh,
                        int64_t *out, int64_t *nprobe)
{
  size_t n = takes_keys(s->action) ? (size_t)s->n : 0;
  memcpy(out, q->arena + s->first, n * sizeof(int64_t));
  *nprobe = nc_x_probes(s->action) ? nc_x_probe_keys(q, s, sh->stride, out + n) : 0;
  return n + (size_t)*nprobe;
}

static size_t step_keys_most(const nc_x_step *s)
{
  return (takes_keys(s->action) ? (size_t)s->n : 0) + NC_X_PROBE_MAX;
}

/* The keys the replays' steps use, sorted and unique; *count of them. */
static int64_t *distinct_keys(const nc_x_segment *segs, size_t nsegs, const nc_x_table_shape *sh,
                              size_t *count)
{
  size_t total = 0;
  for (size_t k = 0; k < nsegs; k++)
    for (size_t i = 0; i < segs[k].count; i++)
      total += step_keys_most(&segs[k].steps[i]);
  int64_t *all = malloc((total ? total : 1) * sizeof(int64_t));
  if (!all)
    return NULL;
  size_t at = 0;
  for (size_t k = 0; k < nsegs; k++)
    for (size_t i = 0; i < segs[k].count; i++) {
      int64_t nprobe;
      at += step_keys(&segs[k].q, &segs[k].steps[i], sh, all + at, &nprobe);
    }
  total = at;
  qsort(all, total, sizeof(int64_t), by_value);
  size_t n = 0;
  for (size_t i = 0; i < total; i++)
    if (!n || all[n - 1] != all[i])
      all[n++] = all[i];
  *count = n;
  return all;
}

/* A 64-bit constant: INT64_MIN has no literal of its own. */
static void c_int64(nc_strbuf *b, int64_t v)
{
  if (v == INT64_MIN)
    nc_strbuf_puts(b, "(-9223372036854775807ll - 1)");
  else
    nc_strbuf_printf(b, "%lldll", (long long)v);
}

static void emit_header(nc_strbuf *b, const nc_case *c, const nc_x_table_shape *sh,
                        int decoy_failure, int standalone)
{
  nc_strbuf_printf(b, "#define REPRO_KEY_SIZE %d\n#define REPRO_EXACT %d\n", sh->key_size,
                   c->cfg->exact ? 1 : 0);
  nc_strbuf_puts(b, "static const char *const plugin_default = ");
  nc_strbuf_put_c(b, c->cfg->plugin_path);
  nc_strbuf_puts(b, ";\nstatic const char *const factory_config = ");
  nc_strbuf_put_c(b, c->cfg->factory_config);
  nc_strbuf_puts(b, ";\nstatic const char *const table_config = ");
  nc_strbuf_put_c(b, c->cfg->table_config);
  nc_strbuf_printf(b, ";\nstatic const int64_t repro_row = %lld, repro_stride = %lld, "
                      "repro_invalid_key = ", (long long)sh->row, (long long)sh->stride);
  c_int64(b, sh->invalid_key);
  nc_strbuf_printf(b, ";\nstatic const nve_data_type_t repro_dtype = %d;\n", (int)sh->dtype);
  /* The decoys of the bootstrap calls come from the seed and the step, as
   * in the explorer; there were none without a runtime of two devices. */
  nc_strbuf_printf(b,
                   "#define REPRO_CUDA %d\n#define REPRO_DECOYS %d\n#define REPRO_NEEDS_DECOYS %d\n"
                   "#define REPRO_STANDALONE %d\n",
                   nc_cuda_loaded() ? 1 : 0,
                   nc_cuda_loaded() && nc_cuda_device_count() >= 2 ? 1 : 0, decoy_failure ? 1 : 0,
                   standalone ? 1 : 0);
  /* The profile's other configs, for the steps that produce with them. */
  nc_strbuf_puts(b, "static const char *const repro_more_configs[] = {");
  for (size_t i = 0; i < c->cfg->more_count; i++) {
    nc_strbuf_puts(b, i ? ", " : "");
    nc_strbuf_put_c(b, c->cfg->more_tables[i]);
  }
  nc_strbuf_printf(b, "%s};\nstatic const size_t repro_nmore = %zu;\n",
                   c->cfg->more_count ? "" : "0", c->cfg->more_count);
}

static void emit_keys(nc_strbuf *b, const int64_t *keys, size_t n)
{
  nc_strbuf_puts(b, "static const int64_t repro_distinct[] = {");
  for (size_t i = 0; i < n; i++) {
    nc_strbuf_puts(b, !i ? "\n  " : i % 8 ? ", " : ",\n  ");
    c_int64(b, keys[i]);
  }
  nc_strbuf_printf(b, "%s};\nstatic const size_t repro_ndistinct = %zu;\n", n ? "" : "0", n);
}

/* How many of a probe's nprobe keys are the extra ones, not the step's own
 * (nc_x_probe_keys): a reproducer reads back fewer of its own from a table
 * of wider rows. */
static int64_t probe_extra(const nc_x_step *s, const nc_x_table_shape *sh, int64_t nprobe)
{
  int64_t fit = nc_tk_fit(sh->stride);
  int64_t room = (fit < NC_X_PROBE_MAX ? fit : NC_X_PROBE_MAX) - NC_X_PROBE_EXTRA;
  int64_t own = takes_keys(s->action) && s->n < room ? s->n : room;
  return nprobe - (own < 0 ? 0 : own);
}

/* The index of every key of the replays' steps (their own, then their
 * probe's) in the distinct keys; nprobe[i] gets step i's probe keys (in
 * the order of all the replays' steps). 0, or -1 when out of memory. */
static int emit_key_indexes(nc_strbuf *b, const nc_x_segment *segs, size_t nsegs,
                            const nc_x_table_shape *sh, const int64_t *keys, size_t nkeys,
                            int64_t *nprobe)
{
  size_t most = 0;
  for (size_t k = 0; k < nsegs; k++)
    for (size_t i = 0; i < segs[k].count; i++)
      most = step_keys_most(&segs[k].steps[i]) > most ? step_keys_most(&segs[k].steps[i]) : most;
  int64_t *mine = malloc((most ? most : 1) * sizeof(int64_t));
  if (!mine)
    return -1;
  nc_strbuf_puts(b, "static const uint32_t repro_keys[] = {");
  size_t at = 0, step = 0;
  for (size_t k = 0; k < nsegs; k++)
    for (size_t i = 0; i < segs[k].count; i++, step++) {
      size_t n = step_keys(&segs[k].q, &segs[k].steps[i], sh, mine, &nprobe[step]);
      for (size_t j = 0; j < n; j++, at++) {
        const int64_t *found = bsearch(&mine[j], keys, nkeys, sizeof(int64_t), by_value);
        nc_strbuf_printf(b, "%s%zu", !at ? "\n  " : at % 16 ? ", " : ",\n  ",
                         found ? (size_t)(found - keys) : 0);
      }
    }
  free(mine);
  nc_strbuf_printf(b, "%s};\n", at ? "" : "0");
  return 0;
}

/* The steps of every replay in order, then where each replay's are and
 * its seed (the decoys' draws). 0, or -1 when out of memory. */
static int emit_steps(nc_strbuf *b, const nc_x_segment *segs, size_t nsegs,
                      const nc_x_table_shape *sh, const int64_t *keys, size_t nkeys)
{
  size_t total = 0;
  for (size_t k = 0; k < nsegs; k++)
    total += segs[k].count;
  int64_t *nprobe = malloc((total ? total : 1) * sizeof(int64_t));
  if (!nprobe || emit_key_indexes(b, segs, nsegs, sh, keys, nkeys, nprobe) != 0) {
    free(nprobe);
    return -1;
  }
  nc_strbuf_puts(b, "static const struct repro_step repro_steps[] = {\n");
  static const char *const names[NC_X_ACTIONS] = {"FIND",    "INSERT",  "UPDATE", "ACCUMULATE",
                                                  "ERASE",   "CLEAR",   "COUNTER", "PRODUCE",
                                                  "DESTROY", "DROP_FACTORY"};
  size_t at = 0, step = 0;
  for (size_t k = 0; k < nsegs; k++) {
    const nc_x_seq *q = &segs[k].q;
    /* A replay of plain calls makes no write past max_row_size. */
    int oversize = !(segs[k].toggles & (NC_XT_PLAIN_CALLS | NC_XT_NO_OVERSIZE | NC_XT_NO_PAST_ROW));
    for (size_t i = 0; i < segs[k].count; i++, step++) {
      const nc_x_step *s = &segs[k].steps[i];
      int64_t n = takes_keys(s->action) ? s->n : 0, np = nprobe[step];
      nc_strbuf_printf(b,
                       "  {%s, %d, %d, %d, %d, %d, %d, %lld, %zu, %lld, %lld, %lluull, %lld, "
                       "%lld, %d, %d, %lluull},\n",
                       names[s->action], s->slot, s->thread, s->nulls, s->read,
                       s->resolved_every, (int)s->dtype, (long long)n, at,
                       (long long)s->stride_pad, (long long)s->size, (unsigned long long)s->tag,
                       (long long)np, (long long)(np ? probe_extra(s, sh, np) : 0),
                       (int)s->config,
                       (nc_x_rereads_caps(q, s) ? 1 : 0) |
                           (oversize && nc_x_oversized(q, s) ? 2 : 0),
                       (unsigned long long)nc_x_oversize_seed(q, s));
      at += (size_t)(n + np);
    }
  }
  free(nprobe);
  nc_strbuf_printf(b, "};\nstatic const size_t repro_nsteps = %zu;\n", total);
  nc_strbuf_puts(b, "static const struct repro_sequence repro_sequences[] = {\n");
  for (size_t k = 0, first = 0; k < nsegs; first += segs[k].count, k++)
    nc_strbuf_printf(b, "  {%zu, %zu, %lluull},\n", first, segs[k].count,
                     (unsigned long long)segs[k].q.seed);
  nc_strbuf_printf(b, "};\nstatic const size_t repro_nsequences = %zu;\n", nsegs);
  return 0;
}

/* The replays as the reproducer makes them: each one's steps baked with
 * its toggles (malloc'd). 0, or -1 (out of memory, or toggles no list of
 * steps can say). */
static int baked(const nc_x_segment *segs, size_t nsegs, nc_x_segment *out)
{
  for (size_t k = 0; k < nsegs; k++) {
    out[k] = segs[k];
    nc_x_step *steps = malloc((segs[k].count ? segs[k].count : 1) * sizeof(*steps));
    long n = steps ? nc_x_bake(segs[k].steps, segs[k].count, segs[k].toggles,
                               segs[k].alone_slot, steps)
                   : -1;
    out[k].steps = steps;
    out[k].count = n > 0 ? (size_t)n : 0;
    if (n < 0) {
      for (size_t j = 0; j <= k; j++)
        free((void *)out[j].steps);
      return -1;
    }
  }
  return 0;
}

int nc_x_write_repro(nc_case *c, const nc_x_segment *replays, size_t nreplays,
                     const nc_x_table_shape *sh, nc_rule owner, int standalone, char *name,
                     size_t namelen)
{
  name[0] = '\0';
  if (!c->cfg->repro || !c->cfg->cache_dir[0] || !c->cfg->cache_secret[0] || !nreplays)
    return -1;
  nc_x_segment *segs = malloc(nreplays * sizeof(*segs));
  if (!segs || baked(replays, nreplays, segs) != 0) {
    free(segs);
    return -1;
  }
  size_t nkeys = 0;
  int64_t *keys = distinct_keys(segs, nreplays, sh, &nkeys);
  int rc = -1;
  if (keys && nkeys <= REPRO_KEYS_MAX) {
    const char *mark = strstr(runtime, "/* @DATA@ */");
    nc_strbuf b = {0};
    nc_strbuf_printf(&b, "/* The reproducer of %s's failure (nve-conform, seed %llu). */\n",
                     nc_rule_defs[owner].info.id, (unsigned long long)c->cfg->seed);
    nc_strbuf_printf(&b, "%.*s", (int)(mark - runtime), runtime);
    emit_header(&b, c, sh,
                owner == NC_RULE_DEV_02 || owner == NC_RULE_DEV_03 || owner == NC_RULE_DEV_04,
                standalone);
    emit_keys(&b, keys, nkeys);
    if (emit_steps(&b, segs, nreplays, sh, keys, nkeys) != 0)
      b.failed = 1;
    nc_strbuf_puts(&b, mark + strlen("/* @DATA@ */"));
    /* Cases of other rules may charge a failure to the same rule: each
     * has a file of its own, so that what lands in DIR does not depend on
     * which case ended last. */
    if (owner == c->rule)
      snprintf(name, namelen, "repro-%s.c", nc_rule_defs[owner].info.id);
    else
      snprintf(name, namelen, "repro-%s-from-%s.c", nc_rule_defs[owner].info.id,
               nc_rule_defs[c->rule].info.id);
    rc = b.data && !b.failed ? nc_repro_save(c->cfg->cache_dir, c->cfg->cache_secret, name,
                                             b.data, b.len)
                             : -1;
    nc_strbuf_free(&b);
  }
  free(keys);
  for (size_t k = 0; k < nreplays; k++)
    free((void *)segs[k].steps);
  free(segs);
  if (rc != 0)
    name[0] = '\0';
  return rc;
}
