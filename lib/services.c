/* SPDX-License-Identifier: Apache-2.0 */
#include "services.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT_MAGIC 0x4e564543u /* "NVEC" */
#define SCRATCH_SLOTS 16

typedef struct scratch_slot {
  char name[64];
  void *ptr;
  size_t size;
} scratch_slot;

struct nve_ext_context_s {
  uint32_t magic;
  scratch_slot scratch[SCRATCH_SLOTS];
};

static _Thread_local char service_error[256];

static nve_status_t service_fail(nve_status_t status, const char *msg)
{
  snprintf(service_error, sizeof(service_error), "%s", msg);
  return status;
}

static int context_ok(nve_ext_context_t ctx) { return ctx && ctx->magic == CONTEXT_MAGIC; }

static nve_status_t svc_num_workers(nve_ext_context_t ctx, int64_t *out_workers)
{
  if (!context_ok(ctx) || !out_workers)
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "num_workers: invalid context or NULL out");
  *out_workers = 1;
  return NVE_SUCCESS;
}

static nve_status_t sanitize(nve_status_t s)
{
  return s >= NVE_SUCCESS && s <= NVE_ERROR_OUT_OF_MEMORY ? s : NVE_ERROR_RUNTIME;
}

static nve_status_t svc_execute_n(nve_ext_context_t ctx, int64_t num_tasks,
                                  nve_status_t (*task)(void *, int64_t), void *user)
{
  if (!context_ok(ctx) || num_tasks < 0 || !task)
    return service_fail(NVE_ERROR_INVALID_ARGUMENT,
                        "execute_n: invalid context, negative num_tasks or NULL task");
  nve_status_t first = NVE_SUCCESS;
  for (int64_t i = 0; i < num_tasks; i++) {
    nve_status_t s = task(user, i);
    if (s != NVE_SUCCESS && first == NVE_SUCCESS)
      first = sanitize(s);
  }
  if (first != NVE_SUCCESS)
    return service_fail(first, "execute_n: a task failed");
  return NVE_SUCCESS;
}

static nve_status_t svc_execute_n_wg(nve_ext_context_t ctx, int64_t num_tasks,
                                     nve_status_t (*task)(void *, int64_t), void *user,
                                     const int64_t *workgroups, int64_t num_workgroups,
                                     int64_t tasks_per_workgroup)
{
  if (!workgroups || num_workgroups <= 0 || tasks_per_workgroup <= 0)
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "execute_n_wg: invalid workgroup arguments");
  int64_t bursts = num_tasks > 0 ? (num_tasks + tasks_per_workgroup - 1) / tasks_per_workgroup : 0;
  for (int64_t b = 0; b < bursts && b < num_workgroups; b++)
    if (workgroups[b % num_workgroups] < 0)
      return service_fail(NVE_ERROR_INVALID_ARGUMENT, "execute_n_wg: negative workgroup ID");
  return svc_execute_n(ctx, num_tasks, task, user);
}

static nve_status_t get_stream(nve_ext_context_t ctx, void **out_stream)
{
  if (!context_ok(ctx) || !out_stream)
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "stream: invalid context or NULL out");
  *out_stream = NULL; /* the default stream: host tables have no other */
  return NVE_SUCCESS;
}

static nve_status_t svc_get_scratch(nve_ext_context_t ctx, const char *name, size_t size,
                                    int32_t host_alloc, void **out_ptr)
{
  (void)host_alloc; /* device scratch needs the CUDA layer; host memory until then */
  if (!context_ok(ctx) || !name || !out_ptr)
    return service_fail(NVE_ERROR_INVALID_ARGUMENT, "get_scratch: invalid arguments");
  scratch_slot *free_slot = NULL;
  for (int i = 0; i < SCRATCH_SLOTS; i++) {
    scratch_slot *s = &ctx->scratch[i];
    if (s->ptr && strcmp(s->name, name) == 0) {
      if (s->size < size) {
        void *grown = malloc(size);
        if (!grown)
          return service_fail(NVE_ERROR_OUT_OF_MEMORY, "get_scratch: out of memory");
        free(s->ptr);
        s->ptr = grown;
        s->size = size;
      }
      *out_ptr = s->ptr;
      return NVE_SUCCESS;
    }
    if (!s->ptr && !free_slot)
      free_slot = s;
  }
  if (!free_slot)
    return service_fail(NVE_ERROR_RUNTIME, "get_scratch: too many named buffers");
  free_slot->ptr = malloc(size ? size : 1);
  if (!free_slot->ptr)
    return service_fail(NVE_ERROR_OUT_OF_MEMORY, "get_scratch: out of memory");
  snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
  free_slot->size = size;
  *out_ptr = free_slot->ptr;
  return NVE_SUCCESS;
}

static const char *svc_last_error(nve_ext_context_t ctx)
{
  (void)ctx;
  return service_error;
}

static const nve_ext_nve_services_t services = {
    .struct_size = sizeof(nve_ext_nve_services_t),
    .num_workers = svc_num_workers,
    .execute_n = svc_execute_n,
    .execute_n_wg = svc_execute_n_wg,
    .get_lookup_stream = get_stream,
    .get_modify_stream = get_stream,
    .get_scratch = svc_get_scratch,
    .last_error = svc_last_error,
};

const nve_ext_nve_services_t *nc_services_table(void) { return &services; }

nve_ext_context_t nc_context_acquire(void)
{
  nve_ext_context_t ctx = calloc(1, sizeof(*ctx));
  if (ctx)
    ctx->magic = CONTEXT_MAGIC;
  return ctx;
}

void nc_context_release(nve_ext_context_t ctx)
{
  if (!ctx)
    return;
  for (int i = 0; i < SCRATCH_SLOTS; i++)
    free(ctx->scratch[i].ptr);
  ctx->magic = 0;
  free(ctx);
}
