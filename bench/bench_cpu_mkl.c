/* bench/bench_cpu_mkl.c - bmm against oneMKL's batch-strided GEMM in the same
   process (issue 23: complex64 3x3 and 4x4 batches against the fastest CPU
   peer here; LIBXSMM 1.17 has no complex kernels, bench_cpu_peers.c covers
   its real ones).

   bench_cpu_mkl [--only DTYPE[:MxNxK]] [--reps N] [--cache-mb X] [--dram-mb Y]
                 [--threads T]

   oneMKL is loaded at run time (dlopen), so nothing is needed to build this:
   the library is $BMM_MKL_LIB, else libmkl_rt.so.3 / .so.2 under the repo's
   .venv/lib (where `pip install mkl` puts it; run from the repo root), else
   the loader's search path. When none loads, or it lacks a symbol, the
   harness says so and exits 0 (a skip). MKL reads its own environment:
   MKL_ENABLE_INSTRUCTIONS, MKL_VERBOSE (prints on stdout, into the CSV);
   MKL_THREADING_LAYER (INTEL: its libiomp5, a second OpenMP runtime beside
   bmm's; GNU: the libgomp bmm uses) is applied by the harness, as mkl_rt
   alone keeps GNU once libgomp is loaded.

   Rows: c64 and c128 2x2x2, 3x3x3, 4x4x4, 8x8x8, 3x1x5 (the seed's shape);
   f32 and f64 2x2x2, 4x4x4, 8x8x8, 16x16x16, 3x1x5, 3x1x25. Row-major A, B,
   C with tight strides, alpha 1, beta 0, random data (never zeros). Two
   regimes, in cache (--cache-mb, default 2 MB of A + B + C: the batch is
   scaled to it) and out of cache (--dram-mb, default 8x the last-level
   cache from sysfs), each at 1 thread and at T threads (default all):
   - bmm: bmm_cpu(AUTO) after omp_set_num_threads(t);
   - MKL: cblas_?gemm_batch_strided(CblasRowMajor, NoTrans, NoTrans, ...)
     after MKL_Set_Num_Threads(t), LP64 interface.
   Each result is checked against the long-double reference (bmm_reference)
   before timing: every entry in cache, 4097 spread entries out of cache
   (the reference of 10^7 entries took seconds a check). Timed calls
   alternate (bmm, MKL) --reps times (default 9); each figure is a median.
   Small calls repeat inside one timed sample until it lasts about 2 ms.
   Prints a table on stderr and CSV on stdout: ns per batch entry, bmm / MKL
   time (< 1: bmm faster), GB/s of the minimal traffic (A, B read once, C
   written once), and the geometric mean per regime x threads. Exit status
   1 when a result is wrong.

   Build: `ninja build/bench_cpu_mkl`; `ninja bench-cpu-mkl` also makes
   .venv, pip-installs mkl there when absent and writes
   build/bench/cpu_mkl.csv. */
#define _POSIX_C_SOURCE 200809L
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "bench/cpu_roofline.h"

#include <dlfcn.h>
#include <limits.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MKL_MAX_REPS 41
#define MKL_DRAM_SAMPLES 4097

/* mkl_cblas.h / mkl_service.h of oneMKL 2026.2 (wheel mkl-include), LP64:
   MKL_INT is int, the CBLAS enums are ints (CblasRowMajor = 101,
   CblasNoTrans = 111). Written here so the build needs no MKL. */
enum { MKL_ROW_MAJOR = 101, MKL_NO_TRANS = 111, MKL_INTERFACE_LP64 = 0 };
typedef void (*mkl_sgemm_fn)(int, int, int, int, int, int, float, const float *, int, int,
                             const float *, int, int, float, float *, int, int, int);
typedef void (*mkl_dgemm_fn)(int, int, int, int, int, int, double, const double *, int, int,
                             const double *, int, int, double, double *, int, int, int);
/* c and z: alpha, beta and the matrices by void pointer, (re, im) pairs */
typedef void (*mkl_cgemm_fn)(int, int, int, int, int, int, const void *, const void *, int, int,
                             const void *, int, int, const void *, void *, int, int, int);
typedef void (*mkl_set_int_fn)(int);
typedef int (*mkl_int_int_fn)(int);
typedef void (*mkl_version_fn)(char *, int);

typedef struct mkl_api {
  void *lib;
  char path[512];
  mkl_sgemm_fn sgemm;
  mkl_dgemm_fn dgemm;
  mkl_cgemm_fn cgemm, zgemm;
  mkl_set_int_fn set_num_threads;
} mkl_api;

