/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "silence.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A stretch larger than this is a machine too busy to judge a hang by;
 * the cap still ends the case. */
#define NC_SILENCE_STRETCH_MAX 20.0

int nc_load_now(nc_load *l)
{
  l->cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  char buf[128];
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
  if (fd >= 0)
    close(fd);
  double load1 = 0;
  long running = 0;
  /* "0.52 0.58 0.59 2/345 12345": the fourth field counts the runnable
   * tasks now, the reader among them. */
  if (n <= 0 || l->cpus < 1)
    return -1;
  buf[n] = '\0';
  if (sscanf(buf, "%lf %*f %*f %ld/", &load1, &running) != 2)
    return -1;
  l->load1 = load1;
  l->runnable = running > 1 ? (double)(running - 1) : 0;
  return 0;
}

void nc_silence_start(nc_silence *s, double now, double timeout_s, double cap)
{
  memset(s, 0, sizeof(*s));
  s->timeout_s = timeout_s;
  s->cap = cap;
  s->cpus = 1;
  nc_silence_progress(s, now, 0);
}

void nc_silence_progress(nc_silence *s, double now, double allowance_s)
{
  s->last = now;
  s->allowance = allowance_s > s->timeout_s ? allowance_s : s->timeout_s;
  s->deadline = now + s->allowance < s->cap ? now + s->allowance : s->cap;
  s->runnable_sum = 0;
  s->samples = 0;
}

void nc_silence_touch(nc_silence *s, double now)
{
  if (now + s->timeout_s >= s->last + s->allowance)
    nc_silence_progress(s, now, 0);
}

/* How much slower than on an idle machine the silence ran: the tasks
 * runnable while it lasted, on average, or the load average, per CPU. */
static double stretch(const nc_silence *s)
{
  double load = s->load1;
  if (s->samples && s->runnable_sum / (double)s->samples > load)
    load = s->runnable_sum / (double)s->samples;
  double st = load / (double)(s->cpus > 0 ? s->cpus : 1);
  return st < 1.0 ? 1.0 : st > NC_SILENCE_STRETCH_MAX ? NC_SILENCE_STRETCH_MAX : st;
}

double nc_silence_left(nc_silence *s, double now, const nc_load *l)
{
  if (l) {
    s->runnable_sum += l->runnable;
    s->samples++;
    s->load1 = l->load1;
    s->cpus = l->cpus;
  }
  if (now < s->deadline || s->deadline >= s->cap)
    return s->deadline - now;
  double stretched = s->last + s->allowance * stretch(s);
  if (stretched > s->deadline)
    s->deadline = stretched < s->cap ? stretched : s->cap;
  return s->deadline - now;
}

double nc_silence_allowance(const char *line, size_t len, size_t keylen, double cap_s)
{
  /* A child with no key of its own writes bare tags. */
  const char *beat = keylen ? ":BEAT\t" : "BEAT\t";
  size_t at = keylen + strlen(beat);
  if (len <= at || len - at > 31 || memcmp(line + keylen, beat, strlen(beat)) != 0)
    return 0;
  char num[32];
  memcpy(num, line + at, len - at);
  num[len - at] = '\0';
  char *end;
  double v = strtod(num, &end);
  if (end == num || *end || !isfinite(v) || v <= 0)
    return 0;
  return v < cap_s ? v : cap_s;
}
