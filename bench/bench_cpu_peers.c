/* bench/bench_cpu_peers.c - bmm against LIBXSMM in the same process (issue 25).

   bench_cpu_peers [suite.csv] [--only NAME] [--reps N] [--cache-mb X] [--dram-mb Y]

   For every suite row LIBXSMM can express (rowmajor, shared_b_bias; the other
   layouts print n/a), in two regimes, in cache (--cache-mb, default 2 MB of
   A + B + C: the batch is scaled to it) and out of cache (--dram-mb, default
   8x the last-level cache from sysfs), at 1 thread and at all threads:
   - bmm: bmm_cpu(AUTO) with omp_set_num_threads(t);
   - LIBXSMM 1.17: the kernel libxsmm_?mmdispatch generates for the shape,
     dispatched once per row (not timed), called per batch entry under
     `omp parallel for schedule(static)` (t threads), in its two documented
     forms: no prefetch (a, b, c) and LIBXSMM_PREFETCH_AUTO with the next
     entry's operands (a, b, c, pa, pb, pc). The faster form of the row counts.
     LIBXSMM is column-major: row-major C = A*B is C^T = B^T * A^T, so the
     kernel is (M, N, K) = (n, m, k) called as (B, A, C) with tight leading
     dimensions. A bias (x@w+b) is added per entry right after the kernel,
     while that entry's C is in cache (LIBXSMM 1.17 has no bias epilogue).
   Each result is checked against the long-double reference (97 sampled
   entries) before timing. Timed calls alternate (bmm, LIBXSMM, LIBXSMM-pf,
   then the other way round) --reps times (default 9); each figure is a
   median. Small calls repeat inside one timed sample until it lasts about
   2 ms.
   Prints (table on stderr, CSV on stdout) bmm / LIBXSMM time per row (the
   ratio of the medians), the spread of that ratio (the median of the
   per-sample ratios against the faster form and its ~95% interval,
   bmmx_median_interval) and a verdict: `faster` or `slower` where the
   interval lies wholly below or above 1, `tie` where it holds 1: the
   machine's noise, not a difference this run can tell. Each side's time
   against the row's floor, the longer of two (bench/cpu_roofline.h, both
   measured with the row's threads): its FLOPs at the FMA peak (the best of
   a probe run after each of the row's samples; `F`) and, out of cache, its minimal bytes at the
   bandwidth this machine sustains for its mix of reads and writes (`M`; probed between the row's
   samples, as bench_cpu does: a shared VM's bandwidth moves within minutes). In cache only the FMA
   floor is known (no cache-bandwidth probe), a loose one for memory-bound shapes. And the row's
   bound: the floor (or bmm's time where it beat the floor) over LIBXSMM's, the ratio a code at 100%
   of the floor would reach. Two codes at 99% of the floor have nothing left between them, and where
   LIBXSMM is at 90% no code can do better than 0.9 against it. Then per
   regime x threads: the geometric mean of the ratio and of the bound (what
   the target can be held to on this machine), the worst row, how many rows
   are over 1 and of those how many the interval calls slower. Exit status 1
   when a result is wrong.

   Build: `ninja build/bench_cpu_peers` (finds LIBXSMM through pkg-config,
   else builds a stub that says how to install it); `ninja bench-cpu-xsmm`
   installs libxsmm-dev where it can and runs the suite. */
#define _POSIX_C_SOURCE 200809L
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "bench/cpu_roofline.h"

#include <libxsmm.h>
#include "bench/xsmm_dispatch.h"
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define PEER_MAX_REPS 41

/* Worst |err|/bound of C over 97 sampled entries; past 64^3 multiply-adds
   an entry, of each sampled entry's first and last 4 rows only (where a
   tile or block border goes wrong first): whole 1024^3 entries in long
   double took minutes a check. */
static double peer_check(const bmm_problem *p, const void *c) {
  const int64_t nb = p->batch_dims ? p->batch[0] : 1, samples = nb < 97 ? nb : 97;
  if ((double)p->m * (double)p->n * (double)p->k <= 64.0 * 64 * 64)
    return bmmx_check(p, c, samples);
  return bmmx_check_edges(p, c, samples, 4);
}

