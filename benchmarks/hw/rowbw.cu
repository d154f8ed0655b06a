// rowbw.cu (memfid3): DRAM throughput against row-buffer locality, and copy2d's pattern against a linear copy.
// Question: copy2d_4096 (64 MiB -> 64 MiB, 32x32 tiles, rows 16 KiB apart) takes 69,145 cycles under ncu where
// memstream's cp4_64MB (same bytes, linear 16-byte accesses) takes 63,681; the simulator's DRAM time does not
// depend on how requests spread over DRAM rows (a row miss adds latency, never bus or bank time). So:
//  rd_S : read 1 GiB in chunks of S bytes (S = 64 .. 4096) taken in a scrambled order (an odd multiplier mod
//         the chunk count: every chunk once), each chunk read by S/16 consecutive threads with 16-byte loads;
//         S = 0: no scrambling (linear). Throughput = 1 GiB / event time (median of 5, L2 flushed before).
//  cp_S : the same order, copying 512 MiB to 512 MiB (read and write at the same scrambled offsets).
//  copy2d / copylin4 : the suite's copy2d (4096 x 4096 f32, 32x8 threads, 4 rows per thread) against a copy of
//         the same grid and per-thread work on consecutive 1 KiB blocks (element blockIdx.x*1024 + j*256 + tid).
// Output: RESULT lines (common.cuh emit), GB/s and us.
#include "common.cuh"

__global__ void rd_chunks(const uint4* __restrict__ in, size_t nchunks, int s16, unsigned long long mul,
                          unsigned* __restrict__ sink) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t chunk = t / s16, off = t % s16;
    if (chunk >= nchunks) return;
    size_t c = mul ? (size_t)((chunk * mul) & (nchunks - 1)) : chunk;
    uint4 v = in[c * s16 + off];
    if ((v.x ^ v.y ^ v.z ^ v.w) == 0x9e3779b9u) sink[0] = 1;   // never: keeps the load
}
__global__ void cp_chunks(const uint4* __restrict__ in, uint4* __restrict__ out, size_t nchunks, int s16,
                          unsigned long long mul) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t chunk = t / s16, off = t % s16;
    if (chunk >= nchunks) return;
    size_t c = mul ? (size_t)((chunk * mul) & (nchunks - 1)) : chunk;
    out[c * s16 + off] = in[c * s16 + off];
}
extern "C" __global__ void copy2d(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8)
        if (x < cols && y + j < rows) out[(size_t)(y + j) * cols + x] = in[(size_t)(y + j) * cols + x];
}
extern "C" __global__ void copylin4(const float* __restrict__ in, float* __restrict__ out, int n) {
    int tid = threadIdx.y * 32 + threadIdx.x;
    int base = (blockIdx.y * gridDim.x + blockIdx.x) * 1024 + tid;
#pragma unroll
    for (int j = 0; j < 1024; j += 256)
        if (base + j < n) out[base + j] = in[base + j];
}

static char* g_flush = nullptr;
static void flush_l2() {
    const size_t fb = 256ull << 20;
    if (!g_flush) CK(cudaMalloc(&g_flush, fb));
    CK(cudaMemset(g_flush, 1, fb));
    CK(cudaDeviceSynchronize());
}
template <class F>
static Stat time_us(F launch, int reps = 5) {
    std::vector<double> v;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    for (int r = 0; r < reps; r++) {
        flush_l2();
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK_LAUNCH();
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
        v.push_back(ms * 1000.0);
    }
    CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
    return stat_of(v);
}

int main() {
    emit_clock("rowbw", "start");
    const size_t rd_bytes = 1ull << 30, cp_bytes = 512ull << 20;
    uint4 *a, *b; unsigned* sink;
    CK(cudaMalloc(&a, rd_bytes)); CK(cudaMalloc(&b, cp_bytes)); CK(cudaMalloc(&sink, 64));
    CK(cudaMemset(a, 0, rd_bytes)); CK(cudaMemset(b, 0, cp_bytes));
    const unsigned long long MUL = 0x9E3779B97F4A7C15ull | 1ull;     // odd: a bijection mod 2^k
    int sizes[] = {0, 64, 128, 256, 512, 1024, 2048, 4096};
    for (int S : sizes) {
        int s16 = (S ? S : 4096) / 16;
        unsigned long long mul = S ? MUL : 0;
        for (int kind = 0; kind < 2; kind++) {
            size_t bytes = kind ? cp_bytes : rd_bytes;
            size_t nchunks = bytes / (size_t)(s16 * 16);
            size_t threads = bytes / 16;
            int blocks = (int)(threads / 256);
            Stat s = kind ? time_us([&] { cp_chunks<<<blocks, 256>>>(a, b, nchunks, s16, mul); })
                          : time_us([&] { rd_chunks<<<blocks, 256>>>(a, nchunks, s16, mul, sink); });
            double moved = kind ? 2.0 * (double)bytes : (double)bytes;
            char name[64];
            snprintf(name, sizeof name, "%s_%d", kind ? "cp" : "rd", S);
            emit("rowbw", name, s, "us", "event time, median of 5, L2 flushed (256 MiB memset) before each",
                 kind ? "cp_chunks" : "rd_chunks", kind ? "LDG.E.128.CONSTANT STG.E.128" : "LDG.E.128.CONSTANT",
                 join({kv("chunk_bytes", S), kv("GBps", moved / (s.med * 1e-6) / 1e9)}));
        }
    }
    // copy2d (the suite's kernel) against the same grid on consecutive blocks
    const int R = 4096, Cc = 4096;
    float* fa = (float*)a; float* fb = (float*)b;
    Stat s2 = time_us([&] { copy2d<<<dim3(Cc / 32, R / 32), dim3(32, 8)>>>(fa, fb, R, Cc); });
    emit("rowbw", "copy2d_4096", s2, "us", "event time, median of 5, L2 flushed", "copy2d", "LDG.E.CONSTANT STG.E",
         kv("GBps", 2.0 * R * Cc * 4 / (s2.med * 1e-6) / 1e9));
    Stat s3 = time_us([&] { copylin4<<<dim3(Cc / 32, R / 32), dim3(32, 8)>>>(fa, fb, R * Cc); });
    emit("rowbw", "copylin4_4096", s3, "us", "event time, median of 5, L2 flushed", "copylin4", "LDG.E.CONSTANT STG.E",
         kv("GBps", 2.0 * R * Cc * 4 / (s3.med * 1e-6) / 1e9));
    emit_clock("rowbw", "end");
    return 0;
}
