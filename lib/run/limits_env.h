/* SPDX-License-Identifier: Apache-2.0 */
/* NVE_CONFORM_LIMITS: the resource limits of each case process, as
 * "as=MIB,fsize=MIB,nproc=N,total=MIB", read strictly: a value that does
 * not parse is refused (a usage error naming the variable), never taken
 * to mean "no limit". */
#ifndef NC_LIMITS_ENV_H
#define NC_LIMITS_ENV_H

#include <stddef.h>

/* The largest value of each key: a MiB count that still fits rlim_t once
 * shifted to bytes, and a process count that fits an int. */
#define NC_LIMITS_MAX_MIB (1L << 40)
#define NC_LIMITS_MAX_NPROC 2147483647L

typedef struct nc_limits {
  long as_mib, fsize_mib, nproc; /* 0: none */
  long total_mib;                /* the run's memory for the cases at once; 0: none */
} nc_limits;

/* Parses text over the values already in l. NULL or "" leave l as it is.
 * Each item is KEY=DIGITS, KEY one of as, fsize, nproc, total, each at
 * most once, the number decimal without sign or spaces and at most its
 * maximum; items are separated by single commas. Returns 0, or -1 with
 * the reason in err (l then unchanged). */
int nc_limits_parse(const char *text, nc_limits *l, char *err, size_t errlen);

#endif
