/* SPDX-License-Identifier: Apache-2.0 */
/* Which plugin callback a thread is running, so that a crash, a hang or an
 * exit inside plugin code is blamed on the right callback, and so that the
 * allocation accounting knows when plugin code runs.
 *
 * Each thread has its own name (a crash is attributed to the callback of
 * the thread that crashed); the last name entered by any thread is also
 * copied to a page the parent process can read after a hang. */
#ifndef NC_CALLBACK_H
#define NC_CALLBACK_H

#define NC_CALLBACK_NAME_MAX 128

/* Names the plugin callback this thread is about to run (printf format). */
void nc_callback_enter(const char *name);
void nc_callbackf_enter(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Back in harness code on this thread. */
void nc_callback_leave(void);
/* Called on every return from plugin code, while the callback's name is
 * still current (the crash handler's check that plugin code left the
 * host's handlers alone). NULL: none. */
void nc_callback_set_leave_hook(void (*hook)(void));
/* The callback this thread is in, or NULL. Async-signal-safe. */
const char *nc_callback_current(void);
/* The page (NC_CALLBACK_NAME_MAX bytes, shared with the parent) that gets
 * the last entered name; NULL: private memory. Its first byte is 0 when no
 * callback runs. */
void nc_callback_share(char *page);
/* A small number for the calling thread (1 for the first that asks), for
 * evidence. Async-signal-safe. */
int nc_callback_thread(void);
/* The name last entered on any thread (the shared page), or NULL. */
const char *nc_callback_last(void);

/* The rule a crash inside the table op in progress is charged to: the
 * op's own (calls.c sets it for each op: TBL-08 for an erase), unless a
 * case claimed its next calls for a narrower rule (a find with a NULL
 * output is TBL-05's). -1: none. Async-signal-safe to read. */
void nc_callback_set_op_owner(int rule);
void nc_callback_claim(int rule);
int nc_callback_owner(void);

#endif
