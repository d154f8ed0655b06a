// memload.cu: where does a load's latency under streaming traffic come from - the DRAM or the path to it?
// (docs/calibration.md 5e/5l, helper memfid2). No profiler: clock64 inside the kernel.
//
// memlat.cu showed a warp's DRAM load growing from 807 cycles alone to 890 / 1032 / 1324 with 1,056 /
// 2,112 / 4,224 warps loading at once (25 / 43 / 65 % of DRAM bandwidth). A DRAM bus or bank queue of
// the documented HBM3 sizes gives far less than that at these loads. This benchmark separates the two:
// one probe thread per SM (warp 0, lane 0 of CTAs 0..131) walks a dependent chain of cold lines (pdram:
// DRAM misses; pl2: lines resident in the L2) while the other warps of the grid stream in the background:
//   none     no background (the probe alone; 132 probes at once)
//   l2rd     float4 reads of a 16 MiB buffer resident in the L2 (loads the SM->L2 path, not the DRAM)
//   dramrd   float4 reads of a 2 GiB buffer (DRAM reads)
//   dramcp   float4 copy of a 1 GiB buffer to another (DRAM reads and writes)
// with m = 1, 2, 4, 8 CTAs of 256 threads per SM (7, 15, 31, 63 background warps per SM), each background
// warp keeping `ilp` (1 or 2) float4 loads in flight (independent, unrolled). The background runs until every
// probe has finished. Printed per configuration: probe cycles per hop (mean over probes, p50/p90 of the
// per-hop samples) and the background's bytes per SM cycle (moved / elapsed, clock64 of CTA 0's probe).
// If pl2's hop grows with dramrd as pdram's does, the wait is on the SM<->L2 path; if only pdram's grows,
// it is in the DRAM / L2-miss path; l2rd vs dramrd at equal bytes/cycle says whether DRAM traffic matters.
// usage: memload > memload.txt   (~10 s)
#include <cstdio>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "common.cuh"   // CK()

#define HOPS 256
#define NPROBE 132
#define REGION (4u << 20)          // bytes of one probe's chain region (2 x 2 MiB pages)

struct Ctl { unsigned done; unsigned pad[31]; };

__global__ void touch(const float4* p, size_t n4, float* sink) {   // read-only: evicts with clean lines
  float acc = 0.f;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    acc += __ldcg(p + i).x;
  if (acc == -1234.5f) sink[0] = acc;
}

__global__ void __launch_bounds__(256, 8) memload(const unsigned* chain, int mode, int ilp, const float4* src, float4* dst,
                        unsigned long long n4, Ctl* ctl, unsigned* hop_cycles, unsigned long long* moved,
                        unsigned long long* probe_elapsed) {
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (blockIdx.x < NPROBE && warp == 0) {
    if (lane == 0) {
      const unsigned* base = chain + (size_t)blockIdx.x * (REGION / 4);
      unsigned j = 0;
      long long t0 = clock64(), t = t0;
      for (int h = 0; h < HOPS; h++) {
        unsigned nj;
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(nj) : "l"(base + j) : "memory");
        j = nj;
        long long t2 = clock64();
        hop_cycles[blockIdx.x * HOPS + h] = (unsigned)(t2 - t);
        t = t2;
      }
      if (j == 0xffffffffu) hop_cycles[0] = 0;     // keep the chain live
      probe_elapsed[blockIdx.x] = (unsigned long long)(t - t0);
      __threadfence();
      atomicAdd(&ctl->done, 1u);
    }
    return;
  }
  if (mode == 0) return;
  // background: grid-stride float4 over n4 elements, ilp independent loads per trip, until all probes end
  unsigned long long nthr = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long bytes = 0;
  float acc = 0.f;
  for (int trip = 0;; trip++) {
    if ((trip & 7) == 0 && *(volatile unsigned*)&ctl->done >= NPROBE) break;
    float4 v[2];
#pragma unroll
    for (int k = 0; k < 2; k++)
      if (k < ilp) v[k] = __ldcg(src + ((i + k * nthr) & (n4 - 1)));
#pragma unroll
    for (int k = 0; k < 2; k++)
      if (k < ilp) {
        if (mode == 3) { __stcg(dst + ((i + k * nthr) & (n4 - 1)), v[k]); bytes += 16; }
        acc += v[k].x;
      }
    bytes += 16ull * ilp;
    i = (i + ilp * nthr) & (n4 - 1);
  }
  if (acc == -1234.5f) dst[0].x = acc;
  atomicAdd(moved, bytes);
}

// chain: in each probe's region, HOPS+1 distinct random 128-byte lines in a random cycle (word 0 of each)
static void build_chain(std::vector<unsigned>& h) {
  const unsigned lines = REGION / 128;
  std::vector<unsigned> pick(lines);
  unsigned long long s = 88172645463325252ull;
  auto rnd = [&]() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
  for (int p = 0; p < NPROBE; p++) {
    for (unsigned k = 0; k < lines; k++) pick[k] = k;
    for (unsigned k = 1; k <= HOPS + 1; k++) std::swap(pick[k], pick[k + rnd() % (lines - k)]);
    pick[0] = 0;
    unsigned* r = h.data() + (size_t)p * (REGION / 4);
    for (unsigned k = 0; k <= HOPS + 1; k++) r[pick[k] * 32] = pick[(k + 1) % (HOPS + 2)] * 32;
  }
}

