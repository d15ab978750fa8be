/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
/* The fresh-process replayer (explore_fresh.h). The replayer is forked
 * from the case process before its first table and waits on a pipe; each
 * request (the sequence's header, its steps and, when it changed, its key
 * arena) is replayed in a child of its own, whose outcome comes back on
 * another pipe. The
 * replayer itself runs no plugin code, so every child starts from the
 * state the plugin had before the case's first table. */
#include "explore_fresh.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "case_child.h"
#include "cuda.h"
#include "pool.h"
#include "runner.h"
#include "trace.h"

/* The most bytes of steps and keys one request sends (a deep effort's
 * arena may hold tens of millions of keys: not worth copying for this). */
#define FRESH_MAX_BYTES ((size_t)256 << 20)
/* How often the waiting case beats while a replay runs. */
#define FRESH_POLL_MS 100

typedef struct request {
  nc_x_seq q; /* its pointers mean nothing across the pipe */
  uint64_t count;
  uint32_t toggles;
  int32_t alone_slot;
  int32_t arena_follows; /* else the last request's arena */
  /* Replays to make first, in order, each sent after this one's steps
   * and keys as a request (arena_follows set), its steps and its keys. */
  uint32_t nprefix;
} request;

/* A replay made before the request's, in the replayer's memory. */
typedef struct prefix_replay {
  request r;
  nc_x_step *steps;
  int64_t *arena;
} prefix_replay;

typedef struct response {
  int32_t ran; /* 1: fail holds the replay's outcome */
  int32_t before_failed; /* a replay made before it disagreed, or made no table */
  nc_x_failure fail;
} response;

static struct {
  pid_t pid;
  int to, from; /* requests out, responses in */
  /* The arena the replayer holds: the sequence it came with. */
  const int64_t *arena;
  size_t arena_len;
  uint64_t seed;
} replayer = {-1, -1, -1, NULL, 0, 0};
/* A replay hung or its replayer died: the case has none from then on. */
static int replayer_lost;

/* Moves all len bytes of buf to fd (out) or from it: 0, or -1 at an
 * error or the end of the pipe. */
