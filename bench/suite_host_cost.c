/* bench/suite_host_cost.c - the host-side cost of build/test_cuda's suite
   group, measured without a GPU: per row of bench/suite.csv, what run_one()
   does on the CPU (fill A, B and bias, poison C, the long-double reference
   check of the sampled entries, the untouched-elements scan), timed.

   build/suite_host_cost [--all] [--self-test] [--only NAME] [--suite FILE]
     default: the sample tests/test_cuda.cu checks (TEST_SUITE_SAMPLES entries,
              the first and last TEST_SUITE_EDGE_ROWS rows of C's over 8 rows)
     --all    every entry and every row (the check before the sample)
     --self-test  the sampled check on bmm_cpu's results of every suite row
              (batch cut to 5): clean passes, one wrong element in the first
              or the last row fails (`ninja test` runs it)
   stdout: per row the fill, check and scan CPU seconds (all threads together;
   OMP_NUM_THREADS=1 gives the one-thread cost) and multiply-adds; a total.
   The check compares against a NaN-poisoned C (nothing computes the product
   here): the reference costs the same, and the verdicts are not printed.
   Keep SAMPLES and EDGE_ROWS equal to tests/test_cuda.cu's. */
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"

#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define SAMPLES 256
#define EDGE_ROWS 4

/* CPU seconds of the process (all threads): a shared machine's wall clock
   says more about its neighbours than about this code */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* tests/test_cuda.cu's check_entries: the same sampling and per-entry check
   (bmmx_check_entry); the multiply-adds of the reference in *macs */
static double check_sampled(const bmm_problem *hp, const void *got, int64_t samples,
                            int64_t edge_rows, double *macs) {
  int64_t nb = 1, cnt, s;
  const int64_t rows = edge_rows > 0 && hp->m > 2 * edge_rows ? edge_rows : hp->m;
  double worst = 0;
  int d;
  for (d = 0; d < hp->batch_dims; ++d)
    nb *= hp->batch[d];
  cnt = samples <= 0 || samples >= nb ? nb : samples;
  *macs = (double)cnt * (double)(rows < hp->m ? 2 * rows : rows) * (double)hp->n * (double)hp->k;
#ifdef _OPENMP
#pragma omp parallel for reduction(max : worst) schedule(dynamic, 1)
#endif
  for (s = 0; s < cnt; ++s) {
    double w = bmmx_check_entry(hp, cnt == nb ? s : bmmx__sample_entry(s, cnt, nb), got, edge_rows);
    if (!(w <= worst)) worst = w;
  }
  return worst;
}

/* --self-test: every suite row with its batch cut to 5 entries, C computed by
   bmm_cpu; the sampled check (and bmmx_check_edges, bmm-tune's) must pass it,
   and must fail it once one element is wrong in the first row of the first
   entry, or in the last row and column of the last entry (the rows the
   edge-row sample keeps). Returns the number of failed checks. */
static int self_test(const bmmx_case *cases, int n) {
  int i, bad = 0, runs = 0;
  for (i = 0; i < n; ++i) {
    bmmx_case c = cases[i];
    const size_t es = bmm_dtype_size(c.dtype);
    bmmx_sizes_t sz;
    uint64_t seed = 777;
    char *a, *b, *c0, *got, *bias;
    bmm_problem p, q;
    int64_t oa, ob, oc, where[2];
    double macs, w[3], e[3]; /* check_sampled; bmmx_check_edges (bmm-tune's check) */
    int t;
    if (c.batch > 5) c.batch = 5;
    sz = bmmx_sizes(&c);
    a = (char *)malloc((size_t)sz.a * es + 1), b = (char *)malloc((size_t)sz.b * es + 1);
    c0 = (char *)malloc((size_t)sz.c * es + 1), got = (char *)malloc((size_t)sz.c * es + 1);
    bias = (char *)malloc((size_t)c.n * es + 1);
    if (!a || !b || !c0 || !got || !bias) return bad + 1;
    bmmx_fill(c.dtype, a, sz.a, &seed);
    bmmx_fill(c.dtype, b, sz.b, &seed);
    bmmx_fill(c.dtype, bias, c.n, &seed);
    bmmx_poison(c.dtype, c0, sz.c);
    p = bmmx_problem(&c, a, b, c0, c.layout == BMMX_SHARED_B_BIAS ? bias : NULL);
    q = bmmx_problem(&c, a, b, got, c.layout == BMMX_SHARED_B_BIAS ? bias : NULL);
    if (bmm_cpu(&q) != BMM_OK) {
      printf("FAIL %s %s: bmm_cpu: %s\n", c.name, bmm_dtype_name(c.dtype), bmm_last_error());
      ++bad;
      continue;
    }
    /* the first element of entry 0; the last row and column of entry 4 */
    oc = bmmx__c_offset(&p, 0, &oa, &ob);
    where[0] = oc;
    oc = bmmx__c_offset(&p, c.batch - 1, &oa, &ob);
    where[1] = oc + (c.m - 1) * p.c.row_stride + (c.n - 1) * p.c.col_stride;
    w[0] = check_sampled(&p, got, 3, EDGE_ROWS, &macs);
    e[0] = bmmx_check_edges(&p, got, 3, EDGE_ROWS);
    for (t = 0; t < 2; ++t) {
      /* + 1 to the element (its real part: component index parts * element):
         far past any row's bound (square1024: ~0.03), and exact in every
         dtype at these magnitudes */
      const int64_t ci = where[t] * bmmx_parts(c.dtype);
      char keep[16];
      memcpy(keep, got + where[t] * (int64_t)es, es);
      bmm_element_set(c.dtype, got, ci, bmm_element_get(c.dtype, got, ci) + 1.0);
      w[1 + t] = check_sampled(&p, got, 3, EDGE_ROWS, &macs);
      e[1 + t] = bmmx_check_edges(&p, got, 3, EDGE_ROWS);
      memcpy(got + where[t] * (int64_t)es, keep, es);
    }
    runs += 6;
    if (!(w[0] <= 1.0) || !(w[1] > 1.0) || !(w[2] > 1.0)) {
      printf("FAIL %s %s: err/bound clean %.3g, first element changed %.3g, last %.3g\n", c.name,
             bmm_dtype_name(c.dtype), w[0], w[1], w[2]);
      bad += !(w[0] <= 1.0) + !(w[1] > 1.0) + !(w[2] > 1.0);
    }
    if (!(e[0] <= 1.0) || !(e[1] > 1.0) || !(e[2] > 1.0)) {
      printf("FAIL %s %s: bmmx_check_edges: clean %.3g, first element changed %.3g, last %.3g\n",
             c.name, bmm_dtype_name(c.dtype), e[0], e[1], e[2]);
      bad += !(e[0] <= 1.0) + !(e[1] > 1.0) + !(e[2] > 1.0);
    }
    free(a), free(b), free(c0), free(got), free(bias);
  }
  printf("self-test: %d checks over %d rows (batch cut to 5, 3 entries sampled), %d failed\n", runs,
         n, bad);
  return bad;
}

