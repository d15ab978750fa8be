/* SPDX-License-Identifier: Apache-2.0 */
/* --sanitize: every case process under a memory-error detector, and each
 * error whose stack reaches into the plugin judged as a failure of the rule
 * whose case ran (or of the op's rule, when another case's call made it:
 * an invalid read in find is TBL-02's). valgrind memcheck needs nothing of
 * the plugin; AddressSanitizer needs a plugin built with it, whose runtime
 * the case process then loads first (LD_PRELOAD). */
#ifndef NC_SANITIZE_H
#define NC_SANITIZE_H

#include <limits.h>
#include <stddef.h>

#include "elf_info.h"
#include "report.h"

typedef enum { NC_SANITIZE_NONE = 0, NC_SANITIZE_VALGRIND, NC_SANITIZE_ASAN } nc_sanitize_mode;

/* "none", "valgrind", "asan"; nc_sanitize_parse returns -1 for others. */
const char *nc_sanitize_name(int mode);
int nc_sanitize_parse(const char *name);
/* How much slower cases run under the tool: the case time limits are
 * multiplied by it (the report says so). */
double nc_sanitize_slowdown(int mode);

/* The AddressSanitizer runtime a plugin file needs (its DT_NEEDED entry,
 * "libasan.so.8"), or NULL when it is not built with ASan. */
const char *nc_sanitize_asan_runtime(const nc_elf_info *elf);

typedef struct nc_sanitizer {
  int mode;
  char tool[PATH_MAX];  /* valgrind's path */
  char preload[256];    /* the ASan runtime the plugin needs (its DT_NEEDED name) */
  char dir[PATH_MAX];   /* where the cases' reports go (private, removed at the end) */
} nc_sanitizer;

/* The environment a case needs under the tool (asan: the runtime first,
 * the options with its own report file), in env (NULL-terminated, at most
 * 3 entries) with the strings in buf. */
void nc_sanitize_env(const nc_sanitizer *s, const char *rule_id, char *env[3], char *buf,
                     size_t buflen);

/* Finds the tool (or the plugin's ASan runtime) and makes the report
 * directory. 0, or -1 with a message for the user in err. */
int nc_sanitize_begin(nc_sanitizer *s, int mode, const char *plugin_path, char *err,
                      size_t errlen);
void nc_sanitize_end(nc_sanitizer *s);

/* The command line of a case under the tool: its argv (runner first) after
 * the tool's own arguments, in out (max entries, NULL-terminated); the
 * strings live in buf. Returns 0, or -1 when out or buf is too small. */
int nc_sanitize_argv(const nc_sanitizer *s, const char *rule_id, char *const *argv, char **out,
                     size_t max, char *buf, size_t buflen);

/* The exit status of a case process AddressSanitizer ended after its
 * report (it stops at the first error). */
#define NC_SANITIZE_ASAN_EXIT 87

/* After rule_id's case: reads its reports, judges the errors that reach
 * into the plugin (evidence, verdict, reason) and removes the reports.
 * exit_code: the case process's (an ASan stop is the error's, not a
 * failure of its own). */
void nc_sanitize_take(const nc_sanitizer *s, const char *rule_id, const char *plugin_path,
                      int exit_code, nc_result *res);

#endif
