/* SPDX-License-Identifier: Apache-2.0 */
/* Files: writing reports so that a reader never sees half of one (the text
 * goes to a temporary file beside the target, is flushed to disk, and is
 * renamed over the target), and reading inputs whole. */
#ifndef NC_ATOMIC_FILE_H
#define NC_ATOMIC_FILE_H

#include <stddef.h>

/* A report path written in place rather than replaced: /dev/stdout,
 * /dev/stderr and /dev/fd/N always (a redirected stdout may be a regular
 * file, and must keep what was printed before), and any other path under
 * /dev/ that is not a regular file or directory (/dev/null, which discards
 * the report as asked, a terminal). Such a path is opened without blocking,
 * so a FIFO there with no reader is an error, not a hang. */
int nc_report_path_in_place(const char *path);

/* Whether a report can be written at path by rename: it is absent, a
 * regular file, or a symlink to a regular file (followed: the file is
 * replaced, the link stays). A FIFO, socket, device, directory, a symlink
 * to any of them, or a symlink to nothing is refused: 0, or -1 with the
 * reason in err ("'x' is not a regular file ..."). In-place paths pass. */
int nc_report_path_check(const char *path, char *err, size_t errlen);

/* Writes len bytes of data to path atomically (nc_report_path_check
 * first, again: the path may have changed since the run began). Returns 0,
 * or -1 with a message in err. */
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
