/* bmm_cuda.cuh - the CUDA backend of bmm (see bmm.h for the problem, the
   table and explain). Header-only like bmm.h.

   Use: in exactly one .cu file
       #define BMM_IMPLEMENTATION
       #include "bmm_cuda.cuh"      (includes bmm.h, which includes bmm_cpu.h)
   and plain `#include "bmm_cuda.cuh"` in other .cu files. Then

       bmm_problem p = bmm_problem_rowmajor(BMM_F32, batch, m, n, k, dA, dB, dC);
       bmm_status s = bmm_cuda(&p, stream);

   Every call is one kernel launch on `stream` (none for an empty problem,
   two for cuda_cublas with a bias): no allocation, no synchronisation, no
   host<->device copy, so it can be captured in a CUDA graph.

   Pointers must be device, managed or mapped pinned memory (plain host
   memory only where the device can read pageable memory); others give
   BMM_BAD_DEVICE_POINTER before anything is launched.

   One entry per strategy forces it: bmm_cuda_loop(p, stream),
   bmm_cuda_warp, bmm_cuda_staged, bmm_cuda_tiled, bmm_cuda_batch_inner,
   bmm_cuda_cublas.

   Configuration macros (define before the implementation include):
     BMM_CUDA_TABLE_SM90, BMM_CUDA_TABLE_SM80, BMM_CUDA_TABLE_GENERIC
                          name of a `static const bmm_table_rule[]` that
                          replaces the default table for compute capability
                          9.0, 8.x, or any other device
     BMM_FORCE_CUDA_STRATEGY  a CUDA bmm_strategy every AUTO call uses
     BMM_WITH_CUBLAS      compile the cuda_cublas strategy (link -lcublas);
                          without it that strategy returns BMM_NOT_COMPILED
   The tables are also in tables/sm90.txt, sm80.txt, generic.txt (text form,
   loadable with BMM_TABLE_FILE or bmm_load_table_file).

   Strategies and the rule tunables each reads (0 = the default in brackets):
     cuda_loop         threads [256]
     cuda_warp         threads [256], lanes: sub-warp width, rounded up to a
                       power of two in 2..32 [about k/4]
     cuda_staged       threads [128], batch_per_block [threads / (m*n), within
                       48 KiB], vec: load width in bytes 4/8/16 [16, narrower
                       where misaligned], pad: extra elements per shared row of
                       A and per B entry [odd strides: +1 when even]
     cuda_tiled        tile: 32 or 64 [64 when m, n >= 64] (256 threads)
     cuda_batch_inner  threads [256]
     cuda_cublas       none (a bias costs a second launch)
   bmm_explain(p, BMM_BACKEND_CUDA, ...) prints the resolved values with the
   grid, block and shared memory of the launch. */

#if defined(BMM__IMPLEMENTED) && !defined(BMM__HAVE_CUDA)
#error "bmm_cuda.cuh must come before bmm.h's implementation (BMM_IMPLEMENTATION) in this file"
#endif

#include <cuda_runtime.h>
#ifndef BMM__HAVE_CUDA
#define BMM__HAVE_CUDA 1
#endif
#include "bmm.h"

#ifndef BMM_CUDA_CUH
#define BMM_CUDA_CUH

#ifdef __cplusplus
extern "C" {
#endif

/* Run on the device that is current for this thread, on `stream`:
   p->strategy AUTO (the table for this device's compute capability) or forced. */
BMM_API bmm_status bmm_cuda(const bmm_problem *p, cudaStream_t stream);
/* One entry point per CUDA strategy: bmm_cuda_loop(), bmm_cuda_warp(), ... */
#define BMM__X(E, name, l, mm, mn, mk, d) \
  BMM_API bmm_status bmm_##name(const bmm_problem *p, cudaStream_t stream);
BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X

#ifdef __cplusplus
}
#endif
#endif /* BMM_CUDA_CUH */

/* ======================================================================== */
#ifdef BMM_IMPLEMENTATION
#ifndef BMM__CUDA_IMPLEMENTED
#define BMM__CUDA_IMPLEMENTED

#ifdef BMM_WITH_CUBLAS
#include <cublas_v2.h>
#endif

#ifndef BMM_FORCE_CUDA_STRATEGY
#define BMM_FORCE_CUDA_STRATEGY BMM_STRATEGY_AUTO
#endif

/* CUDA strategies are the last entries of bmm_strategy: count them from the
   list so the check below needs no edit when a strategy is added. */
enum {
  bmm__cuda_nstrategies = 0
#define BMM__X(E, n, l, mm, mn, mk, d) +1
  BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X
};
static_assert((int)(BMM_FORCE_CUDA_STRATEGY) == 0 ||
                  ((int)(BMM_FORCE_CUDA_STRATEGY) >= BMM_STRATEGY_COUNT - bmm__cuda_nstrategies &&
                   (int)(BMM_FORCE_CUDA_STRATEGY) < BMM_STRATEGY_COUNT),
              "BMM_FORCE_CUDA_STRATEGY must be BMM_STRATEGY_AUTO or a CUDA strategy (BMM_CUDA_*)");

/* ---- default tables ------------------------------------------------------
   First match wins; a rule whose strategy does not claim the problem is
   skipped. No bmm measurement exists yet: the borders come from the untuned
   H100 probe quoted in issue 4 (f32/f64 seed problem 1e6 x 3x1xK, K = 5..50):
   a thread per output reading global memory holds 84-93% of copy bandwidth
   for K <= 10 only; staging batch groups through shared memory holds 93-98%
   at most K once bank conflicts at K = 32/40 are avoided (odd shared strides,
   see STAGED); split-K warps are the kInput analogue for long K. The tuner
   replaces these rules with measured ones. */
#define BMM__CUDA_SEED_NOTE "seed from issue 4 H100 probe; not yet measured by bmm"
#define BMM__CUDA_RM (BMM_L_ROWMAJOR | BMM_L_SHARED_B)

/* One seed rule: layouts, m, n, k ranges ([min, max], max 0 = no bound),
   strategy; any dtype and batch, tunables left to the strategy defaults. */
#define BMM__CUDA_SEED(layouts, m0, m1, n0, n1, k0, k1, strategy, note) \
  { 0, layouts, m0, m1, n0, n1, k0, k1, 0, 0, strategy, 0, 0, 0, 0, 0, 0, note }
#define BMM__CUDA_CATCH_ALL_NOTE "catch-all, any strides; " BMM__CUDA_SEED_NOTE

