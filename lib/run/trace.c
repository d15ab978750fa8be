/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "trace.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "alloc.h"
#include "callback.h"
#include "context.h"
#include "coverage.h"
#include "cuda.h"
#include "guarded.h"
#include "record.h"
#include "rules.h"
#include "threads.h"
#include "violations.h"

static int channel_fd = -1;
static volatile sig_atomic_t channel_lost;

int nc_trace_fd(void) { return channel_fd; }
int nc_trace_channel_lost(void) { return channel_lost; }

/* The case's key: every record carries it, so that bytes plugin code
 * writes to the channel are not taken for the harness's. */
static char trace_key[NC_TRACE_KEY_MAX];

void nc_trace_set_key(const char *key)
{
  snprintf(trace_key, sizeof(trace_key), "%s", key ? key : "");
}

const char *nc_trace_key(void) { return trace_key; }

void nc_trace_record(const char *tag, size_t nfields, const char *const *fields)
{
  if (channel_fd < 0 || channel_lost)
    return;
  char keyed[NC_TRACE_KEY_MAX + 32];
  if (trace_key[0]) { /* "KEY:TAG" */
    snprintf(keyed, sizeof(keyed), "%s:%s", trace_key, tag);
    tag = keyed;
  }
  if (nc_record_write(channel_fd, tag, nfields, fields) != 0 && errno == EBADF)
    channel_lost = 1;
}

void nc_trace_beat(double expect_s)
{
  char secs[32];
  snprintf(secs, sizeof(secs), "%.1f", expect_s);
  const char *f[] = {secs};
  nc_trace_record("BEAT", expect_s > 0 ? 1 : 0, f);
}

/* Writes "module+0xoffset (symbol+0xdelta)" for a return address. */
static void describe_frame(void *addr, char *out, size_t outlen)
{
  Dl_info info;
  if (dladdr(addr, &info) && info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    uintptr_t off = (uintptr_t)addr - (uintptr_t)info.dli_fbase;
    if (info.dli_sname)
      snprintf(out, outlen, "%s+0x%lx (%s+0x%lx)", base, (unsigned long)off, info.dli_sname,
               (unsigned long)((uintptr_t)addr - (uintptr_t)info.dli_saddr));
    else
      snprintf(out, outlen, "%s+0x%lx", base, (unsigned long)off);
  } else {
    snprintf(out, outlen, "%p", addr);
  }
}

