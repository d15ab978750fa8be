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
/* A find's line, written after the call: it also says " hits=H", the keys
 * the find reported found (-1: no hit_mask to count). */
void nc_call_log_find(const void *table, int64_t n, const void *keys, int key_size,
                      int64_t stride, int64_t hits);
/* A factory creation ("create") or produce after the call, with its
 * config (the text goes to the keys file: config=OFFSET:LEN; NULL:
 * config=-) and the status the plugin returned; table: the new table's
 * handle, or NULL. The replay makes the same calls with the same text. */
void nc_call_log_config(const char *op, const void *table, const char *config, int status);
/* Whether the log is on. */
int nc_call_log_on(void);

#endif