static const bmm_table_rule bmm__cuda_table_sm90[] = {
    BMM__CUDA_SEED(BMM_L_BATCH_INNER, 0, 0, 0, 0, 0, 0, BMM_CUDA_BATCH_INNER, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 32, 0, 32, 0, 32, 0, BMM_CUDA_TILED, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 0, 10, BMM_CUDA_LOOP, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(BMM__CUDA_RM, 0, 32, 0, 32, 11, 128, BMM_CUDA_STAGED, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 11, 0, BMM_CUDA_WARP, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 0, 0, BMM_CUDA_LOOP, BMM__CUDA_CATCH_ALL_NOTE),
};

/* The probe ran on an H100 only; sm_8x starts from the same borders (STAGED
   reads the device's shared-memory limit, 163 KiB on A100, 99 KiB on sm_86). */
static const bmm_table_rule bmm__cuda_table_sm80[] = {
    BMM__CUDA_SEED(BMM_L_BATCH_INNER, 0, 0, 0, 0, 0, 0, BMM_CUDA_BATCH_INNER, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 32, 0, 32, 0, 32, 0, BMM_CUDA_TILED, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 0, 10, BMM_CUDA_LOOP, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(BMM__CUDA_RM, 0, 32, 0, 32, 11, 128, BMM_CUDA_STAGED, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 11, 0, BMM_CUDA_WARP, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 0, 0, BMM_CUDA_LOOP, BMM__CUDA_CATCH_ALL_NOTE),
};

/* Any other device: STAGED only to k <= 64, where one f64 batch entry of the
   largest claimed m, n fits the 48 KiB every architecture grants a block. */
static const bmm_table_rule bmm__cuda_table_generic[] = {
    BMM__CUDA_SEED(BMM_L_BATCH_INNER, 0, 0, 0, 0, 0, 0, BMM_CUDA_BATCH_INNER, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 32, 0, 32, 0, 32, 0, BMM_CUDA_TILED, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 0, 10, BMM_CUDA_LOOP, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(BMM__CUDA_RM, 0, 32, 0, 32, 11, 64, BMM_CUDA_STAGED, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 11, 0, BMM_CUDA_WARP, BMM__CUDA_SEED_NOTE),
    BMM__CUDA_SEED(0, 0, 0, 0, 0, 0, 0, BMM_CUDA_LOOP, BMM__CUDA_CATCH_ALL_NOTE),
};

#ifndef BMM_CUDA_TABLE_SM90
#define BMM_CUDA_TABLE_SM90 bmm__cuda_table_sm90
#endif
#ifndef BMM_CUDA_TABLE_SM80
#define BMM_CUDA_TABLE_SM80 bmm__cuda_table_sm80
#endif
#ifndef BMM_CUDA_TABLE_GENERIC
#define BMM_CUDA_TABLE_GENERIC bmm__cuda_table_generic
#endif
#define BMM__CUDA_NRULES(t) ((int)(sizeof(t) / sizeof((t)[0])))

/* ---- kernels ------------------------------------------------------------
   Every kernel gets the validated plan (by value, __grid_constant__ so taking
   its address costs no local copy) plus the launch tunables, and may assume
   what its strategy claims in BMM_CUDA_STRATEGIES. Batch entries and outputs
   are folded into grid x and walked with grid-stride loops in int64, so any
   batch runs in one launch. beta == 0 never reads C; !use_ab never reads A,
   B (their pointers are NULL then). */

typedef struct bmm__cuda_args {
  bmm_plan pl;
  int lanes;     /* WARP: sub-warp width, a power of two in 2..32 */
  int per_block; /* STAGED: batch entries per block */
  int a_ld;      /* STAGED: shared-memory row stride of A (k + pad) */
  int b_ld;      /* STAGED: shared-memory stride between B entries */
  int vec;       /* STAGED: global load width in bytes (element size..16) */
  int b_off;     /* STAGED: element offset of B in shared memory */
} bmm__cuda_args;

/* Offsets of batch entry b: one multiply for the single-dim classes (every
   class but some general ones; ndims 0 has stride 0 and b = 0). */
static __device__ __forceinline__ void bmm__cuda_offsets(const bmm_plan *pl, int64_t b, int64_t *oa,
                                                         int64_t *ob, int64_t *oc) {
  if (pl->ndims <= 1) {
    *oa = b * pl->a.batch_stride[0];
    *ob = b * pl->b.batch_stride[0];
    *oc = b * pl->c.batch_stride[0];
  } else {
    bmm_batch_offsets(pl, b, oa, ob, oc);
  }
}

#define BMM__CUDA_EPILOGUE(T, pl, cp, acc, j)             \
  do {                                                    \
    T bmm__v = (T)(pl)->alpha * (acc);                    \
    if ((pl)->read_c) bmm__v += (T)(pl)->beta * *(cp);    \
    if ((pl)->bias) bmm__v += ((const T *)(pl)->bias)[j]; \
    *(cp) = bmm__v;                                       \
  } while (0)

#define BMM__CUDA_TID() ((int64_t)blockIdx.x * blockDim.x + threadIdx.x)
#define BMM__CUDA_NTHREADS() ((int64_t)gridDim.x * blockDim.x)

/* A strided dot product; inlined with constant strides for packed layouts. */
#define BMM__CUDA_DOT(E, name, T, sz, ...)                                                        \
  static __device__ __forceinline__ T bmm__cuda_dot_##name(                                  \
      const T *__restrict__ a, int64_t as, const T *__restrict__ b, int64_t bs, int64_t k) { \
    T acc = 0;                                                                               \
    int64_t l;                                                                               \
    _Pragma("unroll 4") for (l = 0; l < k; ++l) acc += a[l * as] * b[l * bs];                \
    return acc;                                                                              \
  }
BMM_DTYPES(BMM__CUDA_DOT)
#undef BMM__CUDA_DOT

/* LOOP: a thread per C element, K sequential (XLA's kLoop). Consecutive
   threads take consecutive j, then i, then b: C writes are coalesced for
   packed C and A rows are shared through L1 by the n threads of a row. */
#define BMM__CUDA_LOOP(E, name, T, sz, ...)                                                         \
  __global__ void bmm__cuda_loop_##name(const __grid_constant__ bmm__cuda_args args) {         \
    const bmm_plan *pl = &args.pl;                                                             \
    const int64_t m = pl->m, n = pl->n, k = pl->k, mn = m * n, total = mn * pl->batch;         \
    const int packed = pl->layout == BMM_LAYOUT_ROWMAJOR || pl->layout == BMM_LAYOUT_SHARED_B; \
    const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;                              \
    T *C = (T *)pl->c.ptr;                                                                     \
    int64_t idx;                                                                               \
    for (idx = BMM__CUDA_TID(); idx < total; idx += BMM__CUDA_NTHREADS()) {                    \
      int64_t b = idx / mn, r = idx - b * mn, i = r / n, j = r - i * n, oa, ob, oc;            \
      T acc = 0;                                                                               \
      bmm__cuda_offsets(pl, b, &oa, &ob, &oc);                                                 \
      if (pl->use_ab) {                                                                        \
        if (packed)                                                                            \
          acc = bmm__cuda_dot_##name(A + oa + i * k, 1, B + ob + j, n, k);                     \
        else                                                                                   \
          acc = bmm__cuda_dot_##name(A + oa + i * pl->a.row_stride, pl->a.col_stride,          \
                                     B + ob + j * pl->b.col_stride, pl->b.row_stride, k);      \
      }                                                                                        \
      BMM__CUDA_EPILOGUE(T, pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride, acc, j); \
    }                                                                                          \
  }
BMM_DTYPES(BMM__CUDA_LOOP)
#undef BMM__CUDA_LOOP

/* WARP: a sub-warp of `lanes` threads per C element splits K (XLA's kInput,
   llama.cpp's mmv): consecutive lanes read consecutive K for K-contiguous A,
   then a shuffle tree sums. Every lane of a warp runs the same number of
   iterations (the loop tests the warp's first group) so the full-mask
   shuffles are legal; lanes past the end add zeros and store nothing. */
