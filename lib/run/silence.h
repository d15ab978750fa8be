/* SPDX-License-Identifier: Apache-2.0 */
/* When a case's silence is a hang. The runner's timeout is for silence
 * (no keyed record for that long), and a silence is judged in the case's
 * own terms: stretched by how busy the machine was while it lasted, and
 * by what the case announced the next step may take (a BEAT record with
 * seconds: one call on a table of millions of keys). Verdicts must not
 * depend on the load. */
#ifndef NC_SILENCE_H
#define NC_SILENCE_H

#include <stddef.h>

/* The machine's load, as /proc/loadavg says it. */
typedef struct nc_load {
  double load1;    /* the 1-minute load average */
  double runnable; /* tasks runnable now, the reader left out */
  long cpus;
} nc_load;

/* Reads it; 0, or -1 when nothing could be read (then no stretch). */
int nc_load_now(nc_load *l);

typedef struct nc_silence {
  double timeout_s;
  double last;      /* the latest progress */
  double deadline;  /* a hang after this, unless the stretch moves it */
  double cap;       /* never after this */
  double allowance; /* seconds the step since the latest progress may take */
  double runnable_sum;
  long samples;     /* of runnable, since the latest progress */
  double load1;
  long cpus;
} nc_silence;

void nc_silence_start(nc_silence *s, double now, double timeout_s, double cap);
/* A keyed record came: silence starts again, allowed allowance_s seconds
 * (0: the timeout) before the load stretches it. */
void nc_silence_progress(nc_silence *s, double now, double allowance_s);
/* A keyed record that announces nothing came: the timeout from now,
 * unless a step announced a longer silence that has not run out. */
void nc_silence_touch(nc_silence *s, double now);
/* Seconds left before the silence is a hang (<= 0: it is one). l, when
 * not NULL, is a sample of the load now. */
double nc_silence_left(nc_silence *s, double now, const nc_load *l);

/* The seconds a keyed line announces ("KEY:BEAT\tSECONDS"), 0 for any
 * other line, a bare BEAT or a number that is not one; at most cap_s. */
double nc_silence_allowance(const char *line, size_t len, size_t keylen, double cap_s);

#endif
