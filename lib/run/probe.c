/* SPDX-License-Identifier: Apache-2.0 */
/* The load probe: what SYM-06's case found out about the plugin (the
 * report header, and how far it loads), and why a later rule cannot run. */
#define _GNU_SOURCE
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_table.h"
#include "verdict.h"

/* Reads the probe's INFO records into the report header and the probe. */
void nc_probe_read(const nc_child_result *cr, const nc_config *cfg, nc_report *r,
                   nc_probe_state *ps)
{
  int settled = 0;
  const char *phase = cr->phase;
  for (size_t i = 0; i < cr->nrecords; i++) {
    const nc_record *rec = &cr->records[i];
    if (strcmp(rec->tag, "SETTLED") == 0)
      settled = 1;
    if (strcmp(rec->tag, "INFO") != 0 || rec->nfields < 2)
      continue;
    const char *k = rec->fields[0], *v = rec->fields[1];
    if (strcmp(k, "opened") == 0) {
      ps->opened = 1;
    } else if (strcmp(k, "loaded") == 0) {
      ps->loaded = 1;
    } else if (strcmp(k, "abi") == 0) {
      free(r->plugin_abi);
      r->plugin_abi = nc_sanitized(v);
      unsigned major = 0, minor = 0;
      if (sscanf(v, "%u.%u", &major, &minor) == 2) {
        char hosts[128];
        nc_accepting_hosts(major, minor, cfg->host_major, hosts, sizeof(hosts));
        free(r->accepting_hosts);
        r->accepting_hosts = strdup(hosts);
      }
    } else if (strcmp(k, "name") == 0) {
      free(r->plugin_name);
      r->plugin_name = nc_sanitized(v);
    } else if (strcmp(k, "author") == 0) {
      free(r->plugin_author);
      r->plugin_author = nc_sanitized(v);
    } else if (strcmp(k, "mode") == 0) {
      ps->mode_known = 1;
      ps->mode = (int32_t)atoi(v);
      free(r->plugin_mode);
      r->plugin_mode = ps->mode == NVE_PLUGIN_MODE_EXTERNAL   ? strdup("external")
                       : ps->mode == NVE_PLUGIN_MODE_INTERNAL ? strdup("internal")
                                                              : nc_strdupf("invalid (%s)", v);
    } else if (strcmp(k, "cuda") == 0) {
      free(r->cuda);
      r->cuda = nc_sanitized(v);
    } else if (strcmp(k, "blocker_rule") == 0) {
      int by = nc_rule_parse(v);
      ps->blocker_rule = by >= 0 ? &nc_rule_defs[by].info : NULL;
    } else if (strcmp(k, "blocker_reason") == 0) {
      snprintf(ps->blocker, sizeof(ps->blocker), "the host refuses the plugin: %s", v);
    }
  }
  if (!settled || !ps->opened) {
    snprintf(ps->blocker, sizeof(ps->blocker), "the plugin does not load");
    ps->blocker_rule = &nc_rule_defs[NC_PROBE_RULE].info;
    ps->opened = ps->loaded = 0;
  } else if (!cr->ended && !ps->loaded) {
    char how[256];
    nc_child_describe_end(cr, cfg->timeout_s, how, sizeof(how));
    snprintf(ps->blocker, sizeof(ps->blocker), "loading the plugin %s in %s", how,
             phase[0] ? phase : "plugin code");
    ps->blocker_rule = NULL;
  }
}

const char *nc_probe_blocked(nc_rule rule, const nc_config *cfg, const nc_probe_state *ps,
                             int *blocked, const nc_rule_info **owner, char *buf,
                             size_t buflen)
{
  const nc_rule_def *def = &nc_rule_defs[rule];
  *blocked = 0; /* not a block (the rule does not apply) */
  *owner = NULL;
  if (rule == NC_PROBE_RULE)
    return NULL;
  if (ps->file_changed) {
    *blocked = 1;
    *owner = &nc_rule_defs[NC_PROBE_RULE].info;
    snprintf(buf, buflen, "%s", ps->blocker);
    return buf;
  }
  if (!cfg->elf.loadable || (def->stage >= NC_STAGE_OPEN && !ps->opened)) {
    *blocked = 1;
    *owner = &nc_rule_defs[NC_PROBE_RULE].info;
    snprintf(buf, buflen, "the plugin does not load");
    return buf;
  }
  if (ps->mode_known && ps->mode == NVE_PLUGIN_MODE_INTERNAL &&
      (def->applies_to == NC_APPLIES_EXTERNAL || def->stage >= NC_STAGE_ACCEPTED)) {
    snprintf(buf, buflen,
             "internal mode: the rule concerns external plugins, and a C harness cannot call "
             "an internal plugin's C++ creation symbol");
    return buf;
  }
  if (def->stage >= NC_STAGE_ACCEPTED && !ps->loaded) {
    *blocked = 1;
    *owner = ps->blocker_rule;
    snprintf(buf, buflen, "%s", ps->blocker);
    return buf;
  }
  return NULL;
}