/* 1 for a write, 0 for a read, -1 when the machine does not say. */
static int fault_was_write(const void *uc)
{
#if defined(__x86_64__) && defined(REG_ERR)
  if (uc)
    return (((const ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#endif
  (void)uc;
  return -1;
}

/* The plugin's file name, for crashes on threads that are in no callback. */
static char plugin_base[256];

void nc_trace_set_plugin(const char *path)
{
  const char *base = path ? strrchr(path, '/') : NULL;
  snprintf(plugin_base, sizeof(plugin_base), "%s", base ? base + 1 : path ? path : "");
}

/* The instruction that faulted, from the signal's context (NULL: unknown). */
static const void *fault_pc(const void *uc)
{
#if defined(__x86_64__) && defined(REG_RIP)
  if (uc)
    return (const void *)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  if (uc)
    return (const void *)((const ucontext_t *)uc)->uc_mcontext.pc;
#endif
  (void)uc;
  return NULL;
}

/* Whether pc lies in the plugin's own file (a thread it started, outside
 * any callback). */
static int pc_in_plugin(const void *pc)
{
  Dl_info info;
  if (!pc || !plugin_base[0] || !dladdr(pc, &info) || !info.dli_fname)
    return 0;
  const char *base = strrchr(info.dli_fname, '/');
  return strcmp(base ? base + 1 : info.dli_fname, plugin_base) == 0;
}

/* Whether the instruction that faulted lies in no loaded object: code
 * that was unloaded under a thread still running it, which only a plugin
 * (dlclosed by LIF-04, or unloading itself) leaves behind. */
static int pc_unmapped(const void *pc)
{
  Dl_info info;
  return pc && !dladdr(pc, &info);
}

/* Reports the signal, the callback it hit and a backtrace, then dies of the
 * same signal so the parent sees it. dladdr and snprintf are not strictly
 * async-signal-safe; the process is going down either way, and the parent
 * still learns the signal from waitpid if this handler itself fails. */
static void on_crash(int signo, siginfo_t *si, void *uc)
{
  /* A touch of retired scratch or of a buffer's guard is a recorded
   * violation, not a crash. */
  if ((signo == SIGSEGV || signo == SIGBUS) && si &&
      (nc_context_recover_fault(si->si_addr) ||
       nc_guarded_recover_fault(si->si_addr, fault_was_write(uc)) ||
       nc_cuda_recover_fault(si->si_addr)))
    return;
  char sig[16], origin[64];
  snprintf(sig, sizeof(sig), "%d", signo);
  /* A fault has an address; a signal sent (abort, kill, raise) a sender. */
  if (si && si->si_code <= 0 && si->si_pid == getpid())
    snprintf(origin, sizeof(origin), "raised by the process itself (abort() or raise())");
  else if (si && si->si_code <= 0)
    snprintf(origin, sizeof(origin), "sent by process %d", (int)si->si_pid);
  else
    snprintf(origin, sizeof(origin), "at address %p", si ? si->si_addr : NULL);
  /* The crashing thread's own callback ("" when it was in harness code). */
  const char *where = nc_callback_current();
  const void *pc = fault_pc(uc);
  if (!where && (signo == SIGSEGV || signo == SIGBUS || signo == SIGILL) && pc_unmapped(pc))
    where = "plugin code that was unloaded (a thread the plugin left running)";
  else if (!where && pc_in_plugin(pc))
    where = "plugin code on a thread the plugin started";
  int owner = nc_callback_owner();
  const char *owner_id = owner >= 0 && owner < NC_RULE_COUNT ? nc_rule_defs[owner].info.id : "";
  const char *f[] = {sig, where ? where : "", origin, owner_id};
  nc_trace_record("CRASH", 4, f);
  void *frames[48];
  int n = backtrace(frames, 48);
  for (int i = 2; i < n; i++) { /* skip this handler and the signal trampoline */
    char line[512];
    /* Frame 2 is where the signal struck; the others are return addresses,
     * which point after their call: one byte back names the caller. */
    describe_frame((char *)frames[i] - (i > 2), line, sizeof(line));
    const char *ff[] = {line};
    nc_trace_record("FRAME", 1, ff);
  }
  nc_coverage_flush();
  signal(signo, SIG_DFL);
  raise(signo);
}

/* The handlers the harness's memory checks rely on (a write past a buffer
 * faults on its guard page), as installed. */
static const int guarded_signals[] = {SIGSEGV, SIGBUS};
static struct sigaction installed[2];
static int handlers_set;

/* After each plugin callback: a plugin that replaced one of them (to make
 * a guard page writable and retry, say) breaks its host's crash handling
 * and hides its own overruns. ERR-05's, with where; the harness's goes
 * back at once so the rest of the case is checked as before. */
static void check_handlers(void)
{
  for (size_t i = 0; handlers_set && i < 2; i++) {
    struct sigaction now;
    if (sigaction(guarded_signals[i], NULL, &now) != 0 ||
        now.sa_sigaction == installed[i].sa_sigaction)
      continue;
    const char *where = nc_callback_current();
    nc_violation_recordf(NC_RULE_ERR_05, "plugin code replaced the host's %s handler (seen on "
                         "return from %s); a host's crash handling and memory checks rely on it",
                         guarded_signals[i] == SIGSEGV ? "SIGSEGV" : "SIGBUS",
                         where ? where : "a plugin callback");
    sigaction(guarded_signals[i], &installed[i], NULL);
  }
}

void nc_trace_start(int fd, char *phase_page)
{
  channel_fd = fd;
  channel_lost = 0;
  nc_callback_share(phase_page);
  if (fd < 0)
    return;
  /* Load the unwinder now: backtrace() would otherwise dlopen it inside the
   * crash handler. */
  void *warm[2];
  backtrace(warm, 2);

  nc_thread_altstack();
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_crash;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
  for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
    sigaction(sigs[i], &sa, NULL);
  /* As they read back (a sanitizer's runtime may keep its own). */
  for (size_t i = 0; i < 2; i++)
    sigaction(guarded_signals[i], NULL, &installed[i]);
  handlers_set = 1;
  nc_callback_set_leave_hook(check_handlers);
}
