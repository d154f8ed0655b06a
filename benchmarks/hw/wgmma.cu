// wgmma.cu: Hopper's warpgroup tensor-core path (wgmma.mma_async, sm_90a), operands A and B from
// shared-memory descriptors (or A from registers), measured with clock64 per warpgroup.
//   latency    one warpgroup: {fence; 1 wgmma; commit; wait_group 0} repeated: issue to result
//   chain      one warpgroup: {fence; U wgmma on ONE accumulator; commit; wait_group 0}: the rate of
//              back-to-back dependent wgmma (a GEMM's k-loop), U = 16 or 4 (one BK = 64 tile)
//   indep      as chain with 2 accumulators alternating
//   pipe       U = 4 per group and wait_group 1 (one group kept in flight)
//   multi      2..4 warpgroups of one CTA, each a chain: the SM's tensor throughput
//   waitonly   {fence; commit; wait_group 0} with no wgmma: the cost of the group bookkeeping
//   overlap    chain groups of 4 plus ld.global.cg.v4 loads issued between commit and wait (same
//              warpgroup), or by a second warpgroup; loads alone as the baseline; L2-resident or DRAM
// One CTA per SM (120 KiB dynamic shared memory), 132 CTAs; figures are medians over the SMs and 3
// launches. The swizzled layout is the one GEMMs use (128-byte swizzle, K-major, BK = 64: the 4 k16
// steps of a tile advance the descriptors' start by 32 bytes); "noswz" is the interleaved layout.
// Self-check: every form runs once with 4 steps and compares D with the host's product (exact small
// integers), and every f32/s32 timing run's D is checked too; failures print CHECK_FAIL and exit 1.
#include "common.cuh"
#include "wgmma_ops.cuh"
#include <cuda_fp16.h>
#include <cmath>

static int g_fail = 0;
static const int kSmemBytes = 120 * 1024;      // one CTA per SM
static const int kBOff = 8192;                 // B image offset in the tile area (A: 64 rows x 128 B max)

static int Aval(int m, int k) { return ((m * 3 + k * 5 + (m * k) % 3) % 5) - 2; }
static int Bval(int n, int k) { return ((n * 7 + k * 3 + (n * k) % 2) % 5) - 2; }
__device__ int dAval(int m, int k) { return ((m * 3 + k * 5 + (m * k) % 3) % 5) - 2; }

static unsigned encode(int dt, int v) {
  switch (dt) {
    case 0: { const unsigned t[5] = {0xC000, 0xBC00, 0, 0x3C00, 0x4000}; return t[v + 2]; }
    case 1: { const unsigned t[5] = {0xC000, 0xBF80, 0, 0x3F80, 0x4000}; return t[v + 2]; }
    case 2: { float f = (float)v; unsigned u; memcpy(&u, &f, 4); return u; }
    case 3: { const unsigned t[5] = {0xC0, 0xB8, 0, 0x38, 0x40}; return t[v + 2]; }
    default: return (unsigned)v & 0xffu;
  }
}
static int esize(int dt) { return dt == 2 ? 4 : dt >= 3 ? 1 : 2; }

// byte offset of element (mn, byte kb of the row) in a K-major tile
static unsigned offs(int sw, int mn, int kb) {
  if (!sw) return (mn % 8) * 16 + (mn / 8) * 256 + (kb % 16) + (kb / 16) * 128;  // LBO 128, SBO 256
  unsigned o = (mn % 8) * 128 + (mn / 8) * 1024 + kb;                               // SBO 1024
  return o ^ (((o >> 7) & 7u) << 4);
}
// tile image: A (64 rows) at 0, B (N rows) at kBOff; row bytes 32 (noswz) or 128 (swizzled: 4 k-steps)
static std::vector<unsigned char> image(int dt, int N, int sw) {
  std::vector<unsigned char> img(kBOff + 256 * 128, 0);
  int es = esize(dt), rowb = sw ? 128 : 32;
  for (int m = 0; m < 64; m++)
    for (int kb = 0; kb < rowb; kb += es) {
      unsigned v = encode(dt, Aval(m, kb / es));
      memcpy(&img[offs(sw, m, kb)], &v, es);
    }
  for (int n = 0; n < N; n++)
    for (int kb = 0; kb < rowb; kb += es) {
      unsigned v = encode(dt, Bval(n, kb / es));
      memcpy(&img[kBOff + offs(sw, n, kb)], &v, es);
    }
  return img;
}

