// pipe_own.cu: how Nsight Compute charges a warp held by its own previous instruction's pipe interval
// (docs/calibration.md 5u). Each thread runs R rounds of 16 independent instructions on one pipe (no result is
// read until the end), so a warp can issue as fast as its pipe takes them:
//   sfu:  MUFU.EX2 (ex2.approx.ftz.f32; 16 lanes/clk/SM: one warp instruction per 8 cycles per sub-core)
//   fp64: DFMA (64 lanes/clk/SM: one per 2 cycles per sub-core)
//   fp32: FFMA (one per cycle per sub-core: no interval to wait out; the control)
// One CTA of 128 threads puts one warp on each sub-core (nothing else wants the pipe); 1024 threads put eight
// (they share it). The question: does the lone warp's gap between its instructions show as stall_wait (the
// stall counts ptxas writes) or as stall_math_pipe_throttle? ncu gives the per-issue ratios.
#include "common.cuh"

template <int OP>
__global__ void pipe_k(float a, int rounds, float* out) {
  float x[16];
  double d[16];
#pragma unroll
  for (int i = 0; i < 16; i++) { x[i] = threadIdx.x * 1e-3f + i * 1e-2f; d[i] = x[i]; }
#pragma unroll 1
  for (int r = 0; r < rounds; r++) {
#pragma unroll
    for (int i = 0; i < 16; i++) {
      if (OP == 0) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[i]));
      else if (OP == 1) asm volatile("fma.rn.f64 %0, %0, %1, %1;" : "+d"(d[i]) : "d"((double)a));
      else asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x[i]) : "f"(a));
    }
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < 16; i++) s += x[i] + (float)d[i];
  out[threadIdx.x] = s;
}

int main() {
  float* d_out;
  CK(cudaMalloc(&d_out, 1024 * sizeof(float)));
  spin_all_sms(50);
  const char* names[3] = {"sfu", "fp64", "fp32"};
  for (int op = 0; op < 3; op++) {
    for (int threads : {128, 1024}) {
      cudaEvent_t e0, e1;
      CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
      const int rounds = 64;
      CK(cudaEventRecord(e0));
      if (op == 0) pipe_k<0><<<1, threads>>>(-1e-3f, rounds, d_out);
      else if (op == 1) pipe_k<1><<<1, threads>>>(0.999f, rounds, d_out);
      else pipe_k<2><<<1, threads>>>(0.999f, rounds, d_out);
      CK(cudaEventRecord(e1));
      CK_LAUNCH();
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      printf("RESULT {\"bench\":\"pipe_own\",\"kernel\":\"pipe_k<%d>\",\"pipe\":\"%s\",\"threads\":%d,\"rounds\":%d,\"ms\":%.4f}\n",
           op, names[op], threads, rounds, ms);
    }
  }
  return 0;
}
