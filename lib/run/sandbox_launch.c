/* SPDX-License-Identifier: Apache-2.0 */
/* The case runner as the sandbox's launcher (sandbox.h): the relay, the
 * init and the case. A fresh program, one thread, no plugin code yet, so
 * every step may allocate and report in words. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contain.h"
#include "coverage.h"
#include "limits_env.h"
#include "record.h"
#include "runner.h"
#include "sandbox_steps.h"
#include "trace.h"

/* Where the relay keeps its end of the status pipe, above what the case
 * is handed (channel, page, config, key). */
#define STATUS_FD_FLOOR 10

typedef struct launch {
  int probe;
  char scratch[PATH_MAX]; /* the case's TMPDIR: a private tmpfs there */
  char rw[NC_SANDBOX_MAX_RW + 1][PATH_MAX];
  const char *rwp[NC_SANDBOX_MAX_RW + 1];
  size_t nrw;
  char **argv; /* what the case execs */
  char key[NC_TRACE_KEY_MAX];
  long scratch_mib;
} launch;

/* Ends the launcher's process with why: on the channel as the harness's
 * error (the case is ERROR "could not check", never the plugin's verdict),
 * or on stderr for the probe. */
static __attribute__((noreturn, format(printf, 2, 3))) void fail(const launch *l,
                                                                 const char *fmt, ...)
{
  char why[900], text[1000];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof(why), fmt, ap);
  va_end(ap);
  if (l->probe) {
    fprintf(stderr, "%s\n", why);
    _exit(1);
  }
  snprintf(text, sizeof(text), "cannot set up the case's sandbox: %s", why);
  const char *f[] = {"error", "harness", "the case's sandbox is set up", text};
  char tag[NC_TRACE_KEY_MAX + 8];
  snprintf(tag, sizeof(tag), "%s%sCHECK", l->key, l->key[0] ? ":" : "");
  nc_record_write(NC_RUNNER_CHANNEL_FD, tag, 4, f);
  nc_coverage_flush();
  _exit(NC_CHILD_EXIT_NO_RUNNER);
}

/* The key the harness put on NC_RUNNER_KEY_FD, read here so that errors
 * carry it, and put back on a fresh pipe for the case runner. */
static void take_key(launch *l)
{
  ssize_t got = read(NC_RUNNER_KEY_FD, l->key, sizeof(l->key) - 1);
  l->key[got > 0 ? got : 0] = '\0';
  if (got < 0)
    return; /* none handed: nothing to hand on */
  close(NC_RUNNER_KEY_FD);
  int kp[2];
  if (pipe2(kp, O_CLOEXEC) != 0 ||
      write(kp[1], l->key, strlen(l->key)) != (ssize_t)strlen(l->key))
    fail(l, "cannot hand the key on: %s", strerror(errno));
  close(kp[1]);
  if (kp[0] != NC_RUNNER_KEY_FD) {
    dup2(kp[0], NC_RUNNER_KEY_FD);
    close(kp[0]);
  } else {
    fcntl(NC_RUNNER_KEY_FD, F_SETFD, 0);
  }
}

static int parse(launch *l, int argc, char **argv)
{
  memset(l, 0, sizeof(*l));
  int i = 2;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--probe") == 0) {
      l->probe = 1;
    } else if (strcmp(argv[i], "--scratch") == 0 && i + 1 < argc) {
      if (!realpath(argv[++i], l->scratch))
        return -1;
    } else if (strcmp(argv[i], "--rw") == 0 && i + 1 < argc && l->nrw < NC_SANDBOX_MAX_RW) {
      /* A file not there yet (the call log) is made, as the case would;
       * each path canonical, for the mounts. */
      const char *p = argv[++i];
      int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
      if (fd >= 0)
        close(fd);
      if (!realpath(p, l->rw[l->nrw]))
        continue; /* nowhere the case could write it either */
      l->rwp[l->nrw] = l->rw[l->nrw];
      l->nrw++;
    } else {
      return -1;
    }
  }
  if (i >= argc || !l->scratch[0])
    return -1;
  l->argv = argv + i + 1;
  nc_limits lim = {0, 4096, 0, 0};
  char ignored[200];
  nc_limits_parse(getenv("NVE_CONFORM_LIMITS"), &lim, ignored, sizeof(ignored));
  l->scratch_mib = lim.fsize_mib > 0 ? lim.fsize_mib : 4096;
  return 0;
}

