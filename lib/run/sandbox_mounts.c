/* SPDX-License-Identifier: Apache-2.0 */
/* The case's view of the file system (sandbox_steps.h): built in the
 * init's new mount namespace with the kernel's mount API (Linux 5.12 or
 * later: open_tree, move_mount, mount_setattr), so that the paths that stay
 * writable are cloned before anything covers them and the rest is made
 * read-only in one call, submounts included. Where the kernel has no such
 * API, the same view from the older calls (sandbox_remount.c): the paths
 * held by O_PATH descriptors and bound back from them, then every mount
 * remounted read-only one by one. */
#define _GNU_SOURCE
#include "sandbox_steps.h"
#include "sandbox_remount.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
struct mount_attr {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

#if defined(SYS_open_tree) && defined(SYS_move_mount) && defined(SYS_mount_setattr)
static int clone_tree(const char *path)
{
  return (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | O_CLOEXEC);
}
static int put_tree(int fd, const char *path)
{
  return (int)syscall(SYS_move_mount, fd, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH);
}
static int set_attr(const char *path, unsigned flags, uint64_t set, uint64_t clr)
{
  struct mount_attr a = {.attr_set = set, .attr_clr = clr};
  return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &a, sizeof(a));
}
#else
static int clone_tree(const char *path) { (void)path; errno = ENOSYS; return -1; }
static int put_tree(int fd, const char *path) { (void)fd; (void)path; errno = ENOSYS; return -1; }
static int set_attr(const char *path, unsigned flags, uint64_t set, uint64_t clr)
{
  (void)path, (void)flags, (void)set, (void)clr;
  errno = ENOSYS;
  return -1;
}
#endif

/* The devices a case may open: the harmless ones, and a GPU's. */
static const char *const plain_devices[] = {"null", "zero", "full", "random", "urandom", "tty"};
#define MAX_DEVICES 48
#define MAX_RW 8

/* Whether this kernel has mount_setattr (and so the whole API): probed
 * with an empty call, which fails with anything but ENOSYS where it is. */
static int have_mount_api(void)
{
#ifdef SYS_mount_setattr
  return syscall(SYS_mount_setattr, -1, "", 0, NULL, (size_t)0) == 0 || errno != ENOSYS;
#else
  return 0;
#endif
}

static int mount_api; /* set by nc_sandbox_mounts, before any tree */

typedef struct tree {
  char path[4096];
  int fd;  /* its clone, before anything covers it */
  int dir; /* a directory (else a file) */
} tree;

static int failed(char *why, size_t len, const char *what, const char *path)
{
  snprintf(why, len, "%s %s: %s", what, path, strerror(errno));
  return -1;
}

static int clone_into(tree *t, const char *path, char *why, size_t len)
{
  struct stat st;
  snprintf(t->path, sizeof(t->path), "%s", path);
  if (stat(path, &st) != 0)
    return failed(why, len, "cannot find", path);
  t->dir = S_ISDIR(st.st_mode);
  t->fd = mount_api ? clone_tree(path) : nc_remount_hold(path);
  return t->fd < 0 ? failed(why, len, mount_api ? "open_tree of" : "cannot open", path) : 0;
}

/* Each directory of path below the mount point at, made in the new
 * tmpfs; then path itself, as a directory or an empty file. */
static int make_mount_point(const char *at, const tree *t)
{
  char p[4096];
  snprintf(p, sizeof(p), "%s", t->path);
  for (char *s = p + strlen(at) + 1; (s = strchr(s, '/')) != NULL; s++) {
    *s = '\0';
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
      return -1;
    *s = '/';
  }
  if (t->dir)
    return mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
  int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  close(fd);
  return 0;
}

