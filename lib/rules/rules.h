/* SPDX-License-Identifier: Apache-2.0 */
/* The rule table: every rule the harness checks, declared once.
 *
 * NC_RULES expands X(FAMILY, NUMBER, severity, waivable, applies_to, stage,
 * case function, title, clause) for each rule. The clause is the section of
 * doc/contract.md the rule enforces, as "doc/contract.md#anchor". From the
 * table come the rule IDs as an enum (NC_RULE_SYM_06 ...) that lib/ records
 * evidence by, the metadata the reports print (rules.c), and the case table
 * (cases/catalog.c). The ID text is "FAMILY-NUMBER", made from the same
 * tokens. Keep IDs stable once published; never reuse one. Adding a rule is
 * one line here, its function in cases/<family>.c, its explanation in
 * rule_docs.c, a fixture and a row in fixtures/expected.tsv (HACKING.md). */
#ifndef NC_RULES_H
#define NC_RULES_H

#include <stddef.h>

#include "nve_conform.h"

/* How far the plugin must get before a rule's case can run. */
typedef enum {
  NC_STAGE_FILE = 0, /* the file is on disk (static checks) */
  NC_STAGE_OPEN,     /* dlopen succeeded and the symbols are resolved */
  NC_STAGE_ACCEPTED, /* the host's loader accepted it; no handshake yet */
  NC_STAGE_LOADED,   /* accepted, and the services handshake done */
} nc_stage;

/* Which plugins a rule applies to. */
typedef enum {
  NC_APPLIES_ANY = 0,      /* internal and external mode */
  NC_APPLIES_EXTERNAL = 1, /* external mode only */
} nc_applies;

/* Whether a waiver may accept a failure of the rule: NC_FIXED for the
 * rules a host cannot survive (it refuses the plugin, crashes, or reads
 * memory it must not). */
enum { NC_WAIVABLE = 1, NC_FIXED = 0 };

