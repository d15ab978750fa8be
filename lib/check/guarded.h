/* SPDX-License-Identifier: Apache-2.0 */
/* Buffers the harness hands a plugin, laid out so that any access outside
 * them is seen (doc/rules.md#tbl-04).
 *
 * Each buffer is a mapping of its own: a canary block in front, the bytes
 * the call may use, canary padding up to a 16-byte boundary, then an
 * inaccessible guard region. Touching the guard faults; the fault handler
 * records a TBL-04 violation naming the buffer, the offset and the op,
 * opens the page and lets the plugin go on, so one stray write is one line
 * of evidence rather than a crash. Canaries catch the rest afterwards. */
#ifndef NC_GUARDED_H
#define NC_GUARDED_H

#include <stddef.h>

#define NC_GUARD_FRONT 64

typedef struct nc_guarded {
  unsigned char *data; /* size bytes, 16-byte aligned, ending near the guard */
  size_t size;
  size_t body; /* the accessible part of the mapping */
  int slot; /* in the fault registry; -1 when unregistered */
  int canaries; /* the front block and the padding were written */
} nc_guarded;

/* Maps a buffer for name (e.g. "find values"), canaries filled, data
 * zeroed. Returns 0, or -1 when out of memory (g->data is then NULL). */
int nc_guarded_alloc(nc_guarded *g, const char *name, size_t size);
/* The same with flags: UNZEROED leaves the data bytes as they come (zeros,
 * or what an earlier buffer left) for a caller that writes every one of
 * them before use; NO_CANARIES writes neither the front block nor the
 * padding, for a buffer whose edges will not be checked (the guard region
 * still faults, and nc_guarded_edges_damaged then says 0). */
#define NC_GUARDED_UNZEROED 1u
#define NC_GUARDED_NO_CANARIES 2u
int nc_guarded_alloc_with(nc_guarded *g, const char *name, size_t size, unsigned flags);
void nc_guarded_free(nc_guarded *g);

/* The canary pattern over len bytes at p; salt varies it between regions. */
void nc_canary_fill(void *p, size_t len, size_t salt);
/* The first offset where the pattern was changed, or -1. */
long nc_canary_damage(const void *p, size_t len, size_t salt);

/* Checks the front block and the padding of g (when it has them): writes the first damaged
 * region to what ("front canary at offset -12") and returns 1, else 0. */
int nc_guarded_edges_damaged(const nc_guarded *g, char *what, size_t whatlen);

/* From the SIGSEGV handler: when addr is in a live buffer's guard, records
 * the violation, opens that page and returns 1. Async-signal-safe. */
int nc_guarded_recover_fault(const void *addr, int is_write);

#endif
