/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "config_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

static int put(int fd, const char *key, const char *value)
{
  const char *f[] = {value ? value : ""};
  return nc_record_write_whole(fd, key, 1, f);
}

static int put_number(int fd, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int put_number(int fd, const char *key, const char *fmt, ...)
{
  char text[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  return put(fd, key, text);
}

int nc_plugin_file_id(const char *path, unsigned long long id[4])
{
  struct stat st;
  if (stat(path, &st) != 0)
    return -1;
  id[0] = (unsigned long long)st.st_dev;
  id[1] = (unsigned long long)st.st_ino;
  id[2] = (unsigned long long)st.st_size;
  id[3] = (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
          (unsigned long long)st.st_mtim.tv_nsec;
  return 0;
}

int nc_plugin_file_changed(const nc_config *cfg)
{
  unsigned long long now[4];
  if (!cfg->plugin_file[1])
    return 0; /* not recorded (a run that does not inspect the file) */
  return nc_plugin_file_id(cfg->plugin_path, now) != 0 ||
         memcmp(now, cfg->plugin_file, sizeof(now)) != 0;
}

int nc_config_sealed(const nc_config *cfg)
{
  int fd = memfd_create("nve-conform-config", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return -1;
  if (nc_config_write_fd(cfg, fd) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int nc_config_write_fd(const nc_config *cfg, int fd)
{
  int rc = put(fd, "plugin_path", cfg->plugin_path) | put(fd, "factory_config", cfg->factory_config) |
           put(fd, "table_config", cfg->table_config) |
           put(fd, "profile_path", cfg->profile_path ? cfg->profile_path : "") |
           put(fd, "cache_dir", cfg->cache_dir) |
           put_number(fd, "host_abi", "%u %u", cfg->host_major, cfg->host_minor) |
           put_number(fd, "timeout_s", "%.17g", cfg->timeout_s) |
           put_number(fd, "seed", "%" PRIu64, cfg->seed) |
           put_number(fd, "pool", "%d %d", cfg->workers, (int)cfg->schedule) |
           put_number(fd, "sweep_k", "%ld", cfg->sweep_k) |
           put_number(fd, "table", "%d %d %d %d", cfg->key_size, cfg->row_size, cfg->exact,
                      cfg->stress) |
           put_number(fd, "cuda", "%d %d", cfg->cuda_mode, cfg->sim_devices) |
           put_number(fd, "flags", "%d %d %d %d", cfg->no_fork, cfg->verbose, cfg->evidence_all,
                      cfg->sanitize) |
           put_number(fd, "plugin_file", "%llu %llu %llu %llu", cfg->plugin_file[0],
                      cfg->plugin_file[1], cfg->plugin_file[2], cfg->plugin_file[3]);
  for (size_t i = 0; i < cfg->failing_count; i++) {
    char target[8], status[16];
    snprintf(target, sizeof(target), "%d", cfg->failing[i].target);
    snprintf(status, sizeof(status), "%d", cfg->failing[i].status);
    const char *f[] = {target, status, cfg->failing[i].json ? cfg->failing[i].json : ""};
    rc |= nc_record_write_whole(fd, "failing", 3, f);
  }
  return rc ? -1 : 0;
}

/* The whole of fd from its start (pread: the descriptor's offset may be
 * shared with the other cases' copies). */
static char *slurp_fd(int fd, size_t *len)
{
  char *buf = NULL;
  size_t cap = 0, n = 0;
  ssize_t got;
  do {
    if (n + 4096 > cap) {
      char *p = realloc(buf, cap = cap * 2 + 4096);
      if (!p) {
        free(buf);
        return NULL;
      }
      buf = p;
    }
    got = pread(fd, buf + n, cap - n, (off_t)n);
    if (got > 0)
      n += (size_t)got;
  } while (got > 0 || (got < 0 && errno == EINTR));
  if (got < 0) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

int nc_config_read_fd(int fd, nc_config *cfg, char *why, size_t whylen)
{
  memset(cfg, 0, sizeof(*cfg));
  size_t len = 0;
  char *text = slurp_fd(fd, &len);
  if (!text) {
    snprintf(why, whylen, "cannot read the run's configuration: %s", strerror(errno));
    return -1;
  }
  nc_record_reader reader;
  nc_record_reader_init(&reader);
  nc_record_reader_feed(&reader, text, len);
  free(text);
  nc_record rec;
  int fields = 0;
  while (nc_record_reader_next(&reader, &rec)) {
    const char *k = rec.tag, *v = rec.nfields > 0 ? rec.fields[0] : "";
    int schedule = 0;
    fields++;
    if (strcmp(k, "plugin_path") == 0)
      snprintf(cfg->plugin_path, sizeof(cfg->plugin_path), "%s", v);
    else if (strcmp(k, "factory_config") == 0)
      cfg->factory_config = strdup(v);
    else if (strcmp(k, "table_config") == 0)
      cfg->table_config = strdup(v);
    else if (strcmp(k, "profile_path") == 0)
      cfg->profile_path = v[0] ? strdup(v) : NULL;
    else if (strcmp(k, "cache_dir") == 0)
      snprintf(cfg->cache_dir, sizeof(cfg->cache_dir), "%s", v);
    else if (strcmp(k, "host_abi") == 0)
      sscanf(v, "%u %u", &cfg->host_major, &cfg->host_minor);
    else if (strcmp(k, "timeout_s") == 0)
      cfg->timeout_s = strtod(v, NULL);
    else if (strcmp(k, "seed") == 0)
      cfg->seed = strtoull(v, NULL, 10);
    else if (strcmp(k, "pool") == 0 && sscanf(v, "%d %d", &cfg->workers, &schedule) == 2)
      cfg->schedule = (nc_schedule)schedule;
    else if (strcmp(k, "sweep_k") == 0)
      cfg->sweep_k = strtol(v, NULL, 10);
    else if (strcmp(k, "table") == 0)
      sscanf(v, "%d %d %d %d", &cfg->key_size, &cfg->row_size, &cfg->exact, &cfg->stress);
    else if (strcmp(k, "cuda") == 0)
      sscanf(v, "%d %d", &cfg->cuda_mode, &cfg->sim_devices);
    else if (strcmp(k, "flags") == 0)
      sscanf(v, "%d %d %d %d", &cfg->no_fork, &cfg->verbose, &cfg->evidence_all,
             &cfg->sanitize);
    else if (strcmp(k, "plugin_file") == 0)
      sscanf(v, "%llu %llu %llu %llu", &cfg->plugin_file[0], &cfg->plugin_file[1],
             &cfg->plugin_file[2], &cfg->plugin_file[3]);
    else if (strcmp(k, "failing") == 0 && rec.nfields == 3 &&
             cfg->failing_count < sizeof(cfg->failing) / sizeof(cfg->failing[0])) {
      struct nc_failing_config *fc = &cfg->failing[cfg->failing_count++];
      fc->target = atoi(rec.fields[0]);
      fc->status = atoi(rec.fields[1]);
      fc->json = strdup(rec.fields[2]);
    }
    nc_record_clear(&rec);
  }
  nc_record_reader_free(&reader);
  if (!cfg->plugin_path[0] || !cfg->factory_config || !cfg->table_config || fields < 10) {
    snprintf(why, whylen, "the run's configuration is incomplete");
    return -1;
  }
  if (nc_elf_inspect_file(cfg->plugin_path, &cfg->elf, cfg->elf_error, sizeof(cfg->elf_error)) ==
      0)
    cfg->elf.loadable = 1;
  return 0;
}
