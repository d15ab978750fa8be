/* SPDX-License-Identifier: Apache-2.0 */
/* The case server's network namespaces (sandbox_steps.h): made once and
 * handed from case to case, one to each case alive at a time. Making one
 * per case cost more than the rest of a cheap case's sandbox (the
 * kernel's set-up, and its teardown in a kernel worker). A namespace
 * goes back to the pool only when its handler has been reaped: the
 * handler outlives the case's init, whose death ends every process of the
 * case, and with them every socket the case made; a case has no
 * capability over the namespace (it is the server's), so it leaves nothing
 * else in it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandbox_steps.h"

/* Cases alive at once (--jobs is at most 64) and handlers not reaped yet. */
#define POOL 96

static struct {
  int fd[POOL];
  volatile pid_t user[POOL]; /* the handler that holds it; 0: free */
  int count;
  int home;   /* the server's own namespace, to come back to */
  int broken; /* it could not come back once: no more are made */
} pool = {.count = 0, .home = -1, .broken = 0};

/* A new namespace, as the server's (it has every capability in its own
 * user namespace): entered, kept open, left. -1 when it cannot be. */
static int make_one(void)
{
  if (pool.broken ||
      (pool.home < 0 && (pool.home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0))
    return -1;
  if (unshare(CLONE_NEWNET) != 0)
    return -1;
  int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (setns(pool.home, CLONE_NEWNET) != 0) {
    /* Stuck in it: it stays the server's alone, and the cases make their
     * own from now on. */
    if (fd >= 0)
      close(fd);
    pool.broken = 1;
    return -1;
  }
  return fd;
}

int nc_sandbox_netns_take(void)
{
  sigset_t chld, was;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &was);
  int slot = -1;
  for (int i = 0; i < pool.count && slot < 0; i++)
    if (pool.user[i] == 0)
      slot = i;
  if (slot < 0 && pool.count < POOL && (pool.fd[pool.count] = make_one()) >= 0)
    slot = pool.count++;
  if (slot >= 0)
    pool.user[slot] = -1; /* taken; the handler's pid once it is forked */
  sigprocmask(SIG_SETMASK, &was, NULL);
  return slot;
}

void nc_sandbox_netns_held_by(int slot, pid_t handler)
{
  if (slot >= 0)
    pool.user[slot] = handler > 0 ? handler : 0;
}

void nc_sandbox_netns_release(pid_t handler)
{
  for (int i = 0; i < pool.count; i++)
    if (pool.user[i] == handler)
      pool.user[i] = 0;
}

int nc_sandbox_netns_enter(int slot, char *why, size_t len)
{
  int rc = 0;
  if (slot >= 0 && slot < pool.count && setns(pool.fd[slot], CLONE_NEWNET) != 0) {
    snprintf(why, len, "setns(a network namespace of the run): %s", strerror(errno));
    rc = -1;
  }
  /* None of them, nor the way home, goes on into the case. */
  for (int i = 0; i < pool.count; i++)
    close(pool.fd[i]);
  if (pool.home >= 0)
    close(pool.home);
  pool.count = 0;
  pool.home = -1;
  return rc;
}
