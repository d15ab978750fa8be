/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "services.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc.h"
#include "cuda.h"
#include "fork_lock.h"
#include "pool.h"
#include "violations.h"

static _Thread_local char service_error[512];

static nve_status_t service_fail(nve_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static nve_status_t service_fail(nve_status_t status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(service_error, sizeof(service_error), fmt, ap);
  va_end(ap);
  return status;
}

/* Checks a context; a bad or retired one is recorded and refused. */
static int context_usable(nve_ext_context_t ctx, const char *service)
{
  int state = nc_context_state(ctx);
  if (state == 1)
    return 1;
  if (state == 0) {
    nc_violation_recordf(NC_RULE_SVC_04,
                         "%s called with context #%u after its op (%s, issued on thread %d) "
                         "returned; caller thread %d",
                         service, (unsigned)ctx->generation, ctx->op, (int)ctx->issuing_thread,
                         (int)syscall(SYS_gettid));
    service_fail(NVE_ERROR_INVALID_ARGUMENT, "%s: the context is no longer valid", service);
  } else {
    nc_violation_recordf(NC_RULE_SVC_06, "%s called with %s", service,
                         ctx ? "a pointer that is not a context" : "a NULL context");
    service_fail(NVE_ERROR_INVALID_ARGUMENT, "%s: invalid context", service);
  }
  return 0;
}

static nve_status_t svc_num_workers_impl(nve_ext_context_t ctx, int64_t *out_workers)
{
  if (!context_usable(ctx, "num_workers"))
    return NVE_ERROR_INVALID_ARGUMENT;
  if (!out_workers) {
    nc_violation_record(NC_RULE_SVC_06, "num_workers called with a NULL out_workers");
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "num_workers: out_workers is NULL");
  }
  *out_workers = nc_pool_workers();
  return NVE_SUCCESS;
}

static nve_status_t sanitize(nve_status_t s)
{
  return s >= NVE_SUCCESS && s <= NVE_ERROR_OUT_OF_MEMORY ? s : NVE_ERROR_RUNTIME;
}

typedef struct task_call {
  const char *service;
  const char *op; /* the table operation that called the service */
  nve_status_t (*task)(void *, int64_t);
  void *user;
} task_call;

static nve_status_t run_task(void *arg, int64_t index)
{
  task_call *t = arg;
  int saved = nc_alloc_task_begin(); /* plugin code again, on this thread */
  nc_cuda_scope_pause(1); /* tasks are not judged for DEV-08 on any thread */
  nve_status_t s = t->task(t->user, index);
  nc_cuda_scope_pause(0);
  nc_alloc_task_end(saved);
  /* ERR-01 covers every status the plugin hands the host, a task's too. */
  if (s < NVE_SUCCESS || s > NVE_ERROR_OUT_OF_MEMORY)
    nc_violation_recordf(NC_RULE_ERR_01, "an %s task (index %lld) of op %s returned %d, which is "
                         "not a nve_status_t value", t->service, (long long)index, t->op, (int)s);
  return s;
}

static nve_status_t execute(const char *service, nve_ext_context_t ctx, int64_t num_tasks,
                            nve_status_t (*task)(void *, int64_t), void *user)
{
  if (!context_usable(ctx, service))
    return NVE_ERROR_INVALID_ARGUMENT;
  if (num_tasks < 0 || !task) {
    nc_violation_recordf(NC_RULE_SVC_06, "%s called with %s", service,
                         num_tasks < 0 ? "a negative num_tasks" : "a NULL task");
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "%s: %s", service,
                        num_tasks < 0 ? "num_tasks is negative" : "task is NULL");
  }
  if (nc_pool_in_task())
    nc_violation_recordf(NC_RULE_SVC_08, "%s called from inside a task (op %s): a nested barrier "
                         "deadlocks on many pools", service, ctx->op);
  task_call call = {service, ctx->op, task, user};
  nve_status_t s = nc_pool_run(num_tasks, run_task, &call);
  if (s != NVE_SUCCESS)
    return service_fail(sanitize(s), "%s: task failed with status %d", service, (int)s);
  return NVE_SUCCESS;
}

static nve_status_t svc_execute_n_impl(nve_ext_context_t ctx, int64_t num_tasks,
                                  nve_status_t (*task)(void *, int64_t), void *user)
{
  return execute("execute_n", ctx, num_tasks, task, user);
}

static nve_status_t svc_execute_n_wg_impl(nve_ext_context_t ctx, int64_t num_tasks,
                                     nve_status_t (*task)(void *, int64_t), void *user,
                                     const int64_t *workgroups, int64_t num_workgroups,
                                     int64_t tasks_per_workgroup)
{
  const char *bad = NULL;
  if (!workgroups)
    bad = "a NULL workgroups array";
  else if (num_workgroups <= 0)
    bad = "num_workgroups <= 0";
  else if (tasks_per_workgroup <= 0)
    bad = "tasks_per_workgroup <= 0";
  /* Burst b goes to workgroups[b % num_workgroups]: check the IDs used. */
  int64_t bursts = num_tasks > 0 && tasks_per_workgroup > 0
                       ? (num_tasks + tasks_per_workgroup - 1) / tasks_per_workgroup
                       : 0;
  for (int64_t b = 0; !bad && b < bursts && b < num_workgroups; b++)
    if (workgroups[b] < 0)
      bad = "a negative workgroup ID";
  if (bad) {
    if (context_usable(ctx, "execute_n_wg"))
      nc_violation_recordf(NC_RULE_SVC_06, "execute_n_wg called with %s", bad);
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "execute_n_wg: %s", bad);
  }
  return execute("execute_n_wg", ctx, num_tasks, task, user);
}

