/* tsm_tables.h — an SM's tables in the simulator's arena (arena.h): its warp slots, CTA slots, sub-core
 * schedulers, queues, MSHR ring, resident and done masks, interconnect port calendars (and the fetch unit's),
 * and every warp slot's scoreboards, made with the simulator and kept for its life. The L1 directories, the
 * pending logs and the CTAs' register files are not in the arena (docs/performance.md, session 7, says why).
 *
 * Contract: gs_tsm_tables(ts, sm) makes SM sm's tables (zeroed) when the simulator is made; 0, or -1 when out
 * of host memory. gs_tsm_scoreboards(ts, tw, n, np) makes sure warp slot tw's scoreboards hold n register and
 * np predicate entries (kept from launch to launch, replaced only to grow; a warp clears the entries it uses
 * when it starts, tsm.c gs_tsm_launch_cta); 0, or -1 when out of host memory. Everything is given back with
 * the arena (gs_tsim_destroy). */
#ifndef GS_TSM_TABLES_H
#define GS_TSM_TABLES_H
#include <stddef.h>

struct gs_tsim;
struct gs_tsm;
struct gs_tw;
int gs_tsm_tables(struct gs_tsim *ts, struct gs_tsm *sm);
int gs_tsm_scoreboards(struct gs_tsim *ts, struct gs_tw *tw, size_t n, size_t np);

#endif
