/* SPDX-License-Identifier: Apache-2.0 */
/* nve-conform-case: runs one case in a fresh process for nve-conform (and
 * for any program that calls nc_run). It carries the allocation
 * interposer, so the allocation rules run wherever the library is used. */
#include "case_child.h"
#include "cases.h"
#include "sandbox.h"

int main(int argc, char **argv)
{
  /* Started as the sandbox's launcher: set it up, then run the case's
   * program (this one again, or the tool around it) inside. */
  if (nc_sandbox_is_launch(argc, argv))
    return nc_sandbox_launch(argc, argv);
  nc_engine_use_cases(&nc_builtin_cases);
  return nc_case_process_main(argc, argv);
}
