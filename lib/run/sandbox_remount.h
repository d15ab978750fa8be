/* SPDX-License-Identifier: Apache-2.0 */
/* The sandbox's file system on kernels without the mount API (before
 * Linux 5.12; sandbox_mounts.c decides): paths held by O_PATH descriptors
 * and bound back from them, and every mount remounted read-only one by one
 * from /proc/self/mountinfo. Each returns 0 (or a descriptor), or -1. */
#ifndef NC_SANDBOX_REMOUNT_H
#define NC_SANDBOX_REMOUNT_H

#include <stddef.h>

/* A descriptor that keeps path reachable after something covers it. */
int nc_remount_hold(const char *path);

/* What fd holds, bound (with its submounts) onto path. */
int nc_remount_bind(int fd, const char *path);

/* One line of /proc/self/mountinfo: its mount id, its mount point,
 * unescaped (\040 and the like), and the MS_* flags of its per-mount
 * options that a remount must keep (nosuid, nodev, noexec, nosymfollow and
 * the atime ones, strict atime included: in a user namespace the kernel
 * refuses a remount that changes them). 0, or -1 for a line that is not
 * one. */
int nc_mountinfo_parse(const char *line, long *id, char *point, size_t len, unsigned long *flags);

/* Every mount the case can reach by its path read-only (and nosuid), but
 * those at the paths writable[] names. A mount covered by another (the
 * machine's /dev under the sandbox's, the lower of two at one path) is
 * passed over: its path leads to the other. */
int nc_remount_read_only(const char *const *writable, size_t n, char *why, size_t len);

#endif
