/* SPDX-License-Identifier: Apache-2.0 */
/* The sandbox every case process runs in (--sandbox), built from the
 * kernel's namespaces, with libseccomp for the system-call filter.
 *
 * The harness does not set it up itself: the case runner does. Once per
 * run the harness starts it as the sandbox's case server,
 *
 *   nve-conform-case --sandbox --parent PID --scratch DIR [--rw PATH]...
 *
 * (a fresh single-threaded program, and never under valgrind even when the
 * harness is), which takes a user namespace (where not root) and a mount
 * namespace with the read-only view below, and then starts each case the harness hands it on its socket
 * (NC_SANDBOX_SERVER_FD) as three processes; the harness hears how the
 * case ended on a status pipe and ends it by closing a life pipe:
 *
 *   the handler the server's child: takes new user (where not root), PID,
 *               mount, IPC and network namespaces for the case; when the life pipe
 *               closes, kills the init; once the init is gone, says how
 *               the case ended
 *   the init    PID 1 of that PID namespace: mounts the case's own
 *               TMPDIR, /dev/shm and /proc, reaps, and takes every process
 *               of the namespace with it
 *   the case    PID 2: a new session without a terminal, no capabilities,
 *               no_new_privs, the seccomp filter; goes on as the case
 *               runner (forked from a server that never ran plugin code),
 *               or execs a tool's command line around it
 *
 * The file system is read-only but for the case's scratch (a private
 * tmpfs on DIR, which becomes its TMPDIR) and the --rw paths (the run's
 * shared sweeps, the sanitizer's reports, the call log); /dev holds the
 * harmless devices (and a GPU's), /dev/shm is private, /proc shows the
 * case's PID namespace only. No case sees another's processes, files,
 * IPC objects or network (each has a network namespace of its own, with
 * its loopback down), nor shares its per-user limits. Starting a case
 * this way costs a few forks of a small process and the case's
 * namespaces, not a fork of the harness and an exec (make bench-suite
 * measures the difference). */
#ifndef NC_SANDBOX_H
#define NC_SANDBOX_H

#include <limits.h>
#include <stddef.h>

/* --sandbox: the first is the default. */
typedef enum { NC_SANDBOX_AUTO = 0, NC_SANDBOX_REQUIRED, NC_SANDBOX_OFF } nc_sandbox_mode;

/* "auto", "required", "off"; "?" for others. */
const char *nc_sandbox_mode_name(int mode);

/* The case runner's first argument that makes it the case server. */
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
  int server_fd; /* the harness's end of the case server's socket, or -1 */
  int server_pid;
  char launcher[PATH_MAX];
  char scratch[PATH_MAX]; /* each case's private tmpfs goes here (its TMPDIR) */
  char rw[NC_SANDBOX_MAX_RW][PATH_MAX];
  size_t nrw;
  char why[600]; /* on: what it holds back; off: why not */
} nc_sandbox;

/* Decides the run's sandbox before any case: off when asked or under
 * --no-fork (in_process), else starts the case server (the case runner,
 * launcher) with the empty directory the cases' scratch is mounted on
 * (scratch) and the paths the cases must write (rw, NULL-terminated; ""
 * entries skipped), and tries it once with a probe: every step a case
 * takes, then no case. Returns 0 (on, or off with why), or -1 when mode
 * is required and it cannot be set up (err says why). */
int nc_sandbox_begin(nc_sandbox *sb, int mode, int in_process, const char *launcher,
                     const char *scratch, const char *const *rw, char *err, size_t errlen);

/* Stops the case server (after the run's last case). */
void nc_sandbox_end(nc_sandbox *sb);

/* A request to the case server: argv and envp of the case runner (or of a
 * tool around it) and the key its records carry, in a sealed memfd.
 * Valgrind's own preloads are left out of LD_PRELOAD, as
 * valgrind leaves them out of a program it does not follow. The memfd, or
 * -1 when out of memory or over NC_SANDBOX_REQ_MAX. */
int nc_sandbox_request(int probe, const char *key, char *const *argv, char *const *envp);

/* Hands a case to the server: the request (above) and the case's
 * descriptors (its output, channel, page, config and key; page or config
 * -1 when there is none), which the server takes copies of. 0 with
 * *status_fd, where how it ended comes (nc_sandbox_read_end), and
 * *life_fd, whose closing ends the case and everything it started; or -1
 * with errno. */
int nc_sandbox_start(int server, int request, int out, int channel, int page, int config,
                     int key, int *status_fd, int *life_fd);

/* How a case in the sandbox ended, read from status_fd (blocks): 0 with
 * its wait status, or -1 with why when the sandbox did not run it to its
 * end. */
int nc_sandbox_read_end(int status_fd, int *status, char *why, size_t len);

/* The case server's side of a request: the descriptors that come with it,
 * in this order; the message itself is NC_SANDBOX_REQ_MAGIC, and the
 * request's bytes are the header, then the key, argv and envp, each
 * string ending in a NUL. */
enum {
  NC_SANDBOX_REQ_OUT, /* the case's stdout and stderr */
  NC_SANDBOX_REQ_STATUS, /* where the handler writes how the case ended */
  NC_SANDBOX_REQ_LIFE,   /* its write end is the harness's: end of file ends the case */
  NC_SANDBOX_REQ_CHANNEL,
  NC_SANDBOX_REQ_PAGE,
  NC_SANDBOX_REQ_CONFIG,
  NC_SANDBOX_REQ_KEY,
  NC_SANDBOX_REQ_BYTES, /* the memfd of the request */
  NC_SANDBOX_REQ_FDS
};
#define NC_SANDBOX_REQ_MAGIC 0x6e637376u
#define NC_SANDBOX_REQ_MAX (8u << 20)
typedef struct nc_sandbox_req_head {
  unsigned magic, probe, argc, envc;
} nc_sandbox_req_head;

/* What the harness reads on the status pipe, from the handler once the
 * case's namespace is gone: who 0, the case's wait status; 1, the init's
 * (the case never ended on its own; exit status NC_CHILD_EXIT_NO_RUNNER
 * when it said why on the channel); 2, the server or the handler could
 * not start it (status: the errno). */
typedef struct nc_sandbox_ended {
  int who, status;
} nc_sandbox_ended;

/* The server's socket in the server. */
#define NC_SANDBOX_SERVER_FD 9

/* The case runner's side: argv starts with NC_SANDBOX_ARG. Never returns
 * in the server, a handler or an init; in the case, execs a tool, or,
 * when the case runner itself is asked for, returns NC_SANDBOX_GO_ON with
 * its argv in case_argv (the caller goes on as if it had been started so,
 * in a state as after execve). Else returns an exit status, when the
 * server could not start (the reason is on stderr). */
#define NC_SANDBOX_GO_ON (-1)
int nc_sandbox_is_launch(int argc, char **argv);
int nc_sandbox_launch(int argc, char **argv, char ***case_argv);

#endif
