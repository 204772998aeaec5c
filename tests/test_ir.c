/* tests/test_ir.c - the harness of the per-entry instruction budget test
   (tests/ir_check.sh, issue 25). Timings are noise on a shared VM; callgrind's
   instruction count (Ir) is not. For every shape of ir_shapes, in f32 and f64,
   it calls bmm_cpu (AUTO, alpha 1, beta 0, row-major) on a batch of IR_N1 and
   of IR_N2 entries, each call through bmmx_ir_region, which callgrind counts
   alone (--toggle-collect) and dumps after (--dump-after): the script takes
   per-entry Ir = (Ir(N2) - Ir(N1)) / (N2 - N1), so the per-call costs
   (validation, table lookup, dispatch) cancel and what is left is the
   kernel's cost per batch entry. It prints one line per call, in call order:
   `dtype m n k batch` (the first call, a warm-up, prints `warmup`), and
   checks every result against the reference (exit 1 if one is wrong).

   Build it without OpenMP (one thread: the count does not depend on the
   scheduler) and with flags that do not depend on the build machine's CPU
   (tests/cpu_perf.ninja), so a budget holds on every VM of one compiler.
   BMMX_IR_MUTANT adds a naive second pass over every entry inside the
   counted region: a stand-in for a kernel regression, which the test must
   catch. */
#define _POSIX_C_SOURCE 200809L
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tests/ir_cases.h" /* shapes, batches, setup: shared with bench/xsmm_ir.c */

#ifdef BMMX_IR_MUTANT
static volatile double bmmx_ir_sink;
#endif

/* not inlined: callgrind finds it by name */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bmm_status
bmmx_ir_region(const bmm_problem *p) {
  bmm_status s = bmm_cpu(p);
#ifdef BMMX_IR_MUTANT
  {
    int64_t e, i;
    for (e = 0; e < p->batch[0]; ++e)
      for (i = 0; i < p->m * p->n * p->k; ++i)
        bmmx_ir_sink = bmmx_ir_sink + (double)i;
  }
#endif
  return s;
}

int main(void) {
  int dt, sh, bi, failed = 0;
  uint64_t seed = 99;
  {
    static double a[4], b[4], c[4];
    bmm_problem p = bmm_problem_rowmajor(BMM_F64, 1, 2, 2, 1, a, b, c);
    printf("warmup\n");
    if (bmmx_ir_region(&p) != BMM_OK) failed = 1;
  }
  for (dt = 1; dt < BMM_DTYPE_COUNT; ++dt)
    for (sh = 0; sh < IR_NSHAPES; ++sh)
      for (bi = 0; bi < 2; ++bi) {
        ir_case x;
        if (!ir_case_make(&x, (bmm_dtype)dt, sh, bi, &seed)) return 2;
        if (bmmx_ir_region(&x.p) != BMM_OK || !(bmmx_check(&x.p, x.c, 0) <= 1)) {
          fprintf(stderr, "test_ir: wrong result for %s %lldx%lldx%lld\n",
                  bmm_dtype_name(x.cs.dtype), (long long)x.cs.m, (long long)x.cs.n,
                  (long long)x.cs.k);
          failed = 1;
        }
        ir_case_free(&x);
      }
  return failed;
}
