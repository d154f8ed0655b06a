// dram_rows.cu: DRAM latency by access order (row-buffer locality) and when many SMs chase the
// same cold lines at once.
//
// 1. One thread chases N nodes that sit S bytes apart, each visited once, after warming the TLB
//    (a first pass) and flushing L2 (512 MiB of other reads). "seq": node i points to node i+1, so
//    consecutive loads go to neighbouring addresses (the same DRAM row while S is small); "rand":
//    the same nodes in random order (consecutive loads in unrelated rows). The difference between
//    the two at small S is the row-buffer hit advantage; strides of 32 and 64 bytes also show
//    whether a DRAM fill brings in more than the requested sector (an L2 hit on the next sector).
// 2. "shared": one warp per SM on every SM (lane 0 chasing), all chasing the SAME sequential chain
//    of cold lines at once, against one SM alone: how much later the other SMs' loads of a line
//    complete than the first SM's (hits on a fill in flight, the slice's queue for one line).
#include "common.cuh"
#include <random>

static __device__ __forceinline__ uint64_t ld_cg(uint64_t p) {
  uint64_t r;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}

__global__ void build_chain(uint64_t* buf, const uint64_t* order_off, int m) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x)
    buf[order_off[i] / 8] = (uint64_t)buf + order_off[(i + 1) % m];
}

// every block's lane 0 chases `hops` nodes from `start`; out[block] = cycles
__global__ void chase(uint64_t start, int hops, unsigned long long* out, unsigned long long* sink) {
  if (threadIdx.x != 0) return;
  uint64_t p = start;
  uint64_t c0 = clock64();
  for (int i = 0; i < hops; i += 8) {
#pragma unroll
    for (int j = 0; j < 8; j++) p = ld_cg(p);
  }
  uint64_t c1 = clock64();
  out[blockIdx.x] = c1 - c0;
  if (p == 1) sink[0] = p;
}

static std::mt19937_64 rng(4242);
static unsigned long long *d_out, *d_sink;
static const size_t kFlush = (size_t)512 << 20;

static uint64_t make_chain(char* d_buf, int n, size_t stride, bool random_order) {
  std::vector<uint64_t> order(n);
  for (int i = 0; i < n; i++) order[i] = (uint64_t)i * stride;
  if (random_order) std::shuffle(order.begin(), order.end(), rng);
  uint64_t* d_order;
  CK(cudaMalloc(&d_order, n * 8));
  CK(cudaMemcpy(d_order, order.data(), n * 8, cudaMemcpyHostToDevice));
  build_chain<<<256, 256>>>((uint64_t*)d_buf, d_order, n);
  CK_LAUNCH();
  CK(cudaFree(d_order));
  return (uint64_t)d_buf + order[0];
}

static void flush_l2(const char* d_flush) {
  l2_touch<<<num_sms() * 4, 512>>>((const uint4*)d_flush, kFlush / 16, d_sink);
  CK_LAUNCH();
}

// cycles per hop of a cold chase by `blocks` SMs at once (TLB warmed first); per block values
static std::vector<double> cold_chase(uint64_t start, int n, int blocks, const char* d_flush) {
  chase<<<1, 32>>>(start, n, d_out, d_sink);  // TLB (and L2) warm
  CK_LAUNCH();
  flush_l2(d_flush);
  chase<<<blocks, 32>>>(start, n, d_out, d_sink);
  CK_LAUNCH();
  std::vector<unsigned long long> h(blocks);
  CK(cudaMemcpy(h.data(), d_out, blocks * 8, cudaMemcpyDeviceToHost));
  std::vector<double> v;
  for (int b = 0; b < blocks; b++) v.push_back((double)h[b] / n);
  return v;
}

int main() {
  spin_all_sms(200);
  double mhz = sm_clock_mhz();
  char *d_buf, *d_flush;
  CK(cudaMalloc(&d_buf, (size_t)256 << 20));
  CK(cudaMalloc(&d_flush, kFlush));
  CK(cudaMemset(d_flush, 1, kFlush));
  CK(cudaMalloc(&d_out, 4096 * 8));
  CK(cudaMalloc(&d_sink, 64));
  const int n = 2048;
  const size_t strides[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 65536};
  for (size_t s : strides) {
    for (int rnd = 0; rnd < 2; rnd++) {
      std::vector<double> v;
      for (int r = 0; r < 5; r++) {
        uint64_t st = make_chain(d_buf, n, s, rnd == 1);
        v.push_back(cold_chase(st, n, 1, d_flush)[0]);
      }
      std::string nm = std::string("dram_") + (rnd ? "rand" : "seq") + "_stride_" + std::to_string(s);
      emit("dram_rows", nm.c_str(), stat_of(v), "cycles",
           "one thread, 2048 nodes S bytes apart, each once, TLB warm, after a 512 MiB L2 flush; 5 reps",
           "chase", "LDG.E.64.STRONG.GPU", join({kv("stride_bytes", (double)s), kv("sm_clock_mhz", mhz)}));
    }
  }
  // many SMs on the same cold sequential chain (128-byte stride: one line per hop)
  int sms = num_sms();
  for (int blocks : {1, 8, 32, sms}) {
    std::vector<double> med, worst;
    for (int r = 0; r < 5; r++) {
      uint64_t st = make_chain(d_buf, n, 128, false);
      std::vector<double> v = cold_chase(st, n, blocks, d_flush);
      Stat s = stat_of(v);
      med.push_back(s.med);
      worst.push_back(s.hi);
    }
    std::string nm = "shared_seq128_blocks_" + std::to_string(blocks);
    Stat sm = stat_of(med), sw = stat_of(worst);
    emit("dram_rows", nm.c_str(), sm, "cycles",
         "one warp per SM on `blocks` SMs, all chasing the same cold 2048-line chain (128 B apart) at once; "
         "value: median over SMs of cycles per hop (median of 5 reps)",
         "chase", "LDG.E.64.STRONG.GPU", join({kv("slowest_sm_cycles_per_hop", sw.med), kv("blocks", blocks)}));
  }
  return 0;
}
