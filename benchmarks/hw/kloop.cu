// kloop.cu: the memory side of a Triton K loop on its own: k-tiles of cp.async.cg (16 B per thread per copy)
// into shared memory, commit_group, cp.async.wait_group STAGES-1, bar.sync, one ld.shared per thread of the
// tile just landed, bar.sync (docs/calibration.md, section 5i). Against it the same loop with ld.global.v4 +
// st.shared (what the model's calibrated global loads already cover), so the difference is what cp.async's
// fill path into shared memory and its group wait add.
//
// Per CTA, thread 0 reads clock64 after the prologue's bar.sync and after the loop: cycles per k-tile =
// (t1 - t0) / iters. RESULT value: the median over CTAs; also min and max over CTAs.
//   stages 1: issue tile k, commit, wait_group 0   (the whole latency is exposed once per tile)
//   stages 2: issue tile k+1, commit, wait_group 1 (resnet18's convolution templates: one tile in flight)
//   stages 3: issue tile k+2, commit, wait_group 2
//   cp:     16-byte copies per thread per tile (1, 4); threads 128 or 256; ctas 1, 132 (one per SM), 264
//   mode l2:   each CTA reads its own 32 KiB again and again, brought into L2 by a first launch
//   mode dram: every tile a fresh address (the whole grid reads 8-132 MiB once), L2 flushed before by
//              writing a 256 MiB scratch buffer
//   mode hotW: every CTA reads the same W bytes (4 KiB .. 1 MiB, L2-resident after a first launch): a GEMM's
//              shared operand tile, which only the few L2 slices holding it can serve (per-slice bandwidth
//              against the per-SM port: 132 or 264 CTAs, stages 3 and ld.global, 4 copies x 256 threads)
//   (hot is the number of groups of CTAs that share data: CTA b reads its group's (b % hot) region)
//   mode shdram: every CTA reads the same fresh tiles (512 KiB in all, each tile once per CTA), L2 flushed
//              before as in dram mode: a GEMM's shared operand on its first pass, so every line's first read
//              misses and the other CTAs' reads of it arrive while that miss is in flight (with ncu: which of
//              them the L2 looks up, merges in front of the slices, and counts as hits)
//   mode shdramG (G = 2, 8, 33, 66): the same in G groups (CTA b reads group b % G's 512 KiB): 132/G CTAs share
//              each tile, and G times as many distinct lines are in flight (a GEMM's operand tiles shared by a
//              row or column of CTAs); does the merging in front of the slices hold up?
//   mode shdramskD (D = 16, 64, 256): shdram with CTA b starting its loop b x D cycles late (its own clock): the
//              reads of a line arrive D, 2D, ... cycles apart; how long after a read does the next one still merge?
// usage: kloop [MODE ...]   (prints RESULT {json} lines; no ncu needed; ~5 s; default: every mode)
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "common.cuh"   // CK(), emit()

static __device__ __forceinline__ unsigned long long clk() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

template <int STAGES>
static __device__ __forceinline__ void wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1) : "memory");
}

// element (int4 units) that thread `tid` copies as copy c of tile k
static __device__ __forceinline__ unsigned long long elem(int k, int c, int cp, int tid, int T, unsigned long long cta_base,
                                                          unsigned long long wrap) {
  unsigned long long e = ((unsigned long long)k * cp + c) * T + tid;
  if (wrap) e &= wrap - 1;                 // every wrap is a power of two (a 64-bit % is a long SASS subroutine)
  return cta_base + e;
}

