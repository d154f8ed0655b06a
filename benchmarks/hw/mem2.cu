// mem2.cu: partial-sector store throughput and L2 reduction (RED) throughput by address pattern.
// Prints lines "RESULT name value unit" (value per SM clock at the measured clock).
//   stores: each thread stores 4 bytes at i * stride (stride 4..128 B), to DRAM-sized and to
//           L2-resident buffers; reports thread stores and touched 32-byte sectors per cycle.
//   red:    atomicAdd without a used result on nbins counters (random bin per element), bins packed
//           (4 B apart) or spread (k bytes apart), 4M operations; reports operations per cycle.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s line %d\n", cudaGetErrorString(e), __LINE__); exit(2);} } while (0)

__global__ void store_strided(unsigned* p, uint64_t n, unsigned stride_words, unsigned val, int reps, uint64_t wrap_words) {
  uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int r = 0; r < reps; r++) {
    uint64_t w = (i * stride_words + (uint64_t)r * 7919u) % wrap_words;
    p[w] = val + r;
  }
}

__device__ __forceinline__ unsigned mix(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x;
}

__global__ void red_bins(unsigned* bins, unsigned nbins, unsigned spread_words, int per_thread) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < per_thread; k++) {
    unsigned b = mix(t * 131u + k) % nbins;
    atomicAdd(&bins[b * spread_words], 1u);
  }
}

static float time_ms(void (*launch)(void*), void* arg) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  launch(arg); CK(cudaDeviceSynchronize());
  std::vector<float> v;
  for (int i = 0; i < 5; i++) {
    CK(cudaEventRecord(a)); launch(arg); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); v.push_back(ms);
  }
  std::sort(v.begin(), v.end());
  return v[2];
}

struct SArg { unsigned* p; uint64_t n; unsigned stride; int reps; uint64_t wrap; };
static void launch_store(void* v) { SArg* a = (SArg*)v; store_strided<<<(unsigned)((a->n + 255) / 256), 256>>>(a->p, a->n, a->stride, 1, a->reps, a->wrap); }
struct RArg { unsigned* p; unsigned nbins, spread; int per; };
static void launch_red(void* v) { RArg* a = (RArg*)v; red_bins<<<1024, 256>>>(a->p, a->nbins, a->spread, a->per); }

int main() {
  int clk_khz; CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0));
  double mhz = clk_khz / 1000.0;
  printf("RESULT clock_mhz %.0f MHz\n", mhz);
  unsigned* buf; size_t bytes = (size_t)1 << 31;
  CK(cudaMalloc(&buf, bytes)); CK(cudaMemset(buf, 0, bytes));
  // stores: 16M threads, DRAM-sized target (stride up to 128 B -> 2 GiB span)
  for (unsigned stride : {4u, 8u, 16u, 32u, 64u, 128u}) {
    for (int l2 = 0; l2 < 2; l2++) {
      SArg a{buf, (uint64_t)1 << 24, stride / 4, l2 ? 8 : 1, l2 ? ((uint64_t)8 << 20) / 4 : bytes / 4};
      float ms = time_ms(launch_store, &a);
      double cyc = ms * 1e-3 * mhz * 1e6;
      double stores = (double)a.n * a.reps;
      double sectors = stores * std::min(1.0, stride / 32.0) / (stride < 32 ? 1.0 : 1.0);
      if (stride < 32) sectors = stores * stride / 32.0;
      printf("RESULT store_%s_stride%u %.3f stores/clk %.3f sectors/clk %.1f us\n", l2 ? "l2" : "dram", stride,
             stores / cyc, sectors / cyc, ms * 1e3);
    }
  }
  // RED throughput by number of bins, packed (4 B apart)
  unsigned* bins; CK(cudaMalloc(&bins, (size_t)64 << 20)); CK(cudaMemset(bins, 0, (size_t)64 << 20));
  for (unsigned nb : {1u, 8u, 32u, 64u, 128u, 256u, 512u, 1024u, 4096u, 65536u}) {
    RArg a{bins, nb, 1, 16};
    float ms = time_ms(launch_red, &a);
    double cyc = ms * 1e-3 * mhz * 1e6;
    printf("RESULT red_packed_bins%u %.3f ops/clk %.1f us\n", nb, 1024.0 * 256 * 16 / cyc, ms * 1e3);
  }
  // RED with 8 or 32 bins spread apart: which spacing lets them use different L2 slices
  for (unsigned nb : {8u, 32u}) {
    for (unsigned spread_b : {4u, 32u, 128u, 256u, 512u, 1024u, 2048u, 4096u, 65536u}) {
      RArg a{bins, nb, spread_b / 4, 16};
      float ms = time_ms(launch_red, &a);
      double cyc = ms * 1e-3 * mhz * 1e6;
      printf("RESULT red_bins%u_spread%u %.3f ops/clk %.1f us\n", nb, spread_b, 1024.0 * 256 * 16 / cyc, ms * 1e3);
    }
  }
  CK(cudaFree(buf)); CK(cudaFree(bins));
  return 0;
}
