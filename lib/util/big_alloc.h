/* SPDX-License-Identifier: Apache-2.0 */
/* Zeroed memory for the harness's own large working sets (the model's
 * slot table). Past NC_BIG_BYTES it is a mapping of its own, aligned to and
 * advised for transparent huge pages: on the virtual machines CI runs on a
 * page fault costs about 10 us, and the faults of filling fresh pages cost
 * more than the checks done on them (make bench-suite). */
#ifndef NC_BIG_ALLOC_H
#define NC_BIG_ALLOC_H

#include <stddef.h>

#define NC_BIG_BYTES ((size_t)2 << 20)

/* calloc(n, size), or NULL; free it with nc_big_free and the same bytes. */
void *nc_big_calloc(size_t n, size_t size);
void nc_big_free(void *p, size_t bytes);

/* Asks for huge pages on [p, p + len) when it is at least NC_BIG_BYTES
 * (a hint: the kernel may ignore it). */
void nc_big_advise(void *p, size_t len);

#endif
