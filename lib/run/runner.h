/* SPDX-License-Identifier: Apache-2.0 */
/* Runs a piece of work that calls into a plugin in a process of its own,
 * with stdout and stderr captured, results streamed back over a pipe, and
 * a deadline after which the process is killed. The parent never runs
 * plugin code.
 *
 * A case runs in a fresh program (the case runner, exec'd): it inherits
 * none of the harness's threads, locks or signal state, and carries the
 * allocation interposer even when the harness is a library inside a
 * vendor's program. Work inside a case (one call of a failure sweep) runs
 * in a forked child of the case, in the case's process group. */
#ifndef NC_RUNNER_H
#define NC_RUNNER_H

#include <stddef.h>

#include "nve_conform.h"
#include "record.h"

/* A child that keeps reporting progress may run past its timeout, up to
 * timeout * NC_RUNNER_CAP_FACTOR + NC_RUNNER_CAP_EXTRA_S seconds. */
#define NC_RUNNER_CAP_FACTOR 10
#define NC_RUNNER_CAP_EXTRA_S 300

/* Exit status a child uses when its result channel was closed under it. */
#define NC_CHILD_EXIT_CHANNEL_LOST 121
/* Exit status of a child that could not start the case runner. */
#define NC_CHILD_EXIT_NO_RUNNER 122

/* The descriptors an exec'd case runner finds its channel and the shared
 * callback page on. */
#define NC_RUNNER_CHANNEL_FD 3
#define NC_RUNNER_PAGE_FD 4
/* ... and the run's configuration (a sealed memory file, config_io.h). */
#define NC_RUNNER_CONFIG_FD 5

/* ... and the key its records must carry (trace.h): a pipe holding it
 * alone, read and closed before any plugin code runs. Never the
 * environment: unsetenv leaves the original block in /proc/self/environ. */
#define NC_RUNNER_KEY_FD 6

/* The most bytes one case may send on its result channel (what the harness
 * sends is bounded far below: evidence per kind, violations per rule). */
#define NC_RUNNER_CHANNEL_MAX ((size_t)64 << 20)

typedef struct nc_child_result {
  nc_record *records;
  size_t nrecords, cap;
  int ended;     /* the body returned and the END record arrived */
  int timed_out; /* killed at the deadline */
  int flooded;   /* killed for sending more than NC_RUNNER_CHANNEL_MAX bytes */
  size_t forged; /* records without the child's key: someone else wrote them */
  int signo;     /* nonzero: the child died of this signal */
  int exit_code; /* when it exited (-1 otherwise) */
  char *output;  /* the tail of what the child printed, or NULL */
  char phase[128]; /* the plugin callback it was in when it ended ("": none) */
  double seconds;
} nc_child_result;

typedef void (*nc_child_body)(void *arg);

/* Runs body(arg) in a forked child that must not stay silent (no record)
 * longer than timeout_s; own_group: in a process group of its own (killed
 * whole at the end), else in the caller's. With in_process set it runs
 * here instead (a crash then ends the harness). Returns 0, or -1 with a
 * message in err when the harness itself could not run it. */
int nc_run_isolated(nc_child_body body, void *arg, double timeout_s, int in_process,
                    int own_group, nc_child_result *out, char *err, size_t errlen);

/* Runs the program argv[0] (the case runner) with argv in a child process
 * of its own group, its channel on NC_RUNNER_CHANNEL_FD, the callback page
 * on NC_RUNNER_PAGE_FD, config_fd (when not -1) on NC_RUNNER_CONFIG_FD and
 * a fresh key on NC_RUNNER_KEY_FD,
 * supervised as above. env_extra ("NAME=value" strings, NULL-terminated;
 * may be NULL) replaces or adds those variables in its environment. With
 * sandbox_server (the socket of the run's case server, sandbox.h; else
 * -1) the server starts the program in the sandbox instead, and its end
 * comes from there: no child of this process. */
int nc_run_program(char *const *argv, char *const *env_extra, int config_fd, int sandbox_server,
                   double timeout_s, nc_child_result *out, char *err, size_t errlen);

/* This process's environment with the run's mark (contain.h) in place of
 * any earlier one, and the extra variables ("NAME=value", NULL-terminated;
 * may be NULL): the strings are this process's, the array is malloc'd (to
 * free). NULL when out of memory. */
char **nc_marked_environment(char *mark, size_t marklen, char *const *extra);

void nc_child_result_free(nc_child_result *r);

/* The signal nc_interrupt_run was called with (0: none since the run
 * began); a case that ends after it is not judged. */
int nc_run_interrupted(void);
void nc_run_interrupt_clear(void);

/* The most cases that run at once (--jobs). */
#define NC_RUNNER_MAX_JOBS NC_MAX_JOBS

/* Kills the orphans cases left behind (contain.h), sparing the cases that
 * are still running. Safe while other threads start and supervise cases. */
void nc_runner_reap_orphans(void);

/* The run's scratch directory (NULL: none), which nc_abort_running_case
 * removes with everything in it. */
void nc_runner_scratch(const char *dir);
/* Removes it now (the run is ending without returning). */
void nc_runner_remove_scratch(void);

/* How a child that did not finish ended, in words ("crashed with SIGSEGV
 * (Segmentation fault)", "did not return within 5 s ..."). */
void nc_child_describe_end(const nc_child_result *cr, double timeout_s, char *out, size_t outlen);
/* "SIGSEGV" for SIGSEGV. */
const char *nc_signal_name(int signo);

/* The last record with this tag, or NULL. */
const nc_record *nc_child_last(const nc_child_result *r, const char *tag);

/* Moves fd out of the low range that careless plugins close; returns the
 * new descriptor (close-on-exec). */
int nc_park_high(int fd);

/* Sleeps for seconds, resuming after signals (a plugin's timer must not
 * cut the harness's waits short). */
void nc_sleep(double seconds);
/* Seconds on the monotonic clock. */
double nc_now(void);

#endif
