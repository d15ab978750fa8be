/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "call_log.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1, keys_fd = -1;
static char keys_path[4096 + 16];
static uint64_t proc_id;
static long long keys_at; /* bytes in the keys file so far */
static pthread_mutex_t keys_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
/* The crash log (nc_call_log_crash_open): its file, and whether it was
 * cut at NC_CALL_LOG_CRASH_MAX. */
static char crash_path[4096];
static _Atomic int crash_full;
/* Bytes each of its files may hold: NC_CALL_LOG_CRASH_MAX, or less under
 * the case's RLIMIT_FSIZE (a write past it would end the process with
 * SIGXFSZ, a failure the plugin never caused). */
static long long crash_cap = NC_CALL_LOG_CRASH_MAX;
static long long text_at; /* bytes in the crash log's text so far */
/* A crash log's lines in file order, and the last this thread wrote. */
static long long lines_logged;
static pthread_mutex_t line_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local long long thread_last_line = -1;

static void open_log(void)
{
  if (crash_path[0]) {
    log_fd = open(crash_path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    snprintf(keys_path, sizeof(keys_path), "%s.keys", crash_path);
    keys_fd = open(keys_path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (keys_fd < 0 && log_fd >= 0) {
      close(log_fd);
      log_fd = -1;
    }
    return; /* proc stays 0: one process writes it */
  }
  const char *path = getenv("NVE_CONFORM_CALL_LOG");
  if (!path || !*path)
    return;
  log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (getrandom(&proc_id, sizeof(proc_id), GRND_NONBLOCK) != (ssize_t)sizeof(proc_id)) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    proc_id = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&ts;
  }
  snprintf(keys_path, sizeof(keys_path), "%s.keys/%016llx", path, (unsigned long long)proc_id);
}

int nc_call_log_on(void)
{
  pthread_once(&log_once, open_log);
  return log_fd >= 0;
}

/* In a child forked from the process: the crash log holds the process's
 * own calls only (a forked child's end is its own). */
static void forked(void)
{
  if (log_fd >= 0)
    close(log_fd);
  if (keys_fd >= 0)
    close(keys_fd);
  log_fd = keys_fd = -1;
}

int nc_call_log_crash_open(const char *path)
{
  if (!path || strlen(path) >= sizeof(crash_path) - 8)
    return -1;
  snprintf(crash_path, sizeof(crash_path), "%s", path);
  struct rlimit fsize;
  if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
      (long long)(fsize.rlim_cur / 2) < crash_cap)
    crash_cap = (long long)(fsize.rlim_cur / 2);
  if (!nc_call_log_on())
    return -1;
  pthread_atfork(NULL, NULL, forked);
  return 0;
}

int nc_call_log_crash(void) { return crash_path[0] && nc_call_log_on(); }

/* The crash log stops here, and says so: a reader must not take its last
 * line for the call the process ended in. */
static void cut(void)
{
  if (!atomic_exchange(&crash_full, 1)) {
    ssize_t w = write(log_fd, "cut\n", 4);
    (void)w; /* nothing more to do where the log cannot be written */
  }
}

/* Appends len bytes to this process's keys file; their offset, or -1. */
static long long log_blob(const void *keys, size_t len)
{
  long long at = -1;
  pthread_mutex_lock(&keys_lock);
  if (crash_path[0] && keys_at + (long long)len > crash_cap) {
    cut();
    pthread_mutex_unlock(&keys_lock);
    return -1;
  }
  if (keys_fd < 0)
    keys_fd = open(keys_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  size_t done = 0;
  while (keys_fd >= 0 && done < len) {
    ssize_t w = write(keys_fd, (const char *)keys + done, len - done);
    if (w <= 0)
      break;
    done += (size_t)w;
  }
  if (keys_fd >= 0 && done == len)
    at = keys_at;
  keys_at += (long long)done;
  pthread_mutex_unlock(&keys_lock);
  return at;
}

static long long log_keys(const void *keys, int64_t n, int key_size)
{
  if (!keys || n <= 0 || (key_size != 4 && key_size != 8))
    return -1;
  return log_blob(keys, (size_t)n * (size_t)key_size);
}

static void log_line(const char *op, const void *table, int64_t n, const void *keys, int key_size,
                     int64_t stride, int64_t size, int dtype, const char *more)
{
  thread_last_line = -1; /* until this call's line is written */
  if (!nc_call_log_on() || atomic_load(&crash_full))
    return;
  long long at = log_keys(keys, n, key_size);
  char where[48] = "";
  if (at >= 0)
    snprintf(where, sizeof(where), " keys=%lld ks=%d", at, key_size);
  char line[300];
  int len = snprintf(line, sizeof(line),
                     "%s n=%lld stride=%lld size=%lld dtype=%d%s t=%llx proc=%016llx%s\n", op,
                     (long long)n, (long long)stride, (long long)size, dtype, more,
                     (unsigned long long)(uintptr_t)table, (unsigned long long)proc_id, where);
  if (len <= 0)
    return;
  if (crash_path[0]) { /* numbered in the order they land */
    pthread_mutex_lock(&line_lock);
    if (text_at + len + 4 > crash_cap)
      cut();
    else if (write(log_fd, line, (size_t)len) == (ssize_t)len)
      thread_last_line = lines_logged++;
    text_at += len;
    pthread_mutex_unlock(&line_lock);
    return;
  }
  /* One write per line: O_APPEND keeps the lines of parallel cases whole. */
  if (write(log_fd, line, (size_t)len) < 0)
    return;
}

long long nc_call_log_last_line(void) { return thread_last_line; }

void nc_call_log(const char *op, const void *table, int64_t n, const void *keys, int key_size,
                 int64_t stride, int64_t size, int dtype)
{
  log_line(op, table, n, keys, key_size, stride, size, dtype, "");
}

void nc_call_log_find(const void *table, int64_t n, const void *keys, int key_size,
                      int64_t stride, int64_t hits, int nulls)
{
  char more[48];
  snprintf(more, sizeof(more), " hits=%lld nulls=%d", (long long)hits, nulls);
  log_line("find", table, n, keys, key_size, stride, 0, 0, more);
}

void nc_call_log_config(const char *op, const void *table, int64_t id, const char *config,
                        int status)
{
  if (!nc_call_log_on())
    return;
  char more[80] = " config=-";
  size_t len = config ? strlen(config) : 0;
  long long at = config ? log_blob(config, len ? len : 1) : -1;
  if (at >= 0)
    snprintf(more, sizeof(more), " config=%lld:%zu status=%d", at, len, status);
  else
    snprintf(more, sizeof(more), " config=- status=%d", status);
  log_line(op, table, id, NULL, 0, 0, 0, 0, more);
}

int nc_call_log_holds(const char *callback)
{
  /* calls.c's table ops that log a line, by their callback's name */
  static const char *const ops[] = {"find", "insert", "update", "update_accumulate", "erase",
                                    "clear", "reset_lookup_counter", "get_lookup_counter",
                                    "destroy"};
  if (!callback || strncmp(callback, "table ", 6) != 0)
    return 0;
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
    size_t n = strlen(ops[i]);
    const char *rest = callback + 6 + n;
    if (strncmp(callback + 6, ops[i], n) == 0 && (*rest == '\0' || *rest == ' '))
      return 1;
  }
  return 0;
}