/* Scratch requests are serialised; malloc runs under it, so the child of a
 * fork gets a fresh one rather than one taken before the fork. */
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
NC_FORK_RESET_MUTEX(scratch_lock, scratch)

static nve_status_t get_stream(const char *service, nve_ext_context_t ctx, void **out_stream,
                               int modify)
{
  if (!context_usable(ctx, service))
    return NVE_ERROR_INVALID_ARGUMENT;
  if (!out_stream) {
    nc_violation_recordf(NC_RULE_SVC_06, "%s called with a NULL out_stream", service);
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "%s: out_stream is NULL", service);
  }
  *out_stream = (void *)(modify ? ctx->modify_stream : ctx->lookup_stream);
  return NVE_SUCCESS;
}

static nve_status_t svc_lookup_stream_impl(nve_ext_context_t ctx, void **out)
{
  return get_stream("get_lookup_stream", ctx, out, 0);
}

static nve_status_t svc_modify_stream_impl(nve_ext_context_t ctx, void **out)
{
  return get_stream("get_modify_stream", ctx, out, 1);
}

static nve_status_t svc_get_scratch_impl(nve_ext_context_t ctx, const char *name, size_t size,
                                    int32_t host_alloc, void **out_ptr)
{
  if (!context_usable(ctx, "get_scratch"))
    return NVE_ERROR_INVALID_ARGUMENT;
  if (!name || !out_ptr) {
    nc_violation_recordf(NC_RULE_SVC_06, "get_scratch called with a NULL %s", !name ? "name" : "out_ptr");
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "get_scratch: NULL name or out_ptr");
  }
  if (nc_pool_in_task())
    nc_violation_recordf(NC_RULE_SVC_03, "get_scratch('%s', %zu) called from inside an execute_n task "
                         "of op %s (it is not thread-safe)", name, size, ctx->op);
  /* Device scratch needs the CUDA layer; until a table is on a device, it is
   * host memory like the rest. */
  pthread_mutex_lock(&scratch_lock); /* misuse from tasks is recorded, not allowed to corrupt */
  nve_status_t s = nc_context_scratch(ctx, name, size, host_alloc != 0, out_ptr);
  pthread_mutex_unlock(&scratch_lock);
  if (s != NVE_SUCCESS)
    return service_fail(s, "get_scratch('%s', %zu): out of memory or too many names", name, size);
  return NVE_SUCCESS;
}

static const char *svc_last_error(nve_ext_context_t ctx)
{
  (void)ctx;
  return service_error;
}

/* Calls per service, and the service made to fail (ERR-06). */
static const char *const service_names[] = {"num_workers", "execute_n", "execute_n_wg",
                                            "get_lookup_stream", "get_modify_stream",
                                            "get_scratch"};
static _Atomic long service_calls[6];
static _Atomic int failing_service = -1;

static int service_index(const char *name)
{
  for (int i = 0; i < 6; i++)
    if (strcmp(service_names[i], name) == 0)
      return i;
  return -1;
}

static const nve_ext_nve_services_t *_Atomic handed;

void nc_services_note_handed(const nve_ext_nve_services_t *svc) { atomic_store(&handed, svc); }

int nc_services_streams_offered(void)
{
  const nve_ext_nve_services_t *svc = atomic_load(&handed);
  int failing = atomic_load(&failing_service);
  return svc && NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, get_lookup_stream) &&
         NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, get_modify_stream) &&
         failing != service_index("get_lookup_stream") &&
         failing != service_index("get_modify_stream");
}

void nc_services_fail(const char *service)
{
  atomic_store(&failing_service, service ? service_index(service) : -1);
}

long nc_services_calls(const char *service)
{
  int i = service_index(service);
  return i < 0 ? 0 : atomic_load(&service_calls[i]);
}

/* The entry points: harness code, so the plugin's allocation accounting
 * pauses while they run, and a service call is an event OWN-03 watches.
 * Only calls made for an op that is running (a live context) count and
 * fail on purpose (ERR-06): a plugin thread's late call belongs to no op
 * (SVC-04 records it). */
#define ENTRY(NAME, INDEX, PARAMS, ARGS)                                              \
  static nve_status_t NAME PARAMS                                                     \
  {                                                                                   \
    nc_alloc_watch_event();                                                           \
    int for_an_op = nc_context_state(c) == 1;                                         \
    if (for_an_op)                                                                    \
      atomic_fetch_add(&service_calls[INDEX], 1);                                     \
    if (for_an_op && atomic_load(&failing_service) == INDEX)                          \
      return service_fail(NVE_ERROR_RUNTIME, "%s: failure injected by nve-conform",   \
                          service_names[INDEX]);                                      \
    nc_alloc_pause();                                                                 \
    nve_status_t s = NAME##_impl ARGS;                                                \
    nc_alloc_resume();                                                                \
    return s;                                                                         \
  }

