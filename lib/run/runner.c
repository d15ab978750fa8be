/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "contain.h"
#include "coverage.h"
#include "nve_conform.h"
#include "sandbox.h"
#include "silence.h"
#include "trace.h"

#define OUTPUT_TAIL 4096

/* The process groups of the cases running now (several with --jobs), for
 * nc_abort_running_case and the orphan sweep, and the run's scratch
 * directory. A slot is taken under live_lock together with the fork, so the
 * sweep never sees a running case that is not yet listed. */
#define LIVE_SLOTS NC_RUNNER_MAX_JOBS
static volatile sig_atomic_t live_pgid[LIVE_SLOTS];
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static char scratch_dir[4096];
static volatile sig_atomic_t scratch_set;

void nc_runner_scratch(const char *dir)
{
  scratch_set = 0;
  if (dir && dir[0] && strlen(dir) < sizeof(scratch_dir)) {
    memcpy(scratch_dir, dir, strlen(dir) + 1);
    scratch_set = 1;
  }
}

/* Empties and removes the scratch directory with system calls only (this
 * runs in a signal handler). */
static void remove_scratch(void)
{
  if (!scratch_set)
    return;
  int dir = open(scratch_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
      for (long at = 0; at < n;) {
        /* struct linux_dirent64: ino, off, reclen, type, name */
        unsigned short reclen;
        memcpy(&reclen, buf + at + 16, sizeof(reclen));
        const char *name = buf + at + 19;
        if (name[0] != '.' && unlinkat(dir, name, 0) != 0)
          unlinkat(dir, name, AT_REMOVEDIR); /* the cases' TMPDIR mount point */
        at += reclen;
      }
    close(dir);
  }
  rmdir(scratch_dir);
  scratch_set = 0;
}

void nc_runner_remove_scratch(void) { remove_scratch(); }

static volatile sig_atomic_t interrupted_by;

void nc_interrupt_run(int signo)
{
  interrupted_by = signo;
  for (int i = 0; i < LIVE_SLOTS; i++) {
    pid_t pgid = (pid_t)live_pgid[i];
    if (pgid > 0)
      kill(-pgid, SIGKILL);
  }
}

int nc_run_interrupted(void) { return (int)interrupted_by; }

void nc_run_interrupt_clear(void) { interrupted_by = 0; }

void nc_abort_running_case(void)
{
  for (int i = 0; i < LIVE_SLOTS; i++) {
    pid_t pgid = (pid_t)live_pgid[i];
    if (pgid > 0)
      kill(-pgid, SIGKILL);
  }
  remove_scratch();
  nc_write_file_abort();
}

double nc_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void nc_sleep(double seconds)
{
  if (!(seconds > 0))
    return;
  struct timespec left = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&left, &left) != 0 && errno == EINTR)
    ;
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

/* Takes the complete records; with a key, only those that carry it (their
 * tag "KEY:TAG" becomes TAG), and the others are counted as forged. */
static void drain(nc_record_reader *reader, nc_child_result *r, const char *key)
{
  nc_record rec;
  size_t klen = strlen(key);
  while (nc_record_reader_next(reader, &rec)) {
    if (klen) {
      if (strncmp(rec.tag, key, klen) != 0 || rec.tag[klen] != ':') {
        r->forged++;
        nc_record_clear(&rec);
        continue;
      }
      memmove(rec.tag, rec.tag + klen + 1, strlen(rec.tag + klen + 1) + 1);
    }
    if (keep_record(r, &rec) != 0)
      nc_record_clear(&rec);
  }
}

/* A fresh random key for a child's records. */
static void make_key(char *key, size_t len)
{
  unsigned char raw[12] = {0};
  if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
    /* a weaker key still beats none: time and pid */
    uint64_t t = (uint64_t)(nc_now() * 1e9) ^ ((uint64_t)getpid() << 40);
    memcpy(raw, &t, sizeof(t));
  }
  size_t at = 0;
  for (size_t i = 0; i < sizeof(raw) && at + 3 <= len; i++)
    at += (size_t)snprintf(key + at, len - at, "%02x", raw[i]);
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

int nc_park_high(int fd)
{
  struct rlimit rl;
  int floor = 200;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 64)
    floor = (int)(rl.rlim_cur > 1024 ? 1000 : rl.rlim_cur - 24);
  int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
  if (high < 0)
    return fd;
  close(fd);
  return high;
}