#define BMM__CUDA_WARP(E, name, T, sz, ...)                                                           \
  __global__ void bmm__cuda_warp_##name(const __grid_constant__ bmm__cuda_args args) {           \
    const bmm_plan *pl = &args.pl;                                                               \
    const int64_t m = pl->m, n = pl->n, k = pl->k, mn = m * n, total = mn * pl->batch;           \
    const int lanes = args.lanes, lane = (int)(threadIdx.x & (unsigned)(lanes - 1));             \
    const int64_t tid = BMM__CUDA_TID(), step = BMM__CUDA_NTHREADS() / lanes;                    \
    const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;                                \
    T *C = (T *)pl->c.ptr;                                                                       \
    int64_t g = tid / lanes, warp_first = (tid - (threadIdx.x & 31u)) / lanes;                   \
    for (; warp_first < total; g += step, warp_first += step) {                                  \
      int64_t b = 0, i = 0, j = 0, oa = 0, ob = 0, oc = 0, l;                                    \
      T acc = 0;                                                                                 \
      int off;                                                                                   \
      if (g < total) {                                                                           \
        int64_t r;                                                                               \
        b = g / mn, r = g - b * mn, i = r / n, j = r - i * n;                                    \
        bmm__cuda_offsets(pl, b, &oa, &ob, &oc);                                                 \
        if (pl->use_ab) {                                                                        \
          const T *ap = A + oa + i * pl->a.row_stride, *bp = B + ob + j * pl->b.col_stride;      \
          const int64_t as = pl->a.col_stride, bs = pl->b.row_stride;                            \
          for (l = lane; l < k; l += lanes)                                                      \
            acc += ap[l * as] * bp[l * bs];                                                      \
        }                                                                                        \
      }                                                                                          \
      for (off = lanes >> 1; off > 0; off >>= 1)                                                 \
        acc += __shfl_xor_sync(0xffffffffu, acc, off, lanes);                                    \
      if (g < total && lane == 0)                                                                \
        BMM__CUDA_EPILOGUE(T, pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride, acc, j); \
    }                                                                                            \
  }
BMM_DTYPES(BMM__CUDA_WARP)
#undef BMM__CUDA_WARP

/* STAGED (MAGMA smallsq's idea, generalised to any m, n <= 32, k <= 128):
   a block copies the contiguous A (and B) spans of `per_block` consecutive
   batch entries into shared memory with the widest aligned loads, then
   computes every C element of the group from shared memory and writes the
   group's C span contiguously. Threads computing neighbouring outputs read A
   rows a_ld apart, and a_ld elements apart means gcd(a_ld, 32) of them share
   a bank (32-way at K = 32, 8-way at K = 40: the probe's cliffs), so a_ld
   and b_ld are made odd. Spans are
   bounded by shared memory, so offsets inside a block fit in int. */

/* tests/cuda_emu runs these kernels on the host: it declares this buffer and
   the launch (BMM__CUDA_GO below) itself */
#ifndef BMM__CUDA_EMULATED
extern __shared__ __align__(16) unsigned char bmm__cuda_smem[];
#endif

/* Copy src[0..cnt) to dst, element e at (e / row) * ld + e % row. A scalar
   head reaches VB-byte alignment, then VB-byte loads, then a scalar tail. */
#define BMM__CUDA_STAGE_VEC(T, VT, VB)                                            \
  do {                                                                            \
    const int per = (VB) / (int)sizeof(T);                                        \
    const int mis = (int)(((uintptr_t)src % (VB)) / sizeof(T));                   \
    int head = mis ? per - mis : 0, nvec, v, e;                                   \
    if (head > cnt) head = cnt;                                                   \
    nvec = (cnt - head) / per;                                                    \
    for (e = (int)threadIdx.x; e < head; e += (int)blockDim.x)                    \
      dst[(e / row) * ld + e % row] = src[e];                                     \
    for (v = (int)threadIdx.x; v < nvec; v += (int)blockDim.x) {                  \
      T x[(VB) / sizeof(T)];                                                      \
      VT u = __ldg((const VT *)(src + head) + v);                                 \
      int q, r, t;                                                                \
      e = head + v * per;                                                         \
      memcpy(x, &u, sizeof u);                                                    \
      if (ld == row && head == 0) {                                               \
        *(VT *)(dst + e) = u;                                                     \
        continue;                                                                 \
      }                                                                           \
      q = e / row, r = e - q * row;                                               \
      _Pragma("unroll") for (t = 0; t < per; ++t) {                               \
        dst[q * ld + r] = x[t];                                                   \
        if (++r == row) r = 0, ++q;                                               \
      }                                                                           \
    }                                                                             \
    for (e = head + nvec * per + (int)threadIdx.x; e < cnt; e += (int)blockDim.x) \
      dst[(e / row) * ld + e % row] = src[e];                                     \
  } while (0)

#define BMM__CUDA_STAGE(E, name, T, sz, ...)                                       \
  static __device__ __forceinline__ void bmm__cuda_stage_##name(              \
      const T *__restrict__ src, int cnt, T *dst, int row, int ld, int vec) { \
    if (vec >= 16 && 16 % sizeof(T) == 0)                                     \
      BMM__CUDA_STAGE_VEC(T, uint4, 16);                                      \
    else if (vec >= 8 && sizeof(T) <= 8)                                      \
      BMM__CUDA_STAGE_VEC(T, uint2, 8);                                       \
    else {                                                                    \
      int e;                                                                  \
      for (e = (int)threadIdx.x; e < cnt; e += (int)blockDim.x)               \
        dst[(e / row) * ld + e % row] = src[e];                               \
    }                                                                         \
  }
BMM_DTYPES(BMM__CUDA_STAGE)
#undef BMM__CUDA_STAGE

#define BMM__CUDA_STAGED(E, name, T, sz, ...)                                                   \
  __global__ void bmm__cuda_staged_##name(const __grid_constant__ bmm__cuda_args args) {   \
    const bmm_plan *pl = &args.pl;                                                         \
    const int m = (int)pl->m, n = (int)pl->n, k = (int)pl->k, mn = m * n;                  \
    const int G = args.per_block, a_ld = args.a_ld, b_ld = args.b_ld, use_ab = pl->use_ab; \
    const int shared_b = pl->layout == BMM_LAYOUT_SHARED_B;                                \
    const int64_t nb = pl->batch, groups = (nb + G - 1) / G;                               \
    const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;                          \
    T *C = (T *)pl->c.ptr, *sA = (T *)bmm__cuda_smem, *sB = sA + args.b_off;               \
    int64_t grp;                                                                           \
    if (use_ab && shared_b) {                                                              \
      bmm__cuda_stage_##name(B, k *n, sB, k *n, k *n, args.vec);                           \
      __syncthreads();                                                                     \
    }                                                                                      \
    for (grp = blockIdx.x; grp < groups; grp += gridDim.x) {                               \
      const int64_t b0 = grp * G;                                                          \
      const int cnt = (int)(nb - b0 < G ? nb - b0 : G), outs = cnt * mn;                   \
      T *Cg = C + b0 * mn;                                                                 \
      int o;                                                                               \
      if (use_ab) {                                                                        \
        bmm__cuda_stage_##name(A + b0 * m * k, cnt * m * k, sA, k, a_ld, args.vec);        \
        if (!shared_b)                                                                     \
          bmm__cuda_stage_##name(B + b0 * k * n, cnt * k * n, sB, k * n, b_ld, args.vec);  \
        __syncthreads();                                                                   \
      }                                                                                    \
      for (o = (int)threadIdx.x; o < outs; o += (int)blockDim.x) {                         \
        const int g = o / mn, r = o - g * mn, i = r / n, j = r - i * n;                    \
        T acc = 0;                                                                         \
        if (use_ab) {                                                                      \
          const T *ar = sA + (g * m + i) * a_ld, *bc = sB + (shared_b ? 0 : g * b_ld) + j; \
          int l;                                                                           \
          _Pragma("unroll 4") for (l = 0; l < k; ++l) acc += ar[l] * bc[l * n];            \
        }                                                                                  \
        BMM__CUDA_EPILOGUE(T, pl, Cg + o, acc, j);                                         \
      }                                                                                    \
      if (use_ab) __syncthreads();                                                         \
    }                                                                                      \
  }
