/* SPDX-License-Identifier: Apache-2.0 */
/* Loading a plugin the way the NVE host does (doc/contract.md#loading-and-versioning): open it
 * with RTLD_NOW | RTLD_LOCAL, resolve its symbols, check the ABI version,
 * the metadata and the mode, and perform the services handshake. */
#ifndef NC_LOADER_H
#define NC_LOADER_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin/nve_external_plugin.h"
#include "rules.h"

typedef struct nc_plugin {
  void *dl;
  char opened_path[PATH_MAX]; /* the path dlopen succeeded with */
  /* Resolved symbols; NULL when the plugin does not export them. */
  uint32_t (*abi_version_major)(void);
  uint32_t (*abi_version_minor)(void);
  const char *(*name)(void);
  const char *(*author)(void);
  nve_plugin_mode_t (*mode)(void);
  void *create_internal_factory; /* C++ signature: presence only */
  nve_status_t (*create_external_factory)(const char *, nve_ext_table_factory_t *,
                                          const char **);
  void (*set_nve_services)(const nve_ext_nve_services_t *);
} nc_plugin;

/* Metadata symbol names, in the order the host resolves them. */
extern const char *const nc_metadata_symbols[5];

/* dlopen()s path and resolves every known symbol. A bare name (no '/') goes
 * through the dynamic linker first, then next to libnveconform, as upstream
 * retries next to its own library. Returns 0, or -1 with dlerror()'s text. */
int nc_plugin_open(nc_plugin *p, const char *path, char *err, size_t errlen);
void nc_plugin_close(nc_plugin *p);

/* What the host's loader concluded. */
typedef struct nc_host_load {
  int accepted;
  nc_rule rule; /* the rule a refusal breaks */
  char reason[512];
  uint32_t major, minor;
  int32_t mode;
} nc_host_load;

/* Runs the host's acceptance sequence on an opened plugin: versions, name
 * and author, mode, creation symbol, then (external mode, when exported)
 * the services handshake with svc. */
void nc_host_load_run(nc_plugin *p, unsigned host_major, unsigned host_minor,
                      const nve_ext_nve_services_t *svc, nc_host_load *out);

/* The minors of host_major that accept a plugin built for (major, minor);
 * writes e.g. "1.3 and later" or "none (major 2 != host major 1)". */
void nc_accepting_hosts(uint32_t major, uint32_t minor, unsigned host_major, char *out,
                        size_t outlen);

#endif
