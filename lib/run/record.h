/* SPDX-License-Identifier: Apache-2.0 */
/* The line protocol a case child uses to stream results to the parent.
 *
 * A record is one line: a tag and up to NC_RECORD_MAX_FIELDS fields,
 * separated by tabs, with backslash, tab and newline escaped. A record is at
 * most NC_RECORD_MAX bytes so that one write() of it is atomic on a pipe, and
 * writing needs no heap, so the crash handler can use it. */
#ifndef NC_RECORD_H
#define NC_RECORD_H

#include <stddef.h>

#define NC_RECORD_MAX 4096 /* == PIPE_BUF on Linux */
#define NC_RECORD_MAX_FIELDS 8

/* Encodes and writes one record to fd. Fields are truncated to fit. Returns
 * 0, or -1 if the write failed (errno set). Async-signal-safe. */
int nc_record_write(int fd, const char *tag, size_t nfields, const char *const *fields);
/* The same with every field whole, however long (one record need not be
 * one atomic write: for files, such as the run's configuration). */
int nc_record_write_whole(int fd, const char *tag, size_t nfields, const char *const *fields);

typedef struct nc_record {
  char *tag;
  size_t nfields;
  char *fields[NC_RECORD_MAX_FIELDS];
} nc_record;

/* Incremental parser: feed bytes, take complete records out. The bytes not
 * yet taken are buf[start, len); taking a record moves start, and feeding
 * moves what is left to the front only when start passed half the buffer,
 * so a stream of records costs time linear in its bytes. */
typedef struct nc_record_reader {
  char *buf;
  size_t start, len, cap;
} nc_record_reader;

/* Whether the line buf[0, len) is a record carrying key ("KEY:TAG..."). */
int nc_record_line_keyed(const char *line, size_t len, const char *key);

void nc_record_reader_init(nc_record_reader *r);
int nc_record_reader_feed(nc_record_reader *r, const void *data, size_t len);
/* Takes the next complete record; returns 1 if one was taken, 0 if none is
 * complete yet. The record's strings live until nc_record_clear(). */
int nc_record_reader_next(nc_record_reader *r, nc_record *out);
void nc_record_reader_free(nc_record_reader *r);
void nc_record_clear(nc_record *rec);

#endif
