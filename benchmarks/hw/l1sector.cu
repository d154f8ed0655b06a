// l1sector.cu (helper wmma): L2-hit latency of a fragment-like request (8 rows x 16 bytes, rows 1 KiB apart:
// 8 lines) whose lines are new to the L1 against one whose lines the L1 already holds with other sectors.
// wmmastep.cu (calibration.md 5r): with A and B L2-resident, hgemm_wmma_simple's k step takes 606-738 cycles
// with B column-major (every step reads the next 32-byte sector of the same 16 lines, 4 steps per line) and
// 419-592 with B row-major (16 new lines per step); the model gives both ~335-520. Here one warp chases
// pointers (each load's address adds the zero it loaded before), lane l at row l / 4, word l % 4; hop h reads
//   step = 128 : the next line of every row              (8 new lines per hop)
//   step = 32  : the next sector of the same lines       (3 of 4 hops: sector misses into resident lines)
//   step = 16  : half a sector on                        (every other hop an L1 hit)
//   step = 0   : the same 8 lines                        (L1 hits)
// The data are L2-resident (a first launch reads them; a launch starts with an empty L1). Output: RESULT
// lines, cycles per dependent load, mean of 3 launches.
#include "common.cuh"

__global__ void sect(unsigned* buf, int pitch, int step, int n, unsigned* out, unsigned long long* cyc)
{
    int l = threadIdx.x & 31;
    const char* p = reinterpret_cast<const char*>(buf) + (size_t)(l / 4) * pitch + (l % 4) * 4;
    unsigned v = 0;
    __syncwarp();
    unsigned long long t0 = clock64();
    for (int h = 0; h < n; h++) {
        v = *reinterpret_cast<const unsigned*>(p + v);
        p += step;
    }
    unsigned long long t1 = clock64();
    out[threadIdx.x] = v;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

int main() {
    unsigned* buf; unsigned* out; unsigned long long* cyc;
    size_t bytes = 64u << 20;
    CK(cudaMalloc(&buf, bytes));
    CK(cudaMemset(buf, 0, bytes));
    CK(cudaMalloc(&out, 1024 * sizeof(unsigned)));
    CK(cudaMalloc(&cyc, 64 * sizeof(unsigned long long)));
    spin_all_sms(50);
    printf("# sm clock %.0f MHz\n", sm_clock_mhz());
    // n hops of `step` bytes along each row: the rows are n * step + 1 KiB apart (a multiple of 128 bytes: every
    // row's word in the same banks, 8 wavefronts per request as the fragment's) so that they never overlap
    const int pitch = 1024, n = 256;
    struct M { const char* name; int step; } ms[] = {{"newline", 128}, {"sector", 32}, {"half", 16}, {"same", 0}};
    for (auto& m : ms) {
        int pt = n * m.step + pitch;
        for (int rep = 0; rep < 3; rep++) {
            sect<<<1, 32>>>(buf, pt, m.step, n, out, cyc);       // the lines into the L2
            sect<<<1, 32>>>(buf, pt, m.step, n, out, cyc);       // timed: L2 hits, the L1 empty at the start
            CK_LAUNCH();
            unsigned long long c;
            CK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
            printf("RESULT {\"bench\":\"l1sector\",\"mode\":\"%s\",\"step\":%d,\"pitch\":%d,\"rep\":%d,"
                   "\"cyc_per_load\":%.2f}\n", m.name, m.step, pt, rep, (double)c / n);
        }
    }
    return 0;
}
