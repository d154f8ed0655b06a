/* trace_read.c — streaming reader of Accel-Sim kernel traces (.traceg), tracer versions 3, 4 and 5.
 *
 * A trace is a header of `-key = value` lines, then thread blocks:
 *   #BEGIN_TB / thread block = x,y,z / (warp = N / insts = M / M instruction lines)* / #END_TB
 * An instruction line is
 *   [line_num] PC mask ndst dst... opcode nsrc src... width [mode addresses] [imm (version 5)]
 * with line_num present when the header says `-enable lineinfo = 1`; addresses (width > 0) in mode 0
 * (one hex address per active lane), 1 (hex base, decimal stride) or 2 (hex base, then a decimal delta
 * from the previous active lane's address for each further active lane).
 *
 * The reader pulls fixed-size chunks from a file descriptor (plain file, or a pipe a decompressor
 * writes), so only one buffer, the per-PC table and the blocks its caller holds are in memory. Every
 * error names file, line and what is wrong.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "trace_read.h"

#define BUF_BYTES (1u << 20)      /* also the longest line accepted */
/* PCs index a dense map (pc >> pc_shift -> instruction): past 256 MiB of code (far beyond any kernel's SASS)
 * a PC is refused, which bounds the map to 128 MiB (a PC of 0xffffffff made a 2 GiB map and took minutes) */
#define MAX_PC (1ull << 28)

static int fail(gs_trace *t, const char *fmt, ...) {
    if (t->failed) return -1;
    t->failed = 1;
    int n = snprintf(t->err, sizeof t->err, "%s:%llu: ", t->name, (unsigned long long)t->line);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof t->err) vsnprintf(t->err + n, sizeof t->err - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* next line (without its newline) into *s, *n: 1, 0 at end of input, -1 on error */
static int next_line(gs_trace *t, const char **s, size_t *n) {
    for (;;) {
        char *b = t->buf + t->lo;
        char *nl = t->hi > t->lo ? memchr(b, '\n', t->hi - t->lo) : NULL;
        if (nl || (t->eof && t->hi > t->lo)) {
            size_t len = nl ? (size_t)(nl - b) : t->hi - t->lo;
            t->lo += len + (nl ? 1 : 0);
            if (len && b[len - 1] == '\r') len--;
            t->line++;
            *s = b;
            *n = len;
            return 1;
        }
        if (t->eof) return 0;
        if (t->lo) {
            memmove(t->buf, t->buf + t->lo, t->hi - t->lo);
            t->hi -= t->lo;
            t->lo = 0;
        }
        if (t->hi == t->cap) {
            t->line++;
            return fail(t, "line longer than %u bytes", BUF_BYTES);
        }
        ssize_t r = read(t->fd, t->buf + t->hi, t->cap - t->hi);
        if (r < 0) {
            if (errno == EINTR) continue;
            return fail(t, "read error: %s", strerror(errno));
        }
        if (r == 0) t->eof = 1;
        else t->hi += (size_t)r;
    }
}

/* ---- tokens ---- */
typedef struct { const char *p, *e; } cur;

static inline void skip_ws(cur *c) { while (c->p < c->e && (*c->p == ' ' || *c->p == '\t')) c->p++; }

static inline int token(cur *c, const char **s, size_t *n) {
    skip_ws(c);
    const char *b = c->p;
    while (c->p < c->e && *c->p != ' ' && *c->p != '\t') c->p++;
    *s = b;
    *n = (size_t)(c->p - b);
    return *n > 0;
}

static int hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* hex digit value + 1 (0: not a hex digit) */
static const uint8_t HEX1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};

static inline int is_delim(const cur *c, const char *p) { return p == c->e || *p == ' ' || *p == '\t'; }

/* a hex number (optional 0x) of at most `digits` digits; -1 with an error naming `what` */
static int get_hex(gs_trace *t, cur *c, uint64_t *v, unsigned digits, const char *what) {
    const char *s;
    size_t n;
    if (!token(c, &s, &n)) return fail(t, "missing %s", what);
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { s += 2; n -= 2; }
    while (n > digits && *s == '0') { s++; n--; }
    if (n == 0 || n > digits) return fail(t, "bad %s '%.*s' (at most %u hex digits)", what, (int)(n > 40 ? 40 : n), s, digits);
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        int h = hexval(s[i]);
        if (h < 0) return fail(t, "bad hex in %s: '%.*s'", what, (int)(n > 40 ? 40 : n), s);
        x = x << 4 | (uint64_t)h;
    }
    *v = x;
    return 0;
}