BMM_DTYPES(BMM__CUDA_STAGED)
#undef BMM__CUDA_STAGED

/* TILED: a TL x TL tile of one C[b] per block iteration, K in steps of 16
   through shared memory, 256 threads each holding (TL/16)^2 accumulators.
   Tile loads pick the thread order from the operand's unit stride so global
   reads coalesce for row- and column-major alike; any strides are legal.
   Shared rows are padded by one element against bank conflicts. */
#define BMM__CUDA_TILE_K 16
#define BMM__CUDA_TILED(E, name, T, sz, TL)                                                   \
  __global__ void __launch_bounds__(256)                                                      \
      bmm__cuda_tiled##TL##_##name(const __grid_constant__ bmm__cuda_args args) {             \
    enum { R = (TL) / 16, KT = BMM__CUDA_TILE_K };                                            \
    __shared__ T sA[KT][(TL) + 1];                                                            \
    __shared__ T sB[KT][(TL) + 1];                                                            \
    const bmm_plan *pl = &args.pl;                                                            \
    const int64_t m = pl->m, n = pl->n, k = pl->k;                                            \
    const int64_t tiles_m = (m + (TL)-1) / (TL), tiles_n = (n + (TL)-1) / (TL);               \
    const int64_t per_entry = tiles_m * tiles_n, total = per_entry * pl->batch;               \
    const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;                             \
    const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;                             \
    const int a_kfast = acs == 1 || m == 1, b_nfast = bcs == 1 || k == 1;                     \
    const int tx = (int)(threadIdx.x & 15u), ty = (int)(threadIdx.x >> 4);                    \
    const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;                             \
    T *C = (T *)pl->c.ptr;                                                                    \
    int64_t t;                                                                                \
    for (t = blockIdx.x; t < total; t += gridDim.x) {                                         \
      const int64_t b = t / per_entry, rt = t - b * per_entry, tm = rt / tiles_n;             \
      const int64_t i0 = tm * (TL), j0 = (rt - tm * tiles_n) * (TL);                          \
      int64_t oa, ob, oc, l0;                                                                 \
      T acc[R][R];                                                                            \
      int r, c;                                                                               \
      _Pragma("unroll") for (r = 0; r < R; ++r) _Pragma("unroll") for (c = 0; c < R; ++c)     \
          acc[r][c] = 0;                                                                      \
      bmm__cuda_offsets(pl, b, &oa, &ob, &oc);                                                \
      for (l0 = 0; pl->use_ab && l0 < k; l0 += KT) {                                          \
        int e, ll;                                                                            \
        for (e = (int)threadIdx.x; e < (TL)*KT; e += 256) {                                   \
          int ii, la;                                                                         \
          int64_t gi, gl;                                                                     \
          if (a_kfast)                                                                        \
            la = e % KT, ii = e / KT;                                                         \
          else                                                                                \
            ii = e % (TL), la = e / (TL);                                                     \
          gi = i0 + ii, gl = l0 + la;                                                         \
          sA[la][ii] = gi < m && gl < k ? A[oa + gi * ars + gl * acs] : (T)0;                 \
        }                                                                                     \
        for (e = (int)threadIdx.x; e < (TL)*KT; e += 256) {                                   \
          int jj, lb;                                                                         \
          int64_t gj, gl;                                                                     \
          if (b_nfast)                                                                        \
            jj = e % (TL), lb = e / (TL);                                                     \
          else                                                                                \
            lb = e % KT, jj = e / KT;                                                         \
          gj = j0 + jj, gl = l0 + lb;                                                         \
          sB[lb][jj] = gj < n && gl < k ? B[ob + gl * brs + gj * bcs] : (T)0;                 \
        }                                                                                     \
        __syncthreads();                                                                      \
        _Pragma("unroll") for (ll = 0; ll < KT; ++ll) {                                       \
          T ra[R], rb[R];                                                                     \
          _Pragma("unroll") for (r = 0; r < R; ++r) ra[r] = sA[ll][ty + 16 * r];              \
          _Pragma("unroll") for (c = 0; c < R; ++c) rb[c] = sB[ll][tx + 16 * c];              \
          _Pragma("unroll") for (r = 0; r < R; ++r) _Pragma("unroll") for (c = 0; c < R; ++c) \
              acc[r][c] += ra[r] * rb[c];                                                     \
        }                                                                                     \
        __syncthreads();                                                                      \
      }                                                                                       \
      _Pragma("unroll") for (r = 0; r < R; ++r) _Pragma("unroll") for (c = 0; c < R; ++c) {   \
        const int64_t i = i0 + ty + 16 * r, j = j0 + tx + 16 * c;                             \
        if (i < m && j < n)                                                                   \
          BMM__CUDA_EPILOGUE(T, pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride,     \
                             acc[r][c], j);                                                   \
      }                                                                                       \
    }                                                                                         \
  }
#define BMM__CUDA_TILED32(E, name, T, sz, ...) BMM__CUDA_TILED(E, name, T, sz, 32)
#define BMM__CUDA_TILED64(E, name, T, sz, ...) BMM__CUDA_TILED(E, name, T, sz, 64)
BMM_DTYPES(BMM__CUDA_TILED32)
BMM_DTYPES(BMM__CUDA_TILED64)
#undef BMM__CUDA_TILED32
#undef BMM__CUDA_TILED64
#undef BMM__CUDA_TILED

/* BATCH_INNER: batch-innermost operands (element (b,i,j) at (i*cols+j)*nb+b):
   consecutive threads take consecutive b of the same (i, j), so every load
   and store of a warp is one contiguous run across the batch. */
