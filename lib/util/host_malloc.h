/* SPDX-License-Identifier: Apache-2.0 */
/* The C library's allocator as a long-running host's settles: blocks up to
 * 32 MiB come from the heap, and freed memory stays there for the next
 * table instead of going back to the kernel; and every thread allocates
 * from the one heap, so that a table grown on a worker thread (the
 * explorer's steps on threads of their own) reuses what a table on
 * another thread freed, as a warmed-up host's threads do, instead of
 * faulting a fresh arena's pages. A young process with the defaults maps
 * fresh pages for every table it grows, destroys and grows again, and
 * faults on each: on a virtual machine that costs as much as the checks
 * (a first touch of a page there costs about as much as copying a
 * hundred). Only where and when the allocator gets its pages changes,
 * not what a plugin sees. The case processes and the bare replay of
 * make bench-suite both set it, so that their ratio compares like with
 * like. */
#ifndef NC_HOST_MALLOC_H
#define NC_HOST_MALLOC_H

#include <malloc.h>

#define NC_HOST_MMAP_THRESHOLD (32 << 20)
#define NC_HOST_TRIM_THRESHOLD (64 << 20)

static inline void nc_host_malloc_settings(void)
{
  mallopt(M_MMAP_THRESHOLD, NC_HOST_MMAP_THRESHOLD);
  mallopt(M_TRIM_THRESHOLD, NC_HOST_TRIM_THRESHOLD);
  mallopt(M_ARENA_MAX, 1);
}

#endif
