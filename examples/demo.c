/* The seed problem's sweep: batch 10^6 of (3 x K) * (K x 1), K = 5..50, in
   f32 and f64. Per K: the strategy the table chose, the median time, GB/s and
   the percentage of the memory roofline (these shapes move 4K+3 values per
   batch entry for 6K flops, so bytes decide). On the CPU the roofline is the
   bandwidth bench/cpu_roofline.h measures for the row's mix of reads (4K
   values) and writes (3), as bench_cpu reports it; a row of at most 4x the
   last-level cache is flagged `cached`. On a GPU it is the device-to-device
   copy bandwidth.

   Batch `auto` (the CPU's default): each K at 10^6 entries, or as many as
   move the roofline probe's bytes (8x the cache, 256 MiB to 2 GiB) where
   that is more (every row on a 260 MiB L3), so that every row is a DRAM
   figure; the batch is printed per row. The GPU keeps 10^6 (far past its L2
   at every K).

   Built twice: as C for the CPU (build/demo) and, through demo_cuda.cu, as
   CUDA (build/demo_cuda). `ninja demo` runs the CUDA one when a GPU answers.
   Usage: demo [batch|auto] [kmin] [kmax] [both|DTYPE] (both: f32 and f64;
   any dtype of bmm's list, f16 and bf16 included) */
#define BMM_IMPLEMENTATION
#ifdef __CUDACC__
#include "bmm_cuda.cuh"
#else
#include "bmm.h"
#endif
#include "tests/bmm_cases.h"

#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define REPS 7

#ifdef __CUDACC__
#define BACKEND BMM_BACKEND_CUDA
#define CK(x)                                                        \
  do {                                                               \
    cudaError_t e_ = (x);                                            \
    if (e_ != cudaSuccess) {                                         \
      fprintf(stderr, "demo: %s: %s\n", #x, cudaGetErrorString(e_)); \
      exit(1);                                                       \
    }                                                                \
  } while (0)
/* the batch without an argument; `auto` is there too but moves no more than
   10^6 entries (auto_bytes) */
#define DEFAULT_BATCH 1000000
static void *dev_alloc(size_t bytes) {
  void *p;
  CK(cudaMalloc(&p, bytes));
  return p;
}
/* The device's copy of host buffer h (its first `fill` bytes copied), the
   host's copy of the device's first `bytes`, and the release: the three steps
   the CPU build does without (its calls use the host's buffers). */
static void *dev_of(void *h, size_t bytes, size_t fill) {
  void *d = dev_alloc(bytes);
  if (fill) CK(cudaMemcpy(d, h, fill, cudaMemcpyHostToDevice));
  return d;
}
static void host_of(void *h, const void *d, size_t bytes) {
  CK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}
static void dev_release(void *d) { cudaFree(d); }
/* the bytes a row of batch `auto` moves at least: none (10^6 entries) */
static double auto_bytes(void) { return 0; }
static void roof_finish(void) {}
static const char *device_name(void) {
  static struct cudaDeviceProp prop;
  int dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&prop, dev));
  return prop.name;
}
/* Device-to-device copy of a buffer far beyond L2: bytes read + written. */
static double copy_bandwidth(void *x, void *y, size_t bytes) {
  cudaEvent_t e0, e1;
  float ms[REPS];
  double t[REPS];
  int r;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice));
  for (r = 0; r < REPS; ++r) {
    CK(cudaEventRecord(e0, 0));
    CK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1, 0));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms[r], e0, e1));
    t[r] = ms[r] * 1e-3;
  }
  return 2.0 * (double)bytes / bmmx_median(t, REPS);
}
/* the roofline: copy bandwidth whatever the mix; nothing is cached */
static double copy_bw;
static int roof_cached(double bytes) {
  (void)bytes;
  return 0;
}
static void roof_measure(void) {
  size_t cbytes = (size_t)1 << 28; /* 256 MiB: far beyond any cache */
  void *h = malloc(cbytes), *x, *y;
  uint64_t seed = 7;
  if (!h) exit(1);
  bmmx_fill(BMM_F64, h, (int64_t)(cbytes / 8), &seed);
  x = dev_of(h, cbytes, cbytes), y = dev_alloc(cbytes);
  free(h);
  copy_bw = copy_bandwidth(x, y, cbytes);
  dev_release(x), dev_release(y);
  printf("measured copy bandwidth (read + write, 256 MiB): %.1f GB/s\n", copy_bw * 1e-9);
}
/* Median seconds of REPS calls, after one warm-up, and the row's floor in
   bytes per second (the copy bandwidth); status of the first call. */
