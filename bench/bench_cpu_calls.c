/* bench/bench_cpu_calls.c - what one small call costs: bmm_cpu per matrix, a
   plan run per matrix, LIBXSMM's kernel per matrix (README, "Many small
   calls").

   bench_cpu_calls [--reps N] [--count N]

   For each shape (f32 and f64: 2x2x2, 3x3x3, 4x4x4, 8x8x8, 16x16x16,
   32x32x32 and the seed's 3x1x25), `count` matrices (default 512, in cache:
   at most 3 MB) are multiplied one call each, on one thread, in three ways:
   - call: a batch-1 problem made and passed to bmm_cpu for every matrix,
     the loop a user writes first;
   - plan: one bmm_plan_problem before the loop (not timed), then
     bmm_plan_rebind + bmm_cpu_run_plan for every matrix;
   - xsmm (when built with LIBXSMM, found by pkg-config): the kernel
     libxsmm_?mmdispatch generated for the shape (dispatched once, not
     timed), called for every matrix: what LIBXSMM's users do.
   The three loops alternate (call, plan, xsmm, then the other way round)
   --reps times (default 15); each figure is the median time per matrix in
   ns. call and plan must leave C with the same bits, and every way is
   checked against the long-double reference before timing; exit status 1
   when a result is wrong. Prints a table on stderr, CSV on stdout. */
#define _POSIX_C_SOURCE 200809L
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "bench/cpu_roofline.h"
#ifdef BMMX_WITH_XSMM
#include <libxsmm.h>
#include "bench/xsmm_dispatch.h"
#define CALLS_PEER "; LIBXSMM " LIBXSMM_VERSION
#else
#define CALLS_PEER " (built without LIBXSMM: pkg-config found no libxsmm)"
#endif

#define CALLS_MAX_REPS 63

typedef struct calls_row {
  bmm_dtype dtype;
  int64_t m, n, k;
} calls_row;

typedef struct calls_data {
  const calls_row *row;
  int64_t count, sa, sb, sc; /* matrices; elements apart */
  size_t es;
  char *a, *b, *c;
  bmm_plan plan;
#ifdef BMMX_WITH_XSMM
  libxsmm_smmfunction fs;
  libxsmm_dmmfunction fd;
#endif
} calls_data;

/* way 0: bmm_cpu per matrix; 1: a plan rebound per matrix; 2: LIBXSMM */
static int calls_loop(calls_data *d, int way) {
  const calls_row *r = d->row;
  int64_t i;
  int bad = 0;
  for (i = 0; i < d->count; ++i) {
    const char *a = d->a + (size_t)(i * d->sa) * d->es, *b = d->b + (size_t)(i * d->sb) * d->es;
    char *c = d->c + (size_t)(i * d->sc) * d->es;
    if (way == 0) {
      bmm_problem p = bmm_problem_rowmajor(r->dtype, 1, r->m, r->n, r->k, a, b, c);
      bad |= bmm_cpu(&p) != BMM_OK;
    } else if (way == 1) {
      bad |= bmm_plan_rebind(&d->plan, a, b, c, NULL) != BMM_OK;
      bad |= bmm_cpu_run_plan(&d->plan) != BMM_OK;
    } else {
#ifdef BMMX_WITH_XSMM
      /* column-major: row-major C = A*B is C^T = B^T A^T */
      if (r->dtype == BMM_F64)
        d->fd((const double *)b, (const double *)a, (double *)c);
      else
        d->fs((const float *)b, (const float *)a, (float *)c);
#endif
    }
  }
  return bad;
}

/* C of all `count` matrices against the reference */
static double calls_check(const calls_data *d) {
  bmm_problem p = bmm_problem_rowmajor(d->row->dtype, d->count, d->row->m, d->row->n, d->row->k,
                                       d->a, d->b, d->c);
  return bmmx_check(&p, d->c, d->count < 97 ? d->count : 97);
}

