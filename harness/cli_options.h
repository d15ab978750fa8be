/* SPDX-License-Identifier: Apache-2.0 */
/* The command line's options, declared once: the typed rows drive parsing
 * (getopt's long and short options, each argument's type and range),
 * --help, README's option table and the man page's OPTIONS
 * (harness/options_doc.c writes both; make options-doc, and
 * tests/e2e/generated.test fails when they drifted). */
#ifndef NC_CLI_OPTIONS_H
#define NC_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "nve_conform.h"

/* What an option's argument is, and so how it is parsed and checked. */
typedef enum nc_arg_type {
  NC_ARG_FLAG,    /* no argument: the int member becomes 1 */
  NC_ARG_TEXT,    /* the argument as given (const char *) */
  NC_ARG_LIST,    /* comma-separated names, appended (nc_cli_list) */
  NC_ARG_INT,     /* a whole decimal number in [min, max] (int) */
  NC_ARG_LONG,    /* the same (long) */
  NC_ARG_U64,     /* a non-negative decimal integer (uint64_t) */
  NC_ARG_NUMBER,  /* a finite decimal number in [min, max] (double) */
  NC_ARG_WORD,    /* one of word(0), word(1), ...: its index (int) */
  NC_ARG_ABI,     /* MAJOR.MINOR, two unsigned decimals (host_abi_major/minor) */
} nc_arg_type;

#define NC_CLI_MAX_FILTERS 64
typedef struct nc_cli_list {
  const char *items[NC_CLI_MAX_FILTERS + 1]; /* NULL-terminated */
  size_t n;
} nc_cli_list;

/* The report files, in the order they are written. */
enum { NC_CLI_JSON, NC_CLI_JUNIT, NC_CLI_TAP, NC_CLI_SARIF, NC_CLI_HTML, NC_CLI_REPORTS };
enum { NC_CLI_COLOUR_AUTO, NC_CLI_COLOUR_NEVER, NC_CLI_COLOUR_ALWAYS };
enum { NC_CLI_PROGRESS_AUTO, NC_CLI_PROGRESS_LINES, NC_CLI_PROGRESS_OFF };

#define NC_CLI_MAX_OPTIONS 64

/* Everything the command line sets: the run's options and what only the
 * program uses. Zero (after nc_cli_init) is every option's default. */
typedef struct nc_cli {
  nc_options opt;
  nc_cli_list rules, families;
  const char *report_path[NC_CLI_REPORTS];
  int list, quiet, help, version;
  int colour;   /* NC_CLI_COLOUR_* */
  int progress; /* NC_CLI_PROGRESS_* */
  int markdown; /* --format: 0 text, 1 markdown */
  const char *explain;
  const char *plugin; /* the one operand */
  unsigned char given[NC_CLI_MAX_OPTIONS]; /* by row: the option was on the line */
  char *error;  /* the first usage error, or NULL */
} nc_cli;

/* One option, one row: how it is spelled, what its argument is and may
 * be, the member it sets, and its help. Parsing, range checks, --help,
 * README's table and the man page all read it. */
typedef struct nc_cli_option {
  const char *name;    /* the long name, without "--" */
  int short_name;      /* the letter, or 0 */
  const char *arg;     /* the argument's name, or NULL for a flag */
  nc_arg_type type;
  double min, max;     /* NC_ARG_INT, _LONG, _NUMBER: the range */
  const char *(*word)(int); /* NC_ARG_WORD: the words; "?" past the last */
  size_t member;       /* offsetof(nc_cli, ...) */
  const char *section; /* where --help lists it */
  const char *help;    /* what it does; {range}, {words} and {abi} are filled in */
} nc_cli_option;

extern const nc_cli_option nc_cli_options[];
extern const size_t nc_cli_option_count;

/* The row of an option by its long name (NULL when none). */
const nc_cli_option *nc_cli_option_named(const char *name);
/* Whether the option of that long name was on the command line. */
int nc_cli_given(const nc_cli *c, const char *name);
/* "--json" for the row that sets report_path[kind]. */
const char *nc_cli_report_flag(int kind);

void nc_cli_init(nc_cli *c);
/* Parses argv by the rows into c; the first problem goes to c->error. */
void nc_cli_parse(nc_cli *c, int argc, char **argv);
void nc_cli_error(nc_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The environment variables the programs (and the simulated CUDA runtime)
 * read: README's and the man page's ENVIRONMENT come from here, and
 * tests/e2e/generated.test fails when the source reads one not listed. */
typedef struct nc_cli_env {
  const char *name;
  const char *help; /* `code` is set in bold on the man page */
} nc_cli_env;

extern const nc_cli_env nc_cli_environment[];
extern const size_t nc_cli_environment_count;

/* --help (wrapped to 80 columns), README's table (markdown), the man
 * page's OPTIONS (roff). */
void nc_cli_print_help(FILE *out);
void nc_cli_print_markdown(FILE *out);
void nc_cli_print_man(FILE *out);
/* The environment variables: README's table, the man page's ENVIRONMENT. */
void nc_cli_print_environment_markdown(FILE *out);
void nc_cli_print_environment_man(FILE *out);

#endif
