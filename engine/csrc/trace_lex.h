/* trace_lex.h — the trace reader's lexical layer: errors that name file and line, the line reader over
 * the trace's file descriptor, a cursor over one line's tokens, and hex and decimal numbers.
 *
 * The checked number parsers (gs_tr_get_hex, gs_tr_get_dec) serve the header and the rare forms; the
 * instruction lines' hot path uses their inline fast forms, which hand anything unusual to them, so the
 * results and the error messages are the checked parsers'.
 */
#ifndef GS_TRACE_LEX_H
#define GS_TRACE_LEX_H
#include "trace_read.h"

#define GS_TR_BUF_BYTES (1u << 20)   /* the input buffer; also the longest line accepted */

/* Contract: the first error of t: "file:line: " and the message into t->err, t->failed set; returns -1
 * (later errors leave the first one). */
int gs_tr_fail(gs_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Contract: the next line (without its newline or a trailing '\r') into *s, *n, valid until the next
 * call; 1, 0 at end of input, -1 on error. Counts t->line. */
int gs_tr_next_line(gs_trace *t, const char **s, size_t *n);

/* ---- tokens: blank-separated (spaces, tabs) words of [p, e) ---- */
typedef struct { const char *p, *e; } gs_trcur;

static inline void gs_tr_skip_ws(gs_trcur *c) { while (c->p < c->e && (*c->p == ' ' || *c->p == '\t')) c->p++; }

/* the next token into *s, *n; 0 when none is left */
static inline int gs_tr_token(gs_trcur *c, const char **s, size_t *n) {
    gs_tr_skip_ws(c);
    const char *b = c->p;
    while (c->p < c->e && *c->p != ' ' && *c->p != '\t') c->p++;
    *s = b;
    *n = (size_t)(c->p - b);
    return *n > 0;
}

/* p ends a token of c's line */
static inline int gs_tr_is_delim(const gs_trcur *c, const char *p) { return p == c->e || *p == ' ' || *p == '\t'; }

/* Contract: a hex number (optional 0x) of at most `digits` digits into *v; 0, or -1 with an error naming
 * `what`. */
int gs_tr_get_hex(gs_trace *t, gs_trcur *c, uint64_t *v, unsigned digits, const char *what);
/* Contract: a decimal integer within [lo, hi] into *v; 0, or -1 with an error naming `what`. */
int gs_tr_get_dec(gs_trace *t, gs_trcur *c, int64_t *v, int64_t lo, int64_t hi, const char *what);

/* The common forms of gs_tr_get_hex and gs_tr_get_dec without their checks' overhead: a token of at most
 * `digits` hex digits (optional 0x) / of at most 18 decimal digits (optional '-'), within [lo, hi].
 * Anything else (an error, leading zeros beyond `digits`, a '+') goes to gs_tr_get_hex / gs_tr_get_dec,
 * so the results and the error messages are theirs. */
static inline int gs_tr_fast_hex(gs_trace *t, gs_trcur *c, uint64_t *v, unsigned digits, const char *what) {
    /* hex digit value + 1 (0: not a hex digit) */
    static const uint8_t HEX1[256] = {
        ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
        ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
        ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};
    gs_tr_skip_ws(c);
    const char *p = c->p;
    if (c->e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    const char *s = p;
    uint64_t x = 0;
    unsigned h;
    while (p < c->e && (h = HEX1[(uint8_t)*p]) != 0 && (unsigned)(p - s) < digits) { x = x << 4 | (h - 1); p++; }
    if (p > s && gs_tr_is_delim(c, p)) { c->p = p; *v = x; return 0; }
    return gs_tr_get_hex(t, c, v, digits, what);
}

static inline int gs_tr_fast_dec(gs_trace *t, gs_trcur *c, int64_t *v, int64_t lo, int64_t hi, const char *what) {
    gs_tr_skip_ws(c);
    const char *p = c->p;
    int neg = p < c->e && *p == '-';
    p += neg;
    const char *s = p;
    int64_t x = 0;
    while (p < c->e && (unsigned)(*p - '0') < 10 && p - s < 18) { x = x * 10 + (*p - '0'); p++; }
    if (neg) x = -x;
    if (p > s && gs_tr_is_delim(c, p) && x >= lo && x <= hi) { c->p = p; *v = x; return 0; }
    return gs_tr_get_dec(t, c, v, lo, hi, what);
}

/* "key = value" lines: the value after '=' without surrounding blanks, its length in *vn (NULL if no '=') */
const char *gs_tr_after_eq(const char *s, size_t n, size_t *vn);

/* s[0..n) begins with the string p */
static inline int gs_tr_starts(const char *s, size_t n, const char *p) {
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0;
}

#endif
