/* l1.c — coalescer, shared-memory banks and fragment lookups of the L1/shared unit (see l1.h). */
#include <string.h>
#include "l1.h"

static inline void coal_new_line(gs_coal *o, uint32_t nl, uint64_t line) {
    o->lines[nl] = line; o->masks[nl] = 0;
    memset(o->lane_ops[nl], 0, 8); memset(o->same_ops[nl], 0, 8); memset(o->bytes_w[nl], 0, sizeof o->bytes_w[nl]);
}

/* A full warp of plain accesses at a0 + l d (lane l), each of a power-of-two size <= the sector, aligned to
 * it: lanes side by side (d = size) or each on a line of its own (|d| >= the line). What gs_coalesce's lane
 * loop gives, sector by sector (contiguous) or lane by lane without a search (lines distinct and in lane
 * order). Returns 0 (nothing written) when the warp is not such an access. */
static int coalesce_affine(gs_coal *o, const uint64_t *lane_addr, uint32_t size, uint32_t line_shift, uint32_t sector_shift) {
    const uint64_t lb = 1ull << line_shift, sb = 1ull << sector_shift;
    uint64_t a0 = lane_addr[0], d = lane_addr[1] - a0;
    if ((size & (size - 1)) || size > sb || ((a0 | d) & (size - 1))) return 0;
    int same = 1;
    for (int l = 2; l < 32; l++) same &= lane_addr[l] == a0 + (uint64_t)l * d;   /* (vectorised) */
    if (!same) return 0;
    uint32_t nl = 0;
    if (d == size) {
        uint64_t end = a0 + 32ull * size;
        if (end < a0) return 0;                                 /* wraps the address space: the lane loop */
        for (uint64_t s = a0 & ~(sb - 1); s < end; s += sb) {
            uint64_t line = s >> line_shift;
            uint32_t sec = (uint32_t)((s & (lb - 1)) >> sector_shift);
            if (!nl || o->lines[nl - 1] != line) coal_new_line(o, nl++, line);
            uint32_t i = nl - 1;
            uint64_t lo = a0 > s ? a0 : s, hi = end < s + sb ? end : s + sb;
            o->masks[i] |= (uint8_t)(1u << sec);
            o->lane_ops[i][sec] = (uint8_t)((hi - lo) / size);
            o->bytes_w[i][sec] = (uint32_t)((hi - lo >= 32 ? 0xffffffffull : ((1ull << (hi - lo)) - 1)) << (lo - s));
        }
    } else if ((((int64_t)d < 0 ? -d : d) >= lb) && (((int64_t)d < 0 ? -d : d) < (1ull << 58))) {
        uint32_t bw = size >= 32 ? 0xffffffffu : (uint32_t)((1ull << size) - 1);
        for (int l = 0; l < 32; l++) {
            uint64_t a = a0 + (uint64_t)l * d;
            uint32_t sec = (uint32_t)((a & (lb - 1)) >> sector_shift);
            coal_new_line(o, nl, a >> line_shift);
            o->masks[nl] = (uint8_t)(1u << sec);
            o->lane_ops[nl][sec] = 1;
            o->bytes_w[nl][sec] = bw << (a & (sb - 1));
            nl++;
        }
    } else
        return 0;
    o->nl = nl;
    return 1;
}

/* the index of `line` among o's first nl lines (hint first), or nl after adding it */
static inline uint32_t coal_line(gs_coal *o, uint32_t *nl, uint64_t line, uint32_t hint) {
    uint32_t i = hint;
    if (i < *nl && o->lines[i] == line) return i;
    for (i = 0; i < *nl; i++)
        if (o->lines[i] == line) return i;
    coal_new_line(o, (*nl)++, line);
    return i;
}

/* Plain lanes (the mask any, each lane's access of a power-of-two size <= the sector, aligned to it) in runs:
 * active lanes side by side at consecutive addresses (step = size, as a warp's row of an image with its edge
 * lanes off) or all at one address (step 0, a broadcast), each run's sectors at once. The lane loop's answer:
 * the lines in the order lanes first touch them (a run's addresses ascend), per sector the lanes and bytes
 * summed; at most 32 lanes of one sector each, so no count saturates and no line is dropped. Returns 0 when
 * some active lane is not aligned (nothing written) or a run wraps the address space (the lane loop starts over). */
