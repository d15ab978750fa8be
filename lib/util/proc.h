/* SPDX-License-Identifier: Apache-2.0 */
/* What /proc says about a process. */
#ifndef NC_PROC_H
#define NC_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* The parent of pid, or -1 when /proc cannot say. */
pid_t nc_proc_parent(pid_t pid);

/* The children of pid: up to max of them into out; returns how many it
 * found (which may exceed max). The kernel's per-thread lists
 * (/proc/PID/task/TID/children) cost a read per thread of pid; where they
 * are missing (a kernel without CONFIG_PROC_CHILDREN, or pid not visible
 * here) every process's parent is read instead, a read per process on the
 * machine. */
size_t nc_proc_children(pid_t pid, pid_t *out, size_t max);

/* Parses a children list ("12 345 6 ") on top of the n pids out already
 * counts: those that fit below max into out; returns the new count (which
 * may exceed max). */
size_t nc_proc_parse_pids(const char *text, pid_t *out, size_t max, size_t n);

#endif
