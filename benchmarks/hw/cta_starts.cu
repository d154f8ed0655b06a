// cta_starts.cu: when each CTA of a launch starts and ends, per SM (the launch/dispatch questions that
// gpc__cycles_elapsed.max alone cannot settle; docs/calibration.md 5f, "Left open" and the device request
// in the launch helper's notes). Every CTA's thread 0 records, with no other work before it:
//   smid, clock64 at its first instruction and at its exit, %globaltimer at both (ns, one clock for the GPU)
// One line per configuration and CTA:
//   CTA {"case":"...","grid":G,"block":B,"smem":S,"cta":i,"sm":s,"c0":...,"c1":...,"t0":...,"t1":...}
// What the lines answer (per SM, clock64 differences; across SMs, globaltimer differences):
//   first_wave   grid 132, 256 threads: the spread of the 132 first CTAs' start times (dispatch interval
//                of an SM's first CTA: the model uses 1.93 cycles from 253 cycles per 131 CTAs)
//   two_per_sm   grid 264 / 1056, 256 threads: on each SM, the start of its 2nd CTA against its 1st CTA's
//                start (does an SM take its next CTA only once the last one started?) and the first's
//                start-to-first-instruction delay (the cold fetch, 225 in the model)
//   one_slot     grid 132 x 16, 32 threads, 200 KiB shared memory: per SM, end of CTA k to start of CTA k+1
//                (the slot release, 234 in the model) and start to end (52 active in steady state)
//   param        the same as first_wave with a kernel that reads a parameter before its second clock64:
//                per SM, c1 - c0 of the first CTA against later ones is the parameter-bank miss (194 in the
//                model); in every case c1 - c0 of an SM's first CTA against its later ones shows the same
// Self-check: every CTA wrote its record (sm < 132, c1 >= c0, t1 >= t0); else CHECK_FAIL and exit 1.
// Build + run (expected < 10 s):
//   nvcc -O3 -arch=sm_90 -o build/cta_starts cta_starts.cu && ./build/cta_starts > cta_starts.out
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "common.cuh"   // CK, CK_LAUNCH, gtimer_ns, smid

struct Rec {
  unsigned long long c0, c1, t0, t1;
  unsigned sm, pad;
};

static __device__ __forceinline__ unsigned long long gt() { return gtimer_ns(); }   // common.cuh

__global__ void starts_k(Rec* r) {
  unsigned long long c0 = clock64(), t0 = gt();
  if (threadIdx.x == 0) {
    Rec x;
    x.c0 = c0;
    x.t0 = t0;
    x.sm = smid();
    x.c1 = clock64();
    x.t1 = gt();
    r[blockIdx.x] = x;
  }
}
__global__ void starts_param_k(Rec* r, unsigned salt) {
  unsigned long long c0 = clock64(), t0 = gt();
  if (threadIdx.x == salt) {   // salt = 0 at run time: the test needs the parameter (LDC) first
    Rec x;
    x.c0 = c0;
    x.t0 = t0;
    x.sm = smid();
    x.c1 = clock64();
    x.t1 = gt();
    r[blockIdx.x] = x;
  }
}
extern __shared__ unsigned char dyn[];

static int g_fail = 0;
static void run(const char* cs, int grid, int block, int smem, bool param, Rec* d, std::vector<Rec>& h) {
  CK(cudaMemset(d, 0, grid * sizeof(Rec)));
  if (param) starts_param_k<<<grid, block, smem>>>(d, 0u);
  else starts_k<<<grid, block, smem>>>(d);
  CK_LAUNCH();
  CK(cudaMemcpy(h.data(), d, grid * sizeof(Rec), cudaMemcpyDeviceToHost));
  for (int i = 0; i < grid; i++) {
    const Rec& x = h[i];
    if (x.sm >= 132 || x.c1 < x.c0 || x.t1 < x.t0 || x.t0 == 0) {
      printf("CHECK_FAIL {\"case\":\"%s\",\"grid\":%d,\"cta\":%d}\n", cs, grid, i);
      g_fail = 1;
    }
    printf("CTA {\"case\":\"%s\",\"grid\":%d,\"block\":%d,\"smem\":%d,\"cta\":%d,\"sm\":%u,\"c0\":%llu,\"c1\":%llu,"
           "\"t0\":%llu,\"t1\":%llu}\n", cs, grid, block, smem, i, x.sm, x.c0, x.c1, x.t0, x.t1);
  }
}

int main() {
  setvbuf(stdout, NULL, _IOFBF, 1 << 20);
  const int kSmem = 200 * 1024;
  CK(cudaFuncSetAttribute(starts_k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  const int kMax = 132 * 16;
  Rec* d;
  CK(cudaMalloc(&d, kMax * sizeof(Rec)));
  std::vector<Rec> h(kMax);
  for (int i = 0; i < 4; i++) starts_k<<<132, 256>>>(d);   // warm-up
  CK_LAUNCH();
  for (int rep = 0; rep < 3; rep++) {
    run("first_wave", 132, 256, 0, false, d, h);
    run("two_per_sm", 264, 256, 0, false, d, h);
    run("two_per_sm", 1056, 256, 0, false, d, h);
    run("one_slot", 132 * 16, 32, kSmem, false, d, h);
    run("param", 132, 256, 0, true, d, h);
  }
  printf("DONE %s\n", g_fail ? "CHECKS FAILED" : "all checks passed");
  return g_fail;
}
