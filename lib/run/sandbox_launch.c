/* SPDX-License-Identifier: Apache-2.0 */
/* The case runner as the sandbox's case server (sandbox.h): the server,
 * and for each case its handler, its init and the case. A fresh program,
 * one thread, no plugin code ever, so every step may allocate and report
 * in words; each case is forked from it in a state as after execve. */
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coverage.h"
#include "limits_env.h"
#include "record.h"
#include "runner.h"
#include "sandbox_steps.h"
#include "trace.h"

/* Where a handler keeps the request's status and life ends and the init's
 * lifeline, above what the case is handed (channel, page, config, key). */
#define STATUS_FD 10
#define LIFE_FD 11
#define LIFELINE_FD 12
/* Where received descriptors wait before they go to their places. */
#define PARKED_FLOOR 20

typedef struct server {
  pid_t parent; /* the harness */
  pid_t self;   /* the server, as its handlers see it */
  int user;     /* not root: a user namespace for the run, and one per case */
  char scratch[PATH_MAX]; /* each case's TMPDIR: a private tmpfs there */
  char rw[NC_SANDBOX_MAX_RW + 1][PATH_MAX];
  const char *rwp[NC_SANDBOX_MAX_RW + 1];
  size_t nrw;
  long scratch_mib;
} server;

/* One request, parsed from the bytes the server received (which the
 * handler's fork copies). */
typedef struct request {
  int probe;
  const char *key;
  char **argv; /* what the case runs */
  char **envp; /* and its environment */
} request;

static void write_end(int fd, int who, int status);

/* 1 in a handler: its failures go on the status pipe too, so that the
 * harness knows the reason is on the channel. */
static int in_handler;

/* Ends a handler, an init or a case with why: on the channel as the
 * harness's error (the case is ERROR "could not check", never the
 * plugin's verdict), or on stderr for the probe. */
static __attribute__((noreturn, format(printf, 2, 3))) void fail(const request *rq,
                                                                 const char *fmt, ...)
{
  char why[900], text[1000];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof(why), fmt, ap);
  va_end(ap);
  if (rq->probe) {
    fprintf(stderr, "%s\n", why);
  } else {
    snprintf(text, sizeof(text), "cannot set up the case's sandbox: %s", why);
    const char *f[] = {"error", "harness", "the case's sandbox is set up", text};
    char tag[NC_TRACE_KEY_MAX + 8];
    snprintf(tag, sizeof(tag), "%s%sCHECK", rq->key, rq->key[0] ? ":" : "");
    nc_record_write(NC_RUNNER_CHANNEL_FD, tag, 4, f);
  }
  if (in_handler)
    write_end(STATUS_FD, 1, NC_CHILD_EXIT_NO_RUNNER << 8);
  nc_coverage_flush();
  _exit(NC_CHILD_EXIT_NO_RUNNER);
}

/* The server's own failures, before any request: on its stderr. */
static __attribute__((noreturn, format(printf, 1, 2))) void server_fails(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  nc_coverage_flush();
  _exit(1);
}

static int parse(server *sv, int argc, char **argv)
{
  memset(sv, 0, sizeof(*sv));
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--parent") == 0 && i + 1 < argc) {
      sv->parent = (pid_t)atoi(argv[++i]);
    } else if (strcmp(argv[i], "--scratch") == 0 && i + 1 < argc) {
      if (!realpath(argv[++i], sv->scratch))
        return -1;
    } else if (strcmp(argv[i], "--rw") == 0 && i + 1 < argc && sv->nrw < NC_SANDBOX_MAX_RW) {
      /* A file not there yet (the call log) is made, as the case would;
       * each path canonical, for the mounts. */
      const char *p = argv[++i];
      int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
      if (fd >= 0)
        close(fd);
      if (!realpath(p, sv->rw[sv->nrw]))
        continue; /* nowhere the case could write it either */
      sv->rwp[sv->nrw] = sv->rw[sv->nrw];
      sv->nrw++;
    } else {
      return -1;
    }
  }
  if (!sv->scratch[0] || sv->parent <= 0)
    return -1;
  nc_limits lim = {0, 4096, 0, 0};
  char ignored[200];
  nc_limits_parse(getenv("NVE_CONFORM_LIMITS"), &lim, ignored, sizeof(ignored));
  sv->scratch_mib = lim.fsize_mib > 0 ? lim.fsize_mib : 4096;
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