struct Params {
  const uint4* img;
  int img_bytes, sw, iters, mma_wgs, nload;
  const uint4* gbuf;
  unsigned long long gmask16;  // (16-byte words of gbuf) - 1, a power of two minus one
  unsigned long long *cyc, *icyc, *sink;
  float* dout;
};

static __device__ __forceinline__ unsigned long long mkdesc(unsigned addr, unsigned lbo, unsigned sbo, int sw) {
  return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)((lbo >> 4) & 0x3FFF) << 16) |
         ((unsigned long long)((sbo >> 4) & 0x3FFF) << 32) | (sw ? (1ull << 62) : 0ull);
}
static __device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
static __device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int W>
static __device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(W) : "memory"); }
static __device__ __forceinline__ uint4 ldcg(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

// Op: the wgmma form; NACC accumulators used in turn; U wgmma per group (0: none); groups end with
// wait_group WAITN; MAXT: launch bound.
template <class Op, int NACC, int U, int WAITN, int MAXT>
__global__ void __launch_bounds__(MAXT, 1) wg_kernel(Params p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned raw = (unsigned)__cvta_generic_to_shared(smem_raw);
  const unsigned base = (raw + 1023u) & ~1023u;
  unsigned char* tile = smem_raw + (base - raw);
  for (int i = threadIdx.x; i < p.img_bytes / 16; i += blockDim.x) ((uint4*)tile)[i] = p.img[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int wg = threadIdx.x / 128, lane = threadIdx.x % 32, rank = (threadIdx.x % 128) / 32;
  const size_t nthreads = (size_t)gridDim.x * blockDim.x, gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t lcount = 0;
  unsigned lx = 0;
  unsigned long long c0 = 0, c1 = 0, ci = 0;
  if (wg < p.mma_wgs) {
    typename Op::acc_t d[NACC][Op::ND];
#pragma unroll
    for (int a = 0; a < NACC; a++)
#pragma unroll
      for (int i = 0; i < Op::ND; i++) d[a][i] = 0;
    unsigned ar[4];
    {
      const int g = lane / 4, t = lane % 4, r0 = 16 * rank + g;
      const int rows[4] = {r0, r0 + 8, r0, r0 + 8}, ks[4] = {2 * t, 2 * t, 2 * t + 8, 2 * t + 8};
#pragma unroll
      for (int i = 0; i < 4; i++) {
        __half lo = __int2half_rn(dAval(rows[i], ks[i])), hi = __int2half_rn(dAval(rows[i], ks[i] + 1));
        ar[i] = (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
      }
    }
    const unsigned lbo = p.sw ? 16 : 128, sbo = p.sw ? 1024 : 256;
    const unsigned long long dA = mkdesc(base, lbo, sbo, p.sw), dB = mkdesc(base + kBOff, lbo, sbo, p.sw);
    const unsigned kstep = p.sw ? 2u : 0u;   // +32 bytes per k16 step, in descriptor units (>> 4)
    for (int it = 0; it <= p.iters; it++) {
      if (it == 1) {  // every warpgroup of the CTA starts its clock together
        wg_wait<0>();
        asm volatile("bar.sync 0;" ::: "memory");
        c0 = clock64();
      }
#pragma unroll
      for (int q = 0; q < 4; q++) {
        unsigned long long cs = clock64();
        wg_fence();
#pragma unroll
        for (int u = 0; u < U; u++) {
          const unsigned j = (unsigned)(q * U + u) & 3u;
          if constexpr (Op::RS) Op::mma(d[u % NACC], ar, dB + j * kstep, 1u);
          else Op::mma(d[u % NACC], dA + j * kstep, dB + j * kstep, 1u);
        }
        wg_commit();
        ci += clock64() - cs;
        for (int l = 0; l < p.nload; l++, lcount++) {
          uint4 v = ldcg(p.gbuf + ((gtid + lcount * nthreads) & p.gmask16));
          lx ^= v.x ^ v.y ^ v.z ^ v.w;
        }
        wg_wait<WAITN>();
      }
    }
    wg_wait<0>();
    c1 = clock64();
    if (blockIdx.x == 0 && wg == 0) {  // D of warpgroup 0, summed over the accumulators, as floats
#pragma unroll
      for (int i = 0; i < Op::ND; i++) {
        if constexpr (Op::ACC == 1) {
          float lo = 0, hi = 0;
#pragma unroll
          for (int a = 0; a < NACC; a++) {
            __half2 h = *reinterpret_cast<__half2*>(&d[a][i]);
            lo += __low2float(h);
            hi += __high2float(h);
          }
          const int j = i / 2, hrow = i % 2;
          p.dout[threadIdx.x * (Op::N / 2) + j * 4 + hrow * 2] = lo;
          p.dout[threadIdx.x * (Op::N / 2) + j * 4 + hrow * 2 + 1] = hi;
        } else {
          float s = 0;
#pragma unroll
          for (int a = 0; a < NACC; a++) s += (float)d[a][i];
          p.dout[threadIdx.x * Op::ND + i] = s;
        }
      }
    }
  } else if (p.nload > 0) {  // a loads-only warpgroup: same loop, no wgmma
    for (int it = 0; it <= p.iters; it++) {
      if (it == 1) {
        asm volatile("bar.sync 0;" ::: "memory");
        c0 = clock64();
      }
#pragma unroll
      for (int q = 0; q < 4; q++)
        for (int l = 0; l < p.nload; l++, lcount++) {
          uint4 v = ldcg(p.gbuf + ((gtid + lcount * nthreads) & p.gmask16));
          lx ^= v.x ^ v.y ^ v.z ^ v.w;
        }
    }
    c1 = clock64();
  } else if (p.iters > 0) {  // an idle warpgroup still takes part in the start barrier
    asm volatile("bar.sync 0;" ::: "memory");
  }
  if (lx == 0x9e3779b9u) p.sink[0] = lx;
  if (threadIdx.x % 128 == 0) {
    p.cyc[blockIdx.x * 4 + wg] = c1 - c0;
    p.icyc[blockIdx.x * 4 + wg] = ci;
  }
}

struct Bufs {
  uint4 *img, *gbuf;
  unsigned long long *cyc, *icyc, *sink;
  float* dout;
  size_t gbytes;
};

// D expected for the form after `steps` k-steps (swizzled: steps cycle through 4 k-slices)
static bool check(const char* what, int dt, int acc, int N, int K, int sw, long steps, const float* got) {
  if (acc == 1 && steps > 4) return true;  // f16 accumulation is checked by the 4-step run only
  int slices = sw ? 4 : 1;
  long reps = steps / slices;
  int bad = 0;
  double worst = 0;
  for (int tid = 0; tid < 128; tid++) {
    int r = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    for (int i = 0; i < N / 2; i++) {
      int j = i / 4, e = i % 4, row = 16 * r + g + (e >= 2 ? 8 : 0), col = 8 * j + 2 * t + (e & 1);
      long ref = 0;
      for (int k = 0; k < K * slices; k++) ref += (long)Aval(row, k) * Bval(col, k);
      double want = (double)ref * reps, have = got[tid * (N / 2) + i];
      if (have != want) {
        if (!bad) printf("  mismatch %s: D[%d][%d] = %g, want %g\n", what, row, col, have, want);
        bad++;
        worst = fmax(worst, fabs(have - want));
      }
    }
  }
  if (bad) {
    printf("CHECK_FAIL {\"what\":\"%s\",\"bad\":%d,\"worst\":%g}\n", what, bad, worst);
    g_fail = 1;
  }
  return bad == 0;
}

struct Out {
  double cyc_per_group_wg0, cyc_max, issue_per_group;
  bool ok;
};

template <class Op, int NACC, int U, int WAITN, int MAXT>
static Out run(Bufs& b, int sw, int iters, int wgs, int mma_wgs, int nload, int gsel, int grid, bool do_check,
               const char* what) {
  auto kern = wg_kernel<Op, NACC, U, WAITN, MAXT>;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  std::vector<unsigned char> img = image(Op::DT, Op::N, sw);
  CK(cudaMemcpy(b.img, img.data(), img.size(), cudaMemcpyHostToDevice));
  Params p;
  p.img = b.img;
  p.img_bytes = (int)img.size();
  p.sw = sw;
  p.iters = iters;
  p.mma_wgs = mma_wgs;
  p.nload = nload;
  p.gbuf = b.gbuf;
  size_t words = gsel == 0 ? (16u << 20) / 16 : b.gbytes / 16;  // 16 MiB (L2) or the whole buffer (DRAM)
  p.gmask16 = words - 1;
  p.cyc = b.cyc;
  p.icyc = b.icyc;
  p.sink = b.sink;
  p.dout = b.dout;
  std::vector<double> w0, mx, is;
  Out o{0, 0, 0, true};
  const int reps = do_check && iters == 0 ? 1 : 3;
  for (int r = 0; r < reps; r++) {
    CK(cudaMemset(b.dout, 0, 128 * 128 * sizeof(float)));
    kern<<<grid, 128 * wgs, kSmemBytes>>>(p);
    CK_LAUNCH();
    std::vector<unsigned long long> c(grid * 4), ic(grid * 4);
    CK(cudaMemcpy(c.data(), b.cyc, grid * 4 * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ic.data(), b.icyc, grid * 4 * 8, cudaMemcpyDeviceToHost));
    for (int cta = 0; cta < grid; cta++) {
      double m = 0;
      for (int w = 0; w < wgs; w++) m = fmax(m, (double)c[cta * 4 + w]);
      w0.push_back((double)c[cta * 4] / (iters * 4.0));
      mx.push_back(m / (iters * 4.0));
      is.push_back((double)ic[cta * 4] / ((iters + 1) * 4.0));
    }
    if (Op::ACC != 1 || do_check) {
      std::vector<float> d(128 * (Op::N / 2));
      CK(cudaMemcpy(d.data(), b.dout, d.size() * 4, cudaMemcpyDeviceToHost));
      if (mma_wgs > 0 && U > 0)
        o.ok &= check(what, Op::DT, Op::ACC, Op::N, Op::K, sw, (long)(iters + 1) * 4 * U, d.data());
    }
  }
  if (iters > 0) {
    o.cyc_per_group_wg0 = stat_of(w0).med;
    o.cyc_max = stat_of(mx).med;
    o.issue_per_group = stat_of(is).med;
  }
  return o;
}

static const char* kDtName[5] = {"f16", "bf16", "tf32", "e4m3", "s8"};
static const char* kAccName[3] = {"f32", "f16", "s32"};

template <class Op, int NACC, int U, int WAITN, int MAXT = 128>
static void bench(Bufs& b, const char* group, int sw, int iters, int wgs = 1, int mma_wgs = 1, int nload = 0,
                  int gsel = 0) {
  char what[160];
  snprintf(what, sizeof what, "%s_%s_%s_u%d_acc%d_wait%d_wg%d_mma%d_ld%d_%s", group, Op::name, sw ? "sw128" : "noswz",
           U, NACC, WAITN, wgs, mma_wgs, nload, gsel ? "dram" : "l2");
  // self-check first: 4 k-steps (one group of 4 or four groups of 1), then the timed run
  static bool checked = false;
  if (!checked && mma_wgs > 0 && U > 0 && (U % 4 == 0 || U == 1)) {
    run<Op, NACC, U, WAITN, MAXT>(b, sw, 0, 1, 1, 0, 0, 1, true, what);
    checked = true;
  }
  Out o = run<Op, NACC, U, WAITN, MAXT>(b, sw, iters, wgs, mma_wgs, nload, gsel, num_sms(), false, what);
  const double steps = (double)(U > 0 ? U : 1);
  const double flops = 2.0 * 64 * Op::N * Op::K;
  Stat s{o.cyc_per_group_wg0, o.cyc_per_group_wg0, o.cyc_per_group_wg0, 3 * num_sms()};
  std::string extra = join({kv("n", Op::N), kv("k", Op::K), kv("wgmma_per_group", U), kv("accumulators", NACC),
                            kv("wait_group", WAITN), kv("warpgroups", wgs), kv("mma_warpgroups", mma_wgs),
                            kv("loads_per_thread_per_group", nload), kv("swizzle128", sw),
                            kv("cycles_per_wgmma", U > 0 ? o.cyc_per_group_wg0 / steps : 0),
                            kv("cycles_per_group_slowest_wg", o.cyc_max),
                            kv("issue_cycles_per_group", o.issue_per_group),
                            kv("sm_flop_per_clk", U > 0 && mma_wgs > 0 ? mma_wgs * steps * flops / o.cyc_max : 0),
                            kv("load_bytes_per_clk_sm",
                               nload > 0 ? (wgs - (mma_wgs == wgs ? 0 : mma_wgs)) * 128.0 * 16 * nload / o.cyc_max : 0),
                            kv("check_ok", o.ok ? 1 : 0)});
  std::string full = std::string(what);
  char dtype[64];
  snprintf(dtype, sizeof dtype, "\"a_type\":\"%s\",\"acc_type\":\"%s\",\"a_in_registers\":%d", kDtName[Op::DT],
           kAccName[Op::ACC], Op::RS);
  emit(group, full.c_str(), s, "cycles/group",
       "132 CTAs (one per SM), clock64 around iters x 4 groups per warpgroup; median over SMs x 3 launches",
       "wg_kernel", "HGMMA", extra + "," + dtype);
}

int main() {
  Bufs b;
  b.gbytes = 1ull << 31;
  CK(cudaMalloc(&b.img, kBOff + 256 * 128));
  CK(cudaMalloc(&b.gbuf, b.gbytes));
  CK(cudaMemset(b.gbuf, 1, b.gbytes));
  CK(cudaMalloc(&b.cyc, 4096 * 8));
  CK(cudaMalloc(&b.icyc, 4096 * 8));
  CK(cudaMalloc(&b.sink, 64));
  CK(cudaMalloc(&b.dout, 128 * 128 * sizeof(float)));
  emit_clock("wgmma", "start");
  const int IL = 64, IT = 32;  // iterations (x 4 groups) for latency and throughput runs

  // latency: one wgmma per group, wait 0
  bench<F16F32_N8, 1, 1, 0>(b, "latency", 1, IL);
  bench<F16F32_N16, 1, 1, 0>(b, "latency", 1, IL);
  bench<F16F32_N32, 1, 1, 0>(b, "latency", 1, IL);
  bench<F16F32_N64, 1, 1, 0>(b, "latency", 1, IL);
  bench<F16F32_N128, 1, 1, 0>(b, "latency", 1, IL);
  bench<F16F32_N256, 1, 1, 0>(b, "latency", 1, IL);
  bench<BF16F32_N64, 1, 1, 0>(b, "latency", 1, IL);
  bench<BF16F32_N256, 1, 1, 0>(b, "latency", 1, IL);
  bench<F16F16_N64, 1, 1, 0>(b, "latency", 1, IL);
  bench<F16F16_N256, 1, 1, 0>(b, "latency", 1, IL);
  bench<TF32F32_N64, 1, 1, 0>(b, "latency", 1, IL);
  bench<TF32F32_N256, 1, 1, 0>(b, "latency", 1, IL);
  bench<E4M3F32_N64, 1, 1, 0>(b, "latency", 1, IL);
  bench<E4M3F32_N256, 1, 1, 0>(b, "latency", 1, IL);
  bench<S8S32_N64, 1, 1, 0>(b, "latency", 1, IL);
  bench<S8S32_N256, 1, 1, 0>(b, "latency", 1, IL);
  bench<F16F32RS_N64, 1, 1, 0>(b, "latency", 0, IL);
  bench<F16F32RS_N256, 1, 1, 0>(b, "latency", 0, IL);
  // the no-swizzle layout (each warpgroup re-reads one k16 slice) for comparison
  // (separate check state: a different template instance per layout is not needed; the check runs per form)
  // chain: 16 dependent wgmma per group on one accumulator
  bench<F16F32_N8, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F32_N16, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F32_N32, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F32_N64, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F32_N128, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F32_N256, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F32_N64, 1, 16, 0>(b, "chain", 0, IT);
  bench<F16F32_N256, 1, 16, 0>(b, "chain", 0, IT);
  bench<BF16F32_N64, 1, 16, 0>(b, "chain", 1, IT);
  bench<BF16F32_N256, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F16_N64, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F16_N256, 1, 16, 0>(b, "chain", 1, IT);
  bench<TF32F32_N64, 1, 16, 0>(b, "chain", 1, IT);
  bench<TF32F32_N256, 1, 16, 0>(b, "chain", 1, IT);
  bench<E4M3F32_N64, 1, 16, 0>(b, "chain", 1, IT);
  bench<E4M3F32_N256, 1, 16, 0>(b, "chain", 1, IT);
  bench<S8S32_N64, 1, 16, 0>(b, "chain", 1, IT);
  bench<S8S32_N256, 1, 16, 0>(b, "chain", 1, IT);
  bench<F16F32RS_N64, 1, 16, 0>(b, "chain", 0, IT);
  bench<F16F32RS_N256, 1, 16, 0>(b, "chain", 0, IT);
  // GEMM k-tile: 4 wgmma per group (BK = 64), wait 0 or 1
  bench<F16F32_N64, 1, 4, 0>(b, "tile", 1, IT);
  bench<F16F32_N128, 1, 4, 0>(b, "tile", 1, IT);
  bench<F16F32_N256, 1, 4, 0>(b, "tile", 1, IT);
  bench<F16F32_N64, 1, 4, 1>(b, "tile", 1, IT);
  bench<F16F32_N128, 1, 4, 1>(b, "tile", 1, IT);
  bench<F16F32_N256, 1, 4, 1>(b, "tile", 1, IT);
  // two independent accumulators
  bench<F16F32_N32, 2, 16, 0>(b, "indep", 1, IT);
  bench<F16F32_N64, 2, 16, 0>(b, "indep", 1, IT);
  bench<F16F32_N128, 2, 16, 0>(b, "indep", 1, IT);
  // several warpgroups per SM
  bench<F16F32_N64, 1, 16, 0, 512>(b, "multi", 1, IT, 2, 2);
  bench<F16F32_N64, 1, 16, 0, 512>(b, "multi", 1, IT, 4, 4);
  bench<F16F32_N128, 1, 16, 0, 512>(b, "multi", 1, IT, 2, 2);
  bench<F16F32_N128, 1, 16, 0, 512>(b, "multi", 1, IT, 3, 3);
  bench<F16F32_N128, 1, 16, 0, 512>(b, "multi", 1, IT, 4, 4);
  bench<F16F32_N256, 1, 16, 0, 256>(b, "multi", 1, IT, 2, 2);
  bench<BF16F32_N256, 1, 16, 0, 256>(b, "multi", 1, IT, 2, 2);
  bench<TF32F32_N256, 1, 16, 0, 256>(b, "multi", 1, IT, 2, 2);
  bench<E4M3F32_N256, 1, 16, 0, 256>(b, "multi", 1, IT, 2, 2);
  bench<F16F32_N64, 1, 4, 0, 512>(b, "multi", 1, IT, 4, 4);
  // group bookkeeping alone
  bench<F16F32_N64, 1, 0, 0>(b, "waitonly", 1, IL);
  // overlap with global loads (16 B per load per thread), same warpgroup, L2-resident and DRAM
  for (int gsel : {0, 1}) {
    for (int nl : {2, 8}) {
      bench<F16F32_N128, 1, 4, 0>(b, "overlap", 1, IT, 1, 1, nl, gsel);
      bench<F16F32_N256, 1, 4, 0>(b, "overlap", 1, IT, 1, 1, nl, gsel);
      bench<F16F32_N128, 1, 4, 0>(b, "overlap", 1, IT, 1, 0, nl, gsel);             // loads alone
      bench<F16F32_N256, 1, 4, 0, 256>(b, "overlap", 1, IT, 2, 1, nl, gsel);        // a second warpgroup loads
      bench<F16F32_N128, 1, 4, 0, 256>(b, "overlap", 1, IT, 2, 0, nl, gsel);        // ... alone
    }
  }
  emit_clock("wgmma", "end");
  printf("DONE wgmma %s\n", g_fail ? "CHECKS FAILED" : "all checks passed");
  return g_fail;
}
