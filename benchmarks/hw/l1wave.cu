// l1wave.cu (helper wmma): L1-hit load-to-use latency of one global load request against the lines and the data
// wavefronts it needs. wmmastep.cu (calibration.md 5r) found hgemm_wmma_simple's k step at one warp 226 cycles on
// L1-resident data where the model takes ~100-130: the JIT's fragment requests read 8 rows x 16 bytes each (8
// lines; at a 1 KiB pitch every row's word sits in the same banks: 8 wavefronts), and the model gives every L1 hit
// the one-line latency (32 cycles load-to-use). Here one warp chases pointers: every lane's next address is its
// base plus the (zero) word it loaded, so each LDG waits for the one before; lane l reads row l / 4 (8 rows),
// word l % 4 of the row's 16 bytes, rows S bytes apart:
//   S = 16    : 8 rows in one 128-byte line            (1 line, 1 wavefront)
//   S = 1040  : 8 lines, each row 16 bytes further on  (8 lines, 1 wavefront: every bank once)
//   S = 32, 64: 2 / 4 lines at one offset              (2 / 4 lines, 2 / 4 wavefronts)
//   S = 128, 1024: 8 lines at one offset               (8 lines, 8 wavefronts; 1024 = the suite's pitch)
// and "lanes32": lane l's word at l * 1024 (32 lines, 32 wavefronts). Also `vec` (one line, each lane 4 B
// consecutive: the plain 1-line case) and a chain of 8-wavefront loads with a second independent chain in
// flight (does the latency overlap?). Output: RESULT lines, cycles per dependent load (mean of 3 launches,
// the first launch fills the L1; the timed one is the second loop over the same addresses in one launch).
#include "common.cuh"

__global__ void chase(unsigned* buf, int rowstride, int lanestride, int n, int two,
                      unsigned* out, unsigned long long* cyc)
{
    int l = threadIdx.x & 31;
    size_t off = lanestride ? (size_t)l * lanestride : (size_t)(l / 4) * rowstride + (l % 4) * 4;
    const char* base = reinterpret_cast<const char*>(buf);
    const char* base2 = base + (8u << 20);
    unsigned v = 0, v2 = 0;
    // warm-up: the lines into the L1
    for (int i = 0; i < 4; i++) {
        v = *reinterpret_cast<const unsigned*>(base + off + v);
        if (two) v2 = *reinterpret_cast<const unsigned*>(base2 + off + v2);
    }
    __syncwarp();
    unsigned long long t0 = clock64();
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            v = *reinterpret_cast<const unsigned*>(base + off + v);
            if (two) v2 = *reinterpret_cast<const unsigned*>(base2 + off + v2);
        }
    }
    unsigned long long t1 = clock64();
    out[threadIdx.x] = v + v2;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

int main() {
    unsigned* buf; unsigned* out; unsigned long long* cyc;
    size_t bytes = 16u << 20;
    CK(cudaMalloc(&buf, bytes));
    CK(cudaMemset(buf, 0, bytes));
    CK(cudaMalloc(&out, 1024 * sizeof(unsigned)));
    CK(cudaMalloc(&cyc, 64 * sizeof(unsigned long long)));
    spin_all_sms(50);
    printf("# sm clock %.0f MHz\n", sm_clock_mhz());
    struct P { const char* name; int rs, ls, lines, wavefronts; } ps[] = {
        {"vec", 0, 4, 1, 1}, {"rows16", 16, 0, 1, 1}, {"rows1040", 1040, 0, 8, 1}, {"rows32", 32, 0, 2, 2},
        {"rows64", 64, 0, 4, 4}, {"rows128", 128, 0, 8, 8}, {"rows1024", 1024, 0, 8, 8}, {"lanes32", 0, 1024, 32, 32}};
    for (auto& p : ps) {
        for (int two = 0; two < 2; two++) {
            for (int rep = 0; rep < 3; rep++) {
                int n = 64;
                chase<<<1, 32>>>(buf, p.rs, p.ls, n, two, out, cyc);
                CK_LAUNCH();
                unsigned long long c;
                CK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
                printf("RESULT {\"bench\":\"l1wave\",\"pattern\":\"%s\",\"lines\":%d,\"wavefronts\":%d,\"chains\":%d,"
                       "\"rep\":%d,\"cyc_per_load\":%.2f}\n", p.name, p.lines, p.wavefronts, two + 1, rep,
                       (double)c / (n * 8));
            }
        }
    }
    return 0;
}
