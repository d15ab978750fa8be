/* SPDX-License-Identifier: Apache-2.0 */
/* cudasim: a stand-in for the CUDA runtime (libcudart.so.<major>), so that
 * the device rules can be checked on machines without a GPU.
 *
 * The harness loads it RTLD_GLOBAL before the plugin; its SONAME and
 * symbol version match the real runtime's, so a plugin linked against the
 * shared runtime binds to it. It offers NVE_CONFORM_SIM_DEVICES virtual
 * devices (default NC_DEFAULT_SIM_DEVICES, as the harness), a current device per thread,
 * device memory the host cannot touch (the device view of an allocation
 * is an inaccessible mapping; copies go through a second mapping of the
 * same pages), streams and events (work completes at once), and the error
 * functions. Built without CUDA headers: the few types it needs are
 * declared here with the runtime's values. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork_lock.h"
#include "nve_conform.h" /* NC_DEFAULT_SIM_DEVICES */

typedef int cudaError_t;
enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotSupported = 801,
};
enum { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
       cudaMemcpyDeviceToDevice, cudaMemcpyDefault };

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES NC_MAX_SIM_DEVICES
#define MAX_ALLOCATIONS 4096

static _Thread_local int current_device;
static _Thread_local cudaError_t last_error;

static cudaError_t fail(cudaError_t e)
{
  last_error = e;
  return e;
}

/* What the plugin did since the harness last asked (DEV-08): allocations
 * per device and the streams its async work used. */
static struct {
  pthread_mutex_t lock;
  int allocs[MAX_DEVICES];
  void *streams[8];
  int nstreams;
} watch = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, 0};
NC_FORK_SAFE_MUTEX(watch.lock, watch)

/* What the plugin did on this thread during one table callback (DEV-08
 * for every callback of every case): the harness opens a scope with the
 * table's device before the call and closes it after. Plugin-owned and
 * pool threads have no scope and are not judged. */
static _Thread_local struct {
  int open, device;
  int paused; /* inside execute_n tasks: not judged, whichever thread runs them */
  int wrong_allocs, wrong_device;
  void *streams[8];
  int nstreams;
} scope;

static void cudasim_note_alloc(int device, size_t size)
{
  (void)size;
  /* Which device is current on a pool thread the contract leaves open, and
   * a task runs on the caller or a helper as the pool schedules it: a
   * task's allocations are not judged anywhere. */
  if (device < 0 || scope.paused)
    return;
  if (scope.open && scope.device >= 0 && device != scope.device) {
    scope.wrong_allocs++;
    scope.wrong_device = device;
  }
  pthread_mutex_lock(&watch.lock);
  watch.allocs[device]++;
  pthread_mutex_unlock(&watch.lock);
}

static void cudasim_note_stream(void *stream)
{
  if (scope.open && !scope.paused) {
    int seen = 0;
    for (int i = 0; i < scope.nstreams; i++)
      seen |= scope.streams[i] == stream;
    if (!seen && scope.nstreams < 8)
      scope.streams[scope.nstreams++] = stream;
  }
  pthread_mutex_lock(&watch.lock);
  int seen = 0;
  for (int i = 0; i < watch.nstreams; i++)
    seen |= watch.streams[i] == stream;
  if (!seen && watch.nstreams < 8)
    watch.streams[watch.nstreams++] = stream;
  pthread_mutex_unlock(&watch.lock);
}

static int device_count(void)
{
  static int count;
  if (!count) {
    const char *env = getenv("NVE_CONFORM_SIM_DEVICES");
    int n = env ? atoi(env) : NC_DEFAULT_SIM_DEVICES;
    count = n < 1 ? 1 : n > MAX_DEVICES ? MAX_DEVICES : n;
  }
  return count;
}

/* ---- devices ------------------------------------------------------------------ */

EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
  if (!count)
    return fail(cudaErrorInvalidValue);
  *count = device_count();
  return cudaSuccess;
}

