/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "module_dir.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int nc_module_dir(const void *addr, char *out, size_t len)
{
  Dl_info info;
  struct link_map *map = NULL;
  if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) || !info.dli_fname)
    return -1;
  char path[PATH_MAX];
  if (map && map->l_name && map->l_name[0] == '\0') {
    /* The main program: its name as given may be relative or bare. */
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0)
      return -1;
    path[n] = '\0';
  } else if (!realpath(info.dli_fname, path)) {
    return -1;
  }
  return snprintf(out, len, "%s", dirname(path)) < (int)len ? 0 : -1;
}