#define NC_RULES(X) \
  X(SYM, 06, NC_MUST, NC_FIXED, NC_APPLIES_ANY, NC_STAGE_FILE, nc_case_sym_06, \
    "The file is an ELF shared object for this machine and opens with RTLD_NOW | RTLD_LOCAL", \
    "doc/contract.md#loading") \
  X(SYM, 01, NC_MUST, NC_FIXED, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_sym_01, \
    "The five metadata symbols are exported", \
    "doc/contract.md#exported-symbols") \
  X(SYM, 02, NC_MUST, NC_FIXED, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_sym_02, \
    "Name and author are non-NULL, terminated, non-empty (SHOULD: UTF-8, stable)", \
    "doc/contract.md#metadata") \
  X(SYM, 03, NC_MUST, NC_FIXED, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_sym_03, \
    "The mode is INTERNAL (0) or EXTERNAL (1)", \
    "doc/contract.md#metadata") \
  X(SYM, 04, NC_MUST, NC_FIXED, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_sym_04, \
    "The creation symbol of the reported mode is exported", \
    "doc/contract.md#creation-symbols") \
  X(SYM, 05, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_FILE, nc_case_sym_05, \
    "An external plugin does not link libnve-common", \
    "doc/contract.md#no-nve-common") \
  X(SYM, 07, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_OPEN, nc_case_sym_07, \
    "nve_plugin_set_nve_services is exported", \
    "doc/contract.md#services-symbol") \
  X(VER, 01, NC_MUST, NC_FIXED, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_ver_01, \
    "Plugin ABI major equals the host major", \
    "doc/contract.md#version-check") \
  X(VER, 02, NC_MUST, NC_FIXED, NC_APPLIES_ANY, NC_STAGE_OPEN, nc_case_ver_02, \
    "Plugin ABI minor is not newer than the host minor", \
    "doc/contract.md#version-check") \
  X(VER, 03, NC_MUST, NC_FIXED, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_ver_03, \
    "Factory and table handles: non-NULL self, struct_size covers 1.0, no NULL entry", \
    "doc/contract.md#handle-validity") \
  X(VER, 04, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_ver_04, \
    "struct_size is plausible for the declared minor", \
    "doc/contract.md#struct-size") \
  X(VER, 05, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_ver_05, \
    "Works with a newer host's larger services table", \
    "doc/contract.md#larger-services") \
  X(VER, 06, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_ver_06, \
    "Calls no service beyond the struct_size the host declared", \
    "doc/contract.md#has-field") \
  X(OWN, 01, NC_MUST, NC_FIXED, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_own_01, \
    "A failed creation or produce leaves its output zero", \
    "doc/contract.md#zero-on-failure") \
  X(OWN, 02, NC_MUST, NC_FIXED, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_own_02, \
    "A handle only with NVE_SUCCESS, and NVE_SUCCESS only with a usable handle", \
    "doc/contract.md#handle-with-success") \
  X(OWN, 03, NC_MUST, NC_FIXED, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_own_03, \
    "The output is zeroed before any work", \
    "doc/contract.md#zero-first") \
  X(OWN, 04, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_own_04, \
    "A failed creation or produce frees everything it allocated", \
    "doc/contract.md#zero-on-failure") \
  X(OWN, 05, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_own_05, \
    "*out_error: NULL on success; on failure NULL or intact text", \
    "doc/contract.md#out-error") \
  X(OWN, 06, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_own_06, \
    "NULL output pointers get NVE_ERROR_INVALID_ARGUMENT, not a crash", \
    "doc/contract.md#null-outputs") \
  X(ERR, 01, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_err_01, \
    "Every returned status is a defined nve_status_t value", \
    "doc/contract.md#status-values") \
  X(ERR, 02, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_err_02, \
    "After a failed op, last_error on that thread is a non-empty message", \
    "doc/contract.md#last-error") \
  X(ERR, 03, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_err_03, \
    "A table's last_error is thread-local", \
    "doc/contract.md#last-error") \
  X(ERR, 04, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_err_04, \
    "The factory's last_error follows ERR-02 and ERR-03 for produce", \
    "doc/contract.md#last-error") \
  X(ERR, 05, NC_MUST, NC_FIXED, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_err_05, \
    "No crash, abort or escaped exception, also under allocation failure", \
    "doc/contract.md#no-unwinding") \
  X(ERR, 06, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_err_06, \
    "After a host service fails, the op recovers or fails with a message", \
    "doc/contract.md#service-failures") \
  X(LIF, 03, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_lif_03, \
    "A whole lifecycle leaves no memory allocated by the plugin", \
    "doc/contract.md#no-leaks") \
  X(DEV, 01, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_01, \
    "Location and device ID agree: HOST with -1, DEVICE with 0 <= id < device count", \
    "doc/contract.md#capabilities") \
  X(DEV, 02, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_02, \
    "Factory creation restores the caller's current device", \
    "doc/contract.md#device-bootstrap") \
  X(DEV, 03, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_03, \
    "produce restores the caller's current device", \
    "doc/contract.md#device-bootstrap") \
  X(DEV, 04, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_04, \
    "Factory destroy restores the caller's current device", \
    "doc/contract.md#device-bootstrap") \
  X(DEV, 05, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_05, \
    "The first device_id query restores the caller's current device", \
    "doc/contract.md#device-bootstrap") \
  X(DEV, 06, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_06, \
    "Capabilities are constant: repeated reads, from several threads", \
    "doc/contract.md#capabilities") \
  X(DEV, 07, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_07, \
    "A DEVICE table never touches device memory from the host", \
    "doc/contract.md#buffers") \
  X(DEV, 08, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_08, \
    "Device memory on the reported device; work on the context's streams", \
    "doc/contract.md#buffers") \
  X(DEV, 09, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_dev_09, \
    "Table callbacks and destroy work with the table's device made current", \
    "doc/contract.md#device-bootstrap") \
  X(SVC, 01, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_svc_01, \
    "The services handshake is idempotent", \
    "doc/contract.md#repeated-handshake") \
  X(SVC, 02, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_ACCEPTED, nc_case_svc_02, \
    "The services handshake is thread-safe", \
    "doc/contract.md#repeated-handshake") \
  X(SVC, 03, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_svc_03, \
    "get_scratch is never called from inside a task", \
    "doc/contract.md#scratch") \
  X(SVC, 04, NC_MUST, NC_FIXED, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_svc_04, \
    "A context is never used after its op returned", \
    "doc/contract.md#contexts") \
  X(SVC, 05, NC_MUST, NC_FIXED, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_svc_05, \
    "A scratch pointer is never used after its buffer grew", \
    "doc/contract.md#scratch") \
  X(SVC, 06, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_svc_06, \
    "Service arguments are valid", \
    "doc/contract.md#service-arguments") \
  X(SVC, 07, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_svc_07, \
    "Results do not depend on worker count or task order", \
    "doc/contract.md#execute-n") \
  X(SVC, 08, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_svc_08, \
    "No execute_n from inside a task", \
    "doc/contract.md#execute-n") \
  X(TBL, 01, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_01, \
    "Key size 4 or 8, max row size > 0, a defined dtype", \
    "doc/contract.md#capabilities") \
  X(TBL, 02, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_02, \
    "A hit returns exactly the bytes last written for the key", \
    "doc/contract.md#find") \
  X(TBL, 03, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_03, \
    "Keys resolved on entry are skipped: slots untouched, bits kept", \
    "doc/contract.md#find") \
  X(TBL, 04, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_04, \
    "Nothing is written outside what the call owns; inputs unchanged", \
    "doc/contract.md#owned-memory") \
  X(TBL, 05, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_05, \
    "NULL values, hit_mask and value_sizes are accepted", \
    "doc/contract.md#find") \
  X(TBL, 06, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_06, \
    "update overwrites existing keys and never inserts", \
    "doc/contract.md#update") \
  X(TBL, 07, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_07, \
    "update_accumulate adds float32 into existing keys; other dtypes refused or summed right", \
    "doc/contract.md#update-accumulate") \
  X(TBL, 08, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_08, \
    "erase removes keys and ignores absent ones; clear empties", \
    "doc/contract.md#erase-clear") \
  X(TBL, 09, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_09, \
    "The lookup counter is zero after reset, then counts hits (host) or misses", \
    "doc/contract.md#lookup-counter") \
  X(TBL, 10, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_10, \
    "n == 0 succeeds and changes nothing, for every op", \
    "doc/contract.md#empty-calls") \
  X(TBL, 11, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_11, \
    "A seeded random sequence of ops agrees with the model", \
    "doc/contract.md#table-semantics") \
  X(TBL, 12, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_tbl_12, \
    "Concurrent finds from several threads, each with its own context, agree", \
    "doc/contract.md#concurrency") \
  X(LIF, 01, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_lif_01, \
    "A table keeps working after its factory is destroyed", \
    "doc/contract.md#table-outlives-factory") \
  X(LIF, 02, NC_MUST, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_lif_02, \
    "Tables are independent: writes to one never show in another", \
    "doc/contract.md#independent-tables") \
  X(LIF, 04, NC_SHOULD, NC_WAIVABLE, NC_APPLIES_EXTERNAL, NC_STAGE_LOADED, nc_case_lif_04, \
    "Repeated load, use and unload cycles are stable", \
    "doc/contract.md#reload")