static bmm_status time_call(const bmm_problem *p, const bmmx_case *c, double *sec, double *roof) {
  cudaEvent_t e0, e1;
  double t[REPS];
  int r;
  bmm_status s = bmm_cuda(p, 0);
  if (s != BMM_OK) return s;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (r = 0; r < REPS; ++r) {
    float ms;
    CK(cudaEventRecord(e0, 0));
    bmm_cuda(p, 0);
    CK(cudaEventRecord(e1, 0));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t[r] = ms * 1e-3;
  }
  CK(cudaGetLastError());
  *sec = bmmx_median(t, REPS);
  *roof = copy_bw;
  (void)c;
  return BMM_OK;
}
#else
#define BACKEND BMM_BACKEND_CPU
#include "bench/cpu_roofline.h"
static bmmx_roofline cpu_roof;
#define DEFAULT_BATCH 0 /* auto */
/* the "device" is the host: the calls use the host's buffers (no second
   copy of gigabytes) */
static void *dev_of(void *h, size_t bytes, size_t fill) {
  (void)bytes, (void)fill;
  return h;
}
static void host_of(void *h, const void *d, size_t bytes) { (void)h, (void)d, (void)bytes; }
static void dev_release(void *d) { (void)d; }
static double auto_bytes(void) { return cpu_roof.probe_bytes; }
static void roof_finish(void) {
  printf("\nbest of every probe, ");
  bmmx_roof_print_best(stdout, &cpu_roof);
  bmmx_roofline_release(&cpu_roof);
}
static const char *device_name(void) {
#ifdef _OPENMP
  static char s[64];
  snprintf(s, sizeof s, "CPU, %d OpenMP threads", omp_get_max_threads());
  return s;
#else
  return "CPU, 1 thread (built without OpenMP)";
#endif
}
static int roof_cached(double bytes) { return bmmx_roof_cached(&cpu_roof, bytes); }
static void roof_measure(void) {
  if (!bmmx_roofline_measure(&cpu_roof)) {
    fprintf(stderr, "demo: out of memory for the roofline probe\n");
    exit(1);
  }
  bmmx_roof_print(stdout, &cpu_roof);
}
/* Median seconds of REPS calls after one warm-up, and the row's floor in
   bytes per second: the bandwidth the machine sustains for the row's reads
   and writes, probed between the calls (bmmx_roof_time; a shared VM's
   bandwidth drifts by 1.5x within a sweep); status of the first call. */
static bmm_status time_call(const bmm_problem *p, const bmmx_case *c, double *sec, double *roof) {
  bmm_status s = bmm_cpu(p);
  if (s != BMM_OK) return s;
  *roof = bmmx_roof_time(&cpu_roof, c, bmmx_roof_call_cpu, (void *)p, REPS, sec) * 1e9;
  return BMM_OK;
}
#endif

/* rows past 100% of the roofline: the floor, probed between the row's calls
   (CPU) or once at the start (GPU), was lower than what the row got (a busy
   or shared machine) */
static int rows_over_roof;

/* The batch of row K: `batch`, or for batch 0 (auto) 10^6 entries or as
   many as move auto_bytes(), whichever is more */
static int64_t row_batch(bmm_dtype dt, int64_t batch, int k) {
  bmmx_case c;
  double per;
  int64_t b;
  if (batch > 0) return batch;
  memset(&c, 0, sizeof c);
  c.dtype = dt, c.batch = 1, c.m = 3, c.n = 1, c.k = k, c.layout = BMMX_ROWMAJOR;
  per = bmmx_min_bytes(&c, 0);
  b = (int64_t)(auto_bytes() / per) + 1;
  return b > 1000000 ? b : 1000000;
}

