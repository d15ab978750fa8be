/* SPDX-License-Identifier: Apache-2.0 */
/* The explanation of every rule (rule_docs.h). Written for a vendor who
 * has never read the harness: plain words, one fix each. */
#include "rule_docs.h"

#include <string.h>

#define CONTRACT_PREFIX "doc/contract.md#"

const char *nc_rule_anchor(nc_rule rule)
{
  if ((int)rule < 0 || rule >= NC_RULE_COUNT)
    return NULL;
  const char *clause = nc_rule_defs[rule].info.clause;
  if (strncmp(clause, CONTRACT_PREFIX, strlen(CONTRACT_PREFIX)) != 0)
    return NULL;
  return clause + strlen(CONTRACT_PREFIX);
}

const nc_rule_doc nc_rule_docs[NC_RULE_COUNT] = {
  /* ---- SYM: symbols and metadata ---------------------------------------- */
  [NC_RULE_SYM_06] = {
    .section = "Loading",
    .why = "The host opens the plugin with dlopen(RTLD_NOW | RTLD_LOCAL) inside its own "
           "process. A file for another machine, an unresolved symbol or a missing "
           "dependency is a load error; a constructor that crashes, exits or hangs takes "
           "the host down with it.",
    .how = "Reads the ELF header (class, byte order, machine, type) without running "
           "anything, then opens the file in a child process under a timeout. A crash, "
           "an exit or a hang of the constructors is reported with the signal or status; "
           "a dlopen error is quoted, naming the symbol or library.",
    .mistakes = "Linking against a library that is not installed where the host runs; "
                "symbols left undefined because a source file was not linked in; building "
                "for the wrong architecture; constructors that start threads, call exit() "
                "or close file descriptors they do not own.",
    .fix = "Link with -Wl,--no-undefined so that unresolved symbols fail your build, not "
           "the host's load, check `ldd -r` on the result, and keep constructors free of "
           "work: do it on the first factory creation instead.",
    .lang = "sh",
    .snippet = "cc -shared -fPIC -Wl,--no-undefined -o my-plugin.so plugin.c\n"
               "ldd -r my-plugin.so   # no \"undefined symbol\", no \"not found\"",
    .fixture = "sym06-ctor-crash",
  },
  [NC_RULE_SYM_01] = {
    .section = "Exported symbols",
    .why = "The host resolves the five metadata functions before anything else; a missing "
           "one is a load error and the plugin is never used.",
    .how = "Looks up each of the five symbols with dlsym and names every one that is "
           "missing.",
    .mistakes = "Writing the metadata functions by hand and forgetting one; a linker version "
                "script or -fvisibility=hidden that hides them.",
    .fix = "Expand NVE_DEFINE_EXTERNAL_PLUGIN (or the internal macro) exactly once in the "
           "plugin; it writes all five with default visibility.",
    .snippet = "#include <plugin/nve_external_plugin.h>\n"
               "NVE_DEFINE_EXTERNAL_PLUGIN(\"My table\", \"My Company\")",
    .fixture = "sym01-no-author",
  },
  [NC_RULE_SYM_02] = {
    .section = "Metadata",
    .why = "The host copies the name and the author into logs and error messages. NULL "
           "crashes it; unterminated text reads past the string; an empty name makes "
           "errors unreadable. Text that is not UTF-8, or changes between calls, breaks "
           "logs and caches (SHOULD: a WARN).",
    .how = "Calls each function twice, reads the text defensively within a bound, and "
           "checks that it is non-NULL, terminated, non-empty, valid UTF-8 and the same "
           "both times.",
    .mistakes = "Returning a pointer to a stack buffer or to text built at run time; "
                "Latin-1 or other non-UTF-8 bytes in a company name.",
    .fix = "Return string literals, in UTF-8.",
    .snippet = "const char *nve_plugin_author(void) { return \"Société Exemple\"; } /* UTF-8 source */",
    .fixture = "sym02-null-name",
  },
  [NC_RULE_SYM_03] = {
    .section = "Metadata",
    .why = "The mode tells the host which creation symbol to call and which objects may "
           "cross the boundary; any value other than 0 or 1 is a load error.",
    .how = "Calls nve_plugin_mode and compares the value with NVE_PLUGIN_MODE_INTERNAL and "
           "NVE_PLUGIN_MODE_EXTERNAL.",
    .mistakes = "Returning a private enum or a bit field instead of the ABI constant.",
    .fix = "Return one of the two constants; the macros do it for you.",
    .snippet = "nve_plugin_mode_t nve_plugin_mode(void) { return NVE_PLUGIN_MODE_EXTERNAL; }",
    .fixture = "sym03-mode-7",
  },
  [NC_RULE_SYM_04] = {
    .section = "Creation symbols",
    .why = "After the metadata, the host looks up the creation symbol of the mode the plugin "
           "reported; without it the load fails.",
    .how = "Looks up nve_plugin_create_external_factory (or the internal one) with dlsym.",
    .mistakes = "A C++ plugin that defines the function without extern \"C\", so its name is "
                "mangled; a typo in the name; hidden visibility.",
    .fix = "Define it with C linkage and default visibility (NVE_C_API).",
    .snippet = "#ifdef __cplusplus\nextern \"C\"\n#endif\n"
               "NVE_C_API nve_status_t nve_plugin_create_external_factory(\n"
               "    const char *json_config, nve_ext_table_factory_t *out_factory,\n"
               "    const char **out_error);",
    .fixture = "sym04-no-create",
  },
  [NC_RULE_SYM_05] = {
    .section = "No libnve-common",
    .why = "An external plugin is the C boundary between toolchains. Linking libnve-common "
           "pulls the host's C++ library and runtime into the plugin, and a second copy of "
           "it into the process, with its own globals.",
    .how = "Reads the DT_NEEDED entries of the file's dynamic section (without loading it) "
           "and fails on any that names libnve-common.",
    .mistakes = "Copying the CMake lines of an internal plugin, which link nve-common.",
    .fix = "Include only plugin/nve_external_plugin.h and link nothing of NVE.",
    .lang = "sh",
    .snippet = "readelf -d my-plugin.so | grep NEEDED   # no libnve-common",
    .fixture = "sym05-links-nve-common",
  },
  [NC_RULE_SYM_07] = {
    .section = "The services symbol",
    .why = "Without nve_plugin_set_nve_services the plugin cannot use the host's worker "
           "pool, CUDA streams or scratch memory: it works, but alone, and slower than the "
           "host expects.",
    .how = "Looks the symbol up with dlsym; a missing one is a WARN, and the rules that "
           "need the handshake are skipped.",
    .mistakes = "Writing the metadata by hand instead of using NVE_DEFINE_EXTERNAL_PLUGIN.",
    .fix = "Use the macro; it defines the handshake and nve_plugin_nve_services().",
    .snippet = "NVE_DEFINE_EXTERNAL_PLUGIN(\"My table\", \"My Company\")\n"
               "/* later, in an op: */\n"
               "const nve_ext_nve_services_t *svc = nve_plugin_nve_services();",
    .fixture = "sym07-no-services",
  },

  /* ---- VER: versions and struct growth ---------------------------------- */
  [NC_RULE_VER_01] = {
    .section = "Version check",
    .why = "A different major means a different ABI: the host refuses the plugin outright.",
    .how = "Compares nve_plugin_abi_version_major with the host major (1 unless --host-abi "
           "says otherwise).",
    .mistakes = "Returning a product version instead of the ABI macro.",
    .fix = "Return the macro the plugin was compiled with; the plugin macros do.",
    .snippet = "uint32_t nve_plugin_abi_version_major(void) { return NVE_PLUGIN_ABI_VERSION_MAJOR; }",
    .fixture = "ver01-major-2",
  },
  [NC_RULE_VER_02] = {
    .section = "Version check",
    .why = "A plugin built for a newer minor may call services or read fields an older host "
           "does not have; the older host refuses it.",
    .how = "Compares the plugin's minor with the host minor, and says which host minors "
           "would accept the plugin.",
    .mistakes = "Hard-coding a minor instead of using the macro; building against newer "
                "headers than the hosts you ship to.",
    .fix = "Return NVE_PLUGIN_ABI_VERSION_MINOR, and build against the oldest minor your "
           "hosts run.",
    .snippet = "uint32_t nve_plugin_abi_version_minor(void) { return NVE_PLUGIN_ABI_VERSION_MINOR; }",
    .fixture = "ver02-minor-9",
  },
  [NC_RULE_VER_03] = {
    .section = "Handle validity",
    .why = "The host calls through every entry of the vtables it is handed. A NULL self, a "
           "struct_size shorter than 1.0 or a NULL function pointer is a crash in the host, "
           "not in the plugin.",
    .how = "Checks every factory and table handle the plugin hands over: self non-NULL, "
           "struct_size covering the 1.0 struct, every 1.0 function pointer set.",
    .mistakes = "Leaving an op NULL because it is not implemented yet; setting struct_size to "
                "a constant instead of sizeof; returning a table whose self is NULL because "
                "all state is global.",
    .fix = "Fill every entry (an op you do not support returns NVE_ERROR_NOT_IMPLEMENTED "
           "with a message), use sizeof for struct_size, and give self a real object.",
    .snippet = "static const nve_ext_table_ops_t ops = {\n"
               "  .struct_size = sizeof(nve_ext_table_ops_t),\n"
               "  .destroy = my_destroy, /* ... every entry ... */\n"
               "  .last_error = my_last_error,\n};",
    .fixture = "ver03-short-ops",
  },
  [NC_RULE_VER_04] = {
    .section = "struct_size",
    .why = "A struct_size that does not match the declared minor means the host and the "
           "plugin disagree about which fields exist; a later host would read fields the "
           "plugin never wrote.",
    .how = "For minor 0, struct_size must be exactly the 1.0 size; any value above 64 KiB is "
           "absurd.",
    .mistakes = "Padding the vtable with private fields; a struct_size computed from the "
                "wrong type.",
    .fix = "Keep private state behind self, not in the vtable, and set struct_size to "
           "sizeof the ABI type.",
    .snippet = "static const nve_ext_table_factory_ops_t fops = {\n"
               "  .struct_size = sizeof(nve_ext_table_factory_ops_t), /* 32 in 1.0 */\n"
               "  /* ... */\n};",
    .fixture = "ver04-big-ops",
  },
  [NC_RULE_VER_05] = {
    .section = "Larger services",
    .why = "Hosts get newer than the plugins they load. A newer host's services table has "
           "more fields at its end; a plugin that rejects it, or compares struct_size for "
           "equality, stops working after a host upgrade.",
    .how = "Hands the plugin a services table larger than 1.0 (extra trailing fields) and "
           "runs the table workload again.",
    .mistakes = "if (svc->struct_size != sizeof(nve_ext_nve_services_t)) return error;",
    .fix = "Accept any table at least as large as what you use; check fields with "
           "NVE_ABI_HAS_FIELD.",
    .snippet = "if (!NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, execute_n))\n"
               "  return run_serially(...);",
    .fixture = "ver05-exact-services",
  },
  [NC_RULE_VER_06] = {
    .section = "NVE_ABI_HAS_FIELD",
    .why = "An older host's services table ends before the fields a later minor added. "
           "Calling one of them without checking reads past the host's struct.",
    .how = "Hands the plugin a truncated services table whose missing entries are traps, "
           "runs the workload, and reports any trap that fires.",
    .mistakes = "Calling a service without NVE_ABI_HAS_FIELD because every host you tested "
                "had it.",
    .fix = "Check the field before every call of a service that is not in 1.0, and have a "
           "fallback.",
    .snippet = "if (NVE_ABI_HAS_FIELD(svc, nve_ext_nve_services_t, get_scratch))\n"
               "  st = svc->get_scratch(ctx, \"keys\", bytes, 1, &buf);\n"
               "else\n"
               "  buf = my_own_buffer(bytes);",
    .fixture = "ver06-unchecked-services",
  },

  /* ---- OWN: output ownership -------------------------------------------- */
  [NC_RULE_OWN_01] = {
    .section = "Output ownership (2)",
    .why = "A host cannot tell a half-built handle from a good one. A handle left in the "
           "output of a failed creation or produce is destroyed by the host's cleanup, after "
           "the plugin already freed it: a double free in production.",
    .how = "Fills *out_factory and *out_table with a nonzero pattern, then makes the calls "
           "fail: malformed configs (not JSON, not an object, empty, 1 MiB, deeply nested), "
           "the failing configs a profile declares, and an allocation-failure sweep that "
           "fails the 1st, 2nd, ... allocation inside the call. Every failed call must leave "
           "the output zero.",
    .mistakes = "Assigning the output early and returning on an error path without clearing "
                "it; restoring the caller's value on failure instead of zero.",
    .fix = "Zero the output first, build into a local, and assign only on success.",
    .snippet = "*out_table = (nve_ext_table_t){0};\n"
               "struct my_table *t = my_table_new(cfg);\n"
               "if (!t) return set_error(NVE_ERROR_OUT_OF_MEMORY, \"no memory\");\n"
               "out_table->self = t;\n"
               "out_table->ops = &my_ops;\n"
               "return NVE_SUCCESS;",
    .fixture = "own01-restore-on-failure",
  },
  [NC_RULE_OWN_02] = {
    .section = "Output ownership (3)",
    .why = "The host trusts the status: NVE_SUCCESS with an empty or unusable handle is a NULL "
           "call later; a handle with a failure status is leaked or double-freed.",
    .how = "On every creation and produce the harness makes (good configs, failing ones, the "
           "allocation sweep), checks that a nonzero handle comes only with NVE_SUCCESS and "
           "that NVE_SUCCESS always comes with a usable handle.",
    .mistakes = "Returning NVE_SUCCESS when a config is ignored and nothing was built; "
                "returning an error after the handle was already handed over.",
    .fix = "Decide the status last, from the handle you are about to hand over.",
    .snippet = "if (!t) { *out_table = (nve_ext_table_t){0}; return NVE_ERROR_RUNTIME; }\n"
               "*out_table = (nve_ext_table_t){t, &my_ops};\nreturn NVE_SUCCESS;",
    .fixture = "own02-handle-on-failure",
  },
  [NC_RULE_OWN_03] = {
    .section = "Output ownership (1)",
    .why = "A host that reads the output after a crash or an early return must find zero, "
           "not its own stale value; zeroing first is what makes every error path safe.",
    .how = "Pre-fills the output with a pattern and checks that it already reads zero at the "
           "plugin's first allocation or first call into the host during the call.",
    .mistakes = "Zeroing the output only just before returning, or only on some paths.",
    .fix = "Make zeroing the output the first statement of creation and produce.",
    .snippet = "nve_status_t my_produce(void *self, int64_t id, const char *cfg,\n"
               "                        nve_ext_table_t *out_table)\n{\n"
               "  if (!out_table) return NVE_ERROR_INVALID_ARGUMENT;\n"
               "  *out_table = (nve_ext_table_t){0};\n  /* ... */\n}",
    .fixture = "own03-late-zeroing",
  },
  [NC_RULE_OWN_04] = {
    .section = "Output ownership (2)",
    .why = "Hosts retry failed creations (a bad config from a user, memory pressure). Each "
           "failure that leaks grows the host until it is killed.",
    .how = "Counts the plugin's live allocations around every failed call of the malformed-"
           "config and allocation-failure runs; anything still allocated after a failure is "
           "reported with its size and the allocating call.",
    .mistakes = "Returning from the middle of construction without freeing what was built "
                "so far; C++ objects whose constructor throws after allocating.",
    .fix = "One cleanup path for every failure (goto fail, or RAII in C++ that is "
           "released before the status is returned).",
    .snippet = "t = calloc(1, sizeof *t);\nif (!t) goto fail;\n"
               "t->rows = malloc(bytes);\nif (!t->rows) goto fail;\nreturn t;\n"
               "fail:\n  if (t) free(t->rows);\n  free(t);\n  return NULL;",
    .fixture = "own04-leak-on-failure",
  },
  [NC_RULE_OWN_05] = {
    .section = "out_error",
    .why = "The host copies *out_error as soon as creation returns. NULL after success is "
           "how it knows there is nothing to copy; after a failure the text must still be "
           "readable, or the host copies freed memory.",
    .how = "Checks *out_error after every creation: NULL on success; on failure NULL or "
           "terminated text that is still intact when the harness reads it.",
    .mistakes = "Pointing *out_error at a std::string that is destroyed on return, or at a "
                "stack buffer; leaving a stale message after a success.",
    .fix = "Keep the message in thread-local storage owned by the plugin, and set "
           "*out_error to NULL on success.",
    .snippet = "static _Thread_local char create_error[256];\n"
               "/* on failure */\n"
               "snprintf(create_error, sizeof create_error, \"bad config: %s\", why);\n"
               "*out_error = create_error;\n/* on success */\n*out_error = NULL;",
    .fixture = "own05-dangling-error",
  },
  [NC_RULE_OWN_06] = {
    .section = "NULL outputs",
    .why = "A host bug or a fuzzing harness may pass NULL outputs; a plugin that writes "
           "through them crashes the host instead of reporting the mistake.",
    .how = "Calls creation and produce with NULL out_factory, out_table and out_error, each "
           "in a child process, and expects NVE_ERROR_INVALID_ARGUMENT.",
    .mistakes = "Writing *out_factory before any check.",
    .fix = "Check the output pointers first.",
    .snippet = "if (!out_factory || !out_error) return NVE_ERROR_INVALID_ARGUMENT;",
    .fixture = "own06-crash-on-null",
  },

  /* ---- ERR: statuses, last_error, no unwinding --------------------------- */
  [NC_RULE_ERR_01] = {
    .section = "Status values",
    .why = "Hosts map statuses to error categories and C++ exceptions. An undefined value "
           "becomes NVE_ERROR_RUNTIME at best, and a wrong branch at worst.",
    .how = "Every status the plugin returns, in every case of the run, is compared with the "
           "enum; a value outside 0..5 is reported wherever it was seen.",
    .mistakes = "Returning errno, -1, or a private error code.",
    .fix = "Map private errors to the six statuses at the boundary.",
    .snippet = "switch (my_err) {\ncase MY_OK: return NVE_SUCCESS;\n"
               "case MY_NOMEM: return NVE_ERROR_OUT_OF_MEMORY;\n"
               "default: return NVE_ERROR_RUNTIME;\n}",
    .fixture = "err01-status-42",
  },
  [NC_RULE_ERR_02] = {
    .section = "last_error",
    .why = "After a failure the host asks last_error what happened and puts it in front of "
           "the user. NULL crashes it; an empty string leaves the user with nothing.",
    .how = "Makes table ops fail (invalid arguments, missing keys where failure is allowed, "
           "allocation failures) and reads last_error on the same thread right after.",
    .mistakes = "Returning NULL when there is no message; forgetting to set the message on "
                "some error paths.",
    .fix = "Set a message on every failure path, and return \"\" only when nothing has "
           "failed yet on this thread.",
    .snippet = "static _Thread_local char err[256];\n"
               "static nve_status_t fail(nve_status_t st, const char *msg)\n"
               "{\n  snprintf(err, sizeof err, \"%s\", msg);\n  return st;\n}\n"
               "static const char *my_last_error(void *self) { (void)self; return err; }",
    .fixture = "err02-null-last-error",
  },
  [NC_RULE_ERR_03] = {
    .section = "last_error",
    .why = "Hosts run tables from many threads. With one shared message, thread A reports "
           "thread B's error, or reads a buffer B is overwriting.",
    .how = "Two threads make two different failures, interleaved with barriers, in both "
           "orders, and each checks that its own last_error still names its own failure "
           "and that the pointer it got earlier is intact.",
    .mistakes = "A static char buffer shared by all threads; a message stored in the table "
                "object.",
    .fix = "Keep the message in thread-local storage (per thread, or per thread and object).",
    .snippet = "static _Thread_local char err[256]; /* not: static char err[256]; */",
    .fixture = "err03-global-error",
  },
  [NC_RULE_ERR_04] = {
    .section = "last_error",
    .why = "The factory's last_error explains a failed produce; the same sharing problems as "
           "ERR-03 apply when tables are produced on several threads.",
    .how = "The ERR-02 and ERR-03 checks, applied to produce and the factory's last_error.",
    .mistakes = "A message member in the factory object, written by every thread.",
    .fix = "Thread-local storage for the factory's message too.",
    .snippet = "static _Thread_local char produce_err[256];",
    .fixture = "err04-global-factory-error",
  },
  [NC_RULE_ERR_05] = {
    .section = "No unwinding",
    .why = "The host is C at the boundary: an exception that escapes a callback, an abort "
           "or a crash ends the host process. Out-of-memory is when it happens most.",
    .how = "Runs every op in a child process and fails the rule on a signal, an abort or an "
           "escaped exception (std::terminate), naming the callback and the crashing frame; "
           "also under the allocation-failure sweep, and a call that hangs after an "
           "injected allocation failure is cut off by a timeout.",
    .mistakes = "C++ entry points without a catch-all; `new` without handling bad_alloc; "
                "assert() on inputs the host may pass; retrying a failed allocation forever.",
    .fix = "Wrap every entry point in try/catch(...) and return a status; check every "
           "allocation.",
    .lang = "cpp",
    .snippet = "static nve_status_t my_find(void *self, nve_ext_context_t ctx, int64_t n,\n"
               "    const void *keys, uint64_t *mask, int64_t stride, void *values,\n"
               "    int64_t *sizes) try {\n"
               "  return static_cast<Table *>(self)->find(ctx, n, keys, mask, stride, values, sizes);\n"
               "} catch (const std::bad_alloc &) {\n  return fail(NVE_ERROR_OUT_OF_MEMORY, \"out of memory\");\n"
               "} catch (...) {\n  return fail(NVE_ERROR_RUNTIME, \"unexpected exception\");\n}",
    .fixture = "err05-cxx-escaping",
  },
  [NC_RULE_ERR_06] = {
    .section = "Service failures",
    .why = "Host services can fail (the pool is shutting down, scratch memory is short). A "
           "plugin that ignores the failure returns NVE_SUCCESS with results it never "
           "computed: silent data corruption.",
    .how = "Makes a service call fail (first the first call of an op, then later ones) and "
           "checks that the op either succeeds with results that agree with the model, or "
           "fails with a status and a last_error message. Only the service calls of the op "
           "under test count.",
    .mistakes = "Ignoring the status of execute_n or get_scratch; returning a failure with "
                "no message.",
    .fix = "Check every service status: fall back (run the work serially) or fail with a "
           "message.",
    .snippet = "nve_status_t st = svc->execute_n(ctx, n, task, &job);\n"
               "if (st != NVE_SUCCESS) {\n"
               "  for (int64_t i = 0; i < n; i++) /* serial fallback */\n"
               "    if ((st = task(&job, i)) != NVE_SUCCESS)\n"
               "      return fail(st, \"task failed\");\n}",
    .fixture = "err06-ignores-service-failure",
  },

  /* ---- LIF-03 comes here in the rule table ------------------------------ */
  [NC_RULE_LIF_03] = {
    .section = "No leaks",
    .why = "Hosts create and drop tables for as long as they run (resharding, reloads). "
           "Memory left behind by each lifecycle grows without bound.",
    .how = "After a warm-up round that absorbs one-time allocations, creates a factory, "
           "produces tables, uses them and destroys everything, counting the plugin's "
           "allocations; what is still allocated is listed with sizes and call sites.",
    .mistakes = "destroy that frees the table struct but not its rows; caches in the factory "
                "that are never freed.",
    .fix = "Free everything the object owns in its destroy.",
    .snippet = "static void my_destroy(void *self)\n{\n  struct my_table *t = self;\n"
               "  free(t->rows);\n  free(t->index);\n  free(t);\n}",
    .fixture = "lif03-leak-on-destroy",
  },

  /* ---- DEV: device bootstrap -------------------------------------------- */
  [NC_RULE_DEV_01] = {
    .section = "Capabilities",
    .why = "The host moves buffers to the residency a table declares. HOST with a device "
           "ID, DEVICE without one, or a device that does not exist sends the host's "
           "copies to the wrong place.",
    .how = "Reads preferred_buffer_location and device_id and checks HOST with -1, or "
           "DEVICE with 0 <= id < the number of devices (real or simulated).",
    .mistakes = "Returning 0 from device_id for a host table; returning the CUDA device "
                "count instead of an ordinal.",
    .fix = "A host table returns -1; a device table returns the ordinal it allocated on.",
    .snippet = "static int32_t my_device_id(void *self) { return ((struct my_table *)self)->device; }\n"
               "/* host tables: return -1 */",
    .fixture = "dev01-reports-host-id",
  },
  [NC_RULE_DEV_02] = {
    .section = "Device bootstrap",
    .why = "Creation runs on the host's thread with the host's device current. A plugin that "
           "switches devices and does not switch back makes the host's next kernel run on "
           "the wrong GPU.",
    .how = "Makes a decoy device current (never device 0, at least two different decoys), "
           "calls factory creation, and checks that the same device is current afterwards.",
    .mistakes = "cudaSetDevice(0) at the start of creation with no restore.",
    .fix = "Save the current device, switch, and restore it on every return path.",
    .snippet = "int prev;\ncudaGetDevice(&prev);\ncudaSetDevice(dev);\n"
               "/* ... */\ncudaSetDevice(prev);",
    .fixture = "dev02-create-leaves",
  },
  [NC_RULE_DEV_03] = {
    .section = "Device bootstrap",
    .why = "produce runs before the host knows the table's device, with the host's device "
           "current. A plugin that leaves its own device current makes the host's next "
           "allocation or kernel land on the wrong GPU.",
    .how = "The DEV-02 check around produce.",
    .mistakes = "Setting the table's device in produce and leaving it current; restoring "
                "device 0 instead of the caller's device.",
    .fix = "Restore the device that was current when produce was called.",
    .snippet = "int prev;\ncudaGetDevice(&prev);\ncudaSetDevice(t->device);\n"
               "/* allocate */\ncudaSetDevice(prev);",
    .fixture = "dev03-produce-leaves",
  },
  [NC_RULE_DEV_04] = {
    .section = "Device bootstrap",
    .why = "The factory's destroy runs when the host is done with the factory, often in "
           "the middle of other GPU work; switching the device there without switching "
           "back moves the host's later work to another GPU.",
    .how = "The DEV-02 check around the factory's destroy.",
    .mistakes = "Freeing device memory after cudaSetDevice without restoring.",
    .fix = "Restore the caller's device before destroy returns.",
    .snippet = "int prev;\ncudaGetDevice(&prev);\ncudaSetDevice(f->device);\n"
               "cudaFree(f->pool);\ncudaSetDevice(prev);",
    .fixture = "dev04-destroy-leaves",
  },
  [NC_RULE_DEV_05] = {
    .section = "Device bootstrap",
    .why = "The first device_id query runs before the host knows the device, so the host "
           "does not protect it; a switch there leaks into the host.",
    .how = "The DEV-02 check around the first device_id call of a fresh table.",
    .mistakes = "Lazy initialisation in device_id that sets the device.",
    .fix = "Do the device work in produce, and keep device_id a plain getter.",
    .snippet = "static int32_t my_device_id(void *self) { return ((struct my_table *)self)->device; }",
    .fixture = "dev05-id-leaves",
  },
  [NC_RULE_DEV_06] = {
    .section = "Capabilities",
    .why = "The host reads the capabilities once and caches them. Values that change later "
           "make the cache lie: the wrong row size, the wrong device.",
    .how = "Reads every capability many times, from several threads at once, and compares.",
    .mistakes = "Capabilities computed from mutable state (a row size that grows, a device "
                "read from cudaGetDevice).",
    .fix = "Fix the capabilities in produce and return stored values.",
    .snippet = "static int64_t my_max_row_size(void *self) { return ((struct my_table *)self)->row_bytes; }",
    .fixture = "dev06-caps-change",
  },
  [NC_RULE_DEV_07] = {
    .section = "Buffers",
    .why = "On a real GPU, device memory read or written from the CPU is a segmentation "
           "fault or garbage. A table that works only because of unified memory breaks on "
           "the host's allocator.",
    .how = "Under the simulated CUDA runtime device memory is not accessible from the CPU: "
           "any touch is caught, with the callback and the address, in whichever case it "
           "happens.",
    .mistakes = "memcpy from a device buffer the host passed; reading keys on the CPU to "
                "hash them.",
    .fix = "Copy with cudaMemcpyAsync on the context's stream, or work in a kernel.",
    .snippet = "void *stream;\nsvc->get_lookup_stream(ctx, &stream);\n"
               "cudaMemcpyAsync(host_keys, keys, n * key_size, cudaMemcpyDeviceToHost,\n"
               "                (cudaStream_t)stream);",
    .fixture = "dev07-host-read",
  },
  [NC_RULE_DEV_08] = {
    .section = "Buffers",
    .why = "Memory on another device than the one reported costs peer traffic or fails; "
           "work on the default stream escapes the host's synchronisation.",
    .how = "The simulated runtime records the device of every allocation and the stream of "
           "every copy, set and launch a DEVICE table makes on the calling thread of each table "
           "callback, in every case; this rule's case watches every thread across produce "
           "(allocations) and one round of callbacks (streams). Allocations count when the table's device "
           "was current on entry; streams when the plugin's services table lets it ask for the "
           "context's.",
    .mistakes = "cudaMalloc before cudaSetDevice; passing stream 0.",
    .fix = "Allocate with the table's device current, and use the context's streams.",
    .snippet = "void *stream;\nsvc->get_modify_stream(ctx, &stream);\n"
               "cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream);",
    .fixture = "dev08-default-stream",
  },
  [NC_RULE_DEV_09] = {
    .section = "Device bootstrap",
    .why = "After adoption the host makes the table's device current around each callback. "
           "A table that assumes device 0, or some earlier state, breaks on any other GPU.",
    .how = "Makes a different device current, then the table's device (as the host does), "
           "and runs the table ops and destroy.",
    .mistakes = "cudaSetDevice(0) inside ops; state cached from the thread that created "
                "the table.",
    .fix = "Trust the current device in ops, or set t->device explicitly; never assume 0.",
    .snippet = "/* in an op: the host made t->device current */\n"
               "cudaMemsetAsync(t->rows, 0, bytes, (cudaStream_t)stream);",
    .fixture = "dev09-assumes-device-0",
  },

  /* ---- SVC: the NVE services --------------------------------------------- */
  [NC_RULE_SVC_01] = {
    .section = "Repeated handshake",
    .why = "The host repeats the handshake each time it builds a loader for the same file. "
           "A plugin that resets its state on the second call breaks tables already in "
           "use.",
    .how = "Calls nve_plugin_set_nve_services again with the same pointer between ops and "
           "checks that the tables keep working.",
    .mistakes = "Re-initialising pools or globals in the handshake.",
    .fix = "Only store the pointer; do the initialisation once, on first use.",
    .snippet = "void nve_plugin_set_nve_services(const nve_ext_nve_services_t *s)\n"
               "{\n  atomic_store(&services, s);\n}",
    .fixture = "svc01-reset-on-handshake",
  },
  [NC_RULE_SVC_02] = {
    .section = "Repeated handshake",
    .why = "Loaders may be built from several threads at once; a racy handshake corrupts "
           "the plugin's globals.",
    .how = "Calls the handshake from several threads at once, then runs the workload.",
    .mistakes = "A check-then-initialise sequence without a lock or an atomic.",
    .fix = "An atomic store of the pointer (the macro does it), pthread_once for the rest.",
    .snippet = "static pthread_once_t once = PTHREAD_ONCE_INIT;\n"
               "pthread_once(&once, init_plugin_globals);",
    .fixture = "svc02-racy-handshake",
  },
  [NC_RULE_SVC_03] = {
    .section = "Scratch",
    .why = "get_scratch is not thread-safe: called from tasks running on several workers, it "
           "hands two tasks the same memory or corrupts the context.",
    .how = "The harness's services record every get_scratch call made from inside an "
           "execute_n or execute_n_wg task, in any case of the run.",
    .mistakes = "Asking for a per-task buffer inside the task.",
    .fix = "Ask once, before execute_n, for n times the per-task size, and give each task "
           "its slice.",
    .snippet = "svc->get_scratch(ctx, \"tmp\", (size_t)n * per_task, 1, &buf);\n"
               "job.tmp = buf; /* task i uses job.tmp + i * per_task */\n"
               "svc->execute_n(ctx, n, task, &job);",
    .fixture = "svc03-scratch-in-task",
  },
  [NC_RULE_SVC_04] = {
    .section = "Contexts",
    .why = "A context belongs to one op. Used after the op returned (from a background "
           "thread, a deferred callback) it points at state the host reused or freed.",
    .how = "Retires every context when its op returns and records any later use of it, in "
           "any case of the run, with the service and the thread.",
    .mistakes = "Keeping ctx in the table for later; background threads that call services.",
    .fix = "Use ctx only inside the op (and its execute_n tasks); never store it.",
    .snippet = "/* wrong: t->last_ctx = ctx; */\n"
               "nve_status_t st = svc->execute_n(ctx, n, task, &job); /* inside the op */",
    .fixture = "svc04-stash-ctx",
  },
  [NC_RULE_SVC_05] = {
    .section = "Scratch",
    .why = "Asking for a larger scratch buffer under a name may move it; a pointer kept from "
           "before points at freed memory.",
    .how = "Moves every grown buffer and makes the old memory inaccessible, so a use of a "
           "stale pointer is caught.",
    .mistakes = "Caching the scratch pointer in the table across ops.",
    .fix = "Call get_scratch again in each op and use only the latest pointer.",
    .snippet = "void *buf;\nsvc->get_scratch(ctx, \"rows\", bytes, 1, &buf); /* every op */",
    .fixture = "svc05-stale-scratch",
  },
  [NC_RULE_SVC_06] = {
    .section = "Service arguments",
    .why = "The host's services trust their arguments; a negative count or a NULL task is "
           "undefined behaviour inside the host's pool.",
    .how = "The services validate every call in every case (num_tasks >= 0, task non-NULL, "
           "workgroup arguments, non-NULL names and outputs) and record what was wrong.",
    .mistakes = "Passing n - 1 when n is 0; tasks_per_workgroup computed as 0 for small "
                "batches.",
    .fix = "Skip the service call for empty work; clamp derived counts to at least 1.",
    .snippet = "if (n > 0) {\n  int64_t per = n / groups > 0 ? n / groups : 1;\n"
               "  st = svc->execute_n_wg(ctx, n, task, &job, wg, groups, per);\n}",
    .fixture = "svc06-negative-tasks",
  },
  [NC_RULE_SVC_07] = {
    .section = "execute_n",
    .why = "The host's pool size and scheduling vary between machines and runs. Results that "
           "depend on them are races: right on your laptop, wrong in production.",
    .how = "Runs the same seeded sequence with 1, 2 and 8 workers, with tasks in order, in "
           "reverse, shuffled and with random delays, and compares the results.",
    .mistakes = "Tasks that write shared state without atomics; assuming task 0 runs first.",
    .fix = "Give each task its own output range; combine results after execute_n returns.",
    .snippet = "static nve_status_t task(void *user, int64_t i)\n{\n"
               "  struct job *j = user;\n  j->found[i] = lookup(j, i); /* only slot i */\n"
               "  return NVE_SUCCESS;\n}",
    .fixture = "svc07-racy-mask",
  },
  [NC_RULE_SVC_08] = {
    .section = "execute_n",
    .why = "A task that calls execute_n waits on a barrier that needs the worker it is "
           "running on; many pools deadlock.",
    .how = "The services record any execute_n or execute_n_wg call made from inside a task.",
    .mistakes = "Recursive parallelism: a task that splits its work again.",
    .fix = "Flatten the work into one execute_n call.",
    .snippet = "/* n * m tasks instead of n tasks that each run m */\n"
               "svc->execute_n(ctx, n * m, task, &job);",
    .fixture = "svc08-nested",
  },

  /* ---- TBL: table semantics ---------------------------------------------- */
  [NC_RULE_TBL_01] = {
    .section = "Capabilities",
    .why = "The host refuses a table with a key size other than 4 or 8, a row size that is "
           "not positive, or a dtype outside the enum.",
    .how = "Reads key_size, max_row_size and value_dtype once the table is produced.",
    .mistakes = "Reporting the row size in elements instead of bytes; a dtype from a private "
                "enum.",
    .fix = "Report bytes, and a value of nve_data_type_t.",
    .snippet = "static int64_t my_max_row_size(void *self) { return dim * (int64_t)sizeof(float); }",
    .fixture = "tbl01-bad-dtype",
  },
  [NC_RULE_TBL_02] = {
    .section = "find",
    .why = "An embedding cache that returns bytes not written for a key trains or serves on "
           "wrong data, silently.",
    .how = "Inserts and updates rows of the table's own row size and key size, then finds "
           "them and compares every byte, the hit bits and value_sizes with the model. Then "
           "sweeps insert and find over their whole call space (cases/kit/call_space.h): "
           "batches from 1 to 4133 keys, strides equal to and wider than the row, keys spread "
           "over the full width, at the edges, duplicated and half stored, on empty, shallow "
           "and deep tables, and a refused call at every batch size.",
    .mistakes = "Returning the row of a colliding key; reporting a hit without writing the "
                "row; a sign bug for keys with the high bit set; a wrong value_sizes.",
    .fix = "Compare the full key on lookup, and write value_sizes[i] for every hit.",
    .snippet = "if (slot->key == key) {\n  memcpy(values + i * stride, slot->row, t->row_bytes);\n"
               "  if (sizes) sizes[i] = t->row_bytes;\n  mask[i / 64] |= 1ull << (i % 64);\n}",
    .fixture = "tbl02-hits-unwritten",
  },
  [NC_RULE_TBL_03] = {
    .section = "find",
    .why = "Hosts chain lookups through several tables with one hit mask; a table that "
           "overwrites an already-resolved slot replaces a better answer.",
    .how = "Calls find with some input bits set over slots filled with a pattern and checks "
           "that those slots are untouched and the bits still set.",
    .mistakes = "Clearing the mask at the start of find; looking up every key regardless "
                "of the mask.",
    .fix = "Skip keys whose bit is set, and only ever set bits.",
    .snippet = "if (mask && (mask[i / 64] >> (i % 64) & 1)) continue; /* already resolved */",
    .fixture = "tbl03-overwrite-resolved",
  },
  [NC_RULE_TBL_04] = {
    .section = "Owned memory",
    .why = "Writing past what the call owns corrupts the host's memory: the next row, the "
           "next mask word, the key array it will reuse.",
    .how = "Every buffer the harness passes sits between guard pages with canaries; the gaps "
           "between row and stride, mask bits at n and above, and every input buffer are "
           "checked after every call, in every case.",
    .mistakes = "Writing a whole stride instead of a row; setting mask bits beyond n; "
                "sorting or hashing the keys in place.",
    .fix = "Write row bytes only, bits below n only, and copy inputs before changing them.",
    .snippet = "memcpy((char *)values + i * stride, row, (size_t)t->row_bytes); /* not stride */",
    .fixture = "tbl04-stride-gap",
  },
  [NC_RULE_TBL_05] = {
    .section = "find",
    .why = "Hosts pass NULL hit_mask (nothing resolved), NULL values (existence check) and "
           "NULL value_sizes; dereferencing them crashes the host.",
    .how = "Calls find with each of the three NULL, alone and together, and compares with "
           "the model.",
    .mistakes = "Writing value_sizes[i] without a check.",
    .fix = "Test each optional pointer before using it.",
    .snippet = "if (values) memcpy(...);\nif (sizes) sizes[i] = len;\nif (mask) mask[i / 64] |= bit;",
    .fixture = "tbl05-null-sizes-crash",
  },
  [NC_RULE_TBL_06] = {
    .section = "update",
    .why = "update is how hosts refresh rows they know are cached; inserting missing keys "
           "fills the cache with rows it never asked for.",
    .how = "Updates a mix of present and absent keys and checks with find that only the "
           "present ones changed; then sweeps update over its whole call space (batches, "
           "strides, key classes, table depths).",
    .mistakes = "Implementing update as insert; a read cache update does not invalidate; "
                "stepping through the rows by value_size instead of value_stride.",
    .fix = "Look the key up and skip it when absent.",
    .snippet = "struct slot *s = lookup(t, key);\nif (!s) continue; /* update never inserts */\n"
               "memcpy(s->row, src, size);",
    .fixture = "tbl06-update-inserts",
  },
  [NC_RULE_TBL_07] = {
    .section = "update_accumulate",
    .why = "Training hosts push gradients with update_accumulate. Success with wrong sums, or "
           "with nothing applied, corrupts a model without any error.",
    .how = "Accumulates float32 updates into present and absent keys and checks the sums; "
           "then tries every other dtype and an undefined one: each must fail with a message "
           "or succeed with correctly converted sums (an update_size that is no multiple of a "
           "dtype's element is never sent). Then sweeps accumulate in the table's own type "
           "over its whole call space.",
    .mistakes = "Ignoring update_dtype and adding raw bytes as float; returning NVE_SUCCESS "
                "for a dtype that is not implemented.",
    .fix = "Sum the dtypes you support; return NVE_ERROR_NOT_IMPLEMENTED with a message for "
           "the others.",
    .snippet = "if (dtype != NVE_DTYPE_FLOAT32)\n"
               "  return fail(NVE_ERROR_NOT_IMPLEMENTED, \"update_accumulate: float32 only\");",
    .fixture = "tbl07-accumulate-any-dtype",
  },
  [NC_RULE_TBL_08] = {
    .section = "erase and clear",
    .why = "Hosts erase stale rows and clear tables between epochs; rows that survive are "
           "served as if they were current.",
    .how = "Erases present and absent keys, clears, and checks with find; then sweeps erase "
           "over its whole call space (batches up to 4133 keys, key classes, table depths).",
    .mistakes = "erase that marks a slot but find that still matches it; clear that resets a "
                "counter but not the rows.",
    .fix = "Make find treat erased slots as empty.",
    .snippet = "s->used = 0; /* and find checks s->used before comparing keys */",
    .fixture = "tbl08-erase-noop",
  },
  [NC_RULE_TBL_09] = {
    .section = "Lookup counter",
    .why = "Hosts size and evict caches from the lookup counter; a counter that is not reset "
           "or counts the wrong thing drives those decisions wrong.",
    .how = "Resets the counter, runs finds with an empty input mask, and compares the counter "
           "with the hits (or misses, per lookup_counter_hits) the model expects.",
    .mistakes = "reset_lookup_counter that does nothing; counting keys resolved on entry.",
    .fix = "Count per find, for keys looked up by this call, as lookup_counter_hits says.",
    .snippet = "atomic_fetch_add(&t->hits, found_now); /* lookup_counter_hits() returns 1 */",
    .fixture = "tbl09-counter-not-reset",
  },
  [NC_RULE_TBL_10] = {
    .section = "Empty calls",
    .why = "Hosts split batches; an empty piece is normal. A table that fails or crashes on "
           "n == 0 fails the whole batch.",
    .how = "Calls every op with n == 0 and valid, non-NULL buffers, and checks the status and "
           "that nothing changed.",
    .mistakes = "Computing n - 1 or dividing by n; passing 0 tasks through a path that "
                "assumes at least one.",
    .fix = "Return NVE_SUCCESS early when n == 0 (after any pointer checks you make).",
    .snippet = "if (n == 0) return NVE_SUCCESS;",
    .fixture = "tbl10-crash-on-empty",
  },
  [NC_RULE_TBL_11] = {
    .section = "Table operations",
    .why = "Bugs that single-op checks miss (growth, rehashing, tombstones) show in long "
           "mixed sequences; that is what a host runs.",
    .how = "Runs a seeded random sequence of every op against the model, deep enough to make "
           "the table grow, with keys in random order; on a difference it shrinks the "
           "sequence to a short failing prefix and prints it with the seed.",
    .mistakes = "Losing rows when the table grows; tombstones that break probing chains; "
                "eviction that returns another key's row.",
    .fix = "Reproduce with the printed seed and prefix (--seed), then test the op it names.",
    .snippet = NULL,
    .fixture = "tbl11-deep-bug",
  },
  [NC_RULE_TBL_12] = {
    .section = "Threads",
    .why = "Hosts look up from many threads at once, each with its own context. Shared "
           "mutable state in find gives wrong rows under load.",
    .how = "Several threads run finds on a filled table at the same time, each with its own "
           "context and buffers, and compare with the model.",
    .mistakes = "A scratch buffer in the table object used by every find; lazy rehashing "
                "inside find.",
    .fix = "Keep per-call state on the stack or in the context's scratch.",
    .snippet = "void *tmp;\nsvc->get_scratch(ctx, \"find\", bytes, 1, &tmp); /* per context */",
    .fixture = "tbl12-shared-find-buffer",
  },

  /* ---- LIF: lifecycle ----------------------------------------------------- */
  [NC_RULE_LIF_01] = {
    .section = "Table outlives factory",
    .why = "The host may destroy a factory while its tables are in use; a table that "
           "reaches into its factory reads freed memory.",
    .how = "Produces tables, destroys the factory, and keeps using the tables.",
    .mistakes = "Tables that keep a pointer to the factory's allocator or config.",
    .fix = "Copy what a table needs from the factory into the table.",
    .snippet = "t->row_bytes = f->row_bytes; /* not t->factory = f */",
    .fixture = "lif01-factory-state",
  },
  [NC_RULE_LIF_02] = {
    .section = "Independent tables",
    .why = "Hosts keep several tables (one per embedding); writes that show in another table "
           "mix up embeddings.",
    .how = "Writes different rows for the same keys into several tables from one factory, "
           "deep enough to make them grow, and checks each against its own model.",
    .mistakes = "A global map shared by all tables.",
    .fix = "Give each table its own storage.",
    .snippet = "struct my_table *t = calloc(1, sizeof *t); /* storage per table */",
    .fixture = "lif02-shared-map",
  },
  [NC_RULE_LIF_04] = {
    .section = "Reload",
    .why = "Hosts load and unload plugins (reloads, tests). A thread or timer still running "
           "plugin code after dlclose crashes the host later, somewhere else.",
    .how = "Loads, creates, uses, destroys and unloads the plugin several times in one "
           "process and checks that nothing runs or crashes afterwards.",
    .mistakes = "A background thread that is not joined in destroy; atexit handlers in the "
                "plugin.",
    .fix = "Join every thread you start in the destroy of the object that started it.",
    .snippet = "static void my_destroy(void *self)\n{\n  struct my_table *t = self;\n"
               "  atomic_store(&t->stop, 1);\n  pthread_join(t->worker, NULL);\n  free(t);\n}",
    .fixture = "lif04-thread-after-unload",
  },
};
