/* SPDX-License-Identifier: Apache-2.0 */
/* VER: versioning and struct growth (doc/rules.md "VER"). */
#include <stdio.h>
#include <string.h>

#include "calls.h"
#include "cases.h"
#include "common.h"
#include "services.h"
#include "callback.h"
#include "violations.h"

/* Reads the plugin's version; returns 0, or -1 with a skip recorded. */
static int read_version(nc_case *c, uint32_t *major, uint32_t *minor)
{
  if (!c->plugin->abi_version_major || !c->plugin->abi_version_minor) {
    nc_skip_blocked(c, NC_RULE_SYM_01, "a version symbol is not exported");
    return -1;
  }
  nc_callback_enter("nve_plugin_abi_version_major");
  *major = c->plugin->abi_version_major();
  nc_callback_enter("nve_plugin_abi_version_minor");
  *minor = c->plugin->abi_version_minor();
  nc_callback_leave();
  return 0;
}

void nc_case_VER_01(nc_case *c)
{
  uint32_t major, minor;
  if (read_version(c, &major, &minor) != 0)
    return;
  char expected[64];
  snprintf(expected, sizeof(expected), "%u (the host's major)", c->cfg->host_major);
  if (major == c->cfg->host_major)
    nc_note(c, "nve_plugin_abi_version_major()", expected, "%u", (unsigned)major);
  else
    nc_fail(c, "nve_plugin_abi_version_major()", expected,
            "%u: every %u.x host refuses the plugin", (unsigned)major, c->cfg->host_major);
}

void nc_case_VER_02(nc_case *c)
{
  uint32_t major, minor;
  if (read_version(c, &major, &minor) != 0)
    return;
  char expected[64], hosts[128];
  snprintf(expected, sizeof(expected), "<= %u (the host's minor)", c->cfg->host_minor);
  nc_accepting_hosts(major, minor, c->cfg->host_major, hosts, sizeof(hosts));
  if (minor <= c->cfg->host_minor)
    nc_note(c, "nve_plugin_abi_version_minor()", expected, "%u; accepted by %s", (unsigned)minor,
            hosts);
  else
    nc_fail(c, "nve_plugin_abi_version_minor()", expected,
            "%u: host %u.%u refuses it; accepted by %s", (unsigned)minor, c->cfg->host_major,
            c->cfg->host_minor, hosts);
}

/* A factory or table handle as the host sees it: self, then ops, whose
 * struct_size must cover the 1.0 struct and whose nfns function pointers
 * (at 8-byte steps after struct_size) must all be set. */
typedef struct handle_shape {
  const char *what;    /* "factory" or "table" */
  const char *creator; /* the call that handed it over */
  uint32_t size_1_0;
  int nfns;
  const char *const *names;
} handle_shape;

static const handle_shape factory_shape = {"factory", "nve_plugin_create_external_factory",
                                           sizeof(nve_ext_table_factory_ops_t), NC_FACTORY_OPS_FNS,
                                           nc_factory_ops_names};
static const handle_shape table_shape = {"table", "factory produce", sizeof(nve_ext_table_ops_t),
                                         NC_TABLE_OPS_FNS, nc_table_ops_names};

/* Checks a handle; returns nonzero when the host can use it. */
static int check_handle(nc_case *c, const handle_shape *shape, const void *self, const void *ops)
{
  char call[64], expected[64];
  int ok = 1;
  if (!self) {
    nc_fail(c, shape->creator, "a non-NULL self with NVE_SUCCESS", "%s self is NULL",
            shape->what);
    ok = 0;
  }
  if (!ops) {
    nc_fail(c, shape->creator, "a non-NULL ops with NVE_SUCCESS", "%s ops is NULL", shape->what);
    return 0;
  }
  uint32_t size;
  memcpy(&size, ops, sizeof(size));
  snprintf(call, sizeof(call), "%s ops struct_size", shape->what);
  snprintf(expected, sizeof(expected), ">= %u (the whole 1.0 struct)", (unsigned)shape->size_1_0);
  if (size < shape->size_1_0) {
    nc_fail(c, call, expected, "%u", (unsigned)size);
    return 0;
  }
  snprintf(call, sizeof(call), "%s ops", shape->what);
  for (int i = 0; i < shape->nfns; i++)
    if (!nc_ops_fn(ops, i)) {
      nc_fail(c, call, "every 1.0 function pointer non-NULL", "%s is NULL", shape->names[i]);
      ok = 0;
    }
  if (ok)
    nc_note(c, call, "usable", "self %p, struct_size %u", self, (unsigned)size);
  return ok;
}