static int coalesce_runs(gs_coal *o, const uint64_t *la, uint32_t mask, uint32_t size, uint32_t line_shift,
                         uint32_t sector_shift) {
    const uint64_t lb = 1ull << line_shift, sb = 1ull << sector_shift;
    uint32_t unal = 0, step = 0, same = 0;
    for (int l = 0; l < 32; l++) unal |= (uint32_t)((la[l] & (size - 1)) != 0) << l;   /* (vectorised) */
    if (unal & mask) return 0;
    for (int l = 0; l < 31; l++) {
        uint64_t d = la[l + 1] - la[l];
        step |= (uint32_t)(d == size) << l;
        same |= (uint32_t)(d == 0) << l;
    }
    const uint32_t pair = mask & (mask >> 1);              /* bit l: lanes l and l + 1 both active */
    step &= pair;
    same &= pair;
    const uint32_t bw = size >= 32 ? 0xffffffffu : (uint32_t)((1ull << size) - 1);
    uint32_t nl = 0, hint = 0;
    for (uint32_t m = mask; m;) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        const int bcast = !((step >> l) & 1) && ((same >> l) & 1);   /* a run on one address (else side by side) */
        uint32_t link = bcast ? same : step;
        uint32_t len = (link >> l) & 1 ? (uint32_t)__builtin_ctz(~(link >> l)) + 1 : 1;   /* lanes l .. l + len - 1 */
        m = l + len >= 32 ? 0 : m & ~((2u << (l + len - 1)) - 1);
        uint64_t a = la[l];
        if (bcast) {                                       /* len lanes on one address */
            uint64_t line = a >> line_shift;
            uint32_t sec = (uint32_t)((a & (lb - 1)) >> sector_shift), i = coal_line(o, &nl, line, hint);
            hint = i;
            o->masks[i] |= (uint8_t)(1u << sec);
            o->lane_ops[i][sec] = (uint8_t)(o->lane_ops[i][sec] + len);
            o->bytes_w[i][sec] |= bw << (a & (sb - 1));
            continue;
        }
        uint64_t end = a + (uint64_t)len * size;
        if (end < a) return 0;
        for (uint64_t s = a & ~(sb - 1); s < end; s += sb) {
            uint32_t sec = (uint32_t)((s & (lb - 1)) >> sector_shift), i = coal_line(o, &nl, s >> line_shift, hint);
            hint = i;
            uint64_t lo = a > s ? a : s, hi = end < s + sb ? end : s + sb;
            o->masks[i] |= (uint8_t)(1u << sec);
            o->lane_ops[i][sec] = (uint8_t)(o->lane_ops[i][sec] + (hi - lo) / size);
            o->bytes_w[i][sec] |= (uint32_t)((hi - lo >= 32 ? 0xffffffffull : ((1ull << (hi - lo)) - 1)) << (lo - s));
        }
    }
    o->nl = nl;
    return 1;
}

