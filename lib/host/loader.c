/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "loader.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "callback.h"
#include "calls.h"

const char *const nc_metadata_symbols[5] = {
    "nve_plugin_abi_version_major", "nve_plugin_abi_version_minor", "nve_plugin_name",
    "nve_plugin_author", "nve_plugin_mode"};

static void *try_open(const char *path, char *err, size_t errlen)
{
  nc_callback_enter("dlopen (plugin constructors)");
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  nc_callback_leave();
  if (!dl) {
    const char *e = dlerror();
    snprintf(err, errlen, "%s", e ? e : "dlopen failed");
  }
  return dl;
}

int nc_plugin_open(nc_plugin *p, const char *path, char *err, size_t errlen)
{
  memset(p, 0, sizeof(*p));
  p->dl = try_open(path, err, errlen);
  snprintf(p->opened_path, sizeof(p->opened_path), "%s", path);
  if (!p->dl && !strchr(path, '/')) {
    /* Retry next to this library, as the host retries next to its own. */
    Dl_info self;
    char first[512];
    snprintf(first, sizeof(first), "%s", err);
    if (dladdr((void *)nc_plugin_open, &self) && self.dli_fname) {
      char dir[PATH_MAX];
      snprintf(dir, sizeof(dir), "%s", self.dli_fname);
      char *slash = strrchr(dir, '/');
      if (slash) {
        *slash = '\0';
        int n = snprintf(p->opened_path, sizeof(p->opened_path), "%s/%s", dir, path);
        p->dl = n < (int)sizeof(p->opened_path) ? try_open(p->opened_path, err, errlen) : NULL;
        if (!p->dl) {
          char second[512];
          snprintf(second, sizeof(second), "%s", err);
          snprintf(err, errlen, "%s; fallback '%s': %s", first, p->opened_path, second);
        }
      }
    }
  }
  if (!p->dl)
    return -1;
  p->abi_version_major = (uint32_t(*)(void))dlsym(p->dl, nc_metadata_symbols[0]);
  p->abi_version_minor = (uint32_t(*)(void))dlsym(p->dl, nc_metadata_symbols[1]);
  p->name = (const char *(*)(void))dlsym(p->dl, nc_metadata_symbols[2]);
  p->author = (const char *(*)(void))dlsym(p->dl, nc_metadata_symbols[3]);
  p->mode = (nve_plugin_mode_t(*)(void))dlsym(p->dl, nc_metadata_symbols[4]);
  p->create_internal_factory = dlsym(p->dl, "nve_plugin_create_internal_factory");
  p->create_external_factory =
      (nve_status_t(*)(const char *, nve_ext_table_factory_t *, const char **))dlsym(
          p->dl, "nve_plugin_create_external_factory");
  p->set_nve_services =
      (void (*)(const nve_ext_nve_services_t *))dlsym(p->dl, "nve_plugin_set_nve_services");
  return 0;
}

void nc_plugin_close(nc_plugin *p)
{
  if (p->dl) {
    nc_callback_enter("dlclose (plugin destructors)");
    dlclose(p->dl);
    nc_callback_leave();
  }
  memset(p, 0, sizeof(*p));
}

static void refuse(nc_host_load *out, nc_rule rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(nc_host_load *out, nc_rule rule, const char *fmt, ...)
{
  out->accepted = 0;
  out->rule = rule;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
  va_end(ap);
}

void nc_host_load_run(nc_plugin *p, unsigned host_major, unsigned host_minor,
                      const nve_ext_nve_services_t *svc, nc_host_load *out)
{
  memset(out, 0, sizeof(*out));
  out->mode = -1;
  for (int i = 0; i < 2; i++) {
    void *fn = i == 0 ? (void *)p->abi_version_major : (void *)p->abi_version_minor;
    if (!fn) {
      refuse(out, NC_RULE_SYM_01, "missing symbol %s", nc_metadata_symbols[i]);
      return;
    }
  }
  nc_callback_enter(nc_metadata_symbols[0]);
  out->major = p->abi_version_major();
  nc_callback_enter(nc_metadata_symbols[1]);
  out->minor = p->abi_version_minor();
  nc_callback_leave();
  if (out->major != host_major) {
    refuse(out, NC_RULE_VER_01, "plugin ABI %u.%u: major does not match host major %u", out->major,
           out->minor, host_major);
    return;
  }
  if (out->minor > host_minor) {
    refuse(out, NC_RULE_VER_02, "plugin built for ABI %u.%u, newer than host %u.%u", out->major,
           out->minor, host_major, host_minor);
    return;
  }
  for (int i = 2; i < 4; i++) {
    void *fn = i == 2 ? (void *)p->name : (void *)p->author;
    if (!fn) {
      refuse(out, NC_RULE_SYM_01, "missing symbol %s", nc_metadata_symbols[i]);
      return;
    }
  }
  nc_callback_enter(nc_metadata_symbols[2]);
  const char *name = p->name();
  nc_callback_enter(nc_metadata_symbols[3]);
  const char *author = p->author();
  nc_callback_leave();
  if (!name || !author) {
    refuse(out, NC_RULE_SYM_02, "%s returned NULL", !name ? "nve_plugin_name" : "nve_plugin_author");
    return;
  }
  if (!p->mode) {
    refuse(out, NC_RULE_SYM_01, "missing symbol %s", nc_metadata_symbols[4]);
    return;
  }
  nc_callback_enter(nc_metadata_symbols[4]);
  out->mode = p->mode();
  nc_callback_leave();
  if (out->mode != NVE_PLUGIN_MODE_INTERNAL && out->mode != NVE_PLUGIN_MODE_EXTERNAL) {
    refuse(out, NC_RULE_SYM_03, "unknown plugin mode %d (expected 0 internal or 1 external)",
           (int)out->mode);
    return;
  }
  if (out->mode == NVE_PLUGIN_MODE_INTERNAL && !p->create_internal_factory) {
    refuse(out, NC_RULE_SYM_04, "missing symbol %s", "nve_plugin_create_internal_factory");
    return;
  }
  if (out->mode == NVE_PLUGIN_MODE_EXTERNAL && !p->create_external_factory) {
    refuse(out, NC_RULE_SYM_04, "missing symbol %s", "nve_plugin_create_external_factory");
    return;
  }
  if (out->mode == NVE_PLUGIN_MODE_EXTERNAL && p->set_nve_services && svc) {
    nc_call_set_services(p, svc);
  }
  out->accepted = 1;
}

void nc_accepting_hosts(uint32_t major, uint32_t minor, unsigned host_major, char *out,
                        size_t outlen)
{
  if (major != host_major)
    snprintf(out, outlen, "none of ABI %u.x (plugin major %u)", host_major, (unsigned)major);
  else
    snprintf(out, outlen, "%u.%u and later %u.x hosts", host_major, (unsigned)minor, host_major);
}
