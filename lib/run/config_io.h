/* SPDX-License-Identifier: Apache-2.0 */
/* A run's configuration written to a file and read back, so that a case
 * process started with exec (the case runner) sees exactly what the parent
 * resolved. One record (record.h) per field. */
#ifndef NC_CONFIG_IO_H
#define NC_CONFIG_IO_H

#include "config.h"

/* 0, or -1 with errno set. */
int nc_config_write(const nc_config *cfg, const char *path);
/* Fills cfg from path (strings are allocated and live as long as the
 * process) and inspects the plugin file again. 0, or -1 with why. */
int nc_config_read(const char *path, nc_config *cfg, char *why, size_t whylen);

#endif
