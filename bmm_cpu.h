/* bmm_cpu.h - CPU kernels of bmm. Included by bmm.h's implementation (never
   on its own): every kernel reads a validated bmm_plan and may assume what its
   strategy claims in BMM_CPU_STRATEGIES. Bodies are macros instantiated per
   dtype by BMM_DTYPES. */
#ifndef BMM_CPU_H
#define BMM_CPU_H

#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Fused multiply-add only where the target has it in hardware: a libm fma()
   call per term would be slower than the plain expression. Both forms round
   the same way on every lane, so vector and scalar tails agree bit for bit. */
#if defined(__GNUC__) && defined(__FP_FAST_FMAF)
#define BMM__FMA_f32(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define BMM__FMA_f32(a, b, c) ((a) * (b) + (c))
#endif
#if defined(__GNUC__) && defined(__FP_FAST_FMA)
#define BMM__FMA_f64(a, b, c) __builtin_fma((a), (b), (c))
#else
#define BMM__FMA_f64(a, b, c) ((a) * (b) + (c))
#endif
/* BMM__FMA_f32 or _f64 by the size of T (the other branch is dead code) */
#define BMM__FMA_T(T, a, b, c) \
  (sizeof(T) == sizeof(float) ? (T)BMM__FMA_f32(a, b, c) : (T)BMM__FMA_f64(a, b, c))

/* The epilogue every kernel shares: C = alpha*acc + (beta*C + bias), every
   multiply-add written out as BMM__FMA so that the compiler has none left to
   contract. Under fp-contract=fast gcc may fuse alpha*acc or beta*C with an
   add in one inlined copy of a kernel's code and not in another, and which
   copy an entry runs can depend on the thread split (different bits). beta
   == 0 never reads C (NaN there is overwritten). Without a bias the sum
   starts from -0.0, the identity of + (a -0 result stays -0). */
#define BMM__EPILOGUE(T, pl, cptr, acc, j)                                    \
  do {                                                                        \
    T bmm__r = (pl)->bias ? ((const T *)(pl)->bias)[j] : (T)-0.0;             \
    if ((pl)->read_c) bmm__r = BMM__FMA_T(T, (T)(pl)->beta, *(cptr), bmm__r); \
    *(cptr) = BMM__FMA_T(T, (T)(pl)->alpha, (T)(acc), bmm__r);                \
  } while (0)

/* Reference: plain loops over any strides, accumulating in T. */
#define BMM__CPU_REF(E, name, T, sz, ...)                                                 \
  static void bmm__cpu_ref_##name(const bmm_plan *pl) {                              \
    int64_t bi;                                                                      \
    for (bi = 0; bi < pl->batch; ++bi) {                                             \
      int64_t oa, ob, oc, i, j, l;                                                   \
      bmm_batch_offsets(pl, bi, &oa, &ob, &oc);                                      \
      for (i = 0; i < pl->m; ++i)                                                    \
        for (j = 0; j < pl->n; ++j) {                                                \
          T acc = 0;                                                                 \
          T *cp = (T *)pl->c.ptr + oc + i * pl->c.row_stride + j * pl->c.col_stride; \
          if (pl->use_ab) {                                                          \
            const T *ap = (const T *)pl->a.ptr + oa + i * pl->a.row_stride;          \
            const T *bp = (const T *)pl->b.ptr + ob + j * pl->b.col_stride;          \
            for (l = 0; l < pl->k; ++l)                                              \
              acc += ap[l * pl->a.col_stride] * bp[l * pl->b.row_stride];            \
          }                                                                          \
          BMM__EPILOGUE(T, pl, cp, acc, j);                                          \
        }                                                                            \
    }                                                                                \
  }
BMM_DTYPES(BMM__CPU_REF)
#undef BMM__CPU_REF

/* The oracle: long double accumulation, packed output, C only read. */
#define BMM__CPU_REFERENCE(E, name, T, sz, ...)                                                        \
  static void bmm__cpu_reference_##name(const bmm_plan *pl, long double *out, long double *mag) { \
    int64_t bi, i, j, l;                                                                          \
    for (bi = 0; bi < pl->batch; ++bi) {                                                          \
      int64_t oa, ob, oc;                                                                         \
      bmm_batch_offsets(pl, bi, &oa, &ob, &oc);                                                   \
      for (i = 0; i < pl->m; ++i)                                                                 \
        for (j = 0; j < pl->n; ++j) {                                                             \
          long double acc = 0, abs_acc = 0, v, g;                                                 \
          const T *cp = (const T *)pl->c.ptr + oc + i * pl->c.row_stride + j * pl->c.col_stride;  \
          for (l = 0; pl->use_ab && l < pl->k; ++l) {                                             \
            long double x =                                                                       \
                (long double)((const T *)                                                         \
                                  pl->a.ptr)[oa + i * pl->a.row_stride + l * pl->a.col_stride] *  \
                (long double)((const T *)                                                         \
                                  pl->b.ptr)[ob + l * pl->b.row_stride + j * pl->b.col_stride];   \
            acc += x;                                                                             \
            abs_acc += x < 0 ? -x : x;                                                            \
          }                                                                                       \
          v = (long double)pl->alpha * acc;                                                       \
          g = ((long double)pl->alpha < 0 ? -(long double)pl->alpha : (long double)pl->alpha) *   \
              abs_acc;                                                                            \
          if (pl->read_c) {                                                                       \
            long double bc = (long double)pl->beta * (long double)*cp;                            \
            v += bc, g += bc < 0 ? -bc : bc;                                                      \
          }                                                                                       \
          if (pl->bias) {                                                                         \
            long double bb = (long double)((const T *)pl->bias)[j];                               \
            v += bb, g += bb < 0 ? -bb : bb;                                                      \
          }                                                                                       \
          out[(bi * pl->m + i) * pl->n + j] = v;                                                  \
          if (mag) mag[(bi * pl->m + i) * pl->n + j] = g;                                         \
        }                                                                                         \
    }                                                                                             \
  }
BMM_DTYPES(BMM__CPU_REFERENCE)
#undef BMM__CPU_REFERENCE

static void bmm__cpu_cpu_ref(const bmm_plan *pl) {
  switch (pl->dtype) {
#define BMM__X(E, name, T, sz, ...) \
  case BMM_##E: bmm__cpu_ref_##name(pl); break;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: break;
  }
}

/* ---- shared machinery of the fast strategies ------------------------------ */

#ifdef __cplusplus
#define BMM__RESTRICT __restrict
#else
#define BMM__RESTRICT restrict
#endif

/* Widest vector register the compiler may use, in bytes: sizes the register
   tiles so that they fill, and do not overflow, the register file. */
#if defined(__AVX512F__)
#define BMM__CPU_VBYTES 64
#elif defined(__AVX__)
#define BMM__CPU_VBYTES 32
#else
#define BMM__CPU_VBYTES 16
#endif

/* Vector registers the target has (AVX-512: 32, else 16): cpu_small's AXPY
   tiles keep their sums in them */
#if defined(__AVX512F__)
#define BMM__CPU_VREGS 32
#else
#define BMM__CPU_VREGS 16
#endif

/* Non-temporal stores (see bmm__cpu_stream_c): x86-64 intrinsics, GNU C */
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(BMM_CPU_PORTABLE) && \
    defined(__x86_64__) && defined(__SSE2__)
#define BMM__CPU_NT 1
#include <immintrin.h>
#else
#define BMM__CPU_NT 0
#endif

/* ---- streaming stores of C --------------------------------------------------
   A plain store first reads its cache line (read for ownership): where beta = 0
   that read is wasted, and C's bytes cross the memory bus twice. Non-temporal
   stores write whole lines without reading them, and keep C out of the caches,
   which only pays where C would not stay there anyway: calls that move at least
   BMM_CPU_STREAM_BYTES (batch x (m*k + k*n + m*n) elements; default 32 MiB, the
   last-level cache of the dev VM; 0 streams every beta = 0 call, -1 none). Zen 4
   dev VM 2026-11-24, 2 threads, 256 MB calls, the code before and after
   alternated in one process, GB/s: 4^3 f32 37 -> 45, f64 37 -> 44; 8^3 f32
   38 -> 45; 3x1x5 f32 35 -> 37; with C on 64-byte lines 16^3 f64 33 -> 43 and
   32^3 f64 17 -> 23-24 (16 bytes off: 19 -> 21). At 16 MB (in L3) 3x1x5 f32
   lost, 70 -> 48 GB/s: hence the threshold. x86-64 with GNU C only; elsewhere
   plain stores. Same values either way, so no bits change. */
#ifndef BMM_CPU_STREAM_BYTES
#define BMM_CPU_STREAM_BYTES (32.0 * 1024 * 1024)
#endif
#if BMM__CPU_NT
/* one element: movnti of its bits */
#define BMM__NTSTORE_1(T, p, x)                          \
  do {                                                   \
    const T bmm__x = (x);                                \
    if (sizeof(T) == 4) {                                \
      int bmm__w;                                        \
      memcpy(&bmm__w, &bmm__x, 4);                       \
      _mm_stream_si32((int *)(void *)(p), bmm__w);       \
    } else {                                             \
      long long bmm__w;                                  \
      memcpy(&bmm__w, &bmm__x, 8);                       \
      _mm_stream_si64((long long *)(void *)(p), bmm__w); \
    }                                                    \
  } while (0)
#define BMM__NT_FENCE() _mm_sfence()
#else
#define BMM__NTSTORE_1(T, p, x) (*(p) = (x))
#define BMM__NT_FENCE() ((void)0)
#endif
/* Does this call stream C? Only where A*B counts (alpha = 0 or k = 0 take
   the plain C = beta*C + bias pass); not cpu_ref (the oracle stays plain), nor
   cpu_batch_simd (its C is a few % of the bytes, stored as whole vectors that
   movnti would split into lanes: seed_k25_batch_inner f32 24 -> 21-22 GB/s),
   and only where k <= 256: cpu_blocked adds later K blocks into C, and longer
   sums make C's share of the traffic small. */
#define BMM__CPU_STREAM_MAX_K 256
static int bmm__cpu_stream_c(const bmm_plan *pl) {
  const double elems =
      (double)pl->batch * ((double)pl->m * (double)pl->k + (double)pl->k * (double)pl->n +
                           (double)pl->m * (double)pl->n);
  return BMM__CPU_NT && pl->use_ab && !pl->read_c && pl->strategy != BMM_CPU_REF &&
         pl->strategy != BMM_CPU_BATCH_SIMD && pl->k <= BMM__CPU_STREAM_MAX_K &&
         BMM_CPU_STREAM_BYTES >= 0 &&
         elems * (double)bmm_dtype_size(pl->dtype) >= (double)BMM_CPU_STREAM_BYTES;
}

/* Partial sums per dot product: 8 independent FMA chains hide the FMA latency
   and map to one vector register; fixed, so the order of additions (and the
   bits of the result) never depends on the machine or the thread count. */
#define BMM__CPU_DOT_W 8

/* Below this much work (multiply-adds plus elements moved) a parallel region
   costs more than it saves. */
#define BMM__CPU_MIN_WORK 65536.0

#ifdef _OPENMP
/* BMM_CPU_THREADS caps the threads of every call; read once. Threads that
   call first at the same time all write the same value, through atomics so
   that it is not a data race (TSan, C11). */
static int bmm__cpu_env_threads(void) {
  static int cached = -1;
  int v;
#pragma omp atomic read
  v = cached;
  if (v < 0) {
    const char *s = getenv("BMM_CPU_THREADS");
    v = s ? atoi(s) : 0;
    v = v > 0 ? v : 0;
#pragma omp atomic write
    cached = v;
  }
  return v;
}
#endif

/* Work on units [u0, u1) (batch entries, or batch chunks). */
typedef void (*bmm__cpu_range_fn)(const bmm_plan *pl, int64_t u0, int64_t u1);

