// memstream.cu: the memory system under streaming access patterns, profiled with Nsight Compute the
// way the validation suite was (--clock-control none --cache-control all: the L2 starts clean and empty).
//
// Questions put to the hardware (docs/calibration.md, section 5c):
//   1. Dirty data left in the L2 at the end of a kernel: kernels that store N MB (N = 1..256) with one
//      4-byte store per thread; dram__bytes_write.sum says how much of it reached DRAM while the kernel
//      ran. wrspin adds one block that spins for S cycles after the stores: whether write-back goes on
//      while the L2 is otherwise idle (eager write-back) or only on eviction (a dirty-capacity limit).
//   2. DRAM efficiency by read/write mix (read only, write only, 1:1, 2:1, 3:1) and by bytes per thread
//      (one float, one float4, grid-stride float4 loops over 132..2112 CTAs), as gpc__cycles_elapsed.max
//      and DRAM bytes; the same kernels at 256 MB per array timed with events (no profiler).
// Every measured kernel is named bench_*; the program prints one "LAUNCH idx label ..." line per launch
// in order, which matches ncu's kernel IDs (ncu --kernel-name regex:bench_).
//
// usage: memstream ncu    (each configuration once, for ncu)
//        memstream time   (the 256 MB configurations, 3 warm-ups + 10 timed launches each, events)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>
#include "common.cuh"   // CK(): the suite's CUDA error check


__global__ void bench_wr1(float* y, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v * (float)i;
}
// the last block only spins for `spin` cycles (it starts among the last, after the stores are issued)
__global__ void bench_wrspin(float* y, float v, int n, long long spin) {
  if (blockIdx.x == gridDim.x - 1) {
    if (threadIdx.x == 0) {
      long long t0 = clock64(), t = t0;
      while (t - t0 < spin) t = clock64();
      if (t == 0x7fffffffffffll) y[0] = (float)t;
    }
    return;
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v * (float)i;
}
__global__ void bench_rd1(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = x[i];
    if (s == -1234.5f) out[0] = s;
  }
}
__global__ void bench_cp1(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
__global__ void bench_sx1(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void bench_va1(const float* x, const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
__global__ void bench_r3w1(const float* x, const float* y, const float* w, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i] + w[i];
}
__global__ void bench_wr4(float4* y, float v, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) y[i] = make_float4(v, v * 2.f, v * 3.f, (float)i);
}
__global__ void bench_rd4(const float4* x, float* out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 s = x[i];
    if (s.x + s.y + s.z + s.w == -1234.5f) out[0] = s.x;
  }
}
__global__ void bench_cp4(const float4* x, float4* y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) y[i] = x[i];
}
__global__ void bench_cpgs4(const float4* x, float4* y, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) y[i] = x[i];
}

struct Cfg {
  char label[48];
  int kind;       // 0 wr1 1 wrspin 2 rd1 3 cp1 4 sx1 5 va1 6 r3w1 7 wr4 8 rd4 9 cp4 10 cpgs4
  long long mb;   // MiB per array
  int grid;       // grid-stride kernels only
  long long spin; // wrspin only
  int rd, wr;     // arrays read / written
};

static const long long MB = 1 << 20;
static float *A, *B, *C, *D;

static void launch(const Cfg& c) {
  int n = (int)(c.mb * MB / 4), n4 = n / 4, T = 256;
  int g1 = (n + T - 1) / T, g4 = (n4 + T - 1) / T;
  switch (c.kind) {
    case 0: bench_wr1<<<g1, T>>>(A, 0.5f, n); break;
    case 1: bench_wrspin<<<g1 + 1, T>>>(A, 0.5f, n, c.spin); break;
    case 2: bench_rd1<<<g1, T>>>(A, D, n); break;
    case 3: bench_cp1<<<g1, T>>>(A, B, n); break;
    case 4: bench_sx1<<<g1, T>>>(0.75f, A, B, n); break;
    case 5: bench_va1<<<g1, T>>>(A, B, C, n); break;
    case 6: bench_r3w1<<<g1, T>>>(A, B, C, D, n); break;
    case 7: bench_wr4<<<g4, T>>>((float4*)A, 0.5f, n4); break;
    case 8: bench_rd4<<<g4, T>>>((const float4*)A, D, n4); break;
    case 9: bench_cp4<<<g4, T>>>((const float4*)A, (float4*)B, n4); break;
    case 10: bench_cpgs4<<<c.grid, T>>>((const float4*)A, (float4*)B, n4); break;
  }
  CK(cudaGetLastError());
}

