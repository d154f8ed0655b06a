/* icnt.h — the interconnect between an SM and the L2: an output and an input port per SM (calendars,
 * so bookings may come out of time order) and a fixed traversal latency each way.
 *
 * Contract: gs_icnt_send books the SM's output port for one sector leaving at `depart` (a write
 * carries data: a full sector; a read or atomic request a quarter of one) and returns its arrival at
 * the L2 (*t_out: when it left the port). gs_icnt_return gives the cycle an answer leaving the L2 at
 * t_l2 is in the SM: writes need no data back (only the latency), reads book the input port.
 */
#ifndef GS_ICNT_H
#define GS_ICNT_H
#include <stdint.h>
#include "simtscope.h"
#include "calendar.h"

typedef struct gs_icnt_port {
    gs_cal out, in;                    /* SM -> L2, L2 -> SM */
} gs_icnt_port;

typedef struct gs_icnt {
    uint64_t latency;                  /* cycles, each way */
    uint64_t sector_cost;              /* fixed point (1/256 cycle) per sector and port */
} gs_icnt;

void gs_icnt_init(gs_icnt *n, const gs_tconfig *c);
int gs_icnt_port_init(gs_icnt_port *p);
void gs_icnt_port_free(gs_icnt_port *p);
void gs_icnt_port_reset(gs_icnt_port *p);

static inline uint64_t gs_icnt_send(const gs_icnt *n, gs_icnt_port *p, uint64_t depart, int write, uint64_t *t_out) {
    uint64_t t = gs_cal_take(&p->out, depart, write ? n->sector_cost : n->sector_cost / 4);
    if (t_out) *t_out = t;
    return t + n->latency;
}

static inline uint64_t gs_icnt_return(const gs_icnt *n, gs_icnt_port *p, uint64_t t_l2, int write) {
    uint64_t back = t_l2 + n->latency;
    return write ? back : gs_cal_take(&p->in, back, n->sector_cost);
}

#endif
