/* bmm_cpu.h - CPU kernels of bmm. Included by bmm.h's implementation (never
   on its own): every kernel reads a validated bmm_plan and may assume what its
   strategy claims in BMM_CPU_STRATEGIES.

   How to read it: the first part is compiled once (per-dtype helpers keyed by
   the dtype's name, the size lists of the fixed-size kernels, the kernel list,
   bmm__cpu_pick, the thread split). The kernel section (`#else` of
   BMM__CPU_SECTION, near the end) is compiled once per BMM_DTYPES row, with
   BMM__T the element type and BMM__N its name: bodies are ordinary functions,
   named BMM__FN(base) = bmm__cpu_<base>_<name> (bmm__cpu_small_dot_3x1_k25_f32).
   The real section includes the width section (BMM__CPU_SECTION 3) once per
   vector width for the code that is the same at every width (cpu_small's
   tile, the vector epilogue and C store).
   bmm__cpu_pick decides everything a call does (kernel, work units, threads,
   streamed stores) and says why; bmm_explain prints it; the kernels obey it.
   Measurements behind the constants: bench/notes/cpu.md. */
#ifndef BMM__CPU_SECTION
#ifndef BMM_CPU_H
#define BMM_CPU_H

#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define BMM__CAT(a, b) BMM__CAT_(a, b)
#define BMM__CAT_(a, b) a##b

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

#ifdef __cplusplus
#define BMM__RESTRICT __restrict
#else
#define BMM__RESTRICT restrict
#endif

/* Helpers inlined into every caller, so that each copy is compiled with its
   caller's options (fp-contract) exactly as the code written in place. */
#if defined(__GNUC__)
#define BMM__INLINE static inline __attribute__((always_inline))
#else
#define BMM__INLINE static inline
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

/* Full unrolling of the fixed-size kernels' constant-count loops, which gcc
   -O2 leaves rolled (with their sums in memory): -O2 is a common way to
   build a header library, so the kernels must not need -O3. gcc only:
   clang at -O1 (the sanitizer builds) reports a request it cannot honour
   as -Wpass-failed, an error under -Werror in the including project, and
   a diagnostic pragma does not silence that backend warning; clang's own
   unrolling of these loops is not measured. */
#if !defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 8
#define BMM__UNROLL _Pragma("GCC unroll 16")
#define BMM__UNROLL_K _Pragma("GCC unroll 8")
#else
#define BMM__UNROLL
#define BMM__UNROLL_K
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
   last-level cache of the dev VM; 0 streams every beta = 0 call, -1 none).
   Below that size streaming lost (bench/notes/cpu.md, "streaming stores").
   x86-64 with GNU C only; elsewhere plain stores. Same values either way, so
   no bits change. */
#ifndef BMM_CPU_STREAM_BYTES
#define BMM_CPU_STREAM_BYTES (32.0 * 1024 * 1024)
#endif
/* one element: movnti of its bits, one function per dtype name */
#if BMM__CPU_NT
BMM__INLINE void bmm__ntstore_f32(float *p, float x) {
  int w;
  memcpy(&w, &x, 4);
  _mm_stream_si32((int *)(void *)p, w);
}
BMM__INLINE void bmm__ntstore_f64(double *p, double x) {
  long long w;
  memcpy(&w, &x, 8);
  _mm_stream_si64((long long *)(void *)p, w);
}
#define BMM__NT_FENCE() _mm_sfence()
#else
BMM__INLINE void bmm__ntstore_f32(float *p, float x) { *p = x; }
BMM__INLINE void bmm__ntstore_f64(double *p, double x) { *p = x; }
#define BMM__NT_FENCE() ((void)0)
#endif
/* Does this call stream C? Only where A*B counts (alpha = 0 or k = 0 take
   the plain C = beta*C + bias pass); not cpu_ref (the oracle stays plain), nor
   cpu_batch_simd (its C is a few % of the bytes, stored as whole vectors that
   movnti would split into lanes), and only where k <= 256: cpu_blocked adds
   later K blocks into C, and longer sums make C's share of the traffic small. */
#define BMM__CPU_STREAM_MAX_K 256
/* Does the call move at least BMM_CPU_STREAM_BYTES (its operands would not
   stay in the caches)? */
static double bmm__cpu_bytes(const bmm_plan *pl) {
  return (double)pl->batch * (double)bmm_dtype_size(pl->dtype) *
         ((double)pl->m * (double)pl->k + (double)pl->k * (double)pl->n +
          (double)pl->m * (double)pl->n);
}
/* tests: >= -1 stands for BMM_CPU_STREAM_BYTES, so that one build runs its
   tests both ways (test_cpu's BMMX_STREAM_BYTES) */
static double bmm__cpu_stream_test = -2;
static double bmm__cpu_stream_bytes(void) {
  return bmm__cpu_stream_test >= -1 ? bmm__cpu_stream_test : (double)BMM_CPU_STREAM_BYTES;
}
static int bmm__cpu_big(const bmm_plan *pl) {
  const double at = bmm__cpu_stream_bytes();
  return at >= 0 && bmm__cpu_bytes(pl) >= at;
}
/* Can every vector store to C stream? A kernel streams a vector only where
   its address allows (BMM__WFN(vstore_c_)) and stores it plainly elsewhere; a
   line written partly by streamed and partly by plain stores ran 10-25x
   slower than all plain (Zen 5: rows of 5 f64 = 40 bytes, 6 f32, 7, 9, 11;
   bench/notes/cpu.md, "streaming stores on odd rows"). So rows that hold a
   16-byte vector stream only where each starts on 16 bytes; narrower rows
   are stored element by element, all streamed. */
static int bmm__cpu_stream_rows_ok(const bmm_plan *pl) {
  /* unsigned: a valid stride times the size may pass INT64_MAX (the fuzzer
     found one), and only the low bits of the product count */
  const uint64_t es = (uint64_t)bmm_dtype_size(pl->dtype);
  uint64_t bad = (uint64_t)(uintptr_t)pl->c.ptr;
  int d;
  if (pl->n < (int64_t)(16 / es)) return 1;
  if (pl->m > 1) bad |= (uint64_t)pl->c.row_stride * es;
  for (d = 0; d < pl->ndims; ++d)
    bad |= (uint64_t)pl->c.batch_stride[d] * es;
  return bad % 16 == 0;
}
/* The first entry e in [b0, b0 + lim], e <= b1, whose C (m elements of es
   bytes an entry from c) starts a 64-byte line, or -1 where none does (C not
   on a multiple of its element size): where the kernels that stream C in
   whole lines start their blocks. */
BMM__INLINE int64_t bmm__cpu_line_entry(const void *c, int64_t es, int64_t m, int64_t b0,
                                        int64_t b1, int64_t lim) {
  int64_t e = b0;
  while (e < b1 && e - b0 < lim && ((uintptr_t)((const char *)c + e * m * es) & 63))
    ++e;
  return (uintptr_t)((const char *)c + e * m * es) & 63 ? -1 : e;
}
/* the call would stream C but for its rows (explain says so) */
static int bmm__cpu_stream_but_rows(const bmm_plan *pl) {
  /* complex kernels store (re, im) pairs with plain stores (not measured yet) */
  return BMM__CPU_NT && pl->use_ab && !pl->read_c && pl->strategy != BMM_CPU_REF &&
         !bmm_dtype_is_complex(pl->dtype) && pl->strategy != BMM_CPU_BATCH_SIMD &&
         pl->k <= BMM__CPU_STREAM_MAX_K && bmm__cpu_big(pl);
}
static int bmm__cpu_stream_c(const bmm_plan *pl) {
  return bmm__cpu_stream_but_rows(pl) && bmm__cpu_stream_rows_ok(pl);
}

/* ---- half <-> f32, n elements at a time ------------------------------------
   f16 and bf16 are computed in f32 (bmm__cpu_pick, "converted dtypes"):
   these move runs of elements between the storage and f32 buffers, dst[i*ds]
   from src[i*ss]. Hardware where the target has it, bit-equal to the portable
   C of bmm.h used elsewhere (tests/test_half.c checks both): F16C (vcvtph2ps,
   vcvtps2ph: 8 at a time, round to nearest even) for f16; AVX-512 BF16's
   vcvtneps2bf16 for f32 -> bf16, which takes inputs below 2^-126 as zero, so
   lanes holding an f32 subnormal are redone in C; else AVX2 integer lanes for
   both bf16 directions (bmm_bf16_to_f32's shift and bmm_f32_to_bf16's
   rounding, 8 at a time: gcc 12 left the plain C loops scalar, 46% of a bf16
   seed call; bench/notes/cpu.md, "f16/bf16 fused seed path"). The path's name
   is for explain. */
#if defined(__F16C__) && defined(__AVX__) && !defined(BMM_CPU_PORTABLE) && !defined(__CUDACC__)
#define BMM__CPU_F16C 1
#include <immintrin.h>
#else
#define BMM__CPU_F16C 0
#endif
#if defined(__AVX512BF16__) && defined(__AVX512F__) && !defined(BMM_CPU_PORTABLE) && \
    !defined(__CUDACC__)
#define BMM__CPU_AVX512BF16 1
#include <immintrin.h>
#else
#define BMM__CPU_AVX512BF16 0
#endif
#if defined(__AVX2__) && !defined(BMM_CPU_PORTABLE) && !defined(__CUDACC__)
#define BMM__CPU_AVX2 1
#include <immintrin.h>
#else
#define BMM__CPU_AVX2 0
#endif
static const char *const bmm__cpu_cvt_path_f16 = BMM__CPU_F16C ? "F16C" : "portable C";
static const char *const bmm__cpu_cvt_path_bf16 = BMM__CPU_AVX512BF16 ? "AVX-512 BF16 + C"
                                                  : BMM__CPU_AVX2     ? "AVX2"
                                                                      : "portable C";

static void bmm__cpu_to_f32_f16(float *dst, int64_t ds, const bmm_f16 *src, int64_t ss, int64_t n) {
  int64_t i = 0;
#if BMM__CPU_F16C
  if (ds == 1 && ss == 1)
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
#endif
  for (; i < n; ++i)
    dst[i * ds] = bmm_f16_to_f32(src[i * ss]);
}
static void bmm__cpu_from_f32_f16(bmm_f16 *dst, int64_t ds, const float *src, int64_t ss,
                                  int64_t n) {
  int64_t i = 0;
#if BMM__CPU_F16C
  if (ds == 1 && ss == 1)
    for (; i + 8 <= n; i += 8)
      _mm_storeu_si128((__m128i *)(dst + i),
                       _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#endif
  for (; i < n; ++i)
    dst[i * ds] = bmm_f32_to_f16(src[i * ss]);
}
static void bmm__cpu_to_f32_bf16(float *dst, int64_t ds, const bmm_bf16 *src, int64_t ss,
                                 int64_t n) {
  int64_t i = 0;
  if (ds == 1 && ss == 1) {
#if BMM__CPU_AVX2
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_si256(
          (__m256i *)(dst + i),
          _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + i))),
                            16));
    /* the tail as a count below 8 (gcc 12 -O3 warned of an overflow in a
       plain i < n tail, -Waggressive-loop-optimizations) */
    dst += i, src += i, n -= i, i = 0;
    for (; i < (n & 7); ++i)
      dst[i] = bmm_bf16_to_f32(src[i]);
    return;
#else
    for (; i < n; ++i) /* the loop compilers vectorise */
      dst[i] = bmm_bf16_to_f32(src[i]);
    return;
#endif
  }
  for (; i < n; ++i)
    dst[i * ds] = bmm_bf16_to_f32(src[i * ss]);
}
#if BMM__CPU_AVX2
/* bmm_f32_to_bf16 on 8 lanes, the 16-bit results in the low half of each
   32-bit lane: round to nearest even by adding 0x7fff plus the kept lsb (no
   carry out of 32 bits: the largest non-NaN pattern is -Inf's 0xff800000),
   NaN kept quiet with its top payload bits */
BMM__INLINE __m256i bmm__cpu_bf16_round8(__m256i x) {
  const __m256i hi = _mm256_srli_epi32(x, 16);
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));
  const __m256i r =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)),
                                         _mm256_and_si256(hi, _mm256_set1_epi32(1))),
                        16);
  return _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
}
#endif
#if BMM__CPU_AVX512BF16
/* vcvtneps2bf16 on 16 lanes, and (sub) the lanes where it is not
   bmm_f32_to_bf16: f32 subnormals, which it takes as zero */
BMM__INLINE __m256i bmm__cpu_bf16_cvtne16(__m512 x, __mmask16 *sub) {
  const __m256bh h = _mm512_cvtneps_pbh(x);
  __m256i r;
#ifdef __AVX512DQ__
  *sub = _mm512_fpclass_ps_mask(x, 0x20); /* denormal: one test */
#else /* AVX-512 F alone: below the least normal in magnitude, not zero */
  *sub = _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(1.17549435e-38f), _CMP_LT_OQ) &
         _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NEQ_UQ);
#endif
  memcpy(&r, &h, 32); /* a register's bits as they are (no cast between these types) */
  return r;
}
#endif
static void bmm__cpu_from_f32_bf16(bmm_bf16 *dst, int64_t ds, const float *src, int64_t ss,
                                   int64_t n) {
  int64_t i = 0;
#if BMM__CPU_AVX512BF16
  if (ds == 1 && ss == 1)
    for (; i + 16 <= n; i += 16) {
      __mmask16 sub;
      const __m256i h = bmm__cpu_bf16_cvtne16(_mm512_loadu_ps(src + i), &sub);
      int q;
      _mm256_storeu_si256((__m256i *)(void *)(dst + i), h);
      for (q = 0; sub && q < 16; ++q)
        if (sub >> q & 1) dst[i + q] = bmm_f32_to_bf16(src[i + q]);
    }
#elif BMM__CPU_AVX2
  if (ds == 1 && ss == 1)
    for (; i + 8 <= n; i += 8) {
      /* packus works within 128-bit halves: lanes 0-3 and 4-7 land in
         64-bit quarters 0 and 2, which the permute brings together */
      const __m256i r = bmm__cpu_bf16_round8(_mm256_loadu_si256((const __m256i *)(src + i)));
      const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
      _mm_storeu_si128((__m128i *)(dst + i), _mm256_castsi256_si128(p));
    }
#endif
  for (; i < n; ++i)
    dst[i * ds] = bmm_f32_to_bf16(src[i * ss]);
}

/* Partial sums per dot product: 8 independent FMA chains hide the FMA latency
   and map to one vector register; fixed, so the order of additions (and the
   bits of the result) never depends on the machine or the thread count. */
#define BMM__CPU_DOT_W 8

/* Below this much work (multiply-adds plus elements moved) a parallel region
   costs more than it saves. */
#define BMM__CPU_MIN_WORK 65536.0

/* Element offsets of batch entry bi; one multiply for the one-dim classes. */
BMM__INLINE void bmm__cpu_offsets(const bmm_plan *pl, int64_t bi, int64_t *oa, int64_t *ob,
                                  int64_t *oc) {
  if (pl->ndims <= 1) {
    *oa = bi * pl->a.batch_stride[0];
    *ob = bi * pl->b.batch_stride[0];
    *oc = bi * pl->c.batch_stride[0];
  } else {
    bmm_batch_offsets(pl, bi, oa, ob, oc);
  }
}

/* ---- vectors: GCC vector extensions, one set of types per dtype name ------
   They keep each sum in one register (plain C arrays of sums are left in
   memory by gcc 12 at -O3); BMM_CPU_PORTABLE or another compiler gets the
   plain C kernels. ISO C mode disables contraction, so the vector kernels ask
   for it (BMM__VEXT_ATTR): one fused multiply-add per term, as BMM__FMA. */
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(BMM_CPU_PORTABLE)
#define BMM__CPU_VEXT 1
typedef float bmm__vec_f32 __attribute__((vector_size(BMM__CPU_VBYTES)));
typedef double bmm__vec_f64 __attribute__((vector_size(BMM__CPU_VBYTES)));
/* unaligned, aliasing views for loads and stores (a memcpy of 32 bytes is
   split into 16-byte moves by gcc's znver1 tuning, which -march=native picks
   on the dev VMs) */
typedef float bmm__uvec_f32 __attribute__((vector_size(BMM__CPU_VBYTES), aligned(4), may_alias));
typedef double bmm__uvec_f64 __attribute__((vector_size(BMM__CPU_VBYTES), aligned(8), may_alias));
/* 16-byte views for the dot and short-column kernels */
typedef float bmm__v16_f32 __attribute__((vector_size(16), aligned(4), may_alias));
typedef double bmm__v16_f64 __attribute__((vector_size(16), aligned(8), may_alias));
/* 32-byte views where the widest vectors are 64 bytes: cpu_small's rows of
   8..15 f32 or 4..7 f64 (square8 f32 in 16-byte pieces ran 1.16x LIBXSMM's
   time in cache on Zen 5; bench/notes/cpu.md, "cpu_small: 32-byte rows") */
#if BMM__CPU_VBYTES == 64
#define BMM__CPU_V32 1
typedef float bmm__v32_f32 __attribute__((vector_size(32), aligned(4), may_alias));
typedef double bmm__v32_f64 __attribute__((vector_size(32), aligned(8), may_alias));
#else
#define BMM__CPU_V32 0
#endif
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
#define BMM__V32FMA_f32(a, x, r) BMM__X86FMA(_mm256, ps, __m256, bmm__v32_f32, a, x, r)
#define BMM__V32FMA_f64(a, x, r) BMM__X86FMA(_mm256, pd, __m256d, bmm__v32_f64, a, x, r)
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
#define BMM__V32FMA_f32(a, x, r) BMM__LANE_FMA(f32, a, x, r)
#define BMM__V32FMA_f64(a, x, r) BMM__LANE_FMA(f64, a, x, r)
#define BMM__VFMA_f32(a, x, r) BMM__LANE_FMA(f32, a, x, r)
#define BMM__VFMA_f64(a, x, r) BMM__LANE_FMA(f64, a, x, r)
#else
#define BMM__V16FMA_f32(a, x, r) ((r) = (a) * (x) + (r))
#define BMM__V16FMA_f64(a, x, r) ((r) = (a) * (x) + (r))
#define BMM__V32FMA_f32(a, x, r) ((r) = (a) * (x) + (r))
#define BMM__V32FMA_f64(a, x, r) ((r) = (a) * (x) + (r))
#define BMM__VFMA_f32(a, x, r) ((r) = (a) * (x) + (r))
#define BMM__VFMA_f64(a, x, r) ((r) = (a) * (x) + (r))
#endif
/* non-temporal vector stores, by width (the bits of any element type) */
#if BMM__CPU_NT
#define BMM__NTSTORE_V16(p, v) _mm_stream_si128((__m128i *)(void *)(p), (__m128i)(v))
#if BMM__CPU_VBYTES == 64
#define BMM__NTSTORE_V(p, v) _mm512_stream_si512((__m512i *)(void *)(p), (__m512i)(v))
#define BMM__NTSTORE_V32(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (__m256i)(v))
#elif BMM__CPU_VBYTES == 32
#define BMM__NTSTORE_V(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (__m256i)(v))
#else
#define BMM__NTSTORE_V(p, v) BMM__NTSTORE_V16(p, v)
#endif
/* 64 bytes from a buffer to a line, streamed in the widest vectors */
BMM__INLINE void bmm__ntstore_line(void *dst, const void *src) {
  int i;
  for (i = 0; i < 64 / BMM__CPU_VBYTES; ++i)
    BMM__NTSTORE_V((char *)dst + i * BMM__CPU_VBYTES,
                   *(const bmm__uvec_f32 *)(const void *)((const char *)src + i * BMM__CPU_VBYTES));
}
#endif
/* r[i] = lane sum of s[i], i < 4: pairs of lanes, then pairs of pairs (older
   gcc, without __builtin_shufflevector: the same sums lane by lane) */
BMM__INLINE void bmm__hsum_f32(const bmm__v16_f32 *s, float *r) {
#if defined(__clang__) || __GNUC__ >= 12
  const bmm__v16_f32 p0 = __builtin_shufflevector(s[0], s[1], 0, 2, 4, 6) +
                          __builtin_shufflevector(s[0], s[1], 1, 3, 5, 7);
  const bmm__v16_f32 p1 = __builtin_shufflevector(s[2], s[3], 0, 2, 4, 6) +
                          __builtin_shufflevector(s[2], s[3], 1, 3, 5, 7);
  const bmm__v16_f32 q =
      __builtin_shufflevector(p0, p1, 0, 2, 4, 6) + __builtin_shufflevector(p0, p1, 1, 3, 5, 7);
  r[0] = q[0], r[1] = q[1], r[2] = q[2], r[3] = q[3];
#else
  int i;
  for (i = 0; i < 4; ++i)
    r[i] = (s[i][0] + s[i][1]) + (s[i][2] + s[i][3]);
#endif
}
BMM__INLINE void bmm__hsum_f64(const bmm__v16_f64 *s, double *r) {
#if defined(__clang__) || __GNUC__ >= 12
  const bmm__v16_f64 p0 =
      __builtin_shufflevector(s[0], s[1], 0, 2) + __builtin_shufflevector(s[0], s[1], 1, 3);
  const bmm__v16_f64 p1 =
      __builtin_shufflevector(s[2], s[3], 0, 2) + __builtin_shufflevector(s[2], s[3], 1, 3);
  r[0] = p0[0], r[1] = p0[1], r[2] = p1[0], r[3] = p1[1];
#else
  int i;
  for (i = 0; i < 4; ++i)
    r[i] = s[i][0] + s[i][1];
#endif
}
/* A vector's (re, im) pairs swapped (c_dotv's cross terms xr yi, xi yr),
   at the widest width and at 16 bytes */
#if defined(__clang__) || __GNUC__ >= 12
#if BMM__CPU_VBYTES == 64
#define BMM__CSWAP_f32 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14
#define BMM__CSWAP_f64 1, 0, 3, 2, 5, 4, 7, 6
#elif BMM__CPU_VBYTES == 32
#define BMM__CSWAP_f32 1, 0, 3, 2, 5, 4, 7, 6
#define BMM__CSWAP_f64 1, 0, 3, 2
#else
#define BMM__CSWAP_f32 1, 0, 3, 2
#define BMM__CSWAP_f64 1, 0
#endif
#define BMM__CSWAP_DEF(N, VT, ...) \
  BMM__INLINE VT bmm__cswap_##N(VT v) { return __builtin_shufflevector(v, v, __VA_ARGS__); }
BMM__CSWAP_DEF(f32, bmm__vec_f32, BMM__CSWAP_f32)
BMM__CSWAP_DEF(f64, bmm__vec_f64, BMM__CSWAP_f64)
BMM__CSWAP_DEF(v16_f32, bmm__v16_f32, 1, 0, 3, 2)
BMM__CSWAP_DEF(v16_f64, bmm__v16_f64, 1, 0)
#undef BMM__CSWAP_DEF
#undef BMM__CSWAP_f32
#undef BMM__CSWAP_f64
#else
#define BMM__CSWAP_DEF(N, VT)                           \
  BMM__INLINE VT bmm__cswap_##N(VT v) {                 \
    VT r = v;                                           \
    int t;                                              \
    for (t = 0; t < (int)(sizeof v / sizeof v[0]); ++t) \
      r[t] = v[t ^ 1];                                  \
    return r;                                           \
  }
BMM__CSWAP_DEF(f32, bmm__vec_f32)
BMM__CSWAP_DEF(f64, bmm__vec_f64)
BMM__CSWAP_DEF(v16_f32, bmm__v16_f32)
BMM__CSWAP_DEF(v16_f64, bmm__v16_f64)
#undef BMM__CSWAP_DEF
#endif
#else
#define BMM__CPU_VEXT 0
#define BMM__VEXT_ATTR
#endif

/* f16 and bf16 read by cpu_small's dot kernels themselves (bmm__cpu_pick,
   "converted dtypes"): 4 halves at a time become 4 f32 lanes in a register,
   F16C's vcvtph2ps for f16, a zero low half for bf16 (punpcklwd, SSE2), so
   the f32 copy in memory and its second pass go (bench/notes/cpu.md, "f16/bf16
   fused seed path"). The path's name is for explain. */
#if BMM__CPU_VEXT && BMM__CPU_F16C
#define BMM__CPU_FUSED_f16 1
#else
#define BMM__CPU_FUSED_f16 0
#endif
#if BMM__CPU_VEXT && defined(__SSE2__)
#define BMM__CPU_FUSED_bf16 1
#include <emmintrin.h>
#else
#define BMM__CPU_FUSED_bf16 0
#endif

/* cpu_small's dot form on the halves, 16 rows of C summed side by side
   (bmm__cpu_pick's vrows, AVX-512 F/BW/VL): the per-entry kernel spent 2-4 ns
   an entry on the seed's 3 x 1 x k (a conversion per 4 halves, a horizontal
   sum per row, 3 scalar stores), twice the time the halves take to arrive
   (bench/notes/cpu.md, "f16/bf16: 16 rows to a vector"). Rows of up to
   BMM__CPU_VROWS_KMAX products. */
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && BMM__CPU_AVX2
#define BMM__CPU_VROWS_f16 BMM__CPU_FUSED_f16
#define BMM__CPU_VROWS_bf16 BMM__CPU_FUSED_bf16
#else
#define BMM__CPU_VROWS_f16 0
#define BMM__CPU_VROWS_bf16 0
#endif
#define BMM__CPU_VROWS_KMAX 64
/* f32 the same way for k <= BMM__CPU_VK_KMAX(m) (the entries' columns
   permuted into lanes, bmm__cpu_small_vk_*): there the per-entry kernel's own
   cost, not memory, set the time (Intel VM, 2 threads: 3x1x1 at 45% of the
   floor, 3x1x2 70%, 3x1x3 78%; bench/notes/cpu.md, "f32: 16 rows to a
   vector"). Not f64 (87-96% there). */
#if defined(__AVX512F__) && BMM__CPU_AVX2 && BMM__CPU_NT && BMM__CPU_VEXT
#define BMM__CPU_VROWS_f32 1
#define BMM__CPU_VK_W 16
typedef __m512 bmm__vk_v;
typedef __m512i bmm__vk_i;
#define BMM__VK_LOADU(p) _mm512_loadu_ps(p)
#define BMM__VK_LOADI(p) _mm512_loadu_si512((const void *)(p))
#define BMM__VK_STOREU(p, x) _mm512_storeu_ps(p, x)
#define BMM__VK_STREAM(p, x) _mm512_stream_ps(p, x)
#define BMM__VK_SET1(x) _mm512_set1_ps(x)
#define BMM__VK_ZERO() _mm512_setzero_ps()
#define BMM__VK_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define BMM__VK_MUL(a, b) _mm512_mul_ps(a, b)
#define BMM__VK_ADD(a, b) _mm512_add_ps(a, b)
#define BMM__VK_PERM(x, i) _mm512_permutexvar_ps(i, x)
/* AVX2 with FMA: 8 rows to a vector (-march=haswell on the Intel VM, 2
   threads: 3x1x1 at 51% of the floor, 3x1x2 70%, 3x1x3 79% entry by entry) */
#elif defined(__FMA__) && BMM__CPU_AVX2 && BMM__CPU_NT && BMM__CPU_VEXT
#define BMM__CPU_VROWS_f32 1
#define BMM__CPU_VK_W 8
typedef __m256 bmm__vk_v;
typedef __m256i bmm__vk_i;
#define BMM__VK_LOADU(p) _mm256_loadu_ps(p)
#define BMM__VK_LOADI(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define BMM__VK_STOREU(p, x) _mm256_storeu_ps(p, x)
#define BMM__VK_STREAM(p, x) _mm256_stream_ps(p, x)
#define BMM__VK_SET1(x) _mm256_set1_ps(x)
#define BMM__VK_ZERO() _mm256_setzero_ps()
#define BMM__VK_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define BMM__VK_MUL(a, b) _mm256_mul_ps(a, b)
#define BMM__VK_ADD(a, b) _mm256_add_ps(a, b)
#define BMM__VK_PERM(x, i) _mm256_permutevar8x32_ps(x, i)
#else
#define BMM__CPU_VROWS_f32 0
#define BMM__CPU_VK_W 0
#endif
#define BMM__CPU_VROWS_f64 0
/* The k each m reaches (BMM__VK_KS_m, BMM__CPU_VK_KMAX its count): with AVX-512 k <= 8
   (vk_col's pairs of vectors) except m = 3, k <= 5, where 3x1xK's per-entry
   kernel stayed faster past it (Intel model 207, 2 threads, 2 GB calls: k =
   6..8 1.25-1.44x its time, m = 1, 2, 4 at k = 4..8 0.53-0.95x;
   bench/notes/cpu.md, "f32 k = 4..8"); with AVX2 k <= 3 (its blends). */
#if BMM__CPU_VK_W == 16
#define BMM__VK_KS_1(X, M) X(M, 1) X(M, 2) X(M, 3) X(M, 4) X(M, 5) X(M, 6) X(M, 7) X(M, 8)
#define BMM__VK_KS_3(X, M) X(M, 1) X(M, 2) X(M, 3) X(M, 4) X(M, 5)
#else
#define BMM__VK_KS_1(X, M) X(M, 1) X(M, 2) X(M, 3)
#define BMM__VK_KS_3 BMM__VK_KS_1
#endif
#define BMM__VK_KS_2 BMM__VK_KS_1
#define BMM__VK_KS_4 BMM__VK_KS_1
/* the largest k of m's list (the lists run 1..kmax): its length */
#define BMM__VK_ONE(M, K) +1
#define BMM__VK_KMAX_OF(M) (0 BMM__VK_KS_##M(BMM__VK_ONE, M))
#define BMM__CPU_VK_KMAX(m)        \
  ((m) == 1   ? BMM__VK_KMAX_OF(1) \
   : (m) == 2 ? BMM__VK_KMAX_OF(2) \
   : (m) == 3 ? BMM__VK_KMAX_OF(3) \
              : BMM__VK_KMAX_OF(4))
/* X(A, M) for the dot form's m = 1..4: the 16-rows paths' functions and
   their tables, one per m */
#define BMM__CPU_DOT_MS(X, A) X(A, 1) X(A, 2) X(A, 3) X(A, 4)
#if BMM__CPU_VROWS_f16 || BMM__CPU_VROWS_bf16
/* The index of P in each dtype's vrows_fns: k itself up to 8 (the columns,
   every count and offset a constant), then the lanes a row: 16, and past 16
   a vector of 16 per chunk: 32, 48, 64 */
static int bmm__cpu_vrows_p(int64_t k) {
  return k <= 8 ? (int)k - 1 : k <= 16 ? 8 : k <= 32 ? 9 : k <= 48 ? 10 : 11;
}
/* vcol's permutation number q of 16 rows whose halves were loaded 32 at a
   time from the first row's: columns 2q and 2q + 1. f16 (bf16 = 0): halves
   0..15 (row r at r) and 16..31, converted after. bf16: row r's two at the
   upper and the lower half of f32 lane r, column 2q an f32 once the lower
   half is cleared, 2q + 1 once shifted up (against a permutation a column:
   bf16 3x1xK, K = 2..8, 0.71-0.93 of the time in cache, 0.96-1.01 out of
   cache; bench/notes/cpu.md). Row r's element c is half ((ph + r) / M) *
   step + c (A: ph = 0, M = 1, step = K; B: the entry of row r of a group
   that starts at row ph of an entry, step K or 0); past k, element 0. */
static void bmm__cpu_vcol_idx(__m512i *idx, __mmask32 *hi, int q, int bf16, int64_t k, int ph,
                              int m, int64_t step) {
  short x[32];
  int j;
  *hi = 0;
  for (j = 0; j < 32; ++j) {
    const int64_t c = 2 * q + (bf16 ? 1 - j % 2 : j / 16), r = bf16 ? j / 2 : j % 16;
    const int64_t src = c < k ? (ph + r) / m * step + c : 0;
    x[j] = (short)(src % 64);
    if (src >= 64) *hi |= (__mmask32)1u << j;
  }
  *idx = _mm512_loadu_si512((const void *)x);
}
#endif

/* Entries of [b0, b0 + len*S) are visited as S interleaved sub-ranges (the
   choice's streams), the rest in order. Several sequential runs per thread
   once kept more prefetchers busy (Zen 3/4 read probe: 21 -> 25-30 GB/s with
   4); on Zen 5 the kernels themselves ran up to 4x slower with 4 than with 1
   at some K (cliffs at f32 K = 6..10 and 16-17), and 1 was never more than
   20% behind: hence one run by default, more by a rule's streams=
   (bench/notes/cpu.md, "prefetch streams"). Entries are independent, so the
   order changes no bits. */
#ifndef BMM_CPU_STREAMS
#define BMM_CPU_STREAMS 1
#endif
#if BMM_CPU_STREAMS < 1 || BMM_CPU_STREAMS > BMM_MAX_STREAMS
#error "BMM_CPU_STREAMS must be 1..BMM_MAX_STREAMS (16)"
#endif
/* Entries per run: with one run, none, so that the in-order tail loop (or
   the last case of BMM__CPU_STREAM_AT) takes every entry: the interleaved
   loop around a single run cost 8 Ir an entry at 3x1x5 (tests/ir_check.sh). */
#define BMM__CPU_RUN_LEN(b0, b1, S) ((S) > 1 ? ((b1) - (b0)) / (S) : 0)
#define BMM__CPU_STREAM_AT(b0, len, S, st) \
  ((st) < (S) * (len) ? (b0) + ((st) % (S)) * (len) + (st) / (S) : (b0) + (st))

/* Software prefetch for the fixed-size kernels out of cache: walking packed
   entries in one run, a kernel asks for every line of A and B a distance
   ahead of the entry it computes (bmm__cpu_pf_bytes). Defining
   BMM_CPU_PREFETCH_BYTES before the implementation sets that distance on
   every path and core; 0 turns the prefetch off. Addresses, not accesses:
   the lines past the end of an operand are asked for and never read. */
#if defined(__GNUC__)
#define BMM__CPU_PREFETCH 1
#define BMM__PREFETCH(p) __builtin_prefetch(p)
#define BMM__PREFETCH_L2(p) __builtin_prefetch(p, 0, 2) /* prefetcht1: to L2, not L1 */
#else
#define BMM__CPU_PREFETCH 0 /* no portable way to ask */
#define BMM__PREFETCH(p) ((void)(p))
#define BMM__PREFETCH_L2(p) ((void)(p))
#endif
/* Which core this is: the run-time questions about the CPU are the prefetch
   distance below and how far f32's 16-rows path reaches (bmm__cpu_vk_kmax).
   AMD family 19h is Zen 3 and Zen 4 (measured: Zen 4, model 17); the rest
   (Zen 5 is family 1Ah, other vendors and architectures) keep the defaults
   measured on Zen 5. bmm__cpu_core_test (tests) stands in for the answer. */
enum { BMM__CORE_OTHER = 1, BMM__CORE_INTEL, BMM__CORE_AMD19 };
static int bmm__cpu_core_test; /* tests: > 0 is the core (BMM__CORE_*) */
static int bmm__cpu_core(void) {
  if (bmm__cpu_core_test > 0) return bmm__cpu_core_test;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  if (__builtin_cpu_is("intel")) return BMM__CORE_INTEL;
  if (__builtin_cpu_is("amdfam19h")) return BMM__CORE_AMD19;
#endif
  return BMM__CORE_OTHER;
}
static const char *bmm__cpu_core_name(int core) {
  return core == BMM__CORE_INTEL   ? "Intel"
         : core == BMM__CORE_AMD19 ? "AMD family 19h"
                                   : "not Intel, not AMD family 19h";
}
/* The prefetch distance in bytes: per entry (the fixed-size kernels), or
   once per block of 16 entries (vrows: 16 rows of C to a vector; f32's AVX2
   blocks of 8 take the same distance, not measured apart). Measured,
   2 GB calls of 3x1xK, 2 threads, in one process:
   - Zen 5: 4096. The hardware prefetchers alone left f64 K = 30..64 at 25
     GB/s on one core against 35 for f32 (the same bytes); 4096 ahead took
     f64 K = 40 and 64 to 0.70-0.72 of the time, f32 K = 64 to 0.89, and 1024
     or 8192 ahead, or one line per entry, did worse (bench/notes/cpu.md,
     "small kernels: prefetch"). 2048 not measured there. The 16-row
     blocks: 16384, 0.94-0.96 of 4096's time (f16/bf16 3x1xK, geomean over
     24-28 rows, five runs; 1024 and 2048 1.0-1.4x, 8192, 12288 and 32768
     0.9-1.08, no clear gain; bench/notes/cpu.md, "Zen 5 again").
   - Intel (family 6 model 167): 2048 took 0.92-0.95 of 4096's time at f32
     K = 8..50 and 0.89-0.96 on the f16/bf16 16-row blocks; 1024 took those
     blocks to 0.84-0.94 but the f32 per-entry kernels to 1.05 at K = 5, 6
     (bench/notes/cpu.md, "prefetch distance per path"). That block figure
     predates the blocks' prefetch per group of 16 rows (vrows_block).
   - Intel (family 6 model 207), the blocks, prefetch per group: the best
     distance depends on the entry's bytes of A and B (entry_bytes). Up to
     160 bytes (f16 3x1x20) 2048, 4096 and 8192 all took 0.85-0.98 of 1024's
     time; past it 1024 is best (f16/bf16 4x1x20 and 3x1x25, 200 bytes:
     0.99-1.01 with 4096; 2x1x32, 192: 1.05-1.06; 3x1x40, 320: 1.08-1.17;
     512 bytes 1.00-1.06 everywhere, no prefetch 1.00-1.16). 2 GB calls, 2 threads
     (bench/notes/cpu.md, "the 16-row blocks' distance by entry size").
   - AMD family 19h (Zen 4, model 17), the blocks: Zen 5's 16384 took
     1.05-1.29x the time of 4096 on all 16 f16 / bf16 3x1xK rows (K =
     2..64) and 1.02-1.52x that of 1024 on 15, in both orders; the halves
     follow Intel's rule by entry size (K = 2..16: 4096 0.87-1.0 of 1024's
     time, K = 40, 64: 1024 0.81-0.98 of 4096's), f32's blocks (entries of
     at most 120 bytes there) 512 (3x1x4, 2x1x8, 4x1x5: 0.80-0.87 of
     4096's time at 1024, bench/notes/cpu.md, "2026-11-30 (15:43-18:43
     UTC)"; then 3x1x1..4 0.85-0.95 of 1024's at 512, both orders, 2x1x8
     and 4x1x5 unchanged, none 0.92-1.29: "2026-12-07 (21:59").
     AVX2's 8-row blocks take f32's 512. Per entry, dot products (one
     column of C; f32, f64, complex): none up to 1280 bytes of A and B, 2048
     past. With none, f64 3x1xK at K = 1..40 (32-1280 bytes) took 0.81-0.99
     of 4096's time, f32 3x1xK at K = 5..64 0.89-0.99, c64 3x1x12 0.93-0.96
     (1 and 2 threads; but c128 3x1x5 1.03-1.09); against 2048 it lost past
     1280: f64 3x1x44, 48 1.05-1.11, 60, 64 1.43-1.55, f32 3x1x96 1.10-1.14,
     f64 2x1x64 1.21-1.27. 2048 against 4096 took f64 3x1x40, 52 to
     0.89-0.94, c64 / c128 3x1x64 0.93-0.96. A tile of C
     (the axpy kernels and small_tile, n > 1): none but f64's 2x2..4x4 of
     run-time k (2048). With none, f32 2^3 took 0.40-0.49 of 2048's time,
     3x3x4..64 0.71-0.96, 12^3, 16^3 0.77-0.96 (1 and 2 threads); f64
     2^3..16^3 0.73-0.95 on one thread, 0.94-1.03 on two; small_tile
     (8x8x32, 12x12x24, 16x16x32) 0.63-0.94 of 4096's time; but f64 3x3x64
     and 4x4x64 1.15-1.74, 3x3x8 and 3x3x16 1.07-1.15 (one thread), small_tile
     f64 5x7x9 1.0-1.12. 1024 did no better than 2048 anywhere. 2 GB calls
     (1 GB on one thread), both orders; bench/notes/cpu.md, "2026-11-30
     (19:20-22:20 UTC)". */
#define BMM__CPU_PF_NEAR_BYTES 160        /* the blocks' border */
#define BMM__CPU_PF_ENTRY_NEAR_BYTES 1280 /* per entry: AMD family 19h's border */
#define BMM__CPU_STR_(x) #x
#define BMM__CPU_STR(x) BMM__CPU_STR_(x) /* a macro's value as a string literal */
/* What a per-entry kernel computes (the AMD 19h rule asks): dot products
   (one column of C), or a tile of C: cpu_small's 2x2..4x4 tiles of run-time
   k (TILE_KANY), the rest (TILE: constant k, and small_tile) */
enum { BMM__CPU_PF_DOTS, BMM__CPU_PF_TILE, BMM__CPU_PF_TILE_KANY };
/* entry_bytes: an entry's bytes of A and B; form: BMM__CPU_PF_* */
static int bmm__cpu_pf_bytes(int vrows, bmm_dtype dt, double entry_bytes, int form) {
#if defined(BMM_CPU_PREFETCH_BYTES)
  (void)vrows, (void)dt, (void)entry_bytes, (void)form;
  return BMM_CPU_PREFETCH_BYTES;
#else
  const int core = bmm__cpu_core();
  if (core == BMM__CORE_OTHER) return vrows ? 16384 : 4096;
  if (!vrows && core == BMM__CORE_INTEL) return 2048;
  if (!vrows && form != BMM__CPU_PF_DOTS)
    return dt == BMM_F64 && form == BMM__CPU_PF_TILE_KANY ? 2048 : 0;
  if (!vrows) return entry_bytes > BMM__CPU_PF_ENTRY_NEAR_BYTES ? 2048 : 0;
  if (core == BMM__CORE_AMD19 && dt == BMM_F32) return 512;
  return entry_bytes <= BMM__CPU_PF_NEAR_BYTES ? 4096 : 1024;
#endif
}
/* whose distance bmm__cpu_pf_bytes gives, and what of the call chose it
   where the core's rule asks (explain): the side of the entry size's border,
   or the tile of C */
static const char *bmm__cpu_pf_source(int vrows, bmm_dtype dt, int form, int dist) {
#if defined(BMM_CPU_PREFETCH_BYTES)
  (void)vrows, (void)dt, (void)form, (void)dist;
  return "BMM_CPU_PREFETCH_BYTES";
#else
  const double border = vrows ? BMM__CPU_PF_NEAR_BYTES : BMM__CPU_PF_ENTRY_NEAR_BYTES;
  const int near = bmm__cpu_pf_bytes(vrows, dt, border, form);
  if (bmm__cpu_core() == BMM__CORE_OTHER) return "the default";
  /* the entry size chooses where the two sides of the border differ */
  if (near != bmm__cpu_pf_bytes(vrows, dt, border + 1, form)) {
    if (vrows)
      return dist == near ? "this core's default for entries of at most " BMM__CPU_STR(
                                BMM__CPU_PF_NEAR_BYTES) " bytes of A and B"
                          : "this core's default for entries of over " BMM__CPU_STR(
                                BMM__CPU_PF_NEAR_BYTES) " bytes of A and B";
    return dist == near
               ? "this core's default for one column of C and entries of at most " BMM__CPU_STR(
                     BMM__CPU_PF_ENTRY_NEAR_BYTES) " bytes of A and B"
               : "this core's default for entries of over " BMM__CPU_STR(
                     BMM__CPU_PF_ENTRY_NEAR_BYTES) " bytes of A and B";
  }
  /* the form chooses where the dots' rule gives another distance on either side */
  if (!vrows && (near != bmm__cpu_pf_bytes(0, dt, border, BMM__CPU_PF_DOTS) ||
                 near != bmm__cpu_pf_bytes(0, dt, border + 1, BMM__CPU_PF_DOTS)))
    return form == BMM__CPU_PF_TILE_KANY &&
                   near != bmm__cpu_pf_bytes(0, dt, border, BMM__CPU_PF_TILE)
               ? "this core's default for f64's 2x2..4x4 tiles of C of run-time k"
               : "this core's default for a tile of C";
  return "this core's default";
#endif
}
/* How far f32's 16-rows path (bmm__cpu_vrows) reaches for m on this core
   (k <= this; m = 1..4): BMM__VK_KS_m, but on AMD family 19h (Zen 4, model
   17) m = 2 to k = 7, 3 to 4, 4 to 5. There the per-entry kernel took
   0.56-0.73 of the blocks' time at 4x1x6..8 out of cache and 0.83-0.88 at
   3x1x5 and 2x1x8 (2 GB calls, 2 threads, both orders, the blocks at their
   1024-byte distance; in cache the blocks were 1.7-5.7x faster at every k
   <= 7); 3x1x4 and 4x1x5 came out even and keep the blocks.
   bench/notes/cpu.md, "2026-11-30 (15:43-18:43 UTC)". */
static int bmm__cpu_vk_kmax(int64_t m) {
#if BMM__CPU_VK_W == 16
  static const int amd19[4] = {8, 7, 4, 5};
  if (m >= 1 && m <= 4 && bmm__cpu_core() == BMM__CORE_AMD19 && amd19[m - 1] < BMM__CPU_VK_KMAX(m))
    return amd19[m - 1];
#endif
  return BMM__CPU_VK_KMAX(m);
}
typedef struct bmm__cpu_pf {
  uintptr_t a, b;   /* the distance past the start of the next entry */
  uintptr_t sa, sb; /* bytes from one entry to the next (B shared: 0) */
  int na, nb;       /* lines asked for an entry: its bytes over 64, rounded up */
} bmm__cpu_pf;
/* A run from entry b0 (its own copy of the pointers: the kernel's stores to
   C would make the compiler reload them from the plan every entry). */
BMM__INLINE bmm__cpu_pf bmm__cpu_pf_init(const bmm_plan *pl, int64_t b0, int dist) {
  const uintptr_t es = (uintptr_t)bmm_dtype_size(pl->dtype);
  bmm__cpu_pf pf;
  pf.sa = (uintptr_t)pl->a.batch_stride[0] * es, pf.sb = (uintptr_t)pl->b.batch_stride[0] * es;
  pf.a = (uintptr_t)pl->a.ptr + (uintptr_t)b0 * pf.sa + (uintptr_t)dist;
  pf.b = (uintptr_t)pl->b.ptr + (uintptr_t)b0 * pf.sb + (uintptr_t)dist;
  pf.na = (int)((pf.sa + 63) / 64), pf.nb = (int)((pf.sb + 63) / 64);
  return pf;
}
/* Before computing the run's next entry: the lines the distance
   ahead of it, the same count every entry (the loops' branches then go the
   same way each time); a line holding the ends of two entries is asked for
   twice. */
BMM__INLINE void bmm__cpu_pf_entry(bmm__cpu_pf *pf) {
  int j;
  for (j = 0; j < pf->na; ++j)
    BMM__PREFETCH((const void *)(pf->a + 64 * (uintptr_t)j));
  for (j = 0; j < pf->nb; ++j)
    BMM__PREFETCH((const void *)(pf->b + 64 * (uintptr_t)j));
  pf->a += pf->sa, pf->b += pf->sb;
}

/* ---- the fixed-size kernels: size lists ------------------------------------
   cpu_small: packed row-major entries (A batch stride m*k, B k*n or 0, C m*n).
   Each kernel has m, n and (where K != 0) k as constants, so the compiler
   unrolls and keeps the whole result tile in registers. Two forms: dot (n ==
   1, m <= 4 dot products over contiguous k) and axpy (C tile += column of A
   times row of B, the tile vectorised over n). K = 0: the run-time k.
   X(FORM, M, N, K, SUFFIX); bmm__cpu_pick takes the first match, so
   constant-k kernels come before the run-time-k kernel of the same shape. */
// clang-format off
/* the seed's k = 5..50 for 3 x 1 products (cpu_small dot, cpu_dot col) */
#define BMM__CPU_SEED_KS(X, FORM)                                                                 \
  X(FORM, 3, 1, 5, 3x1_k5) X(FORM, 3, 1, 10, 3x1_k10) X(FORM, 3, 1, 15, 3x1_k15)                  \
  X(FORM, 3, 1, 20, 3x1_k20) X(FORM, 3, 1, 25, 3x1_k25) X(FORM, 3, 1, 30, 3x1_k30)                \
  X(FORM, 3, 1, 35, 3x1_k35) X(FORM, 3, 1, 40, 3x1_k40) X(FORM, 3, 1, 45, 3x1_k45)                \
  X(FORM, 3, 1, 50, 3x1_k50)
/* The other k < 16 of 3 x 1 (dot only): the run-time-k kernel spends short
   rows in its scalar tail and branches (bench/notes/cpu.md, "short k"). */
#define BMM__CPU_SHORT_KS(X)                                                                      \
  X(dot, 3, 1, 1, 3x1_k1) X(dot, 3, 1, 2, 3x1_k2) X(dot, 3, 1, 3, 3x1_k3)                         \
  X(dot, 3, 1, 4, 3x1_k4) X(dot, 3, 1, 6, 3x1_k6) X(dot, 3, 1, 7, 3x1_k7)                         \
  X(dot, 3, 1, 8, 3x1_k8) X(dot, 3, 1, 9, 3x1_k9) X(dot, 3, 1, 11, 3x1_k11)                       \
  X(dot, 3, 1, 12, 3x1_k12) X(dot, 3, 1, 13, 3x1_k13) X(dot, 3, 1, 14, 3x1_k14)
#define BMM__CPU_SMALL_SHAPES(X)                                                                  \
  BMM__CPU_SEED_KS(X, dot) BMM__CPU_SHORT_KS(X)                                                   \
  X(dot, 1, 1, 0, 1x1_kany) X(dot, 2, 1, 0, 2x1_kany) X(dot, 3, 1, 0, 3x1_kany)                   \
  X(dot, 4, 1, 0, 4x1_kany)                                                                       \
  X(axpy, 2, 2, 2, 2x2_k2) X(axpy, 3, 3, 3, 3x3_k3) X(axpy, 4, 4, 4, 4x4_k4)                      \
  X(axpy, 5, 5, 5, 5x5_k5) X(axpy, 6, 6, 6, 6x6_k6) X(axpy, 7, 7, 7, 7x7_k7)                      \
  X(axpy, 8, 8, 8, 8x8_k8) X(axpy, 9, 9, 9, 9x9_k9) X(axpy, 10, 10, 10, 10x10_k10)                \
  X(axpy, 11, 11, 11, 11x11_k11) X(axpy, 12, 12, 12, 12x12_k12) X(axpy, 13, 13, 13, 13x13_k13)    \
  X(axpy, 14, 14, 14, 14x14_k14) X(axpy, 15, 15, 15, 15x15_k15) X(axpy, 16, 16, 16, 16x16_k16)    \
  X(axpy, 2, 2, 0, 2x2_kany) X(axpy, 3, 3, 0, 3x3_kany) X(axpy, 4, 4, 0, 4x4_kany)
/* cpu_dot's short-column kernels (col_a: m = 2..4 rows of A stored as
   columns). N = 1: packed entries (acs = m, n = 1, b contiguous); N = 0: any
   strides and n. */
#define BMM__CPU_COL_SHAPES(X)                                                                    \
  BMM__CPU_SEED_KS(X, col)                                                                        \
  X(col, 2, 1, 0, 2x1_kany) X(col, 3, 1, 0, 3x1_kany) X(col, 4, 1, 0, 4x1_kany)                   \
  X(col, 2, 0, 0, 2xn_kany) X(col, 3, 0, 0, 3xn_kany) X(col, 4, 0, 0, 4xn_kany)
// clang-format on

/* ---- cpu_blocked's constants ----------------------------------------------
   rows per tile: 2*MR vector sums + 2 of B + 1 of A in the register file
   (16 registers: 6; AVX-512's 32: 8, so a 32-row C is 4 whole tiles and each
   B row loaded serves 8 rows; bench/notes/cpu.md, "blocked tile rows") */
#if BMM__CPU_VREGS >= 32
#define BMM__BLK_MR 8
#define BMM__BLK_TILE_ROWS(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8)
/* and R x 4-vector tiles where B is read in place: 4 R sums + 4 of B + 1 of
   A, R <= 6 (29 registers). 24 sums, not 16, hide more of the FMA latency:
   1.03-1.19x the 8 x 2 tile's rate at 64^3..256^3 in cache on an Intel Xeon
   (bench/notes/cpu.md, "6 x 4 tiles") */
#define BMM__BLK_MR4 6
#define BMM__BLK_TILE4_ROWS(X) X(1) X(2) X(3) X(4) X(5) X(6)
#define BMM__BLK_NV4 BMM__CPU_VEXT
#else
#define BMM__BLK_NV4 0
#define BMM__BLK_MR 6
#define BMM__BLK_TILE_ROWS(X) X(1) X(2) X(3) X(4) X(5) X(6)
#endif
#define BMM__BLK_KC 256
/* k*n*sizeof(T) up to which B is read in place (fits the 1-2 MiB L2); twice
   that in cache (bmm__cpu_blk_in_place) */
#define BMM__BLK_INPLACE_BYTES (256 * 1024)
#define BMM__BLK_NC 256
/* rows of C per work unit when B is read in place (a multiple of MR) */
#define BMM__BLK_MB 96
/* rows of C per work unit at most when B is packed and k > KC: the unit
   holds their sums over k in scratch, NC elements a row for MH rows rounded
   up to whole MR-row tiles (BMM__BLK_MH_ROWS: MR = 6 does not divide 512).
   Each unit packs B again, so 512 rather than 480: a 1024-row C is two units,
   not three (480 + 480 + 64), and a 512-row one a single unit (Zen 5, 512^3
   f64 0.91-0.92x the time with the request in blk_pack, 0.97-0.98x with the
   request alone; bench/notes/cpu.md, "blocked: B's packing") */
#define BMM__BLK_MH 512
#define BMM__BLK_MH_ROWS ((BMM__BLK_MH + BMM__BLK_MR - 1) / BMM__BLK_MR * BMM__BLK_MR)
/* a packed call with fewer (entry, column block) units splits its rows too,
   where it runs on more than one thread */
#define BMM__BLK_FEW_UNITS 16
/* Work units of a call: one per batch entry, NC-column block of C (B packed:
   the jc loop) and row block, so a small batch of big products still spreads
   over the threads (5 square1024 entries otherwise ran on 2 threads as 3 + 2
   whole entries). Row blocks are MB rows when B is read in place; a packed
   unit packs its own B blocks, so there rows are split only as far as needed
   for BMM__BLK_FEW_UNITS units, never below MB (re-packing then costs ~1/MB
   of the multiply-adds), and not at all on one thread (`threads`: the most
   the call may use; each row block packed B again: 256^3 f64 in cache ran
   1.3x LIBXSMM's time), and with k > KC to at most MH rows (the unit holds
   their sums). bmm__cpu_pick decides the rows (bmm__cpu_choice.rows), the
   kernel reads them. The split never changes a result's bits: every element
   is the same tile sum whatever unit has it. */
static int bmm__cpu_blk_in_place(const bmm_plan *pl, int sz) {
  /* B in place up to BMM__BLK_INPLACE_BYTES, and up to twice that where the
     call stays in cache and one KC block holds k (the packed path's sums
     then: the same bits whatever the batch). Packing such a B per entry cost
     in cache: in place ran 0.93-0.99 of the time at 1 thread (256^3 f64,
     192^3 f64, 64..128 x 256 x 256 f64); out of cache, 1.00-1.09x (Zen 5;
     bench/notes/cpu.md, "blocked: B in place up to 512 KiB in cache") */
  const double bb = (double)pl->k * (double)pl->n * sz;
  return pl->b.col_stride == 1 &&
         (bb <= BMM__BLK_INPLACE_BYTES ||
          (bb <= 2 * BMM__BLK_INPLACE_BYTES && pl->k <= BMM__BLK_KC && !bmm__cpu_big(pl)));
}
static int64_t bmm__cpu_blk_cblocks(const bmm_plan *pl, int sz) {
  return bmm__cpu_blk_in_place(pl, sz) ? 1 : bmm__ceil_div(pl->n, BMM__BLK_NC);
}
static int64_t bmm__cpu_blk_rows(const bmm_plan *pl, int sz, int threads) {
  double units = (double)pl->batch * (double)bmm__cpu_blk_cblocks(pl, sz);
  int64_t want, rows;
  if (bmm__cpu_blk_in_place(pl, sz)) return BMM__BLK_MB;
  /* no units (an empty batch or n = 0) is no work: any row count, and no
     division by zero below */
  if (units >= BMM__BLK_FEW_UNITS || units < 1 || threads <= 1) {
    rows = pl->m > 0 ? pl->m : 1;
  } else {
    want = (int64_t)((BMM__BLK_FEW_UNITS + units - 1) / units);
    rows = bmm__ceil_div(pl->m, want);
    rows = bmm__ceil_div(rows, BMM__BLK_MR) * BMM__BLK_MR;
    rows = rows > BMM__BLK_MB ? rows : BMM__BLK_MB;
  }
  /* a unit holds its rows' sums over k in scratch */
  return pl->k > BMM__BLK_KC && rows > BMM__BLK_MH ? BMM__BLK_MH : rows;
}
/* cpu_blocked's next entry: ask for the lines of a (na bytes) and b (nb)
   from *pa and *pb up to the fraction f of each; l2 (bmm__cpu_choice.pf_l2):
   into L2 only */
BMM__INLINE void bmm__cpu_pf_line(const char *p, int l2) {
  if (l2) /* a constant where inlined: one form of the loops below */
    BMM__PREFETCH_L2(p);
  else
    BMM__PREFETCH(p);
}
BMM__INLINE void bmm__cpu_pf_part(const char *a, int64_t *pa, int64_t na, const char *b,
                                  int64_t *pb, int64_t nb, double f, int l2) {
  const int64_t ea = (int64_t)(f * (double)na), eb = (int64_t)(f * (double)nb);
  for (; *pa < ea; *pa += 64)
    bmm__cpu_pf_line(a + *pa, l2);
  for (; *pb < eb; *pb += 64)
    bmm__cpu_pf_line(b + *pb, l2);
}
static int64_t bmm__cpu_blk_units(const bmm_plan *pl, int sz, int64_t rows) {
  return bmm__ceil_div(pl->m, rows) * bmm__cpu_blk_cblocks(pl, sz);
}
/* How cpu_blocked's in-place unit of L rows cuts them into row blocks of at
   most st rows: cnt[0] blocks of h[0] rows, then cnt[1] of h[1]. Blocks of st
   rows and the rest in the last one; or, where that last one would have under
   half the rows, the rows spread evenly (32 rows: 6 6 5 5 5 5, not 6 6 6 6 6
   2, whose 2-row tile keeps too few sums in flight to hide the FMA latency):
   in cache 0.97 of the time at 32 x 32 f64 and 32 x 64. Not where the next
   entry is prefetched: there 1.07-1.17x (f64, Zen 5; bench/notes/cpu.md,
   "blocked: even row blocks"). Cut once per call: the divisions per unit
   cost (bench/notes/cpu.md, "blocked: one call a row of tiles"). */
typedef struct bmm__cpu_cut {
  int64_t h[2], cnt[2];
} bmm__cpu_cut;
BMM__INLINE bmm__cpu_cut bmm__cpu_blk_cut(int64_t L, int64_t st, int prefetch) {
  bmm__cpu_cut c;
  const int64_t rem = L > 0 ? L % st : 0, nblk = L > 0 ? bmm__ceil_div(L, st) : 0;
  c.h[0] = st, c.cnt[0] = L > 0 ? L / st : 0, c.h[1] = rem, c.cnt[1] = rem > 0;
  if (rem && 2 * rem < st && !prefetch) /* evenly: q + 1 rows, then q */
    c.h[0] = L / nblk + 1, c.cnt[0] = L % nblk, c.h[1] = L / nblk, c.cnt[1] = nblk - c.cnt[0];
  return c;
}

/* cpu_blocked's entries of these sizes (M, N, K), A, B and C packed row-major,
   run by a copy of the in-place panels whose sizes and strides are
   compile-time constants (BMM__FN(blk_fixed)), as LIBXSMM generates a kernel
   per shape. The same tiles and sums, so the same bits. The run-time tiles
   took 32^3 f32 in cache to 1.04-1.07x LIBXSMM's time; the copy runs it in
   0.95-0.96 of theirs, 1 and 2 threads, and 32x64x32, 32^3 f64 in 0.95-0.98
   (AMD family 19h; bench/notes/cpu.md, "Fixed sizes"). */
#define BMM__CPU_BLK_SIZES(X) X(32, 32, 32) X(32, 64, 32) X(64, 64, 64)
#define BMM__CPU_BLK_SIZE_ROW(M, N, K) {M, N, K},
static const int bmm__cpu_blk_sizes[][3] = {BMM__CPU_BLK_SIZES(BMM__CPU_BLK_SIZE_ROW)};
#undef BMM__CPU_BLK_SIZE_ROW
/* 1 + the index of pl's size in BMM__CPU_BLK_SIZES where its A, B and C are
   packed row-major, else 0 */
static int bmm__cpu_blk_fixed(const bmm_plan *pl) {
  int i;
  if (pl->a.col_stride != 1 || pl->a.row_stride != pl->k || pl->b.col_stride != 1 ||
      pl->b.row_stride != pl->n || pl->c.col_stride != 1 || pl->c.row_stride != pl->n)
    return 0;
  for (i = 0; i < (int)(sizeof bmm__cpu_blk_sizes / sizeof bmm__cpu_blk_sizes[0]); ++i)
    if (pl->m == bmm__cpu_blk_sizes[i][0] && pl->n == bmm__cpu_blk_sizes[i][1] &&
        pl->k == bmm__cpu_blk_sizes[i][2])
      return i + 1;
  return 0;
}

/* cpu_batch_simd: batch entries per work unit */
#define BMM__BS_CHUNK 256

/* ---- the kernels, and the pick that chooses one ----------------------------
   Every kernel a call can run, by name; the kernel section defines
   BMM__FN(<name>) for each (NULL where the target has none). XANY(NAME): in
   both sections (real and complex); X(NAME): real dtypes only; XCOL/XSMALL(
   FORM, M, N, K, SUFFIX) over the size lists (real); XC(NAME): complex only. */
/* Complex cpu_small: fixed-size square kernels, M = 2..8 (SU(2)/SU(3) link
   products, spinor and transfer matrices; 5..8 ran 1.2-3.8x faster than the
   row kernel). X(A, M) per size, A passed through (the kernel list's XC). */
#define BMM__CPU_CSMALL_SIZES(X, A) X(A, 2) X(A, 3) X(A, 4) X(A, 5) X(A, 6) X(A, 7) X(A, 8)
#define BMM__CPU_CSMALL_NAME(XC, M) XC(c_small_##M##x##M##x##M)
// clang-format off
#define BMM__CPU_KERNELS(XANY, X, XCOL, XSMALL, XC)                                                \
  XANY(scale) XANY(ref) X(dot_rows) X(dot_cols) X(dot_contig) X(dot_strided)                       \
  BMM__CPU_COL_SHAPES(XCOL) BMM__CPU_SMALL_SHAPES(XSMALL) X(small_tile) X(blocked)               \
  X(batch_simd)                                                                                    \
  XC(c_dot) XC(c_dotv) XC(c_rows) XC(c_blocked)                                                    \
  BMM__CPU_CSMALL_SIZES(BMM__CPU_CSMALL_NAME, XC) XC(c_batch)
// clang-format on
#define BMM__CPU_KID(NAME) BMM__CPU_K_##NAME,
#define BMM__CPU_KID_COL(FORM, M, N, K, SUFFIX) BMM__CPU_K_dot_col_##SUFFIX,
#define BMM__CPU_KID_SMALL(FORM, M, N, K, SUFFIX) BMM__CPU_K_small_##FORM##_##SUFFIX,
enum {
  BMM__CPU_KERNELS(BMM__CPU_KID, BMM__CPU_KID, BMM__CPU_KID_COL, BMM__CPU_KID_SMALL, BMM__CPU_KID)
      BMM__CPU_KERNEL_COUNT
};
#define BMM__CPU_KNAME(NAME) #NAME,
#define BMM__CPU_KNAME_COL(FORM, M, N, K, SUFFIX) "dot_col_" #SUFFIX,
#define BMM__CPU_KNAME_SMALL(FORM, M, N, K, SUFFIX) "small_" #FORM "_" #SUFFIX,
static const char *const bmm__cpu_kernel_names[BMM__CPU_KERNEL_COUNT] = {BMM__CPU_KERNELS(
    BMM__CPU_KNAME, BMM__CPU_KNAME, BMM__CPU_KNAME_COL, BMM__CPU_KNAME_SMALL, BMM__CPU_KNAME)};

/* Does the dtype run kernel kid on its own elements, converting in registers
   (BMM__CPU_FUSED_*)? cpu_small's dot form only: its rows are short and
   contiguous, so a load of 4 halves is a load of 4 f32 lanes. */
#define BMM__CPU_IS_DOT_dot 1
#define BMM__CPU_IS_DOT_axpy 0
#define BMM__CPU_KDOT(NAME) 0,
#define BMM__CPU_KDOT_COL(FORM, M, N, K, SUFFIX) 0,
#define BMM__CPU_KDOT_SMALL(FORM, M, N, K, SUFFIX) BMM__CPU_IS_DOT_##FORM,
static int bmm__cpu_small_dot(int kid) {
  static const unsigned char dot[BMM__CPU_KERNEL_COUNT] = {BMM__CPU_KERNELS(
      BMM__CPU_KDOT, BMM__CPU_KDOT, BMM__CPU_KDOT_COL, BMM__CPU_KDOT_SMALL, BMM__CPU_KDOT)};
  return kid >= 0 && kid < BMM__CPU_KERNEL_COUNT && dot[kid];
}
static int bmm__cpu_fused(bmm_dtype dt, int kid) {
  const int on = dt == BMM_F16 ? BMM__CPU_FUSED_f16 : dt == BMM_BF16 ? BMM__CPU_FUSED_bf16 : 0;
  return on && bmm__cpu_small_dot(kid);
}
#undef BMM__CPU_KDOT
#undef BMM__CPU_KDOT_COL
#undef BMM__CPU_KDOT_SMALL

/* Does kernel kid walk its entries as the choice's interleaved runs
   (BMM__CPU_STREAM_AT)? cpu_small's and the short-column kernels do. */
#define BMM__CPU_KRUN(NAME) 0,
#define BMM__CPU_KRUN_SHAPE(FORM, M, N, K, SUFFIX) 1,
static int bmm__cpu_walks_streams(int kid) {
  static const unsigned char runs[BMM__CPU_KERNEL_COUNT] = {BMM__CPU_KERNELS(
      BMM__CPU_KRUN, BMM__CPU_KRUN, BMM__CPU_KRUN_SHAPE, BMM__CPU_KRUN_SHAPE, BMM__CPU_KRUN)};
  return kid >= 0 && kid < BMM__CPU_KERNEL_COUNT && runs[kid];
}
#undef BMM__CPU_KRUN
#undef BMM__CPU_KRUN_SHAPE

/* What a call runs, decided by bmm__cpu_pick before any work. */
typedef struct bmm__cpu_choice {
  int kernel;      /* BMM__CPU_K_* */
  int64_t units;   /* work units the kernel's range covers */
  int threads;     /* threads the units are split over */
  int stream;      /* C stored by non-temporal stores (bmm__cpu_stream_c) */
  const char *why; /* why this kernel */
  const char *pin; /* the rule's kernel= did not apply: why (NULL: no pin, or it ran) */
  int64_t chunk;   /* > 0: a converted dtype (f16, bf16), run by the f32 `kernel` over
                      chunks of this many batch entries copied to f32 (bmm__cpu_convert_*);
                      units are then chunks */
  int fused;       /* a converted dtype read by `kernel` itself (bmm__cpu_fused) */
  int vrows;       /* ... by cpu_small's dot form 16 (8) rows of C to a vector (bmm__cpu_vrows) */
  int streams;     /* interleaved runs of entries per thread (BMM__CPU_STREAM_AT) */
  int prefetch;    /* out of cache, nonzero: cpu_blocked asks for the next entry's A and
                      B, the fixed-size kernels for A and B this many bytes ahead
                      (bmm__cpu_pf_bytes) */
  int pf_none;     /* out of cache, a fixed-size kernel's A and B left to the hardware
                      prefetchers: the distance for this call is 0 (explain) */
  int pf_l2;       /* cpu_blocked's prefetch into L2 only (bmm__cpu_blk_pf_l2) */
  int rowseq;      /* cpu_small's dot kernels sum A's rows one after another
                      (bmm__cpu_rowseq), not side by side */
  int64_t rows;    /* cpu_blocked: rows of C per unit (bmm__cpu_blk_rows) */
  int fixed;       /* cpu_blocked: whole entries of a size in BMM__CPU_BLK_SIZES
                      (bmm__cpu_blk_fixed), nothing asked for ahead */
  int cview;       /* c_blocked: the blocked kernel runs the call's real view
                      (bmm__cpu_cview_plan) and packs B' from the complex B */
} bmm__cpu_choice;
/* its fields by type, for the copy a plan keeps (bmm__cpu_plan_keep); the
   size check fails to compile where a field is added but not listed */
// clang-format off
#define BMM__CPU_CHOICE_INTS(X) \
  X(kernel) X(threads) X(stream) X(fused) X(vrows) X(streams) X(prefetch) X(pf_none) X(pf_l2) \
  X(rowseq) X(fixed) X(cview)
#define BMM__CPU_CHOICE_I64S(X) X(units) X(chunk) X(rows)
#define BMM__CPU_CHOICE_STRS(X) X(why) X(pin)
#define BMM__CPU_COUNT_FIELD(f) +1
#define BMM__CPU_CHOICE_INT_N (0 BMM__CPU_CHOICE_INTS(BMM__CPU_COUNT_FIELD))
#define BMM__CPU_CHOICE_I64_N (0 BMM__CPU_CHOICE_I64S(BMM__CPU_COUNT_FIELD))
#define BMM__CPU_CHOICE_STR_N (0 BMM__CPU_CHOICE_STRS(BMM__CPU_COUNT_FIELD))
typedef char bmm__cpu_choice_listed[sizeof(bmm__cpu_choice) <=
    BMM__CPU_CHOICE_INT_N * sizeof(int) + BMM__CPU_CHOICE_I64_N * 8 +
    BMM__CPU_CHOICE_STR_N * sizeof(char *) + 8 ? 1 : -1];
/* a plan's words: the key, whether C's pointer counted, then the fields
   from word BMM__CPU_KEPT_AT on, the INTS first (kernel there) */
enum { BMM__CPU_KEPT_KEY, BMM__CPU_KEPT_PTR, BMM__CPU_KEPT_AT };
typedef char bmm__cpu_choice_kept[BMM__CPU_KEPT_AT + BMM__CPU_CHOICE_INT_N + BMM__CPU_CHOICE_I64_N +
    BMM__CPU_CHOICE_STR_N <= BMM_PLAN_PRIVATE_WORDS ? 1 : -1];
// clang-format on

/* Work on units [u0, u1) (batch entries, or batch chunks). */
typedef void (*bmm__cpu_range_fn)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t u0,
                                  int64_t u1);

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

/* Threads for `units` work units: the OpenMP threads, capped by
   BMM_CPU_THREADS, the rule's `threads`, the work (BMM__CPU_MIN_WORK each) and
   the units; 1 without OpenMP or inside a caller's parallel region. */
static int bmm__cpu_threads(const bmm_plan *pl, int64_t units) {
#ifdef _OPENMP
  double work = (double)pl->batch * ((double)pl->m * (double)pl->n * (double)(pl->k + 1) +
                                     (double)pl->k * (double)(pl->m + pl->n));
  int64_t nt = omp_get_max_threads(), cap = bmm__cpu_env_threads();
  if (cap > 0 && nt > cap) nt = cap;
  if (pl->rule.threads > 0 && nt > pl->rule.threads) nt = pl->rule.threads;
  if ((double)nt > work / BMM__CPU_MIN_WORK) nt = (int64_t)(work / BMM__CPU_MIN_WORK);
  if (nt > units) nt = units;
  return nt > 1 && !omp_in_parallel() ? (int)nt : 1;
#else
  (void)pl, (void)units;
  return 1;
#endif
}

/* cpu_dot's loop order: the one whose innermost loop is unit-stride.
   contig (A rows and B columns contiguous in k: dot products with W partial
   sums), rows (B rows contiguous: C row += a * B row, vectorised over n),
   cols (A columns contiguous: C column += A column * b, vectorised over m),
   else strided dot products. Where several apply, the longest vector wins;
   vectors shorter than BMM__CPU_DOT_W cost more in loop overhead than they
   save. */
static void bmm__cpu_pick_dot_form(const bmm_plan *pl, bmm__cpu_choice *c) {
  int64_t best = 0;
  c->kernel = BMM__CPU_K_dot_strided;
  c->why = "no unit-stride loop of 8 or more: strided dot products";
  if (pl->a.col_stride == 1 && pl->b.row_stride == 1)
    c->kernel = BMM__CPU_K_dot_contig, best = pl->k,
    c->why = "A rows and B columns contiguous: dot products over k";
  if (pl->b.col_stride == 1 && pl->n > best)
    c->kernel = BMM__CPU_K_dot_rows, best = pl->n,
    c->why = "B rows contiguous and n the longest: C row += a * B row";
  if (pl->a.row_stride == 1 && pl->m > best)
    c->kernel = BMM__CPU_K_dot_cols, best = pl->m,
    c->why = "A columns contiguous and m the longest: C column += A column * b";
  if (best < BMM__CPU_DOT_W) {
    c->kernel = BMM__CPU_K_dot_strided;
    c->why = "no unit-stride loop of 8 or more: strided dot products";
  }
}

/* Can small_tile (cpu_small's run-time tile) run the call? Vectors along
   rows of B and C, n = 2..16; or n = 1 with vector extensions, rows of A and
   the column of B contiguous (the dot kernels' body, 4 rows at a time).
   Under cpu_dot n >= 2 also needs k up to BMM__CPU_TILE_MAX_K: its sums are
   R rows by 1 or 2 vectors, so a long k with few of them waits on each FMA's
   latency where dot_contig's 8 partial sums do not. */
#define BMM__CPU_TILE_MAX_K 256
static int bmm__cpu_tile_fits(const bmm_plan *pl) {
  if (pl->n == 1) return BMM__CPU_VEXT && pl->a.col_stride == 1 && pl->b.row_stride == 1;
  return pl->n >= 2 && pl->n <= 16 && pl->b.col_stride == 1 && pl->c.col_stride == 1;
}

/* The fixed-size kernel for (m, n, k) in a size list: the first match. */
typedef struct bmm__cpu_shape {
  int kernel, m, n, k; /* n 0: any n; k 0: any k */
} bmm__cpu_shape;
#define BMM__CPU_SHAPE_COL(FORM, M, N, K, SUFFIX) {BMM__CPU_K_dot_col_##SUFFIX, M, N, K},
#define BMM__CPU_SHAPE_SMALL(FORM, M, N, K, SUFFIX) {BMM__CPU_K_small_##FORM##_##SUFFIX, M, N, K},
static const bmm__cpu_shape bmm__cpu_col_shapes[] = {BMM__CPU_COL_SHAPES(BMM__CPU_SHAPE_COL)};
static const bmm__cpu_shape bmm__cpu_small_shapes[] = {BMM__CPU_SMALL_SHAPES(BMM__CPU_SHAPE_SMALL)};
static int bmm__cpu_find_shape(const bmm__cpu_shape *s, int count, int64_t m, int64_t n,
                               int64_t k) {
  int i;
  for (i = 0; i < count; ++i)
    if (s[i].m == m && (s[i].n == 0 || s[i].n == n) && (s[i].k == 0 || s[i].k == k))
      return s[i].kernel;
  return -1;
}

/* The kernel a rule pins by name (kernel=NAME), or -1. */
static int bmm__cpu_kernel_index(const char *name) {
  int i;
  for (i = 0; i < BMM__CPU_KERNEL_COUNT; ++i)
    if (strcmp(bmm__cpu_kernel_names[i], name) == 0) return i;
  return -1;
}

static const bmm__cpu_shape *bmm__cpu_shape_of(const bmm__cpu_shape *s, int count, int kid) {
  int i;
  for (i = 0; i < count; ++i)
    if (s[i].kernel == kid) return &s[i];
  return NULL;
}

/* ---- complex as real: the real view (c_blocked) ---------------------------
   With alpha and beta real and the columns of A and C contiguous, a complex
   product is a real one: A as a real m x 2k matrix (each row's parts in
   order), C as m x 2n, and B as the real 2k x 2n matrix B' whose 2 x 2 block
   (l, j) is [br bi; -bi br] for b = B[l][j] (conj flags fold in as signs:
   bmm__cpu_blk_pack_cview). A part of C is then a real dot product of 2k
   terms, the very products the complex kernels form (the README's bound),
   and the real blocked tiles (f32 for c64, f64 for c128) run it at the real
   dtype's speed; B' exists only in the blocked kernel's packed panels.
   A complex alpha or beta mixes the parts after the sums: not a real
   product, the row kernels take those. */
/* |v| * 2 fits int64 (the view doubles n, k and every stride; a stride of a
   size-1 dimension is never used, so validation lets it be anything: the
   fuzzer found 2^62) */
static int bmm__cpu_doubles(int64_t v) { return v <= INT64_MAX / 2 && v >= -(INT64_MAX / 2); }
static int bmm__cpu_cview_ok(const bmm_plan *pl) {
  int d, fits = bmm__cpu_doubles(pl->n) && bmm__cpu_doubles(pl->k) &&
                bmm__cpu_doubles(pl->a.row_stride) && bmm__cpu_doubles(pl->b.row_stride) &&
                bmm__cpu_doubles(pl->b.col_stride) && bmm__cpu_doubles(pl->c.row_stride);
  for (d = 0; d < BMM_MAX_BATCH_DIMS; ++d)
    fits = fits && bmm__cpu_doubles(pl->a.batch_stride[d]) &&
           bmm__cpu_doubles(pl->b.batch_stride[d]) && bmm__cpu_doubles(pl->c.batch_stride[d]);
  return fits && pl->alpha_im == 0.0 && pl->beta_im == 0.0 && pl->a.col_stride == 1 &&
         pl->c.col_stride == 1;
}
/* The real plan of a complex call (bmm__cpu_cview_ok): strides in parts, B's
   the strides of its complex elements (the pack reads both parts of each),
   so B's column stride is even and never the 1 of an in-place B
   (bmm__cpu_blk_in_place). The conj flags stay: the pack reads them. */
static bmm_plan bmm__cpu_cview_plan(const bmm_plan *pl) {
  bmm_plan q = *pl;
  int d;
  q.dtype = pl->dtype == BMM_C64 ? BMM_F32 : BMM_F64;
  q.n = 2 * pl->n, q.k = 2 * pl->k;
  q.a.row_stride *= 2, q.b.row_stride *= 2, q.b.col_stride *= 2, q.c.row_stride *= 2;
  for (d = 0; d < BMM_MAX_BATCH_DIMS; ++d)
    q.a.batch_stride[d] *= 2, q.b.batch_stride[d] *= 2, q.c.batch_stride[d] *= 2;
  q.strategy = BMM_CPU_BLOCKED;
  return q;
}

/* Can c_dotv (complex dot products in vectors over k) run the call? */
static int bmm__cpu_cdotv_fits(const bmm_plan *pl) {
  return BMM__CPU_VEXT && pl->a.col_stride == 1 && pl->b.row_stride == 1;
}

/* Why a pinned complex kernel cannot run this call (NULL: it can): the
   complex pick's own conditions (bmm__cpu_pick_complex). */
static const char *bmm__cpu_pin_misfit_complex(const bmm_plan *pl, int kid) {
  const bmm_strategy s = pl->strategy;
  const int rows_family = s == BMM_CPU_DOT || s == BMM_CPU_SMALL || s == BMM_CPU_BLOCKED;
  const char *name = bmm__cpu_kernel_names[kid];
  if (kid == BMM__CPU_K_ref) return s == BMM_CPU_REF ? NULL : "ref runs only under cpu_ref";
  if (s == BMM_CPU_REF) return "cpu_ref runs only ref";
  if (kid == BMM__CPU_K_scale) return "scale runs only where A*B does not count";
  if (strncmp(name, "c_", 2) != 0) return "real kernels run only for real dtypes";
  if (kid == BMM__CPU_K_c_batch)
    return s == BMM_CPU_BATCH_SIMD ? NULL : "c_batch runs only under cpu_batch_simd";
  if (kid == BMM__CPU_K_c_blocked)
    return s != BMM_CPU_BLOCKED && s != BMM_CPU_SMALL
               ? "c_blocked runs under cpu_blocked or cpu_small"
           : bmm__cpu_cview_ok(pl)
               ? NULL
               : "c_blocked needs alpha and beta real, A's and C's columns contiguous and "
                 "strides under 2^62";
  if (!rows_family) return "complex row kernels run under cpu_dot, cpu_small or cpu_blocked";
  if (kid == BMM__CPU_K_c_dot) return NULL;
  if (kid == BMM__CPU_K_c_dotv)
    return bmm__cpu_cdotv_fits(pl) ? NULL
           : BMM__CPU_VEXT         ? "c_dotv needs A rows and B columns contiguous"
                                   : "c_dotv is not built without vector extensions";
  if (kid == BMM__CPU_K_c_rows)
    return pl->b.col_stride == 1 ? NULL : "c_rows needs B rows contiguous";
  /* c_small_MxMxM: packed entries, which cpu_small's claim promises */
  if (s != BMM_CPU_SMALL) return "c_small kernels run only under cpu_small";
  return pl->m == pl->n && pl->n == pl->k && strtol(name + 8, NULL, 10) == pl->m
             ? NULL
             : "the kernel is built for another shape";
}

/* Why a pinned kernel cannot run this call (NULL: it can). A kernel runs
   only inside the strategies whose pick may choose it, and only where the
   pick's own conditions for it hold, so a pin never reaches a kernel on
   data it does not handle; the pick then stands and explain says why. */
static const char *bmm__cpu_pin_misfit(const bmm_plan *pl, int kid) {
  const bmm_strategy s = pl->strategy;
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  const bmm__cpu_shape *sh;
  const int dot_family = s == BMM_CPU_DOT || s == BMM_CPU_SMALL;
  if (!pl->use_ab) return "alpha = 0 or k = 0 always runs the C = beta*C + bias pass";
  if (bmm_dtype_is_complex(pl->dtype)) return bmm__cpu_pin_misfit_complex(pl, kid);
  if (strncmp(bmm__cpu_kernel_names[kid], "c_", 2) == 0)
    return "complex kernels run only for complex dtypes";
  if (kid == BMM__CPU_K_ref) return s == BMM_CPU_REF ? NULL : "ref runs only under cpu_ref";
  if (s == BMM_CPU_REF) return "cpu_ref runs only ref";
  if (kid == BMM__CPU_K_scale) return "scale runs only where A*B does not count";
  if (kid == BMM__CPU_K_blocked)
    return s == BMM_CPU_BLOCKED || s == BMM_CPU_SMALL
               ? NULL
               : "blocked runs under cpu_blocked or cpu_small";
  if (kid == BMM__CPU_K_small_tile)
    return !dot_family               ? "small_tile runs under cpu_dot or cpu_small"
           : !bmm__cpu_tile_fits(pl) ? "small_tile needs n = 2..16 and B and C rows contiguous, "
                                       "or n = 1, A rows and the B column contiguous"
                                     : NULL;
  if (kid == BMM__CPU_K_batch_simd)
    return s == BMM_CPU_BATCH_SIMD ? NULL : "batch_simd runs only under cpu_batch_simd";
  if (kid == BMM__CPU_K_dot_strided)
    return dot_family ? NULL : "dot forms run under cpu_dot or cpu_small";
  if (kid == BMM__CPU_K_dot_contig)
    return !dot_family ? "dot forms run under cpu_dot or cpu_small"
           : pl->a.col_stride == 1 && pl->b.row_stride == 1
               ? NULL
               : "dot_contig needs A rows and B columns contiguous";
  if (kid == BMM__CPU_K_dot_rows)
    return !dot_family             ? "dot forms run under cpu_dot or cpu_small"
           : pl->b.col_stride == 1 ? NULL
                                   : "dot_rows needs B rows contiguous";
  if (kid == BMM__CPU_K_dot_cols)
    return !dot_family             ? "dot forms run under cpu_dot or cpu_small"
           : pl->a.row_stride == 1 ? NULL
                                   : "dot_cols needs A columns contiguous";
  sh = bmm__cpu_shape_of(bmm__cpu_col_shapes,
                         (int)(sizeof bmm__cpu_col_shapes / sizeof bmm__cpu_col_shapes[0]), kid);
  if (sh) {
    if (s != BMM_CPU_DOT) return "dot_col kernels run only under cpu_dot";
    if (!BMM__CPU_VEXT) return "dot_col kernels are not built without vector extensions";
    if (pl->a.row_stride != 1 || m != sh->m || pl->a.col_stride < m)
      return "dot_col kernels need m columns of A, contiguous, of the kernel's m";
    if (sh->n == 1 && !(pl->a.col_stride == m && n == 1 && pl->b.row_stride == 1))
      return "this dot_col kernel needs packed A columns, n = 1 and B contiguous";
    return sh->k && sh->k != k ? "the kernel is built for another k" : NULL;
  }
  sh =
      bmm__cpu_shape_of(bmm__cpu_small_shapes,
                        (int)(sizeof bmm__cpu_small_shapes / sizeof bmm__cpu_small_shapes[0]), kid);
  if (sh) {
    if (s != BMM_CPU_SMALL) return "small kernels run only under cpu_small";
    return sh->m == m && (sh->n == 0 || sh->n == n) && (sh->k == 0 || sh->k == k)
               ? NULL
               : "the kernel is built for another shape";
  }
  return "no such kernel in this build";
}

/* Does the real view beat the row kernels? From 6 rows of C and 3 columns,
   with vector extensions. Each entry packs its B' (4 k n parts) for m rows:
   below 6 rows that is paid for too few multiply-adds (c64 4x64x64 and
   5x64x64 1.3-1.5x c_rows' time, 6x64x64 even, 16x16x16 0.34x); 1 or 2
   columns are 2 or 4 parts, a tile's padded right edge (16x1x16, 8x2x8
   1.3-1.7x c_dot's time; 16x3x16 0.54-0.64x). The scalar tiles of a build
   without vector extensions ran 2-4x c_rows' time (Intel VM, 2026-11-27;
   bench/notes/cpu.md, "complex: the real view"). */
static int bmm__cpu_cview_pays(const bmm_plan *pl) {
  return BMM__CPU_VEXT && pl->m >= 6 && pl->n >= 3;
}

/* Complex dtypes: their own kernels (the section for complex below), the
   same units and threads as the real ones. cpu_small: the fixed-size squares
   of BMM__CPU_CSMALL_SIZES; cpu_blocked and cpu_small's other shapes: the
   real view (c_blocked) where it applies and pays (bmm__cpu_cview_pays);
   else the row kernel (B rows contiguous) or dot products. */
static void bmm__cpu_pick_complex(const bmm_plan *pl, bmm__cpu_choice *c) {
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  const int rows = pl->b.col_stride == 1 && n >= 4;
  const int tiles = pl->strategy == BMM_CPU_BLOCKED || pl->strategy == BMM_CPU_SMALL;
  int small = -1;
  c->kernel = rows ? BMM__CPU_K_c_rows : BMM__CPU_K_c_dot;
  c->why = rows ? "B rows contiguous, n >= 4: C row += a * B row (complex)"
                : "complex dot products, any strides";
  /* from k = 4: below, c_dot's four FMAs an element beat the vector set-up
     and reductions (c64 3x1x1 / 3x1x3 1.54 / 1.30x c_dot's time in cache, one
     thread; 3x1x5 0.94; c128 3x1x1 1.11, 3x1x3 0.98; Zen 5, 2026-11-28) */
  if (!rows && bmm__cpu_cdotv_fits(pl) && k >= 4)
    c->kernel = BMM__CPU_K_c_dotv,
    c->why = "A rows and B columns contiguous: complex dot products in vectors over k";
  if (pl->strategy == BMM_CPU_SMALL && m == n && n == k) switch (m) {
#define BMM__CSMALL_CASE(A, M) \
  case M: small = BMM__CPU_K_c_small_##M##x##M##x##M; break;
      BMM__CPU_CSMALL_SIZES(BMM__CSMALL_CASE, )
#undef BMM__CSMALL_CASE
    default: break;
    }
  if (small >= 0) {
    c->kernel = small;
    c->why = "a fixed-size complex kernel for this shape";
  } else if (tiles && bmm__cpu_cview_ok(pl) && bmm__cpu_cview_pays(pl)) {
    c->kernel = BMM__CPU_K_c_blocked;
    c->why = "alpha, beta real, A and C columns contiguous: the real view (m x 2n x 2k, B' "
             "packed), real register tiles";
  } else if (tiles && bmm__cpu_cview_ok(pl)) {
    c->why = rows ? "the real view does not pay here (m < 6, n < 3 or no vectors): C row += a "
                    "* B row (complex)"
                  : "the real view does not pay here (m < 6, n < 3 or no vectors): complex dot "
                    "products";
  } else if (tiles) {
    c->why = rows ? "complex alpha/beta or strided A/C columns (or strides past 2^62): C row "
                    "+= a * B row (complex)"
                  : "complex alpha/beta or strided A/C columns (or strides past 2^62): complex "
                    "dot products";
  } else if (pl->strategy == BMM_CPU_BATCH_SIMD) {
    c->kernel = BMM__CPU_K_c_batch, c->why = "complex, vectors across the batch";
    c->units = bmm__ceil_div(pl->batch, BMM__BS_CHUNK);
  }
}
/* c_blocked's units and rows: those of the blocked kernel on the real view */
static void bmm__cpu_cview_units(const bmm_plan *pl, bmm__cpu_choice *c) {
  const bmm_plan q = bmm__cpu_cview_plan(pl);
  const int sz = (int)bmm_dtype_size(q.dtype);
  c->cview = 1;
  c->rows = bmm__cpu_blk_rows(&q, sz, bmm__cpu_threads(&q, INT64_MAX));
  c->units = q.batch * bmm__cpu_blk_units(&q, sz, c->rows);
}

/* ---- converted dtypes: f16 and bf16 through the f32 kernels ---------------
   A dtype whose accumulation type is wider than its storage (BMM_DTYPES)
   runs the f32 kernels on f32 copies: per chunk of batch entries, A, B and C
   (where beta reads it) are converted into a per-thread buffer (BLIS's
   packing step, with conversion), the f32 kernel that the strategy picks for
   the packed chunk runs on it, and C is converted back once, at its store.
   Every f32 kernel is reused, products and sums are f32 as the dtype
   promises, and memory sees only the halves: the buffer (BMM__CPU_CVT_FLOATS)
   stays in cache. Chunks are packed row-major (B once where the whole batch
   shares it), or batch-innermost for cpu_batch_simd, so the strategy claims
   the copy. Which entries share a chunk changes no bit: the f32 kernels give
   an entry the same bits whatever its neighbours. cpu_ref, alpha = 0 and
   k = 0 (no A*B) run plain loops on the halves. Where the chunk's kernel is
   cpu_small's dot form and the target can widen halves in registers
   (bmm__cpu_fused), that kernel's own instance for the dtype reads the halves
   in place instead, with the same bits: the seed's 3 x 1 x k moves 2 bytes
   an element once, not 2 + 4 + 4 (bench/notes/cpu.md, "f16/bf16 fused seed
   path"). */
#define BMM__CPU_CVT_FLOATS 16384 /* 64 KiB of f32 per chunk */
static int bmm__cpu_converted(bmm_dtype dt) {
  switch (dt) {
#define BMM__X(E, name, T, sz, ACC, ...) \
  case BMM_##E: return sizeof(T) < sizeof(ACC);
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: return 0;
  }
}
static int bmm__cpu_cvt_shared_b(const bmm_plan *pl) {
  int d;
  for (d = 0; d < pl->ndims; ++d)
    if (pl->b.batch_stride[d] != 0) return 0;
  return 1;
}
/* f32 elements per batch entry of a chunk (A, B unless shared, C), INT64_MAX
   where the sum overflows: validation bounds each product, not their sum (the
   fuzzer found m*k + m*n past int64 with an empty batch), and such an entry
   takes a chunk to itself either way */
static int64_t bmm__cpu_cvt_entry_floats(const bmm_plan *pl) {
  int64_t r = pl->m * pl->n;
  if (pl->use_ab && !bmm__add(r, pl->m * pl->k, &r)) return INT64_MAX;
  if (pl->use_ab && !bmm__cpu_cvt_shared_b(pl) && !bmm__add(r, pl->k * pl->n, &r)) return INT64_MAX;
  return r;
}
/* entries of no elements (m = 0: only explain picks for an empty problem)
   go one to a chunk: a chunk of the whole batch made the pick's strides
   k * batch, past int64 (the fuzzer: k = 1089, batch 2^62) */
static int64_t bmm__cpu_cvt_chunk(const bmm_plan *pl) {
  const int64_t per = bmm__cpu_cvt_entry_floats(pl), nb = pl->batch > 0 ? pl->batch : 1;
  const int64_t e = per > 0 ? BMM__CPU_CVT_FLOATS / per : 1;
  return e < 1 ? 1 : e > nb ? nb : e;
}
/* The f32 plan of a chunk of cnt entries packed at a, b, c, bias (NULL in
   the pick: only strides and sizes count there). */
static bmm_plan bmm__cpu_cvt_plan(const bmm_plan *pl, int64_t cnt, float *a, float *b, float *c,
                                  float *bias) {
  bmm_plan q = *pl;
  const int inner = pl->strategy == BMM_CPU_BATCH_SIMD, shared = bmm__cpu_cvt_shared_b(pl);
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  q.dtype = BMM_F32;
  q.batch = cnt, q.ndims = 1, q.dims[0] = cnt;
  memset(&q.a, 0, sizeof q.a), memset(&q.b, 0, sizeof q.b), memset(&q.c, 0, sizeof q.c);
  q.a.ptr = a, q.b.ptr = b, q.c.ptr = c, q.bias = pl->bias ? bias : NULL;
  if (inner) { /* (e, i, j) at (i*cols + j)*cnt + e */
    q.a.row_stride = k * cnt, q.a.col_stride = cnt, q.a.batch_stride[0] = 1;
    q.b.row_stride = n * cnt, q.b.col_stride = cnt, q.b.batch_stride[0] = 1;
    q.c.row_stride = n * cnt, q.c.col_stride = cnt, q.c.batch_stride[0] = 1;
    q.layout = BMM_LAYOUT_BATCH_INNER, q.layouts = BMM_L_BATCH_INNER;
  } else {
    q.a.row_stride = k, q.a.col_stride = 1, q.a.batch_stride[0] = m * k;
    q.b.row_stride = n, q.b.col_stride = 1, q.b.batch_stride[0] = shared ? 0 : k * n;
    q.c.row_stride = n, q.c.col_stride = 1, q.c.batch_stride[0] = m * n;
    q.layout = shared ? BMM_LAYOUT_SHARED_B : BMM_LAYOUT_ROWMAJOR;
    q.layouts = shared ? BMM_L_SHARED_B : BMM_L_ROWMAJOR | BMM_L_SHARED_B;
  }
  return q;
}

static bmm__cpu_choice bmm__cpu_pick_native(const bmm_plan *pl);

/* Does cpu_small's dot form read the halves (or f32 of small k) 16 rows of C
   to a vector (f32 with AVX2 only: 8; BMM__CPU_VROWS_*)? Where built, for rows of at most
   BMM__CPU_VROWS_KMAX and the packed call whose rows of C are rows of A one
   after another. */
static int bmm__cpu_vrows(const bmm_plan *pl) {
  const int on = pl->dtype == BMM_F16    ? BMM__CPU_VROWS_f16
                 : pl->dtype == BMM_BF16 ? BMM__CPU_VROWS_bf16
                 : pl->dtype == BMM_F32  ? BMM__CPU_VROWS_f32 && pl->k <= bmm__cpu_vk_kmax(pl->m)
                                         : 0;
  return on && pl->n == 1 && pl->m >= 1 && pl->m <= 4 && pl->k <= BMM__CPU_VROWS_KMAX &&
         pl->ndims == 1 && pl->a.col_stride == 1 && pl->a.row_stride == pl->k &&
         pl->a.batch_stride[0] == pl->m * pl->k && pl->b.row_stride == 1 &&
         (pl->b.batch_stride[0] == pl->k || pl->b.batch_stride[0] == 0) && pl->c.row_stride == 1 &&
         pl->c.batch_stride[0] == pl->m;
}

/* Does a fixed-size kernel prefetch A and B ahead (bmm__cpu_pf)? Out of
   cache, in one run, for entries of BMM_CPU_PREFETCH_MIN_BYTES or more of A
   and B. The default asks at every size: on the Intel VM (family 6 model 167)
   the hardware prefetchers alone left 3x1xK (K = 1..8, 16-128 bytes an entry)
   at 0.55-0.85 of the speed with it, 1 and 2 threads (bench/notes/cpu.md, "C
   in whole lines, prefetch at every size"). On Zen 5 small entries lost a
   little (one thread: 3x1x1 f32, 16 bytes, 1.13x the time; 3x1x8 f32 0.96):
   192 there kept the hardware alone below 3 lines. 16 rows to a vector
   (vrows) asks once a block of 16 entries (f16 3x1xK, 2 threads: K = 17..23
   75% of the floor without, 79-93% with). */
#ifndef BMM_CPU_PREFETCH_MIN_BYTES
#define BMM_CPU_PREFETCH_MIN_BYTES 0
#endif
/* an entry's bytes of A and B (B shared: none), in double: a run-time-k
   kernel takes any k, and k * 4 may pass INT64_MAX (the fuzzer found one) */
static double bmm__cpu_entry_ab_bytes(const bmm_plan *pl) {
  return ((double)pl->m * (double)pl->k +
          (pl->b.batch_stride[0] ? (double)pl->k * (double)pl->n : 0)) *
         (double)bmm_dtype_size(pl->dtype);
}
/* what kernel kid computes an entry as (BMM__CPU_PF_*): dot products, or a
   tile of C: cpu_small's axpy kernels of run-time k (2x2..4x4) apart from
   the rest (those of constant k, and small_tile, after them in the list) */
static int bmm__cpu_pf_form(int kid) {
  const int first = bmm__cpu_small_shapes[0].kernel;
  const int count = (int)(sizeof bmm__cpu_small_shapes / sizeof bmm__cpu_small_shapes[0]);
  if (kid < first || kid >= BMM__CPU_K_blocked || bmm__cpu_small_dot(kid)) return BMM__CPU_PF_DOTS;
  return kid < first + count && !bmm__cpu_small_shapes[kid - first].k ? BMM__CPU_PF_TILE_KANY
                                                                      : BMM__CPU_PF_TILE;
}
/* the distance a fixed-size kernel's call asks at (0: none); *none: the call
   is one to ask for, but its distance is 0 */
static int bmm__cpu_small_prefetch(const bmm_plan *pl, const bmm__cpu_choice *c, int *none) {
  const double bytes = bmm__cpu_entry_ab_bytes(pl);
  const int dist = bmm__cpu_pf_bytes(c->vrows, pl->dtype, bytes, bmm__cpu_pf_form(c->kernel));
  const int asks = c->streams == 1 && BMM__CPU_PREFETCH && bmm__cpu_big(pl) &&
                   (bytes >= BMM_CPU_PREFETCH_MIN_BYTES || c->vrows);
  *none = asks && dist <= 0;
  return asks && dist > 0 ? dist : 0;
}
/* cpu_small's dot kernels sum an entry's rows of A side by side in each step
   of k (B's vectors loaded once, 2M independent sums: in cache 1.2-2x the
   speed of a row at a time). Out of cache on AMD family 19h, f64 entries the
   per-entry prefetch asks for (over 1280 bytes of A and B) ran a row at a
   time in 0.77-0.87 of the time on one thread (f64 3x1x52..64, Zen 4) and
   0.77-0.99 on two, where side by side ran the sweep's K past 56 at 73-90%
   of the floor; f32 came out even (bench/notes/cpu.md, "A's rows one after
   another"). Each row's sums are in the same order: same bits. The size
   list's run-time-k kernels only (BMM__SEQ): its constant-k ones stay as
   they are. */
static int bmm__cpu_rowseq(const bmm_plan *pl, const bmm__cpu_choice *c) {
  const bmm__cpu_shape *sh;
  if (!BMM__CPU_VEXT || c->prefetch <= 0 || pl->dtype != BMM_F64 ||
      !bmm__cpu_small_dot(c->kernel) || bmm__cpu_core() != BMM__CORE_AMD19)
    return 0;
  sh = bmm__cpu_shape_of(bmm__cpu_small_shapes,
                         (int)(sizeof bmm__cpu_small_shapes / sizeof bmm__cpu_small_shapes[0]),
                         c->kernel);
  return sh && !sh->k;
}

/* cpu_blocked's next entry into L2 (prefetcht1) rather than L1: f64 on AMD
   family 19h, where 128^3 ran in 0.92-0.94 of the time of the L1 form, 64^3
   in 0.92-1.00, 48^3 and 256^3 in 0.96-1.03 (four A/B runs, 1 and 2
   threads, 256 MB calls, same bits); f32 128^3 ran 1.01-1.07x slower with
   it, so f32 keeps L1 (Zen 4; bench/notes/cpu.md, "into L2 for f64"). */
static int bmm__cpu_blk_pf_l2(const bmm_plan *pl) {
  return pl->dtype == BMM_F64 && bmm__cpu_core() == BMM__CORE_AMD19;
}

/* cpu_blocked asks for the next entry's A and B out of cache (1.2-1.65x at
   24^3..96^3 on Zen 5). Not on AMD family 19h where an entry's A and B are
   each a whole number of 4 KiB and 32 KiB at most together: 32^3 f32 / f64,
   32x64x32, 64^3 f32 ran without it in 0.69-0.94 of the time on one thread
   (32^3 0.80-0.92 on two), where 40^3, 48^3, 56^3, 96^3 f32 and 24^3, 48^3
   f64 ran 1.03-1.29x slower without (Zen 4; bench/notes/cpu.md, "Blocked
   prefetch on Zen 4"). Measured, not understood. Asked for into L2 instead
   (2026-12-02), tiny and 32^3 still ran 1.03-1.15x slower with it. 64^3
   f32 with the prefetch: 0.82-1.02 of the time in ten A/B runs, then
   1.11-1.12x in both orders a session later (into L2: 0.98-1.01), so it
   stays (bench/notes/cpu.md, "into L2 for f64", "the blocked leads"). */
static int bmm__cpu_blk_pf_skip(const bmm_plan *pl, int sz) {
  int64_t a, b;
  if (pl->m > 4096 || pl->n > 4096 || pl->k > 4096) return 0; /* no overflow below */
  a = pl->m * pl->k * sz, b = pl->k * pl->n * sz;
  return bmm__cpu_core() == BMM__CORE_AMD19 && a % 4096 == 0 && b % 4096 == 0 && a + b <= 32768;
}

/* The units over the threads: in cache one contiguous share a thread; out of
   cache (a call of at least BMM_CPU_STREAM_BYTES) up to BMM__CPU_CHUNKS a
   thread of at least BMM__CPU_CHUNK_BYTES and a batch entry each, which the threads take in
   order as they come free (OpenMP's dynamic schedule). An equal share waits
   for the slower thread: on a 2-vCPU VM the two threads of one 2 GB call
   (f64 3x1x1) took 105 and 66 ms, 1.3-1.6x apart in most calls, the slower
   one mostly on vCPU 0 (bench/notes/cpu.md, "uneven threads"). Every C
   element is computed by exactly one thread with the same code whatever
   range it falls in, so the bits depend neither on the thread count nor on
   the chunks (test threads_same_bits runs both; bmm__cpu_parallel). */
#define BMM__CPU_CHUNKS 16
#define BMM__CPU_CHUNK_BYTES (4.0 * 1024 * 1024)
static int bmm__cpu_chunks_test; /* tests: > 0 forces this many chunks a thread on every call */
static int64_t bmm__cpu_chunks(const bmm_plan *pl, int threads, int64_t units) {
  const double bytes = bmm__cpu_bytes(pl);
  int64_t n = threads;
  if (threads > 1 && bmm__cpu_chunks_test > 0)
    n = (int64_t)threads * bmm__cpu_chunks_test;
  else if (threads > 1 && bmm__cpu_big(pl)) {
    n = (int64_t)threads * BMM__CPU_CHUNKS;
    if ((double)n > bytes / BMM__CPU_CHUNK_BYTES) n = (int64_t)(bytes / BMM__CPU_CHUNK_BYTES);
    /* a chunk holds at least an entry's units: a cut inside an entry costs
       cpu_blocked a second packing of that entry's B */
    if (n > pl->batch) n = pl->batch;
    if (n < threads) n = threads;
  }
  return n > units ? units : n;
}
/* Everything a call does, in one place: the kernel inside the strategy (the
   table or the caller chose the strategy), its work units, its threads,
   whether C is streamed and A and B prefetched. Kernels read their choice and decide nothing. A
   rule's kernel= pin replaces the kernel where it fits (units and threads
   are the strategy's either way). A converted dtype gets the pick of its
   chunks' f32 plan, with chunks as units (a chunk's own threads: 1 inside the
   chunks' parallel region); a pin is judged against that plan, the one the
   pinned f32 kernel would run on. */
static bmm__cpu_choice bmm__cpu_pick(const bmm_plan *pl) {
  bmm__cpu_choice c;
  if (bmm__cpu_converted(pl->dtype) && pl->use_ab && pl->strategy != BMM_CPU_REF) {
    const int64_t e = bmm__cpu_cvt_chunk(pl);
    const bmm_plan q = bmm__cpu_cvt_plan(pl, e, NULL, NULL, NULL, NULL);
    c = bmm__cpu_pick_native(&q);
    if (bmm__cpu_fused(pl->dtype, c.kernel)) {
      /* the chunk's kernel reads the halves in place: batch entries as units,
         no buffer (cpu_small's claim, packed row-major entries, is what the
         kernel needs of the call as of the chunk) */
      c.fused = 1;
      c.vrows = bmm__cpu_vrows(pl);
      c.units = pl->batch;
      c.threads = bmm__cpu_threads(pl, c.units);
      /* C streamed in whole lines (two groups of 16 rows a line) where the
         16-row path takes k <= 8: f16/bf16 3x1xK, 2 GB calls, 2 threads,
         new/old time K = 1 0.75-0.80, 2..8 0.87-0.99 (Intel family 6 model
         167; plain stores read C's lines first). Streaming each group's 32
         bytes on its own (half lines) changed nothing, and k >= 16 lost
         1.03-1.05 (bench/notes/cpu.md, "the halves' C in whole lines"). */
      c.stream = c.vrows && pl->k <= 8 && bmm__cpu_stream_c(pl);
      c.prefetch = bmm__cpu_small_prefetch(pl, &c, &c.pf_none);
      return c;
    }
    c.chunk = e;
    c.vrows = 0; /* the f32 kernel's own (small k): not on converted chunks */
    c.units = bmm__ceil_div(pl->batch, e);
    c.threads = bmm__cpu_threads(pl, c.units);
    c.stream = c.prefetch = c.pf_none = c.pf_l2 = 0; /* the chunks stay in cache */
    return c;
  }
  return bmm__cpu_pick_native(pl);
}

static bmm__cpu_choice bmm__cpu_pick_native(const bmm_plan *pl) {
  bmm__cpu_choice c;
  const int sz = (int)bmm_dtype_size(pl->dtype);
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  c.kernel = BMM__CPU_K_ref, c.units = pl->batch, c.why = "", c.stream = bmm__cpu_stream_c(pl);
  c.pin = NULL;
  c.chunk = 0;
  c.fused = c.vrows = 0;
  c.prefetch = c.pf_none = c.pf_l2 = c.rowseq = 0;
  c.rows = 0;
  c.fixed = 0;
  c.cview = 0;
  c.streams = pl->rule.streams > 0 ? pl->rule.streams : BMM_CPU_STREAMS;
  if (pl->strategy == BMM_CPU_REF) {

    /* the oracle: one thread, plain loops, even where A*B does not count */
    c.why = "plain loops (the reference)";
  } else if (!pl->use_ab) {
    c.kernel = BMM__CPU_K_scale, c.why = "alpha = 0 or k = 0: C = beta*C + bias";
  } else if (bmm_dtype_is_complex(pl->dtype)) {
    bmm__cpu_pick_complex(pl, &c);
  } else if (pl->strategy == BMM_CPU_DOT) {
    /* Short columns: A columns of m = 2..4 contiguous rows, acs >= m apart,
       where the loop order would otherwise be strided dot products (those ran
       at 37-62% of copy on col_a; bench/notes/cpu.md, "short columns"). The
       N = 1 kernels also need packed columns, n = 1 and b contiguous.
       Elsewhere, where B and C rows are vectors (n = 2..16) and k is short,
       cpu_small's run-time tile: the loop orders keep their sums in memory
       (bench/notes/cpu.md, "the run-time tile": 3-8x at m > 16, n < 8). */
    bmm__cpu_pick_dot_form(pl, &c);
    if (bmm__cpu_tile_fits(pl) && (n == 1 || k <= BMM__CPU_TILE_MAX_K) &&
        !(pl->a.row_stride == 1 && m >= 2 && m <= 4 && pl->a.col_stride >= m)) {
      c.kernel = BMM__CPU_K_small_tile;
      c.why = n == 1 ? "A rows and the B column contiguous: the run-time tile's dot rows"
                     : "B and C rows contiguous, n = 2..16, short k: the run-time tile";
    } else if (BMM__CPU_VEXT && pl->a.row_stride == 1 && m >= 2 && m <= 4 &&
               pl->a.col_stride >= m && c.kernel == BMM__CPU_K_dot_strided) {
      const int packed = pl->a.col_stride == m && n == 1 && pl->b.row_stride == 1;
      c.kernel = bmm__cpu_find_shape(
          bmm__cpu_col_shapes, (int)(sizeof bmm__cpu_col_shapes / sizeof bmm__cpu_col_shapes[0]), m,
          packed ? 1 : 0, k);
      c.why = packed ? "m = 2..4 short packed columns of A" : "m = 2..4 short columns of A";
    }
  } else if (pl->strategy == BMM_CPU_SMALL) {
    /* the kernel for the shape (its row and column blocks beat the blocked
       tile at 16^3), else the run-time tile (0.3-0.9x the blocked tile's
       time at m, n <= 16, in cache and out: bench/notes/cpu.md, "the run-time
       tile"), else (n = 1 without vector extensions) the blocked tile where
       n fills a vector or a cpu_dot loop order. The blocked range takes
       batch entries as units here: m, n <= 16 is one row and one column
       block. */
    const int ks = bmm__cpu_find_shape(
        bmm__cpu_small_shapes,
        (int)(sizeof bmm__cpu_small_shapes / sizeof bmm__cpu_small_shapes[0]), m, n, k);
    if (ks >= 0)
      c.kernel = ks, c.why = "a fixed-size kernel for this shape";
    else if (bmm__cpu_tile_fits(pl))
      c.kernel = BMM__CPU_K_small_tile,
      c.why = "no fixed-size kernel: row tiles, m, n, k at run time";
    else if (n >= BMM__CPU_VBYTES / sz)
      c.kernel = BMM__CPU_K_blocked, c.why = "no fixed-size kernel; n fills a vector: blocked tile";
    else
      bmm__cpu_pick_dot_form(pl, &c);
  } else if (pl->strategy == BMM_CPU_BLOCKED) {
    c.rows = bmm__cpu_blk_rows(pl, sz, bmm__cpu_threads(pl, INT64_MAX));
    c.units = pl->batch * bmm__cpu_blk_units(pl, sz, c.rows);
    if (bmm__cpu_blk_in_place(pl, sz))
      c.kernel = BMM__CPU_K_blocked, c.why = "register tiles, B read in place";
    else
      c.kernel = BMM__CPU_K_blocked, c.why = "register tiles, B packed in blocks";
  } else if (pl->strategy == BMM_CPU_BATCH_SIMD) {
    c.kernel = BMM__CPU_K_batch_simd, c.why = "vectors across the batch";
    c.units = bmm__ceil_div(pl->batch, BMM__BS_CHUNK);
  }
  if (pl->rule.kernel[0]) {
    const int kid = bmm__cpu_kernel_index(pl->rule.kernel);
    c.pin = kid < 0 ? "no such kernel in this build" : bmm__cpu_pin_misfit(pl, kid);
    if (!c.pin) c.kernel = kid, c.why = "pinned by the rule's kernel=";
  }
  if (c.kernel == BMM__CPU_K_c_blocked) bmm__cpu_cview_units(pl, &c);
  /* cpu_small's blocked tile: m, n <= 16 is one row block (units = entries) */
  if (c.kernel == BMM__CPU_K_blocked && !c.rows) c.rows = bmm__cpu_blk_rows(pl, sz, 1);
  c.threads = pl->strategy == BMM_CPU_REF ? 1 : bmm__cpu_threads(pl, c.units);
  /* in cache the prefetches are instructions for nothing (6% of 32^3 f32) */
  c.prefetch = c.kernel == BMM__CPU_K_blocked && bmm__cpu_big(pl) && bmm__cpu_blk_in_place(pl, sz);
  if (c.prefetch && bmm__cpu_blk_pf_skip(pl, sz)) c.prefetch = 0, c.pf_none = 1;
  c.pf_l2 = c.prefetch && bmm__cpu_blk_pf_l2(pl);
  /* whole entries in place (one row unit), nothing asked for ahead: a listed
     size runs its own copy of the tiles */
  if (c.kernel == BMM__CPU_K_blocked && !c.prefetch && bmm__cpu_blk_in_place(pl, sz) &&
      pl->m <= c.rows)
    c.fixed = bmm__cpu_blk_fixed(pl);
  /* f32's rows to a vector (16 or 8): one run (the range walks blocks in order) */
  if (pl->dtype == BMM_F32 && c.streams == 1 && bmm__cpu_small_dot(c.kernel))
    c.vrows = bmm__cpu_vrows(pl);
  if (c.kernel >= bmm__cpu_small_shapes[0].kernel && c.kernel < BMM__CPU_K_blocked)
    c.prefetch = bmm__cpu_small_prefetch(pl, &c, &c.pf_none);
  c.rowseq = bmm__cpu_rowseq(pl, &c);
  /* c_dotv walks its entries in order: their lines asked for ahead out of
     cache, as cpu_small's (one batch dimension: entries batch_stride[0]
     apart). c64 3x1xK, 1 GB calls, one thread: K = 25 0.81, 40 0.58 of the
     time without, K = 5 1.07 (Zen 5, 2026-11-28) */
  if (c.kernel == BMM__CPU_K_c_dotv && pl->ndims <= 1 && BMM__CPU_PREFETCH && bmm__cpu_big(pl)) {
    c.prefetch = bmm__cpu_pf_bytes(0, pl->dtype, bmm__cpu_entry_ab_bytes(pl), BMM__CPU_PF_DOTS);
    c.pf_none = c.prefetch <= 0;
  }
  return c;
}

/* The units over the threads (bmm__cpu_chunks): one contiguous share a
   thread, handed out in thread order, or more chunks, each taken by the next
   free thread. */
static void bmm__cpu_parallel(const bmm_plan *pl, const bmm__cpu_choice *ch, bmm__cpu_range_fn fn) {
#ifdef _OPENMP
  if (ch->threads > 1) {
    const int64_t n = bmm__cpu_chunks(pl, ch->threads, ch->units);
#pragma omp parallel num_threads(ch->threads)
    {
      int64_t q;
      if (n > ch->threads) {
#pragma omp for schedule(dynamic, 1) nowait
        for (q = 0; q < n; ++q)
          fn(pl, ch, q * ch->units / n, (q + 1) * ch->units / n);
      } else {
#pragma omp for schedule(static, 1) nowait
        for (q = 0; q < n; ++q)
          fn(pl, ch, q * ch->units / n, (q + 1) * ch->units / n);
      }
      BMM__NT_FENCE(); /* streamed stores are weakly ordered: done before the join */
    }
    return;
  }
#endif
  fn(pl, ch, 0, ch->units);
  BMM__NT_FENCE();
}

/* ---- the kernel section, once per dtype -------------------------------------
   A row of BMM_DTYPES without a section here fails to compile (the count
   check below names bmm__cpu_section_<name>). */
#define BMM__CPU_SECTION 1
#define BMM__FN(base) BMM__FN_(base, BMM__N)
#define BMM__FN_(base, name) BMM__FN__(base, name)
#define BMM__FN__(base, name) bmm__cpu_##base##_##name

#define BMM__T float
#define BMM__N f32
#include "bmm_cpu.h"
#undef BMM__T
#undef BMM__N

#define BMM__T double
#define BMM__N f64
#include "bmm_cpu.h"
#undef BMM__T
#undef BMM__N

/* the converted dtypes: plain loops and the converting driver only */
#define BMM__CPU_HALF 1
#define BMM__T bmm_f16
#define BMM__N f16
#include "bmm_cpu.h"
#undef BMM__T
#undef BMM__N

#define BMM__T bmm_bf16
#define BMM__N bf16
#define BMM__CPU_HALF_IS_BF16 1
#include "bmm_cpu.h"
#undef BMM__CPU_HALF_IS_BF16
#undef BMM__T
#undef BMM__N
#undef BMM__CPU_HALF

#undef BMM__CPU_SECTION
#define BMM__CPU_SECTION 2 /* complex: BMM__R the component type, BMM__RN its name */
#define BMM__T bmm_c64
#define BMM__N c64
#define BMM__R float
#define BMM__RN f32
#include "bmm_cpu.h"
#undef BMM__T
#undef BMM__N
#undef BMM__R
#undef BMM__RN

#define BMM__T bmm_c128
#define BMM__N c128
#define BMM__R double
#define BMM__RN f64
#include "bmm_cpu.h"
#undef BMM__T
#undef BMM__N
#undef BMM__R
#undef BMM__RN

#undef BMM__CPU_SECTION
#define BMM__CPU_SECTION_SIZE(E, name, T, sz, ...) +(bmm__cpu_section_##name == (sz))
typedef char bmm__cpu_one_section_per_dtype
    [(0 BMM_DTYPES(BMM__CPU_SECTION_SIZE)) == BMM_DTYPE_COUNT - 1 ? 1 : -1];
#undef BMM__CPU_SECTION_SIZE

/* ---- dispatch -------------------------------------------------------------- */

/* The kernel that ran last on this thread (tests compare it with explain). */
static BMM__TLS int bmm__cpu_last_kernel = -1;

/* Run what bmm__cpu_pick decided (or kept: given), for any CPU strategy. */
static void bmm__cpu_execute(const bmm_plan *pl, const bmm__cpu_choice *given) {
  bmm__cpu_choice now;
  const bmm__cpu_choice *ch = given;
  bmm__cpu_range_fn fn = NULL;
  if (!ch) now = bmm__cpu_pick(pl), ch = &now;
  switch (pl->dtype) {
#define BMM__X(E, name, ...) \
  case BMM_##E: fn = bmm__cpu_kernels_##name[ch->kernel]; break;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: return;
  }
  bmm__cpu_last_kernel = ch->kernel;
  if (fn) bmm__cpu_parallel(pl, ch, fn);
}

/* The pick as text, after the table's part of bmm_explain. */
static void bmm__cpu_explain_choice(const bmm_plan *pl, char *buf, size_t len) {
  const bmm__cpu_choice ch = bmm__cpu_pick(pl);
  const int64_t chunks = bmm__cpu_chunks(pl, ch.threads, ch.units);
  size_t used;
  if (!buf || !len) return;
  snprintf(buf, len, "; kernel=%s (%s), %lld units on %d thread%s",
           bmm__cpu_kernel_names[ch.kernel], ch.why, (long long)ch.units, ch.threads,
           ch.threads == 1 ? "" : "s");
  used = strlen(buf);
  if (chunks > ch.threads && used < len)
    snprintf(buf + used, len - used, " in %lld chunks, each taken by the next free thread",
             (long long)chunks);
  used = strlen(buf);
  if (ch.pin && used < len)
    snprintf(buf + used, len - used, "; the rule's kernel=%s does not apply: %s", pl->rule.kernel,
             ch.pin);
  used = strlen(buf);
  if (used < len) {
    if (bmm__cpu_walks_streams(ch.kernel))
      snprintf(buf + used, len - used, "; entries walked as %d interleaved run%s per %s%s",
               ch.streams, ch.streams == 1 ? "" : "s", chunks > ch.threads ? "chunk" : "thread",
               pl->rule.streams > 0 ? " (the rule's streams=)" : " (BMM_CPU_STREAMS)");
    else if (pl->rule.streams > 0)
      snprintf(buf + used, len - used,
               "; the rule's streams=%d does not apply: kernel %s walks its units in order",
               pl->rule.streams, bmm__cpu_kernel_names[ch.kernel]);
  }
  used = strlen(buf);
  if (ch.chunk > 0 && used < len) {
    const char *path = pl->dtype == BMM_F16 ? bmm__cpu_cvt_path_f16 : bmm__cpu_cvt_path_bf16;
    snprintf(buf + used, len - used,
             "; %s as f32: chunks of %lld entries converted (%s) into a per-thread buffer, "
             "C rounded once on store",
             bmm_dtype_name(pl->dtype), (long long)ch.chunk, path);
    used = strlen(buf);
  }
  if (ch.fixed && used < len) {
    const int *f = bmm__cpu_blk_sizes[ch.fixed - 1];
    snprintf(buf + used, len - used,
             "; entries of %dx%dx%d packed row-major: tiles compiled for that size (the same "
             "bits as the run-time tiles)",
             f[0], f[1], f[2]);
    used = strlen(buf);
  }
  if (ch.vrows && pl->dtype == BMM_F32 && used < len) {
    snprintf(buf + used, len - used,
             "; %s: %d rows of C to a vector (blocks of %d entries, their columns permuted into "
             "lanes, each row's products summed %s; the same bits as entry by entry; to k = "
             "%d at m = %lld on this core, %s)",
             BMM__CPU_VK_W == 16 ? "AVX-512" : "AVX2", BMM__CPU_VK_W, BMM__CPU_VK_W,
             pl->k <= 3 ? "in turn" : "in the per-entry kernel's order", bmm__cpu_vk_kmax(pl->m),
             (long long)pl->m, bmm__cpu_core_name(bmm__cpu_core()));
    used = strlen(buf);
  } else if (ch.vrows && used < len) {
    snprintf(buf + used, len - used,
             "; %s read by the kernel (AVX-512: 16 rows of C to a vector, each row's products "
             "summed %s), sums in f32, C rounded once on store%s",
             bmm_dtype_name(pl->dtype), pl->k <= 8 ? "in turn" : "by a fixed tree",
             pl->dtype == BMM_BF16 && BMM__CPU_AVX512BF16
                 ? " by vcvtneps2bf16 (16 rows holding an f32 subnormal by integer rounding)"
                 : "");
    used = strlen(buf);
  } else if (ch.fused && used < len) {
    snprintf(buf + used, len - used,
             "; %s read by the kernel (%s, 4 at a time into f32 lanes), sums in f32, C rounded "
             "once on store",
             bmm_dtype_name(pl->dtype), pl->dtype == BMM_F16 ? "F16C" : "SSE2 shift");
    used = strlen(buf);
  }
  if (ch.prefetch && used < len) {
    if (ch.kernel == BMM__CPU_K_blocked)
      snprintf(buf + used, len - used,
               "; the next entry's A and B prefetched%s (the call moves >= BMM_CPU_STREAM_BYTES)",
               ch.pf_l2 ? " into L2 (prefetcht1: f64 on AMD family 19h)" : "");
    else
      snprintf(buf + used, len - used,
               "; A and B prefetched %d bytes ahead (%s; the call moves >= "
               "BMM_CPU_STREAM_BYTES)",
               ch.prefetch,
               bmm__cpu_pf_source(ch.vrows, pl->dtype, bmm__cpu_pf_form(ch.kernel), ch.prefetch));
    used = strlen(buf);
  } else if (ch.pf_none && ch.kernel == BMM__CPU_K_blocked && used < len) {
    snprintf(buf + used, len - used,
             "; the next entry's A and B left to the hardware (AMD family 19h: A and B whole "
             "4 KiB multiples, 32 KiB at most; the call moves >= BMM_CPU_STREAM_BYTES)");
    used = strlen(buf);
  } else if (ch.pf_none && used < len) {
    snprintf(buf + used, len - used,
             "; A and B left to the hardware prefetchers (%s; the call moves >= "
             "BMM_CPU_STREAM_BYTES)",
             bmm__cpu_pf_source(ch.vrows, pl->dtype, bmm__cpu_pf_form(ch.kernel), 0));
    used = strlen(buf);
  }
  if (ch.rowseq && used < len) {
    snprintf(buf + used, len - used,
             "; A's rows summed one after another (out of cache, f64 on this core)");
    used = strlen(buf);
  }
  if (ch.stream && used < len)
    snprintf(buf + used, len - used,
             "; C streamed (non-temporal stores: beta = 0 and the call moves >= "
             "BMM_CPU_STREAM_BYTES = %.0f)",
             bmm__cpu_stream_bytes());
  else if (bmm__cpu_stream_but_rows(pl) && !bmm__cpu_stream_rows_ok(pl) && used < len)
    snprintf(buf + used, len - used,
             "; C not streamed: its rows do not start on 16 bytes (streamed and plain "
             "stores would share lines)");
}

/* The CPU default table: first match wins. Measured on the 2-vCPU AMD EPYC
   dev VM (AVX2+FMA, no AVX-512: gcc reads it as znver1), 2026-11-23, gcc 12 -O3
   -march=native -fopenmp, by `bench/bench_cpu` and a per-shape timer over
   the same strategies (min of 15-25 runs, one thread; numbers in
   bench/notes/cpu.md). The machine was shared, so only ratios of 1.3x and
   more were trusted. */
BMM_RULES_BEGIN
static const bmm_table_rule bmm__cpu_default_table[] = {
    BMM_RULE(.layouts = BMM_L_BATCH_INNER, .strategy = BMM_CPU_BATCH_SIMD,
             .note = "cpu dev VM 2026-11-23 bench_cpu --only seed_k25_batch: 4x cpu_dot, 30x "
                     "cpu_ref"),
    BMM_RULE(.layouts = BMM_L_ROWMAJOR | BMM_L_SHARED_B, .m_max = 16, .n_max = 16,
             .strategy = BMM_CPU_SMALL,
             .note = "cpu dev VM 2026-11-23 3x1x25: 2.3x cpu_ref; 4^3..16^3: 1.2-20x cpu_dot"),
    BMM_RULE(.layouts = BMM_L_ROWMAJOR | BMM_L_SHARED_B, .n_min = 8, .strategy = BMM_CPU_BLOCKED,
             .note = "cpu dev VM 2026-11-23 1 thread 32^3..1024^3: f32 2.6-2.8x, f64 1.9-2.4x "
                     "cpu_dot"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .m_min = 16, .n_min = 16, .k_min = 16,
             .strategy = BMM_CPU_BLOCKED,
             .note = "cpu dev VM 2026-11-23 bench_cpu f64 128^3..1024^3: 2.3-3.4x cpu_dot"),
    BMM_RULE(.dtypes = BMM_DT(BMM_C64) | BMM_DT(BMM_C128), .m_min = 6, .n_min = 3,
             .strategy = BMM_CPU_BLOCKED,
             .note = "Intel VM 2026-11-27 c_blocked vs c_rows: 16x3x16 0.6x, 64^3 B^T 0.05x"),
    BMM_RULE(.strategy = BMM_CPU_DOT,
             .note = "catch-all; dev VM 2026-11-23 bench_cpu: col_a 2x ref, n < 8"),
};
BMM_RULES_END

/* ---- the CPU backend: entry points and its descriptor for bmm.h ---------- */
#ifndef BMM_CPU_TABLE
#define BMM_CPU_TABLE bmm__cpu_default_table
#endif
#ifndef BMM_FORCE_CPU_STRATEGY
#define BMM_FORCE_CPU_STRATEGY BMM_STRATEGY_AUTO
#endif
#define BMM__CPU_NRULES ((int)(sizeof(BMM_CPU_TABLE) / sizeof(BMM_CPU_TABLE[0])))

/* The static switch: the one place that names every CPU kernel. ch: the
   pick a plan kept, NULL to pick now. */
static bmm_status bmm__cpu_run(const bmm_plan *pl, const bmm__cpu_choice *ch) {
  if (pl->m == 0 || pl->n == 0 || pl->batch == 0) return bmm__ok();
  switch (pl->strategy) {
#define BMM__X(E, name, l, mm, mn, mk, cf, d) case BMM_##E:
    BMM_CPU_STRATEGIES(BMM__X)
#undef BMM__X
    bmm__cpu_execute(pl, ch);
    break;
  default:
    return bmm__fail(BMM_BAD_STRATEGY, "strategy %s is not a CPU strategy",
                     bmm_strategy_name(pl->strategy));
  }
  return bmm__ok();
}

bmm_status bmm_cpu(const bmm_problem *p) {
  bmm_plan pl;
  bmm_status s = bmm__plan_with(p, BMM_BACKEND_CPU, BMM_CPU_TABLE, BMM__CPU_NRULES,
                                BMM_FORCE_CPU_STRATEGY, &pl);
  return s != BMM_OK ? s : bmm__cpu_run(&pl, NULL);
}

/* ---- the pick a CPU plan keeps (bmm_plan.priv) -----------------------------
   bmm_plan_problem keeps bmm__cpu_pick's answer in the plan, so that
   bmm_cpu_run_plan skips it: a plan run at f32/f64 2^3..8^3 took 0.43-0.53
   of bmm_cpu's time where it took 0.50-0.71 (Zen 5, bench/notes/cpu.md,
   "the pick kept in the plan"). The pick reads the
   threads OpenMP offers, so the plan keeps them too (the key) and a run
   offered others (omp_set_num_threads since, or inside a parallel region)
   picks again; of the pointers it reads C's alignment, and only where it
   would stream C (bmm__cpu_stream_but_rows): bmm_plan_rebind picks again
   there (calls of BMM_CPU_STREAM_BYTES and more), keeps the pick elsewhere.
   The test hooks (bmm__cpu_core_test, ...) count where the plan is made. */
static uint64_t bmm__cpu_pick_key(void) {
#ifdef _OPENMP
  return 2 + 2 * (uint64_t)omp_get_max_threads() + (omp_in_parallel() ? 1 : 0);
#else
  return 1;
#endif
}
// clang-format off
static void bmm__cpu_plan_keep(bmm_plan *pl) {
  uint64_t *w = pl->priv;
  bmm__cpu_choice c;
  int n = BMM__CPU_KEPT_AT;
  memset(pl->priv, 0, sizeof pl->priv);
  if (pl->m == 0 || pl->n == 0 || pl->batch == 0) return; /* runs nothing */
  c = bmm__cpu_pick(pl);
  w[BMM__CPU_KEPT_KEY] = bmm__cpu_pick_key();
  w[BMM__CPU_KEPT_PTR] = (uint64_t)bmm__cpu_stream_but_rows(pl);
#define BMM__KEEP(f) w[n++] = (uint64_t)(int64_t)c.f;
#define BMM__KEEP_STR(f) w[n++] = (uint64_t)(uintptr_t)c.f;
  BMM__CPU_CHOICE_INTS(BMM__KEEP)
  BMM__CPU_CHOICE_I64S(BMM__KEEP)
  BMM__CPU_CHOICE_STRS(BMM__KEEP_STR)
#undef BMM__KEEP
#undef BMM__KEEP_STR
}
/* the kept pick in *c, or NULL where there is none for these threads */
static const bmm__cpu_choice *bmm__cpu_plan_kept(const bmm_plan *pl, bmm__cpu_choice *c) {
  const uint64_t *w = pl->priv;
  int n = BMM__CPU_KEPT_AT;
  if (!w[BMM__CPU_KEPT_KEY] || w[BMM__CPU_KEPT_KEY] != bmm__cpu_pick_key()) return NULL;
#define BMM__LOAD_INT(f) c->f = (int)(int64_t)w[n++];
#define BMM__LOAD_I64(f) c->f = (int64_t)w[n++];
#define BMM__LOAD_STR(f) c->f = (const char *)(uintptr_t)w[n++];
  BMM__CPU_CHOICE_INTS(BMM__LOAD_INT)
  BMM__CPU_CHOICE_I64S(BMM__LOAD_I64)
  BMM__CPU_CHOICE_STRS(BMM__LOAD_STR)
#undef BMM__LOAD_INT
#undef BMM__LOAD_I64
#undef BMM__LOAD_STR
  return c;
}
// clang-format on
static int bmm__cpu_plan_rebound(bmm_plan *pl) {
  if (!pl->priv[BMM__CPU_KEPT_PTR]) return 0;
  bmm__cpu_plan_keep(pl);
  return 1;
}

bmm_status bmm_cpu_run_plan(const bmm_plan *pl) {
  bmm_status s;
  bmm__cpu_choice kept;
  if (!pl) return bmm__fail(BMM_NULL_POINTER, "plan is NULL");
  s = bmm__check_seal(pl);
  if (s != BMM_OK) return s;
  if (pl->backend != BMM_BACKEND_CPU)
    return bmm__fail(BMM_WRONG_BACKEND,
                     "plan is for the %s backend: make it with bmm_plan_problem(p, "
                     "BMM_BACKEND_CPU, &plan)",
                     bmm_backend_name(pl->backend));
  return bmm__cpu_run(pl, bmm__cpu_plan_kept(pl, &kept));
}

/* An entry point named for a strategy runs that strategy or refuses: a
   problem that asks for another one is a contradiction, not a preference. */
static bmm_status bmm__cpu_entry(const bmm_problem *p, bmm_strategy s) {
  bmm_plan pl;
  bmm_status st;
  if (p && p->strategy != BMM_STRATEGY_AUTO && p->strategy != s) {
    st = bmm__validate(p, &pl); /* a bad problem says so first, as everywhere */
    if (st != BMM_OK) return st;
    return bmm__fail(BMM_BAD_STRATEGY,
                     "bmm_%s() called with problem.strategy = %s: set it to AUTO (0) or %s, or "
                     "call bmm_cpu()",
                     bmm_strategy_name(s), bmm_strategy_name(p->strategy), bmm_strategy_name(s));
  }
  st = bmm__plan_with(p, BMM_BACKEND_CPU, BMM_CPU_TABLE, BMM__CPU_NRULES, s, &pl);
  return st != BMM_OK ? st : bmm__cpu_run(&pl, NULL);
}

#define BMM__X(E, name, l, mm, mn, mk, cf, d) \
  bmm_status bmm_##name(const bmm_problem *p) { return bmm__cpu_entry(p, BMM_##E); }
BMM_CPU_STRATEGIES(BMM__X)
#undef BMM__X

bmm_status bmm_reference(const bmm_problem *p, long double *out, long double *mag) {
  bmm_plan pl;
  bmm_status s = bmm__validate(p, &pl);
  if (s != BMM_OK) return s;
  if (pl.m * pl.n * pl.batch > 0 && !out) return bmm__fail(BMM_NULL_POINTER, "out is NULL");
  switch (pl.dtype) {
#define BMM__X(E, name, T, sz, ...) \
  case BMM_##E: bmm__cpu_reference_##name(&pl, out, mag); break;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: break;
  }
  return bmm__ok();
}

/* ---- the CPU backend's descriptor ---------------------------------------- */
static void bmm__cpu_table_for(int arch, const bmm_table_rule **rules, int *count) {
  (void)arch;
  *rules = BMM_CPU_TABLE, *count = BMM__CPU_NRULES;
}

static bmm_status bmm__cpu_plan(const bmm_problem *p, bmm_plan *out) {
  const bmm_status s = bmm__plan_with(p, BMM_BACKEND_CPU, BMM_CPU_TABLE, BMM__CPU_NRULES,
                                      BMM_FORCE_CPU_STRATEGY, out);
  if (s == BMM_OK) bmm__cpu_plan_keep(out);
  return s;
}

static bmm_status bmm__cpu_explain(const bmm_problem *p, char *buf, size_t len) {
  bmm_plan pl;
  bmm_status s = bmm__explain_with(p, BMM_BACKEND_CPU, BMM_CPU_TABLE, BMM__CPU_NRULES,
                                   BMM_FORCE_CPU_STRATEGY, buf, len, &pl);
  if (s == BMM_OK) {
    const size_t used = strlen(buf);
    bmm__cpu_explain_choice(&pl, buf + used, len - used);
  }
  return s;
}

static bmm_status bmm__cpu_run_problem(const bmm_problem *p, void *queue) {
  (void)queue;
  return bmm_cpu(p);
}

static const bmm__backend_ops bmm__cpu_backend = {
    BMM_BACKEND_CPU,      bmm__cpu_table_for,    bmm__cpu_plan, bmm__cpu_explain,
    bmm__cpu_run_problem, bmm__cpu_kernel_index, NULL /* every CPU strategy is compiled in */};

#ifdef __cplusplus
}
#endif
#endif /* BMM_CPU_H */

#elif BMM__CPU_SECTION == 1 /* the real kernels, once per real dtype ------------ \
   BMM__T is the element type, BMM__N its BMM_DTYPES name; BMM__FN(base) names    \
   a function bmm__cpu_<base>_<name>. Every range kernel has the signature of     \
   bmm__cpu_range_fn and does what its bmm__cpu_choice says. */

enum { BMM__FN(section) = (int)sizeof(BMM__T) };
#ifdef BMM__CPU_HALF
/* an element as f32 (exact), and an f32 rounded to an element */
#define BMM__TOF(x) BMM__CAT(BMM__CAT(bmm_, BMM__N), _to_f32)(x)
#define BMM__FROMF(x) BMM__CAT(bmm_f32_to_, BMM__N)(x)
#define BMM__LD(x) ((long double)BMM__TOF(x))
#else
#define BMM__LD(x) ((long double)(x))
#endif

/* The oracle (bmm_reference): long double accumulation, packed output, C only
   read. */
static void BMM__FN(reference)(const bmm_plan *pl, long double *out, long double *mag) {
  int64_t bi, i, j, l;
  for (bi = 0; bi < pl->batch; ++bi) {
    int64_t oa, ob, oc;
    bmm_batch_offsets(pl, bi, &oa, &ob, &oc);
    for (i = 0; i < pl->m; ++i)
      for (j = 0; j < pl->n; ++j) {
        long double acc = 0, abs_acc = 0, v, g;
        const BMM__T *cp =
            (const BMM__T *)pl->c.ptr + oc + i * pl->c.row_stride + j * pl->c.col_stride;
        for (l = 0; pl->use_ab && l < pl->k; ++l) {
          long double x =
              BMM__LD(
                  ((const BMM__T *)pl->a.ptr)[oa + i * pl->a.row_stride + l * pl->a.col_stride]) *
              BMM__LD(
                  ((const BMM__T *)pl->b.ptr)[ob + l * pl->b.row_stride + j * pl->b.col_stride]);
          acc += x;
          abs_acc += x < 0 ? -x : x;
        }
        v = (long double)pl->alpha * acc;
        g = ((long double)pl->alpha < 0 ? -(long double)pl->alpha : (long double)pl->alpha) *
            abs_acc;
        if (pl->read_c) {
          long double bc = (long double)pl->beta * BMM__LD(*cp);
          v += bc, g += bc < 0 ? -bc : bc;
        }
        if (pl->bias) {
          long double bb = BMM__LD(((const BMM__T *)pl->bias)[j]);
          v += bb, g += bb < 0 ? -bb : bb;
        }
        out[(bi * pl->m + i) * pl->n + j] = v;
        if (mag) mag[(bi * pl->m + i) * pl->n + j] = g;
      }
  }
}

#undef BMM__LD

/* ---- cpu_ref: plain loops over any strides --------------------------------
   Sums in BMM__ACC: the element type, or f32 for the halves (the product of
   two halves is exact in f32, 11 + 11 or 8 + 8 bits, so only the sums round).
   The epilogue is the dtype's own (below). */
#ifdef BMM__CPU_HALF
#define BMM__ACC float
#define BMM__TOA(x) BMM__TOF(x)
#else
#define BMM__ACC BMM__T
#define BMM__TOA(x) (x)
#endif
BMM__INLINE void BMM__FN(epilogue)(const bmm_plan *pl, BMM__T *cp, BMM__ACC acc, int64_t j);

static void BMM__FN(ref)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {
  int64_t bi;
  (void)ch;
  for (bi = b0; bi < b1; ++bi) {
    int64_t oa, ob, oc, i, j, l;
    bmm_batch_offsets(pl, bi, &oa, &ob, &oc);
    for (i = 0; i < pl->m; ++i)
      for (j = 0; j < pl->n; ++j) {
        BMM__ACC acc = 0;
        BMM__T *cp = (BMM__T *)pl->c.ptr + oc + i * pl->c.row_stride + j * pl->c.col_stride;
        if (pl->use_ab) {
          const BMM__T *ap = (const BMM__T *)pl->a.ptr + oa + i * pl->a.row_stride;
          const BMM__T *bp = (const BMM__T *)pl->b.ptr + ob + j * pl->b.col_stride;
          for (l = 0; l < pl->k; ++l)
            acc += BMM__TOA(ap[l * pl->a.col_stride]) * BMM__TOA(bp[l * pl->b.row_stride]);
        }
        BMM__FN(epilogue)(pl, cp, acc, j);
      }
  }
}

/* k == 0 or alpha == 0: A and B are NULL, C = beta*C + bias (alpha*0 kept, so
   an infinite alpha gives NaN exactly as the reference does). */
static void BMM__FN(scale)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {
  int64_t bi, i, j;
  (void)ch;
  for (bi = b0; bi < b1; ++bi) {
    int64_t oa, ob, oc;
    bmm__cpu_offsets(pl, bi, &oa, &ob, &oc);
    for (i = 0; i < pl->m; ++i)
      for (j = 0; j < pl->n; ++j) {
        BMM__T *cp = (BMM__T *)pl->c.ptr + oc + i * pl->c.row_stride + j * pl->c.col_stride;
        BMM__FN(epilogue)(pl, cp, 0, j);
      }
  }
}
#undef BMM__TOA
#undef BMM__ACC

#ifdef BMM__CPU_HALF
/* ---- f16, bf16: plain loops on the halves, and the converting driver -------
   cpu_ref and the C = beta*C + bias pass compute in f32 straight from the
   halves; every other kernel is the f32 one over converted chunks
   (bmm__cpu_pick, "converted dtypes"). */
BMM__INLINE void BMM__FN(epilogue)(const bmm_plan *pl, BMM__T *cp, float acc, int64_t j) {
  float r = pl->bias ? BMM__TOF(((const BMM__T *)pl->bias)[j]) : -0.0f;
  if (pl->read_c) r = BMM__FMA_f32((float)pl->beta, BMM__TOF(*cp), r);
  *cp = BMM__FROMF(BMM__FMA_f32((float)pl->alpha, acc, r));
}

/* One operand (rows x cols, which: 0 A, 1 B, 2 C) of entries [b0, b0 + cnt)
   between the halves and a packed f32 chunk: row-major entries one after the
   other, or (inner) batch-innermost, element (e, i, j) at (i*cols + j)*cnt +
   e. to_f32: halves -> f32, else f32 -> halves. Runs contiguous on both sides
   go to the bulk converters whole. */
static void BMM__FN(cvt_operand)(const bmm_plan *pl, const bmm_operand *o, int which, int64_t b0,
                                 int64_t cnt, int64_t rows, int64_t cols, float *buf, int inner,
                                 int to_f32) {
  const int64_t rs = o->row_stride, cs = o->col_stride;
  BMM__T *base = (BMM__T *)(uintptr_t)o->ptr;
  int64_t e, i, j;
  if (inner) { /* batch-innermost (at most one batch dim): runs over entries */
    const int64_t bs = pl->ndims ? o->batch_stride[0] : 0;
    for (i = 0; i < rows; ++i)
      for (j = 0; j < cols; ++j) {
        BMM__T *h = base + b0 * bs + i * rs + j * cs;
        float *f = buf + (i * cols + j) * cnt;
        if (to_f32)
          BMM__CAT(bmm__cpu_to_f32_, BMM__N)(f, 1, h, bs, cnt);
        else
          BMM__CAT(bmm__cpu_from_f32_, BMM__N)(h, bs, f, 1, cnt);
      }
    return;
  }
  for (e = 0; e < cnt; ++e) {
    int64_t off[3];
    BMM__T *h;
    float *f = buf + e * rows * cols;
    bmm__cpu_offsets(pl, b0 + e, &off[0], &off[1], &off[2]);
    h = base + off[which];
    if (cs == 1 && rs == cols) { /* a packed entry: one run, with the packed entries after it */
      const int64_t run = pl->ndims == 1 && o->batch_stride[0] == rows * cols ? cnt - e : 1;
      if (to_f32)
        BMM__CAT(bmm__cpu_to_f32_, BMM__N)(f, 1, h, 1, run * rows * cols);
      else
        BMM__CAT(bmm__cpu_from_f32_, BMM__N)(h, 1, f, 1, run * rows * cols);
      e += run - 1;
      continue;
    }
    for (i = 0; i < rows; ++i) {
      if (to_f32)
        BMM__CAT(bmm__cpu_to_f32_, BMM__N)(f + i * cols, 1, h + i * rs, cs, cols);
      else
        BMM__CAT(bmm__cpu_from_f32_, BMM__N)(h + i * rs, cs, f + i * cols, 1, cols);
    }
  }
}

/* Chunks [u0, u1) of ch->chunk entries: convert, run the f32 kernel
   ch->kernel on the packed copy, convert C back. The buffer is this call's
   and this thread's; where it cannot be had the plain loops run instead (no
   allocation failure may fail the call). */
static void BMM__FN(convert)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t u0,
                             int64_t u1) {
  const int64_t m = pl->m, n = pl->n, k = pl->k, E = ch->chunk;
  const int inner = pl->strategy == BMM_CPU_BATCH_SIMD, shared = bmm__cpu_cvt_shared_b(pl);
  const int64_t na = E * m * k, nb = shared ? k * n : E * k * n, nc = E * m * n;
  int64_t total = na;
  /* each part fits (validation bounds m*k*batch and the rest, E <= batch),
     their sum may not: past int64 or size_t no buffer is tried */
  const int fits = bmm__add(total, nb, &total) && bmm__add(total, nc, &total) &&
                   bmm__add(total, pl->bias ? n : 0, &total) &&
                   (uint64_t)total <= (uint64_t)(SIZE_MAX / sizeof(float));
  float *buf = fits ? (float *)malloc(sizeof(float) * (size_t)total) : NULL;
  /* pointers into the buffer only once it exists (no offset on NULL) */
  float *fa = buf, *fb = buf ? fa + na : NULL, *fc = buf ? fb + nb : NULL,
        *fbias = buf ? fc + nc : NULL;
  const bmm__cpu_range_fn fn = bmm__cpu_kernels_f32[ch->kernel];
  int64_t u;
  if (!buf) {
    BMM__FN(ref)(pl, ch, u0 * E, u1 * E < pl->batch ? u1 * E : pl->batch);
    return;
  }
  if (pl->bias) BMM__CAT(bmm__cpu_to_f32_, BMM__N)(fbias, 1, (const BMM__T *)pl->bias, 1, n);
  if (shared) BMM__FN(cvt_operand)(pl, &pl->b, 1, 0, 1, k, n, fb, 0, 1);
  for (u = u0; u < u1; ++u) {
    const int64_t b0 = u * E, cnt = pl->batch - b0 < E ? pl->batch - b0 : E;
    const bmm_plan q = bmm__cpu_cvt_plan(pl, cnt, fa, fb, fc, fbias);
    bmm__cpu_choice c = bmm__cpu_pick_native(&q);
    c.stream = c.prefetch = c.pf_l2 = 0; /* the chunk is to stay in cache */
    BMM__FN(cvt_operand)(pl, &pl->a, 0, b0, cnt, m, k, fa, inner, 1);
    if (!shared) BMM__FN(cvt_operand)(pl, &pl->b, 1, b0, cnt, k, n, fb, inner, 1);
    if (pl->read_c) BMM__FN(cvt_operand)(pl, &pl->c, 2, b0, cnt, m, n, fc, inner, 1);
    if (fn) bmm__cpu_parallel(&q, &c, fn);
    BMM__FN(cvt_operand)(pl, &pl->c, 2, b0, cnt, m, n, fc, inner, 0);
  }
  free(buf);
}

#if BMM__CAT(BMM__CPU_FUSED_, BMM__N)
/* ---- cpu_small's dot form on the halves themselves (bmm__cpu_fused) -------
   The f32 kernel's sums in the f32 kernel's order (BMM__FN(small_dot_entry)
   of the f32 section: two 16-byte sums over 2-vector steps, one more vector
   step if it fits, scalars for the rest, the same horizontal adds), each
   vector loaded as 4 halves and widened in the register; the epilogue is the
   f32 store's, then C is rounded once. A product of two halves is exact in
   f32 (11 + 11 or 8 + 8 bits), so a multiply-add and a multiply then an add
   round alike, and every result has the bits of the converting driver
   running the f32 kernel (tests/test_cpu.c, "half_fused", checks that). */
BMM__INLINE bmm__v16_f32 BMM__FN(load4)(const BMM__T *p) {
  const __m128i h = _mm_loadl_epi64((const __m128i *)(const void *)p);
#ifdef BMM__CPU_HALF_IS_BF16
  return (bmm__v16_f32)_mm_unpacklo_epi16(_mm_setzero_si128(), h);
#else
  return (bmm__v16_f32)_mm_cvtph_ps(h);
#endif
}
/* 4 f32 lanes rounded to halves (bit-equal to bmm.h's scalar rounding), the
   first M <= 4 stored */
BMM__INLINE void BMM__FN(store4)(BMM__T *C, bmm__v16_f32 v, const int M) {
#ifdef BMM__CPU_HALF_IS_BF16
  /* bmm_f32_to_bf16 in SSE2 lanes (as bmm__cpu_bf16_round8), then the low
     halves sign-extended so that packs moves their bits unchanged */
  const __m128i x = (__m128i)v, hi = _mm_srli_epi32(x, 16);
  const __m128i nan =
      _mm_cmpgt_epi32(_mm_and_si128(x, _mm_set1_epi32(0x7fffffff)), _mm_set1_epi32(0x7f800000));
  const __m128i r = _mm_srli_epi32(
      _mm_add_epi32(_mm_add_epi32(x, _mm_set1_epi32(0x7fff)), _mm_and_si128(hi, _mm_set1_epi32(1))),
      16);
  const __m128i q = _mm_or_si128(_mm_andnot_si128(nan, r),
                                 _mm_and_si128(nan, _mm_or_si128(hi, _mm_set1_epi32(0x40))));
  const __m128i h = _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(q, 16), 16), q);
#else
  const __m128i h = _mm_cvtps_ph((__m128)v, _MM_FROUND_TO_NEAREST_INT);
#endif
  BMM__T out[8];
  int i;
  _mm_storeu_si128((__m128i *)(void *)out, h);
  for (i = 0; i < M; ++i)
    C[i] = out[i];
}
#ifdef BMM__CPU_HALF_IS_BF16
#define BMM__LOAD1(x) BMM__TOF(x)
#else
#define BMM__LOAD1(x) _cvtsh_ss(x) /* vcvtph2ps of one lane, not bmm.h's branches */
#endif
/* Lane i: the sum of the last r lanes of p[i] in order from 0, as the f32
   kernel's scalar tail adds them (the lanes are exact products), with the
   columns of p taken by a transpose rather than one element at a time */
BMM__INLINE bmm__v16_f32 BMM__FN(tail_sums)(const bmm__v16_f32 *p, const int r) {
  bmm__v16_f32 t = {0};
  int j;
#if defined(__clang__) || __GNUC__ >= 12
  const bmm__v16_f32 lo01 = __builtin_shufflevector(p[0], p[1], 0, 4, 1, 5);
  const bmm__v16_f32 hi01 = __builtin_shufflevector(p[0], p[1], 2, 6, 3, 7);
  const bmm__v16_f32 lo23 = __builtin_shufflevector(p[2], p[3], 0, 4, 1, 5);
  const bmm__v16_f32 hi23 = __builtin_shufflevector(p[2], p[3], 2, 6, 3, 7);
  bmm__v16_f32 col[4];
  col[0] = __builtin_shufflevector(lo01, lo23, 0, 1, 4, 5);
  col[1] = __builtin_shufflevector(lo01, lo23, 2, 3, 6, 7);
  col[2] = __builtin_shufflevector(hi01, hi23, 0, 1, 4, 5);
  col[3] = __builtin_shufflevector(hi01, hi23, 2, 3, 6, 7);
  for (j = 4 - r; j < 4; ++j)
    t += col[j];
#else
  int i;
  for (i = 0; i < 4; ++i)
    for (j = 4 - r; j < 4; ++j)
      t[i] += p[i][j];
#endif
  return t;
}
/* One batch entry bi, M <= 4 rows; bias the bias as f32 (-0.0 without one),
   rc: beta*C is read. K >= 4 takes the scalar tail's K % 4 products from one
   vector load that ends where the row ends (it starts inside the entry). */
BMM__INLINE void BMM__FN(small_dot_entry)(const bmm_plan *pl, int64_t bi, const int M,
                                          const int64_t K, float al, float be, float bias, int rc) {
  enum { V = 4 };
  const BMM__T *BMM__RESTRICT A = (const BMM__T *)pl->a.ptr + bi * pl->a.batch_stride[0];
  const BMM__T *BMM__RESTRICT B = (const BMM__T *)pl->b.ptr + bi * pl->b.batch_stride[0];
  BMM__T *BMM__RESTRICT C = (BMM__T *)pl->c.ptr + bi * pl->c.batch_stride[0];
  bmm__v16_f32 s[4], s1[4], p[4], tv = {0}, av, rv = {bias, bias, bias, bias};
  float acc[4];
  int64_t i, l;
  /* the rows side by side in each step of l, as the f32 kernel (B's halves
     widened once a step); each row's sums in the f32 kernel's order */
  BMM__UNROLL for (i = 0; i < 4; ++i) s[i] = s1[i] = p[i] = (bmm__v16_f32){0};
  for (l = 0; l + 2 * V <= K; l += 2 * V) {
    const bmm__v16_f32 b0 = BMM__FN(load4)(B + l), b1 = BMM__FN(load4)(B + l + V);
    BMM__UNROLL for (i = 0; i < M; ++i) {
      s[i] += BMM__FN(load4)(A + i * K + l) * b0;
      s1[i] += BMM__FN(load4)(A + i * K + l + V) * b1;
    }
  }
  if (K - l >= V) {
    const bmm__v16_f32 b0 = BMM__FN(load4)(B + l);
    BMM__UNROLL for (i = 0; i < M; ++i) s[i] += BMM__FN(load4)(A + i * K + l) * b0;
    l += V;
  }
  if (K >= V) {
    if (K % V) {
      const bmm__v16_f32 bt = BMM__FN(load4)(B + K - V);
      BMM__UNROLL for (i = 0; i < M; ++i) p[i] = BMM__FN(load4)(A + i * K + K - V) * bt;
    }
  } else {
    BMM__UNROLL for (i = 0; i < M; ++i) {
      float t = 0;
      int64_t j;
      for (j = l; j < K; ++j)
        t = BMM__FMA_f32(BMM__LOAD1(A[i * K + j]), BMM__LOAD1(B[j]), t);
      tv[i] = t;
    }
  }
  if (K >= 2 * V) BMM__UNROLL for (i = 0; i < M; ++i) s[i] += s1[i];
  if (K >= V && K % V) tv = BMM__FN(tail_sums)(p, (int)(K % V));
  bmm__hsum_f32(s, acc);
  av[0] = acc[0], av[1] = acc[1], av[2] = acc[2], av[3] = acc[3];
  av += tv;
  if (rc)
    for (i = 0; i < M; ++i)
      rv[i] = BMM__FMA_f32(be, BMM__LOAD1(C[i]), rv[i]);
  /* the f32 store's multiply-add on 4 lanes, then 4 roundings at once (bmm.h's
     scalar rounding was a third of the f16 kernel's instructions) */
  BMM__V16FMA_f32(al, av, rv);
  BMM__FN(store4)(C, rv, M);
}
/* The epilogue's operands as arguments, constants for the plain case
   (alpha 1, beta 0, no bias) so that it tests nothing per entry; pf: the
   prefetch distance in bytes (bmm__cpu_choice.prefetch), 0 for none. */
BMM__INLINE void BMM__FN(small_dot_range)(const bmm_plan *pl, int64_t b0, int64_t b1, const int S,
                                          const int pf, const int M, const int64_t K, float al,
                                          float be, float bias, int rc) {
  const int64_t len = BMM__CPU_RUN_LEN(b0, b1, S);
  int64_t u, q;
  if (pf) { /* one run (streams 1), out of cache */
    bmm__cpu_pf p = bmm__cpu_pf_init(pl, b0, pf);
    for (u = b0; u < b1; ++u) {
      bmm__cpu_pf_entry(&p);
      BMM__FN(small_dot_entry)(pl, u, M, K, al, be, bias, rc);
    }
    return;
  }
  for (u = 0; u < len; ++u)
    for (q = 0; q < S; ++q)
      BMM__FN(small_dot_entry)(pl, b0 + q * len + u, M, K, al, be, bias, rc);
  for (u = b0 + S * len; u < b1; ++u)
    BMM__FN(small_dot_entry)(pl, u, M, K, al, be, bias, rc);
}
#if BMM__CAT(BMM__CPU_VROWS_, BMM__N)
/* ---- the dot form, 16 rows of C to a vector (bmm__cpu_pick's vrows) -------
   The rows of C of a packed call are rows of A one after another (row r of
   entry r / M at A + r*K), each dotted with its entry's B. 16 rows make a
   vector of sums, lane r row r. K <= 8: the 16 rows are transposed to
   columns by 16-bit permutations of their halves as loaded (A's 16 K halves
   in 32-half loads, B's for the entries the rows fall in: column c's lane r
   is element c of row r) and summed column 0, + column 1, ... in turn: no
   horizontal sums (3x1x3 to 3x1x8 f16 0.68-0.94x the time of a segment of P
   lanes a row and a tree, one thread in cache, bench/notes/cpu.md). K > 8:
   a row a vector (products of 16-element chunks summed lane by lane, the
   last chunk masked), then a tree of shuffles (vtree), 16 vectors to one.
   Every row gets the same operations wherever it sits, so neither the range
   split nor the group a row falls in changes a bit; the order is this
   path's own, not the f32 kernel's (tests/test_cpu.c, "half_fused", models
   it lane by lane). Nothing is written outside the rows of the range, nor
   read outside the problem's A and B (vload16, vload32). */
#ifdef BMM__CPU_HALF_IS_BF16
#define BMM__VCOL_BF16 1 /* the columns' layout (bmm__cpu_vcol_idx) */
#else
#define BMM__VCOL_BF16 0
#endif
BMM__INLINE __m512 BMM__FN(cvt16)(__m256i h) {
#ifdef BMM__CPU_HALF_IS_BF16
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
#else
  return _mm512_cvtph_ps(h);
#endif
}
/* The first n <= 16 halves at p and (wide) whatever 16 - n follow, or
   (not wide) zeros: a masked load touches nothing past them, but out of
   cache it took 3-6x the time of a plain one on Zen 5 (3x1x5 f16: 7.8 ns an
   entry against 1.7 in cache), so whole blocks with more entries after them
   load 16 (vrows_block). */
BMM__INLINE __m256i BMM__FN(vraw16)(const BMM__T *p, int64_t n, int wide) {
  return n >= 16 || wide ? _mm256_loadu_si256((const __m256i *)(const void *)p)
                         : _mm256_maskz_loadu_epi16((__mmask16)((1u << n) - 1u), (const void *)p);
}
BMM__INLINE __m512 BMM__FN(vload16)(const BMM__T *p, int64_t n, int wide) {
  return BMM__FN(cvt16)(BMM__FN(vraw16)(p, n, wide));
}
/* cvt16 of the first n = 1..16 halves of h, zeros past them (whatever h
   holds there). bf16: one 16-bit permutation that moves half l to the top
   of lane l and zeros the rest, the mask folded into it; a zero-extension,
   a shift and a zero-masking move (gcc folds the mask into neither) took
   1.24-1.32x the time, 1 thread in cache, Zen 4, K = 9..40 (the permutation
   on whole chunks too: 1.2x at K = 17..32, where its port is the tree's).
   The masks without a branch on n == 16: f16 K = 9..12 took 1.1x the time
   with one. bench/notes/cpu.md, "bf16: the last chunk in one op". */
BMM__INLINE __m512 BMM__FN(cvt16n)(__m256i h, int64_t n) {
#ifdef BMM__CPU_HALF_IS_BF16
  const __m512i up = _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0, 7, 0, 6,
                                      0, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 0, 0);
  const __mmask32 m = (__mmask32)(0xaaaaaaaau & ((1ull << 2 * n) - 1u));
  return _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(m, up, _mm512_castsi256_si512(h)));
#else
  return _mm512_maskz_cvtph_ps((__mmask16)((1u << n) - 1u), h);
#endif
}
BMM__INLINE __m256i BMM__FN(vhalf16)(__m512 v) {
#ifdef BMM__CPU_HALF_IS_BF16
#if BMM__CPU_AVX512BF16
  { /* vcvtneps2bf16 and a class test where the shifts and adds below take
       eight; a vector holding an f32 subnormal goes on below */
    __mmask16 sub;
    const __m256i h = bmm__cpu_bf16_cvtne16(v, &sub);
    if (!sub) return h;
  }
#endif
  /* bmm_f32_to_bf16 on 16 lanes (as bmm__cpu_bf16_round8 on 8; twice that
     took 22 instructions and, in the unrolled groups, 5 constants that gcc
     rebuilt for every group) */
  const __m512i x = _mm512_castps_si512(v), hi = _mm512_srli_epi32(x, 16);
  const __m512i r =
      _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)),
                                         _mm512_and_si512(hi, _mm512_set1_epi32(1))),
                        16);
  return _mm512_cvtepi32_epi16(
      _mm512_mask_or_epi32(r, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), hi, _mm512_set1_epi32(0x40)));
#else
  return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#endif
}
BMM__INLINE void BMM__FN(vstore16)(BMM__T *p, __m512 v, int64_t n) {
  const __m256i h = BMM__FN(vhalf16)(v);
  if (n >= 16)
    _mm256_storeu_si256((__m256i *)(void *)p, h);
  else
    _mm256_mask_storeu_epi16((void *)p, (__mmask16)((1u << n) - 1u), h);
}
/* The first n halves at p, 32 if wide (whatever follows them), none if n <= 0 */
BMM__INLINE __m512i BMM__FN(vload32)(const BMM__T *p, int64_t n, int wide) {
  return n >= 32 || (wide && n > 0) ? _mm512_loadu_si512((const void *)p)
         : n > 0 ? _mm512_maskz_loadu_epi16((__mmask32)((1ull << n) - 1u), (const void *)p)
                 : _mm512_setzero_si512();
}
/* Columns of 16 rows (bmm__cpu_vcol_idx) from the n <= 4 loads x of the
   rows' halves: one 16-bit permutation per pair of loads, blended (hi: the
   lanes from the second pair) */
BMM__INLINE __m512i BMM__FN(vcol)(const __m512i *x, __m512i idx, __mmask32 hi, int n) {
  const __m512i lo = _mm512_permutex2var_epi16(x[0], idx, x[1]);
  return n > 2 ? _mm512_mask_blend_epi16(hi, lo, _mm512_permutex2var_epi16(x[2], idx, x[3])) : lo;
}
/* A row of K = 9..BMM__CPU_VROWS_KMAX halves at p as P / 16 vectors (vector
   c lane l element 16c + l), zeros past K (wide: loads of whole chunks,
   whatever follows K masked off; else nothing past K read). (bf16 past 16 as 32-element chunks
   split into even and odd elements by a shift and a mask, 2 ops for 32 halves against 2 for 16
   here: 1.15-1.6x the time on Zen 5, gcc spilling the 64-byte loads; bench/notes/cpu.md.) */
BMM__INLINE void BMM__FN(vrowvec)(__m512 *x, const BMM__T *p, const int64_t K, const int P,
                                  const int wide) {
  const int ch = P / 16;
  const int64_t n = K - 16 * (ch - 1); /* the last chunk's halves */
  int c;
  BMM__UNROLL for (c = 0; c + 1 < ch; ++c) x[c] = BMM__FN(vload16)(p + 16 * c, 16, wide);
  x[ch - 1] = BMM__FN(cvt16n)(BMM__FN(vraw16)(p + 16 * (ch - 1), n, wide), n);
}
/* 16 vectors of 16 lanes to one, lane r the sum of v[r]'s lanes e0..e15 as
   ((s0 + s1) + (s2 + s3)), s_q = (e_4q + e_4q+2) + (e_4q+1 + e_4q+3): the
   first two levels in-lane shuffles (unpack, shufps: 4 a cycle on Zen 5,
   where the two-source vpermt2ps of a pairwise tree took 1.5 a cycle and
   the adds' pipes: K = 9..16 spent most of its time there), the last two
   shuffles of 128-bit quarters. */
BMM__INLINE __m512 BMM__FN(vtree)(__m512 *v) {
  int j;
  BMM__UNROLL for (j = 0; j < 8; ++j) /* rows 2j, 2j+1 in turn: e_4q + e_4q+2, e_4q+1 + e_4q+3 */
      v[j] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * j], v[2 * j + 1]),
                           _mm512_unpackhi_ps(v[2 * j], v[2 * j + 1]));
  BMM__UNROLL for (j = 0; j < 4; ++j) /* quarter q: s_q of rows 4j..4j+3 */
      v[j] = _mm512_add_ps(_mm512_shuffle_ps(v[2 * j], v[2 * j + 1], 0x44),
                           _mm512_shuffle_ps(v[2 * j], v[2 * j + 1], 0xee));
  BMM__UNROLL for (j = 0; j < 2; ++j) /* rows 8j..8j+3: s0 + s1, s2 + s3; then 8j+4.. */
      v[j] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], 0x88),
                           _mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], 0xdd));
  return _mm512_add_ps(_mm512_shuffle_f32x4(v[0], v[1], 0x88),
                       _mm512_shuffle_f32x4(v[0], v[1], 0xdd));
}
/* What a run of groups shares: the operands at entry 0, B's entry stride
   (K, or 0 for a shared B), the columns' permutations (vcol) of A and of B
   for each first row % M, and the epilogue's operands */
typedef struct BMM__FN(vr) {
  const BMM__T *a, *b;
  BMM__T *c;
  int64_t kb, batch;
  __m512i acol[4], bcol[4][4], b1idx[4];
  __mmask32 amask[4], bmask[4][4];
  __m512 al, be, bias;
} BMM__FN(vr);
/* Rows [o, o + 16) of the rows that start at entry e's first (C's row e*M
   + o is lane 0), those below rn (a multiple of M: the rows of whole entries
   there are) computed, the epilogue's included, lanes past rn undefined; P:
   lanes a row (1..16, or K > 16: 16 a chunk of K, a vector a row). All
   offsets are from entry e, so that a whole block's (vrows_range) are
   constants. */
BMM__INLINE __m512 BMM__FN(vrows_sum)(const BMM__FN(vr) * g, int64_t e, int64_t o, int64_t rn,
                                      const int M, const int64_t K, const int P, const int wide,
                                      const int plain, const int rc) {
  const BMM__T *A = g->a + e * M * K, *B = g->b + e * g->kb;
  BMM__T *C = g->c + e * M;
  const int64_t nr = rn - o < 16 ? rn - o : 16;
  const int wideb = wide && g->kb; /* a shared B has K halves, no more */
  __m512 v[16];
  int j;
  if (P <= 8) { /* columns: sum = A's column 0 x B's + column 1 x B's ... */
    const int64_t na = nr * K, f0 = o / M, ph = o % M;
    const int64_t nw = g->kb ? ((o + 15) / M - f0 + 1) * K : K; /* B's halves for 16 rows */
    const int64_t nb = g->kb ? ((o + nr - 1) / M - f0 + 1) * K : K;
    const int sa = (int)((16 * K + 31) / 32), sb = (int)((nw + 31) / 32);
    const BMM__T *Bg = B + f0 * g->kb;
    __m512i xa[4], xb[4];
    __m512 sum = _mm512_setzero_ps();
    int q;
    BMM__UNROLL for (j = 0; j < 4; ++j) {
      xa[j] =
          j < sa ? BMM__FN(vload32)(A + o * K + 32 * j, na - 32 * j, wide) : _mm512_setzero_si512();
      xb[j] = j < sb ? BMM__FN(vload32)(Bg + 32 * j, nb - 32 * j, wideb) : _mm512_setzero_si512();
    }
#ifdef BMM__CPU_HALF_IS_BF16
    BMM__UNROLL for (q = 0; q < (P + 1) / 2; ++q) { /* two columns a permutation, in f32 lanes */
      const __m512i up = _mm512_set1_epi32((int)0xffff0000u);
      __m512i ca, cb;
      if (2 * q >= K) break;
      ca = BMM__FN(vcol)(xa, g->acol[q], g->amask[q], sa);
      cb = BMM__FN(vcol)(xb, g->bcol[ph][q], g->bmask[ph][q], sb);
      {
        const __m512 a0 = _mm512_castsi512_ps(_mm512_and_si512(ca, up)),
                     b0 = _mm512_castsi512_ps(_mm512_and_si512(cb, up));
        sum = q == 0 ? _mm512_mul_ps(a0, b0) : _mm512_fmadd_ps(a0, b0, sum);
      }
      if (2 * q + 1 < K)
        sum = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(ca, 16)),
                              _mm512_castsi512_ps(_mm512_slli_epi32(cb, 16)), sum);
    }
#else
    if (K == 1) /* A's halves are the column; B's converted, then permuted as f32 (16-bit
                   permutations: 3x1x1 1.15x the time) */
      sum = _mm512_mul_ps(BMM__FN(cvt16)(_mm512_castsi512_si256(xa[0])),
                          _mm512_permutexvar_ps(g->b1idx[ph], BMM__FN(vload16)(Bg, nb, wideb)));
    else
      BMM__UNROLL for (q = 0; q < (P + 1) / 2; ++q) { /* two columns a permutation */
        __m512i ca, cb;
        if (2 * q >= K) break;
        ca = BMM__FN(vcol)(xa, g->acol[q], g->amask[q], sa);
        cb = BMM__FN(vcol)(xb, g->bcol[ph][q], g->bmask[ph][q], sb);
        sum = q == 0 ? _mm512_mul_ps(BMM__FN(cvt16)(_mm512_castsi512_si256(ca)),
                                     BMM__FN(cvt16)(_mm512_castsi512_si256(cb)))
                     : _mm512_fmadd_ps(BMM__FN(cvt16)(_mm512_castsi512_si256(ca)),
                                       BMM__FN(cvt16)(_mm512_castsi512_si256(cb)), sum);
        if (2 * q + 1 < K)
          sum = _mm512_fmadd_ps(BMM__FN(cvt16)(_mm512_extracti64x4_epi64(ca, 1)),
                                BMM__FN(cvt16)(_mm512_extracti64x4_epi64(cb, 1)), sum);
      }
#endif
    v[0] = sum; /* no tree */
  } else {      /* K in 9..BMM__CPU_VROWS_KMAX: a row a vector (vrowvec) */
    __m512 xb[4], xa[4];
    int c;
    BMM__UNROLL for (c = 0; c < 4; ++c) /* set below; gcc cannot tell */
        xb[c] = _mm512_setzero_ps();
    BMM__UNROLL for (j = 0; j < 16; ++j) {
      const int64_t r = o + j, f = r / M;
      __m512 acc;
      if (j >= nr) {
        v[j] = _mm512_setzero_ps();
        continue;
      }
      if (j == 0 || r % M == 0) /* this row starts an entry, or the group */
        BMM__FN(vrowvec)(xb, B + f * g->kb, K, P, wideb);
      BMM__FN(vrowvec)(xa, A + r * K, K, P, wide);
      acc = _mm512_mul_ps(xa[0], xb[0]);
      BMM__UNROLL for (c = 1; c < 4; ++c) /* lanes past K: 0 * 0 */
          if (c < P / 16) acc = _mm512_fmadd_ps(xa[c], xb[c], acc);
      v[j] = acc;
    }
    v[0] = BMM__FN(vtree)(v);
  }
  if (!plain) { /* the f32 store's multiply-adds */
    __m512 r = g->bias;
    if (rc) r = _mm512_fmadd_ps(g->be, BMM__FN(vload16)(C + o, nr, 0), r);
    v[0] = _mm512_fmadd_ps(g->al, v[0], r);
  }
  return v[0];
}
/* ... and stored */
BMM__INLINE void BMM__FN(vrows_group)(const BMM__FN(vr) * g, int64_t e, int64_t o, int64_t rn,
                                      const int M, const int64_t K, const int P, const int wide,
                                      const int plain, const int rc) {
  const __m512 v = BMM__FN(vrows_sum)(g, e, o, rn, M, K, P, wide, plain, rc);
  BMM__FN(vstore16)(g->c + e * M + o, v, rn - o < 16 ? rn - o : 16);
}
/* span: n <= 16 entries from e, rows at run-time offsets, loads masked;
   block: the 16 L entries from e (L = 1, or 2: C's 32 L M halves from a
   64-byte line on, whole lines streamed), L M groups at constant offsets,
   and where 16 more entries of A and B follow them (32 where K = 1: a
   group's loads read up to 31 halves past its own, vload32) every load a
   plain one (the problem's last blocks go as spans) */
BMM__INLINE void BMM__FN(vrows_span)(const BMM__FN(vr) * g, int64_t e, int64_t n, const int M,
                                     const int64_t K, const int P, const int plain, const int rc) {
  int64_t o;
  for (o = 0; o < n * M; o += 16)
    BMM__FN(vrows_group)(g, e, o, n * M, M, K, P, 0, plain, rc);
}
BMM__INLINE void BMM__FN(vrows_block)(const BMM__FN(vr) * g, int64_t e, const int M,
                                      const int64_t K, const int P, const int pf, const int plain,
                                      const int rc, const int L) {
  __m256i h = _mm256_setzero_si256(); /* the even group's halves of a line */
  int t;
  if (e + 16 * L + (K < 2 ? 32 : 16) > g->batch) {
    BMM__UNROLL for (t = 0; t < L; ++t) BMM__FN(vrows_span)(g, e + 16 * t, 16, M, K, P, plain, rc);
    return;
  }
  /* A's and B's bytes of a group (B's share of them) */
  const int64_t as = 16 * K * (int64_t)sizeof(BMM__T), bs = 16 * g->kb * (int64_t)sizeof(BMM__T);
  const uintptr_t pa = (uintptr_t)(g->a + e * M * K) + (uintptr_t)pf;
  const uintptr_t pb = (uintptr_t)(g->b + e * g->kb) + (uintptr_t)pf;
  int64_t q;
  if (pf && as < 64) { /* groups of under a line of A: the block's lines at once */
    for (q = 0; q < L * M * as; q += 64)
      BMM__PREFETCH((const void *)(pa + (uintptr_t)q));
    for (q = 0; q < L * bs; q += 64)
      BMM__PREFETCH((const void *)(pb + (uintptr_t)q));
  }
  BMM__UNROLL for (t = 0; t < L * M; ++t) {
    if (pf && as >= 64) {
      /* group t's share of the block's lines of A and B, pf bytes ahead,
         then a compiler barrier: 0.89-1.01 of the time of the block's lines
         asked all at once before its first group (Intel, f16/bf16 3x1xK, K =
         1..64, 2 GB calls, 2 threads; geomean 0.94); without the barrier gcc
         12's code ran f16 3x1x8 at 1.08x the time of a build with it, a
         reason not found (bench/notes/cpu.md, "the halves' block prefetch
         per group") */
      for (q = t * as; q < (t + 1) * as; q += 64)
        BMM__PREFETCH((const void *)(pa + (uintptr_t)q));
      for (q = t * bs / M; q < (t + 1) * bs / M; q += 64)
        BMM__PREFETCH((const void *)(pb + (uintptr_t)q));
      __asm__ __volatile__("" ::: "memory");
    }
    if (L == 1) {
      BMM__FN(vrows_group)(g, e, 16 * t, 16 * M, M, K, P, 1, plain, rc);
    } else { /* two groups a line of C, streamed whole */
      const __m256i x =
          BMM__FN(vhalf16)(BMM__FN(vrows_sum)(g, e, 16 * t, 32 * M, M, K, P, 1, plain, rc));
      if (t % 2 == 0)
        h = x;
      else
        _mm512_stream_si512((__m512i *)(void *)(g->c + e * M + 16 * (t - 1)),
                            _mm512_inserti64x4(_mm512_castsi256_si512(h), x, 1));
    }
  }
}
/* Entries [b0, b1) as ch->streams interleaved runs (a block of 16 entries
   from each in turn), the runs' last entries (under 16), the rest after
   them. */
BMM__INLINE void BMM__FN(vrows_range)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0,
                                      int64_t b1, const int M, const int64_t K, const int P,
                                      const int plain, const int rc) {
  const int S = ch->streams, pf = ch->prefetch;
  const int64_t len = BMM__CPU_RUN_LEN(b0, b1, S), x = b0 + S * len;
  BMM__FN(vr) g;
  int j;
  g.a = (const BMM__T *)pl->a.ptr, g.b = (const BMM__T *)pl->b.ptr, g.c = (BMM__T *)pl->c.ptr;
  g.kb = pl->b.batch_stride[0], g.batch = pl->batch;
  for (j = 0; j < M; ++j) { /* K = 1: lane r of B's column from row j + r's entry */
    int idx[16], r;
    for (r = 0; r < 16; ++r)
      idx[r] = g.kb ? (j + r) / M : 0;
    g.b1idx[j] = _mm512_loadu_si512((const void *)idx);
  }
  if (P <= 8) /* the columns' halves: A's row r at r*K, B's at its entry's */
    for (j = 0; j < 4; ++j) {
      int ph;
      bmm__cpu_vcol_idx(&g.acol[j], &g.amask[j], j, BMM__VCOL_BF16, K, 0, 1, K);
      for (ph = 0; ph < M; ++ph)
        bmm__cpu_vcol_idx(&g.bcol[ph][j], &g.bmask[ph][j], j, BMM__VCOL_BF16, K, ph, M, g.kb);
    }
  g.al = _mm512_set1_ps((float)pl->alpha), g.be = _mm512_set1_ps((float)pl->beta);
  g.bias = _mm512_set1_ps(pl->bias ? BMM__TOF(((const BMM__T *)pl->bias)[0]) : -0.0f);
  int64_t u, q, y = x, l;
  for (u = 0; u < len / 16; ++u)
    for (q = 0; q < S; ++q)
      BMM__FN(vrows_block)(&g, b0 + q * len + 16 * u, M, K, P, pf, plain, rc, 1);
  for (q = 0; q < S; ++q)
    BMM__FN(vrows_span)(&g, b0 + q * len + len / 16 * 16, len % 16, M, K, P, plain, rc);
  if (P <= 8 && ch->stream &&
      (l = bmm__cpu_line_entry(g.c, (int64_t)sizeof(BMM__T), M, x, b1, 32)) >= 0) {
    for (u = x; u < l; u += 16) /* entries up to C's next line plainly, then lines streamed */
      BMM__FN(vrows_span)(&g, u, l - u < 16 ? l - u : 16, M, K, P, plain, rc);
    for (y = l; y + 32 <= b1; y += 32)
      BMM__FN(vrows_block)(&g, y, M, K, P, pf, plain, rc, 2);
  }
  for (u = 0; u < (b1 - y) / 16; ++u)
    BMM__FN(vrows_block)(&g, y + 16 * u, M, K, P, pf, plain, rc, 1);
  BMM__FN(vrows_span)(&g, y + (b1 - y) / 16 * 16, (b1 - y) % 16, M, K, P, plain, rc);
}
/* One function per m (M = 1..4) and k up to 8 or lanes a row P past it
   (bmm__cpu_vrows_p), for every dot kernel of the dtype (past 8, k is the
   plan's: constants M and P fix every offset; one per kernel, with copies
   for the plain epilogue and the wide loads, took gcc 12 minutes over
   tools/ab/ab_lib.c). k a constant up to 8: the columns' loop counts and
   loads are constants, 3x1x3 to 3x1x8 0.41-0.93x the time of one function
   per power of two (bench/notes/cpu.md). */
#define BMM__VROWS_DEF(M, PI, P)                                                       \
  static BMM__VEXT_ATTR void BMM__FN(vrows_##M##_##PI)(                                \
      const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {         \
    const int plain = (float)pl->alpha == 1.0f && !pl->read_c && !pl->bias;            \
    BMM__FN(vrows_range)(pl, ch, b0, b1, M, P <= 8 ? P : pl->k, P, plain, pl->read_c); \
  }
/* the list by hand: clang-format reflows it differently on every pass */
/* clang-format off */
#define BMM__VROWS_M(X, M)                                                      \
  X(M, 0, 1) X(M, 1, 2) X(M, 2, 3) X(M, 3, 4) X(M, 4, 5) X(M, 5, 6) X(M, 6, 7) \
  X(M, 7, 8) X(M, 8, 16) X(M, 9, 32) X(M, 10, 48) X(M, 11, 64)
/* clang-format on */
BMM__CPU_DOT_MS(BMM__VROWS_M, BMM__VROWS_DEF)
#define BMM__VROWS_FN(M, PI, P) BMM__FN(vrows_##M##_##PI),
#define BMM__VROWS_ROW(FN, M) {BMM__VROWS_M(FN, M)},
static const bmm__cpu_range_fn BMM__FN(vrows_fns)[4][12] = {
    BMM__CPU_DOT_MS(BMM__VROWS_ROW, BMM__VROWS_FN)};
#undef BMM__VROWS_ROW
#undef BMM__VROWS_FN
#undef BMM__VROWS_M
#undef BMM__VROWS_DEF
#undef BMM__VCOL_BF16
#endif
BMM__INLINE void BMM__FN(small_dot)(const bmm_plan *plan, const bmm__cpu_choice *ch, int64_t b0,
                                    int64_t b1, const int M, const int64_t K) {
  const bmm_plan lp = *plan, *pl = &lp; /* kept in registers: as the f32 kernel's */
  float al, be, bias;
#if BMM__CAT(BMM__CPU_VROWS_, BMM__N)
  if (ch->vrows) {
    BMM__FN(vrows_fns)[M - 1][bmm__cpu_vrows_p(K)](plan, ch, b0, b1);
    return;
  }
#endif
  al = (float)pl->alpha, be = (float)pl->beta;
  bias = pl->bias ? BMM__LOAD1(((const BMM__T *)pl->bias)[0]) : -0.0f;
  if (ch->prefetch)
    BMM__FN(small_dot_range)(pl, b0, b1, 1, ch->prefetch, M, K, al, be, bias, pl->read_c);
  else if (al == 1.0f && !pl->read_c && !pl->bias)
    BMM__FN(small_dot_range)(pl, b0, b1, ch->streams, 0, M, K, 1.0f, 0.0f, -0.0f, 0);
  else
    BMM__FN(small_dot_range)(pl, b0, b1, ch->streams, 0, M, K, al, be, bias, pl->read_c);
}
/* the named kernels of the size list, dot form only */
#define BMM__HALF_DEF_axpy(M, N, K, SUFFIX)
#define BMM__HALF_DEF_dot(M, N, K, SUFFIX)                                     \
  static BMM__VEXT_ATTR void BMM__FN(small_dot_##SUFFIX)(                      \
      const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) { \
    BMM__FN(small_dot)(pl, ch, b0, b1, M, (K) ? (int64_t)(K) : pl->k);         \
  }
#define BMM__HALF_DEF(FORM, M, N, K, SUFFIX) BMM__HALF_DEF_##FORM(M, N, K, SUFFIX)
BMM__CPU_SMALL_SHAPES(BMM__HALF_DEF)
#undef BMM__HALF_DEF
#undef BMM__HALF_DEF_dot
#undef BMM__HALF_DEF_axpy
#define BMM__KFN_SMALL_dot(SUFFIX) BMM__FN(small_dot_##SUFFIX),
#undef BMM__LOAD1
#else
#define BMM__KFN_SMALL_dot(SUFFIX) BMM__FN(convert),
#endif

/* this dtype's kernels: its own ref and scale, cpu_small's dot form where
   it reads the halves itself (above), the driver for every other f32 one;
   none of the complex ones */
#define BMM__KFN_SMALL_axpy(SUFFIX) BMM__FN(convert),
#define BMM__KFN_OWN(NAME) BMM__FN(NAME),
#define BMM__KFN_CVT(NAME) BMM__FN(convert),
#define BMM__KFN_CVT_SHAPE(FORM, M, N, K, SUFFIX) BMM__FN(convert),
#define BMM__KFN_SMALL(FORM, M, N, K, SUFFIX) BMM__KFN_SMALL_##FORM(SUFFIX)
#define BMM__KFN_NONE(NAME) NULL,
static const bmm__cpu_range_fn BMM__FN(kernels)[BMM__CPU_KERNEL_COUNT] = {
    BMM__CPU_KERNELS(BMM__KFN_OWN, BMM__KFN_CVT, BMM__KFN_CVT_SHAPE, BMM__KFN_SMALL,
                     BMM__KFN_NONE)};
#undef BMM__KFN_OWN
#undef BMM__KFN_CVT
#undef BMM__KFN_CVT_SHAPE
#undef BMM__KFN_SMALL
#undef BMM__KFN_SMALL_dot
#undef BMM__KFN_SMALL_axpy
#undef BMM__KFN_NONE
#undef BMM__TOF
#undef BMM__FROMF

#else /* f32, f64: the kernels */
#define BMM__FMA(a, b, c) BMM__CAT(BMM__FMA_, BMM__N)(a, b, c)

/* The epilogue every kernel shares: C = alpha*acc + (beta*C + bias), every
   multiply-add written out as BMM__FMA so that the compiler has none left to
   contract. Under fp-contract=fast gcc may fuse alpha*acc or beta*C with an
   add in one inlined copy of a kernel's code and not in another, and which
   copy an entry runs can depend on the thread split (different bits). beta
   == 0 never reads C (NaN there is overwritten). Without a bias the sum
   starts from -0.0, the identity of + (a -0 result stays -0). */
BMM__INLINE void BMM__FN(epilogue)(const bmm_plan *pl, BMM__T *cp, BMM__T acc, int64_t j) {
  BMM__T r = pl->bias ? ((const BMM__T *)pl->bias)[j] : (BMM__T)-0.0;
  if (pl->read_c) r = BMM__FMA((BMM__T)pl->beta, *cp, r);
  *cp = BMM__FMA((BMM__T)pl->alpha, acc, r);
}

/* A, B and C of batch entry bi */
BMM__INLINE void BMM__FN(ptrs)(const bmm_plan *pl, int64_t bi, const BMM__T **A, const BMM__T **B,
                               BMM__T **C) {
  int64_t oa, ob, oc;
  bmm__cpu_offsets(pl, bi, &oa, &ob, &oc);
  *A = (const BMM__T *)pl->a.ptr + oa, *B = (const BMM__T *)pl->b.ptr + ob;
  *C = (BMM__T *)pl->c.ptr + oc;
}

/* Store cnt results acc[0..cnt) to C at stride cs, j0 + jstep*t being the
   column of result t (for the bias). Same arithmetic as the epilogue, with the
   branches hoisted so that each case is one vectorisable loop. nt: stream the
   stores past the caches (bmm__cpu_stream_c) where they are contiguous. */
BMM__INLINE void BMM__FN(store)(const bmm_plan *pl, BMM__T *cp, int64_t cs, const BMM__T *acc,
                                int64_t cnt, int64_t j0, int64_t jstep, int nt) {
  const BMM__T al = (BMM__T)pl->alpha, be = (BMM__T)pl->beta;
  const BMM__T *bias = (const BMM__T *)pl->bias;
  int64_t t;
  if (nt && cs == 1 && !bias) {
    for (t = 0; t < cnt; ++t)
      BMM__CAT(bmm__ntstore_, BMM__N)(cp + t, al * acc[t]);
  } else if (!pl->read_c && !bias) {
    for (t = 0; t < cnt; ++t)
      cp[t * cs] = al * acc[t];
  } else {
    for (t = 0; t < cnt; ++t) {
      BMM__T r = bias ? bias[j0 + jstep * t] : (BMM__T)-0.0;
      if (pl->read_c) r = BMM__FMA(be, cp[t * cs], r);
      cp[t * cs] = BMM__FMA(al, acc[t], r);
    }
  }
}

/* ---- cpu_dot: one batch entry at a time, any strides ----------------------
   The loop order (bmm__cpu_pick_dot_form) is a constant of each of the four
   kernels below. */
#define BMM__CPU_CHUNK 256 /* columns (or rows) accumulated at a time on the stack */

/* sum of x[l*xs]*y[l*ys], l < k, in W interleaved partial sums then a fixed tree */
static BMM__T BMM__FN(dotp)(const BMM__T *BMM__RESTRICT x, int64_t xs,
                            const BMM__T *BMM__RESTRICT y, int64_t ys, int64_t k) {
  BMM__T s[BMM__CPU_DOT_W] = {0}, t = 0;
  int64_t l = 0, v, w;
  if (xs == 1 && ys == 1) {
    for (; l + BMM__CPU_DOT_W <= k; l += BMM__CPU_DOT_W)
      for (v = 0; v < BMM__CPU_DOT_W; ++v)
        s[v] = BMM__FMA(x[l + v], y[l + v], s[v]);
  } else {
    for (; l + BMM__CPU_DOT_W <= k; l += BMM__CPU_DOT_W)
      for (v = 0; v < BMM__CPU_DOT_W; ++v)
        s[v] = BMM__FMA(x[(l + v) * xs], y[(l + v) * ys], s[v]);
  }
  for (; l < k; ++l)
    t = BMM__FMA(x[l * xs], y[l * ys], t);
  for (w = BMM__CPU_DOT_W / 2; w > 0; w /= 2)
    for (v = 0; v < w; ++v)
      s[v] += s[v + w];
  return s[0] + t;
}

BMM__INLINE void BMM__FN(dot)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1,
                              const int form) {
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;
  const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;
  const int64_t crs = pl->c.row_stride, ccs = pl->c.col_stride;
  const int nt = ch->stream;
  int64_t bi, i, j, l, t;
  BMM__T acc[BMM__CPU_CHUNK];
  for (bi = b0; bi < b1; ++bi) {
    const BMM__T *A, *B;
    BMM__T *C;
    BMM__FN(ptrs)(pl, bi, &A, &B, &C);
    if (form == BMM__CPU_K_dot_rows) {
      for (i = 0; i < m; ++i)
        for (j = 0; j < n; j += BMM__CPU_CHUNK) {
          const int64_t jn = n - j < BMM__CPU_CHUNK ? n - j : BMM__CPU_CHUNK;
          for (t = 0; t < jn; ++t)
            acc[t] = 0;
          for (l = 0; l < k; ++l) {
            const BMM__T a = A[i * ars + l * acs];
            const BMM__T *BMM__RESTRICT br = B + l * brs + j;
            for (t = 0; t < jn; ++t)
              acc[t] = BMM__FMA(a, br[t], acc[t]);
          }
          BMM__FN(store)(pl, C + i * crs + j * ccs, ccs, acc, jn, j, 1, nt);
        }
    } else if (form == BMM__CPU_K_dot_cols) {
      for (j = 0; j < n; ++j)
        for (i = 0; i < m; i += BMM__CPU_CHUNK) {
          const int64_t in = m - i < BMM__CPU_CHUNK ? m - i : BMM__CPU_CHUNK;
          for (t = 0; t < in; ++t)
            acc[t] = 0;
          for (l = 0; l < k; ++l) {
            const BMM__T b = B[l * brs + j * bcs];
            const BMM__T *BMM__RESTRICT ac = A + i + l * acs;
            for (t = 0; t < in; ++t)
              acc[t] = BMM__FMA(ac[t], b, acc[t]);
          }
          BMM__FN(store)(pl, C + i * crs + j * ccs, crs, acc, in, j, 0, nt);
        }
    } else if (form == BMM__CPU_K_dot_contig) {
      for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
          acc[0] = BMM__FN(dotp)(A + i * ars, 1, B + j * bcs, 1, k);
          BMM__FN(store)(pl, C + i * crs + j * ccs, 1, acc, 1, j, 0, nt);
        }
    } else {
      for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
          const BMM__T *ar = A + i * ars, *bc = B + j * bcs;
          BMM__T s0 = 0, s1 = 0;
          for (l = 0; l + 2 <= k; l += 2) {
            s0 = BMM__FMA(ar[l * acs], bc[l * brs], s0);
            s1 = BMM__FMA(ar[(l + 1) * acs], bc[(l + 1) * brs], s1);
          }
          if (l < k) s0 = BMM__FMA(ar[l * acs], bc[l * brs], s0);
          acc[0] = s0 + s1;
          BMM__FN(store)(pl, C + i * crs + j * ccs, 1, acc, 1, j, 0, nt);
        }
    }
  }
}
#define BMM__DOT_FORM_DEF(FORM)                                                        \
  static void BMM__FN(FORM)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, \
                            int64_t b1) {                                              \
    BMM__FN(dot)(pl, ch, b0, b1, BMM__CPU_K_##FORM);                                   \
  }
BMM__DOT_FORM_DEF(dot_rows)
BMM__DOT_FORM_DEF(dot_cols)
BMM__DOT_FORM_DEF(dot_contig)
BMM__DOT_FORM_DEF(dot_strided)
#undef BMM__DOT_FORM_DEF
#undef BMM__CPU_CHUNK

#if BMM__CPU_VEXT
#define BMM__VEC BMM__CAT(bmm__vec_, BMM__N)
#define BMM__UVEC BMM__CAT(bmm__uvec_, BMM__N)
#define BMM__V16 BMM__CAT(bmm__v16_, BMM__N)
#define BMM__VLOAD(p) (*(const BMM__UVEC *)(const void *)(p))
#define BMM__VSTORE(p, v) (*(BMM__UVEC *)(void *)(p) = (v))
#define BMM__V16LOAD(p) (*(const BMM__V16 *)(const void *)(p))
#define BMM__V16STORE(p, v) (*(BMM__V16 *)(void *)(p) = (v))
#define BMM__VFMA(a, x, r) BMM__CAT(BMM__VFMA_, BMM__N)(a, x, r)
#define BMM__V16FMA(a, x, r) BMM__CAT(BMM__V16FMA_, BMM__N)(a, x, r)
#if BMM__CPU_V32
#define BMM__V32 BMM__CAT(bmm__v32_, BMM__N)
#define BMM__V32LOAD(p) (*(const BMM__V32 *)(const void *)(p))
#define BMM__V32STORE(p, v) (*(BMM__V32 *)(void *)(p) = (v))
#define BMM__V32FMA(a, x, r) BMM__CAT(BMM__V32FMA_, BMM__N)(a, x, r)
#endif

#endif

/* ---- cpu_small: fixed-size register micro-kernels (size list above) ------
   Each body is written once with M, N, K as parameters; the size list makes a
   named kernel per shape that calls it with constants, and the compiler
   specialises each copy (M, N, K then fold like literals). */
#if BMM__CPU_VEXT
/* dot: per row of A, two 16-byte sums over 2-vector steps, one more vector
   step if it fits, scalars for the rest; the rows' lane sums in horizontal
   adds (1.2-2.8x a scalar-lane form at every K of 5..50; wider vectors were
   slower: bench/notes/cpu.md, "cpu_small dot"). M <= 4 rows of A, lda apart,
   against the column B into C, rows ldc apart. */
BMM__INLINE void BMM__FN(small_dot_rows)(const bmm_plan *pl, int nt, const BMM__T *BMM__RESTRICT A,
                                         const int64_t lda, const BMM__T *BMM__RESTRICT B,
                                         const int M, const int64_t K, BMM__T *BMM__RESTRICT C,
                                         const int64_t ldc, const int seq) {
  enum { V = 16 / (int)sizeof(BMM__T) };
  BMM__V16 s[4], s1[4];
  BMM__T t[4], acc[4];
  int64_t i, l;
  /* the rows side by side in each step of l (one loop, B's vectors loaded
     once, 2M sums in flight) or, seq (bmm__cpu_rowseq), a row at a time:
     each row's sums in the same order either way, so the same bits (the
     kernels of run-time k only: BMM__SEQ) */
  BMM__UNROLL for (i = 0; i < 4; ++i) s[i] = s1[i] = (BMM__V16){0}, t[i] = 0;
  if (seq) BMM__UNROLL for (i = 0; i < M; ++i) {
      for (l = 0; l + 2 * V <= K; l += 2 * V) {
        const BMM__V16 b0 = BMM__V16LOAD(B + l), b1 = BMM__V16LOAD(B + l + V);
        s[i] += BMM__V16LOAD(A + i * lda + l) * b0;
        s1[i] += BMM__V16LOAD(A + i * lda + l + V) * b1;
      }
      if (K - l >= V) s[i] += BMM__V16LOAD(A + i * lda + l) * BMM__V16LOAD(B + l), l += V;
      for (; l < K; ++l)
        t[i] = BMM__FMA(A[i * lda + l], B[l], t[i]);
    }
  else {
    for (l = 0; l + 2 * V <= K; l += 2 * V) {
      const BMM__V16 b0 = BMM__V16LOAD(B + l), b1 = BMM__V16LOAD(B + l + V);
      BMM__UNROLL for (i = 0; i < M; ++i) {
        s[i] += BMM__V16LOAD(A + i * lda + l) * b0;
        s1[i] += BMM__V16LOAD(A + i * lda + l + V) * b1;
      }
    }
    if (K - l >= V) {
      const BMM__V16 b0 = BMM__V16LOAD(B + l);
      BMM__UNROLL for (i = 0; i < M; ++i) s[i] += BMM__V16LOAD(A + i * lda + l) * b0;
      l += V;
    }
    for (; l < K; ++l)
      BMM__UNROLL for (i = 0; i < M; ++i) t[i] = BMM__FMA(A[i * lda + l], B[l], t[i]);
  }
  if (K >= 2 * V) BMM__UNROLL for (i = 0; i < M; ++i) s[i] += s1[i];
  BMM__CAT(bmm__hsum_, BMM__N)(s, acc);
  for (i = 0; i < M; ++i)
    acc[i] += t[i];
  BMM__FN(store)(pl, C, ldc, acc, M, 0, 0, nt);
}
/* entry bi into C */
BMM__INLINE void BMM__FN(small_dot_to)(const bmm_plan *pl, int nt, int64_t bi, const int M,
                                       const int64_t K, BMM__T *BMM__RESTRICT C, const int seq) {
  BMM__FN(small_dot_rows)
  (pl, nt, (const BMM__T *)pl->a.ptr + bi * pl->a.batch_stride[0], K,
   (const BMM__T *)pl->b.ptr + bi * pl->b.batch_stride[0], M, K, C, 1, seq);
}
/* entry bi into its own C */
BMM__INLINE void BMM__FN(small_dot_entry)(const bmm_plan *pl, int nt, int64_t bi, const int M,
                                          const int64_t K, const int seq) {
  BMM__FN(small_dot_to)(pl, nt, bi, M, K, (BMM__T *)pl->c.ptr + bi * pl->c.batch_stride[0], seq);
}
#if BMM__CPU_NT
/* C streamed where the entries' C lie back to back (one row each, as the
   seed's 3x1): element-wise non-temporal stores (movnti of 4 or 8 bytes) ran
   1.04-1.8x the time of plain stores on the Intel VM (3x1xK f32, K = 1..7,
   2 GB calls; bench/notes/cpu.md, "C in whole lines, prefetch at every
   size"). L = 64 / sizeof(T) entries fill M whole lines: a block's results go
   to an aligned buffer and leave as 64-byte streamed lines. Entries before
   C's first line boundary and after the last whole block are stored plainly,
   so a line shared with a neighbouring thread's entries is plain on both
   sides. Where no entry's C starts a line within the first L entries (C not
   on a multiple of its element size): element-wise streaming, as before.
   Same arithmetic, same bits. */
BMM__INLINE void BMM__FN(small_dot_lines)(const bmm_plan *pl, int pf, int64_t b0, int64_t b1,
                                          const int M, const int64_t K, const int seq) {
  enum { L = 64 / (int)sizeof(BMM__T) };
  BMM__T buf[4 * L] __attribute__((aligned(64)));
  BMM__T *const C = (BMM__T *)pl->c.ptr;
  bmm__cpu_pf p = bmm__cpu_pf_init(pl, b0, pf);
  int64_t u = b0, e, start = bmm__cpu_line_entry(C, (int64_t)sizeof(BMM__T), M, b0, b1, L);
  int r;
  if (start < 0) start = b1; /* never on a line: element-wise */
  for (; u < start; ++u) {
    if (pf) bmm__cpu_pf_entry(&p);
    BMM__FN(small_dot_entry)(pl, start == b1, u, M, K, seq);
  }
  for (; u + L <= b1; u += L) {
    for (e = 0; e < L; ++e) {
      if (pf) bmm__cpu_pf_entry(&p);
      BMM__FN(small_dot_to)(pl, 0, u + e, M, K, buf + e * M, seq);
    }
    for (r = 0; r < M; ++r)
      bmm__ntstore_line(C + u * M + r * L, buf + r * L);
  }
  for (; u < b1; ++u) {
    if (pf) bmm__cpu_pf_entry(&p);
    BMM__FN(small_dot_entry)(pl, 0, u, M, K, seq);
  }
}
#endif
#if BMM__CAT(BMM__CPU_VROWS_, BMM__N)
/* f32, k <= bmm__cpu_vk_kmax(m): W rows of C to a vector (bmm__cpu_pick's vrows; W =
   BMM__CPU_VK_W, 16 with AVX-512, 8 with AVX2). A block of W entries is M*K
   vectors of A, K of B and M of C. Output vector q's lane t is C's row Wq + t:
   its column l is lane t of A's vectors qK.. after vk_col, times lane
   (Wq + t) / M of B's column l (B's K vectors after vk_col, then one permute
   by ei[q]); the sum starts at +0 and adds the K products by FMA in turn, the
   scalar chain of small_dot_to for k < 4 (its vector sums are +0 there), and
   the epilogue is BMM__FN(store)'s lane by lane: the same bits as the
   per-entry kernel, which takes the entries before C's first 64-byte line
   and after the last block. */
typedef struct BMM__FN(vk) {
  bmm__vk_i ci[8], ei[4];        /* element t*K + l of column l; B's entry (Wq + t) / M */
  bmm__vk_v bs[8], al, be, bias; /* B shared: its K elements, broadcast */
} BMM__FN(vk);
/* Column l of W rows of K elements held in K consecutive vectors x: lane t
   is element t*K + l (idx, of which a permute reads the low bits). */
BMM__INLINE bmm__vk_v BMM__FN(vk_col)(const bmm__vk_v *x, bmm__vk_i idx, const int l, const int K) {
  if (K == 1) return x[0];
#if BMM__CPU_VK_W == 16
  { /* K vectors in pairs: lane t from pair (tK + l) / 32 (K = 2: the first
       alone; K = 3: lanes t >= ceil((32 - l) / 3) from the third vector) */
    __m512 r = _mm512_permutex2var_ps(x[0], idx, x[1]);
    int p, t;
    BMM__UNROLL for (p = 1; 2 * p < K; ++p) {
      unsigned m = 0;
      const __m512 y = 2 * p + 1 < K ? _mm512_permutex2var_ps(x[2 * p], idx, x[2 * p + 1])
                                     : _mm512_permutexvar_ps(idx, x[2 * p]);
      for (t = 0; t < 16; ++t)
        if ((t * K + l) / 32 == p) m |= 1u << t;
      r = _mm512_mask_blend_ps((__mmask16)m, r, y);
    }
    return r;
  }
#else
  if (K == 2) /* lanes 0..3 from x[0], 4..7 from x[1], at the same positions */
    return _mm256_blend_ps(_mm256_permutevar8x32_ps(x[0], idx), _mm256_permutevar8x32_ps(x[1], idx),
                           0xF0);
  /* K = 3: element 3t + l sits at position (3t + l) % 8 of vector (3t + l) / 8,
     a different position for every t: two blends gather the 8, one permute
     orders them */
  return _mm256_permutevar8x32_ps(
      l == 0   ? _mm256_blend_ps(_mm256_blend_ps(x[0], x[1], 0x92), x[2], 0x24)
      : l == 1 ? _mm256_blend_ps(_mm256_blend_ps(x[0], x[1], 0x24), x[2], 0x49)
               : _mm256_blend_ps(_mm256_blend_ps(x[0], x[1], 0x49), x[2], 0x92),
      idx);
#endif
}
BMM__INLINE void BMM__FN(vk_block)(const BMM__FN(vk) * g, const float *A, const float *B, float *C,
                                   const int M, const int K, const int shared, const int plain,
                                   const int rc, const int nt) {
  bmm__vk_v a[32], b[8], bc[8];
  int j, q, l;
  BMM__UNROLL for (j = 0; j < M * K; ++j) a[j] = BMM__VK_LOADU(A + BMM__CPU_VK_W * j);
  if (shared) {
    BMM__UNROLL for (l = 0; l < K; ++l) bc[l] = g->bs[l];
  } else {
    BMM__UNROLL for (j = 0; j < K; ++j) b[j] = BMM__VK_LOADU(B + BMM__CPU_VK_W * j);
    BMM__UNROLL for (l = 0; l < K; ++l) bc[l] = BMM__FN(vk_col)(b, g->ci[l], l, K);
  }
  BMM__UNROLL for (q = 0; q < M; ++q) {
    bmm__vk_v s = BMM__VK_ZERO(), r, ac[8], bq[8];
    BMM__UNROLL for (l = 0; l < K; ++l) { /* lane t: column l of C's row Wq + t */
      ac[l] = BMM__FN(vk_col)(a + q * K, g->ci[l], l, K);
      bq[l] = shared || M == 1 ? bc[l] : BMM__VK_PERM(bc[l], g->ei[q]);
    }
    if (K < 4) { /* small_dot_rows' scalar chain */
      BMM__UNROLL for (l = 0; l < K; ++l) s = BMM__VK_FMA(ac[l], bq[l], s);
    } else { /* its order past 3: products 0..3 (+ 4..7 at K = 8) as a
                16-byte vector's multiply-adds from +0, the lanes summed in
                pairs, then + the scalar chain of products 4..K-1 (K < 8) */
      bmm__vk_v v[4], t = BMM__VK_ZERO();
      BMM__UNROLL for (l = 0; l < 4; ++l) {
        v[l] = BMM__VK_FMA(ac[l], bq[l], BMM__VK_ZERO());
        if (K == 8) v[l] = BMM__VK_ADD(v[l], BMM__VK_FMA(ac[l + 4], bq[l + 4], BMM__VK_ZERO()));
      }
      BMM__UNROLL for (l = 4; l < K && K < 8; ++l) t = BMM__VK_FMA(ac[l], bq[l], t);
      s = BMM__VK_ADD(BMM__VK_ADD(BMM__VK_ADD(v[0], v[1]), BMM__VK_ADD(v[2], v[3])), t);
    }
    if (plain) {
      r = BMM__VK_MUL(g->al, s);
    } else {
      r = g->bias;
      if (rc) r = BMM__VK_FMA(g->be, BMM__VK_LOADU(C + BMM__CPU_VK_W * q), r);
      r = BMM__VK_FMA(g->al, s, r);
    }
    if (nt && ((uintptr_t)(C + BMM__CPU_VK_W * q) & (4 * BMM__CPU_VK_W - 1)) == 0)
      BMM__VK_STREAM(C + BMM__CPU_VK_W * q, r);
    else
      BMM__VK_STOREU(C + BMM__CPU_VK_W * q, r);
  }
}
/* Entries [b0, b1) of an M x 1 x K call (one run): per entry up to C's first
   64-byte line, blocks of W, per entry after the last block */
BMM__INLINE void BMM__FN(vk_range)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0,
                                   int64_t b1, const int M, const int K) {
  enum { W = BMM__CPU_VK_W };
  const float *A = (const float *)pl->a.ptr, *B = (const float *)pl->b.ptr;
  float *C = (float *)pl->c.ptr;
  const int64_t kb = pl->b.batch_stride[0];
  const int rc = pl->read_c, plain = !rc && !pl->bias, nt = ch->stream;
  BMM__FN(vk) g;
  int64_t u = b0, start;
  int q, l, t, ix[W];
  for (l = 0; l < K; ++l) {
    for (t = 0; t < W; ++t)
      ix[t] = t * K + l;
    g.ci[l] = BMM__VK_LOADI(ix);
    g.bs[l] = BMM__VK_SET1(kb ? 0.0f : B[l]);
  }
  for (q = 0; q < M; ++q) {
    for (t = 0; t < W; ++t)
      ix[t] = (W * q + t) / M;
    g.ei[q] = BMM__VK_LOADI(ix);
  }
  g.al = BMM__VK_SET1((float)pl->alpha), g.be = BMM__VK_SET1((float)pl->beta);
  g.bias = BMM__VK_SET1(pl->bias ? ((const float *)pl->bias)[0] : -0.0f);
  start = bmm__cpu_line_entry(C, (int64_t)sizeof(float), M, b0, b1, 16);
  if (start < 0) start = b0; /* never on a line: blocks from b0 */
  for (; u < start; ++u)
    BMM__FN(small_dot_entry)(pl, 0, u, M, K, 0);
  for (; u + W <= b1; u += W) {
    if (ch->prefetch) { /* the block's lines of A and B ch->prefetch bytes ahead */
      const char *pa = (const char *)(A + u * M * K) + ch->prefetch;
      const char *pb = (const char *)(B + u * kb) + ch->prefetch;
      BMM__UNROLL for (q = 0; q < 4 * W * M * K; q += 64) BMM__PREFETCH(pa + q);
      if (kb) BMM__UNROLL for (q = 0; q < 4 * W * K; q += 64) BMM__PREFETCH(pb + q);
    }
    BMM__FN(vk_block)(&g, A + u * M * K, B + u * kb, C + u * M, M, K, !kb, plain, rc, nt);
  }
  for (; u < b1; ++u)
    BMM__FN(small_dot_entry)(pl, 0, u, M, K, 0);
}
/* one function per m = 1..4 and k of BMM__VK_KS_m (constants: every loop
   unrolled); the table's other k are NULL, never picked (BMM__CPU_VK_KMAX) */
#define BMM__VK_DEF(M, K)                                                        \
  static BMM__VEXT_ATTR void BMM__FN(small_vk_##M##_##K)(                        \
      const bmm_plan *plan, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) { \
    const bmm_plan lp = *plan;                                                   \
    BMM__FN(vk_range)(&lp, ch, b0, b1, M, K);                                    \
  }
#define BMM__VK_M(X, M) BMM__VK_KS_##M(X, M)
BMM__CPU_DOT_MS(BMM__VK_M, BMM__VK_DEF)
#define BMM__VK_FN(M, K) BMM__FN(small_vk_##M##_##K),
#define BMM__VK_ROW(FN, M) {BMM__VK_M(FN, M)},
static const bmm__cpu_range_fn BMM__FN(vk_fns)[4][8] = {BMM__CPU_DOT_MS(BMM__VK_ROW, BMM__VK_FN)};
#undef BMM__VK_ROW
#undef BMM__VK_FN
#undef BMM__VK_M
#undef BMM__VK_DEF
/* at the top of each dot kernel of the size list */
#define BMM__VK_TRY(M, K)                                                     \
  if (ch->vrows) {                                                            \
    BMM__FN(vk_fns)[(M)-1][((K) ? (int64_t)(K) : pl->k) - 1](pl, ch, b0, b1); \
    return;                                                                   \
  }
#else
#define BMM__VK_TRY(M, K)
#endif
BMM__INLINE void BMM__FN(small_dot)(const bmm_plan *plan, const bmm__cpu_choice *ch, int64_t b0,
                                    int64_t b1, const int M, const int N, const int64_t K,
                                    const int seq) {
  /* a local copy: no store to C can change it, so the compiler keeps its
     pointers, strides and alpha, beta in registers instead of reloading them
     every entry */
  const bmm_plan lp = *plan, *pl = &lp;
  const int S = ch->streams;
  const int64_t len = BMM__CPU_RUN_LEN(b0, b1, S);
  const int nt = ch->stream;
  int64_t u, q;
  (void)N;
  if (ch->prefetch) { /* one run (streams 1), out of cache */
    bmm__cpu_pf pf = bmm__cpu_pf_init(pl, b0, ch->prefetch);
    for (u = b0; u < b1; ++u) {
      bmm__cpu_pf_entry(&pf);
      BMM__FN(small_dot_entry)(pl, nt, u, M, K, seq);
    }
    return;
  }
  for (u = 0; u < len; ++u)
    for (q = 0; q < S; ++q)
      BMM__FN(small_dot_entry)(pl, nt, b0 + q * len + u, M, K, 0);
  for (u = b0 + S * len; u < b1; ++u)
    BMM__FN(small_dot_entry)(pl, nt, u, M, K, 0);
}
#else
BMM__INLINE void BMM__FN(small_dot)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0,
                                    int64_t b1, const int M, const int N, const int64_t K,
                                    const int seq) {
  const int64_t sa = pl->a.batch_stride[0], sb = pl->b.batch_stride[0];
  const int64_t sc = pl->c.batch_stride[0];
  int64_t st, bi, i, l, v, w;
  const int S = ch->streams;
  const int64_t len = BMM__CPU_RUN_LEN(b0, b1, S);
  bmm__cpu_pf pf = bmm__cpu_pf_init(pl, b0, ch->prefetch); /* used where ch->prefetch: one run */
  (void)N, (void)seq; /* rows side by side: no vector extensions, no rowseq */
  for (st = 0; st < b1 - b0; ++st) {
    const BMM__T *BMM__RESTRICT A;
    const BMM__T *BMM__RESTRICT B;
    BMM__T *BMM__RESTRICT C;
    BMM__T acc[4], s[4][BMM__CPU_DOT_W], t[4];
    bi = BMM__CPU_STREAM_AT(b0, len, S, st);
    if (ch->prefetch) bmm__cpu_pf_entry(&pf);
    A = (const BMM__T *)pl->a.ptr + bi * sa;
    B = (const BMM__T *)pl->b.ptr + bi * sb;
    C = (BMM__T *)pl->c.ptr + bi * sc;
    for (i = 0; i < M; ++i) {
      t[i] = 0;
      for (v = 0; v < BMM__CPU_DOT_W; ++v)
        s[i][v] = 0;
    }
    for (l = 0; l + BMM__CPU_DOT_W <= K; l += BMM__CPU_DOT_W)
      for (i = 0; i < M; ++i)
        for (v = 0; v < BMM__CPU_DOT_W; ++v)
          s[i][v] = BMM__FMA(A[i * K + l + v], B[l + v], s[i][v]);
    for (; l < K; ++l)
      for (i = 0; i < M; ++i)
        t[i] = BMM__FMA(A[i * K + l], B[l], t[i]);
    for (i = 0; i < M; ++i) {
      for (w = BMM__CPU_DOT_W / 2; w > 0; w /= 2)
        for (v = 0; v < w; ++v)
          s[i][v] += s[i][v + w];
      acc[i] = s[i][0] + t[i];
    }
    BMM__FN(store)(pl, C, 1, acc, M, 0, 0, 0);
  }
}
#endif

/* axpy: C tile += column of A times row of B. With vector extensions, where a
   row of C is at least one vector (BMM__AXPY_VEC), the sums are named vectors
   times a broadcast of A: the widest vectors that fit in a row, else 32-byte
   ones (where the widest are 64), else 16-byte ones. A row is NV vectors, the last one ending at
   column N (it overlaps the one before where V does not divide N: those lanes are computed twice
   and stored twice, the same value). The tile goes in blocks of at most 2 vectors by as many rows
   as leave registers for the block's B vectors and a broadcast (AVX2 f64 16x16: 6 blocks of 3 rows
   by 4 vectors spilled; 2 x 3 blocks of 6 x 2 do not). Elsewhere plain loops. Every element is the
   same chain of FMAs over l either way, so widths and blocks change no bits (bench/notes/cpu.md,
   "cpu_small axpy"). The loops carry BMM__UNROLL: gcc -O2 unrolls none of them, leaves the sums in
   memory and ran 3^3..8^3 at 2-4x the instructions of -O3. The epilogue's operands are arguments:
   the range passes constants for the plain case (alpha 1, beta 0, no bias), so that case has no
   test left per entry. */
#define BMM__AXPY_VEC(N, VB) ((N) >= (VB) / (int)sizeof(BMM__T))
#if BMM__CPU_VEXT
/* the column of vector j of NV in a row of N (V lanes each) */
#define BMM__AXPY_COL(j) ((j) < NV - 1 ? (j)*V : N - V)
/* NB column blocks of CB <= 2 vectors and row blocks of RB rows, as even as
   they go: R rows of CB sums plus CB B vectors and a broadcast in the register
   file. Column block b starts at vector J0(b) and has JN(b) vectors: the first
   takes what is left over (NV odd), so the last vector and the one it overlaps
   are in one block, whose C loads (rc) all come before its stores. */
#define BMM__AXPY_BLOCKS()                                                 \
  const int NV = (N + V - 1) / V, NB = (NV + 1) / 2, CB = NV < 2 ? NV : 2; \
  const int MR = (BMM__CPU_VREGS - 1 - CB) / CB, G = (M + MR - 1) / MR;    \
  const int RB = (M + G - 1) / G
#define BMM__AXPY_J0(b) ((b) == 0 ? 0 : NV - (NB - (b)) * CB)
#define BMM__AXPY_JN(b) (((b) + 1 < NB ? BMM__AXPY_J0((b) + 1) : NV) - BMM__AXPY_J0(b))
/* small_tile's rows a block at most: R rows of 2 sums, 2 B vectors and a
   broadcast in the register file */
#define BMM__TILE_RMAX (BMM__CPU_VREGS >= 32 ? 8 : 6)
#define BMM__TILE_R(R) ((R) > BMM__TILE_RMAX ? BMM__TILE_RMAX : (R))
/* the vector epilogue, C store and tile, once per width (the width section,
   near the end): BMM__W names it, v the widest vectors (BMM__CPU_VBYTES),
   v16 16-byte ones, v32 32-byte ones (only where the widest are 64) */
#undef BMM__CPU_SECTION
#define BMM__CPU_SECTION 3
#define BMM__W v
#define BMM__WV BMM__VEC
#define BMM__WLOAD BMM__VLOAD
#define BMM__WSTORE BMM__VSTORE
#define BMM__WFMA BMM__VFMA
#define BMM__WNT BMM__NTSTORE_V
#define BMM__WBYTES BMM__CPU_VBYTES
#include "bmm_cpu.h"
#define BMM__W v16
#define BMM__WV BMM__V16
#define BMM__WLOAD BMM__V16LOAD
#define BMM__WSTORE BMM__V16STORE
#define BMM__WFMA BMM__V16FMA
#define BMM__WNT BMM__NTSTORE_V16
#define BMM__WBYTES 16
#include "bmm_cpu.h"
#if BMM__CPU_V32
#define BMM__W v32
#define BMM__WV BMM__V32
#define BMM__WLOAD BMM__V32LOAD
#define BMM__WSTORE BMM__V32STORE
#define BMM__WFMA BMM__V32FMA
#define BMM__WNT BMM__NTSTORE_V32
#define BMM__WBYTES 32
#include "bmm_cpu.h"
#endif
#undef BMM__CPU_SECTION
#define BMM__CPU_SECTION 1
#undef BMM__AXPY_BLOCKS
#undef BMM__AXPY_J0
#undef BMM__AXPY_JN
#undef BMM__AXPY_COL
#undef BMM__TILE_RMAX
#undef BMM__TILE_R
#endif
/* One element of the scalar tiles (small_axpy_entry's plain loops,
   tile_s): BMM__FN(store)'s arithmetic with the epilogue's operands as
   arguments, b the element's bias (NULL: none) */
BMM__INLINE void BMM__FN(store1)(BMM__T *cp, const BMM__T x, const BMM__T al, const BMM__T be,
                                 const BMM__T *b, const int rc, const int nt) {
  if (nt && !b) {
    BMM__CAT(bmm__ntstore_, BMM__N)(cp, al * x);
  } else if (!rc && !b) {
    *cp = al * x;
  } else {
    BMM__T r = b ? *b : (BMM__T)-0.0;
    if (rc) r = BMM__FMA(be, *cp, r);
    *cp = BMM__FMA(al, x, r);
  }
}
/* One entry: the vector tile, or plain loops with the arithmetic of
   BMM__FN(store). The plain loops unroll only beside the vector tile (N below
   a 16-byte vector: at most 3 x 3 x K): unrolled for every shape, as
   BMM_CPU_PORTABLE builds run them, 16^3 alone is thousands of FMAs per copy,
   and test_cpu_portable compiled for over 20 minutes on the loaded VM. */
#if BMM__CPU_VEXT
#define BMM__UNROLL_S BMM__UNROLL
#else
#define BMM__UNROLL_S
#endif
/* g++ -O3 (the host side of nvcc builds) cannot see that every acc[i][j]
   read below lies in the M x N corner the first loop zeroed, and warns
   maybe-uninitialized; zeroing all 16 x 16 per entry would cost more than
   the entry's own work. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
BMM__INLINE void BMM__FN(small_axpy_entry)(const BMM__T *BMM__RESTRICT A,
                                           const BMM__T *BMM__RESTRICT B, BMM__T *BMM__RESTRICT C,
                                           const BMM__T al, const BMM__T be, const BMM__T *bias,
                                           const int rc, const int nt, const int M, const int N,
                                           const int64_t K) {
  BMM__T acc[16][16];
  int64_t i, j, l;
#if BMM__CPU_VEXT
  if (BMM__AXPY_VEC(N, BMM__CPU_VBYTES)) {
    BMM__FN(small_axpy_v)(A, B, C, al, be, bias, rc, nt, M, N, K);
    return;
  }
#if BMM__CPU_V32
  if (BMM__AXPY_VEC(N, 32)) {
    BMM__FN(small_axpy_v32)(A, B, C, al, be, bias, rc, nt, M, N, K);
    return;
  }
#endif
  if (BMM__AXPY_VEC(N, 16)) {
    BMM__FN(small_axpy_v16)(A, B, C, al, be, bias, rc, nt, M, N, K);
    return;
  }
#endif
  BMM__UNROLL_S for (i = 0; i < M; ++i) BMM__UNROLL_S for (j = 0; j < N; ++j) acc[i][j] = 0;
  BMM__UNROLL_S for (l = 0; l < K; ++l) BMM__UNROLL_S for (i = 0; i < M; ++i) {
    const BMM__T a = A[i * K + l];
    BMM__UNROLL_S for (j = 0; j < N; ++j) acc[i][j] = BMM__FMA(a, B[l * N + j], acc[i][j]);
  }
  BMM__UNROLL_S for (i = 0; i < M; ++i) BMM__UNROLL_S for (j = 0; j < N; ++j)
      BMM__FN(store1)(C + i * N + j, acc[i][j], al, be, bias ? bias + j : NULL, rc, nt);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
/* Entries [b0, b1) through BMM__CPU_STREAM_AT with the epilogue's operands as
   arguments (constants in the plain cases); pf: A and B prefetched ahead. */
BMM__INLINE void BMM__FN(small_axpy_run)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0,
                                         int64_t b1, const int M, const int N, const int64_t K,
                                         const int pf, const BMM__T al, const BMM__T be,
                                         const BMM__T *bias, const int rc, const int nt) {
  const int64_t sa = pl->a.batch_stride[0], sb = pl->b.batch_stride[0];
  const int64_t sc = pl->c.batch_stride[0];
  const int S = ch->streams;
  const int64_t len = BMM__CPU_RUN_LEN(b0, b1, S);
  const BMM__T *A0 = (const BMM__T *)pl->a.ptr, *B0 = (const BMM__T *)pl->b.ptr;
  BMM__T *C0 = (BMM__T *)pl->c.ptr;
  bmm__cpu_pf p;
  int64_t st, bi;
  if (pf) p = bmm__cpu_pf_init(pl, b0, ch->prefetch); /* one run: bi = b0 + st */
  for (st = 0; st < b1 - b0; ++st) {
    bi = BMM__CPU_STREAM_AT(b0, len, S, st);
    if (pf) bmm__cpu_pf_entry(&p);
    BMM__FN(small_axpy_entry)
    (A0 + bi * sa, B0 + bi * sb, C0 + bi * sc, al, be, bias, rc, nt, M, N, K);
  }
}
/* The range: one copy of the entry's code per epilogue case (alpha 1, beta 0
   and no bias, plain or streamed; any other) and per prefetch (out of cache,
   where nt is left to the run: its branch is nothing beside DRAM), each copy
   the same arithmetic (al * x with al = 1 folds to x, the same bits). A
   second copy for a tail (as the dot kernels have) once made bits depend on
   the thread split: gcc contracted the epilogue differently in two copies
   (7^3 f32 with beta and bias); the epilogue now leaves nothing to contract. */
BMM__INLINE void BMM__FN(small_axpy)(const bmm_plan *plan, const bmm__cpu_choice *ch, int64_t b0,
                                     int64_t b1, const int M, const int N, const int64_t K) {
  const bmm_plan lp = *plan, *pl = &lp; /* kept in registers: as small_dot's */
  const BMM__T al = (BMM__T)pl->alpha, be = (BMM__T)pl->beta, *bias = (const BMM__T *)pl->bias;
  const int rc = pl->read_c, nt = ch->stream, plain = al == 1 && !rc && !bias;
  if (ch->prefetch && plain)
    BMM__FN(small_axpy_run)(pl, ch, b0, b1, M, N, K, 1, 1, 0, NULL, 0, nt);
  else if (ch->prefetch)
    BMM__FN(small_axpy_run)(pl, ch, b0, b1, M, N, K, 1, al, be, bias, rc, nt);
  else if (plain && !nt)
    BMM__FN(small_axpy_run)(pl, ch, b0, b1, M, N, K, 0, 1, 0, NULL, 0, 0);
  else if (plain)
    BMM__FN(small_axpy_run)(pl, ch, b0, b1, M, N, K, 0, 1, 0, NULL, 0, 1);
  else
    BMM__FN(small_axpy_run)(pl, ch, b0, b1, M, N, K, 0, al, be, bias, rc, nt);
}
#undef BMM__AXPY_VEC

/* the named kernels of the size list */
#define BMM__SMALL_DEF_axpy(M, N, K, SUFFIX)                                   \
  static BMM__VEXT_ATTR void BMM__FN(small_axpy_##SUFFIX)(                     \
      const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) { \
    BMM__FN(small_axpy)(pl, ch, b0, b1, M, N, (K) ? (int64_t)(K) : pl->k);     \
  }
/* The dot kernels' whole-line path (small_dot_lines) in a function of its
   own, with the shape's constants: inlined beside the entry loop, it cost
   that loop 6 instructions an entry in gcc -O2's baseline build (3x1x5 f32,
   54 -> 60, tests/ir_check.sh), whichever path ran. BMM__SEQ: A's rows one
   after another where the call says so (bmm__cpu_rowseq), in the kernels of
   run-time k only. A constant-k kernel compiled with both loop forms ran
   3x1x25..50 f64 out of cache in 1.04-1.12x the time, taken or not (Zen 4),
   and changed bits with the branch not taken (3x1x35, 3x1x50: 8 of 111
   outputs an ulp off). Our reading, not seen in the assembly: both forms,
   fully unrolled, share their first products, gcc 12 -O3 hoists them above
   the branch, and a product apart from its sum is not contracted into an
   FMA (as alpha*x, BMM__V16FMA). Fusing the row-at-a-time form by hand
   cured the bits in a test build; without the branch it needs no cure. */
#define BMM__SEQ(K) ((K) ? 0 : ch->rowseq)
#if BMM__CPU_VEXT && BMM__CPU_NT
#define BMM__SMALL_DEF_dot(M, N, K, SUFFIX)                                              \
  static BMM__VEXT_ATTR void BMM__FN(small_lines_##SUFFIX)(                              \
      const bmm_plan *plan, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {         \
    const bmm_plan lp = *plan;                                                           \
    BMM__FN(small_dot_lines)                                                             \
    (&lp, ch->prefetch, b0, b1, M, (K) ? (int64_t)(K) : lp.k, BMM__SEQ(K));              \
  }                                                                                      \
  static BMM__VEXT_ATTR void BMM__FN(small_dot_##SUFFIX)(                                \
      const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {           \
    BMM__VK_TRY(M, K)                                                                    \
    if (ch->stream && ch->streams == 1 && pl->c.batch_stride[0] == (M))                  \
      BMM__FN(small_lines_##SUFFIX)(pl, ch, b0, b1);                                     \
    else                                                                                 \
      BMM__FN(small_dot)(pl, ch, b0, b1, M, N, (K) ? (int64_t)(K) : pl->k, BMM__SEQ(K)); \
  }
#else
#define BMM__SMALL_DEF_dot(M, N, K, SUFFIX)                                            \
  static BMM__VEXT_ATTR void BMM__FN(small_dot_##SUFFIX)(                              \
      const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {         \
    BMM__FN(small_dot)(pl, ch, b0, b1, M, N, (K) ? (int64_t)(K) : pl->k, BMM__SEQ(K)); \
  }
#endif
#define BMM__SMALL_DEF(FORM, M, N, K, SUFFIX) BMM__SMALL_DEF_##FORM(M, N, K, SUFFIX)
BMM__CPU_SMALL_SHAPES(BMM__SMALL_DEF)
#undef BMM__SMALL_DEF
#undef BMM__SMALL_DEF_dot
#undef BMM__SEQ
#undef BMM__VK_TRY
#undef BMM__SMALL_DEF_axpy

/* ---- cpu_small: the run-time tile -----------------------------------------
   small_tile: the shapes the size list has no kernel for (and cpu_dot's with
   contiguous rows of B and C, bmm__cpu_tile_fits): m, n and k at run time,
   where they went to the blocked tile or to cpu_dot's loops, the loops at a
   tenth of the fixed kernels' speed (in cache, one thread, f32 on an Intel
   Xeon: 8x8x4 2.9 GB/s, 4x2x4 6.5, against 60.8 at 4x4x4; bench/notes/cpu.md,
   "the run-time tile"). Rows go in blocks with a constant row count, so the
   sums stay in registers whatever m is; columns in vectors of the widest
   width that n fills (the section-3 tile_entry_: blocks of up to
   BMM__TILE_RMAX rows), in scalars below 16 bytes (f32 n = 2, 3; any n
   without vector extensions: blocks of 4 rows), and n = 1 through the dot
   kernels' rows (tile_dot). Every element is one chain of FMAs over l. */
BMM__INLINE void BMM__FN(tile_s)(const BMM__T *BMM__RESTRICT A, const int64_t lda,
                                 const int64_t acs, const BMM__T *BMM__RESTRICT B,
                                 const int64_t ldb, BMM__T *BMM__RESTRICT C, const int64_t ldc,
                                 const BMM__T al, const BMM__T be, const BMM__T *bias, const int rc,
                                 const int nt, const int R, const int64_t N, const int64_t K) {
  BMM__T acc[4][16];
  int64_t i, j, l;
  BMM__UNROLL_S for (i = 0; i < R; ++i) for (j = 0; j < N; ++j) acc[i][j] = 0;
  for (l = 0; l < K; ++l)
    BMM__UNROLL_S for (i = 0; i < R; ++i) {
      const BMM__T a = A[i * lda + l * acs];
      for (j = 0; j < N; ++j)
        acc[i][j] = BMM__FMA(a, B[l * ldb + j], acc[i][j]);
    }
  BMM__UNROLL_S for (i = 0; i < R; ++i) for (j = 0; j < N; ++j)
      BMM__FN(store1)(C + i * ldc + j, acc[i][j], al, be, bias ? bias + j : NULL, rc, nt);
}
/* the scalar tile over the rows in blocks of 4 and columns in blocks of 16
   (N a constant where the caller knows it) */
BMM__INLINE void BMM__FN(tile_rows_s)(const BMM__T *A, const int64_t lda, const int64_t acs,
                                      const BMM__T *B, const int64_t ldb, BMM__T *C,
                                      const int64_t ldc, const BMM__T al, const BMM__T be,
                                      const BMM__T *bias, const int rc, const int nt,
                                      const int64_t M, const int64_t N, const int64_t K) {
  int64_t i0, j0;
  for (j0 = 0; j0 < N; j0 += 16) {
    const int64_t jn = N - j0 < 16 ? N - j0 : 16;
    const BMM__T *bj = B + j0, *sj = bias ? bias + j0 : NULL;
    for (i0 = 0; i0 + 4 <= M; i0 += 4)
      BMM__FN(tile_s)
    (A + i0 * lda, lda, acs, bj, ldb, C + i0 * ldc + j0, ldc, al, be, sj, rc, nt, 4, jn, K);
    if (M - i0 == 3) BMM__FN(tile_s)
    (A + i0 * lda, lda, acs, bj, ldb, C + i0 * ldc + j0, ldc, al, be, sj, rc, nt, 3, jn, K);
    if (M - i0 == 2) BMM__FN(tile_s)
    (A + i0 * lda, lda, acs, bj, ldb, C + i0 * ldc + j0, ldc, al, be, sj, rc, nt, 2, jn, K);
    if (M - i0 == 1) BMM__FN(tile_s)
    (A + i0 * lda, lda, acs, bj, ldb, C + i0 * ldc + j0, ldc, al, be, sj, rc, nt, 1, jn, K);
  }
}
#if BMM__CPU_VEXT
/* n = 1: the dot kernels' body over the rows, 4 at a time */
BMM__INLINE void BMM__FN(tile_dot)(const bmm_plan *pl, const int nt, const BMM__T *A,
                                   const int64_t lda, const BMM__T *B, BMM__T *C, const int64_t ldc,
                                   const int64_t M, const int64_t K) {
  int64_t i0;
  for (i0 = 0; i0 + 4 <= M; i0 += 4)
    BMM__FN(small_dot_rows)(pl, nt, A + i0 * lda, lda, B, 4, K, C + i0 * ldc, ldc, 0);
  if (M - i0 == 3)
    BMM__FN(small_dot_rows)(pl, nt, A + i0 * lda, lda, B, 3, K, C + i0 * ldc, ldc, 0);
  if (M - i0 == 2)
    BMM__FN(small_dot_rows)(pl, nt, A + i0 * lda, lda, B, 2, K, C + i0 * ldc, ldc, 0);
  if (M - i0 == 1)
    BMM__FN(small_dot_rows)(pl, nt, A + i0 * lda, lda, B, 1, K, C + i0 * ldc, ldc, 0);
}
#endif
#undef BMM__UNROLL_S
static BMM__VEXT_ATTR void BMM__FN(small_tile)(const bmm_plan *plan, const bmm__cpu_choice *ch,
                                               int64_t b0, int64_t b1) {
  const bmm_plan lp = *plan, *pl = &lp; /* kept in registers: as small_dot's */
  const BMM__T al = (BMM__T)pl->alpha, be = (BMM__T)pl->beta, *bias = (const BMM__T *)pl->bias;
  const int rc = pl->read_c, nt = ch->stream, sz = (int)sizeof(BMM__T);
  const int64_t M = pl->m, N = pl->n, K = pl->k;
  const int64_t lda = pl->a.row_stride, acs = pl->a.col_stride, ldb = pl->b.row_stride,
                ldc = pl->c.row_stride;
  bmm__cpu_pf pf = bmm__cpu_pf_init(pl, b0, ch->prefetch); /* used where ch->prefetch: one run */
  int64_t bi;
  (void)sz;
  for (bi = b0; bi < b1; ++bi) {
    const BMM__T *A, *B;
    BMM__T *C;
    if (ch->prefetch) bmm__cpu_pf_entry(&pf);
    BMM__FN(ptrs)(pl, bi, &A, &B, &C);
#if BMM__CPU_VEXT
    if (N == 1)
      BMM__FN(tile_dot)(pl, nt, A, lda, B, C, ldc, M, K);
    else if (N >= BMM__CPU_VBYTES / sz)
      BMM__FN(tile_entry_v)(A, lda, acs, B, ldb, C, ldc, al, be, bias, rc, nt, M, N, K);
#if BMM__CPU_V32
    else if (N >= 32 / sz)
      BMM__FN(tile_entry_v32)(A, lda, acs, B, ldb, C, ldc, al, be, bias, rc, nt, M, N, K);
#endif
    else if (N >= 16 / sz)
      BMM__FN(tile_entry_v16)(A, lda, acs, B, ldb, C, ldc, al, be, bias, rc, nt, M, N, K);
    else if (N == 2)
      BMM__FN(tile_rows_s)(A, lda, acs, B, ldb, C, ldc, al, be, bias, rc, nt, M, 2, K);
    else if (N == 3)
      BMM__FN(tile_rows_s)(A, lda, acs, B, ldb, C, ldc, al, be, bias, rc, nt, M, 3, K);
    else
      BMM__FN(tile_rows_s)(A, lda, acs, B, ldb, C, ldc, al, be, bias, rc, nt, M, N, K);
#else
    BMM__FN(tile_rows_s)(A, lda, acs, B, ldb, C, ldc, al, be, bias, rc, nt, M, N, K);
#endif
  }
}

/* ---- cpu_dot, short columns: m = 2..4 rows of A stored as columns ---------
   (a.row_stride 1, columns acs >= m apart: the col_a layout). Each column of A
   is NV 16-byte loads times a broadcast of b, in four sums per vector (an
   FMA's latency apart). A load covers up to NV*V - m elements past its column,
   which lie inside the entry (acs >= m >= 2); those lanes are dropped, and the
   last column is summed in scalars, so nothing past the entry is read. Entries
   are walked as the choice's streams interleaved sub-ranges. N = 1 kernels have
   packed entries and (the seed's m = 3) constant k; N = 0 takes any strides
   and n (bench/notes/cpu.md, "short columns"). */
#if BMM__CPU_VEXT
BMM__INLINE void BMM__FN(col_entry)(const bmm_plan *pl, int nt, int64_t bi, const int M,
                                    const int N, const int64_t k) {
  enum { V = 16 / (int)sizeof(BMM__T) };
  const int NV = (M + V - 1) / V;
  const int64_t n = N ? 1 : pl->n;
  const int64_t acs = N ? M : pl->a.col_stride, brs = N ? 1 : pl->b.row_stride;
  const int64_t bcs = pl->b.col_stride, crs = pl->c.row_stride, ccs = pl->c.col_stride;
  const BMM__T *BMM__RESTRICT A;
  const BMM__T *BMM__RESTRICT B;
  BMM__T *BMM__RESTRICT C;
  int64_t j, l, v, r;
  {
    const BMM__T *a0, *b0;
    BMM__T *c0;
    BMM__FN(ptrs)(pl, bi, &a0, &b0, &c0);
    A = a0, B = b0, C = c0;
  }
  for (j = 0; j < n; ++j) {
    const BMM__T *BMM__RESTRICT b = B + j * bcs;
    BMM__V16 s[4][2];
    BMM__T acc[2 * V];
    for (r = 0; r < 4; ++r)
      for (v = 0; v < NV; ++v)
        s[r][v] = (BMM__V16){0};
    for (l = 0; l + 4 < k; l += 4) /* columns l..l+3 < k-1 */
      for (r = 0; r < 4; ++r)
        for (v = 0; v < NV; ++v)
          s[r][v] += BMM__V16LOAD(A + (l + r) * acs + v * V) * b[(l + r) * brs];
    /* the rest but the last column (at most 3), sums named by constants */
    for (r = 0; r < 3; ++r)
      if (l + 1 < k) {
        for (v = 0; v < NV; ++v)
          s[r][v] += BMM__V16LOAD(A + l * acs + v * V) * b[l * brs];
        ++l;
      }
    for (v = 0; v < NV; ++v)
      BMM__V16STORE(acc + v * V, (s[0][v] + s[1][v]) + (s[2][v] + s[3][v]));
    for (v = 0; v < M; ++v) /* l == k-1: the last column, in scalars */
      acc[v] = BMM__FMA(A[l * acs + v], b[l * brs], acc[v]);
    BMM__FN(store)(pl, C + j * ccs, crs, acc, M, j, 0, nt);
  }
}
BMM__INLINE void BMM__FN(col)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1,
                              const int M, const int N, const int64_t K) {
  const int S = ch->streams;
  const int64_t len = BMM__CPU_RUN_LEN(b0, b1, S);
  const int nt = ch->stream;
  int64_t u, q;
  for (u = 0; u < len; ++u)
    for (q = 0; q < S; ++q)
      BMM__FN(col_entry)(pl, nt, b0 + q * len + u, M, N, K);
  for (u = b0 + S * len; u < b1; ++u)
    BMM__FN(col_entry)(pl, nt, u, M, N, K);
}
#define BMM__COL_DEF(FORM, M, N, K, SUFFIX)                                    \
  static BMM__VEXT_ATTR void BMM__FN(dot_col_##SUFFIX)(                        \
      const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) { \
    BMM__FN(col)(pl, ch, b0, b1, M, N, (K) ? (int64_t)(K) : pl->k);            \
  }
BMM__CPU_COL_SHAPES(BMM__COL_DEF)
#undef BMM__COL_DEF
#endif

/* ---- cpu_blocked: an R x NV-vector register tile, B in place or packed ----
   The tile holds R <= MR rows by NV <= 2 vectors of C in named variables (with
   AVX2: 12 sums, 2 rows of B and a broadcast fill the 16 ymm registers; with
   32 registers also R <= 6 rows by 4 vectors, written straight to C) and,
   per step of k, reads NV contiguous vectors of one B row and one A element per
   row. R and NV are constants of each tile kernel: dead rows and vectors
   vanish, so the bottom edge needs no copy and no padding. B is read where it
   lies when its rows are contiguous and one entry's B stays in L1/L2 (no
   per-entry packing: a 32^3 entry is then pure streaming); else NC x KC blocks
   of B are packed into 2-vector panels. With packing and k > KC a unit holds
   its rows' sums over the KC blocks and applies the epilogue once, at the last
   block (BMM__FN(blocked)).
   Tile: sums over l < k of a[i*ars + l*acs] * b[l*brs + j] for i < R, j < w
   (w <= NV vectors), written to out[i * 2 vectors + j], or, where d is not
   NULL, through the epilogue straight to C (d: w is the whole tile, C's rows
   contiguous). The direct store skips out's round trip: 16 vector stores and
   loads per 8-row tile were a fifth of a 32^3 entry in cache
   (bench/notes/cpu.md, "blocked tile: the epilogue from registers"). */
typedef struct BMM__FN(blk_dst) {
  const bmm_plan *pl;
  BMM__T *c;   /* C of the tile's first row and column */
  int64_t crs; /* C's row stride (its columns contiguous) */
  int64_t j0;  /* the tile's first column (the bias's) */
  int nt;      /* stream the stores: every row aligned to the vector */
} BMM__FN(blk_dst);
/* d (its pl and crs set) aimed at C's tile at cp, column j0 (nt: the call
   streams C) */
BMM__INLINE const BMM__FN(blk_dst) *
    BMM__FN(blk_dst_at)(BMM__FN(blk_dst) * d, BMM__T *cp, int64_t j0, int nt) {
  const uintptr_t rs = (uintptr_t)d->crs * sizeof(BMM__T);
  d->c = cp, d->j0 = j0;
  /* all rows aligned (streamed) or none: one test, not one per store (one
     per store cost 16^3 f64 15% where none was aligned) */
  d->nt = nt && ((uintptr_t)cp | rs) % BMM__CPU_VBYTES == 0;
  return d;
}
typedef void (*BMM__FN(tile_fn))(int64_t k, const BMM__T *BMM__RESTRICT a, int64_t ars, int64_t acs,
                                 const BMM__T *BMM__RESTRICT b, int64_t brs, int64_t w,
                                 BMM__T *BMM__RESTRICT out, const BMM__FN(blk_dst) * d);
#if BMM__CPU_VEXT
/* one row i of the tile: its A element times the B vectors (a row past R is
   dead code) */
#define BMM__BLK_ROW(i)                      \
  do {                                       \
    if (R > i) {                             \
      const BMM__T s = a[i * ars + l * acs]; \
      c##i##0 += s * b0;                     \
      if (NV > 1) c##i##1 += s * b1;         \
      if (NV > 2) c##i##2 += s * b2;         \
      if (NV > 2) c##i##3 += s * b3;         \
    }                                        \
  } while (0)
#define BMM__BLK_ROWS() \
  BMM__BLK_ROW(0);      \
  BMM__BLK_ROW(1);      \
  BMM__BLK_ROW(2);      \
  BMM__BLK_ROW(3);      \
  BMM__BLK_ROW(4);      \
  BMM__BLK_ROW(5);      \
  BMM__BLK_ROW(6);      \
  BMM__BLK_ROW(7)
#define BMM__BLK_OUT(i)                                        \
  do {                                                         \
    if (R > i) {                                               \
      BMM__VSTORE(out + i * 2 * VL, c##i##0);                  \
      if (NV > 1) BMM__VSTORE(out + i * 2 * VL + VL, c##i##1); \
    }                                                          \
  } while (0)
/* row i of the tile through the epilogue to C (the vectors blk_vstore would
   have read back from out: the same arithmetic, the same bits) */
#define BMM__BLK_EPI(i)                                                                        \
  do {                                                                                         \
    if (R > i) {                                                                               \
      BMM__T *cr = d->c + i * d->crs;                                                          \
      BMM__FN(vstore_c_v)(d->nt, cr, BMM__FN(vepilogue_v)(rc, al, be, cr, bs, c##i##0));       \
      if (NV > 1) BMM__FN(vstore_c_v)                                                          \
      (d->nt, cr + VL, BMM__FN(vepilogue_v)(rc, al, be, cr + VL, bs ? bs + VL : bs, c##i##1)); \
      if (NV > 2) {                                                                            \
        BMM__FN(vstore_c_v)                                                                    \
        (d->nt, cr + 2 * VL,                                                                   \
         BMM__FN(vepilogue_v)(rc, al, be, cr + 2 * VL, bs ? bs + 2 * VL : bs, c##i##2));       \
        BMM__FN(vstore_c_v)                                                                    \
        (d->nt, cr + 3 * VL,                                                                   \
         BMM__FN(vepilogue_v)(rc, al, be, cr + 3 * VL, bs ? bs + 3 * VL : bs, c##i##3));       \
      }                                                                                        \
    }                                                                                          \
  } while (0)
/* row i of the tile without reading C, stored by ST: r = alpha times the
   sums (F: BMM__BLK_AX1), or that plus the bias vectors bv* (BMM__BLK_AXB1);
   BMM__BLK_EPI's arithmetic for those cases, the same bits */
#define BMM__BLK_AX1(x, j) (r = al * (x))
#define BMM__BLK_AXI(x, j) (r = (x))
#define BMM__BLK_AXB1(x, j) \
  do {                      \
    r = bv##j;              \
    BMM__VFMA(al, x, r);    \
  } while (0)
#define BMM__BLK_AXV(p, x, j, ST, F) \
  do {                               \
    F(x, j);                         \
    ST(p, r);                        \
  } while (0)
#define BMM__BLK_AX(i, ST, F)                                   \
  do {                                                          \
    if (R > i) {                                                \
      BMM__T *cr = d->c + i * d->crs;                           \
      BMM__BLK_AXV(cr, c##i##0, 0, ST, F);                      \
      if (NV > 1) BMM__BLK_AXV(cr + VL, c##i##1, 1, ST, F);     \
      if (NV > 2) BMM__BLK_AXV(cr + 2 * VL, c##i##2, 2, ST, F); \
      if (NV > 2) BMM__BLK_AXV(cr + 3 * VL, c##i##3, 3, ST, F); \
    }                                                           \
  } while (0)
#define BMM__BLK_AXS(ST, F) \
  BMM__BLK_AX(0, ST, F);    \
  BMM__BLK_AX(1, ST, F);    \
  BMM__BLK_AX(2, ST, F);    \
  BMM__BLK_AX(3, ST, F);    \
  BMM__BLK_AX(4, ST, F);    \
  BMM__BLK_AX(5, ST, F);    \
  BMM__BLK_AX(6, ST, F);    \
  BMM__BLK_AX(7, ST, F)
BMM__INLINE void BMM__FN(tile)(int64_t k, const BMM__T *BMM__RESTRICT a, int64_t ars, int64_t acs,
                               const BMM__T *BMM__RESTRICT b, int64_t brs, int64_t w,
                               BMM__T *BMM__RESTRICT out, const BMM__FN(blk_dst) * d, const int R,
                               const int NV) {
  enum { VL = BMM__CPU_VBYTES / (int)sizeof(BMM__T) };
  BMM__VEC c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0}, c31 = {0};
  BMM__VEC c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0}, c60 = {0}, c61 = {0}, c70 = {0}, c71 = {0};
  /* 4-vector tiles (R <= 6) only */
  BMM__VEC c02 = {0}, c03 = {0}, c12 = {0}, c13 = {0}, c22 = {0}, c23 = {0}, c32 = {0}, c33 = {0};
  BMM__VEC c42 = {0}, c43 = {0}, c52 = {0}, c53 = {0}, c62 = {0}, c63 = {0}, c72 = {0}, c73 = {0};
  BMM__VEC b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
  int64_t l, j;
  if (w == NV * VL) {
    for (l = 0; l < k; ++l) {
      b0 = BMM__VLOAD(b + l * brs);
      if (NV > 1) b1 = BMM__VLOAD(b + l * brs + VL);
      if (NV > 2) {
        b2 = BMM__VLOAD(b + l * brs + 2 * VL), b3 = BMM__VLOAD(b + l * brs + 3 * VL);
        /* in registers: gcc 12 folded these loads into the FMAs as memory
           operands, each B vector read once per row, and the 4 x 4 tile ran
           2x slower on Zen 5 (bench/notes/cpu.md, "cpu_blocked's epilogue,
           4-vector tiles"). "v": an x86 vector register (only AVX-512
           builds have these tiles) */
#if BMM__BLK_NV4
        __asm__("" : "+v"(b0), "+v"(b1), "+v"(b2), "+v"(b3));
#endif
      }
      BMM__BLK_ROWS();
    }
  } else { /* right edge: the row of B into zeros, never read past w */
    BMM__T pad[2 * VL];
    for (l = 0; l < k; ++l) {
      for (j = 0; j < 2 * VL; ++j)
        pad[j] = j < w ? b[l * brs + j] : (BMM__T)0;
      b0 = BMM__VLOAD(pad);
      if (NV > 1) b1 = BMM__VLOAD(pad + VL);
      BMM__BLK_ROWS();
    }
  }
  if (d) {
    const bmm_plan *pl = d->pl;
    const BMM__T al = (BMM__T)pl->alpha, be = (BMM__T)pl->beta;
    const BMM__T *bs = pl->bias ? (const BMM__T *)pl->bias + d->j0 : NULL;
    const int rc = pl->read_c;
    /* C = alpha A B (+ bias), the common calls: the tests vepilogue_v and
       vstore_c_v make per vector (bias, C read, alignment) made once per
       tile (d->nt already says every row is aligned), the bias loaded once
       per tile. Those tests were ~7% of a 32^3 entry's instructions
       (bench/notes/cpu.md, "cpu_blocked's epilogue, 4-vector tiles"). */
    BMM__VEC r;
    if (!rc && !bs) {
#if BMM__CPU_NT
      if (d->nt) {
        BMM__BLK_AXS(BMM__NTSTORE_V, BMM__BLK_AX1);
        return;
      }
#endif
      /* alpha = 1 (the helpers' default) without the multiply, the same
         bits: 16 multiplies a tile were 3% of a 32^3 f32 entry in cache
         (Zen 5; bench/notes/cpu.md, "blocked: one call a row of tiles") */
      if (al == 1) {
        BMM__BLK_AXS(BMM__VSTORE, BMM__BLK_AXI);
        return;
      }
      BMM__BLK_AXS(BMM__VSTORE, BMM__BLK_AX1);
      return;
    }
    if (!rc && !d->nt) {
      BMM__VEC bv0 = BMM__VLOAD(bs), bv1 = b0, bv2 = b0, bv3 = b0;
      if (NV > 1) bv1 = BMM__VLOAD(bs + VL);
      if (NV > 2) bv2 = BMM__VLOAD(bs + 2 * VL), bv3 = BMM__VLOAD(bs + 3 * VL);
      BMM__BLK_AXS(BMM__VSTORE, BMM__BLK_AXB1);
      return;
    }
    BMM__BLK_EPI(0);
    BMM__BLK_EPI(1);
    BMM__BLK_EPI(2);
    BMM__BLK_EPI(3);
    BMM__BLK_EPI(4);
    BMM__BLK_EPI(5);
    BMM__BLK_EPI(6);
    BMM__BLK_EPI(7);
    return;
  }
  BMM__BLK_OUT(0);
  BMM__BLK_OUT(1);
  BMM__BLK_OUT(2);
  BMM__BLK_OUT(3);
  BMM__BLK_OUT(4);
  BMM__BLK_OUT(5);
  BMM__BLK_OUT(6);
  BMM__BLK_OUT(7);
}
#undef BMM__BLK_ROW
#undef BMM__BLK_ROWS
#undef BMM__BLK_OUT
#undef BMM__BLK_EPI
#undef BMM__BLK_AX1
#undef BMM__BLK_AXI
#undef BMM__BLK_AXB1
#undef BMM__BLK_AXV
#undef BMM__BLK_AX
#undef BMM__BLK_AXS
#else
BMM__INLINE void BMM__FN(tile)(int64_t k, const BMM__T *BMM__RESTRICT a, int64_t ars, int64_t acs,
                               const BMM__T *BMM__RESTRICT b, int64_t brs, int64_t w,
                               BMM__T *BMM__RESTRICT out, const BMM__FN(blk_dst) * d, const int R,
                               const int NV) {
  enum { VL = BMM__CPU_VBYTES / (int)sizeof(BMM__T) };
  BMM__T r[BMM__BLK_MR][2 * VL];
  int64_t i, j, l;
  (void)NV;
  for (i = 0; i < R; ++i)
    for (j = 0; j < w; ++j)
      r[i][j] = 0;
  for (l = 0; l < k; ++l)
    for (i = 0; i < R; ++i) {
      const BMM__T s = a[i * ars + l * acs];
      for (j = 0; j < w; ++j)
        r[i][j] = BMM__FMA(s, b[l * brs + j], r[i][j]);
    }
  for (i = 0; i < R; ++i)
    if (d) /* blk_store's scalar path, as the vector build's is blk_vstore's */
      BMM__FN(store)(d->pl, d->c + i * d->crs, 1, r[i], w, d->j0, 1, 0);
    else
      for (j = 0; j < w; ++j)
        out[i * 2 * VL + j] = r[i][j];
}
#endif
/* the tile kernel of R rows by NV vectors */
#define BMM__BLK_TILE_FN(R, NV)                                                         \
  static BMM__VEXT_ATTR void BMM__FN(tile_##R##x##NV)(                                  \
      int64_t k, const BMM__T *BMM__RESTRICT a, int64_t ars, int64_t acs,               \
      const BMM__T *BMM__RESTRICT b, int64_t brs, int64_t w, BMM__T *BMM__RESTRICT out, \
      const BMM__FN(blk_dst) * d) {                                                     \
    BMM__FN(tile)(k, a, ars, acs, b, brs, w, out, d, R, NV);                            \
  }
/* a tile kernel per rows R (1..MR) and vectors NV (1, 2) */
#define BMM__BLK_TILE_DEF(R) BMM__BLK_TILE_FN(R, 1) BMM__BLK_TILE_FN(R, 2)
BMM__BLK_TILE_ROWS(BMM__BLK_TILE_DEF)
#undef BMM__BLK_TILE_DEF
#define BMM__BLK_TILE_ENTRY(R) {BMM__FN(tile_##R##x1), BMM__FN(tile_##R##x2)},
static const BMM__FN(tile_fn)
    BMM__FN(tiles)[BMM__BLK_MR][2] = {BMM__BLK_TILE_ROWS(BMM__BLK_TILE_ENTRY)};
#undef BMM__BLK_TILE_ENTRY
#if BMM__BLK_NV4
/* 4-vector tiles of R <= 6 rows, straight to C (d, full width only): per
   step of k 4 B vectors and 6 broadcasts for 24 FMAs, where 8 x 2 tiles take
   10 loads for 16. They read B once per 6 rows, not 8: 4-row tiles did so
   once per 4 and, with B in L2 (square128), ran 1.2x slower on Zen 5; 6-row
   ones ran 1.09x faster there on an Intel Xeon, and 8 x 2 tiles in their
   place took 1.02-1.10x the time at 32^3..128^3 f64 in cache on Zen 5
   (2026-12-02). */
#define BMM__BLK_TILE4_DEF(R) BMM__BLK_TILE_FN(R, 4)
BMM__BLK_TILE4_ROWS(BMM__BLK_TILE4_DEF)
#undef BMM__BLK_TILE4_DEF
#define BMM__BLK_TILE4_ENTRY(R) BMM__FN(tile_##R##x4),
static const BMM__FN(tile_fn)
    BMM__FN(tiles4)[BMM__BLK_MR4] = {BMM__BLK_TILE4_ROWS(BMM__BLK_TILE4_ENTRY)};
#undef BMM__BLK_TILE4_ENTRY
#endif
#undef BMM__BLK_TILE_FN
/* A panel: nblk row blocks of R rows by ntile full tiles of NV vectors,
   R * ars and NV vectors apart, each straight to C (d; C's rows contiguous,
   c the first tile's, j0 its column). One call for what took nblk * ntile
   tile calls: the kernel's loop around its tile calls cost 5-8% of a 32^3
   f32 entry in cache beside the tiles alone, where LIBXSMM runs one
   JIT-compiled function per entry (Zen 5; bench/notes/cpu.md, "blocked: one
   call a row of tiles"). */
BMM__INLINE void BMM__FN(panel)(int64_t k, const BMM__T *BMM__RESTRICT a, int64_t ars, int64_t acs,
                                const BMM__T *BMM__RESTRICT b, int64_t brs, int64_t nblk,
                                int64_t ntile, BMM__T *c, int64_t j0, int nt, BMM__FN(blk_dst) * d,
                                const int R, const int NV) {
  const int64_t W = NV * (BMM__CPU_VBYTES / (int)sizeof(BMM__T));
  int64_t i, t;
  const BMM__FN(blk_dst) * dt;
  for (i = 0; i < nblk; ++i)
    for (t = 0; t < ntile; ++t) {
      dt = BMM__FN(blk_dst_at)(d, c + i * R * d->crs + t * W, j0 + t * W, nt);
      BMM__FN(tile)(k, a + i * R * ars, ars, acs, b + t * W, brs, W, NULL, dt, R, NV);
    }
}
typedef void (*BMM__FN(panel_fn))(int64_t k, const BMM__T *BMM__RESTRICT a, int64_t ars,
                                  int64_t acs, const BMM__T *BMM__RESTRICT b, int64_t brs,
                                  int64_t nblk, int64_t ntile, BMM__T *c, int64_t j0, int nt,
                                  BMM__FN(blk_dst) * d);
#define BMM__BLK_PANEL_FN(R, NV)                                                          \
  static BMM__VEXT_ATTR void BMM__FN(panel_##R##x##NV)(                                   \
      int64_t k, const BMM__T *BMM__RESTRICT a, int64_t ars, int64_t acs,                 \
      const BMM__T *BMM__RESTRICT b, int64_t brs, int64_t nblk, int64_t ntile, BMM__T *c, \
      int64_t j0, int nt, BMM__FN(blk_dst) * d) {                                         \
    BMM__FN(panel)(k, a, ars, acs, b, brs, nblk, ntile, c, j0, nt, d, R, NV);             \
  }
/* a panel kernel per rows R (1..MR) of 2-vector tiles (and R <= MR4 of
   4-vector ones) */
#define BMM__BLK_PANEL_DEF(R) BMM__BLK_PANEL_FN(R, 2)
BMM__BLK_TILE_ROWS(BMM__BLK_PANEL_DEF)
#undef BMM__BLK_PANEL_DEF
#define BMM__BLK_PANEL_ENTRY(R) BMM__FN(panel_##R##x2),
static const BMM__FN(panel_fn)
    BMM__FN(panels)[BMM__BLK_MR] = {BMM__BLK_TILE_ROWS(BMM__BLK_PANEL_ENTRY)};
#undef BMM__BLK_PANEL_ENTRY
#if BMM__BLK_NV4
#define BMM__BLK_PANEL4_DEF(R) BMM__BLK_PANEL_FN(R, 4)
BMM__BLK_TILE4_ROWS(BMM__BLK_PANEL4_DEF)
#undef BMM__BLK_PANEL4_DEF
#define BMM__BLK_PANEL4_ENTRY(R) BMM__FN(panel_##R##x4),
static const BMM__FN(panel_fn)
    BMM__FN(panels4)[BMM__BLK_MR4] = {BMM__BLK_TILE4_ROWS(BMM__BLK_PANEL4_ENTRY)};
#undef BMM__BLK_PANEL4_ENTRY
#endif
#undef BMM__BLK_PANEL_FN

/* h rows of cnt results from out (rows 2 vectors apart) to C at cp. The
   full-width, unit-stride case is spelled out in vectors (gcc unrolls the
   constant-count loop of the scalar store into scalar stores there), in a
   function of its own (the epilogue's vector code once, not in every
   caller). Not inlined: inlined, gcc hoisted some 30 addresses of its scalar
   loop out of the caller's row-block loop and spilled them, every block,
   which cost the in-place 32^3 f32 path 12% (bench/notes/cpu.md, "blocked
   tile: the epilogue from registers"). */
#if BMM__CPU_VEXT
static BMM__VEXT_ATTR void BMM__FN(blk_vstore)(const BMM__FN(blk_dst) * d, const BMM__T *out,
                                               int64_t h) {
  enum { VL = BMM__CPU_VBYTES / (int)sizeof(BMM__T) };
  const bmm_plan *pl = d->pl;
  const BMM__T al = (BMM__T)pl->alpha, be = (BMM__T)pl->beta, *bias = (const BMM__T *)pl->bias;
  const int rc = pl->read_c;
  int64_t i, v;
  for (i = 0; i < h; ++i)
    for (v = 0; v < 2; ++v) {
      BMM__T *c = d->c + i * d->crs + v * VL;
      const BMM__T *bs = bias ? bias + d->j0 + v * VL : NULL;
      const BMM__VEC r =
          BMM__FN(vepilogue_v)(rc, al, be, c, bs, BMM__VLOAD(out + (i * 2 + v) * VL));
      BMM__FN(vstore_c_v)(d->nt, c, r);
    }
}
#endif
static BMM__VEXT_ATTR void BMM__FN(blk_store)(const bmm_plan *pl, BMM__T *cp, int64_t crs,
                                              int64_t ccs, const BMM__T *out, int64_t h,
                                              int64_t cnt, int64_t j0, int nt) {
  enum { NR = 2 * BMM__CPU_VBYTES / (int)sizeof(BMM__T) };
  int64_t i;
#if BMM__CPU_VEXT
  if (ccs == 1 && cnt == NR) {
    BMM__FN(blk_dst) d;
    d.pl = pl, d.crs = crs;
    BMM__FN(blk_vstore)(BMM__FN(blk_dst_at)(&d, cp, j0, nt), out, h);
    return;
  }
#endif
  (void)nt;
  for (i = 0; i < h; ++i)
    BMM__FN(store)(pl, cp + i * crs, ccs, out + i * NR, cnt, j0, 1, 0);
}
/* cpu_blocked in place: the right edge of h rows of C (at c, A's rows at a),
   columns jr..n, narrower than a tile: a full tile ending at column n (its
   first columns are recomputed, not stored), or one vector; the slow padded
   path only where n is narrower than a vector */
static void BMM__FN(blk_edge)(const bmm_plan *pl, const BMM__T *a, const BMM__T *b, BMM__T *c,
                              int64_t h, int64_t jr, int nt) {
  enum { VL = BMM__CPU_VBYTES / (int)sizeof(BMM__T), NR = 2 * VL };
  const int64_t n = pl->n;
  BMM__T out[BMM__BLK_MR * NR];
  int64_t w;
  for (; jr < n; jr += w) {
    int64_t js = jr, tw = NR;
    w = n - jr;
    if (n >= NR)
      js = n - NR;
    else if (w > VL)
      w = tw = VL;
    else if (n >= VL)
      js = n - VL, tw = VL;
    else
      tw = w;
    BMM__FN(tiles)
    [h - 1][tw > VL](pl->k, a, pl->a.row_stride, pl->a.col_stride, b + js, pl->b.row_stride, tw,
                     out, NULL);
    BMM__FN(blk_store)
    (pl, c + jr * pl->c.col_stride, pl->c.row_stride, pl->c.col_stride, out + (jr - js), h, w, jr,
     nt);
  }
}

/* kc x nc of B (at b, strides brs, bcs) into pw-column panels at bp (pw:
   the tile's width, 2 or 4 vectors), panel jr / pw at bp + jr * kc, row l of
   it at + l * pw, zero-padded to pw. The
   loop runs along B's contiguous direction: row-major B a row at a time
   across the panels (one sequential read of nc elements), else a panel at a
   time down the rows; the old panel-first order read a row-major B in
   NR-element pieces kc rows apart, a stride the prefetchers do not follow
   (bench/notes/cpu.md, "blocked packing"). Row l + 8 is asked for while row
   l is copied: rows of a wide B are far apart (8 KiB at 1024 f64), each a new
   stream to the hardware prefetchers, and the pack waited on every row's
   first lines (~8% of a square1024 f64 call; with the request 0.93-0.98x the
   time at 1024^3, 512^3, 200 x 500 x 400, same bits; bench/notes/cpu.md,
   "blocked: B's packing"). */
BMM__INLINE void BMM__FN(blk_pack)(const BMM__T *b, int64_t brs, int64_t bcs, int64_t kc,
                                   int64_t nc, int64_t pw, BMM__T *bp) {
  int64_t l, jr, j;
  if (bcs == 1) {
    for (l = 0; l < kc; ++l)
      for (jr = 0; jr < nc; jr += pw) {
        const int64_t wr = nc - jr < pw ? nc - jr : pw;
        BMM__T *dst = bp + jr * kc + l * pw;
        if (l + 8 < kc)
          for (j = 0; j < wr; j += 64 / (int64_t)sizeof(BMM__T))
            BMM__PREFETCH(b + (l + 8) * brs + jr + j);
        for (j = 0; j < wr; ++j)
          dst[j] = b[l * brs + jr + j];
        for (; j < pw; ++j)
          dst[j] = 0;
      }
    return;
  }
  for (jr = 0; jr < nc; jr += pw) {
    const int64_t wr = nc - jr < pw ? nc - jr : pw;
    BMM__T *dst = bp + jr * kc;
    for (l = 0; l < kc; ++l) {
      for (j = 0; j < wr; ++j)
        dst[l * pw + j] = b[l * brs + (jr + j) * bcs];
      for (; j < pw; ++j)
        dst[l * pw + j] = 0;
    }
  }
}

/* blk_pack for the real view of a complex call (bmm__cpu_cview_plan): the
   kc x nc block of B' = [br bi; -bi br] per element of B (b at B's parts,
   brs and bcs the parts between its complex rows and columns), in the same
   panels, B' built as it is packed (no 4 k n scratch). kc and nc are even
   (KC, NC and the view's 2k, 2n are), so a block holds whole elements. conj
   B negates bi; conj A, (ar - i ai)(br + i bi), makes B's odd rows (bi, -br):
   a sign each, exact. */
BMM__INLINE void BMM__FN(blk_pack_cview)(const BMM__T *b, int64_t brs, int64_t bcs, int64_t kc,
                                         int64_t nc, int64_t pw, int conja, int conjb, BMM__T *bp) {
  const BMM__T sa = conja ? (BMM__T)-1 : (BMM__T)1, sb = conjb ? (BMM__T)-1 : (BMM__T)1;
  int64_t l, jr, j;
  for (l = 0; l < kc / 2; ++l)
    for (jr = 0; jr < nc; jr += pw) {
      const int64_t wr = nc - jr < pw ? nc - jr : pw;
      const BMM__T *src = b + l * brs + jr / 2 * bcs;
      BMM__T *d0 = bp + jr * kc + 2 * l * pw, *d1 = d0 + pw;
      for (j = 0; j < wr; j += 2) {
        const BMM__T br = src[j / 2 * bcs], bi = sb * src[j / 2 * bcs + 1];
        d0[j] = br, d0[j + 1] = bi;
        d1[j] = -sa * bi, d1[j + 1] = sa * br;
      }
      for (; j < pw; ++j)
        d0[j] = 0, d1[j] = 0;
    }
}
/* B'[l][j] of that view, one at a time (blocked's dot products) */
BMM__INLINE BMM__T BMM__FN(cview_b)(const BMM__T *b, int64_t brs, int64_t bcs, int64_t l, int64_t j,
                                    int conja, int conjb) {
  const BMM__T *e = b + l / 2 * brs + j / 2 * bcs;
  const BMM__T br = e[0], bi = conjb ? -e[1] : e[1];
  if (l % 2 == 0) return j % 2 ? bi : br;
  return j % 2 ? (conja ? -br : br) : (conja ? bi : -bi);
}

/* cpu_blocked in place, C's rows contiguous, no lines to ask for: the rows
   of a unit (A and C at its first row) cut by *cut, a panel call per block
   height and tile width (4-vector tiles where nv4, then 2-vector ones), then
   the right edge a block at a time */
BMM__INLINE void BMM__FN(blk_panels)(const bmm_plan *pl, const BMM__T *A, const BMM__T *B,
                                     BMM__T *C, const bmm__cpu_cut *cut, int nv4, int nt,
                                     BMM__FN(blk_dst) * dst) {
  enum { NR = 2 * BMM__CPU_VBYTES / (int)sizeof(BMM__T) };
  const int64_t n = pl->n, k = pl->k, ars = pl->a.row_stride, acs = pl->a.col_stride;
  const int64_t brs = pl->b.row_stride, crs = pl->c.row_stride;
  const int64_t n4 = nv4 ? n / (2 * NR) : 0, n2 = (n - n4 * 2 * NR) / NR, j2 = n4 * 2 * NR;
  const int64_t je = j2 + n2 * NR;
  int64_t g, blk, h;
  for (g = 0; g < 2; A += cut->h[g] * cut->cnt[g] * ars, C += cut->h[g] * cut->cnt[g] * crs, ++g) {
    if (!cut->cnt[g]) continue;
    h = cut->h[g];
#if BMM__BLK_NV4
    if (n4) BMM__FN(panels4)[h - 1](k, A, ars, acs, B, brs, cut->cnt[g], n4, C, 0, nt, dst);
#endif
    if (n2)
      BMM__FN(panels)[h - 1](k, A, ars, acs, B + j2, brs, cut->cnt[g], n2, C + j2, j2, nt, dst);
    if (je < n)
      for (blk = 0; blk < cut->cnt[g]; ++blk)
        BMM__FN(blk_edge)(pl, A + blk * h * ars, B, C + blk * h * crs, h, je, nt);
  }
}

/* blk_panels on a whole entry of M x N x K, A, B and C packed row-major, every
   size and stride a constant: rows cut as blk_panels' (no prefetch), h rows a
   block by panel(), inlined, so that each tile is compiled for the size */
BMM__INLINE void BMM__FN(blk_fixed_rows)(const BMM__T *A, const BMM__T *B, BMM__T *C, int nt,
                                         BMM__FN(blk_dst) * d, const int h, const int64_t cnt,
                                         const int N, const int K) {
  enum { NR = 2 * BMM__CPU_VBYTES / (int)sizeof(BMM__T) };
  const int64_t n4 = BMM__BLK_NV4 && N >= 2 * NR ? N / (2 * NR) : 0;
  const int64_t n2 = (N - n4 * 2 * NR) / NR, j2 = n4 * 2 * NR, je = j2 + n2 * NR;
  int64_t blk;
  if (!cnt) return;
  if (n4) BMM__FN(panel)(K, A, K, 1, B, N, cnt, n4, C, 0, nt, d, h, 4);
  if (n2) BMM__FN(panel)(K, A, K, 1, B + j2, N, cnt, n2, C + j2, j2, nt, d, h, 2);
  if (je < N)
    for (blk = 0; blk < cnt; ++blk)
      BMM__FN(blk_edge)(d->pl, A + blk * h * K, B, C + blk * h * N, h, je, nt);
}
BMM__INLINE void BMM__FN(blk_fixed)(const BMM__T *A, const BMM__T *B, BMM__T *C, int nt,
                                    BMM__FN(blk_dst) * d, const int M, const int N, const int K) {
  enum { NR = 2 * BMM__CPU_VBYTES / (int)sizeof(BMM__T) };
#if BMM__BLK_NV4
  const bmm__cpu_cut cut = bmm__cpu_blk_cut(M, N >= 2 * NR ? BMM__BLK_MR4 : BMM__BLK_MR, 0);
#else
  const bmm__cpu_cut cut = bmm__cpu_blk_cut(M, BMM__BLK_MR, 0);
#endif
  BMM__FN(blk_fixed_rows)(A, B, C, nt, d, (int)cut.h[0], cut.cnt[0], N, K);
  BMM__FN(blk_fixed_rows)
  (A + cut.h[0] * cut.cnt[0] * K, B, C + cut.h[0] * cut.cnt[0] * N, nt, d, (int)cut.h[1],
   cut.cnt[1], N, K);
}
typedef void (*BMM__FN(blk_fixed_fn))(const BMM__T *A, const BMM__T *B, BMM__T *C, int nt,
                                      BMM__FN(blk_dst) * d);
#define BMM__BLK_FIXED_FN(M, N, K)                                                 \
  static BMM__VEXT_ATTR void BMM__FN(blk_##M##x##N##x##K)(                         \
      const BMM__T *A, const BMM__T *B, BMM__T *C, int nt, BMM__FN(blk_dst) * d) { \
    BMM__FN(blk_fixed)(A, B, C, nt, d, M, N, K);                                   \
  }
BMM__CPU_BLK_SIZES(BMM__BLK_FIXED_FN)
#undef BMM__BLK_FIXED_FN
#define BMM__BLK_FIXED_ENTRY(M, N, K) BMM__FN(blk_##M##x##N##x##K),
static const BMM__FN(blk_fixed_fn)
    BMM__FN(blk_fixed_fns)[] = {BMM__CPU_BLK_SIZES(BMM__BLK_FIXED_ENTRY)};
#undef BMM__BLK_FIXED_ENTRY

/* kernel blocked (bmm__cpu_pick): units are (entry, column block, row block)
   triples (bmm__cpu_blk_units). With B packed and k > KC a unit holds its MB
   rows' sums over the KC blocks in scratch after the packed B and applies the
   epilogue once, at the last block: alpha multiplies the whole sum, never a KC
   block's part (1e300 * 1e10 is Inf where 1e300 * (1e10 - 1e10 + 1) is not;
   issue 24, defect 2). The unit has at most MH rows (bmm__cpu_blk_rows), so
   the scratch is MH x NC elements and B is re-packed per MH rows (~1/MH of the
   work; per 96 rows that cost square1024 f64 1.57x its time). */
static void BMM__FN(blocked)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t u0,
                             int64_t u1) {
  enum {
    VL = BMM__CPU_VBYTES / (int)sizeof(BMM__T),
    NR = 2 * VL,
    NC = BMM__BLK_NC,
    MR = BMM__BLK_MR,
    KC_HOLDS_STREAMED_K = 1 / (BMM__BLK_KC >= BMM__CPU_STREAM_MAX_K)
  };
  const int sz = (int)sizeof(BMM__T);
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;
  const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;
  const int64_t crs = pl->c.row_stride, ccs = pl->c.col_stride;
  const int64_t rows = ch->rows, per = bmm__cpu_blk_units(pl, sz, rows);
  const int64_t nrb = bmm__ceil_div(m, rows);
  const int in_place = bmm__cpu_blk_in_place(pl, sz);
  /* streamed C is written once: k <= BMM__CPU_STREAM_MAX_K is one KC block */
  const int nt = ch->stream;
#if BMM__BLK_NV4
  /* in place, 4 vectors wide where C's rows hold them: then row blocks of MR4 */
  const int nv4 = ccs == 1 && n >= 2 * NR;
  const int64_t st = nv4 ? BMM__BLK_MR4 : MR;
#else
  const int nv4 = 0;
  const int64_t st = MR;
#endif
  /* the in-place units' row blocks, cut once per call: every unit but the
     last of an entry has `rows` rows */
  const bmm__cpu_cut full = bmm__cpu_blk_cut(rows, st, ch->prefetch),
                     last = bmm__cpu_blk_cut(m - (nrb - 1) * rows, st, ch->prefetch);
  BMM__T out[BMM__BLK_MR * NR];
  BMM__FN(blk_dst) dst;
  BMM__T *bp = NULL;
  /* the next unit's entry and place in it, counted: three 64-bit divisions
     a unit, and two more for its row blocks, were ~1.5% of a 32^3 f32 entry
     in cache (Zen 5; bench/notes/cpu.md, "blocked: one call a row of tiles") */
  int64_t u, bi, ur, bnext = per ? u0 / per : 0, rnext = per ? u0 % per : 0;
  int64_t jc, pc, jr, ir, i, j, l;
  /* dot products where the packing scratch cannot be had (no allocation
     failure may fail the call) */
  const int dots =
      !in_place &&
      !(bp = (BMM__T *)malloc(sizeof(BMM__T) * NC *
                              (BMM__BLK_KC + (k > BMM__BLK_KC ? BMM__BLK_MH_ROWS : 0))));
  dst.pl = pl, dst.crs = crs;
  if (ch->fixed) { /* whole entries of a size compiled for (bmm__cpu_blk_fixed) */
    const BMM__FN(blk_fixed_fn) fn = BMM__FN(blk_fixed_fns)[ch->fixed - 1];
    for (u = u0; u < u1; ++u) {
      const BMM__T *A, *B;
      BMM__T *C;
      BMM__FN(ptrs)(pl, u, &A, &B, &C);
      fn(A, B, C, nt, &dst);
    }
    return;
  }
  if (in_place && nrb == 1 && ccs == 1 && !ch->prefetch) {
    /* whole entries (per = 1), nothing to ask for ahead, C's rows
       contiguous: an entry is a panel call or two from a loop that does
       nothing else. The unit loop's bookkeeping with panels: ~190 driver
       instructions an entry, here ~125 (callgrind, AVX2 build); 32^3 f32 in
       L2 266-272 -> 261-264 ns an entry, inside this VM's placement noise
       (Zen 5; bench/notes/cpu.md, "blocked: one call a row of tiles") */
    for (u = u0; u < u1; ++u) {
      const BMM__T *A, *B;
      BMM__T *C;
      BMM__FN(ptrs)(pl, u, &A, &B, &C);
      BMM__FN(blk_panels)(pl, A, B, C, &last, nv4, nt, &dst);
    }
    return;
  }
  for (u = u0; u < u1; ++u) {
    const BMM__T *A, *B;
    BMM__T *C;
    bi = bnext, ur = rnext;
    if (++rnext == per) rnext = 0, ++bnext;
    /* this unit's rows i0..i1 and columns j0..j1 (in place: one column
       block, per = nrb) */
    const int64_t i0 = (in_place ? ur : ur % nrb) * rows, i1 = m - i0 > rows ? i0 + rows : m;
    const int64_t j0 = in_place ? 0 : ur / nrb * NC, j1 = in_place || n - j0 <= NC ? n : j0 + NC;
    BMM__FN(ptrs)(pl, bi, &A, &B, &C);
    if (dots) {
      for (i = i0; i < i1; ++i)
        for (j = j0; j < j1; ++j) {
          if (ch->cview) /* B' is no array: its elements one by one */
            for (l = 0, out[0] = 0; l < k; ++l)
              out[0] =
                  BMM__FMA(A[i * ars + l * acs],
                           BMM__FN(cview_b)(B, brs, bcs, l, j, pl->a.conj, pl->b.conj), out[0]);
          else
            out[0] = BMM__FN(dotp)(A + i * ars, acs, B + j * bcs, brs, k);
          BMM__FN(store)(pl, C + i * crs + j * ccs, 1, out, 1, j, 0, nt);
        }
      continue;
    }
    if (in_place) {
      /* The next entry's A and B (their spans, where packed) asked for now,
         a part per row block: with 4 KiB pages an entry of 32^3 f32 is a
         page per operand, where the hardware prefetchers stop. 1.2-1.65x
         at 24^3..96^3 out of cache, same bits (bench/notes/cpu.md, "blocked
         prefetch"); 2 or 4 entries ahead gained nothing more. */
      const char *an = NULL, *bn = NULL;
      int64_t na = 0, nb = 0, pa = 0, pb = 0, blk = 0, h;
      /* a unit of rows i0..i1 (one of per = nrb) asks for its share of the
         next entry: the entry's units together ask for all of it. 128^3 and
         256^3 split into row units ran 1.7x their in-cache time per entry
         without (Zen 5; bench/notes/cpu.md, "blocked prefetch per row unit") */
      const int64_t r = ur;
      const bmm__cpu_cut cut = i1 - i0 == rows ? full : last;
      const int64_t nblk = cut.cnt[0] + cut.cnt[1];
      if (ch->prefetch && (bi + 1) * per < u1) {
        const BMM__T *A1, *B1;
        BMM__T *C1;
        BMM__FN(ptrs)(pl, bi + 1, &A1, &B1, &C1);
        an = (const char *)A1, bn = (const char *)B1;
        na = acs == 1 && ars == k ? m * k * sz : 0;
        nb = B1 != B && brs == n ? k * n * sz : 0; /* a shared B stays in cache */
        pa = na * r / per / 64 * 64, pb = nb * r / per / 64 * 64;
      }
      if (!(na + nb) && ccs == 1) { /* nothing to ask for: panels */
        BMM__FN(blk_panels)(pl, A + i0 * ars, B, C + i0 * crs, &cut, nv4, nt, &dst);
        continue;
      }
      for (ir = i0; ir < i1; ir += h, ++blk) {
        h = blk < cut.cnt[0] ? cut.h[0] : cut.h[1];
        for (jr = 0; jr + NR <= n; jr += NR) {
          BMM__T *ct = C + ir * crs + jr * ccs;
          if (na + nb) /* this tile's part of the unit's share */
            bmm__cpu_pf_part(an, &pa, na, bn, &pb, nb,
                             ((double)(r * nblk + blk) + (double)(jr + NR) / (double)n) /
                                 (double)(per * nblk),
                             ch->pf_l2);
#if BMM__BLK_NV4
          if (nv4 && jr + 2 * NR <= n) { /* 4 vectors wide */
            BMM__FN(tiles4)
            [h - 1](k, A + ir * ars, ars, acs, B + jr, brs, 2 * NR, out,
                    BMM__FN(blk_dst_at)(&dst, ct, jr, nt));
            jr += NR; /* and the loop's NR */
            continue;
          }
#endif
          if (ccs == 1) {
            BMM__FN(tiles)
            [h - 1][1](k, A + ir * ars, ars, acs, B + jr, brs, NR, out,
                       BMM__FN(blk_dst_at)(&dst, ct, jr, nt));
            continue;
          }
          BMM__FN(tiles)[h - 1][1](k, A + ir * ars, ars, acs, B + jr, brs, NR, out, NULL);
          BMM__FN(blk_store)(pl, ct, crs, ccs, out, h, NR, jr, nt);
        }
        if (na + nb) /* the rest of the block's part */
          bmm__cpu_pf_part(an, &pa, na, bn, &pb, nb,
                           (double)(r * nblk + blk + 1) / (double)(per * nblk), ch->pf_l2);
        if (jr < n) BMM__FN(blk_edge)(pl, A + ir * ars, B, C + ir * crs, h, jr, nt);
      }
      continue;
    }
    for (jc = j0; jc < j1; jc += NC) {
      const int64_t nc = n - jc < (int64_t)NC ? n - jc : (int64_t)NC;
#if BMM__BLK_NV4
      /* one KC block: 4-vector panels and 6-row tiles, straight to C (their
         sums stay in registers; held sums over KC blocks keep 2-vector
         ones). 1.2x the 8 x 2 tile's rate at 256^3 f64 on an Intel Xeon
         (bench/notes/cpu.md, "6 x 4 tiles") */
      const int p4 = k <= BMM__BLK_KC && ccs == 1 && nc >= 2 * NR;
      const int64_t pw = p4 ? 2 * NR : NR, pst = p4 ? BMM__BLK_MR4 : MR;
#else
      const int64_t pw = NR, pst = MR;
#endif
      for (pc = 0; pc < k; pc += BMM__BLK_KC) {
        const int64_t kc = k - pc < BMM__BLK_KC ? k - pc : BMM__BLK_KC;
        /* the real view: B's element (pc / 2, jc / 2) starts the block of B' */
        const BMM__T *bk = B + (ch->cview ? pc / 2 * brs + jc / 2 * bcs : pc * brs + jc * bcs);
        if (ch->cview)
          BMM__FN(blk_pack_cview)(bk, brs, bcs, kc, nc, pw, pl->a.conj, pl->b.conj, bp);
        else
          BMM__FN(blk_pack)(bk, brs, bcs, kc, nc, pw, bp);
        for (ir = i0; ir < i1; ir += pst) {
          const int64_t h = i1 - ir < pst ? i1 - ir : pst;
          const BMM__T *at = A + ir * ars + pc * acs;
#if BMM__BLK_NV4
          if (p4) {
            for (jr = 0; jr < nc; jr += pw) {
              const int64_t wr = nc - jr < pw ? nc - jr : pw;
              BMM__T *ct = C + ir * crs + jc + jr;
              int64_t js;
              if (wr == pw) {
                BMM__FN(tiles4)
                [h - 1](kc, at, ars, acs, bp + jr * kc, pw, pw, out,
                        BMM__FN(blk_dst_at)(&dst, ct, jc + jr, nt));
                continue;
              }
              /* the last, narrower panel (zero-padded to pw) in 2-vector
                 tiles */
              for (js = 0; js < wr; js += NR) {
                const int64_t w2 = wr - js < (int64_t)NR ? wr - js : (int64_t)NR;
                const int64_t tw = w2 > VL ? NR : VL;
                const int full = w2 == tw;
                BMM__FN(tiles)
                [h - 1][w2 > VL](kc, at, ars, acs, bp + jr * kc + js, pw, tw, out,
                                 full ? BMM__FN(blk_dst_at)(&dst, ct + js, jc + jr + js, nt)
                                      : NULL);
                if (!full) BMM__FN(blk_store)(pl, ct + js, crs, ccs, out, h, w2, jc + jr + js, nt);
              }
            }
            continue;
          }
#endif
          for (jr = 0; jr < nc; jr += NR) {
            const int64_t wr = nc - jr < (int64_t)NR ? nc - jr : (int64_t)NR;
            /* the panel is zero-padded to NR: the tile's full-width path */
            const int64_t tw = wr > VL ? NR : VL;
            BMM__T *ct = C + ir * crs + (jc + jr) * ccs;
            /* one KC block filling the tile: the epilogue from registers */
            const int direct = k <= BMM__BLK_KC && wr == tw && ccs == 1;
            BMM__FN(tiles)
            [h - 1][wr > VL](kc, at, ars, acs, bp + jr * kc, NR, tw, out,
                             direct ? BMM__FN(blk_dst_at)(&dst, ct, jc + jr, nt) : NULL);
            if (direct) continue;
            if (k <= BMM__BLK_KC) { /* one KC block: the epilogue at once */
              BMM__FN(blk_store)(pl, ct, crs, ccs, out, h, wr, jc + jr, nt);
            } else { /* sum the KC blocks' parts; the last one applies the epilogue */
              BMM__T *acc =
                  bp + BMM__BLK_KC * NC + ((ir - i0) / MR * (NC / NR) + jr / NR) * MR * NR;
              for (l = 0; l < h * NR; ++l)
                acc[l] = pc ? acc[l] + out[l] : out[l];
              if (pc + kc == k) {
                BMM__FN(blk_store)(pl, ct, crs, ccs, acc, h, wr, jc + jr, nt);
              }
            }
          }
        }
      }
    }
  }
  free(bp);
}

/* ---- cpu_batch_simd: vectors across the batch -----------------------------
   Batch-innermost: element (b, i, j) at (i*cols + j)*batch + b, so consecutive
   batch entries of one element are contiguous. Each unit is a chunk of
   BMM__BS_CHUNK entries; C[i][j] of VB entries at a time is accumulated in
   registers over k. Every lane does the same scalar sequence, so chunk borders
   (which depend on nothing but the batch) never change the bits. Every (i, l)
   row of A and l row of B is its own stream (k*(m+1) of them, more than the
   hardware prefetchers follow): each asks for its data 512 bytes ahead
   (bench/notes/cpu.md, "batch_simd prefetch"). */
static void BMM__FN(batch_simd)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t u0,
                                int64_t u1) {
  enum { VB = 2 * BMM__CPU_VBYTES / (int)sizeof(BMM__T), PF = 512 / (int)sizeof(BMM__T) };
  const int64_t m = pl->m, n = pl->n, k = pl->k, nb = pl->batch;
  const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;
  const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;
  const int64_t crs = pl->c.row_stride, ccs = pl->c.col_stride;
  int64_t u, i, j, l, v, vb;
  (void)ch;
  for (u = u0; u < u1; ++u) {
    const int64_t b0 = u * BMM__BS_CHUNK;
    const int64_t cnt = nb - b0 < BMM__BS_CHUNK ? nb - b0 : BMM__BS_CHUNK;
    const BMM__T *A = (const BMM__T *)pl->a.ptr + b0, *B = (const BMM__T *)pl->b.ptr + b0;
    BMM__T *C = (BMM__T *)pl->c.ptr + b0;
    for (i = 0; i < m; ++i)
      for (j = 0; j < n; ++j) {
        BMM__T *cp = C + i * crs + j * ccs;
        for (vb = 0; vb < cnt; vb += VB) {
          BMM__T acc[VB];
          for (v = 0; v < VB; ++v)
            acc[v] = 0;
          if (cnt - vb >= VB) {
            for (l = 0; l < k; ++l) {
              const BMM__T *BMM__RESTRICT x = A + i * ars + l * acs + vb;
              const BMM__T *BMM__RESTRICT y = B + l * brs + j * bcs + vb;
#if defined(__GNUC__)
              __builtin_prefetch(x + PF);
              if (i == 0) __builtin_prefetch(y + PF); /* later rows of C reuse B */
#endif
              for (v = 0; v < VB; ++v)
                acc[v] = BMM__FMA(x[v], y[v], acc[v]);
            }
            BMM__FN(store)(pl, cp + vb, 1, acc, VB, j, 0, 0);
          } else {
            const int64_t w = cnt - vb;
            for (l = 0; l < k; ++l) {
              const BMM__T *BMM__RESTRICT x = A + i * ars + l * acs + vb;
              const BMM__T *BMM__RESTRICT y = B + l * brs + j * bcs + vb;
              for (v = 0; v < w; ++v)
                acc[v] = BMM__FMA(x[v], y[v], acc[v]);
            }
            BMM__FN(store)(pl, cp + vb, 1, acc, w, j, 0, 0);
          }
        }
      }
  }
}

/* ---- this dtype's kernels, in the order of BMM__CPU_KERNELS ---------------- */
#define BMM__KFN(NAME) BMM__FN(NAME),
#define BMM__KFN_NONE(NAME) NULL,
#if BMM__CPU_VEXT
#define BMM__KFN_COL(FORM, M, N, K, SUFFIX) BMM__FN(dot_col_##SUFFIX),
#else
#define BMM__KFN_COL(FORM, M, N, K, SUFFIX) NULL,
#endif
#define BMM__KFN_SMALL(FORM, M, N, K, SUFFIX) BMM__FN(small_##FORM##_##SUFFIX),
static const bmm__cpu_range_fn BMM__FN(kernels)[BMM__CPU_KERNEL_COUNT] = {
    BMM__CPU_KERNELS(BMM__KFN, BMM__KFN, BMM__KFN_COL, BMM__KFN_SMALL, BMM__KFN_NONE)};
#undef BMM__KFN
#undef BMM__KFN_NONE
#undef BMM__KFN_COL
#undef BMM__KFN_SMALL

#undef BMM__FMA
#if BMM__CPU_VEXT
#undef BMM__VEC
#undef BMM__UVEC
#undef BMM__V16
#undef BMM__VLOAD
#undef BMM__VSTORE
#undef BMM__V16LOAD
#undef BMM__V16STORE
#undef BMM__VFMA
#undef BMM__V16FMA
#if BMM__CPU_V32
#undef BMM__V32
#undef BMM__V32LOAD
#undef BMM__V32STORE
#undef BMM__V32FMA
#endif
#endif
#endif /* BMM__CPU_HALF */

#elif BMM__CPU_SECTION == 3 /* one vector width of a real dtype ----------------- \
   Included per width by the real section (cpu_small's tiles), BMM__T and BMM__N  \
   as there, with BMM__W the width's name (v: BMM__CPU_VBYTES, v16: 16 bytes,     \
   v32: 32 bytes where BMM__CPU_VBYTES is 64),                                    \
   BMM__WV its vector type, BMM__WBYTES its size, BMM__WLOAD / BMM__WSTORE /      \
   BMM__WFMA / BMM__WNT its unaligned load, store, fused multiply-add and         \
   streamed store. BMM__WFN(base) names bmm__cpu_<base><W>_<name>. */
#define BMM__WFN(base) BMM__FN(BMM__CAT(base, BMM__W))

/* The epilogue on one vector x of sums, C's lanes at c (read if rc), bias
   lanes at bs (NULL: none). */
BMM__INLINE BMM__WV BMM__WFN(vepilogue_)(int rc, BMM__T al, BMM__T be, const BMM__T *c,
                                         const BMM__T *bs, BMM__WV x) {
  BMM__WV r;
  if (!rc && !bs) return al * x;
  r = -(BMM__WV){0}; /* -0.0, the identity of + */
  if (bs) r = BMM__WLOAD(bs);
  if (rc) BMM__WFMA(be, BMM__WLOAD(c), r);
  BMM__WFMA(al, x, r);
  return r;
}
/* A vector store to C, streamed where nt says: 0 never, 1 where p is aligned
   to the vector, 2 also in 16-byte pieces where p is only 16-byte aligned (C
   of a malloc'd array lies 16 bytes off a 64-byte line; for 16-byte vectors
   that is 1). The pieces cost a store each: they pay in cpu_small's tiny,
   memory-bound products, not in cpu_blocked's (bench/notes/cpu.md,
   "streaming stores"). */
BMM__INLINE void BMM__WFN(vstore_c_)(int nt, BMM__T *p, BMM__WV v) {
#if BMM__CPU_NT
  const uintptr_t a = (uintptr_t)(const void *)p;
  int q;
  if (nt > 0 && (a & (BMM__WBYTES - 1)) == 0) {
    BMM__WNT(p, v);
  } else if (BMM__WBYTES == 16 || nt < 2 || (a & 15) != 0) {
    BMM__WSTORE(p, v);
  } else {
    for (q = 0; q < BMM__WBYTES / 16; ++q) {
      __m128i x;
      memcpy(&x, (const char *)&v + 16 * q, 16);
      _mm_stream_si128((__m128i *)(void *)((char *)p + 16 * q), x);
    }
  }
#else
  (void)nt;
  BMM__WSTORE(p, v);
#endif
}

/* cpu_small's tile in named vectors of this width (the real section's
   "cpu_small: fixed-size register micro-kernels" says how it is blocked) */
BMM__INLINE void BMM__WFN(small_axpy_)(const BMM__T *BMM__RESTRICT A, const BMM__T *BMM__RESTRICT B,
                                       BMM__T *BMM__RESTRICT C, const BMM__T al, const BMM__T be,
                                       const BMM__T *bias, const int rc, const int nt, const int M,
                                       const int N, const int64_t K) {
  enum { V = BMM__WBYTES / (int)sizeof(BMM__T) };
  BMM__AXPY_BLOCKS();
  BMM__WV vs[16][2], bv[2], r[8];
  int i0, cb, i, j;
  int64_t l;
  BMM__UNROLL for (i0 = 0; i0 < M; i0 += RB) BMM__UNROLL for (cb = 0; cb < NB; ++cb) {
    const int j0 = BMM__AXPY_J0(cb), jn = BMM__AXPY_JN(cb);
    BMM__UNROLL for (i = 0; i < RB; ++i) BMM__UNROLL for (j = 0; j < CB; ++j) vs[i][j] =
        (BMM__WV){0};
    BMM__UNROLL_K for (l = 0; l < K; ++l) {
      BMM__UNROLL for (j = 0; j < CB; ++j) if (j < jn) bv[j] =
          BMM__WLOAD(B + l * N + BMM__AXPY_COL(j0 + j));
      BMM__UNROLL for (i = 0; i < RB; ++i) if (i0 + i < M) {
        const BMM__T a = A[(i0 + i) * K + l];
        BMM__UNROLL for (j = 0; j < CB; ++j) if (j < jn) vs[i][j] += a * bv[j];
      }
    }
    /* the block's C read (rc) before any of its stores (BMM__AXPY_J0) */
    BMM__UNROLL for (i = 0; i < RB; ++i) if (i0 + i < M) {
      BMM__T *c = C + (i0 + i) * N;
      BMM__UNROLL for (j = 0; j < CB; ++j) if (j < jn) r[j] =
          BMM__WFN(vepilogue_)(rc, al, be, c + BMM__AXPY_COL(j0 + j),
                               bias ? bias + BMM__AXPY_COL(j0 + j) : NULL, vs[i][j]);
      BMM__UNROLL for (j = 0; j < CB; ++j) if (j < jn)
          BMM__WFN(vstore_c_)(2 * nt, c + BMM__AXPY_COL(j0 + j), r[j]);
    }
  }
}
/* small_tile's block (the real section's "cpu_small: the run-time tile"): R
   rows (a constant) by CB = 1 or 2 vectors at columns col[0..CB) (run time)
   over a run-time k; A, B, C rows lda, ldb, ldc apart. The block's C reads
   (rc) all come before its stores: its two vectors overlap where the last
   one ends at n. */
BMM__INLINE void BMM__WFN(tile_)(const BMM__T *BMM__RESTRICT A, const int64_t lda,
                                 const int64_t acs, const BMM__T *BMM__RESTRICT B,
                                 const int64_t ldb, BMM__T *BMM__RESTRICT C, const int64_t ldc,
                                 const int64_t *col, const BMM__T al, const BMM__T be,
                                 const BMM__T *bias, const int rc, const int nt, const int R,
                                 const int CB, const int64_t K) {
  BMM__WV vs[BMM__TILE_RMAX][2], bv[2], r[2];
  int i, j;
  int64_t l;
  BMM__UNROLL for (i = 0; i < R; ++i) BMM__UNROLL for (j = 0; j < CB; ++j) vs[i][j] = (BMM__WV){0};
  BMM__UNROLL_K for (l = 0; l < K; ++l) {
    BMM__UNROLL for (j = 0; j < CB; ++j) bv[j] = BMM__WLOAD(B + l * ldb + col[j]);
    BMM__UNROLL for (i = 0; i < R; ++i) {
      const BMM__T a = A[i * lda + l * acs];
      BMM__UNROLL for (j = 0; j < CB; ++j) vs[i][j] += a * bv[j];
    }
  }
  BMM__UNROLL for (i = 0; i < R; ++i) {
    BMM__T *c = C + i * ldc;
    BMM__UNROLL for (j = 0; j < CB; ++j) r[j] =
        BMM__WFN(vepilogue_)(rc, al, be, c + col[j], bias ? bias + col[j] : NULL, vs[i][j]);
    BMM__UNROLL for (j = 0; j < CB; ++j) BMM__WFN(vstore_c_)(2 * nt, c + col[j], r[j]);
  }
}
/* One entry of small_tile in vectors of this width (V <= n): NV vectors a
   row, the last ending at column n, in the column blocks of BMM__AXPY_J0 (so
   the last vector and the one it overlaps share a block); the rows in G
   blocks as even as they go of at most BMM__TILE_RMAX (a block of 1 or 2 rows
   is 2 to 4 chains of FMAs, too few to hide their latency). */
BMM__INLINE void BMM__WFN(tile_entry_)(const BMM__T *A, const int64_t lda, const int64_t acs,
                                       const BMM__T *B, const int64_t ldb, BMM__T *C,
                                       const int64_t ldc, const BMM__T al, const BMM__T be,
                                       const BMM__T *bias, const int rc, const int nt,
                                       const int64_t M, const int64_t N, const int64_t K) {
  enum { V = BMM__WBYTES / (int)sizeof(BMM__T) };
  const int64_t NV = (N + V - 1) / V, NB = (NV + 1) / 2;
  const int64_t G = (M + BMM__TILE_RMAX - 1) / BMM__TILE_RMAX, RB = (M + G - 1) / G;
  int64_t cb, i0, col[2];
  for (cb = 0; cb < NB; ++cb) {
    const int64_t j0 = cb == 0 ? 0 : NV - (NB - cb) * 2;
    const int64_t jn = (cb + 1 < NB ? NV - (NB - cb - 1) * 2 : NV) - j0;
    col[0] = j0 < NV - 1 ? j0 * V : N - V;
    col[1] = j0 + 1 < NV - 1 ? (j0 + 1) * V : N - V;
    for (i0 = 0; i0 < M; i0 += RB) {
      const BMM__T *a = A + i0 * lda;
      BMM__T *c = C + i0 * ldc;
      /* case R: the block of R rows, 1 or 2 vectors (R above the maximum:
         never reached, and its tile is not compiled: BMM__TILE_R) */
#define BMM__TILE_CASE(R)                                                                        \
  case R:                                                                                        \
    if ((R) > BMM__TILE_RMAX)                                                                    \
      break;                                                                                     \
    else if (jn == 2)                                                                            \
      BMM__WFN(tile_)                                                                            \
    (a, lda, acs, B, ldb, c, ldc, col, al, be, bias, rc, nt, BMM__TILE_R(R), 2, K);              \
    else BMM__WFN(tile_)(a, lda, acs, B, ldb, c, ldc, col, al, be, bias, rc, nt, BMM__TILE_R(R), \
                         1, K);                                                                  \
    break
      switch (M - i0 < RB ? M - i0 : RB) {
        BMM__TILE_CASE(8);
        BMM__TILE_CASE(7);
        BMM__TILE_CASE(6);
        BMM__TILE_CASE(5);
        BMM__TILE_CASE(4);
        BMM__TILE_CASE(3);
        BMM__TILE_CASE(2);
        BMM__TILE_CASE(1);
      }
#undef BMM__TILE_CASE
    }
  }
}
#undef BMM__WFN
/* the width's names, for the next width */
#undef BMM__W
#undef BMM__WV
#undef BMM__WLOAD
#undef BMM__WSTORE
#undef BMM__WFMA
#undef BMM__WNT
#undef BMM__WBYTES

#else /* BMM__CPU_SECTION == 2: the complex kernels, once per complex dtype ----- \
   BMM__T is the (re, im) struct, BMM__R the type of one part, BMM__RN its real   \
   dtype name. Kernels address parts: element e of an operand is R[2e] (re) and   \
   R[2e + 1] (im). Each part of a sum is a real dot product of 2k terms, every    \
   term one BMM__FMA (README, "Numerics", states the bound this gives). conj of   \
   an operand negates the imaginary parts it loads (a sign of +-1: exact). */

enum { BMM__FN(section) = (int)sizeof(BMM__T) };
#define BMM__FMA(a, b, c) BMM__CAT(BMM__FMA_, BMM__RN)(a, b, c)

/* s += a*b for a = (ar, ai), b = (br, bi), already conjugated as asked */
BMM__INLINE void BMM__FN(madd)(BMM__R ar, BMM__R ai, BMM__R br, BMM__R bi, BMM__R *sr, BMM__R *si) {
  *sr = BMM__FMA(ar, br, *sr);
  *sr = BMM__FMA(-ai, bi, *sr);
  *si = BMM__FMA(ar, bi, *si);
  *si = BMM__FMA(ai, br, *si);
}

/* +1, or -1 where the operand is read conjugated */
BMM__INLINE BMM__R BMM__FN(sign)(const bmm_operand *o) { return o->conj ? (BMM__R)-1 : (BMM__R)1; }

/* The epilogue of every complex kernel: C = alpha*s + (beta*C + bias), the
   order of the real one. A real alpha (alpha_im = 0) scales both parts, so
   a real alpha never meets an infinite part as 0*Inf = NaN; the same for beta.
   beta = 0 never reads C. Without a bias the sums start from -0.0. */
BMM__INLINE void BMM__FN(epilogue)(const bmm_plan *pl, BMM__R *cp, BMM__R sr, BMM__R si,
                                   int64_t j) {
  const BMM__R ar = (BMM__R)pl->alpha, ai = (BMM__R)pl->alpha_im;
  BMM__R rr = (BMM__R)-0.0, ri = (BMM__R)-0.0;
  if (pl->bias) rr = ((const BMM__R *)pl->bias)[2 * j], ri = ((const BMM__R *)pl->bias)[2 * j + 1];
  if (pl->read_c) {
    const BMM__R br = (BMM__R)pl->beta, bi = (BMM__R)pl->beta_im, cr = cp[0], ci = cp[1];
    if (pl->beta_im == 0.0) {
      rr = BMM__FMA(br, cr, rr);
      ri = BMM__FMA(br, ci, ri);
    } else {
      rr = BMM__FMA(br, cr, BMM__FMA(-bi, ci, rr));
      ri = BMM__FMA(br, ci, BMM__FMA(bi, cr, ri));
    }
  }
  if (pl->alpha_im == 0.0) {
    cp[0] = BMM__FMA(ar, sr, rr);
    cp[1] = BMM__FMA(ar, si, ri);
  } else {
    cp[0] = BMM__FMA(ar, sr, BMM__FMA(-ai, si, rr));
    cp[1] = BMM__FMA(ar, si, BMM__FMA(ai, sr, ri));
  }
}

/* A, B and C of batch entry bi, as parts */
BMM__INLINE void BMM__FN(ptrs)(const bmm_plan *pl, int64_t bi, const BMM__R **A, const BMM__R **B,
                               BMM__R **C) {
  int64_t oa, ob, oc;
  bmm__cpu_offsets(pl, bi, &oa, &ob, &oc);
  *A = (const BMM__R *)pl->a.ptr + 2 * oa, *B = (const BMM__R *)pl->b.ptr + 2 * ob;
  *C = (BMM__R *)pl->c.ptr + 2 * oc;
}

/* ---- cpu_ref (complex): plain loops over any strides ---------------------- */
static void BMM__FN(ref)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {
  const BMM__R sa = BMM__FN(sign)(&pl->a), sb = BMM__FN(sign)(&pl->b);
  int64_t bi;
  (void)ch;
  for (bi = b0; bi < b1; ++bi) {
    int64_t oa, ob, oc, i, j, l;
    bmm_batch_offsets(pl, bi, &oa, &ob, &oc);
    for (i = 0; i < pl->m; ++i)
      for (j = 0; j < pl->n; ++j) {
        BMM__R sr = 0, si = 0;
        BMM__R *cp = (BMM__R *)pl->c.ptr + 2 * (oc + i * pl->c.row_stride + j * pl->c.col_stride);
        for (l = 0; pl->use_ab && l < pl->k; ++l) {
          const BMM__R *x =
              (const BMM__R *)pl->a.ptr + 2 * (oa + i * pl->a.row_stride + l * pl->a.col_stride);
          const BMM__R *y =
              (const BMM__R *)pl->b.ptr + 2 * (ob + l * pl->b.row_stride + j * pl->b.col_stride);
          BMM__FN(madd)(x[0], sa * x[1], y[0], sb * y[1], &sr, &si);
        }
        BMM__FN(epilogue)(pl, cp, sr, si, j);
      }
  }
}

/* |x| of a complex x, in long double (the reference's magnitudes) */
BMM__INLINE long double BMM__FN(modulus)(long double re, long double im) {
  return sqrtl(re * re + im * im);
}

/* The oracle (bmm_reference) for complex: long double, (re, im) pairs out,
   the moduli sum |alpha| sum |a||b| + |beta||c| + |bias| in mag. alpha and
   beta with no imaginary part scale both parts, as the kernels do. */
static void BMM__FN(reference)(const bmm_plan *pl, long double *out, long double *mag) {
  const long double sa = pl->a.conj ? -1.0L : 1.0L, sb = pl->b.conj ? -1.0L : 1.0L;
  const long double ar = pl->alpha, ai = pl->alpha_im, br = pl->beta, bi = pl->beta_im;
  int64_t bi_, i, j, l;
  for (bi_ = 0; bi_ < pl->batch; ++bi_) {
    int64_t oa, ob, oc;
    bmm_batch_offsets(pl, bi_, &oa, &ob, &oc);
    for (i = 0; i < pl->m; ++i)
      for (j = 0; j < pl->n; ++j) {
        const int64_t e = (bi_ * pl->m + i) * pl->n + j;
        long double sr = 0, si = 0, g = 0, vr, vi;
        const BMM__R *cp =
            (const BMM__R *)pl->c.ptr + 2 * (oc + i * pl->c.row_stride + j * pl->c.col_stride);
        for (l = 0; pl->use_ab && l < pl->k; ++l) {
          const BMM__R *x =
              (const BMM__R *)pl->a.ptr + 2 * (oa + i * pl->a.row_stride + l * pl->a.col_stride);
          const BMM__R *y =
              (const BMM__R *)pl->b.ptr + 2 * (ob + l * pl->b.row_stride + j * pl->b.col_stride);
          const long double xr = x[0], xi = sa * x[1], yr = y[0], yi = sb * y[1];
          sr += xr * yr - xi * yi;
          si += xr * yi + xi * yr;
          g += BMM__FN(modulus)(xr, xi) * BMM__FN(modulus)(yr, yi);
        }
        if (pl->alpha_im == 0.0)
          vr = ar * sr, vi = ar * si;
        else
          vr = ar * sr - ai * si, vi = ar * si + ai * sr;
        g *= BMM__FN(modulus)(ar, ai);
        if (pl->read_c) {
          const long double cr = cp[0], ci = cp[1];
          if (pl->beta_im == 0.0)
            vr += br * cr, vi += br * ci;
          else
            vr += br * cr - bi * ci, vi += br * ci + bi * cr;
          g += BMM__FN(modulus)(br, bi) * BMM__FN(modulus)(cr, ci);
        }
        if (pl->bias) {
          const BMM__R *bb = (const BMM__R *)pl->bias + 2 * j;
          vr += bb[0], vi += bb[1];
          g += BMM__FN(modulus)(bb[0], bb[1]);
        }
        out[2 * e] = vr, out[2 * e + 1] = vi;
        if (mag) mag[e] = g;
      }
  }
}

/* k == 0 or alpha == 0: C = beta*C + bias */
static void BMM__FN(scale)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {
  int64_t bi, i, j;
  (void)ch;
  for (bi = b0; bi < b1; ++bi) {
    /* C's offset only: with k = 0, A and B may be NULL (no offset from them) */
    int64_t oa, ob, oc;
    BMM__R *C;
    bmm__cpu_offsets(pl, bi, &oa, &ob, &oc);
    C = (BMM__R *)pl->c.ptr + 2 * oc;
    for (i = 0; i < pl->m; ++i)
      for (j = 0; j < pl->n; ++j)
        BMM__FN(epilogue)(pl, C + 2 * (i * pl->c.row_stride + j * pl->c.col_stride), 0, 0, j);
  }
}

/* ---- cpu_dot (complex): dot products over any strides ---------------------- */
static void BMM__FN(c_dot)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  const int64_t ars = 2 * pl->a.row_stride, acs = 2 * pl->a.col_stride;
  const int64_t brs = 2 * pl->b.row_stride, bcs = 2 * pl->b.col_stride;
  const int64_t crs = 2 * pl->c.row_stride, ccs = 2 * pl->c.col_stride;
  const BMM__R sa = BMM__FN(sign)(&pl->a), sb = BMM__FN(sign)(&pl->b);
  int64_t bi, i, j, l;
  (void)ch;
  for (bi = b0; bi < b1; ++bi) {
    const BMM__R *A, *B;
    BMM__R *C;
    BMM__FN(ptrs)(pl, bi, &A, &B, &C);
    for (i = 0; i < m; ++i)
      for (j = 0; j < n; ++j) {
        const BMM__R *BMM__RESTRICT x = A + i * ars, *BMM__RESTRICT y = B + j * bcs;
        BMM__R sr = 0, si = 0;
        for (l = 0; l < k; ++l)
          BMM__FN(madd)(x[l * acs], sa * x[l * acs + 1], y[l * brs], sb * y[l * brs + 1], &sr, &si);
        BMM__FN(epilogue)(pl, C + i * crs + j * ccs, sr, si, j);
      }
  }
}

#if BMM__CPU_VEXT
/* ---- cpu_dot (complex), A rows and B columns contiguous: vectors over k.
   Per row of A and column of B two vector sums over the parts, p += x * y and
   q += x * swap(y) (y's (re, im) pairs swapped): p's even lanes sum xr yr, its
   odd ones xi yi, q's even ones xr yi, its odd ones xi yr; then re = P_even -
   sa sb P_odd and im = sb Q_even + sa Q_odd (conj: signs of +-1, exact). The
   widest vectors first, then 16 bytes, then one element; up to 4 rows share
   each load and swap of B. Each part is a real dot product of k terms in a
   fixed order (lanes, then halves): the README's bound, the same bits at any
   thread count. c_dot's two dependent FMAs per element on one sum ran the
   seed's c64 3x1x40 at 3.3x NumPy's time; this kernel at 0.16-0.56 of
   c_dot's (K = 40, in and out of cache; Zen 5, 2026-11-28; bench/notes/
   cpu.md, "complex dot products in vectors"). */
#define BMM__CV BMM__CAT(bmm__vec_, BMM__RN)
#define BMM__CUV BMM__CAT(bmm__uvec_, BMM__RN)
#define BMM__C16 BMM__CAT(bmm__v16_, BMM__RN)
BMM__INLINE void BMM__FN(cdotv_rows)(const BMM__R *a, int64_t ars, const BMM__R *y, int64_t k,
                                     BMM__R sa, BMM__R sb, BMM__R *sr, BMM__R *si, const int R) {
  enum { L = BMM__CPU_VBYTES / (int)sizeof(BMM__R), L16 = 16 / (int)sizeof(BMM__R) };
  const int64_t np = 2 * k;
  BMM__CV p[4], q[4];
  BMM__C16 p16[4], q16[4];
  BMM__R e[4][4]; /* the last element's xr yr, xi yi, xr yi, xi yr */
  int64_t t = 0;
  int i, h;
  const BMM__CV z = {0};
  const BMM__C16 z16 = {0};
  for (i = 0; i < R; ++i)
    p[i] = q[i] = z, e[i][0] = e[i][1] = e[i][2] = e[i][3] = 0;
  for (; t + L <= np; t += L) {
    const BMM__CV yv = *(const BMM__CUV *)(const void *)(y + t);
    const BMM__CV ys = BMM__CAT(bmm__cswap_, BMM__RN)(yv);
    for (i = 0; i < R; ++i) {
      const BMM__CV x = *(const BMM__CUV *)(const void *)(a + i * ars + t);
      p[i] += x * yv;
      q[i] += x * ys;
    }
  }
  for (i = 0; i < R; ++i) { /* to 16 bytes: halves added in a fixed order */
    BMM__C16 hp[L / L16], hq[L / L16];
    if (np < L) { /* the wide loop did not run: nothing to fold */
      p16[i] = q16[i] = z16;
      continue;
    }
    memcpy(hp, &p[i], sizeof hp), memcpy(hq, &q[i], sizeof hq);
    p16[i] = hp[0], q16[i] = hq[0];
    for (h = 1; h < L / L16; ++h)
      p16[i] += hp[h], q16[i] += hq[h];
  }
  for (; t + L16 <= np; t += L16) {
    const BMM__C16 yv = *(const BMM__C16 *)(const void *)(y + t);
    const BMM__C16 ys = BMM__CAT(bmm__cswap_v16_, BMM__RN)(yv);
    for (i = 0; i < R; ++i) {
      const BMM__C16 x = *(const BMM__C16 *)(const void *)(a + i * ars + t);
      p16[i] += x * yv;
      q16[i] += x * ys;
    }
  }
  if (t < np) /* one element left (c64 with k odd) */
    for (i = 0; i < R; ++i) {
      const BMM__R xr = a[i * ars + t], xi = a[i * ars + t + 1];
      e[i][0] = xr * y[t], e[i][1] = xi * y[t + 1], e[i][2] = xr * y[t + 1], e[i][3] = xi * y[t];
    }
  for (i = 0; i < R; ++i) {
    BMM__R pe = e[i][0], po = e[i][1], qe = e[i][2], qo = e[i][3];
    for (h = 0; h < L16; h += 2)
      pe += p16[i][h], po += p16[i][h + 1], qe += q16[i][h], qo += q16[i][h + 1];
    sr[i] = pe - sa * sb * po;
    si[i] = sb * qe + sa * qo;
  }
}
#undef BMM__CV
#undef BMM__CUV
#undef BMM__C16
static BMM__VEXT_ATTR void BMM__FN(c_dotv)(const bmm_plan *pl, const bmm__cpu_choice *ch,
                                           int64_t b0, int64_t b1) {
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  const int64_t ars = 2 * pl->a.row_stride, bcs = 2 * pl->b.col_stride;
  const int64_t crs = 2 * pl->c.row_stride, ccs = 2 * pl->c.col_stride;
  const BMM__R sa = BMM__FN(sign)(&pl->a), sb = BMM__FN(sign)(&pl->b);
  bmm__cpu_pf pf = bmm__cpu_pf_init(pl, b0, ch->prefetch); /* used where ch->prefetch */
  int64_t bi, i, j;
  int r;
  for (bi = b0; bi < b1; ++bi) {
    const BMM__R *A, *B;
    BMM__R *C;
    BMM__FN(ptrs)(pl, bi, &A, &B, &C);
    if (ch->prefetch) bmm__cpu_pf_entry(&pf);
    for (j = 0; j < n; ++j)
      for (i = 0; i < m; i += 4) {
        BMM__R sr[4], si[4];
        const int R = m - i < 4 ? (int)(m - i) : 4;
        const BMM__R *a = A + i * ars, *y = B + j * bcs;
        /* R a constant in each call: the sums stay in registers */
        if (R == 4)
          BMM__FN(cdotv_rows)(a, ars, y, k, sa, sb, sr, si, 4);
        else if (R == 3)
          BMM__FN(cdotv_rows)(a, ars, y, k, sa, sb, sr, si, 3);
        else if (R == 2)
          BMM__FN(cdotv_rows)(a, ars, y, k, sa, sb, sr, si, 2);
        else
          BMM__FN(cdotv_rows)(a, ars, y, k, sa, sb, sr, si, 1);
        for (r = 0; r < R; ++r)
          BMM__FN(epilogue)(pl, C + (i + r) * crs + j * ccs, sr[r], si[r], j);
      }
  }
}
#else
/* never picked nor pinned without vector extensions: the kernel table's
   entry only */
static void BMM__FN(c_dotv)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {
  BMM__FN(c_dot)(pl, ch, b0, b1);
}
#endif

/* ---- B rows contiguous: C row += a * B row, BMM__CPU_CCHUNK columns at a
   time. The sums are kept by part of B, as cpu_small's are: p1 += ar * (B
   row) and p2 += ai * (B row), both loops over contiguous parts with no
   shuffle (they vectorise), and s = (p1[re] - p2[im], p1[im] + p2[re]) at the
   end (conj B: sb on the im parts, exact). Each part is a real dot product of
   2k terms, k in each array, one add: the README's bound. The loop of one
   madd per element (the parts interleaved in two arrays) ran c64 8x8x8 at
   3.2x the time of MKL's generic path (bench/notes/cpu.md, "complex rows"). */
#define BMM__CPU_CCHUNK 128
static void BMM__FN(c_rows)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t b0, int64_t b1) {
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  const int64_t ars = 2 * pl->a.row_stride, acs = 2 * pl->a.col_stride;
  const int64_t brs = 2 * pl->b.row_stride;
  const int64_t crs = 2 * pl->c.row_stride, ccs = 2 * pl->c.col_stride;
  const BMM__R sa = BMM__FN(sign)(&pl->a), sb = BMM__FN(sign)(&pl->b);
  BMM__R p1[2 * BMM__CPU_CCHUNK], p2[2 * BMM__CPU_CCHUNK];
  int64_t bi, i, j, l, t;
  (void)ch;
  for (bi = b0; bi < b1; ++bi) {
    const BMM__R *A, *B;
    BMM__R *C;
    BMM__FN(ptrs)(pl, bi, &A, &B, &C);
    for (i = 0; i < m; ++i)
      for (j = 0; j < n; j += BMM__CPU_CCHUNK) {
        const int64_t jn = n - j < BMM__CPU_CCHUNK ? n - j : BMM__CPU_CCHUNK, w = 2 * jn;
        for (t = 0; t < w; ++t)
          p1[t] = 0, p2[t] = 0;
        for (l = 0; l < k; ++l) {
          const BMM__R xr = A[i * ars + l * acs], xi = sa * A[i * ars + l * acs + 1];
          const BMM__R *BMM__RESTRICT y = B + l * brs + 2 * j;
          for (t = 0; t < w; ++t) {
            p1[t] = BMM__FMA(xr, y[t], p1[t]);
            p2[t] = BMM__FMA(xi, y[t], p2[t]);
          }
        }
        for (t = 0; t < jn; ++t)
          BMM__FN(epilogue)
        (pl, C + i * crs + (j + t) * ccs, p1[2 * t] - sb * p2[2 * t + 1],
         sb * p1[2 * t + 1] + p2[2 * t], j + t);
      }
  }
}
#undef BMM__CPU_CCHUNK

/* ---- the real view (bmm__cpu_cview_plan): the blocked kernel of the part
   type on it, B' packed from B (choice.cview) */
static void BMM__FN(c_blocked)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t u0,
                               int64_t u1) {
  const bmm_plan q = bmm__cpu_cview_plan(pl);
  BMM__CAT(bmm__cpu_blocked_, BMM__RN)(&q, ch, u0, u1);
}

/* ---- cpu_small (complex): M x M x M, packed entries (B may be shared) ------
   m, n, k constants; a row of C is 2M parts, summed in two arrays: p1 +=
   ar * (B row) and p2 += ai * (B row, each pair swapped), so both loops run
   over contiguous parts and vectorise with no shuffle per term; s = p1 + (-1,
   +1, ...) * p2 at the end. Each part is still a real dot product of 2k
   terms (k in p1, k in p2, one add), within the README's bound. The rows
   are padded to P, a multiple of 4 parts (M = 3: 6 -> 8 zeros-padded), so
   the loops have a vector-friendly constant trip count. The sums p1, p2 (M x
   P, row i at i * P) and B's row bn, bs (P) are arrays of exactly that size
   in each size's function: one sized for the largest M kept c128 2x2x2 out
   of registers (1.12x the time; bench/notes/cpu.md, "complex rows"). */
#define BMM__CSMALL_P(M) ((2 * (M) + 3) / 4 * 4)
BMM__INLINE void BMM__FN(c_small)(const bmm_plan *pl, int64_t b0, int64_t b1, const int M,
                                  BMM__R *BMM__RESTRICT p1, BMM__R *BMM__RESTRICT p2,
                                  BMM__R *BMM__RESTRICT bn, BMM__R *BMM__RESTRICT bs) {
  const BMM__R sa = BMM__FN(sign)(&pl->a), sb = BMM__FN(sign)(&pl->b);
  /* C = alpha*s with a real alpha: the epilogue's result (its -0.0 + x is x)
     without its branches per element */
  const int plain = !pl->bias && !pl->read_c && pl->alpha_im == 0.0;
  const BMM__R ar = (BMM__R)pl->alpha;
  const int P = BMM__CSMALL_P(M);
  int64_t bi;
  int i, t, l;
  for (bi = b0; bi < b1; ++bi) {
    const BMM__R *BMM__RESTRICT A = (const BMM__R *)pl->a.ptr + 2 * bi * pl->a.batch_stride[0];
    const BMM__R *BMM__RESTRICT B = (const BMM__R *)pl->b.ptr + 2 * bi * pl->b.batch_stride[0];
    BMM__R *C = (BMM__R *)pl->c.ptr + 2 * bi * pl->c.batch_stride[0];
    for (i = 0; i < M; ++i)
      for (t = 0; t < P; ++t)
        p1[i * P + t] = 0, p2[i * P + t] = 0;
    for (l = 0; l < M; ++l) {
      for (t = 2 * M; t < P; ++t)
        bn[t] = 0, bs[t] = 0;
      for (t = 0; t < M; ++t) {
        bn[2 * t] = B[2 * (l * M + t)], bn[2 * t + 1] = sb * B[2 * (l * M + t) + 1];
        bs[2 * t] = bn[2 * t + 1], bs[2 * t + 1] = bn[2 * t];
      }
      for (i = 0; i < M; ++i) {
        const BMM__R xr = A[2 * (i * M + l)], xi = sa * A[2 * (i * M + l) + 1];
        for (t = 0; t < P; ++t) {
          p1[i * P + t] = BMM__FMA(xr, bn[t], p1[i * P + t]);
          p2[i * P + t] = BMM__FMA(xi, bs[t], p2[i * P + t]);
        }
      }
    }
    for (i = 0; i < M; ++i)
      for (t = 0; t < M; ++t) {
        const BMM__R sr = p1[i * P + 2 * t] - p2[i * P + 2 * t];
        const BMM__R si = p1[i * P + 2 * t + 1] + p2[i * P + 2 * t + 1];
        if (plain)
          C[2 * (i * M + t)] = ar * sr, C[2 * (i * M + t) + 1] = ar * si;
        else
          BMM__FN(epilogue)(pl, C + 2 * (i * M + t), sr, si, t);
      }
  }
}
#define BMM__CSMALL_DEF(A, M)                                                                 \
  static void BMM__FN(c_small_##M##x##M##x##M)(const bmm_plan *pl, const bmm__cpu_choice *ch, \
                                               int64_t b0, int64_t b1) {                      \
    enum { P = BMM__CSMALL_P(M) };                                                            \
    BMM__R p1[M * P], p2[M * P], bn[P], bs[P];                                                \
    (void)ch;                                                                                 \
    BMM__FN(c_small)(pl, b0, b1, M, p1, p2, bn, bs);                                          \
  }
BMM__CPU_CSMALL_SIZES(BMM__CSMALL_DEF, )
#undef BMM__CSMALL_DEF
#undef BMM__CSMALL_P

/* ---- cpu_batch_simd (complex): batch-innermost, a chunk of entries at a time,
   the loop over entries innermost (the same scalar sequence in every lane) */
static void BMM__FN(c_batch)(const bmm_plan *pl, const bmm__cpu_choice *ch, int64_t u0,
                             int64_t u1) {
  enum { VB = 16 };
  const int64_t m = pl->m, n = pl->n, k = pl->k, nb = pl->batch;
  const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;
  const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;
  const int64_t crs = pl->c.row_stride, ccs = pl->c.col_stride;
  const BMM__R sa = BMM__FN(sign)(&pl->a), sb = BMM__FN(sign)(&pl->b);
  int64_t u, i, j, l, v, vb;
  (void)ch;
  for (u = u0; u < u1; ++u) {
    const int64_t e0 = u * BMM__BS_CHUNK;
    const int64_t cnt = nb - e0 < BMM__BS_CHUNK ? nb - e0 : BMM__BS_CHUNK;
    for (i = 0; i < m; ++i)
      for (j = 0; j < n; ++j)
        for (vb = 0; vb < cnt; vb += VB) {
          const int64_t w = cnt - vb < (int64_t)VB ? cnt - vb : (int64_t)VB;
          BMM__R accr[VB], acci[VB];
          BMM__R *cp = (BMM__R *)pl->c.ptr + 2 * (i * crs + j * ccs + e0 + vb);
          for (v = 0; v < VB; ++v)
            accr[v] = 0, acci[v] = 0;
          for (l = 0; l < k; ++l) {
            const BMM__R *BMM__RESTRICT x =
                (const BMM__R *)pl->a.ptr + 2 * (i * ars + l * acs + e0 + vb);
            const BMM__R *BMM__RESTRICT y =
                (const BMM__R *)pl->b.ptr + 2 * (l * brs + j * bcs + e0 + vb);
            if (w == VB) {
              for (v = 0; v < VB; ++v)
                BMM__FN(madd)
              (x[2 * v], sa * x[2 * v + 1], y[2 * v], sb * y[2 * v + 1], &accr[v], &acci[v]);
            } else {
              for (v = 0; v < w; ++v)
                BMM__FN(madd)
              (x[2 * v], sa * x[2 * v + 1], y[2 * v], sb * y[2 * v + 1], &accr[v], &acci[v]);
            }
          }
          for (v = 0; v < w; ++v)
            BMM__FN(epilogue)(pl, cp + 2 * v, accr[v], acci[v], j);
        }
  }
}

/* ---- this dtype's kernels, in the order of BMM__CPU_KERNELS ---------------- */
#define BMM__KFN(NAME) BMM__FN(NAME),
#define BMM__KFN_NONE(NAME) NULL,
#define BMM__KFN_SHAPE_NONE(FORM, M, N, K, SUFFIX) NULL,
static const bmm__cpu_range_fn BMM__FN(kernels)[BMM__CPU_KERNEL_COUNT] = {
    BMM__CPU_KERNELS(BMM__KFN, BMM__KFN_NONE, BMM__KFN_SHAPE_NONE, BMM__KFN_SHAPE_NONE, BMM__KFN)};
#undef BMM__KFN
#undef BMM__KFN_NONE
#undef BMM__KFN_SHAPE_NONE
#undef BMM__FMA
#endif /* BMM__CPU_SECTION */
