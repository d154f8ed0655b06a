/* pending.c — the per-SM log of deferred memory requests and values (see pending.h). */
#include <stdlib.h>
#include <string.h>
#include "pending.h"

int gs_pend_grow(gs_pend *p) {
    uint32_t cap = p->cap ? p->cap * 2 : 1024;
    gs_pnode *n = realloc(p->n, (size_t)cap * sizeof *n);
    if (!n) { p->oom = 1; return -1; }
    p->n = n;
    p->cap = cap;
    return 0;
}

uint64_t gs_pend_max_node(gs_pend *p, uint64_t a, uint32_t add, uint64_t b) {
    gs_pnode *n = gs_pend_node(p);
    if (!n) return GS_PEND - 1;                       /* the run is abandoned (p->oom) */
    n->kind = GS_PN_MAX;
    n->a = a;
    n->add = add;
    n->b = b;
    return gs_pend_marker(p, n);
}

void gs_pend_fix(gs_pend *p, uint16_t slot, int kind, uint32_t idx) {
    if (p->nfix == p->capfix) {
        uint32_t cap = p->capfix ? p->capfix * 2 : 1024;
        gs_pfix *f = realloc(p->fix, (size_t)cap * sizeof *f);
        if (!f) { p->oom = 1; return; }
        p->fix = f;
        p->capfix = cap;
    }
    p->fix[p->nfix++] = (gs_pfix){slot, (uint8_t)kind, 0, idx};
}

void gs_pend_free(gs_pend *p) {
    free(p->n);
    free(p->fix);
    memset(p, 0, sizeof *p);
}
