// wmmastep.cu (helper wmma): what one k step of the suite's WMMA GEMMs costs on the H200, taken apart.
// wmmaload.cu (5n) timed hgemm_wmma_simple's loop with 4 warps per CTA; the model is 21 % fast even on
// L1-resident data (276 vs 348 cycles per step). This separates the parts:
//   simple  : the suite's loop (8 LDG.E of 8 rows x 16 B, 4 MOVM.16.MT88 for row-major B, 2 HMMA.16816),
//             one CTA of W = 1, 2, 4, 8 warps, data L1-resident (every step re-reads step 0: "same") or
//             L2-resident ("warm"), B row-major (MOVM) or column-major (no MOVM); cycles per k step per warp
//   movm    : one warp, a chain of movmatrix.trans (MOVM.16.MT88): latency per MOVM; movm_tp: W warps of
//             8 independent chains: cycles per MOVM per SM
//   ldsm    : one warp, a chain of ldmatrix .x1/.x2/.x4 (.trans), the next address = base + the first loaded
//             register (zeros): latency + one IADD3 per op
//   ldsm_tp : W warps of independent ldmatrix.x4: cycles per ldmatrix.x4 per SM (throughput)
//   tiled   : the suite's hgemm_wmma_tiled, clock64 around its K loop (BK = 32: 8 LDSM + 16 HMMA per warp,
//             2 __syncthreads, 4 LDG.128 + 4 STS.128 per thread), one CTA and 64 CTAs (512^3), A/B L2-resident;
//             cycles per K iteration per warp
// Output: RESULT lines (JSON).
#include "common.cuh"
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

template <typename BL>
__global__ void simple_timed(int M, int N, int K, int kstep, const half* __restrict__ A,
                             const half* __restrict__ B, float* __restrict__ C, unsigned long long* __restrict__ cyc)
{
    int warp = threadIdx.x >> 5;
    int row = (blockIdx.y * 32 + (warp >> 1) * 16) % M;
    int col = (blockIdx.x * 32 + (warp & 1) * 16) % N;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, BL> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    __syncwarp();
    unsigned long long t0 = clock64();
    for (int k = 0, kk = 0; k < K; k += 16, kk += kstep) {
        wmma::load_matrix_sync(a, A + (size_t)row * K + kk, K);
        if (std::is_same<BL, wmma::row_major>::value)
            wmma::load_matrix_sync(b, B + (size_t)kk * N + col, N);
        else
            wmma::load_matrix_sync(b, B + (size_t)col * K + kk, K);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + (size_t)row * N + col, c, N, wmma::mem_row_major);
    __syncwarp();
    unsigned long long t1 = clock64();
    if ((threadIdx.x & 31) == 0) cyc[blockIdx.x * (blockDim.x >> 5) + warp] = t1 - t0;
}

__global__ void movm_chain(int n, unsigned seed, unsigned* out, unsigned long long* cyc)
{
    unsigned r = seed ^ threadIdx.x;
    __syncwarp();
    unsigned long long t0 = clock64();
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int j = 0; j < 16; j++)
            asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %0;" : "+r"(r));
    }
    unsigned long long t1 = clock64();
    out[threadIdx.x] = r;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

// W warps, 8 independent MOVM chains each: cycles per MOVM per SM (throughput)
__global__ void movm_tp(int n, unsigned seed, unsigned* out, unsigned long long* cyc)
{
    unsigned r[8];
#pragma unroll
    for (int j = 0; j < 8; j++) r[j] = seed ^ (threadIdx.x * 8 + j);
    __syncthreads();
    unsigned long long t0 = clock64();
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++)
            asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %0;" : "+r"(r[j]));
    }
    __syncthreads();
    unsigned long long t1 = clock64();
    unsigned acc = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) acc ^= r[j];
    out[threadIdx.x] = acc;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

