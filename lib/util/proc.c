/* SPDX-License-Identifier: Apache-2.0 */
#include "proc.h"

#include <fcntl.h>
#include <stdio.h>
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
