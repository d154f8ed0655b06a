// launch.cu: kernel launch overhead, CTA launch rate, and __syncthreads cost.
//   empty kernel: (a) GPU time between two events around one launch; (b) per-launch time of
//   1000 back-to-back launches (the launch pipeline's rate); (c) host wall time of launch +
//   synchronize; (d) per-kernel time of a CUDA graph of 1000 empty kernels.
//   CTA rate: a grid of many CTAs that do nothing but exit (blockDim 32, 256, 1024).
//   barrier: one CTA of W warps (W = 1..32), a loop of bar.sync 0; cycles per barrier.
#include "common.cuh"
#include <chrono>

__global__ void empty_k() {}
__global__ void tiny_k(unsigned* sink) {
  if (threadIdx.x == 0 && blockIdx.x == 0xffffffffu) sink[0] = 1;  // never true
}
__global__ void bar_k(int iters, unsigned long long* out) {
  __syncthreads();
  uint64_t c0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) asm volatile("bar.sync 0;" ::: "memory");
  }
  uint64_t c1 = clock64();
  if (threadIdx.x == 0) out[0] = c1 - c0;
}

int main() {
  const int sms = num_sms();
  unsigned* sink;
  unsigned long long* d_out;
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&d_out, 64));
  emit_clock("launch", "start");
  EventTimer et;
  for (int i = 0; i < 100; i++) empty_k<<<1, 32>>>();
  CK_LAUNCH();
  {
    std::vector<double> v;
    for (int r = 0; r < 200; r++) v.push_back(1e3 * et.ms([] { empty_k<<<1, 32>>>(); }));
    emit("launch", "empty_kernel_event_time", stat_of(v), "us",
         "cudaEventRecord; empty_k<<<1,32>>>; cudaEventRecord; 200 reps", "empty_k", "EXIT");
  }
  {
    std::vector<double> v;
    for (int r = 0; r < 7; r++)
      v.push_back(1e3 * et.ms([] {
                    for (int i = 0; i < 1000; i++) empty_k<<<1, 32>>>();
                  }) / 1000);
    emit("launch", "empty_kernel_back_to_back", stat_of(v), "us/launch",
         "1000 back-to-back empty launches between two events, 7 reps", "empty_k", "EXIT");
  }
  {
    std::vector<double> v;
    for (int r = 0; r < 200; r++) {
      auto t0 = std::chrono::steady_clock::now();
      empty_k<<<1, 32>>>();
      CK(cudaStreamSynchronize(0));
      auto t1 = std::chrono::steady_clock::now();
      v.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    emit("launch", "empty_kernel_host_roundtrip", stat_of(v), "us",
         "host steady_clock around launch + cudaStreamSynchronize, 200 reps", "empty_k", "EXIT");
  }
  {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 1000; i++) empty_k<<<1, 32, 0, s>>>();
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> v;
    for (int r = 0; r < 7; r++) {
      CK(cudaEventRecord(a, s));
      CK(cudaGraphLaunch(ge, s));
      CK(cudaEventRecord(b, s));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      v.push_back(ms * 1e3 / 1000);
    }
    emit("launch", "empty_kernel_in_graph", stat_of(v), "us/kernel",
         "CUDA graph of 1000 empty kernels, replay between events, 7 reps", "empty_k", "EXIT");
  }
  for (int bs : {32, 256, 1024}) {
    const int ctas = sms * 2000;
    std::vector<double> v;
    for (int r = 0; r < 7; r++) {
      double ms = et.ms([&] { tiny_k<<<ctas, bs>>>(sink); });
      if (r) v.push_back(ctas / (ms * 1e3));  // CTAs per microsecond
    }
    Stat s = stat_of(v);
    std::string nm = "cta_launch_rate_" + std::to_string(bs) + "thr";
    emit("launch", nm.c_str(), s, "CTAs/us",
         "grid of 264000 CTAs (2000 per SM) that exit at once; CTAs / event time, median of 6",
         "tiny_k", "EXIT",
         join({kv("threads_per_cta", bs), kv("ns_per_cta_per_sm", 1e3 * sms / s.med)}));
  }
  for (int W : {1, 2, 4, 8, 16, 32}) {
    std::vector<double> v;
    const int iters = 256;
    for (int r = 0; r < 5; r++) {
      bar_k<<<1, 32 * W>>>(iters, d_out);
      CK_LAUNCH();
      unsigned long long c;
      CK(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
      v.push_back((double)c / (iters * 8));
    }
    std::string nm = "syncthreads_" + std::to_string(W) + "warps";
    emit("barrier", nm.c_str(), stat_of(v), "cycles",
         "one CTA of W warps, 2048 back-to-back bar.sync 0, cycles per barrier, 5 reps", "bar_k",
         "BAR.SYNC*", kv("warps", W));
  }
  emit_clock("launch", "end");
  return 0;
}