/* Static contiguous chunks of units over the threads. Every C element is
   computed by exactly one thread with the same code, so the bits do not depend
   on the thread count. Without OpenMP, or inside a caller's parallel region,
   it is a plain call. */
static void bmm__cpu_parallel(const bmm_plan *pl, bmm__cpu_range_fn fn, int64_t units) {
#ifdef _OPENMP
  double work = (double)pl->batch * ((double)pl->m * (double)pl->n * (double)(pl->k + 1) +
                                     (double)pl->k * (double)(pl->m + pl->n));
  int64_t nt = omp_get_max_threads(), cap = bmm__cpu_env_threads();
  if (cap > 0 && nt > cap) nt = cap;
  if (pl->rule.threads > 0 && nt > pl->rule.threads) nt = pl->rule.threads;
  if ((double)nt > work / BMM__CPU_MIN_WORK) nt = (int64_t)(work / BMM__CPU_MIN_WORK);
  if (nt > units) nt = units;
  if (nt > 1 && !omp_in_parallel()) {
#pragma omp parallel num_threads((int)nt)
    {
      int64_t t = omp_get_thread_num(), tn = omp_get_num_threads();
      int64_t per = units / tn, extra = units % tn;
      int64_t u0 = t * per + (t < extra ? t : extra);
      fn(pl, u0, u0 + per + (t < extra ? 1 : 0));
      BMM__NT_FENCE(); /* streamed stores are weakly ordered: done before the join */
    }
    return;
  }
#endif
  fn(pl, 0, units);
  BMM__NT_FENCE();
}

/* Element offsets of batch entry bi; one multiply for the one-dim classes. */
#define BMM__CPU_OFFSETS(pl, bi, oa, ob, oc)    \
  do {                                          \
    if ((pl)->ndims <= 1) {                     \
      oa = (bi) * (pl)->a.batch_stride[0];      \
      ob = (bi) * (pl)->b.batch_stride[0];      \
      oc = (bi) * (pl)->c.batch_stride[0];      \
    } else {                                    \
      bmm_batch_offsets(pl, bi, &oa, &ob, &oc); \
    }                                           \
  } while (0)

/* A, B and C of batch entry bi */
#define BMM__CPU_PTRS(T, pl, bi, A, B, C)                               \
  do {                                                                  \
    int64_t oa_, ob_, oc_;                                              \
    BMM__CPU_OFFSETS(pl, bi, oa_, ob_, oc_);                            \
    A = (const T *)(pl)->a.ptr + oa_, B = (const T *)(pl)->b.ptr + ob_; \
    C = (T *)(pl)->c.ptr + oc_;                                         \
  } while (0)

/* Store cnt results acc[0..cnt) to C at stride cs, j0 + jstep*t being the
   column of result t (for the bias). Same arithmetic as BMM__EPILOGUE, with the
   branches hoisted so that each case is one vectorisable loop. nt: stream the
   stores past the caches (bmm__cpu_stream_c) where they are contiguous. */
#define BMM__CPU_STORE(T, pl, cp, cs, acc, cnt, j0, jstep, nt)                          \
  do {                                                                                  \
    const T bmm__al = (T)(pl)->alpha, bmm__be = (T)(pl)->beta;                          \
    const T *bmm__bias = (const T *)(pl)->bias;                                         \
    int64_t bmm__t;                                                                     \
    if ((nt) && (cs) == 1 && !bmm__bias) {                                              \
      for (bmm__t = 0; bmm__t < (cnt); ++bmm__t)                                        \
        BMM__NTSTORE_1(T, (cp) + bmm__t, bmm__al * (acc)[bmm__t]);                      \
    } else if (!(pl)->read_c && !bmm__bias) {                                           \
      for (bmm__t = 0; bmm__t < (cnt); ++bmm__t)                                        \
        (cp)[bmm__t * (cs)] = bmm__al * (acc)[bmm__t];                                  \
    } else {                                                                            \
      for (bmm__t = 0; bmm__t < (cnt); ++bmm__t) {                                      \
        T bmm__r = bmm__bias ? bmm__bias[(j0) + (jstep)*bmm__t] : (T)-0.0;              \
        if ((pl)->read_c) bmm__r = BMM__FMA_T(T, bmm__be, (cp)[bmm__t * (cs)], bmm__r); \
        (cp)[bmm__t * (cs)] = BMM__FMA_T(T, bmm__al, (acc)[bmm__t], bmm__r);            \
      }                                                                                 \
    }                                                                                   \
  } while (0)

/* k == 0 or alpha == 0: A and B are NULL, C = beta*C + bias (validation sets
   the plan's alpha to 0 there, so an infinite alpha with k == 0 is no NaN). */
#define BMM__CPU_SCALE(E, name, T, sz, ...)                                               \
  static void bmm__cpu_scale_##name(const bmm_plan *pl, int64_t b0, int64_t b1) {    \
    int64_t bi, i, j;                                                                \
    for (bi = b0; bi < b1; ++bi) {                                                   \
      int64_t oa, ob, oc;                                                            \
      BMM__CPU_OFFSETS(pl, bi, oa, ob, oc);                                          \
      (void)oa, (void)ob;                                                            \
      for (i = 0; i < pl->m; ++i)                                                    \
        for (j = 0; j < pl->n; ++j) {                                                \
          T *cp = (T *)pl->c.ptr + oc + i * pl->c.row_stride + j * pl->c.col_stride; \
          T zero = 0;                                                                \
          BMM__EPILOGUE(T, pl, cp, zero, j);                                         \
        }                                                                            \
    }                                                                                \
  }
BMM_DTYPES(BMM__CPU_SCALE)
#undef BMM__CPU_SCALE

/* ---- cpu_dot: one batch entry at a time, any strides ----------------------
   Picks per call the loop order whose innermost loop is unit-stride:
   DOT (A rows and B columns contiguous in k: dot products with W partial
   sums), ROWS (B rows contiguous: C row += a * B row, vectorised over n),
   COLS (A columns contiguous: C column += A column * b, vectorised over m),
   else strided dot products. Where several apply, the longest vector wins. */
enum { BMM__DOT_FORM_DOT, BMM__DOT_FORM_ROWS, BMM__DOT_FORM_COLS, BMM__DOT_FORM_STRIDED };
#define BMM__CPU_CHUNK 256 /* columns (or rows) accumulated at a time on the stack */

static int bmm__cpu_dot_form(const bmm_plan *pl) {
  int64_t best = 0;
  int form = BMM__DOT_FORM_STRIDED;
  if (pl->a.col_stride == 1 && pl->b.row_stride == 1) form = BMM__DOT_FORM_DOT, best = pl->k;
  if (pl->b.col_stride == 1 && pl->n > best) form = BMM__DOT_FORM_ROWS, best = pl->n;
  if (pl->a.row_stride == 1 && pl->m > best) form = BMM__DOT_FORM_COLS, best = pl->m;
  /* vectors this short cost more in loop overhead than they save */
  return best < BMM__CPU_DOT_W ? BMM__DOT_FORM_STRIDED : form;
}

#define BMM__CPU_DOT(E, name, T, sz, ...)                                                            \
  /* sum of x[l*xs]*y[l*ys], l < k, in W interleaved partial sums then a fixed tree */          \
  static T bmm__cpu_dotp_##name(const T *BMM__RESTRICT x, int64_t xs, const T *BMM__RESTRICT y, \
                                int64_t ys, int64_t k) {                                        \
    T s[BMM__CPU_DOT_W] = {0}, t = 0;                                                           \
    int64_t l = 0, v, w;                                                                        \
    if (xs == 1 && ys == 1) {                                                                   \
      for (; l + BMM__CPU_DOT_W <= k; l += BMM__CPU_DOT_W)                                      \
        for (v = 0; v < BMM__CPU_DOT_W; ++v)                                                    \
          s[v] = BMM__FMA_##name(x[l + v], y[l + v], s[v]);                                     \
    } else {                                                                                    \
      for (; l + BMM__CPU_DOT_W <= k; l += BMM__CPU_DOT_W)                                      \
        for (v = 0; v < BMM__CPU_DOT_W; ++v)                                                    \
          s[v] = BMM__FMA_##name(x[(l + v) * xs], y[(l + v) * ys], s[v]);                       \
    }                                                                                           \
    for (; l < k; ++l)                                                                          \
      t = BMM__FMA_##name(x[l * xs], y[l * ys], t);                                             \
    for (w = BMM__CPU_DOT_W / 2; w > 0; w /= 2)                                                 \
      for (v = 0; v < w; ++v)                                                                   \
        s[v] += s[v + w];                                                                       \
    return s[0] + t;                                                                            \
  }                                                                                             \
  static void bmm__cpu_dot_range_##name(const bmm_plan *pl, int64_t b0, int64_t b1) {           \
    const int64_t m = pl->m, n = pl->n, k = pl->k;                                              \
    const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;                               \
    const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;                               \
    const int64_t crs = pl->c.row_stride, ccs = pl->c.col_stride;                               \
    const int form = bmm__cpu_dot_form(pl), nt = bmm__cpu_stream_c(pl);                         \
    int64_t bi, i, j, l, t;                                                                     \
    T acc[BMM__CPU_CHUNK];                                                                      \
    for (bi = b0; bi < b1; ++bi) {                                                              \
      const T *A, *B;                                                                           \
      T *C;                                                                                     \
      BMM__CPU_PTRS(T, pl, bi, A, B, C);                                                        \
      if (form == BMM__DOT_FORM_ROWS) {                                                         \
        for (i = 0; i < m; ++i)                                                                 \
          for (j = 0; j < n; j += BMM__CPU_CHUNK) {                                             \
            const int64_t jn = n - j < BMM__CPU_CHUNK ? n - j : BMM__CPU_CHUNK;                 \
            for (t = 0; t < jn; ++t)                                                            \
              acc[t] = 0;                                                                       \
            for (l = 0; l < k; ++l) {                                                           \
              const T a = A[i * ars + l * acs];                                                 \
              const T *BMM__RESTRICT br = B + l * brs + j;                                      \
              for (t = 0; t < jn; ++t)                                                          \
                acc[t] = BMM__FMA_##name(a, br[t], acc[t]);                                     \
            }                                                                                   \
            BMM__CPU_STORE(T, pl, C + i * crs + j * ccs, ccs, acc, jn, j, 1, nt);               \
          }                                                                                     \
      } else if (form == BMM__DOT_FORM_COLS) {                                                  \
        for (j = 0; j < n; ++j)                                                                 \
          for (i = 0; i < m; i += BMM__CPU_CHUNK) {                                             \
            const int64_t in = m - i < BMM__CPU_CHUNK ? m - i : BMM__CPU_CHUNK;                 \
            for (t = 0; t < in; ++t)                                                            \
              acc[t] = 0;                                                                       \
            for (l = 0; l < k; ++l) {                                                           \
              const T b = B[l * brs + j * bcs];                                                 \
              const T *BMM__RESTRICT ac = A + i + l * acs;                                      \
              for (t = 0; t < in; ++t)                                                          \
                acc[t] = BMM__FMA_##name(ac[t], b, acc[t]);                                     \
            }                                                                                   \
            BMM__CPU_STORE(T, pl, C + i * crs + j * ccs, crs, acc, in, j, 0, nt);               \
          }                                                                                     \
      } else if (form == BMM__DOT_FORM_DOT) {                                                   \
        for (i = 0; i < m; ++i)                                                                 \
          for (j = 0; j < n; ++j) {                                                             \
            acc[0] = bmm__cpu_dotp_##name(A + i * ars, 1, B + j * bcs, 1, k);                   \
            BMM__CPU_STORE(T, pl, C + i * crs + j * ccs, 1, acc, 1, j, 0, nt);                  \
          }                                                                                     \
      } else {                                                                                  \
        for (i = 0; i < m; ++i)                                                                 \
          for (j = 0; j < n; ++j) {                                                             \
            const T *ar = A + i * ars, *bc = B + j * bcs;                                       \
            T s0 = 0, s1 = 0;                                                                   \
            for (l = 0; l + 2 <= k; l += 2) {                                                   \
              s0 = BMM__FMA_##name(ar[l * acs], bc[l * brs], s0);                               \
              s1 = BMM__FMA_##name(ar[(l + 1) * acs], bc[(l + 1) * brs], s1);                   \
            }                                                                                   \
            if (l < k) s0 = BMM__FMA_##name(ar[l * acs], bc[l * brs], s0);                      \
            acc[0] = s0 + s1;                                                                   \
            BMM__CPU_STORE(T, pl, C + i * crs + j * ccs, 1, acc, 1, j, 0, nt);                  \
          }                                                                                     \
      }                                                                                         \
    }                                                                                           \
  }
