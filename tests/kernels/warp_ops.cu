// warp_ops.cu — warp-level operations for tests/test_isa_warp.py: shfl (every mode, width, clamp and
// segment mask, the predicate output), vote, match, redux, activemask and elect, under full and partial
// member masks. Each warp reads its member mask from `active[warp]`; lanes outside it skip the
// operation and write a sentinel. Build: nvcc -ptx -arch=sm_90 -O3 warp_ops.cu -o warp_ops.sm90.ptx
#include <cuda_runtime.h>

#define SENTINEL 0xdeadbeefu

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ unsigned gtid() { return blockIdx.x * blockDim.x + threadIdx.x; }

// shfl.sync with per-lane b and c operands, as PTX writes it: d|p, a, b, c, membermask (full mask).
// mode: 0 up, 1 down, 2 bfly, 3 idx. out[t] = d, pred[t] = p.
extern "C" __global__ void shfl_bc(const unsigned *a, const unsigned *b, const unsigned *c, int mode,
                                   unsigned *out, unsigned *pred) {
    unsigned t = gtid(), d, p;
    unsigned av = a[t], bv = b[t], cv = c[t];
    switch (mode) {
    case 0: asm volatile("{ .reg .pred q; shfl.sync.up.b32 %0|q, %2, %3, %4, -1; selp.u32 %1, 1, 0, q; }"
                         : "=r"(d), "=r"(p) : "r"(av), "r"(bv), "r"(cv)); break;
    case 1: asm volatile("{ .reg .pred q; shfl.sync.down.b32 %0|q, %2, %3, %4, -1; selp.u32 %1, 1, 0, q; }"
                         : "=r"(d), "=r"(p) : "r"(av), "r"(bv), "r"(cv)); break;
    case 2: asm volatile("{ .reg .pred q; shfl.sync.bfly.b32 %0|q, %2, %3, %4, -1; selp.u32 %1, 1, 0, q; }"
                         : "=r"(d), "=r"(p) : "r"(av), "r"(bv), "r"(cv)); break;
    default: asm volatile("{ .reg .pred q; shfl.sync.idx.b32 %0|q, %2, %3, %4, -1; selp.u32 %1, 1, 0, q; }"
                          : "=r"(d), "=r"(p) : "r"(av), "r"(bv), "r"(cv)); break;
    }
    out[t] = d;
    pred[t] = p;
}

// The CUDA intrinsics with every width: out[t*20 + 4*w + m] for widths 32,16,8,4,2 (w) and
// modes up, down, xor, idx (m); delta[t] is the lane offset / source lane (any value).
template <int W>
__device__ void shfl_width_one(unsigned mask, unsigned v, int dl, unsigned *o) {
    o[0] = __shfl_up_sync(mask, v, dl, W);
    o[1] = __shfl_down_sync(mask, v, dl, W);
    o[2] = __shfl_xor_sync(mask, v, dl, W);
    o[3] = __shfl_sync(mask, v, dl, W);
}
extern "C" __global__ void shfl_widths(const unsigned *a, const int *delta, unsigned *out) {
    unsigned t = gtid();
    unsigned v = a[t];
    int dl = delta[t];
    unsigned *o = out + 20 * t;
    shfl_width_one<32>(0xffffffffu, v, dl, o);
    shfl_width_one<16>(0xffffffffu, v, dl, o + 4);
    shfl_width_one<8>(0xffffffffu, v, dl, o + 8);
    shfl_width_one<4>(0xffffffffu, v, dl, o + 12);
    shfl_width_one<2>(0xffffffffu, v, dl, o + 16);
}

// Partial masks: lanes of active[warp] shuffle among themselves (src[t] names a member lane).
extern "C" __global__ void shfl_partial(const unsigned *a, const int *src, const unsigned *active, unsigned *out) {
    unsigned t = gtid(), act = active[t / 32];
    unsigned v = a[t];
    unsigned r = SENTINEL;
    if ((act >> lane_id()) & 1u) r = __shfl_sync(act, v, src[t]);
    out[t] = r;
}

// vote: out[t*5 + i] = all, any, uni, ballot, activemask (members only)
extern "C" __global__ void vote_ops(const int *pred, const unsigned *active, unsigned *out) {
    unsigned t = gtid(), act = active[t / 32];
    int p = pred[t];
    unsigned *o = out + 5 * t;
    if ((act >> lane_id()) & 1u) {
        o[0] = __all_sync(act, p);
        o[1] = __any_sync(act, p);
        o[2] = __uni_sync(act, p);
        o[3] = __ballot_sync(act, p);
        o[4] = __activemask();
    } else {
        for (int i = 0; i < 5; i++) o[i] = SENTINEL;
    }
}

// match: out[t*6 + i] = any.b32, any.b64, all.b32, its predicate, all.b64, its predicate
extern "C" __global__ void match_ops(const unsigned *v32, const unsigned long long *v64,
                                     const unsigned *active, unsigned *out) {
    unsigned t = gtid(), act = active[t / 32];
    unsigned *o = out + 6 * t;
    if ((act >> lane_id()) & 1u) {
        int p;
        o[0] = __match_any_sync(act, v32[t]);
        o[1] = __match_any_sync(act, v64[t]);
        o[2] = __match_all_sync(act, v32[t], &p);
        o[3] = (unsigned)p;
        o[4] = __match_all_sync(act, v64[t], &p);
        o[5] = (unsigned)p;
    } else {
        for (int i = 0; i < 6; i++) o[i] = SENTINEL;
    }
}

// redux: out[t*8 + i] = add.u32, min.u32, max.u32, min.s32, max.s32, and, or, xor
extern "C" __global__ void redux_ops(const unsigned *v, const unsigned *active, unsigned *out) {
    unsigned t = gtid(), act = active[t / 32];
    unsigned *o = out + 8 * t;
    unsigned u = v[t];
    if ((act >> lane_id()) & 1u) {
        o[0] = __reduce_add_sync(act, u);
        o[1] = __reduce_min_sync(act, u);
        o[2] = __reduce_max_sync(act, u);
        o[3] = (unsigned)__reduce_min_sync(act, (int)u);
        o[4] = (unsigned)__reduce_max_sync(act, (int)u);
        o[5] = __reduce_and_sync(act, u);
        o[6] = __reduce_or_sync(act, u);
        o[7] = __reduce_xor_sync(act, u);
    } else {
        for (int i = 0; i < 8; i++) o[i] = SENTINEL;
    }
}

// elect.sync among the members: out[t*2] = leader lane, out[t*2+1] = 1 in the leader
extern "C" __global__ void elect_ops(const unsigned *active, unsigned *out) {
    unsigned t = gtid(), act = active[t / 32];
    unsigned leader = SENTINEL, is_leader = SENTINEL;
    if ((act >> lane_id()) & 1u)
        asm volatile("{ .reg .pred q; elect.sync %0|q, %2; selp.u32 %1, 1, 0, q; }"
                     : "=r"(leader), "=r"(is_leader) : "r"(act));
    out[2 * t] = leader;
    out[2 * t + 1] = is_leader;
}

// A warp-wide sum reduction with shfl_down, the pattern of reduce kernels: out[warp] = sum.
extern "C" __global__ void warp_sum(const float *x, float *out) {
    float v = x[gtid()];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane_id() == 0) out[gtid() / 32] = v;
}
