// sched_fair.cu: how an SM's warp schedulers share issue slots and the LSU among resident warps that all
// want them (docs/calibration.md 4 lists "the warp scheduler's policy" as not measured; the model's
// sm.scheduler = gto was an estimate). Greedy-then-oldest starves the youngest warps while the oldest
// have work: warps finish in age order, the first long before the last. A round-robin policy keeps them
// together: they finish at about the same time.
//
// Every warp runs the same loop; lane 0 records smid, %warpid, its CTA and warp index, clock64 at its start
// and after each eighth of its iterations (c1..c8; c8 = its end). One line per warp:
//   L {mode} {ctas_per_sm} {iters} {warps}            (a launch; its W lines follow)
//   W {mode} {ctas_per_sm} {iters} {sm} {warpid} {cta} {warp} {c0} {c1} ... {c8}
// Modes (every warp the same work; one wave, ctas_per_sm CTAs of 256 threads on each of the 132 SMs):
//   ld_l1  8 independent ld.global.ca per iteration, each one 128-byte line of a 4 KiB block the CTA
//          re-reads (L1 hits after the first pass): the LSU's tag stage is the shared resource
//   ffma   8 independent chains of 4 dependent FFMA per iteration: the FP32 pipe / issue slot
//   ld_l2  8 independent ld.global.cg per iteration from a 16 MiB buffer held in the L2: L1 misses,
//          latency and the SM's L2 port
//   ld_bcast  as ld_l1, every lane on the same address: one 32-byte sector per request (the conv2d suite
//          kernel's filter loads are such broadcasts): is the L1 tag stage 1 request per cycle whatever the
//          data, or does a 1-sector request cost less than a 128-byte one?
//   ld_2line  as ld_l1, 4 bytes further: every request spans two lines (conv2d's shifted input rows):
//          2 tag lookups per request, or 1?
//   ld_8line  4 lanes per line, 16 bytes each, 8 lines per request (the driver JIT's 32-bit LDGs of a
//          wmma fragment: 8 rows x 16 bytes; hgemm_wmma_simple)
//   ld_32line every lane its own line (4 bytes of it): 32 lines per request (64 iterations)
// The SM's last warp end - first warp start (cycles_median in the summary) gives each mode's throughput:
// ld_l1/ld_bcast/ld_2line/ld_8line issue 64 warps x 256 iterations x 8 requests = 131,072 requests per SM
// at 8 CTAs per SM (ld_32line 32,768).
// sched_fair_summary.py turns the lines into per-configuration figures (first and median warp end
// against the SM's last, rank correlation of end time with age); benchmarks/hw/sim_fair.py runs the
// same PTX in the model with each scheduler policy and prints the same figures.
// Self-check: every warp wrote its record (sm < num_sms, c0 <= c1 <= ... <= c8), else CHECK_FAIL, exit 1.
// Build + run (< 10 s):
//   nvcc -O3 -arch=sm_90 -o build/sched_fair sched_fair.cu && ./build/sched_fair > sched_fair.out
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "common.cuh"   // CK, CK_LAUNCH, smid, num_sms, spin_all_sms, l2_touch

struct WRec {
  unsigned long long c[9];
  unsigned sm, warpid, cta, warp;
};

static __device__ __forceinline__ unsigned warpid_hw() {
  unsigned r;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(r));
  return r;
}
// eight loads of one lane, 128 bytes apart (eight lines), immediate offsets: one address per iteration
#define LD8(Q, p, v)                                                                        \
  asm volatile("ld.global." Q ".f32 %0, [%8];\n\tld.global." Q ".f32 %1, [%8+128];\n\t"     \
               "ld.global." Q ".f32 %2, [%8+256];\n\tld.global." Q ".f32 %3, [%8+384];\n\t" \
               "ld.global." Q ".f32 %4, [%8+512];\n\tld.global." Q ".f32 %5, [%8+640];\n\t" \
               "ld.global." Q ".f32 %6, [%8+768];\n\tld.global." Q ".f32 %7, [%8+896];"      \
               : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]), "=f"(v[4]), "=f"(v[5]),       \
                 "=f"(v[6]), "=f"(v[7])                                                      \
               : "l"(p))