#define BMM__CUDA_BATCH_INNER(E, name, T, sz, ...)                                                  \
  __global__ void bmm__cuda_batch_inner_##name(const __grid_constant__ bmm__cuda_args args) {  \
    const bmm_plan *pl = &args.pl;                                                             \
    const int64_t nb = pl->batch, n = pl->n, total = pl->m * n * nb;                           \
    const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;                              \
    T *C = (T *)pl->c.ptr;                                                                     \
    int64_t idx;                                                                               \
    for (idx = BMM__CUDA_TID(); idx < total; idx += BMM__CUDA_NTHREADS()) {                    \
      const int64_t r = idx / nb, b = idx - r * nb, i = r / n, j = r - i * n;                  \
      int64_t oa, ob, oc;                                                                      \
      T acc = 0;                                                                               \
      bmm__cuda_offsets(pl, b, &oa, &ob, &oc);                                                 \
      if (pl->use_ab)                                                                          \
        acc = bmm__cuda_dot_##name(A + oa + i * pl->a.row_stride, pl->a.col_stride,            \
                                   B + ob + j * pl->b.col_stride, pl->b.row_stride, pl->k);    \
      BMM__CUDA_EPILOGUE(T, pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride, acc, j); \
    }                                                                                          \
  }
BMM_DTYPES(BMM__CUDA_BATCH_INNER)
#undef BMM__CUDA_BATCH_INNER

#ifdef BMM_WITH_CUBLAS
/* cuBLAS has no bias: added by a second launch after the GEMM (documented in
   explain). Packed C, as CUDA_CUBLAS claims rowmajor/shared_b only. */
#define BMM__CUDA_ADD_BIAS(E, name, T, sz, ...)                                                 \
  __global__ void bmm__cuda_add_bias_##name(const __grid_constant__ bmm__cuda_args args) { \
    const bmm_plan *pl = &args.pl;                                                         \
    const int64_t n = pl->n, total = pl->m * n * pl->batch;                                \
    const T *bias = (const T *)pl->bias;                                                   \
    T *C = (T *)pl->c.ptr;                                                                 \
    int64_t idx;                                                                           \
    for (idx = BMM__CUDA_TID(); idx < total; idx += BMM__CUDA_NTHREADS())                  \
      C[idx] += bias[idx % n];                                                             \
  }
BMM_DTYPES(BMM__CUDA_ADD_BIAS)
#undef BMM__CUDA_ADD_BIAS
#endif

/* ---- host side ---------------------------------------------------------- */

#ifdef __cplusplus
extern "C" {
#endif

#define BMM__CUDA_MAX_DEVICES 64
/* Shared memory every architecture grants a block without opting in. */
#define BMM__CUDA_SMEM_DEFAULT (48 * 1024)

typedef struct bmm__cuda_device {
  int ready;
  int arch;            /* major * 10 + minor */
  int sms;             /* multiprocessors */
  int pageable;        /* device reads pageable host memory (HMM/ATS) */
  int smem_optin;      /* max dynamic shared memory per block after opt-in */
  int max_threads;     /* resident threads per multiprocessor */
  unsigned optin_done; /* STAGED kernels already opted in, bit per dtype */
} bmm__cuda_device;

static bmm__cuda_device bmm__cuda_devices[BMM__CUDA_MAX_DEVICES];

/* The current device and its cached properties; the first call per device
   queries them (under the lock: two threads may race to fill one entry). */
static bmm_status bmm__cuda_device_get(int *dev, bmm__cuda_device *out) {
  cudaError_t e = cudaGetDevice(dev);
  bmm_status s = BMM_OK;
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return bmm__fail(BMM_NO_DEVICE, "cudaGetDevice: %s", cudaGetErrorString(e));
  }
  if (*dev < 0 || *dev >= BMM__CUDA_MAX_DEVICES)
    return bmm__fail(BMM_NO_DEVICE, "device %d: bmm caches at most %d devices", *dev,
                     BMM__CUDA_MAX_DEVICES);
  BMM__LOCK();
  if (!bmm__cuda_devices[*dev].ready) {
    int major = 0, minor = 0;
    bmm__cuda_device d;
    memset(&d, 0, sizeof d);
    e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, *dev);
    if (e == cudaSuccess)
      e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, *dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, *dev);
    if (e == cudaSuccess)
      e = cudaDeviceGetAttribute(&d.pageable, cudaDevAttrPageableMemoryAccess, *dev);
    if (e == cudaSuccess)
      e = cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, *dev);
    if (e == cudaSuccess)
      e = cudaDeviceGetAttribute(&d.max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, *dev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      s = bmm__fail(BMM_NO_DEVICE, "device %d: cudaDeviceGetAttribute: %s", *dev,
                    cudaGetErrorString(e));
    } else {
      d.arch = major * 10 + minor;
      if (d.smem_optin < BMM__CUDA_SMEM_DEFAULT) d.smem_optin = BMM__CUDA_SMEM_DEFAULT;
      if (d.max_threads < 1024) d.max_threads = 1024;
      d.ready = 1;
      bmm__cuda_devices[*dev] = d;
    }
  }
  if (s == BMM_OK) *out = bmm__cuda_devices[*dev];
  BMM__UNLOCK();
  return s;
}

static void bmm__cuda_default_table(int arch, const bmm_table_rule **rules, int *count) {
  if (arch == 90) {
    *rules = BMM_CUDA_TABLE_SM90, *count = BMM__CUDA_NRULES(BMM_CUDA_TABLE_SM90);
  } else if (arch >= 80 && arch <= 89) {
    *rules = BMM_CUDA_TABLE_SM80, *count = BMM__CUDA_NRULES(BMM_CUDA_TABLE_SM80);
  } else {
    *rules = BMM_CUDA_TABLE_GENERIC, *count = BMM__CUDA_NRULES(BMM_CUDA_TABLE_GENERIC);
  }
}

/* Validation and table lookup. Without a device the generic table decides
   (explain and planning still work; bmm_cuda itself then says NO_DEVICE). */
static bmm_status bmm__cuda_plan_forced(const bmm_problem *p, bmm_strategy forced, bmm_plan *out,
                                        int *dev, bmm__cuda_device *info, bmm_status *dev_status) {
  const bmm_table_rule *rules;
  int count;
  memset(info, 0, sizeof *info);
  *dev_status = bmm__cuda_device_get(dev, info);
  bmm__cuda_default_table(*dev_status == BMM_OK ? info->arch : 0, &rules, &count);
  return bmm__plan_with(p, BMM_BACKEND_CUDA, rules, count, forced, out);
}

static bmm_status bmm__cuda_plan(const bmm_problem *p, bmm_plan *out) {
  int dev;
  bmm__cuda_device info;
  bmm_status ds;
  return bmm__cuda_plan_forced(p, BMM_FORCE_CUDA_STRATEGY, out, &dev, &info, &ds);
}

/* What one launch looks like: computed once, used by the launch and by explain. */
typedef struct bmm__cuda_launch {
  bmm__cuda_args args;
  int64_t grid;
  int block;
  size_t smem;        /* dynamic shared memory of the launch */
  size_t smem_static; /* declared in the kernel (TILED), for explain */
  int tile;
} bmm__cuda_launch;

static int bmm__cuda_pow2_at_least(int64_t v, int lo, int hi) {
  int w = lo;
  while (w < hi && w < v)
    w <<= 1;
  return w;
}

/* Blocks for `items` work units of `per_block` each, capped at a few waves
   of resident blocks: the grid-stride loops take the rest, and grid x stays
   far below its 2^31 - 1 limit whatever the batch. */