/* dlsym's object pointer into a function pointer: memcpy, as ISO C has no
   conversion between the two (POSIX guarantees the representation) */
static int mkl_sym(mkl_api *api, const char *name, void *fn, size_t fn_size) {
  void *s = dlsym(api->lib, name);
  if (!s) {
    printf("# SKIP: %s has no %s (an older oneMKL?)\n", api->path, name);
    fprintf(stderr,
            "bench_cpu_mkl: SKIP: %s has no symbol %s; pip install mkl (>= 2021) or "
            "point BMM_MKL_LIB at a newer libmkl_rt\n",
            api->path, name);
    return 0;
  }
  memcpy(fn, &s, fn_size);
  return 1;
}

/* 1: loaded; 0: no MKL (a skip, said why); -1: MKL refused a setting */
static int mkl_load(mkl_api *api, const char *layer) {
  static const char *const defaults[] = {".venv/lib/libmkl_rt.so.3", ".venv/lib/libmkl_rt.so.2",
                                         "libmkl_rt.so.3", "libmkl_rt.so.2"};
  const char *env = getenv("BMM_MKL_LIB");
  char tried[1024] = "";
  size_t i, count = env && *env ? 1 : sizeof defaults / sizeof *defaults;
  void *iface = NULL, *version = NULL;
  memset(api, 0, sizeof *api);
  for (i = 0; i < count && !api->lib; ++i) {
    const char *path = env && *env ? env : defaults[i];
    api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (api->lib)
      snprintf(api->path, sizeof api->path, "%s", path);
    else {
      size_t used = strlen(tried);
      snprintf(tried + used, sizeof tried - used, "\n  %s", dlerror());
    }
  }
  if (!api->lib) {
    printf("# SKIP: oneMKL not loaded\n");
    fprintf(stderr,
            "bench_cpu_mkl: SKIP: oneMKL could not be loaded:%s\n"
            "Set BMM_MKL_LIB to a libmkl_rt.so, or install the PyPI package `mkl` into the "
            "repo's .venv (python3 -m venv .venv && .venv/bin/pip install mkl; `ninja "
            "bench-cpu-mkl` does both) and run from the repo root.\n",
            tried);
    return 0;
  }
  if (!mkl_sym(api, "cblas_sgemm_batch_strided", &api->sgemm, sizeof api->sgemm) ||
      !mkl_sym(api, "cblas_dgemm_batch_strided", &api->dgemm, sizeof api->dgemm) ||
      !mkl_sym(api, "cblas_cgemm_batch_strided", &api->cgemm, sizeof api->cgemm) ||
      !mkl_sym(api, "cblas_zgemm_batch_strided", &api->zgemm, sizeof api->zgemm) ||
      !mkl_sym(api, "MKL_Set_Num_Threads", &api->set_num_threads, sizeof api->set_num_threads))
    return 0;
  /* mkl_rt takes GNU when libgomp is loaded (bmm's), whatever
     MKL_THREADING_LAYER says; the call obeys, so the variable is applied
     here (INTEL, SEQUENTIAL, GNU, TBB), before MKL's first call */
  if (layer && *layer) {
    static const char *const names[] = {"INTEL", "SEQUENTIAL", "PGI", "GNU", "TBB"};
    void *set_layer_sym = dlsym(api->lib, "MKL_Set_Threading_Layer");
    int code = -1, got = -1;
    for (i = 0; i < sizeof names / sizeof *names; ++i)
      if (strcmp(layer, names[i]) == 0) code = (int)i;
    if (set_layer_sym && code >= 0) {
      mkl_int_int_fn set_layer;
      memcpy(&set_layer, &set_layer_sym, sizeof set_layer);
      got = set_layer(code);
    }
    if (got != code || code < 0) {
      fprintf(stderr,
              "bench_cpu_mkl: MKL_THREADING_LAYER=%s: MKL would not take it (INTEL, "
              "SEQUENTIAL, GNU, TBB)\n",
              layer);
      return -1;
    }
  }
  /* the int prototypes above are LP64's: pin it (MKL_INTERFACE_LAYER=ILP64
     in the environment would otherwise read 64-bit integers) */
  iface = dlsym(api->lib, "MKL_Set_Interface_Layer");
  if (iface) {
    mkl_int_int_fn set_iface;
    memcpy(&set_iface, &iface, sizeof set_iface);
    if (set_iface(MKL_INTERFACE_LP64) != MKL_INTERFACE_LP64) {
      fprintf(stderr, "bench_cpu_mkl: MKL would not take the LP64 interface\n");
      return 0;
    }
  }
  version = dlsym(api->lib, "MKL_Get_Version_String");
  if (version) {
    mkl_version_fn get_version;
    char buf[256];
    memcpy(&get_version, &version, sizeof get_version);
    get_version(buf, (int)sizeof buf);
    fprintf(stderr, "bench_cpu_mkl: %s from %s\n", buf, api->path);
  }
  return 1;
}

