/* icnt.c — SM <-> L2 interconnect ports (see icnt.h). */
#include "icnt.h"

void gs_icnt_init(gs_icnt *n, const gs_tconfig *c) {
    n->latency = c->icnt_latency_cycles;
    n->sector_cost = (uint64_t)c->l1_sector_bytes * 256 / c->icnt_sm_bytes_per_cycle;
    if (!n->sector_cost) n->sector_cost = 1;
}

int gs_icnt_port_init(gs_icnt_port *p) { return gs_cal_init(&p->out) || gs_cal_init(&p->in) ? -1 : 0; }
void gs_icnt_port_free(gs_icnt_port *p) { gs_cal_free(&p->out); gs_cal_free(&p->in); }
void gs_icnt_port_reset(gs_icnt_port *p) { gs_cal_reset(&p->out); gs_cal_reset(&p->in); }
