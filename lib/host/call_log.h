/* SPDX-License-Identifier: Apache-2.0 */
/* The call log: with NVE_CONFORM_CALL_LOG=FILE set, every case process
 * appends one line per table operation it makes to FILE ("insert n=100
 * stride=520 size=512 dtype=0 t=55d0c1e0 proc=9f3a... keys=4096"), and
 * the keys of each call of a HOST table (and the config text of each
 * creation and produce) to FILE.keys/PROC (keys=OFFSET:
 * where they start there; the runner makes the folder and keeps it
 * writable in the cases' sandbox), so that bench/bare_calls can replay the very
 * same calls, on as many tables, without the harness around them (make
 * bench-suite, make mutation-score). t names the table (its handle), proc
 * the case process (a random id: cases share PID 1 in their namespaces). */
#ifndef NC_CALL_LOG_H
#define NC_CALL_LOG_H

#include <stdint.h>

/* One call's line; keys (key_size bytes each, 0: not logged) go to the
 * keys file. Costs a getenv once per process when the log is off. */
void nc_call_log(const char *op, const void *table, int64_t n, const void *keys, int key_size,
                 int64_t stride, int64_t size, int dtype);
/* A find's line, written after the call (before it in a crash log): it
 * also says " hits=H", the keys the find reported found (-1: no hit_mask
 * to count, or not called yet), and " nulls=M", its outputs passed as NULL
 * (1 hit_mask, 2 values, 4 value_sizes). */
void nc_call_log_find(const void *table, int64_t n, const void *keys, int key_size,
                      int64_t stride, int64_t hits, int nulls);
/* A factory creation ("create") or produce after the call, with its
 * config (the text goes to the keys file: config=OFFSET:LEN; NULL:
 * config=-) and the status the plugin returned; table: the new factory's
 * or table's handle, or NULL; id: produce's table_id (in n=). The replay
 * makes the same calls with the same text. */
void nc_call_log_config(const char *op, const void *table, int64_t id, const char *config,
                        int status);
/* Whether the log is on. */
int nc_call_log_on(void);

/* The crash log (--repro): this case process's own calls, each table call
 * written before it is made (a factory creation or produce after it), to
 * path and its keys to path.keys (proc=0), so that
 * when plugin code ends the process inside a call the log holds the calls
 * up to that one (cases/kit/crash_repro.h replays them). At most
 * NC_CALL_LOG_CRASH_MAX bytes in each file (half RLIMIT_FSIZE, where that
 * is less); past that the log stops, with a line "cut". Must be
 * called before anything asks whether the log is on; the environment's
 * log is then not written. 0, or -1 when the files cannot be made. */
#define NC_CALL_LOG_CRASH_MAX (256ll << 20)
int nc_call_log_crash_open(const char *path);
/* Whether this process writes a crash log (never a child it forked). */
int nc_call_log_crash(void);
/* Whether a call in the callback named so ("table find (n=5)", callback.h)
 * has its line in the crash log: where a process that ended there can be
 * replayed up to. */
int nc_call_log_holds(const char *callback);
/* The number of the crash log's line this thread wrote last (lines other
 * than "cut" count from 0 in file order), or -1. */
long long nc_call_log_last_line(void);
#endif