EXPORT cudaError_t cudaGetDevice(int *device)
{
  if (!device)
    return fail(cudaErrorInvalidValue);
  *device = current_device;
  return cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int device)
{
  if (device < 0 || device >= device_count())
    return fail(cudaErrorInvalidDevice);
  current_device = device;
  return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
EXPORT cudaError_t cudaDeviceReset(void) { return cudaSuccess; }
EXPORT cudaError_t cudaRuntimeGetVersion(int *v) { return v ? (*v = 13000, cudaSuccess) : fail(1); }
EXPORT cudaError_t cudaDriverGetVersion(int *v) { return v ? (*v = 13000, cudaSuccess) : fail(1); }

EXPORT cudaError_t cudaDeviceGetAttribute(int *value, int attr, int device)
{
  if (!value)
    return fail(cudaErrorInvalidValue);
  if (device < 0 || device >= device_count())
    return fail(cudaErrorInvalidDevice);
  switch (attr) {
  case 16: *value = 8; break;  /* multiprocessors */
  case 75: *value = 9; break;  /* compute capability major */
  case 76: *value = 0; break;  /* minor */
  default: *value = 0; break;
  }
  return cudaSuccess;
}

/* Writes the name only (the first member): the struct's size differs
 * between runtime versions, and the simulation knows nothing else. */
EXPORT cudaError_t cudaGetDeviceProperties(void *prop, int device)
{
  if (!prop)
    return fail(cudaErrorInvalidValue);
  if (device < 0 || device >= device_count())
    return fail(cudaErrorInvalidDevice);
  snprintf(prop, 256, "nve-conform simulated device %d", device);
  return cudaSuccess;
}
EXPORT cudaError_t cudaGetDeviceProperties_v2(void *prop, int device)
{
  return cudaGetDeviceProperties(prop, device);
}

/* ---- memory ------------------------------------------------------------------- */

static cudaError_t check_stream(void *stream);

typedef struct allocation {
  uintptr_t device_view; /* what the plugin gets; PROT_NONE for device memory */
  unsigned char *alias;  /* the same pages, accessible to the simulation */
  size_t size, map_size;
  int device; /* -1: pinned host memory */
  int reported;
  unsigned generation; /* the fork generation it was made in (see generation) */
} allocation;

static allocation allocations[MAX_ALLOCATIONS];
/* Slots from allocations_top on were never used: look-ups stop there. */
static _Atomic int allocations_top;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
NC_FORK_SAFE_MUTEX(alloc_lock, alloc)

/* Released device memory kept for the next allocation of about its size:
 * making a memory file, mapping it twice and faulting its pages in again
 * cost more than the harness's own checks of a device call. Only device
 * memory: the plugin reaches it through the simulation alone, which keeps
 * to the size asked for, so zeroing that size makes a reused allocation
 * read as a fresh one, and a host touch (which opens the view) keeps it
 * out. Pinned host memory the plugin writes directly: it is unmapped on
 * release, so that a write after free still faults. */
#define SPARES 16
#define SPARE_BYTES ((size_t)64 << 20)
static struct spare {
  uintptr_t view;
  unsigned char *alias;
  size_t map_size;
} spares[SPARES];
static int spare_count;
static size_t spare_bytes;
/* Bumped at every fork, on both sides: an allocation live at a fork
 * shares its pages (MAP_SHARED) with the other process, which may still
 * use it, so neither side ever keeps, zeroes or hands it out again. */
static unsigned generation;

static void generation_next(void) { generation++; }

/* The child also forgets the spares, whose pages its parent will hand
 * out: it maps its own. */
static void spares_forget(void)
{
  spare_count = 0;
  spare_bytes = 0;
  generation_next();
}
__attribute__((constructor)) static void spares_fork_safe(void)
{
  pthread_atfork(NULL, generation_next, spares_forget);
}

static allocation *find_allocation(const void *p)
{
  uintptr_t a = (uintptr_t)p;
  int top = atomic_load_explicit(&allocations_top, memory_order_acquire);
  for (int i = 0; i < top; i++)
    if (allocations[i].size && a >= allocations[i].device_view &&
        a < allocations[i].device_view + allocations[i].size)
      return &allocations[i];
  return NULL;
}

/* A free slot of the table, or NULL; under alloc_lock. */
static allocation *free_slot(void)
{
  for (int i = 0; i < MAX_ALLOCATIONS; i++)
    if (!allocations[i].size)
      return &allocations[i];
  return NULL;
}

/* Fills slot under alloc_lock, raising the look-ups' bound past it. */
static void place(allocation *slot, allocation a)
{
  *slot = a;
  int at = (int)(slot - allocations) + 1;
  if (at > atomic_load_explicit(&allocations_top, memory_order_relaxed))
    atomic_store_explicit(&allocations_top, at, memory_order_release);
}

/* Keeps a released allocation's mappings as a spare; 0 when they must be
 * unmapped (pinned host memory, a view the host opened, one live at a
 * fork, or no room). It is out of the table already: nobody else holds it. */
static int keep(const allocation *a)
{
  if (a->device < 0 || a->reported || a->generation != generation ||
      a->map_size > SPARE_BYTES / 4)
    return 0;
  /* What the last owner could write: its size, through copies and sets. */
  memset(a->alias, 0, a->size);
  pthread_mutex_lock(&alloc_lock);
  int kept = a->generation == generation && spare_count < SPARES &&
             spare_bytes + a->map_size <= SPARE_BYTES;
  if (kept) {
    spares[spare_count++] = (struct spare){a->device_view, a->alias, a->map_size};
    spare_bytes += a->map_size;
  }
  pthread_mutex_unlock(&alloc_lock);
  return kept;
}

/* Device memory from a spare of one up to twice its pages (accesses are
 * checked against the size asked for). */
static cudaError_t reuse(void **out, size_t size, size_t map_size, int device)
{
  cudaError_t e = cudaErrorMemoryAllocation;
  if (device < 0)
    return e;
  pthread_mutex_lock(&alloc_lock);
  allocation *slot = spare_count ? free_slot() : NULL;
  for (int i = spare_count - 1; slot && i >= 0 && e != cudaSuccess; i--) {
    struct spare s = spares[i];
    if (s.map_size < map_size || s.map_size / 2 >= map_size)
      continue;
    place(slot, (allocation){s.view, s.alias, size ? size : 1, s.map_size, device, 0, generation});
    spares[i] = spares[--spare_count];
    spare_bytes -= s.map_size;
    *out = (void *)s.view;
    e = cudaSuccess;
  }
  pthread_mutex_unlock(&alloc_lock);
  if (e == cudaSuccess)
    cudasim_note_alloc(device, size);
  return e;
}

static cudaError_t allocate(void **out, size_t size, int device)
{
  if (!out)
    return fail(cudaErrorInvalidValue);
  *out = NULL;
  size_t ps = (size_t)sysconf(_SC_PAGESIZE), map_size = (size ? size + ps - 1 : 1) / ps * ps;
  if (!map_size)
    map_size = ps;
  if (reuse(out, size, map_size, device) == cudaSuccess)
    return cudaSuccess;
  int fd = memfd_create("cudasim", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)map_size) != 0) {
    if (fd >= 0)
      close(fd);
    return fail(cudaErrorMemoryAllocation);
  }
  void *alias = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  void *view = mmap(NULL, map_size, device >= 0 ? PROT_NONE : PROT_READ | PROT_WRITE, MAP_SHARED,
                    fd, 0);
  close(fd);
  if (alias == MAP_FAILED || view == MAP_FAILED) {
    if (alias != MAP_FAILED)
      munmap(alias, map_size);
    if (view != MAP_FAILED)
      munmap(view, map_size);
    return fail(cudaErrorMemoryAllocation);
  }
  pthread_mutex_lock(&alloc_lock);
  allocation *slot = free_slot();
  if (slot)
    place(slot, (allocation){(uintptr_t)view, alias, size ? size : 1, map_size, device, 0,
                             generation});
  pthread_mutex_unlock(&alloc_lock);
  if (!slot) {
    munmap(alias, map_size);
    munmap(view, map_size);
    return fail(cudaErrorMemoryAllocation);
  }
  cudasim_note_alloc(device, size);
  *out = view;
  return cudaSuccess;
}

