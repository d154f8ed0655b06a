// atomics.cu: atomicAdd throughput and latency, global and shared memory.
// Address modes: 0 = every thread of the grid on one address; 1 = one address per warp (all 32
// lanes on it; warps 128 B apart); 2 = a distinct address per thread (consecutive words).
// Global: grid of 4 x 256-thread blocks per SM; RED (result unused) and ATOM (result used);
// rate from CUDA events; the final counters are checked against the expected totals.
// Shared: one 1024-thread block per SM, rate from clock64 inside the block.
// Latency: one thread, each atomic's address depends on the previous atomic's return value.
#include "common.cuh"

// zmask is a run-time 0: p + (tid & zmask) is p, but not provably warp-uniform, so neither
// nvcc nor ptxas can rewrite the atomic into a warp-aggregated one.
template <int MODE>
static __device__ __forceinline__ unsigned* gaddr(unsigned* p, unsigned zmask) {
  size_t gtid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (MODE == 0) return p + (threadIdx.x & zmask);
  if (MODE == 1) return p + (gtid / 32) * 32;
  return p + gtid;
}
// RET=0: result unused (RED); RET=1: result used (ATOM). HW=1: the address goes through
// gaddr's zmask, so every lane issues its own atomic (what the hardware does with 32 lanes on
// one address); HW=0 with MODE 0 passes the uniform pointer itself, which the compiler turns
// into one atomic per warp plus VOTE/POPC/SHFL (the as-compiled form of such code).
// inc is a run-time 1, so the shared-memory form stays a general ATOMS.ADD (a constant 1
// becomes ATOMS.POPC.INC).
template <int MODE, int RET, int HW>
__global__ void g_atomic(unsigned* p, unsigned inc, unsigned zmask, int iters, unsigned* sink) {
  unsigned* a = HW ? gaddr<MODE>(p, zmask) : (MODE == 0 ? p : gaddr<MODE>(p, 0u));
  unsigned x = 0;
  for (int i = 0; i < iters; i++) {
    if (RET) {
      x += atomicAdd(a, inc);
    } else {
      atomicAdd(a, inc);
    }
  }
  if (RET && x == 0x9e3779b9u) sink[0] = x;
}
template <int MODE, int HW>
__global__ void s_atom(unsigned inc, unsigned zmask, int iters, unsigned long long* out,
                       unsigned* totals) {
  __shared__ unsigned s[1024];
  s[threadIdx.x] = 0;
  __syncthreads();
  unsigned* a = MODE == 0 ? s + (HW ? (threadIdx.x & zmask) : 0u)
              : MODE == 1 ? s + threadIdx.x / 32 : s + threadIdx.x;
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) atomicAdd(a, inc);
  __syncthreads();
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = c1 - c0;
    out[2 * blockIdx.x + 1] = smid();
  }
  atomicAdd(totals, s[threadIdx.x]);
}
__global__ void g_atom_lat(unsigned* p, unsigned mask, int iters, unsigned long long* out) {
  unsigned x = 0;
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) x = atomicAdd(p + (x & mask), 1u);
  uint64_t c1 = clock64();
  out[0] = c1 - c0;
  out[1] = x;
}
__global__ void s_atom_lat(unsigned mask, int iters, unsigned long long* out) {
  __shared__ unsigned s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0;
  __syncthreads();
  unsigned x = 0;
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) x = atomicAdd(s + (x & mask), 1u);
  uint64_t c1 = clock64();
  out[0] = c1 - c0;
  out[1] = x;
}

