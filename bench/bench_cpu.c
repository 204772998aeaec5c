/* bench/bench_cpu.c - the CPU mode of the benchmark suite, and a self-check.

   bench_cpu [suite.csv]        every suite row (batch scaled to fit memory):
                                AUTO and every CPU strategy that claims it,
                                CSV on stdout, a table on stderr
   bench_cpu --roofline         prints `copy_GBps peak_f32 peak_f64` (for peers_cpu.py)
   bench_cpu --check            every strategy x dtype x case layout on random
                                problems (alpha/beta/bias, k = 0, m/n/k = 1)
                                vs bmm_reference, and 1- vs 2-thread bits
   Options: --mb N (bytes per row, default 256 MB), --only NAME (rows whose name
   starts with NAME), --reps N (minimum timed runs, default 5), --auto (AUTO
   only, not every strategy: a quicker run to compare builds or peers).

   Roofline per row: max(bytes / bandwidth for the row's read/write mix,
   flops / FMA peak), both measured here first with the threads the kernels
   get: the bandwidth by bench/cpu_roofline.h's probe (several read streams,
   streaming stores, a grid of read shares; the demo uses the same), the FMA
   peak as independent vector FMA chains (bench/cpu_roofline.h, bmmx_fma_peak_f32). pct_roofline is
   that floor over the measured time; the row's calls and its probe's passes
   alternate, and both are medians (bmmx_roof_time). A row of at most 4x the
   last-level cache may stay in cache between calls: its percentage is
   flagged `cached` (CSV column cached = 1) and is not a claim against the
   DRAM floor. --roofline still prints the memcpy copy figure peers_cpu.py
   reads. */
#define _POSIX_C_SOURCE 200809L
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "bench/cpu_roofline.h"

#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* GB/s of memcpy over `bmmx_max_threads()` threads, each copying its own slice. */
static double bench_copy_bw(size_t bytes) {
  char *src = (char *)malloc(bytes), *dst = (char *)malloc(bytes);
  double t[7];
  int r;
  if (!src || !dst) return 0;
  memset(src, 1, bytes);
  memset(dst, 2, bytes);
  for (r = 0; r < 7; ++r) {
    double t0 = bmmx_now_s();
#ifdef _OPENMP
#pragma omp parallel
    {
      size_t nt = (size_t)omp_get_num_threads(), i = (size_t)omp_get_thread_num();
      size_t lo = bytes / nt * i, hi = i + 1 == nt ? bytes : bytes / nt * (i + 1);
      memcpy(dst + lo, src + lo, hi - lo);
    }
#else
    memcpy(dst, src, bytes);
#endif
    t[r] = bmmx_now_s() - t0;
  }
  free(src), free(dst);
  return 2.0 * (double)bytes / bmmx_median(t, 7) / 1e9;
}

/* GB/s of a read-only pass over src[0, words) (every word 1), each thread reading its slice as
   `streams` interleaved sub-slices (64-byte steps). Not a roofline: it shows
   how much of the copy bandwidth one sequential stream per core can pull, and
   that more streams in flight per core get more (see cpu_small's streams). */
static double bench_read_bw(const uint64_t *src, size_t words, int streams) {
  uint64_t sum = 0, got = 0;
  double t[7];
  int r;
  for (r = 0; r < 7; ++r) {
    double t0 = bmmx_now_s();
#ifdef _OPENMP
#pragma omp parallel reduction(+ : sum, got)
#endif
    {
      size_t nt = 1, id = 0, len, c, q, w;
#ifdef _OPENMP
      nt = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
#endif
      len = words / nt / (size_t)streams / 8 * 8;
      got += len * (size_t)streams;
      for (c = 0; c < len; c += 8)
        for (q = 0; q < (size_t)streams; ++q) {
          const uint64_t *p = src + words / nt * id + q * len + c;
          for (w = 0; w < 8; ++w)
            sum += p[w];
        }
    }
    t[r] = bmmx_now_s() - t0;
  }
  /* every word is 1, so the sum counts the words read (and keeps the reads) */
  return sum == got ? (double)got / 7.0 * 8.0 / bmmx_median(t, 7) / 1e9 : 0.0;
}

