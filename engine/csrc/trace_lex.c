/* trace_lex.c — the trace reader's lexical layer (trace_lex.h): error reporting, the line reader, and
 * the checked hex and decimal number parsers.
 *
 * The line reader refills one buffer of GS_TR_BUF_BYTES from the file descriptor and hands out its lines
 * in place.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "trace_lex.h"

int gs_tr_fail(gs_trace *t, const char *fmt, ...) {
    if (t->failed) return -1;
    t->failed = 1;
    int n = snprintf(t->err, sizeof t->err, "%s:%llu: ", t->name, (unsigned long long)t->line);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof t->err) vsnprintf(t->err + n, sizeof t->err - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

int gs_tr_next_line(gs_trace *t, const char **s, size_t *n) {
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
            return gs_tr_fail(t, "line longer than %u bytes", GS_TR_BUF_BYTES);
        }
        ssize_t r = read(t->fd, t->buf + t->hi, t->cap - t->hi);
        if (r < 0) {
            if (errno == EINTR) continue;
            return gs_tr_fail(t, "read error: %s", strerror(errno));
        }
        if (r == 0) t->eof = 1;
        else t->hi += (size_t)r;
    }
}

static int hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

int gs_tr_get_hex(gs_trace *t, gs_trcur *c, uint64_t *v, unsigned digits, const char *what) {
    const char *s;
    size_t n;
    if (!gs_tr_token(c, &s, &n)) return gs_tr_fail(t, "missing %s", what);
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { s += 2; n -= 2; }
    while (n > digits && *s == '0') { s++; n--; }
    if (n == 0 || n > digits) return gs_tr_fail(t, "bad %s '%.*s' (at most %u hex digits)", what, (int)(n > 40 ? 40 : n), s, digits);
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        int h = hexval(s[i]);
        if (h < 0) return gs_tr_fail(t, "bad hex in %s: '%.*s'", what, (int)(n > 40 ? 40 : n), s);
        x = x << 4 | (uint64_t)h;
    }
    *v = x;
    return 0;
}

int gs_tr_get_dec(gs_trace *t, gs_trcur *c, int64_t *v, int64_t lo, int64_t hi, const char *what) {
    const char *s;
    size_t n;
    if (!gs_tr_token(c, &s, &n)) return gs_tr_fail(t, "missing %s", what);
    size_t i = 0;
    int neg = 0;
    if (s[0] == '-' || s[0] == '+') { neg = s[0] == '-'; i = 1; }
    if (i == n || n - i > 19) return gs_tr_fail(t, "bad %s '%.*s'", what, (int)(n > 40 ? 40 : n), s);
    uint64_t x = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return gs_tr_fail(t, "bad %s '%.*s' (not a decimal number)", what, (int)(n > 40 ? 40 : n), s);
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    if (x > (uint64_t)INT64_MAX) return gs_tr_fail(t, "%s '%.*s' out of range", what, (int)n, s);
    int64_t y = neg ? -(int64_t)x : (int64_t)x;
    if (y < lo || y > hi) return gs_tr_fail(t, "%s = %lld out of range [%lld, %lld]", what, (long long)y, (long long)lo, (long long)hi);
    *v = y;
    return 0;
}

const char *gs_tr_after_eq(const char *s, size_t n, size_t *vn) {
    const char *eq = memchr(s, '=', n);
    if (!eq) return NULL;
    const char *v = eq + 1, *e = s + n;
    while (v < e && (*v == ' ' || *v == '\t')) v++;
    while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
    *vn = (size_t)(e - v);
    return v;
}
