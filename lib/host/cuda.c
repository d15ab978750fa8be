/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "cuda.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coverage.h"
#include "module_dir.h"
#include "violations.h"

#ifndef NC_CUDART_SONAME
#define NC_CUDART_SONAME "libcudart.so.13"
#endif
#ifndef NC_CUDASIM_INSTALLED
#define NC_CUDASIM_INSTALLED ""
#endif

static struct {
  void *dl;
  int simulated, devices;
  char description[160];
  int (*get_device_count)(int *);
  int (*get_device)(int *);
  int (*set_device)(int);
  int (*watch_take)(int *, int, void **, int);
  void (*scope_begin)(int);
  void (*scope_pause)(int);
  int (*scope_end)(int *, int *, void **, int);
  int (*malloc_)(void **, size_t);
  int (*free_)(void *);
  int (*memcpy_)(void *, const void *, size_t, int);
  int (*stream_create)(void **);
  int (*stream_destroy)(void *);
  int (*recover_fault)(const void *, char *, size_t);
  int (*unsupported_calls)(void);
} rt = {.description = "none"};

static const char *const mode_names[] = {"auto", "real", "sim", "off"};

int nc_cuda_mode_parse(const char *name)
{
  for (int i = 0; i <= NC_CUDA_OFF; i++)
    if (strcmp(name, mode_names[i]) == 0)
      return i;
  return -1;
}

const char *nc_cuda_mode_name(nc_cuda_mode mode)
{
  return mode <= NC_CUDA_OFF ? mode_names[mode] : "?";
}

static int resolve(void *dl)
{
  *(void **)&rt.get_device_count = dlsym(dl, "cudaGetDeviceCount");
  *(void **)&rt.get_device = dlsym(dl, "cudaGetDevice");
  *(void **)&rt.set_device = dlsym(dl, "cudaSetDevice");
  *(void **)&rt.watch_take = dlsym(dl, "cudasim_watch_take");
  *(void **)&rt.scope_begin = dlsym(dl, "cudasim_scope_begin");
  *(void **)&rt.scope_pause = dlsym(dl, "cudasim_scope_pause");
  *(void **)&rt.scope_end = dlsym(dl, "cudasim_scope_end");
  *(void **)&rt.recover_fault = dlsym(dl, "cudasim_recover_fault");
  *(void **)&rt.unsupported_calls = dlsym(dl, "cudasim_unsupported_calls");
  *(void **)&rt.malloc_ = dlsym(dl, "cudaMalloc");
  *(void **)&rt.free_ = dlsym(dl, "cudaFree");
  *(void **)&rt.memcpy_ = dlsym(dl, "cudaMemcpy");
  *(void **)&rt.stream_create = dlsym(dl, "cudaStreamCreate");
  *(void **)&rt.stream_destroy = dlsym(dl, "cudaStreamDestroy");
  return rt.get_device_count && rt.get_device && rt.set_device && rt.malloc_ && rt.free_ &&
                 rt.memcpy_ && rt.stream_create && rt.stream_destroy
             ? 0
             : -1;
}

/* cudasim: NVE_CONFORM_CUDASIM, then the build tree next to this library,
 * then the installed copy. */
static void *open_cudasim(char *tried, size_t len)
{
  char candidates[4][PATH_MAX + 64] = {"", "", "", ""}, dir[PATH_MAX];
  const char *env = getenv("NVE_CONFORM_CUDASIM");
  if (env)
    snprintf(candidates[0], sizeof(candidates[0]), "%s", env);
  /* A build tree: this code is in <build>/nve-conform-case, or in the
   * uninstalled libnveconform one directory below <build>. */
  if (nc_module_dir((const void *)nc_cuda_open, dir, sizeof(dir)) == 0) {
    snprintf(candidates[1], sizeof(candidates[1]), "%s/lib/cudasim/%s", dir, NC_CUDART_SONAME);
    snprintf(candidates[2], sizeof(candidates[2]), "%s/../lib/cudasim/%s", dir, NC_CUDART_SONAME);
  }
  snprintf(candidates[3], sizeof(candidates[3]), "%s", NC_CUDASIM_INSTALLED);
  tried[0] = '\0';
  for (int i = 0; i < 4; i++) {
    if (!candidates[i][0] || access(candidates[i], R_OK) != 0)
      continue;
    void *dl = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
    if (dl && dlsym(dl, "cudasim_is_simulation"))
      return dl;
    snprintf(tried, len, "%s: %s", candidates[i], dl ? "not cudasim" : dlerror());
    if (dl)
      dlclose(dl);
  }
  if (!tried[0])
    snprintf(tried, len, "cudasim (%s) was not found; set NVE_CONFORM_CUDASIM", NC_CUDART_SONAME);
  return NULL;
}

/* How long the real runtime may take to count its devices. */
#define PROBE_TIMEOUT_MS 20000

