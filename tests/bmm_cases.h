/* tests/bmm_cases.h - the one registry of problem shapes and layouts, shared by
   the tests, the benchmarks and the tuner (CPU and CUDA). Include after bmm.h.
   C99; compiles as C++ (nvcc). Everything is static: include it in one file.

   A bmmx_case names a shape and a layout; bmmx_sizes() says how many elements
   each buffer needs, bmmx_problem() builds the descriptor over given buffers,
   bmmx_fill() draws random data (never zeros), bmmx_check() compares a result
   with the long-double reference (bmm_reference) under the per-dtype bound
   |got - ref| <= BMMX_TOL_C * (k + 3) * u * mag, u the unit roundoff and mag
   = |alpha|*sum|a||b| + |beta*c| + |bias| (a dot product of k terms rounds at
   most k times, the epilogue three more); the _stored variants take how many
   times C was rounded to its storage type (2 for cuda_cublas with a bias). */
#ifndef BMM_CASES_H
#define BMM_CASES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(ENUM, name, what). The first four are the public suite's layouts. */
#define BMMX_LAYOUTS(X)                                                       \
  X(ROWMAJOR, rowmajor, "A[b][m][k] B[b][k][n] C[b][m][n] packed")            \
  X(SHARED_B_BIAS, shared_b_bias, "one B[k][n] for all b, bias[n] (x@w+b)")   \
  X(BATCH_INNER, batch_inner, "(b,i,j) at (i*cols+j)*batch+b for A, B and C") \
  X(COL_A, col_a, "A column-major per entry [b][k][m], B, C row-major")       \
  X(TRANS_B, trans_b, "B stored transposed [b][n][k]")                        \
  X(COLMAJOR, colmajor, "A, B, C all column-major per entry")                 \
  X(PADDED, padded, "row strides cols+3, batch strides padded by 5")          \
  X(NEG_ROWS, neg_rows, "A's rows reversed (negative row stride)")            \
  X(BROADCAST, broadcast, "2 batch dims (batch/2, 2): A varies on dim 0, B on dim 1")

typedef enum bmmx_layout {
#define BMMX__X(E, n, d) BMMX_##E,
  BMMX_LAYOUTS(BMMX__X)
#undef BMMX__X
      BMMX_LAYOUT_COUNT
} bmmx_layout;

static inline const char *bmmx_layout_name(int l) {
  switch (l) {
#define BMMX__X(E, n, d) \
  case BMMX_##E: return #n;
    BMMX_LAYOUTS(BMMX__X)
#undef BMMX__X
  default: return "unknown";
  }
}

static inline int bmmx_layout_parse(const char *s) {
  int l;
  for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
    if (strcmp(s, bmmx_layout_name(l)) == 0) return l;
  return -1;
}

typedef struct bmmx_case {
  char name[48];
  bmm_dtype dtype;
  int64_t batch, m, n, k;
  int layout; /* bmmx_layout */
} bmmx_case;

/* Element counts of A, B, C and bias for a case (bias 0 when unused). */
typedef struct bmmx_sizes_t {
  int64_t a, b, c, bias;
} bmmx_sizes_t;

/* broadcast splits the batch in (batch/2, 2) when even; else (batch, 1) */
static inline void bmmx__bcast_dims(int64_t batch, int64_t *d0, int64_t *d1) {
  *d1 = batch % 2 == 0 && batch > 0 ? 2 : 1;
  *d0 = batch / *d1;
}

static inline bmmx_sizes_t bmmx_sizes(const bmmx_case *c) {
  bmmx_sizes_t s;
  int64_t m = c->m, n = c->n, k = c->k, nb = c->batch;
  s.a = nb * m * k, s.b = nb * k * n, s.c = nb * m * n, s.bias = 0;
  switch (c->layout) {
  case BMMX_SHARED_B_BIAS: s.b = k * n, s.bias = n; break;
  case BMMX_PADDED:
    s.a = nb * (m * (k + 3) + 5), s.b = nb * (k * (n + 3) + 5), s.c = nb * (m * (n + 3) + 5);
    break;
  case BMMX_BROADCAST: {
    int64_t d0, d1;
    bmmx__bcast_dims(nb, &d0, &d1);
    s.a = d0 * m * k, s.b = d1 * k * n;
    break;
  }
  default: break;
  }
  return s;
}

