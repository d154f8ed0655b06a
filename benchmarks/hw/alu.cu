// alu.cu: functional-unit latency and throughput.
//   latency:    one warp runs a dependent chain of the op (x = op(x, a, b)), 32 ops unrolled per
//               loop trip; cycles per op = clock64 delta / ops.
//   throughput: one 1024-thread block per SM (kept alone on its SM by a large dynamic
//               shared-memory request), 8 independent chains per thread; thread-ops per SM clock.
// Every op is one PTX instruction written with inline asm, so the front end cannot reshape it;
// ptxas may still expand it (div.u32, sin.approx) or fuse neighbours, so collect.py counts the
// expected SASS opcode in each kernel and reports it next to the figure.
// Also: branch divergence (D-way switch inside one warp) and the C intrinsics __expf, rsqrtf,
// __sinf as the compiler emits them.
#include "common.cuh"
#include <cuda_fp16.h>

#define OPDEF(NAME, TYPE, CONSTR, BODY)                                                   \
  struct NAME {                                                                           \
    typedef TYPE T;                                                                       \
    static __device__ __forceinline__ void step(T& x, T a, T b) {                         \
      asm volatile(BODY : "+" CONSTR(x) : CONSTR(a), CONSTR(b));                          \
    }                                                                                     \
  };
// %0 = x (chain), %1 = a, %2 = b (run-time kernel arguments, never compile-time constants)
// x + a - b: one IADD3 per step (a plain x + a chain is folded by ptxas into x + 32a)
OPDEF(IADD3, unsigned, "r", "{ .reg .u32 t; add.u32 t, %0, %1; sub.u32 %0, t, %2; }")
OPDEF(IMUL, unsigned, "r", "mul.lo.u32 %0, %0, %1; // %2")
OPDEF(IMAD, unsigned, "r", "mad.lo.u32 %0, %0, %1, %2;")
// lop3 is opaque to ptxas (a xor chain would be folded)
OPDEF(LOP3, unsigned, "r", "lop3.b32 %0, %0, %1, %2, 0x96;")
OPDEF(SHF_ROT, unsigned, "r", "shf.l.wrap.b32 %0, %0, %0, %1; // %2")
OPDEF(POPC, unsigned, "r", "popc.b32 %0, %0; // %1 %2")
OPDEF(IDIV_U32, unsigned, "r", "div.u32 %0, %1, %0; // %2")
OPDEF(FADD, float, "f", "add.rn.f32 %0, %0, %1; // %2")
OPDEF(FMUL, float, "f", "mul.rn.f32 %0, %0, %1; // %2")
OPDEF(FFMA, float, "f", "fma.rn.f32 %0, %0, %1, %2;")
OPDEF(HFMA2, unsigned, "r", "fma.rn.f16x2 %0, %0, %1, %2;")
OPDEF(DFMA, double, "d", "fma.rn.f64 %0, %0, %1, %2;")
OPDEF(DADD, double, "d", "add.rn.f64 %0, %0, %1; // %2")
OPDEF(MUFU_EX2, float, "f",
      "{ .reg .f32 t; neg.f32 t, %0; ex2.approx.ftz.f32 %0, t; } // %1 %2")
OPDEF(MUFU_RSQ, float, "f", "rsqrt.approx.ftz.f32 %0, %0; // %1 %2")
OPDEF(MUFU_SIN, float, "f", "sin.approx.ftz.f32 %0, %0; // %1 %2")
// -x keeps ptxas from folding rcp(rcp(x)) = x; the negation folds into MUFU's operand
OPDEF(MUFU_RCP, float, "f", "{ .reg .f32 t; neg.f32 t, %0; rcp.approx.ftz.f32 %0, t; } // %1 %2")
OPDEF(CVT_F2I_I2F, float, "f",
      "{ .reg .s32 t; cvt.rni.s32.f32 t, %0; cvt.rn.f32.s32 %0, t; } // %1 %2")
