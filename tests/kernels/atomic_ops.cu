// atomic_ops.cu — atom/red for tests/test_atomics.py: every op and type, global, shared and generic
// addresses, heavy contention (all threads of many CTAs on one address), memory-order and scope
// qualifiers, vector and 16-bit float forms. Build: nvcc -ptx -arch=sm_90 -O3 atomic_ops.cu
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ unsigned gtid() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Every thread of the grid adds 1 to one counter; olds[t] is what it saw.
extern "C" __global__ void contend_add(unsigned *counter, unsigned *olds) {
    olds[gtid()] = atomicAdd(counter, 1u);
}

// The same with a compare-and-swap loop (each thread adds v[t]); olds[t] = the value it replaced.
extern "C" __global__ void contend_cas_loop(unsigned long long *counter, const unsigned *v,
                                            unsigned long long *olds) {
    unsigned long long old = *(volatile unsigned long long *)counter, seen;
    unsigned add = v[gtid()];
    while ((seen = atomicCAS(counter, old, old + add)) != old) old = seen;
    olds[gtid()] = old;
}

// Ten 32-bit ops on ten cells, all threads of all CTAs on each cell; olds[t*10 + i].
extern "C" __global__ void contend_u32(unsigned *cells, const unsigned *v, unsigned lim, unsigned *olds) {
    unsigned t = gtid(), x = v[t];
    unsigned *o = olds + 10 * t;
    o[0] = atomicAdd(cells + 0, x);
    o[1] = atomicMin(cells + 1, x);
    o[2] = atomicMax(cells + 2, x);
    o[3] = atomicAnd(cells + 3, x);
    o[4] = atomicOr(cells + 4, x);
    o[5] = atomicXor(cells + 5, x);
    o[6] = atomicInc(cells + 6, lim);
    o[7] = atomicDec(cells + 7, lim);
    o[8] = atomicExch(cells + 8, x);
    o[9] = (unsigned)atomicMin((int *)cells + 9, (int)x);
}

// 64-bit and signed ops: cells (u64) [add, min, max, and, or, xor, exch] and (s64) [min, max]
extern "C" __global__ void contend_u64(unsigned long long *cells, long long *scells,
                                       const unsigned long long *v, unsigned long long *olds) {
    unsigned t = gtid();
    unsigned long long x = v[t];
    unsigned long long *o = olds + 9 * t;
    o[0] = atomicAdd(cells + 0, x);
    o[1] = atomicMin(cells + 1, x);
    o[2] = atomicMax(cells + 2, x);
    o[3] = atomicAnd(cells + 3, x);
    o[4] = atomicOr(cells + 4, x);
    o[5] = atomicXor(cells + 5, x);
    o[6] = atomicExch(cells + 6, x);
    o[7] = (unsigned long long)atomicMin(scells + 0, (long long)x);
    o[8] = (unsigned long long)atomicMax(scells + 1, (long long)x);
}

// Float adds (exact inputs, so every order gives the same sum): f32, f64, f16, f16x2, bf16, bf16x2.
// The 16-bit inputs come packed from the host (vh, vh2, vb, vb2); olds keeps atom.add.f32's returns.
extern "C" __global__ void float_adds(float *f, double *d, __half *h, __half2 *h2, __nv_bfloat16 *b,
                                      __nv_bfloat162 *b2, const float *v, const __half *vh,
                                      const __half2 *vh2, const __nv_bfloat16 *vb,
                                      const __nv_bfloat162 *vb2, float *olds) {
    unsigned t = gtid();
    float x = v[t];
    atomicAdd(f, x);
    olds[t] = atomicAdd(f + 1, x);
    atomicAdd(d, (double)x);
    atomicAdd(h, vh[t]);
    atomicAdd(h2, vh2[t]);
    atomicAdd(b, vb[t]);
    atomicAdd(b2, vb2[t]);
}

// f32 atomic add of subnormal values on global memory (PTX: inputs and results flushed to zero)
extern "C" __global__ void f32_add_subnormal(float *cells, const float *v, float *olds) {
    unsigned t = gtid();
    olds[t] = atomicAdd(cells + t, v[t]);
}

// The same on shared memory (olds) and with red on global memory (no return value).
extern "C" __global__ void f32_add_subnormal_shared(float *cells, const float *v, float *olds) {
    __shared__ float s[32];
    unsigned t = threadIdx.x;
    s[t] = cells[t];
    __syncthreads();
    olds[t] = atomicAdd(&s[t], v[t]);
    __syncthreads();
    cells[t] = s[t];
}
extern "C" __global__ void f32_red_subnormal(float *cells, const float *v, float *olds) {
    unsigned t = gtid();
    olds[t] = cells[t];
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(cells + t), "f"(v[t]) : "memory");
}

