// tensor_async.cu — asynchronous copies for tests/test_async.py: cp.async (.ca/.cg, 4/8/16 bytes,
// src-size zero fill, ignore-src, cache hints) with commit/wait groups, a double-buffered pipeline,
// mbarrier producer/consumer rings (plain arrivals, and expect_tx with cp.async.bulk), test_wait with
// states, arrive_drop, and cp.async.bulk shared -> global with bulk groups.
// Build: nvcc -ptx -arch=sm_90 -O3 tensor_async.cu -o tensor_async.sm90.ptx
#include <cuda_pipeline.h>

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// 64 threads. Thread t copies: 16 bytes with .cg and src-size srcsize[t] (zero fill), 8 bytes with .ca
// and the ignore-src predicate ignore[t], 4 bytes with .ca and an L2 cache hint. out = the shared copy.
extern "C" __global__ void cp_async_sizes(const unsigned char *src, const unsigned *srcsize,
                                          const int *ignore, unsigned char *out) {
    __shared__ __align__(16) unsigned char s[64 * 28];
    unsigned t = threadIdx.x;
    for (int k = 0; k < 28; k++) s[64 * k + t] = 0xAB;          // poison: every byte must be written
    __syncthreads();
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 0.5;" : "=l"(pol));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :: "r"(smem(s + 16 * t)), "l"(src + 16 * t), "r"(srcsize[t]) : "memory");
    asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0;\n"
                 " cp.async.ca.shared.global [%0], [%1], 8, p; }"
                 :: "r"(smem(s + 1024 + 8 * t)), "l"(src + 1024 + 8 * t), "r"(ignore[t]) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 4, %2;"
                 :: "r"(smem(s + 1536 + 4 * t)), "l"(src + 1536 + 4 * t), "l"(pol) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    for (int k = 0; k < 28; k++) out[64 * k + t] = s[64 * k + t];
}

// Double-buffered sum: each CTA (128 threads) walks NTILES tiles of 128 float4 with
// __pipeline_memcpy_async; out[thread] = sum over tiles of (x + y + z + w) of a float4.
#define NTILES 5
extern "C" __global__ void pipeline_sum(const float4 *in, float *out) {
    const int ntiles = NTILES;
    __shared__ float4 buf[2][128];
    unsigned t = threadIdx.x;
    const float4 *base = in + (size_t)blockIdx.x * ntiles * 128;
    __pipeline_memcpy_async(&buf[0][t], base + t, sizeof(float4));
    __pipeline_commit();
    float acc = 0.0f;
    for (int i = 0; i < ntiles; i++) {
        if (i + 1 < ntiles) __pipeline_memcpy_async(&buf[(i + 1) & 1][t], base + (i + 1) * 128 + t, sizeof(float4));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 v = buf[i & 1][(t + 5 * i) & 127];             // read another thread's copy
        acc += ((v.x + v.y) + (v.z + v.w));
        __syncthreads();
    }
    out[blockIdx.x * 128 + t] = acc;
}

__device__ __forceinline__ void mbar_init(unsigned long long *b, unsigned n) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long *b) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" :: "r"(smem(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long *b, unsigned parity) {
    asm volatile("{ .reg .pred p;\n"
                 "WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 " @!p bra WAIT; }" :: "r"(smem(b)), "r"(parity) : "memory");
}

// A two-stage ring between a producer warp (warp 0) and a consumer warp (warp 1): the producer
// fills a stage with it*100 + lane and arrives on full[s] (32 arrivals); the consumer waits on
// full[s], reads, and arrives on empty[s]. out[lane] = sum over it of stage value * (it + 1).
extern "C" __global__ void mbarrier_ring(int iters, unsigned *out) {
    __shared__ unsigned stage[2][32];
    __shared__ unsigned long long full[2], empty[2];
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0)
        for (int s = 0; s < 2; s++) { mbar_init(&full[s], 32); mbar_init(&empty[s], 32); }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    unsigned acc = 0;
    for (int it = 0; it < iters; it++) {
        int s = it & 1;
        unsigned phase = (it >> 1) & 1;
        if (warp == 0) {
            mbar_wait(&empty[s], phase ^ 1);
            stage[s][lane] = it * 100 + lane;
            mbar_arrive(&full[s]);
        } else {
            mbar_wait(&full[s], phase);
            acc += stage[s][31 - lane] * (it + 1);
            mbar_arrive(&empty[s]);
        }
    }
    if (warp == 1) out[lane] = acc;
}

// The TMA-style pipeline: one elected producer thread announces the bytes of a stage with
// mbarrier.arrive.expect_tx and fills it with cp.async.bulk (complete_tx); 128 consumer threads
// (warps 1-4) wait, accumulate, and release the stage. At the end the consumers' sums go back to
// global memory with a shared -> global cp.async.bulk in a bulk group.
extern "C" __global__ void bulk_pipeline(const float *in, int iters, float *out) {
    __shared__ __align__(128) float stage[2][128];
    __shared__ __align__(16) float result[128];
    __shared__ unsigned long long full[2], empty[2];
    unsigned t = threadIdx.x, warp = t >> 5;
    if (t == 0)
        for (int s = 0; s < 2; s++) { mbar_init(&full[s], 1); mbar_init(&empty[s], 128); }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    float acc = 0.0f;
    for (int it = 0; it < iters; it++) {
        int s = it & 1;
        unsigned phase = (it >> 1) & 1;
        if (warp == 0) {
            if (t == 0) {
                mbar_wait(&empty[s], phase ^ 1);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" :: "r"(smem(&full[s])) : "memory");
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
                             :: "r"(smem(stage[s])), "l"(in + it * 128), "r"(smem(&full[s])) : "memory");
            }
        } else {
            unsigned c = t - 32;
            mbar_wait(&full[s], phase);
            acc += stage[s][c] * (float)(it + 1);
            mbar_arrive(&empty[s]);
        }
    }
    if (warp != 0) result[t - 32] = acc;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 512;" :: "l"(out), "r"(smem(result)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

// test_wait with the state of an arrive; arrive_drop; pending_count. 64 threads, one barrier of 64:
// out[t*3] = pending count in the state an arrival returned (before it), out[t*3+1] = 1 once the
// phase completed, out[t*3+2] = the phase parity seen by a second barrier after a drop.
extern "C" __global__ void mbarrier_states(unsigned *out) {
    __shared__ unsigned long long bar, bar2;
    unsigned t = threadIdx.x;
    if (t == 0) { mbar_init(&bar, 64); mbar_init(&bar2, 64); }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(smem(&bar)) : "memory");
    unsigned pend, done;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pend) : "l"(state));
    asm volatile("{ .reg .pred p;\n"
                 "W2: mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n"
                 " @!p bra W2; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(smem(&bar)), "l"(state) : "memory");
    // bar2: every thread drops out of the next phases, in two steps of 32: a phase completes with
    // 64 arrivals, then the expected count is 0 ... so use arrive_drop in phase 0 only by odd threads
    if (t & 1) asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" :: "r"(smem(&bar2)) : "memory");
    else mbar_arrive(&bar2);
    mbar_wait(&bar2, 0);                                     // phase 0 completes with 64 arrivals
    __syncthreads();
    if ((t & 1) == 0) mbar_arrive(&bar2);                    // phase 1 expects 32: the even threads
    mbar_wait(&bar2, 1);
    out[3 * t] = pend;
    out[3 * t + 1] = done;
    unsigned ok;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 1; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(smem(&bar2)) : "memory");
    out[3 * t + 2] = ok;
}
