/* SPDX-License-Identifier: Apache-2.0 */
/* Writes the option table (cli_options.c) as README's markdown table or
 * the man page's OPTIONS, and the environment variables for both (make options-doc puts them in place;
 * tests/e2e/generated.test checks that they are). */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"

int main(int argc, char **argv)
{
  if (argc == 2 && strcmp(argv[1], "markdown") == 0)
    nc_cli_print_markdown(stdout);
  else if (argc == 2 && strcmp(argv[1], "man") == 0)
    nc_cli_print_man(stdout);
  else if (argc == 2 && strcmp(argv[1], "env-markdown") == 0)
    nc_cli_print_environment_markdown(stdout);
  else if (argc == 2 && strcmp(argv[1], "env-man") == 0)
    nc_cli_print_environment_man(stdout);
  else if (argc == 2 && strcmp(argv[1], "help") == 0)
    nc_cli_print_help(stdout);
  else {
    fprintf(stderr, "usage: options-doc markdown|man|env-markdown|env-man|help\n");
    return 2;
  }
  return 0;
}
