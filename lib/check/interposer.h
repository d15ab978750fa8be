/* SPDX-License-Identifier: Apache-2.0 */
/* What the programs that carry the interposer (interposer.c) add besides
 * the allocator: a hook that runs when plugin code calls _exit or _Exit,
 * so that nve-conform --no-fork can still write its report. */
#ifndef NC_INTERPOSER_H
#define NC_INTERPOSER_H

/* Called once, with the status, before the process ends; NULL: none. */
extern void (*nc_exit_hook)(int status);

#endif
