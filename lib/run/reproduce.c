/* SPDX-License-Identifier: Apache-2.0 */
/* The one-line command that reruns a rule as this run did. */
#define _GNU_SOURCE
#include "reproduce.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "run_settings.h"

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
  nc_strbuf b = {0}, arg = {0};
  nc_strbuf_printf(&b, "nve-conform --rule %s", id);
  for (size_t i = 0; i < nc_setting_count; i++) {
    const nc_setting *s = &nc_settings[i];
    if (!nc_setting_in_reproduce(s, cfg))
      continue;
    nc_strbuf_printf(&b, " --%s", s->option);
    if (s->kind == NC_SET_FLAG)
      continue;
    arg.len = 0;
    nc_setting_argument(s, cfg, &arg);
    nc_strbuf_puts(&b, " ");
    nc_shell_quote(&b, arg.data ? arg.data : "");
  }
  nc_strbuf_free(&arg);
  nc_strbuf_puts(&b, " ");
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