static inline void bmmx__op(bmm_operand *o, const void *p, int64_t rs, int64_t cs, int64_t bs) {
  memset(o, 0, sizeof *o);
  o->ptr = p, o->row_stride = rs, o->col_stride = cs, o->batch_stride[0] = bs;
}

/* The descriptor of a case over buffers sized by bmmx_sizes (alpha 1, beta 0;
   bias set only for shared_b_bias). */
static inline bmm_problem bmmx_problem(const bmmx_case *c, const void *a, const void *b, void *cc,
                                       const void *bias) {
  bmm_problem p;
  int64_t m = c->m, n = c->n, k = c->k, nb = c->batch;
  size_t es = bmm_dtype_size(c->dtype);
  p = bmm_problem_rowmajor(c->dtype, nb, m, n, k, a, b, cc);
  switch (c->layout) {
  case BMMX_SHARED_B_BIAS:
    p.b.batch_stride[0] = 0;
    p.bias = bias;
    break;
  case BMMX_BATCH_INNER:
    bmmx__op(&p.a, a, k * nb, nb, 1);
    bmmx__op(&p.b, b, n * nb, nb, 1);
    bmmx__op(&p.c, cc, n * nb, nb, 1);
    break;
  case BMMX_COL_A: bmmx__op(&p.a, a, 1, m, m * k); break;
  case BMMX_TRANS_B: bmmx__op(&p.b, b, 1, k, k * n); break;
  case BMMX_COLMAJOR:
    bmmx__op(&p.a, a, 1, m, m * k);
    bmmx__op(&p.b, b, 1, k, k * n);
    bmmx__op(&p.c, cc, 1, m, m * n);
    break;
  case BMMX_PADDED:
    bmmx__op(&p.a, a, k + 3, 1, m * (k + 3) + 5);
    bmmx__op(&p.b, b, n + 3, 1, k * (n + 3) + 5);
    bmmx__op(&p.c, cc, n + 3, 1, m * (n + 3) + 5);
    break;
  case BMMX_NEG_ROWS:
    bmmx__op(&p.a, a ? (const char *)a + (size_t)((m > 0 ? m - 1 : 0) * k) * es : a, -k, 1, m * k);
    break;
  case BMMX_BROADCAST: {
    int64_t d0, d1;
    bmmx__bcast_dims(nb, &d0, &d1);
    p.batch_dims = 2, p.batch[0] = d0, p.batch[1] = d1;
    p.a.batch_stride[0] = m * k, p.a.batch_stride[1] = 0;
    p.b.batch_stride[0] = 0, p.b.batch_stride[1] = k * n;
    p.c.batch_stride[0] = d1 * m * n, p.c.batch_stride[1] = m * n;
    break;
  }
  default: break;
  }
  return p;
}

/* ---- random data -------------------------------------------------------- */

static inline uint64_t bmmx_rand(uint64_t *s) { /* xorshift64*: fast, seedable, good enough */
  uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
  *s = x;
  return x * 2685821657736338717ull;
}