int nc_cuda_probe_real(char *why, size_t whylen)
{
  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(why, whylen, "pipe: %s", strerror(errno));
    return -1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    char msg[256] = "";
    int count = -1;
    void *dl = dlopen(NC_CUDART_SONAME, RTLD_NOW | RTLD_LOCAL);
    int (*get_count)(int *) = NULL;
    if (!dl)
      snprintf(msg, sizeof(msg), "%s", dlerror());
    else if (!(*(void **)&get_count = dlsym(dl, "cudaGetDeviceCount")))
      snprintf(msg, sizeof(msg), "%s has no cudaGetDeviceCount", NC_CUDART_SONAME);
    else if (get_count(&count) != 0 || count < 1)
      snprintf(msg, sizeof(msg), "%s sees no CUDA device", NC_CUDART_SONAME), count = 0;
    char out[300];
    int n = snprintf(out, sizeof(out), "%d %s", count, msg);
    int lost = write(fds[1], out, (size_t)n) < 0;
    nc_coverage_flush();
    _exit(lost);
  }
  close(fds[1]);
  char in[300] = "";
  ssize_t n = -1;
  /* A driver that hangs must not hang the harness: the probe gets a
   * deadline and is killed after it. */
  struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
  for (int waited = 0; pid > 0 && waited < PROBE_TIMEOUT_MS; waited += 100) {
    int ready = poll(&pfd, 1, 100);
    if (ready > 0) {
      n = read(fds[0], in, sizeof(in) - 1);
      break;
    }
  }
  close(fds[0]);
  if (pid > 0) {
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
  }
  int count = -1, used = 0;
  if (n <= 0 || sscanf(in, "%d %n", &count, &used) < 1) {
    snprintf(why, whylen, "the runtime probe did not answer");
    return -1;
  }
  snprintf(why, whylen, "%s", in + used);
  return count;
}

int nc_cuda_open(nc_cuda_mode mode, int sim_devices, char *why, size_t whylen)
{
  why[0] = '\0';
  if (mode == NC_CUDA_OFF || rt.dl)
    return 0;
  /* AUTO is resolved by the parent (nc_cuda_probe_real); here it means the
   * real runtime if it sees a device. */
  if (mode == NC_CUDA_AUTO || mode == NC_CUDA_REAL) {
    void *dl = dlopen(NC_CUDART_SONAME, RTLD_NOW | RTLD_GLOBAL);
    int count = 0;
    if (dl && !dlsym(dl, "cudasim_is_simulation") && resolve(dl) == 0 &&
        rt.get_device_count(&count) == 0 && count > 0) {
      rt.dl = dl;
      rt.devices = count;
      snprintf(rt.description, sizeof(rt.description), "real %s (%d device%s)", NC_CUDART_SONAME,
               count, count == 1 ? "" : "s");
      return 0;
    }
    if (mode == NC_CUDA_REAL) {
      snprintf(why, whylen, "--cuda real: %s", !dl ? dlerror() : "no CUDA device is visible");
      return -1;
    }
    /* The plugin's libcudart must bind to cudasim: the real one may not
     * stay loaded under the same SONAME. */
    if (dl)
      dlclose(dl);
    rt.get_device_count = NULL;
  }
  char env[16];
  snprintf(env, sizeof(env), "%d", sim_devices > 0 ? sim_devices : NC_DEFAULT_SIM_DEVICES);
  setenv("NVE_CONFORM_SIM_DEVICES", env, 1);
  void *dl = open_cudasim(why, whylen);
  if (!dl || resolve(dl) != 0) {
    if (dl)
      snprintf(why, whylen, "cudasim lacks the device functions");
    return -1;
  }
  rt.dl = dl;
  rt.simulated = 1;
  rt.get_device_count(&rt.devices);
  snprintf(rt.description, sizeof(rt.description), "cudasim, the simulated runtime (%d device%s)",
           rt.devices, rt.devices == 1 ? "" : "s");
  return 0;
}

int nc_cuda_loaded(void) { return rt.dl != NULL; }
int nc_cuda_simulated(void) { return rt.simulated; }
int nc_cuda_device_count(void) { return rt.dl ? rt.devices : 0; }
const char *nc_cuda_describe(void) { return rt.description; }

int nc_cuda_get_device(void)
{
  int d = -1;
  if (!rt.dl || rt.get_device(&d) != 0)
    return -1;
  return d;
}

int nc_cuda_set_device(int device) { return rt.dl ? rt.set_device(device) : -1; }

int nc_cuda_malloc(int device, void **p, size_t size)
{
  if (!rt.dl)
    return -1;
  int caller = nc_cuda_get_device();
  int e = rt.set_device(device);
  if (e == 0)
    e = rt.malloc_(p, size);
  if (caller >= 0)
    rt.set_device(caller);
  return e;
}

void nc_cuda_free(void *p)
{
  if (rt.dl && p)
    rt.free_(p);
}

int nc_cuda_memcpy(void *dst, const void *src, size_t n, int kind)
{
  return rt.dl ? rt.memcpy_(dst, src, n, kind) : -1;
}

int nc_cuda_stream_create(void **stream) { return rt.dl ? rt.stream_create(stream) : -1; }

void nc_cuda_stream_destroy(void *stream)
{
  if (rt.dl && stream)
    rt.stream_destroy(stream);
}

int nc_cuda_watch_take(int *allocs_per_device, int ndevices, void **streams, int nstreams)
{
  return rt.watch_take ? rt.watch_take(allocs_per_device, ndevices, streams, nstreams) : -1;
}

void nc_cuda_scope_begin(int device)
{
  if (rt.scope_begin)
    rt.scope_begin(device);
}

void nc_cuda_scope_pause(int on)
{
  if (rt.scope_pause)
    rt.scope_pause(on);
}

int nc_cuda_scope_end(int *wrong_allocs, int *wrong_device, void **streams, int nstreams)
{
  if (!rt.scope_end)
    return -1;
  return rt.scope_end(wrong_allocs, wrong_device, streams, nstreams);
}

int nc_cuda_unsupported_calls(void) { return rt.unsupported_calls ? rt.unsupported_calls() : 0; }

int nc_cuda_recover_fault(const void *addr)
{
  char what[NC_VIOLATION_TEXT];
  if (!rt.recover_fault || !rt.recover_fault(addr, what, sizeof(what)))
    return 0;
  if (what[0])
    nc_violation_record(NC_RULE_DEV_07, what);
  return 1;
}
