// memlat.cu: how long one warp-wide streaming load takes from DRAM, alone and among others, with and
// without stores in the mix (docs/calibration.md, section 5e). Profiled with ncu as the suite was.
//
// Question: in memstream.cu's cpgs4 at 132 CTAs (one 256-thread CTA per SM, each warp one LDG.128 -> STG.128
// per loop trip) a trip takes ~1086 cycles at ~25 % of DRAM bandwidth, where a one-thread cold chase takes
// 655. Is that the warp's 4 lines (their slowest sector), the queues of 1056 warps, or the stores mixed in?
// Every kernel here makes the next trip's address depend on the loaded value (x holds zeros, and v*0 is
// not folded for floats), so a warp has exactly one load in flight; cycles per trip =
// (gpc__cycles_elapsed.max - the empty-kernel ~3000) / iters.
//   ch4:   LDG.128 per lane (512 B per warp, 4 lines), read only
//   ch1:   LDG.32 per lane (128 B per warp, 1 line), read only
//   cpch4: ch4 plus an STG.128 of the loaded value to a second array (cpgs4 with the dependency)
// usage: memlat   (each configuration once, for ncu; prints LAUNCH idx label lines in ncu's ID order)
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "common.cuh"   // CK()

__global__ void bench_ch4(const float4* x, float* out, int n4, int iters) {
  int stride = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < iters; k++) {
    float4 v = x[i];
    acc += v.x + v.w;
    i += stride + (int)(v.x * 0.f);
    if (i >= n4) i -= n4;
  }
  if (acc == -1234.5f) out[0] = acc;
}
__global__ void bench_ch1(const float* x, float* out, int n, int iters) {
  int stride = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < iters; k++) {
    float v = x[i];
    acc += v;
    i += stride + (int)(v * 0.f);
    if (i >= n) i -= n;
  }
  if (acc == -1234.5f) out[0] = acc;
}
__global__ void bench_cpch4(const float4* x, float4* y, int n4, int iters) {
  int stride = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iters; k++) {
    float4 v = x[i];
    y[i] = v;
    i += stride + (int)(v.x * 0.f);
    if (i >= n4) i -= n4;
  }
}

int main() {
  const long long MB = 1 << 20, bytes = 64 * MB;
  float *A, *B, *D;
  CK(cudaMalloc(&A, bytes)); CK(cudaMalloc(&B, bytes)); CK(cudaMalloc(&D, 4096));
  CK(cudaMemset(A, 0, bytes)); CK(cudaMemset(B, 0, bytes)); CK(cudaMemset(D, 0, 4096));
  CK(cudaDeviceSynchronize());
  const int n = (int)(bytes / 4), n4 = n / 4;
  struct C { const char* k; int grid, block, iters; } cs[] = {
    {"ch4", 1, 32, 2048}, {"ch4", 132, 32, 2048}, {"ch4", 132, 256, 124}, {"ch4", 264, 256, 62},
    {"ch4", 528, 256, 31}, {"ch4", 1056, 256, 16},
    {"ch1", 1, 32, 2048}, {"ch1", 132, 32, 2048}, {"ch1", 132, 256, 496},
    {"cpch4", 132, 256, 124}, {"cpch4", 264, 256, 62},
  };
  int idx = 0;
  for (auto& c : cs) {
    printf("LAUNCH %d %s_g%d_b%d_i%d\n", idx++, c.k, c.grid, c.block, c.iters);
    if (!strcmp(c.k, "ch4")) bench_ch4<<<c.grid, c.block>>>((const float4*)A, D, n4, c.iters);
    else if (!strcmp(c.k, "ch1")) bench_ch1<<<c.grid, c.block>>>(A, D, n, c.iters);
    else bench_cpch4<<<c.grid, c.block>>>((const float4*)A, (float4*)B, n4, c.iters);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  return 0;
}
