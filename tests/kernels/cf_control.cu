// Control-flow test kernels (tests/test_divergence.py): nested branches, loops with break and continue,
// early return inside loops, divergent while loops with per-lane trip counts, switch statements,
// barriers after divergent code that reconverged.
extern "C" __global__ void cf_nested(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = in[t], r;
    if (x > 0) {
        if (x & 1) r = x * 3;
        else if (x & 2) r = x + 100;
        else r = 7;
    } else {
        if (x < -50) r = -1;
        else r = x * x;
    }
    out[t] = r;
}

extern "C" __global__ void cf_loops(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned x = (unsigned)in[t], acc = 0;
    for (unsigned i = 0; i < 40u; i++) {
        if (i * i == (x & 1023u)) break;       // a data-dependent exit
        if ((i + x) % 3u == 0u) continue;
        acc += (i & 1u) ? i : 2u * i;
    }
    unsigned k = x & 31u;                // per-lane trip count
    while (k != 0u) {
        acc += k;
        k = (k & 1u) ? k - 1u : k >> 1;
    }
    out[t] = (int)acc;
}

extern "C" __global__ void cf_early_exit(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = in[t];
    out[t] = -1;
    for (int i = 0; i < 32; i++) {
        x = x * 5 + 1;
        if ((x & 15) == 3) {            // early return from inside the loop
            out[t] = i;
            return;
        }
    }
    out[t] = 1000 + (x & 255);
}

extern "C" __global__ void cf_switch(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int v = in[t], r;
    switch (in[n + t]) {                 // the selector comes from memory: no narrowing to 16 bits
    case 0: r = 10; break;
    case 1: r = v * 3; break;
    case 2: r = 7; break;
    case 3: r = v >> 2; break;
    case 4: r = 99; break;
    case 5: r = v ^ 0x55; break;
    case 6: r = 1 << (v & 7); break;
    case 7: r = v - 100; break;
    case 9: r = 123456; break;
    default: r = 0;
    }
    out[t] = r;
}

// divergent work, then a barrier every thread reaches: the warp must reconverge before it
extern "C" __global__ void cf_barrier_after_divergence(const int *in, int *out) {
    __shared__ int s[256];
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    int k = v & 7;
    while (k-- > 0) v = v * 3 + 1;
    s[t] = v;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x] + s[t];
}
