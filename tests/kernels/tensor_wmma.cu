// tensor_wmma.cu — nvcuda::wmma for tests/test_tensor.py: every shape (m16n16k16, m32n8k16,
// m8n32k16, m16n16k8) with f16/bf16/tf32/s8/u8 inputs, f16/f32/s32 accumulators, row/col layouts of A
// and B (template) and of C and D (runtime), strides, and a shared-memory kernel with padded strides,
// two k-steps and element-wise fragment math. Build: nvcc -ptx -arch=sm_90 -O3 tensor_wmma.cu
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// D = A*B + C: A is M x K, B is K x N, C and D are M x N, each stored with the layout and leading
// dimension given (c_row/d_row select row- or column-major C and D at run time).
template <int M, int N, int K, typename FI, typename TI, typename TA, typename LA, typename LB>
__device__ void wmma_body(const TI *a, const TI *b, const TA *c, TA *d, int lda, int ldb, int ldc,
                          int ldd, int c_row, int d_row) {
    wmma::fragment<wmma::matrix_a, M, N, K, FI, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, FI, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TA> fc;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, c_row ? wmma::mem_row_major : wmma::mem_col_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldd, d_row ? wmma::mem_row_major : wmma::mem_col_major);
}

#define WMMA_KERNEL(NAME, M, N, K, FI, TI, TA, LA, LB)                                             \
    extern "C" __global__ void NAME(const TI *a, const TI *b, const TA *c, TA *d, int lda, int ldb,  \
                                    int ldc, int ldd, int c_row, int d_row) {                       \
        wmma_body<M, N, K, FI, TI, TA, wmma::LA, wmma::LB>(a, b, c, d, lda, ldb, ldc, ldd, c_row, d_row); \
    }
#define WMMA_LAYOUTS(PREFIX, M, N, K, FI, TI, TA)                        \
    WMMA_KERNEL(PREFIX##_rr, M, N, K, FI, TI, TA, row_major, row_major) \
    WMMA_KERNEL(PREFIX##_rc, M, N, K, FI, TI, TA, row_major, col_major) \
    WMMA_KERNEL(PREFIX##_cr, M, N, K, FI, TI, TA, col_major, row_major) \
    WMMA_KERNEL(PREFIX##_cc, M, N, K, FI, TI, TA, col_major, col_major)

WMMA_LAYOUTS(wmma_m16n16k16_f16_f32, 16, 16, 16, half, half, float)
WMMA_LAYOUTS(wmma_m16n16k16_f16_f16, 16, 16, 16, half, half, half)
WMMA_LAYOUTS(wmma_m16n16k16_bf16_f32, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, float)
WMMA_LAYOUTS(wmma_m32n8k16_f16_f32, 32, 8, 16, half, half, float)
WMMA_LAYOUTS(wmma_m32n8k16_f16_f16, 32, 8, 16, half, half, half)
WMMA_LAYOUTS(wmma_m32n8k16_bf16_f32, 32, 8, 16, __nv_bfloat16, __nv_bfloat16, float)
WMMA_LAYOUTS(wmma_m8n32k16_f16_f32, 8, 32, 16, half, half, float)
WMMA_LAYOUTS(wmma_m8n32k16_f16_f16, 8, 32, 16, half, half, half)
WMMA_LAYOUTS(wmma_m8n32k16_bf16_f32, 8, 32, 16, __nv_bfloat16, __nv_bfloat16, float)
WMMA_LAYOUTS(wmma_m16n16k8_tf32_f32, 16, 16, 8, wmma::precision::tf32, float, float)
WMMA_KERNEL(wmma_m16n16k16_s8_s32_rc, 16, 16, 16, signed char, signed char, int, row_major, col_major)
WMMA_KERNEL(wmma_m32n8k16_u8_s32_rr, 32, 8, 16, unsigned char, unsigned char, int, row_major, row_major)
WMMA_KERNEL(wmma_m8n32k16_s8_s32_cc, 8, 32, 16, signed char, signed char, int, col_major, col_major)

// One warp, A (16 x 32, row-major) and B (32 x 16, col-major) staged through shared memory with
// padded strides, two k-steps into one f32 accumulator, alpha applied element-wise to the fragment,
// D stored to global with stride ldd. A and B arrive as raw f16 bits.
extern "C" __global__ void wmma_smem_two_steps(const half *a, const half *b, const float *c, float *d,
                                               float alpha, int ldd) {
    __shared__ __align__(32) half sa[16 * 40];   // stride 40
    __shared__ __align__(32) half sb[16 * 40];   // column-major, stride 40
    unsigned t = threadIdx.x;
    for (int i = 0; i < 16; i++) {
        sa[i * 40 + t] = a[i * 32 + t];          // t covers the 32 columns of row i
        sb[i * 40 + t] = b[i * 32 + t];          // t covers the 32 rows of column i
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
    for (int k = 0; k < 32; k += 16) {
        wmma::load_matrix_sync(fa, sa + k, 40);
        wmma::load_matrix_sync(fb, sb + k, 40);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; i++) acc.x[i] = alpha * acc.x[i];
    wmma::store_matrix_sync(d, acc, ldd, wmma::mem_col_major);
}