/* A user namespace just made: this process's uid and gid, the same
 * numbers inside, and no setgroups. */
static int map_ids(uid_t uid, gid_t gid, char *why, size_t len)
{
  char map[64];
  if (write_file("/proc/self/setgroups", "deny") != 0) {
    snprintf(why, len, "cannot write /proc/self/setgroups: %s", strerror(errno));
    return -1;
  }
  snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
  if (write_file("/proc/self/uid_map", map) != 0) {
    snprintf(why, len, "cannot write /proc/self/uid_map: %s", strerror(errno));
    return -1;
  }
  snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
  if (write_file("/proc/self/gid_map", map) != 0) {
    snprintf(why, len, "cannot write /proc/self/gid_map: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* The run's namespaces: user (where not root) and mount; each case's
 * handler takes user (again), PID, mount, IPC and network ones in them. */
static void unshare_run(server *sv)
{
  uid_t uid = geteuid();
  gid_t gid = getegid();
  sv->user = uid != 0;
  if (unshare(CLONE_NEWNS | (sv->user ? CLONE_NEWUSER : 0)) != 0)
    server_fails("unshare(%smount namespaces): %s (namespaces not available here: a "
                 "container without them, or user.max_*_namespaces at 0)",
                 sv->user ? "user and " : "", strerror(errno));
  char why[300];
  if (sv->user && map_ids(uid, gid, why, sizeof(why)) != 0)
    server_fails("%s", why);
}

/* PROGRAM is this very program (not a tool around it): the case can go on
 * in this process instead of starting it again. */
static int program_is_self(const char *program)
{
  struct stat self, prog;
  return stat("/proc/self/exe", &self) == 0 && stat(program, &prog) == 0 &&
         self.st_dev == prog.st_dev && self.st_ino == prog.st_ino;
}

/* Whether a variable is one the dynamic loader or the C library reads
 * only as a program starts. */
static int read_at_start(const char *entry)
{
  return strncmp(entry, "LD_", 3) == 0 || strncmp(entry, "GLIBC_TUNABLES=", 15) == 0 ||
         strncmp(entry, "MALLOC_", 7) == 0;
}

/* Whether every such variable of a has the same value in b. */
static int start_vars_in(char *const *a, char *const *b)
{
  for (size_t i = 0; a[i]; i++) {
    if (!read_at_start(a[i]))
      continue;
    int found = 0;
    for (size_t k = 0; b[k] && !found; k++)
      found = strcmp(a[i], b[k]) == 0;
    if (!found)
      return 0;
  }
  return 1;
}

/* Whether a program started with envp would start as this server did:
 * then a fork of it is as good as an exec (a sanitizer's LD_PRELOAD, for
 * one, needs the exec). */
static int starts_alike(char *const *envp)
{
  extern char **environ;
  return start_vars_in(envp, environ) && start_vars_in(environ, envp);
}

/* Closes the descriptors marked close-on-exec that one listing finds;
 * returns how many. */
static int close_on_exec_fds(const request *rq)
{
  int fds[64], n = 0;
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    fail(rq, "cannot list the case's descriptors: %s", strerror(errno));
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
static void as_after_exec(const request *rq)
{
  while (close_on_exec_fds(rq) > 0) /* until a listing finds none left */
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
static int be_case(const server *sv, const request *rq)
{
  char why[600];
  if (nc_sandbox_confine(why, sizeof(why)) != 0)
    fail(rq, "%s", why);
  if (rq->probe) {
    nc_coverage_flush();
    _exit(0);
  }
  extern char **environ;
  int alike = starts_alike(rq->envp);
  environ = rq->envp; /* as the harness would have handed it to execve */
  if (setenv("TMPDIR", sv->scratch, 1) != 0)
    fail(rq, "cannot set TMPDIR: %s", strerror(errno));
  if (alike && program_is_self(rq->argv[0])) {
    as_after_exec(rq);
    return 1; /* an exec of this program would cost a few ms of every case */
  }
  execve(rq->argv[0], rq->argv, environ);
  fail(rq, "cannot start %s: %s", rq->argv[0], strerror(errno));
}

static void write_end(int fd, int who, int status)
{
  nc_sandbox_ended end = {who, status};
  if (write(fd, &end, sizeof(end)) != (ssize_t)sizeof(end)) {
    /* the harness is gone: nobody to tell */
  }
}

/* The init: PID 1 of the case's namespaces. Its mounts, the case, then
 * how it ended to the handler (told); when it ends, the kernel ends
 * whatever else the namespace holds. Returns only in the case, when it
 * goes on in this program. */
static void be_init(const server *sv, const request *rq, int told)
{
  signal(SIGCHLD, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  struct pollfd handler = {.fd = LIFELINE_FD, .events = POLLIN};
  if (poll(&handler, 1, 0) == 1)
    _exit(0); /* the handler died before the line above: nobody to work for */
  close(LIFELINE_FD);
  close(LIFE_FD);
  close(STATUS_FD); /* the harness hears from the handler, once all this is gone */
  prctl(PR_SET_DUMPABLE, 0); /* no case opens its memory or descriptors */
  char why[600];
  if (nc_sandbox_case_mounts(sv->scratch, sv->scratch_mib, why, sizeof(why)) != 0)
    fail(rq, "%s", why);
  pid_t the_case = fork();
  if (the_case < 0)
    fail(rq, "cannot fork the case: %s", strerror(errno));
  if (the_case == 0) {
    close(told);
    if (be_case(sv, rq))
      return;
  }
  /* Nothing of the case's kept here. */
  for (int fd = 3; fd < STATUS_FD; fd++)
    close(fd);
  for (;;) {
    int st;
    pid_t w = waitpid(-1, &st, __WALL);
    if (w == the_case) {
      if (write(told, &st, sizeof(st)) != (ssize_t)sizeof(st)) {
        /* the handler is gone: nobody to tell */
      }
      nc_coverage_flush();
      _exit(0);
    }
    if (w < 0 && errno != EINTR)
      _exit(0);
  }
}

/* The server could not start a request: says why (an errno) on its
 * status descriptor, which the harness reads. */
static __attribute__((noreturn)) void refuse(int status_fd, int err)
{
  write_end(status_fd, 2, err);
  nc_coverage_flush();
  _exit(NC_CHILD_EXIT_NO_RUNNER);
}

/* The request's descriptors to their places: output on 1 and 2, the
 * case's on the NC_RUNNER_* ones, status and life above them. */
static void place_fds(int *fds)
{
  for (int i = 0; i < NC_SANDBOX_REQ_FDS; i++) {
    int high = fcntl(fds[i], F_DUPFD_CLOEXEC, PARKED_FLOOR);
    if (high < 0)
      refuse(fds[NC_SANDBOX_REQ_STATUS], errno);
    close(fds[i]);
    fds[i] = high;
  }
  static const int place[NC_SANDBOX_REQ_FDS] = {
      [NC_SANDBOX_REQ_OUT] = 1,     [NC_SANDBOX_REQ_STATUS] = STATUS_FD,
      [NC_SANDBOX_REQ_LIFE] = LIFE_FD, [NC_SANDBOX_REQ_CHANNEL] = NC_RUNNER_CHANNEL_FD,
      [NC_SANDBOX_REQ_PAGE] = NC_RUNNER_PAGE_FD, [NC_SANDBOX_REQ_CONFIG] = NC_RUNNER_CONFIG_FD,
      [NC_SANDBOX_REQ_KEY] = NC_RUNNER_KEY_FD, [NC_SANDBOX_REQ_BYTES] = -1};
  for (int i = 0; i < NC_SANDBOX_REQ_FDS; i++) {
    if (place[i] >= 0 && dup2(fds[i], place[i]) < 0)
      refuse(fds[NC_SANDBOX_REQ_STATUS], errno);
  }
  for (int i = 0; i < NC_SANDBOX_REQ_FDS; i++)
    close(fds[i]);
  dup2(1, 2);
  /* The case's own (what execve would keep); the handler's stay private. */
  fcntl(STATUS_FD, F_SETFD, FD_CLOEXEC);
  fcntl(LIFE_FD, F_SETFD, FD_CLOEXEC);
}

static int child_pipe[2] = {-1, -1};

static void on_child(int sig)
{
  (void)sig;
  int saved = errno;
  if (write(child_pipe[1], "", 1) < 0) {
    /* full: a wake-up is pending anyway */
  }
  errno = saved;
}

/* A pipe with both ends above what the init and the case get. */
static void high_pipe(const request *rq, int p[2], int flags)
{
  if (pipe2(p, O_CLOEXEC | flags) != 0)
    fail(rq, "cannot create a pipe: %s", strerror(errno));
  for (int i = 0; i < 2; i++) {
    int high = fcntl(p[i], F_DUPFD_CLOEXEC, PARKED_FLOOR);
    if (high < 0)
      fail(rq, "cannot create a pipe: %s", strerror(errno));
    close(p[i]);
    p[i] = high;
  }
}

/* The case's own namespaces: user too (not as root; the user's process
 * count stays shared all the same, README says why); and network, whose
 * names (abstract sockets, netlink ports, /proc/net) no other case sees,
 * new for each case: sockets can outlive a case's processes. */
static void unshare_case(const server *sv, const request *rq)
{
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET |
              (sv->user ? CLONE_NEWUSER : 0)) != 0)
    fail(rq, "unshare(%sPID, mount, IPC and network namespaces): %s", sv->user ? "user, " : "",
         strerror(errno));
  /* The maps are written through /proc/self, which only a dumpable
   * process owns (no case exists yet). */
  char why[300];
  prctl(PR_SET_DUMPABLE, 1);
  if (sv->user && map_ids(uid, gid, why, sizeof(why)) != 0)
    fail(rq, "%s", why);
  prctl(PR_SET_DUMPABLE, 0);
}

/* The handler's wait: for the init (then says how the case ended, told
 * by the init), or for the end of the life pipe (the harness ends the
 * case: the init goes, and the namespace with it). */
static void watch_init(pid_t init, int told)
{
  for (;;) {
    struct pollfd p[2] = {{.fd = LIFE_FD, .events = POLLIN}, {.fd = child_pipe[0], .events = POLLIN}};
    if (poll(p, 2, -1) < 0 && errno != EINTR)
      return;
    /* Emptied before the look: a SIGCHLD after it wakes the next poll. */
    char drain[64];
    while (read(child_pipe[0], drain, sizeof(drain)) > 0)
      ;
    int st;
    if (waitpid(init, &st, WNOHANG) == init) {
      /* The namespace is gone now, and everything in it: the harness may
       * go on. */
      int case_status;
      if (read(told, &case_status, sizeof(case_status)) == (ssize_t)sizeof(case_status))
        write_end(STATUS_FD, 0, case_status);
      else
        write_end(STATUS_FD, 1, st);
      return;
    }
    if (p[0].revents) {
      kill(init, SIGKILL);
      while (waitpid(init, &st, 0) < 0 && errno == EINTR)
        ;
      return;
    }
  }
}

/* The handler: the server's child for one request. The case's namespaces,
 * the init in them; then watches it. Returns only in the case, when it
 * goes on in this program. */
static void be_handler(const server *sv, const request *rq, int *fds)
{
  signal(SIGCHLD, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  close(NC_SANDBOX_SERVER_FD);
  place_fds(fds);
  in_handler = 1;
  if (getppid() != sv->self)
    fail(rq, "the case server ended before the case"); /* died before the line above */
  unshare_case(sv, rq);
  /* The init's lifeline (end of file once this process is gone), the
   * SIGCHLD wake-up and how the case ended, from the init to here. */
  int lifeline[2], told[2];
  high_pipe(rq, lifeline, 0);
  if (dup3(lifeline[0], LIFELINE_FD, O_CLOEXEC) < 0)
    fail(rq, "cannot create a pipe: %s", strerror(errno));
  close(lifeline[0]);
  high_pipe(rq, child_pipe, O_NONBLOCK);
  high_pipe(rq, told, O_NONBLOCK);
  struct sigaction sa = {.sa_handler = on_child, .sa_flags = SA_NOCLDSTOP};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  pid_t init = fork();
  if (init < 0)
    fail(rq, "cannot fork the namespace's init: %s", strerror(errno));
  if (init == 0) {
    in_handler = 0;
    close(lifeline[1]);
    close(child_pipe[0]);
    close(child_pipe[1]);
    close(told[0]);
    be_init(sv, rq, told[1]);
    return;
  }
  /* Only the status, the life pipe, the lifeline, the wake-up and what
   * the init tells. */
  close(told[1]);
  close(LIFELINE_FD);
  for (int fd = 0; fd <= NC_RUNNER_KEY_FD; fd++)
    close(fd);
  watch_init(init, told[0]);
  nc_coverage_flush();
  _exit(0);
}

/* Splits the request's bytes; 0, or -1 when they are not one. */
static int parse_request(char *buf, size_t len, request *rq)
{
  nc_sandbox_req_head h;
  if (len < sizeof(h))
    return -1;
  memcpy(&h, buf, sizeof(h));
  if (h.magic != NC_SANDBOX_REQ_MAGIC || h.argc > 4096 || h.envc > 65536 || buf[len - 1] != '\0')
    return -1;
  rq->probe = (int)h.probe;
  char **words = calloc((size_t)h.argc + h.envc + 2, sizeof(char *));
  if (!words)
    return -1;
  char *at = buf + sizeof(h), *end = buf + len;
  rq->key = at;
  at += strlen(at) + 1;
  for (unsigned i = 0; i < h.argc + h.envc; i++) {
    if (at >= end) {
      free(words);
      return -1;
    }
    words[i + (i >= h.argc)] = at;
    at += strlen(at) + 1;
  }
  rq->argv = words;
  rq->envp = words + h.argc + 1;
  return rq->probe || h.argc > 0 ? 0 : -1;
}

/* Waits for the next request; 1 with its descriptors, 0 when the
 * harness closed its end. */
static int next_request(int *fds)
{
  for (;;) {
    union {
      char buf[CMSG_SPACE(sizeof(int) * NC_SANDBOX_REQ_FDS)];
      struct cmsghdr align;
    } ctl;
    unsigned magic = 0;
    struct iovec iov = {&magic, sizeof(magic)};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf)};
    ssize_t got = recvmsg(NC_SANDBOX_SERVER_FD, &msg, MSG_CMSG_CLOEXEC);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return 0;
    int n = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < k; i++) {
          int fd;
          memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
          if (n < NC_SANDBOX_REQ_FDS)
            fds[n++] = fd;
          else
            close(fd);
        }
      }
    if (n == NC_SANDBOX_REQ_FDS && got == (ssize_t)sizeof(magic) &&
        magic == NC_SANDBOX_REQ_MAGIC && !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
      return 1;
    if (n > NC_SANDBOX_REQ_STATUS)
      write_end(fds[NC_SANDBOX_REQ_STATUS], 2, EINVAL);
    for (int i = 0; i < n; i++) /* not a request: the harness says so */
      close(fds[i]);
  }
}

/* The request's bytes from its memfd (malloc'd, NUL-terminated past its
 * length); NULL with errno. */
static char *read_request(int fd, size_t *len)
{
  struct stat st;
  if (fstat(fd, &st) != 0)
    return NULL;
  if (st.st_size <= 0 || (unsigned long long)st.st_size > NC_SANDBOX_REQ_MAX) {
    errno = EMSGSIZE;
    return NULL;
  }
  char *buf = malloc((size_t)st.st_size + 1);
  if (!buf)
    return NULL;
  size_t done = 0;
  while (done < (size_t)st.st_size) {
    ssize_t r = pread(fd, buf + done, (size_t)st.st_size - done, (off_t)done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      free(buf);
      errno = r == 0 ? EMSGSIZE : errno;
      return NULL;
    }
    done += (size_t)r;
  }
  buf[done] = '\0';
  *len = done;
  return buf;
}

/* Every descriptor but the standard ones and the server's socket: what
 * the harness left open (a make's jobserver, a test's pipes) is no case's
 * business. */
static void close_others(void)
{
  for (int fd = 3; fd < NC_SANDBOX_SERVER_FD; fd++)
    close(fd);
#ifdef SYS_close_range
  if (syscall(SYS_close_range, (unsigned)NC_SANDBOX_SERVER_FD + 1, ~0u, 0) == 0)
    return;
#endif
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    server_fails("cannot list the server's descriptors: %s", strerror(errno));
  int fds[256], n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL && n < 256;) {
    int fd = e->d_name[0] >= '0' && e->d_name[0] <= '9' ? atoi(e->d_name) : -1;
    if (fd > NC_SANDBOX_SERVER_FD && fd != dirfd(d))
      fds[n++] = fd;
  }
  closedir(d);
  for (int i = 0; i < n; i++)
    close(fds[i]);
}

static void reap_handlers(int sig)
{
  (void)sig;
  int saved = errno;
  while (waitpid(-1, NULL, WNOHANG) > 0)
    ;
  errno = saved;
}

int nc_sandbox_is_launch(int argc, char **argv)
{
  return argc > 1 && strcmp(argv[1], NC_SANDBOX_ARG) == 0;
}

int nc_sandbox_launch(int argc, char **argv, char ***case_argv)
{
  static server sv;
  if (parse(&sv, argc, argv) != 0) {
    fprintf(stderr, "usage: nve-conform-case --sandbox --parent PID --scratch DIR [--rw PATH]... "
                    "(started by nve-conform; not meant to be run by hand)\n");
    return 2;
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != sv.parent)
    return 1; /* the harness died before the line above */
  sv.self = getpid();
  close_others();
  /* Signals as the harness's own children get them (runner.c). */
  const int defaults[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGQUIT};
  for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
    signal(defaults[i], SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  unshare_run(&sv);
  int remounted = 0;
  char why[600];
  if (nc_sandbox_mounts(sv.scratch, sv.rwp, sv.nrw, &remounted, why, sizeof(why)) != 0)
    server_fails("%s", why);
  if (remounted) /* the probe's one line on success, for the report */
    fprintf(stderr, "%s\n", NC_SANDBOX_REMOUNTED);
  prctl(PR_SET_DUMPABLE, 0); /* no case opens the server's memory */
  /* Handlers are reaped here as they end, so that the CPU time of the
   * cases adds up in the harness's children (make bench-suite's figure). */
  struct sigaction reap = {.sa_handler = reap_handlers, .sa_flags = SA_RESTART};
  sigemptyset(&reap.sa_mask);
  sigaction(SIGCHLD, &reap, NULL);
  signal(SIGPIPE, SIG_IGN);
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, 2);
    close(null);
  }
  int fds[NC_SANDBOX_REQ_FDS];
  while (next_request(fds)) {
    request rq = {0, "", NULL, NULL};
    size_t len = 0;
    char *buf = read_request(fds[NC_SANDBOX_REQ_BYTES], &len);
    int err = !buf ? errno : parse_request(buf, len, &rq) != 0 ? EINVAL : 0;
    pid_t handler = err ? -1 : fork();
    if (handler == 0) {
      be_handler(&sv, &rq, fds);
      *case_argv = rq.argv; /* the case, going on in this program */
      return NC_SANDBOX_GO_ON;
    }
    if (handler < 0)
      write_end(fds[NC_SANDBOX_REQ_STATUS], 2, err ? err : errno);
    for (int i = 0; i < NC_SANDBOX_REQ_FDS; i++)
      close(fds[i]);
    free(rq.argv);
    free(buf);
  }
  /* The run is over: the last handlers first (their cases are done). */
  signal(SIGCHLD, SIG_DFL);
  while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
    ;
  nc_coverage_flush();
  return 0;
}