static cudaError_t release(void *p, int want_device)
{
  if (!p)
    return cudaSuccess;
  pthread_mutex_lock(&alloc_lock);
  allocation *a = find_allocation(p);
  allocation copy = a ? *a : (allocation){0};
  if (a && a->device_view == (uintptr_t)p && (a->device >= 0) == want_device)
    memset(a, 0, sizeof(*a));
  else
    a = NULL;
  pthread_mutex_unlock(&alloc_lock);
  if (!a)
    return fail(cudaErrorInvalidDevicePointer);
  if (!keep(&copy)) {
    munmap((void *)copy.device_view, copy.map_size);
    munmap(copy.alias, copy.map_size);
  }
  return cudaSuccess;
}

EXPORT cudaError_t cudaMalloc(void **p, size_t size) { return allocate(p, size, current_device); }
EXPORT cudaError_t cudaFree(void *p) { return release(p, 1); }
EXPORT cudaError_t cudaMallocAsync(void **p, size_t size, void *stream)
{
  (void)stream;
  return allocate(p, size, current_device);
}
EXPORT cudaError_t cudaFreeAsync(void *p, void *stream)
{
  (void)stream;
  return release(p, 1);
}
EXPORT cudaError_t cudaMallocHost(void **p, size_t size) { return allocate(p, size, -1); }
EXPORT cudaError_t cudaHostAlloc(void **p, size_t size, unsigned flags)
{
  (void)flags;
  return allocate(p, size, -1);
}
EXPORT cudaError_t cudaFreeHost(void *p) { return release(p, 0); }

