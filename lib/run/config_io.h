/* SPDX-License-Identifier: Apache-2.0 */
/* A run's configuration written down and read back, so that a case process
 * started with exec (the case runner) sees exactly what the parent
 * resolved, at any size. One record (record.h) per field. */
#ifndef NC_CONFIG_IO_H
#define NC_CONFIG_IO_H

#include "run_config.h"

/* The identity of the file at path (device, inode, size, modification
 * time); 0, or -1. */
int nc_plugin_file_id(const char *path, unsigned long long id[4]);
/* 1 when cfg's plugin path no longer names the file the run hashed. */
int nc_plugin_file_changed(const nc_config *cfg);

/* Writes cfg to fd, every value whole; 0, or -1 with errno set. */
int nc_config_write_fd(const nc_config *cfg, int fd);
/* cfg in a sealed memory file (nothing can write it any more, the plugin
 * of a case least of all), for each case process to inherit: its
 * descriptor (close-on-exec), or -1. */
int nc_config_sealed(const nc_config *cfg);
/* Fills cfg from fd, read from its start (strings are allocated and live as
 * long as the process), and inspects the plugin file again. 0, or -1 with
 * why. */
int nc_config_read_fd(int fd, nc_config *cfg, char *why, size_t whylen);
/* Frees the strings nc_config_read_fd allocated into cfg, for a reader
 * that does not keep it for its whole life (a test). */
void nc_config_read_release(nc_config *cfg);

#endif
