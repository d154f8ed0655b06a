// lat.cu: load-to-use latency by pointer chasing (one thread, dependent loads).
//
// Global memory: each node is an 8-byte device pointer to the next node; nodes sit at random
// 32-byte slots (one per sector) of a working set of S bytes, linked in a random cycle, so
// consecutive hops hit unrelated sectors and lines. Before timing, the whole working set is
// read by all SMs (ld.global.cg, fills L2) and, for ld.global.ca, swept by the chasing warp
// itself (fills its SM's L1 up to capacity). Timed: `hops` dependent loads between two clock64
// reads (and two %globaltimer reads, so every figure exists in cycles and in ns).
//
// Results (group "latency"): the curve over S = 16 KiB .. 2 GiB for .ca and .cg; the L1 hit,
// L2 hit and DRAM figures taken from it; a "cold" DRAM latency with TLB hits (1 MiB of lines in
// one 2 MiB page, L2 flushed, each line visited once); per-hop latency samples (percentiles,
// shows near/far L2 partitions); shared-memory and constant-cache chases.
#include "common.cuh"
#include <random>

static const int kSamples = 2048;

// CG=0: plain weak ld.global (default caching, allocates in L1; SASS LDG.E.64), the form CUDA
// code issues. CG=1: ld.global.cg (SASS LDG.E.64.STRONG.GPU): served by L2, not L1.
// CG=2: explicit ld.global.ca, which sm_90 assembles to LDG.E.64.STRONG.SM. CG=3: ld.global.nc
// (the read-only path of __ldg / const __restrict__; SASS LDG.E.64.CONSTANT).
template <int CG>
static __device__ __forceinline__ uint64_t ld_next(uint64_t p) {
  uint64_t r;
  if (CG == 1)
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  else if (CG == 2)
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  else if (CG == 3)
    asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  else
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}

// order_off[i]: byte offset of the i-th node of the cycle; node i points to node i+1 (mod m).
__global__ void build_chain(uint64_t* buf, const uint64_t* order_off, int m) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
    uint64_t nxt = order_off[(i + 1) % m];
    buf[order_off[i] / 8] = (uint64_t)buf + nxt;
  }
}

// One warp. For CG=0, the warp first sweeps sweep_bytes of the working set with ld.ca
// (one 32-byte sector per lane per step). Then lane 0 chases: warm hops, then timed hops.
// out: [cycles, ns, final pointer]
template <int CG>
__global__ void chase(uint64_t start, const char* base, size_t sweep_bytes, int warm, int hops,
                      unsigned long long* out) {
  if (CG != 1 && sweep_bytes) {
    uint64_t x = 0;
    for (size_t off = threadIdx.x * 32; off < sweep_bytes; off += 32 * 32)
      x ^= ld_next<0>((uint64_t)(base + off));
    if (x == 1) out[3] = x;
  }
  __syncwarp();
  if (threadIdx.x != 0) return;
  uint64_t p = start;
  for (int i = 0; i < warm; i++) p = ld_next<CG>(p);
  uint64_t g0 = gtimer_ns();
  uint64_t c0 = clock64();
  for (int i = 0; i < hops; i += 16) {
#pragma unroll
    for (int j = 0; j < 16; j++) p = ld_next<CG>(p);
  }
  uint64_t c1 = clock64();
  uint64_t g1 = gtimer_ns();
  out[0] = c1 - c0;
  out[1] = g1 - g0;
  out[2] = p;
}

