/* rng.c — the validation suite's splitmix64 buffer generator (validation/README.md, gpu-workload/1's `rng`
 * buffers) in C: the same bytes as engine/workload/bundle.py's numpy reference (_rng_elements), which stays the
 * definition and checks this one (tests/test_rng_fill.py). numpy took ~7 ns per element (a dozen passes over
 * 64-bit temporaries), which was 0.1 s of every resnet18_b1 run and ~1.3 s of every bert_base one. */
#include <stdint.h>
#include <string.h>
#include "simtscope.h"
#include "fp16.h"

#define GOLDEN 0x9E3779B97F4A7C15ull
#define MIX1 0xBF58476D1CE4E5B9ull
#define MIX2 0x94D049BB133111EBull

/* element i: the (i+1)-th output from seed */
static inline uint64_t splitmix(uint64_t seed, uint64_t i) {
    uint64_t x = seed + (i + 1) * GOLDEN;
    x = (x ^ (x >> 30)) * MIX1;
    x = (x ^ (x >> 27)) * MIX2;
    return x ^ (x >> 31);
}

/* numpy: (z >> 40).astype(float64) * 2**-24, then lo + (hi - lo) * u in float64, then astype(float32) */
static inline float uniform(uint64_t z, double lo, double span) {
    double u = (double)(z >> 40) * 0x1p-24;
    return (float)(lo + span * u);
}

/* f16 elements [i, n) one at a time (gs_f2h: nearest even, as numpy) */
static void fill_f16(uint8_t *o, uint64_t i, uint64_t n, uint64_t seed, double lo, double span) {
    for (; i < n; i++) { uint16_t h = gs_f2h(uniform(splitmix(seed, i), lo, span)); memcpy(o + 2 * i, &h, 2); }
}

#if defined(__x86_64__)
#include <immintrin.h>
/* f16 with the host's F16C: _mm_cvtps_ph rounds to nearest even like gs_f2h, 8 at a time; returns the elements
 * done (a multiple of 8) */
__attribute__((target("avx,f16c"))) static uint64_t fill_f16c(uint8_t *o, uint64_t n, uint64_t seed, double lo, double span) {
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        float v[8];
        for (int j = 0; j < 8; j++) v[j] = uniform(splitmix(seed, i + j), lo, span);
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *)(o + 2 * i), h);
    }
    return i;
}
#else
static uint64_t fill_f16c(uint8_t *o, uint64_t n, uint64_t seed, double lo, double span) { (void)o; (void)n; (void)seed; (void)lo; (void)span; return 0; }
#endif

int gs_rng_fill(void *out, uint64_t n, int kind, uint64_t seed, double lo, double hi, int64_t ilo, uint64_t ispan) {
    uint8_t *o = out;
    double span = hi - lo;
    switch (kind) {
    case GS_RNG_F32:
        for (uint64_t i = 0; i < n; i++) { float v = uniform(splitmix(seed, i), lo, span); memcpy(o + 4 * i, &v, 4); }
        return 0;
    case GS_RNG_F16:
        fill_f16(o, gs_host_f16c() ? fill_f16c(o, n, seed, lo, span) : 0, n, seed, lo, span);
        return 0;
    case GS_RNG_BF16:
        for (uint64_t i = 0; i < n; i++) { uint16_t h = gs_f2bf(uniform(splitmix(seed, i), lo, span)); memcpy(o + 2 * i, &h, 2); }
        return 0;
    case GS_RNG_I32:
    case GS_RNG_U32:                 /* numpy: (z % span).astype(int64) + lo, then astype(int32 / uint32): wraps */
        if (!ispan) return -1;
        for (uint64_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)(uint64_t)((int64_t)(splitmix(seed, i) % ispan) + ilo);
            memcpy(o + 4 * i, &v, 4);
        }
        return 0;
    default:
        return -1;
    }
}
