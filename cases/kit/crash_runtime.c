/* SPDX-License-Identifier: Apache-2.0 */
/* A reproducer written by nve-conform for a case whose process plugin code
 * ended (a crash, an exit, or a call that never returned), or whose valid
 * call the plugin refused. It makes the table calls that case made, up to
 * that one (cut down to those the end needs), against the plugin named by
 * the first argument (default: the file it was made from), in a child
 * process, and reports how that child ended.
 *
 * Build: cc -std=c11 -I INCLUDEDIR repro.c -ldl (INCLUDEDIR holds
 * plugin/nve_external_plugin.h, the ABI headers nve-conform installs).
 * Exit status: 1 while the child still ends as the case did (the same
 * signal, the same exit status, no return within crash_timeout_s, or, for
 * a valid call the plugin refused, a failure status, in the last call), 0
 * once every call returns (the last with NVE_SUCCESS), 3 when it ends
 * otherwise or its last call cannot be made (inconclusive), 2 when the
 * plugin cannot be loaded or no child (or no memory for its calls) can be
 * made.
 *
 * The calls are the case's own: the same keys, strides, sizes, dtypes and
 * NULL outputs, each table from the same config text. What differs is
 * around them: the rows written are a fixed pattern, and the host is the
 * least one the contract allows (one context, tasks run in order on the
 * calling thread). nve-conform checked that the child ends here as the
 * case did before writing this file. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <plugin/nve_external_plugin.h>

#ifndef CRASH_RUNTIME_TYPES /* nve-conform reads its logs into these too */
#define CRASH_RUNTIME_TYPES
enum crash_op {
  CR_CREATE, CR_DROP_FACTORY, CR_PRODUCE, CR_DESTROY, CR_FIND, CR_INSERT, CR_UPDATE,
  CR_ACCUMULATE, CR_ERASE, CR_CLEAR, CR_RESET_COUNTER, CR_GET_COUNTER, CR_OPS
};
enum { CR_NULL_MASK = 1, CR_NULL_VALUES = 2, CR_NULL_SIZES = 4 };

struct crash_call {
  int op, handle; /* the factory's or the table's number */
  int key_size, nulls, dtype;
  int status; /* create, produce: what the plugin returned to the case */
  int64_t n, stride, size;
  int64_t at, len; /* its keys, or its config text, in the data (at < 0: none) */
};

/* How the child ended: every call returned (the last one with success,
 * or refused with a failure status), or not. */
enum {
  CR_RETURNED, CR_SIGNAL, CR_EXIT, CR_HANG, CR_REFUSED,
  CR_UNMADE, /* every call returned, but not as the case's did (diverged, below) */
  CR_UNLOADABLE, CR_NOT_RUN
};
struct crash_end {
  int how, code; /* code: the signal, the exit status, or the status refused with */
  int64_t at;    /* the call it was in */
};
#endif

/* @DATA@ */
#ifndef CRASH_TYPES_ONLY

static const char *const crash_op_names[CR_OPS] = {
    "factory create", "factory destroy", "factory produce", "table destroy",
    "table find", "table insert", "table update", "table update_accumulate",
    "table erase", "table clear", "table reset_lookup_counter", "table get_lookup_counter"};

/* ---- the host's services: the least the contract allows --------------------------- */

static struct {
  char name[64];
  void *p;
  size_t size;
} cr_scratch[32];
static char cr_service_error[128];

static nve_status_t cr_workers(nve_ext_context_t ctx, int64_t *out)
{
  (void)ctx;
  *out = 1;
  return NVE_SUCCESS;
}

static nve_status_t cr_execute(nve_ext_context_t ctx, int64_t n,
                               nve_status_t (*task)(void *, int64_t), void *user)
{
  (void)ctx;
  nve_status_t first = NVE_SUCCESS;
  for (int64_t i = 0; i < n; i++) {
    nve_status_t s = task(user, i);
    if (s != NVE_SUCCESS && first == NVE_SUCCESS)
      first = s;
  }
  return first;
}

