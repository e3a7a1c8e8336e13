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

struct omk_pool {
    size_t threads;  // including the caller
    pthread_t *workers;
    pthread_mutex_t run_lock;    // one job at a time
    pthread_mutex_t sleep_lock;  // guards sleeping workers
    pthread_cond_t wake;
    atomic_uint_fast64_t generation;
    atomic_size_t next;
    atomic_size_t done;
    atomic_size_t finished;  // workers that have finished the current generation
    atomic_int stop;
    omk_task_fn fn;
    void *context;
    size_t count;
};

static void work(omk_pool *pool) {
    const size_t count = pool->count;
    for (;;) {
        const size_t i = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed);
        if (i >= count) break;
        pool->fn(pool->context, i);
        atomic_fetch_add_explicit(&pool->done, 1, memory_order_release);
    }
}

static void *worker_main(void *argument) {
    omk_pool *pool = argument;
    // Generation 0 is the pool's state at creation; a job may be posted before this thread runs,
    // so the thread must not take its starting point from the counter.
    uint_fast64_t seen = 0;
    for (;;) {
        uint_fast64_t now = seen;
        for (int spin = 0; spin < OMK_SPIN_ITERATIONS; spin++) {
            now = atomic_load_explicit(&pool->generation, memory_order_acquire);
            if (now != seen || atomic_load_explicit(&pool->stop, memory_order_relaxed)) break;
            OMK_PAUSE();
        }
        if (now == seen && !atomic_load_explicit(&pool->stop, memory_order_relaxed)) {
            pthread_mutex_lock(&pool->sleep_lock);
            while ((now = atomic_load_explicit(&pool->generation, memory_order_acquire)) == seen &&
                   !atomic_load_explicit(&pool->stop, memory_order_relaxed)) {
                pthread_cond_wait(&pool->wake, &pool->sleep_lock);
            }
            pthread_mutex_unlock(&pool->sleep_lock);
        }
        if (atomic_load_explicit(&pool->stop, memory_order_relaxed)) return NULL;
        seen = now;
        work(pool);
        // Every worker takes part in every job, so the caller can wait until none of them is still
        // inside it before it hands out the next one (no worker ever mixes two jobs).
        atomic_fetch_add_explicit(&pool->finished, 1, memory_order_release);
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
    atomic_init(&pool->generation, 0);
    atomic_init(&pool->next, 0);
    atomic_init(&pool->done, 0);
    atomic_init(&pool->finished, 0);
    atomic_init(&pool->stop, 0);
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
    if (pool == NULL || pthread_mutex_trylock(&pool->run_lock) != 0) return 0;
    pool->fn = fn;
    pool->context = context;
    pool->count = count;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->done, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->finished, 0, memory_order_relaxed);
    pthread_mutex_lock(&pool->sleep_lock);
    atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->sleep_lock);
    work(pool);
    // A worker that was preempted (more runnable threads than cores) must get the CPU back: after
    // a short spin, yield instead of burning the time slice it needs.
    for (unsigned spin = 0; atomic_load_explicit(&pool->done, memory_order_acquire) < count; spin++) {
        if (spin < 4096) OMK_PAUSE(); else sched_yield();
    }
    for (unsigned spin = 0; atomic_load_explicit(&pool->finished, memory_order_acquire) < pool->threads - 1; spin++) {
        if (spin < 4096) OMK_PAUSE(); else sched_yield();
    }
    pthread_mutex_unlock(&pool->run_lock);
    return 1;
}