/* What one spawn needs on both sides of fork. */
typedef struct spawn {
  int fds[2];    /* the result channel */
  int outfd;     /* captured stdout and stderr */
  int page_fd;   /* the shared callback page (a memfd) */
  char *page;    /* its mapping here */
  int own_group;
  int slot;       /* its entry in live_pgid, or -1 */
  char key[NC_TRACE_KEY_MAX]; /* what the child's records carry */
  sigset_t saved; /* the signal mask before the fork */
} spawn;

static int spawn_prepare(spawn *s, char *err, size_t errlen)
{
  memset(s, 0, sizeof(*s));
  s->fds[0] = s->fds[1] = s->outfd = s->page_fd = s->slot = -1;
  /* A forked child writes with this process's key (it shares its records'
   * path up); a process without one makes one. */
  if (nc_trace_key()[0])
    snprintf(s->key, sizeof(s->key), "%s", nc_trace_key());
  else
    make_key(s->key, sizeof(s->key));
  if (pipe2(s->fds, O_CLOEXEC) != 0) {
    snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
    return -1;
  }
  s->outfd = capture_file();
  s->page_fd = memfd_create("nve-conform-callback", MFD_CLOEXEC);
  if (s->page_fd >= 0 && ftruncate(s->page_fd, NC_TRACE_PHASE_MAX) == 0)
    s->page = mmap(NULL, NC_TRACE_PHASE_MAX, PROT_READ | PROT_WRITE, MAP_SHARED, s->page_fd, 0);
  if (s->page == MAP_FAILED)
    s->page = NULL;
  /* Whatever disposition plugin code left for SIGCHLD, the child must be
   * reapable by its pid. */
  signal(SIGCHLD, SIG_DFL);
  fflush(NULL); /* a plugin calling exit() must not replay our buffers */
  return 0;
}

static void spawn_release(spawn *s)
{
  if (s->fds[0] >= 0)
    close(s->fds[0]);
  if (s->fds[1] >= 0)
    close(s->fds[1]);
  if (s->outfd >= 0)
    close(s->outfd);
  if (s->page)
    munmap(s->page, NC_TRACE_PHASE_MAX);
  if (s->page_fd >= 0)
    close(s->page_fd);
}

/* The child's side of both kinds: its group, default signal handling,
 * stdin from /dev/null, stdout and stderr to the capture file. */
static void child_setup(const spawn *s)
{
  if (s->own_group)
    setpgid(0, 0);
  const int defaults[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGCHLD};
  for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
    signal(defaults[i], SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  sigprocmask(SIG_SETMASK, &s->saved, NULL);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) {
    dup2(devnull, 0);
    close(devnull);
  }
  if (s->outfd >= 0) {
    dup2(s->outfd, 1);
    dup2(s->outfd, 2);
  }
}

/* Forks with the interrupting signals blocked, so that the child's group
 * is recorded before a Ctrl-C can ask for it to be killed. Returns the pid
 * (0 in the child), or -1 with err set. */
static pid_t spawn_fork(spawn *s, char *err, size_t errlen)
{
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, &s->saved);
  pthread_mutex_lock(&live_lock);
  pid_t pid = fork();
  if (pid < 0) {
    pthread_mutex_unlock(&live_lock);
    pthread_sigmask(SIG_SETMASK, &s->saved, NULL);
    snprintf(err, errlen, "cannot fork: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) { /* the forking thread held it: the child's copy is its own to release */
    pthread_mutex_unlock(&live_lock);
    return 0;
  }
  if (s->own_group)
    setpgid(pid, pid); /* also here, so the kill below cannot race the child */
  for (int i = 0; i < LIVE_SLOTS; i++)
    if (live_pgid[i] == 0) {
      live_pgid[i] = pid;
      s->slot = i;
      break;
    }
  pthread_mutex_unlock(&live_lock);
  pthread_sigmask(SIG_SETMASK, &s->saved, NULL);
  close(s->fds[1]);
  s->fds[1] = -1;
  return pid;
}

/* Waits for pid, resuming after signals; 0 with *status, or -1 when the
 * child was reaped elsewhere (its status is lost). */
static int wait_for(pid_t pid, int *status, int options)
{
  for (;;) {
    pid_t w = waitpid(pid, status, options | __WALL);
    if (w == pid)
      return 0;
    if (w == 0)
      return 1; /* WNOHANG: still running */
    if (errno != EINTR)
      return -1;
  }
}