static int write_file(const char *path, const char *text)
{
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The new namespaces, entered by this process (PID: by its next child).
 * Not root: a user namespace too, where the case keeps its own uid and
 * gid (and so gets no capability at exec). */
static void unshare_all(const launch *l)
{
  uid_t uid = geteuid();
  gid_t gid = getegid();
  int user = uid != 0;
  int flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | (user ? CLONE_NEWUSER : 0);
  if (unshare(flags) != 0)
    fail(l, "unshare(%sPID, mount, IPC and network namespaces): %s (namespaces not available "
            "here: a container without them, or user.max_*_namespaces at 0)",
         user ? "user, " : "", strerror(errno));
  if (!user)
    return;
  char map[64];
  if (write_file("/proc/self/setgroups", "deny") != 0)
    fail(l, "cannot write /proc/self/setgroups: %s", strerror(errno));
  snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
  if (write_file("/proc/self/uid_map", map) != 0)
    fail(l, "cannot write /proc/self/uid_map: %s", strerror(errno));
  snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
  if (write_file("/proc/self/gid_map", map) != 0)
    fail(l, "cannot write /proc/self/gid_map: %s", strerror(errno));
}

/* Ends this process as the case ended: its exit status, or its signal
 * (without a core file), so that the harness judges the case by it. */
static __attribute__((noreturn)) void end_as(int status)
{
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    nc_coverage_flush();
    kill(getpid(), sig);
    _exit(128 + sig);
  }
  nc_coverage_flush();
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : NC_CHILD_EXIT_NO_RUNNER);
}

/* PROGRAM is this very program (not a tool around it): the case can go on
 * in this process instead of starting it again. */
static int program_is_self(const launch *l)
{
  struct stat self, program;
  return stat("/proc/self/exe", &self) == 0 && stat(l->argv[0], &program) == 0 &&
         self.st_dev == program.st_dev && self.st_ino == program.st_ino;
}

/* Closes the descriptors marked close-on-exec that one listing finds;
 * returns how many. */
static int close_on_exec_fds(const launch *l)
{
  int fds[64], n = 0;
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    fail(l, "cannot list the case's descriptors: %s", strerror(errno));
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < (int)(sizeof(fds) / sizeof(fds[0]))) {
    int fd = e->d_name[0] >= '0' && e->d_name[0] <= '9' ? atoi(e->d_name) : -1;
    int flags = fd > 2 && fd != dirfd(d) ? fcntl(fd, F_GETFD) : -1;
    if (flags >= 0 && (flags & FD_CLOEXEC))
      fds[n++] = fd;
  }
  closedir(d);
  for (int i = 0; i < n; i++)
    close(fds[i]);
  return n;
}

/* What execve would have done to this process: descriptors marked
 * close-on-exec closed, caught signals back to their defaults, dumpable
 * again (the init made itself not dumpable before the fork). */
static void as_after_exec(const launch *l)
{
  while (close_on_exec_fds(l) > 0) /* until a listing finds none left */
    ;
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction now;
    if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &now) == 0 &&
        now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN)
      signal(sig, SIG_DFL);
  }
  prctl(PR_SET_DUMPABLE, 1);
}

/* The case: PID 2, confined, then the program. Returns (1) only when the
 * program is this one and the case goes on here. */
static int be_case(const launch *l)
{
  char why[600];
  if (nc_sandbox_confine(why, sizeof(why)) != 0)
    fail(l, "%s", why);
  if (l->probe) {
    nc_coverage_flush();
    _exit(0);
  }
  if (setenv("TMPDIR", l->scratch, 1) != 0)
    fail(l, "cannot set TMPDIR: %s", strerror(errno));
  if (program_is_self(l)) {
    as_after_exec(l);
    return 1; /* a fresh exec of this program costs a few ms of every case */
  }
  extern char **environ;
  execve(l->argv[0], l->argv, environ);
  fail(l, "cannot start %s: %s", l->argv[0], strerror(errno));
}