#define NC_RULE_ENUM(fam, num, ...) NC_RULE_##fam##_##num,
typedef enum { NC_RULES(NC_RULE_ENUM) NC_RULE_COUNT } nc_rule;
#undef NC_RULE_ENUM

/* A rule's static description, for the engine. */
typedef struct nc_rule_def {
  nc_rule_info info; /* what the public API and the reports show */
  int waivable;
  nc_applies applies_to;
  nc_stage stage;
} nc_rule_def;

extern const nc_rule_def nc_rule_defs[NC_RULE_COUNT];

/* The cases that take longest (random sequences, the schedule matrix,
 * failure sweeps, deep tables), longest first: with --jobs they start
 * first, so that the rest runs beside them. A hint for speed only; the
 * report's order and verdicts do not depend on it. */
#define NC_SLOW_RULES(X) \
  X(TBL, 11) X(TBL, 07) X(SVC, 07) X(TBL, 06) X(TBL, 02) X(TBL, 08) X(ERR, 06) X(TBL, 12) \
  X(LIF, 02) X(LIF, 03)

/* Where the rule stands in NC_SLOW_RULES (0 for the slowest), or
 * NC_RULE_COUNT when it is not listed. */
int nc_rule_slow_rank(nc_rule rule);

/* "SYM-06" for NC_RULE_SYM_06 (NULL outside the table). */
const char *nc_rule_text(nc_rule rule);
/* The rule of an ID ("SYM-06"), or -1. */
int nc_rule_parse(const char *id);

#endif
