// mma.cu: tensor cores through warp-level mma.sync (the instruction PTX kernels from WMMA and
// mma.sync use; Hopper's warpgroup wgmma is a different path and is not measured here).
//   latency:    one warp, D = A*B + D repeatedly (chain through the accumulator).
//   throughput: one block per SM of W warps (W = 4, 8, 16, 32), 8 independent accumulators per
//               warp; mma instructions (and FLOPs) per SM clock.
#include "common.cuh"
#include <cuda_fp16.h>

#define MMA_OP(NAME, SHAPE_TYPES, FLOPS)                                                  \
  struct NAME {                                                                           \
    static const int flops = FLOPS;                                                       \
    static __device__ __forceinline__ void step(float (&d)[4], const unsigned (&a)[4],    \
                                                const unsigned (&b)[2]) {                 \
      asm volatile("mma.sync.aligned." SHAPE_TYPES                                        \
                   " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"               \
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                      \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));   \
    }                                                                                     \
  };
MMA_OP(F16_F32, "m16n8k16.row.col.f32.f16.f16.f32", 2 * 16 * 8 * 16)
MMA_OP(BF16_F32, "m16n8k16.row.col.f32.bf16.bf16.f32", 2 * 16 * 8 * 16)
MMA_OP(TF32_F32, "m16n8k8.row.col.f32.tf32.tf32.f32", 2 * 16 * 8 * 8)
#undef MMA_OP

template <class Op>
__global__ void mma_lat(unsigned av, unsigned bv, int iters, unsigned long long* out, float* res) {
  unsigned a[4] = {av, av ^ threadIdx.x, av, av}, b[2] = {bv, bv ^ threadIdx.x};
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  for (int i = 0; i < 8; i++) Op::step(d, a, b);
  __syncwarp();
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 16; j++) Op::step(d, a, b);
  }
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) out[0] = c1 - c0;
  res[threadIdx.x] = d[0] + d[1] + d[2] + d[3];
}

template <class Op>
__global__ void __launch_bounds__(1024) mma_thr(unsigned av, unsigned bv, int iters,
                                                unsigned long long* out, float* res) {
  unsigned a[4] = {av, av ^ threadIdx.x, av, av}, b[2] = {bv, bv ^ threadIdx.x};
  float d[8][4];
#pragma unroll
  for (int k = 0; k < 8; k++)
#pragma unroll
    for (int e = 0; e < 4; e++) d[k][e] = 0.001f * k;  // distinct chains: nothing to merge
  __syncthreads();
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
      for (int k = 0; k < 8; k++) Op::step(d[k], a, b);
  }
  __syncthreads();
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = c1 - c0;
    out[2 * blockIdx.x + 1] = smid();
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 8; k++) s += d[k][0] + d[k][1] + d[k][2] + d[k][3];
  res[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static unsigned long long* d_out;
static float* d_res;

template <class Op>
static void bench(const char* name, const char* op_name, unsigned av, unsigned bv) {
  const int sms = num_sms();
  std::vector<unsigned long long> h(2 * sms);
  std::vector<double> vl;
  const int lat_iters = 64;
  for (int r = 0; r < 5; r++) {
    mma_lat<Op><<<1, 32>>>(av, bv, lat_iters, d_out, d_res);
    CK_LAUNCH();
    unsigned long long c;
    CK(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
    vl.push_back((double)c / (lat_iters * 16));
  }
  std::string lk = std::string("mma_lat<") + op_name + ">";
  std::string tk = std::string("mma_thr<") + op_name + ">";
  emit("tensor_latency", name, stat_of(vl), "cycles",
       "one warp, mma.sync chained through the accumulator, 1024 mma, 5 reps", lk.c_str(),
       "HMMA*");
  allow_one_block_per_sm(mma_thr<Op>);
  Stat best{0, 0, 0, 0};
  int best_w = 0;
  std::string all;
  for (int W : {4, 8, 16, 32}) {
    std::vector<double> vt;
    std::vector<unsigned> ids;
    const int iters = 64;
    for (int r = 0; r < 5; r++) {
      mma_thr<Op><<<sms, 32 * W, kOneBlockPerSmSmem>>>(av, bv, iters, d_out, d_res);
      CK_LAUNCH();
      CK(cudaMemcpy(h.data(), d_out, 16 * sms, cudaMemcpyDeviceToHost));
      for (int i = 0; i < sms; i++) {
        vt.push_back((double)W * 8 * 2 * iters / (double)h[2 * i]);
        ids.push_back((unsigned)h[2 * i + 1]);
      }
    }
    Stat s = stat_of(vt);
    all = join({all, kv(("mma_per_clk_" + std::to_string(W) + "warps").c_str(), s.med),
                kv(("distinct_sms_" + std::to_string(W) + "warps").c_str(), distinct(ids))});
    if (s.med > best.med) { best = s; best_w = W; }
  }
  emit("tensor_throughput", name, best, "warp-mma/clk/SM",
       "one block per SM of W warps (best of 4,8,16,32), 8 independent accumulators per warp, "
       "128 mma each; median over SMs x 5 runs",
       tk.c_str(), "HMMA*",
       join({kv("flops_per_mma", Op::flops), kv("flops_per_clk_per_sm", best.med * Op::flops),
             kv("best_warps", best_w), all}));
}

int main() {
  CK(cudaMalloc(&d_out, 8 * 4096));
  CK(cudaMalloc(&d_res, 4 * 1024 * 1024));
  emit_clock("tensor", "start");
  __half2 hv = __floats2half2_rn(0.01f, 0.02f);
  unsigned h16;
  memcpy(&h16, &hv, 4);
  bench<F16_F32>("MMA_M16N8K16_F16_F32", "F16_F32", h16, h16);
  bench<BF16_F32>("MMA_M16N8K16_BF16_F32", "BF16_F32", 0x3c233c23u, 0x3c233c23u);  // bf16 ~0.01
  bench<TF32_F32>("MMA_M16N8K8_TF32_F32", "TF32_F32", 0x3c23d70au, 0x3c23d70au);   // f32 0.01
  emit_clock("tensor", "end");
  return 0;
}
