#include "CKernels.h"

#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if defined(__APPLE__)
#include <pthread/qos.h>
#endif

// A hint to the core that this thread is spinning: it saves power and frees the sibling
// hyperthread. aarch64's `yield` is a no-op on many cores; `isb` stalls for a few dozen cycles,
// which is what a spin-wait wants (the choice Rust's `spin_loop` and others made).
#if defined(__x86_64__) || defined(__i386__)
#define OMK_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define OMK_PAUSE() __asm__ __volatile__("isb" ::: "memory")
#elif defined(__arm__)
#define OMK_PAUSE() __asm__ __volatile__("yield" ::: "memory")
#else
#define OMK_PAUSE() ((void)0)
#endif

// Apple silicon moves 128-byte lines between cores; x86 and other ARM cores 64-byte ones.
#if defined(__APPLE__) && defined(__aarch64__)
#define OMK_CACHE_LINE 128
#else
#define OMK_CACHE_LINE 64
#endif

/// How long a worker spins for the next job before it sleeps on the condition variable. An
/// inference issues one job per operator, microseconds apart, and a sleeping thread takes tens of
/// microseconds to wake; but every spin costs power (a phone's battery), so it is bounded in time.
#define OMK_SPIN_NANOSECONDS 300000
/// After this long, a spinning worker yields its CPU on every turn instead of only pausing: when the
/// machine has more runnable threads than CPUs (another process is busy), a worker that shares a
/// CPU with the caller would otherwise take half of the caller's time just to wait, and two
/// threads would run slower than one. With a CPU to itself, a yield returns at once.
#define OMK_YIELD_AFTER_NANOSECONDS 5000
/// Spins between two reads of the clock.
#define OMK_SPINS_PER_CLOCK 64
/// How the caller waits for the workers' last tasks: it spins for OMK_CALLER_SPIN_NANOSECONDS (a
/// running worker is usually microseconds from done), then yields its CPU on every turn (a worker
/// that shares the caller's CPU gets it), and after OMK_CALLER_BLOCK_NANOSECONDS it blocks until the
/// worker that finishes the last task signals. A worker still not done by then has been preempted
/// by another process on another CPU, and the caller must leave its own CPU idle rather than spin
/// on it: an idle CPU pulls the preempted worker over at once (Linux's new-idle balancing), while a
/// spinning caller keeps it waiting for the other process's time slice to end (milliseconds).
#define OMK_CALLER_SPIN_NANOSECONDS 20000
#define OMK_CALLER_BLOCK_NANOSECONDS 200000

/// The pool. Everything one thread writes while others read sits on its own cache line.
///
/// Work is handed out like pthreadpool's (XNNPACK's): each thread owns a slot holding a contiguous
/// share of the job's indices, takes them from the front of its own slot, and when that is empty
/// steals from the back of the others' slots. On a quiet machine each thread only touches its own
/// slot's cache line (a shared counter claimed per index moved one line between the cores on every
/// claim: microseconds per operator with 16 ranges), and a thread slowed down by another process
/// has its indices taken by the others instead of holding the job up for its static share.
///
/// Jobs are published by generation. A slot packs the job's generation (high 32 bits) with its
/// range's first and last+1 indices (16 bits each), so every claim is a compare-and-swap that
/// expects the generation the claimant read. The job's description (`fn`, `context`, `count`)
/// is only ever read and written atomically: a late worker may read a description the next job is
/// rewriting, but its claims then fail, because the slots were closed (given a newer generation)
/// before the description changed (the fences in `work` and `omk_pool_run` make "read a newer
/// field" imply "see the closed slots"). So a worker runs only indices of the job it read, and the
/// caller waits only for indices that were claimed, never for a worker that has not shown up.
struct omk_slot {
    alignas(OMK_CACHE_LINE) atomic_uint_fast64_t range;
    /// Slot 0's only: finished indices of the current job. A worker reads the caller's slot (to
    /// steal) just before it adds to this, and the caller waits on it: one line moves, not two.
    atomic_size_t done;
};

struct omk_worker {
    omk_pool *pool;
    size_t index;  // its slot (the caller's is 0)
};