// Per-hop samples: the store of the loaded value to shared memory cannot issue before the load
// completes, and the second clock read issues after that store (in-order issue), so each sample
// is one load's latency plus a small constant (STS issue + CS2R), reported separately.
template <int CG>
__global__ void chase_samples(uint64_t start, int warm, unsigned* out_cycles,
                              unsigned long long* out) {
  __shared__ unsigned s_t[kSamples];
  __shared__ uint64_t s_p[kSamples];
  uint64_t p = start;
  for (int i = 0; i < warm; i++) p = ld_next<CG>(p);
  for (int i = 0; i < kSamples; i++) {
    uint64_t c0 = clock64();
    p = ld_next<CG>(p);
    s_p[i] = p;
    uint64_t c1 = clock64();
    s_t[i] = (unsigned)(c1 - c0);
  }
  for (int i = 0; i < kSamples; i++) out_cycles[i] = s_t[i];
  out[2] = s_p[kSamples - 1];
}

static __device__ __forceinline__ unsigned smem_addr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
// Shared-memory chase: s[i] holds the shared-window address of s[next[i]].
__global__ void smem_chase(const unsigned* next, int n, int hops, unsigned long long* out) {
  __shared__ unsigned s[4096];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = smem_addr(&s[next[i]]);
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned a = smem_addr(&s[0]);
  for (int i = 0; i < 256; i++) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a) :: "memory");
  uint64_t c0 = clock64();
  for (int i = 0; i < hops; i += 16) {
#pragma unroll
    for (int j = 0; j < 16; j++) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a) :: "memory");
  }
  uint64_t c1 = clock64();
  out[0] = c1 - c0;
  out[2] = a;
}

// Constant-cache chase: cbuf holds byte offsets (relative to cbuf) of the next node.
// UNI=1: the offset is warp-uniform and the compiler keeps it in a uniform register (ULDC);
// UNI=0: the offset starts from threadIdx.x & zero_mask (zero at run time) so it lives in a
// vector register (LDC R, c[0x3][R]).
__constant__ unsigned cbuf[16384];
template <int UNI>
__global__ void const_chase(int warm, int hops, unsigned zero_mask, unsigned long long* out) {
  unsigned off = UNI ? 0u : (threadIdx.x & zero_mask);
  const char* b = (const char*)cbuf;
  for (int i = 0; i < warm; i++) off = *(const unsigned*)(b + off);
  uint64_t c0 = clock64();
  for (int i = 0; i < hops; i += 16) {
#pragma unroll
    for (int j = 0; j < 16; j++) off = *(const unsigned*)(b + off);
  }
  uint64_t c1 = clock64();
  out[0] = c1 - c0;
  out[2] = off;
}

// ---- host --------------------------------------------------------------------------------
static std::mt19937_64 rng(12345);
static unsigned long long* d_out;
static unsigned long long h_out[4];

static std::string size_name(size_t b) {
  char s[32];
  if (b >= (1u << 30)) snprintf(s, sizeof s, "%zuGiB", b >> 30);
  else if (b >= (1u << 20)) snprintf(s, sizeof s, "%zuMiB", b >> 20);
  else snprintf(s, sizeof s, "%zuKiB", b >> 10);
  return s;
}

// Builds a random cycle over min(S/slot, max_nodes) nodes, one per equal segment of [0, S),
// each at a random slot of its segment. Returns the start pointer.
static uint64_t make_chain(char* d_buf, size_t S, size_t slot, size_t max_nodes) {
  size_t nslots = S / slot, m = std::min(nslots, max_nodes), seg = nslots / m;
  std::vector<uint64_t> order(m);
  for (size_t i = 0; i < m; i++) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t i = 0; i < m; i++) order[i] = (order[i] * seg + rng() % seg) * slot;
  uint64_t* d_order;
  CK(cudaMalloc(&d_order, m * 8));
  CK(cudaMemcpy(d_order, order.data(), m * 8, cudaMemcpyHostToDevice));
  build_chain<<<256, 256>>>((uint64_t*)d_buf, d_order, (int)m);
  CK_LAUNCH();
  CK(cudaFree(d_order));
  return (uint64_t)d_buf + order[0];
}

static void touch(const char* d, size_t bytes) {
  l2_touch<<<num_sms() * 4, 512>>>((const uint4*)d, bytes / 16, d_out + 8);
  CK_LAUNCH();
}