#undef OPDEF
// Source lane differs per lane (a warp-uniform index would let ptxas fold the chain).
struct SHFL_IDX { typedef unsigned T;
  static __device__ __forceinline__ void step(T& x, T a, T) {
    unsigned src = (threadIdx.x + a) & 31;
    asm volatile("shfl.sync.idx.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(x) : "r"(src));
  } };
// C intrinsics, as the compiler emits them (what CUDA code written with them runs)
struct C_EXPF { typedef float T;
  static __device__ __forceinline__ void step(T& x, T, T) { x = __expf(-x); } };
struct C_RSQRTF { typedef float T;
  static __device__ __forceinline__ void step(T& x, T, T) { x = rsqrtf(x); } };
struct C_SINF { typedef float T;
  static __device__ __forceinline__ void step(T& x, T, T) { x = __sinf(x); } };
struct C_IDIV_S32 { typedef unsigned T;  // signed 32-bit division as compiled from C
  static __device__ __forceinline__ void step(T& x, T a, T) { x = (T)((int)a / (int)x); } };

// Chains start from per-thread values: warp-uniform chains would be moved to the uniform
// datapath (UIMAD, UPOPC, ...) by ptxas and measure a different unit.
template <class T> __device__ __forceinline__ T lane_init(T x0, int k) { return x0 + (T)k; }
template <> __device__ __forceinline__ double lane_init(double x0, int k) { return x0 + 0.001 * k; }
template <> __device__ __forceinline__ float lane_init(float x0, int k) { return x0 + 0.001f * k; }
template <class T> __device__ __forceinline__ unsigned bits(T x) { return (unsigned)x; }
template <> __device__ __forceinline__ unsigned bits(float x) { return __float_as_uint(x); }
template <> __device__ __forceinline__ unsigned bits(double x) {
  return (unsigned)__double_as_longlong(x);
}

static const int kUnroll = 32;

template <class Op>
__global__ void lat_k(typename Op::T x0, typename Op::T a, typename Op::T b, int iters,
                      unsigned long long* out, unsigned* res) {
  typename Op::T x = lane_init(x0, threadIdx.x % 8);
  for (int j = 0; j < kUnroll; j++) Op::step(x, a, b);  // warm the instruction cache path
  __syncwarp();
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < kUnroll; j++) Op::step(x, a, b);
  }
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) out[0] = c1 - c0;
  res[threadIdx.x] = bits(x);
}

template <class Op>
__global__ void __launch_bounds__(1024) thr_k(typename Op::T x0, typename Op::T a,
                                              typename Op::T b, int iters,
                                              unsigned long long* out, unsigned* res) {
  typename Op::T x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = lane_init(x0, (threadIdx.x % 8) * 8 + k);
  __syncthreads();
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < kUnroll / 4; j++) {
#pragma unroll
      for (int k = 0; k < 8; k++) Op::step(x[k], a, b);
    }
  }
  __syncthreads();
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = c1 - c0;
    out[2 * blockIdx.x + 1] = smid();
  }
  unsigned r = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) r ^= bits(x[k]);
  res[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

// ---- branch divergence -------------------------------------------------------------------
// Path k: a chain of 8 FFMAs with a path-specific immediate, so no two paths can be merged.
#define PATH(K)                                                                            \
  case 0x##K:                                                                              \
    asm volatile(                                                                          \
        "fma.rn.f32 %0, %0, %1, 0f3C0000" #K ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K     \
        ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K \
        ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K \
        ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K \
        ";"                                                                                \
        : "+f"(x)                                                                          \
        : "f"(a));                                                                         \
    break;
__global__ void diverge_k(int paths, float a, int iters, unsigned long long* out, float* res) {
  float x = threadIdx.x * 0.01f;
  int sel = threadIdx.x % paths;
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) {
    switch (sel) {
      PATH(00) PATH(01) PATH(02) PATH(03) PATH(04) PATH(05) PATH(06) PATH(07)
      PATH(08) PATH(09) PATH(0a) PATH(0b) PATH(0c) PATH(0d) PATH(0e) PATH(0f)
      PATH(10) PATH(11) PATH(12) PATH(13) PATH(14) PATH(15) PATH(16) PATH(17)
      PATH(18) PATH(19) PATH(1a) PATH(1b) PATH(1c) PATH(1d) PATH(1e) PATH(1f)
    }
  }
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) out[0] = c1 - c0;
  res[threadIdx.x] = x;
}
#undef PATH

// The same D paths as a tree of if/else on the bits of lane % D (LOG2D levels, each a
// predicated branch with BSSY/BSYNC reconvergence), no jump table: leaf<K> is path K's chain.
template <int K> __device__ __forceinline__ void leaf(float& x, float a);
#define LEAF(K)                                                                            \
  template <> __device__ __forceinline__ void leaf<0x##K>(float& x, float a) {             \
    asm volatile(                                                                          \
        "fma.rn.f32 %0, %0, %1, 0f3C0000" #K ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K     \
        ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K \
        ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K \
        ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K ";\n\tfma.rn.f32 %0, %0, %1, 0f3C0000" #K \
        ";"                                                                                \
        : "+f"(x)                                                                          \
        : "f"(a));                                                                         \
  }
