/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nve_conform.h" /* NC_MAX_WORKERS */
#include "splitmix.h"
#include "threads.h"

#define MAX_WORKERS NC_MAX_WORKERS
/* Helpers spin this many rounds for the next job before they sleep: a
 * barrier that wakes sleeping threads costs far more than one that does not.
 * With more threads than CPUs a spinning helper only takes the CPU from the
 * thread that would hand it work, so it barely spins (as libgomp throttles). */
#define SPIN_ROUNDS 20000
#define THROTTLED_SPIN_ROUNDS 100

typedef struct job {
  int64_t count;
  nc_pool_task task;
  void *arg;
  const int64_t *order; /* index of the k-th task taken; NULL: k itself */
  atomic_llong next;
  atomic_int status;
  atomic_int helpers_busy;
} job;

static struct {
  pthread_mutex_t submit; /* held by the caller whose job is current */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t threads[MAX_WORKERS];
  int helpers; /* running helper threads */
  int workers; /* pool size: helpers + the caller */
  int spin_rounds;
  nc_schedule schedule;
  uint64_t seed;
  atomic_uint generation; /* bumped for each job, and to stop */
  unsigned start_generation; /* what new helpers have seen: a job may come
                              * before a new thread first runs */
  job *current;
  atomic_int stopping;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 1, SPIN_ROUNDS,
          NC_SCHEDULE_POOL, 1, 0, 0, NULL, 0};

static _Thread_local int in_task;

int nc_pool_in_task(void) { return in_task; }
int nc_pool_workers(void) { return pool.workers; }

static const char *const schedule_names[NC_SCHEDULE_COUNT_] = {"pool", "inline", "reverse",
                                                               "shuffle", "delays"};

const char *nc_schedule_name(nc_schedule s)
{
  return s >= 0 && s < NC_SCHEDULE_COUNT_ ? schedule_names[s] : "?";
}

int nc_schedule_parse(const char *name)
{
  for (int i = 0; i < NC_SCHEDULE_COUNT_; i++)
    if (strcmp(name, schedule_names[i]) == 0)
      return i;
  return -1;
}

static void pause_briefly(uint64_t *rng)
{
  struct timespec ts = {0, (long)(nc_splitmix(rng) % 200000)}; /* up to 0.2 ms */
  nanosleep(&ts, NULL);
}

/* Takes and runs tasks until none is left. */
static void work_on(job *j, uint64_t rng)
{
  int64_t k;
  while ((k = atomic_fetch_add(&j->next, 1)) < j->count) {
    int64_t index = j->order ? j->order[k] : k;
    if (pool.schedule == NC_SCHEDULE_DELAYS)
      pause_briefly(&rng);
    in_task = 1;
    nve_status_t s = j->task(j->arg, index);
    in_task = 0;
    if (s != NVE_SUCCESS) {
      int expected = NVE_SUCCESS;
      atomic_compare_exchange_strong(&j->status, &expected, s);
    }
  }
}

static void *helper_main(void *arg)
{
  uint64_t rng = (uint64_t)(uintptr_t)arg * 7919u + pool.seed;
  unsigned seen = pool.start_generation;
  for (;;) {
    unsigned gen;
    int spins = 0;
    while ((gen = atomic_load(&pool.generation)) == seen && spins < pool.spin_rounds) {
      spins++;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (gen == seen) {
      pthread_mutex_lock(&pool.lock);
      while ((gen = atomic_load(&pool.generation)) == seen)
        pthread_cond_wait(&pool.wake, &pool.lock);
      pthread_mutex_unlock(&pool.lock);
    }
    seen = gen;
    if (atomic_load(&pool.stopping))
      return NULL;
    job *j = __atomic_load_n(&pool.current, __ATOMIC_ACQUIRE);
    if (j) {
      work_on(j, nc_splitmix(&rng));
      atomic_fetch_sub(&j->helpers_busy, 1);
    }
  }
}

static void stop_helpers(void)
{
  if (pool.helpers == 0)
    return;
  atomic_store(&pool.stopping, 1);
  pthread_mutex_lock(&pool.lock);
  __atomic_store_n(&pool.current, NULL, __ATOMIC_RELEASE);
  atomic_fetch_add(&pool.generation, 1);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  for (int i = 0; i < pool.helpers; i++)
    pthread_join(pool.threads[i], NULL);
  pool.helpers = 0;
  atomic_store(&pool.stopping, 0);
}

static int usable_cpus(void)
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return CPU_COUNT(&set);
  return 1;
}

