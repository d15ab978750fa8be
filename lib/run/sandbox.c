/* SPDX-License-Identifier: Apache-2.0 */
/* The harness's side of the sandbox: the run's case server, started and
 * tried once before any case, and each case handed to it. The server
 * itself is sandbox_launch.c, in the case runner. */
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "contain.h"
#include "runner.h"

/* A probe that takes longer than this is taken as a failure. */
#define PROBE_TIMEOUT_MS 10000

const char *nc_sandbox_mode_name(int mode)
{
  static const char *const names[] = {"auto", "required", "off"};
  return mode >= 0 && mode < 3 ? names[mode] : "?";
}

/* Whether one LD_PRELOAD entry is valgrind's own (vgpreload_*). */
static int valgrinds(const char *lib, size_t n)
{
  for (size_t i = 0; i + 10 <= n; i++)
    if (memcmp(lib + i, "vgpreload_", 10) == 0)
      return 1;
  return 0;
}

/* entry with valgrind's preloads left out of LD_PRELOAD, into out (as
 * long as entry); the entry itself when it is another variable. */
static const char *without_valgrind(const char *entry, char *out)
{
  if (strncmp(entry, "LD_PRELOAD=", 11) != 0)
    return entry;
  char *at = stpcpy(out, "LD_PRELOAD=");
  for (const char *p = entry + 11; *p;) {
    size_t n = strcspn(p, ": ");
    if (n && !valgrinds(p, n)) {
      if (at[-1] != '=')
        *at++ = ':';
      memcpy(at, p, n);
      at += n;
    }
    p += n;
    p += *p != '\0';
  }
  *at = '\0';
  return out;
}

