// tensor_mma.cu — mma.sync, ldmatrix and stmatrix through inline PTX, for tests/test_tensor.py.
// The mma_* kernels are fragment-in, fragment-out: each CTA is one warp solving problem blockIdx.x;
// lane l loads its registers from A[l*NA + j], B[l*NB + j], C[l*NC + j] (raw 32-bit fragments built by
// the test from the PTX ISA's fragment layouts) and writes D[l*ND + j]. So the kernel assumes no
// layout: the test's numpy model of the layout meets the simulator's (and the hardware's).
// Build: nvcc -ptx -arch=sm_90 -O3 tensor_mma.cu -o tensor_mma.sm90.ptx
#include <cuda_fp16.h>

#define ARGS const unsigned *A, const unsigned *B, const unsigned *C, unsigned *D
#define LD(P, N, J) P[(blockIdx.x * blockDim.x + threadIdx.x) * N + J]   /* blockDim.x == 32 */

// 16-bit inputs, m16n8k8: A 2, B 1 registers
#define MMA_K8_16(NAME, TYPES, NC, ND)                                                              \
    extern "C" __global__ void NAME(ARGS) {                                                          \
        unsigned a0 = LD(A, 2, 0), a1 = LD(A, 2, 1), b0 = LD(B, 1, 0);                               \
        unsigned c[4], d[4];                                                                         \
        for (int j = 0; j < NC; j++) c[j] = LD(C, NC, j);                                            \
        if (ND == 4 && NC == 4)                                                                      \
            asm volatile("mma.sync.aligned.m16n8k8.row.col." TYPES " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
                         : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                            \
                         : "r"(a0), "r"(a1), "r"(b0), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));   \
        else                                                                                         \
            asm volatile("mma.sync.aligned.m16n8k8.row.col." TYPES " {%0,%1}, {%2,%3}, {%4}, {%5,%6};" \
                         : "=r"(d[0]), "=r"(d[1]) : "r"(a0), "r"(a1), "r"(b0), "r"(c[0]), "r"(c[1])); \
        for (int j = 0; j < ND; j++) LD(D, ND, j) = d[j];                                            \
    }

// four A registers, two B registers (m16n8k16 16-bit, m16n8k8 tf32, m16n8k32 8-bit)
#define MMA_A4B2(NAME, SHAPE_TYPES, NC, ND)                                                         \
    extern "C" __global__ void NAME(ARGS) {                                                          \
        unsigned a[4], b0 = LD(B, 2, 0), b1 = LD(B, 2, 1), c[4], d[4];                               \
        for (int j = 0; j < 4; j++) a[j] = LD(A, 4, j);                                              \
        for (int j = 0; j < NC; j++) c[j] = LD(C, NC, j);                                            \
        if (ND == 4 && NC == 4)                                                                      \
            asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
                         : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                            \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1),             \
                           "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));                              \
        else if (ND == 2 && NC == 2)                                                                 \
            asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};" \
                         : "=r"(d[0]), "=r"(d[1])                                                    \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1])); \
        else if (ND == 4)                                                                            \
            asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11};" \
                         : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                            \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1])); \
        for (int j = 0; j < ND; j++) LD(D, ND, j) = d[j];                                            \
    }

// two A registers, one B register (m16n8k4 tf32, m16n8k16 8-bit)
#define MMA_A2B1(NAME, SHAPE_TYPES)                                                                 \
    extern "C" __global__ void NAME(ARGS) {                                                          \
        unsigned a0 = LD(A, 2, 0), a1 = LD(A, 2, 1), b0 = LD(B, 1, 0), c[4], d[4];                   \
        for (int j = 0; j < 4; j++) c[j] = LD(C, 4, j);                                              \
        asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
                     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                \
                     : "r"(a0), "r"(a1), "r"(b0), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));       \
        for (int j = 0; j < 4; j++) LD(D, 4, j) = d[j];                                              \
    }