BMM_DTYPES(BMM__CPU_DOT)
#undef BMM__CPU_DOT

/* GCC vector extensions keep each sum in one register (plain C arrays of sums
   are left in memory by gcc 12 at -O3, 5-20 GFLOP/s); BMM_CPU_PORTABLE or
   another compiler gets the plain C tile. ISO C mode disables contraction,
   so the tile asks for it: one fused multiply-add per term, as BMM__FMA. */
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(BMM_CPU_PORTABLE)
#define BMM__CPU_VEXT 1
typedef float bmm__vec_f32 __attribute__((vector_size(BMM__CPU_VBYTES)));
typedef double bmm__vec_f64 __attribute__((vector_size(BMM__CPU_VBYTES)));
/* unaligned, aliasing views for loads and stores (a memcpy of 32 bytes is
   split into 16-byte moves by gcc's znver1 tuning, which -march=native picks
   on the dev VMs) */
typedef float bmm__uvec_f32 __attribute__((vector_size(BMM__CPU_VBYTES), aligned(4), may_alias));
typedef double bmm__uvec_f64 __attribute__((vector_size(BMM__CPU_VBYTES), aligned(8), may_alias));
#define BMM__VLOAD(name, p) (*(const bmm__uvec_##name *)(const void *)(p))
#define BMM__VSTORE(name, p, v) (*(bmm__uvec_##name *)(void *)(p) = (v))
/* 16-byte views for the dot kernels (see BMM__CPU_SMALL_DOT) */
typedef float bmm__v16_f32 __attribute__((vector_size(16), aligned(4), may_alias));
typedef double bmm__v16_f64 __attribute__((vector_size(16), aligned(8), may_alias));
#define BMM__V16LOAD(name, p) (*(const bmm__v16_##name *)(const void *)(p))
#define BMM__V16STORE(name, p, v) (*(bmm__v16_##name *)(void *)(p) = (v))
#if defined(__clang__)
#define BMM__VEXT_ATTR __attribute__((noinline))
#else
#define BMM__VEXT_ATTR __attribute__((noinline, optimize("fp-contract=fast")))
#endif
/* r = a*x + r on a vector (16 bytes: V16, BMM__CPU_VBYTES: V), rounded once
   exactly where BMM__FMA_* is, so that vector lanes and scalar tails agree bit
   for bit. Intrinsics on x86 with FMA (gcc and clang); a target without FMA
   fuses nothing; elsewhere BMM__FMA lane by lane. Not left to contraction: gcc
   12 shares alpha*x between the epilogue's two branches and then fuses
   neither (cpu_small 4x4 with bias differed from cpu_ref). */
#if defined(__FMA__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define BMM__X86FMA(P, S, XT, VT, a, x, r) \
  ((r) = (VT)P##_fmadd_##S(P##_set1_##S(a), (XT)(x), (XT)(r)))
#define BMM__V16FMA_f32(a, x, r) BMM__X86FMA(_mm, ps, __m128, bmm__v16_f32, a, x, r)
#define BMM__V16FMA_f64(a, x, r) BMM__X86FMA(_mm, pd, __m128d, bmm__v16_f64, a, x, r)
#if BMM__CPU_VBYTES == 64
#define BMM__VFMA_f32(a, x, r) BMM__X86FMA(_mm512, ps, __m512, bmm__vec_f32, a, x, r)
#define BMM__VFMA_f64(a, x, r) BMM__X86FMA(_mm512, pd, __m512d, bmm__vec_f64, a, x, r)
#elif BMM__CPU_VBYTES == 32
#define BMM__VFMA_f32(a, x, r) BMM__X86FMA(_mm256, ps, __m256, bmm__vec_f32, a, x, r)
#define BMM__VFMA_f64(a, x, r) BMM__X86FMA(_mm256, pd, __m256d, bmm__vec_f64, a, x, r)
#else
#define BMM__VFMA_f32(a, x, r) BMM__X86FMA(_mm, ps, __m128, bmm__vec_f32, a, x, r)
#define BMM__VFMA_f64(a, x, r) BMM__X86FMA(_mm, pd, __m128d, bmm__vec_f64, a, x, r)
#endif
#elif defined(__FP_FAST_FMAF) || defined(__FP_FAST_FMA)
#define BMM__LANE_FMA(name, a, x, r)                                       \
  do {                                                                     \
    int bmm__l;                                                            \
    for (bmm__l = 0; bmm__l < (int)(sizeof(r) / sizeof((r)[0])); ++bmm__l) \
      (r)[bmm__l] = BMM__FMA_##name(a, (x)[bmm__l], (r)[bmm__l]);          \
  } while (0)
#define BMM__V16FMA_f32(a, x, r) BMM__LANE_FMA(f32, a, x, r)
#define BMM__V16FMA_f64(a, x, r) BMM__LANE_FMA(f64, a, x, r)
#define BMM__VFMA_f32(a, x, r) BMM__LANE_FMA(f32, a, x, r)
#define BMM__VFMA_f64(a, x, r) BMM__LANE_FMA(f64, a, x, r)
#else
#define BMM__V16FMA_f32(a, x, r) ((r) = (a) * (x) + (r))
#define BMM__V16FMA_f64(a, x, r) ((r) = (a) * (x) + (r))
#define BMM__VFMA_f32(a, x, r) ((r) = (a) * (x) + (r))
#define BMM__VFMA_f64(a, x, r) ((r) = (a) * (x) + (r))
#endif
/* BMM__EPILOGUE on one vector x of sums, into r: W is V16 or V (the width, as
   above), LD(name, p) its load, C's lanes at c (read if rc), bias lanes at bs
   (NULL: none). */
#define BMM__VEPILOGUE(W, LD, name, VT, rc, al, be, c, bs, x, r) \
  do {                                                           \
    if (!(rc) && !(bs)) {                                        \
      (r) = (al) * (x);                                          \
    } else {                                                     \
      (r) = -(VT){0}; /* -0.0, the identity of + */              \
      if (bs) (r) = LD(name, bs);                                \
      if (rc) BMM__##W##FMA_##name(be, LD(name, c), r);          \
      BMM__##W##FMA_##name(al, x, r);                            \
    }                                                            \
  } while (0)
/* A vector store to C (W: V16 or V, as above), streamed where nt says:
   0 never, 1 where p is aligned to the vector, 2 also in 16-byte pieces where
   p is only 16-byte aligned (C of a malloc'd array lies 16 bytes off a 64-byte
   line). The pieces cost a store each: they pay in cpu_small's tiny,
   memory-bound products (8^3 f64 at 16 bytes off, 35 -> 43 GB/s), not in
   cpu_blocked's (32^3 f64 19 -> 17, 24^3 23 -> 17). */
#if BMM__CPU_NT
#define BMM__NTSTORE_V16(p, v) _mm_stream_si128((__m128i *)(void *)(p), (__m128i)(v))
#if BMM__CPU_VBYTES == 64
#define BMM__NTSTORE_V(p, v) _mm512_stream_si512((__m512i *)(void *)(p), (__m512i)(v))
#elif BMM__CPU_VBYTES == 32
#define BMM__NTSTORE_V(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (__m256i)(v))
#else
#define BMM__NTSTORE_V(p, v) BMM__NTSTORE_V16(p, v)
#endif
#define BMM__VSTORE_C(W, name, nt, p, v)                                          \
  do {                                                                            \
    const uintptr_t bmm__a = (uintptr_t)(const void *)(p);                        \
    int bmm__q;                                                                   \
    if ((nt) > 0 && (bmm__a & (sizeof(v) - 1)) == 0) {                            \
      BMM__NTSTORE_##W(p, v);                                                     \
    } else if ((nt) < 2 || (bmm__a & 15) != 0) {                                  \
      BMM__##W##STORE(name, p, v);                                                \
    } else {                                                                      \
      for (bmm__q = 0; bmm__q < (int)(sizeof(v) / 16); ++bmm__q) {                \
        __m128i bmm__x;                                                           \
        memcpy(&bmm__x, (const char *)&(v) + 16 * bmm__q, 16);                    \
        _mm_stream_si128((__m128i *)(void *)((char *)(p) + 16 * bmm__q), bmm__x); \
      }                                                                           \
    }                                                                             \
  } while (0)
#else
#define BMM__VSTORE_C(W, name, nt, p, v) BMM__##W##STORE(name, p, v)
#endif
#else
#define BMM__CPU_VEXT 0
#define BMM__VEXT_ATTR
#endif

/* Entries of [b0, b0 + len*S) are visited as S interleaved sub-ranges, the
   rest in order: several sequential streams per thread keep more hardware
   prefetchers busy (a pure 2-thread read on the dev VM, 2026-11-23: 21 GB/s as
   one stream per thread, 25-30 GB/s as 4-6). Entries are independent, so the
   order changes no bits. */
#ifndef BMM__CPU_STREAMS
#define BMM__CPU_STREAMS 4
#endif
#define BMM__CPU_STREAM_AT(b0, len, st)                                     \
  ((st) < BMM__CPU_STREAMS * (len)                                          \
       ? (b0) + ((st) % BMM__CPU_STREAMS) * (len) + (st) / BMM__CPU_STREAMS \
       : (b0) + (st))

/* ---- cpu_small: fixed-size register micro-kernels -------------------------
   Packed row-major entries (A batch stride m*k, B k*n or 0, C m*n). Each
   kernel has m, n and (where listed) k as constants, so the compiler unrolls
   and keeps the whole result tile in registers. Two forms: DOT (n == 1, m <= 4
   dot products over contiguous k) and AXPY (C tile += column of A times row of
   B, the tile vectorised over n). A K of `kk` is the run-time k. */
#if BMM__CPU_VEXT
/* Per row of A: two 16-byte sums over 2-vector steps, one more vector step if
   it fits, scalars for the rest; the rows' lane sums in horizontal adds. On
   the AVX2 dev VM (gcc 12, znver1 tuning) this is 1.2-2.8x the scalar-lane
   form below at every K of 5..50 (f32 in L2: 3x1x20 9 ns per entry vs 25; the
   lane form is worst at K 16..23); wider vectors were slower there. */
#if defined(__clang__) || __GNUC__ >= 12
/* r[i] = lane sum of s[i], i < 4: pairs of lanes, then pairs of pairs */
#define BMM__HSUM_f32(s, r)                                                                        \
  do {                                                                                             \
    const bmm__v16_f32 p0 = __builtin_shufflevector(s[0], s[1], 0, 2, 4, 6) +                      \
                            __builtin_shufflevector(s[0], s[1], 1, 3, 5, 7);                       \
    const bmm__v16_f32 p1 = __builtin_shufflevector(s[2], s[3], 0, 2, 4, 6) +                      \
                            __builtin_shufflevector(s[2], s[3], 1, 3, 5, 7);                       \
    const bmm__v16_f32 q =                                                                         \
        __builtin_shufflevector(p0, p1, 0, 2, 4, 6) + __builtin_shufflevector(p0, p1, 1, 3, 5, 7); \
    r[0] = q[0], r[1] = q[1], r[2] = q[2], r[3] = q[3];                                            \
  } while (0)
#define BMM__HSUM_f64(s, r)                                                                    \
  do {                                                                                         \
    const bmm__v16_f64 p0 =                                                                    \
        __builtin_shufflevector(s[0], s[1], 0, 2) + __builtin_shufflevector(s[0], s[1], 1, 3); \
    const bmm__v16_f64 p1 =                                                                    \
        __builtin_shufflevector(s[2], s[3], 0, 2) + __builtin_shufflevector(s[2], s[3], 1, 3); \
    r[0] = p0[0], r[1] = p0[1], r[2] = p1[0], r[3] = p1[1];                                    \
  } while (0)
#else
/* older gcc: no __builtin_shufflevector; the same sums lane by lane */
#define BMM__HSUM_f32(s, r)                                  \
  do {                                                       \
    int i_;                                                  \
    for (i_ = 0; i_ < 4; ++i_)                               \
      r[i_] = (s[i_][0] + s[i_][1]) + (s[i_][2] + s[i_][3]); \
  } while (0)
#define BMM__HSUM_f64(s, r)        \
  do {                             \
    int i_;                        \
    for (i_ = 0; i_ < 4; ++i_)     \
      r[i_] = s[i_][0] + s[i_][1]; \
  } while (0)
#endif
/* One batch entry bi; M <= 4 (the DOT list's shapes). */
#define BMM__CPU_DOT_ENTRY(name, T, M, K, bi)                                   \
  do {                                                                          \
    const T *BMM__RESTRICT A = (const T *)pl->a.ptr + (bi)*sa;                  \
    const T *BMM__RESTRICT B = (const T *)pl->b.ptr + (bi)*sb;                  \
    T *BMM__RESTRICT C = (T *)pl->c.ptr + (bi)*sc;                              \
    bmm__v16_##name s[4];                                                       \
    T t[4], acc[4];                                                             \
    int64_t i, l;                                                               \
    for (i = 0; i < 4; ++i) {                                                   \
      bmm__v16_##name s0 = {0}, s1 = {0};                                       \
      t[i] = 0;                                                                 \
      if (i < M) {                                                              \
        const T *BMM__RESTRICT ar = A + i * (K);                                \
        for (l = 0; l + 2 * V <= (K); l += 2 * V) {                             \
          s0 += BMM__V16LOAD(name, ar + l) * BMM__V16LOAD(name, B + l);         \
          s1 += BMM__V16LOAD(name, ar + l + V) * BMM__V16LOAD(name, B + l + V); \
        }                                                                       \
        if ((K)-l >= V) {                                                       \
          s0 += BMM__V16LOAD(name, ar + l) * BMM__V16LOAD(name, B + l);         \
          l += V;                                                               \
        }                                                                       \
        for (; l < (K); ++l)                                                    \
          t[i] = BMM__FMA_##name(ar[l], B[l], t[i]);                            \
        if ((K) >= 2 * V) s0 += s1;                                             \
      }                                                                         \
      s[i] = s0;                                                                \
    }                                                                           \
    BMM__HSUM_##name(s, acc);                                                   \
    for (i = 0; i < M; ++i)                                                     \
      acc[i] += t[i];                                                           \
    BMM__CPU_STORE(T, pl, C, 1, acc, M, 0, 0, nt);                              \
  } while (0)
#define BMM__CPU_SMALL_DOT(name, T, M, N, K, TAG)                                     \
  static BMM__VEXT_ATTR void bmm__cpu_small_##name##_DOT##M##x##N##x##TAG(            \
      const bmm_plan *pl, int64_t b0, int64_t b1) {                                   \
    enum { V = 16 / (int)sizeof(T), M_AT_MOST_4 = 1 / ((M) <= 4) };                   \
    const int64_t kk = pl->k, sa = pl->a.batch_stride[0], sb = pl->b.batch_stride[0]; \
    const int64_t sc = pl->c.batch_stride[0];                                         \
    const int64_t len = (b1 - b0) / BMM__CPU_STREAMS;                                 \
    const int nt = bmm__cpu_stream_c(pl);                                             \
    int64_t u, q;                                                                     \
    (void)kk;                                                                         \
    for (u = 0; u < len; ++u)                                                         \
      for (q = 0; q < BMM__CPU_STREAMS; ++q)                                          \
        BMM__CPU_DOT_ENTRY(name, T, M, K, b0 + q * len + u);                          \
    for (u = b0 + BMM__CPU_STREAMS * len; u < b1; ++u)                                \
      BMM__CPU_DOT_ENTRY(name, T, M, K, u);                                           \
  }