/* Where the simulation may read or write n bytes at p: the alias of an
 * allocation, or p itself for ordinary host memory. NULL when p starts in
 * an allocation that is too small. */
static unsigned char *accessible(const void *p, size_t n, int *is_device)
{
  pthread_mutex_lock(&alloc_lock);
  allocation *a = find_allocation(p);
  unsigned char *at = NULL;
  *is_device = a && a->device >= 0;
  if (!a)
    at = (unsigned char *)(uintptr_t)p;
  else if ((uintptr_t)p + n <= a->device_view + a->size)
    at = a->alias + ((uintptr_t)p - a->device_view);
  pthread_mutex_unlock(&alloc_lock);
  return at;
}

EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind)
{
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  if (n == 0)
    return cudaSuccess;
  int dst_dev, src_dev;
  unsigned char *d = accessible(dst, n, &dst_dev);
  const unsigned char *s = accessible(src, n, &src_dev);
  if (!d || !s || !dst || !src)
    return fail(cudaErrorInvalidValue);
  /* A direction that contradicts the pointers is what a real GPU rejects. */
  if ((kind == cudaMemcpyHostToDevice && (!dst_dev || src_dev)) ||
      (kind == cudaMemcpyDeviceToHost && (dst_dev || !src_dev)) ||
      (kind == cudaMemcpyDeviceToDevice && (!dst_dev || !src_dev)))
    return fail(cudaErrorInvalidValue);
  memmove(d, s, n);
  return cudaSuccess;
}

EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
  cudasim_note_stream(stream);
  if (check_stream(stream) != cudaSuccess)
    return cudaErrorInvalidResourceHandle;
  return cudaMemcpy(dst, src, n, kind);
}

EXPORT cudaError_t cudaMemset(void *p, int value, size_t n)
{
  int dev;
  unsigned char *d = accessible(p, n, &dev);
  if (!d || !p || !dev)
    return fail(cudaErrorInvalidValue);
  memset(d, value, n);
  return cudaSuccess;
}

EXPORT cudaError_t cudaMemsetAsync(void *p, int value, size_t n, void *stream)
{
  cudasim_note_stream(stream);
  if (check_stream(stream) != cudaSuccess)
    return cudaErrorInvalidResourceHandle;
  return cudaMemset(p, value, n);
}

