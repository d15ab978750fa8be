/* SPDX-License-Identifier: Apache-2.0 */
#include "record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends src escaped to buf[*pos..cap), stopping before it would overflow. */
static void put_escaped(char *buf, size_t *pos, size_t cap, const char *src)
{
  for (; src && *src; src++) {
    char esc = 0;
    if (*src == '\\')
      esc = '\\';
    else if (*src == '\t')
      esc = 't';
    else if (*src == '\n')
      esc = 'n';
    size_t need = esc ? 2 : 1;
    if (*pos + need > cap)
      return;
    if (esc) {
      buf[(*pos)++] = '\\';
      buf[(*pos)++] = esc;
    } else {
      buf[(*pos)++] = *src;
    }
  }
}

int nc_record_write(int fd, const char *tag, size_t nfields, const char *const *fields)
{
  char buf[NC_RECORD_MAX];
  size_t cap = sizeof(buf) - 1; /* room for the newline */
  size_t pos = 0;
  put_escaped(buf, &pos, cap, tag);
  if (nfields > NC_RECORD_MAX_FIELDS)
    nfields = NC_RECORD_MAX_FIELDS;
  for (size_t i = 0; i < nfields; i++) {
    /* Keep every field some room, so a long first field cannot hide the rest. */
    size_t share = (cap - pos) / (nfields - i);
    if (pos < cap)
      buf[pos++] = '\t';
    size_t limit = pos + (share > 1 ? share - 1 : 0);
    put_escaped(buf, &pos, limit < cap ? limit : cap, fields[i]);
  }
  buf[pos++] = '\n';
  size_t done = 0;
  while (done < pos) {
    ssize_t n = write(fd, buf + done, pos - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    done += (size_t)n;
  }
  return 0;
}

int nc_record_write_whole(int fd, const char *tag, size_t nfields, const char *const *fields)
{
  size_t cap = 2 * strlen(tag) + 2; /* every byte may need its escape */
  if (nfields > NC_RECORD_MAX_FIELDS)
    nfields = NC_RECORD_MAX_FIELDS;
  for (size_t i = 0; i < nfields; i++)
    cap += 2 * strlen(fields[i] ? fields[i] : "") + 1;
  char *buf = malloc(cap);
  if (!buf)
    return -1;
  size_t pos = 0;
  put_escaped(buf, &pos, cap, tag);
  for (size_t i = 0; i < nfields; i++) {
    buf[pos++] = '\t';
    put_escaped(buf, &pos, cap, fields[i]);
  }
  buf[pos++] = '\n';
  size_t done = 0;
  int rc = 0;
  while (done < pos && rc == 0) {
    ssize_t n = write(fd, buf + done, pos - done);
    if (n > 0)
      done += (size_t)n;
    else if (n < 0 && errno != EINTR)
      rc = -1;
  }
  free(buf);
  return rc;
}

void nc_record_reader_init(nc_record_reader *r) { memset(r, 0, sizeof(*r)); }

int nc_record_line_keyed(const char *line, size_t len, const char *key)
{
  size_t klen = strlen(key);
  return klen && len > klen && memcmp(line, key, klen) == 0 && line[klen] == ':';
}

int nc_record_reader_feed(nc_record_reader *r, const void *data, size_t len)
{
  if (r->start && r->start >= r->len / 2) { /* amortised: each byte moves O(1) times */
    memmove(r->buf, r->buf + r->start, r->len - r->start);
    r->len -= r->start;
    r->start = 0;
  }
  if (r->len + len + 1 > r->cap) {
    size_t cap = r->cap ? r->cap : 8192;
    while (cap < r->len + len + 1)
      cap *= 2;
    char *p = realloc(r->buf, cap);
    if (!p)
      return -1;
    r->buf = p;
    r->cap = cap;
  }
  memcpy(r->buf + r->len, data, len);
  r->len += len;
  return 0;
}

/* Unescapes s in place. */
static char *unescape(char *s)
{
  char *w = s;
  for (char *p = s; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      *w++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
    } else {
      *w++ = *p;
    }
  }
  *w = '\0';
  return s;
}

int nc_record_reader_next(nc_record_reader *r, nc_record *out)
{
  memset(out, 0, sizeof(*out));
  const char *at = r->buf + r->start;
  char *nl = r->len > r->start ? memchr(at, '\n', r->len - r->start) : NULL;
  if (!nl)
    return 0;
  size_t linelen = (size_t)(nl - at);
  char *line = malloc(linelen + 1);
  if (!line)
    return 0;
  memcpy(line, at, linelen);
  line[linelen] = '\0';
  r->start += linelen + 1;

  char *p = line;
  out->tag = line;
  char *tab = strchr(p, '\t');
  while (tab && out->nfields < NC_RECORD_MAX_FIELDS) {
    *tab = '\0';
    out->fields[out->nfields++] = tab + 1;
    tab = strchr(tab + 1, '\t');
  }
  unescape(out->tag);
  for (size_t i = 0; i < out->nfields; i++)
    unescape(out->fields[i]);
  return 1;
}

void nc_record_clear(nc_record *rec)
{
  free(rec->tag); /* the fields point into the same allocation */
  memset(rec, 0, sizeof(*rec));
}

void nc_record_reader_free(nc_record_reader *r)
{
  free(r->buf);
  memset(r, 0, sizeof(*r));
}
