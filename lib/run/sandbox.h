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
 * harness is), which takes a user namespace (where not root), a mount
 * namespace with the read-only view below and a network namespace, and
 * then starts each case the harness asks for on its socket
 * (NC_SANDBOX_SERVER_FD) as four processes:
 *
 *   the relay   the harness's child (a fork, no exec): hands the request
 *               over, then ends as the case ended (its exit status, or its
 *               signal); when it is killed, so is the case
 *   the handler the server's child: takes new PID, mount and IPC
 *               namespaces for the case and watches the relay
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
 * case's PID namespace only. No case sees another's processes, files or
 * IPC objects; the network namespace, empty and with its loopback down,
 * is the run's. Starting a case this way costs a few forks, not an exec
 * and a network namespace (make bench-suite measures the difference). */
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
 * tool around it) and the key its records carry, packed before the fork
 * that sends it (the relay of a threaded harness must not allocate).
 * NULL when out of memory or too long. */
char *nc_sandbox_request(int probe, const char *key, char *const *argv, char *const *envp,
                         size_t *len);

/* The relay, in the harness's forked child: its channel, page, config and
 * key on their NC_RUNNER_* descriptors, its output on 1 and 2, server the
 * server's socket. Hands the request over, then ends as the case ended;
 * never returns. */
__attribute__((noreturn)) void nc_sandbox_relay(int server, const char *request, size_t len,
                                                const char *key);

/* Ends this process as a wait status says a process ended: its exit
 * status, or its signal (without a core file). */
__attribute__((noreturn)) void nc_sandbox_end_as(int status);

/* The case server's side of a request: the descriptors that come with it,
 * in this order, and the header of its bytes (then the key, argv and envp,
 * each string ending in a NUL). */
enum {
  NC_SANDBOX_REQ_OUT, /* the case's stdout and stderr */
  NC_SANDBOX_REQ_STATUS, /* where the init writes how the case ended */
  NC_SANDBOX_REQ_LIFE,   /* its write end is the relay's: end of file once it is gone */
  NC_SANDBOX_REQ_CHANNEL,
  NC_SANDBOX_REQ_PAGE,
  NC_SANDBOX_REQ_CONFIG,
  NC_SANDBOX_REQ_KEY,
  NC_SANDBOX_REQ_FDS
};
#define NC_SANDBOX_REQ_MAGIC 0x6e637376u
#define NC_SANDBOX_REQ_MAX (256u << 10)
typedef struct nc_sandbox_req_head {
  unsigned magic, probe, argc, envc;
} nc_sandbox_req_head;

/* What the relay reads on the status pipe: the case's wait status (who 0,
 * from the init), or the init's (who 1, from the handler: the case never
 * ended on its own; exit status NC_CHILD_EXIT_NO_RUNNER when it said why on
 * the channel). */
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