void gs_coalesce(gs_coal *o, const uint64_t *lane_addr, uint32_t mask, const uint64_t *ext, uint32_t n,
                 uint32_t size, uint32_t line_shift, uint32_t sector_shift, int atomic) {
    const uint32_t lb = 1u << line_shift, sb = 1u << sector_shift;
    if (!ext && !atomic && mask == 0xffffffffu && n == 32 && size && sb <= 32 &&
        coalesce_affine(o, lane_addr, size, line_shift, sector_shift))
        return;
    if (!ext && !atomic && mask && size && !(size & (size - 1)) && size <= sb && sb <= 32 &&
        coalesce_runs(o, lane_addr, mask, size, line_shift, sector_shift))
        return;
    uint32_t nl = 0, mm = mask, hint = 0;
    /* a fragment access (ext: up to 1024 addresses over up to GS_COAL_MAX lines) finds its lines in a
     * small open-addressing table (line -> index + 1, 0: empty) instead of scanning them */
    uint8_t tab[2 * GS_COAL_MAX];
    if (ext) memset(tab, 0, sizeof tab);
    for (uint32_t q = 0; q < n; q++) {
        uint64_t a;
        if (ext) a = ext[q];
        else { int l = __builtin_ctz(mm); mm &= mm - 1; a = lane_addr[l]; }
        uint64_t off = a & (sb - 1);
        if (!ext && !atomic && size && off + size <= sb && sb <= 32) {
            /* the usual lane: a plain access inside one sector (what the loop below does for it, in short) */
            uint64_t line = a >> line_shift;
            uint32_t sec = (uint32_t)((a & (lb - 1)) >> sector_shift), i = hint;
            if (i >= nl || o->lines[i] != line) {
                i = 0;
                while (i < nl && o->lines[i] != line) i++;
            }
            hint = i;
            if (i == nl) {
                if (nl == GS_COAL_MAX) continue;
                o->lines[nl] = line; o->masks[nl] = 0;
                memset(o->lane_ops[nl], 0, 8); memset(o->same_ops[nl], 0, 8); memset(o->bytes_w[nl], 0, sizeof o->bytes_w[nl]);
                nl++;
            }
            o->masks[i] |= (uint8_t)(1u << sec);
            if (o->lane_ops[i][sec] < 255) o->lane_ops[i][sec]++;
            o->bytes_w[i][sec] |= (uint32_t)((size >= 32 ? 0xffffffffull : ((1ull << size) - 1)) << off);
            continue;
        }
        if (ext && size == sb && sb <= 32 && !(a & (sb - 1))) {
            /* a tile piece that is one whole sector (the usual piece: tc_tile.h): the loop below, once */
            uint64_t line = a >> line_shift;
            uint32_t sec = (uint32_t)((a & (lb - 1)) >> sector_shift), i = hint;
            if (i >= nl || o->lines[i] != line) {
                uint32_t h = (uint32_t)((line * 0x9E3779B97F4A7C15ull) >> 56) & (2 * GS_COAL_MAX - 1);
                while (tab[h] && o->lines[tab[h] - 1] != line) h = (h + 1) & (2 * GS_COAL_MAX - 1);
                i = tab[h] ? tab[h] - 1u : nl;
                if (i == nl) {
                    if (nl == GS_COAL_MAX) { hint = i; continue; }
                    tab[h] = (uint8_t)(nl + 1);
                    coal_new_line(o, nl++, line);
                }
            }
            hint = i;
            o->masks[i] |= (uint8_t)(1u << sec);
            if (o->lane_ops[i][sec] < 255) o->lane_ops[i][sec]++;
            o->bytes_w[i][sec] |= sb >= 32 ? 0xffffffffu : (uint32_t)((1ull << sb) - 1);
            continue;
        }
        uint64_t end = a + size;
        for (uint64_t s = a >> sector_shift << sector_shift; s < end; s += sb) {
            uint64_t line = s >> line_shift;
            uint32_t sec = (uint32_t)((s & (lb - 1)) >> sector_shift);
            uint32_t i = hint;                      /* lines are distinct: the last one found is tried first */
            uint32_t h = 0;
            if (i >= nl || o->lines[i] != line) {
                if (ext) {
                    h = (uint32_t)((line * 0x9E3779B97F4A7C15ull) >> 56) & (2 * GS_COAL_MAX - 1);
                    while (tab[h] && o->lines[tab[h] - 1] != line) h = (h + 1) & (2 * GS_COAL_MAX - 1);
                    i = tab[h] ? tab[h] - 1u : nl;
                } else {
                    i = 0;
                    while (i < nl && o->lines[i] != line) i++;
                }
            }
            hint = i;
            if (i == nl) {
                if (nl == GS_COAL_MAX) break;
                if (ext) tab[h] = (uint8_t)(nl + 1);
                o->lines[nl] = line; o->masks[nl] = 0;
                memset(o->lane_ops[nl], 0, 8); memset(o->same_ops[nl], 0, 8); memset(o->bytes_w[nl], 0, sizeof o->bytes_w[nl]);
                nl++;
            }
            o->masks[i] |= (uint8_t)(1u << sec);
            if (o->lane_ops[i][sec] < 255) o->lane_ops[i][sec]++;
            uint64_t lo = a > s ? a - s : 0, hi = end < s + sb ? end - s : sb;
            if (hi > lo && sb <= 32)
                o->bytes_w[i][sec] |= (uint32_t)((hi - lo >= 32 ? 0xffffffffull : ((1ull << (hi - lo)) - 1)) << lo);
            if (atomic && !ext) {                       /* lanes on this very address serialise */
                uint32_t same = 0;
                if (mask == 0xffffffffu) {                /* a full warp: a loop the compiler vectorises */
                    for (int l2 = 0; l2 < 32; l2++) same += lane_addr[l2] == a;
                } else {
                    for (uint32_t m2 = mask; m2; m2 &= m2 - 1) same += lane_addr[__builtin_ctz(m2)] == a;
                }
                if (same > o->same_ops[i][sec]) o->same_ops[i][sec] = (uint8_t)(same > 255 ? 255 : same);
            }
        }
    }
    o->nl = nl;
}

