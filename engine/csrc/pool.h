/* pool.h — a fixed team of threads that runs one job (a function of the thread index) at a time.
 *
 * Contract: gs_pool_run(p, fn, arg) calls fn(arg, k) once for every k in [0, n) — k = 0 on the
 * calling thread, the others on the team — and returns when all calls have returned. Calls do not
 * overlap between jobs. A waiting thread spins briefly, then sleeps (the machine may be shared). */
#ifndef GS_POOL_H
#define GS_POOL_H
#include <stdint.h>

typedef void (*gs_pool_fn)(void *arg, uint32_t k);
typedef struct gs_pool gs_pool;

gs_pool *gs_pool_create(uint32_t n);       /* NULL: out of resources */
void gs_pool_run(gs_pool *p, gs_pool_fn fn, void *arg);
void gs_pool_destroy(gs_pool *p);

#endif
