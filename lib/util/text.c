/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* n bytes at addr read through the kernel, which reports a bad address
 * as an error instead of a fault in this process: process_vm_readv, or
 * where the sandbox's filter denies it, /proc/self/mem. */
static ssize_t read_own_memory(pid_t self, void *to, uintptr_t addr, size_t n)
{
  struct iovec local = {to, n};
  struct iovec remote = {(void *)addr, n};
  ssize_t got = process_vm_readv(self, &local, 1, &remote, 1, 0);
  if (got >= 0 || (errno != EPERM && errno != ENOSYS))
    return got;
  int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  got = pread(fd, to, n, (off_t)addr);
  int saved = errno;
  close(fd);
  if (got < 0 && saved == EIO)
    saved = EFAULT; /* not mapped */
  errno = saved;
  return got == 0 ? (errno = EFAULT, -1) : got;
}

long nc_read_plugin_string(const char *p, char *out, size_t bound)
{
  if (!p)
    return -1;
  size_t got = 0;
  pid_t self = getpid();
  /* Read page by page through the kernel, which reports a bad address as
   * EFAULT instead of a fault in this process. */
  while (got < bound) {
    uintptr_t addr = (uintptr_t)p + got;
    size_t room = 4096 - (addr & 4095);
    if (room > bound - got)
      room = bound - got;
    ssize_t n = read_own_memory(self, out + got, addr, room);
    if (n <= 0) {
      out[got < bound ? got : bound - 1] = '\0';
      return got == 0 || errno == EFAULT ? -1 : -2;
    }
    char *nul = memchr(out + got, '\0', (size_t)n);
    if (nul)
      return (long)(nul - out);
    got += (size_t)n;
  }
  out[bound - 1] = '\0';
  return -2;
}

int nc_utf8_valid(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    int extra;
    unsigned cp;
    if (*p < 0x80) {
      p++;
      continue;
    } else if ((*p & 0xE0) == 0xC0) {
      extra = 1;
      cp = *p & 0x1F;
    } else if ((*p & 0xF0) == 0xE0) {
      extra = 2;
      cp = *p & 0x0F;
    } else if ((*p & 0xF8) == 0xF0) {
      extra = 3;
      cp = *p & 0x07;
    } else {
      return 0;
    }
    p++;
    for (int i = 0; i < extra; i++, p++) {
      if ((*p & 0xC0) != 0x80)
        return 0;
      cp = cp << 6 | (*p & 0x3F);
    }
    static const unsigned min_for[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min_for[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return 0;
  }
  return 1;
}

size_t nc_text_unsafe_len(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  if ((*p && *p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
    return 1; /* C0 controls (ESC above all) and DEL */
  if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
    return 2; /* C1 controls, U+0080 to U+009F (CSI among them) */
  if (p[0] == 0xE2 && p[1] == 0x80 && ((p[2] >= 0xAA && p[2] <= 0xAE) || p[2] == 0x8E ||
                                       p[2] == 0x8F))
    return 3; /* bidirectional embeddings and overrides U+202A to U+202E, LRM, RLM */
  if (p[0] == 0xE2 && p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9)
    return 3; /* bidirectional isolates U+2066 to U+2069 */
  return 0;
}

/* The code point of the n-byte sequence at p (n from nc_text_unsafe_len). */
static unsigned code_point(const unsigned char *p, size_t n)
{
  return n == 1 ? p[0] : n == 2 ? (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu)
                               : (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
}

char *nc_text_escaped(const char *s, int keep_lines)
{
  if (!s)
    s = "";
  int valid = nc_utf8_valid(s);
  size_t len = strlen(s);
  char *out = malloc(len * 6 + 1), *o = out; /* "\u202e" is the longest: 6 per 3 */
  if (!out)
    return NULL;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    size_t n = nc_text_unsafe_len((const char *)p);
    if (!keep_lines && (*p == '\n' || *p == '\t')) {
      *o++ = '\\';
      *o++ = *p == '\n' ? 'n' : 't';
      p++;
    } else if (n == 1 || (!valid && *p >= 0x80)) {
      o += sprintf(o, "\\x%02x", *p); /* a control, or a byte of broken UTF-8 */
      p++;
    } else if (n > 1) {
      o += sprintf(o, "\\u%04x", code_point(p, n));
      p += n;
    } else {
      *o++ = (char)*p++;
    }
  }
  *o = '\0';
  return out;
}

char *nc_json_text_safe(const char *json)
{
  size_t len = strlen(json);
  char *out = malloc(len * 6 + 1), *o = out; /* "\u007f" for one byte at most */
  if (!out)
    return NULL;
  for (const unsigned char *p = (const unsigned char *)json; *p;) {
    size_t n = nc_text_unsafe_len((const char *)p);
    if (n == 1 && *p < 0x20) { /* outside strings JSON has only its white space */
      *o++ = (char)*p++;
    } else if (n) {
      o += sprintf(o, "\\u%04x", code_point(p, n));
      p += n;
    } else {
      *o++ = (char)*p++;
    }
  }
  *o = '\0';
  return out;
}

char *nc_uri_path(const char *path)
{
  size_t len = strlen(path);
  char *out = malloc(len * 3 + 1), *o = out;
  if (!out)
    return NULL;
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
        strchr("-._~/", *p))
      *o++ = (char)*p;
    else
      o += sprintf(o, "%%%02X", *p);
  }
  *o = '\0';
  return out;
}