static int sweep(bmm_dtype dt, int64_t batch, int kmin, int kmax) {
  bmmx_case c;
  size_t es = bmm_dtype_size(dt), na = 0, nb = 0, nc = 0;
  void *ha, *hb, *hc, *da, *db, *dc;
  uint64_t seed = 42;
  int k, fails = 0;
  memset(&c, 0, sizeof c);
  c.dtype = dt, c.m = 3, c.n = 1, c.layout = BMMX_ROWMAJOR;
  for (k = kmin; k <= kmax; ++k) { /* buffers for the largest row of each operand */
    bmmx_sizes_t s;
    c.batch = row_batch(dt, batch, k), c.k = k;
    s = bmmx_sizes(&c);
    if ((size_t)s.a > na) na = (size_t)s.a;
    if ((size_t)s.b > nb) nb = (size_t)s.b;
    if ((size_t)s.c > nc) nc = (size_t)s.c;
  }
  ha = malloc(na * es), hb = malloc(nb * es), hc = malloc(nc * es);
  if (!ha || !hb || !hc) {
    fprintf(stderr, "demo: out of host memory for %.2f GB of A, B and C (give a smaller batch)\n",
            (double)((na + nb + nc) * es) * 1e-9);
    return 1;
  }
  bmmx_fill(dt, ha, (int64_t)na, &seed);
  bmmx_fill(dt, hb, (int64_t)nb, &seed);
  da = dev_of(ha, na * es, na * es), db = dev_of(hb, nb * es, nb * es);
  dc = dev_of(hc, nc * es, 0);
  if (batch > 0)
    printf("\n%s  batch %lld of (3 x K) * (K x 1)\n", bmm_dtype_name(dt), (long long)batch);
  else
    printf("\n%s  (3 x K) * (K x 1), batch auto: 10^6, or %.0f MiB a row where 10^6 entries move "
           "less\n",
           bmm_dtype_name(dt), auto_bytes() / 1048576);
  printf("%4s %10s  %-18s %10s %9s %9s %8s  %s\n", "K", "batch", "strategy", "time ms", "GB/s",
         "roof GB/s", "% roof", "check");
  for (k = kmin; k <= kmax; ++k) {
    bmm_plan plan;
    bmm_problem p;
    double sec = 0, bytes, worst, pct, roof = 0;
    bmm_status st;
    c.k = k, c.batch = row_batch(dt, batch, k);
    /* the first batch*3*k values of the buffers are a valid packed A */
    p = bmmx_problem(&c, da, db, dc, NULL);
    st = bmm_plan_problem(&p, BACKEND, &plan);
    if (st == BMM_OK) st = time_call(&p, &c, &sec, &roof);
    if (st != BMM_OK) {
      printf("%4d %10lld  failed: %s\n", k, (long long)c.batch, bmm_last_error());
      ++fails;
      continue;
    }
    host_of(hc, dc, (size_t)(c.batch * 3) * es);
    p = bmmx_problem(&c, ha, hb, hc, NULL);
    worst = bmmx_check(&p, hc, 64);
    bytes = bmmx_min_bytes(&c, 0);
    pct = 100.0 * bytes / sec / roof;
    rows_over_roof += pct > 100.0 && !roof_cached(bytes);
    printf("%4d %10lld  %-18s %10.3f %9.1f %9.1f %7.1f%%  %s%s\n", k, (long long)c.batch,
           bmm_strategy_name(plan.strategy), sec * 1e3, bytes / sec * 1e-9, roof * 1e-9, pct,
           worst <= 1 ? "ok" : "WRONG", roof_cached(bytes) ? " (cached: not a DRAM figure)" : "");
    if (!(worst <= 1)) ++fails;
  }
  dev_release(da), dev_release(db), dev_release(dc);
  free(ha), free(hb), free(hc);
  return fails;
}

int main(int argc, char **argv) {
  int64_t batch = DEFAULT_BATCH;
  int kmin = argc > 2 ? atoi(argv[2]) : 5, kmax = argc > 3 ? atoi(argv[3]) : 50;
  const char *which = argc > 4 ? argv[4] : "both";
  int fails = 0;
  if (argc > 1) batch = strcmp(argv[1], "auto") == 0 ? 0 : atoll(argv[1]) > 0 ? atoll(argv[1]) : -1;
  if (batch < 0 || kmin < 1 || kmax < kmin ||
      (strcmp(which, "both") != 0 && bmmx_dtype_parse(which) == BMM_DTYPE_UNSET)) {
    fprintf(
        stderr,
        "usage: demo [batch>=1|auto] [kmin>=1] [kmax>=kmin] [both|f32|f64|f16|bf16|c64|c128]\n");
    return 2;
  }
  printf("bmm %s seed sweep on %s\n", BMM_VERSION, device_name());
  roof_measure();
  if (strcmp(which, "both") == 0) {
    fails += sweep(BMM_F32, batch, kmin, kmax);
    fails += sweep(BMM_F64, batch, kmin, kmax);
  } else {
    fails += sweep(bmmx_dtype_parse(which), batch, kmin, kmax);
  }
  if (rows_over_roof)
    printf("\n%d rows above 100%% of the roofline: the bandwidth probe ran slower than the "
           "row itself (busy or shared machine?); run again on a quiet one for figures to rely "
           "on\n",
           rows_over_roof);
  roof_finish();
  printf("\n%s\n", fails ? "some results FAILED" : "all results checked against the reference");
  return fails != 0;
}
