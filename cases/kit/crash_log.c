/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a crash log back (crash_log.h). */
#define _GNU_SOURCE
#include "crash_log.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void nc_crash_log_free(crash_log *l)
{
  free(l->calls);
  free(l->data);
  free(l->factories);
  free(l->tables);
  memset(l, 0, sizeof(*l));
}

/* The number of handle among *list (the latest one made with it), a new
 * one when fresh is set; -1 when unknown or out of memory. */
static int number_of(uint64_t **list, int *count, uint64_t handle, int fresh)
{
  if (!fresh) {
    for (int i = *count - 1; i >= 0; i--)
      if ((*list)[i] == handle)
        return i;
    return -1;
  }
  uint64_t *more = realloc(*list, (size_t)(*count + 1) * sizeof(**list));
  if (!more)
    return -1;
  *list = more;
  more[*count] = handle;
  return (*count)++;
}

static int op_of(const char *name)
{
  static const char *const names[CR_OPS] = {
      "create", "destroy_factory", "produce", "destroy", "find", "insert", "update",
      "update_accumulate", "erase", "clear", "reset_lookup_counter", "get_lookup_counter"};
  for (int i = 0; i < CR_OPS; i++)
    if (strcmp(name, names[i]) == 0)
      return i;
  return -1;
}

static long long field(const char *line, const char *name, long long none)
{
  const char *p = strstr(line, name);
  return p ? strtoll(p + strlen(name), NULL, 10) : none;
}

/* One line of the log into a call; 0, 1 to skip it, -1 when it cannot be
 * used (out of memory, a config or keys outside the data). */
static int takes_keys(int op) { return op >= CR_FIND && op <= CR_ERASE && op != CR_CLEAR; }

/* Where a call's keys or config text lie in the data: 0, or -1 outside it
 * (a log plugin code may have written to). */
static int place(crash_log *l, const char *line, struct crash_call *c)
{
  /* A call's buffers must stay what a case could have made: no more keys
   * than 2^31, no row wider than 2^31 bytes, 2^40 bytes of rows at most. */
  const int64_t most = (int64_t)1 << 31;
  int64_t width = c->stride > c->size ? c->stride : c->size;
  if (c->n > most || c->stride < 0 || c->size < 0 || width > most ||
      (c->n > 0 && width > ((int64_t)1 << 40) / c->n))
    return -1;
  long long at = -1, len = 0;
  const char *config = strstr(line, " config=");
  if (c->op == CR_CREATE || c->op == CR_PRODUCE) {
    if (config && sscanf(config + 8, "%lld:%lld", &at, &len) != 2)
      at = -1, len = 0; /* config=-: a NULL config */
  } else if (takes_keys(c->op) && (at = field(line, " keys=", -1)) >= 0) {
    if ((c->key_size != 4 && c->key_size != 8) || c->n < 0 ||
        c->n > (int64_t)l->data_len / c->key_size)
      return -1;
    len = c->n * c->key_size;
  } else if (takes_keys(c->op) && c->n > 0) {
    l->keyless = 1; /* a DEVICE table's, or one of a key size not known */
  }
  if (at >= 0 && (len < 0 || (size_t)at > l->data_len || (size_t)len > l->data_len - (size_t)at))
    return -1;
  c->at = at;
  c->len = at >= 0 ? len : 0;
  return 0;
}

/* One line of the log into a call; 0, 1 to skip it, -1 when it cannot be
 * used (out of memory, keys or a config outside the data). */
static int parse_line(crash_log *l, const char *line, struct crash_call *c)
{
  char name[32];
  long long n, stride, size;
  int dtype;
  if (strcmp(line, "cut") == 0)
    l->cut = 1;
  if (sscanf(line, "%31s n=%lld stride=%lld size=%lld dtype=%d", name, &n, &stride, &size,
             &dtype) != 5 || (c->op = op_of(name)) < 0)
    return 1;
  const char *t = strstr(line, " t=");
  uint64_t handle = t ? strtoull(t + 3, NULL, 16) : 0;
  c->n = n;
  c->stride = stride;
  c->size = size;
  c->dtype = dtype;
  c->nulls = (int)field(line, " nulls=", 0) & (CR_NULL_MASK | CR_NULL_VALUES | CR_NULL_SIZES);
  c->key_size = (int)field(line, " ks=", 0);
  c->status = c->op == CR_CREATE || c->op == CR_PRODUCE ? (int)field(line, " status=", 0) : 0;
  if (place(l, line, c) != 0)
    return -1;
  if (c->op == CR_CREATE)
    c->handle = number_of(&l->factories, &l->nfactories, handle, 1);
  else if (c->op == CR_DROP_FACTORY)
    c->handle = number_of(&l->factories, &l->nfactories, handle, 0);
  else if (c->op == CR_PRODUCE)
    c->handle = number_of(&l->tables, &l->ntables, handle, 1);
  else
    c->handle = number_of(&l->tables, &l->ntables, handle, 0);
  if (c->handle < 0)
    return c->op == CR_CREATE || c->op == CR_PRODUCE ? -1 : 1;
  return 0;
}

static unsigned char *read_whole(const char *path, size_t *len)
{
  /* Plugin code could write where the log is: a link or a FIFO there is
   * not the log. */
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
  unsigned char *buf = NULL;
  *len = 0;
  if (!f) {
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  size_t cap = 0;
  for (;;) {
    if (*len + 65536 > cap) {
      unsigned char *more = realloc(buf, cap = *len + (1u << 20));
      if (!more)
        break;
      buf = more;
    }
    size_t got = fread(buf + *len, 1, cap - *len, f);
    *len += got;
    if (got == 0) {
      fclose(f);
      return buf ? buf : malloc(1);
    }
  }
  fclose(f);
  free(buf);
  return NULL;
}

int nc_crash_log_parse(crash_log *l, char *text, long long upto)
{
  l->last_line = -1;
  long long number = 0; /* of the line: the log counts every one but "cut" */
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    if (upto >= 0 && number > upto)
      break;
    long long this_line = strcmp(line, "cut") != 0 ? number++ : -1;
    if (l->n == l->cap) {
      size_t cap = l->cap ? 2 * l->cap : 256;
      struct crash_call *more = realloc(l->calls, cap * sizeof(*more));
      if (!more)
        return -1;
      l->calls = more;
      l->cap = cap;
    }
    int got = parse_line(l, line, &l->calls[l->n]);
    if (got < 0)
      return -1;
    if (got == 0) {
      l->n++;
      l->last_line = this_line;
    }
  }
  return 0;
}

int nc_crash_log_read(const char *path, long long upto, crash_log *l, const char **why)
{
  char keys_path[PATH_MAX + 64];
  snprintf(keys_path, sizeof(keys_path), "%s.keys", path);
  size_t text_len;
  unsigned char *text = read_whole(path, &text_len);
  l->data = read_whole(keys_path, &l->data_len);
  unsigned char *whole = text ? realloc(text, text_len + 1) : NULL;
  if (!whole || !l->data) {
    free(whole ? whole : text);
    *why = "the case left no log of its calls";
    return -1;
  }
  whole[text_len] = '\0';
  int rc = nc_crash_log_parse(l, (char *)whole, upto);
  free(whole);
  if (rc != 0)
    *why = "its log of calls could not be read (out of memory, or lines that do not fit it)";
  return rc;
}