template <int CG>
static void run_chase(uint64_t start, const char* base, size_t S, int warm, int hops, int reps,
                     Stat* sc, Stat* sn) {
  std::vector<double> vc, vn;
  for (int r = 0; r < reps; r++) {
    touch(base, S);
    chase<CG><<<1, 32>>>(start, base, CG == 1 ? 0 : std::min(S, (size_t)4 << 20), warm, hops,
                         d_out);
    CK_LAUNCH();
    CK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    vc.push_back((double)h_out[0] / hops);
    vn.push_back((double)h_out[1] / hops);
  }
  *sc = stat_of(vc);
  *sn = stat_of(vn);
}

static void emit_samples(const char* name, const char* kernel, const char* ld, unsigned* d_cyc) {
  std::vector<unsigned> h(kSamples);
  CK(cudaMemcpy(h.data(), d_cyc, kSamples * 4, cudaMemcpyDeviceToHost));
  std::vector<double> v(h.begin(), h.end());
  std::sort(v.begin(), v.end());
  auto pct = [&](double q) { return v[(size_t)(q * (v.size() - 1))]; };
  Stat s{pct(0.5), pct(0.1), pct(0.9), kSamples};
  // coarse histogram: 16-cycle bins of the middle 98%
  std::string hist = "\"hist_bin_cycles\":16,\"hist\":{";
  std::vector<int> bins;
  double lo = pct(0.01);
  for (double x : v) {
    if (x < lo || x > pct(0.99)) continue;
    size_t b = (size_t)((x - lo) / 16);
    if (bins.size() <= b) bins.resize(b + 1, 0);
    bins[b]++;
  }
  for (size_t b = 0; b < bins.size(); b++) {
    char t[48];
    snprintf(t, sizeof t, "%s\"%d\":%d", b ? "," : "", (int)(lo + 16 * b), bins[b]);
    hist += t;
  }
  hist += "}";
  emit("latency", name, s, "cycles",
       "per-hop clock64 samples (value=p50, min=p10, max=p90; includes STS+CS2R overhead)",
       kernel, ld, join({kv("p01", pct(0.01)), kv("p25", pct(0.25)), kv("p75", pct(0.75)),
                         kv("p99", pct(0.99)), hist}));
}