/* One row's LIBXSMM call: kernel per entry (two forms), bias after. */
typedef struct peer_xsmm {
  libxsmm_dmmfunction d[2]; /* [0] no prefetch, [1] LIBXSMM_PREFETCH_AUTO */
  libxsmm_smmfunction s[2];
  const void *a, *b, *bias;
  void *c;
  int64_t batch, m, n, k, a_stride, b_stride, c_stride; /* elements */
  bmm_dtype dtype;
} peer_xsmm;

static int peer_dispatch(peer_xsmm *x) {
  int i;
  for (i = 0; i < 2; ++i)
    if (!bmmx_xsmm_dispatch(x->dtype, x->m, x->n, x->k, i, &x->s[i], &x->d[i])) return 0;
  return 1;
}

#ifdef _OPENMP
#define PEER_OMP_FOR \
  _Pragma("omp parallel for schedule(static) num_threads(threads) if (threads > 1)")
#else
#define PEER_OMP_FOR
#endif
/* the body for one dtype; `pf` picks the form */
#define PEER_RUN(T, fn)                                                                         \
  {                                                                                             \
    const T *a = (const T *)x->a, *b = (const T *)x->b, *bias = (const T *)x->bias;             \
    T *c = (T *)x->c;                                                                           \
    int64_t e, last = x->batch - 1;                                                             \
    PEER_OMP_FOR for (e = 0; e <= last; ++e) {                                                  \
      const T *ae = a + e * x->a_stride, *be = b + e * x->b_stride;                             \
      T *ce = c + e * x->c_stride;                                                              \
      int64_t nx = e < last ? 1 : 0; /* the last entry "prefetches" itself (doc's advice) */    \
      if (pf)                                                                                   \
        fn[1](be, ae, ce, be + nx * x->b_stride, ae + nx * x->a_stride, ce + nx * x->c_stride); \
      else                                                                                      \
        fn[0](be, ae, ce);                                                                      \
      if (bias) {                                                                               \
        int64_t i, j;                                                                           \
        for (i = 0; i < x->m; ++i)                                                              \
          for (j = 0; j < x->n; ++j)                                                            \
            ce[i * x->n + j] += bias[j];                                                        \
      }                                                                                         \
    }                                                                                           \
  }

static void peer_run(const peer_xsmm *x, int pf, int threads) {
  (void)threads;
  if (x->dtype == BMM_F64)
    PEER_RUN(double, x->d)
  else
    PEER_RUN(float, x->s)
}

/* timed sample: `inner` calls of one of the three */
static double time_sample(int who, const bmm_problem *p, const peer_xsmm *x, int threads,
                          int inner) {
  double t0;
  int i;
  bmmx_set_threads(threads);
  t0 = bmmx_now_s();
  for (i = 0; i < inner; ++i) {
    if (who == 0) {
      bmm_cpu(p);
    } else {
      peer_run(x, who == 2, threads);
    }
  }
  return (bmmx_now_s() - t0) / inner;
}

typedef struct peer_stats {
  double log_sum, log_bound;
  int count, over, slower, faster;
  double worst;
  char worst_row[80];
} peer_stats;

