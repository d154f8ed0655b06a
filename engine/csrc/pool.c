/* pool.c — the simulation threads (see pool.h): a generation counter announces a job; each thread
 * counts itself done; waiting is a short spin, then a condition variable. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "pool.h"

#define SPINS 20000

struct gs_pool {
    uint32_t n;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t start_cv, done_cv;
    atomic_uint gen;                   /* job number */
    atomic_uint left;                  /* team threads still working on the job */
    int stop;
    gs_pool_fn fn;
    void *arg;
};

typedef struct { gs_pool *p; uint32_t k; } thread_arg;

static void *thread_main(void *a) {
    thread_arg ta = *(thread_arg *)a;
    free(a);
    gs_pool *p = ta.p;
    unsigned seen = 0;
    for (;;) {
        unsigned g;
        int spins = 0;
        while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen && spins < SPINS) spins++;
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen && !p->stop)
                pthread_cond_wait(&p->start_cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        if (p->stop) return NULL;
        seen = g;
        p->fn(p->arg, ta.k);
        if (atomic_fetch_sub_explicit(&p->left, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done_cv);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

gs_pool *gs_pool_create(uint32_t n) {
    gs_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = n ? n : 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    atomic_init(&p->gen, 0);
    atomic_init(&p->left, 0);
    p->th = calloc(p->n, sizeof *p->th);
    if (!p->th) { free(p); return NULL; }
    for (uint32_t k = 1; k < p->n; k++) {
        thread_arg *a = malloc(sizeof *a);
        if (!a) { p->n = k; break; }
        a->p = p;
        a->k = k;
        if (pthread_create(&p->th[k], NULL, thread_main, a)) { free(a); p->n = k; break; }
    }
    return p;
}

void gs_pool_run(gs_pool *p, gs_pool_fn fn, void *arg) {
    if (p->n == 1) { fn(arg, 0); return; }
    p->fn = fn;
    p->arg = arg;
    atomic_store_explicit(&p->left, p->n - 1, memory_order_release);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_acq_rel);
    pthread_cond_broadcast(&p->start_cv);
    pthread_mutex_unlock(&p->mu);
    fn(arg, 0);
    int spins = 0;
    while (atomic_load_explicit(&p->left, memory_order_acquire) && spins < SPINS) spins++;
    if (atomic_load_explicit(&p->left, memory_order_acquire)) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load_explicit(&p->left, memory_order_acquire)) pthread_cond_wait(&p->done_cv, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}

void gs_pool_destroy(gs_pool *p) {
    if (!p) return;
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
    free(p);
}
