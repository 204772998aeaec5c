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

/* The epilogue every kernel shares: beta == 0 never reads C (NaN there is
   overwritten), bias is added after scaling. */
#define BMM__EPILOGUE(T, pl, cptr, acc, j)                \
  do {                                                    \
    T bmm__v = (T)(pl)->alpha * (T)(acc);                 \
    if ((pl)->read_c) bmm__v += (T)(pl)->beta * *(cptr);  \
    if ((pl)->bias) bmm__v += ((const T *)(pl)->bias)[j]; \
    *(cptr) = bmm__v;                                     \
  } while (0)

/* Reference: plain loops over any strides, accumulating in T. */
#define BMM__CPU_REF(E, name, T, sz)                                                 \
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
#define BMM__CPU_REFERENCE(E, name, T, sz)                                                        \
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
#define BMM__X(E, name, T, sz) \
  case BMM_##E: bmm__cpu_ref_##name(pl); break;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: break;
  }
}

static void bmm__cpu_cpu_dot(const bmm_plan *pl) { bmm__cpu_cpu_ref(pl); }
static void bmm__cpu_cpu_small(const bmm_plan *pl) { bmm__cpu_cpu_ref(pl); }
static void bmm__cpu_cpu_blocked(const bmm_plan *pl) { bmm__cpu_cpu_ref(pl); }
static void bmm__cpu_cpu_batch_simd(const bmm_plan *pl) { bmm__cpu_cpu_ref(pl); }

static const bmm_table_rule bmm__cpu_default_table[] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_REF, 0, 0, 0, 0, 0, 0, "catch-all: any strides"},
};

#ifdef __cplusplus
}
#endif
#endif /* BMM_CPU_H */
