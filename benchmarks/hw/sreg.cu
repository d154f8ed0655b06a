// sreg.cu: what a read of a special register costs on the H200, and how Nsight Compute charges the wait for it
// (docs/calibration.md 5w). Every kernel of the public suite starts with S2R SR_TID.X and S2UR SR_CTAID.X
// (threadIdx, blockIdx) and LDCs of its parameters; the model's [pipes.misc] latency of 4 cycles was an estimate.
//
// sreg_lat<OP>: each thread, `rounds` times: clock; read the source; one dependent add; clock. Issue is in order,
// so the second clock read issues after the add, which issues when the read's result is there: the difference is
// the read's latency plus a constant that OP 0 (an IADD of a register: 4 cycles on the int pipe) measures.
//   0 add (control)   1 %smid (S2R SR_VIRTID)   2 %warpid (S2R)   3 %globaltimer_lo   4 %clock (CS2R.32)
//   5 ld.const at a fixed address (LDC, warm)
// %tid.x and %ctaid.x themselves cannot be timed this way: ptxas knows they do not change and reads them once,
// before the loop, whatever the PTX says. %smid and %warpid are volatile registers read by the same S2R.
// sreg_tp<OP>: 16 independent reads per round and no use until the end, so a warp issues them as fast as their
// pipe takes them: with one warp per sub-core (128 threads) or eight (1024), the cycles per read.
// ncu's per-issue stall ratios of every launch say which reason the wait is charged to.
#include "common.cuh"

__constant__ unsigned cval[64];

// the read, under a predicate computed from `key` (a clock value or a running sum) so that ptxas can neither hoist
// it out of the loop nor merge two reads of the same register (it does both to an unpredicated read)
#define PRED_READ(insn) \
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0x7fffffff; @p " insn " }" : "+r"(v) : "r"(key))
template <int OP>
static __device__ __forceinline__ unsigned src(unsigned a, unsigned key) {
  unsigned v = a;
  if (OP == 0) PRED_READ("add.u32 %0, %0, 1;");
  else if (OP == 1) PRED_READ("mov.u32 %0, %%smid;");
  else if (OP == 2) PRED_READ("mov.u32 %0, %%warpid;");
  else if (OP == 3) PRED_READ("mov.u32 %0, %%globaltimer_lo;");
  else if (OP == 4) PRED_READ("mov.u32 %0, %%clock;");
  else PRED_READ("ld.const.u32 %0, [cval+4];");
  return v;
}

template <int OP>
__global__ void sreg_lat(int rounds, unsigned* out) {
  unsigned acc = threadIdx.x, lat = 0;
#pragma unroll 1
  for (int r = 0; r < rounds; r++) {
    unsigned t0, t1;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t0));
    unsigned v = src<OP>(acc, t0);
    asm volatile("add.u32 %0, %0, %1;" : "+r"(acc) : "r"(v));
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t1) : "r"(acc));
    lat += t1 - t0;
  }
  out[threadIdx.x] = lat;
  out[1024 + threadIdx.x] = acc;
}

template <int OP>
__global__ void sreg_tp(int rounds, unsigned* out) {
  unsigned acc[16];
#pragma unroll
  for (int i = 0; i < 16; i++) acc[i] = threadIdx.x + i;
  unsigned long long t0 = clock64();
#pragma unroll 1
  for (int r = 0; r < rounds; r++) {
    unsigned v[16];
#pragma unroll
    for (int i = 0; i < 16; i++) v[i] = src<OP>(acc[i], acc[i]);
#pragma unroll
    for (int i = 0; i < 16; i++) acc[i] ^= v[i];
  }
  unsigned long long t1 = clock64();
  unsigned s = 0;
#pragma unroll
  for (int i = 0; i < 16; i++) s += acc[i];
  out[threadIdx.x] = (unsigned)(t1 - t0);
  out[1024 + threadIdx.x] = s;
}

typedef void (*kfn)(int, unsigned*);

int main() {
  unsigned* d_out;
  CK(cudaMalloc(&d_out, 2048 * sizeof(unsigned)));
  unsigned h_c[64];
  for (int i = 0; i < 64; i++) h_c[i] = 3 * i + 1;
  CK(cudaMemcpyToSymbol(cval, h_c, sizeof h_c));
  spin_all_sms(50);
  const char* names[6] = {"add", "smid", "warpid", "globaltimer_lo", "clock", "ldconst"};
  const char* sass[6] = {"IADD3", "S2R", "S2R", "S2R", "CS2R", "LDC"};
  kfn lat[6] = {sreg_lat<0>, sreg_lat<1>, sreg_lat<2>, sreg_lat<3>, sreg_lat<4>, sreg_lat<5>};
  kfn tp[6] = {sreg_tp<0>, sreg_tp<1>, sreg_tp<2>, sreg_tp<3>, sreg_tp<4>, sreg_tp<5>};
  std::vector<unsigned> h(2048);
  const int rounds = 256;
  for (int op = 0; op < 6; op++) {
    for (int kind = 0; kind < 2; kind++) {
      for (int threads : {128, 1024}) {
        if (kind == 0 && threads == 1024) continue;   // latency: one warp per sub-core
        (kind == 0 ? lat : tp)[op]<<<1, threads>>>(rounds, d_out);
        CK_LAUNCH();
        CK(cudaMemcpy(h.data(), d_out, 2048 * sizeof(unsigned), cudaMemcpyDeviceToHost));
        double mean = 0;
        for (int t = 0; t < threads; t += 32) mean += h[t];
        mean /= threads / 32;
        // latency: cycles per round; throughput: cycles per read (16 per round) of one warp
        double per = kind == 0 ? mean / rounds : mean / (rounds * 16.0);
        printf("RESULT {\"bench\":\"sreg\",\"kernel\":\"sreg_%s<%d>\",\"src\":\"%s\",\"sass\":\"%s\",\"threads\":%d,"
               "\"rounds\":%d,\"%s\":%.3f,\"check\":%u}\n",
               kind == 0 ? "lat" : "tp", op, names[op], sass[op], threads, rounds,
               kind == 0 ? "cycles_per_round" : "cycles_per_read", per, h[1024 + 33]);
      }
    }
  }
  return 0;
}
