/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "text.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

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
    struct iovec local = {out + got, room};
    struct iovec remote = {(void *)addr, room};
    ssize_t n = process_vm_readv(self, &local, 1, &remote, 1, 0);
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