struct omk_pool {
    // The newest job's generation, which workers wait on, and its description: one line, so a
    // worker that sees a new job has its description in the same transfer.
    alignas(OMK_CACHE_LINE) atomic_uint generation;
    _Atomic(omk_task_fn) fn;
    _Atomic(void *) context;
    atomic_size_t count;
    alignas(OMK_CACHE_LINE) atomic_int caller_waiting;  // the caller is blocked (or about to) on `finished`
    alignas(OMK_CACHE_LINE) atomic_int sleepers;  // workers blocked (or about to block) on `wake`
    atomic_int stop;
    atomic_flag busy;  // one job at a time
    alignas(OMK_CACHE_LINE) pthread_mutex_t sleep_lock;
    pthread_cond_t wake;
    pthread_cond_t finished;  // the job's last index is done
    size_t threads;  // including the caller
    size_t started;  // workers running
    pthread_t *workers;
    struct omk_worker *identities;  // workers[i] runs with identities[i] (slot i + 1)
    struct omk_slot *slots;         // one per thread, the caller's first
};

static inline uint32_t generation_of(uint64_t range) { return (uint32_t)(range >> 32); }
static inline uint32_t first_of(uint64_t range) { return (uint32_t)(range >> 16) & 0xFFFFu; }
static inline uint32_t end_of(uint64_t range) { return (uint32_t)range & 0xFFFFu; }
static inline uint64_t make_range(uint32_t generation, uint32_t first, uint32_t end) {
    return ((uint64_t)generation << 32) | ((uint64_t)first << 16) | end;
}

static inline uint64_t now_nanoseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/// Runs indices of job `generation` as thread `self`: its own slot's from the front, then the
/// others' from the back, until every slot is empty; then adds how many it ran to `done`.
static void work(omk_pool *pool, uint32_t generation, size_t self) {
    const omk_task_fn fn = atomic_load_explicit(&pool->fn, memory_order_relaxed);
    void *const context = atomic_load_explicit(&pool->context, memory_order_relaxed);
    const size_t count = atomic_load_explicit(&pool->count, memory_order_relaxed);
    // Pairs with the release fence in omk_pool_run: if a field above came from a newer job, the
    // slots below carry a newer generation and every claim fails.
    atomic_thread_fence(memory_order_acquire);
    const size_t threads = pool->threads;
    size_t ran = 0;
    atomic_uint_fast64_t *own = &pool->slots[self].range;
    uint64_t range = atomic_load_explicit(own, memory_order_relaxed);
    while (generation_of(range) == generation && first_of(range) < end_of(range)) {
        if (atomic_compare_exchange_weak_explicit(own, &range, range + (1u << 16), memory_order_acq_rel,
                                                  memory_order_relaxed)) {
            fn(context, first_of(range));
            ran++;
            range = atomic_load_explicit(own, memory_order_relaxed);
        }
    }
    for (size_t step = 1; step < threads; step++) {
        atomic_uint_fast64_t *victim = &pool->slots[(self + step) % threads].range;
        range = atomic_load_explicit(victim, memory_order_relaxed);
        while (generation_of(range) == generation && first_of(range) < end_of(range)) {
            if (atomic_compare_exchange_weak_explicit(victim, &range, range - 1, memory_order_acq_rel,
                                                      memory_order_relaxed)) {
                fn(context, end_of(range) - 1);
                ran++;
                range = atomic_load_explicit(victim, memory_order_relaxed);
            }
        }
    }
    if (ran == 0) return;
    if (atomic_fetch_add_explicit(&pool->slots[0].done, ran, memory_order_seq_cst) + ran == count && self != 0) {
        // The job's last index: the caller may have gone to sleep waiting for it. (Only the thread
        // that completes the count looks, and the job cannot change before it has: the caller
        // waits for `done` to reach `count`.)
        if (atomic_load_explicit(&pool->caller_waiting, memory_order_seq_cst)) {
            pthread_mutex_lock(&pool->sleep_lock);
            pthread_cond_signal(&pool->finished);
            pthread_mutex_unlock(&pool->sleep_lock);
        }
    }
}

