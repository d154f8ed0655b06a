/* trace_pcs.c — the trace's per-PC table (trace_pcs.h): a PC's first instruction line becomes its static
 * instruction — the opcode's kind, unit and state space from the SASS opcode table, a tensor
 * instruction's shape, the access width from the opcode's modifiers, the registers it writes and reads,
 * and its SASS text — and later lines of that PC look it up in the dense PC map. Also the public
 * interface's opcode table and per-PC queries.
 */
#include <stdio.h>
#include <stdlib.h>
#include "trace_lex.h"
#include "trace_pcs.h"

static const gs_trace_opinfo *find_op(gs_trace *t, const char *s, size_t n) {
    size_t lo = 0, hi = t->nops;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strncmp(t->ops[mid].name, s, n);
        if (c == 0 && t->ops[mid].name[n] != 0) c = 1;
        if (c == 0) return &t->ops[mid];
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return NULL;
}

static int has_mod(const char *op, size_t n, const char *mod) {
    size_t k = strlen(mod);
    for (size_t i = 0; i + k <= n; i++)
        if (op[i] == '.' && memcmp(op + i + 1, mod, k) == 0 && (i + 1 + k == n || op[i + 1 + k] == '.')) return 1;
    return 0;
}

static int tensor_shape(const char *op, size_t n, uint32_t *aux, uint16_t *gsop) {
    /* mma.sync shape codes of engine/ptx/decode.py SHAPES (tsm.c tensor_units) */
    *gsop = GS_OP_MMA;
    if (has_mod(op, n, "884") || has_mod(op, n, "844")) *aux = 5;
    else if (has_mod(op, n, "1688") || has_mod(op, n, "168")) *aux = 6;
    else if (has_mod(op, n, "16832")) *aux = 10;
    else *aux = 7;                                     /* m16n8k16 */
    for (size_t i = 0; i + 3 < n; i++) {               /* HGMMA.64xNxK: a warpgroup instruction */
        if (op[i] == '.' && op[i + 1] == '6' && op[i + 2] == '4' && op[i + 3] == 'x') {
            unsigned nn = 0;
            size_t j = i + 4;
            while (j < n && op[j] >= '0' && op[j] <= '9') nn = nn * 10 + (unsigned)(op[j++] - '0');
            if (nn >= 8 && nn <= 256) { *gsop = GS_OP_WGMMA_MMA; *aux = (nn / 8) << 24; }
            break;
        }
    }
    return 0;
}

static uint32_t width_from_opcode(const char *op, size_t n, uint32_t traced) {
    if (has_mod(op, n, "128")) return 16;
    if (has_mod(op, n, "64")) return 8;
    if (has_mod(op, n, "U16") || has_mod(op, n, "S16")) return 2;
    if (has_mod(op, n, "U8") || has_mod(op, n, "S8")) return 1;
    return traced;
}

static uint16_t op_of_kind(int kind) {
    switch (kind) {
    case GS_TK_LOAD: return GS_OP_LD;
    case GS_TK_STORE: return GS_OP_ST;
    case GS_TK_ATOMIC: return GS_OP_ATOM;
    case GS_TK_BARRIER: return GS_OP_BAR;
    case GS_TK_EXIT: return GS_OP_EXIT;
    case GS_TK_BRANCH: return GS_OP_BRA;
    case GS_TK_MEMBAR: return GS_OP_MEMBAR;
    case GS_TK_TENSOR: return GS_OP_MMA;
    case GS_TK_WARP: return GS_OP_SHFL;
    default: return GS_OP_NOP;
    }
}

