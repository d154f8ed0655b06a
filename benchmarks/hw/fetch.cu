// fetch.cu: instruction fetch of long straight-line code on the H200 (docs/calibration.md 5m, "what is left").
//
// A Triton row kernel is 1,600 SASS instructions (25 KB) of straight-line code; ncu charges its lone warps
// 0.58 cycles per instruction to no_instruction + imc_miss, which the model (sm.icache = ideal) does not have.
// This measures what fetching such code costs: one CTA runs a straight line of N independent FFMAs (8 chains,
// so a warp could issue one per cycle: stall count 1 each) `passes` times in a loop, with clock64 stamps
// around each pass. Pass 1 fetches the code cold (first launch of the kernel: from DRAM / L2), later passes
// find it in the SM's instruction caches if it fits. N = 256 .. 16384 instructions (4 KiB .. 256 KiB of
// code), 1 warp (one sub-core) or 4 warps (all four sub-cores fetching the same line), first and second
// launch of the same kernel. cycles per instruction - 1 = the fetch's share.
#include "common.cuh"

#define FMA8                                                                                          \
  asm volatile(                                                                                       \
      "fma.rn.f32 %0,%0,%8,%9;\n\tfma.rn.f32 %1,%1,%8,%9;\n\tfma.rn.f32 %2,%2,%8,%9;\n\t"            \
      "fma.rn.f32 %3,%3,%8,%9;\n\tfma.rn.f32 %4,%4,%8,%9;\n\tfma.rn.f32 %5,%5,%8,%9;\n\t"            \
      "fma.rn.f32 %6,%6,%8,%9;\n\tfma.rn.f32 %7,%7,%8,%9;"                                           \
      : "+f"(x0), "+f"(x1), "+f"(x2), "+f"(x3), "+f"(x4), "+f"(x5), "+f"(x6), "+f"(x7)              \
      : "f"(a), "f"(b));
#define FMA64 FMA8 FMA8 FMA8 FMA8 FMA8 FMA8 FMA8 FMA8
#define FMA256 FMA64 FMA64 FMA64 FMA64
#define FMA1K FMA256 FMA256 FMA256 FMA256

template <int K>   // K x 256 FFMAs
__device__ __forceinline__ void body(float& x0, float& x1, float& x2, float& x3, float& x4, float& x5,
                                     float& x6, float& x7, float a, float b) {
  if constexpr (K >= 4) { FMA1K body<K - 4>(x0, x1, x2, x3, x4, x5, x6, x7, a, b); }
  else if constexpr (K >= 1) { FMA256 body<K - 1>(x0, x1, x2, x3, x4, x5, x6, x7, a, b); }
}

constexpr int kMaxPasses = 4;   // stamps per warp (passes <= 3)

template <int K>
__global__ void fetch_k(float a, float b, int passes, unsigned long long* stamps, float* out) {
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6,
        x7 = x0 + 7;
  unsigned long long t0 = clock64(), t1 = 0, t2 = 0, t3 = 0;   // (scalars: registers, not local memory)
#pragma unroll 1
  for (int p = 0; p < passes; p++) {
    body<K>(x0, x1, x2, x3, x4, x5, x6, x7, a, b);
    unsigned long long c = clock64();
    if (p == 0) t1 = c; else if (p == 1) t2 = c; else t3 = c;
  }
  if (threadIdx.x % 32 == 0) {
    unsigned long long* s = stamps + (threadIdx.x / 32) * (kMaxPasses + 1);
    s[0] = t0; s[1] = t1; s[2] = t2; s[3] = t3; s[4] = 0;
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

template <int K>
static void run(int warps, unsigned long long* d_stamps, float* d_out) {
  const int n = K * 256, passes = 3;
  for (int launch = 1; launch <= 2; launch++) {
    fetch_k<K><<<1, 32 * warps>>>(1.0000001f, 1e-7f, passes, d_stamps, d_out);
    CK_LAUNCH();
    unsigned long long h[4 * (kMaxPasses + 1)];
    CK(cudaMemcpy(h, d_stamps, sizeof h, cudaMemcpyDeviceToHost));
    std::string cyc = "[", cpi = "[";
    for (int p = 1; p <= passes; p++) {
      double worst = 0;
      for (int w = 0; w < warps; w++)
        worst = std::max(worst, (double)(h[w * (kMaxPasses + 1) + p] - h[w * (kMaxPasses + 1) + p - 1]));
      char buf[64];
      snprintf(buf, sizeof buf, "%s%.0f", p > 1 ? "," : "", worst);
      cyc += buf;
      snprintf(buf, sizeof buf, "%s%.3f", p > 1 ? "," : "", worst / n);
      cpi += buf;
    }
    printf("RESULT {\"name\":\"fetch_n%d_w%d_l%d\",\"kind\":\"fetch\",\"insts\":%d,\"code_kib\":%d,\"warps\":%d,"
           "\"launch\":%d,\"pass_cycles\":%s],\"cycles_per_inst\":%s],\"sass\":\"FFMA x%d\"}\n",
           n, warps, launch, n, n * 16 / 1024, warps, launch, cyc.c_str(), cpi.c_str(), n);
    fflush(stdout);
  }
}

int main() {
  unsigned long long* d_stamps;
  float* d_out;
  CK(cudaMalloc(&d_stamps, 4 * (kMaxPasses + 1) * sizeof(unsigned long long)));
  CK(cudaMalloc(&d_out, 128 * sizeof(float)));
  for (int warps : {1, 4}) {
    run<1>(warps, d_stamps, d_out);     //   256 FFMAs,   4 KiB
    run<4>(warps, d_stamps, d_out);     //  1024,        16 KiB
    run<16>(warps, d_stamps, d_out);    //  4096,        64 KiB
    run<64>(warps, d_stamps, d_out);    // 16384,       256 KiB
  }
  printf("DONE\n");
  return 0;
}
