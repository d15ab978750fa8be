/* SPDX-License-Identifier: Apache-2.0 */
/* The one-line command that reruns a rule as this run did. */
#define _GNU_SOURCE
#include "reproduce.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cuda.h"
#include "plugin/nve_plugin_common.h"
#include "sanitize.h"

void nc_shell_quote(nc_strbuf *b, const char *s)
{
  int plain = *s != '\0';
  for (const char *p = s; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("-_./=:,+@%", *p))
      plain = 0;
  if (plain) {
    nc_strbuf_puts(b, s);
    return;
  }
  nc_strbuf_puts(b, "'");
  for (const char *p = s; *p; p++) {
    if (*p == '\'')
      nc_strbuf_puts(b, "'\\''");
    else
      nc_strbuf_printf(b, "%c", *p);
  }
  nc_strbuf_puts(b, "'");
}

char *nc_reproduce_line(const nc_config *cfg, const char *id)
{
  nc_strbuf b = {0};
  nc_strbuf_printf(&b, "nve-conform --rule %s", id);
  if (cfg->host_major != NVE_PLUGIN_ABI_VERSION_MAJOR ||
      cfg->host_minor != NVE_PLUGIN_ABI_VERSION_MINOR)
    nc_strbuf_printf(&b, " --host-abi %u.%u", cfg->host_major, cfg->host_minor);
  if (strcmp(cfg->factory_config, "{}") != 0) {
    nc_strbuf_puts(&b, " --factory-config ");
    nc_shell_quote(&b, cfg->factory_config);
  }
  if (strcmp(cfg->table_config, "{}") != 0) {
    nc_strbuf_puts(&b, " --table-config ");
    nc_shell_quote(&b, cfg->table_config);
  }
  if (cfg->workers != NC_DEFAULT_WORKERS)
    nc_strbuf_printf(&b, " --workers %d", cfg->workers);
  if (cfg->schedule != NC_SCHEDULE_POOL)
    nc_strbuf_printf(&b, " --schedule %s", nc_schedule_name(cfg->schedule));
  if (cfg->sweep_k)
    nc_strbuf_printf(&b, " --sweep-k %ld", cfg->sweep_k);
  if (cfg->stress)
    nc_strbuf_puts(&b, " --stress");
  if (cfg->sanitize)
    nc_strbuf_printf(&b, " --sanitize %s", nc_sanitize_name(cfg->sanitize));
  if (cfg->cuda_asked != NC_CUDA_AUTO)
    nc_strbuf_printf(&b, " --cuda %s", nc_cuda_mode_name((nc_cuda_mode)cfg->cuda_asked));
  if (cfg->sim_devices != NC_DEFAULT_SIM_DEVICES)
    nc_strbuf_printf(&b, " --sim-devices %d", cfg->sim_devices);
  if (cfg->profile_path) {
    nc_strbuf_puts(&b, " --profile ");
    nc_shell_quote(&b, cfg->profile_path);
  }
  if (cfg->timeout_asked != NC_DEFAULT_TIMEOUT_S) /* the multipliers apply again */
    nc_strbuf_printf(&b, " --timeout %g", cfg->timeout_asked);
  nc_strbuf_printf(&b, " --seed %llu ", (unsigned long long)cfg->seed);
  nc_shell_quote(&b, cfg->plugin_path);
  return b.data;
}

char *nc_reproduce_also(const char *line, const char *also)
{
  static const char prefix[] = "nve-conform --rule ";
  if (!line || !also || strncmp(line, prefix, sizeof(prefix) - 1) != 0)
    return NULL;
  const char *id = line + sizeof(prefix) - 1;
  size_t idlen = strcspn(id, " ,");
  if (idlen == 0 || id[idlen] != ' ')
    return NULL;
  nc_strbuf b = {0};
  nc_strbuf_printf(&b, "%.*s,%s%s", (int)(id + idlen - line), line, also, id + idlen);
  return b.data;
}
