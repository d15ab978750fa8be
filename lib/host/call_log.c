/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "call_log.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int log_fd = -1;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void open_log(void)
{
  const char *path = getenv("NVE_CONFORM_CALL_LOG");
  if (path && *path)
    log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

int nc_call_log_on(void)
{
  pthread_once(&log_once, open_log);
  return log_fd >= 0;
}

static void log_line(const char *op, int64_t n, int64_t stride, int64_t size, int dtype,
                     const char *more)
{
  if (!nc_call_log_on())
    return;
  char line[200];
  int len = snprintf(line, sizeof(line), "%s n=%lld stride=%lld size=%lld dtype=%d%s\n", op,
                     (long long)n, (long long)stride, (long long)size, dtype, more);
  /* One write per line: O_APPEND keeps the lines of parallel cases whole. */
  if (len > 0 && write(log_fd, line, (size_t)len) < 0)
    return;
}

void nc_call_log(const char *op, int64_t n, int64_t stride, int64_t size, int dtype)
{
  log_line(op, n, stride, size, dtype, "");
}

void nc_call_log_find(int64_t n, int64_t stride, int64_t hits)
{
  char more[32];
  snprintf(more, sizeof(more), " hits=%lld", (long long)hits);
  log_line("find", n, stride, 0, 0, more);
}