/* a decimal integer within [lo, hi] */
static int get_dec(gs_trace *t, cur *c, int64_t *v, int64_t lo, int64_t hi, const char *what) {
    const char *s;
    size_t n;
    if (!token(c, &s, &n)) return fail(t, "missing %s", what);
    size_t i = 0;
    int neg = 0;
    if (s[0] == '-' || s[0] == '+') { neg = s[0] == '-'; i = 1; }
    if (i == n || n - i > 19) return fail(t, "bad %s '%.*s'", what, (int)(n > 40 ? 40 : n), s);
    uint64_t x = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return fail(t, "bad %s '%.*s' (not a decimal number)", what, (int)(n > 40 ? 40 : n), s);
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    if (x > (uint64_t)INT64_MAX) return fail(t, "%s '%.*s' out of range", what, (int)n, s);
    int64_t y = neg ? -(int64_t)x : (int64_t)x;
    if (y < lo || y > hi) return fail(t, "%s = %lld out of range [%lld, %lld]", what, (long long)y, (long long)lo, (long long)hi);
    *v = y;
    return 0;
}

/* The common forms of get_hex and get_dec without their checks' overhead: a token of at most `digits`
 * hex digits (optional 0x) / of at most 18 decimal digits (optional '-'), within [lo, hi]. Anything else
 * (an error, leading zeros beyond `digits`, a '+') goes to get_hex / get_dec, so the results and the
 * error messages are theirs. */