LEAF(00) LEAF(01) LEAF(02) LEAF(03) LEAF(04) LEAF(05) LEAF(06) LEAF(07)
LEAF(08) LEAF(09) LEAF(0a) LEAF(0b) LEAF(0c) LEAF(0d) LEAF(0e) LEAF(0f)
LEAF(10) LEAF(11) LEAF(12) LEAF(13) LEAF(14) LEAF(15) LEAF(16) LEAF(17)
LEAF(18) LEAF(19) LEAF(1a) LEAF(1b) LEAF(1c) LEAF(1d) LEAF(1e) LEAF(1f)
#undef LEAF
template <int LEVEL, int ID>
struct Tree {
  static __device__ __forceinline__ void run(int sel, float& x, float a) {
    if (sel & (1 << LEVEL)) Tree<LEVEL - 1, ID * 2 + 1>::run(sel, x, a);
    else Tree<LEVEL - 1, ID * 2>::run(sel, x, a);
  }
};
template <int ID>
struct Tree<-1, ID> {
  static __device__ __forceinline__ void run(int, float& x, float a) { leaf<ID>(x, a); }
};
template <int LOG2D>
__global__ void diverge_tree(float a, int iters, unsigned long long* out, float* res) {
  float x = threadIdx.x * 0.01f;
  int sel = threadIdx.x % (1 << LOG2D);
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) Tree<LOG2D - 1, 0>::run(sel, x, a);
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) out[0] = c1 - c0;
  res[threadIdx.x] = x;
}

// ---- host --------------------------------------------------------------------------------
static unsigned long long* d_out;
static unsigned* d_res;
static int g_sms;