static uint32_t count_fragment_lookups(uint64_t base, uint64_t pitch, uint32_t rows, uint32_t row_bytes, uint32_t seg,
                                       uint32_t lb) {
    uint32_t lookups = 0;
    const int pow2 = (lb & (lb - 1)) == 0;
    const uint32_t sh = pow2 ? (uint32_t)__builtin_ctz(lb) : 0;
    for (uint32_t s0 = 0; s0 < row_bytes; s0 += seg) {
        uint32_t s1 = s0 + seg < row_bytes ? s0 + seg : row_bytes;
        for (uint32_t r0 = 0; r0 < rows; r0 += 8) {         /* one request: 8 rows x one segment */
            uint64_t seen[16];
            uint32_t ns = 0;
            for (uint32_t r = r0; r < rows && r < r0 + 8; r++) {
                uint64_t a0 = base + r * pitch + s0, a1 = base + r * pitch + s1 - 1;
                uint64_t l0 = pow2 ? a0 >> sh : a0 / lb, l1 = pow2 ? a1 >> sh : a1 / lb;
                for (uint64_t line = l0; line <= l1 && ns < 16; line++) {
                    uint32_t k = 0;
                    while (k < ns && seen[k] != line) k++;
                    if (k == ns) seen[ns++] = line;
                }
            }
            lookups += ns;
        }
    }
    return lookups;
}

/* The count depends on base only through base % lb (line k + q of base = q*lb + o is line k of o, shifted
 * by q), and a kernel's fragments come in a few shapes at a few offsets: the answers are kept in a small
 * per-thread cache keyed by everything else the count reads (the GEMMs load ~20 fragments per shape and
 * offset, each a few hundred steps to count). */
typedef struct {
    uint64_t off, pitch;
    uint32_t rows, row_bytes, seg, lb, lookups, valid;
} frag_memo;

uint32_t gs_fragment_lookups(uint64_t base, uint64_t pitch, uint32_t rows, uint32_t row_bytes, uint32_t seg,
                             uint32_t lb) {
    static __thread frag_memo cache[8];
    static __thread uint32_t next;
    if (!lb) return count_fragment_lookups(base, pitch, rows, row_bytes, seg, lb);
    uint64_t off = base % lb;
    for (int k = 0; k < 8; k++) {
        const frag_memo *c = &cache[k];
        if (c->valid && c->off == off && c->pitch == pitch && c->rows == rows && c->row_bytes == row_bytes &&
            c->seg == seg && c->lb == lb)
            return c->lookups;
    }
    uint32_t n = count_fragment_lookups(off, pitch, rows, row_bytes, seg, lb);
    cache[next++ & 7] = (frag_memo){off, pitch, rows, row_bytes, seg, lb, n, 1};
    return n;
}

/* bit w set for each nonzero nibble w of a byte mask: the 4-byte words a sector's accesses touch */
static inline uint32_t words_of(uint32_t bw) {
    uint32_t x = (bw | bw >> 1 | bw >> 2 | bw >> 3) & 0x11111111u;   /* nibble w's bit at 4w */
    x = (x | x >> 3) & 0x03030303u;
    x = (x | x >> 6) & 0x000f000fu;
    return (x | x >> 12) & 0xffu;
}

