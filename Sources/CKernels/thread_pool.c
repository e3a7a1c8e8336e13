#include "CKernels.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OMK_PAUSE() _mm_pause()
#else
#define OMK_PAUSE() ((void)0)
#endif

/// Spin iterations a worker waits for the next job before it sleeps: inference issues one job
/// per operator, microseconds apart, and a sleeping thread takes tens of microseconds to wake.
#define OMK_SPIN_ITERATIONS 200000

/// One job. Two slots alternate, so a slot is rewritten only two jobs later.
typedef struct {
    omk_task_fn fn;
    void *context;
    size_t count;
    atomic_size_t done;
} omk_job;

/// How tasks are claimed: the high 32 bits are the job's generation, the low 32 bits the next
/// index. A worker claims an index with a compare-and-swap that also proves the job it read is
/// still the current one, so a late worker can never run a task of a finished or later job, and
/// the caller waits only for its tasks, not for every worker to show up.
struct omk_pool {
    size_t threads;  // including the caller
    pthread_t *workers;
    pthread_mutex_t run_lock;    // one job at a time
    pthread_mutex_t sleep_lock;  // guards the sleep/wake hand-off
    pthread_cond_t wake;
    atomic_uint_fast64_t ticket;
    atomic_int stop;
    omk_job slots[2];
};

static inline uint32_t generation_of(uint64_t ticket) { return (uint32_t)(ticket >> 32); }

/// Claims and runs tasks of the job of generation `generation` until none is left.
static void work(omk_pool *pool, uint32_t generation) {
    omk_job *job = &pool->slots[generation & 1];
    const omk_task_fn fn = job->fn;
    void *const context = job->context;
    const size_t count = job->count;
    uint64_t ticket = atomic_load_explicit(&pool->ticket, memory_order_acquire);
    for (;;) {
        if (generation_of(ticket) != generation) return;
        const uint32_t index = (uint32_t)ticket;
        if (index >= count) return;
        if (atomic_compare_exchange_weak_explicit(&pool->ticket, &ticket, ticket + 1, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            fn(context, index);
            atomic_fetch_add_explicit(&job->done, 1, memory_order_release);
            ticket = atomic_load_explicit(&pool->ticket, memory_order_acquire);
        }
    }
}

static void *worker_main(void *argument) {
    omk_pool *pool = argument;
    uint32_t seen = 0;  // generation 0: no job yet
    for (;;) {
        uint32_t now = seen;
        for (int spin = 0; spin < OMK_SPIN_ITERATIONS; spin++) {
            now = generation_of(atomic_load_explicit(&pool->ticket, memory_order_acquire));
            if (now != seen || atomic_load_explicit(&pool->stop, memory_order_relaxed)) break;
            OMK_PAUSE();
        }
        if (now == seen && !atomic_load_explicit(&pool->stop, memory_order_relaxed)) {
            pthread_mutex_lock(&pool->sleep_lock);
            while ((now = generation_of(atomic_load_explicit(&pool->ticket, memory_order_acquire))) == seen &&
                   !atomic_load_explicit(&pool->stop, memory_order_relaxed)) {
                pthread_cond_wait(&pool->wake, &pool->sleep_lock);
            }
            pthread_mutex_unlock(&pool->sleep_lock);
        }
        if (atomic_load_explicit(&pool->stop, memory_order_relaxed)) return NULL;
        seen = now;
        work(pool, now);
    }
}

omk_pool *omk_pool_create(size_t threads) {
    if (threads < 2) return NULL;
    omk_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL) return NULL;
    pool->threads = threads;
    pool->workers = calloc(threads - 1, sizeof(pthread_t));
    if (pool->workers == NULL) {
        free(pool);
        return NULL;
    }
    pthread_mutex_init(&pool->run_lock, NULL);
    pthread_mutex_init(&pool->sleep_lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    atomic_init(&pool->ticket, 0);
    atomic_init(&pool->stop, 0);
    atomic_init(&pool->slots[0].done, 0);
    atomic_init(&pool->slots[1].done, 0);
    for (size_t i = 0; i + 1 < threads; i++) {
        if (pthread_create(&pool->workers[i], NULL, worker_main, pool) != 0) {
            pool->threads = i + 1;  // run with the workers that did start
            break;
        }
    }
    return pool;
}

size_t omk_pool_threads(const omk_pool *pool) { return pool == NULL ? 1 : pool->threads; }

int omk_pool_run(omk_pool *pool, omk_task_fn fn, void *context, size_t count) {
    if (pool == NULL || count > UINT32_MAX || pthread_mutex_trylock(&pool->run_lock) != 0) return 0;
    const uint32_t generation = generation_of(atomic_load_explicit(&pool->ticket, memory_order_relaxed)) + 1;
    omk_job *job = &pool->slots[generation & 1];
    job->fn = fn;
    job->context = context;
    job->count = count;
    atomic_store_explicit(&job->done, 0, memory_order_relaxed);
    pthread_mutex_lock(&pool->sleep_lock);
    atomic_store_explicit(&pool->ticket, (uint64_t)generation << 32, memory_order_release);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->sleep_lock);
    work(pool, generation);
    // Tasks claimed by workers may still be running; a preempted worker must get the CPU back,
    // so after a short spin, yield instead of burning the time slice it needs.
    for (unsigned spin = 0; atomic_load_explicit(&job->done, memory_order_acquire) < count; spin++) {
        if (spin < 4096) OMK_PAUSE(); else sched_yield();
    }
    pthread_mutex_unlock(&pool->run_lock);
    return 1;
}