/* ---- the self-check ----------------------------------------------------- */

static int check_failed, check_passed;

/* Run case `cs` with every CPU strategy that claims it (and AUTO), under the
   given alpha/beta/bias, and compare with the reference. */
static void check_case(const bmmx_case *cs, double alpha, double beta, int with_bias,
                       uint64_t *seed) {
  bmmx_sizes_t sz = bmmx_sizes(cs);
  size_t es = bmm_dtype_size(cs->dtype);
  void *a = bmmx_xmalloc(sz.a, es, "bench_cpu"), *b = bmmx_xmalloc(sz.b, es, "bench_cpu"),
       *c0 = bmmx_xmalloc(sz.c, es, "bench_cpu");
  void *c = bmmx_xmalloc(sz.c, es, "bench_cpu"), *c1 = bmmx_xmalloc(sz.c, es, "bench_cpu"),
       *bias = bmmx_xmalloc(cs->n, es, "bench_cpu");
  int s;
  bmmx_fill(cs->dtype, a, sz.a, seed);
  bmmx_fill(cs->dtype, b, sz.b, seed);
  bmmx_fill(cs->dtype, bias, cs->n, seed);
  if (beta == 0)
    bmmx_poison(cs->dtype, c0, sz.c);
  else
    bmmx_fill(cs->dtype, c0, sz.c, seed);
  for (s = 0; s <= BMM_CPU_BATCH_SIMD; ++s) {
    bmm_problem p =
        bmmx_problem(cs, a, b, c, with_bias || cs->layout == BMMX_SHARED_B_BIAS ? bias : NULL);
    bmm_plan pl;
    bmm_status st;
    double worst;
    if (s != BMM_STRATEGY_AUTO && bmm_strategy_backend((bmm_strategy)s) != BMM_BACKEND_CPU)
      continue;
    p.alpha = alpha, p.beta = beta, p.strategy = (bmm_strategy)s;
    if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &pl) != BMM_OK) continue; /* not claimed */
    memcpy(c, c0, (size_t)sz.c * es);
    st = bmm_cpu(&p);
    p.c.ptr = c0;
    worst = st == BMM_OK ? bmmx_check(&p, c, 0) : INFINITY;
#ifdef _OPENMP
    if (worst <= 1) { /* same bits with one thread */
      p.c.ptr = c1;
      memcpy(c1, c0, (size_t)sz.c * es);
      omp_set_num_threads(1);
      st = bmm_cpu(&p);
      omp_set_num_threads(2);
      if (st != BMM_OK || memcmp(c, c1, (size_t)sz.c * es) != 0) worst = -1;
    }
#endif
    if (worst <= 1 && worst >= 0) {
      ++check_passed;
    } else {
      ++check_failed;
      if (check_failed < 30)
        fprintf(stderr,
                "FAIL %s %s m=%lld n=%lld k=%lld batch=%lld %s alpha=%g beta=%g bias=%d: %s\n",
                bmm_strategy_name((bmm_strategy)s), bmm_dtype_name(cs->dtype), (long long)cs->m,
                (long long)cs->n, (long long)cs->k, (long long)cs->batch,
                bmmx_layout_name(cs->layout), alpha, beta, with_bias,
                worst < 0 ? "bits differ between 1 and 2 threads" : "wrong result");
    }
  }
  free(a), free(b), free(c0), free(c), free(c1), free(bias);
}

