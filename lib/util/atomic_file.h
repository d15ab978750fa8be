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

/* Inputs larger than this are refused rather than read. */
#define NC_INPUT_MAX (64 << 20)

/* The whole of a (text) file, NUL-terminated, in a heap string; NULL with
 * a message in err ("cannot open 'x': ...") when it cannot be read, is not
 * a regular file (a FIFO, a device: reading would block or never end), or
 * is larger than NC_INPUT_MAX. */
char *nc_read_file(const char *path, char *err, size_t errlen);

/* From a SIGINT or SIGTERM handler: removes the temporary file a report
 * being written right now has (async-signal-safe). */
void nc_write_file_abort(void);

#endif
