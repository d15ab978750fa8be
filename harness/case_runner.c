/* SPDX-License-Identifier: Apache-2.0 */
/* nve-conform-case: runs one case in a fresh process for nve-conform (and
 * for any program that calls nc_run). It carries the allocation
 * interposer, so the allocation rules run wherever the library is used. */
#include "case_child.h"

int main(int argc, char **argv) { return nc_case_process_main(argc, argv); }
