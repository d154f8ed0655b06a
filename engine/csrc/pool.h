/* pool.h — a fixed team of threads that runs one job (a function of the thread index) at a time.
 *
 * Contract: gs_pool_run(p, fn, arg) calls fn(arg, k) once for every k in [0, n) — k = 0 on the
 * calling thread, the others on the team — and returns when all calls have returned. Calls do not
 * overlap between jobs. A waiting thread spins briefly, then sleeps (the machine may be shared).
 * Fork: a process forked from the pool's owner has none of its threads; there gs_pool_run calls only
 * fn(arg, 0) (every job of the engine takes its parts from a shared counter, so that covers it) and
 * gs_pool_destroy frees the memory without joining. */
#ifndef GS_POOL_H
#define GS_POOL_H
#include <stdint.h>

/* Memory. A team thread's stack is GS_POOL_STACK_BYTES (not the process's RLIMIT_STACK, 8 MiB by default):
 * the deepest use measured (gs_pool_stack_peak, tests/test_pool_memory.py) is far below it. glibc gives
 * every thread that allocates its own malloc arena, each reserving 64 MiB of address space; creating a
 * team caps the process's arenas at GS_POOL_ARENAS (mallopt M_ARENA_MAX) unless MALLOC_ARENA_MAX is set.
 * The team allocates only while CTA slots and queues first grow (they are reused afterwards), so sharing
 * arenas costs no measurable time (docs/reliability.md, "Memory of a timing model"). */
#define GS_POOL_STACK_BYTES (1u << 20)
#define GS_POOL_ARENAS 2

typedef void (*gs_pool_fn)(void *arg, uint32_t k);
typedef struct gs_pool gs_pool;

gs_pool *gs_pool_create(uint32_t n);       /* NULL: out of resources */
void gs_pool_run(gs_pool *p, gs_pool_fn fn, void *arg);
void gs_pool_destroy(gs_pool *p);
int gs_pool_spins(const gs_pool *p);       /* whether a waiting thread spins first (the team fits the cores) */
uint64_t gs_pool_stack_bytes(void);        /* a team thread's stack size */
uint64_t gs_pool_stack_peak(void);         /* deepest stack use of any ended team thread so far (bytes) */

#endif