void nc_case_VER_03(nc_case *c)
{
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_create_factory(c, &f) != 0)
    return;
  if (!check_handle(c, &factory_shape, f.self, f.ops)) {
    /* A host destroys a rejected handle only when destroy is known good. */
    if (nc_destroy_known_good(f.ops))
      nc_call_factory_destroy(&f);
    return;
  }
  if (nc_produce_table(c, &f, &t) == 0 &&
      (check_handle(c, &table_shape, t.self, t.ops) || nc_destroy_known_good(t.ops)))
    nc_call_table_destroy(&t);
  nc_call_factory_destroy(&f);
}

/* Warns when a vtable's struct_size is not what its declared minor implies. */
static void check_size(nc_case *c, const char *what, uint32_t size, uint32_t size_1_0,
                       uint32_t minor)
{
  char expected[96];
  if (minor == 0)
    snprintf(expected, sizeof(expected), "exactly %u (ABI 1.0)", (unsigned)size_1_0);
  else
    snprintf(expected, sizeof(expected), "%u..65536 (ABI 1.%u)", (unsigned)size_1_0,
             (unsigned)minor);
  int plausible = minor == 0 ? size == size_1_0 : size >= size_1_0 && size <= 65536;
  if (plausible)
    nc_note(c, what, expected, "%u", (unsigned)size);
  else
    nc_fail(c, what, expected, "%u", (unsigned)size);
}

void nc_case_VER_04(nc_case *c)
{
  uint32_t major, minor;
  if (read_version(c, &major, &minor) != 0)
    return;
  nve_ext_table_factory_t f;
  nve_ext_table_t t;
  if (nc_create_factory(c, &f) != 0)
    return;
  if (!f.ops) {
    nc_skip_blocked(c, NC_RULE_VER_03, "the factory has no ops");
    return;
  }
  if (f.ops->struct_size < sizeof(nve_ext_table_factory_ops_t) || !f.ops->produce) {
    nc_skip_blocked(c, NC_RULE_VER_03, "the factory ops do not cover ABI 1.0");
    return;
  }
  check_size(c, "factory ops struct_size", f.ops->struct_size,
             (uint32_t)sizeof(nve_ext_table_factory_ops_t), minor);
  if (nc_produce_table(c, &f, &t) == 0 && t.ops) {
    if (t.ops->struct_size < sizeof(nve_ext_table_ops_t))
      nc_note(c, "table ops struct_size", "ABI 1.0's size at least (the rest is another rule's)",
              "%u, below ABI 1.0; see %s", (unsigned)t.ops->struct_size,
              nc_rule_text(NC_RULE_VER_03));
    else
      check_size(c, "table ops struct_size", t.ops->struct_size,
                 (uint32_t)sizeof(nve_ext_table_ops_t), minor);
    if (t.ops->struct_size >= sizeof(nve_ext_table_ops_t) && t.ops->destroy)
      nc_call_table_destroy(&t);
  }
  if (f.ops->destroy)
    nc_call_factory_destroy(&f);
}

/* VER-05 and VER-06: hand over a services table of another host version
 * (replacing the one the load gave), then run the workload. */
static void with_services_of(nc_case *c, const nve_ext_nve_services_t *svc, const char *which)
{
  if (!nc_has_handshake(c))
    return;
  nc_call_set_services(c->plugin, svc);
  char when[128];
  snprintf(when, sizeof(when), "workload with %s (struct_size %u)", which,
           (unsigned)svc->struct_size);
  nc_workload_result w;
  nc_workload_on_new_table(c, when, &w);
}

void nc_case_VER_05(nc_case *c)
{
  with_services_of(c, nc_services_table_newer(), "a newer host's services table");
}

void nc_case_VER_06(nc_case *c)
{
  /* An older host: only num_workers, nothing after it. */
  size_t size = offsetof(nve_ext_nve_services_t, num_workers) + sizeof(void *);
  with_services_of(c, nc_services_table_truncated(size), "an older host's truncated table");
  nc_report_violations(c, NC_RULE_VER_06, "services beyond struct_size",
                       "checked with NVE_ABI_HAS_FIELD before use");
}