/* One MKL call over the whole batch: row-major, tight strides, alpha 1, beta 0. */
static void mkl_run(const mkl_api *api, const bmmx_case *cs, const void *a, const void *b,
                    void *c) {
  const int m = (int)cs->m, n = (int)cs->n, k = (int)cs->k, nb = (int)cs->batch;
  switch (cs->dtype) {
  case BMM_F32:
    api->sgemm(MKL_ROW_MAJOR, MKL_NO_TRANS, MKL_NO_TRANS, m, n, k, 1.0f, (const float *)a, k, m * k,
               (const float *)b, n, k * n, 0.0f, (float *)c, n, m * n, nb);
    break;
  case BMM_F64:
    api->dgemm(MKL_ROW_MAJOR, MKL_NO_TRANS, MKL_NO_TRANS, m, n, k, 1.0, (const double *)a, k, m * k,
               (const double *)b, n, k * n, 0.0, (double *)c, n, m * n, nb);
    break;
  case BMM_C64: {
    static const float one[2] = {1, 0}, zero[2] = {0, 0};
    api->cgemm(MKL_ROW_MAJOR, MKL_NO_TRANS, MKL_NO_TRANS, m, n, k, one, a, k, m * k, b, n, k * n,
               zero, c, n, m * n, nb);
    break;
  }
  case BMM_C128: {
    static const double one[2] = {1, 0}, zero[2] = {0, 0};
    api->zgemm(MKL_ROW_MAJOR, MKL_NO_TRANS, MKL_NO_TRANS, m, n, k, one, a, k, m * k, b, n, k * n,
               zero, c, n, m * n, nb);
    break;
  }
  default: break;
  }
}

/* timed sample: `inner` calls of bmm (who 0) or MKL (who 1, into c) at t threads */
static double time_sample(int who, const mkl_api *api, const bmmx_case *cs, const bmm_problem *p,
                          void *c, int threads, int inner) {
  double t0;
  int i;
  if (who == 0)
    bmmx_set_threads(threads);
  else
    api->set_num_threads(threads);
  t0 = bmmx_now_s();
  for (i = 0; i < inner; ++i) {
    if (who == 0)
      bmm_cpu(p);
    else
      mkl_run(api, cs, p->a.ptr, p->b.ptr, c);
  }
  return (bmmx_now_s() - t0) / inner;
}

typedef struct mkl_row {
  bmm_dtype dtype;
  int64_t m, n, k;
} mkl_row;

static const mkl_row mkl_rows[] = {
    {BMM_C64, 2, 2, 2},  {BMM_C64, 3, 3, 3},    {BMM_C64, 4, 4, 4},  {BMM_C64, 8, 8, 8},
    {BMM_C64, 3, 1, 5},  {BMM_C128, 2, 2, 2},   {BMM_C128, 3, 3, 3}, {BMM_C128, 4, 4, 4},
    {BMM_C128, 8, 8, 8}, {BMM_C128, 3, 1, 5},   {BMM_F32, 2, 2, 2},  {BMM_F32, 4, 4, 4},
    {BMM_F32, 8, 8, 8},  {BMM_F32, 16, 16, 16}, {BMM_F32, 3, 1, 5},  {BMM_F32, 3, 1, 25},
    {BMM_F64, 2, 2, 2},  {BMM_F64, 4, 4, 4},    {BMM_F64, 8, 8, 8},  {BMM_F64, 16, 16, 16},
    {BMM_F64, 3, 1, 5},  {BMM_F64, 3, 1, 25},
};

typedef struct mkl_stats {
  double log_sum, log_sum_complex;
  int count, count_complex;
  double worst;
  char worst_row[48];
} mkl_stats;