static int self_check(void) {
  static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 25, 33, 50, 70};
  static const int64_t batches[] = {1, 2, 7, 300, 1001};
  const int ns = (int)(sizeof sizes / sizeof *sizes);
  uint64_t seed = 12345;
  int dt, lay, it;
  for (dt = 1; dt < BMM_DTYPE_COUNT; ++dt)
    for (lay = 0; lay < BMMX_LAYOUT_COUNT; ++lay)
      for (it = 0; it < 120; ++it) {
        bmmx_case cs;
        int64_t big;
        memset(&cs, 0, sizeof cs);
        cs.dtype = (bmm_dtype)dt;
        cs.layout = lay;
        /* the micro-kernel shapes first, then random ones */
        if (it < 40) {
          cs.m = it < 16 ? 1 + it % 4 : 2 + (it - 16) % 15;
          cs.n = it < 16 ? (it < 8 ? 1 : cs.m) : cs.m;
          cs.k = it < 16 ? 5 * (1 + it % 10) : cs.m;
        } else {
          cs.m = sizes[bmmx_rand(&seed) % ns];
          cs.n = sizes[bmmx_rand(&seed) % ns];
          cs.k = it % 17 == 0 ? 0 : sizes[bmmx_rand(&seed) % ns];
        }
        if (it == 41) cs.m = 130, cs.n = 300, cs.k = 270; /* several blocked tiles */
        big = cs.m * cs.n + cs.m * cs.k + cs.k * cs.n;
        cs.batch = batches[bmmx_rand(&seed) % 5];
        while (cs.batch > 1 && cs.batch * big > 400000)
          cs.batch /= 3;
        if (cs.layout == BMMX_BATCH_INNER && it % 3 == 0) cs.batch = 517; /* ragged chunks */
        check_case(&cs, 1.0, 0.0, 0, &seed);
        if (it % 3 == 0) check_case(&cs, -0.75, 0.5, 1, &seed);
        if (it % 7 == 0) check_case(&cs, 0.0, 1.25, 1, &seed);
      }
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed != 0;
}

/* ---- the suite ---------------------------------------------------------- */

typedef struct bench_result {
  double ms, gbps, gflops, pct;
  int ok, cached;
} bench_result;

static bench_result run_one(bmm_problem *p, const bmmx_case *cs, void *c, int64_t c_elems,
                            int min_reps, bmmx_roofline *roof, double peak) {
  bench_result r = {0, 0, 0, 0, 0, 0};
  double t0, warm, sec, bytes = bmmx_min_bytes(cs, 0), flops = bmmx_flops(cs), floor_s;
  int reps;
  bmm_problem chk = *p;
  bmmx_poison(cs->dtype, c, c_elems);
  t0 = bmmx_now_s();
  if (bmm_cpu(p) != BMM_OK) return r;
  warm = bmmx_now_s() - t0;
  if (warm > 3.0) return r; /* reported as skipped: too slow to time */
  if (bmmx_check(&chk, c, 97) > 1) {
    r.ok = -1;
    return r;
  }
  reps = min_reps;
  while (reps < 60 && warm * reps < 0.3)
    ++reps;
  r.cached = bmmx_roof_cached(roof, bytes);
  /* a row beyond the caches alternates each call with two passes of its
     floor's probe (bmmx_roof_time), 256 MiB or more each: 9 calls */
  if (!r.cached && reps > 9) reps = min_reps > 9 ? min_reps : 9;
  bmmx_roof_time(roof, cs, bmmx_roof_call_cpu, p, reps, &sec);
  r.ms = sec * 1e3;
  r.gbps = bytes / sec / 1e9;
  r.gflops = flops / sec / 1e9;
  floor_s = bmmx_roof_seconds(roof, cs, 0);
  if (flops / (peak * 1e9) > floor_s) floor_s = flops / (peak * 1e9);
  r.pct = 100.0 * floor_s / (r.ms * 1e-3);
  r.ok = 1;
  return r;
}

