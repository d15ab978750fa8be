/* SPDX-License-Identifier: Apache-2.0 */
/* Coverage builds (./configure --enable-coverage): gcov writes its counters
 * at exit(), which case processes never reach, so every way out that the
 * harness controls flushes them first. Elsewhere this does nothing. */
#ifndef NC_COVERAGE_H
#define NC_COVERAGE_H

void nc_coverage_flush(void);

#endif