static int under(const char *path, const char *dir)
{
  size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Puts each tree back at its own path (making the mount point when what
 * held it is covered now). */
static int put_back(tree *t, size_t n, const char *covered, char *why, size_t len)
{
  for (size_t i = 0; i < n; i++) {
    if (covered && under(t[i].path, covered) && make_mount_point(covered, &t[i]) != 0)
      return failed(why, len, "cannot make the mount point", t[i].path);
    if ((mount_api ? put_tree(t[i].fd, t[i].path) : nc_remount_bind(t[i].fd, t[i].path)) != 0)
      return failed(why, len, mount_api ? "move_mount onto" : "cannot bind onto", t[i].path);
    close(t[i].fd);
    t[i].fd = -1;
  }
  return 0;
}

static int mount_tmpfs(const char *where, unsigned mode, long mib, char *why, size_t len)
{
  char data[64];
  snprintf(data, sizeof(data), "mode=%o,size=%ldm", mode, mib > 0 ? mib : 4096);
  if (mount("nve-conform", where, "tmpfs", MS_NOSUID | MS_NODEV, data) != 0)
    return failed(why, len, "cannot mount a tmpfs on", where);
  return 0;
}

/* The devices of /dev the case keeps, cloned: the plain ones and a GPU's
 * (nvidia*, nvidia-caps). */
static size_t clone_devices(tree *d, size_t max)
{
  size_t n = 0;
  char path[300];
  for (size_t i = 0; i < sizeof(plain_devices) / sizeof(plain_devices[0]) && n < max; i++) {
    snprintf(path, sizeof(path), "/dev/%s", plain_devices[i]);
    char ignored[8];
    if (access(path, F_OK) == 0 && clone_into(&d[n], path, ignored, sizeof(ignored)) == 0)
      n++;
  }
  DIR *dir = opendir("/dev");
  for (struct dirent *e; dir && (e = readdir(dir)) != NULL && n < max;) {
    if (strncmp(e->d_name, "nvidia", 6) != 0)
      continue;
    snprintf(path, sizeof(path), "/dev/%s", e->d_name);
    char ignored[8];
    if (clone_into(&d[n], path, ignored, sizeof(ignored)) == 0)
      n++;
  }
  if (dir)
    closedir(dir);
  return n;
}

/* /dev: a read-only tmpfs with the kept devices, the usual links into
 * /proc/self/fd and a directory for each case's own /dev/shm. */
static int make_dev(tree *d, size_t n, char *why, size_t len)
{
  if (mount_tmpfs("/dev", 0755, 1, why, len) != 0 || put_back(d, n, "/dev", why, len) != 0)
    return -1;
  static const char *const links[][2] = {{"/dev/fd", "/proc/self/fd"},
                                         {"/dev/stdin", "/proc/self/fd/0"},
                                         {"/dev/stdout", "/proc/self/fd/1"},
                                         {"/dev/stderr", "/proc/self/fd/2"}};
  for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
    if (symlink(links[i][1], links[i][0]) != 0)
      return failed(why, len, "cannot link", links[i][0]);
  if (mkdir("/dev/shm", 01777) != 0)
    return failed(why, len, "cannot make", "/dev/shm");
  return 0;
}

/* Everything read-only but the rw paths and /proc (their mounts
 * themselves, not what is mounted under them). /proc stays for the
 * server's handlers, which write their user namespaces' maps there; each
 * case sees a read-only /proc of its own over it. */
static int make_read_only(const char *const *rw, size_t nrw, char *why, size_t len)
{
  const char *writable[MAX_RW + 1];
  size_t n = 0;
  for (; n < nrw; n++)
    writable[n] = rw[n];
  writable[n++] = "/proc";
  if (!mount_api)
    return nc_remount_read_only(writable, n, why, len);
  if (set_attr("/", AT_RECURSIVE, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0) != 0)
    return failed(why, len, "mount_setattr read-only on", "/");
  for (size_t i = 0; i < n; i++)
    if (set_attr(writable[i], 0, 0, MOUNT_ATTR_RDONLY) != 0)
      return failed(why, len, "mount_setattr writable on", writable[i]);
  return 0;
}

/* The working directory looked up again in the new view: kept as it was,
 * it could still be in a mount now covered (the machine's /dev/shm under
 * the case's), which no remount reached. */
static int look_up_cwd(char *why, size_t len)
{
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == NULL || chdir(cwd) != 0)
    return chdir("/") == 0 ? 0 : failed(why, len, "cannot change directory to", "/");
  return 0;
}

int nc_sandbox_mounts(const char *scratch, const char *const *rw, size_t nrw, int *remounted,
                      char *why, size_t len)
{
  tree keep[MAX_RW], dev[MAX_DEVICES];
  mount_api = have_mount_api();
  *remounted = !mount_api;
  if (nrw > MAX_RW) {
    snprintf(why, len, "more than %d writable paths", MAX_RW);
    return -1;
  }
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return failed(why, len, "cannot make private the mounts of", "/");
  struct stat st;
  if (stat(scratch, &st) != 0 || !S_ISDIR(st.st_mode) || strcmp(scratch, "/") == 0) {
    snprintf(why, len, "the scratch directory %s is not a directory of its own", scratch);
    return -1;
  }
  for (size_t i = 0; i < nrw; i++)
    if (clone_into(&keep[i], rw[i], why, len) != 0)
      return -1;
  size_t ndev = clone_devices(dev, MAX_DEVICES);
  /* The writable paths as mounts of their own (over themselves), then
   * /dev; everything else read-only, then the writable ones writable
   * again. Each case's scratch (its TMPDIR, its own, gone with it),
   * /dev/shm and /proc come later, in its own mount namespace. TMPDIR
   * itself stays readable (a plugin may live there), as everything else. */
  if (put_back(keep, nrw, NULL, why, len) != 0 || make_dev(dev, ndev, why, len) != 0 ||
      make_read_only(rw, nrw, why, len) != 0)
    return -1;
  return look_up_cwd(why, len);
}

int nc_sandbox_case_mounts(const char *scratch, long scratch_mib, char *why, size_t len)
{
  if (mount_tmpfs(scratch, 0700, scratch_mib, why, len) != 0 ||
      mount_tmpfs("/dev/shm", 01777, scratch_mib, why, len) != 0)
    return -1;
  if (mount("proc", "/proc", "proc", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
    return failed(why, len, "cannot mount a proc of the namespace on", "/proc");
  return look_up_cwd(why, len);
}
