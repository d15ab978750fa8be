/* SPDX-License-Identifier: Apache-2.0 */
/* The harness's side of the sandbox: whether the run has one (tried once
 * before any case), and the launcher's words in front of each case's
 * command line. The launcher itself is sandbox_launch.c, in the case
 * runner. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A probe that takes longer than this is taken as a failure. */
#define PROBE_TIMEOUT_MS 10000

const char *nc_sandbox_mode_name(int mode)
{
  static const char *const names[] = {"auto", "required", "off"};
  return mode >= 0 && mode < 3 ? names[mode] : "?";
}

int nc_sandbox_argv(const nc_sandbox *sb, char *const *argv, char **out, size_t max)
{
  size_t n = 0;
  if (sb && sb->on) {
    if (max < 5 + 2 * sb->nrw)
      return -1;
    out[n++] = (char *)sb->launcher;
    out[n++] = NC_SANDBOX_ARG;
    out[n++] = "--scratch";
    out[n++] = (char *)sb->scratch;
    for (size_t i = 0; i < sb->nrw; i++) {
      out[n++] = "--rw";
      out[n++] = (char *)sb->rw[i];
    }
    out[n++] = "--";
  }
  for (size_t i = 0; argv[i]; i++) {
    if (n + 1 >= max)
      return -1;
    out[n++] = argv[i];
  }
  out[n] = NULL;
  return 0;
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Runs the launcher in probe mode: every step a case's sandbox takes,
 * then the case process ends. 0 with what the launcher said in why (empty,
 * or how it built the mounts), or -1 with its reason. */
static int probe(const nc_sandbox *sb, char *why, size_t len)
{
  char *argv[6 + 2 * NC_SANDBOX_MAX_RW];
  size_t n = 0;
  argv[n++] = (char *)sb->launcher;
  argv[n++] = NC_SANDBOX_ARG;
  argv[n++] = "--probe";
  argv[n++] = "--scratch";
  argv[n++] = (char *)sb->scratch;
  for (size_t i = 0; i < sb->nrw; i++) {
    argv[n++] = "--rw";
    argv[n++] = (char *)sb->rw[i];
  }
  argv[n++] = "--";
  argv[n] = NULL;
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) {
    snprintf(why, len, "cannot create a pipe: %s", strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  extern char **environ;
  pid_t pid;
  /* The probe must be reapable by its pid, whatever SIGCHLD was. */
  struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
  sigaction(SIGCHLD, &dfl, &old);
  int rc = posix_spawn(&pid, sb->launcher, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(err[1]);
  if (rc != 0) {
    close(err[0]);
    sigaction(SIGCHLD, &old, NULL);
    snprintf(why, len, "cannot start %.300s: %s", sb->launcher, strerror(rc));
    return -1;
  }
  /* Its message, until every process of it has let go of the pipe. */
  char msg[512];
  size_t got = 0;
  double end = now_ms() + PROBE_TIMEOUT_MS;
  int timed_out = 0;
  for (;;) {
    struct pollfd p = {.fd = err[0], .events = POLLIN};
    int left = (int)(end - now_ms());
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    if (poll(&p, 1, left) <= 0)
      continue;
    ssize_t r = read(err[0], msg + got, sizeof(msg) - 1 - got);
    if (r <= 0 && !(r < 0 && errno == EINTR))
      break;
    if (r > 0)
      got += (size_t)r;
    if (got == sizeof(msg) - 1)
      break;
  }
  close(err[0]);
  if (timed_out)
    kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  sigaction(SIGCHLD, &old, NULL);
  msg[got] = '\0';
  /* The init's note on how it made the mounts comes before any failure of
   * the steps after it. */
  size_t note = strlen(NC_SANDBOX_REMOUNTED);
  int remounted = strncmp(msg, NC_SANDBOX_REMOUNTED "\n", note + 1) == 0;
  if (remounted)
    memmove(msg, msg + note + 1, strlen(msg + note + 1) + 1);
  char *nl = strchr(msg, '\n');
  if (nl)
    *nl = '\0';
  if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    snprintf(why, len, "%s", remounted ? NC_SANDBOX_REMOUNTED : "");
    return 0;
  }
  if (timed_out)
    snprintf(why, len, "setting it up took more than %d s", PROBE_TIMEOUT_MS / 1000);
  else if (msg[0])
    snprintf(why, len, "%s", msg);
  else if (WIFSIGNALED(status))
    snprintf(why, len, "its set-up ended with signal %d", WTERMSIG(status));
  else
    snprintf(why, len, "its set-up failed (exit status %d)", WEXITSTATUS(status));
  return -1;
}

int nc_sandbox_begin(nc_sandbox *sb, int mode, int in_process, const char *launcher,
                     const char *scratch, const char *const *rw, char *err, size_t errlen)
{
  memset(sb, 0, sizeof(*sb));
  sb->mode = mode;
  if (mode == NC_SANDBOX_OFF) {
    snprintf(sb->why, sizeof(sb->why), "off: --sandbox off");
    return 0;
  }
  if (in_process) {
    if (mode == NC_SANDBOX_REQUIRED) {
      snprintf(err, errlen, "--sandbox required: --no-fork runs the cases in this process, "
                            "outside any sandbox");
      return -1;
    }
    snprintf(sb->why, sizeof(sb->why), "off: --no-fork runs the cases in this process");
    return 0;
  }
  snprintf(sb->launcher, sizeof(sb->launcher), "%s", launcher ? launcher : "");
  snprintf(sb->scratch, sizeof(sb->scratch), "%s", scratch ? scratch : "");
  for (size_t i = 0; rw && rw[i] && sb->nrw < NC_SANDBOX_MAX_RW; i++)
    if (rw[i][0])
      snprintf(sb->rw[sb->nrw++], PATH_MAX, "%s", rw[i]);
  char why[512];
  if (!sb->launcher[0])
    snprintf(why, sizeof(why), "no case runner");
  else if (!sb->scratch[0])
    snprintf(why, sizeof(why), "no scratch directory for the cases (TMPDIR not writable?)");
  else if (probe(sb, why, sizeof(why)) == 0) {
    sb->on = 1;
    snprintf(sb->why, sizeof(sb->why), "on: own %s namespaces; %s%s%s",
             geteuid() == 0 ? "PID, mount, IPC and network (as root: no user namespace)"
                            : "user, PID, mount, IPC and network",
             NC_SANDBOX_WHAT, why[0] ? "; " : "", why[0] ? NC_SANDBOX_REMOUNTED : "");
    return 0;
  }
  if (mode == NC_SANDBOX_REQUIRED) {
    snprintf(err, errlen, "--sandbox required: the cases' sandbox cannot be set up here: %.500s",
             why);
    snprintf(sb->why, sizeof(sb->why), "off: cannot be set up here: %.400s", why);
    return -1;
  }
  snprintf(sb->why, sizeof(sb->why),
           "off: cannot be set up here (%.400s); the cases run without it (--sandbox required "
           "makes this an error)",
           why);
  return 0;
}
