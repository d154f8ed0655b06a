/* pending.h — times not known until the end of the quantum.
 *
 * The SMs of one quantum [T, E) are simulated independently (on several threads); everything they
 * share — the interconnect beyond their own ports, the L2 slices, DRAM, global atomics — is touched
 * only afterwards, in the memory phase, SM by SM in index order and per SM in issue order (SM s's as soon
 * as it has finished the quantum and SM s - 1's memory phase has run: tsim.c mem_advance): the order
 * in which the serial engine made those calls. That is exact because nothing the SM does before E can
 * depend on the answer: an L1 miss takes at least the lookahead (half the L1 latency, the
 * interconnect, the L2 slice latency) > the quantum to come back (tsim.c checks the config).
 *
 * So during the quantum a miss is a node of this SM's log, and a time that depends on one (the load's
 * completion, an L1 sector in flight, a warp's scoreboard) is a marker GS_PEND + node index: larger
 * than any cycle, so the scoreboard treats it as "not before E". Nodes are resolved in index order
 * (every node refers only to earlier ones); a node with a write-back slot stores its value there if
 * the slot still holds its marker. Fix-ups then replace the markers left in the warps' scoreboards.
 */
#ifndef GS_PENDING_H
#define GS_PENDING_H
#include <stdint.h>

#define GS_PEND (1ull << 62)

static inline int gs_is_pend(uint64_t t) { return t >= GS_PEND; }

enum gs_pnode_kind {
    GS_PN_MISS,          /* an L1 miss (or store, atomic) to the L2: value = data back in the SM (reads), accepted (writes) */
    GS_PN_HIT,           /* an L1 hit on a sector in flight: value = max(t + add, a) */
    GS_PN_MAX,           /* value = max(a + add, b) */
    GS_PN_LEAVE,         /* value = the last departure from the SM's port of the store MISS nodes a..b
                          * (their `b` holds it once resolved): a warp may exit once its stores left */
    GS_PN_REQ,           /* a memory request's completion: value = max(t, every MISS node in a..b + 2 for a
                          * read (+ 0 for a store), every HIT node in a..b); the nodes a..b are the request's */
};

typedef struct gs_pnode {
    uint8_t kind, write, atomic, sampled;
    uint8_t lane_ops, same_ops, req;
    uint8_t pad;
    uint16_t slot;                     /* warp slot (samples) */
    uint32_t pc;                       /* (samples) */
    uint32_t bytes_w, add;
    uint64_t addr;                     /* MISS: the sector */
    uint64_t now;                      /* MISS, HIT: issue cycle (samples) */
    uint64_t t;                        /* MISS, HIT: the tag lookup's cycle */
    uint64_t a, b;                     /* HIT, MAX: operands (markers or cycles); LEAVE: node range;
                                        * a store MISS once resolved: b = departure from the SM port */
    uint64_t *wb;                      /* write the value here if it still holds this node's marker */
    uint64_t val;                      /* resolved */
} gs_pnode;

enum gs_pfix_kind { GS_FIX_REG, GS_FIX_PRED, GS_FIX_DRAIN, GS_FIX_READY, GS_FIX_ACKED, GS_FIX_CPASYNC };

typedef struct gs_pfix {
    uint16_t slot;
    uint8_t kind;
    uint8_t pad;
    uint32_t idx;
} gs_pfix;

typedef struct gs_pend {
    gs_pnode *n;
    uint32_t count, cap;
    uint32_t reads;                    /* MISS nodes that wait for data (loads, atomics): gs_tmem_pre's MSHR check */
    gs_pfix *fix;
    uint32_t nfix, capfix;
    int oom;
} gs_pend;

/* a new node (zeroed), or NULL when out of memory (the caller then has to give up the run); the log
 * grows out of line (gs_pend_grow), the rest is inline: it runs for most memory instructions */
int gs_pend_grow(gs_pend *p);
static inline gs_pnode *gs_pend_node(gs_pend *p) {
    if (p->count == p->cap && gs_pend_grow(p)) return NULL;
    gs_pnode *n = &p->n[p->count++];
    *n = (gs_pnode){0};
    return n;
}
/* the log emptied (its nodes resolved, or a new launch): what a quantum's SM phase starts from */
static inline void gs_pend_clear(gs_pend *p) { p->count = p->nfix = p->reads = 0; }
static inline uint64_t gs_pend_marker(const gs_pend *p, const gs_pnode *n) { return GS_PEND + (uint64_t)(n - p->n); }
/* the value of a resolved marker, or t itself */
static inline uint64_t gs_pend_val(const gs_pend *p, uint64_t t) { return gs_is_pend(t) ? p->n[t - GS_PEND].val : t; }
/* max(a + add, b) now if neither is pending, else a MAX node's marker */
uint64_t gs_pend_max_node(gs_pend *p, uint64_t a, uint32_t add, uint64_t b);
static inline uint64_t gs_pend_max(gs_pend *p, uint64_t a, uint32_t add, uint64_t b) {
    if (!gs_is_pend(a) && !gs_is_pend(b)) return a + add > b ? a + add : b;
    return gs_pend_max_node(p, a, add, b);
}
void gs_pend_fix(gs_pend *p, uint16_t slot, int kind, uint32_t idx);
void gs_pend_free(gs_pend *p);

#endif