static __device__ __forceinline__ float ffma(float a, float b, float c) {
  float d;
  asm volatile("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
  return d;
}

// MODE 0 ld_l1, 1 ffma, 2 ld_l2, 3 ld_bcast, 4 ld_2line, 5 ld_8line, 6 ld_32line (as ld_l1 apart from the
// lanes' offsets; loads past a CTA's 4 KiB block read the next one's, all L1 hits after the first pass). iters is a multiple of 8. mask/stride (floats) are run-time values: 1023, 256
// for ld_l1 (the CTA's 4 KiB block, 8 lines per iteration); (16 MiB / 4) - 1, 256 x the launch's warps for ld_l2.
template <int MODE>
__global__ void __launch_bounds__(256, 8) fair_k(const float* __restrict__ buf, unsigned mask, unsigned stride, int iters, float fa,
                       float* sink, WRec* rec) {
  unsigned long long c0 = clock64();
  const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const unsigned gw = blockIdx.x * (blockDim.x >> 5) + w;
  const float* b = MODE == 2 ? buf : buf + blockIdx.x * 1024u;
  unsigned off = MODE == 2 ? gw * 256u + lane : MODE == 3 ? 0u : MODE == 4 ? lane + 1u
               : MODE == 5 ? (lane >> 2) * 32u + (lane & 3) : MODE == 6 ? lane * 32u : lane;
  float a0 = fa, a1 = fa + 1, a2 = fa + 2, a3 = fa + 3, a4 = fa + 4, a5 = fa + 5, a6 = fa + 6, a7 = fa + 7;
  unsigned long long cp[8];
  const int step = iters / 8;
#pragma unroll
  for (int k = 0; k < 8; k++) {
    for (int i = 0; i < step; i++) {
      if (MODE == 1) {
#pragma unroll
        for (int r = 0; r < 4; r++) {
          a0 = ffma(a0, fa, 0.5f); a1 = ffma(a1, fa, 0.5f); a2 = ffma(a2, fa, 0.5f); a3 = ffma(a3, fa, 0.5f);
          a4 = ffma(a4, fa, 0.5f); a5 = ffma(a5, fa, 0.5f); a6 = ffma(a6, fa, 0.5f); a7 = ffma(a7, fa, 0.5f);
        }
      } else {
        // ld_l1: the CTA's 4 KiB block, 1 KiB (8 lines) per iteration; ld_l2: 8 lines per warp per
        // iteration, the warps' runs next to each other, stepping through the 16 MiB buffer
        const float* p = b + (off & mask);
        float v[8];
        if (MODE == 2) LD8("cg", p, v);
        else LD8("ca", p, v);
        a0 += v[0]; a1 += v[1]; a2 += v[2]; a3 += v[3]; a4 += v[4]; a5 += v[5]; a6 += v[6]; a7 += v[7];
        off += stride;
      }
    }
    cp[k] = clock64();
  }
  float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (s == 12345.678f) sink[0] = s;   // never true for the inputs used; keeps the work
  if (lane == 0) {
    WRec r;
    r.c[0] = c0;
#pragma unroll
    for (int k = 0; k < 8; k++) r.c[k + 1] = cp[k];
    r.sm = smid();
    r.warpid = warpid_hw();
    r.cta = blockIdx.x;
    r.warp = w;
    rec[gw] = r;
  }
}

static const char* kModeName[7] = {"ld_l1", "ffma", "ld_l2", "ld_bcast", "ld_2line", "ld_8line", "ld_32line"};
static int g_fail = 0;

template <int MODE>
static void run(int ctas_per_sm, int iters, const float* buf, float* sink, WRec* d, std::vector<WRec>& h) {
  const int nsm = num_sms(), grid = nsm * ctas_per_sm, block = 256, nw = grid * block / 32;
  unsigned mask = MODE != 2 ? 1023u : (16u << 20) / 4 - 1, stride = MODE != 2 ? 256u : 256u * nw;
  if (MODE == 2) {   // the 16 MiB buffer into the L2 (ld.global.cg: the L1 keeps nothing)
    l2_touch<<<nsm * 4, 512>>>((const uint4*)buf, (16u << 20) / 16, (unsigned long long*)sink + 8);
    CK_LAUNCH();
  }
  CK(cudaMemset(d, 0, sizeof(WRec) * nw));
  fair_k<MODE><<<grid, block>>>(buf, mask, stride, iters, 0.999f, sink, d);
  CK_LAUNCH();
  h.resize(nw);
  CK(cudaMemcpy(h.data(), d, sizeof(WRec) * nw, cudaMemcpyDeviceToHost));
  printf("L %s %d %d %d\n", kModeName[MODE], ctas_per_sm, iters, nw);
  for (int i = 0; i < nw; i++) {
    const WRec& r = h[i];
    bool ok = r.sm < (unsigned)nsm;
    for (int k = 0; k < 8; k++) ok = ok && r.c[k] <= r.c[k + 1];
    if (!ok) {
      printf("CHECK_FAIL mode %s ctas_per_sm %d warp %d\n", kModeName[MODE], ctas_per_sm, i);
      g_fail = 1;
      continue;
    }
    printf("W %s %d %d %u %u %u %u", kModeName[MODE], ctas_per_sm, iters, r.sm, r.warpid, r.cta, r.warp);
    for (int k = 0; k < 9; k++) printf(" %llu", r.c[k]);
    printf("\n");
  }
}

int main() {
  const int nsm = num_sms();
  float *buf, *sink;
  WRec* d;
  CK(cudaMalloc(&buf, 16u << 20));
  CK(cudaMemset(buf, 0, 16u << 20));
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMalloc(&d, sizeof(WRec) * nsm * 8 * 8));
  std::vector<WRec> h;
  spin_all_sms(50);
  run<0>(8, 256, buf, sink, d, h);   // warm-up pass of the same launch (its lines are printed too, mode tag
                                     // and all; sched_fair_summary.py keeps the last launch of a configuration)
  for (int cps : {8, 2}) {
    run<0>(cps, 256, buf, sink, d, h);
    run<1>(cps, 256, buf, sink, d, h);
    run<2>(cps, 128, buf, sink, d, h);
    run<3>(cps, 256, buf, sink, d, h);
    run<4>(cps, 256, buf, sink, d, h);
    run<5>(cps, 256, buf, sink, d, h);
    run<6>(cps, 64, buf, sink, d, h);
  }
  printf("DONE fail=%d\n", g_fail);
  return g_fail;
}
