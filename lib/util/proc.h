/* SPDX-License-Identifier: Apache-2.0 */
/* What /proc says about a process. */
#ifndef NC_PROC_H
#define NC_PROC_H

#include <sys/types.h>

/* The parent of pid, or -1 when /proc cannot say. */
pid_t nc_proc_parent(pid_t pid);

#endif