static nve_status_t cr_execute_wg(nve_ext_context_t ctx, int64_t n,
                                  nve_status_t (*task)(void *, int64_t), void *user,
                                  const int64_t *groups, int64_t ngroups, int64_t per_group)
{
  (void)groups, (void)ngroups, (void)per_group;
  return cr_execute(ctx, n, task, user);
}

static nve_status_t cr_stream(nve_ext_context_t ctx, void **out)
{
  (void)ctx;
  *out = NULL;
  return NVE_SUCCESS;
}

static nve_status_t cr_get_scratch(nve_ext_context_t ctx, const char *name, size_t size,
                                   int32_t host_alloc, void **out)
{
  (void)ctx, (void)host_alloc;
  int i = 0;
  while (i < 32 && cr_scratch[i].name[0] &&
         strncmp(cr_scratch[i].name, name, sizeof(cr_scratch[i].name) - 1) != 0)
    i++;
  if (i == 32) {
    snprintf(cr_service_error, sizeof(cr_service_error), "get_scratch: too many names");
    return NVE_ERROR_OUT_OF_MEMORY;
  }
  if (!cr_scratch[i].name[0])
    snprintf(cr_scratch[i].name, sizeof(cr_scratch[i].name), "%s", name);
  if (cr_scratch[i].size < size) {
    void *p = realloc(cr_scratch[i].p, size);
    if (!p) {
      snprintf(cr_service_error, sizeof(cr_service_error), "get_scratch: out of memory");
      return NVE_ERROR_OUT_OF_MEMORY;
    }
    cr_scratch[i].p = p;
    cr_scratch[i].size = size;
  }
  *out = cr_scratch[i].p;
  return NVE_SUCCESS;
}

static const char *cr_last_error(nve_ext_context_t ctx)
{
  (void)ctx;
  return cr_service_error;
}

static const nve_ext_nve_services_t cr_services = {
    sizeof(nve_ext_nve_services_t), cr_workers, cr_execute, cr_execute_wg, cr_stream,
    cr_stream, cr_get_scratch, cr_last_error};

/* ---- the replay ----------------------------------------------------------------- */

/* What the child shares with its parent. */
struct cr_shared {
  volatile int64_t at; /* the call it is in */
  /* 0 replaying, 1 every call returned, 2 the plugin did not load, 3 no
   * memory for a call's buffers */
  volatile int state;
  volatile int status; /* what the latest table call returned */
  volatile int made;   /* whether the latest call was made (its factory or table was there) */
  /* A call before the last that went otherwise than in the case: not made
   * (no factory or table), or a creation or produce that succeeded where
   * the case's failed, or failed where it succeeded. */
  volatile int diverged;
};
static struct cr_shared *cr_shared_page;

static int cr_handles(const struct crash_call *calls, size_t n)
{
  int most = 0;
  for (size_t i = 0; i < n; i++)
    most = calls[i].handle + 1 > most ? calls[i].handle + 1 : most;
  return most;
}

/* The call's config text (NULL: none), in a buffer of its own. */
static char *cr_text(const struct crash_call *c, const unsigned char *data)
{
  if (c->at < 0)
    return NULL;
  char *t = malloc((size_t)c->len + 1);
  if (t) {
    memcpy(t, data + c->at, (size_t)c->len);
    t[c->len] = '\0';
  }
  return t;
}