int main(int argc, char **argv) {
  const char *only = NULL;
  double cache_mb = 2, dram_mb = 0;
  int reps = 9, nt_all = bmmx_max_threads(), failed = 0, regime, ti;
  size_t r;
  mkl_api api;
  mkl_stats stats[2][2];
  memset(stats, 0, sizeof stats);
  for (ti = 1; ti < argc; ++ti) {
    if (strcmp(argv[ti], "--only") == 0 && ti + 1 < argc)
      only = argv[++ti];
    else if (strcmp(argv[ti], "--reps") == 0 && ti + 1 < argc)
      reps = atoi(argv[++ti]);
    else if (strcmp(argv[ti], "--cache-mb") == 0 && ti + 1 < argc)
      cache_mb = atof(argv[++ti]);
    else if (strcmp(argv[ti], "--dram-mb") == 0 && ti + 1 < argc)
      dram_mb = atof(argv[++ti]);
    else if (strcmp(argv[ti], "--threads") == 0 && ti + 1 < argc)
      nt_all = atoi(argv[++ti]);
    else {
      fprintf(stderr, "usage: bench_cpu_mkl [--only DTYPE[:MxNxK]] [--reps N] [--cache-mb X] "
                      "[--dram-mb Y] [--threads T]\n");
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  if (reps > MKL_MAX_REPS) reps = MKL_MAX_REPS;
  if (nt_all < 1) nt_all = 1;
  if (dram_mb <= 0) {
    double llc = bmmx_llc_bytes();
    dram_mb = 8 * (llc > 0 ? llc : 32.0 * 1048576) / 1048576;
  }
  {
    const char *layer = getenv("MKL_THREADING_LAYER");
    const int loaded = mkl_load(&api, layer); /* 0: skip, -1: bad setting */
    if (loaded <= 0) return loaded < 0 ? 2 : 0;
    fprintf(stderr,
            "bench_cpu_mkl: bmm %s vs oneMKL cblas_?gemm_batch_strided (MKL_THREADING_LAYER=%s), "
            "1 and %d threads, in cache (%.1f MB) and out of cache (%.0f MB), median of %d "
            "alternated samples\n",
            BMM_VERSION, layer ? layer : "unset: MKL picks GNU beside libgomp", nt_all, cache_mb,
            dram_mb, reps);
  }
  fprintf(stderr, "%-4s %-8s %-6s %3s %9s %9s %9s %7s %8s %8s\n", "dt", "m,n,k", "regime", "thr",
          "batch", "bmm ns/e", "MKL ns/e", "bmm/MKL", "bmm GB/s", "MKL GB/s");
  printf("dtype,m,n,k,regime,threads,batch,bmm_ns_entry,mkl_ns_entry,ratio,bmm_gbps,mkl_gbps\n");
  for (r = 0; r < sizeof mkl_rows / sizeof *mkl_rows; ++r) {
    const mkl_row *row = &mkl_rows[r];
    char shape[40], label[48];
    snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)row->m, (long long)row->n,
             (long long)row->k);
    snprintf(label, sizeof label, "%s:%s", bmm_dtype_name(row->dtype), shape);
    if (only && strncmp(label, only, strlen(only)) != 0) continue;
    for (regime = 0; regime < 2; ++regime) {
      bmmx_case cs;
      bmmx_sizes_t sz;
      size_t es = bmm_dtype_size(row->dtype);
      double target = (regime == 0 ? cache_mb : dram_mb) * 1048576.0, bytes;
      void *a, *b, *c;
      uint64_t seed = 2300 + (uint64_t)r;
      bmm_problem p;
      memset(&cs, 0, sizeof cs);
      snprintf(cs.name, sizeof cs.name, "%s", shape);
      cs.dtype = row->dtype, cs.m = row->m, cs.n = row->n, cs.k = row->k;
      cs.layout = BMMX_ROWMAJOR, cs.batch = 1;
      cs.batch = (int64_t)(target / bmmx_min_bytes(&cs, 0));
      if (cs.batch < 1) cs.batch = 1;
      if (cs.batch > INT_MAX) cs.batch = INT_MAX; /* MKL_INT (LP64) */
      bytes = bmmx_min_bytes(&cs, 0);
      sz = bmmx_sizes(&cs);
      a = bmmx_xmalloc(sz.a, es, "bench_cpu_mkl"), b = bmmx_xmalloc(sz.b, es, "bench_cpu_mkl"),
      c = bmmx_xmalloc(sz.c, es, "bench_cpu_mkl");
      bmmx_fill_parallel(cs.dtype, a, sz.a, &seed);
      bmmx_fill_parallel(cs.dtype, b, sz.b, &seed);
      p = bmmx_problem(&cs, a, b, c, NULL);
      for (ti = 0; ti < 2; ++ti) {
        const int threads = ti == 0 ? 1 : nt_all;
        const int64_t samples = regime == 0 ? 0 : MKL_DRAM_SAMPLES; /* 0: every entry */
        double t[2][MKL_MAX_REPS], med[2], ratio, worst_err = 0;
        int who, rep, inner = 1;
        if (ti == 1 && nt_all == 1) break;
        /* check each once (C poisoned before), which also warms up */
        for (who = 0; who < 2; ++who) {
          double e;
          bmmx_poison(cs.dtype, c, sz.c);
          if (who == 0) {
            bmmx_set_threads(threads);
            if (bmm_cpu(&p) != BMM_OK) {
              fprintf(stderr, "%s %s: bmm_cpu failed: %s\n", bmm_dtype_name(cs.dtype), shape,
                      bmm_last_error());
              e = INFINITY;
            } else
              e = bmmx_check(&p, c, samples);
          } else {
            api.set_num_threads(threads);
            mkl_run(&api, &cs, a, b, c);
            e = bmmx_check(&p, c, samples);
          }
          if (!(e <= 1)) {
            fprintf(stderr,
                    "%-4s %-8s %-6s %3d WRONG RESULT from %s (worst error %.3g of the bound)\n",
                    bmm_dtype_name(cs.dtype), shape, regime ? "dram" : "cache", threads,
                    who == 0 ? "bmm" : "MKL", e);
            worst_err = INFINITY;
          }
        }
        if (worst_err != 0) {
          failed = 1;
          continue;
        }
        {
          double one = time_sample(0, &api, &cs, &p, c, threads, 1);
          while (inner < 4096 && one * inner < 2e-3)
            inner *= 2;
        }
        for (rep = 0; rep < reps; ++rep)
          for (who = 0; who < 2; ++who)
            t[who][rep] = time_sample(who, &api, &cs, &p, c, threads, inner);
        for (who = 0; who < 2; ++who)
          med[who] = bmmx_median(t[who], reps);
        ratio = med[0] / med[1];
        {
          mkl_stats *st = &stats[regime][ti];
          st->log_sum += log(ratio), ++st->count;
          if (bmm_dtype_is_complex(cs.dtype))
            st->log_sum_complex += log(ratio), ++st->count_complex;
          if (ratio > st->worst)
            st->worst = ratio, snprintf(st->worst_row, sizeof st->worst_row, "%s", label);
        }
        fprintf(stderr, "%-4s %-8s %-6s %3d %9lld %9.3f %9.3f %7.2f %8.2f %8.2f\n",
                bmm_dtype_name(cs.dtype), shape, regime ? "dram" : "cache", threads,
                (long long)cs.batch, med[0] * 1e9 / (double)cs.batch,
                med[1] * 1e9 / (double)cs.batch, ratio, bytes / med[0] * 1e-9,
                bytes / med[1] * 1e-9);
        printf("%s,%lld,%lld,%lld,%s,%d,%lld,%.4f,%.4f,%.3f,%.3f,%.3f\n", bmm_dtype_name(cs.dtype),
               (long long)cs.m, (long long)cs.n, (long long)cs.k, regime ? "dram" : "cache",
               threads, (long long)cs.batch, med[0] * 1e9 / (double)cs.batch,
               med[1] * 1e9 / (double)cs.batch, ratio, bytes / med[0] * 1e-9,
               bytes / med[1] * 1e-9);
        fflush(stdout);
      }
      free(a), free(b), free(c);
    }
  }
  fprintf(stderr, "bmm / MKL time (< 1: bmm faster), geometric mean per regime x threads:\n");
  for (regime = 0; regime < 2; ++regime)
    for (ti = 0; ti < 2; ++ti) {
      const mkl_stats *st = &stats[regime][ti];
      if (st->count == 0) continue;
      fprintf(stderr, "  %-5s %2d thread%s: %.2f over %d rows", regime ? "dram" : "cache",
              ti == 0 ? 1 : nt_all, ti == 0 ? " " : "s", exp(st->log_sum / st->count), st->count);
      if (st->count_complex)
        fprintf(stderr, " (complex %.2f over %d)", exp(st->log_sum_complex / st->count_complex),
                st->count_complex);
      fprintf(stderr, ", worst %.2f (%s)\n", st->worst, st->worst_row);
    }
  return failed;
}