/* The init: PID 1 of the namespace. The mounts, the case, then its status
 * to the relay; when it ends, the kernel ends whatever else the namespace
 * holds. Returns only in the case, when it goes on in this program. */
static void be_init(const launch *l, int status_fd)
{
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  struct pollfd relay = {.fd = status_fd, .events = POLLOUT};
  if (poll(&relay, 1, 0) == 1 && (relay.revents & POLLERR))
    _exit(0); /* the relay died before the line above: nobody to work for */
  prctl(PR_SET_DUMPABLE, 0); /* no case opens its memory or descriptors */
  char why[600];
  int remounted = 0;
  if (nc_sandbox_mounts(l->scratch, l->rwp, l->nrw, l->scratch_mib, &remounted, why,
                        sizeof(why)) != 0)
    fail(l, "%s", why);
  if (l->probe && remounted) /* the probe's one line on success, for the report */
    fprintf(stderr, "%s\n", NC_SANDBOX_REMOUNTED);
  pid_t the_case = fork();
  if (the_case < 0)
    fail(l, "cannot fork the case: %s", strerror(errno));
  if (the_case == 0) {
    close(status_fd);
    if (be_case(l))
      return;
  }
  /* Nothing of the case's kept here. */
  for (int fd = 3; fd < STATUS_FD_FLOOR; fd++)
    close(fd);
  for (;;) {
    int st;
    pid_t w = waitpid(-1, &st, __WALL);
    if (w == the_case) {
      if (write(status_fd, &st, sizeof(st)) != (ssize_t)sizeof(st)) {
        /* the relay is gone; the harness reaps nothing of ours */
      }
      nc_coverage_flush();
      _exit(0);
    }
    if (w < 0 && errno != EINTR)
      _exit(0);
  }
}

int nc_sandbox_is_launch(int argc, char **argv)
{
  return argc > 1 && strcmp(argv[1], NC_SANDBOX_ARG) == 0;
}

int nc_sandbox_launch(int argc, char **argv, char ***case_argv)
{
  launch l;
  if (parse(&l, argc, argv) != 0 || (!l.probe && !l.argv[0])) {
    fprintf(stderr, "usage: nve-conform-case --sandbox [--probe] --scratch DIR [--rw PATH]... -- "
                    "PROGRAM "
                    "ARGS... (started by nve-conform; not meant to be run by hand)\n");
    return 2;
  }
  if (!l.probe)
    take_key(&l);
  unshare_all(&l);
  int st[2];
  if (pipe2(st, O_CLOEXEC) != 0)
    fail(&l, "cannot create a pipe: %s", strerror(errno));
  for (int i = 0; i < 2; i++) {
    int high = fcntl(st[i], F_DUPFD_CLOEXEC, STATUS_FD_FLOOR);
    close(st[i]);
    st[i] = high;
  }
  if (st[0] < 0 || st[1] < 0)
    fail(&l, "cannot place the status pipe: %s", strerror(errno));
  pid_t init = fork();
  if (init < 0)
    fail(&l, "cannot fork the namespace's init: %s", strerror(errno));
  if (init == 0) {
    close(st[0]);
    be_init(&l, st[1]);
    *case_argv = l.argv; /* the case, going on in this program */
    return NC_SANDBOX_GO_ON;
  }
  close(st[1]);
  /* The relay keeps only the channel, for the error below. */
  for (int fd = NC_RUNNER_PAGE_FD; fd < STATUS_FD_FLOOR; fd++)
    close(fd);
  int status = 0;
  ssize_t got;
  while ((got = read(st[0], &status, sizeof(status))) < 0 && errno == EINTR)
    ;
  int init_status = 0;
  while (waitpid(init, &init_status, 0) < 0 && errno == EINTR)
    ;
  if (got != (ssize_t)sizeof(status)) {
    if (WIFEXITED(init_status) && WEXITSTATUS(init_status) == NC_CHILD_EXIT_NO_RUNNER)
      end_as(init_status); /* the init said why on the channel */
    fail(&l, "the namespace's init ended before the case (%s %d)",
         WIFSIGNALED(init_status) ? "signal" : "exit status",
         WIFSIGNALED(init_status) ? WTERMSIG(init_status) : WEXITSTATUS(init_status));
  }
  end_as(status);
}
