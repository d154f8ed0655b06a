// Kernels that fault on purpose (tests/test_faults.py), and one that deadlocks on a divergent barrier.
extern "C" __global__ void fault_oob_global(const float *in, float *out, int shift) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = in[t + shift];              // reads past the end when shift is large
}

extern "C" __global__ void fault_oob_shared(int *out, int idx) {
    __shared__ int s[64];
    s[threadIdx.x & 63] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + idx];   // idx large: outside the 256 bytes of shared memory
}

extern "C" __global__ void fault_oob_local(int *out, int idx) {
    int local[8];
    for (int i = 0; i < 8; i++) local[i] = out[i] + i;
    out[threadIdx.x] = local[idx];       // dynamically indexed local array, idx past its end
}

extern "C" __global__ void fault_misaligned(const char *in, float *out, int off) {
    out[threadIdx.x] = *(const float *)(in + off + 4 * threadIdx.x);
}

extern "C" __global__ void fault_trap(int *out, int bad_lane) {
    if (threadIdx.x == bad_lane) __trap();
    out[threadIdx.x] = threadIdx.x;
}

extern "C" __global__ void fault_divergent_barrier(int *out) {
    if (threadIdx.x < 16) {
        __syncthreads();                  // only half of warp 0 arrives: undefined on HW, a deadlock here
    }
    out[threadIdx.x] = 1;
}

extern "C" __global__ void fault_spin(int *flag, int *out) {
    while (*(volatile int *)flag == 0) { }   // never ends: caught by max_warp_insts
    out[threadIdx.x] = 1;
}

extern "C" __global__ void ok_copy(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = in[t] + 1;
}
