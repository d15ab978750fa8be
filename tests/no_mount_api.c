/* SPDX-License-Identifier: Apache-2.0 */
/* Runs a command as on a kernel before Linux 5.12: open_tree, move_mount,
 * mount_setattr and the fs* calls fail with ENOSYS (a seccomp filter,
 * inherited by everything the command starts), so that the sandbox's
 * older way to build its mounts is tested on this one.
 * Usage: no_mount_api COMMAND [ARG]... */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DENY(nr)                                                                             \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                                           \
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS)

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: no_mount_api COMMAND [ARG]...\n");
    return 2;
  }
#if defined(__x86_64__) && defined(SYS_mount_setattr)
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      DENY(SYS_open_tree),
      DENY(SYS_move_mount),
      DENY(SYS_mount_setattr),
      DENY(SYS_fsopen),
      DENY(SYS_fsconfig),
      DENY(SYS_fsmount),
      DENY(SYS_fspick),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof(code) / sizeof(code[0]), .filter = code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    fprintf(stderr, "no_mount_api: cannot install the filter: %s\n", strerror(errno));
    return 77;
  }
#else
  fprintf(stderr, "no_mount_api: only for x86-64 with the mount API's numbers\n");
  return 77;
#endif
  execvp(argv[1], argv + 1);
  fprintf(stderr, "no_mount_api: cannot run %s: %s\n", argv[1], strerror(errno));
  return 127;
}
