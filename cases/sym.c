/* SPDX-License-Identifier: Apache-2.0 */
/* SYM: symbols and metadata (doc/rules.md "SYM"). */
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "cuda.h"
#include "services.h"
#include "callback.h"

#define STRING_BOUND 4096

/* SYM-06: static ELF checks, then dlopen. Also the load probe's first half:
 * it leaves the opened plugin in c->plugin. */
void nc_case_SYM_06(nc_case *c)
{
  const nc_elf_info *elf = &c->cfg->elf;
  char expected[128];
  snprintf(expected, sizeof(expected), "an ELF64 shared object for %s",
           nc_elf_machine_name(nc_elf_host_machine()));
  if (!elf->loadable) {
    nc_fail(c, "static ELF inspection", expected, "%s", c->cfg->elf_error);
    return;
  }
  nc_note(c, "static ELF inspection", expected, "%s %s %s", elf->class_name, elf->machine_name,
          elf->type_name);
  static nc_plugin plugin;
  char err[1024];
  if (nc_plugin_open(&plugin, c->cfg->plugin_path, err, sizeof(err)) != 0) {
    nc_fail(c, "dlopen(RTLD_NOW | RTLD_LOCAL)", "the plugin and all its dependencies load",
            "%s", err);
    return;
  }
  nc_note(c, "dlopen(RTLD_NOW | RTLD_LOCAL)", "the plugin loads", "loaded %s",
          plugin.opened_path);
  c->plugin = &plugin;
}

/* Reads a metadata string defensively into out; returns its length or < 0. */
static long read_metadata_string(nc_case *c, const char *sym, const char *(*fn)(void), char *out)
{
  nc_callback_enter(sym);
  const char *s = fn();
  nc_callback_leave();
  long len = nc_read_plugin_string(s, out, STRING_BOUND);
  if (!s)
    nc_fail(c, sym, "a non-NULL string", "NULL");
  else if (len == -1)
    nc_fail(c, sym, "a readable string", "unreadable pointer %p", (const void *)s);
  else if (len == -2)
    nc_fail(c, sym, "a string terminated within 4096 bytes", "no NUL in the first 4096 bytes");
  else if (len == 0)
    nc_fail(c, sym, "a non-empty string", "\"\"");
  return s ? len : -1;
}

void nc_case_SYM_01(nc_case *c)
{
  void *fns[5] = {(void *)c->plugin->abi_version_major, (void *)c->plugin->abi_version_minor,
                  (void *)c->plugin->name, (void *)c->plugin->author, (void *)c->plugin->mode};
  for (int i = 0; i < 5; i++) {
    char call[96];
    snprintf(call, sizeof(call), "dlsym(%s)", nc_metadata_symbols[i]);
    if (fns[i])
      nc_note(c, call, "exported", "found");
    else
      nc_fail(c, call, "exported", "missing: the host refuses the plugin");
  }
}

static void check_metadata_string(nc_case *c, const char *sym, const char *(*fn)(void))
{
  if (!fn) {
    nc_note(c, sym, "exported", "missing (%s); not checked", nc_rule_text(NC_RULE_SYM_01));
    return;
  }
  char first[STRING_BOUND], again[STRING_BOUND];
  long len = read_metadata_string(c, sym, fn, first);
  if (len <= 0)
    return;
  nc_note(c, sym, "a non-empty string", "\"%s\"", first);
  if (!nc_utf8_valid(first))
    nc_warn(c, sym, "valid UTF-8", "invalid UTF-8 bytes");
  for (int i = 0; i < 3; i++) {
    long l2 = read_metadata_string(c, sym, fn, again);
    if (l2 < 0)
      return;
    if (strcmp(first, again) != 0) {
      nc_warn(c, sym, "the same value on every call", "\"%s\", then \"%s\"", first, again);
      return;
    }
  }
}

void nc_case_SYM_02(nc_case *c)
{
  if (!c->plugin->name && !c->plugin->author) {
    nc_skip_blocked(c, NC_RULE_SYM_01, "neither nve_plugin_name nor nve_plugin_author is exported");
    return;
  }
  check_metadata_string(c, "nve_plugin_name", c->plugin->name);
  check_metadata_string(c, "nve_plugin_author", c->plugin->author);
}