/* Where supervise has looked in the reader's bytes: up to scanned, and
 * the line that began at line. Records are taken only after the child
 * ends, so the bytes stay where they are until then. */
typedef struct channel_scan {
  size_t scanned, line;
} channel_scan;

/* Whether the bytes fed since the last look complete a line that is a
 * record with the key (any line when the child has no key of its own: a
 * fork that shares its parent's): 0 none, 1 records, 2 the latest with
 * an announcement (a BEAT with seconds, in *allowance). Each byte is
 * looked at once. */
static int keyed_progress(const nc_record_reader *r, channel_scan *at, const char *key,
                          double cap_s, double *allowance)
{
  int progress = 0;
  for (size_t i = at->scanned; i < r->len; i++)
    if (r->buf[i] == '\n') {
      const char *line = r->buf + at->line;
      size_t len = i - at->line;
      if (!key[0] || nc_record_line_keyed(line, len, key)) {
        double announced = nc_silence_allowance(line, len, strlen(key), cap_s);
        if (announced > 0) {
          *allowance = announced;
          progress = 2;
        } else if (!progress) {
          progress = 1;
        }
      }
      at->line = i + 1;
    }
  at->scanned = r->len;
  return progress;
}

/* What supervise waits for: a child of this process (pid), or a case the
 * sandbox's server runs (status_fd says how it ended, closing life_fd
 * ends it). */
typedef struct waiter {
  pid_t pid;
  int status_fd, life_fd;
  int channel; /* the channel's write end, for the harness's own words */
  const char *key;
} waiter;

/* The harness's error on the case's channel, as the case would have sent
 * it: the case is ERROR "could not check", never the plugin's verdict. */
static void harness_words(const waiter *w, const char *what, const char *why)
{
  const char *f[] = {"error", "harness", what, why};
  char tag[NC_TRACE_KEY_MAX + 8];
  snprintf(tag, sizeof(tag), "%s:CHECK", w->key);
  nc_record_write(w->channel, tag, 4, f);
}

/* Whether it ended: 0 with *status, 1 still running (WNOHANG), -1 when
 * its status is lost. */
static int wait_end(waiter *w, int *status, int options)
{
  if (w->pid > 0)
    return wait_for(w->pid, status, options);
  if (options & WNOHANG) {
    struct pollfd p = {.fd = w->status_fd, .events = POLLIN};
    if (poll(&p, 1, 0) != 1)
      return 1;
  }
  char why[300];
  if (nc_sandbox_read_end(w->status_fd, status, why, sizeof(why)) != 0) {
    harness_words(w, "the case's sandbox is set up", why);
    *status = NC_CHILD_EXIT_NO_RUNNER << 8;
  }
  return 0;
}

/* Ends it (and whatever it started) and waits until it has ended. */
static int end_it(waiter *w, int *status)
{
  if (w->pid > 0) {
    kill(w->pid, SIGKILL);
    return wait_for(w->pid, status, 0);
  }
  close(w->life_fd); /* the handler kills the namespace's init, then says so */
  w->life_fd = -1;
  nc_sandbox_ended ignored;
  while (read(w->status_fd, &ignored, sizeof(ignored)) > 0)
    ;
  return -1;
}

/* The parent's side: reads records until the child ends or stays silent
 * past its deadline, then ends it and fills out. */
