/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nve_conform.h"
#include "trace.h"

#define OUTPUT_TAIL 4096

/* The process group of the case running now, for nc_abort_running_case. */
static volatile sig_atomic_t running_pgid;

void nc_abort_running_case(void)
{
  pid_t pgid = (pid_t)running_pgid;
  if (pgid > 0)
    kill(-pgid, SIGKILL);
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int keep_record(nc_child_result *r, nc_record *rec)
{
  if (r->nrecords == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 32;
    nc_record *p = realloc(r->records, cap * sizeof(*p));
    if (!p)
      return -1;
    r->records = p;
    r->cap = cap;
  }
  r->records[r->nrecords++] = *rec;
  if (strcmp(rec->tag, "END") == 0)
    r->ended = 1;
  return 0;
}

static void drain(nc_record_reader *reader, nc_child_result *r)
{
  nc_record rec;
  while (nc_record_reader_next(reader, &rec))
    if (keep_record(r, &rec) != 0)
      nc_record_clear(&rec);
}

/* A temporary file, already unlinked, for the child's stdout and stderr. */
static int capture_file(void)
{
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof(path), "%s/nve-conform-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkostemp(path, O_CLOEXEC);
  if (fd >= 0)
    unlink(path);
  return fd;
}

static char *read_tail(int fd)
{
  off_t end = lseek(fd, 0, SEEK_END);
  if (end <= 0)
    return NULL;
  off_t start = end > OUTPUT_TAIL ? end - OUTPUT_TAIL : 0;
  char *buf = malloc((size_t)(end - start) + 1);
  if (!buf)
    return NULL;
  ssize_t n = pread(fd, buf, (size_t)(end - start), start);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

/* Moves fd out of the low range that careless plugins close. */
static int park_high(int fd)
{
  struct rlimit rl;
  int floor = 200;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 64)
    floor = (int)(rl.rlim_cur > 1024 ? 1000 : rl.rlim_cur - 24);
  int high = fcntl(fd, F_DUPFD, floor);
  if (high < 0)
    return fd;
  close(fd);
  return high;
}

static void child_main(nc_child_body body, void *arg, int wfd, int outfd, char *phase)
{
  setpgid(0, 0);
  signal(SIGPIPE, SIG_IGN);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) {
    dup2(devnull, 0);
    close(devnull);
  }
  if (outfd >= 0) {
    dup2(outfd, 1);
    dup2(outfd, 2);
  }
  nc_trace_start(park_high(wfd), phase);
  body(arg);
  nc_trace_record("END", 0, NULL);
  _exit(nc_trace_channel_lost() ? NC_CHILD_EXIT_CHANNEL_LOST : 0);
}

static int run_in_process(nc_child_body body, void *arg, nc_child_result *out, char *err,
                          size_t errlen)
{
  int fd = capture_file();
  if (fd < 0) {
    snprintf(err, errlen, "cannot create a temporary file: %s", strerror(errno));
    return -1;
  }
  double t0 = now_s();
  nc_trace_start(fd, NULL);
  body(arg);
  nc_trace_record("END", 0, NULL);
  nc_trace_start(-1, NULL);
  out->seconds = now_s() - t0;
  nc_record_reader reader;
  nc_record_reader_init(&reader);
  char buf[8192];
  ssize_t n;
  off_t off = 0;
  while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
    nc_record_reader_feed(&reader, buf, (size_t)n);
    off += n;
  }
  drain(&reader, out);
  nc_record_reader_free(&reader);
  close(fd);
  return 0;
}

