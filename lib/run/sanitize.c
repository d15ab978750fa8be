/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "sanitize.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calls.h"
#include "case_table.h"
#include "elf_info.h"
#include "mem_errors.h"
#include "rules.h"

/* Errors listed in a rule's evidence; the rest are counted. */
#define SHOWN_ERRORS 5
/* The most errors read from one case. */
#define READ_ERRORS 64
/* A report larger than this is read only that far. */
#define REPORT_MAX (4 << 20)

const char *nc_sanitize_name(int mode)
{
  static const char *const names[] = {"none", "valgrind", "asan"};
  return mode >= 0 && mode <= NC_SANITIZE_ASAN ? names[mode] : "?";
}

int nc_sanitize_parse(const char *name)
{
  for (int m = NC_SANITIZE_NONE; m <= NC_SANITIZE_ASAN; m++)
    if (strcmp(name, nc_sanitize_name(m)) == 0)
      return m;
  return -1;
}

double nc_sanitize_slowdown(int mode)
{
  /* memcheck runs code 20 to 50 times slower, and one thread at a time;
   * the harness's own checks dominate a case, so 20 is what cases need. */
  return mode == NC_SANITIZE_VALGRIND ? 20.0 : mode == NC_SANITIZE_ASAN ? 3.0 : 1.0;
}

const char *nc_sanitize_asan_runtime(const nc_elf_info *elf)
{
  for (size_t i = 0; i < elf->needed_count; i++)
    if (strncmp(elf->needed[i], "libasan.so", 10) == 0)
      return elf->needed[i];
  return NULL;
}

/* An executable named name in PATH, into out. 0, or -1. */
static int find_in_path(const char *name, char *out, size_t len)
{
  const char *path = getenv("PATH");
  char copy[4096];
  snprintf(copy, sizeof(copy), "%s", path ? path : "/usr/bin:/bin");
  for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir;
       dir = strtok_r(NULL, ":", &save)) {
    snprintf(out, len, "%s/%s", dir[0] ? dir : ".", name);
    if (access(out, X_OK) == 0)
      return 0;
  }
  return -1;
}