#else
#define BMM__CPU_SMALL_DOT(name, T, M, N, K, TAG)                                          \
  static void bmm__cpu_small_##name##_DOT##M##x##N##x##TAG(const bmm_plan *pl, int64_t b0, \
                                                           int64_t b1) {                   \
    const int64_t kk = pl->k, sa = pl->a.batch_stride[0], sb = pl->b.batch_stride[0];      \
    const int64_t sc = pl->c.batch_stride[0];                                              \
    int64_t st, bi, i, l, v, w;                                                            \
    const int64_t len = (b1 - b0) / BMM__CPU_STREAMS;                                      \
    (void)kk;                                                                              \
    for (st = 0; st < b1 - b0; ++st) {                                                     \
      bi = BMM__CPU_STREAM_AT(b0, len, st);                                                \
      const T *BMM__RESTRICT A = (const T *)pl->a.ptr + bi * sa;                           \
      const T *BMM__RESTRICT B = (const T *)pl->b.ptr + bi * sb;                           \
      T *BMM__RESTRICT C = (T *)pl->c.ptr + bi * sc;                                       \
      T acc[M], s[M][BMM__CPU_DOT_W], t[M];                                                \
      for (i = 0; i < M; ++i) {                                                            \
        t[i] = 0;                                                                          \
        for (v = 0; v < BMM__CPU_DOT_W; ++v)                                               \
          s[i][v] = 0;                                                                     \
      }                                                                                    \
      for (l = 0; l + BMM__CPU_DOT_W <= (K); l += BMM__CPU_DOT_W)                          \
        for (i = 0; i < M; ++i)                                                            \
          for (v = 0; v < BMM__CPU_DOT_W; ++v)                                             \
            s[i][v] = BMM__FMA_##name(A[i * (K) + l + v], B[l + v], s[i][v]);              \
      for (; l < (K); ++l)                                                                 \
        for (i = 0; i < M; ++i)                                                            \
          t[i] = BMM__FMA_##name(A[i * (K) + l], B[l], t[i]);                              \
      for (i = 0; i < M; ++i) {                                                            \
        for (w = BMM__CPU_DOT_W / 2; w > 0; w /= 2)                                        \
          for (v = 0; v < w; ++v)                                                          \
            s[i][v] += s[i][v + w];                                                        \
        acc[i] = s[i][0] + t[i];                                                           \
      }                                                                                    \
      BMM__CPU_STORE(T, pl, C, 1, acc, M, 0, 0, 0);                                        \
    }                                                                                      \
  }
#endif

/* AXPY: C tile += column of A times row of B. With vector extensions, where a
   row of C is whole vectors and the M x N/V tile of sums leaves 4 of the
   target's vector registers free, the sums are named vectors times a broadcast
   of A: the widest vectors (BMM__CPU_VBYTES) where they fit, else 16-byte ones
   (AVX-512: f32 16x16 and f64 8x8 in 64 bytes; f32 4x4, 8x8 and f64 2x2, 4x4,
   6x6 in 16. AVX2: f32 8x8, f64 4x4 in 32; f32 4x4, f64 2x2 in 16). Elsewhere
   plain loops left to the vectoriser (f32 8x8 in 16-byte vectors spills its
   16 sums with 16 registers and was slower). Dev VM 2026-11-23 (AVX2), 2
   threads, bench_cpu GB/s in L2 (--mb 2): 4x4x4 f32 21 -> 32, f64 27 -> 47,
   4x4x9 f32 19-26 -> 28; in memory (--mb 64) at the memory rate before and
   after (16-18 -> 18-20). Dev VM 2026-11-24 (Zen 4, AVX-512), --mb 4 / --mb
   256: 8x8x8 f32 32-33 -> 62-65 / 28-31 -> 34-60, with shared B and bias 18
   -> 42-43 / 12-15 -> 36-37; 6x6x6 f64 37-38 -> 56-57 / 32-35 -> 40-54;
   16x16x16 f32 29-35 -> 76 / 22-24 -> 22-28, with shared B and bias 22 -> 50
   / 24 -> 31-32; 8x8x8 f64 44-54 -> 131 / 35-36 -> 27-36 (memory-bound
   there). Every element is the same chain of FMAs over l either way. */
#if BMM__CPU_VEXT
#define BMM__AXPY_ATTR BMM__VEXT_ATTR
/* the tile fits vectors of VB bytes: rows of whole vectors, sums in all but
   4 of the registers */
#define BMM__AXPY_FITS(T, M, N, VB) \
  ((N) % ((VB) / (int)sizeof(T)) == 0 && (M) * (N) * (int)sizeof(T) <= (VB) * (BMM__CPU_VREGS - 4))
/* the tile in named vectors of type VT (VB bytes; loads LD, stores ST, width
   W for BMM__VEPILOGUE); uses BMM__CPU_AXPY_ENTRY's A, B, C, i, j, l */
#define BMM__CPU_AXPY_VBODY(name, T, M, N, K, VT, VB, LD, W)                             \
  do {                                                                                   \
    enum { V = (VB) / (int)sizeof(T), NV = (N) / V > 0 ? (N) / V : 1 };                  \
    VT vs[M][NV], bv[NV];                                                                \
    /* plan fields read once: stores to C may alias *pl for the compiler */              \
    const T al = (T)pl->alpha, be = (T)pl->beta, *bias = (const T *)pl->bias;            \
    const int rc = pl->read_c;                                                           \
    for (i = 0; i < M; ++i)                                                              \
      for (j = 0; j < NV; ++j)                                                           \
        vs[i][j] = (VT){0};                                                              \
    for (l = 0; l < (K); ++l) {                                                          \
      for (j = 0; j < NV; ++j)                                                           \
        bv[j] = LD(name, B + l * N + j * V);                                             \
      for (i = 0; i < M; ++i) {                                                          \
        const T a = A[i * (K) + l];                                                      \
        for (j = 0; j < NV; ++j)                                                         \
          vs[i][j] += a * bv[j];                                                         \
      }                                                                                  \
    }                                                                                    \
    for (i = 0; i < M; ++i)                                                              \
      for (j = 0; j < NV; ++j) {                                                         \
        const T *bs = bias ? bias + j * V : NULL;                                        \
        VT r;                                                                            \
        BMM__VEPILOGUE(W, LD, name, VT, rc, al, be, C + i * N + j * V, bs, vs[i][j], r); \
        BMM__VSTORE_C(W, name, 2 * nt, C + i * N + j * V, r);                            \
      }                                                                                  \
  } while (0)