int main() {
  const size_t MB = 1 << 20;
  const size_t chain_bytes = (size_t)NPROBE * REGION, rd_bytes = 2048 * MB, cp_bytes = 1024 * MB, l2_bytes = 16 * MB,
               flush_bytes = 512 * MB;
  unsigned *chain, *hop;
  float4 *big, *dst, *small;
  char* flush;
  Ctl* ctl;
  unsigned long long *moved, *pel;
  CK(cudaMalloc(&chain, chain_bytes)); CK(cudaMalloc(&big, rd_bytes)); CK(cudaMalloc(&dst, cp_bytes));
  CK(cudaMalloc(&small, l2_bytes)); CK(cudaMalloc(&flush, flush_bytes)); CK(cudaMalloc(&ctl, sizeof(Ctl)));
  CK(cudaMalloc(&hop, NPROBE * HOPS * 4)); CK(cudaMalloc(&moved, 8)); CK(cudaMalloc(&pel, NPROBE * 8));
  std::vector<unsigned> h(chain_bytes / 4, 0);
  build_chain(h);
  CK(cudaMemcpy(chain, h.data(), chain_bytes, cudaMemcpyHostToDevice));
  CK(cudaMemset(big, 0, rd_bytes)); CK(cudaMemset(dst, 0, cp_bytes)); CK(cudaMemset(small, 0, l2_bytes));
  int dev = 0, clk = 0;
  CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev));
  printf("# memload: probe = one thread per SM on a dependent chain of %d cold lines; cycles are clock64\n", HOPS);
  printf("# cols: probe bg m ilp | hop_mean hop_p50 hop_p90 | bg_B_per_clk (moved / probe 0 elapsed) | elapsed\n");
  const char* bgn[] = {"none", "l2rd", "dramrd", "dramcp"};
  struct Cfg { int probe, bg, m, ilp; };
  std::vector<Cfg> cs;
  for (int probe = 0; probe < 2; probe++) {
    cs.push_back({probe, 0, 1, 1});
    for (int bg = 1; bg < 4; bg++)
      for (int m : {1, 2, 4, 8}) cs.push_back({probe, bg, m, 1});
    for (int bg = 1; bg < 4; bg++) cs.push_back({probe, bg, 8, 2});
  }
  std::vector<unsigned> hh(NPROBE * HOPS);
  for (auto& c : cs) {
    for (int rep = 0; rep < 2; rep++) {       // rep 0 warms clocks and TLBs; rep 1 is printed
      touch<<<NPROBE * 8, 256>>>((const float4*)flush, flush_bytes / 16, (float*)dst);   // evicts the chains, clean
      CK_LAUNCH();
      if (c.probe == 1) {                       // pl2: bring the chain lines into the L2
        memload<<<NPROBE, 32>>>(chain, 0, 1, small, dst, 1, ctl, hop, moved, pel);
        CK_LAUNCH();
      }
      if (c.bg == 1) {                          // l2rd: warm the 16 MiB buffer
        touch<<<NPROBE * 8, 256>>>(small, l2_bytes / 16, (float*)dst);
        CK_LAUNCH();
      }
      CK(cudaMemset(ctl, 0, sizeof(Ctl))); CK(cudaMemset(moved, 0, 8));
      const float4* src = c.bg == 1 ? small : big;
      unsigned long long n4 = (c.bg == 1 ? l2_bytes : c.bg == 2 ? rd_bytes : cp_bytes) / 16;
      memload<<<NPROBE * c.m, 256>>>(chain, c.bg, c.ilp, src, dst, n4, ctl, hop, moved, pel);
      CK_LAUNCH();
    }
    unsigned long long mv = 0, pe[NPROBE];
    CK(cudaMemcpy(hh.data(), hop, hh.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&mv, moved, 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(pe, pel, sizeof pe, cudaMemcpyDeviceToHost));
    std::vector<unsigned> s(hh);
    double sum = 0;
    for (unsigned v : s) sum += v;
    std::sort(s.begin(), s.end());
    double el = 0;
    for (int p = 0; p < NPROBE; p++) el = std::max(el, (double)pe[p]);
    printf("RESULT %s %s m=%d ilp=%d hop_mean=%.1f hop_p50=%u hop_p90=%u bg_B_per_clk=%.1f elapsed=%.0f\n",
           c.probe ? "pl2" : "pdram", bgn[c.bg], c.m, c.ilp, sum / s.size(), s[s.size() / 2], s[s.size() * 9 / 10],
           mv / el, el);
    fflush(stdout);
  }
  printf("# SM clock attribute %d kHz\n", clk);
  return 0;
}