int nc_sandbox_request(int probe, const char *key, char *const *argv, char *const *envp)
{
  nc_sandbox_req_head h = {NC_SANDBOX_REQ_MAGIC, (unsigned)probe, 0, 0};
  size_t n = sizeof(h) + strlen(key) + 1;
  for (; argv && argv[h.argc]; h.argc++)
    n += strlen(argv[h.argc]) + 1;
  for (; envp && envp[h.envc]; h.envc++)
    n += strlen(envp[h.envc]) + 1;
  char *buf = n <= NC_SANDBOX_REQ_MAX ? malloc(n) : NULL;
  if (!buf)
    return -1;
  memcpy(buf, &h, sizeof(h));
  char *at = buf + sizeof(h);
  at = stpcpy(at, key) + 1;
  for (unsigned i = 0; i < h.argc; i++)
    at = stpcpy(at, argv[i]) + 1;
  for (unsigned i = 0; i < h.envc; i++) {
    const char *entry = without_valgrind(envp[i], at);
    at = entry == at ? at + strlen(at) + 1 : stpcpy(at, entry) + 1;
  }
  size_t len = (size_t)(at - buf);
  int fd = memfd_create("nve-conform-request", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  int ok = fd >= 0;
  for (size_t done = 0; ok && done < len;) {
    ssize_t w = write(fd, buf + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    ok = w > 0;
    done += ok ? (size_t)w : 0;
  }
  free(buf);
  /* Sealed: what the harness asked for is what the server reads. */
  if (!ok || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  return fd;
}

/* Sends the request's descriptors; 0, or -1 with errno. */
static int send_request(int server, const int *fds)
{
  union {
    char buf[CMSG_SPACE(sizeof(int) * NC_SANDBOX_REQ_FDS)];
    struct cmsghdr align;
  } ctl;
  memset(&ctl, 0, sizeof(ctl));
  unsigned magic = NC_SANDBOX_REQ_MAGIC;
  struct iovec iov = {&magic, sizeof(magic)};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                       .msg_controllen = sizeof(ctl.buf)};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * NC_SANDBOX_REQ_FDS);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * NC_SANDBOX_REQ_FDS);
  ssize_t sent;
  while ((sent = sendmsg(server, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
    ;
  return sent == (ssize_t)sizeof(magic) ? 0 : -1;
}

/* Reads how the case ended; 0, or -1 at end of file (nothing was said). */
static int read_end(int fd, nc_sandbox_ended *end)
{
  size_t got = 0;
  while (got < sizeof(*end)) {
    ssize_t r = read(fd, (char *)end + got, sizeof(*end) - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    got += (size_t)r;
  }
  return 0;
}

int nc_sandbox_start(int server, int request, int out, int channel, int page, int config,
                     int key, int *status_fd, int *life_fd)
{
  int status[2], life[2] = {-1, -1};
  if (pipe2(status, O_CLOEXEC) != 0)
    return -1;
  if (pipe2(life, O_CLOEXEC) != 0) {
    int e = errno;
    close(status[0]);
    close(status[1]);
    errno = e;
    return -1;
  }
  /* A descriptor the harness could not make goes as /dev/null: the case
   * says what it misses. */
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int fds[NC_SANDBOX_REQ_FDS] = {out >= 0 ? out : null, status[1], life[0], channel,
                                 page >= 0 ? page : null, config >= 0 ? config : null, key,
                                 request};
  int sent = send_request(server, fds);
  int e = errno;
  /* The server holds its copies now: the case's ends go from here. */
  close(status[1]);
  close(life[0]);
  if (null >= 0)
    close(null);
  if (sent != 0) {
    close(status[0]);
    close(life[1]);
    errno = e;
    return -1;
  }
  *status_fd = status[0];
  *life_fd = life[1];
  return 0;
}

int nc_sandbox_read_end(int status_fd, int *status, char *why, size_t len)
{
  nc_sandbox_ended end;
  if (read_end(status_fd, &end) != 0) {
    snprintf(why, len, "its handler in the sandbox ended before the case (killed?)");
    return -1;
  }
  if (end.who == 2) {
    snprintf(why, len, "the run's case server could not start it: %s", strerror(end.status));
    return -1;
  }
  if (end.who == 0 || (WIFEXITED(end.status) && WEXITSTATUS(end.status) == NC_CHILD_EXIT_NO_RUNNER)) {
    *status = end.status; /* the case's end, or the init said why on the channel */
    return 0;
  }
  snprintf(why, len, "the namespace's init ended before the case (%s %d)",
           WIFSIGNALED(end.status) ? "signal" : "exit status",
           WIFSIGNALED(end.status) ? WTERMSIG(end.status) : WEXITSTATUS(end.status));
  return -1;
}

/* Starts the case server on one end of a socket pair, its stderr on
 * err_fd; 0, or -1 with why. */
static int start_server(nc_sandbox *sb, int err_fd, char *why, size_t len)
{
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    snprintf(why, len, "cannot create a socket pair: %s", strerror(errno));
    return -1;
  }
  char parent[24];
  snprintf(parent, sizeof(parent), "%d", (int)getpid());
  char *argv[8 + 2 * NC_SANDBOX_MAX_RW];
  size_t n = 0;
  argv[n++] = sb->launcher;
  argv[n++] = NC_SANDBOX_ARG;
  argv[n++] = "--parent";
  argv[n++] = parent;
  argv[n++] = "--scratch";
  argv[n++] = sb->scratch;
  for (size_t i = 0; i < sb->nrw; i++) {
    argv[n++] = "--rw";
    argv[n++] = sb->rw[i];
  }
  argv[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  posix_spawn_file_actions_adddup2(&fa, sv[1], NC_SANDBOX_SERVER_FD);
  /* The run's mark (contain.h) in its environment, which every process
   * forked from it shows: a case left behind is found as any other. */
  char mark[64], **envp = nc_marked_environment(mark, sizeof(mark), NULL);
  pid_t pid;
  int rc = envp ? posix_spawn(&pid, sb->launcher, &fa, NULL, argv, envp) : ENOMEM;
  free(envp);
  posix_spawn_file_actions_destroy(&fa);
  close(sv[1]);
  if (rc != 0) {
    close(sv[0]);
    snprintf(why, len, "cannot start %.300s: %s", sb->launcher, strerror(rc));
    return -1;
  }
  sb->server_fd = sv[0];
  sb->server_pid = pid;
  nc_contain_known_child(pid); /* the run's, not an orphan of a case */
  return 0;
}

/* Whether fd has something to read within ms. */
static int readable_within(int fd, int ms)
{
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int r;
  while ((r = poll(&p, 1, ms)) < 0 && errno == EINTR)
    ;
  return r == 1;
}

/* Starts the server and asks it for the probe: every step a case's
 * sandbox takes, then the case process ends. 0 with what the server said
 * in why (empty, or how it built the mounts), or -1 with its reason (the
 * server is stopped). */
static int probe(nc_sandbox *sb, char *why, size_t len)
{
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) {
    snprintf(why, len, "cannot create a pipe: %s", strerror(errno));
    return -1;
  }
  /* The server must be reapable by its pid, whatever SIGCHLD was. */
  struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
  sigaction(SIGCHLD, &dfl, &old);
  int started = start_server(sb, err[1], why, len);
  sigaction(SIGCHLD, &old, NULL);
  if (started != 0) {
    close(err[0]);
    close(err[1]);
    return -1;
  }
  /* The probe is a request as a case's, its words on the error pipe. */
  int request = nc_sandbox_request(1, "", NULL, NULL), status = -1, life = -1;
  int sent = request >= 0 ? nc_sandbox_start(sb->server_fd, request, err[1], err[1], -1, -1,
                                             err[1], &status, &life)
                          : -1;
  if (request >= 0)
    close(request);
  close(err[1]); /* the server holds what it was sent */
  nc_sandbox_ended end = {1, 0};
  int answered = 0, timed_out = 0;
  if (sent == 0) {
    if (readable_within(status, PROBE_TIMEOUT_MS))
      answered = read_end(status, &end) == 0;
    else
      timed_out = 1;
    close(status);
    close(life); /* a probe still running is killed now */
  }
  /* What the server and the probe said, on the way to their end. */
  char msg[512];
  size_t got = 0;
  while (got < sizeof(msg) - 1 && readable_within(err[0], answered ? 0 : 200)) {
    ssize_t r = read(err[0], msg + got, sizeof(msg) - 1 - got);
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  close(err[0]);
  msg[got] = '\0';
  /* The server's note on how it made the mounts comes before any failure
   * of the steps after it. */
  size_t note = strlen(NC_SANDBOX_REMOUNTED);
  int remounted = strncmp(msg, NC_SANDBOX_REMOUNTED "\n", note + 1) == 0;
  if (remounted)
    memmove(msg, msg + note + 1, strlen(msg + note + 1) + 1);
  char *nl = strchr(msg, '\n');
  if (nl)
    *nl = '\0';
  if (answered && end.who == 0 && WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0) {
    snprintf(why, len, "%s", remounted ? NC_SANDBOX_REMOUNTED : "");
    return 0;
  }
  if (timed_out)
    snprintf(why, len, "setting it up took more than %d s", PROBE_TIMEOUT_MS / 1000);
  else if (msg[0])
    snprintf(why, len, "%s", msg);
  else if (!answered)
    snprintf(why, len, "its case server ended before the probe");
  else if (WIFSIGNALED(end.status))
    snprintf(why, len, "its set-up ended with signal %d", WTERMSIG(end.status));
  else
    snprintf(why, len, "its set-up failed (exit status %d)", WEXITSTATUS(end.status));
  nc_sandbox_end(sb);
  return -1;
}

void nc_sandbox_end(nc_sandbox *sb)
{
  if (sb->server_fd >= 0)
    close(sb->server_fd); /* the server ends at end of file */
  sb->server_fd = -1;
  if (sb->server_pid <= 0)
    return;
  /* A moment to end by itself (a coverage build writes its counters),
   * then killed. */
  for (int i = 0; i < 100; i++) {
    pid_t w = waitpid(sb->server_pid, NULL, WNOHANG);
    if (w == sb->server_pid || (w < 0 && errno != EINTR)) {
      sb->server_pid = 0;
      return;
    }
    struct timespec tick = {0, 10 * 1000 * 1000};
    nanosleep(&tick, NULL);
  }
  kill(sb->server_pid, SIGKILL);
  while (waitpid(sb->server_pid, NULL, 0) < 0 && errno == EINTR)
    ;
  sb->server_pid = 0;
}

int nc_sandbox_begin(nc_sandbox *sb, int mode, int in_process, const char *launcher,
                     const char *scratch, const char *const *rw, char *err, size_t errlen)
{
  memset(sb, 0, sizeof(*sb));
  sb->server_fd = -1;
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