/* One table call with the logged keys and shapes; its status. */
static nve_status_t cr_table_call(const nve_ext_table_t *t, const struct crash_call *c,
                                  const unsigned char *data)
{
  nve_status_t st;
  int64_t n = c->n > 0 ? c->n : 0;
  int64_t width = c->stride > c->size ? c->stride : c->size;
  if (width < 0)
    width = 0;
  if (n > ((int64_t)1 << 40) / (width + 8)) { /* more than a log holds: a tampered one */
    cr_shared_page->state = 3;
    _exit(0);
  }
  size_t row_bytes = (size_t)n * (size_t)width + 64;
  void *keys = calloc(1, (size_t)n * 8 + 8), *values = malloc(row_bytes);
  uint64_t *mask = calloc((size_t)n / 64 + 2, 8);
  int64_t *sizes = calloc((size_t)n + 1, 8), counter = 0;
  nve_ext_context_t ctx = (nve_ext_context_t)&cr_services; /* any non-NULL handle */
  if (!keys || !values || !mask || !sizes) {
    fprintf(stderr, "out of memory for a call of %lld keys\n", (long long)n);
    cr_shared_page->state = 3;
    _exit(0);
  }
  if (c->at >= 0)
    memcpy(keys, data + c->at, (size_t)c->len);
  memset(values, 0x3c, row_bytes); /* finite in every float dtype */
  switch (c->op) {
  case CR_FIND:
    st = t->ops->find(t->self, ctx, c->n, keys, c->nulls & CR_NULL_MASK ? NULL : mask,
                      c->stride, c->nulls & CR_NULL_VALUES ? NULL : values,
                      c->nulls & CR_NULL_SIZES ? NULL : sizes);
    break;
  case CR_INSERT: st = t->ops->insert(t->self, ctx, c->n, keys, c->stride, c->size, values); break;
  case CR_UPDATE: st = t->ops->update(t->self, ctx, c->n, keys, c->stride, c->size, values); break;
  case CR_ACCUMULATE:
    st = t->ops->update_accumulate(t->self, ctx, c->n, keys, c->stride, c->size, values,
                                   (nve_data_type_t)c->dtype);
    break;
  case CR_ERASE: st = t->ops->erase(t->self, ctx, c->n, keys); break;
  case CR_CLEAR: st = t->ops->clear(t->self, ctx); break;
  case CR_RESET_COUNTER: st = t->ops->reset_lookup_counter(t->self, ctx); break;
  default: st = t->ops->get_lookup_counter(t->self, ctx, &counter); break;
  }
  free(keys);
  free(values);
  free(mask);
  free(sizes);
  return st;
}

/* Makes calls[0..n) in this process. 0, or 2 when the plugin did not load. */
static int cr_replay(const char *path, const struct crash_call *calls, size_t n,
                     const unsigned char *data, struct cr_shared *sh)
{
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  nve_status_t (*create)(const char *, nve_ext_table_factory_t *, const char **) = NULL;
  void (*set_services)(const nve_ext_nve_services_t *) = NULL;
  if (so) {
    *(void **)&create = dlsym(so, "nve_plugin_create_external_factory");
    *(void **)&set_services = dlsym(so, "nve_plugin_set_nve_services");
  }
  if (!create) {
    fprintf(stderr, "cannot load %s: %s\n", path, so ? "no nve_plugin_create_external_factory"
                                                     : dlerror());
    return 2;
  }
  if (set_services)
    set_services(&cr_services);
  int handles = cr_handles(calls, n);
  nve_ext_table_factory_t *factories = calloc((size_t)handles + 1, sizeof(*factories));
  nve_ext_table_t *tables = calloc((size_t)handles + 1, sizeof(*tables));
  if (!factories || !tables)
    return 3;
  int current = -1; /* the factory that produces: the latest made */
  for (size_t i = 0; i < n; i++) {
    const struct crash_call *c = &calls[i];
    sh->at = (int64_t)i;
    sh->status = NVE_SUCCESS;
    sh->made = 1;
    char *text = c->op == CR_CREATE || c->op == CR_PRODUCE ? cr_text(c, data) : NULL;
    const char *err = NULL;
    switch (c->op) {
    case CR_CREATE:
      sh->status = create(text, &factories[c->handle], &err);
      if (sh->status == NVE_SUCCESS && factories[c->handle].ops)
        current = c->handle;
      else /* no handle to destroy later */
        memset(&factories[c->handle], 0, sizeof(factories[c->handle]));
      break;
    case CR_DROP_FACTORY:
      sh->made = factories[c->handle].ops != NULL;
      if (sh->made) {
        factories[c->handle].ops->destroy(factories[c->handle].self);
        memset(&factories[c->handle], 0, sizeof(factories[c->handle]));
      }
      break;
    case CR_PRODUCE:
      sh->made = current >= 0 && factories[current].ops;
      if (sh->made && (sh->status = factories[current].ops->produce(
                           factories[current].self, c->n, text, &tables[c->handle])) !=
                          NVE_SUCCESS)
        memset(&tables[c->handle], 0, sizeof(tables[c->handle]));
      break;
    case CR_DESTROY:
      sh->made = tables[c->handle].ops != NULL;
      if (sh->made) {
        tables[c->handle].ops->destroy(tables[c->handle].self);
        memset(&tables[c->handle], 0, sizeof(tables[c->handle]));
      }
      break;
    default:
      sh->made = tables[c->handle].ops != NULL;
      if (sh->made)
        sh->status = cr_table_call(&tables[c->handle], c, data);
    }
    free(text);
    int made_alike = sh->made && (c->op != CR_CREATE && c->op != CR_PRODUCE
                                      ? 1
                                      : (sh->status == NVE_SUCCESS) == (c->status == NVE_SUCCESS));
    if (i + 1 < n && !made_alike)
      sh->diverged = 1;
  }
  sh->at = (int64_t)n;
  return 0;
}