static void supervise(spawn *s, waiter *wt, double t0, double timeout_s, nc_child_result *out)
{
  nc_record_reader reader;
  nc_record_reader_init(&reader);
  /* The timeout is for silence: a case that reports progress (a failure
   * sweep runs many short calls) gets more time, up to a hard cap. */
  double cap = t0 + timeout_s * NC_RUNNER_CAP_FACTOR + NC_RUNNER_CAP_EXTRA_S;
  nc_silence quiet;
  nc_silence_start(&quiet, t0, timeout_s, cap);
  double sampled = 0;
  int status = 0, reaped = 0, lost = 0, open_pipe = 1;
  size_t received = 0;
  channel_scan scan = {0, 0};
  while (!reaped) {
    double now = nc_now();
    nc_load load;
    int sample = now - sampled >= 0.05 && nc_load_now(&load) == 0;
    sampled = sample ? now : sampled;
    double left = nc_silence_left(&quiet, now, sample ? &load : NULL);
    if (left <= 0) {
      out->timed_out = 1;
      break;
    }
    if (wt->pid <= 0 && nc_run_interrupted())
      break; /* ended below: the interruption's kill reaches no sandboxed case */
    if (open_pipe) {
      /* The sandbox's status too: this process holds the channel's write
       * end there, so its end of file does not say the case ended. */
      struct pollfd pfd[2] = {{.fd = s->fds[0], .events = POLLIN},
                              {.fd = wt->pid > 0 ? -1 : wt->status_fd, .events = POLLIN}};
      int ms = left > 0.05 ? 50 : (int)(left * 1000) + 1;
      if (poll(pfd, 2, ms) > 0 && pfd[0].revents) {
        char buf[8192];
        ssize_t n = read(s->fds[0], buf, sizeof(buf));
        if (n > 0) {
          received += (size_t)n;
          if (received > NC_RUNNER_CHANNEL_MAX) { /* the harness never sends that much */
            out->flooded = 1;
            break;
          }
          nc_record_reader_feed(&reader, buf, (size_t)n);
          /* Progress is a whole record carrying the case's key, not any
           * byte or line: plugin code can write lines, not keyed records. */
          double allowance = 0;
          int progress = keyed_progress(&reader, &scan, s->key, cap - t0, &allowance);
          if (progress == 2)
            nc_silence_progress(&quiet, nc_now(), allowance);
          else if (progress)
            nc_silence_touch(&quiet, nc_now());
        } else if (n == 0 || errno != EINTR) {
          open_pipe = 0;
        }
      }
    } else {
      nc_sleep(0.002);
    }
    int w = wait_end(wt, &status, WNOHANG);
    if (w <= 0) {
      reaped = 1;
      lost = w < 0;
    }
  }
  /* Take whatever is still buffered, then end the group: plugin code may
   * have left processes behind. (In the sandbox, the namespace's init took
   * them with it.) */
  if (s->own_group && wt->pid > 0)
    kill(-wt->pid, SIGKILL);
  if (!reaped)
    lost = end_it(wt, &status) < 0;
  /* Reaped: the orphan sweep may now treat what is left as orphans. */
  if (s->slot >= 0) {
    pthread_mutex_lock(&live_lock);
    live_pgid[s->slot] = 0;
    pthread_mutex_unlock(&live_lock);
  }
  if (open_pipe && !out->flooded) {
    fcntl(s->fds[0], F_SETFL, O_NONBLOCK);
    char buf[8192];
    ssize_t n;
    while (received <= NC_RUNNER_CHANNEL_MAX && (n = read(s->fds[0], buf, sizeof(buf))) > 0) {
      received += (size_t)n;
      nc_record_reader_feed(&reader, buf, (size_t)n);
    }
  }
  out->seconds = nc_now() - t0;
  drain(&reader, out, s->key);
  nc_record_reader_free(&reader);
  if (!out->timed_out && !lost) {
    if (WIFSIGNALED(status))
      out->signo = WTERMSIG(status);
    else if (WIFEXITED(status))
      out->exit_code = WEXITSTATUS(status);
  }
  if (s->outfd >= 0)
    out->output = read_tail(s->outfd);
  if (s->page)
    snprintf(out->phase, sizeof(out->phase), "%.*s", NC_TRACE_PHASE_MAX - 1, s->page);
}

static int run_in_process(nc_child_body body, void *arg, nc_child_result *out, char *err,
                          size_t errlen)
{
  int fd = capture_file();
  if (fd < 0) {
    snprintf(err, errlen, "cannot create a temporary file: %s", strerror(errno));
    return -1;
  }
  double t0 = nc_now();
  nc_trace_start(fd, NULL);
  body(arg);
  nc_trace_record("END", 0, NULL);
  nc_trace_start(-1, NULL);
  out->seconds = nc_now() - t0;
  nc_record_reader reader;
  nc_record_reader_init(&reader);
  char buf[8192];
  ssize_t n;
  off_t off = 0;
  while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
    nc_record_reader_feed(&reader, buf, (size_t)n);
    off += n;
  }
  drain(&reader, out, nc_trace_key());
  nc_record_reader_free(&reader);
  close(fd);
  return 0;
}

