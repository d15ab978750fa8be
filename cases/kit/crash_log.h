/* SPDX-License-Identifier: Apache-2.0 */
/* A case process's crash log (lib/host/call_log.h) read back as the calls
 * crash_runtime.c makes: each factory and table numbered in the order the
 * log made them (a handle the plugin hands out again after a destroy is a
 * new number), each call's keys or config text where the log's keys file
 * holds them. */
#ifndef NC_CRASH_LOG_H
#define NC_CRASH_LOG_H

#include <stddef.h>
#include <stdint.h>

#define CRASH_TYPES_ONLY
#include "crash_runtime.c"
#undef CRASH_TYPES_ONLY

typedef struct crash_log {
  struct crash_call *calls;
  size_t n, cap;
  unsigned char *data; /* the keys file, whole */
  size_t data_len;
  uint64_t *factories, *tables; /* the handles behind each number */
  int nfactories, ntables;
  int keyless; /* a call whose keys the log could not hold (a DEVICE table's) */
  int cut;     /* the log reached its bound: its last call is not the process's */
  long long last_line; /* the number of the line of the last call read */
} crash_log;

/* Adds the calls of text (the log's lines, changed in place) to l, whose
 * data must be set, up to line upto (-1: all; l->last_line: the number of
 * the last call's line, -1 for none). Lines of other ops,
 * and calls on a table the log did not see made, are skipped. 0, or -1
 * out of memory or for a line whose keys or config lie outside the data. */
int nc_crash_log_parse(crash_log *l, char *text, long long upto);
/* Reads the log at path (its keys at path.keys) into l (zeroed), up to
 * line upto. 0, or -1 with why. */
int nc_crash_log_read(const char *path, long long upto, crash_log *l, const char **why);
void nc_crash_log_free(crash_log *l);

#endif
