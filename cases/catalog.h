/* SPDX-License-Identifier: Apache-2.0 */
/* The case table: every rule the harness checks, declared once.
 *
 * NC_CASES expands X(id, family, severity, applies_to, stage, fn, title,
 * clause) for each rule; catalog.c expands it into the prototypes and into
 * the table. Adding a rule is one line here plus its function in
 * cases/<family>.c. Keep IDs stable once published; never reuse one. */
#ifndef NC_CATALOG_H
#define NC_CATALOG_H

#include "case_api.h"

#define NC_CASES(X)                                                                             \
  X("SYM-06", SYM, NC_MUST, NC_APPLIES_ANY, NC_STAGE_FILE, nc_case_sym_06,                      \
    "The file is an ELF shared object for this machine and opens with RTLD_NOW | RTLD_LOCAL",  \
    "abi.md §3 Loading and versioning")                                                         \
  X("SYM-01", SYM, NC_MUST, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_sym_01,                      \
    "The five metadata symbols are exported", "abi.md §2 Exported symbols")                     \
  X("SYM-02", SYM, NC_MUST, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_sym_02,                      \
    "Name and author are non-NULL, terminated, non-empty (SHOULD: UTF-8, stable)",              \
    "abi.md §2 Exported symbols; §3")                                                           \
  X("SYM-03", SYM, NC_MUST, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_sym_03,                      \
    "The mode is INTERNAL (0) or EXTERNAL (1)", "abi.md §1 nve_plugin_mode_t; §3")              \
  X("SYM-04", SYM, NC_MUST, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_sym_04,                      \
    "The creation symbol of the reported mode is exported", "abi.md §2 Exported symbols")       \
  X("SYM-05", SYM, NC_MUST, NC_APPLIES_EXTERNAL, NC_STAGE_FILE, nc_case_sym_05,                 \
    "An external plugin does not link libnve-common", "seed/plugins.md Writing an external plugin") \
  X("SYM-07", SYM, NC_SHOULD, NC_APPLIES_EXTERNAL, NC_STAGE_OPEN, nc_case_sym_07,               \
    "nve_plugin_set_nve_services is exported", "abi.md §2; §6 NVE services")                    \
  X("VER-01", VER, NC_MUST, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_ver_01,                      \
    "Plugin ABI major equals the host major", "abi.md §3 Loading and versioning")              \
  X("VER-02", VER, NC_MUST, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_ver_02,                      \
    "Plugin ABI minor is not newer than the host minor", "abi.md §3 Loading and versioning")   \
  X("VER-03", VER, NC_MUST, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_ver_03,               \
    "Factory and table handles: non-NULL self, struct_size covers 1.0, no NULL entry",          \
    "abi.md §6 Handle validity; §4")                                                            \
  X("VER-04", VER, NC_SHOULD, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_ver_04,             \
    "struct_size is plausible for the declared minor", "abi.md §4 Struct growth")

#define NC_DECLARE_CASE_FN(id, family, sev, applies, stage, fn, title, clause) \
  void fn(nc_case *c);
NC_CASES(NC_DECLARE_CASE_FN)
#undef NC_DECLARE_CASE_FN

extern const nc_case_def nc_case_table[];
extern const size_t nc_case_count;
const nc_case_def *nc_case_lookup(const char *id);

/* The rule whose case doubles as the load probe. */
#define NC_PROBE_RULE "SYM-06"
/* After SYM-06's checks, gathers what the host's loader concludes (the
 * report header and which later stages are reachable). */
void nc_load_probe(nc_case *c);

#endif