MMA_K8_16(mma_m16n8k8_f32_f16_f32, "f32.f16.f16.f32", 4, 4)
MMA_K8_16(mma_m16n8k8_f16_f16_f16, "f16.f16.f16.f16", 2, 2)
MMA_K8_16(mma_m16n8k8_f32_bf16_f32, "f32.bf16.bf16.f32", 4, 4)
MMA_A4B2(mma_m16n8k16_f32_f16_f32, "m16n8k16.row.col.f32.f16.f16.f32", 4, 4)
MMA_A4B2(mma_m16n8k16_f16_f16_f16, "m16n8k16.row.col.f16.f16.f16.f16", 2, 2)
MMA_A4B2(mma_m16n8k16_f32_bf16_f32, "m16n8k16.row.col.f32.bf16.bf16.f32", 4, 4)
MMA_A4B2(mma_m16n8k8_f32_tf32_f32, "m16n8k8.row.col.f32.tf32.tf32.f32", 4, 4)
MMA_A4B2(mma_m16n8k32_s32_s8_u8_s32, "m16n8k32.row.col.satfinite.s32.s8.u8.s32", 4, 4)
MMA_A4B2(mma_m16n8k32_s32_u8_u8_s32, "m16n8k32.row.col.s32.u8.u8.s32", 4, 4)
MMA_A4B2(mma_m16n8k32_f32_e4m3_e5m2_f32, "m16n8k32.row.col.f32.e4m3.e5m2.f32", 4, 4)
MMA_A2B1(mma_m16n8k4_f32_tf32_f32, "m16n8k4.row.col.f32.tf32.tf32.f32")
MMA_A2B1(mma_m16n8k16_s32_s8_s8_s32, "m16n8k16.row.col.s32.s8.s8.s32")

// ldmatrix from a shared tile of 64 rows x 8 b16 (16 bytes a row); lane l names row rows[l].
// out[l*16 + ...]: x1, x2 (2), x4 (4), x1.trans, x2.trans (2), x4.trans (4), then 2 unused.
extern "C" __global__ void ldmatrix_all(const uint4 *tile, const int *rows, unsigned *out) {
    __shared__ uint4 s[64];
    unsigned l = threadIdx.x;
    s[l] = tile[l];
    s[l + 32] = tile[l + 32];
    __syncwarp();
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[rows[l]]);
    unsigned *o = out + 16 * l, r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
    o[0] = r0;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
    o[1] = r0; o[2] = r1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
    o[3] = r0; o[4] = r1; o[5] = r2; o[6] = r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
    o[7] = r0;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
    o[8] = r0; o[9] = r1;
    unsigned long long g = (unsigned long long)&s[rows[l]];          // generic address form
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "l"(g));
    o[10] = r0; o[11] = r1; o[12] = r2; o[13] = r3;
}

// stmatrix x4 (and .trans x2) of registers regs[l*4 + i] into a zeroed shared tile of 64 rows,
// lane l naming row rows[l]; out = the tile after x4 (64 uint4) then after x2.trans (64 uint4).
extern "C" __global__ void stmatrix_all(const unsigned *regs, const int *rows, uint4 *out) {
    __shared__ uint4 s[64];
    unsigned l = threadIdx.x;
    s[l] = make_uint4(0, 0, 0, 0);
    s[l + 32] = make_uint4(0, 0, 0, 0);
    __syncwarp();
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[rows[l]]);
    const unsigned *r = regs + 4 * l;
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
                 :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
    __syncwarp();
    out[l] = s[l];
    out[l + 32] = s[l + 32];
    s[l] = make_uint4(0, 0, 0, 0);
    s[l + 32] = make_uint4(0, 0, 0, 0);
    __syncwarp();
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};"
                 :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory");
    __syncwarp();
    out[64 + l] = s[l];
    out[96 + l] = s[l + 32];
}

// The usual tile code: A (16 x 16 f16, row-major) and B (16 x 8 f16, row-major, i.e. k-major rows)
// in shared memory; ldmatrix.x4 gives A's fragment, ldmatrix.x2.trans B's; mma (f32 accumulate,
// C = 0); D (16 x 8 f32, row-major) is written from the accumulator registers at the positions the
// PTX layout gives them; the same product with f16 accumulators is stored with stmatrix.x2 (Dh).
extern "C" __global__ void ldsm_mma_tile(const half *A, const half *B, float *D, half *Dh) {
    __shared__ __align__(16) half sa[16 * 16], sb[16 * 8], sd[16 * 8];
    unsigned l = threadIdx.x;
    for (int i = l; i < 256; i += 32) sa[i] = A[i];
    for (int i = l; i < 128; i += 32) sb[i] = B[i];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[(l % 16) * 16 + (l / 16) * 8]);
    unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(l % 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(pb));
    float d0, d1, d2, d3, z = 0.0f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(z));
    unsigned g = l >> 2, t = l & 3;
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
    D[(g + 8) * 8 + 2 * t] = d2;
    D[(g + 8) * 8 + 2 * t + 1] = d3;
    unsigned h0, h1, zero = 0;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%8};"
                 : "=r"(h0), "=r"(h1) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(zero));
    unsigned pd = (unsigned)__cvta_generic_to_shared(&sd[(l % 16) * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(pd), "r"(h0), "r"(h1) : "memory");
    __syncwarp();
    for (int i = l; i < 128; i += 32) Dh[i] = sd[i];
}