uint32_t gs_coal_wavefronts(const gs_coal *o, uint32_t line_bytes, uint32_t sector_bytes) {
    /* the data array delivers one 4-byte word per bank per cycle, the banks interleaved every 4 bytes of a
     * line: a request needs as many cycles as the most distinct lines any bank must read from */
    if (sector_bytes > 32 || o->nl <= 1) return 1;
    uint8_t count[32] = {0};
    uint32_t worst = 1, nsec = line_bytes / sector_bytes;
    if (nsec > 8) nsec = 8;
    /* sectors of a power of two >= 4 bytes hold whole bank-aligned runs of words: a sector's words in use
     * are its byte mask's nonzero nibbles, gathered into one bit each (words_of) */
    const int whole = sector_bytes >= 4 && (sector_bytes & (sector_bytes - 1)) == 0;
    uint32_t banks[GS_COAL_MAX], any = 0, twice = 0;
    for (uint32_t i = 0; i < o->nl; i++) {
        uint32_t seen = 0;                                  /* banks this line needs */
        for (uint32_t sec = 0; sec < nsec; sec++) {
            uint32_t bw = o->bytes_w[i][sec];
            if (!bw) continue;
            if (whole) {
                seen |= words_of(bw) << ((sec * sector_bytes / 4) & 31);
                continue;
            }
            for (uint32_t w = 0; w < sector_bytes / 4; w++)
                if ((bw >> (4 * w)) & 0xfu) seen |= 1u << ((sec * sector_bytes / 4 + w) & 31);
        }
        banks[i] = seen;
        twice |= any & seen;
        any |= seen;
    }
    if (!twice) return 1;                                   /* no bank read for two lines (the usual case) */
    for (uint32_t i = 0; i < o->nl; i++)
        for (uint32_t seen = banks[i] & twice; seen; seen &= seen - 1) {   /* (a bank in one line only counts 1) */
            uint32_t b = (uint32_t)__builtin_ctz(seen);
            if (++count[b] > worst) worst = count[b];
        }
    return worst;
}

uint32_t gs_shared_wavefronts_ext(const uint64_t *addr, uint32_t n, uint32_t size, uint32_t banks, uint32_t bb) {
    /* fragment accesses: every element address; the hardware reads them in 128-byte wavefronts.
     * Words are bucketed by bank, so the common conflict-free access costs one pass. */
    uint16_t count[128] = {0};
    uint64_t last[128];
    uint32_t worst = 1;
    /* banks are a power of two bytes wide on every GPU we model: a shift, not a division per element */
    const int pow2 = bb && (bb & (bb - 1)) == 0;
    const uint32_t sh = pow2 ? (uint32_t)__builtin_ctz(bb) : 0;
    for (uint32_t q = 0; q < n; q++) {
        uint64_t word = pow2 ? addr[q] >> sh : addr[q] / bb;
        uint32_t b = (uint32_t)(word & (banks - 1));
        if (count[b] && last[b] == word) continue;
        last[b] = word;
        if (++count[b] > worst) worst = count[b];
    }
    uint32_t minwf = (n * size + 127) / 128;
    return worst > minwf ? worst : (minwf ? minwf : 1);
}

/* The count of gs_shared_wavefronts_ext is the same for every copy of one set of addresses moved by a
 * multiple of banks * bb bytes (each word moves by a multiple of banks: same bank, same equalities). A
 * fragment walk's addresses are its base plus offsets fixed by (walk, pitch), so the answer is kept per
 * thread by those, the base modulo banks * bb and the bank geometry: a kernel's shared fragments come in a
 * few shapes at a few offsets, and each count is a pass over 256 or more elements. */
typedef struct {
    uint64_t pitch, off;
    uint32_t walk, n, size, banks, bb, wf;
} walk_memo;

