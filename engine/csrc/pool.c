/* pool.c — the simulation threads (see pool.h): a generation counter announces a job; each thread
 * counts itself done; waiting is a short spin, then a condition variable. */
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "pool.h"

#ifndef GS_SPIN_NS
#define GS_SPIN_NS 200000
#endif
/* Waiting starts with a spin of up to GS_SPIN_NS (a simulation's quanta follow one another within tens of
 * microseconds: a thread put to sleep between two of them costs a futex wake-up, itself tens of microseconds
 * on a virtual machine, on the critical path of every quantum; resnet18_b1's small launches ran 5-15 % faster
 * at two threads with it than with a 20,000-load spin), then sleeps on a condition variable. A team larger
 * than the cores it may run on does not spin: a spinning thread would hold the core a working one needs. */
static inline uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}
/* spins while *a == v (until_zero: while *a != 0) for at most GS_SPIN_NS; returns the value last read */
static unsigned spin(atomic_uint *a, unsigned v, int until_zero, uint64_t limit_ns) {
    unsigned g;
    uint64_t t0 = 0;
    for (uint32_t i = 0;; i++) {
        g = atomic_load_explicit(a, memory_order_acquire);
        if (until_zero ? g == 0 : g != v) return g;
        relax();
        if ((i & 255) == 255) {
            uint64_t t = now_ns();
            if (!t0) t0 = t;
            if (t - t0 >= limit_ns) return g;
        }
    }
}

static atomic_ullong stack_peak;
/* forks of this process so far, counted in the child (pthread_atfork): a pool made before the last fork
 * has no threads here */
static atomic_uint forks;
static pthread_once_t fork_hook = PTHREAD_ONCE_INIT;
static void count_fork(void) { atomic_fetch_add(&forks, 1); }
static void install_fork_hook(void) { pthread_atfork(NULL, NULL, count_fork); }       /* deepest stack use of any pool thread so far (bytes) */

/* Bytes of this thread's stack that were ever written: fresh stacks are zero pages, so the lowest
 * non-zero byte marks the deepest frame (a stack reused from glibc's cache keeps its old marks, which only
 * makes this an upper bound). Called as the thread ends. */
static void note_stack_use(void) {
    pthread_attr_t a;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &a)) return;
    int bad = pthread_attr_getstack(&a, &lo, &size);
    pthread_attr_destroy(&a);
    if (bad) return;
    const unsigned char *b = lo, *end = b + size;
    while (b < end && !*b) b++;
    unsigned long long used = (unsigned long long)(end - b), cur = atomic_load(&stack_peak);
    while (used > cur && !atomic_compare_exchange_weak(&stack_peak, &cur, used)) {}
}

uint64_t gs_pool_stack_bytes(void) {
    return GS_POOL_STACK_BYTES > PTHREAD_STACK_MIN ? GS_POOL_STACK_BYTES : PTHREAD_STACK_MIN;
}

uint64_t gs_pool_stack_peak(void) { return atomic_load(&stack_peak); }

typedef struct { struct gs_pool *p; uint32_t k; } thread_arg;

struct gs_pool {
    uint32_t n;
    pthread_t *th;
    thread_arg *args;                  /* owned by the pool: a thread that frees nothing makes no arena */
    pthread_mutex_t mu;
    pthread_cond_t start_cv, done_cv;
    atomic_uint gen;                   /* job number */
    atomic_uint left;                  /* team threads still working on the job */
    int stop;
    unsigned forks;                    /* `forks` when the threads were made: a forked child has none of them */
    uint64_t spin_ns;                  /* how long a wait spins before it sleeps */
    gs_pool_fn fn;
    void *arg;
};

static void *thread_main(void *a) {
    thread_arg ta = *(thread_arg *)a;
    gs_pool *p = ta.p;
    unsigned seen = 0;
    for (;;) {
        unsigned g = spin(&p->gen, seen, 0, p->spin_ns);
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen && !p->stop)
                pthread_cond_wait(&p->start_cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        if (p->stop) { note_stack_use(); return NULL; }
        seen = g;
        p->fn(p->arg, ta.k);
        if (atomic_fetch_sub_explicit(&p->left, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done_cv);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

int gs_pool_spins(const gs_pool *p) { return p->spin_ns > 0; }

gs_pool *gs_pool_create(uint32_t n) {
    gs_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = n ? n : 1;
    cpu_set_t cs;
    p->spin_ns = sched_getaffinity(0, sizeof cs, &cs) == 0 && (uint32_t)CPU_COUNT(&cs) < p->n ? 0 : GS_SPIN_NS;
    pthread_once(&fork_hook, install_fork_hook);
    p->forks = atomic_load(&forks);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    atomic_init(&p->gen, 0);
    atomic_init(&p->left, 0);
    p->th = calloc(p->n, sizeof *p->th);
    p->args = calloc(p->n, sizeof *p->args);
    if (!p->th || !p->args) { free(p->th); free(p->args); free(p); return NULL; }
    if (p->n > 1 && !getenv("MALLOC_ARENA_MAX"))   /* see pool.h: the team allocates in shared arenas */
        mallopt(M_ARENA_MAX, GS_POOL_ARENAS);
    pthread_attr_t attr;
    int have_attr = !pthread_attr_init(&attr);
    if (have_attr && pthread_attr_setstacksize(&attr, (size_t)gs_pool_stack_bytes())) {
        pthread_attr_destroy(&attr);
        have_attr = 0;
    }
    for (uint32_t k = 1; k < p->n; k++) {
        p->args[k].p = p;
        p->args[k].k = k;
        if (pthread_create(&p->th[k], have_attr ? &attr : NULL, thread_main, &p->args[k])) { p->n = k; break; }
    }
    if (have_attr) pthread_attr_destroy(&attr);
    return p;
}

void gs_pool_run(gs_pool *p, gs_pool_fn fn, void *arg) {
    /* in a process forked from the pool's owner the team does not exist: the caller does the whole job
     * (every job takes its parts from a shared counter, so part 0 alone covers it; results are the same) */
    if (p->n == 1 || p->forks != atomic_load_explicit(&forks, memory_order_relaxed)) { fn(arg, 0); return; }
    p->fn = fn;
    p->arg = arg;
    atomic_store_explicit(&p->left, p->n - 1, memory_order_release);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_acq_rel);
    pthread_cond_broadcast(&p->start_cv);
    pthread_mutex_unlock(&p->mu);
    fn(arg, 0);
    if (spin(&p->left, 0, 1, p->spin_ns) != 0) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load_explicit(&p->left, memory_order_acquire)) pthread_cond_wait(&p->done_cv, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}

void gs_pool_destroy(gs_pool *p) {
    if (!p) return;
    if (p->forks != atomic_load(&forks)) {   /* a forked child's copy: its threads are the parent's (joining them would
                                        * join whatever thread of this process reused their descriptors), and its
                                        * lock may have been held at the fork: free the memory only */
        free(p->th);
        free(p->args);
        free(p);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_acq_rel);
    pthread_cond_broadcast(&p->start_cv);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t k = 1; k < p->n; k++) pthread_join(p->th[k], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->start_cv);
    pthread_cond_destroy(&p->done_cv);
    free(p->th);
    free(p->args);
    free(p);
}
