/* SPDX-License-Identifier: Apache-2.0 */
/* The sandbox's mounts without the mount API (sandbox_remount.h), as
 * bubblewrap builds them on any kernel: bind mounts and read-only
 * remounts, a mount at a time. */
#define _GNU_SOURCE
#include "sandbox_remount.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

int nc_remount_hold(const char *path)
{
  return open(path, O_PATH | O_CLOEXEC);
}

int nc_remount_bind(int fd, const char *path)
{
  char from[64];
  snprintf(from, sizeof(from), "/proc/self/fd/%d", fd);
  return mount(from, path, NULL, MS_BIND | MS_REC, NULL);
}

/* The next space-separated field of *s, or NULL. */
static const char *field(const char **s, size_t *n)
{
  const char *p = *s;
  while (*p == ' ')
    p++;
  if (!*p || *p == '\n')
    return NULL;
  const char *end = p + strcspn(p, " \n");
  *n = (size_t)(end - p);
  *s = end;
  return p;
}

/* The kernel writes space, tab, newline and backslash as \ooo. */
static int unescape(const char *p, size_t n, char *out, size_t len)
{
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c == '\\' && i + 3 < n && p[i + 1] >= '0' && p[i + 1] <= '3' &&
        p[i + 2] >= '0' && p[i + 2] <= '7' && p[i + 3] >= '0' && p[i + 3] <= '7') {
      c = (char)((p[i + 1] - '0') * 64 + (p[i + 2] - '0') * 8 + (p[i + 3] - '0'));
      i += 3;
    }
    if (o + 1 >= len)
      return -1;
    out[o++] = c;
  }
  out[o] = '\0';
  return 0;
}

static unsigned long option_flags(const char *p, size_t n)
{
  static const struct {
    const char *name;
    unsigned long flag;
  } kept[] = {{"nosuid", MS_NOSUID},         {"nodev", MS_NODEV},
              {"noexec", MS_NOEXEC},         {"noatime", MS_NOATIME},
              {"nodiratime", MS_NODIRATIME}, {"relatime", MS_RELATIME}};
  unsigned long flags = 0;
  while (n > 0) {
    size_t w = 0;
    while (w < n && p[w] != ',')
      w++;
    for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++)
      if (strlen(kept[k].name) == w && memcmp(p, kept[k].name, w) == 0)
        flags |= kept[k].flag;
    p += w < n ? w + 1 : w;
    n -= w < n ? w + 1 : w;
  }
  return flags;
}

int nc_mountinfo_parse(const char *line, char *point, size_t len, unsigned long *flags)
{
  const char *s = line, *f = NULL;
  size_t n = 0;
  for (int i = 0; i < 5; i++) /* id, parent, major:minor, root, mount point */
    if ((f = field(&s, &n)) == NULL)
      return -1;
  if (f[0] != '/' || unescape(f, n, point, len) != 0)
    return -1;
  if ((f = field(&s, &n)) == NULL)
    return -1;
  *flags = option_flags(f, n);
  return 0;
}

static int is_writable(const char *point, const char *const *writable, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    char real[PATH_MAX];
    const char *w = realpath(writable[i], real) ? real : writable[i];
    if (strcmp(point, w) == 0)
      return 1;
  }
  return 0;
}

/* Under a directory the sandbox covered with a mount of its own: what the
 * machine had mounted there is out of the case's reach. */
static int covered(const char *point)
{
  return strncmp(point, "/dev/", 5) == 0 || strncmp(point, "/proc/", 6) == 0;
}

int nc_remount_read_only(const char *const *writable, size_t n, char *why, size_t len)
{
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (!f) {
    snprintf(why, len, "cannot read /proc/self/mountinfo: %s", strerror(errno));
    return -1;
  }
  char line[8192], point[PATH_MAX];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof(line), f)) {
    unsigned long keep;
    if (nc_mountinfo_parse(line, point, sizeof(point), &keep) != 0) {
      snprintf(why, len, "cannot parse a line of /proc/self/mountinfo: %.200s", line);
      rc = -1;
    } else if (!is_writable(point, writable, n) &&
               mount(NULL, point, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | keep,
                     NULL) != 0 &&
               !(covered(point) && (errno == ENOENT || errno == EINVAL || errno == EACCES))) {
      snprintf(why, len, "cannot remount %.300s read-only: %s", point, strerror(errno));
      rc = -1;
    }
  }
  fclose(f);
  return rc;
}
