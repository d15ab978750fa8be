/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "contain.h"
#include "limits_env.h"
#include "proc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Defaults, in MiB (address space, file size) and processes. */
#define DEFAULT_AS_MIB (64L << 10)
#define DEFAULT_FSIZE_MIB (4L << 10)
#define DEFAULT_NPROC 4096L

typedef nc_limits limits;

/* The default address space of a case: half the machine's memory, at most
 * DEFAULT_AS_MIB, at least 4 GiB, so that a plugin that asks for more than
 * the machine has gets NULL instead of taking the machine down. */
static long default_as_mib(void)
{
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  long mib = pages > 0 && size > 0 ? (long)((long long)pages * size / 2 >> 20) : DEFAULT_AS_MIB;
  return mib > DEFAULT_AS_MIB ? DEFAULT_AS_MIB : mib < 4096 ? 4096 : mib;
}

/* NVE_CONFORM_LIMITS over the defaults; a value that does not parse
 * leaves the defaults (the run refuses it first: nc_contain_limits_check). */
static limits read_limits(void)
{
  limits l = {default_as_mib(), DEFAULT_FSIZE_MIB, DEFAULT_NPROC, 0};
  char err[160];
  nc_limits_parse(getenv("NVE_CONFORM_LIMITS"), &l, err, sizeof(err));
  return l;
}

int nc_contain_limits_check(char *err, size_t len)
{
  limits l = {0, 0, 0, 0};
  char why[200];
  const char *env = getenv("NVE_CONFORM_LIMITS");
  if (nc_limits_parse(env, &l, why, sizeof(why)) == 0)
    return 0;
  snprintf(err, len, "NVE_CONFORM_LIMITS: %s (got '%.64s'%s)", why, env,
           strlen(env) > 64 ? "..." : "");
  return -1;
}

const char *nc_contain_limits_text(void)
{
  static char text[160];
  limits l = read_limits();
  snprintf(text, sizeof(text), "address space %ld MiB, file size %ld MiB, %ld processes, no core "
           "files",
           l.as_mib, l.fsize_mib, l.nproc);
  return text;
}

int nc_contain_max_jobs(int want, char *note, size_t notelen)
{
  limits l = read_limits();
  note[0] = '\0';
  if (l.total_mib <= 0 || l.as_mib <= 0 || (long long)want * l.as_mib <= l.total_mib)
    return want;
  int can = (int)(l.total_mib / l.as_mib);
  if (can < 1)
    can = 1;
  snprintf(note, notelen,
           "%d cases at once would need %lld MiB (%ld MiB each), more than the run's %ld MiB "
           "(NVE_CONFORM_LIMITS total=); %d at once instead",
           want, (long long)want * l.as_mib, l.as_mib, l.total_mib, can);
  return can;
}

static void set_limit(int resource, rlim_t value)
{
  struct rlimit now;
  if (getrlimit(resource, &now) != 0)
    return;
  if (now.rlim_max != RLIM_INFINITY && value > now.rlim_max)
    value = now.rlim_max;
  struct rlimit want = {value, now.rlim_max};
  setrlimit(resource, &want);
}

/* The descriptor limit the case began with, before plugin code ran. */
static struct rlimit case_nofile;

int nc_contain_limits_lowered(char *why, size_t len)
{
  struct rlimit now;
  if (case_nofile.rlim_cur == 0 || getrlimit(RLIMIT_NOFILE, &now) != 0 ||
      now.rlim_cur >= case_nofile.rlim_cur)
    return 0;
  snprintf(why, len, "plugin code lowered RLIMIT_NOFILE to %llu (the case began with %llu)",
           (unsigned long long)now.rlim_cur, (unsigned long long)case_nofile.rlim_cur);
  return 1;
}

/* No core file, whatever plugin code asks: the hard limit 0 too, and
 * where the case holds CAP_SYS_RESOURCE (a harness run as root), that
 * capability dropped, so the hard limit cannot be raised again. */
