/* SPDX-License-Identifier: Apache-2.0 */
/* nve-conform-case: runs one case in a fresh process for nve-conform (and
 * for any program that calls nc_run). It carries the allocation
 * interposer, so the allocation rules run wherever the library is used. */
#include "case_child.h"
#include "cases.h"
#include "sandbox.h"

int main(int argc, char **argv)
{
  /* Started as the sandbox's case server: set it up, then start each case
   * the harness asks for inside: a tool around this one, or this one,
   * which goes on here as the case (in a fork of the server). */
  if (nc_sandbox_is_launch(argc, argv)) {
    char **case_argv;
    int status = nc_sandbox_launch(argc, argv, &case_argv);
    if (status != NC_SANDBOX_GO_ON)
      return status;
    for (argc = 0; case_argv[argc]; argc++)
      ;
    argv = case_argv;
  }
  nc_engine_use_cases(&nc_builtin_cases);
  return nc_case_process_main(argc, argv);
}