int nc_pool_configure(int workers, nc_schedule schedule, uint64_t seed)
{
  if (workers < 1)
    workers = 1;
  if (workers > MAX_WORKERS)
    workers = MAX_WORKERS;
  stop_helpers();
  pool.workers = workers;
  pool.spin_rounds = workers <= usable_cpus() ? SPIN_ROUNDS : THROTTLED_SPIN_ROUNDS;
  pool.schedule = schedule;
  pool.seed = seed;
  int wanted = schedule == NC_SCHEDULE_INLINE ? 0 : workers - 1;
  pool.start_generation = atomic_load(&pool.generation);
  for (int i = 0; i < wanted; i++) {
    if (nc_thread_create(&pool.threads[i], helper_main, (void *)(uintptr_t)(i + 1)) != 0) {
      pool.helpers = i;
      return -1;
    }
    pool.helpers = i + 1;
  }
  return 0;
}

void nc_pool_shutdown(void) { stop_helpers(); }

void nc_pool_after_fork(void)
{
  /* Only the forking thread exists in the child: forget the others. */
  pool.helpers = 0;
  pthread_mutex_init(&pool.submit, NULL);
  pthread_mutex_init(&pool.lock, NULL);
  pthread_cond_init(&pool.wake, NULL);
  __atomic_store_n(&pool.current, NULL, __ATOMIC_RELEASE);
  atomic_store(&pool.stopping, 0);
}

static int64_t *make_order(int64_t count)
{
  if (pool.schedule != NC_SCHEDULE_REVERSE && pool.schedule != NC_SCHEDULE_SHUFFLE)
    return NULL;
  int64_t *order = malloc((size_t)count * sizeof(*order));
  if (!order)
    return NULL; /* ascending order still runs every task */
  for (int64_t k = 0; k < count; k++)
    order[k] = pool.schedule == NC_SCHEDULE_REVERSE ? count - 1 - k : k;
  if (pool.schedule == NC_SCHEDULE_SHUFFLE) {
    uint64_t rng = pool.seed ^ (uint64_t)count;
    for (int64_t k = count - 1; k > 0; k--) {
      int64_t r = (int64_t)(nc_splitmix(&rng) % (uint64_t)(k + 1));
      int64_t t = order[k];
      order[k] = order[r];
      order[r] = t;
    }
  }
  return order;
}

nve_status_t nc_pool_run(int64_t count, nc_pool_task task, void *arg)
{
  if (count <= 0)
    return NVE_SUCCESS;
  job j;
  memset(&j, 0, sizeof(j));
  j.count = count;
  j.task = task;
  j.arg = arg;
  atomic_init(&j.next, 0);
  atomic_init(&j.status, NVE_SUCCESS);
  int64_t *order = NULL;
  int nested = in_task;
  if (!nested)
    order = make_order(count);
  j.order = order;
  static _Atomic uint64_t calls;
  uint64_t rng = pool.seed + atomic_fetch_add(&calls, 1);
  if (nested || pool.helpers == 0) {
    int was = in_task;
    work_on(&j, rng);
    in_task = was;
  } else {
    /* One job at a time: the helpers serve a single current job, and table
     * ops from several threads (each with its own context) may call
     * execute_n at once. */
    pthread_mutex_lock(&pool.submit);
    atomic_init(&j.helpers_busy, pool.helpers);
    pthread_mutex_lock(&pool.lock);
    __atomic_store_n(&pool.current, &j, __ATOMIC_RELEASE);
    atomic_fetch_add(&pool.generation, 1);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    work_on(&j, rng);
    /* The barrier: every helper has left this job before it goes away. */
    while (atomic_load(&j.helpers_busy) > 0)
      sched_yield();
    __atomic_store_n(&pool.current, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&pool.submit);
  }
  free(order);
  return (nve_status_t)atomic_load(&j.status);
}
