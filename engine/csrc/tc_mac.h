/* tc_mac.h — the inner product of the tensor-core handlers (wgmma, mma, wmma): a tile of double
 * accumulators plus the product of two double tiles, the K terms of each element added in order.
 *
 * Every handler decodes its operands once per instruction into contiguous double arrays (A row-major,
 * B transposed to K x N so that a row of B is contiguous in n) and calls one of these; the numerics are
 * those of tensor.h: each product is exact in double, and element (r, n) is
 *     ((acc + a[r][0]*b[0][n]) + a[r][1]*b[1][n]) + ... + a[r][K-1]*b[K-1][n]
 * with one rounding per addition, exactly as the scalar loop writes it (the build turns off
 * floating-point contraction, and a contraction would not change an exact product's sum anyway).
 * Integer inputs (s8/u8) use it too: their products and sums are integers below 2^53, exact in double. */
#ifndef GS_TC_MAC_H
#define GS_TC_MAC_H
#include <stddef.h>
#include <stdint.h>

/* acc[r*N + n] += sum over k of a[r*K + k] * bt[k*N + n], for r < R, n < N; R a multiple of 4, N of 8 */
void tc_mac_f64(double *acc, const double *a, const double *bt, int R, int N, int K);

#endif
