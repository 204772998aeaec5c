/* tests/fuzz_util.h - small helpers shared by the reliability programs (fuzz
   harnesses, test_threads*, test_int64, test_diff): element access by dtype
   (from BMM_DTYPES), C offsets of a problem, and the comparison with
   bmm_reference under the per-dtype bound of tests/bmm_cases.h. Include after
   bmm.h and tests/bmm_cases.h. Everything is static. The test programs count
   their checks with tests/bmm_test.h (BMMX_CHECK, bmmx_summary). */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* worst |got - ref| / bound seen per dtype by rel_close: how much of the
   bound real kernels use (reported in bench/notes/reliability.md) */
static double rel_worst[BMM_DTYPE_COUNT];

static inline double rel_get(bmm_dtype dt, const void *p, int64_t i) {
  return bmm_element_get(dt, p, i * bmmx_parts(dt));
}

/* complex: the imaginary part gets -v/2 */
static inline void rel_set(bmm_dtype dt, void *p, int64_t i, double v) {
  bmm_element_set(dt, p, i * bmmx_parts(dt), v);
  if (bmmx_parts(dt) == 2) bmm_element_set(dt, p, 2 * i + 1, -0.5 * v);
}

/* Element offsets of logical batch entry bi (flattened row-major over the
   problem's own batch dims, the order bmm_reference writes) in A, B and C. */
static inline void rel_offsets(const bmm_problem *p, int64_t bi, int64_t *oa, int64_t *ob,
                               int64_t *oc) {
  int d;
  *oa = *ob = *oc = 0;
  for (d = p->batch_dims - 1; d >= 0; --d) {
    int64_t i = p->batch[d] > 0 ? bi % p->batch[d] : 0;
    bi = p->batch[d] > 0 ? bi / p->batch[d] : 0;
    if (p->batch[d] > 1) { /* wrapping: A/B strides of a problem that never reads them are free */
      *oa = (int64_t)((uint64_t)*oa + (uint64_t)i * (uint64_t)p->a.batch_stride[d]);
      *ob = (int64_t)((uint64_t)*ob + (uint64_t)i * (uint64_t)p->b.batch_stride[d]);
      *oc = (int64_t)((uint64_t)*oc + (uint64_t)i * (uint64_t)p->c.batch_stride[d]);
    }
  }
}

static inline int64_t rel_batch_count(const bmm_problem *p) {
  int64_t nb = 1;
  int d;
  for (d = 0; d < p->batch_dims; ++d)
    nb *= p->batch[d];
  return nb;
}

/* Offset of C element (bi, i, j); strides of size-1 dims do not count. */
static inline int64_t rel_c_offset(const bmm_problem *p, int64_t bi, int64_t i, int64_t j) {
  int64_t oa, ob, oc;
  rel_offsets(p, bi, &oa, &ob, &oc);
  return oc + (p->m > 1 ? i * p->c.row_stride : 0) + (p->n > 1 ? j * p->c.col_stride : 0);
}

/* One C element against the reference: NaN where the reference is NaN, the
   same infinity where it is infinite, else |got - ref| <= bmmx_bound (the
   bound tests/bmm_cases.h enforces). Returns 1 when it holds. */
static inline int rel_close(bmm_dtype dt, int64_t k, double got, long double ref, long double mag) {
  double r = (double)ref, bound;
  if (isnan(r)) return isnan(got);
  if (isinf(r)) return got == r;
  if (isnan(got) || isinf(got)) return 0;
  /* complex: a finite part of an element whose other part met a NaN or Inf
     (a C with a NaN imaginary part and a real beta): the moduli sum is not
     finite, so no bound can be formed; finite is all that is asked, as
     bmmx__entry_compare asks (tests/bmm_cases.h) */
  if (isnan((double)mag) || isinf((double)mag)) return 1;
  /* complex: each part within the complex bound (tests/bmm_cases.h) */
  bound = bmm_dtype_is_complex(dt) ? BMMX_TOL_C * sqrt(2.0) * (2.0 * (double)k + 4.0) *
                                         bmmx_unit_roundoff(dt) * (double)mag
                                   : bmmx_bound(dt, k, (double)mag, r);
  if (bound > 0 && (int)dt > 0 && (int)dt < BMM_DTYPE_COUNT &&
      fabs(got - r) / bound > rel_worst[dt])
    rel_worst[dt] = fabs(got - r) / bound;
  return fabs(got - r) <= bound;
}

/* Compare every C element of p (C as it is now) with ref/mag from
   bmm_reference (taken before the call). Returns the number of bad elements;
   the first one is described in msg. */
static inline int64_t rel_compare(const bmm_problem *p, const long double *ref,
                                  const long double *mag, char *msg, size_t len) {
  int64_t nb = rel_batch_count(p), bi, i, j, bad = 0;
  if (msg && len) msg[0] = 0;
  for (bi = 0; bi < nb; ++bi)
    for (i = 0; i < p->m; ++i)
      for (j = 0; j < p->n; ++j) {
        int64_t e = (bi * p->m + i) * p->n + j, off = rel_c_offset(p, bi, i, j);
        int part, parts = bmmx_parts(p->dtype);
        for (part = 0; part < parts; ++part) { /* complex: re, then im */
          double got = bmmx__get_part(p->dtype, p->c.ptr, off, part);
          if (!rel_close(p->dtype, p->k, got, ref[e * parts + part], mag[e])) {
            if (!bad && msg)
              snprintf(msg, len, "C[b=%lld][%lld][%lld]%s = %.17g, reference %.17Lg (mag %.3Lg)",
                       (long long)bi, (long long)i, (long long)j,
                       parts == 1 ? ""
                       : part     ? ".im"
                                  : ".re",
                       got, ref[e * parts + part], mag[e]);
            ++bad;
          }
        }
      }
  return bad;
}

#endif /* FUZZ_UTIL_H */