static void no_core_files(void)
{
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
  if (syscall(SYS_capget, &head, caps) != 0 ||
      !(caps[CAP_TO_INDEX(CAP_SYS_RESOURCE)].permitted & CAP_TO_MASK(CAP_SYS_RESOURCE)))
    return;
  prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0); /* not regained through exec */
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_RESOURCE, 0, 0);
  for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
    if (i == CAP_TO_INDEX(CAP_SYS_RESOURCE)) {
      caps[i].effective &= ~CAP_TO_MASK(CAP_SYS_RESOURCE);
      caps[i].permitted &= ~CAP_TO_MASK(CAP_SYS_RESOURCE);
      caps[i].inheritable &= ~CAP_TO_MASK(CAP_SYS_RESOURCE);
    }
  syscall(SYS_capset, &head, caps);
}

void nc_contain_case(void)
{
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  getrlimit(RLIMIT_NOFILE, &case_nofile);
  limits l = read_limits();
  no_core_files();
  if (l.fsize_mib > 0)
    set_limit(RLIMIT_FSIZE, (rlim_t)l.fsize_mib << 20);
  if (l.nproc > 0)
    set_limit(RLIMIT_NPROC, (rlim_t)l.nproc);
  /* AddressSanitizer reserves terabytes of address space up front. */
  if (l.as_mib > 0 && !dlsym(RTLD_DEFAULT, "__asan_init"))
    set_limit(RLIMIT_AS, (rlim_t)l.as_mib << 20);
}

/* The children this process had when the run began (a program that calls
 * nc_run may have its own): never taken for orphans of a case. */
#define KNOWN_CHILDREN 256
static pid_t known_children[KNOWN_CHILDREN];
static size_t nknown_children;

static int known_child(pid_t pid)
{
  for (size_t i = 0; i < nknown_children; i++)
    if (known_children[i] == pid)
      return 1;
  return 0;
}

static int listed(pid_t pid, const pid_t *keep, size_t nkeep)
{
  for (size_t i = 0; i < nkeep; i++)
    if (keep[i] == pid)
      return 1;
  return 0;
}

/* Kills and reaps the children of this process (only_orphans: those that
 * were not its children when the run began), except those in keep; returns
 * how many it found. */
#define ROUND_CHILDREN 4096
static int kill_children(int only_orphans, const pid_t *keep, size_t nkeep)
{
  pid_t children[ROUND_CHILDREN];
  size_t n = nc_proc_children(getpid(), children, ROUND_CHILDREN);
  int found = 0;
  for (size_t i = 0; i < n && i < ROUND_CHILDREN; i++) {
    pid_t pid = children[i];
    if (listed(pid, keep, nkeep) || (only_orphans && known_child(pid)))
      continue;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
      ;
    found++;
  }
  return found; /* more than a round holds: the next round takes them */
}

void nc_contain_kill_children(void)
{
  /* Killing a child reparents its own children here: until none is left. */
  for (int round = 0; round < 64 && kill_children(0, NULL, 0) > 0; round++)
    ;
}

int nc_contain_run_begin(void)
{
  int was = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &was);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  size_t n = nc_proc_children(getpid(), known_children, KNOWN_CHILDREN);
  nknown_children = n < KNOWN_CHILDREN ? n : KNOWN_CHILDREN;
  return was;
}

void nc_contain_known_child(pid_t pid)
{
  if (nknown_children < KNOWN_CHILDREN && !known_child(pid))
    known_children[nknown_children++] = pid;
}

void nc_contain_run_end(int was_subreaper) { prctl(PR_SET_CHILD_SUBREAPER, was_subreaper); }

void nc_contain_reap_orphans(const pid_t *keep, size_t nkeep)
{
  /* Every child that is not a running case and was not there when the run
   * began came from a case: whatever it did to its environment (an empty
   * one hides the mark), session or process group. */
  for (int round = 0; round < 64 && kill_children(1, keep, nkeep) > 0; round++)
    ;
}