uint32_t gs_shared_wavefronts_walk(const uint64_t *addr, uint32_t n, uint32_t size, uint32_t banks, uint32_t bb,
                                   uint32_t walk, uint64_t base, uint64_t pitch) {
    static __thread walk_memo cache[8];
    static __thread uint32_t next;
    uint64_t period = (uint64_t)banks * bb;
    if (!walk || !period) return gs_shared_wavefronts_ext(addr, n, size, banks, bb);
    uint64_t off = base % period;
    for (int k = 0; k < 8; k++) {
        const walk_memo *c = &cache[k];
        if (c->walk == walk && c->pitch == pitch && c->off == off && c->n == n && c->size == size &&
            c->banks == banks && c->bb == bb)
            return c->wf;
    }
    uint32_t wf = gs_shared_wavefronts_ext(addr, n, size, banks, bb);
    cache[next++ & 7] = (walk_memo){pitch, off, walk, n, size, banks, bb, wf};
    return wf;
}

uint32_t gs_shared_wavefronts(const uint64_t *addr, uint32_t mask, uint32_t size, uint32_t banks,
                              uint32_t bb, int atomic, uint32_t *serial) {
    uint32_t words = size > bb ? size / bb : 1;
    if (words == 1 && banks == 32 && bb == 4 && !atomic) {   /* common case: one word per lane, no conflict */
        /* words less than 32 apart are in distinct banks or the same word: no conflict (the loop below
         * decides the same, but lane by lane); the full warp's min/max vectorises */
        uint64_t lo = UINT64_MAX, hi = 0;
        if (mask == 0xffffffffu) {
            for (int l = 0; l < 32; l++) { uint64_t v = addr[l]; lo = v < lo ? v : lo; hi = v > hi ? v : hi; }
        } else {
            for (uint32_t m = mask; m; m &= m - 1) { uint64_t v = addr[__builtin_ctz(m)]; lo = v < lo ? v : lo; hi = v > hi ? v : hi; }
        }
        if (mask && (hi >> 2) - (lo >> 2) < 32) { *serial = 1; return 1; }
        uint32_t touched = 0;
        uint64_t first[32];
        int conflict = 0;
        for (uint32_t m = mask; m; m &= m - 1) {
            uint64_t word = addr[__builtin_ctz(m)] >> 2;
            uint32_t b = (uint32_t)(word & 31);
            if (!(touched & (1u << b))) { touched |= 1u << b; first[b] = word; }
            else if (first[b] != word) { conflict = 1; break; }
        }
        if (!conflict) { *serial = 1; return 1; }
    }
    if (words > 8) words = 8;
    enum { CAP = 32 };                               /* distinct words remembered per bank */
    uint64_t bucket[128][CAP];
    uint16_t count[128];
    memset(count, 0, banks * sizeof *count);
    uint32_t worst = 1;
    for (uint32_t m = mask; m; m &= m - 1) {
        uint64_t a = addr[__builtin_ctz(m)] / bb;
        for (uint32_t k = 0; k < words; k++) {
            uint64_t word = a + k;
            uint32_t b = (uint32_t)(word & (banks - 1));
            uint32_t c = count[b], seen = c < CAP ? c : CAP, i = 0;
            while (i < seen && bucket[b][i] != word) i++;
            if (i < seen) continue;                    /* same word: broadcast */
            if (c < CAP) bucket[b][c] = word;          /* beyond CAP, words count as distinct */
            count[b] = (uint16_t)(c + 1);
            if (c + 1 > worst) worst = c + 1;
        }
    }
    uint32_t same_max = 1;
    if (atomic) {                                      /* same-address lanes serialise */
        uint32_t counted = 0;                          /* lanes whose address was counted already */
        for (uint32_t m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if ((counted >> l) & 1) continue;
            uint32_t eq = 0;
            for (int k = 0; k < 32; k++) eq |= (uint32_t)(addr[k] == addr[l]) << k;   /* (vectorised) */
            eq &= mask;
            counted |= eq;
            uint32_t n = (uint32_t)__builtin_popcount(eq);
            if (n > same_max) same_max = n;
        }
    }
    *serial = same_max;
    uint32_t minwf = (uint32_t)((__builtin_popcount(mask) * size + 127) / 128);
    return worst > minwf ? worst : (minwf ? minwf : 1);
}
