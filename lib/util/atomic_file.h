/* SPDX-License-Identifier: Apache-2.0 */
/* Files: writing reports so that a reader never sees half of one (the text
 * goes to a temporary file beside the target, is flushed to disk, and is
 * renamed over the target), and reading inputs whole. */
#ifndef NC_ATOMIC_FILE_H
#define NC_ATOMIC_FILE_H

#include <stddef.h>

/* Writes len bytes of data to path atomically. Returns 0, or -1 with a
 * message in err. */
int nc_write_file_atomic(const char *path, const char *data, size_t len, char *err,
                         size_t errlen);

/* The whole of a (text) file, NUL-terminated, in a heap string; NULL when
 * it cannot be read (errno set). */
char *nc_read_file(const char *path);

#endif
