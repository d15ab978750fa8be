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

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

static unsigned long option_flags(const char *p, size_t n)
{
  static const struct {
    const char *name;
    unsigned long flag;
  } kept[] = {{"nosuid", MS_NOSUID},         {"nodev", MS_NODEV},
              {"noexec", MS_NOEXEC},         {"noatime", MS_NOATIME},
              {"nodiratime", MS_NODIRATIME}, {"relatime", MS_RELATIME},
              {"nosymfollow", MS_NOSYMFOLLOW}};
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
  /* No atime option is strict atime, which a remount must then ask for. */
  if (!(flags & (MS_NOATIME | MS_RELATIME)))
    flags |= MS_STRICTATIME;
  return flags;
}

int nc_mountinfo_parse(const char *line, long *id, char *point, size_t len, unsigned long *flags)
{
  const char *s = line, *f = NULL;
  size_t n = 0;
  for (int i = 0; i < 5; i++) { /* id, parent, major:minor, root, mount point */
    if ((f = field(&s, &n)) == NULL)
      return -1;
    if (i == 0) {
      char *end;
      *id = strtol(f, &end, 10);
      if (end != f + n || n == 0)
        return -1;
    }
  }
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

/* The mount a descriptor is on (its fdinfo's mnt_id), or -1. */
static long mount_of(int fd)
{
  char path[64], line[256];
  snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
  FILE *f = fopen(path, "re");
  long id = -1;
  while (f && fgets(line, sizeof(line), f))
    if (strncmp(line, "mnt_id:", 7) == 0)
      id = strtol(line + 7, NULL, 10);
  if (f)
    fclose(f);
  return id;
}

/* One mount read-only, through its path when the path reaches it: a mount
 * covered by another (the machine's /dev under the sandbox's, the lower of
 * two stacked at one path) is out of the case's reach, and its flags are
 * not the top one's. */
static int remount_one(long id, const char *point, unsigned long keep, char *why, size_t len)
{
  int fd = open(point, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return 0; /* not reachable by its path */
  char at[64];
  snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
  int rc = 0;
  long on = mount_of(fd);
  if (on < 0) {
    snprintf(why, len, "cannot tell the mount of %.300s (no mnt_id in /proc/self/fdinfo)", point);
    rc = -1;
  } else if (on == id &&
             mount(NULL, at, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | keep, NULL) != 0) {
    snprintf(why, len, "cannot remount %.300s read-only: %s", point, strerror(errno));
    rc = -1;
  }
  close(fd);
  return rc;
}

int nc_remount_read_only(const char *const *writable, size_t n, char *why, size_t len)
{
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (!f) {
    snprintf(why, len, "cannot read /proc/self/mountinfo: %s", strerror(errno));
    return -1;
  }
  char *line = NULL, point[PATH_MAX];
  size_t cap = 0;
  int rc = 0;
  while (rc == 0 && getline(&line, &cap, f) > 0) {
    unsigned long keep;
    long id;
    if (nc_mountinfo_parse(line, &id, point, sizeof(point), &keep) != 0) {
      snprintf(why, len, "cannot parse a line of /proc/self/mountinfo: %.200s", line);
      rc = -1;
    } else if (!is_writable(point, writable, n)) {
      rc = remount_one(id, point, keep, why, len);
    }
  }
  free(line);
  fclose(f);
  return rc;
}