/// Waits until the generation differs from `seen` or the pool stops: a bounded spin, then a
/// blocking wait. Returns the generation it saw.
static uint32_t wait_for_job(omk_pool *pool, uint32_t seen) {
    uint32_t generation = atomic_load_explicit(&pool->generation, memory_order_acquire);
    const uint64_t start = now_nanoseconds();
    int yielding = 0;
    for (unsigned spin = 1;; spin++) {
        if (generation != seen || atomic_load_explicit(&pool->stop, memory_order_relaxed)) return generation;
        if (yielding) sched_yield(); else OMK_PAUSE();
        if (spin % OMK_SPINS_PER_CLOCK == 0) {
            const uint64_t waited = now_nanoseconds() - start;
            if (waited > OMK_SPIN_NANOSECONDS) break;
            yielding = waited > OMK_YIELD_AFTER_NANOSECONDS;
        }
        generation = atomic_load_explicit(&pool->generation, memory_order_acquire);
    }
    pthread_mutex_lock(&pool->sleep_lock);
    // Announce the sleep before the last look (both sequentially consistent): either the caller
    // sees `sleepers` and broadcasts under the lock, or this look sees its new generation.
    atomic_fetch_add_explicit(&pool->sleepers, 1, memory_order_seq_cst);
    while ((generation = atomic_load_explicit(&pool->generation, memory_order_seq_cst)) == seen &&
           !atomic_load_explicit(&pool->stop, memory_order_seq_cst)) {
        pthread_cond_wait(&pool->wake, &pool->sleep_lock);
    }
    atomic_fetch_sub_explicit(&pool->sleepers, 1, memory_order_relaxed);
    pthread_mutex_unlock(&pool->sleep_lock);
    return generation;
}

static void *worker_main(void *argument) {
    const struct omk_worker *identity = argument;
    omk_pool *pool = identity->pool;
    uint32_t seen = 0;  // generation 0: no job yet
    for (;;) {
        seen = wait_for_job(pool, seen);
        if (atomic_load_explicit(&pool->stop, memory_order_acquire)) return NULL;
        work(pool, seen, identity->index);
    }
}

/// Wakes every sleeping worker (after the caller published a new generation or the stop flag).
static void wake_sleepers(omk_pool *pool) {
    if (atomic_load_explicit(&pool->sleepers, memory_order_seq_cst) == 0) return;
    pthread_mutex_lock(&pool->sleep_lock);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->sleep_lock);
}

static size_t round_to_lines(size_t bytes) { return (bytes + OMK_CACHE_LINE - 1) / OMK_CACHE_LINE * OMK_CACHE_LINE; }

omk_pool *omk_pool_create(size_t threads) {
    if (threads < 2 || threads > OMK_POOL_MAX_TASKS) return NULL;
    omk_pool *pool = aligned_alloc(OMK_CACHE_LINE, round_to_lines(sizeof(omk_pool)));
    if (pool == NULL) return NULL;
    pool->workers = calloc(threads - 1, sizeof(pthread_t));
    pool->identities = calloc(threads - 1, sizeof(struct omk_worker));
    pool->slots = aligned_alloc(OMK_CACHE_LINE, round_to_lines(threads * sizeof(struct omk_slot)));
    if (pool->workers == NULL || pool->identities == NULL || pool->slots == NULL) {
        free(pool->workers);
        free(pool->identities);
        free(pool->slots);
        free(pool);
        return NULL;
    }
    for (size_t i = 0; i < threads; i++) {
        atomic_init(&pool->slots[i].range, 0);
        atomic_init(&pool->slots[i].done, 0);
    }
    atomic_init(&pool->generation, 0);
    atomic_init(&pool->fn, NULL);
    atomic_init(&pool->context, NULL);
    atomic_init(&pool->count, 0);
    atomic_init(&pool->sleepers, 0);
    atomic_init(&pool->caller_waiting, 0);
    atomic_init(&pool->stop, 0);
    atomic_flag_clear(&pool->busy);
    pthread_mutex_init(&pool->sleep_lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->finished, NULL);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
#if defined(__APPLE__)
    // Workers run at the creating thread's quality of service, so the scheduler neither parks
    // them on efficiency cores while the caller runs on a performance core, nor the reverse.
    // (Untested: this package is built and tested on Linux.)
    qos_class_t qos = qos_class_self();
    if (qos != QOS_CLASS_UNSPECIFIED) pthread_attr_set_qos_class_np(&attributes, qos, 0);
#endif
    // Run with the workers that did start. `threads` is set before any starts: a worker reads it
    // (in `work`) only after seeing a job, which omk_pool_run publishes after this returns.
    pool->started = 0;
    for (size_t i = 0; i + 1 < threads; i++) pool->identities[i] = (struct omk_worker){pool, i + 1};
    pool->threads = threads;
    for (size_t i = 0; i + 1 < threads; i++) {
        if (pthread_create(&pool->workers[i], &attributes, worker_main, &pool->identities[i]) != 0) break;
        pool->started++;
    }
    pthread_attr_destroy(&attributes);
    pool->threads = pool->started + 1;
    return pool;
}

