/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "config_io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "run_settings.h"

static int put(int fd, const char *key, const char *value)
{
  const char *f[] = {value ? value : ""};
  return nc_record_write_whole(fd, key, 1, f);
}


int nc_plugin_file_id(const char *path, unsigned long long id[4])
{
  struct stat st;
  if (stat(path, &st) != 0)
    return -1;
  id[0] = (unsigned long long)st.st_dev;
  id[1] = (unsigned long long)st.st_ino;
  id[2] = (unsigned long long)st.st_size;
  /* The status change time, not mtime: any write moves it, and no program
   * can set it back (futimens restores mtime, not ctime). */
  id[3] = (unsigned long long)st.st_ctim.tv_sec * 1000000000ull +
          (unsigned long long)st.st_ctim.tv_nsec;
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
  int rc = 0;
  nc_strbuf value = {0};
  for (size_t i = 0; i < nc_setting_count; i++) {
    value.len = 0;
    nc_setting_format(&nc_settings[i], cfg, &value);
    rc |= value.failed ? -1 : put(fd, nc_settings[i].key, value.data ? value.data : "");
  }
  nc_strbuf_free(&value);
  for (size_t i = 0; i < cfg->failing_count; i++) {
    char target[8], status[16];
    snprintf(target, sizeof(target), "%d", cfg->failing[i].target);
    snprintf(status, sizeof(status), "%d", cfg->failing[i].status);
    const char *f[] = {target, status, cfg->failing[i].json ? cfg->failing[i].json : ""};
    rc |= nc_record_write_whole(fd, "failing", 3, f);
  }
  for (size_t i = 0; i < cfg->more_count; i++)
    rc |= nc_record_write_whole(fd, "more_table", 1, &cfg->more_tables[i]);
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
  size_t seen = 0; /* settings read, each once */
  int bad = 0;
  while (nc_record_reader_next(&reader, &rec)) {
    const char *v = rec.nfields > 0 ? rec.fields[0] : "";
    if (strcmp(rec.tag, "failing") == 0 && rec.nfields == 3 &&
        cfg->failing_count < sizeof(cfg->failing) / sizeof(cfg->failing[0])) {
      struct nc_failing_config *fc = &cfg->failing[cfg->failing_count++];
      fc->target = atoi(rec.fields[0]);
      fc->status = atoi(rec.fields[1]);
      fc->json = strdup(rec.fields[2]);
    }
    if (strcmp(rec.tag, "more_table") == 0 && rec.nfields == 1 &&
        cfg->more_count < sizeof(cfg->more_tables) / sizeof(cfg->more_tables[0]))
      cfg->more_tables[cfg->more_count++] = strdup(rec.fields[0]);
    for (size_t i = 0; i < nc_setting_count; i++) {
      if (strcmp(rec.tag, nc_settings[i].key) != 0)
        continue;
      if (nc_setting_parse(&nc_settings[i], cfg, v) != 0)
        bad = 1;
      seen++;
    }
    nc_record_clear(&rec);
  }
  nc_record_reader_free(&reader);
  if (bad || seen != nc_setting_count) {
    snprintf(why, whylen, "the run's configuration is %s", bad ? "malformed" : "incomplete");
    return -1;
  }
  if (nc_elf_inspect_file(cfg->plugin_path, &cfg->elf, cfg->elf_error, sizeof(cfg->elf_error)) ==
      0)
    cfg->elf.loadable = 1;
  return 0;
}

void nc_config_read_release(nc_config *cfg)
{
  for (size_t i = 0; i < nc_setting_count; i++)
    nc_setting_release(&nc_settings[i], cfg);
  for (size_t i = 0; i < cfg->failing_count; i++) {
    free((void *)cfg->failing[i].json);
    cfg->failing[i].json = NULL;
  }
  for (size_t i = 0; i < cfg->more_count; i++) {
    free((void *)cfg->more_tables[i]);
    cfg->more_tables[i] = NULL;
  }
}
