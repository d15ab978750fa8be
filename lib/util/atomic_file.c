/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes everything to fd; returns 0 or -1 (errno set). */
static int write_all(int fd, const char *data, size_t len)
{
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    done += (size_t)n;
  }
  return 0;
}


/* The process's umask, read without changing it (umask() can only be read
 * by setting it, which races with other threads creating files). */
static mode_t current_umask(void)
{
  FILE *f = fopen("/proc/self/status", "re");
  char line[128];
  unsigned mask = 0;
  int found = 0;
  while (f && !found && fgets(line, sizeof(line), f))
    found = sscanf(line, "Umask: %o", &mask) == 1;
  if (f)
    fclose(f);
  if (found)
    return (mode_t)mask;
  mode_t m = umask(022); /* kernels before 4.7 */
  umask(m);
  return m;
}

/* The temporary file being written now, for nc_write_file_abort. */
static char pending[4096];
static volatile sig_atomic_t pending_set;

void nc_write_file_abort(void)
{
  if (pending_set)
    unlink(pending);
}

int nc_report_path_in_place(const char *path)
{
  if (strncmp(path, "/dev/", 5) != 0 || strstr(path, "/../") || strstr(path, "/./"))
    return 0;
  if (strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0 ||
      strncmp(path, "/dev/fd/", 8) == 0)
    return 1;
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int nc_report_path_check(const char *path, char *err, size_t errlen)
{
  struct stat st;
  if (nc_report_path_in_place(path) || lstat(path, &st) != 0)
    return 0; /* in place, or absent: its directory decides */
  int link = S_ISLNK(st.st_mode);
  if (link && stat(path, &st) != 0) {
    snprintf(err, errlen, "'%s' is a symlink to nothing: refusing to create a file through it",
             path);
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "'%s' is a directory", path);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, errlen,
             "'%s' is %snot a regular file (a FIFO, socket or device): a report goes to a "
             "regular file, or to /dev/stdout",
             path, link ? "a symlink to something that is " : "");
    return -1;
  }
  return 0;
}

/* A stream or device: written in place, in append mode so that a redirected
 * stdout keeps what was printed before. Opened without blocking (a FIFO
 * with no reader fails at once), then written blocking. */
static int write_in_place(const char *path, const char *data, size_t len, char *err,
                          size_t errlen)
{
  int fd = open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
  int flags = fd < 0 ? -1 : fcntl(fd, F_GETFL);
  if (fd < 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
      write_all(fd, data, len) != 0) {
    snprintf(err, errlen, "cannot write '%s': %s", path,
             errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  close(fd);
  return 0;
}

int nc_write_file_atomic(const char *path, const char *data, size_t len, char *err,
                         size_t errlen)
{
  /* Streams and devices (/dev/stdout, /dev/null, a terminal) cannot be
   * replaced by rename, and must never be. Anything else that is not a
   * regular file is refused: never opened, so a FIFO cannot hang us. */
  if (nc_report_path_in_place(path))
    return write_in_place(path, data, len, err, errlen);
  if (nc_report_path_check(path, err, errlen) != 0)
    return -1;
  struct stat st;
  int exists = stat(path, &st) == 0;
  /* Through a symlink, replace the file it points to, not the link. */
  char *real = exists ? realpath(path, NULL) : NULL;
  if (real)
    path = real;
  char tmp[4096];
  if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp)) {
    snprintf(err, errlen, "path too long: %s", path);
    free(real);
    return -1;
  }
  memcpy(pending, tmp, sizeof(pending));
  pending_set = 1;
  int fd = mkostemp(tmp, O_CLOEXEC);
  memcpy(pending, tmp, sizeof(pending)); /* with the name mkostemp chose */
  if (fd < 0) {
    pending_set = 0;
    snprintf(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
    free(real);
    return -1;
  }
  if (write_all(fd, data, len) != 0) {
    snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
    goto fail;
  }
  /* mkostemp creates 0600; reports are ordinary files. */
  if (fchmod(fd, 0666 & ~current_umask()) != 0 || fsync(fd) != 0) {
    snprintf(err, errlen, "cannot finish '%s': %s", tmp, strerror(errno));
    goto fail;
  }
  if (close(fd) != 0) {
    fd = -1;
    snprintf(err, errlen, "cannot close '%s': %s", tmp, strerror(errno));
    goto fail;
  }
  fd = -1;
  if (rename(tmp, path) != 0) {
    snprintf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    goto fail;
  }
  pending_set = 0;
  free(real);
  return 0;
fail:
  if (fd >= 0)
    close(fd);
  unlink(tmp);
  pending_set = 0;
  free(real);
  return -1;
}

char *nc_read_file(const char *path, char *err, size_t errlen)
{
  /* Non-blocking, so that opening a FIFO does not wait for a writer. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "'%s' is not a regular file", path);
    close(fd);
    return NULL;
  }
  if (st.st_size > NC_INPUT_MAX) {
    snprintf(err, errlen, "'%s' is larger than %d MiB", path, NC_INPUT_MAX >> 20);
    close(fd);
    return NULL;
  }
  size_t cap = (size_t)st.st_size + 1, len = 0;
  char *text = malloc(cap);
  while (text) {
    if (len + 1 == cap) { /* it grew while read: never past the limit */
      char *more = cap > (size_t)NC_INPUT_MAX ? NULL : realloc(text, cap * 2);
      if (!more) {
        free(text);
        text = NULL;
        snprintf(err, errlen, "'%s' is larger than %d MiB", path, NC_INPUT_MAX >> 20);
        break;
      }
      text = more;
      cap *= 2;
    }
    ssize_t n = read(fd, text + len, cap - 1 - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
      free(text);
      text = NULL;
      break;
    }
    if (n == 0) {
      text[len] = '\0';
      const char *nul = memchr(text, '\0', len);
      if (nul) { /* bytes after it would pass unseen */
        snprintf(err, errlen, "'%s' has a NUL byte at offset %zu: not a text file", path,
                 (size_t)(nul - text));
        free(text);
        text = NULL;
      }
      break;
    }
    len += (size_t)n;
  }
  if (!text && errno == ENOMEM)
    snprintf(err, errlen, "out of memory reading '%s'", path);
  close(fd);
  return text;
}
