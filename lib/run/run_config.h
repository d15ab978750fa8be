/* SPDX-License-Identifier: Apache-2.0 */
/* What every case child needs to know about the run: the options, resolved
 * and checked by the parent before any plugin code runs. */
#ifndef NC_RUN_CONFIG_H
#define NC_RUN_CONFIG_H

#include <limits.h>
#include <stdint.h>

#include "elf_info.h"
#include "nve_conform.h"
#include "pool.h"

typedef struct nc_config {
  char plugin_path[PATH_MAX]; /* as given, or made absolute when it was a file */
  /* The file that was hashed: device, inode, size and modification time
   * (nanoseconds). Every case checks the path still names it. */
  unsigned long long plugin_file[4];
  nc_elf_info elf;
  char elf_error[512]; /* why elf is not loadable */
  const char *factory_config;
  const char *table_config;
  unsigned host_major, host_minor;
  double timeout_s;
  double timeout_asked; /* --timeout (or the default), before any multiplier */
  uint64_t seed;
  int workers;       /* NVE services pool size */
  nc_schedule schedule;
  int no_fork;
  int evidence_all; /* --evidence all: every evidence line, unbounded */
  int sanitize;     /* nc_sanitize_mode (a case under valgrind runs one thread at a time) */
  char cache_dir[PATH_MAX]; /* per-run scratch files shared by cases ("" none) */
  /* The run's secret that seals what cases leave in cache_dir: a file plugin
   * code wrote (it cannot know the secret cheaply) does not pass for one. */
  char cache_secret[PATH_MAX];
  const char *profile_path;
  long sweep_k;             /* run only this step of the failure sweeps (0: all) */
  /* From the profile. */
  struct nc_failing_config {
    int target; /* 0 creation, 1 produce */
    const char *json;
    int status; /* the status it must fail with; -1: any failure */
  } failing[16];
  size_t failing_count;
  /* Configs of other tables the explorer's produces may use beside
   * table_config (the profile's more_table_configs). */
  const char *more_tables[4];
  size_t more_count;
  int key_size, row_size, exact;
  int stress; /* --stress, or "stress": true in the profile */
  int effort;      /* NC_EFFORT_*: the explorer's budget (--stress: deep) */
  double budget_s; /* --budget: the explorer's budget in seconds (0: the effort's) */
  int repro;       /* --repro: cases leave C reproducers in cache_dir */
  int cuda_mode;  /* nc_cuda_mode, resolved (AUTO becomes REAL or SIM) */
  int cuda_asked; /* the mode the options asked for (for reproduce lines) */
  int sim_devices;
  int sandbox; /* nc_sandbox_mode asked (the parent sets the sandbox up) */
} nc_config;

/* The word of an NC_EFFORT_* value (--effort), "?" for others. */
const char *nc_effort_name(int effort);

#endif