/* uniform in [-1, 1), never exactly 0 (zeros hide unwritten outputs) */
static inline double bmmx_uniform(uint64_t *s) {
  double v = (double)(bmmx_rand(s) >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
  return v == 0.0 ? 0.5 : v;
}

/* values per element: 2 for complex dtypes (re, im), else 1. Buffers are
   filled and read by parts, of the row's accumulation type (a complex row's
   part type). */
static inline int bmmx_parts(bmm_dtype dt) { return bmm_dtype_is_complex(dt) ? 2 : 1; }

/* 1 where the dtype accumulates in double (BMM_DTYPES' ACC column: f64,
   c128): its FLOP peak is the f64 one, and its random values take 53 bits */
static inline BMM_HD int bmmx_acc_f64(bmm_dtype dt) {
  switch (dt) {
#define BMMX__X(E, name, T, sz, ACC, ...) \
  case BMM_##E: return sizeof(ACC) == 8;
    BMM_DTYPES(BMMX__X)
#undef BMMX__X
  default: return 0;
  }
}

/* the dtype bmm_dtype_name spells `name`; BMM_DTYPE_UNSET for none */
static inline bmm_dtype bmmx_dtype_parse(const char *name) {
#define BMMX__X(E, n, ...) \
  if (strcmp(name, #n) == 0) return BMM_##E;
  BMM_DTYPES(BMMX__X)
#undef BMMX__X
  return BMM_DTYPE_UNSET;
}

static inline void bmmx_fill(bmm_dtype dt, void *p, int64_t n, uint64_t *seed) {
  int64_t i;
  n *= bmmx_parts(dt);
  for (i = 0; i < n; ++i) {
    bmm_element_set(dt, p, i, bmmx_uniform(seed));
  }
}

/* bmmx_fill for buffers of 10^8-10^9 elements: chunks of 2^20 elements,
   each drawn from its own seed (derived from *seed and the chunk's index),
   in parallel where OpenMP is on. Other values than bmmx_fill's, as random;
   the same for any thread count. One thread fills ~0.14 G elements/s
   (bench/notes/gpu_check.md): the suite's 3.4e9 would take 25 s. */
static inline void bmmx_fill_parallel(bmm_dtype dt, void *p, int64_t n, uint64_t *seed) {
  const int64_t chunk = (int64_t)1 << 20, nchunks = (n + chunk - 1) / chunk;
  const size_t es = bmm_dtype_size(dt);
  const uint64_t base = *seed;
  int64_t c;
  if (nchunks <= 1) {
    bmmx_fill(dt, p, n, seed);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (c = 0; c < nchunks; ++c) {
    uint64_t s = base ^ (0x9E3779B97F4A7C15ull * (uint64_t)(c + 1));
    const int64_t lo = c * chunk, len = n - lo < chunk ? n - lo : chunk;
    bmmx_fill(dt, (char *)p + (size_t)lo * es, len, &s);
  }
  (void)bmmx_rand(seed); /* the next buffer gets other values */
}

/* NaN everywhere: a beta == 0 kernel that reads C, or one that leaves an
   element unwritten, then fails the check. */
static inline void bmmx_poison(bmm_dtype dt, void *p, int64_t n) {
  int64_t i;
  n *= bmmx_parts(dt);
  for (i = 0; i < n; ++i)
    bmm_element_set(dt, p, i, NAN);
}

/* ---- checking ----------------------------------------------------------- */

#ifndef BMMX_TOL_C
#define BMMX_TOL_C 2.0
#endif

/* Median of n timings (sorts v in place): the benches, the demo and the
   tuner report this. */
static inline int bmmx__cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}
static inline double bmmx_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bmmx__cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* the unit roundoff of the dtype's storage (the rounding of C's store),
   from its BMM_DTYPES row */
static inline double bmmx_storage_roundoff(bmm_dtype dt) {
  switch (dt) {
#define BMMX__FIRST(x, ...) x
#define BMMX__X(E, name, T, sz, ACC, u, cuda, ...) \
  case BMM_##E: return BMMX__FIRST(__VA_ARGS__, 0);
    BMM_DTYPES(BMMX__X)
#undef BMMX__X
  default: return 0;
  }
}

/* the unit roundoff of the dtype's accumulation, from its BMM_DTYPES row */
static inline double bmmx_unit_roundoff(bmm_dtype dt) {
  switch (dt) {
#define BMMX__X(E, name, T, sz, ACC, u, ...) \
  case BMM_##E: return u;
    BMM_DTYPES(BMMX__X)
#undef BMMX__X
#undef BMMX__FIRST
  default: return 0;
  }
}

/* The bound on |got - ref| of one element of a real dtype: BMMX_TOL_C (k +
   3) u mag for the sum in the accumulation type (u its unit roundoff); where
   C is stored in a narrower type (f16, bf16), plus that store's rounding, u_s
   |ref| + half the least subnormal of the storage type (an underflowing
   result). c_stores (1 or 2) is how many times C was rounded to the storage
   type: cuda_cublas with a bias stores alpha AB + beta C from cuBLAS, then a
   second kernel adds the bias and stores again (README, "Numerics"). The
   first store rounds a value of at most mag (its bias-free part), so it adds
   u_s (1 + u_s) mag, the (1 + u_s) for the second store's rounding of that
   error, and half a least subnormal. Where storage is the accumulation type
   (f32, f64) the first store is one of the epilogue's roundings already
   counted in (k + 3): no term. Complex dtypes: bmmx__entry_compare's bound
   (storage = accumulation). */
static inline double bmmx_bound_stored(bmm_dtype dt, int64_t k, double mag, double ref,
                                       int c_stores) {
  const double u = bmmx_unit_roundoff(dt), us = bmmx_storage_roundoff(dt);
  double b = BMMX_TOL_C * ((double)k + 3.0) * u * mag; /* k may be INT64_MAX (alpha = 0) */
  if (us > u) {
    /* the least subnormal's bits; one initialised object (three with a
       pointer chosen among them made gcc -O2 warn maybe-uninitialized) */
    union {
      uint16_t h;
      uint32_t f;
      uint64_t d;
    } least;
    const size_t es = bmm_dtype_size(dt);
    const double extra = c_stores > 1 ? (double)(c_stores - 1) : 0.0;
    memset(&least, 0, sizeof least);
    if (es == 2)
      least.h = 1;
    else if (es == 4)
      least.f = 1;
    else
      least.d = 1;
    b += us * fabs(ref) + extra * us * (1.0 + us) * mag +
         (1.0 + extra) * 0.5 * bmm_element_get(dt, &least, 0);
  }
  return b;
}

/* the bound of a C stored once, as every bmm kernel stores it */
static inline double bmmx_bound(bmm_dtype dt, int64_t k, double mag, double ref) {
  return bmmx_bound_stored(dt, k, mag, ref, 1);
}

/* part `part` (0 re, 1 im) of element i; part 0 of a real dtype is the value */
static inline double bmmx__get_part(bmm_dtype dt, const void *p, int64_t i, int part) {
  return bmm_element_get(dt, p, i * bmmx_parts(dt) + part);
}

/* element i (its real part for a complex dtype) */
static inline double bmmx__get(bmm_dtype dt, const void *p, int64_t i) {
  return bmmx__get_part(dt, p, i, 0);
}

/* |err| / bound of one part; NaN/Inf in the reference must be matched exactly */
static inline double bmmx__part_error(double g, double r, double bound) {
  if (isnan(r) || isinf(r)) return (isnan(r) ? isnan(g) : g == r) ? 0 : INFINITY;
  if (isnan(g) || isinf(g)) return INFINITY;
  if (g != r) return bound > 0 ? fabs(g - r) / bound : INFINITY; /* exact inputs, inexact result */
  return 0;
}

/* C offset of logical batch entry bi (C's dims, row-major flattening). */
static inline int64_t bmmx__c_offset(const bmm_problem *p, int64_t bi, int64_t *oa, int64_t *ob) {
  int64_t oc = 0;
  int d;
  *oa = *ob = 0;
  for (d = p->batch_dims - 1; d >= 0; --d) {
    int64_t i = p->batch[d] ? bi % p->batch[d] : 0;
    bi = p->batch[d] ? bi / p->batch[d] : 0;
    *oa += i * p->a.batch_stride[d], *ob += i * p->b.batch_stride[d];
    oc += i * p->c.batch_stride[d];
  }
  return oc;
}

/* Batch entry of sample s of `samples`: 0, the last, and evenly spread. */
static inline int64_t bmmx__sample_entry(int64_t s, int64_t samples, int64_t nb) {
  return samples == 1 ? 0 : (int64_t)((double)s * (double)(nb - 1) / (double)(samples - 1));
}

static inline int64_t bmmx__batch_count(const bmm_problem *p) {
  int64_t nb = 1;
  int d;
  for (d = 0; d < p->batch_dims; ++d)
    nb *= p->batch[d];
  return nb;
}

/* Reference (and error scale) of batch entry bi into ref/mag[m][n]. */
static inline int bmmx__entry_reference(const bmm_problem *p, int64_t bi, long double *ref,
                                        long double *mag) {
  int64_t oa, ob, oc = bmmx__c_offset(p, bi, &oa, &ob);
  size_t es = bmm_dtype_size(p->dtype);
  bmm_problem one = *p;
  one.batch_dims = 0;
  if (one.a.ptr) one.a.ptr = (const char *)p->a.ptr + oa * (int64_t)es;
  if (one.b.ptr) one.b.ptr = (const char *)p->b.ptr + ob * (int64_t)es;
  one.c.ptr = (const char *)p->c.ptr + oc * (int64_t)es;
  one.strategy = BMM_STRATEGY_AUTO;
  return bmm_reference(&one, ref, mag) == BMM_OK;
}

/* Worst |err|/bound of batch entry bi of `got` against its reference; the
   element that gave it in *wi, *wj. Complex dtypes (ref holds (re, im)
   pairs): |err| is the modulus of the error and the bound the complex one,
   BMMX_TOL_C * sqrt(2) * (2k + 4) * u * mag (each part is a real dot product
   of 2k terms, plus the epilogue; README, "Numerics"). c_stores: as in
   bmmx_bound_stored. */
static inline double bmmx__entry_compare_stored(const bmm_problem *p, int64_t bi, const void *got,
                                                const long double *ref, const long double *mag,
                                                int64_t *wi, int64_t *wj, int c_stores) {
  int64_t oa, ob, oc = bmmx__c_offset(p, bi, &oa, &ob), i, j;
  double worst = 0, u = bmmx_unit_roundoff(p->dtype);
  *wi = *wj = 0;
  const int parts = bmmx_parts(p->dtype);
  for (i = 0; i < p->m; ++i)
    for (j = 0; j < p->n; ++j) {
      const int64_t at = oc + i * p->c.row_stride + j * p->c.col_stride;
      double e = 0;
      if (parts == 1) {
        double g = bmmx__get(p->dtype, got, at);
        double r = (double)ref[i * p->n + j];
        double bound = bmmx_bound_stored(p->dtype, p->k, (double)mag[i * p->n + j], r, c_stores);
        e = bmmx__part_error(g, r, bound);
      } else {
        const double gr = bmmx__get_part(p->dtype, got, at, 0);
        const double gi = bmmx__get_part(p->dtype, got, at, 1);
        const double rr = (double)ref[2 * (i * p->n + j)], ri = (double)ref[2 * (i * p->n + j) + 1];
        const double bound =
            BMMX_TOL_C * sqrt(2.0) * (double)(2 * p->k + 4) * u * (double)mag[i * p->n + j];
        if (!isfinite(rr) || !isfinite(ri) || !isfinite(gr) || !isfinite(gi)) {
          const double er = bmmx__part_error(gr, rr, bound), ei = bmmx__part_error(gi, ri, bound);
          e = er > ei ? er : ei;
          if (e < INFINITY) e = 0; /* the finite part of a non-finite result: not bounded */
        } else if (gr != rr || gi != ri) {
          e = bound > 0 ? hypot(gr - rr, gi - ri) / bound : INFINITY;
        }
      }
      if (e > worst) worst = e, *wi = i, *wj = j;
    }
  return worst;
}

static inline double bmmx__entry_compare(const bmm_problem *p, int64_t bi, const void *got,
                                         const long double *ref, const long double *mag,
                                         int64_t *wi, int64_t *wj) {
  return bmmx__entry_compare_stored(p, bi, got, ref, mag, wi, wj, 1);
}

/* How many times a call rounds C to its storage type: twice for cuda_cublas
   with a bias (cuBLAS stores alpha AB + beta C, a second kernel adds the
   bias and stores again), once for every other launch (README, "Numerics").
   With alpha = 0 or k = 0 cuda_cublas runs the loop kernel: once. */
static inline int bmmx_c_stores(const bmm_plan *pl) {
  return pl->strategy == BMM_CUDA_CUBLAS && pl->use_ab && pl->bias ? 2 : 1;
}

/* Compare `got` (a C buffer laid out as p->c says, with p->c.ptr the C values
   before the call, needed when beta != 0) with the reference, on `samples`
   batch entries spread over the batch (all when samples <= 0 or >= batch).
   Returns the worst |err|/bound (<= 1 passes; NaN/Inf must match the
   reference exactly, else it returns INFINITY). Host pointers only.
   bmmx_check_stored: for a C rounded c_stores times to its storage type
   (bmmx_bound_stored). */
static inline double bmmx_check_stored(const bmm_problem *p, const void *got, int64_t samples,
                                       int c_stores) {
  int64_t nb = bmmx__batch_count(p), s, wi, wj;
  double worst = 0;
  long double *ref =
      (long double *)malloc(sizeof(long double) * (size_t)(bmmx_parts(p->dtype) * p->m * p->n + 1));
  long double *mag = (long double *)malloc(sizeof(long double) * (size_t)(p->m * p->n + 1));
  if (!ref || !mag) {
    free(ref), free(mag);
    return INFINITY;
  }
  if (samples <= 0 || samples > nb) samples = nb;
  for (s = 0; s < samples; ++s) {
    int64_t bi = bmmx__sample_entry(s, samples, nb);
    double e;
    if (!bmmx__entry_reference(p, bi, ref, mag)) {
      worst = INFINITY;
      break;
    }
    e = bmmx__entry_compare_stored(p, bi, got, ref, mag, &wi, &wj, c_stores);
    if (e > worst) worst = e;
  }
  free(ref), free(mag);
  return worst;
}

static inline double bmmx_check(const bmm_problem *p, const void *got, int64_t samples) {
  return bmmx_check_stored(p, got, samples, 1);
}

/* Worst |err|/bound of batch entry bi of `got` (laid out as p->c, p->c.ptr
   holding C before the call); where edge_rows > 0 and C has more than
   2 * edge_rows rows, only its first and last edge_rows rows (those a tile
   or a block border gets wrong first): the long-double reference of a
   1024^3 entry then costs 8 * 1024^2 multiply-adds, not 1024^3.
   bmmx_check_entry_stored: for a C rounded c_stores times to its storage
   type (bmmx_bound_stored). */
static inline double bmmx_check_entry_stored(const bmm_problem *p, int64_t bi, const void *got,
                                             int64_t edge_rows, int c_stores) {
  const size_t es = bmm_dtype_size(p->dtype);
  const int64_t rows = edge_rows > 0 && p->m > 2 * edge_rows ? edge_rows : p->m;
  int64_t oa, ob, oc = bmmx__c_offset(p, bi, &oa, &ob), part;
  double worst = 0;
  for (part = 0; part < (rows < p->m ? 2 : 1); ++part) {
    const int64_t r0 = part ? p->m - rows : 0;
    const int64_t ra = oa + r0 * p->a.row_stride, rc = oc + r0 * p->c.row_stride;
    bmm_problem one = *p;
    double w;
    one.batch_dims = 0;
    one.m = rows;
    if (one.a.ptr) one.a.ptr = (const char *)p->a.ptr + ra * (int64_t)es;
    if (one.b.ptr) one.b.ptr = (const char *)p->b.ptr + ob * (int64_t)es;
    one.c.ptr = (const char *)p->c.ptr + rc * (int64_t)es;
    w = bmmx_check_stored(&one, (const char *)got + rc * (int64_t)es, 0, c_stores);
    if (!(w <= worst)) worst = w;
  }
  return worst;
}

static inline double bmmx_check_entry(const bmm_problem *p, int64_t bi, const void *got,
                                      int64_t edge_rows) {
  return bmmx_check_entry_stored(p, bi, got, edge_rows, 1);
}

/* bmmx_check with each sampled entry checked as bmmx_check_entry does: in C's
   of more than 2 * edge_rows rows only the first and last edge_rows. */
static inline double bmmx_check_edges(const bmm_problem *p, const void *got, int64_t samples,
                                      int64_t edge_rows) {
  const int64_t nb = bmmx__batch_count(p);
  int64_t s;
  double worst = 0;
  if (samples <= 0 || samples > nb) samples = nb;
  for (s = 0; s < samples; ++s) {
    double e = bmmx_check_entry(p, bmmx__sample_entry(s, samples, nb), got, edge_rows);
    if (!(e <= worst)) worst = e; /* a NaN stays */
  }
  return worst;
}

/* bmmx_check in two halves, to compare several results of one problem (every
   strategy, 1 and 2 threads) against one reference: bmmx_expect_init
   computes the reference of the sampled entries (p->c.ptr: C before the
   call); bmmx_expect_compare returns the worst |err|/bound of `got` as
   bmmx_check does and says where it was. */
typedef struct bmmx_expect {
  int64_t nb, samples;
  long double *ref, *mag; /* [samples][m][n] */
  int ok;                 /* the reference could be computed */
  int64_t worst_entry, worst_i, worst_j;
  double worst_got, worst_ref; /* at the worst element of the last compare */
} bmmx_expect;

static inline int bmmx_expect_init(bmmx_expect *e, const bmm_problem *p, int64_t samples) {
  int64_t s, mn = p->m * p->n;
  memset(e, 0, sizeof *e);
  e->nb = bmmx__batch_count(p);
  e->samples = samples <= 0 || samples > e->nb ? e->nb : samples;
  e->ref = (long double *)malloc(sizeof(long double) *
                                 (size_t)(bmmx_parts(p->dtype) * e->samples * mn + 1));
  e->mag = (long double *)malloc(sizeof(long double) * (size_t)(e->samples * mn + 1));
  e->ok = e->ref && e->mag;
  for (s = 0; e->ok && s < e->samples; ++s)
    e->ok = bmmx__entry_reference(p, bmmx__sample_entry(s, e->samples, e->nb),
                                  e->ref + s * mn * bmmx_parts(p->dtype), e->mag + s * mn);
  return e->ok;
}

static inline double bmmx_expect_compare(bmmx_expect *e, const bmm_problem *p, const void *got) {
  int64_t s, mn = p->m * p->n, wi, wj;
  double worst = 0;
  if (!e->ok) return INFINITY;
  e->worst_entry = e->worst_i = e->worst_j = 0;
  e->worst_got = e->worst_ref = 0;
  for (s = 0; s < e->samples; ++s) {
    int64_t bi = bmmx__sample_entry(s, e->samples, e->nb), oa, ob, oc;
    const int64_t np = bmmx_parts(p->dtype);
    double w = bmmx__entry_compare(p, bi, got, e->ref + s * mn * np, e->mag + s * mn, &wi, &wj);
    if (w > worst || s == 0) {
      if (w > worst) worst = w;
      oc = bmmx__c_offset(p, bi, &oa, &ob);
      e->worst_entry = bi, e->worst_i = wi, e->worst_j = wj;
      e->worst_got = bmmx__get(p->dtype, got, oc + wi * p->c.row_stride + wj * p->c.col_stride);
      e->worst_ref = (double)e->ref[(s * mn + wi * p->n + wj) * np];
    }
  }
  return worst;
}

static inline void bmmx_expect_free(bmmx_expect *e) {
  free(e->ref), free(e->mag);
  e->ref = e->mag = NULL;
  e->ok = 0;
}

/* ---- the public suite (bench/suite.csv) --------------------------------- */

/* Reads `name,dtype,batch,m,n,k,layout` rows (header line skipped). Returns the
   number of cases, or -1 with a message in err. */
static inline int bmmx_suite_load(const char *path, bmmx_case *out, int max, char *err,
                                  size_t errlen) {
  FILE *f = fopen(path, "r");
  char line[256];
  int n = 0, ln = 0;
  if (!f) {
    snprintf(err, errlen, "cannot open %s", path);
    return -1;
  }
  while (fgets(line, sizeof line, f)) {
    char name[48], dt[16], lay[32];
    long long b, m, nn, k;
    bmmx_case c;
    ++ln;
    if (ln == 1 && strncmp(line, "name,", 5) == 0) continue;
    if (line[0] == '\n' || line[0] == '#') continue;
    if (sscanf(line, "%47[^,],%15[^,],%lld,%lld,%lld,%lld,%31[^,\r\n]", name, dt, &b, &m, &nn, &k,
               lay) != 7) {
      snprintf(err, errlen, "%s:%d: expected name,dtype,batch,m,n,k,layout", path, ln);
      fclose(f);
      return -1;
    }
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.dtype = bmmx_dtype_parse(dt);
    c.batch = b, c.m = m, c.n = nn, c.k = k;
    c.layout = bmmx_layout_parse(lay);
    if (c.dtype == BMM_DTYPE_UNSET || c.layout < 0 || b < 0 || m < 0 || nn < 0 || k < 0) {
      snprintf(err, errlen, "%s:%d: bad dtype `%s` or layout `%s` or size", path, ln, dt, lay);
      fclose(f);
      return -1;
    }
    if (n >= max) {
      snprintf(err, errlen, "%s: more than %d rows", path, max);
      fclose(f);
      return -1;
    }
    out[n++] = c;
  }
  fclose(f);
  return n;
}

/* Minimal bytes a case must move: A, B (and bias) read once, C written once
   (read too when beta != 0). The memory half of the roofline. */
static inline double bmmx_min_bytes(const bmmx_case *c, int reads_c) {
  bmmx_sizes_t s = bmmx_sizes(c);
  int64_t a = s.a, b = s.b, cc = c->batch * c->m * c->n;
  if (c->layout == BMMX_PADDED) a = c->batch * c->m * c->k, b = c->batch * c->k * c->n;
  return (double)bmm_dtype_size(c->dtype) * (double)(a + b + s.bias + cc * (reads_c ? 2 : 1));
}

/* Real floating-point operations: a complex multiply-add is four real ones. */
static inline double bmmx_flops(const bmmx_case *c) {
  return (bmm_dtype_is_complex(c->dtype) ? 8.0 : 2.0) * (double)c->batch * (double)c->m *
         (double)c->n * (double)c->k;
}

/* ---- describing and bounding a problem (tests) -------------------------- */

/* Lowest and highest element offset, relative to o->ptr, that an operand of
   rows x cols over batch dims[0..nd) can address (strides of size-1 dims
   ignored, as validation does). Sizes of 0 give lo = hi = 0. */
static inline void bmmx_extent(const bmm_operand *o, int64_t rows, int64_t cols, int nd,
                               const int64_t *dims, int64_t *lo, int64_t *hi) {
  int64_t size[2 + BMM_MAX_BATCH_DIMS], stride[2 + BMM_MAX_BATCH_DIMS];
  int i, n = 0;
  *lo = *hi = 0;
  size[n] = rows, stride[n++] = o->row_stride;
  size[n] = cols, stride[n++] = o->col_stride;
  for (i = 0; i < nd; ++i)
    size[n] = dims[i], stride[n++] = o->batch_stride[i];
  for (i = 0; i < n; ++i) {
    if (size[i] <= 1) continue;
    if (stride[i] < 0)
      *lo += (size[i] - 1) * stride[i];
    else
      *hi += (size[i] - 1) * stride[i];
  }
}

/* Marks mask[off - lo] for every C element p addresses (offset off from
   p->c.ptr); mask has `count` entries. Returns how many addressed offsets fall
   outside [lo, lo + count) (0 for a buffer sized by bmmx_extent). With the
   mask, a test checks that a kernel wrote nothing outside C's elements. */
static inline int64_t bmmx_c_mask(const bmm_problem *p, int64_t lo, int64_t count,
                                  unsigned char *mask) {
  int64_t nb = 1, bi, i, j, outside = 0;
  int d;
  for (d = 0; d < p->batch_dims; ++d)
    nb *= p->batch[d];
  for (bi = 0; bi < nb; ++bi) {
    int64_t oa, ob, oc = bmmx__c_offset(p, bi, &oa, &ob);
    for (i = 0; i < p->m; ++i)
      for (j = 0; j < p->n; ++j) {
        int64_t off = oc + i * p->c.row_stride + j * p->c.col_stride - lo;
        if (off < 0 || off >= count)
          ++outside;
        else
          mask[off] = 1;
      }
  }
  return outside;
}

/* One line with every field a reader needs to rebuild p (pointers left out). */
static inline void bmmx_describe(const bmm_problem *p, char *buf, size_t len) {
  const bmm_operand *ops[3];
  size_t u;
  int d, o;
  ops[0] = &p->a, ops[1] = &p->b, ops[2] = &p->c;
  u = (size_t)snprintf(buf, len, "%s m=%lld n=%lld k=%lld batch=(", bmm_dtype_name(p->dtype),
                       (long long)p->m, (long long)p->n, (long long)p->k);
  for (d = 0; d < p->batch_dims && u < len; ++d)
    u += (size_t)snprintf(buf + u, len - u, "%s%lld", d ? "," : "", (long long)p->batch[d]);
  if (u < len) u += (size_t)snprintf(buf + u, len - u, ")");
  for (o = 0; o < 3 && u < len; ++o) {
    u += (size_t)snprintf(buf + u, len - u, " %c{rs=%lld cs=%lld bs=(", "abc"[o],
                          (long long)ops[o] -> row_stride, (long long)ops[o] -> col_stride);
    for (d = 0; d < p->batch_dims && u < len; ++d)
      u += (size_t)snprintf(buf + u, len - u, "%s%lld", d ? "," : "",
                            (long long)ops[o]->batch_stride[d]);
    if (u < len) u += (size_t)snprintf(buf + u, len - u, ")}");
  }
  if (u < len)
    u += (size_t)snprintf(buf + u, len - u, " alpha=%g beta=%g bias=%s strategy=%s", p->alpha,
                          p->beta, p->bias ? "yes" : "no", bmm_strategy_name(p->strategy));
  if (u < len && bmm_dtype_is_complex(p->dtype))
    snprintf(buf + u, len - u, " alpha_im=%g beta_im=%g a.conj=%d b.conj=%d", p->alpha_im,
             p->beta_im, p->a.conj, p->b.conj);
}

#endif /* BMM_CASES_H */
