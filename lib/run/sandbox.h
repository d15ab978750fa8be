/* SPDX-License-Identifier: Apache-2.0 */
/* The sandbox every case process runs in (--sandbox), built from the
 * kernel's namespaces, with libseccomp for the system-call filter.
 *
 * The harness does not set it up itself: the case runner does, as its own
 * first step, when the harness starts it as
 *
 *   nve-conform-case --sandbox --scratch DIR [--rw PATH]... -- PROGRAM ARGS...
 *
 * (a fresh single-threaded program, and never under valgrind even when the
 * harness is). That launcher becomes three processes:
 *
 *   the relay   the harness's child, in the harness's namespaces: waits and
 *               ends as the case ended (its exit status, or its signal)
 *   the init    PID 1 of a new PID namespace (user namespace too where not
 *               root; mount, IPC and network): sets up the mounts, reaps,
 *               and takes every process of the namespace with it
 *   the case    PID 2: a new session without a terminal, no capabilities,
 *               no_new_privs, the seccomp filter; execs PROGRAM
 *
 * The file system is read-only but for the case's scratch (a private
 * tmpfs on DIR, which becomes its TMPDIR) and the --rw paths (the run's
 * shared sweeps, the sanitizer's reports, the call log); /dev holds the
 * harmless devices (and a GPU's), /dev/shm is private, /proc shows the
 * namespace only. */
#ifndef NC_SANDBOX_H
#define NC_SANDBOX_H

#include <limits.h>
#include <stddef.h>

/* --sandbox: the first is the default. */
typedef enum { NC_SANDBOX_AUTO = 0, NC_SANDBOX_REQUIRED, NC_SANDBOX_OFF } nc_sandbox_mode;

/* "auto", "required", "off"; "?" for others. */
const char *nc_sandbox_mode_name(int mode);

/* The case runner's first argument that makes it the launcher. */
#define NC_SANDBOX_ARG "--sandbox"

/* What the sandbox holds back, in words, for the report. */
#define NC_SANDBOX_WHAT                                                                     \
  "new session, no terminal; no capabilities, no_new_privs; seccomp denies ptrace, "       \
  "process_vm_writev, process_vm_readv (but of itself), perf_event_open, bpf, keyctl, "   \
  "mount and namespace calls, "                                                             \
  "io_uring and AF_UNIX sockets; /proc of its own; read-only files but a private TMPDIR "  \
  "and the run's shared sweeps; dies with the harness"

/* What the probe says where the kernel has no mount API (sandbox_mounts.c). */
#define NC_SANDBOX_REMOUNTED "mounts remounted read-only one by one (no mount API: Linux before 5.12)"

#define NC_SANDBOX_MAX_RW 8

/* The run's sandbox, as the harness side sees it. */
typedef struct nc_sandbox {
  int mode; /* nc_sandbox_mode asked */
  int on;   /* the cases run in it */
  char launcher[PATH_MAX];
  char scratch[PATH_MAX]; /* each case's private tmpfs goes here (its TMPDIR) */
  char rw[NC_SANDBOX_MAX_RW][PATH_MAX];
  size_t nrw;
  char why[600]; /* on: what it holds back; off: why not */
} nc_sandbox;

/* Decides the run's sandbox before any case: off when asked or under
 * --no-fork (in_process), else tries it once with the launcher (the case
 * runner), the empty directory the cases' scratch is mounted on (scratch)
 * and the paths the cases must write (rw, NULL-terminated; "" entries
 * skipped). Returns 0 (on, or off with why), or -1 when mode is required
 * and it cannot be set up (err says why). */
int nc_sandbox_begin(nc_sandbox *sb, int mode, int in_process, const char *launcher,
                     const char *scratch, const char *const *rw, char *err, size_t errlen);

/* argv for a case in the sandbox: the launcher's words, then argv
 * (copied as pointers; out holds at most max entries with the NULL).
 * Without the sandbox, argv itself. -1 when it does not fit. */
int nc_sandbox_argv(const nc_sandbox *sb, char *const *argv, char **out, size_t max);

/* The case runner's side: argv starts with NC_SANDBOX_ARG. Never returns
 * in the relay or the init; in the case, execs PROGRAM, or, when PROGRAM
 * is the running program, returns NC_SANDBOX_GO_ON with its argv in
 * case_argv (the caller goes on as if it had been started so, in a state
 * as after execve). Else returns an exit status, when it could not start
 * (the reason is on the channel, or on stderr for a probe). */
#define NC_SANDBOX_GO_ON (-1)
int nc_sandbox_is_launch(int argc, char **argv);
int nc_sandbox_launch(int argc, char **argv, char ***case_argv);

#endif
