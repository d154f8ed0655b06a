// divmix.cu (helper im2col, issue 9): what an integer division costs on the H200 and why.
// The simulator issues each SASS instruction of a division (~24: I2F.RP, MUFU.RCP, F2I.TRUNC, IMADs, compares)
// and gets 5.4 divisions/clk/SM where alu.cu measured 4.06 (C_IDIV_S32). This measures the parts:
//   thr_k<OP>: 1 CTA of 1024 threads per SM (8 warps per sub-core), 8 independent chains per thread:
//              thread-ops per clock per SM (median over SMs x 3 runs)
//   lat_k<OP>: one warp, one dependent chain: cycles per op
// OPs: C_IDIV_S32 (as alu.cu), IDIV_INV (x / d with a loop-invariant divisor: ptxas hoists the reciprocal,
// as in a grid-stride loop's `% nbins`), CVT_PAIR (I2F.U32.RP + F2I.U32.TRUNC, the division's conversions),
// MUFU_RCP, IMAD_HI (mul.hi.u32), MIX_IMAD_LOP3 (independent IMAD and LOP3 chains interleaved: do the
// ALU and FMA pipes take one warp-instruction each per 2 cycles side by side, i.e. 1 issue/clk/sub-core?),
// PRED_GUARD (setp + guarded add: a compare's predicate read by a guard), and IM2COL (the suite's
// im2col index arithmetic, three divisions by runtime values, without the memory access).
// Prints RESULT {json} lines. Built with nvcc -arch=sm_90 -O3 -lineinfo.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(2); } } while (0)

static __device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }

struct C_IDIV_S32 { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned) {
  x = (unsigned)((int)a / (int)x); } };
struct IDIV_INV { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned d) {
  x = (x ^ a) / d; } };   // d is a kernel parameter: its reciprocal is hoisted out of the loop
struct CVT_PAIR { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned b) {
  // + a LOP3 with a run-time value: a bare pair is idempotent and ptxas folds the repeats
  asm volatile("{ .reg .f32 t; cvt.rp.f32.u32 t, %0; cvt.rzi.u32.f32 %0, t; lop3.b32 %0, %0, %1, %2, 0x96; }" : "+r"(x) : "r"(a), "r"(b)); } };
struct MUFU_RCP { static __device__ __forceinline__ void step(unsigned& x, unsigned, unsigned) {
  asm volatile("{ .reg .f32 t, u; mov.b32 t, %0; neg.f32 t, t; rcp.approx.ftz.f32 u, t; mov.b32 %0, u; }" : "+r"(x)); } };
struct IMAD_HI { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned) {
  asm volatile("mul.hi.u32 %0, %0, %1;" : "+r"(x) : "r"(a)); } };
struct MIX_IMAD_IADD { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned b) {
  // two independent chains in one op: x (IMAD) and the high half kept in a second register by the caller's 8 chains
  asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b)); } };
// IMAD.WIDE: the 64-bit product of two 32-bit values (mul.wide.u32: every 64-bit address computation); the
// chain continues through the low half xor the high half
struct IMAD_WIDE { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned b) {
  asm volatile("{ .reg .u64 w; .reg .u32 lo, hi; mul.wide.u32 w, %0, %1; mov.b64 {lo, hi}, w; lop3.b32 %0, lo, hi, %2, 0x96; }"
               : "+r"(x) : "r"(a), "r"(b)); } };
// F2I alone: float -> int with a run-time float operand (cvt.rzi.s32.f32), back with I2FP (an ALU op on sm_90)
struct F2I_I2FP { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned b) {
  asm volatile("{ .reg .f32 f; .reg .s32 i; mov.b32 f, %0; cvt.rzi.s32.f32 i, f; cvt.rn.f32.s32 f, i; mov.b32 %0, f; }"
               : "+r"(x)); } };
struct LOP3_ONLY { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned b) {
  asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(a), "r"(b)); } };   // ALU pipe (opaque to ptxas)
struct PRED_GUARD { static __device__ __forceinline__ void step(unsigned& x, unsigned a, unsigned b) {
  asm volatile("{ .reg .pred p; setp.gt.u32 p, %0, %1; @p add.u32 %0, %0, %2; @!p add.u32 %0, %0, 1; }" : "+r"(x) : "r"(a), "r"(b)); } };
struct IM2COL { static __device__ __forceinline__ void step(unsigned& x, unsigned P, unsigned W) {
  // divisors that change with x, so that ptxas cannot hoist their reciprocals (in the suite's im2col_3x3 they
  // are kernel parameters in straight-line code: one full division each)
  int idx = (int)x, p0 = (int)(P + (x & 1)), w = (int)(W + ((x >> 1) & 1)), hw = w * (int)(W + ((x >> 2) & 1));
  int row = idx / p0, p = idx - row * p0;
  int c = row / 9, rs = row - c * 9;
  int r = rs / 3, s = rs - r * 3;
  int n = p / hw, q = p - n * hw;
  int h = q / w, xx = q - h * w;
  x = (unsigned)((((n + c) * w + h + r) * w + xx + s) & 0xfffff); } };

