/* SPDX-License-Identifier: Apache-2.0 */
#include "coverage.h"

#ifdef NC_COVERAGE
/* libgcov's entry point: merges this process's counters into the .gcda
 * files (under a file lock, so parallel case processes do not clobber one
 * another) and marks them written, so exit() does not count them twice. */
void __gcov_dump(void);

void nc_coverage_flush(void) { __gcov_dump(); }
#else
void nc_coverage_flush(void) {}
#endif
