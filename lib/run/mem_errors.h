/* SPDX-License-Identifier: Apache-2.0 */
/* Memory errors as a sanitizer reported them (--sanitize): valgrind
 * memcheck's XML (--xml-file) and AddressSanitizer's log (log_path, with
 * symbolize=0), parsed into one shape: the kind, one line of what, and the
 * stack of the access, innermost frame first. Pure text in, data out. */
#ifndef NC_MEM_ERRORS_H
#define NC_MEM_ERRORS_H

#include <stddef.h>
#include <stdint.h>

#define NC_MEM_FRAMES 12

typedef struct nc_mem_frame {
  char obj[256];   /* the object file's path, or "" */
  char fn[128];    /* the function, or "" */
  char where[128]; /* "file.c:42" when the tool knew it, or "" */
  uint64_t offset; /* from the object's start (ASan), or 0 */
  int has_offset;
} nc_mem_frame;

typedef struct nc_mem_error {
  char kind[48];  /* "InvalidRead", "heap-buffer-overflow", ... */
  char what[200]; /* "Invalid read of size 8" */
  nc_mem_frame frames[NC_MEM_FRAMES];
  int nframes;
} nc_mem_error;

/* The errors in valgrind's XML output (leak records are not errors here:
 * the leak rules judge leaks). Returns how many were stored in out (at
 * most max); *seen gets how many the text holds. */
int nc_mem_parse_memcheck(const char *xml, nc_mem_error *out, int max, int *seen);
/* The same for an AddressSanitizer report ("==PID==ERROR: AddressSanitizer:
 * KIND ...", then "#N 0xADDR (OBJ+0xOFF)" frames). */
int nc_mem_parse_asan(const char *log, nc_mem_error *out, int max, int *seen);

#endif