void omk_pool_destroy(omk_pool *pool) {
    if (pool == NULL) return;
    atomic_store_explicit(&pool->stop, 1, memory_order_seq_cst);
    pthread_mutex_lock(&pool->sleep_lock);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->sleep_lock);
    for (size_t i = 0; i < pool->started; i++) pthread_join(pool->workers[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->finished);
    pthread_mutex_destroy(&pool->sleep_lock);
    free(pool->workers);
    free(pool->identities);
    free(pool->slots);
    free(pool);
}

size_t omk_pool_threads(const omk_pool *pool) { return pool == NULL ? 1 : pool->threads; }

int omk_pool_run(omk_pool *pool, omk_task_fn fn, void *context, size_t count) {
    if (pool == NULL || count > OMK_POOL_MAX_TASKS || pool->threads < 2) return 0;
    if (atomic_flag_test_and_set_explicit(&pool->busy, memory_order_acquire)) return 0;
    const size_t threads = pool->threads;
    // Close the previous job's slots first: a late worker that read the previous generation could
    // otherwise claim an index of a refilled slot against the new job's fields (an index run
    // twice, or with the wrong function). The closing generation has nothing to claim, and the
    // job takes the next one.
    const uint32_t closing = atomic_load_explicit(&pool->generation, memory_order_relaxed) + 1;
    for (size_t t = 0; t < threads; t++) {
        atomic_store_explicit(&pool->slots[t].range, make_range(closing, 0, 0), memory_order_relaxed);
    }
    const uint32_t generation = closing + 1;
    // Pairs with the acquire fence in `work`: a worker that reads one of the fields below sees the
    // closed slots, so it cannot claim an index of an older job with them.
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&pool->fn, fn, memory_order_relaxed);
    atomic_store_explicit(&pool->context, context, memory_order_relaxed);
    atomic_store_explicit(&pool->count, count, memory_order_relaxed);
    atomic_store_explicit(&pool->slots[0].done, 0, memory_order_relaxed);
    // Thread t's share: contiguous, so each thread sweeps neighbouring data as a static split would.
    for (size_t t = 0; t < threads; t++) {
        atomic_store_explicit(&pool->slots[t].range,
                              make_range(generation, (uint32_t)(count * t / threads),
                                         (uint32_t)(count * (t + 1) / threads)),
                              memory_order_relaxed);
    }
    // Publishes all of the above to workers that see the new generation.
    atomic_store_explicit(&pool->generation, generation, memory_order_seq_cst);
    wake_sleepers(pool);
    work(pool, generation, 0);
    // Indices claimed by workers may still be running: spin, yield, then block (see
    // OMK_CALLER_SPIN_NANOSECONDS) until the worker that finishes the last one signals.
    if (atomic_load_explicit(&pool->slots[0].done, memory_order_acquire) < count) {
        const uint64_t start = now_nanoseconds();
        int yielding = 0;
        for (unsigned spin = 1; atomic_load_explicit(&pool->slots[0].done, memory_order_acquire) < count; spin++) {
            if (yielding) sched_yield(); else OMK_PAUSE();
            if (spin % OMK_SPINS_PER_CLOCK != 0) continue;
            const uint64_t waited = now_nanoseconds() - start;
            yielding = waited > OMK_CALLER_SPIN_NANOSECONDS;
            if (waited > OMK_CALLER_BLOCK_NANOSECONDS) {
                pthread_mutex_lock(&pool->sleep_lock);
                // Announce the wait before the last look (both sequentially consistent): either the
                // last index's worker sees the flag and signals under the lock, or this look sees
                // its `done`.
                atomic_store_explicit(&pool->caller_waiting, 1, memory_order_seq_cst);
                while (atomic_load_explicit(&pool->slots[0].done, memory_order_seq_cst) < count) {
                    pthread_cond_wait(&pool->finished, &pool->sleep_lock);
                }
                atomic_store_explicit(&pool->caller_waiting, 0, memory_order_relaxed);
                pthread_mutex_unlock(&pool->sleep_lock);
                break;
            }
        }
    }
    atomic_flag_clear_explicit(&pool->busy, memory_order_release);
    return 1;
}

// The pool `parallelFor` uses on this thread: set by an interpreter for the length of an invoke.
static _Thread_local omk_pool *current_pool;

omk_pool *omk_pool_current(void) { return current_pool; }

omk_pool *omk_pool_set_current(omk_pool *pool) {
    omk_pool *previous = current_pool;
    current_pool = pool;
    return previous;
}
