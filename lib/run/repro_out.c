/* SPDX-License-Identifier: Apache-2.0 */
#include "repro_out.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "sha256.h"

static void seal_of(const char *secret, const char *name, const char *body, size_t len,
                    char hex[65])
{
  nc_sha256 h;
  nc_sha256_init(&h);
  nc_sha256_update(&h, secret, strlen(secret));
  nc_sha256_update(&h, name, strlen(name) + 1);
  nc_sha256_update(&h, body, len);
  nc_sha256_final_hex(&h, hex);
}

int nc_repro_save(const char *dir, const char *secret, const char *name, const char *body,
                  size_t len)
{
  char path[4096], hex[65];
  if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
    return -1;
  seal_of(secret, name, body, len, hex);
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  int ok = fwrite(body, 1, len, f) == len && fprintf(f, "%s%s */\n", NC_REPRO_SEAL, hex) > 0;
  return fclose(f) == 0 && ok ? 0 : -1;
}

int nc_repro_sealed(const char *secret, const char *name, const char *text, size_t len,
                    size_t *body_len)
{
  size_t tail = strlen(NC_REPRO_SEAL) + 64 + strlen(" */\n");
  if (len < tail)
    return 0;
  const char *line = text + len - tail;
  if (strncmp(line, NC_REPRO_SEAL, strlen(NC_REPRO_SEAL)) != 0 ||
      strcmp(line + strlen(NC_REPRO_SEAL) + 64, " */\n") != 0)
    return 0;
  char hex[65];
  seal_of(secret, name, text, len - tail, hex);
  *body_len = len - tail;
  return memcmp(hex, line + strlen(NC_REPRO_SEAL), 64) == 0;
}

static int is_repro(const char *name)
{
  size_t n = strlen(name);
  return strncmp(name, "repro-", 6) == 0 && n > 8 && strcmp(name + n - 2, ".c") == 0 &&
         strspn(name + 6, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") ==
             n - 8;
}

static int copy_one(const char *scratch, const char *secret, const char *dest, const char *name,
                    char *err, size_t errlen)
{
  char from[4096], to[4096];
  snprintf(from, sizeof(from), "%s/%s", scratch, name);
  snprintf(to, sizeof(to), "%s/%s", dest, name);
  char *text = nc_read_file(from, err, errlen);
  if (!text)
    return -1;
  size_t body = 0;
  int rc = 0;
  if (nc_repro_sealed(secret, name, text, strlen(text), &body))
    rc = nc_write_file_atomic(to, text, body, err, errlen) == 0 ? 1 : -1;
  free(text);
  return rc;
}

int nc_repro_collect(const char *scratch, const char *secret, const char *dest, char *err,
                     size_t errlen)
{
  if (!scratch[0] || !secret[0])
    return 0;
  if (mkdir(dest, 0777) != 0 && errno != EEXIST) {
    snprintf(err, errlen, "--repro: cannot make '%s': %s", dest, strerror(errno));
    return -1;
  }
  DIR *d = opendir(scratch);
  if (!d)
    return 0;
  int copied = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (!is_repro(e->d_name))
      continue;
    int rc = copy_one(scratch, secret, dest, e->d_name, err, errlen);
    if (rc < 0) {
      closedir(d);
      return -1;
    }
    copied += rc;
  }
  closedir(d);
  return copied;
}

void nc_repro_crash_log(const nc_config *cfg, nc_rule rule, char *path, size_t len)
{
  snprintf(path, len, "%s/calls-%s.log", cfg->cache_dir, nc_rule_text(rule));
}