int main(int argc, char **argv) {
  static const calls_row rows[] = {
      {BMM_F32, 2, 2, 2},    {BMM_F32, 3, 3, 3},    {BMM_F32, 4, 4, 4},  {BMM_F32, 8, 8, 8},
      {BMM_F32, 16, 16, 16}, {BMM_F32, 32, 32, 32}, {BMM_F32, 3, 1, 25}, {BMM_F64, 2, 2, 2},
      {BMM_F64, 3, 3, 3},    {BMM_F64, 4, 4, 4},    {BMM_F64, 8, 8, 8},  {BMM_F64, 16, 16, 16},
      {BMM_F64, 32, 32, 32}, {BMM_F64, 3, 1, 25}};
  int reps = 15, ways = 2, i, r, wrong = 0;
  int64_t count = 512;
  uint64_t seed = 11;
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc)
      count = atoll(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_cpu_calls [--reps N] [--count N]\n");
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  if (reps > CALLS_MAX_REPS) reps = CALLS_MAX_REPS;
  if (count < 1) count = 1;
#ifdef BMMX_WITH_XSMM
  libxsmm_init();
  ways = 3;
#endif
  bmmx_set_threads(1);
  fprintf(stderr,
          "bench_cpu_calls: bmm %s, one call per matrix, %lld matrices a loop, 1 thread, median "
          "of %d alternated loops; ns per matrix%s\n",
          BMM_VERSION, (long long)count, reps, CALLS_PEER);
  fprintf(stderr, "%-4s %-10s %9s %9s %9s %10s %10s\n", "dt", "m,n,k", "call ns", "plan ns",
          "xsmm ns", "plan/call", "plan/xsmm");
  printf("dtype,m,n,k,count,call_ns,plan_ns,xsmm_ns,plan_over_call,plan_over_xsmm\n");
  for (r = 0; r < (int)(sizeof rows / sizeof rows[0]); ++r) {
    calls_data d;
    double t[3][CALLS_MAX_REPS], med[3] = {0, 0, 0}, worst;
    char *c0;
    bmm_problem p;
    int w, ok = 1;
    memset(&d, 0, sizeof d);
    d.row = &rows[r], d.count = count, d.es = bmm_dtype_size(rows[r].dtype);
    d.sa = rows[r].m * rows[r].k, d.sb = rows[r].k * rows[r].n, d.sc = rows[r].m * rows[r].n;
    d.a = (char *)bmmx_xmalloc(count * d.sa, d.es, "bench_cpu_calls");
    d.b = (char *)bmmx_xmalloc(count * d.sb, d.es, "bench_cpu_calls");
    d.c = (char *)bmmx_xmalloc(count * d.sc, d.es, "bench_cpu_calls");
    c0 = (char *)bmmx_xmalloc(count * d.sc, d.es, "bench_cpu_calls");
    bmmx_fill(rows[r].dtype, d.a, count * d.sa, &seed);
    bmmx_fill(rows[r].dtype, d.b, count * d.sb, &seed);
    p = bmm_problem_rowmajor(rows[r].dtype, 1, rows[r].m, rows[r].n, rows[r].k, d.a, d.b, d.c);
    if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &d.plan) != BMM_OK) {
      fprintf(stderr, "plan: %s\n", bmm_last_error());
      return 1;
    }
#ifdef BMMX_WITH_XSMM
    if (!bmmx_xsmm_dispatch(rows[r].dtype, rows[r].m, rows[r].n, rows[r].k, 0, &d.fs, &d.fd)) {
      fprintf(stderr, "LIBXSMM dispatch failed for %lldx%lldx%lld\n", (long long)rows[r].m,
              (long long)rows[r].n, (long long)rows[r].k);
      return 1;
    }
#endif
    /* every way checked; call and plan bit for bit */
    for (w = 0; w < ways; ++w) {
      bmmx_fill(rows[r].dtype, d.c, count * d.sc, &seed); /* no stale result passes */
      ok &= !calls_loop(&d, w);
      worst = calls_check(&d);
      if (worst > 1.0) {
        fprintf(stderr, "%s %lldx%lldx%lld: way %d wrong (worst |err|/bound %g)\n",
                bmm_dtype_name(rows[r].dtype), (long long)rows[r].m, (long long)rows[r].n,
                (long long)rows[r].k, w, worst);
        ok = 0;
      }
      if (w == 0) memcpy(c0, d.c, (size_t)(count * d.sc) * d.es);
      if (w == 1 && memcmp(c0, d.c, (size_t)(count * d.sc) * d.es) != 0) {
        fprintf(stderr, "%s %lldx%lldx%lld: the plan's bits differ from bmm_cpu's\n",
                bmm_dtype_name(rows[r].dtype), (long long)rows[r].m, (long long)rows[r].n,
                (long long)rows[r].k);
        ok = 0;
      }
    }
    wrong |= !ok;
    for (i = 0; i < reps; ++i)
      for (w = 0; w < ways; ++w) {
        const int way = i % 2 ? ways - 1 - w : w; /* ABC, CBA */
        const double t0 = bmmx_now_s();
        calls_loop(&d, way);
        t[way][i] = (bmmx_now_s() - t0) / (double)count * 1e9;
      }
    for (w = 0; w < ways; ++w)
      med[w] = bmmx_median(t[w], reps);
    fprintf(stderr, "%-4s %3lld,%lld,%-4lld %9.1f %9.1f ", bmm_dtype_name(rows[r].dtype),
            (long long)rows[r].m, (long long)rows[r].n, (long long)rows[r].k, med[0], med[1]);
    if (ways == 3)
      fprintf(stderr, "%9.1f %10.2f %10.2f%s\n", med[2], med[1] / med[0], med[1] / med[2],
              ok ? "" : "  WRONG");
    else
      fprintf(stderr, "%9s %10.2f %10s%s\n", "n/a", med[1] / med[0], "n/a", ok ? "" : "  WRONG");
    printf("%s,%lld,%lld,%lld,%lld,%.1f,%.1f,", bmm_dtype_name(rows[r].dtype), (long long)rows[r].m,
           (long long)rows[r].n, (long long)rows[r].k, (long long)count, med[0], med[1]);
    if (ways == 3)
      printf("%.1f,%.3f,%.3f\n", med[2], med[1] / med[0], med[1] / med[2]);
    else
      printf(",%.3f,\n", med[1] / med[0]);
    free(d.a), free(d.b), free(d.c), free(c0);
  }
#ifdef BMMX_WITH_XSMM
  libxsmm_finalize();
#endif
  return wrong;
}