static int whole(int fd, void *buf, size_t len, int out)
{
  unsigned char *p = buf;
  while (len > 0) {
    ssize_t n = out ? write(fd, p, len) : read(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static int read_all(int fd, void *buf, size_t len) { return whole(fd, buf, len, 0); }
static int write_all(int fd, const void *buf, size_t len)
{
  return whole(fd, (void *)buf, len, 1);
}

/* In the child of the replayer: the replays before the request's (their
 * outcomes are not the request's), the request's, its outcome on out. */
static void replay_here(nc_case *c, request *r, nc_x_step *steps, int64_t *arena,
                        prefix_replay *before, int out)
{
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  nc_pool_after_fork();
  nc_case_child_forked();
  nc_pool_configure(c->cfg->workers, c->cfg->schedule, c->cfg->seed);
  response res;
  memset(&res, 0, sizeof(res));
  for (uint32_t i = 0; i < r->nprefix; i++) {
    prefix_replay *p = &before[i];
    nc_x_failure f;
    p->r.q.steps = p->steps;
    p->r.q.arena = p->arena;
    if (nc_x_replay(c, &p->r.q, p->steps, (size_t)p->r.count, p->r.toggles, p->r.alone_slot, &f,
                    NULL) != 0 ||
        f.at < (long)p->r.count)
      res.before_failed = 1;
  }
  r->q.steps = steps;
  r->q.arena = arena;
  res.ran = nc_x_replay(c, &r->q, steps, (size_t)r->count, r->toggles, r->alone_slot, &res.fail,
                        NULL) == 0;
  _exit(write_all(out, &res, sizeof(res)) == 0 ? 0 : 1);
}

/* A request's steps and keys, read from in: malloc'd, or NULL. */
static nc_x_step *read_steps(int in, const request *r)
{
  nc_x_step *steps = malloc((r->count ? (size_t)r->count : 1) * sizeof(*steps));
  if (steps && read_all(in, steps, (size_t)r->count * sizeof(*steps)) != 0) {
    free(steps);
    return NULL;
  }
  return steps;
}

static int64_t *read_arena(int in, const request *r)
{
  int64_t *arena = malloc((r->q.arena_len ? r->q.arena_len : 1) * sizeof(*arena));
  if (arena && read_all(in, arena, r->q.arena_len * sizeof(*arena)) != 0) {
    free(arena);
    return NULL;
  }
  return arena;
}

/* The replayer's loop: a request, a child that replays it, its outcome
 * (a child that ended without one: not run). */
static void serve(nc_case *c, int in, int out)
{
  int64_t *arena = NULL;
  for (;;) {
    request r;
    if (read_all(in, &r, sizeof(r)) != 0)
      _exit(0); /* the case is gone */
    nc_x_step *steps = read_steps(in, &r);
    if (!steps)
      _exit(0);
    if (r.arena_follows) {
      free(arena);
      if (!(arena = read_arena(in, &r)))
        _exit(0);
    }
    prefix_replay *before = calloc(r.nprefix ? r.nprefix : 1, sizeof(*before));
    if (!before)
      _exit(0);
    for (uint32_t i = 0; i < r.nprefix; i++) {
      prefix_replay *p = &before[i];
      if (read_all(in, &p->r, sizeof(p->r)) != 0 ||
          !(p->steps = read_steps(in, &p->r)) || !(p->arena = read_arena(in, &p->r)))
        _exit(0);
    }
    response res;
    memset(&res, 0, sizeof(res));
    int got[2];
    if (pipe2(got, O_CLOEXEC | O_NONBLOCK) == 0) {
      pid_t child = fork();
      if (child == 0) {
        close(in);
        close(out);
        close(got[0]);
        replay_here(c, &r, steps, arena, before, got[1]);
      }
      close(got[1]);
      int ws = 0;
      while (child > 0 && waitpid(child, &ws, 0) < 0 && errno == EINTR)
        ;
      /* Non-blocking: a process the plugin forked may hold the other end. */
      if (child <= 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0 ||
          read(got[0], &res, sizeof(res)) != (ssize_t)sizeof(res))
        memset(&res, 0, sizeof(res));
      close(got[0]);
    }
    free(steps);
    for (uint32_t i = 0; i < r.nprefix; i++) {
      free(before[i].steps);
      free(before[i].arena);
    }
    free(before);
    if (write_all(out, &res, sizeof(res)) != 0)
      _exit(0);
  }
}

void nc_x_fresh_start(nc_case *c)
{
  if (replayer.pid > 0 || c->cfg->no_fork || (nc_cuda_loaded() && !nc_cuda_simulated()))
    return;
  int req[2], res[2];
  if (pipe2(req, O_CLOEXEC) != 0)
    return;
  if (pipe2(res, O_CLOEXEC) != 0) {
    close(req[0]);
    close(req[1]);
    return;
  }
  /* No helper of the services pool runs at the fork: a thread inside an
   * allocator that does not prepare for fork (AddressSanitizer's) would
   * leave its lock taken in the replayer, and every replay would hang. */
  nc_pool_configure(c->cfg->workers, NC_SCHEDULE_INLINE, c->cfg->seed);
  pid_t parent = getpid(), pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(0);
    close(req[1]);
    close(res[0]);
    /* Nothing of the replays reaches the case's channel or its callback
     * page: the case reads only the statuses. */
    nc_trace_start(-1, NULL);
    serve(c, req[0], res[1]);
  }
  nc_pool_configure(c->cfg->workers, c->cfg->schedule, c->cfg->seed);
  close(req[0]);
  close(res[1]);
  if (pid < 0) {
    close(req[1]);
    close(res[0]);
    return;
  }
  replayer.pid = pid;
  replayer.to = req[1];
  replayer.from = res[0];
}

/* After a failure to talk to it: no more fresh replays in this case. */
static int give_up(void)
{
  kill(replayer.pid, SIGKILL);
  while (waitpid(replayer.pid, NULL, 0) < 0 && errno == EINTR)
    ;
  close(replayer.to);
  close(replayer.from);
  replayer.pid = replayer.to = replayer.from = -1;
  replayer_lost = 1;
  return -1;
}

int nc_x_fresh_available(void) { return replayer.pid > 0; }

int nc_x_fresh_lost(void) { return replayer_lost; }

static size_t bytes_of(const nc_x_seq *q, size_t count)
{
  return count * sizeof(nc_x_step) + q->arena_len * sizeof(*q->arena);
}

int nc_x_fresh_fits(const nc_x_seq *q, size_t count) { return bytes_of(q, count) <= FRESH_MAX_BYTES; }

/* Sends the replays to make before the request's. 0, or -1. */
static int send_prefix(const nc_x_segment *before, size_t nbefore)
{
  for (size_t i = 0; i < nbefore; i++) {
    const nc_x_segment *p = &before[i];
    request r;
    memset(&r, 0, sizeof(r));
    r.q = p->q;
    r.q.steps = NULL;
    r.q.arena = NULL;
    r.count = p->count;
    r.toggles = p->toggles;
    r.alone_slot = p->alone_slot;
    r.arena_follows = 1;
    if (write_all(replayer.to, &r, sizeof(r)) != 0 ||
        write_all(replayer.to, p->steps, p->count * sizeof(*p->steps)) != 0 ||
        write_all(replayer.to, p->q.arena, p->q.arena_len * sizeof(*p->q.arena)) != 0)
      return -1;
  }
  return 0;
}

int nc_x_fresh_replay(const nc_x_seq *q, const nc_x_step *steps, size_t count, unsigned toggles,
                      int alone_slot, double deadline, nc_x_failure *fail)
{
  return nc_x_fresh_replay_after(NULL, 0, q, steps, count, toggles, alone_slot, deadline, fail);
}

int nc_x_fresh_replay_after(const nc_x_segment *before, size_t nbefore, const nc_x_seq *q,
                            const nc_x_step *steps, size_t count, unsigned toggles,
                            int alone_slot, double deadline, nc_x_failure *fail)
{
  size_t bytes = bytes_of(q, count);
  for (size_t i = 0; i < nbefore; i++)
    bytes += bytes_of(&before[i].q, before[i].count);
  if (replayer.pid <= 0 || bytes > FRESH_MAX_BYTES)
    return -1;
  request r;
  memset(&r, 0, sizeof(r));
  r.q = *q;
  r.q.steps = NULL;
  r.q.arena = NULL;
  r.count = count;
  r.toggles = toggles;
  r.alone_slot = alone_slot;
  r.arena_follows = replayer.arena != q->arena || replayer.arena_len != q->arena_len ||
                    replayer.seed != q->seed;
  r.nprefix = (uint32_t)nbefore;
  if (write_all(replayer.to, &r, sizeof(r)) != 0 ||
      write_all(replayer.to, steps, count * sizeof(*steps)) != 0 ||
      (r.arena_follows &&
       write_all(replayer.to, q->arena, q->arena_len * sizeof(*q->arena)) != 0) ||
      send_prefix(before, nbefore) != 0)
    return give_up();
  replayer.arena = q->arena;
  replayer.arena_len = q->arena_len;
  replayer.seed = q->seed;
  struct pollfd p = {replayer.from, POLLIN, 0};
  for (;;) {
    nc_trace_beat(0);
    int n = poll(&p, 1, FRESH_POLL_MS);
    if (n > 0)
      break;
    if ((n < 0 && errno != EINTR) || nc_now() > deadline)
      return give_up(); /* its replay hangs: the replayer goes with it */
  }
  response res;
  if (read_all(replayer.from, &res, sizeof(res)) != 0)
    return give_up();
  if (!res.ran)
    return -1;
  *fail = res.fail;
  return res.before_failed ? 1 : 0;
}