int nc_sanitize_begin(nc_sanitizer *s, int mode, const char *plugin_path, char *err,
                      size_t errlen)
{
  memset(s, 0, sizeof(*s));
  s->mode = mode;
  if (mode == NC_SANITIZE_NONE)
    return 0;
  if (mode == NC_SANITIZE_VALGRIND && find_in_path("valgrind", s->tool, sizeof(s->tool)) != 0) {
    snprintf(err, errlen, "--sanitize valgrind: valgrind is not installed (not found in PATH)");
    return -1;
  }
  if (mode == NC_SANITIZE_ASAN) {
    nc_elf_info info;
    char why[256];
    nc_elf_inspect_file(plugin_path, &info, why, sizeof(why));
    const char *runtime = nc_sanitize_asan_runtime(&info);
    snprintf(s->preload, sizeof(s->preload), "%s", runtime ? runtime : "");
    nc_elf_info_clear(&info);
    if (!s->preload[0]) {
      snprintf(err, errlen, "--sanitize asan: the plugin is not built with AddressSanitizer (it "
               "does not link libasan); use --sanitize valgrind, which needs no rebuild");
      return -1;
    }
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(s->dir, sizeof(s->dir), "%s/nve-conform-sanitize.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(s->dir)) {
    snprintf(err, errlen, "--sanitize: cannot make a directory for the tool's reports in %s",
             tmp && tmp[0] ? tmp : "/tmp");
    s->dir[0] = '\0';
    return -1;
  }
  return 0;
}

void nc_sanitize_env(const nc_sanitizer *s, const char *rule_id, char *env[3], char *buf,
                     size_t buflen)
{
  env[0] = NULL;
  if (s->mode != NC_SANITIZE_ASAN)
    return;
  /* Reports to a file per case that the parent reads; no leak check
   * (LIF-03 and OWN-04 judge leaks); the harness's crash handler keeps
   * SIGSEGV and SIGABRT. */
  int a = snprintf(buf, buflen, "LD_PRELOAD=%s", s->preload);
  if (a < 0 || (size_t)a + 1 >= buflen)
    return;
  char *opts = buf + a + 1;
  int b = snprintf(opts, buflen - (size_t)a - 1,
                   "ASAN_OPTIONS=log_path=%s/%s:exitcode=%d:detect_leaks=0:symbolize=0:"
                   "handle_segv=0:handle_abort=0:allow_user_segv_handler=1:"
                   "verify_asan_link_order=0",
                   s->dir, rule_id, NC_SANITIZE_ASAN_EXIT);
  if (b < 0 || (size_t)b >= buflen - (size_t)a - 1)
    return;
  env[0] = buf;
  env[1] = opts;
  env[2] = NULL;
}

void nc_sanitize_end(nc_sanitizer *s)
{
  if (!s->dir[0])
    return;
  DIR *d = opendir(s->dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.')
      unlinkat(dirfd(d), e->d_name, 0);
  if (d)
    closedir(d);
  rmdir(s->dir);
  s->dir[0] = '\0';
}

int nc_sanitize_argv(const nc_sanitizer *s, const char *rule_id, char *const *argv, char **out,
                     size_t max, char *buf, size_t buflen)
{
  size_t n = 0;
  if (s->mode == NC_SANITIZE_VALGRIND) {
    int w = snprintf(buf, buflen, "--xml-file=%s/%s.%%p.xml", s->dir, rule_id);
    if (w < 0 || (size_t)w >= buflen)
      return -1;
    char *const tool_args[] = {(char *)s->tool, "-q", "--tool=memcheck", "--leak-check=no",
                               "--vgdb=no", "--xml=yes", buf, "--child-silent-after-fork=yes"};
    for (size_t i = 0; i < sizeof(tool_args) / sizeof(tool_args[0]); i++) {
      if (n + 1 >= max)
        return -1;
      out[n++] = tool_args[i];
    }
  }
  for (size_t i = 0; argv[i]; i++) {
    if (n + 1 >= max)
      return -1;
    out[n++] = argv[i];
  }
  out[n] = NULL;
  return 0;
}

/* The file's text, up to REPORT_MAX bytes (heap, NUL-terminated), or NULL. */
static char *read_report(int dirfd_, const char *name)
{
  int fd = openat(dirfd_, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return NULL;
  char *text = malloc(REPORT_MAX + 1);
  size_t len = 0;
  ssize_t got;
  while (text && len < REPORT_MAX && (got = read(fd, text + len, REPORT_MAX - len)) > 0)
    len += (size_t)got;
  close(fd);
  if (text)
    text[len] = '\0';
  return text;
}

static int same_file(const char *a, const char *b)
{
  struct stat sa, sb;
  return a[0] && b[0] && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* "probe (plugin.c:42)", "plugin.so+0x1189 (probe+0x9)", or "plugin.so". */
static void describe(const nc_mem_frame *f, char *out, size_t len)
{
  const char *base = strrchr(f->obj, '/');
  base = base ? base + 1 : f->obj;
  char sym[160] = "";
  if (!f->fn[0] && f->has_offset)
    nc_elf_symbolize_file(f->obj, f->offset, sym, sizeof(sym));
  if (f->fn[0])
    snprintf(out, len, "%s (%s%s%s)", f->fn, base, f->where[0] ? ", " : "", f->where);
  else if (f->has_offset)
    snprintf(out, len, "%s+0x%llx%s%s%s", base, (unsigned long long)f->offset, sym[0] ? " (" : "",
             sym, sym[0] ? ")" : "");
  else
    snprintf(out, len, "%s", base);
}

/* The function of a harness frame, resolved from the file when the tool
 * did not name it. */
static void frame_function(const nc_mem_frame *f, char *out, size_t len)
{
  out[0] = '\0';
  if (f->fn[0])
    snprintf(out, len, "%s", f->fn);
  else if (f->has_offset)
    nc_elf_symbolize_file(f->obj, f->offset, out, len);
}

/* The rule of the table op whose call reached the plugin: the harness's
 * call wrapper below the plugin frames names it ("nc_call_erase",
 * "find_once"). -1 when none does. */
static int op_owner(const char *fn)
{
  static const char wrapper[] = "nc_call_";
  if (strncmp(fn, "find_once", 9) == 0)
    return nc_op_rule("find");
  return strncmp(fn, wrapper, sizeof(wrapper) - 1) == 0 ? nc_op_rule(fn + sizeof(wrapper) - 1)
                                                         : -1;
}

/* One error, judged: nothing when no frame is the plugin's. Returns 1 when
 * judged, with the owner of the call in *owner (-1: the case's own). */
static int judge(const nc_mem_error *e, const char *plugin, const char *tool, nc_result *res,
                 int shown, int *owner)
{
  int first = -1;
  for (int i = 0; i < e->nframes && first < 0; i++)
    if (same_file(e->frames[i].obj, plugin))
      first = i;
  if (first < 0)
    return 0;
  char at[300], caller[160] = "";
  describe(&e->frames[first], at, sizeof(at));
  *owner = -1;
  for (int i = first + 1; i < e->nframes; i++) {
    if (same_file(e->frames[i].obj, plugin))
      continue;
    frame_function(&e->frames[i], caller, sizeof(caller));
    *owner = op_owner(caller);
    break;
  }
  if (shown >= SHOWN_ERRORS)
    return 1;
  char call[96], observed[600];
  snprintf(call, sizeof(call), "%s: %s", tool, e->kind);
  snprintf(observed, sizeof(observed), "%s in %s%s%s", e->what, at,
           caller[0] ? ", called from " : "", caller);
  nc_result_add_evidence(res, NC_LEVEL_FAIL, call, "no invalid memory use in plugin code", observed);
  if (shown == 0)
    nc_result_set_reason(res, "%s: %s", call, observed);
  return 1;
}

void nc_sanitize_take(const nc_sanitizer *s, const char *rule_id, const char *plugin_path,
                      int exit_code, nc_result *res)
{
  if (s->mode == NC_SANITIZE_NONE || !s->dir[0])
    return;
  const char *tool = s->mode == NC_SANITIZE_VALGRIND ? "memcheck" : "AddressSanitizer";
  char prefix[64]; /* RULE.PID.xml (valgrind), RULE.PID (asan) */
  snprintf(prefix, sizeof(prefix), "%s.", rule_id);
  DIR *d = opendir(s->dir);
  if (!d)
    return;
  static nc_mem_error errors[READ_ERRORS];
  int judged = 0, owner = -2, any_own = 0;
  size_t before = res->nevidence;
  struct dirent *ent;
  while ((ent = readdir(d)) != NULL) {
    if (strncmp(ent->d_name, prefix, strlen(prefix)) != 0)
      continue;
    char *text = read_report(dirfd(d), ent->d_name);
    unlinkat(dirfd(d), ent->d_name, 0);
    int seen = 0, n = s->mode == NC_SANITIZE_VALGRIND
                          ? nc_mem_parse_memcheck(text, errors, READ_ERRORS, &seen)
                          : nc_mem_parse_asan(text, errors, READ_ERRORS, &seen);
    free(text);
    for (int i = 0; i < n; i++) {
      int o;
      if (!judge(&errors[i], plugin_path, tool, res, judged, &o))
        continue;
      judged++;
      if (o < 0 || &nc_rule_defs[o].info == res->rule)
        any_own = 1;
      else if (owner == -2)
        owner = o;
    }
  }
  closedir(d);
  if (!judged)
    return;
  /* The tool's evidence first: it is the cause of whatever else the case
   * saw (an ASan stop ends the process). */
  size_t added = res->nevidence - before;
  nc_evidence *moved = malloc(added * sizeof(*moved));
  if (moved) {
    memcpy(moved, res->evidence + before, added * sizeof(*moved));
    memmove(res->evidence + added, res->evidence, before * sizeof(*moved));
    memcpy(res->evidence, moved, added * sizeof(*moved));
    free(moved);
  }
  if (judged > SHOWN_ERRORS)
    nc_result_add_evidence(res, NC_LEVEL_NOTE, tool, "no invalid memory use in plugin code",
                           judged - SHOWN_ERRORS == 1 ? "1 more error of plugin code"
                                                      : "more errors of plugin code (the tool's "
                                                        "reports were read in full)");
  /* A case AddressSanitizer stopped failed because of the error alone. */
  int stopped = s->mode == NC_SANITIZE_ASAN && exit_code == NC_SANITIZE_ASAN_EXIT;
  int was_failed = !stopped && (res->verdict == NC_VERDICT_FAIL || res->verdict == NC_VERDICT_WARN);
  res->verdict = res->rule->severity == NC_MUST ? NC_VERDICT_FAIL : NC_VERDICT_WARN;
  res->skip = NC_SKIP_UNTESTED;
  res->blocked_by = NULL;
  /* Every error in an op another rule owns, and no failure of its own:
   * that rule's defect if its case saw it too (nc_attribute_blocks). */
  if (!any_own && owner >= 0 && !was_failed) {
    res->failure_owners[0] = &nc_rule_defs[owner].info;
    res->nfailure_owners = 1;
  } else {
    res->nfailure_owners = 0;
  }
  res->owner_proven = 0; /* a memory error is no control's proof */
}