static int64_t bmm__cuda_blocks(int64_t items, int64_t per_block, int block,
                                const bmm__cuda_device *d) {
  int64_t want = (items + per_block - 1) / per_block;
  int64_t cap = d->sms > 0 ? (int64_t)d->sms * (d->max_threads / block) * 4 : 65535;
  if (cap < 1) cap = 1;
  if (want > cap) want = cap;
  return want < 1 ? 1 : want;
}

static int bmm__cuda_threads(const bmm_plan *pl, int dflt) {
  int t = pl->rule.threads ? pl->rule.threads : dflt;
  t = (t + 31) / 32 * 32; /* whole warps: WARP's shuffles need them */
  return t < 32 ? 32 : t > 1024 ? 1024 : t;
}

static bmm_status bmm__cuda_configure(const bmm_plan *pl, const bmm__cuda_device *d,
                                      bmm__cuda_launch *L) {
  const int64_t outs = pl->m * pl->n * pl->batch;
  const size_t es = bmm_dtype_size(pl->dtype);
  memset(L, 0, sizeof *L);
  L->args.pl = *pl;
  switch (pl->strategy) {
  case BMM_CUDA_LOOP:
  case BMM_CUDA_BATCH_INNER:
  case BMM_CUDA_CUBLAS:
    L->block = bmm__cuda_threads(pl, 256);
    L->grid = bmm__cuda_blocks(outs, L->block, L->block, d);
    break;
  case BMM_CUDA_WARP: {
    /* about four K elements per lane: enough to hide the shuffle tree,
       few enough that long K still spreads over a full warp */
    int lanes = pl->rule.lanes ? bmm__cuda_pow2_at_least(pl->rule.lanes, 2, 32)
                               : bmm__cuda_pow2_at_least((pl->k + 3) / 4, 2, 32);
    L->args.lanes = lanes;
    L->block = bmm__cuda_threads(pl, 256);
    L->grid = bmm__cuda_blocks(outs, L->block / lanes, L->block, d);
    break;
  }
  case BMM_CUDA_STAGED: {
    const int64_t m = pl->m, n = pl->n, k = pl->k;
    const int shared_b = pl->layout == BMM_LAYOUT_SHARED_B;
    int64_t a_ld = k, b_ld = k * n, per_entry, fixed, b_off, g, limit;
    int vec = pl->rule.vec ? pl->rule.vec : 16;
    if (pl->rule.pad)
      a_ld += pl->rule.pad, b_ld += pl->rule.pad;
    else
      a_ld |= 1, b_ld |= 1;
    if (vec < (int)es) vec = (int)es;
    L->block = bmm__cuda_threads(pl, 128);
    per_entry = pl->use_ab ? (m * a_ld + (shared_b ? 0 : b_ld)) * (int64_t)es : 0;
    fixed = pl->use_ab && shared_b ? k * n * (int64_t)es : 0;
    if (pl->rule.batch_per_block)
      g = pl->rule.batch_per_block;
    else {
      /* one output per thread (rounding up would leave one straggler
         round), within the 48 KiB that lets several blocks share a
         multiprocessor */
      g = L->block / (m * n);
      if (per_entry && g * per_entry + fixed > BMM__CUDA_SMEM_DEFAULT)
        g = (BMM__CUDA_SMEM_DEFAULT - fixed) / per_entry;
      if (g < 1) g = 1;
    }
    if (g > pl->batch) g = pl->batch;
    if (g < 1) g = 1;
    /* B after A, rounded up to 16 bytes so B's vector stores stay aligned */
    b_off = (g * m * a_ld * (int64_t)es + 15) / 16 * 16 / (int64_t)es;
    L->smem = pl->use_ab ? (size_t)((b_off + (shared_b ? k * n : g * b_ld)) * (int64_t)es) : 0;
    limit = d->sms > 0 ? d->smem_optin : BMM__CUDA_SMEM_DEFAULT;
    if ((int64_t)L->smem > limit)
      return bmm__fail(BMM_UNSUPPORTED,
                       "cuda_staged needs %lld bytes of shared memory for %lld batch entries per "
                       "block (m=%lld n=%lld k=%lld), the device allows %lld",
                       (long long)L->smem, (long long)g, (long long)m, (long long)n, (long long)k,
                       (long long)limit);
    L->args.per_block = (int)g;
    L->args.a_ld = (int)a_ld;
    L->args.b_ld = (int)b_ld;
    L->args.b_off = (int)b_off;
    L->args.vec = vec;
    L->grid = bmm__cuda_blocks((pl->batch + g - 1) / g, 1, L->block, d);
    break;
  }
  case BMM_CUDA_TILED: {
    int64_t tl;
    L->tile =
        pl->rule.tile ? (pl->rule.tile > 32 ? 64 : 32) : (pl->m >= 64 && pl->n >= 64 ? 64 : 32);
    tl = L->tile;
    L->smem_static = (size_t)(2 * BMM__CUDA_TILE_K * (tl + 1)) * es;
    L->block = 256;
    L->grid = bmm__cuda_blocks(((pl->m + tl - 1) / tl) * ((pl->n + tl - 1) / tl) * pl->batch, 1,
                               L->block, d);
    break;
  }
  default:
    return bmm__fail(BMM_BAD_STRATEGY, "strategy %s is not a CUDA strategy",
                     bmm_strategy_name(pl->strategy));
  }
  return BMM_OK;
}

/* A launch error, with the runtime's text. */
static bmm_status bmm__cuda_check_launch(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    return bmm__fail(BMM_CUDA_ERROR, "%s launch: %s (%s)", what, cudaGetErrorString(e),
                     cudaGetErrorName(e));
  return BMM_OK;
}

/* ---- launchers: one per strategy, each a switch over BMM_DTYPES ---------- */

#ifndef BMM__CUDA_EMULATED
#define BMM__CUDA_GO(kernel) kernel<<<(unsigned)L->grid, (unsigned)L->block, L->smem, st>>>(L->args)
#endif

/* A strategy with one kernel per dtype and nothing to set up: its launcher is
   a switch whose cases (one per dtype, from BMM_DTYPES) launch the kernel. */
