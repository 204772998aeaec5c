/* bench/xsmm_ir.c - LIBXSMM's side of the per-entry instruction table
   (bench/RESULTS.md, issue 25): the same shapes, batches and output format as
   tests/test_ir.c, so `sh tests/ir_check.sh build/xsmm_ir FILE --update`
   writes LIBXSMM's per-entry callgrind Ir beside bmm's budgets. Per shape
   and dtype it dispatches the JIT kernel once (outside the counted region)
   and calls it per batch entry inside bmmx_ir_region, the way a LIBXSMM user
   loops over a batch: row-major C = A*B is the column-major kernel (n, m, k)
   called as (B, A, C). Every result is checked against bmm's reference.
   Build: ninja build/xsmm_ir (LIBXSMM through pkg-config; bench/cpu_peers.ninja). */
#define _POSIX_C_SOURCE 200809L
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"

#include <libxsmm.h>

#define IR_N1 64
#define IR_N2 192

static const int ir_shapes[][3] = {{2, 2, 2},    {3, 3, 3}, {4, 4, 4},  {5, 5, 5},   {8, 8, 8},
                                   {16, 16, 16}, {3, 1, 5}, {3, 1, 25}, {32, 32, 32}};

typedef struct xsmm_call {
  libxsmm_smmfunction s;
  libxsmm_dmmfunction d;
  const void *a, *b;
  void *c;
  int64_t batch, sa, sb, sc;
} xsmm_call;

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
bmmx_ir_region(const xsmm_call *x) {
  int64_t e;
  if (x->d) {
    const double *a = (const double *)x->a, *b = (const double *)x->b;
    double *c = (double *)x->c;
    for (e = 0; e < x->batch; ++e)
      x->d(b + e * x->sb, a + e * x->sa, c + e * x->sc);
  } else {
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    float *c = (float *)x->c;
    for (e = 0; e < x->batch; ++e)
      x->s(b + e * x->sb, a + e * x->sa, c + e * x->sc);
  }
}

static void *ir_alloc(int64_t elems, size_t es) {
  void *p = NULL;
  return posix_memalign(&p, 64, (size_t)elems * es) == 0 ? p : NULL;
}

int main(void) {
  const int nshapes = (int)(sizeof ir_shapes / sizeof *ir_shapes);
  int dt, sh, bi, failed = 0;
  uint64_t seed = 99;
  libxsmm_init();
  fprintf(stderr, "xsmm_ir: LIBXSMM %s, target %s\n", LIBXSMM_VERSION, libxsmm_get_target_arch());
  {
    static double a[4], b[4], c[4];
    xsmm_call x;
    double alpha = 1, beta = 0;
    int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
    memset(&x, 0, sizeof x);
    x.d = libxsmm_dmmdispatch(2, 1, 2, NULL, NULL, NULL, &alpha, &beta, &flags, &pf);
    x.a = a, x.b = b, x.c = c, x.batch = 1;
    printf("warmup\n");
    if (!x.d) return 2;
    bmmx_ir_region(&x);
  }
  for (dt = 1; dt <= 2; ++dt) /* BMM_F32, BMM_F64 */
    for (sh = 0; sh < nshapes; ++sh)
      for (bi = 0; bi < 2; ++bi) {
        bmmx_case cs;
        bmmx_sizes_t sz;
        size_t es;
        void *a, *b, *c;
        bmm_problem p;
        xsmm_call x;
        const libxsmm_blasint M = ir_shapes[sh][1], N = ir_shapes[sh][0], K = ir_shapes[sh][2];
        int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
        memset(&cs, 0, sizeof cs);
        memset(&x, 0, sizeof x);
        cs.dtype = dt == 1 ? BMM_F32 : BMM_F64, cs.layout = BMMX_ROWMAJOR;
        cs.m = ir_shapes[sh][0], cs.n = ir_shapes[sh][1], cs.k = ir_shapes[sh][2];
        cs.batch = bi == 0 ? IR_N1 : IR_N2;
        es = bmm_dtype_size(cs.dtype);
        sz = bmmx_sizes(&cs);
        a = ir_alloc(sz.a, es), b = ir_alloc(sz.b, es), c = ir_alloc(sz.c, es);
        if (!a || !b || !c) return 2;
        bmmx_fill(cs.dtype, a, sz.a, &seed);
        bmmx_fill(cs.dtype, b, sz.b, &seed);
        p = bmmx_problem(&cs, a, b, c, NULL);
        if (cs.dtype == BMM_F64) {
          double alpha = 1, beta = 0;
          x.d = libxsmm_dmmdispatch(M, N, K, NULL, NULL, NULL, &alpha, &beta, &flags, &pf);
        } else {
          float alpha = 1, beta = 0;
          x.s = libxsmm_smmdispatch(M, N, K, NULL, NULL, NULL, &alpha, &beta, &flags, &pf);
        }
        if (!x.d && !x.s) {
          fprintf(stderr, "xsmm_ir: no kernel for %dx%dx%d\n", (int)cs.m, (int)cs.n, (int)cs.k);
          return 2;
        }
        x.a = a, x.b = b, x.c = c, x.batch = cs.batch;
        x.sa = cs.m * cs.k, x.sb = cs.k * cs.n, x.sc = cs.m * cs.n;
        printf("%s %d %d %d %d\n", bmm_dtype_name(cs.dtype), (int)cs.m, (int)cs.n, (int)cs.k,
               (int)cs.batch);
        bmmx_ir_region(&x);
        if (!(bmmx_check(&p, c, 0) <= 1)) {
          fprintf(stderr, "xsmm_ir: wrong result for %s %dx%dx%d\n", bmm_dtype_name(cs.dtype),
                  (int)cs.m, (int)cs.n, (int)cs.k);
          failed = 1;
        }
        free(a), free(b), free(c);
      }
  libxsmm_finalize();
  return failed;
}
