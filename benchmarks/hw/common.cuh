// common.cuh: shared plumbing for the H200 microbenchmarks in benchmarks/hw/.
//
// Contract:
//   - CK(call) aborts the process with file:line and the CUDA error string on any failure;
//     CK_LAUNCH() checks the last launch error and synchronises.
//   - emit(...) prints ONE line "RESULT {json}" on stdout; collect.py keeps only those lines.
//     Every result names the kernel that produced it and the SASS opcode(s) it expects, so
//     collect.py can check the disassembly (cuobjdump -sass) of the same binary.
//   - sm_clock_mhz() measures the SM clock actually in effect (clock64 cycles over %globaltimer
//     nanoseconds on one SM, ~5 ms): cycles quoted by the benchmarks are these cycles.
//   - spin_all_sms() keeps every SM busy for a while so the clocks leave their idle state
//     before a measurement; it never changes any clock setting.
#pragma once
#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(call)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__,  \
              __LINE__, cudaGetErrorString(e_));                                        \
      exit(2);                                                                          \
    }                                                                                   \
  } while (0)
#define CK_LAUNCH()                  \
  do {                               \
    CK(cudaGetLastError());          \
    CK(cudaDeviceSynchronize());     \
  } while (0)

static __device__ __forceinline__ uint64_t gtimer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

static __device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// Dynamic shared memory that makes a second 1024-thread block on the same SM impossible
// (228 KiB per SM on sm_90), so a grid of num_sms() such blocks runs one block per SM.
static const int kOneBlockPerSmSmem = 120 * 1024;
template <class K>
static inline void allow_one_block_per_sm(K kernel) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneBlockPerSmSmem));
}
static inline int distinct(const std::vector<unsigned>& ids) {
  std::vector<unsigned> v(ids);
  std::sort(v.begin(), v.end());
  return (int)(std::unique(v.begin(), v.end()) - v.begin());
}

// Reads n16 16-byte words with ld.global.cg: fills L2 with them (or flushes it, when the
// region is several times L2).
__global__ void l2_touch(const uint4* buf, size_t n16, unsigned long long* sink) {
  unsigned x = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
       i += (size_t)gridDim.x * blockDim.x) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(buf + i));
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9e3779b9u) sink[0] = x;
}

// ---- statistics --------------------------------------------------------------------------
struct Stat {
  double med, lo, hi;
  int n;
};
static inline Stat stat_of(std::vector<double> v) {
  Stat s{0, 0, 0, (int)v.size()};
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  s.med = (v.size() % 2) ? v[m] : 0.5 * (v[m - 1] + v[m]);
  s.lo = v.front();
  s.hi = v.back();
  return s;
}

// ---- JSON output -------------------------------------------------------------------------
// extra: either "" or a JSON object body without braces, e.g. "\"cycles\":123,\"ns\":45".
static inline void emit(const char* group, const char* name, const Stat& s, const char* unit,
                        const char* method, const char* kernel, const char* sass_expect,
                        const std::string& extra = "") {
  printf("RESULT {\"group\":\"%s\",\"name\":\"%s\",\"value\":%.6g,\"min\":%.6g,\"max\":%.6g,"
         "\"n\":%d,\"unit\":\"%s\",\"method\":\"%s\",\"kernel\":\"%s\",\"sass_expect\":\"%s\","
         "\"extra\":{%s}}\n",
         group, name, s.med, s.lo, s.hi, s.n, unit, method, kernel, sass_expect, extra.c_str());
  fflush(stdout);
}
static inline std::string kv(const char* k, double v) {
  char b[96];
  snprintf(b, sizeof b, "\"%s\":%.6g", k, v);
  return b;
}
static inline std::string join(std::initializer_list<std::string> parts) {
  std::string r;
  for (auto& p : parts) {
    if (p.empty()) continue;
    if (!r.empty()) r += ",";
    r += p;
  }
  return r;
}

// ---- clocks ------------------------------------------------------------------------------
__global__ void clk_probe_kernel(uint64_t dur_ns, unsigned long long* out) {
  uint64_t g0 = gtimer_ns();
  uint64_t c0 = clock64();
  uint64_t g1 = g0;
  while (g1 - g0 < dur_ns) g1 = gtimer_ns();
  uint64_t c1 = clock64();
  out[0] = c1 - c0;
  out[1] = g1 - g0;
}
__global__ void spin_kernel(uint64_t dur_ns, unsigned long long* sink) {
  uint64_t g0 = gtimer_ns();
  float x = threadIdx.x;
  while (gtimer_ns() - g0 < dur_ns) {
#pragma unroll 8
    for (int i = 0; i < 64; i++) x = x * 0.999f + 0.5f;
  }
  if (x == -1.0f) sink[0] = 1;  // never true; keeps the loop
}

static unsigned long long* g_scratch = nullptr;
static inline unsigned long long* scratch() {
  if (!g_scratch) CK(cudaMalloc(&g_scratch, 4096));
  return g_scratch;
}
// Returns the SM clock in MHz measured over dur_ms on one SM. The SM clock is chip-wide, so
// one SM's clock64 rate is the clock every SM ran at during those dur_ms.
static inline double sm_clock_mhz(double dur_ms = 5.0) {
  unsigned long long h[2];
  clk_probe_kernel<<<1, 1>>>((uint64_t)(dur_ms * 1e6), scratch());
  CK_LAUNCH();
  CK(cudaMemcpy(h, scratch(), sizeof h, cudaMemcpyDeviceToHost));
  return (double)h[0] / (double)h[1] * 1e3;
}
static inline int num_sms() {
  int dev = 0, n = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  return n;
}
static inline void spin_all_sms(double ms) {
  spin_kernel<<<num_sms() * 2, 256>>>((uint64_t)(ms * 1e6), scratch() + 16);
  CK_LAUNCH();
}
// Emits the clock measured now, tagged with where in the program it was taken.
static inline double emit_clock(const char* group, const char* when) {
  spin_all_sms(50);
  std::vector<double> v;
  for (int i = 0; i < 3; i++) v.push_back(sm_clock_mhz(5.0));
  Stat s = stat_of(v);
  char name[64];
  snprintf(name, sizeof name, "sm_clock_%s", when);
  emit(group, name, s, "MHz", "clock64 cycles / globaltimer ns on one SM over 5 ms, 3 reps",
       "clk_probe_kernel", "CS2R");
  return s.med;
}

// ---- event timing ------------------------------------------------------------------------
struct EventTimer {
  cudaEvent_t a, b;
  EventTimer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  ~EventTimer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  template <class F>
  double ms(F&& launch) {  // time of one call of launch(), in ms
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    return t;
  }
};