static double cr_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child's end from its wait status and what it shared. */
static void cr_ended(int ws, const struct cr_shared *sh, struct crash_end *end)
{
  if (WIFSIGNALED(ws)) {
    end->how = CR_SIGNAL;
    end->code = WTERMSIG(ws);
  } else if (sh->state == 1 && (!sh->made || sh->diverged)) {
    end->how = CR_UNMADE;
  } else if (sh->state == 1 && sh->status != NVE_SUCCESS) {
    end->how = CR_REFUSED; /* in the last call (cr_run) */
    end->code = sh->status;
  } else if (sh->state == 1) {
    end->how = CR_RETURNED;
  } else if (sh->state == 2) {
    end->how = CR_UNLOADABLE;
  } else if (sh->state == 3) {
    end->how = CR_NOT_RUN;
  } else {
    end->how = CR_EXIT;
    end->code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
  }
}

#ifndef CRASH_LIBRARY
/* The child's limits and allocator as the case's process had them
 * (nve-conform's replays inherit them): a crash that needs an allocation
 * to fail needs the same bound on memory. */
static void cr_as_the_case_was(void)
{
  static const int which[] = {RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NPROC};
  for (int i = 0; i < 3; i++) {
    struct rlimit r;
    if (crash_limits[i] > 0 && getrlimit(which[i], &r) == 0 &&
        (r.rlim_cur == RLIM_INFINITY || (unsigned long long)r.rlim_cur > crash_limits[i])) {
      r.rlim_cur = (rlim_t)crash_limits[i];
      setrlimit(which[i], &r);
    }
  }
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_ARENA_MAX, 1);
}
#endif

/* Makes the calls in a child of a process group of its own, and says how
 * it ended. A call that makes no progress for timeout_s seconds hangs. The
 * call it ended in is -1 unless it is one of the n (plugin code may have
 * written anything where the child keeps it). */
static void cr_run(const char *path, const struct crash_call *calls, size_t n,
                   const unsigned char *data, double timeout_s, struct crash_end *end)
{
  struct cr_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  end->how = CR_NOT_RUN;
  end->code = 0;
  end->at = -1;
  if (sh == MAP_FAILED)
    return;
  sh->at = -1;
  sh->state = 0;
  /* An ignored SIGCHLD would reap the child before waitpid sees it. */
  struct sigaction dfl, was;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &dfl, &was);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    static const int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof(crashes) / sizeof(crashes[0]); i++)
      signal(crashes[i], SIG_DFL);
#ifdef CRASH_CHILD_HOOK
    CRASH_CHILD_HOOK();
#endif
#ifndef CRASH_LIBRARY
    cr_as_the_case_was();
