/* SPDX-License-Identifier: Apache-2.0 */
/* Coverage builds (./configure --enable-coverage): gcov writes its counters
 * at exit(), which case processes never reach, so every way out that the
 * harness controls flushes them first. Elsewhere this does nothing. */
#ifndef NC_COVERAGE_H
#define NC_COVERAGE_H

void nc_coverage_flush(void);
/* Where the counters are written (the build tree), which a sandboxed
 * case must be able to write; NULL outside coverage builds. */
const char *nc_coverage_dir(void);

#endif