ENTRY(svc_num_workers, 0, (nve_ext_context_t c, int64_t *o), (c, o))
ENTRY(svc_execute_n, 1, (nve_ext_context_t c, int64_t n, nve_status_t (*t)(void *, int64_t), void *u),
      (c, n, t, u))
ENTRY(svc_execute_n_wg, 2,
      (nve_ext_context_t c, int64_t n, nve_status_t (*t)(void *, int64_t), void *u,
       const int64_t *w, int64_t nw, int64_t tpw),
      (c, n, t, u, w, nw, tpw))
ENTRY(svc_lookup_stream, 3, (nve_ext_context_t c, void **o), (c, o))
ENTRY(svc_modify_stream, 4, (nve_ext_context_t c, void **o), (c, o))
ENTRY(svc_get_scratch, 5, (nve_ext_context_t c, const char *n, size_t z, int32_t h, void **o),
      (c, n, z, h, o))
#undef ENTRY

static const nve_ext_nve_services_t services = {
    .struct_size = sizeof(nve_ext_nve_services_t),
    .num_workers = svc_num_workers,
    .execute_n = svc_execute_n,
    .execute_n_wg = svc_execute_n_wg,
    .get_lookup_stream = svc_lookup_stream,
    .get_modify_stream = svc_modify_stream,
    .get_scratch = svc_get_scratch,
    .last_error = svc_last_error,
};

const nve_ext_nve_services_t *nc_services_table(void) { return &services; }

/* ---- newer and older hosts (VER-05, VER-06) ------------------------------- */

static void future_service_trap(void)
{
  nc_violation_record(NC_RULE_VER_05, "a service field beyond ABI 1.0 was called");
}

typedef struct newer_services {
  nve_ext_nve_services_t base;
  void (*future[8])(void);
} newer_services;

const nve_ext_nve_services_t *nc_services_table_newer(void)
{
  static newer_services newer;
  newer.base = services;
  newer.base.struct_size = sizeof(newer);
  for (int i = 0; i < 8; i++)
    newer.future[i] = future_service_trap;
  return &newer.base;
}

/* Traps for the fields a truncated table leaves out: they record the call,
 * then serve it, so one missing check yields one verdict. */
#define BEYOND(field) nc_violation_record(NC_RULE_VER_06, "called " #field ", beyond the struct_size "  \
                                          "the host declared, without NVE_ABI_HAS_FIELD")

static nve_status_t trap_num_workers(nve_ext_context_t c, int64_t *o)
{
  BEYOND(num_workers);
  return svc_num_workers(c, o);
}
static nve_status_t trap_execute_n(nve_ext_context_t c, int64_t n,
                                   nve_status_t (*t)(void *, int64_t), void *u)
{
  BEYOND(execute_n);
  return svc_execute_n(c, n, t, u);
}
static nve_status_t trap_execute_n_wg(nve_ext_context_t c, int64_t n,
                                      nve_status_t (*t)(void *, int64_t), void *u,
                                      const int64_t *w, int64_t nw, int64_t tpw)
{
  BEYOND(execute_n_wg);
  return svc_execute_n_wg(c, n, t, u, w, nw, tpw);
}
static nve_status_t trap_lookup_stream(nve_ext_context_t c, void **o)
{
  BEYOND(get_lookup_stream);
  return svc_lookup_stream(c, o);
}
static nve_status_t trap_modify_stream(nve_ext_context_t c, void **o)
{
  BEYOND(get_modify_stream);
  return svc_modify_stream(c, o);
}
static nve_status_t trap_get_scratch(nve_ext_context_t c, const char *n, size_t s, int32_t h,
                                     void **o)
{
  BEYOND(get_scratch);
  return svc_get_scratch(c, n, s, h, o);
}
static const char *trap_last_error(nve_ext_context_t c)
{
  BEYOND(last_error);
  return svc_last_error(c);
}

const nve_ext_nve_services_t *nc_services_table_truncated(size_t struct_size)
{
  static nve_ext_nve_services_t older;
  older = services;
  older.struct_size = (uint32_t)struct_size;
#define TRAP_IF_MISSING(field, trap)                                              \
  if (struct_size < offsetof(nve_ext_nve_services_t, field) + sizeof(older.field)) \
    older.field = trap;
  TRAP_IF_MISSING(num_workers, trap_num_workers)
  TRAP_IF_MISSING(execute_n, trap_execute_n)
  TRAP_IF_MISSING(execute_n_wg, trap_execute_n_wg)
  TRAP_IF_MISSING(get_lookup_stream, trap_lookup_stream)
  TRAP_IF_MISSING(get_modify_stream, trap_modify_stream)
  TRAP_IF_MISSING(get_scratch, trap_get_scratch)
  TRAP_IF_MISSING(last_error, trap_last_error)
#undef TRAP_IF_MISSING
  return &older;
}