int nc_run_isolated(nc_child_body body, void *arg, double timeout_s, int in_process,
                    int own_group, nc_child_result *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof(*out));
  out->exit_code = -1;
  if (in_process)
    return run_in_process(body, arg, out, err, errlen);
  spawn s;
  if (spawn_prepare(&s, err, errlen) != 0)
    return -1;
  s.own_group = own_group;
  double t0 = nc_now();
  pid_t pid = spawn_fork(&s, err, errlen);
  if (pid < 0) {
    spawn_release(&s);
    return -1;
  }
  if (pid == 0) {
    child_setup(&s);
    close(s.fds[0]);
    nc_trace_set_key(s.key);
    nc_trace_start(nc_park_high(s.fds[1]), s.page);
    body(arg);
    nc_trace_record("END", 0, NULL);
    nc_coverage_flush();
    _exit(nc_trace_channel_lost() ? NC_CHILD_EXIT_CHANNEL_LOST : 0);
  }
  waiter w = {pid, -1, -1, -1, s.key};
  supervise(&s, &w, t0, timeout_s, out);
  spawn_release(&s);
  return 0;
}

/* Closes every descriptor from lowest up, so that an exec'd runner
 * inherits only what it is given. */
static void close_from(int lowest)
{
#ifdef SYS_close_range
  if (syscall(SYS_close_range, (unsigned)lowest, ~0u, 0) == 0)
    return;
#endif
  struct rlimit rl;
  int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
  for (int fd = lowest; fd < top; fd++)
    close(fd);
}

/* Whether entry ("NAME=value") sets the variable that var ("NAME=...")
 * names. */
static int same_variable(const char *entry, const char *var)
{
  const char *eq = strchr(var, '=');
  size_t len = eq ? (size_t)(eq - var) + 1 : strlen(var);
  return strncmp(entry, var, len) == 0;
}

/* The environment of a case runner: this process's, with the run's mark
 * (contain.h) in place of any earlier one, and the extra variables. Built
 * before fork: the child of a threaded program must not allocate. NULL
 * when out of memory. */
char **nc_marked_environment(char *mark, size_t marklen, char *const *extra)
{
  extern char **environ;
  size_t n = 0, nextra = 0;
  while (environ[n])
    n++;
  while (extra && extra[nextra])
    nextra++;
  char **envp = malloc((n + nextra + 2) * sizeof(char *)); /* the mark, then NULL */
  if (!envp)
    return NULL;
  snprintf(mark, marklen, "%s=%d", NC_CASE_MARK, (int)getpid());
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int replaced = same_variable(environ[i], mark);
    for (size_t x = 0; x < nextra && !replaced; x++)
      replaced = same_variable(environ[i], extra[x]);
    if (!replaced)
      envp[k++] = environ[i];
  }
  for (size_t x = 0; x < nextra; x++)
    envp[k++] = extra[x];
  envp[k++] = mark;
  envp[k] = NULL;
  return envp;
}

/* The case handed to the sandbox's server: no process of this one's, so
 * no fork of the (threaded, perhaps large) harness per case. */
static int run_in_sandbox(spawn *s, int server, char *const *argv, char *const *envp,
                          int config_fd, int key_fd, double timeout_s, nc_child_result *out,
                          char *err, size_t errlen)
{
  int request = nc_sandbox_request(0, s->key, argv, envp);
  if (request < 0) {
    snprintf(err, errlen, "cannot write the case's request to the sandbox (its command line "
                          "and environment, at most %u MiB): %s",
             NC_SANDBOX_REQ_MAX >> 20, strerror(errno));
    return -1;
  }
  double t0 = nc_now();
  waiter w = {0, -1, -1, s->fds[1], s->key};
  int started = nc_sandbox_start(server, request, s->outfd, s->fds[1], s->page_fd, config_fd,
                                 key_fd, &w.status_fd, &w.life_fd);
  int e = errno;
  close(request);
  if (started != 0) {
    snprintf(err, errlen, "cannot hand the case to the sandbox's case server: %s", strerror(e));
    return -1;
  }
  supervise(s, &w, t0, timeout_s, out);
  close(w.status_fd);
  if (w.life_fd >= 0)
    close(w.life_fd);
  return 0;
}