int main(int argc, char **argv) {
  const char *suite = "bench/suite.csv", *only = NULL;
  double cache_mb = 2, dram_mb = 0;
  int reps = 9, i, n, failed = 0, nt_all = bmmx_max_threads(), regime, ti;
  static bmmx_case cases[512];
  peer_stats stats[2][2];
  double peak[2][2], cover; /* [1 thread / all][f32 / f64] */
  bmmx_roofline roof[2];    /* [1 thread / all] */
  char err[256];
  memset(stats, 0, sizeof stats);
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--cache-mb") == 0 && i + 1 < argc)
      cache_mb = atof(argv[++i]);
    else if (strcmp(argv[i], "--dram-mb") == 0 && i + 1 < argc)
      dram_mb = atof(argv[++i]);
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: bench_cpu_peers [suite.csv] [--only NAME] [--reps N] "
                      "[--cache-mb X] [--dram-mb Y]\n");
      return 2;
    } else
      suite = argv[i];
  }
  if (reps < 1) reps = 1;
  if (reps > PEER_MAX_REPS) reps = PEER_MAX_REPS;
  if (dram_mb <= 0) {
    double llc = bmmx_llc_bytes();
    dram_mb = 8 * (llc > 0 ? llc : 32.0 * 1048576) / 1048576;
  }
  n = bmmx_suite_load(suite, cases, 512, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "bench_cpu_peers: %s\n", err);
    return 2;
  }
  libxsmm_init();
  /* the FMA peak of f32 and f64 at 1 and at all threads: what a
     compute-bound row can reach */
  for (ti = 0; ti < 2; ++ti) {
    bmmx_set_threads(ti == 0 ? 1 : nt_all);
    peak[ti][0] = bmmx_fma_peak_f32(), peak[ti][1] = bmmx_fma_peak_f64();
    /* the memory floor's probe, with these threads (~5-35 s each) */
    if (!bmmx_roofline_measure(&roof[ti])) {
      fprintf(stderr, "bench_cpu_peers: out of memory for the bandwidth probe\n");
      return 2;
    }
    if (nt_all == 1) { /* one probe serves both */
      roof[1] = roof[0];
      peak[1][0] = peak[0][0], peak[1][1] = peak[0][1];
      break;
    }
  }
  bmmx_interval_rank(reps, &cover);
  fprintf(
      stderr,
      "bench_cpu_peers: bmm %s vs LIBXSMM %s (target %s), 1 and %d threads, in cache "
      "(%.1f MB) and out of cache (%.0f MB), median of %d alternated samples (ratio "
      "interval %.1f%%); FMA peak GFLOP/s at the start f32 %.0f / %.0f, f64 %.0f / %.0f (1 / %d "
      "threads; each row is held to its own probes' best)\n",
      BMM_VERSION, LIBXSMM_VERSION, libxsmm_get_target_arch(), nt_all, cache_mb, dram_mb, reps,
      100 * cover, peak[0][0], peak[1][0], peak[0][1], peak[1][1], nt_all);
  for (ti = 0; ti < 2 && !(ti == 1 && nt_all == 1); ++ti) /* at the start: rows' probes move it */
    bmmx_roof_print(stderr, &roof[ti]);
  fprintf(stderr, "%-22s %-4s %-6s %3s %9s %-14s %10s %10s %10s %7s %-11s %-7s %10s %6s %7s %5s\n",
          "name", "dt", "regime", "thr", "batch", "m,n,k", "bmm ms", "xsmm ms", "xsmm-pf ms",
          "ratio", "interval", "verdict", "floor ms", "bmm%fl", "xsmm%fl", "bound");
  printf("name,dtype,layout,regime,threads,batch,m,n,k,bmm_ms,xsmm_ms,xsmm_pf_ms,ratio,ratio_lo,"
         "ratio_hi,verdict,bmm_pct_peak,xsmm_pct_peak,floor_ms,floor_by,bmm_pct_floor,"
         "xsmm_pct_floor,bound\n");
  for (i = 0; i < n; ++i) {
    const bmmx_case *row = &cases[i];
    int shared_b = row->layout == BMMX_SHARED_B_BIAS;
    if (only && strncmp(row->name, only, strlen(only)) != 0) continue;
    if (row->dtype != BMM_F32 && row->dtype != BMM_F64) continue; /* LIBXSMM here: f32, f64 */
    if (row->layout != BMMX_ROWMAJOR && !shared_b) {
      fprintf(stderr, "%-22s %-4s n/a: layout %s (LIBXSMM takes rowmajor and shared B)\n",
              row->name, bmm_dtype_name(row->dtype), bmmx_layout_name(row->layout));
      printf("%s,%s,%s,n/a,,,,,,,,,,,,,,,,,,,\n", row->name, bmm_dtype_name(row->dtype),
             bmmx_layout_name(row->layout));
      continue;
    }
    for (regime = 0; regime < 2; ++regime) {
      bmmx_case cs = *row;
      bmmx_sizes_t sz;
      size_t es = bmm_dtype_size(cs.dtype);
      double target = (regime == 0 ? cache_mb : dram_mb) * 1048576.0, per_entry;
      void *a, *b, *c, *bias;
      uint64_t seed = 777 + (uint64_t)i;
      peer_xsmm x;
      bmm_problem p;
      char shape[40];
      int ok = 1;
      cs.batch = 1;
      per_entry = bmmx_min_bytes(&cs, 0);
      cs.batch = (int64_t)(target / per_entry);
      if (cs.batch < 1) cs.batch = 1;
      sz = bmmx_sizes(&cs);
      a = bmmx_xmalloc(sz.a, es, "bench_cpu_peers"), b = bmmx_xmalloc(sz.b, es, "bench_cpu_peers"),
      c = bmmx_xmalloc(sz.c, es, "bench_cpu_peers");
      bias = bmmx_xmalloc(cs.n, es, "bench_cpu_peers");
      bmmx_fill(cs.dtype, a, sz.a, &seed);
      bmmx_fill(cs.dtype, b, sz.b, &seed);
      bmmx_fill(cs.dtype, bias, cs.n, &seed);
      p = bmmx_problem(&cs, a, b, c, shared_b ? bias : NULL);
      memset(&x, 0, sizeof x);
      x.a = a, x.b = b, x.c = c, x.bias = shared_b ? bias : NULL;
      x.batch = cs.batch, x.m = cs.m, x.n = cs.n, x.k = cs.k, x.dtype = cs.dtype;
      x.a_stride = cs.m * cs.k, x.b_stride = shared_b ? 0 : cs.k * cs.n, x.c_stride = cs.m * cs.n;
      snprintf(shape, sizeof shape, "%lld,%lld,%lld", (long long)cs.m, (long long)cs.n,
               (long long)cs.k);
      if (!peer_dispatch(&x)) {
        fprintf(stderr, "%-22s %-4s %-6s n/a: LIBXSMM dispatch returned no kernel\n", cs.name,
                bmm_dtype_name(cs.dtype), regime ? "dram" : "cache");
        ok = 0;
      }
      for (ti = 0; ok && ti < 2; ++ti) {
        int threads = ti == 0 ? 1 : nt_all, who, r, inner = 1;
        double t[3][PEER_MAX_REPS], med[3], ratio, best, worst_err = 0;
        double pr[PEER_MAX_REPS], pmed, lo, hi, pk, fl = bmmx_flops(&cs), floor_s, mem_s, bound;
        double fma_best = 0;
        const char *verdict;
        bmmx_roof_track tr;
        if (ti == 1 && nt_all == 1) break;
        /* check each form once (C poisoned before), which also warms up */
        for (who = 0; who < 3; ++who) {
          double e;
          bmmx_poison(cs.dtype, c, sz.c);
          if (who == 0) {
            bmmx_set_threads(threads);
            if (bmm_cpu(&p) != BMM_OK) {
              fprintf(stderr, "%s: bmm_cpu failed: %s\n", cs.name, bmm_last_error());
              e = INFINITY;
            } else
              e = peer_check(&p, c);
          } else {
            peer_run(&x, who == 2, threads);
            e = peer_check(&p, c);
          }
          if (!(e <= 1) && e > worst_err) worst_err = e;
          if (!(e <= 1))
            fprintf(stderr, "%-22s %-4s WRONG RESULT from %s (worst error %.3g of the bound)\n",
                    cs.name, bmm_dtype_name(cs.dtype), who == 0 ? "bmm" : "LIBXSMM", e);
        }
        if (worst_err != 0) {
          failed = 1;
          continue;
        }
        /* small calls: repeat inside a sample up to ~2 ms (in cache: what
           a caller's loop over a cached working set sees) */
        {
          double one = time_sample(0, &p, &x, threads, 1);
          while (inner < 4096 && one * inner < 2e-3)
            inner *= 2;
        }
        /* the memory floor out of cache only: a 2 MB row's DRAM floor means
           nothing (bmmx_roof_cached) */
        bmmx_roof_track_begin(&roof[ti], &cs, &tr);
        if (regime == 0) tr.probe = 0;
        for (r = 0; r < reps; ++r) { /* ABC, CBA, ...: none always first */
          for (who = 0; who < 3; ++who) {
            const int w = r & 1 ? 2 - who : who;
            t[w][r] = time_sample(w, &p, &x, threads, inner);
          }
          bmmx_roof_track_pass(&roof[ti], &tr); /* time_sample left `threads` set */
          { /* the FMA peak of these seconds, its best: noise only slows it */
            const double g = bmmx_fma_once(cs.dtype);
            if (g > fma_best) fma_best = g;
          }
        }
        for (who = 0; who < 3; ++who)
          med[who] = bmmx_median(t[who], reps);
        who = med[1] < med[2] ? 1 : 2; /* the faster form, by its median */
        best = med[who];
        ratio = med[0] / best;
        for (r = 0; r < reps; ++r)
          pr[r] = t[0][r] / t[who][r];
        bmmx_median_interval(pr, reps, &pmed, &lo, &hi);
        verdict = lo > 1 ? "slower" : hi < 1 ? "faster" : "tie";
        pk = fma_best * 1e9;
        mem_s = tr.probe ? (tr.rd + tr.wr) / (bmmx_roof_track_end(&roof[ti], &tr) * 1e9) : 0;
        floor_s = fl / pk > mem_s ? fl / pk : mem_s;
        /* where a code beat the floor (the probe's shortfall in a noisy
           phase), its time is what the row can reach */
        bound = (floor_s < med[0] ? floor_s : med[0]) / best;
        if (bound > 1) bound = 1;
        {
          peer_stats *st = &stats[regime][ti];
          st->log_sum += log(ratio), ++st->count;
          st->log_bound += log(bound);
          st->over += ratio > 1, st->slower += lo > 1, st->faster += hi < 1;
          if (ratio > st->worst) {
            st->worst = ratio;
            snprintf(st->worst_row, sizeof st->worst_row, "%s %s", cs.name,
                     bmm_dtype_name(cs.dtype));
          }
        }
        fprintf(stderr,
                "%-22s %-4s %-6s %3d %9lld %-14s %10.4f %10.4f %10.4f %7.2f %5.3f-%5.3f %-7s "
                "%8.4f %c %6.1f %7.1f %5.2f\n",
                cs.name, bmm_dtype_name(cs.dtype), regime ? "dram" : "cache", threads,
                (long long)cs.batch, shape, med[0] * 1e3, med[1] * 1e3, med[2] * 1e3, ratio, lo, hi,
                verdict, floor_s * 1e3, floor_s > mem_s ? 'F' : 'M', 100 * floor_s / med[0],
                100 * floor_s / best, bound);
        printf("%s,%s,%s,%s,%d,%lld,%lld,%lld,%lld,%.5f,%.5f,%.5f,%.3f,%.3f,%.3f,%s,%.1f,%.1f,%.5f,"
               "%s,%.1f,%.1f,%.3f\n",
               cs.name, bmm_dtype_name(cs.dtype), bmmx_layout_name(cs.layout),
               regime ? "dram" : "cache", threads, (long long)cs.batch, (long long)cs.m,
               (long long)cs.n, (long long)cs.k, med[0] * 1e3, med[1] * 1e3, med[2] * 1e3, ratio,
               lo, hi, verdict, 100 * fl / med[0] / pk, 100 * fl / best / pk, floor_s * 1e3,
               floor_s > mem_s ? "fma" : "memory", 100 * floor_s / med[0], 100 * floor_s / best,
               bound);
        fflush(stdout);
      }
      free(a), free(b), free(c), free(bias);
    }
  }
  fprintf(stderr, "bmm / LIBXSMM time (the faster LIBXSMM form per row; < 1: bmm faster), and the "
                  "bound (the floor, or a faster time where one beat it, over LIBXSMM's):\n");
  for (regime = 0; regime < 2; ++regime)
    for (ti = 0; ti < 2; ++ti) {
      const peer_stats *st = &stats[regime][ti];
      if (st->count == 0) continue;
      fprintf(stderr,
              "  %-5s %2d thread%s: geomean %.2f (bound %.2f) over %d rows, worst %.2f (%s); %d "
              "over 1, %d slower and %d faster by the interval\n",
              regime ? "dram" : "cache", ti == 0 ? 1 : nt_all, ti == 0 ? " " : "s",
              exp(st->log_sum / st->count), exp(st->log_bound / st->count), st->count, st->worst,
              st->worst_row, st->over, st->slower, st->faster);
    }
  libxsmm_finalize();
  bmmx_roofline_release(&roof[0]);
  if (nt_all > 1) bmmx_roofline_release(&roof[1]);
  return failed;
}
