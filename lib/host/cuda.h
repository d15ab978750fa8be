/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA runtime as the harness uses it: loaded by name at run time
 * (the harness never links CUDA), either the real libcudart or cudasim,
 * the simulated runtime. A case child loads it RTLD_GLOBAL before the
 * plugin, so that a plugin linked against the shared runtime binds to the
 * same one. */
#ifndef NC_CUDA_H
#define NC_CUDA_H

#include <stddef.h>

typedef enum {
  NC_CUDA_AUTO = 0, /* the real runtime when it loads and sees a device, else cudasim */
  NC_CUDA_REAL,
  NC_CUDA_SIM,
  NC_CUDA_OFF,
} nc_cuda_mode;

/* "auto", "real", "sim", "off" -> mode, or -1. */
int nc_cuda_mode_parse(const char *name);
const char *nc_cuda_mode_name(nc_cuda_mode mode);

/* How many devices the real runtime sees, asked in a child process (CUDA
 * must not be initialised in a process that forks later): -1 with why when
 * the runtime does not load. */
int nc_cuda_probe_real(char *why, size_t whylen);

/* Loads the runtime for mode (sim_devices virtual devices under cudasim).
 * Returns 0, or -1 with why (e.g. "real: no CUDA device visible"). With
 * NC_CUDA_OFF nothing is loaded and 0 is returned. */
int nc_cuda_open(nc_cuda_mode mode, int sim_devices, char *why, size_t whylen);

/* 1 when a runtime is loaded; whether it is cudasim; its device count. */
int nc_cuda_loaded(void);
int nc_cuda_simulated(void);
int nc_cuda_device_count(void);
/* "cudasim (2 simulated devices)", "real libcudart.so.13 (1 device)", "none". */
const char *nc_cuda_describe(void);

/* The calling thread's current device: -1 when no runtime is loaded or the
 * call failed. Setting returns the runtime's error code (0 success). */
int nc_cuda_get_device(void);
int nc_cuda_set_device(int device);

/* Device memory on `device` (the current device is restored), copies
 * (kind as cudaMemcpyKind: 1 host to device, 2 device to host) and streams
 * on the current device. 0 or the runtime's error code. */
int nc_cuda_malloc(int device, void **p, size_t size);
void nc_cuda_free(void *p);
int nc_cuda_memcpy(void *dst, const void *src, size_t n, int kind);
int nc_cuda_stream_create(void **stream);
void nc_cuda_stream_destroy(void *stream);

/* cudasim only: allocations per device and streams used since the last
 * call (DEV-08); -1 under the real runtime. */
int nc_cuda_watch_take(int *allocs_per_device, int ndevices, void **streams, int nstreams);

/* cudasim only: what the plugin does on the calling thread between begin
 * and end (one table callback), judged against device (-1: allocations not
 * judged). End gives the allocations made on another device (the last one
 * in *wrong_device) and returns the streams async work used, or -1 under
 * the real runtime. */
void nc_cuda_scope_begin(int device);
/* Pauses (on != 0) and resumes it around an execute_n task, which is not
 * judged on any thread. */
void nc_cuda_scope_pause(int on);
int nc_cuda_scope_end(int *wrong_allocs, int *wrong_device, void **streams, int nstreams);

/* cudasim only: calls it could not carry out (kernel launches); 0 else. */
int nc_cuda_unsupported_calls(void);

/* From the SIGSEGV handler: a host touch of simulated device memory is
 * recorded as a DEV-07 violation and the plugin goes on. Returns 1 then. */
int nc_cuda_recover_fault(const void *addr);

#endif