int nc_run_program(char *const *argv, char *const *env_extra, int config_fd, int sandbox_server,
                   double timeout_s, nc_child_result *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof(*out));
  out->exit_code = -1;
  spawn s;
  if (spawn_prepare(&s, err, errlen) != 0)
    return -1;
  make_key(s.key, sizeof(s.key)); /* a fresh one for every case process */
  char mark[64];
  char **envp = nc_marked_environment(mark, sizeof(mark), env_extra);
  int key_pipe[2] = {-1, -1};
  if (!envp || pipe2(key_pipe, O_CLOEXEC) != 0 ||
      write(key_pipe[1], s.key, strlen(s.key)) != (ssize_t)strlen(s.key)) {
    snprintf(err, errlen, "cannot hand the case its key: %s", envp ? strerror(errno) : "out of memory");
    for (int i = 0; i < 2; i++)
      if (key_pipe[i] >= 0)
        close(key_pipe[i]);
    spawn_release(&s);
    free(envp);
    return -1;
  }
  close(key_pipe[1]); /* the key alone, then end of file */
  if (sandbox_server >= 0) {
    int rc = run_in_sandbox(&s, sandbox_server, argv, envp, config_fd, key_pipe[0], timeout_s,
                            out, err, errlen);
    close(key_pipe[0]);
    spawn_release(&s);
    free(envp);
    return rc;
  }
  s.own_group = 1;
  double t0 = nc_now();
  pid_t harness = getpid();
  pid_t pid = spawn_fork(&s, err, errlen);
  if (pid < 0) {
    close(key_pipe[0]);
    spawn_release(&s);
    free(envp);
    return -1;
  }
  if (pid == 0) {
    child_setup(&s);
    /* The case dies with the harness, even one killed with SIGKILL (which
     * runs no handler): no case outlives the run as an orphan. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != harness)
      _exit(NC_CHILD_EXIT_NO_RUNNER); /* it died before the line above */
    /* The channel and the page above the descriptors they go to, then in
     * place; everything else closed. */
    int channel = fcntl(s.fds[1], F_DUPFD, 10), page = s.page_fd >= 0 ? fcntl(s.page_fd, F_DUPFD, 10) : -1;
    int config = config_fd >= 0 ? fcntl(config_fd, F_DUPFD, 10) : -1;
    int key_fd = fcntl(key_pipe[0], F_DUPFD, 10);
    dup2(channel, NC_RUNNER_CHANNEL_FD);
    if (page >= 0)
      dup2(page, NC_RUNNER_PAGE_FD);
    if (config >= 0)
      dup2(config, NC_RUNNER_CONFIG_FD);
    dup2(key_fd, NC_RUNNER_KEY_FD);
    /* None made: nothing of this process's in their places. */
    if (page < 0)
      close(NC_RUNNER_PAGE_FD);
    if (config < 0)
      close(NC_RUNNER_CONFIG_FD);
    close_from(NC_RUNNER_KEY_FD + 1);
    execve(argv[0], argv, envp);
    char why[512];
    snprintf(why, sizeof(why), "cannot start the case runner %s: %s", argv[0], strerror(errno));
    const char *f[] = {"error", "harness", "the case runner starts", why};
    char tag[NC_TRACE_KEY_MAX + 8];
    snprintf(tag, sizeof(tag), "%s:CHECK", s.key);
    nc_record_write(NC_RUNNER_CHANNEL_FD, tag, 4, f);
    _exit(NC_CHILD_EXIT_NO_RUNNER);
  }
  free(envp);
  close(key_pipe[0]);
  waiter w = {pid, -1, -1, -1, s.key};
  supervise(&s, &w, t0, timeout_s, out);
  spawn_release(&s);
  return 0;
}

void nc_runner_reap_orphans(void)
{
  pthread_mutex_lock(&live_lock);
  pid_t keep[LIVE_SLOTS];
  size_t n = 0;
  for (int i = 0; i < LIVE_SLOTS; i++)
    if (live_pgid[i] > 0)
      keep[n++] = (pid_t)live_pgid[i];
  nc_contain_reap_orphans(keep, n);
  pthread_mutex_unlock(&live_lock);
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
  if (cr->flooded)
    snprintf(out, outlen, "wrote more than %zu MiB to the harness's result channel (a "
             "descriptor plugin code does not own); killed", NC_RUNNER_CHANNEL_MAX >> 20);
  else if (cr->timed_out)
    snprintf(out, outlen, "did not return within %g s (hang or deadlock); killed", timeout_s);
  else if (cr->signo)
    snprintf(out, outlen, "crashed with %s (%s)", nc_signal_name(cr->signo), strsignal(cr->signo));
  else if (cr->exit_code == NC_CHILD_EXIT_CHANNEL_LOST)
    snprintf(out, outlen,
             "closed file descriptors it does not own (the harness's result channel)");
  else if (cr->exit_code < 0)
    snprintf(out, outlen, "ended, and its exit status was lost (SIGCHLD ignored?)");
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
