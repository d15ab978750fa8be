/* SPDX-License-Identifier: Apache-2.0 */
/* The command line's options, declared once: the table drives parsing
 * (getopt's long and short options), --help, README's option table and
 * the man page's OPTIONS (harness/options_doc.c writes both; make
 * options-doc, and tests/e2e/generated.test fails when they drifted). */
#ifndef NC_CLI_OPTIONS_H
#define NC_CLI_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* getopt's value of the options without a short form. */
enum {
  OPT_FACTORY = 256, OPT_TABLE, OPT_HOST_ABI, OPT_SEED, OPT_TIMEOUT, OPT_NO_FORK, OPT_JSON,
  OPT_JUNIT, OPT_STRICT, OPT_COLOR, OPT_WORKERS, OPT_SCHEDULE, OPT_PROFILE, OPT_SWEEP_K,
  OPT_TAP, OPT_SARIF, OPT_WAIVERS, OPT_BASELINE, OPT_STRESS, OPT_HTML, OPT_CUDA,
  OPT_SIM_DEVICES, OPT_BASELINE_ANY, OPT_FORMAT, OPT_EXPLAIN, OPT_EVIDENCE, OPT_SANITIZE
};

typedef struct nc_cli_option {
  const char *name;    /* the long name, without "--" */
  int id;              /* getopt's value: the short letter, or an OPT_ value */
  const char *arg;     /* the argument's name, or NULL for a flag */
  const char *section; /* where --help lists it */
  const char *help;    /* what it does (one paragraph) */
} nc_cli_option;

extern const nc_cli_option nc_cli_options[];
extern const size_t nc_cli_option_count;

/* The environment variables the programs (and the simulated CUDA runtime)
 * read: README's and the man page's ENVIRONMENT come from here, and
 * tests/e2e/generated.test fails when the source reads one not listed. */
typedef struct nc_cli_env {
  const char *name;
  const char *help; /* `code` is set in bold on the man page */
} nc_cli_env;

extern const nc_cli_env nc_cli_environment[];
extern const size_t nc_cli_environment_count;

/* getopt_long's tables from nc_cli_options: longopts has count + 1
 * entries, shortopts room for 3 characters per option + 2. */
void nc_cli_getopt_tables(struct option *longopts, char *shortopts);
/* --help (wrapped to 80 columns), README's table (markdown), the man
 * page's OPTIONS (roff). */
void nc_cli_print_help(FILE *out);
void nc_cli_print_markdown(FILE *out);
void nc_cli_print_man(FILE *out);
/* The environment variables: README's table, the man page's ENVIRONMENT. */
void nc_cli_print_environment_markdown(FILE *out);
void nc_cli_print_environment_man(FILE *out);

#endif
