/* SPDX-License-Identifier: Apache-2.0 */
/* The case's last steps before exec (sandbox_steps.h): its own session,
 * no capability it could use to undo the sandbox (remount, trace, raise a
 * limit), no_new_privs, and a seccomp filter, built with libseccomp, that
 * denies the calls that reach other processes or the kernel's shared
 * state. */
#define _GNU_SOURCE
#include "sandbox_steps.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#ifdef HAVE_SECCOMP
#include <seccomp.h>
#endif

/* Denied with EPERM: other processes (trace, read or write their memory,
 * take their descriptors, compare them), the kernel's shared state
 * (profiling, BPF, keyrings, modules, the machine), the sandbox itself
 * (mounts, namespaces, root), and io_uring, whose operations no filter
 * sees. */
static const char *const denied[] = {
    "ptrace", "process_vm_writev", "process_madvise", "pidfd_getfd",
    "kcmp", "perf_event_open", "bpf", "userfaultfd", "keyctl", "add_key", "request_key",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_tree", "move_mount",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "name_to_handle_at",
    "open_by_handle_at", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "iopl",
    "ioperm", "io_uring_setup", "io_uring_enter", "io_uring_register", NULL};

#ifdef HAVE_SECCOMP
/* socket()'s domain is an int: its low 32 bits are what the kernel reads
 * (libseccomp before 2.5 compares all 64). */
#ifdef SCMP_A0_32
#define DOMAIN_IS(d) SCMP_A0_32(SCMP_CMP_EQ, (d))
#else
#define DOMAIN_IS(d) SCMP_A0(SCMP_CMP_EQ, (d))
#endif

static int load_filter(char *why, size_t len)
{
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW); /* other architectures: killed */
  if (!ctx) {
    snprintf(why, len, "seccomp_init failed");
    return -1;
  }
  int rc = 0;
  for (size_t i = 0; denied[i] && rc == 0; i++) {
    int nr = seccomp_syscall_resolve_name(denied[i]);
    if (nr != __NR_SCMP_ERROR)
      rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
  }
  /* Reading memory through the kernel: only the case's own (the harness
   * reads plugin strings that way, safe from a bad pointer); its forks
   * fall back on /proc/self/mem (lib/util/text.c). */
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(process_vm_readv), 1,
                          SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)getpid()));
  /* Sockets on paths reach daemons outside (a container engine's, the
   * system bus) whatever the mounts: none; socketpair stays. */
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                          DOMAIN_IS(AF_UNIX));
  if (rc == 0)
    rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) {
    snprintf(why, len, "cannot load the seccomp filter: %s", strerror(-rc));
    return -1;
  }
  return 0;
}
#else
static int load_filter(char *why, size_t len)
{
  snprintf(why, len, "this build has no libseccomp (install libseccomp-dev and rebuild)");
  return -1;
}
#endif

/* Every capability, for good: the bounding set emptied, root's implicit
 * capabilities at exec turned off and locked, the sets cleared. */
static int drop_capabilities(char *why, size_t len)
{
  for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      snprintf(why, len, "cannot drop capability %d from the bounding set: %s", cap,
               strerror(errno));
      return -1;
    }
  if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                   SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
            0, 0, 0) != 0) {
    snprintf(why, len, "cannot set the securebits: %s", strerror(errno));
    return -1;
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
  memset(none, 0, sizeof(none));
  if (syscall(SYS_capset, &head, none) != 0) {
    snprintf(why, len, "cannot clear the capabilities: %s", strerror(errno));
    return -1;
  }
  return 0;
}

int nc_sandbox_confine(char *why, size_t len)
{
  if (setsid() < 0) {
    snprintf(why, len, "setsid: %s", strerror(errno));
    return -1;
  }
  if (drop_capabilities(why, len) != 0)
    return -1;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    snprintf(why, len, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
    return -1;
  }
  return load_filter(why, len);
}