int main() {
  CK(cudaMalloc(&d_out, 4096));
  emit_clock("latency", "start");
  const size_t kBig = (size_t)2 << 30, kFlush = (size_t)512 << 20;
  char *d_buf, *d_flush;
  CK(cudaMalloc(&d_buf, kBig));
  CK(cudaMalloc(&d_flush, kFlush));
  CK(cudaMemset(d_flush, 1, kFlush));
  // Max L1: no shared memory is used by chase<0>, ask for the largest L1 carve-out.
  CK(cudaFuncSetAttribute(chase<0>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  CK(cudaFuncSetAttribute(chase<2>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  CK(cudaFuncSetAttribute(chase<3>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  const int hops = 4096, reps = 3;

  // 1. curve
  for (size_t S = (size_t)16 << 10; S <= kBig; S *= 2) {
    uint64_t start = make_chain(d_buf, S, 32, (size_t)1 << 18);
    for (int cg = 0; cg < 2; cg++) {
      Stat sc, sn;
      if (cg) run_chase<1>(start, d_buf, S, 1024, hops, reps, &sc, &sn);
      else run_chase<0>(start, d_buf, S, 1024, hops, reps, &sc, &sn);
      std::string nm = std::string("curve_") + (cg ? "cg_" : "ca_") + size_name(S);
      emit("latency_curve", nm.c_str(), sc, "cycles",
           "random cycle over 32B slots, 4096 timed dependent loads, median of 3",
           cg ? "chase<1>" : "chase<0>", cg ? "LDG.E.64.STRONG.GPU|LDG.E.STRONG.GPU" : "LDG.E.64",
           join({kv("ns_per_hop", sn.med), kv("ns_min", sn.lo), kv("ns_max", sn.hi),
                 kv("working_set_bytes", (double)S)}));
    }
  }

  // 1b. other load forms at an L1-resident (16 KiB) and an L2-resident (4 MiB) working set
  for (size_t S : {(size_t)16 << 10, (size_t)4 << 20}) {
    uint64_t start = make_chain(d_buf, S, 32, (size_t)1 << 18);
    for (int mode = 2; mode < 4; mode++) {
      Stat sc, sn;
      if (mode == 2) run_chase<2>(start, d_buf, S, 1024, hops, reps, &sc, &sn);
      else run_chase<3>(start, d_buf, S, 1024, hops, reps, &sc, &sn);
      std::string nm = std::string(mode == 2 ? "ld_ca_explicit_" : "ld_nc_") + size_name(S);
      emit("latency", nm.c_str(), sc, "cycles",
           "as the curve, with ld.global.ca (mode 2) or ld.global.nc (mode 3)",
           mode == 2 ? "chase<2>" : "chase<3>",
           mode == 2 ? "LDG.E.64.STRONG.SM" : "LDG.E.64.CONSTANT",
           join({kv("ns_per_hop", sn.med), kv("working_set_bytes", (double)S)}));
    }
  }

  // 2. per-hop samples: L1 hit (16 KiB, ca), L2 hit (4 MiB, cg), DRAM random 1 GiB (cg)
  unsigned* d_cyc;
  CK(cudaMalloc(&d_cyc, kSamples * 4));
  {
    uint64_t st = make_chain(d_buf, (size_t)16 << 10, 32, 1 << 18);
    chase_samples<0><<<1, 1>>>(st, 1024, d_cyc, d_out);
    CK_LAUNCH();
    emit_samples("samples_l1_hit_16KiB_ca", "chase_samples<0>", "LDG.E.64", d_cyc);
    st = make_chain(d_buf, (size_t)4 << 20, 32, 1 << 18);
    touch(d_buf, (size_t)4 << 20);
    chase_samples<1><<<1, 1>>>(st, 1024, d_cyc, d_out);
    CK_LAUNCH();
    emit_samples("samples_l2_hit_4MiB_cg", "chase_samples<1>", "LDG.E.64.STRONG.GPU", d_cyc);
    st = make_chain(d_buf, (size_t)1 << 30, 32, 1 << 18);
    touch(d_flush, kFlush);
    chase_samples<1><<<1, 1>>>(st, 64, d_cyc, d_out);
    CK_LAUNCH();
    emit_samples("samples_dram_random_1GiB_cg", "chase_samples<1>", "LDG.E.64.STRONG.GPU", d_cyc);
    st = make_chain(d_buf, (size_t)1 << 20, 128, 1 << 18);  // 8192 lines in one page
    chase<1><<<1, 32>>>(st, d_buf, 0, 0, 8192, d_out);       // TLB warm
    touch(d_flush, kFlush);
    chase_samples<1><<<1, 1>>>(st, 0, d_cyc, d_out);
    CK_LAUNCH();
    emit_samples("samples_dram_cold_tlb_hit_cg", "chase_samples<1>", "LDG.E.64.STRONG.GPU", d_cyc);
  }

  // 3. DRAM latency with TLB hits: 8192 lines (128 B apart) of one 1 MiB region, random order,
  //    each visited once after flushing L2 with 512 MiB of other reads.
  {
    std::vector<double> vc, vn;
    for (int r = 0; r < 5; r++) {
      uint64_t st = make_chain(d_buf, (size_t)1 << 20, 128, 1 << 18);  // 8192 nodes
      chase<1><<<1, 32>>>(st, d_buf, 0, 0, 8192, d_out);              // TLB + L2 warm
      CK_LAUNCH();
      touch(d_flush, kFlush);
      chase<1><<<1, 32>>>(st, d_buf, 0, 0, 8192, d_out);
      CK_LAUNCH();
      CK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
      vc.push_back(h_out[0] / 8192.0);
      vn.push_back(h_out[1] / 8192.0);
    }
    Stat sn = stat_of(vn);
    emit("latency", "dram_cold_tlb_hit", stat_of(vc), "cycles",
         "8192 lines of one 1 MiB region (one 2 MiB page), random order, each once, after a "
         "512 MiB L2 flush; 5 reps",
         "chase<1>", "LDG.E.64.STRONG.GPU",
         join({kv("ns_per_hop", sn.med), kv("ns_min", sn.lo), kv("ns_max", sn.hi)}));
    // same region, L2-warm: L2 hit with the same TLB state (control)
    vc.clear();
    for (int r = 0; r < 5; r++) {
      uint64_t st = make_chain(d_buf, (size_t)1 << 20, 128, 1 << 18);
      chase<1><<<1, 32>>>(st, d_buf, 0, 0, 8192, d_out);
      chase<1><<<1, 32>>>(st, d_buf, 0, 0, 8192, d_out);
      CK_LAUNCH();
      CK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
      vc.push_back(h_out[0] / 8192.0);
    }
    emit("latency", "l2_hit_1MiB_lines_cg", stat_of(vc), "cycles",
         "same 8192 lines, second pass without flush (L2 hits), 5 reps", "chase<1>",
         "LDG.E.64.STRONG.GPU");
  }

  // 4. shared memory: random cycle over 1024 words
  {
    std::vector<unsigned> perm(1024), next(1024);
    for (int i = 0; i < 1024; i++) perm[i] = i;
    std::shuffle(perm.begin() + 1, perm.end(), rng);
    for (int i = 0; i < 1024; i++) next[perm[i]] = perm[(i + 1) % 1024];
    unsigned* d_next;
    CK(cudaMalloc(&d_next, 4096));
    CK(cudaMemcpy(d_next, next.data(), 4096, cudaMemcpyHostToDevice));
    std::vector<double> v;
    for (int r = 0; r < 5; r++) {
      smem_chase<<<1, 32>>>(d_next, 1024, hops, d_out);
      CK_LAUNCH();
      CK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
      v.push_back((double)h_out[0] / hops);
    }
    emit("latency", "shared_load", stat_of(v), "cycles",
         "ld.shared.u32 chase over a random cycle of 1024 words, 4096 hops, 5 reps",
         "smem_chase", "LDS");
  }

  // 5. constant cache: 64-byte-spaced nodes, working sets 64 B .. 64 KiB
  for (int W = 64; W <= 65536; W *= 2) {
    int m = W / 64;
    std::vector<unsigned> h(16384, 0), perm(m);
    for (int i = 0; i < m; i++) perm[i] = i;
    std::shuffle(perm.begin() + 1, perm.end(), rng);
    for (int i = 0; i < m; i++) h[perm[i] * 16] = perm[(i + 1) % m] * 64;
    CK(cudaMemcpyToSymbol(cbuf, h.data(), 65536));
    for (int uni = 0; uni < 2; uni++) {
      std::vector<double> v;
      for (int r = 0; r < 5; r++) {
        if (uni) const_chase<1><<<1, 1>>>(2 * m + 64, hops, 0u, d_out);
        else const_chase<0><<<1, 1>>>(2 * m + 64, hops, 0u, d_out);
        CK_LAUNCH();
        CK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
        v.push_back((double)h_out[0] / hops);
      }
      std::string nm = std::string(uni ? "constant_uniform_" : "constant_") + std::to_string(W) + "B";
      emit("latency", nm.c_str(), stat_of(v), "cycles",
           "ld.const chase, random cycle, 64 B apart, 4096 hops, 5 reps",
           uni ? "const_chase<1>" : "const_chase<0>", uni ? "ULDC" : "LDC",
           kv("working_set_bytes", W));
    }
  }
  emit_clock("latency", "end");
  return 0;
}