int main(int argc, char **argv) {
  const char *suite = "bench/suite.csv", *only = NULL;
  double mb = 256, bw, peak[BMM_DTYPE_COUNT] = {0};
  bmmx_roofline roof;
  int min_reps = 5, i, n, failed = 0, roofline_only = 0, auto_only = 0;
  static bmmx_case cases[512];
  char err[256];
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--check") == 0) return self_check();
    if (strcmp(argv[i], "--roofline") == 0) {
      roofline_only = 1;
      continue;
    }
    if (strcmp(argv[i], "--auto") == 0)
      auto_only = 1;
    else if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
      mb = atof(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      min_reps = atoi(argv[++i]);
    else
      suite = argv[i];
  }
  if (min_reps < 1) min_reps = 1;
  if (min_reps > 40) min_reps = 40;
  n = roofline_only ? 0 : bmmx_suite_load(suite, cases, 512, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "bench_cpu: %s\n", err);
    return 2;
  }
  bw = bench_copy_bw((size_t)256 << 20);
  /* each dtype at the peak of its accumulation type (BMM_DTYPES' ACC column):
     f16 and bf16 compute in f32 (bmm_cpu.h, "converted dtypes"), complex
     counts real operations (bmmx_flops) at the peak of its part */
  {
    const double p32 = bmmx_fma_peak_f32(), p64 = bmmx_fma_peak_f64();
    for (i = 0; i < BMM_DTYPE_COUNT; ++i)
      peak[i] = bmmx_acc_f64((bmm_dtype)i) ? p64 : p32;
  }
  if (roofline_only) {
    printf("%.3f %.3f %.3f\n", bw, peak[BMM_F32], peak[BMM_F64]);
    return 0;
  }
  if (!bmmx_roofline_measure(&roof)) {
    fprintf(stderr, "bench_cpu: out of memory for the roofline probe\n");
    return 2;
  }
  fprintf(stderr,
          "bench_cpu: %d thread%s, copy bandwidth %.1f GB/s (memcpy 256 MB, read+write), FMA "
          "peak f32 %.0f f64 %.0f GFLOP/s (measured), rows scaled to <= %.0f MB\n",
          bmmx_max_threads(), bmmx_max_threads() == 1 ? "" : "s", bw, peak[BMM_F32], peak[BMM_F64],
          mb);
  fprintf(stderr, "bench_cpu: ");
  bmmx_roof_print(stderr, &roof);
  fprintf(stderr,
          "bench_cpu: %%roof = floor / time, floor = max(bytes / GB/s at the row's read "
          "share, flops / FMA peak); 'cached' = row <= 4x LLC (%.0f MiB), may be served "
          "from cache\n",
          4 * roof.llc_bytes / 1048576);
  {
    const size_t words = (size_t)32 << 20; /* 256 MB */
    uint64_t *src = (uint64_t *)malloc(words * 8);
    size_t i;
    for (i = 0; src && i < words; ++i)
      src[i] = 1;
    if (src)
      fprintf(stderr, "bench_cpu: read-only pass %.1f GB/s as one stream per thread, %.1f as 4\n",
              bench_read_bw(src, words, 1), bench_read_bw(src, words, 4));
    free(src);
  }
  fprintf(stderr, "%-22s %-4s %8s %-14s %-15s %9s %7s %8s %6s\n", "name", "dt", "batch", "m,n,k",
          "strategy", "ms", "GB/s", "GFLOP/s", "%roof");
  printf("name,dtype,batch,m,n,k,layout,strategy,ms,gbps,gflops,pct_roofline,cached\n");
  for (i = 0; i < n; ++i) {
    bmmx_case cs = cases[i];
    bmmx_sizes_t sz;
    size_t es = bmm_dtype_size(cs.dtype);
    double bytes = bmmx_min_bytes(&cs, 0);
    void *a, *b, *c, *bias;
    uint64_t seed = 777 + (uint64_t)i;
    int s;
    char shape[40];
    if (only && strncmp(cs.name, only, strlen(only)) != 0) continue;
    if (bytes > mb * 1048576.0) {
      int64_t nb = (int64_t)((double)cs.batch * (mb * 1048576.0 / bytes));
      fprintf(stderr, "%s %s: batch %lld -> %lld to fit %.0f MB\n", cs.name,
              bmm_dtype_name(cs.dtype), (long long)cs.batch, (long long)(nb > 0 ? nb : 1), mb);
      cs.batch = nb > 0 ? nb : 1;
    }
    sz = bmmx_sizes(&cs);
    a = bmmx_xmalloc(sz.a, es, "bench_cpu"), b = bmmx_xmalloc(sz.b, es, "bench_cpu"),
    c = bmmx_xmalloc(sz.c, es, "bench_cpu");
    bias = bmmx_xmalloc(cs.n, es, "bench_cpu");
    bmmx_fill(cs.dtype, a, sz.a, &seed);
    bmmx_fill(cs.dtype, b, sz.b, &seed);
    bmmx_fill(cs.dtype, bias, cs.n, &seed);
    snprintf(shape, sizeof shape, "%lld,%lld,%lld", (long long)cs.m, (long long)cs.n,
             (long long)cs.k);
    for (s = 0; s <= (auto_only ? 0 : BMM_CPU_BATCH_SIMD); ++s) {
      bmm_problem p = bmmx_problem(&cs, a, b, c, bias);
      bmm_plan pl;
      bench_result r;
      const char *sname = bmm_strategy_name((bmm_strategy)s);
      p.strategy = (bmm_strategy)s;
      if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &pl) != BMM_OK) continue;
      if (s == BMM_CPU_REF && bmmx_flops(&cs) > 2e9) { /* about 1 GFLOP/s: minutes */
        fprintf(stderr, "%-22s %-4s %8lld %-14s %-15s skipped (> 2 GFLOP for plain loops)\n",
                cs.name, bmm_dtype_name(cs.dtype), (long long)cs.batch, shape, sname);
        continue;
      }
      r = run_one(&p, &cs, c, sz.c, min_reps, &roof, peak[cs.dtype]);
      if (r.ok == 0) {
        fprintf(stderr, "%-22s %-4s %8lld %-14s %-15s skipped (one run > 3 s)\n", cs.name,
                bmm_dtype_name(cs.dtype), (long long)cs.batch, shape, sname);
        continue;
      }
      if (r.ok < 0) {
        fprintf(stderr, "%-22s %-4s %8lld %-14s %-15s WRONG RESULT\n", cs.name,
                bmm_dtype_name(cs.dtype), (long long)cs.batch, shape, sname);
        failed = 1;
        continue;
      }
      if (s == BMM_STRATEGY_AUTO) sname = bmm_strategy_name(pl.strategy);
      fprintf(stderr, "%-22s %-4s %8lld %-14s %-4s%-11s %9.3f %7.1f %8.1f %6.1f%s\n", cs.name,
              bmm_dtype_name(cs.dtype), (long long)cs.batch, shape, s ? "" : "A:", sname, r.ms,
              r.gbps, r.gflops, r.pct, r.cached ? " cached" : "");
      printf("%s,%s,%lld,%lld,%lld,%lld,%s,%s,%.4f,%.2f,%.2f,%.1f,%d\n", cs.name,
             bmm_dtype_name(cs.dtype), (long long)cs.batch, (long long)cs.m, (long long)cs.n,
             (long long)cs.k, bmmx_layout_name(cs.layout), bmm_strategy_name((bmm_strategy)s), r.ms,
             r.gbps, r.gflops, r.pct, r.cached);
      fflush(stdout);
    }
    free(a), free(b), free(c), free(bias);
  }
  fprintf(stderr, "bench_cpu: best of every probe, ");
  bmmx_roof_print_best(stderr, &roof);
  bmmx_roofline_release(&roof);
  return failed;
}