/* The plugin's mode, or -1 (with a skip recorded) when it cannot be read. */
static int32_t read_mode(nc_case *c)
{
  if (!c->plugin->mode) {
    nc_skip_blocked(c, NC_RULE_SYM_01, "nve_plugin_mode is not exported");
    return -1;
  }
  nc_callback_enter("nve_plugin_mode");
  int32_t mode = c->plugin->mode();
  nc_callback_leave();
  return mode;
}

void nc_case_SYM_03(nc_case *c)
{
  int32_t mode = read_mode(c);
  if (mode == -1 && !c->plugin->mode)
    return;
  if (mode == NVE_PLUGIN_MODE_INTERNAL || mode == NVE_PLUGIN_MODE_EXTERNAL)
    nc_note(c, "nve_plugin_mode()", "0 or 1", "%d (%s)", (int)mode,
            mode == NVE_PLUGIN_MODE_EXTERNAL ? "external" : "internal");
  else
    nc_fail(c, "nve_plugin_mode()", "0 (internal) or 1 (external)", "%d: the host refuses it",
            (int)mode);
}

void nc_case_SYM_04(nc_case *c)
{
  int32_t mode = read_mode(c);
  if (mode == -1 && !c->plugin->mode)
    return;
  const char *sym;
  const void *fn;
  if (mode == NVE_PLUGIN_MODE_INTERNAL) {
    sym = "nve_plugin_create_internal_factory";
    fn = c->plugin->create_internal_factory;
  } else if (mode == NVE_PLUGIN_MODE_EXTERNAL) {
    sym = "nve_plugin_create_external_factory";
    fn = (const void *)c->plugin->create_external_factory;
  } else {
    nc_skip_blocked(c, NC_RULE_SYM_03, "mode %d is neither internal nor external", (int)mode);
    return;
  }
  char call[96];
  snprintf(call, sizeof(call), "dlsym(%s)", sym);
  if (fn)
    nc_note(c, call, "exported", "found");
  else
    nc_fail(c, call, "exported (the creation symbol of the reported mode)", "missing");
}

void nc_case_SYM_05(nc_case *c)
{
  const nc_elf_info *elf = &c->cfg->elf;
  int linked = 0;
  for (size_t i = 0; i < elf->needed_count; i++) {
    if (strncmp(elf->needed[i], "libnve-common", 13) == 0) {
      nc_fail(c, "DT_NEEDED", "no libnve-common (an external plugin must not link it)",
              "needs %s", elf->needed[i]);
      linked = 1;
    }
  }
  if (!linked)
    nc_note(c, "DT_NEEDED", "no libnve-common", "%zu needed libraries, none is libnve-common",
            elf->needed_count);
}

void nc_case_SYM_07(nc_case *c)
{
  if (c->plugin->set_nve_services)
    nc_note(c, "dlsym(nve_plugin_set_nve_services)", "exported", "found");
  else
    nc_fail(c, "dlsym(nve_plugin_set_nve_services)",
            "exported (NVE_DEFINE_EXTERNAL_PLUGIN emits it)",
            "missing: the plugin never receives the host's thread pool and scratch services");
}

void nc_load_probe(nc_case *c)
{
  nc_info(c, "cuda", "%s", nc_cuda_describe());
  if (!c->plugin)
    return;
  nc_info(c, "opened", "1");
  nc_host_load load;
  nc_host_load_run(c->plugin, c->cfg->host_major, c->cfg->host_minor, nc_services_table(), &load);
  char text[STRING_BOUND];
  if (c->plugin->abi_version_major && c->plugin->abi_version_minor)
    nc_info(c, "abi", "%u.%u", (unsigned)load.major, (unsigned)load.minor);
  if (c->plugin->name && nc_read_plugin_string(c->plugin->name(), text, 256) >= 0)
    nc_info(c, "name", "%s", text);
  if (c->plugin->author && nc_read_plugin_string(c->plugin->author(), text, 256) >= 0)
    nc_info(c, "author", "%s", text);
  if (c->plugin->mode) {
    nc_callback_enter("nve_plugin_mode");
    int32_t mode = c->plugin->mode();
    nc_callback_leave();
    nc_info(c, "mode", "%d", (int)mode);
  }
  if (load.accepted) {
    nc_info(c, "loaded", "1");
  } else {
    nc_info(c, "blocker_rule", "%s", nc_rule_text(load.rule));
    nc_info(c, "blocker_reason", "%s", load.reason);
  }
}