int main() {
  const int sms = num_sms();
  double mhz = emit_clock("atomics", "start");
  unsigned *p, *sink, *totals;
  unsigned long long* d_out;
  const int blocks = sms * 4, threads = 256;
  const size_t nthreads = (size_t)blocks * threads;
  CK(cudaMalloc(&p, nthreads * 4 + 4096));
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&totals, 64));
  CK(cudaMalloc(&d_out, 8 * 4096));
  EventTimer et;
  const char* mname[3] = {"one_address", "one_address_per_warp", "distinct_addresses"};
  struct Var {
    int mode, ret, hw;
    void (*k)(unsigned*, unsigned, unsigned, int, unsigned*);
    const char* kn;
  };
  const Var vars[] = {
      {0, 0, 1, g_atomic<0, 0, 1>, "g_atomic<0,0,1>"}, {0, 1, 1, g_atomic<0, 1, 1>, "g_atomic<0,1,1>"},
      {0, 0, 0, g_atomic<0, 0, 0>, "g_atomic<0,0,0>"}, {0, 1, 0, g_atomic<0, 1, 0>, "g_atomic<0,1,0>"},
      {1, 0, 1, g_atomic<1, 0, 1>, "g_atomic<1,0,1>"}, {1, 1, 1, g_atomic<1, 1, 1>, "g_atomic<1,1,1>"},
      {2, 0, 1, g_atomic<2, 0, 1>, "g_atomic<2,0,1>"}, {2, 1, 1, g_atomic<2, 1, 1>, "g_atomic<2,1,1>"}};
  for (const Var& vr : vars) {
    const int iters = vr.mode == 0 ? 8 : 64;
    std::vector<double> v;
    bool ok = true;
    for (int r = 0; r < 6; r++) {
      CK(cudaMemset(p, 0, nthreads * 4 + 4096));
      double ms = et.ms([&] { vr.k<<<blocks, threads>>>(p, 1u, 0u, iters, sink); });
      // check: the counters add up to threads x iters
      std::vector<unsigned> h(nthreads);
      CK(cudaMemcpy(h.data(), p, nthreads * 4, cudaMemcpyDeviceToHost));
      unsigned long long sum = 0;
      for (unsigned x : h) sum += x;
      ok = ok && sum == (unsigned long long)nthreads * iters;
      if (r) v.push_back(nthreads * iters / (ms * 1e-3) / 1e9);  // first launch = warm-up
    }
    Stat s = stat_of(v);
    std::string nm = std::string("global_") + (vr.ret ? "atom_" : "red_") + mname[vr.mode] +
                     (vr.hw ? "" : "_warp_aggregated_by_compiler");
    emit("atomics", nm.c_str(), s, "Gatomic/s",
         "atomicAdd(u32) by 4x256-thread blocks per SM, event-timed, median of 5 (thread-level "
         "atomics per second)",
         vr.kn, vr.ret ? "ATOMG.E.ADD*" : "REDG.E.ADD*|RED.E.ADD*",
         join({kv("per_clk_chip", s.med * 1e9 / (mhz * 1e6)), kv("iters", iters),
               kv("check_ok", ok ? 1 : 0), kv("per_lane_atomics", vr.hw)}));
  }
  // shared
  std::vector<unsigned long long> h(2 * sms);
  struct SVar {
    int mode, hw;
    void (*k)(unsigned, unsigned, int, unsigned long long*, unsigned*);
    const char* kn;
  };
  const SVar svars[] = {{0, 1, s_atom<0, 1>, "s_atom<0,1>"}, {0, 0, s_atom<0, 0>, "s_atom<0,0>"},
                        {1, 1, s_atom<1, 1>, "s_atom<1,1>"}, {2, 1, s_atom<2, 1>, "s_atom<2,1>"}};
  for (const SVar& vr : svars) {
    const int iters = vr.mode == 0 ? 16 : 256;
    std::vector<double> v;
    std::vector<unsigned> ids;
    bool ok = true;
    allow_one_block_per_sm(vr.k);
    for (int r = 0; r < 5; r++) {
      CK(cudaMemset(totals, 0, 64));
      vr.k<<<sms, 1024, kOneBlockPerSmSmem>>>(1u, 0u, iters, d_out, totals);
      CK_LAUNCH();
      CK(cudaMemcpy(h.data(), d_out, 16 * sms, cudaMemcpyDeviceToHost));
      unsigned tot;
      CK(cudaMemcpy(&tot, totals, 4, cudaMemcpyDeviceToHost));
      ok = ok && tot == (unsigned)(sms * 1024 * iters);
      for (int i = 0; i < sms; i++) {
        v.push_back(1024.0 * iters / (double)h[2 * i]);
        ids.push_back((unsigned)h[2 * i + 1]);
      }
    }
    std::string nm = std::string("shared_") + mname[vr.mode] + (vr.hw ? "" : "_warp_aggregated_by_compiler");
    emit("atomics", nm.c_str(), stat_of(v), "atomics/clk/SM",
         "atomicAdd(u32) on shared memory, 1 block of 1024 threads per SM, clock64; median over "
         "SMs x 5 runs (thread-level atomics)",
         vr.kn, "ATOMS.ADD*",
         join({kv("iters", iters), kv("check_ok", ok ? 1 : 0), kv("distinct_sms", distinct(ids)),
               kv("per_lane_atomics", vr.hw)}));
  }
  // latency
  for (int sh = 0; sh < 2; sh++) {
    std::vector<double> v;
    const int iters = 2048;
    for (int r = 0; r < 5; r++) {
      CK(cudaMemset(p, 0, 4096));
      if (sh) s_atom_lat<<<1, 1>>>(0u, iters, d_out);
      else g_atom_lat<<<1, 1>>>(p, 0u, iters, d_out);
      CK_LAUNCH();
      unsigned long long c;
      CK(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
      v.push_back((double)c / iters);
    }
    emit("atomics", sh ? "shared_atomic_latency" : "global_atomic_latency", stat_of(v), "cycles",
         "one thread, atomicAdd whose address depends on the previous return value, 2048 "
         "atomics, 5 reps (global: same address, L2-resident)",
         sh ? "s_atom_lat" : "g_atom_lat", sh ? "ATOMS.ADD*" : "ATOMG.E.ADD*");
  }
  emit_clock("atomics", "end");
  return 0;
}