#endif
    cr_shared_page = sh;
    int rc = cr_replay(path, calls, n, data, sh);
    sh->state = rc == 0 ? 1 : rc;
    _exit(0);
  }
  if (pid > 0) {
    setpgid(pid, pid);
    int ws = 0, hung = 0;
    pid_t got;
    int64_t seen = -2;
    double quiet_since = cr_now();
    for (;;) {
      got = waitpid(pid, &ws, WNOHANG);
      if (got < 0 && errno == EINTR)
        continue;
      if (got != 0)
        break;
      if (sh->at != seen) {
        seen = sh->at;
        quiet_since = cr_now();
      } else if (!hung && cr_now() - quiet_since > timeout_s) {
        hung = 1; /* then reaped below */
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
      }
#ifdef CRASH_WAIT_HOOK
      CRASH_WAIT_HOOK();
#endif
      struct timespec nap = {0, 2000000};
      nanosleep(&nap, NULL);
    }
    kill(-pid, SIGKILL); /* whatever the plugin started in the child */
    if (got == pid && hung)
      end->how = CR_HANG;
    else if (got == pid)
      cr_ended(ws, sh, end);
    end->at = sh->at >= 0 && sh->at < (int64_t)n ? sh->at : -1;
    if (end->how == CR_REFUSED)
      end->at = (int64_t)n - 1;
    if (end->how == CR_RETURNED || end->how == CR_UNMADE || end->how == CR_UNLOADABLE ||
        end->how == CR_NOT_RUN)
      end->at = -1;
  }
  sigaction(SIGCHLD, &was, NULL);
  munmap(sh, sizeof(*sh));
}

/* How the child ended, in words. */
static void cr_describe(const struct crash_end *e, const struct crash_call *calls, size_t n,
                        char *out, size_t len)
{
  char call[160] = "the replay";
  if (e->at >= 0 && (size_t)e->at < n) {
    const struct crash_call *c = &calls[e->at];
    snprintf(call, sizeof(call), "call %lld of %zu, %s (%s=%lld)", (long long)e->at + 1, n,
             crash_op_names[c->op], c->op == CR_PRODUCE ? "table_id" : "n", (long long)c->n);
  }
  switch (e->how) {
  case CR_SIGNAL:
    snprintf(out, len, "%s, crashed with signal %d (%s)", call, e->code, strsignal(e->code));
    break;
  case CR_EXIT:
    snprintf(out, len, "%s, ended the process with exit status %d", call, e->code);
    break;
  case CR_HANG: snprintf(out, len, "%s, did not return", call); break;
  case CR_REFUSED: snprintf(out, len, "%s, returned status %d", call, e->code); break;
  case CR_RETURNED: snprintf(out, len, "all %zu calls returned", n); break;
  case CR_UNMADE:
    snprintf(out, len, "the calls went otherwise than the case's: a factory or table was not "
             "made as it was there, or a call could not be made for want of one");
    break;
  case CR_UNLOADABLE: snprintf(out, len, "the plugin did not load"); break;
  default: snprintf(out, len, "no child process, or no memory for its calls"); break;
  }
}

#ifndef CRASH_LIBRARY
int main(int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : crash_plugin_default;
  struct crash_end e;
  char what[300];
  cr_run(path, crash_calls, crash_ncalls, crash_data, crash_timeout_s, &e);
  cr_describe(&e, crash_calls, crash_ncalls, what, sizeof(what));
  if (e.how == CR_UNLOADABLE || e.how == CR_NOT_RUN) {
    fprintf(stderr, "%s: %s\n", path, what);
    return 2;
  }
  if (e.how == CR_RETURNED) {
    printf("%s: the defect is gone (nve-conform saw: %s)\n", what, crash_seen);
    return 0;
  }
  /* A valid call refused with another status is refused all the same. */
  if (e.how == crash_want.how && (e.code == crash_want.code || e.how == CR_REFUSED) &&
      e.at == (int64_t)crash_ncalls - 1) {
    printf("%s (nve-conform saw: %s)\n", what, crash_seen);
    return 1;
  }
  printf("%s, unlike what nve-conform saw (%s in the last call): inconclusive\n", what,
         crash_seen);
  return 3;
}
#endif
#endif