// Shared-memory counters under contention inside a CTA, then one global write per CTA.
extern "C" __global__ void shared_contend(const unsigned *v, unsigned *out) {
    __shared__ unsigned s[4];
    __shared__ unsigned long long s64;
    if (threadIdx.x < 4) s[threadIdx.x] = threadIdx.x == 1 ? 0xffffffffu : 0u;
    if (threadIdx.x == 0) s64 = 0;
    __syncthreads();
    unsigned x = v[gtid()];
    atomicAdd(s + 0, x);
    atomicMin(s + 1, x);
    atomicMax(s + 2, x);
    atomicXor(s + 3, x);
    atomicAdd(&s64, (unsigned long long)x << 20);
    __syncthreads();
    if (threadIdx.x < 4) out[5 * blockIdx.x + threadIdx.x] = s[threadIdx.x];
    if (threadIdx.x == 0) out[5 * blockIdx.x + 4] = (unsigned)(s64 >> 20);
}

// Explicit PTX forms through inline asm: generic addresses (to shared and to global), memory-order
// and scope qualifiers, cas.b16, the cache-hint operand, vector f32 and f16x2 forms.
// out[16*t + i] as listed below.
extern "C" __global__ void explicit_forms(unsigned *g, float *gv, __half2 *gh, unsigned short *g16,
                                          const unsigned *hv, unsigned *out) {
    __shared__ unsigned s;
    unsigned t = gtid(), r;
    if (threadIdx.x == 0) s = 100;
    __syncthreads();
    unsigned *o = out + 16 * t;
    unsigned long long sp = (unsigned long long)&s;     // generic address of a shared variable
    asm volatile("atom.add.u32 %0, [%1], 1;" : "=r"(r) : "l"(sp) : "memory");
    o[0] = r;                                           // 100 + rank within the CTA's order
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 2;" : "=r"(r) : "l"(g) : "memory");
    o[1] = r;
    asm volatile("red.relaxed.cta.global.add.u32 [%0], 3;" :: "l"(g + 1) : "memory");
    asm volatile("atom.release.sys.or.b32 %0, [%1], %2;" : "=r"(r) : "l"(g + 2), "r"(1u << (t % 32)) : "memory");
    o[2] = r;
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    asm volatile("atom.global.add.L2::cache_hint.u32 %0, [%1], 4, %2;" : "=r"(r) : "l"(g + 3), "l"(pol) : "memory");
    o[3] = r;
    unsigned h16;                                       // cas.b16: compare 5, swap in 1000 + t
    asm volatile("{ .reg .b16 c, s, d; cvt.u16.u32 s, %2; mov.b16 c, 5; atom.global.cas.b16 d, [%1], c, s;"
                 " cvt.u32.u16 %0, d; }" : "=r"(h16) : "l"(g16), "r"(1000 + t) : "memory");
    o[4] = h16;
    float f0, f1, f2, f3;                               // vector f32 add: all threads on one float4
    asm volatile("atom.global.add.v4.f32 {%0,%1,%2,%3}, [%4], {%5,%6,%7,%8};"
                 : "=f"(f0), "=f"(f1), "=f"(f2), "=f"(f3) : "l"(gv), "f"(1.0f), "f"(2.0f), "f"(0.5f), "f"(-1.0f) : "memory");
    o[5] = __float_as_uint(f0); o[6] = __float_as_uint(f1); o[7] = __float_as_uint(f2); o[8] = __float_as_uint(f3);
    asm volatile("red.global.add.v2.f32 [%0], {%1,%2};" :: "l"(gv + 4), "f"(0.25f), "f"(4.0f) : "memory");
    unsigned hmax, hmin;                                // f16x2 max and min (.noftz.v2) over all threads
    unsigned mv = hv[t];                                // f16x2 (t % 97 - 40, 0.5 * (t % 13)) from the host
    asm volatile("atom.global.max.noftz.v2.f16x2 {%0,%1}, [%2], {%3,%3};" : "=r"(hmax), "=r"(hmin)
                 : "l"(gh), "r"(mv) : "memory");
    o[9] = hmax;
    asm volatile("atom.global.min.noftz.v2.f16x2 {%0,%1}, [%2], {%3,%3};" : "=r"(hmin), "=r"(hmax)
                 : "l"(gh + 2), "r"(mv) : "memory");
    o[10] = hmin;
    asm volatile("atom.global.exch.b32 %0, [%1], %2;" : "=r"(r) : "l"(g + 4), "r"(t) : "memory");
    o[11] = r;
    asm volatile("atom.global.inc.u32 %0, [%1], 9;" : "=r"(r) : "l"(g + 5) : "memory");
    o[12] = r;
    asm volatile("atom.global.dec.u32 %0, [%1], 6;" : "=r"(r) : "l"(g + 6) : "memory");
    o[13] = r;
    __syncthreads();
    o[14] = s;
}