static Cfg mk(const char* name, int kind, long long mb, int rd, int wr, int grid = 0, long long spin = 0) {
  Cfg c;
  memset(&c, 0, sizeof c);
  c.kind = kind; c.mb = mb; c.rd = rd; c.wr = wr; c.grid = grid; c.spin = spin;
  if (grid) snprintf(c.label, sizeof c.label, "%s_%lldMB_g%d", name, mb, grid);
  else if (spin) snprintf(c.label, sizeof c.label, "%s_%lldMB_s%lld", name, mb, spin);
  else snprintf(c.label, sizeof c.label, "%s_%lldMB", name, mb);
  return c;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ncu";
  const long long cap = 256;  // MiB per array
  CK(cudaMalloc(&A, cap * MB)); CK(cudaMalloc(&B, cap * MB));
  CK(cudaMalloc(&C, cap * MB)); CK(cudaMalloc(&D, cap * MB));
  CK(cudaMemset(A, 0, cap * MB)); CK(cudaMemset(B, 0, cap * MB));
  CK(cudaMemset(C, 0, cap * MB)); CK(cudaMemset(D, 0, cap * MB));
  CK(cudaDeviceSynchronize());
  std::vector<Cfg> v;
  if (!strcmp(mode, "ncu")) {
    for (long long mb : {1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 256}) v.push_back(mk("wr1", 0, mb, 0, 1));
    for (long long mb : {8, 32, 64})
      for (long long s : {30000LL, 150000LL}) v.push_back(mk("wrspin", 1, mb, 0, 1, 0, s));
    for (long long mb : {1, 4, 16, 64, 256}) v.push_back(mk("rd1", 2, mb, 1, 0));
    for (long long mb : {1, 4, 8, 16, 24, 32, 48, 64, 128, 256}) v.push_back(mk("cp1", 3, mb, 1, 1));
    for (long long mb : {4, 16, 32, 64, 128, 256}) v.push_back(mk("sx1", 4, mb, 2, 1));
    for (long long mb : {4, 16, 64, 256}) v.push_back(mk("va1", 5, mb, 2, 1));
    for (long long mb : {16, 64, 256}) v.push_back(mk("r3w1", 6, mb, 3, 1));
    for (long long mb : {16, 64, 256}) v.push_back(mk("wr4", 7, mb, 0, 1));
    for (long long mb : {64, 256}) v.push_back(mk("rd4", 8, mb, 1, 0));
    for (long long mb : {16, 64, 256}) v.push_back(mk("cp4", 9, mb, 1, 1));
    for (int g : {132, 264, 528, 1056, 2112}) v.push_back(mk("cpgs4", 10, 64, 1, 1, g));
    v.push_back(mk("cpgs4", 10, 256, 1, 1, 1056));
    for (size_t k = 0; k < v.size(); k++) {
      printf("LAUNCH %zu %s mb_per_array=%lld read_arrays=%d written_arrays=%d\n", k, v[k].label, v[k].mb, v[k].rd, v[k].wr);
      launch(v[k]);
      CK(cudaDeviceSynchronize());
    }
    return 0;
  }
  // time: events, no profiler, 256 MiB per array
  for (int kind : {0, 2, 3, 4, 5, 6, 7, 8, 9}) {
    static const int rd[] = {0, 0, 1, 1, 2, 2, 3, 0, 1, 1, 1}, wr[] = {1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1};
    static const char* nm[] = {"wr1", "wrspin", "rd1", "cp1", "sx1", "va1", "r3w1", "wr4", "rd4", "cp4", "cpgs4"};
    v.push_back(mk(nm[kind], kind, 256, rd[kind], wr[kind]));
  }
  for (int g : {132, 264, 528, 1056, 2112}) v.push_back(mk("cpgs4", 10, 256, 1, 1, g));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (auto& c : v) {
    for (int w = 0; w < 3; w++) launch(c);
    std::vector<float> ts;
    for (int r = 0; r < 10; r++) {
      CK(cudaEventRecord(e0)); launch(c); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    double bytes = (double)(c.rd + c.wr) * c.mb * MB, med = ts[ts.size() / 2];
    printf("TIME %s median_us=%.2f min_us=%.2f max_us=%.2f GBps=%.1f\n", c.label, med * 1e3, ts[0] * 1e3,
           ts.back() * 1e3, bytes / (med * 1e-3) / 1e9);
  }
  return 0;
}
