/* SPDX-License-Identifier: Apache-2.0 */
/* Contexts handed to table callbacks, and their scratch buffers.
 *
 * A context is issued for one operation and retired when it returns; its
 * memory is reused only after many later operations (NC_CONTEXT_QUARANTINE),
 * so a late use is recognised rather than undefined. Scratch buffers are mappings of their own with a guard page
 * behind them: growing a buffer moves it and makes the old pages
 * inaccessible, as does retiring the context. A stale pointer then faults,
 * and the fault handler records the violation, restores access and lets the
 * plugin go on, so that one misuse yields one verdict, not a crash. */
#ifndef NC_CONTEXT_H
#define NC_CONTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plugin/nve_external_plugin.h"

#define NC_SCRATCH_SLOTS 16
#define NC_CONTEXT_QUARANTINE 16384

typedef struct nc_scratch {
  char name[64];
  void *ptr;
  size_t size;     /* what the plugin asked for */
  size_t map_size; /* the mapping, guard page excluded */
  int host;
} nc_scratch;

struct nve_ext_context_s {
  uint32_t magic;
  uint32_t generation;
  _Atomic int retired;
  char op[48]; /* the operation it was issued for */
  pid_t issuing_thread;
  nc_scratch *scratch; /* NC_SCRATCH_SLOTS, allocated at the first get_scratch */
  uintptr_t lookup_stream, modify_stream;
  int cuda_streams; /* 1: the two are CUDA streams (a device table's feed) */
};

/* Issues a context for op (e.g. "find"); NULL when out of memory. */
nve_ext_context_t nc_context_acquire(const char *op);
/* Contexts issued from now on give these CUDA streams (a device table's,
 * made on its device); NULL, NULL: placeholder values. */
void nc_context_use_streams(void *lookup, void *modify);
/* Retires it: later uses are violations (SVC-04). */
void nc_context_release(nve_ext_context_t ctx);

/* 1: live context; 0: retired; -1: not a context at all. */
int nc_context_state(nve_ext_context_t ctx);

/* The scratch buffer for name, grown (moved) if smaller than size. Returns
 * NVE_SUCCESS or NVE_ERROR_OUT_OF_MEMORY. */
nve_status_t nc_context_scratch(nve_ext_context_t ctx, const char *name, size_t size,
                                int host, void **out);

/* Called from the SIGSEGV handler: when addr lies in retired scratch, records
 * the violation, restores access and returns 1. Async-signal-safe. */
int nc_context_recover_fault(const void *addr);

#endif