// chain of ldmatrix: the next address adds the (zero) data just loaded
template <int X, bool T>
__global__ void ldsm_chain(int n, unsigned* out, unsigned long long* cyc)
{
    __shared__ __align__(128) unsigned short s[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s) + (threadIdx.x & 31) * 16;
    unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0;
    unsigned long long t0 = clock64();
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int j = 0; j < 16; j++) {
            unsigned a = base + r0;                  // one IADD3 (4 cycles) in the chain
            if (X == 1 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
            if (X == 1 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
            if (X == 2 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
            if (X == 2 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
            if (X == 4 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
            if (X == 4 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
        }
    }
    unsigned long long t1 = clock64();
    out[threadIdx.x] = r0 + r1 + r2 + r3;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

// independent ldmatrix.x4 per warp (8 in flight), W warps: throughput. (The first H200 run, results/h200_wmmastep.txt,
// read base + j * 2048: ptxas hoisted those 8 loop-invariant LDSMs out of the loop, so its ldsm_tp rows time the
// loop's LOP3/IADD3 only; the asm now clobbers memory, which keeps every LDSM in the loop.)
__global__ void ldsm_tp(int n, unsigned* out, unsigned long long* cyc)
{
    __shared__ __align__(128) unsigned short s[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) s[i] = (unsigned short)i;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s) + (threadIdx.x & 31) * 16 + ((threadIdx.x >> 5) & 3) * 512;
    unsigned acc = 0;
    unsigned long long t0 = clock64();
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned r0, r1, r2, r3;
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                         : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(base + j * 2048) : "memory");
            acc += r0 ^ r1 ^ r2 ^ r3;
        }
    }
    __syncthreads();
    unsigned long long t1 = clock64();
    out[threadIdx.x] = acc;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

#define HT_BM 64
#define HT_BN 64
#define HT_BK 32
#define HT_APAD 8
#define HT_BPAD 8
__global__ void __launch_bounds__(128)
tiled_timed(int M, int N, int K, const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C,
            unsigned long long* __restrict__ cyc)
{
    __shared__ __align__(32) half As[HT_BM][HT_BK + HT_APAD];
    __shared__ __align__(32) half Bs[HT_BK][HT_BN + HT_BPAD];
    int tid = threadIdx.x;
    int warp = tid >> 5;
    int wm = warp >> 1, wn = warp & 1;
    int m0 = blockIdx.y * HT_BM, n0 = blockIdx.x * HT_BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    __syncwarp();
    unsigned long long t0 = clock64();
    for (int k0 = 0; k0 < K; k0 += HT_BK) {
#pragma unroll
        for (int l = 0; l < 2; ++l) {
            int idx = tid + l * 128;
            int ar = idx >> 2, ac = (idx & 3) * 8;
            *reinterpret_cast<int4*>(&As[ar][ac]) = *reinterpret_cast<const int4*>(&A[(size_t)(m0 + ar) * K + k0 + ac]);
            int br = idx >> 3, bc = (idx & 7) * 8;
            *reinterpret_cast<int4*>(&Bs[br][bc]) = *reinterpret_cast<const int4*>(&B[(size_t)(k0 + br) * N + n0 + bc]);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < HT_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[wm * 32 + i * 16][kk], HT_BK + HT_APAD);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn * 32 + j * 16], HT_BN + HT_BPAD);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    unsigned long long t1 = clock64();
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(C + (size_t)(m0 + wm * 32 + i * 16) * N + n0 + wn * 32 + j * 16, acc[i][j], N,
                                    wmma::mem_row_major);
    if ((threadIdx.x & 31) == 0) cyc[(blockIdx.y * gridDim.x + blockIdx.x) * 4 + warp] = t1 - t0;
}

static double mean_of(unsigned long long* d, int n) {
    std::vector<unsigned long long> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    double s = 0;
    for (auto v : h) s += (double)v;
    return s / n;
}

int main() {
    const int M = 512, N = 512, K = 512;
    half *A, *B; float* C; unsigned long long* cyc; unsigned* out;
    CK(cudaMalloc(&A, (size_t)M * K * sizeof(half)));
    CK(cudaMalloc(&B, (size_t)K * N * sizeof(half)));
    CK(cudaMalloc(&C, (size_t)M * N * sizeof(float)));
    CK(cudaMalloc(&cyc, 4096 * sizeof(unsigned long long)));
    CK(cudaMalloc(&out, 4096 * sizeof(unsigned)));
    CK(cudaMemset(A, 0x3c, (size_t)M * K * sizeof(half)));
    CK(cudaMemset(B, 0x3c, (size_t)K * N * sizeof(half)));
    spin_all_sms(50);
    printf("# sm clock %.0f MHz\n", sm_clock_mhz());
    // simple: one CTA, W warps; warm = the same launch twice (A, B in L2; L1 new), same = kstep 0 (L1 hits)
    for (int bl = 0; bl < 2; bl++) {
        for (int W : {1, 2, 4, 8}) {
            for (int s = 0; s < 2; s++) {
                int kstep = s == 1 ? 0 : 16;
                for (int rep = 0; rep < 3; rep++) {
                    auto k = bl == 0 ? simple_timed<wmma::row_major> : simple_timed<wmma::col_major>;
                    k<<<1, 32 * W>>>(M, N, K, kstep, A, B, C, cyc);
                    k<<<1, 32 * W>>>(M, N, K, kstep, A, B, C, cyc);
                    CK_LAUNCH();
                    printf("RESULT {\"bench\":\"simple\",\"b\":\"%s\",\"warps\":%d,\"state\":\"%s\",\"rep\":%d,"
                           "\"cyc_per_step\":%.1f}\n", bl == 0 ? "row" : "col", W, s == 1 ? "same" : "warm", rep,
                           mean_of(cyc, W) / (K / 16));
                }
            }
        }
    }
    // movm chain
    for (int rep = 0; rep < 3; rep++) {
        int n = 256;
        movm_chain<<<1, 32>>>(n, 7, out, cyc);
        movm_chain<<<1, 32>>>(n, 7, out, cyc);
        CK_LAUNCH();
        printf("RESULT {\"bench\":\"movm\",\"rep\":%d,\"cyc_per_op\":%.2f}\n", rep, mean_of(cyc, 1) / (n * 16));
    }
    for (int W : {1, 4, 8, 16, 32}) {
        for (int rep = 0; rep < 3; rep++) {
            int n = 256;
            movm_tp<<<1, 32 * W>>>(n, 7, out, cyc);
            movm_tp<<<1, 32 * W>>>(n, 7, out, cyc);
            CK_LAUNCH();
            printf("RESULT {\"bench\":\"movm_tp\",\"warps\":%d,\"rep\":%d,\"cyc_per_movm_per_sm\":%.3f}\n", W, rep,
                   mean_of(cyc, 1) / (n * 8 * W));
        }
    }
    // ldmatrix chains
    struct L { int x; bool t; void (*k)(int, unsigned*, unsigned long long*); } ls[] = {
        {1, false, ldsm_chain<1, false>}, {1, true, ldsm_chain<1, true>}, {2, false, ldsm_chain<2, false>},
        {2, true, ldsm_chain<2, true>}, {4, false, ldsm_chain<4, false>}, {4, true, ldsm_chain<4, true>}};
    for (auto& l : ls) {
        for (int rep = 0; rep < 3; rep++) {
            int n = 256;
            l.k<<<1, 32>>>(n, out, cyc);
            l.k<<<1, 32>>>(n, out, cyc);
            CK_LAUNCH();
            printf("RESULT {\"bench\":\"ldsm\",\"x\":%d,\"trans\":%d,\"rep\":%d,\"cyc_per_op\":%.2f}\n", l.x, (int)l.t,
                   rep, mean_of(cyc, 1) / (n * 16));
        }
    }
    for (int W : {1, 2, 4, 8, 16, 32}) {
        for (int rep = 0; rep < 3; rep++) {
            int n = 256;
            ldsm_tp<<<1, 32 * W>>>(n, out, cyc);
            ldsm_tp<<<1, 32 * W>>>(n, out, cyc);
            CK_LAUNCH();
            printf("RESULT {\"bench\":\"ldsm_tp2\",\"warps\":%d,\"rep\":%d,\"cyc_per_ldsm_x4_per_sm\":%.3f}\n", W, rep,
                   mean_of(cyc, 1) / (n * 8 * W));
        }
    }
    // tiled: one CTA, and the 512^3 grid (64 CTAs), A/B L2-resident (second launch)
    for (int g : {1, 8}) {
        for (int rep = 0; rep < 3; rep++) {
            tiled_timed<<<dim3(g, g), 128>>>(M, N, K, A, B, C, cyc);
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
            CK(cudaEventRecord(e0));
            tiled_timed<<<dim3(g, g), 128>>>(M, N, K, A, B, C, cyc);
            CK(cudaEventRecord(e1));
            CK_LAUNCH();
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            printf("RESULT {\"bench\":\"tiled\",\"grid\":\"%dx%d\",\"state\":\"warm\",\"rep\":%d,\"cyc_per_iter\":%.1f,"
                   "\"event_us\":%.3f}\n", g, g, rep, mean_of(cyc, g * g * 4) / (K / HT_BK), ms * 1000.0);
            CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
        }
    }
    return 0;
}