/* cudaPointerAttributes: type (0 unregistered, 1 host, 2 device), device,
 * devicePointer, hostPointer. */
EXPORT cudaError_t cudaPointerGetAttributes(void *attributes, const void *p)
{
  struct {
    int type, device;
    void *device_pointer, *host_pointer;
  } out = {0, -2, NULL, NULL};
  if (!attributes)
    return fail(cudaErrorInvalidValue);
  pthread_mutex_lock(&alloc_lock);
  allocation *a = find_allocation(p);
  if (a) {
    out.type = a->device >= 0 ? 2 : 1;
    out.device = a->device >= 0 ? a->device : current_device;
    out.device_pointer = (void *)(uintptr_t)p;
    out.host_pointer = a->device >= 0 ? NULL : (void *)(uintptr_t)p;
  } else {
    out.host_pointer = (void *)(uintptr_t)p;
  }
  pthread_mutex_unlock(&alloc_lock);
  memcpy(attributes, &out, sizeof(out));
  return cudaSuccess;
}

/* ---- streams and events ---------------------------------------------------------- */

/* Streams and events are small heap objects tagged with their device; the
 * simulated work is done by the time a call returns. */
typedef struct sim_handle {
  uint32_t magic;
  int device;
} sim_handle;
#define STREAM_MAGIC 0x53545245u
#define EVENT_MAGIC 0x45564e54u

/* Live handles, so that a bogus one is refused without being read. */
#define MAX_HANDLES 1024
static sim_handle *handles[MAX_HANDLES];
static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
NC_FORK_SAFE_MUTEX(handle_lock, handle)

static int handle_live(const void *p, uint32_t magic)
{
  int live = 0;
  pthread_mutex_lock(&handle_lock);
  for (int i = 0; i < MAX_HANDLES && !live; i++)
    live = handles[i] == p && handles[i]->magic == magic;
  pthread_mutex_unlock(&handle_lock);
  return live;
}

static cudaError_t make_handle(void **out, uint32_t magic)
{
  if (!out)
    return fail(cudaErrorInvalidValue);
  sim_handle *h = malloc(sizeof(*h));
  if (!h)
    return fail(cudaErrorMemoryAllocation);
  *h = (sim_handle){magic, current_device};
  int slot = -1;
  pthread_mutex_lock(&handle_lock);
  for (int i = 0; i < MAX_HANDLES && slot < 0; i++)
    if (!handles[i])
      handles[slot = i] = h;
  pthread_mutex_unlock(&handle_lock);
  if (slot < 0) {
    free(h);
    return fail(cudaErrorMemoryAllocation);
  }
  *out = h;
  return cudaSuccess;
}

static cudaError_t drop_handle(void *p, uint32_t magic)
{
  int found = 0;
  pthread_mutex_lock(&handle_lock);
  for (int i = 0; i < MAX_HANDLES && !found; i++)
    if (handles[i] == p && handles[i]->magic == magic) {
      handles[i] = NULL;
      found = 1;
    }
  pthread_mutex_unlock(&handle_lock);
  if (!found)
    return fail(cudaErrorInvalidResourceHandle);
  free(p);
  return cudaSuccess;
}

