// Device functions that are not inlined (tests/test_calls.py): scalar, struct and array-in-struct
// parameters and return values, pointer parameters, guarded calls and calls in divergent code,
// a callee that calls another callee, local arrays, __constant__/__device__ globals with initialisers.
struct Pair { int a; int b; };
struct Arr { int v[5]; };

__constant__ int c_weights[5] = {3, -1, 4, 1, -5};
__device__ int g_offset = 1000;

__device__ __noinline__ int add_mul(int x, int y) { return x * 7 + y; }

__device__ __noinline__ Pair swap_scale(Pair p, int k) { return Pair{p.b * k, p.a + k}; }

__device__ __noinline__ Arr make_arr(int seed) {
    Arr r;
    for (int i = 0; i < 5; i++) r.v[i] = seed * (i + 1) + c_weights[i];
    return r;
}

__device__ __noinline__ int dot_arr(Arr a, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += a.v[i] * c_weights[i];
    return s;
}

__device__ __noinline__ int nested(int x) { return add_mul(x, g_offset) + 1; }

__device__ __noinline__ void store_twice(int *p, int v) { p[0] = v; p[1] = 2 * v; }

__device__ __noinline__ int pick_local(int i) {
    int tab[12];
    for (int k = 0; k < 12; k++) tab[k] = k * k + i;
    return tab[(i * 5) % 12];
}

extern "C" __global__ void call_all(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = in[t];
    int r = add_mul(x, t);
    Pair p = swap_scale(Pair{x, t}, 3);
    r += p.a * 2 + p.b;
    if (in[n + t] != 0) r += nested(x);   // call in divergent code
    else r += dot_arr(make_arr(x), in[n + t + 1] & 3);
    r += pick_local(t & 31);
    store_twice(&out[2 * t], r);
}
