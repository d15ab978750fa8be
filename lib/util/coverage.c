/* SPDX-License-Identifier: Apache-2.0 */
#include "coverage.h"

#include <stddef.h>

#ifdef NC_COVERAGE
/* libgcov's entry point: merges this process's counters into the .gcda
 * files (under a file lock, so parallel case processes do not clobber one
 * another) and marks them written, so exit() does not count them twice. */
void __gcov_dump(void);

void nc_coverage_flush(void) { __gcov_dump(); }
#ifdef NC_COVERAGE_DIR
const char *nc_coverage_dir(void) { return NC_COVERAGE_DIR; }
#else
const char *nc_coverage_dir(void) { return NULL; }
#endif
#else
void nc_coverage_flush(void) {}
const char *nc_coverage_dir(void) { return NULL; }
#endif