int nc_run_isolated(nc_child_body body, void *arg, double timeout_s, int in_process,
                    nc_child_result *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof(*out));
  out->exit_code = -1;
  if (in_process)
    return run_in_process(body, arg, out, err, errlen);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
    return -1;
  }
  int outfd = capture_file();
  char *phase = mmap(NULL, NC_TRACE_PHASE_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                     -1, 0);
  if (phase == MAP_FAILED)
    phase = NULL;
  fflush(NULL); /* a plugin calling exit() must not replay our buffers */
  double t0 = now_s();
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "cannot fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    if (outfd >= 0)
      close(outfd);
    if (phase)
      munmap(phase, NC_TRACE_PHASE_MAX);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(body, arg, fds[1], outfd, phase);
  }
  setpgid(pid, pid); /* also here, so the kill below cannot race the child */
  running_pgid = pid;
  close(fds[1]);

  nc_record_reader reader;
  nc_record_reader_init(&reader);
  /* The timeout is for silence: a case that reports progress (a failure
   * sweep forks many short calls) gets more time, up to a hard cap. */
  double deadline = t0 + timeout_s;
  double cap = t0 + timeout_s * NC_RUNNER_CAP_FACTOR + NC_RUNNER_CAP_EXTRA_S;
  int status = 0, reaped = 0, open_pipe = 1;
  while (!reaped) {
    double left = deadline - now_s();
    if (left <= 0) {
      out->timed_out = 1;
      break;
    }
    if (open_pipe) {
      struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
      int ms = left > 0.05 ? 50 : (int)(left * 1000) + 1;
      if (poll(&pfd, 1, ms) > 0) {
        char buf[8192];
        ssize_t n = read(fds[0], buf, sizeof(buf));
        if (n > 0) {
          nc_record_reader_feed(&reader, buf, (size_t)n);
          deadline = now_s() + timeout_s < cap ? now_s() + timeout_s : cap;
        }
        else if (n == 0 || errno != EINTR)
          open_pipe = 0;
      }
    } else {
      usleep(2000);
    }
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      reaped = 1;
  }
  /* Take whatever is still buffered, then end the group: plugin code may
   * have left processes behind. */
  kill(-pid, SIGKILL);
  running_pgid = 0;
  if (!reaped) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  if (open_pipe) {
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    char buf[8192];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
      nc_record_reader_feed(&reader, buf, (size_t)n);
  }
  close(fds[0]);
  out->seconds = now_s() - t0;
  drain(&reader, out);
  nc_record_reader_free(&reader);
  if (!out->timed_out) {
    if (WIFSIGNALED(status))
      out->signo = WTERMSIG(status);
    else if (WIFEXITED(status))
      out->exit_code = WEXITSTATUS(status);
  }
  if (outfd >= 0) {
    out->output = read_tail(outfd);
    close(outfd);
  }
  if (phase) {
    snprintf(out->phase, sizeof(out->phase), "%.*s", NC_TRACE_PHASE_MAX - 1, phase);
    munmap(phase, NC_TRACE_PHASE_MAX);
  }
  return 0;
}

void nc_child_result_free(nc_child_result *r)
{
  for (size_t i = 0; i < r->nrecords; i++)
    nc_record_clear(&r->records[i]);
  free(r->records);
  free(r->output);
  memset(r, 0, sizeof(*r));
}

const nc_record *nc_child_last(const nc_child_result *r, const char *tag)
{
  for (size_t i = r->nrecords; i-- > 0;)
    if (strcmp(r->records[i].tag, tag) == 0)
      return &r->records[i];
  return NULL;
}

/* How a child that did not finish ended, in words. */
void nc_child_describe_end(const nc_child_result *cr, double timeout_s, char *out, size_t outlen)
{
  if (cr->timed_out)
    snprintf(out, outlen, "did not return within %g s (hang or deadlock); killed", timeout_s);
  else if (cr->signo)
    snprintf(out, outlen, "crashed with %s (%s)", nc_signal_name(cr->signo), strsignal(cr->signo));
  else if (cr->exit_code == NC_CHILD_EXIT_CHANNEL_LOST)
    snprintf(out, outlen,
             "closed file descriptors it does not own (the harness's result channel)");
  else
    snprintf(out, outlen, "ended the process with exit status %d (exit() or _exit() called)",
             cr->exit_code);
}

const char *nc_signal_name(int signo)
{
  static _Thread_local char buf[32];
  const char *abbrev = sigabbrev_np(signo);
  snprintf(buf, sizeof(buf), "SIG%s", abbrev ? abbrev : "?");
  return buf;
}
