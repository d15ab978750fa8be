/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int nc_write_file_atomic(const char *path, const char *data, size_t len, char *err,
                         size_t errlen)
{
  char tmp[4096];
  if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp)) {
    snprintf(err, errlen, "path too long: %s", path);
    return -1;
  }
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
    return -1;
  }
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
      goto fail;
    }
    done += (size_t)n;
  }
  /* mkostemp creates 0600; reports are ordinary files. */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || fsync(fd) != 0) {
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
  return 0;
fail:
  if (fd >= 0)
    close(fd);
  unlink(tmp);
  return -1;
}
