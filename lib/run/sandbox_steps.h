/* SPDX-License-Identifier: Apache-2.0 */
/* The steps of the case runner's sandbox (sandbox.h) that sandbox_launch.c
 * takes in its processes. Each returns 0, or -1 with the reason in why. */
#ifndef NC_SANDBOX_STEPS_H
#define NC_SANDBOX_STEPS_H

#include <stddef.h>

/* In the init (PID 1 of the new namespaces): the mount namespace made
 * private, the rw paths writable at their own paths, a fresh tmpfs on
 * scratch (the case's TMPDIR), a /dev of harmless devices (and a GPU's)
 * with a private /dev/shm, a /proc of the namespace, and everything else
 * read-only. scratch_mib bounds each tmpfs. *remounted: 1 where the kernel
 * has no mount API (before Linux 5.12) and the older calls built it. */
int nc_sandbox_mounts(const char *scratch, const char *const *rw, size_t nrw, long scratch_mib,
                      int *remounted, char *why, size_t len);

/* In the case, just before exec: a new session without a terminal, every
 * capability dropped for good, no_new_privs, and the seccomp filter. */
int nc_sandbox_confine(char *why, size_t len);

#endif
