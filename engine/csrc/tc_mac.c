/* tc_mac.c — tile multiply-accumulate for the tensor-core handlers (see tc_mac.h).
 *
 * A register-blocked kernel: 4 rows x 8 columns of accumulators (8 vectors of 4 doubles) stay in
 * registers while k runs, so each step is 2 loads of B, 4 broadcasts of A, 8 multiplies and 8 adds with
 * 8 independent addition chains (8 fused multiply-adds on a CPU with FMA). GCC's generic vectors become
 * AVX on a -march=native build and pairs of SSE2 operations on a portable one; each element gets the
 * same IEEE double sum either way (exact products: see MAC below), so results do not depend on the build. */
#include "tc_mac.h"

typedef double v4d __attribute__((vector_size(32), aligned(8)));

/* s += a * b. Every product here is exact in double (tc_mac.h), so a fused multiply-add, which rounds
 * a * b + s once, gives the very bits of the multiply and add: on a build for a CPU with FMA (-march=native
 * on such a host) it does the step in one instruction instead of two. */
#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
#define MAC(s, a, b) ((s) = (v4d)_mm256_fmadd_pd(_mm256_set1_pd(a), (__m256d)(b), (__m256d)(s)))
#else
#define MAC(s, a, b) ((s) += (a) * (b))
#endif

void tc_mac_f64(double *acc, const double *a, const double *bt, int R, int N, int K) {
    for (int r = 0; r < R; r += 4) {
        const double *a0 = a + (size_t)r * K, *a1 = a0 + K, *a2 = a1 + K, *a3 = a2 + K;
        for (int n = 0; n < N; n += 8) {
            double *c0 = acc + (size_t)r * N + n, *c1 = c0 + N, *c2 = c1 + N, *c3 = c2 + N;
            v4d s00 = *(v4d *)c0, s01 = *(v4d *)(c0 + 4), s10 = *(v4d *)c1, s11 = *(v4d *)(c1 + 4);
            v4d s20 = *(v4d *)c2, s21 = *(v4d *)(c2 + 4), s30 = *(v4d *)c3, s31 = *(v4d *)(c3 + 4);
            const double *b = bt + n;
            for (int k = 0; k < K; k++, b += N) {
                v4d b0 = *(const v4d *)b, b1 = *(const v4d *)(b + 4);
                MAC(s00, a0[k], b0); MAC(s01, a0[k], b1);
                MAC(s10, a1[k], b0); MAC(s11, a1[k], b1);
                MAC(s20, a2[k], b0); MAC(s21, a2[k], b1);
                MAC(s30, a3[k], b0); MAC(s31, a3[k], b1);
            }
            *(v4d *)c0 = s00; *(v4d *)(c0 + 4) = s01; *(v4d *)c1 = s10; *(v4d *)(c1 + 4) = s11;
            *(v4d *)c2 = s20; *(v4d *)(c2 + 4) = s21; *(v4d *)c3 = s30; *(v4d *)(c3 + 4) = s31;
        }
    }
}
