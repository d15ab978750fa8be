/* SPDX-License-Identifier: Apache-2.0 */
/* The steps of the case runner's sandbox (sandbox.h) that sandbox_launch.c
 * takes in its processes (the case server's, each case's init's, the
 * case's). Each returns 0, or -1 with the reason in why. */
#ifndef NC_SANDBOX_STEPS_H
#define NC_SANDBOX_STEPS_H

#include <stddef.h>

/* In the case server, once, in its new mount namespace: made private,
 * the rw paths writable at their own paths, a /dev of harmless devices
 * (and a GPU's), and everything else read-only; scratch must be a
 * directory. *remounted: 1 where the kernel has no mount API (before
 * Linux 5.12) and the older calls built it. */
int nc_sandbox_mounts(const char *scratch, const char *const *rw, size_t nrw, int *remounted,
                      char *why, size_t len);

/* In each case's init (PID 1 of its own PID and mount namespaces): a
 * fresh tmpfs on scratch (the case's TMPDIR) and on /dev/shm, each of at
 * most scratch_mib, and a read-only /proc of the namespace. */
int nc_sandbox_case_mounts(const char *scratch, long scratch_mib, char *why, size_t len);

/* In the case, just before exec: a new session without a terminal, every
 * capability dropped for good, no_new_privs, and the seccomp filter. */
int nc_sandbox_confine(char *why, size_t len);

#endif
