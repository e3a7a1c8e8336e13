// Build and run: gcc -O2 -ISources/CKernels/include Benchmarks/pool_slow_worker.c Sources/CKernels/thread_pool.c -o out/pool_slow_worker -lpthread && out/pool_slow_worker
// One parallel loop of `units` equal units on a 2-thread omk_pool, where the worker runs at half
// speed (each unit costs it twice the arithmetic: a vCPU shared with another process). Compares
// a static split into 2 halves (the old parallelFor) with 16 ranges claimed one at a time (new).
#include "CKernels.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static pthread_t caller;
static volatile double sink;
typedef struct { size_t units, tasks; size_t ran_by_worker; } job_t;
static void unit_work(int slow) {
    double x = 1.0;
    for (int i = 0; i < (slow ? 400000 : 200000); i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}
static void task(void *context, size_t t) {
    job_t *job = context;
    size_t lo = job->units * t / job->tasks, hi = job->units * (t + 1) / job->tasks;
    int slow = !pthread_equal(pthread_self(), caller);
    if (slow) __atomic_fetch_add(&job->ran_by_worker, hi - lo, __ATOMIC_RELAXED);
    for (size_t u = lo; u < hi; u++) unit_work(slow);
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
int main(void) {
    caller = pthread_self();
    omk_pool *pool = omk_pool_create(2);
    enum { reps = 15 };
    size_t splits[] = {1, 2, 16};
    for (int s = 0; s < 3; s++) {
        double times[reps]; size_t worker = 0;
        for (int r = 0; r < reps; r++) {
            job_t job = {64, splits[s], 0};
            double t0 = now();
            if (splits[s] == 1) task(&job, 0); else omk_pool_run(pool, task, &job, splits[s]);
            times[r] = now() - t0;
            worker += job.ran_by_worker;
        }
        qsort(times, reps, sizeof(double), cmp);
        printf("%-32s median %.1f ms  (units run by the slow worker: %.1f of 64)\n",
               splits[s] == 1 ? "1 thread" : splits[s] == 2 ? "2 threads, static halves (old)" : "2 threads, 16 claimed ranges (new)",
               times[reps / 2], (double)worker / reps);
    }
    omk_pool_destroy(pool);
}