template <class Op>
static void bench(const char* name, const char* sass, typename Op::T x0, typename Op::T a,
                  typename Op::T b, int lat_iters = 256, int thr_iters = 64) {
  std::vector<double> vl, vt;
  std::vector<unsigned> ids;
  std::vector<unsigned long long> h(2 * g_sms);
  allow_one_block_per_sm(thr_k<Op>);
  for (int r = 0; r < 5; r++) {
    lat_k<Op><<<1, 32>>>(x0, a, b, lat_iters, d_out, d_res);
    CK_LAUNCH();
    unsigned long long c;
    CK(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
    vl.push_back((double)c / (lat_iters * kUnroll));
    thr_k<Op><<<g_sms, 1024, kOneBlockPerSmSmem>>>(x0, a, b, thr_iters, d_out, d_res);
    CK_LAUNCH();
    CK(cudaMemcpy(h.data(), d_out, 16 * g_sms, cudaMemcpyDeviceToHost));
    for (int i = 0; i < g_sms; i++) {
      vt.push_back(1024.0 * 8 * (kUnroll / 4) * thr_iters / (double)h[2 * i]);
      ids.push_back((unsigned)h[2 * i + 1]);
    }
  }
  std::string lk = std::string("lat_k<") + name + ">", tk = std::string("thr_k<") + name + ">";
  emit("alu_latency", name, stat_of(vl), "cycles",
       "one warp, dependent chain, 32 ops unrolled x 256 trips, 5 reps", lk.c_str(), sass);
  emit("alu_throughput", name, stat_of(vt), "thread-ops/clk/SM",
       "1 block of 1024 threads per SM, 8 independent chains per thread, 64 trips x 32 ops; "
       "median over SMs x 5 runs",
       tk.c_str(), sass, kv("distinct_sms", distinct(ids)));
}

static unsigned h2(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  unsigned u;
  memcpy(&u, &v, 4);
  return u;
}

int main() {
  g_sms = num_sms();
  CK(cudaMalloc(&d_out, 8 * 4096));
  CK(cudaMalloc(&d_res, 4 * 1024 * 1024));
  emit_clock("alu", "start");
  bench<IADD3>("IADD3", "IADD3", 1u, 3u, 5u);
  bench<IMUL>("IMUL", "IMAD", 1u, 3u, 5u);
  bench<IMAD>("IMAD", "IMAD", 1u, 3u, 5u);
  bench<LOP3>("LOP3", "LOP3.LUT", 1u, 0x5au, 0x33u);
  bench<SHF_ROT>("SHF_ROT", "SHF.L.W*", 0x1234567u, 3u, 5u);
  bench<POPC>("POPC", "POPC", 0xffu, 0u, 0u);
  bench<SHFL_IDX>("SHFL_IDX", "SHFL.IDX", 7u, 1u, 0u);
  bench<IDIV_U32>("IDIV_U32", "MUFU.RCP|I2F.U32.RP", 12345u, 0x7fffffffu, 0u, 64, 16);
  bench<C_IDIV_S32>("C_IDIV_S32", "MUFU.RCP|I2F.RP", 12345u, 0x7fffffffu, 0u, 64, 16);
  bench<FADD>("FADD", "FADD", 1.0f, 1e-7f, 0.0f);
  bench<FMUL>("FMUL", "FMUL", 1.0f, 0.9999999f, 0.0f);
  bench<FFMA>("FFMA", "FFMA", 1.0f, 0.9999f, 1e-4f);
  bench<HFMA2>("HFMA2", "HFMA2*", h2(1.0f, 0.5f), h2(0.999f, 0.999f), h2(1e-3f, 1e-3f));
  bench<DFMA>("DFMA", "DFMA", 1.0, 0.9999, 1e-4);
  bench<DADD>("DADD", "DADD", 1.0, 1e-9, 0.0);
  bench<MUFU_EX2>("MUFU_EX2", "MUFU.EX2", 0.5f, 0.0f, 0.0f);
  bench<MUFU_RSQ>("MUFU_RSQ", "MUFU.RSQ", 2.0f, 0.0f, 0.0f);
  bench<MUFU_SIN>("MUFU_SIN", "MUFU.SIN", 0.5f, 0.0f, 0.0f);
  bench<MUFU_RCP>("MUFU_RCP", "MUFU.RCP", 2.0f, 0.0f, 0.0f);
  bench<CVT_F2I_I2F>("CVT_F2I_I2F", "F2I*|I2F*", 3.7f, 0.0f, 0.0f);
  bench<C_EXPF>("C_EXPF", "MUFU.EX2", 0.5f, 0.0f, 0.0f);
  bench<C_RSQRTF>("C_RSQRTF", "MUFU.RSQ", 2.0f, 0.0f, 0.0f);
  bench<C_SINF>("C_SINF", "MUFU.SIN", 0.5f, 0.0f, 0.0f);

  // divergence: one warp, D distinct paths of 8 dependent FFMAs each
  float* d_f;
  CK(cudaMalloc(&d_f, 4096));
  double t1 = 0;
  for (int D : {1, 2, 4, 8, 16, 32}) {
    std::vector<double> v;
    const int iters = 256;
    for (int r = 0; r < 5; r++) {
      diverge_k<<<1, 32>>>(D, 0.999f, iters, d_out, d_f);
      CK_LAUNCH();
      unsigned long long c;
      CK(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
      v.push_back((double)c / iters);
    }
    Stat s = stat_of(v);
    if (D == 1) t1 = s.med;
    std::string nm = "paths_" + std::to_string(D);
    emit("divergence", nm.c_str(), s, "cycles/trip",
         "one warp, lane%D selects one of D switch cases, each 8 dependent FFMAs; cycles per "
         "loop trip, 256 trips, 5 reps",
         "diverge_k", "BRX*",
         join({kv("paths", D), kv("ratio_to_1_path", s.med / t1),
               kv("extra_cycles_per_extra_path", D > 1 ? (s.med - D * t1) / (D - 1) : 0)}));
  }
  // divergence as an if/else tree (no jump table)
  double tt1 = 0;
  void (*trees[6])(float, int, unsigned long long*, float*) = {
      diverge_tree<0>, diverge_tree<1>, diverge_tree<2>, diverge_tree<3>, diverge_tree<4>,
      diverge_tree<5>};
  for (int L = 0; L < 6; L++) {
    int D = 1 << L;
    std::vector<double> v;
    const int iters = 256;
    for (int r = 0; r < 5; r++) {
      trees[L]<<<1, 32>>>(0.999f, iters, d_out, d_f);
      CK_LAUNCH();
      unsigned long long c;
      CK(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
      v.push_back((double)c / iters);
    }
    Stat s = stat_of(v);
    if (D == 1) tt1 = s.med;
    std::string nm = "tree_paths_" + std::to_string(D);
    std::string kn = "diverge_tree<" + std::to_string(L) + ">";
    emit("divergence", nm.c_str(), s, "cycles/trip",
         "one warp, lane%D picks a leaf of a LOG2D-level if/else tree on its bits, each leaf 8 "
         "dependent FFMAs; cycles per loop trip, 256 trips, 5 reps",
         kn.c_str(), L ? "BSSY*|BRA*" : "FFMA",
         join({kv("paths", D), kv("ratio_to_1_path", s.med / tt1),
               kv("extra_cycles_per_extra_path", D > 1 ? (s.med - D * tt1) / (D - 1) : 0)}));
  }
  emit_clock("alu", "end");
  return 0;
}