/* NULL and the legacy/per-thread default streams (1, 2) are valid too. */
static cudaError_t check_stream(void *stream)
{
  if ((uintptr_t)stream > 2 && !handle_live(stream, STREAM_MAGIC))
    return fail(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

EXPORT cudaError_t cudaStreamCreate(void **s) { return make_handle(s, STREAM_MAGIC); }
EXPORT cudaError_t cudaStreamCreateWithFlags(void **s, unsigned flags)
{
  (void)flags;
  return make_handle(s, STREAM_MAGIC);
}
EXPORT cudaError_t cudaStreamDestroy(void *s) { return drop_handle(s, STREAM_MAGIC); }
EXPORT cudaError_t cudaStreamSynchronize(void *s) { return check_stream(s); }
EXPORT cudaError_t cudaStreamQuery(void *s) { return check_stream(s); }
EXPORT cudaError_t cudaStreamWaitEvent(void *s, void *e, unsigned flags)
{
  (void)e;
  (void)flags;
  return check_stream(s);
}
EXPORT cudaError_t cudaEventCreate(void **e) { return make_handle(e, EVENT_MAGIC); }
EXPORT cudaError_t cudaEventCreateWithFlags(void **e, unsigned flags)
{
  (void)flags;
  return make_handle(e, EVENT_MAGIC);
}
EXPORT cudaError_t cudaEventDestroy(void *e) { return drop_handle(e, EVENT_MAGIC); }
EXPORT cudaError_t cudaEventRecord(void *e, void *s)
{
  (void)e;
  return check_stream(s);
}
EXPORT cudaError_t cudaEventSynchronize(void *e)
{
  (void)e;
  return cudaSuccess;
}

/* ---- what the simulation cannot do -------------------------------------------------- */

/* A plugin with kernels registers them when it loads and launches them
 * through these. The registration succeeds (so the plugin loads); a launch
 * cannot run device code and says so: cudaErrorNotSupported, counted for
 * the harness, which then skips what depends on it. */
static _Atomic int unsupported_calls;

EXPORT void **__cudaRegisterFatBinary(void *fatbin)
{
  static void *handle;
  (void)fatbin;
  return &handle;
}
EXPORT void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
EXPORT void __cudaUnregisterFatBinary(void **handle) { (void)handle; }
EXPORT void __cudaRegisterFunction(void **handle, const char *host_fn, char *device_fn,
                                   const char *name, int limit, void *tid, void *bid, void *bdim,
                                   void *gdim, int *wsize)
{
  (void)handle, (void)host_fn, (void)device_fn, (void)name, (void)limit, (void)tid, (void)bid;
  (void)bdim, (void)gdim, (void)wsize;
}
EXPORT void __cudaRegisterVar(void **handle, char *host_var, char *device_address,
                              const char *name, int ext, size_t size, int constant, int global)
{
  (void)handle, (void)host_var, (void)device_address, (void)name, (void)ext, (void)size;
  (void)constant, (void)global;
}
EXPORT unsigned __cudaPushCallConfiguration(uint64_t grid_xy, unsigned grid_z, uint64_t block_xy,
                                            unsigned block_z, size_t shared, void *stream)
{
  (void)grid_xy, (void)grid_z, (void)block_xy, (void)block_z, (void)shared, (void)stream;
  return 0;
}
EXPORT cudaError_t __cudaPopCallConfiguration(void *grid, void *block, size_t *shared,
                                              void *stream)
{
  (void)grid, (void)block, (void)shared, (void)stream;
  return cudaSuccess;
}
EXPORT cudaError_t cudaLaunchKernel(const void *fn, uint64_t grid_xy, unsigned grid_z,
                                    uint64_t block_xy, unsigned block_z, void **args,
                                    size_t shared, void *stream)
{
  (void)fn, (void)grid_xy, (void)grid_z, (void)block_xy, (void)block_z, (void)args, (void)shared;
  cudasim_note_stream(stream);
  unsupported_calls++;
  return fail(cudaErrorNotSupported);
}

/* ---- errors ------------------------------------------------------------------------ */

EXPORT cudaError_t cudaGetLastError(void)
{
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}
EXPORT cudaError_t cudaPeekAtLastError(void) { return last_error; }

EXPORT const char *cudaGetErrorName(cudaError_t e)
{
  switch (e) {
  case cudaSuccess: return "cudaSuccess";
  case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
  case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
  case cudaErrorNoDevice: return "cudaErrorNoDevice";
  case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
  case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
  case cudaErrorNotSupported: return "cudaErrorNotSupported";
  default: return "cudaErrorUnknown";
  }
}

EXPORT const char *cudaGetErrorString(cudaError_t e)
{
  return e == cudaSuccess ? "no error" : cudaGetErrorName(e);
}

/* ---- what the harness asks the simulation ------------------------------------------- */

EXPORT int cudasim_is_simulation(void) { return 1; }

/* Calls the simulation could not carry out (kernel launches) so far. */
EXPORT int cudasim_unsupported_calls(void) { return unsupported_calls; }

/* Allocations made on each device since the last call (then forgotten),
 * and the streams async work used; returns the number of streams. */
EXPORT int cudasim_watch_take(int *allocs_per_device, int ndevices, void **streams, int nstreams)
{
  pthread_mutex_lock(&watch.lock);
  for (int i = 0; i < ndevices && i < MAX_DEVICES; i++)
    allocs_per_device[i] = watch.allocs[i];
  int n = watch.nstreams < nstreams ? watch.nstreams : nstreams;
  memcpy(streams, watch.streams, (size_t)n * sizeof(void *));
  memset(watch.allocs, 0, sizeof(watch.allocs));
  watch.nstreams = 0;
  pthread_mutex_unlock(&watch.lock);
  return n;
}

/* Opens this thread's scope for one table callback; device is the table's
 * (-1: allocations are not judged). */
EXPORT void cudasim_scope_begin(int device)
{
  memset(&scope, 0, sizeof(scope));
  scope.open = 1;
  scope.device = device;
}

/* Pauses (on != 0) and resumes this thread's scope around an execute_n
 * task: a task may run on the calling thread or a helper, as the pool
 * schedules it, and the verdict must not depend on which. Its streams still
 * reach the whole-process watch; its allocations nothing. */
EXPORT void cudasim_scope_pause(int on) { scope.paused += on ? 1 : -1; }

/* Closes it: how many allocations went to another device (the last such
 * device in *wrong_device), and the streams async work used on this thread;
 * returns the number of streams. */
EXPORT int cudasim_scope_end(int *wrong_allocs, int *wrong_device, void **streams, int nstreams)
{
  int n = scope.nstreams < nstreams ? scope.nstreams : nstreams;
  *wrong_allocs = scope.wrong_allocs;
  *wrong_device = scope.wrong_device;
  memcpy(streams, scope.streams, (size_t)n * sizeof(void *));
  memset(&scope, 0, sizeof(scope));
  return n;
}

/* From the harness's fault handler: a host touch of device memory. Opens
 * the allocation's pages so the plugin can go on, and describes it.
 * Returns 1 when addr was simulated device memory. */
/* Text for a signal handler, where snprintf may not be used: appends s to
 * out[*at..len), always terminated. */
static void append(char *out, size_t len, size_t *at, const char *s)
{
  while (*s && *at + 1 < len)
    out[(*at)++] = *s++;
  out[*at < len ? *at : len - 1] = '\0';
}

static void append_number(char *out, size_t len, size_t *at, unsigned long v, unsigned base)
{
  char digits[24];
  int n = 0;
  do {
    unsigned d = (unsigned)(v % base);
    digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    v /= base;
  } while (v);
  char text[24];
  for (int i = 0; i < n; i++)
    text[i] = digits[n - 1 - i];
  text[n] = '\0';
  append(out, len, at, text);
}

EXPORT int cudasim_recover_fault(const void *addr, char *what, size_t len)
{
  allocation *a = find_allocation(addr); /* no lock: called from a signal handler */
  if (!a || a->device < 0)
    return 0;
  mprotect((void *)a->device_view, a->map_size, PROT_READ | PROT_WRITE);
  if (!a->reported) {
    a->reported = 1;
    /* In the fault handler: no snprintf. */
    size_t at = 0;
    append(what, len, &at, "the host touched device memory at offset ");
    append_number(what, len, &at, (uintptr_t)addr - a->device_view, 10);
    append(what, len, &at, " of a ");
    append_number(what, len, &at, a->size, 10);
    append(what, len, &at, "-byte allocation on device ");
    append_number(what, len, &at, (unsigned long)a->device, 10);
    append(what, len, &at, " (0x");
    append_number(what, len, &at, a->device_view, 16);
    append(what, len, &at, ")");
    return 1;
  }
  what[0] = '\0';
  return 1;
}