#else
#define BMM__AXPY_ATTR
#define BMM__AXPY_FITS(T, M, N, VB) 0
#define BMM__CPU_AXPY_VBODY(name, T, M, N, K, VT, VB, LD, W) ((void)0)
#endif
#define BMM__CPU_AXPY_ENTRY(name, T, M, N, K, bi)                                             \
  do {                                                                                        \
    const T *BMM__RESTRICT A = (const T *)pl->a.ptr + (bi)*sa;                                \
    const T *BMM__RESTRICT B = (const T *)pl->b.ptr + (bi)*sb;                                \
    T *BMM__RESTRICT C = (T *)pl->c.ptr + (bi)*sc;                                            \
    int64_t i, j, l;                                                                          \
    if (BMM__AXPY_FITS(T, M, N, BMM__CPU_VBYTES)) {                                           \
      BMM__CPU_AXPY_VBODY(name, T, M, N, K, bmm__vec_##name, BMM__CPU_VBYTES, BMM__VLOAD, V); \
    } else if (BMM__AXPY_FITS(T, M, N, 16)) {                                                 \
      BMM__CPU_AXPY_VBODY(name, T, M, N, K, bmm__v16_##name, 16, BMM__V16LOAD, V16);          \
    } else {                                                                                  \
      T acc[M][N];                                                                            \
      for (i = 0; i < M; ++i)                                                                 \
        for (j = 0; j < N; ++j)                                                               \
          acc[i][j] = 0;                                                                      \
      for (l = 0; l < (K); ++l)                                                               \
        for (i = 0; i < M; ++i) {                                                             \
          const T a = A[i * (K) + l];                                                         \
          for (j = 0; j < N; ++j)                                                             \
            acc[i][j] = BMM__FMA_##name(a, B[l * N + j], acc[i][j]);                          \
        }                                                                                     \
      for (i = 0; i < M; ++i)                                                                 \
        BMM__CPU_STORE(T, pl, C + i * N, 1, acc[i], N, 0, 1, nt);                             \
    }                                                                                         \
  } while (0)
/* One copy of the entry's code, reached through BMM__CPU_STREAM_AT. A second
   copy for the tail (as the dot kernels have) once made bits depend on the
   thread split: gcc contracted the epilogue differently in the two copies (7^3
   f32 with beta and bias). The epilogue now leaves nothing to contract
   (BMM__FMA_T); one copy stays (less code). */
#define BMM__CPU_SMALL_AXPY(name, T, M, N, K, TAG)                                    \
  static BMM__AXPY_ATTR void bmm__cpu_small_##name##_AXPY##M##x##N##x##TAG(           \
      const bmm_plan *pl, int64_t b0, int64_t b1) {                                   \
    const int64_t kk = pl->k, sa = pl->a.batch_stride[0], sb = pl->b.batch_stride[0]; \
    const int64_t sc = pl->c.batch_stride[0];                                         \
    const int64_t len = (b1 - b0) / BMM__CPU_STREAMS;                                 \
    const int nt = bmm__cpu_stream_c(pl);                                             \
    int64_t st;                                                                       \
    (void)kk;                                                                         \
    for (st = 0; st < b1 - b0; ++st)                                                  \
      BMM__CPU_AXPY_ENTRY(name, T, M, N, K, BMM__CPU_STREAM_AT(b0, len, st));         \
  }

/* X(name, T, FORM, M, N, K, TAG): constant-k kernels before the run-time-k
   kernel of the same shape (the dispatcher takes the first match). */
// clang-format off
#define BMM__CPU_SMALL_KERNELS(X, name, T)                                                     \
  BMM__CPU_SMALL_SEED_KS(X, name, T, 3)                                                        \
  BMM__CPU_SMALL_SHORT_KS(X, name, T, 3)                                                       \
  X(name, T, DOT, 1, 1, kk, k) X(name, T, DOT, 2, 1, kk, k) X(name, T, DOT, 3, 1, kk, k)       \
  X(name, T, DOT, 4, 1, kk, k)                                                                 \
  X(name, T, AXPY, 2, 2, 2, 2) X(name, T, AXPY, 3, 3, 3, 3) X(name, T, AXPY, 4, 4, 4, 4)       \
  X(name, T, AXPY, 5, 5, 5, 5) X(name, T, AXPY, 6, 6, 6, 6) X(name, T, AXPY, 7, 7, 7, 7)       \
  X(name, T, AXPY, 8, 8, 8, 8) X(name, T, AXPY, 9, 9, 9, 9) X(name, T, AXPY, 10, 10, 10, 10)   \
  X(name, T, AXPY, 11, 11, 11, 11) X(name, T, AXPY, 12, 12, 12, 12)                            \
  X(name, T, AXPY, 13, 13, 13, 13) X(name, T, AXPY, 14, 14, 14, 14)                            \
  X(name, T, AXPY, 15, 15, 15, 15) X(name, T, AXPY, 16, 16, 16, 16)                            \
  X(name, T, AXPY, 2, 2, kk, k) X(name, T, AXPY, 3, 3, kk, k) X(name, T, AXPY, 4, 4, kk, k)
// clang-format on

/* The seed's k = 5..50 for m x 1 products. */
#define BMM__CPU_SMALL_SEED_KS(X, name, T, M) \
  X(name, T, DOT, M, 1, 5, 5)                 \
  X(name, T, DOT, M, 1, 10, 10)               \
  X(name, T, DOT, M, 1, 15, 15)               \
  X(name, T, DOT, M, 1, 20, 20)               \
  X(name, T, DOT, M, 1, 25, 25)               \
  X(name, T, DOT, M, 1, 30, 30)               \
  X(name, T, DOT, M, 1, 35, 35)               \
  X(name, T, DOT, M, 1, 40, 40) X(name, T, DOT, M, 1, 45, 45) X(name, T, DOT, M, 1, 50, 50)
/* The other k < 16 of m x 1 (DOT only): the run-time-k kernel spends short
   rows in its scalar tail and branches (`ninja demo`, Zen 4 VM 2026-11-24,
   batch 10^6 f32: k = 6..9 and 11..14 at 34-85% of copy beside 105-139% at
   k = 5 and 10; from k = 16 on it kept pace). */
// clang-format off
#define BMM__CPU_SMALL_SHORT_KS(X, name, T, M)                                              \
  X(name, T, DOT, M, 1, 2, 2) X(name, T, DOT, M, 1, 3, 3) X(name, T, DOT, M, 1, 4, 4)       \
  X(name, T, DOT, M, 1, 6, 6) X(name, T, DOT, M, 1, 7, 7) X(name, T, DOT, M, 1, 8, 8)       \
  X(name, T, DOT, M, 1, 9, 9) X(name, T, DOT, M, 1, 11, 11) X(name, T, DOT, M, 1, 12, 12)   \
  X(name, T, DOT, M, 1, 13, 13) X(name, T, DOT, M, 1, 14, 14)
// clang-format on

#define BMM__CPU_SMALL_DEF(name, T, FORM, M, N, K, TAG) BMM__CPU_SMALL_##FORM(name, T, M, N, K, TAG)
#define BMM__CPU_SMALL_ALL(E, name, T, sz, ...) BMM__CPU_SMALL_KERNELS(BMM__CPU_SMALL_DEF, name, T)
BMM_DTYPES(BMM__CPU_SMALL_ALL)
#undef BMM__CPU_SMALL_ALL
#undef BMM__CPU_AXPY_ENTRY
#undef BMM__CPU_AXPY_VBODY
#undef BMM__AXPY_ATTR
#undef BMM__AXPY_FITS

/* ---- cpu_dot, short columns: m = 2..4 rows of A stored as columns ---------
   (a.row_stride 1, columns acs >= m apart: the col_a layout). cpu_dot's COLS
   form has too few rows to vectorise, and its strided dot products ran at
   37-62% of copy (seed_k25_col_a, AVX2 dev VM 2026-11-23). Here each column
   of A is NV 16-byte loads times a broadcast of b, in four sums per vector
   (an FMA's latency apart). A load covers up to NV*V - m elements past its
   column, which lie inside the entry (acs >= m >= 2); those lanes are
   dropped, and the last column is summed in scalars, so nothing past the
   entry is read. Entries are walked as BMM__CPU_STREAMS interleaved
   sub-ranges. Instances: N = 1 has packed entries (acs = m, n = 1, b
   contiguous) and, for the seed's m = 3, constant k (in L2, 3x1x25 f32:
   28 GB/s with every stride read from the plan, 36 packed, 45 packed with
   k = 25); N = 0 takes any strides and n. */
#if BMM__CPU_VEXT
#define BMM__CPU_COLV_STEP(name, r)                                    \
  if (l + 1 < k) {                                                     \
    for (v = 0; v < NV; ++v)                                           \
      s[r][v] += BMM__V16LOAD(name, A + l * acs + v * V) * b[l * brs]; \
    ++l;                                                               \
  }
#define BMM__CPU_COLV_ENTRY(name, T, M, bi)                                              \
  do {                                                                                   \
    const T *BMM__RESTRICT A;                                                            \
    const T *BMM__RESTRICT B;                                                            \
    T *BMM__RESTRICT C;                                                                  \
    int64_t j, l, v, r;                                                                  \
    BMM__CPU_PTRS(T, pl, bi, A, B, C);                                                   \
    for (j = 0; j < n; ++j) {                                                            \
      const T *BMM__RESTRICT b = B + j * bcs;                                            \
      bmm__v16_##name s[4][NV];                                                          \
      T acc[NV * V];                                                                     \
      for (r = 0; r < 4; ++r)                                                            \
        for (v = 0; v < NV; ++v)                                                         \
          s[r][v] = (bmm__v16_##name){0};                                                \
      for (l = 0; l + 4 < k; l += 4) /* columns l..l+3 < k-1 */                          \
        for (r = 0; r < 4; ++r)                                                          \
          for (v = 0; v < NV; ++v)                                                       \
            s[r][v] += BMM__V16LOAD(name, A + (l + r) * acs + v * V) * b[(l + r) * brs]; \
      /* the rest but the last column (at most 3), sums named by constants */            \
      BMM__CPU_COLV_STEP(name, 0);                                                       \
      BMM__CPU_COLV_STEP(name, 1);                                                       \
      BMM__CPU_COLV_STEP(name, 2);                                                       \
      for (v = 0; v < NV; ++v)                                                           \
        BMM__V16STORE(name, acc + v * V, (s[0][v] + s[1][v]) + (s[2][v] + s[3][v]));     \
      for (v = 0; v < (M); ++v) /* l == k-1: the last column, in scalars */              \
        acc[v] = BMM__FMA_##name(A[l * acs + v], b[l * brs], acc[v]);                    \
      BMM__CPU_STORE(T, pl, C + j * ccs, crs, acc, M, j, 0, nt);                         \
    }                                                                                    \
  } while (0)
#define BMM__CPU_COLV(name, T, FORM, M, N, K, TAG)                                              \
  static BMM__VEXT_ATTR void bmm__cpu_colv_##name##_##M##x##N##x##TAG(const bmm_plan *pl,       \
                                                                      int64_t b0, int64_t b1) { \
    enum { V = 16 / (int)sizeof(T), NV = ((M) + V - 1) / V };                                   \
    const int64_t kk = pl->k, k = (K), n = (N) ? 1 : pl->n;                                     \
    const int64_t acs = (N) ? (M) : pl->a.col_stride, brs = (N) ? 1 : pl->b.row_stride;         \
    const int64_t bcs = pl->b.col_stride, crs = pl->c.row_stride, ccs = pl->c.col_stride;       \
    const int64_t len = (b1 - b0) / BMM__CPU_STREAMS;                                           \
    const int nt = bmm__cpu_stream_c(pl);                                                       \
    int64_t u, q;                                                                               \
    (void)kk;                                                                                   \
    for (u = 0; u < len; ++u)                                                                   \
      for (q = 0; q < BMM__CPU_STREAMS; ++q)                                                    \
        BMM__CPU_COLV_ENTRY(name, T, M, b0 + q * len + u);                                      \
    for (u = b0 + BMM__CPU_STREAMS * len; u < b1; ++u)                                          \
      BMM__CPU_COLV_ENTRY(name, T, M, u);                                                       \
  }
/* X(name, T, FORM, M, N, K, TAG), FORM unused; the first match is taken */
// clang-format off
#define BMM__CPU_COLV_KERNELS(X, name, T)                                                    \
  BMM__CPU_SMALL_SEED_KS(X, name, T, 3)                                                      \
  X(name, T, COL, 2, 1, kk, k) X(name, T, COL, 3, 1, kk, k) X(name, T, COL, 4, 1, kk, k)     \
  X(name, T, COL, 2, 0, kk, k) X(name, T, COL, 3, 0, kk, k) X(name, T, COL, 4, 0, kk, k)
// clang-format on
#define BMM__CPU_COLV_ALL(E, name, T, sz, ...) BMM__CPU_COLV_KERNELS(BMM__CPU_COLV, name, T)
BMM_DTYPES(BMM__CPU_COLV_ALL)
#undef BMM__CPU_COLV_ALL
#undef BMM__CPU_COLV
#undef BMM__CPU_COLV_ENTRY
#undef BMM__CPU_COLV_STEP

/* Where the short-column kernels apply: A columns of m = 2..4 contiguous
   rows, acs >= m apart, and the per-call form would otherwise be strided dot
   products. The N = 1 instances also need packed columns, n = 1 and b
   contiguous. */
#define BMM__CPU_COLV_PICK(name, T, FORM, M, N, K, TAG) \
  if (m == (M) && k == (K) && (!(N) || packed)) return bmm__cpu_colv_##name##_##M##x##N##x##TAG;
#define BMM__CPU_COLV_SELECT(name)                                                      \
  if (pl->a.row_stride == 1 && pl->m >= 2 && pl->m <= 4 && pl->a.col_stride >= pl->m && \
      bmm__cpu_dot_form(pl) == BMM__DOT_FORM_STRIDED) {                                 \
    const int64_t m = pl->m, k = pl->k, kk = pl->k;                                     \
    const int packed = pl->a.col_stride == m && pl->n == 1 && pl->b.row_stride == 1;    \
    (void)kk;                                                                           \
    BMM__CPU_COLV_KERNELS(BMM__CPU_COLV_PICK, name, T)                                  \
  }
#else
#define BMM__CPU_COLV_SELECT(name) (void)pl;
#endif

/* cpu_dot's kernel for a call: a short-column one where it applies, else the
   general one. */
#define BMM__CPU_DOT_SELECT(E, name, T, sz, ...)                                 \
  static bmm__cpu_range_fn bmm__cpu_dot_select_##name(const bmm_plan *pl) { \
    BMM__CPU_COLV_SELECT(name)                                              \
    return bmm__cpu_dot_range_##name;                                       \
  }