/* a PC seen for the first time: its static instruction */
static int new_pc(gs_trace *t, uint64_t pc, const gs_trparsed *q) {
    uint32_t i = t->prog.ninsts;
    size_t cap = t->cap_x;
    if (cap <= i) {
        size_t c1 = cap, c2 = cap;
        if (gs_tr_grow((void **)&t->prog.x, &c1, (size_t)i + 1, sizeof *t->prog.x) ||
            gs_tr_grow((void **)&t->pcs, &c2, (size_t)i + 1, sizeof *t->pcs))
            return gs_tr_fail(t, "out of memory for the instruction table");
        memset(t->prog.x + cap, 0, (c1 - cap) * sizeof *t->prog.x);
        memset(t->pcs + cap, 0, (c2 - cap) * sizeof *t->pcs);
        t->cap_x = (uint32_t)(c1 < c2 ? c1 : c2);
    }
    size_t opn = q->opn;
    size_t base = 0;
    while (base < opn && q->op[base] != '.') base++;
    if (base >= sizeof t->ops[0].name) base = sizeof t->ops[0].name - 1;
    const gs_trace_opinfo *oi = find_op(t, q->op, base);
    gs_trace_opinfo generic = {.unit = GS_U_INT, .kind = GS_TK_ALU, .space = 0};
    int unknown = 0;
    if (!oi) {
        if (!(t->flags & GS_TRACE_ALLOW_UNKNOWN))
            return gs_tr_fail(t, "unknown opcode '%.*s' for binary version %u (not in the SASS table; "
                                 "--allow-unknown-opcodes times it as a generic ALU op)",
                              (int)(opn > 40 ? 40 : opn), q->op, t->hdr.binary_version);
        oi = &generic;
        unknown = 1;
        size_t have = strlen(t->unknown_names);
        char nm[32];
        snprintf(nm, sizeof nm, "%.*s", (int)base, q->op);
        int dup = 0;
        for (const char *s = t->unknown_names; (s = strstr(s, nm)) != NULL; s++)
            if ((s == t->unknown_names || s[-1] == ' ') && (s[strlen(nm)] == ' ' || s[strlen(nm)] == 0)) dup = 1;
        if (!dup && have + strlen(nm) + 2 < sizeof t->unknown_names)
            snprintf(t->unknown_names + have, sizeof t->unknown_names - have, "%s%s", have ? " " : "", nm);
    }
    int kind = oi->kind;
    int is_mem = kind == GS_TK_LOAD || kind == GS_TK_STORE || kind == GS_TK_ATOMIC;
    if (q->width && !is_mem && kind != GS_TK_TENSOR)   /* a memory access of an opcode the table calls ALU */
        kind = GS_TK_LOAD;
    gs_xinst *x = &t->prog.x[i];
    memset(x, 0, sizeof *x);
    x->op = op_of_kind(kind);
    x->unit = oi->unit;
    x->guard = -1;
    x->mem_base = -1;
    for (int k = 0; k < 4; k++) x->prd[k] = -1;
    x->pwr[0] = x->pwr[1] = -1;
    x->target = x->rpc = -1;
    if (kind == GS_TK_TENSOR) tensor_shape(q->op, opn, &x->aux, &x->op);
    uint32_t *regs = calloc(q->ndst + q->nsrc + 1, sizeof *regs);
    if (!regs) return gs_tr_fail(t, "out of memory");
    uint32_t nw = 0, nr = 0, npw = 0, npr = 0;
    for (uint32_t k = 0; k < q->ndst; k++) {
        if (q->dst[k] >= 0) regs[nw++] = (uint32_t)q->dst[k];
        else if (q->dst[k] <= -2 && npw < 2) x->pwr[npw++] = (int16_t)(-2 - q->dst[k]);
    }
    for (uint32_t k = 0; k < q->nsrc; k++) {
        if (q->src[k] >= 0) regs[nw + nr++] = (uint32_t)q->src[k];
        else if (q->src[k] <= -2 && npr < 4) x->prd[npr++] = (int16_t)(-2 - q->src[k]);
    }
    x->wr = regs;
    x->nwr = (uint16_t)nw;
    x->rd = regs + nw;
    x->nrd = (uint16_t)nr;
    x->line = i;
    gs_trpc *p = &t->pcs[i];
    p->pc = pc;
    p->kind = (uint8_t)kind;
    p->space = oi->space;
    p->width = (uint8_t)width_from_opcode(q->op, opn, q->width);
    p->unknown = (uint8_t)unknown;
    /* SASS text: OPCODE dsts, srcs */
    char text[256];
    int len = snprintf(text, sizeof text, "%.*s", (int)(opn > 120 ? 120 : opn), q->op);
    for (uint32_t k = 0; k < q->ndst + q->nsrc && len < 230; k++) {
        int r = k < q->ndst ? q->dst[k] : q->src[k - q->ndst];
        const char *sep = k == 0 ? " " : ", ";
        if (r == -1) len += snprintf(text + len, sizeof text - (size_t)len, "%sRZ", sep);
        else if (r <= -2) len += snprintf(text + len, sizeof text - (size_t)len, "%s%sP%d", sep, -2 - r >= 8 ? "U" : "", (-2 - r) % 8);
        else if (r >= GS_TR_RSLOTS) len += snprintf(text + len, sizeof text - (size_t)len, "%sUR%d", sep, r - GS_TR_RSLOTS);
        else len += snprintf(text + len, sizeof text - (size_t)len, "%sR%d", sep, r);
    }
    p->text = strdup(text);
    if (!p->text) return gs_tr_fail(t, "out of memory");
    t->prog.ninsts = i + 1;
    return 0;
}

