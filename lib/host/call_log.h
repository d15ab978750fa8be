/* SPDX-License-Identifier: Apache-2.0 */
/* The call log: with NVE_CONFORM_CALL_LOG=FILE set, every case process
 * appends one line per table operation it makes to FILE ("insert n=100
 * stride=520 size=512 dtype=0"), so that bench/bare_calls can replay the
 * same calls without the harness around them (make bench-suite). */
#ifndef NC_CALL_LOG_H
#define NC_CALL_LOG_H

#include <stdint.h>

/* One line; costs a getenv once per process when the log is off. */
void nc_call_log(const char *op, int64_t n, int64_t stride, int64_t size, int dtype);
/* A find's line, written after the call: it ends in " hits=H", the keys
 * the find reported found (-1: no hit_mask to count), so that a replay
 * copies as many rows out as the plugin did. */
void nc_call_log_find(int64_t n, int64_t stride, int64_t hits);
/* Whether the log is on (what nc_call_log_find needs counted). */
int nc_call_log_on(void);

#endif