template <int STAGES>
__global__ void kloop_cp(const int4* __restrict__ src, int cp, int iters, unsigned long long wrap, int hot,
                         unsigned long long* cyc, int* sink) {
  extern __shared__ int4 sm[];
  const int T = blockDim.x, tid = threadIdx.x;
  const int groups = hot & 0xffff, skew = hot >> 16;      // shdram modes: groups of CTAs, a start skew per CTA
  if (skew) {
    unsigned long long ts = clk();
    while (clk() - ts < (unsigned long long)blockIdx.x * skew) {}
  }
  unsigned long long base = hot ? (unsigned long long)(blockIdx.x % groups) * (wrap ? wrap : (unsigned long long)iters * cp * T)
                                 : wrap ? (unsigned long long)blockIdx.x * wrap
                                            : (unsigned long long)blockIdx.x * iters * cp * T;
  unsigned sbase = (unsigned)__cvta_generic_to_shared(sm);
  for (int s = 0; s < STAGES - 1; s++) {
    for (int c = 0; c < cp; c++) {
      unsigned d = sbase + (unsigned)(((s % STAGES) * cp + c) * T + tid) * 16u;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src + elem(s, c, cp, tid, T, base, wrap)) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  __syncthreads();
  unsigned long long t0 = clk();
  int acc = 0;
  for (int k = 0; k < iters; k++) {
    int kn = k + STAGES - 1;
    if (kn < iters) {
      for (int c = 0; c < cp; c++) {
        unsigned d = sbase + (unsigned)(((kn % STAGES) * cp + c) * T + tid) * 16u;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src + elem(kn, c, cp, tid, T, base, wrap)) : "memory");
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    wait_group<STAGES>();
    __syncthreads();
    acc += sm[((k % STAGES) * cp) * T + (tid ^ 1)].x;
    __syncthreads();
  }
  unsigned long long t1 = clk();
  if (tid == 0) cyc[blockIdx.x] = t1 - t0;
  if (acc == 0x7fffffff) sink[0] = acc;
}

// the same tile loop with ld.global.v4 into registers, then st.shared (one stage)
__global__ void kloop_ldg(const int4* __restrict__ src, int cp, int iters, unsigned long long wrap, int hot,
                          unsigned long long* cyc, int* sink) {
  extern __shared__ int4 sm[];
  const int T = blockDim.x, tid = threadIdx.x;
  const int groups = hot & 0xffff, skew = hot >> 16;      // shdram modes: groups of CTAs, a start skew per CTA
  if (skew) {
    unsigned long long ts = clk();
    while (clk() - ts < (unsigned long long)blockIdx.x * skew) {}
  }
  unsigned long long base = hot ? (unsigned long long)(blockIdx.x % groups) * (wrap ? wrap : (unsigned long long)iters * cp * T)
                                 : wrap ? (unsigned long long)blockIdx.x * wrap
                                            : (unsigned long long)blockIdx.x * iters * cp * T;
  __syncthreads();
  unsigned long long t0 = clk();
  int acc = 0;
  for (int k = 0; k < iters; k++) {
    int4 v[4];
    for (int c = 0; c < 4; c++)
      if (c < cp) v[c] = __ldcg(src + elem(k, c, cp, tid, T, base, wrap));
    for (int c = 0; c < 4; c++)
      if (c < cp) sm[c * T + tid] = v[c];
    __syncthreads();
    acc += sm[tid ^ 1].x;
    __syncthreads();
  }
  unsigned long long t1 = clk();
  if (tid == 0) cyc[blockIdx.x] = t1 - t0;
  if (acc == 0x7fffffff) sink[0] = acc;
}

__global__ void scrub(int4* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_int4((int)i, 1, 2, 3);
}

typedef void (*kfn)(const int4*, int, int, unsigned long long, int, unsigned long long*, int*);

int main(int argc, char** argv) {
  int nsm = 0;
  CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
  const int iters = 32;
  const size_t src_bytes = (size_t)264 * iters * 4 * 256 * 16;     // 132 MiB: dram mode's largest grid
  const size_t scr_bytes = (size_t)256 << 20;
  int4 *src, *scr;
  unsigned long long* cyc;
  int* sink;
  CK(cudaMalloc(&src, src_bytes));
  CK(cudaMalloc(&scr, scr_bytes));
  CK(cudaMalloc(&cyc, 1024 * sizeof(unsigned long long)));
  CK(cudaMalloc(&sink, 64));
  scrub<<<1024, 256>>>(src, src_bytes / 16);
  CK_LAUNCH();
  struct K { const char* name; kfn f; int stages; };
  K ks[] = {{"cp", kloop_cp<1>, 1}, {"cp", kloop_cp<2>, 2}, {"cp", kloop_cp<3>, 3}, {"ldg", kloop_ldg, 1}};
  for (auto& k : ks) CK(cudaFuncSetAttribute(k.f, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  double mhz = sm_clock_mhz();
  spin_all_sms(50);
  const int ctas_list[] = {1, nsm, 2 * nsm};
  const int cps[] = {1, 4};
  const int threads[] = {128, 256};
  const char* modes[] = {"l2", "dram", "hot4k", "hot16k", "hot64k", "hot1m", "shdram",
                         "shdram2", "shdram8", "shdram33", "shdram66", "shdramsk16", "shdramsk64", "shdramsk256"};
  for (const char* mode : modes) {
    bool picked = argc < 2;
    for (int a = 1; a < argc; a++) picked |= strcmp(argv[a], mode) == 0;
    if (!picked) continue;
    for (auto& k : ks)
      for (int cp : cps)
        for (int T : threads)
          for (int ctas : ctas_list) {
            bool shared_cold = strncmp(mode, "shdram", 6) == 0;
            int skew = shared_cold && mode[6] == 's' ? atoi(mode + 8) : 0;
            int groups = shared_cold && mode[6] && !skew ? atoi(mode + 6) : 1;
            bool dram = mode[0] == 'd' || shared_cold;
            int hot = mode[0] == 'h' ? 1 : shared_cold ? groups | skew << 16 : 0;
            if ((groups > 1 || skew) && (ctas == 1 || (k.name[0] == 'c' && k.stages != 3))) continue;
            // shared cold: cp.async stages 1 and 3 and ld.global, 4 copies x 256 threads, 1 / 132 / 264 CTAs
            if (shared_cold && (cp != 4 || T != 256 || (k.name[0] == 'c' && k.stages == 2))) continue;
            // hot modes: every CTA reads the same region (4 KiB .. 1 MiB), L2-resident: what a GEMM's shared
            // operand tile asks of the few L2 slices that hold it; only the deep loops at 256 threads
            if (hot && !shared_cold && (cp != 4 || T != 256 || ctas == 1 || (k.name[0] == 'c' && k.stages != 3))) continue;
            unsigned long long wrap = dram ? 0 : hot ? (unsigned long long)atoi(mode + 3) * (mode[strlen(mode) - 1] == 'm' ? 65536 : 64)
                                                    : 2048;     // 32 KiB per CTA in l2 mode
            size_t smem = (size_t)k.stages * cp * T * 16;
            if (k.stages == 1 && k.name[0] == 'l') smem = (size_t)4 * T * 16;
            if (dram) {
              scrub<<<1024, 256>>>(scr, scr_bytes / 16);
              CK_LAUNCH();
            } else {
              k.f<<<ctas, T, smem>>>(src, cp, iters, wrap, hot, cyc, sink);   // bring the lines into L2
              CK_LAUNCH();
            }
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0));
            CK(cudaEventCreate(&e1));
            CK(cudaEventRecord(e0));
            k.f<<<ctas, T, smem>>>(src, cp, iters, wrap, hot, cyc, sink);
            CK(cudaEventRecord(e1));
            CK_LAUNCH();
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            std::vector<unsigned long long> v(ctas);
            CK(cudaMemcpy(v.data(), cyc, ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            std::sort(v.begin(), v.end());
            char nm[128];
            snprintf(nm, sizeof nm, "%s_s%d_cp%d_t%d_c%d_%s", k.name, k.stages, cp, T, ctas, mode);
            printf("RESULT {\"name\":\"%s\",\"kind\":\"%s\",\"stages\":%d,\"cp\":%d,\"threads\":%d,\"ctas\":%d,"
                   "\"mode\":\"%s\",\"iters\":%d,\"cyc_per_tile_median\":%.1f,\"cyc_per_tile_min\":%.1f,"
                   "\"cyc_per_tile_max\":%.1f,\"event_us\":%.2f,\"sm_mhz\":%.0f}\n",
                   nm, k.name, k.stages, cp, T, ctas, mode, iters, (double)v[ctas / 2] / iters,
                   (double)v[0] / iters, (double)v[ctas - 1] / iters, ms * 1000.0, mhz);
            fflush(stdout);
            CK(cudaEventDestroy(e0));
            CK(cudaEventDestroy(e1));
          }
  }
  printf("DONE\n");
  return 0;
}