BMM_DTYPES(BMM__CPU_DOT_SELECT)
#undef BMM__CPU_DOT_SELECT
#undef BMM__CPU_COLV_SELECT
#undef BMM__CPU_COLV_PICK
#undef BMM__CPU_COLV_KERNELS

/* ---- cpu_blocked: an R x NV-vector register tile, B in place or packed ----
   The tile holds R <= 6 rows by NV <= 2 vectors of C in named variables (with
   AVX2: 12 sums, 2 rows of B and a broadcast fill the 16 ymm registers) and,
   per step of k, reads NV contiguous vectors of one B row and one A element per
   row. R and NV are constants of each instance: dead rows and vectors vanish,
   so the bottom edge needs no copy and no padding. B is read where it lies when
   its rows are contiguous and one entry's B stays in L1/L2 (no per-entry
   packing: a 32^3 entry is then pure streaming); else NC x KC blocks of B are
   packed into 2-vector panels. With packing and k > KC a unit holds MB rows'
   sums over the KC blocks in scratch and applies the epilogue once, at the
   last block (B is re-packed per MB rows, ~1/MB of the multiply-adds). */
/* rows per tile: 2*MR vector sums + 2 of B + 1 of A in the register file
   (16 registers: 6; AVX-512's 32: 8, so a 32-row C is 4 whole tiles, not 5
   and a 2-row rest, and each B row loaded serves 8 rows: Zen 4 dev VM
   2026-11-24, GFLOP/s in L2, 32^3 f64 88 -> 95, f32 167 -> 182, 128^3 f64
   71-96 -> 107-112) */
#if BMM__CPU_VREGS >= 32
#define BMM__BLK_MR 8
#define BMM__BLK_TILES_78(name, T) \
  BMM__CPU_BLK_TILE(name, T, 7, 1) \
  BMM__CPU_BLK_TILE(name, T, 7, 2) BMM__CPU_BLK_TILE(name, T, 8, 1) BMM__CPU_BLK_TILE(name, T, 8, 2)
#define BMM__BLK_TABLE_78(name)                                 \
  , {bmm__cpu_tile_##name##_7x1, bmm__cpu_tile_##name##_7x2}, { \
    bmm__cpu_tile_##name##_8x1, bmm__cpu_tile_##name##_8x2      \
  }
#else
#define BMM__BLK_MR 6
#define BMM__BLK_TILES_78(name, T)
#define BMM__BLK_TABLE_78(name)
#endif
#define BMM__BLK_KC 256
/* k*n*sizeof(T) up to which B is read in place (fits the 1-2 MiB L2) */
#define BMM__BLK_INPLACE_BYTES (256 * 1024)
#define BMM__BLK_NC 256
/* rows of C per work unit when B is read in place (a multiple of MR) */
#define BMM__BLK_MB 96
/* a packed call with fewer (entry, column block) units splits its rows too */
#define BMM__BLK_FEW_UNITS 16
/* Work units of a call: one per batch entry, NC-column block of C (B packed:
   the jc loop) and row block, so a small batch of big products still spreads
   over the threads (5 square1024 f32 entries ran on 2 threads as 3 + 2 whole
   entries at 0.82x NumPy's time, dev VM 2026-11-23). Row blocks are MB rows
   when B is read in place; a packed unit packs its own B blocks, so there rows
   are split only as far as needed for BMM__BLK_FEW_UNITS units, never below MB
   (re-packing then costs ~1/MB of the multiply-adds). The split never changes
   a result's bits: every element is the same tile sum whatever unit has it. */
static int bmm__cpu_blk_in_place(const bmm_plan *pl, int sz) {
  return pl->b.col_stride == 1 && (double)pl->k * (double)pl->n * sz <= BMM__BLK_INPLACE_BYTES;
}
static int64_t bmm__cpu_blk_cblocks(const bmm_plan *pl, int sz) {
  return bmm__cpu_blk_in_place(pl, sz) ? 1 : (pl->n + BMM__BLK_NC - 1) / BMM__BLK_NC;
}
static int64_t bmm__cpu_blk_rows(const bmm_plan *pl, int sz) {
  double units = (double)pl->batch * (double)bmm__cpu_blk_cblocks(pl, sz);
  int64_t want, rows;
  if (bmm__cpu_blk_in_place(pl, sz)) return BMM__BLK_MB;
  if (pl->k > BMM__BLK_KC) return BMM__BLK_MB; /* the K sums of a unit's rows are held */
  if (units >= BMM__BLK_FEW_UNITS) return pl->m > 0 ? pl->m : 1;
  want = (int64_t)((BMM__BLK_FEW_UNITS + units - 1) / units);
  rows = (pl->m + want - 1) / want;
  rows = (rows + BMM__BLK_MR - 1) / BMM__BLK_MR * BMM__BLK_MR;
  return rows > BMM__BLK_MB ? rows : BMM__BLK_MB;
}
static int64_t bmm__cpu_blk_units(const bmm_plan *pl, int sz) {
  const int64_t rows = bmm__cpu_blk_rows(pl, sz);
  return (pl->m + rows - 1) / rows * bmm__cpu_blk_cblocks(pl, sz);
}

/* Tile signature: sums over l < k of a[i*ars + l*acs] * b[l*brs + j] for
   i < R, j < w (w <= NV vectors), written to out[i * 2 vectors + j]. */
#define BMM__BLK_TILE_ARGS(T)                                                              \
  int64_t k, const T *BMM__RESTRICT a, int64_t ars, int64_t acs, const T *BMM__RESTRICT b, \
      int64_t brs, int64_t w, T *BMM__RESTRICT out

#if BMM__CPU_VEXT
#define BMM__BLK_ROW(i, T, R, NV)     \
  if (R > i) {                        \
    const T s = a[i * ars + l * acs]; \
    c##i##0 += s * b0;                \
    if (NV > 1) c##i##1 += s * b1;    \
  }
#define BMM__BLK_ROWS(T, R, NV) \
  BMM__BLK_ROW(0, T, R, NV)     \
  BMM__BLK_ROW(1, T, R, NV)     \
  BMM__BLK_ROW(2, T, R, NV)     \
  BMM__BLK_ROW(3, T, R, NV)     \
  BMM__BLK_ROW(4, T, R, NV)     \
  BMM__BLK_ROW(5, T, R, NV) BMM__BLK_ROW(6, T, R, NV) BMM__BLK_ROW(7, T, R, NV)
#define BMM__BLK_OUT(i, name, R, NV)                               \
  if (R > i) {                                                     \
    BMM__VSTORE(name, out + i * 2 * VL, c##i##0);                  \
    if (NV > 1) BMM__VSTORE(name, out + i * 2 * VL + VL, c##i##1); \
  }
#define BMM__CPU_BLK_TILE(name, T, R, NV)                                                     \
  static BMM__VEXT_ATTR void bmm__cpu_tile_##name##_##R##x##NV(BMM__BLK_TILE_ARGS(T)) {       \
    enum { VL = BMM__CPU_VBYTES / (int)sizeof(T) };                                           \
    typedef bmm__vec_##name V;                                                                \
    V c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0}, c31 = {0}; \
    V c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0}, c60 = {0}, c61 = {0}, c70 = {0}, c71 = {0}; \
    V b0 = {0}, b1 = {0};                                                                     \
    int64_t l, j;                                                                             \
    if (w == NV * VL) {                                                                       \
      for (l = 0; l < k; ++l) {                                                               \
        b0 = BMM__VLOAD(name, b + l * brs);                                                   \
        if (NV > 1) b1 = BMM__VLOAD(name, b + l * brs + VL);                                  \
        BMM__BLK_ROWS(T, R, NV)                                                               \
      }                                                                                       \
    } else { /* right edge: the row of B into zeros, never read past w */                     \
      T pad[2 * VL];                                                                          \
      for (l = 0; l < k; ++l) {                                                               \
        for (j = 0; j < 2 * VL; ++j)                                                          \
          pad[j] = j < w ? b[l * brs + j] : (T)0;                                             \
        b0 = BMM__VLOAD(name, pad);                                                           \
        if (NV > 1) b1 = BMM__VLOAD(name, pad + VL);                                          \
        BMM__BLK_ROWS(T, R, NV)                                                               \
      }                                                                                       \
    }                                                                                         \
    BMM__BLK_OUT(0, name, R, NV)                                                              \
    BMM__BLK_OUT(1, name, R, NV)                                                              \
    BMM__BLK_OUT(2, name, R, NV)                                                              \
    BMM__BLK_OUT(3, name, R, NV)                                                              \
    BMM__BLK_OUT(4, name, R, NV)                                                              \
    BMM__BLK_OUT(5, name, R, NV) BMM__BLK_OUT(6, name, R, NV) BMM__BLK_OUT(7, name, R, NV)    \
  }
#else
#define BMM__CPU_BLK_TILE(name, T, R, NV)                                \
  static void bmm__cpu_tile_##name##_##R##x##NV(BMM__BLK_TILE_ARGS(T)) { \
    enum { VL = BMM__CPU_VBYTES / (int)sizeof(T) };                      \
    T r[R][2 * VL];                                                      \
    int64_t i, j, l;                                                     \
    for (i = 0; i < R; ++i)                                              \
      for (j = 0; j < w; ++j)                                            \
        r[i][j] = 0;                                                     \
    for (l = 0; l < k; ++l)                                              \
      for (i = 0; i < R; ++i) {                                          \
        const T s = a[i * ars + l * acs];                                \
        for (j = 0; j < w; ++j)                                          \
          r[i][j] = BMM__FMA_##name(s, b[l * brs + j], r[i][j]);         \
      }                                                                  \
    for (i = 0; i < R; ++i)                                              \
      for (j = 0; j < w; ++j)                                            \
        out[i * 2 * VL + j] = r[i][j];                                   \
  }
