/* SPDX-License-Identifier: Apache-2.0 */
#include "progress.h"

#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* The most cases that run at once (the runner's job limit). */
#define MAX_RUNNING 64
/* How often the terminal line is redrawn. */
#define TTY_REDRAW_NS 250000000L
/* Rules whose case may end before their turn (more than the catalogue). */
#define MAX_ENDED 256

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void format_elapsed(char *buf, size_t len, double s)
{
  if (s < 60)
    snprintf(buf, len, "%.1f s", s);
  else
    snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

void nc_progress_format(char *buf, size_t len, size_t width, size_t done, size_t total,
                        const char *const *ids, size_t nrunning, double elapsed_s)
{
  if (len == 0)
    return;
  if (width == 0 || width >= len)
    width = len - 1;
  char head[64], tail[48], more[24];
  snprintf(head, sizeof(head), "[%zu/%zu rules] %zu running", done, total, nrunning);
  char elapsed[24];
  format_elapsed(elapsed, sizeof(elapsed), elapsed_s);
  snprintf(tail, sizeof(tail), ", %s", elapsed);
  size_t tail_len = strlen(tail);
  snprintf(buf, len, "%s", head);
  size_t used = strlen(buf);
  /* As many running IDs as fit with the tail and a "+N" for the rest. */
  for (size_t i = 0; i < nrunning; i++) {
    size_t id_len = strlen(ids[i]) + (i == 0 ? 2 : 1); /* ": ID" or " ID" */
    size_t rest = nrunning - i - 1;
    snprintf(more, sizeof(more), rest ? " +%zu" : "", rest);
    if (used + id_len + strlen(more) + tail_len > width) {
      snprintf(more, sizeof(more), " +%zu", nrunning - i);
      if (used + strlen(more) + tail_len <= width) {
        snprintf(buf + used, len - used, "%s", more);
        used += strlen(more);
      }
      break;
    }
    snprintf(buf + used, len - used, "%s%s", i == 0 ? ": " : " ", ids[i]);
    used += id_len;
  }
  if (used + tail_len <= width)
    snprintf(buf + used, len - used, "%s", tail);
  if (strlen(buf) > width) /* a width too small even for the counts */
    buf[width] = '\0';
}

int nc_progress_due(double last_s, double now_s_)
{
  return now_s_ - last_s >= NC_PROGRESS_LINE_INTERVAL_S;
}

/* ---- the run's state, fed by the callbacks, drawn by one thread ------------------- */

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t thread;
  int started, stopping;
  nc_progress_mode mode;
  FILE *out;
  double t0;
  size_t reported, total; /* results handed over so far (in rule order) */
  const char *running[MAX_RUNNING];
  size_t nrunning;
  /* Cases that ended before their result's turn in rule order: done, and
   * not yet counted in reported. */
  const char *ended[MAX_ENDED];
  size_t nended;
} pg = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* Takes one id out of a list; 1 when it was there. */
static int remove_id(const char **ids, size_t *n, const char *id)
{
  for (size_t i = 0; i < *n; i++)
    if (strcmp(ids[i], id) == 0) {
      memmove(&ids[i], &ids[i + 1], (*n - i - 1) * sizeof(ids[0]));
      (*n)--;
      return 1;
    }
  return 0;
}

static void on_result(void *user, size_t done, size_t total, const char *id, nc_verdict v)
{
  (void)user;
  (void)v;
  pthread_mutex_lock(&pg.lock);
  pg.reported = done;
  pg.total = total;
  remove_id(pg.ended, &pg.nended, id);
  pthread_mutex_unlock(&pg.lock);
}

static void on_case_running(void *user, const char *id, int running)
{
  (void)user;
  pthread_mutex_lock(&pg.lock);
  if (running && pg.nrunning < MAX_RUNNING) {
    pg.running[pg.nrunning++] = id;
  } else if (!running && remove_id(pg.running, &pg.nrunning, id) && pg.nended < MAX_ENDED) {
    pg.ended[pg.nended++] = id;
  }
  pthread_mutex_unlock(&pg.lock);
}

static size_t terminal_width(FILE *out)
{
  struct winsize ws;
  if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
    return (size_t)ws.ws_col - 1; /* the last column would wrap on some terminals */
  return 79;
}

/* Called with the lock held. */
static void draw(void)
{
  char line[512];
  size_t width = pg.mode == NC_PROGRESS_TTY ? terminal_width(pg.out) : sizeof(line) - 1;
  nc_progress_format(line, sizeof(line), width, pg.reported + pg.nended, pg.total, pg.running,
                     pg.nrunning,
                     now_s() - pg.t0);
  if (pg.mode == NC_PROGRESS_TTY)
    fprintf(pg.out, "\r\033[K%s", line);
  else
    fprintf(pg.out, "nve-conform: %s\n", line);
  fflush(pg.out);
}

static void *drawer(void *arg)
{
  (void)arg;
  double last = pg.t0;
  pthread_mutex_lock(&pg.lock);
  while (!pg.stopping) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += TTY_REDRAW_NS;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&pg.wake, &pg.lock, &until);
    if (pg.stopping)
      break;
    if (pg.mode == NC_PROGRESS_TTY) {
      draw();
    } else if (nc_progress_due(last, now_s())) {
      draw();
      last = now_s();
    }
  }
  if (pg.mode == NC_PROGRESS_TTY) {
    fprintf(pg.out, "\r\033[K");
    fflush(pg.out);
  }
  pthread_mutex_unlock(&pg.lock);
  return NULL;
}

void nc_progress_start(nc_options *opt, nc_progress_mode mode, FILE *out)
{
  if (mode == NC_PROGRESS_OFF || pg.started)
    return;
  pg.mode = mode;
  pg.out = out;
  pg.t0 = now_s();
  pg.stopping = 0;
  opt->on_result = on_result;
  opt->on_case_running = on_case_running;
  opt->on_result_user = NULL;
  if (pthread_create(&pg.thread, NULL, drawer, NULL) == 0)
    pg.started = 1;
}

void nc_progress_stop(void)
{
  if (!pg.started)
    return;
  pthread_mutex_lock(&pg.lock);
  pg.stopping = 1;
  pthread_cond_signal(&pg.wake);
  pthread_mutex_unlock(&pg.lock);
  pthread_join(pg.thread, NULL);
  pg.started = 0;
}
