/* tests/test_threads_determinism.c - the same problem gives the same bits:
   run twice, with 1 and 2 OpenMP threads, and with the strategy forced or
   picked by a table rule with threads=1 / threads=2, for every CPU strategy
   that claims the problem (iterated with BMM_CPU_STRATEGIES). Shapes are
   big enough that the CPU backend's parallel split engages with 2 threads.
   Every result is also checked against bmm_reference. Build with OpenMP
   ($openmp); without it the thread-count half has nothing to vary and says
   so. */
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef BMMX_IMPL_LINKED /* else tests/bmm_impl.c's object holds it */
#define BMM_IMPLEMENTATION
#endif
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tests/bmm_test.h"
#include "tests/fuzz_util.h"

static void set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

/* Run p (its strategy forced or AUTO) into c, which starts as NaN. */
static bmm_status run(bmm_problem *p, void *c, size_t bytes, bmm_dtype dt) {
  bmmx_poison(dt, c, (int64_t)(bytes / bmm_dtype_size(dt)));
  return bmm_cpu(p);
}

/* One strategy on one case: forced twice with 1 thread, with 2 threads,
   then picked by a table rule with threads=1 and threads=2. */
static void check_strategy(const bmmx_case *cs, bmm_strategy st, const void *a, const void *b,
                           const void *bias, unsigned char *c0, unsigned char *c1, size_t cb,
                           const long double *ref, const long double *mag) {
  const char *sn = bmm_strategy_name(st);
  bmm_problem p = bmmx_problem(cs, a, b, c0, bias);
  bmm_plan plan;
  bmm_table_rule rules[2];
  char msg[256];
  int t;
  p.strategy = st;
  if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) != BMM_OK) return; /* not claimed */
  set_threads(1);
  BMMX_CHECK(run(&p, c0, cb, cs->dtype) == BMM_OK, "%s %s: %s", cs->name, sn, bmm_last_error());
  BMMX_CHECK(rel_compare(&p, ref, mag, msg, sizeof msg) == 0, "%s %s: %s", cs->name, sn, msg);
  p.c.ptr = c1;
  BMMX_CHECK(run(&p, c1, cb, cs->dtype) == BMM_OK && memcmp(c0, c1, cb) == 0,
             "%s %s: two runs differ", cs->name, sn);
  set_threads(2);
  BMMX_CHECK(run(&p, c1, cb, cs->dtype) == BMM_OK && memcmp(c0, c1, cb) == 0,
             "%s %s: 1 and 2 OpenMP threads differ", cs->name, sn);
  memset(rules, 0, sizeof rules);
  rules[0].strategy = st;
  rules[1].strategy = BMM_CPU_REF;
  for (t = 1; t <= 2; ++t) {
    rules[0].threads = t;
    BMMX_CHECK(bmm_set_table(BMM_BACKEND_CPU, rules, 2) == BMM_OK, "set_table: %s",
               bmm_last_error());
    p.strategy = BMM_STRATEGY_AUTO;
    BMMX_CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK && plan.strategy == st &&
                   plan.rule.threads == t,
               "%s %s: the table rule was not picked", cs->name, sn);
    BMMX_CHECK(run(&p, c1, cb, cs->dtype) == BMM_OK && memcmp(c0, c1, cb) == 0,
               "%s %s: rule threads=%d differs from the forced run", cs->name, sn, t);
  }
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
}

static void one_case(const bmmx_case *cs, uint64_t *seed) {
  bmmx_sizes_t sz = bmmx_sizes(cs);
  size_t es = bmm_dtype_size(cs->dtype), cb = (size_t)sz.c * es;
  int64_t outs = cs->batch * cs->m * cs->n;
  void *a = malloc((size_t)sz.a * es), *b = malloc((size_t)sz.b * es);
  void *bias = sz.bias ? malloc((size_t)sz.bias * es) : NULL;
  unsigned char *c0 = (unsigned char *)malloc(cb), *c1 = (unsigned char *)malloc(cb);
  long double *ref = (long double *)malloc(sizeof *ref * (size_t)(outs * bmmx_parts(cs->dtype)));
  long double *mag = (long double *)malloc(sizeof *mag * (size_t)outs);
  bmm_problem p;
  if (!a || !b || (sz.bias && !bias) || !c0 || !c1 || !ref || !mag) {
    BMMX_CHECK(0, "%s: out of memory", cs->name);
    goto done;
  }
  bmmx_fill(cs->dtype, a, sz.a, seed);
  bmmx_fill(cs->dtype, b, sz.b, seed);
  if (bias) bmmx_fill(cs->dtype, bias, sz.bias, seed);
  bmmx_poison(cs->dtype, c0, sz.c);
  p = bmmx_problem(cs, a, b, c0, bias);
  BMMX_CHECK(bmm_reference(&p, ref, mag) == BMM_OK, "%s: reference: %s", cs->name,
             bmm_last_error());

#define REL__X(E, sname, l, mm, mn, mk, cf, desc) \
  check_strategy(cs, BMM_##E, a, b, bias, c0, c1, cb, ref, mag);
  BMM_CPU_STRATEGIES(REL__X)
#undef REL__X
done:
  free(a), free(b), free(bias), free(c0), free(c1), free(ref), free(mag);
}

int main(void) {
  /* batch, m, n, k: many small entries (split over the batch), the seed's
     shape, few big entries (split over tiles or rows), one long K */
  static const int64_t shapes[][4] = {
      {1000, 8, 8, 8}, {2000, 3, 1, 25}, {3, 40, 36, 50}, {4, 70, 66, 72}, {6, 2, 3, 3000}};
  uint64_t seed = 2024;
  int dt, l;
  unsigned s;
#ifdef _OPENMP
  printf("OpenMP: up to %d threads\n", omp_get_max_threads());
#else
  printf("built without OpenMP: only repeated runs and table threads= are compared\n");
#endif
  for (dt = 1; dt < BMM_DTYPE_COUNT; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        bmmx_case cs;
        memset(&cs, 0, sizeof cs);
        cs.dtype = (bmm_dtype)dt, cs.layout = l;
        cs.batch = shapes[s][0], cs.m = shapes[s][1], cs.n = shapes[s][2], cs.k = shapes[s][3];
        snprintf(cs.name, sizeof cs.name, "%s %s %lldx%lldx%lldx%lld", bmm_dtype_name(cs.dtype),
                 bmmx_layout_name(l), (long long)cs.batch, (long long)cs.m, (long long)cs.n,
                 (long long)cs.k);
        one_case(&cs, &seed);
      }
  for (dt = 1; dt < BMM_DTYPE_COUNT; ++dt)
    printf("worst |err| / bound over every result, %s: %.3g\n", bmm_dtype_name((bmm_dtype)dt),
           rel_worst[dt]);
  return bmmx_summary();
}
