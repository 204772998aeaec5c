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
#include "tests/ir_cases.h" /* shapes, batches, setup: shared with tests/test_ir.c */

#include <libxsmm.h>
#include "bench/xsmm_dispatch.h"

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

int main(void) {
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
    for (sh = 0; sh < IR_NSHAPES; ++sh)
      for (bi = 0; bi < 2; ++bi) {
        ir_case ic;
        xsmm_call x;
        const bmmx_case *cs = &ic.cs;
        memset(&x, 0, sizeof x);
        if (!ir_case_make(&ic, dt == 1 ? BMM_F32 : BMM_F64, sh, bi, &seed)) return 2;
        if (!bmmx_xsmm_dispatch(cs->dtype, cs->m, cs->n, cs->k, 0, &x.s, &x.d)) {
          fprintf(stderr, "xsmm_ir: no kernel for %dx%dx%d\n", (int)cs->m, (int)cs->n, (int)cs->k);
          return 2;
        }
        x.a = ic.a, x.b = ic.b, x.c = ic.c, x.batch = cs->batch;
        x.sa = cs->m * cs->k, x.sb = cs->k * cs->n, x.sc = cs->m * cs->n;
        bmmx_ir_region(&x);
        if (!(bmmx_check(&ic.p, ic.c, 0) <= 1)) {
          fprintf(stderr, "xsmm_ir: wrong result for %s %dx%dx%d\n", bmm_dtype_name(cs->dtype),
                  (int)cs->m, (int)cs->n, (int)cs->k);
          failed = 1;
        }
        ir_case_free(&ic);
      }
  libxsmm_finalize();
  return failed;
}
