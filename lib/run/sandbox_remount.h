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

/* One line of /proc/self/mountinfo: its mount point, unescaped (\040 and
 * the like), and the MS_* flags of its per-mount options that a remount
 * must keep (nosuid, nodev, noexec and the atime ones: in a user
 * namespace the kernel refuses a remount that drops them). 0, or -1 for
 * a line that is not one. */
int nc_mountinfo_parse(const char *line, char *point, size_t len, unsigned long *flags);

/* Every mount read-only (and nosuid) but those at the paths writable[]
 * names. A mount the case cannot reach (covered under /dev or /proc, where
 * the sandbox mounted over the machine's) is passed over. */
int nc_remount_read_only(const char *const *writable, size_t n, char *why, size_t len);

#endif
