/* SPDX-License-Identifier: Apache-2.0 */
/* nve-conform-case: runs one case in a fresh process for nve-conform (and
 * for any program that calls nc_run). It carries the allocation
 * interposer, so the allocation rules run wherever the library is used. */
#include "case_child.h"
#include "cases.h"

int main(int argc, char **argv)
{
  nc_engine_use_cases(&nc_builtin_cases);
  return nc_case_process_main(argc, argv);
}