#define BMM__CUDA_SIMPLE_LAUNCHER(strat, cases)                                              \
  static bmm_status bmm__cuda_launch_##strat(const bmm__cuda_launch *L, bmm__cuda_device *d, \
                                             int dev, cudaStream_t st) {                     \
    (void)d, (void)dev;                                                                      \
    switch ((int)L->args.pl.dtype) { cases } /* an unknown dtype never passes validation */  \
    return bmm__cuda_check_launch(#strat);                                                   \
  }
#define BMM__CUDA_CASE_LOOP(E, name, T, sz, ...) \
  case BMM_##E:                             \
    BMM__CUDA_GO(bmm__cuda_loop_##name);    \
    break;
#define BMM__CUDA_CASE_WARP(E, name, T, sz, ...) \
  case BMM_##E:                             \
    BMM__CUDA_GO(bmm__cuda_warp_##name);    \
    break;
#define BMM__CUDA_CASE_BATCH_INNER(E, name, T, sz, ...) \
  case BMM_##E: BMM__CUDA_GO(bmm__cuda_batch_inner_##name); break;
BMM__CUDA_SIMPLE_LAUNCHER(cuda_loop, BMM_DTYPES(BMM__CUDA_CASE_LOOP))
BMM__CUDA_SIMPLE_LAUNCHER(cuda_warp, BMM_DTYPES(BMM__CUDA_CASE_WARP))
BMM__CUDA_SIMPLE_LAUNCHER(cuda_batch_inner, BMM_DTYPES(BMM__CUDA_CASE_BATCH_INNER))

/* Above 48 KiB a kernel must opt in once per device; the attribute call is
   not a stream operation, so capture is not disturbed. */
static bmm_status bmm__cuda_optin(const void *kernel, int bit, bmm__cuda_device *d, int dev) {
  bmm_status s = BMM_OK;
  BMM__LOCK();
  if (!(bmm__cuda_devices[dev].optin_done & (1u << bit))) {
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, d->smem_optin);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      s = bmm__fail(BMM_CUDA_ERROR, "cudaFuncSetAttribute(MaxDynamicSharedMemorySize, %d): %s",
                    d->smem_optin, cudaGetErrorString(e));
    } else {
      bmm__cuda_devices[dev].optin_done |= 1u << bit;
    }
  }
  BMM__UNLOCK();
  return s;
}

static bmm_status bmm__cuda_launch_cuda_staged(const bmm__cuda_launch *L, bmm__cuda_device *d,
                                               int dev, cudaStream_t st) {
  bmm_status s = BMM_OK;
  switch (L->args.pl.dtype) {
#define BMM__X(E, name, T, sz, ...)                                                          \
  case BMM_##E:                                                                         \
    if (L->smem > BMM__CUDA_SMEM_DEFAULT)                                               \
      s = bmm__cuda_optin((const void *)bmm__cuda_staged_##name, (int)BMM_##E, d, dev); \
    if (s == BMM_OK) BMM__CUDA_GO(bmm__cuda_staged_##name);                             \
    break;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: break;
  }
  return s != BMM_OK ? s : bmm__cuda_check_launch("cuda_staged");
}

static bmm_status bmm__cuda_launch_cuda_tiled(const bmm__cuda_launch *L, bmm__cuda_device *d,
                                              int dev, cudaStream_t st) {
  (void)d, (void)dev;
  switch (L->args.pl.dtype) {
#define BMM__X(E, name, T, sz, ...)                \
  case BMM_##E:                               \
    if (L->tile == 64)                        \
      BMM__CUDA_GO(bmm__cuda_tiled64_##name); \
    else                                      \
      BMM__CUDA_GO(bmm__cuda_tiled32_##name); \
    break;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: break;
  }
  return bmm__cuda_check_launch("cuda_tiled");
}

#ifdef BMM_WITH_CUBLAS
#define BMM__CUDA_HAVE_CUBLAS 1
static cublasHandle_t bmm__cuda_cublas_handles[BMM__CUDA_MAX_DEVICES];

/* Row-major C = A B is column-major C^T = B^T A^T: B goes first, no copies.
   The handle is made on the first call per device (so that call must not be
   inside a stream capture) and used under the lock: cublasSetStream and the
   GEMM must not interleave between threads. */
static bmm_status bmm__cuda_launch_cuda_cublas(const bmm__cuda_launch *L, bmm__cuda_device *d,
                                               int dev, cudaStream_t st) {
  const bmm_plan *pl = &L->args.pl;
  const long long sa = pl->a.batch_stride[0], sb = pl->b.batch_stride[0],
                  sc = pl->c.batch_stride[0];
  cublasStatus_t cs = CUBLAS_STATUS_SUCCESS;
  cublasHandle_t h;
  (void)d;
  if (!pl->use_ab) return bmm__cuda_launch_cuda_loop(L, d, dev, st); /* C = beta C + bias */
  if (pl->m > INT_MAX || pl->n > INT_MAX || pl->k > INT_MAX || pl->batch > INT_MAX)
    return bmm__fail(BMM_UNSUPPORTED,
                     "cuda_cublas: m, n, k and batch must fit int (m=%lld n=%lld k=%lld "
                     "batch=%lld)",
                     (long long)pl->m, (long long)pl->n, (long long)pl->k, (long long)pl->batch);
  BMM__LOCK();
  if (!bmm__cuda_cublas_handles[dev]) cs = cublasCreate(&bmm__cuda_cublas_handles[dev]);
  h = bmm__cuda_cublas_handles[dev];
  if (cs == CUBLAS_STATUS_SUCCESS) cs = cublasSetStream(h, st);
  if (cs == CUBLAS_STATUS_SUCCESS) {
    switch (pl->dtype) {
#define BMM__X(E, name, T, sz, ...)                                                                     \
  case BMM_##E: {                                                                                  \
    const T al = (T)pl->alpha, be = (T)pl->beta;                                                   \
    const cudaDataType_t ty = sz == 4 ? CUDA_R_32F : CUDA_R_64F;                                   \
    cs = cublasGemmStridedBatchedEx(                                                               \
        h, CUBLAS_OP_N, CUBLAS_OP_N, (int)pl->n, (int)pl->m, (int)pl->k, &al, pl->b.ptr, ty,       \
        (int)pl->n, sb, pl->a.ptr, ty, (int)pl->k, sa, &be, (void *)pl->c.ptr, ty, (int)pl->n, sc, \
        (int)pl->batch, sz == 4 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);   \
    break;                                                                                         \
  }
      BMM_DTYPES(BMM__X)
#undef BMM__X
    default: break;
    }
  }
  BMM__UNLOCK();
  if (cs != CUBLAS_STATUS_SUCCESS)
    return bmm__fail(BMM_CUDA_ERROR, "cuda_cublas: %s (%s)", cublasGetStatusName(cs),
                     cublasGetStatusString(cs));
  if (pl->bias) {
    switch (pl->dtype) {
#define BMM__X(E, name, T, sz, ...) \
  case BMM_##E: BMM__CUDA_GO(bmm__cuda_add_bias_##name); break;
      BMM_DTYPES(BMM__X)
#undef BMM__X
    default: break;
    }
  }
  return bmm__cuda_check_launch("cuda_cublas");
}
#else
#define BMM__CUDA_HAVE_CUBLAS 0
static bmm_status bmm__cuda_launch_cuda_cublas(const bmm__cuda_launch *L, bmm__cuda_device *d,
                                               int dev, cudaStream_t st) {
  (void)L, (void)d, (void)dev, (void)st;
  return bmm__fail(BMM_NOT_COMPILED, "cuda_cublas: compile with -DBMM_WITH_CUBLAS, link -lcublas");
}
#endif

static int bmm__cuda_compiled(bmm_strategy s) {
  return s != BMM_CUDA_CUBLAS || BMM__CUDA_HAVE_CUBLAS;
}

/* The device must be able to dereference every pointer the kernel reads or
   writes: checked here because a fault inside the kernel would poison the
   whole context. Element alignment too: a misaligned element faults. */
static bmm_status bmm__cuda_check_ptr(const char *name, const void *p, size_t es, int dev,
                                      const bmm__cuda_device *d) {
  cudaPointerAttributes at;
  cudaError_t e;
  if ((uintptr_t)p % es)
    return bmm__fail(BMM_BAD_DEVICE_POINTER, "%s (%p) is not aligned to its %d-byte elements", name,
                     p, (int)es);
  e = cudaPointerGetAttributes(&at, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return bmm__fail(BMM_BAD_DEVICE_POINTER, "%s (%p): cudaPointerGetAttributes: %s", name, p,
                     cudaGetErrorString(e));
  }
  switch (at.type) {
  case cudaMemoryTypeManaged: return BMM_OK;
  case cudaMemoryTypeDevice: {
    int peer = 0;
    if (at.device == dev) return BMM_OK;
    if (cudaDeviceCanAccessPeer(&peer, dev, at.device) == cudaSuccess && peer) return BMM_OK;
    return bmm__fail(BMM_BAD_DEVICE_POINTER,
                     "%s (%p) is memory of device %d, which device %d cannot access", name, p,
                     at.device, dev);
  }
  case cudaMemoryTypeHost:
    if (at.devicePointer == p) return BMM_OK;
    return bmm__fail(BMM_BAD_DEVICE_POINTER,
                     "%s (%p) is pinned host memory not mapped at the same address on the device "
                     "(pass cudaHostGetDevicePointer's address)",
                     name, p);
  default:
    if (d->pageable) return BMM_OK;
    return bmm__fail(BMM_BAD_DEVICE_POINTER,
                     "%s (%p) is host memory the device cannot read (use cudaMalloc, "
                     "cudaMallocManaged or cudaHostRegister)",
                     name, p);
  }
}

static bmm_status bmm__cuda_execute(const bmm_plan *pl, bmm__cuda_device *d, int dev,
                                    cudaStream_t st) {
  bmm__cuda_launch L;
  bmm_status s;
  const size_t es = bmm_dtype_size(pl->dtype);
  if (pl->m == 0 || pl->n == 0 || pl->batch == 0) return bmm__ok();
  s = bmm__cuda_check_ptr("c.ptr", pl->c.ptr, es, dev, d);
  if (s == BMM_OK && pl->use_ab) s = bmm__cuda_check_ptr("a.ptr", pl->a.ptr, es, dev, d);
  if (s == BMM_OK && pl->use_ab) s = bmm__cuda_check_ptr("b.ptr", pl->b.ptr, es, dev, d);
  if (s == BMM_OK && pl->bias) s = bmm__cuda_check_ptr("bias", pl->bias, es, dev, d);
  if (s == BMM_OK) s = bmm__cuda_configure(pl, d, &L);
  if (s != BMM_OK) return s;
  /* the static switch: the one place that names every CUDA launcher */
  switch (pl->strategy) {
#define BMM__X(E, name, l, mm, mn, mk, desc) \
  case BMM_##E: s = bmm__cuda_launch_##name(&L, d, dev, st); break;
    BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X
  default:
    s = bmm__fail(BMM_BAD_STRATEGY, "strategy %s is not a CUDA strategy",
                  bmm_strategy_name(pl->strategy));
  }
  return s == BMM_OK ? bmm__ok() : s;
}

static bmm_status bmm__cuda_entry(const bmm_problem *p, bmm_strategy forced, cudaStream_t st) {
  bmm_plan pl;
  bmm__cuda_device d;
  int dev = 0;
  bmm_status ds, s = bmm__cuda_plan_forced(p, forced, &pl, &dev, &d, &ds);
  if (s != BMM_OK) return s;
  if (!bmm__cuda_compiled(pl.strategy))
    return bmm__fail(BMM_NOT_COMPILED, "%s: compile with -DBMM_WITH_CUBLAS, link -lcublas",
                     bmm_strategy_name(pl.strategy));
  if (ds != BMM_OK) {
    bmm__cuda_device_get(&dev, &d); /* the message again: planning replaced it */
    return ds;
  }
  return bmm__cuda_execute(&pl, &d, dev, st);
}

bmm_status bmm_cuda(const bmm_problem *p, cudaStream_t stream) {
  return bmm__cuda_entry(p, BMM_FORCE_CUDA_STRATEGY, stream);
}

#define BMM__X(E, name, l, mm, mn, mk, d)                            \
  bmm_status bmm_##name(const bmm_problem *p, cudaStream_t stream) { \
    return bmm__cuda_entry(p, BMM_##E, stream);                      \
  }
BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X

static bmm_status bmm__cuda_explain(const bmm_problem *p, char *buf, size_t len) {
  const bmm_table_rule *rules;
  bmm__cuda_device d;
  bmm__cuda_launch L;
  bmm_plan pl;
  int dev = 0, count;
  char why[512];
  size_t used;
  bmm_status s, ds;
  memset(&d, 0, sizeof d);
  ds = bmm__cuda_device_get(&dev, &d);
  if (ds != BMM_OK) snprintf(why, sizeof why, "%s", bmm__err_body());
  bmm__cuda_default_table(ds == BMM_OK ? d.arch : 0, &rules, &count);
  s = bmm__explain_with(p, BMM_BACKEND_CUDA, rules, count, BMM_FORCE_CUDA_STRATEGY, buf, len, &pl);
  if (s != BMM_OK) return s;
  used = strlen(buf);
  if (ds == BMM_OK)
    used +=
        (size_t)snprintf(buf + used, len - used, "; device %d sm_%d (%d SMs)", dev, d.arch, d.sms);
  else
    used += (size_t)snprintf(buf + used, len - used, "; no device (%s): generic table", why);
  if (used >= len) return bmm__ok();
  if (!bmm__cuda_compiled(pl.strategy)) {
    snprintf(buf + used, len - used, "; not compiled: define BMM_WITH_CUBLAS");
    return bmm__ok();
  }
  if (pl.m == 0 || pl.n == 0 || pl.batch == 0) {
    snprintf(buf + used, len - used, "; empty: no launch");
    return bmm__ok();
  }
  s = bmm__cuda_configure(&pl, &d, &L);
  if (s != BMM_OK) {
    snprintf(buf + used, len - used, "; cannot launch: %s", bmm__err);
    return s;
  }
  used += (size_t)snprintf(buf + used, len - used, "; launch grid=%lld block=%d smem=%zu",
                           (long long)L.grid, L.block, L.smem + L.smem_static);
  if (used >= len) return bmm__ok();
  switch (pl.strategy) {
  case BMM_CUDA_WARP: snprintf(buf + used, len - used, " lanes=%d", L.args.lanes); break;
  case BMM_CUDA_STAGED:
    snprintf(buf + used, len - used, " batch_per_block=%d a_ld=%d b_ld=%d vec=%dB",
             L.args.per_block, L.args.a_ld, L.args.b_ld, L.args.vec);
    break;
  case BMM_CUDA_TILED:
    snprintf(buf + used, len - used, " tile=%dx%dx%d", L.tile, L.tile, BMM__CUDA_TILE_K);
    break;
  case BMM_CUDA_CUBLAS:
    snprintf(buf + used, len - used, " (cublasGemmStridedBatchedEx%s)",
             pl.bias ? " + bias kernel: 2 launches" : "");
    break;
  default: break;
  }
  return bmm__ok();
}

#ifdef __cplusplus
}
#endif
#endif /* BMM__CUDA_IMPLEMENTED */
#endif /* BMM_IMPLEMENTATION */
