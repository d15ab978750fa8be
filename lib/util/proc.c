/* SPDX-License-Identifier: Apache-2.0 */
#include "proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pid_t nc_proc_parent(pid_t pid)
{
  char path[64], buf[512];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  /* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
  const char *close_paren = strrchr(buf, ')');
  int ppid;
  char state;
  if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2)
    return -1;
  return (pid_t)ppid;
}

size_t nc_proc_parse_pids(const char *text, pid_t *out, size_t max, size_t n)
{
  for (;;) {
    char *end;
    long pid = strtol(text, &end, 10); /* skips the spaces before it */
    if (end == text || pid <= 0)
      return n;
    if (n < max)
      out[n] = (pid_t)pid;
    n++;
    text = end;
  }
}

/* One thread's list, read whole: a pid never straddles two reads. Returns
 * -1 when the kernel keeps no such list (a thread that ended meanwhile
 * lists nothing). */
static int read_thread_list(int taskfd, const char *tid, pid_t *out, size_t max, size_t *n)
{
  char path[300];
  snprintf(path, sizeof(path), "%s/children", tid);
  int fd = openat(taskfd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return faccessat(taskfd, tid, F_OK, 0) == 0 ? -1 : 0;
  size_t cap = 4096, len = 0;
  char *text = malloc(cap);
  ssize_t got;
  while (text && (got = read(fd, text + len, cap - len - 1)) > 0) {
    len += (size_t)got;
    if (cap - len < 64) {
      char *bigger = realloc(text, cap * 2);
      if (!bigger) {
        free(text);
        text = NULL;
        break;
      }
      text = bigger;
      cap *= 2;
    }
  }
  close(fd);
  if (!text)
    return -1;
  text[len] = '\0';
  *n = nc_proc_parse_pids(text, out, max, *n);
  free(text);
  return 0;
}

static int children_listed(pid_t pid, pid_t *out, size_t max, size_t *n)
{
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
  int taskfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (taskfd < 0)
    return -1;
  DIR *d = fdopendir(dup(taskfd));
  if (!d) {
    close(taskfd);
    return -1;
  }
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.')
      rc = read_thread_list(taskfd, e->d_name, out, max, n);
  closedir(d);
  close(taskfd);
  return rc;
}

size_t nc_proc_children(pid_t pid, pid_t *out, size_t max)
{
  size_t n = 0;
  if (children_listed(pid, out, max, &n) == 0)
    return n;
  n = 0;
  DIR *d = opendir("/proc");
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    char *end;
    long child = strtol(e->d_name, &end, 10);
    if (!*end && child > 0 && nc_proc_parent((pid_t)child) == pid) {
      if (n < max)
        out[n] = (pid_t)child;
      n++;
    }
  }
  if (d)
    closedir(d);
  return n;
}
