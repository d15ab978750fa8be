/* SPDX-License-Identifier: Apache-2.0 */
/* The allocation interposer: malloc, calloc, realloc, free and the aligned
 * variants, delegating to the C library and reporting to the accounting
 * in alloc.c. It is linked into the programs that run plugin code (the
 * case runner, and nve-conform for --no-fork), never into libnveconform:
 * a vendor's program that links the library keeps its own allocator.
 * Sanitizer builds leave it out (AddressSanitizer owns malloc). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "interposer.h"
#include "coverage.h"

#include <sys/syscall.h>
#include <unistd.h>

void (*nc_exit_hook)(int status);

/* _exit and _Exit as plugin code calls them: the hook first (once), then
 * the process ends as it would have. */
__attribute__((noreturn)) static void end_process(int status)
{
  void (*hook)(int) = nc_exit_hook;
  nc_exit_hook = NULL;
  if (hook)
    hook(status);
  nc_coverage_flush();
  for (;;)
    syscall(SYS_exit_group, status);
}

void _exit(int status) { end_process(status); }
void _Exit(int status) { end_process(status); }

#ifndef NC_NO_ALLOC_INTERPOSER

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static size_t (*real_usable_size)(void *);

/* dlsym may allocate before the real functions are known: a small static
 * heap serves those few requests and is never freed. */
static _Alignas(16) unsigned char boot_heap[64 * 1024];
static size_t boot_used;
static int resolving;

static int in_boot_heap(const void *p)
{
  return (const unsigned char *)p >= boot_heap && (const unsigned char *)p < boot_heap + sizeof(boot_heap);
}

static void *boot_alloc(size_t n)
{
  size_t need = (n + 15) / 16 * 16 + 16;
  if (boot_used + need > sizeof(boot_heap))
    return NULL;
  unsigned char *p = boot_heap + boot_used + 16;
  memcpy(p - 16, &n, sizeof(n));
  boot_used += need;
  return p;
}

static void resolve(void)
{
  if (real_malloc || resolving)
    return;
  resolving = 1;
  real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
  real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
  real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
  real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
  real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
  real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
  real_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
  real_usable_size = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
  real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
  resolving = 0;
}

/* Set by malloc below: calls do reach it. A tool that replaces malloc in
 * the program itself (valgrind's memcheck) takes them first. */
static volatile int reached;

/* Resolves the C library's functions early, and tells the accounting that
 * this program can count and fail allocations, once a call shows that
 * malloc is really this one. */
__attribute__((constructor)) static void resolve_early(void)
{
  resolve();
  void *(*volatile through_plt)(size_t) = malloc; /* not folded away */
  free(through_plt(16));
  if (reached)
    nc_alloc_interposer_present();
}

/* The common path of every allocating function. */
#define ALLOCATE(SIZE, CALL)            \
  do {                                  \
    resolve();                          \
    if (!real_malloc)                   \
      return boot_alloc(SIZE);          \
    int counted_here = nc_alloc_accounting();    \
    if (counted_here && nc_alloc_inject()) {     \
      errno = ENOMEM;                   \
      return NULL;                      \
    }                                   \
    void *p_ = (CALL);                  \
    if (p_ && counted_here)             \
      nc_alloc_remember(p_, (SIZE));             \
    return p_;                          \
  } while (0)

void *malloc(size_t n)
{
  reached = 1;
  ALLOCATE(n, real_malloc(n));
}

void *calloc(size_t n, size_t m)
{
  size_t total;
  if (__builtin_mul_overflow(n, m, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  resolve();
  if (!real_calloc)
    return boot_alloc(total); /* static memory is zero */
  ALLOCATE(total, real_calloc(n, m));
}

void free(void *p)
{
  if (!p || in_boot_heap(p))
    return;
  nc_alloc_forget(p);
  resolve();
  real_free(p);
}

void *realloc(void *old, size_t n)
{
  resolve();
  if (old && in_boot_heap(old)) {
    void *p = malloc(n);
    size_t had;
    memcpy(&had, (unsigned char *)old - 16, sizeof(had));
    if (p)
      memcpy(p, old, had < n ? had : n);
    return p;
  }
  if (!real_realloc)
    return boot_alloc(n);
  int counted_here = nc_alloc_accounting();
  if (counted_here && n > 0 && nc_alloc_inject()) {
    errno = ENOMEM;
    return NULL; /* the old block stays valid, as realloc promises */
  }
  void *p = real_realloc(old, n);
  if (p || n == 0) {
    nc_alloc_forget(old);
    if (p && counted_here)
      nc_alloc_remember(p, n);
  }
  return p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
  resolve();
  if (nc_alloc_accounting() && nc_alloc_inject())
    return ENOMEM;
  int rc = real_posix_memalign(out, align, n);
  if (rc == 0 && nc_alloc_accounting())
    nc_alloc_remember(*out, n);
  return rc;
}

void *aligned_alloc(size_t align, size_t n) { ALLOCATE(n, real_aligned_alloc(align, n)); }
void *memalign(size_t align, size_t n) { ALLOCATE(n, real_memalign(align, n)); }
void *valloc(size_t n) { ALLOCATE(n, real_valloc(n)); }

size_t malloc_usable_size(void *p)
{
  if (!p)
    return 0;
  if (in_boot_heap(p)) {
    size_t had;
    memcpy(&had, (unsigned char *)p - 16, sizeof(had));
    return had;
  }
  resolve();
  return real_usable_size(p);
}
#endif
