/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "big_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void nc_big_advise(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
  if (len >= NC_BIG_BYTES)
    madvise(p, len, MADV_HUGEPAGE);
#else
  (void)p;
  (void)len;
#endif
}

void *nc_big_calloc(size_t n, size_t size)
{
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes))
    return NULL;
  if (bytes < NC_BIG_BYTES)
    return calloc(n, size);
  /* Mapped one huge page longer, then trimmed to start on a boundary, so
   * that every whole huge page of it can be one. */
  size_t len = (bytes + NC_BIG_BYTES - 1) / NC_BIG_BYTES * NC_BIG_BYTES;
  unsigned char *map = mmap(NULL, len + NC_BIG_BYTES, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return NULL;
  uintptr_t at = ((uintptr_t)map + NC_BIG_BYTES - 1) & ~(uintptr_t)(NC_BIG_BYTES - 1);
  unsigned char *p = (unsigned char *)at;
  if (p > map)
    munmap(map, (size_t)(p - map));
  munmap(p + len, (size_t)(map + NC_BIG_BYTES - p));
  nc_big_advise(p, len);
  return p;
}

void nc_big_free(void *p, size_t bytes)
{
  if (!p)
    return;
  if (bytes < NC_BIG_BYTES) {
    free(p);
    return;
  }
  munmap(p, (bytes + NC_BIG_BYTES - 1) / NC_BIG_BYTES * NC_BIG_BYTES);
}