static const int kUnroll = 8;

template <class Op>
__global__ void lat_k(unsigned x0, unsigned a, unsigned b, int iters, unsigned long long* out, unsigned* res) {
  unsigned x = x0 + threadIdx.x % 8;
  for (int j = 0; j < kUnroll; j++) Op::step(x, a, b);
  __syncwarp();
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < kUnroll; j++) Op::step(x, a, b);
  }
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) out[0] = c1 - c0;
  res[threadIdx.x] = x;
}

template <class Op, class Op2>
__global__ void __launch_bounds__(1024) thr_k(unsigned x0, unsigned a, unsigned b, int iters,
                                              unsigned long long* out, unsigned* res) {
  unsigned x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = x0 + (threadIdx.x % 8) * 8 + k;
  __syncthreads();
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < kUnroll; j++) {
#pragma unroll
      for (int k = 0; k < 8; k += 2) { Op::step(x[k], a, b); Op2::step(x[k + 1], a, b); }
    }
  }
  __syncthreads();
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) { out[2 * blockIdx.x] = c1 - c0; out[2 * blockIdx.x + 1] = smid(); }
  unsigned r = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) r ^= x[k];
  res[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

static unsigned long long* d_out;
static unsigned* d_res;
static int g_sms;
static const int kSmem = 120 * 1024;

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

template <class Op, class Op2>
static void bench(const char* name, unsigned x0, unsigned a, unsigned b, int lat_iters, int thr_iters, int threads) {
  std::vector<double> vl, vt;
  std::vector<unsigned long long> h(2 * g_sms);
  CK(cudaFuncSetAttribute(thr_k<Op, Op2>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  for (int r = 0; r < 3; r++) {
    lat_k<Op><<<1, 32>>>(x0, a, b, lat_iters, d_out, d_res);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    unsigned long long c;
    CK(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
    vl.push_back((double)c / (lat_iters * kUnroll));
    thr_k<Op, Op2><<<g_sms, threads, kSmem>>>(x0, a, b, thr_iters, d_out, d_res);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), d_out, 16 * g_sms, cudaMemcpyDeviceToHost));
    for (int i = 0; i < g_sms; i++) vt.push_back((double)threads * 8 * kUnroll * thr_iters / (double)h[2 * i]);
  }
  printf("RESULT {\"name\": \"%s\", \"threads\": %d, \"latency_cycles\": %.2f, \"thread_ops_per_clk_per_sm\": %.3f}\n",
         name, threads, median(vl), median(vt));
  fflush(stdout);
}

int main(int argc, char** argv) {
  CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaMalloc(&d_out, 16 * 4096));
  CK(cudaMalloc(&d_res, 4 * 1024 * 1024));
  for (int threads : {1024, 512}) {
    if (threads == 1024) {   // request im2col2 (results/h200_divmix2.out): IMAD.WIDE and F2I
      bench<IMAD_WIDE, IMAD_WIDE>("IMAD_WIDE", 0x12345678u, 0x9abcdef1u, 0x5555u, 128, 64, threads);
      bench<IMAD_WIDE, LOP3_ONLY>("MIX_WIDE_LOP3", 0x12345678u, 0x9abcdef1u, 0x5555u, 128, 64, threads);
      bench<F2I_I2FP, F2I_I2FP>("F2I_I2FP", 0x4b000001u, 0u, 0u, 64, 16, threads);
    }
    bench<C_IDIV_S32, C_IDIV_S32>("C_IDIV_S32", 12345u, 0x7fffffffu, 0u, 32, 8, threads);
    bench<IDIV_INV, IDIV_INV>("IDIV_INV", 12345u, 0x5a5a5a5au, 7919u, 64, 16, threads);
    bench<CVT_PAIR, CVT_PAIR>("CVT_PAIR", 1000u, 5u, 3u, 64, 16, threads);
    bench<MUFU_RCP, MUFU_RCP>("MUFU_RCP", 0x3f800000u, 0u, 0u, 64, 16, threads);
    bench<IMAD_HI, IMAD_HI>("IMAD_HI", 0x12345678u, 0x9abcdef1u, 0u, 128, 64, threads);
    bench<LOP3_ONLY, LOP3_ONLY>("LOP3_ONLY", 1u, 3u, 5u, 128, 64, threads);
    bench<MIX_IMAD_IADD, MIX_IMAD_IADD>("IMAD_ONLY", 1u, 3u, 5u, 128, 64, threads);
    bench<MIX_IMAD_IADD, LOP3_ONLY>("MIX_IMAD_LOP3", 1u, 3u, 5u, 128, 64, threads);
    bench<PRED_GUARD, PRED_GUARD>("PRED_GUARD", 1u, 0x40000000u, 3u, 128, 64, threads);
    bench<IM2COL, IM2COL>("IM2COL", 123456u, 200704u, 224u, 16, 4, threads);
  }
  return 0;
}
