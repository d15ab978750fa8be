/* SPDX-License-Identifier: Apache-2.0 */
/* Where the code of this process lives, to find the files built or
 * installed beside it (the case runner, the simulated CUDA runtime). */
#ifndef NC_MODULE_DIR_H
#define NC_MODULE_DIR_H

#include <stddef.h>

/* The absolute directory of the shared object or program that holds addr.
 * Returns 0, or -1 when it cannot be told. */
int nc_module_dir(const void *addr, char *out, size_t len);

#endif
