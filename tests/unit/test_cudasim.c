/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated CUDA runtime keeps released mappings for the next
 * allocation of about their size: a reused allocation must still read as
 * a fresh one, pinned memory is never reused, and neither side of a fork
 * sees or changes the other's memory through one. Loads the runtime the
 * build made (NC_CUDASIM_PATH). */
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);
enum { TO_DEVICE = 1, TO_HOST = 2 };

static struct {
  void *dl;
  malloc_fn dev_malloc, host_malloc;
  free_fn dev_free, host_free;
  memcpy_fn copy;
} rt;

static int load(void **state)
{
  (void)state;
  rt.dl = dlopen(NC_CUDASIM_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!rt.dl)
    return -1;
  *(void **)&rt.dev_malloc = dlsym(rt.dl, "cudaMalloc");
  *(void **)&rt.dev_free = dlsym(rt.dl, "cudaFree");
  *(void **)&rt.host_malloc = dlsym(rt.dl, "cudaMallocHost");
  *(void **)&rt.host_free = dlsym(rt.dl, "cudaFreeHost");
  *(void **)&rt.copy = dlsym(rt.dl, "cudaMemcpy");
  return rt.dev_malloc && rt.dev_free && rt.host_malloc && rt.host_free && rt.copy ? 0 : -1;
}

static int unload(void **state)
{
  (void)state;
  return rt.dl ? dlclose(rt.dl) : 0;
}

/* Whether n bytes of device memory at dev read as zeros. */
static int reads_zero(const void *dev, size_t n)
{
  unsigned char back[8192];
  assert_true(n <= sizeof(back));
  assert_int_equal(rt.copy(back, dev, n, TO_HOST), 0);
  for (size_t i = 0; i < n; i++)
    if (back[i])
      return 0;
  return 1;
}

static void fill_device(void *dev, size_t n, unsigned char byte)
{
  unsigned char data[8192];
  assert_true(n <= sizeof(data));
  memset(data, byte, n);
  assert_int_equal(rt.copy(dev, data, n, TO_DEVICE), 0);
}

static void reused_device_memory_reads_as_fresh(void **state)
{
  (void)state;
  /* Sizes that share a mapping: the second fits the first's pages. */
  size_t sizes[] = {5000, 4500, 8192, 100};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    void *a = NULL;
    assert_int_equal(rt.dev_malloc(&a, sizes[i]), 0);
    assert_true(reads_zero(a, sizes[i]));
    fill_device(a, sizes[i], 0xab);
    assert_int_equal(rt.dev_free(a), 0);
  }
}

static void released_memory_is_not_live(void **state)
{
  (void)state;
  void *a = NULL;
  assert_int_equal(rt.dev_malloc(&a, 4096), 0);
  assert_int_equal(rt.dev_free(a), 0);
  /* Kept as a spare, it is still no allocation of the program's. */
  assert_int_not_equal(rt.dev_free(a), 0);
  unsigned char byte = 1;
  assert_int_not_equal(rt.copy(a, &byte, 1, TO_DEVICE), 0);
}

/* The plugin writes pinned memory directly: a write after its release
 * must still fault, not land in the next allocation. */
static void pinned_memory_is_never_kept(void **state)
{
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL); /* cmocka's handler would report, not die */
    volatile unsigned char *a = NULL;
    if (rt.host_malloc((void **)&a, 100) != 0)
      _exit(2);
    a[0] = 1;
    if (rt.host_free((void *)a) != 0)
      _exit(2);
    a[0] = 2; /* after free: must fault */
    _exit(0);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
}

/* A parent that frees what was live at a fork and allocates again must
 * not hand its child's pages out: the child still uses them. */
static void parent_keeps_apart(void **state)
{
  (void)state;
  void *live = NULL;
  assert_int_equal(rt.dev_malloc(&live, 4096), 0);
  fill_device(live, 4096, 0x77);
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    char byte;
    close(go[1]);
    if (read(go[0], &byte, 1) != 1)
      _exit(2);
    unsigned char back[4096];
    if (rt.copy(back, live, sizeof(back), TO_HOST) != 0)
      _exit(2);
    for (size_t i = 0; i < sizeof(back); i++)
      if (back[i] != 0x77)
        _exit(1);
    _exit(0);
  }
  close(go[0]);
  assert_int_equal(rt.dev_free(live), 0);
  void *again = NULL;
  assert_int_equal(rt.dev_malloc(&again, 4096), 0);
  fill_device(again, 4096, 0x11);
  assert_int_equal(write(go[1], "", 1), 1);
  close(go[1]);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_int_equal(rt.dev_free(again), 0);
}

/* A child that frees what it inherited leaves the parent's data as it
 * was, and its own allocations never come from the parent's spares. */
static void forked_child_keeps_apart(void **state)
{
  (void)state;
  void *live = NULL, *spare = NULL;
  assert_int_equal(rt.dev_malloc(&live, 4096), 0);
  fill_device(live, 4096, 0x77);
  assert_int_equal(rt.dev_malloc(&spare, 4096), 0);
  assert_int_equal(rt.dev_free(spare), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    void *mine = NULL;
    int bad = rt.dev_free(live) != 0 || rt.dev_malloc(&mine, 4096) != 0 || mine == spare;
    if (!bad)
      fill_device(mine, 4096, 0x11);
    _exit(bad);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  unsigned char back[4096];
  assert_int_equal(rt.copy(back, live, sizeof(back), TO_HOST), 0);
  for (size_t i = 0; i < sizeof(back); i++)
    assert_int_equal(back[i], 0x77);
  void *again = NULL;
  assert_int_equal(rt.dev_malloc(&again, 4096), 0);
  assert_true(reads_zero(again, 4096));
  assert_int_equal(rt.dev_free(again), 0);
  assert_int_equal(rt.dev_free(live), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reused_device_memory_reads_as_fresh),
      cmocka_unit_test(released_memory_is_not_live),
      cmocka_unit_test(pinned_memory_is_never_kept),
      cmocka_unit_test(forked_child_keeps_apart),
      cmocka_unit_test(parent_keeps_apart),
  };
  return cmocka_run_group_tests(tests, load, unload);
}