int main(int argc, char **argv) {
  static bmmx_case cases[256];
  const char *suite = "bench/suite.csv", *only = NULL;
  int all = 0, self = 0, n, i;
  char err[256];
  double t_fill = 0, t_check = 0, t_scan = 0, total_macs = 0;
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--all") == 0)
      all = 1;
    else if (strcmp(argv[i], "--self-test") == 0)
      self = 1;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
      suite = argv[++i];
    else {
      fprintf(stderr,
              "usage: suite_host_cost [--all] [--self-test] [--only NAME] [--suite FILE]\n");
      return 2;
    }
  }
  n = bmmx_suite_load(suite, cases, 256, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "suite_host_cost: %s\n", err);
    return 2;
  }
  if (self) return self_test(cases, n) ? 1 : 0;
#ifdef _OPENMP
  printf("threads %d, check: %s\n", omp_get_max_threads(),
         all ? "every entry, every row" : "sampled as tests/test_cuda.cu");
#endif
  printf("%-22s %-3s %8s %9s %9s %9s %12s\n", "name", "dt", "batch", "fill_s", "check_s", "scan_s",
         "ref_macs");
  for (i = 0; i < n; ++i) {
    const bmmx_case *c = &cases[i];
    const size_t es = bmm_dtype_size(c->dtype);
    const bmmx_sizes_t sz = bmmx_sizes(c);
    uint64_t seed = 12345;
    char *a, *b, *cc, *got, *bias;
    bmm_problem p;
    double t0, t1, t2, macs, scanned = 0;
    int64_t e;
    if (only && strcmp(only, c->name) != 0) continue;
    a = (char *)malloc((size_t)sz.a * es + 1), b = (char *)malloc((size_t)sz.b * es + 1);
    cc = (char *)malloc((size_t)sz.c * es + 1), got = (char *)malloc((size_t)sz.c * es + 1);
    bias = (char *)malloc((size_t)c->n * es + 1);
    if (!a || !b || !cc || !got || !bias) {
      printf("%-22s %-3s out of memory\n", c->name, bmm_dtype_name(c->dtype));
      free(a), free(b), free(cc), free(got), free(bias);
      continue;
    }
    t0 = now_s();
    bmmx_fill_parallel(c->dtype, a, sz.a, &seed); /* as tests/test_cuda.cu's run_one */
    bmmx_fill_parallel(c->dtype, b, sz.b, &seed);
    bmmx_fill(c->dtype, bias, c->n, &seed);
    bmmx_poison(c->dtype, cc, sz.c);
    memcpy(got, cc, (size_t)sz.c * es);
    t1 = now_s();
    p = bmmx_problem(c, a, b, cc, c->layout == BMMX_SHARED_B_BIAS ? bias : NULL);
    check_sampled(&p, got, all ? 0 : SAMPLES, all ? 0 : EDGE_ROWS, &macs);
    t2 = now_s();
    for (e = 0; e < sz.c; ++e) /* the untouched-elements scan's byte compare */
      scanned += memcmp(cc + e * (int64_t)es, got + e * (int64_t)es, es) != 0;
    t_scan += now_s() - t2;
    t_fill += t1 - t0, t_check += t2 - t1, total_macs += macs;
    printf("%-22s %-3s %8lld %9.3f %9.3f %9.3f %12.4g\n", c->name, bmm_dtype_name(c->dtype),
           (long long)c->batch, t1 - t0, t2 - t1, now_s() - t2, macs + 0 * scanned);
    fflush(stdout);
    free(a), free(b), free(cc), free(got), free(bias);
  }
  printf("total: fill %.2f s, check %.2f s, scan %.2f s, reference %.4g multiply-adds\n", t_fill,
         t_check, t_scan, total_macs);
  return 0;
}