static inline int fast_hex(gs_trace *t, cur *c, uint64_t *v, unsigned digits, const char *what) {
    skip_ws(c);
    const char *p = c->p;
    if (c->e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    const char *s = p;
    uint64_t x = 0;
    unsigned h;
    while (p < c->e && (h = HEX1[(uint8_t)*p]) != 0 && (unsigned)(p - s) < digits) { x = x << 4 | (h - 1); p++; }
    if (p > s && is_delim(c, p)) { c->p = p; *v = x; return 0; }
    return get_hex(t, c, v, digits, what);
}

static inline int fast_dec(gs_trace *t, cur *c, int64_t *v, int64_t lo, int64_t hi, const char *what) {
    skip_ws(c);
    const char *p = c->p;
    int neg = p < c->e && *p == '-';
    p += neg;
    const char *s = p;
    int64_t x = 0;
    while (p < c->e && (unsigned)(*p - '0') < 10 && p - s < 18) { x = x * 10 + (*p - '0'); p++; }
    if (neg) x = -x;
    if (p > s && is_delim(c, p) && x >= lo && x <= hi) { c->p = p; *v = x; return 0; }
    return get_dec(t, c, v, lo, hi, what);
}

/* "key = value" lines: value after '=' (NULL if none) */
static const char *after_eq(const char *s, size_t n, size_t *vn) {
    const char *eq = memchr(s, '=', n);
    if (!eq) return NULL;
    const char *v = eq + 1, *e = s + n;
    while (v < e && (*v == ' ' || *v == '\t')) v++;
    while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
    *vn = (size_t)(e - v);
    return v;
}

static int starts(const char *s, size_t n, const char *p) {
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0;
}

/* ---- header ---- */
enum { H_NAME, H_ID, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_BINARY, H_STREAM, H_SHBASE, H_LOBASE, H_NVBIT,
       H_TRACER, H_LINEINFO, H__COUNT };
static const char *const HKEYS[H__COUNT] = {"kernel name", "kernel id", "grid dim", "block dim", "shmem",
    "nregs", "binary version", "cuda stream id", "shmem base_addr", "local mem base_addr", "nvbit version",
    "accelsim tracer version", "enable lineinfo"};

static int parse_dim3(gs_trace *t, const char *v, size_t n, uint32_t d[3], const char *what) {
    char tmp[96];
    if (n >= sizeof tmp) return fail(t, "bad %s '%.*s'", what, 40, v);
    memcpy(tmp, v, n);
    tmp[n] = 0;
    long long a, b, c;
    char tail;
    if (sscanf(tmp, " ( %lld , %lld , %lld ) %c", &a, &b, &c, &tail) != 3 || a < 1 || b < 1 || c < 1 ||
        a > 0x7fffffffLL || b > 65535 || c > 65535)
        return fail(t, "bad %s '%s' (expected (x,y,z) of positive sizes)", what, tmp);
    d[0] = (uint32_t)a; d[1] = (uint32_t)b; d[2] = (uint32_t)c;
    return 0;
}

static int header_value(gs_trace *t, int key, const char *v, size_t n) {
    gs_trace_header *h = &t->hdr;
    cur c = {v, v + n};
    int64_t x;
    uint64_t u;
    switch (key) {
    case H_NAME:
        if (n >= sizeof h->kernel_name) n = sizeof h->kernel_name - 1;
        memcpy(h->kernel_name, v, n);
        h->kernel_name[n] = 0;
        return 0;
    case H_NVBIT:
        if (n >= sizeof h->nvbit_version) n = sizeof h->nvbit_version - 1;
        memcpy(h->nvbit_version, v, n);
        h->nvbit_version[n] = 0;
        return 0;
    case H_GRID: return parse_dim3(t, v, n, h->grid, "-grid dim");
    case H_BLOCK: return parse_dim3(t, v, n, h->block, "-block dim");
    case H_SHBASE: if (get_hex(t, &c, &u, 16, "-shmem base_addr")) return -1; h->shmem_base = u; break;
    case H_LOBASE: if (get_hex(t, &c, &u, 16, "-local mem base_addr")) return -1; h->local_base = u; break;
    case H_STREAM: if (get_dec(t, &c, &x, 0, INT64_MAX, "-cuda stream id")) return -1; h->cuda_stream_id = (uint64_t)x; break;
    default: {
        static const int64_t HI[H__COUNT] = {[H_ID] = 0xffffffffLL, [H_SHMEM] = 1 << 30, [H_NREGS] = 255,
                                             [H_BINARY] = 1000, [H_TRACER] = 1000, [H_LINEINFO] = 1};
        if (get_dec(t, &c, &x, 0, HI[key], HKEYS[key])) return -1;
        uint32_t *f[H__COUNT] = {[H_ID] = &h->kernel_id, [H_SHMEM] = &h->shmem, [H_NREGS] = &h->nregs,
                                 [H_BINARY] = &h->binary_version, [H_TRACER] = &h->tracer_version,
                                 [H_LINEINFO] = &h->lineinfo};
        *f[key] = (uint32_t)x;
        if (key == H_TRACER && (x < 3 || x > 5))
            return fail(t, "unsupported accelsim tracer version %u (supported: 3, 4, 5)", (unsigned)x);
    }
    }
    const char *s;
    size_t k;
    if (token(&c, &s, &k)) return fail(t, "unexpected '%.*s' after the value of -%s", (int)(k > 40 ? 40 : k), s, HKEYS[key]);
    return 0;
}

static int parse_header(gs_trace *t) {
    const char *s;
    size_t n;
    int r;
    while ((r = next_line(t, &s, &n)) == 1) {
        cur c = {s, s + n};
        skip_ws(&c);
        if (c.p == c.e) continue;
        if (*c.p == '#') {
            if (starts(c.p, (size_t)(c.e - c.p), "#BEGIN_TB")) { t->in_tb = 1; break; }
            continue;                                  /* the "#traces format" comment */
        }
        if (*c.p != '-') return fail(t, "expected a header line '-key = value' or #BEGIN_TB, found '%.*s'", (int)(n > 60 ? 60 : n), s);
        size_t vn = 0;
        const char *v = after_eq(c.p, (size_t)(c.e - c.p), &vn);
        if (!v) return fail(t, "header line without '=': '%.*s'", (int)(n > 60 ? 60 : n), s);
        const char *k0 = c.p + 1, *k1 = memchr(c.p, '=', (size_t)(c.e - c.p));
        while (k1 > k0 && (k1[-1] == ' ' || k1[-1] == '\t')) k1--;
        int key = -1;
        for (int i = 0; i < H__COUNT; i++)
            if ((size_t)(k1 - k0) == strlen(HKEYS[i]) && memcmp(k0, HKEYS[i], (size_t)(k1 - k0)) == 0) key = i;
        if (key < 0) continue;                          /* keys of later tracers: ignored */
        if (header_value(t, key, v, vn)) return -1;
        t->hdr.seen |= 1u << key;
    }
    if (r < 0) return -1;
    const int need[] = {H_GRID, H_BLOCK, H_BINARY, H_TRACER};
    for (unsigned i = 0; i < sizeof need / sizeof *need; i++)
        if (!(t->hdr.seen & (1u << need[i]))) return fail(t, "header has no '-%s' line", HKEYS[need[i]]);
    uint32_t v = t->hdr.tracer_version;
    if (v < 3 || v > 5) return fail(t, "unsupported accelsim tracer version %u (supported: 3, 4, 5)", v);
    if (!(t->hdr.seen & (1u << H_NREGS))) t->hdr.nregs = 32;
    return 0;
}

/* ---- the per-PC table ---- */
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

/* register token -> slot (R: 0..255, UR: 256..), predicate (P/UP) -> -2 - index, RZ/URZ/PT -> -1 */
static int reg_slot(gs_trace *t, const char *s, size_t n, int *slot) {
    int ur = 0, pred = 0;
    const char *p = s;
    if (n >= 2 && p[0] == 'U' && p[1] == 'R') { ur = 1; p += 2; }
    else if (n >= 2 && p[0] == 'U' && p[1] == 'P') { pred = 2; p += 2; }
    else if (n >= 1 && p[0] == 'R') p += 1;
    else if (n >= 1 && p[0] == 'P') { pred = 1; p += 1; }
    else return fail(t, "bad register '%.*s'", (int)(n > 20 ? 20 : n), s);
    size_t k = (size_t)(s + n - p);
    if (k == 1 && *p == 'Z' && !pred) { *slot = -1; return 0; }
    if (k == 1 && *p == 'T' && pred) { *slot = -1; return 0; }
    if (k == 0 || k > 3) return fail(t, "bad register '%.*s'", (int)(n > 20 ? 20 : n), s);
    int v = 0;
    for (size_t i = 0; i < k; i++) {
        if (p[i] < '0' || p[i] > '9') return fail(t, "bad register '%.*s'", (int)(n > 20 ? 20 : n), s);
        v = v * 10 + (p[i] - '0');
    }
    if (pred) {
        if (v > 7) return fail(t, "bad predicate register '%.*s'", (int)n, s);
        *slot = -2 - (v + (pred == 2 ? 8 : 0));
        return 0;
    }
    if (ur) {
        if (v >= GS_TR_URSLOTS) return fail(t, "bad uniform register '%.*s'", (int)n, s);
        *slot = (v == 63) ? -1 : GS_TR_RSLOTS + v;      /* URZ */
        return 0;
    }
    if (v > 255) return fail(t, "bad register '%.*s'", (int)n, s);
    *slot = v == 255 ? -1 : v;
    return 0;
}

static int grow_slow(void **p, size_t *cap, size_t need, size_t elem) {
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static inline int grow(void **p, size_t *cap, size_t need, size_t elem) {
    return need <= *cap ? 0 : grow_slow(p, cap, need, elem);
}

typedef struct {
    const char *op; size_t opn;
    int dst[8], src[8];
    uint32_t ndst, nsrc, width;
} parsed;

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
static int new_pc(gs_trace *t, uint64_t pc, const parsed *q) {
    uint32_t i = t->prog.ninsts;
    size_t cap = t->cap_x;
    if (cap <= i) {
        size_t c1 = cap, c2 = cap;
        if (grow((void **)&t->prog.x, &c1, (size_t)i + 1, sizeof *t->prog.x) ||
            grow((void **)&t->pcs, &c2, (size_t)i + 1, sizeof *t->pcs))
            return fail(t, "out of memory for the instruction table");
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
            return fail(t, "unknown opcode '%.*s' for binary version %u (not in the SASS table; "
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
    if (!regs) return fail(t, "out of memory");
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
    if (!p->text) return fail(t, "out of memory");
    t->prog.ninsts = i + 1;
    return 0;
}

static int lookup_pc(gs_trace *t, uint64_t pc, const parsed *q, uint32_t *idx) {
    uint64_t key = pc >> t->pc_shift;
    if (pc >= MAX_PC) return fail(t, "PC 0x%llx beyond 256 MiB of code", (unsigned long long)pc);
    if (key >= t->pcmap_len) {
        size_t n = t->pcmap_len ? t->pcmap_len : 1024;
        while (n <= key) n *= 2;
        int32_t *m = realloc(t->pcmap, n * sizeof *m);
        if (!m) return fail(t, "out of memory for the PC map");
        memset(m + t->pcmap_len, 0, (n - t->pcmap_len) * sizeof *m);
        t->pcmap = m;
        t->pcmap_len = n;
    }
    int32_t e = t->pcmap[key];
    if (e == 0) {
        if (new_pc(t, pc, q)) return -1;
        t->pcmap[key] = (int32_t)t->prog.ninsts;
        e = (int32_t)t->prog.ninsts;
    } else {
        const char *txt = t->pcs[e - 1].text;
        size_t k = 0;
        while (txt[k] && txt[k] != ' ') k++;
        if (t->pcs[e - 1].pc != pc || k != q->opn || memcmp(txt, q->op, k) != 0)
            return fail(t, "PC 0x%llx is '%.*s' here but was '%.*s' earlier", (unsigned long long)pc, (int)(q->opn > 40 ? 40 : q->opn),
                        q->op, (int)(k > 40 ? 40 : k), txt);
    }
    *idx = (uint32_t)e - 1;
    return 0;
}

/* one instruction line into block b, warp w */
static int parse_inst(gs_trace *t, gs_trblock *b, const char *s, size_t n) {
    cur c = {s, s + n};
    int64_t v;
    uint64_t pc, mask;
    parsed q;                                        /* (dst/src beyond ndst/nsrc are never read) */
    q.op = NULL;
    q.opn = 0;
    q.ndst = q.nsrc = q.width = 0;
    if (t->hdr.lineinfo && fast_dec(t, &c, &v, 0, INT64_MAX, "line number")) return -1;
    if (fast_hex(t, &c, &pc, 16, "PC")) return -1;
    skip_ws(&c);
    if (c.e - c.p >= 8 && memcmp(c.p, "ffffffff", 8) == 0 && is_delim(&c, c.p + 8)) {
        mask = 0xffffffffu;                          /* the common full mask */
        c.p += 8;
    } else if (fast_hex(t, &c, &mask, 8, "active mask")) return -1;
    const char *tk;
    size_t tn;
    uint32_t idx = 0;
    uint64_t key = pc >> t->pc_shift;
    int32_t known = pc < MAX_PC && key < t->pcmap_len ? t->pcmap[key] : 0;
    const gs_trpc *kp = known > 0 ? &t->pcs[known - 1] : NULL;
    const char *tail = c.p;                          /* after the mask: registers, opcode and width */
    if (kp && kp->pc == pc && kp->tail && (size_t)(c.e - c.p) >= kp->tail_len &&
        memcmp(c.p, kp->tail, kp->tail_len) == 0 && is_delim(&c, c.p + kp->tail_len)) {
        /* the same bytes as this PC's first line: the same registers, opcode and width */
        c.p += kp->tail_len;
        q.width = kp->tail_width;
        idx = (uint32_t)known - 1;
    } else if (kp && kp->pc == pc) {
        /* a PC seen before: its registers were checked then; count the tokens and check the opcode */
        const char *txt = t->pcs[known - 1].text;
        if (get_dec(t, &c, &v, 0, 8, "destination count")) return -1;
        for (int64_t k = 0; k < v; k++)
            if (!token(&c, &tk, &tn)) return fail(t, "missing destination register %lld of %lld", (long long)k + 1, (long long)v);
        if (!token(&c, &q.op, &q.opn)) return fail(t, "missing opcode");
        size_t k = 0;
        while (txt[k] && txt[k] != ' ') k++;
        if (k != q.opn || memcmp(txt, q.op, k) != 0)
            return fail(t, "PC 0x%llx is '%.*s' here but was '%.*s' earlier", (unsigned long long)pc,
                        (int)(q.opn > 40 ? 40 : q.opn), q.op, (int)(k > 40 ? 40 : k), txt);
        if (get_dec(t, &c, &v, 0, 8, "source count")) return -1;
        for (int64_t j = 0; j < v; j++)
            if (!token(&c, &tk, &tn)) return fail(t, "missing source register %lld of %lld", (long long)j + 1, (long long)v);
        if (get_dec(t, &c, &v, 0, 1024, "memory width")) return -1;
        q.width = (uint32_t)v;
        idx = (uint32_t)known - 1;
    } else {
        if (get_dec(t, &c, &v, 0, 8, "destination count")) return -1;
        q.ndst = (uint32_t)v;
        for (uint32_t k = 0; k < q.ndst; k++) {
            if (!token(&c, &tk, &tn)) return fail(t, "missing destination register %u of %u", k + 1, q.ndst);
            if (reg_slot(t, tk, tn, &q.dst[k])) return -1;
        }
        if (!token(&c, &q.op, &q.opn)) return fail(t, "missing opcode");
        if (q.op[0] < 'A' || q.op[0] > 'Z') return fail(t, "bad opcode '%.*s'", (int)(q.opn > 40 ? 40 : q.opn), q.op);
        if (get_dec(t, &c, &v, 0, 8, "source count")) return -1;
        q.nsrc = (uint32_t)v;
        for (uint32_t k = 0; k < q.nsrc; k++) {
            if (!token(&c, &tk, &tn)) return fail(t, "missing source register %u of %u", k + 1, q.nsrc);
            if (reg_slot(t, tk, tn, &q.src[k])) return -1;
        }
        if (get_dec(t, &c, &v, 0, 1024, "memory width")) return -1;
        q.width = (uint32_t)v;
        if (lookup_pc(t, pc, &q, &idx)) return -1;
    }
    gs_trpc *ip = &t->pcs[idx];
    if (!ip->tail && c.p - tail < 65536) {            /* this PC's first line: keep its tail */
        size_t len = (size_t)(c.p - tail);
        ip->tail = malloc(len + 1);
        if (!ip->tail) return fail(t, "out of memory");
        memcpy(ip->tail, tail, len);
        ip->tail[len] = 0;
        ip->tail_len = (uint16_t)len;
        ip->tail_width = (uint16_t)q.width;
    }
    if (grow((void **)&b->recs, &b->cap_recs, b->nrecs + 1, sizeof *b->recs)) return fail(t, "out of memory");
    gs_trrec *r = &b->recs[b->nrecs];
    r->idx = idx;
    r->mask = (uint32_t)mask;
    r->aoff = UINT64_MAX;
    if (q.width) {
        uint32_t m = (uint32_t)mask, na = (uint32_t)__builtin_popcount(m);
        int64_t mode;
        if (fast_dec(t, &c, &mode, 0, 2, "address compression mode")) return -1;
        uint32_t words = mode == 1 ? 2 : na;      /* mode 1 stays base + stride (expanded at issue) */
        if (grow((void **)&b->addrs, &b->cap_addrs, b->naddrs + words, sizeof *b->addrs)) return fail(t, "out of memory");
        uint64_t *a = b->addrs + b->naddrs;
        if (mode == 0) {
            for (uint32_t k = 0; k < na; k++)
                if (fast_hex(t, &c, &a[k], 16, "address")) return -1;
        } else if (mode == 1) {
            int64_t stride;
            if (fast_hex(t, &c, &a[0], 16, "base address")) return -1;
            if (fast_dec(t, &c, &stride, INT32_MIN, INT32_MAX, "stride")) return -1;
            a[1] = (uint64_t)stride;
        } else {
            uint64_t base;
            if (fast_hex(t, &c, &base, 16, "base address")) return -1;
            if (na) a[0] = base;
            for (uint32_t k = 1; k < na; k++) {
                int64_t d;
                if (fast_dec(t, &c, &d, INT64_MIN + 1, INT64_MAX, "address delta")) return -1;
                a[k] = a[k - 1] + (uint64_t)d;
            }
        }
        r->aoff = b->naddrs | (mode == 1 ? GS_TR_AFFINE : 0);
        b->naddrs += words;
    }
    if (t->hdr.tracer_version >= 5 && token(&c, &tk, &tn)) {
        /* the immediate operand (tracer 5): timing does not need its value, but it must be a number */
        cur ci = {tk, tk + tn};
        uint64_t imm;
        int64_t dv;
        if (tn > 2 && tk[0] == '0' && (tk[1] == 'x' || tk[1] == 'X')) { if (get_hex(t, &ci, &imm, 16, "immediate")) return -1; }
        else if (get_dec(t, &ci, &dv, INT64_MIN + 1, INT64_MAX, "immediate")) return -1;
    }
    if (token(&c, &tk, &tn)) return fail(t, "unexpected '%.*s' at the end of the instruction line", (int)(tn > 40 ? 40 : tn), tk);
    b->nrecs++;
    t->insts_read++;
    if (t->pcs[idx].unknown) t->unknown_insts++;
    return 0;
}

static int close_warp(gs_trace *t, gs_trblock *b, int64_t w) {
    if (w < 0) return 0;
    gs_trwarp *tw = &b->warps[w];
    if (tw->n != tw->expected)
        return fail(t, "warp %lld of thread block (%u,%u,%u) has %u instructions, but its 'insts =' line says %u",
                    (long long)w, b->id[0], b->id[1], b->id[2], tw->n, tw->expected);
    return 0;
}

int gs_trace_read_block(gs_trace *t, gs_trblock *b) {
    if (t->failed) return -1;
    const gs_trace_header *h = &t->hdr;
    uint32_t nthreads = h->block[0] * h->block[1] * h->block[2];
    uint32_t nwarps = (nthreads + 31) / 32;
    const char *s;
    size_t n;
    int r;
    if (!t->in_tb) {
        for (;;) {
            r = next_line(t, &s, &n);
            if (r <= 0) return r;
            cur c = {s, s + n};
            skip_ws(&c);
            if (c.p == c.e) continue;
            if (starts(c.p, (size_t)(c.e - c.p), "#BEGIN_TB")) break;
            return fail(t, "expected #BEGIN_TB, found '%.*s'", (int)(n > 60 ? 60 : n), s);
        }
    }
    t->in_tb = 0;
    size_t cw = b->cap_warps;
    if (grow((void **)&b->warps, &cw, nwarps, sizeof *b->warps)) return fail(t, "out of memory");
    b->cap_warps = (uint32_t)cw;
    memset(b->warps, 0, nwarps * sizeof *b->warps);
    b->nwarps = nwarps;
    b->nrecs = b->naddrs = 0;
    b->id[0] = b->id[1] = b->id[2] = 0;
    int have_id = 0;
    int64_t w = -1;
    uint64_t start_line = t->line;
    for (;;) {
        r = next_line(t, &s, &n);
        if (r < 0) return -1;
        if (r == 0) {
            t->line++;
            return fail(t, "the file ends inside the thread block that begins on line %llu (truncated?)",
                        (unsigned long long)start_line);
        }
        cur c = {s, s + n};
        skip_ws(&c);
        size_t len = (size_t)(c.e - c.p);
        if (len == 0) continue;
        if (*c.p == '#') {
            if (starts(c.p, len, "#END_TB")) break;
            if (starts(c.p, len, "#BEGIN_TB")) return fail(t, "#BEGIN_TB inside the thread block that begins on line %llu", (unsigned long long)start_line);
            continue;
        }
        if (starts(c.p, len, "thread block")) {
            size_t vn;
            const char *v = after_eq(c.p, len, &vn);
            char tmp[96];
            long long x, y, z;
            char tail;
            if (!v || vn >= sizeof tmp) return fail(t, "bad thread block line '%.*s'", (int)(n > 60 ? 60 : n), s);
            memcpy(tmp, v, vn);
            tmp[vn] = 0;
            if (sscanf(tmp, "%lld , %lld , %lld %c", &x, &y, &z, &tail) != 3 || x < 0 || y < 0 || z < 0 ||
                (uint64_t)x >= h->grid[0] || (uint64_t)y >= h->grid[1] || (uint64_t)z >= h->grid[2])
                return fail(t, "bad thread block '%s' (grid is (%u,%u,%u))", tmp, h->grid[0], h->grid[1], h->grid[2]);
            b->id[0] = (uint32_t)x; b->id[1] = (uint32_t)y; b->id[2] = (uint32_t)z;
            have_id = 1;
            continue;
        }
        if (starts(c.p, len, "warp") && (len == 4 || c.p[4] == ' ' || c.p[4] == '=')) {
            if (!have_id) return fail(t, "'warp =' before the 'thread block =' line");
            if (close_warp(t, b, w)) return -1;
            size_t vn;
            const char *v = after_eq(c.p, len, &vn);
            cur cv = {v, v ? v + vn : NULL};
            int64_t x;
            if (!v) return fail(t, "bad warp line '%.*s'", (int)(n > 60 ? 60 : n), s);
            if (get_dec(t, &cv, &x, 0, nwarps - 1, "warp")) return -1;
            if (b->warps[x].seen) return fail(t, "warp %lld appears twice in thread block (%u,%u,%u)", (long long)x, b->id[0], b->id[1], b->id[2]);
            b->warps[x].seen = 1;
            b->warps[x].first = b->nrecs;
            b->warps[x].expected = UINT32_MAX;
            w = x;
            continue;
        }
        if (starts(c.p, len, "insts")) {
            if (w < 0) return fail(t, "'insts =' before a 'warp =' line");
            size_t vn;
            const char *v = after_eq(c.p, len, &vn);
            cur cv = {v, v ? v + vn : NULL};
            int64_t x;
            if (!v) return fail(t, "bad insts line '%.*s'", (int)(n > 60 ? 60 : n), s);
            if (get_dec(t, &cv, &x, 0, 0xfffffffeLL, "insts")) return -1;
            b->warps[w].expected = (uint32_t)x;
            continue;
        }
        if (w < 0 || b->warps[w].expected == UINT32_MAX)
            return fail(t, "instruction line before the 'warp =' and 'insts =' lines");
        if (b->warps[w].n >= b->warps[w].expected)
            return fail(t, "warp %lld has more instructions than its 'insts = %u' line says", (long long)w, b->warps[w].expected);
        if (parse_inst(t, b, c.p, len)) return -1;
        b->warps[w].n++;
    }
    if (close_warp(t, b, w)) return -1;
    for (uint32_t k = 0; k < nwarps; k++)
        if (!b->warps[k].seen)
            return fail(t, "thread block (%u,%u,%u) has no 'warp = %u' (a block of %u threads has %u warps)",
                        b->id[0], b->id[1], b->id[2], k, nthreads, nwarps);
    t->blocks_read++;
    return 1;
}

void gs_trblock_free(gs_trblock *b) {
    free(b->warps);
    free(b->recs);
    free(b->addrs);
    memset(b, 0, sizeof *b);
}

/* ---- public interface ---- */
gs_trace *gs_trace_open(int fd, const char *name, char *err, uint32_t errlen) {
    gs_trace *t = calloc(1, sizeof *t);
    if (!t) { snprintf(err, errlen, "%s: out of memory", name); return NULL; }
    t->fd = fd;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->cap = BUF_BYTES;
    t->buf = malloc(t->cap);
    if (!t->buf) { gs_trace_close(t); snprintf(err, errlen, "%s: out of memory", name); return NULL; }
    if (parse_header(t)) {
        snprintf(err, errlen, "%s", t->err);
        gs_trace_close(t);
        return NULL;
    }
    t->pc_shift = t->hdr.binary_version >= 70 ? 4 : 3;   /* 16-byte instructions from Volta, 8 before */
    const gs_trace_header *h = &t->hdr;
    t->func.entry_pc = 0;
    t->func.end_pc = 0;
    t->func.shared_bytes = h->shmem;
    t->func.nregs = 1;                                  /* no register values: trace_src.c sizes the scoreboard */
    t->func.npreds = GS_TR_PREDS;
    t->func.regs_per_thread = h->nregs ? h->nregs : 1;
    t->func.is_entry = 1;
    t->prog.funcs = &t->func;
    t->prog.nfuncs = 1;
    t->prog.const_regs = (uint64_t *)t->buf;           /* nconst = 0: never read */
    return t;
}

void gs_trace_close(gs_trace *t) {
    if (!t) return;
    gs_tsrc_free(t->prog.trace);
    for (uint32_t i = 0; i < t->prog.ninsts; i++) {
        free((void *)t->prog.x[i].wr);
        free(t->pcs[i].text);
        free(t->pcs[i].tail);
    }
    free(t->prog.x);
    free(t->pcs);
    free(t->pcmap);
    free(t->buf);
    free(t->ops);
    gs_trblock_free(&t->scratch);
    free(t);
}

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

void gs_trace_get_header(gs_trace *t, gs_trace_header *out) { *out = t->hdr; }
const char *gs_trace_error(gs_trace *t) { return t->err; }
int gs_trace_next_block(gs_trace *t) { return gs_trace_read_block(t, &t->scratch); }
uint64_t gs_trace_insts_read(gs_trace *t) { return t->insts_read; }

uint32_t gs_trace_block_warps(gs_trace *t, uint32_t *id3) {
    if (id3) memcpy(id3, t->scratch.id, sizeof t->scratch.id);
    return t->scratch.nwarps;
}

uint32_t gs_trace_warp_insts(gs_trace *t, uint32_t warp) {
    return warp < t->scratch.nwarps ? t->scratch.warps[warp].n : 0;
}

int gs_trace_get_inst(gs_trace *t, uint32_t warp, uint32_t i, gs_trace_inst *out) {
    const gs_trblock *b = &t->scratch;
    if (warp >= b->nwarps || i >= b->warps[warp].n) return -1;
    const gs_trrec *r = &b->recs[b->warps[warp].first + i];
    const gs_trpc *p = &t->pcs[r->idx];
    memset(out, 0, sizeof *out);
    out->pc = p->pc;
    out->mask = r->mask;
    out->idx = r->idx;
    out->unit = t->prog.x[r->idx].unit;
    out->kind = p->kind;
    out->space = p->space;
    if (r->aoff != UINT64_MAX) {
        out->width = p->width;
        gs_trrec_addrs(b, r, out->addrs);
    }
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