int gs_tr_check_pc(gs_trace *t, uint32_t idx, uint64_t pc, const gs_trparsed *q) {
    const char *txt = t->pcs[idx].text;
    size_t k = 0;
    while (txt[k] && txt[k] != ' ') k++;
    if (t->pcs[idx].pc != pc || k != q->opn || memcmp(txt, q->op, k) != 0)
        return gs_tr_fail(t, "PC 0x%llx is '%.*s' here but was '%.*s' earlier", (unsigned long long)pc,
                          (int)(q->opn > 40 ? 40 : q->opn), q->op, (int)(k > 40 ? 40 : k), txt);
    return 0;
}

int gs_tr_lookup_pc(gs_trace *t, uint64_t pc, const gs_trparsed *q, uint32_t *idx) {
    uint64_t key = pc >> t->pc_shift;
    if (pc >= GS_TR_MAX_PC) return gs_tr_fail(t, "PC 0x%llx beyond 256 MiB of code", (unsigned long long)pc);
    if (key >= t->pcmap_len) {
        size_t n = t->pcmap_len ? t->pcmap_len : 1024;
        while (n <= key) n *= 2;
        int32_t *m = realloc(t->pcmap, n * sizeof *m);
        if (!m) return gs_tr_fail(t, "out of memory for the PC map");
        memset(m + t->pcmap_len, 0, (n - t->pcmap_len) * sizeof *m);
        t->pcmap = m;
        t->pcmap_len = n;
    }
    int32_t e = t->pcmap[key];
    if (e == 0) {
        if (new_pc(t, pc, q)) return -1;
        t->pcmap[key] = (int32_t)t->prog.ninsts;
        e = (int32_t)t->prog.ninsts;
    } else if (gs_tr_check_pc(t, (uint32_t)e - 1, pc, q)) {
        return -1;
    }
    *idx = (uint32_t)e - 1;
    return 0;
}

void gs_tr_pcs_free(gs_trace *t) {
    for (uint32_t i = 0; i < t->prog.ninsts; i++) {
        free((void *)t->prog.x[i].wr);
        free(t->pcs[i].text);
        free(t->pcs[i].tail);
    }
    free(t->prog.x);
    free(t->pcs);
    free(t->pcmap);
    free(t->ops);
}

/* ---- public interface: the opcode table, the PCs seen ---- */
int gs_trace_set_opcodes(gs_trace *t, const gs_trace_opinfo *ops, uint32_t nops, uint32_t flags) {
    gs_trace_opinfo *o = malloc((nops ? nops : 1) * sizeof *ops);
    if (!o) return -1;
    memcpy(o, ops, nops * sizeof *ops);
    free(t->ops);
    t->ops = o;
    t->nops = nops;
    t->flags = flags;
    return 0;
}

uint32_t gs_trace_num_pcs(gs_trace *t) { return t->prog.ninsts; }

int gs_trace_pc_info(gs_trace *t, uint32_t idx, uint64_t *pc, char *text, uint32_t len) {
    if (idx >= t->prog.ninsts) return -1;
    *pc = t->pcs[idx].pc;
    if (len) snprintf(text, len, "%s", t->pcs[idx].text);
    return 0;
}

uint64_t gs_trace_unknown(gs_trace *t, char *names, uint32_t len) {
    if (len) snprintf(names, len, "%s", t->unknown_names);
    return t->unknown_insts;
}