#endif

// clang-format off
#define BMM__CPU_BLK_TILES(name, T)                                                          \
  BMM__CPU_BLK_TILE(name, T, 1, 1) BMM__CPU_BLK_TILE(name, T, 1, 2)                          \
  BMM__CPU_BLK_TILE(name, T, 2, 1) BMM__CPU_BLK_TILE(name, T, 2, 2)                          \
  BMM__CPU_BLK_TILE(name, T, 3, 1) BMM__CPU_BLK_TILE(name, T, 3, 2)                          \
  BMM__CPU_BLK_TILE(name, T, 4, 1) BMM__CPU_BLK_TILE(name, T, 4, 2)                          \
  BMM__CPU_BLK_TILE(name, T, 5, 1) BMM__CPU_BLK_TILE(name, T, 5, 2)                          \
  BMM__CPU_BLK_TILE(name, T, 6, 1) BMM__CPU_BLK_TILE(name, T, 6, 2)                          \
  BMM__BLK_TILES_78(name, T)                                                                 \
  typedef void (*bmm__cpu_tile_fn_##name)(BMM__BLK_TILE_ARGS(T));                            \
  static const bmm__cpu_tile_fn_##name bmm__cpu_tiles_##name[BMM__BLK_MR][2] = {             \
      {bmm__cpu_tile_##name##_1x1, bmm__cpu_tile_##name##_1x2},                              \
      {bmm__cpu_tile_##name##_2x1, bmm__cpu_tile_##name##_2x2},                              \
      {bmm__cpu_tile_##name##_3x1, bmm__cpu_tile_##name##_3x2},                              \
      {bmm__cpu_tile_##name##_4x1, bmm__cpu_tile_##name##_4x2},                              \
      {bmm__cpu_tile_##name##_5x1, bmm__cpu_tile_##name##_5x2},                              \
      {bmm__cpu_tile_##name##_6x1, bmm__cpu_tile_##name##_6x2} BMM__BLK_TABLE_78(name)};
// clang-format on

/* h rows of cnt results from out (rows 2 vectors apart) to C at cp. The
   full-width, unit-stride case is spelled out in vectors (gcc unrolls the
   constant-count loop of BMM__CPU_STORE into scalar stores there), in a
   function of its own (the epilogue's vector code once, not in every
   caller). */
#if BMM__CPU_VEXT
#define BMM__CPU_BLK_VSTORE(name, T)                                                         \
  static BMM__VEXT_ATTR void bmm__cpu_blk_vstore_##name(                                     \
      const bmm_plan *pl, T *cp, int64_t crs, const T *out, int64_t h, int64_t j0, int nt) { \
    enum { VL = BMM__CPU_VBYTES / (int)sizeof(T) };                                          \
    const T al = (T)pl->alpha, be = (T)pl->beta, *bias = (const T *)pl->bias;                \
    const int rc = pl->read_c;                                                               \
    int64_t i, v;                                                                            \
    /* all rows aligned (streamed) or none: one test, not one per store (one                 \
       per store cost 16^3 f64 15% where none was aligned) */                                \
    nt = nt && ((uintptr_t)cp | (uintptr_t)crs * sizeof(T)) % BMM__CPU_VBYTES == 0;          \
    for (i = 0; i < h; ++i)                                                                  \
      for (v = 0; v < 2; ++v) {                                                              \
        T *c = cp + i * crs + v * VL;                                                        \
        const T *bs = bias ? bias + j0 + v * VL : NULL;                                      \
        bmm__vec_##name r;                                                                   \
        BMM__VEPILOGUE(V, BMM__VLOAD, name, bmm__vec_##name, rc, al, be, c, bs,              \
                       BMM__VLOAD(name, out + (i * 2 + v) * VL), r);                         \
        BMM__VSTORE_C(V, name, nt, c, r);                                                    \
      }                                                                                      \
  }
#define BMM__BLK_STORE(T, name, pl, cp, crs, ccs, out, h, cnt, j0)                             \
  do {                                                                                         \
    int64_t bmm__i;                                                                            \
    if ((ccs) == 1 && (cnt) == NR)                                                             \
      bmm__cpu_blk_vstore_##name(pl, cp, crs, out, h, j0, nt);                                 \
    else                                                                                       \
      for (bmm__i = 0; bmm__i < (h); ++bmm__i)                                                 \
        BMM__CPU_STORE(T, pl, (cp) + bmm__i * (crs), ccs, (out) + bmm__i * NR, cnt, j0, 1, 0); \
  } while (0)
#else
#define BMM__CPU_BLK_VSTORE(name, T)
#define BMM__BLK_STORE(T, name, pl, cp, crs, ccs, out, h, cnt, j0)                           \
  do {                                                                                       \
    int64_t bmm__i;                                                                          \
    for (bmm__i = 0; bmm__i < (h); ++bmm__i)                                                 \
      BMM__CPU_STORE(T, pl, (cp) + bmm__i * (crs), ccs, (out) + bmm__i * NR, cnt, j0, 1, 0); \
  } while (0)
#endif

#define BMM__CPU_BLOCKED(E, name, T, sz, ...)                                                          \
  BMM__CPU_BLK_TILES(name, T)                                                                     \
  BMM__CPU_BLK_VSTORE(name, T)                                                                    \
  static void bmm__cpu_blocked_range_##name(const bmm_plan *pl, int64_t u0, int64_t u1) {         \
    enum {                                                                                        \
      VL = BMM__CPU_VBYTES / sz,                                                                  \
      NR = 2 * VL,                                                                                \
      NC = BMM__BLK_NC,                                                                           \
      MR = BMM__BLK_MR,                                                                           \
      KC_HOLDS_STREAMED_K = 1 / (BMM__BLK_KC >= BMM__CPU_STREAM_MAX_K)                            \
    };                                                                                            \
    const int64_t m = pl->m, n = pl->n, k = pl->k;                                                \
    const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;                                 \
    const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;                                 \
    const int64_t crs = pl->c.row_stride, ccs = pl->c.col_stride;                                 \
    const int64_t per = bmm__cpu_blk_units(pl, sz), rows = bmm__cpu_blk_rows(pl, sz);             \
    const int64_t nrb = (m + rows - 1) / rows;                                                    \
    const int in_place = bmm__cpu_blk_in_place(pl, sz);                                           \
    /* streamed C is written once: k <= BMM__CPU_STREAM_MAX_K is one KC block */                  \
    const int nt = bmm__cpu_stream_c(pl);                                                         \
    T out[BMM__BLK_MR * NR];                                                                      \
    T *bp = NULL;                                                                                 \
    int64_t u, bi, jc, pc, jr, ir, i, j, l, w;                                                    \
    /* packed B, and with k > KC the unit's K sums (alpha multiplies the whole                    \
       sum, never a KC block's part: 1e300 * 1e10 is Inf where 1e300 * 1 is                       \
       not); no scratch: plain dot products */                                                    \
    const int dots = !in_place && !(bp = (T *)malloc(                                             \
                                        sizeof(T) * NC *                                          \
                                        (BMM__BLK_KC + (k > BMM__BLK_KC ? BMM__BLK_MB : 0))));    \
    for (u = u0; u < u1; ++u) {                                                                   \
      const T *A, *B;                                                                             \
      T *C;                                                                                       \
      /* this unit's rows i0..i1 and columns j0..j1 */                                            \
      const int64_t i0 = u % per % nrb * rows, i1 = m - i0 > rows ? i0 + rows : m;                \
      const int64_t j0 = u % per / nrb * NC, j1 = in_place || n - j0 <= NC ? n : j0 + NC;         \
      bi = u / per;                                                                               \
      BMM__CPU_PTRS(T, pl, bi, A, B, C);                                                          \
      if (dots) {                                                                                 \
        for (i = i0; i < i1; ++i)                                                                 \
          for (j = j0; j < j1; ++j) {                                                             \
            out[0] = bmm__cpu_dotp_##name(A + i * ars, acs, B + j * bcs, brs, k);                 \
            BMM__CPU_STORE(T, pl, C + i * crs + j * ccs, 1, out, 1, j, 0, nt);                    \
          }                                                                                       \
        continue;                                                                                 \
      }                                                                                           \
      if (in_place) {                                                                             \
        for (ir = i0; ir < i1; ir += MR) {                                                        \
          const int64_t h = i1 - ir < (int64_t)MR ? i1 - ir : (int64_t)MR;                        \
          for (jr = 0; jr + NR <= n; jr += NR) {                                                  \
            bmm__cpu_tiles_##name[h - 1][1](k, A + ir * ars, ars, acs, B + jr, brs, NR, out);     \
            BMM__BLK_STORE(T, name, pl, C + ir * crs + jr * ccs, crs, ccs, out, h, NR, jr);       \
          }                                                                                       \
          for (; jr < n; jr += w) {                                                               \
            /* a right edge narrower than the tile: a full tile ending at column n                \
               (its first columns are recomputed, not stored), or one vector; the                 \
               slow padded path only where n is narrower than a vector */                         \
            int64_t js = jr, tw = NR;                                                             \
            w = n - jr;                                                                           \
            if (n >= NR)                                                                          \
              js = n - NR;                                                                        \
            else if (w > VL)                                                                      \
              w = tw = VL;                                                                        \
            else if (n >= VL)                                                                     \
              js = n - VL, tw = VL;                                                               \
            else                                                                                  \
              tw = w;                                                                             \
            bmm__cpu_tiles_##name[h - 1][tw > VL](k, A + ir * ars, ars, acs, B + js, brs, tw,     \
                                                  out);                                           \
            BMM__BLK_STORE(T, name, pl, C + ir * crs + jr * ccs, crs, ccs, out + (jr - js), h, w, \
                           jr);                                                                   \
          }                                                                                       \
        }                                                                                         \
        continue;                                                                                 \
      }                                                                                           \
      for (jc = j0; jc < j1; jc += NC) {                                                          \
        const int64_t nc = n - jc < (int64_t)NC ? n - jc : (int64_t)NC;                           \
        for (pc = 0; pc < k; pc += BMM__BLK_KC) {                                                 \
          const int64_t kc = k - pc < BMM__BLK_KC ? k - pc : BMM__BLK_KC;                         \
          for (jr = 0; jr < nc; jr += NR) {                                                       \
            T *dst = bp + jr * kc;                                                                \
            const int64_t w = nc - jr < (int64_t)NR ? nc - jr : (int64_t)NR;                      \
            for (l = 0; l < kc; ++l) {                                                            \
              const T *src = B + (pc + l) * brs + (jc + jr) * bcs;                                \
              for (j = 0; j < w; ++j)                                                             \
                dst[l * NR + j] = src[j * bcs];                                                   \
              for (; j < NR; ++j)                                                                 \
                dst[l * NR + j] = 0;                                                              \
            }                                                                                     \
          }                                                                                       \
          for (ir = i0; ir < i1; ir += MR) {                                                      \
            const int64_t h = i1 - ir < (int64_t)MR ? i1 - ir : (int64_t)MR;                      \
            const T *at = A + ir * ars + pc * acs;                                                \
            for (jr = 0; jr < nc; jr += NR) {                                                     \
              const int64_t w = nc - jr < (int64_t)NR ? nc - jr : (int64_t)NR;                    \
              /* the panel is zero-padded to NR: the tile's full-width path */                    \
              bmm__cpu_tiles_##name[h - 1][w > VL](kc, at, ars, acs, bp + jr * kc, NR,            \
                                                   w > VL ? NR : VL, out);                        \
              if (k <= BMM__BLK_KC) /* one KC block: the epilogue at once */                      \
                BMM__BLK_STORE(T, name, pl, C + ir * crs + (jc + jr) * ccs, crs, ccs, out, h, w,  \
                               jc + jr);                                                          \
              else { /* sum the KC blocks' parts; the last one applies the epilogue */            \
                T *acc = bp + BMM__BLK_KC * NC + ((ir - i0) / MR * (NC / NR) + jr / NR) * MR * NR; \
                for (l = 0; l < h * NR; ++l)                                                      \
                  acc[l] = pc ? acc[l] + out[l] : out[l];                                         \
                if (pc + kc == k)                                                                 \
                  BMM__BLK_STORE(T, name, pl, C + ir * crs + (jc + jr) * ccs, crs, ccs, acc, h,   \
                                 w, jc + jr);                                                     \
              }                                                                                   \
            }                                                                                     \
          }                                                                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
    free(bp);                                                                                     \
  }
BMM_DTYPES(BMM__CPU_BLOCKED)
#undef BMM__CPU_BLOCKED
#undef BMM__CPU_BLK_TILES
#undef BMM__CPU_BLK_TILE
#undef BMM__BLK_TILE_ARGS
#undef BMM__BLK_ROW
#undef BMM__BLK_ROWS
#undef BMM__BLK_OUT
#undef BMM__VLOAD
#undef BMM__VSTORE
#undef BMM__BLK_STORE
#undef BMM__CPU_BLK_VSTORE
#undef BMM__VEPILOGUE
#undef BMM__X86FMA
#undef BMM__LANE_FMA
#undef BMM__V16FMA_f32
#undef BMM__V16FMA_f64
#undef BMM__VFMA_f32
#undef BMM__VFMA_f64
#undef BMM__BLK_MR
#undef BMM__BLK_TILES_78
#undef BMM__BLK_TABLE_78
#undef BMM__BLK_KC
#undef BMM__BLK_INPLACE_BYTES
#undef BMM__BLK_NC
#undef BMM__BLK_MB
#undef BMM__BLK_FEW_UNITS
#undef BMM__VEXT_ATTR

/* cpu_small's kernel for (m, n, k): the blocked tile where a row of C fills
   two vectors (it beats the constant-size kernels there: 16^3 f32 1.4x, f64
   12^3..16^3 1.2-1.4x, dev VM 2026-11-23), else the micro-kernel for the shape,
   else the blocked tile where n fills a vector, else the dot kernel. The
   blocked range takes batch entries as units here: m, n <= 16 is one row and
   one column block (bmm__cpu_blk_units is 1). */
#define BMM__CPU_SMALL_PICK(name, T, FORM, M, N, K, TAG) \
  if (m == M && n == N && k == (K)) return bmm__cpu_small_##name##_##FORM##M##x##N##x##TAG;
#define BMM__CPU_SMALL_SELECT(E, name, T, sz, ...)                                 \
  static bmm__cpu_range_fn bmm__cpu_small_select_##name(const bmm_plan *pl) { \
    const int64_t m = pl->m, n = pl->n, k = pl->k, kk = pl->k;                \
    (void)kk;                                                                 \
    if (n >= 2 * BMM__CPU_VBYTES / sz) return bmm__cpu_blocked_range_##name;  \
    BMM__CPU_SMALL_KERNELS(BMM__CPU_SMALL_PICK, name, T)                      \
    if (n >= BMM__CPU_VBYTES / sz) return bmm__cpu_blocked_range_##name;      \
    return bmm__cpu_dot_range_##name;                                         \
  }
BMM_DTYPES(BMM__CPU_SMALL_SELECT)
#undef BMM__CPU_SMALL_SELECT
#undef BMM__CPU_SMALL_PICK

/* ---- cpu_batch_simd: vectors across the batch -----------------------------
   Batch-innermost: element (b, i, j) at (i*cols + j)*batch + b, so consecutive
   batch entries of one element are contiguous. Each unit is a chunk of
   BMM__BS_CHUNK entries; C[i][j] of VB entries at a time is accumulated in
   registers over k. Every lane does the same scalar sequence, so chunk borders
   (which depend on nothing but the batch) never change the bits. */
/* Every (i, l) row of A and l row of B is its own stream (k*(m+1) of them,
   more than the hardware prefetchers follow): each asks for its data 512 bytes
   ahead (seed_k25_batch_inner, AVX2 dev VM 2026-11-23: 47-55% -> 60-72% of copy) */
#if defined(__GNUC__)
#define BMM__PF(p) __builtin_prefetch(p)
#else
#define BMM__PF(p) ((void)0)
#endif
#define BMM__BS_PF(T) (512 / (int)sizeof(T))
#define BMM__BS_CHUNK 256
#define BMM__CPU_BATCH_SIMD(E, name, T, sz, ...)                                             \
  static void bmm__cpu_bsimd_range_##name(const bmm_plan *pl, int64_t u0, int64_t u1) { \
    enum { VB = 2 * BMM__CPU_VBYTES / sz };                                             \
    const int64_t m = pl->m, n = pl->n, k = pl->k, nb = pl->batch;                      \
    const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;                       \
    const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;                       \
    const int64_t crs = pl->c.row_stride, ccs = pl->c.col_stride;                       \
    int64_t u, i, j, l, v, vb;                                                          \
    for (u = u0; u < u1; ++u) {                                                         \
      const int64_t b0 = u * BMM__BS_CHUNK;                                             \
      const int64_t cnt = nb - b0 < BMM__BS_CHUNK ? nb - b0 : BMM__BS_CHUNK;            \
      const T *A = (const T *)pl->a.ptr + b0, *B = (const T *)pl->b.ptr + b0;           \
      T *C = (T *)pl->c.ptr + b0;                                                       \
      for (i = 0; i < m; ++i)                                                           \
        for (j = 0; j < n; ++j) {                                                       \
          T *cp = C + i * crs + j * ccs;                                                \
          for (vb = 0; vb < cnt; vb += VB) {                                            \
            T acc[VB];                                                                  \
            for (v = 0; v < VB; ++v)                                                    \
              acc[v] = 0;                                                               \
            if (cnt - vb >= VB) {                                                       \
              for (l = 0; l < k; ++l) {                                                 \
                const T *BMM__RESTRICT x = A + i * ars + l * acs + vb;                  \
                const T *BMM__RESTRICT y = B + l * brs + j * bcs + vb;                  \
                BMM__PF(x + BMM__BS_PF(T));                                             \
                if (i == 0) BMM__PF(y + BMM__BS_PF(T)); /* later rows of C reuse B */   \
                for (v = 0; v < VB; ++v)                                                \
                  acc[v] = BMM__FMA_##name(x[v], y[v], acc[v]);                         \
              }                                                                         \
              BMM__CPU_STORE(T, pl, cp + vb, 1, acc, VB, j, 0, 0);                      \
            } else {                                                                    \
              const int64_t w = cnt - vb;                                               \
              for (l = 0; l < k; ++l) {                                                 \
                const T *BMM__RESTRICT x = A + i * ars + l * acs + vb;                  \
                const T *BMM__RESTRICT y = B + l * brs + j * bcs + vb;                  \
                for (v = 0; v < w; ++v)                                                 \
                  acc[v] = BMM__FMA_##name(x[v], y[v], acc[v]);                         \
              }                                                                         \
              BMM__CPU_STORE(T, pl, cp + vb, 1, acc, w, j, 0, 0);                       \
            }                                                                           \
          }                                                                             \
        }                                                                               \
    }                                                                                   \
  }
BMM_DTYPES(BMM__CPU_BATCH_SIMD)
#undef BMM__CPU_BATCH_SIMD

/* ---- dispatch: the functions bmm.h's switch calls -------------------------- */

#define BMM__CPU_ENTRY(strategy, pick)                  \
  static void bmm__cpu_##strategy(const bmm_plan *pl) { \
    bmm__cpu_range_fn fn = NULL;                        \
    int64_t nunits = pl->batch;                         \
    switch (pl->dtype) {                                \
      BMM_DTYPES(pick)                                  \
    default: return;                                    \
    }                                                   \
    bmm__cpu_parallel(pl, fn, nunits);                  \
  }

/* The range kernel `expr` over `units` work units, or C = beta*C (+ bias)
   over the batch when A*B does not count (alpha = 0 or k = 0). */
#define BMM__PICK_UNITS(E, name, expr, units) \
  case BMM_##E:                               \
    if (pl->use_ab)                           \
      fn = (expr), nunits = (units);          \
    else                                      \
      fn = bmm__cpu_scale_##name;             \
    break;

#define BMM__PICK_DOT(E, name, T, sz, ...) \
  BMM__PICK_UNITS(E, name, bmm__cpu_dot_select_##name(pl), pl->batch)
#define BMM__PICK_SMALL(E, name, T, sz, ...) \
  BMM__PICK_UNITS(E, name, bmm__cpu_small_select_##name(pl), pl->batch)
#define BMM__PICK_BLOCKED(E, name, T, sz, ...) \
  BMM__PICK_UNITS(E, name, bmm__cpu_blocked_range_##name, pl->batch *bmm__cpu_blk_units(pl, sz))
#define BMM__PICK_BSIMD(E, name, T, sz, ...)                 \
  BMM__PICK_UNITS(E, name, bmm__cpu_bsimd_range_##name, \
                  (pl->batch + BMM__BS_CHUNK - 1) / BMM__BS_CHUNK)

BMM__CPU_ENTRY(cpu_dot, BMM__PICK_DOT)
BMM__CPU_ENTRY(cpu_small, BMM__PICK_SMALL)
BMM__CPU_ENTRY(cpu_blocked, BMM__PICK_BLOCKED)
BMM__CPU_ENTRY(cpu_batch_simd, BMM__PICK_BSIMD)
#undef BMM__CPU_ENTRY
#undef BMM__PICK_UNITS
#undef BMM__PICK_DOT
#undef BMM__PICK_SMALL
#undef BMM__PICK_BLOCKED
#undef BMM__PICK_BSIMD

/* The CPU default table: first match wins. Measured on the 2-vCPU AMD EPYC
   dev VM (AVX2+FMA, no AVX-512: gcc reads it as znver1), 2026-11-23, gcc 12 -O3
   -march=native -fopenmp, by `bench/bench_cpu` and a per-shape timer over
   the same strategies (min of 15-25 runs, one thread; numbers in
   bench/notes/cpu.md). The machine was shared, so only ratios of 1.3x and
   more were trusted. */
static const bmm_table_rule bmm__cpu_default_table[] = {
    {0, BMM_L_BATCH_INNER, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_BATCH_SIMD, 0, 0, 0, 0, 0, 0,
     "cpu dev VM 2026-11-23 bench_cpu --only seed_k25_batch: 4x cpu_dot, 30x cpu_ref"},
    {0, BMM_L_ROWMAJOR | BMM_L_SHARED_B, 0, 16, 0, 16, 0, 0, 0, 0, BMM_CPU_SMALL, 0, 0, 0, 0, 0, 0,
     "cpu dev VM 2026-11-23 3x1x25: 2.3x cpu_ref; 4^3..16^3: 1.2-20x cpu_dot"},
    {0, BMM_L_ROWMAJOR | BMM_L_SHARED_B, 0, 0, 8, 0, 0, 0, 0, 0, BMM_CPU_BLOCKED, 0, 0, 0, 0, 0, 0,
     "cpu dev VM 2026-11-23 1 thread 32^3..1024^3: f32 2.6-2.8x, f64 1.9-2.4x cpu_dot"},
    {BMM_DT(BMM_F64), 0, 16, 0, 16, 0, 16, 0, 0, 0, BMM_CPU_BLOCKED, 0, 0, 0, 0, 0, 0,
     "cpu dev VM 2026-11-23 bench_cpu f64 128^3..1024^3: 2.3-3.4x cpu_dot"},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_DOT, 0, 0, 0, 0, 0, 0,
     "catch-all; dev VM 2026-11-23 bench_cpu: col_a 2x ref, n < 8"},
};

#ifdef __cplusplus
}
#endif
#endif /* BMM_CPU_H */
