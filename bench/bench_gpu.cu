/* bench/bench_gpu.cu - the CUDA benchmark. Every row of bench/suite.csv runs
   through AUTO and through every CUDA strategy that claims it, timed with CUDA
   events (warm-up, median of >= 20 runs) over buffer sets rotated so that the
   working set exceeds 4x L2, on random data, and each timed result is checked
   against the long-double reference before it is printed.

   The roofline of a row is the larger of two floors: its minimal bytes over the
   measured device copy bandwidth (cudaMemcpy D2D, bytes read + written), and
   its flops over its dtype's own FLOP peak, measured with a 4096^3 cuBLAS GEMM
   of that dtype when built with BMM_WITH_CUBLAS (the f16, bf16, c64, c128
   probes have not yet run on a GPU: written 2026-11-26), else a datasheet
   value for f32/f64 and none for the others. A dtype without a peak is held
   to the bytes floor alone: its pct_roofline is % of that floor (a lower
   bound), marked * on stderr, and --meta has no peak_DT_tflops line for it.

   Usage: bench_gpu [--suite FILE] [--sweep] [--sweep-k LO HI] [--no-suite] [--only NAME]
                    [--auto-only] [--samples N] [--meta FILE] [--require-gpu] [--sanitize]
     --sweep      also the seed sweep: batch 10^6 of (3xK)(Kx1), K = 5..50, f32, f64
     --sweep-k LO HI  the sweep's K range instead of 5..50 (1 <= LO <= HI <= 128)
     --auto-only  AUTO alone, no forced strategies: what a table picks, in a
                  fifth of the time (BMM_TABLE_FILE names the table to run)
     --no-suite   skip the suite rows (with --sweep: the sweep alone)
     --only NAME  only rows whose name is NAME
     --samples N  batch entries checked per result (default 64)
     --meta FILE  write the device and roofline basis as key=value lines
     --sanitize   correctness only, sized for compute-sanitizer: batch cut to at most
                  4096 entries and 2^24 multiply-adds (an entry over that alone has
                  m, n, k halved until it fits: square1024 runs 256^3), one set, one
                  call per variant, every result checked, no timing and no CSV
     --sanitize-macs N  --sanitize with N multiply-adds per row instead of 2^24
                  (each `ok` line says the seconds since the start)
   stdout: CSV name,dtype,batch,m,n,k,layout,strategy,ms,gbps,gflops,pct_roofline
           (strategy `auto` for AUTO; `auto_back_to_back` for the launch cost of the
           `tiny` row: host wall time per call of 1000 back-to-back calls)
   stderr: the roofline basis, a human table, FAIL lines.
   Exit: 0 every check passed (or no GPU: SKIP, unless --require-gpu); 1 a check
   failed or a call returned an error; 2 bad usage or input. */
#define BMM_IMPLEMENTATION
#include "bmm_cuda.cuh"
#include "tests/bmm_cases.h"

#include <time.h>

#ifdef BMM_WITH_CUBLAS
#include <cublas_v2.h>
#endif

#define BENCH_MAX_ROWS 512
#define BENCH_MIN_RUNS 20
#define BENCH_MAX_RUNS 400
#define BENCH_WARMUP 3
#define BENCH_TARGET_MS 20.0 /* timed runs per variant: about this long, >= 20 runs */
#define BENCH_LAUNCH_CALLS 1000

static int bench_sanitize;  /* --sanitize */
static int bench_auto_only; /* --auto-only */

/* What runs now, named when a CUDA error ends the program (a fault in a
   kernel leaves the context unusable: nothing after it could be timed). */
static char bench_current[160] = "setup";

#define BENCH_CUDA(call)                                                             \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      fprintf(stderr, "FAIL %s:%d: %s: %s (during %s)\n", __FILE__, __LINE__, #call, \
              cudaGetErrorString(e_), bench_current);                                \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

/* ---- random data, the same on host and device ---------------------------- */

/* The suite and sweep move ~10^10 elements: a host fill plus upload would take
   longer than the whole timed part, so the data are drawn on the device from a
   counter-based hash. The host recomputes the values of the few batch entries
   it checks from the same hash, without copying A and B back. Values are exact
   in both dtypes (k/2^24 or k/2^53 in [-1, 1)), never 0. */
static __host__ __device__ inline uint64_t bench_hash(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static __host__ __device__ inline double bench_value(uint64_t seed, int64_t i, int is_f32) {
  uint64_t h = bench_hash(seed * 0xD1B54A32D192ED03ull ^ (uint64_t)i);
  double v = is_f32 ? (double)(h >> 40) * (1.0 / 16777216.0)
                    : (double)(h >> 11) * (1.0 / 9007199254740992.0);
  v = v * 2.0 - 1.0;
  return v == 0.0 ? 0.5 : v;
}

/* n components (a complex element is two: bmm_element_set's indexing) */
__global__ void bench_fill_kernel(void *p, int64_t n, uint64_t seed, bmm_dtype dt) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (; i < n; i += step)
    bmm_element_set(dt, p, i, bench_value(seed, i, !bmmx_acc_f64(dt)));
}

/* n elements of dtype dt */
static void bench_fill(void *p, int64_t n, uint64_t seed, bmm_dtype dt, cudaStream_t st) {
  int64_t blocks;
  if (n <= 0) return;
  n *= bmmx_parts(dt);
  blocks = (n + 255) / 256;
  bench_fill_kernel<<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, st>>>(p, n, seed, dt);
  BENCH_CUDA(cudaGetLastError());
}

/* element i as bench_fill wrote it (each of its components) */
static void bench_host_set(bmm_dtype dt, void *p, int64_t i, uint64_t seed) {
  const int parts = bmmx_parts(dt);
  int q;
  for (q = 0; q < parts; ++q)
    bmm_element_set(dt, p, i * parts + q, bench_value(seed, i * parts + q, !bmmx_acc_f64(dt)));
}

/* ---- the device and its roofline ------------------------------------------ */

typedef struct bench_device {
  int id, cc, sms;
  char name[256];
  size_t l2, mem;
  double copy_gbs;                /* measured D2D copy bandwidth, GB/s (read + write) */
  double empty_us, empty_grid_us; /* an empty launch, event-timed: 1 block; a full grid */
  double copy_k1_us[2];           /* D2D copies of the seed's K = 1 bytes: f32, f64 */
  double peak[BMM_DTYPE_COUNT];   /* FLOP/s; 0: not measured (the bytes floor alone) */
  char peak_src[BMM_DTYPE_COUNT][160];
  cudaStream_t st;
} bench_device;

static double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double bench_t0; /* the program's start */

static cudaEvent_t bench_ev0[BENCH_MAX_RUNS], bench_ev1[BENCH_MAX_RUNS];

/* Median ms of `runs` event-timed executions of op(i). */
typedef void (*bench_op)(void *ctx, int i);
static double bench_time(bench_device *d, bench_op op, void *ctx, int runs) {
  double ms[BENCH_MAX_RUNS];
  int r;
  for (r = 0; r < runs; ++r) {
    BENCH_CUDA(cudaEventRecord(bench_ev0[r], d->st));
    op(ctx, r);
    BENCH_CUDA(cudaEventRecord(bench_ev1[r], d->st));
  }
  BENCH_CUDA(cudaStreamSynchronize(d->st));
  for (r = 0; r < runs; ++r) {
    float t;
    BENCH_CUDA(cudaEventElapsedTime(&t, bench_ev0[r], bench_ev1[r]));
    ms[r] = t;
  }
  return bmmx_median(ms, runs);
}

typedef struct bench_copy_ctx {
  char *dst;
  const char *src;
  size_t bytes;
  size_t step, span; /* step > 0: copy i moves on by step, within span bytes */
  cudaStream_t st;
} bench_copy_ctx;

static void bench_copy_op(void *ctx, int i) {
  bench_copy_ctx *c = (bench_copy_ctx *)ctx;
  size_t off = c->step ? (size_t)i % (c->span / c->step) * c->step : 0;
  BENCH_CUDA(
      cudaMemcpyAsync(c->dst + off, c->src + off, c->bytes, cudaMemcpyDeviceToDevice, c->st));
}

/* ---- the launch floor: what caps the smallest rows ------------------------- */

/* The model charges every launch t0 = 5.5 us (fitted on the H100 probe), which
   caps the seed's small-K rows below 90% of copy by construction (f32 K <= 8;
   bench/notes/model.md, "The launch constant caps the small-K target"). These
   measure the real cap: an empty kernel event-timed as bmm's calls are, and a
   D2D copy of exactly the bytes the seed moves at K = 1 (10^6 entries of 4K + 3
   values), from a source rotated through the big copy buffer so that it comes
   from DRAM, as the sweep's rotated buffers do. */
__global__ void bench_empty_kernel(int *never) {
  if (never && threadIdx.x == 1023) *never = 0; /* never == NULL: no store */
}

typedef struct bench_empty_ctx {
  unsigned blocks, threads;
  cudaStream_t st;
} bench_empty_ctx;

static void bench_empty_op(void *ctx, int i) {
  bench_empty_ctx *e = (bench_empty_ctx *)ctx;
  (void)i;
  bench_empty_kernel<<<e->blocks, e->threads, 0, e->st>>>(NULL);
  BENCH_CUDA(cudaGetLastError());
}

#define BENCH_FLOOR_RUNS 200

static void bench_measure_floor(bench_device *d, char *buf, size_t half) {
  bench_empty_ctx e;
  bench_copy_ctx c;
  int i, w;
  e.st = d->st, e.blocks = 1, e.threads = 32;
  for (i = 0; i < BENCH_WARMUP; ++i)
    bench_empty_op(&e, i);
  d->empty_us = 1e3 * bench_time(d, bench_empty_op, &e, BENCH_FLOOR_RUNS);
  /* a grid as large as the kernels' (4 waves of 8 blocks of 256 an SM) */
  e.blocks = (unsigned)(32 * d->sms), e.threads = 256;
  for (i = 0; i < BENCH_WARMUP; ++i)
    bench_empty_op(&e, i);
  d->empty_grid_us = 1e3 * bench_time(d, bench_empty_op, &e, BENCH_FLOOR_RUNS);
  /* copy i reads the i-th step of the first half, writes the second's */
  c.src = buf, c.dst = buf + half, c.span = half, c.st = d->st;
  for (w = 0; w < 2; ++w) { /* f32, f64: (4 x 1 + 3) x 10^6 values, read + written */
    c.bytes = (size_t)7000000 * (w ? 8 : 4) / 2;
    c.step = (c.bytes + 4095) / 4096 * 4096;
    for (i = 0; i < BENCH_WARMUP; ++i)
      bench_copy_op(&c, i);
    d->copy_k1_us[w] = 1e3 * bench_time(d, bench_copy_op, &c, BENCH_FLOOR_RUNS);
  }
  fprintf(stderr,
          "launch floor: empty kernel %.2f us (1 block), %.2f us (%u blocks of 256); D2D copy "
          "of the seed's K = 1 bytes: f32 28 MB %.2f us (%.0f%% of copy), f64 56 MB %.2f us "
          "(%.0f%%); event-timed medians of %d\n",
          d->empty_us, d->empty_grid_us, e.blocks, d->copy_k1_us[0],
          100.0 * 28e6 / (d->copy_gbs * 1e3 * d->copy_k1_us[0]), d->copy_k1_us[1],
          100.0 * 56e6 / (d->copy_gbs * 1e3 * d->copy_k1_us[1]), BENCH_FLOOR_RUNS);
}

/* The bytes floor: a D2D copy far larger than L2 (bytes read + written). */
static void bench_measure_copy(bench_device *d) {
  size_t half = (size_t)512 << 20;
  bench_copy_ctx c;
  char *buf;
  int i;
  while (half < 8 * d->l2)
    half *= 2;
  BENCH_CUDA(cudaMalloc((void **)&buf, 2 * half));
  bench_fill(buf, (int64_t)(2 * half / 4), 7, BMM_F32, d->st);
  c.dst = buf + half, c.src = buf, c.bytes = half, c.step = 0, c.span = half, c.st = d->st;
  for (i = 0; i < BENCH_WARMUP; ++i)
    bench_copy_op(&c, i);
  d->copy_gbs =
      2.0 * (double)half / (bench_time(d, bench_copy_op, &c, BENCH_MIN_RUNS) * 1e-3) / 1e9;
  fprintf(stderr,
          "roofline: device copy bandwidth %.1f GB/s (cudaMemcpy D2D of %.0f MiB, read + "
          "written, median of %d)\n",
          d->copy_gbs, (double)half / 1048576.0, BENCH_MIN_RUNS);
  bench_measure_floor(d, buf, half);
  BENCH_CUDA(cudaFree(buf));
}

#ifdef BMM_WITH_CUBLAS
typedef struct bench_gemm_ctx {
  cublasHandle_t h;
  bmm_dtype dt;
  int n;
  void *a, *b, *c;
  cublasStatus_t status; /* the first failure */
} bench_gemm_ctx;

/* the dtype's CUDA type (BMM_DTYPES' column), as the cuda_cublas strategy passes it */
static cudaDataType_t bench_cuda_type(bmm_dtype dt) {
  switch (dt) {
#define BENCH_X(E, nm, T, sz, ACC, eps, CT, ...) \
  case BMM_##E: return CT;
    BMM_DTYPES(BENCH_X)
#undef BENCH_X
  default: return CUDA_R_32F;
  }
}

static void bench_gemm_op(void *ctx, int i) {
  bench_gemm_ctx *g = (bench_gemm_ctx *)ctx;
  const int n = g->n;
  cublasStatus_t s;
  (void)i;
  if (g->dt == BMM_F32) {
    const float one = 1.0f, zero = 0.0f;
    s = cublasSgemm(g->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (const float *)g->a, n,
                    (const float *)g->b, n, &zero, (float *)g->c, n);
  } else if (g->dt == BMM_F64) {
    const double one = 1.0, zero = 0.0;
    s = cublasDgemm(g->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (const double *)g->a, n,
                    (const double *)g->b, n, &zero, (double *)g->c, n);
  } else { /* bmm__cuda_gemm's types and accumulation: f64 for c128, else f32 */
    const int wide = bmmx_acc_f64(g->dt);
    const double one64[2] = {1, 0}, zero64[2] = {0, 0};
    const float one32[2] = {1, 0}, zero32[2] = {0, 0};
    const cudaDataType_t ty = bench_cuda_type(g->dt);
    s = cublasGemmEx(g->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                     wide ? (const void *)one64 : (const void *)one32, g->a, ty, n, g->b, ty, n,
                     wide ? (const void *)zero64 : (const void *)zero32, g->c, ty, n,
                     wide ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (s != CUBLAS_STATUS_SUCCESS && g->status == CUBLAS_STATUS_SUCCESS) g->status = s;
}

/* Each dtype's FLOP floor from what the device does on a large GEMM of that
   dtype: SGEMM in the default math mode (no TF32), DGEMM (FP64 tensor cores
   where present), and cublasGemmEx with the cuda_cublas strategy's types for
   the others (f16, bf16: tensor cores, ~10x the f32 rate; complex: 4 real
   multiply-adds each, as bmmx_flops counts). A GEMM that fails leaves its
   dtype unmeasured (the bytes floor alone), said on stderr and in --meta. */
static void bench_measure_peak(bench_device *d) {
  const char *how[BMM_DTYPE_COUNT] = {0};
  bench_gemm_ctx g;
  int t;
  how[BMM_F32] = "SGEMM (default math: no TF32)", how[BMM_F64] = "DGEMM";
  how[BMM_F16] = "GemmEx f16, f32 compute", how[BMM_BF16] = "GemmEx bf16, f32 compute";
  how[BMM_C64] = "GemmEx c64, f32 compute", how[BMM_C128] = "GemmEx c128, f64 compute";
  memset(&g, 0, sizeof g);
  if (cublasCreate(&g.h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "FAIL cublasCreate\n");
    exit(1);
  }
  cublasSetStream(g.h, d->st);
  cublasSetMathMode(g.h, CUBLAS_DEFAULT_MATH);
  g.n = 4096;
  for (t = BMM_DTYPE_UNSET + 1; t < BMM_DTYPE_COUNT; ++t) {
    size_t bytes = (size_t)g.n * g.n * bmm_dtype_size((bmm_dtype)t);
    double flops = (bmm_dtype_is_complex((bmm_dtype)t) ? 8.0 : 2.0) * g.n * (double)g.n * g.n;
    int i;
    g.dt = (bmm_dtype)t, g.status = CUBLAS_STATUS_SUCCESS;
    BENCH_CUDA(cudaMalloc(&g.a, bytes));
    BENCH_CUDA(cudaMalloc(&g.b, bytes));
    BENCH_CUDA(cudaMalloc(&g.c, bytes));
    bench_fill(g.a, (int64_t)g.n * g.n, 11, g.dt, d->st);
    bench_fill(g.b, (int64_t)g.n * g.n, 12, g.dt, d->st);
    for (i = 0; i < BENCH_WARMUP; ++i)
      bench_gemm_op(&g, i);
    if (g.status == CUBLAS_STATUS_SUCCESS) {
      double ms = bench_time(d, bench_gemm_op, &g, 10);
      if (g.status == CUBLAS_STATUS_SUCCESS) d->peak[t] = flops / (ms * 1e-3);
    }
    if (d->peak[t] > 0)
      snprintf(d->peak_src[t], sizeof d->peak_src[t], "measured: cuBLAS %s, %d^3, median of 10",
               how[t] ? how[t] : bmm_dtype_name(g.dt), g.n);
    else
      snprintf(d->peak_src[t], sizeof d->peak_src[t], "not measured: cuBLAS %s returned %s",
               how[t] ? how[t] : bmm_dtype_name(g.dt), cublasGetStatusName(g.status));
    BENCH_CUDA(cudaFree(g.a));
    BENCH_CUDA(cudaFree(g.b));
    BENCH_CUDA(cudaFree(g.c));
  }
  cublasDestroy(g.h);
}
#else
/* Without cuBLAS the FLOP floor is a datasheet figure (H100 SXM: FP32 67,
   FP64 34 TFLOP/s without tensor cores), or for another GPU an estimate from
   SMs x clock x 128 FP32 lanes (FP64 at half rate), said on stderr. The other
   dtypes get none: f16/bf16 on tensor cores run ~10x the f32 figure, and
   borrowing it put square1024 f16 at 1194% of its "roofline" (H100,
   2026-11-26); their rows are held to the bytes floor alone. */
static void bench_measure_peak(bench_device *d) {
  int t;
  for (t = BMM_DTYPE_UNSET + 1; t < BMM_DTYPE_COUNT; ++t)
    snprintf(d->peak_src[t], sizeof d->peak_src[0],
             "not measured: bench_gpu built without BMM_WITH_CUBLAS");
  if (strstr(d->name, "H100")) {
    d->peak[BMM_F32] = 67e12, d->peak[BMM_F64] = 34e12;
    snprintf(d->peak_src[BMM_F32], sizeof d->peak_src[0],
             "datasheet: H100 SXM FP32 67 TFLOP/s (not measured; build with BMM_WITH_CUBLAS)");
    snprintf(d->peak_src[BMM_F64], sizeof d->peak_src[0],
             "datasheet: H100 SXM FP64 34 TFLOP/s (not measured; build with BMM_WITH_CUBLAS)");
  } else {
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d->id);
    d->peak[BMM_F32] = (double)d->sms * 128.0 * 2.0 * khz * 1e3;
    d->peak[BMM_F64] = d->peak[BMM_F32] / 2;
    snprintf(d->peak_src[BMM_F32], sizeof d->peak_src[0],
             "estimate: %d SMs x 128 lanes x 2 x %.0f MHz (not measured)", d->sms, khz / 1e3);
    snprintf(d->peak_src[BMM_F64], sizeof d->peak_src[0], "estimate: half the FP32 estimate");
  }
}
#endif

/* ---- one suite row -------------------------------------------------------- */

/* Device buffers of a row: nsets copies of (A, B, C, bias), set s at element
   offset s * stride of each buffer. */
typedef struct bench_row {
  bmmx_case c;
  bmmx_sizes_t size, stride;
  int nsets;
  char *a, *b, *cc, *bias;
  bmm_problem *probs; /* one per set */
  /* host side of the check: set 0's A, B, bias (only the checked entries are
     computed; the rest stays as zero pages), C copied back */
  char *ha, *hb, *hc, *hbias;
  int host_filled;
  uint64_t seed_a, seed_b, seed_bias;
} bench_row;

static int64_t bench_round(int64_t n) { return (n + 63) / 64 * 64; }

static int bench_row_alloc(bench_device *d, bench_row *r) {
  size_t es = bmm_dtype_size(r->c.dtype);
  int64_t ws, s;
  r->size = bmmx_sizes(&r->c);
  r->stride.a = bench_round(r->size.a), r->stride.b = bench_round(r->size.b);
  r->stride.c = bench_round(r->size.c), r->stride.bias = bench_round(r->size.bias);
  ws = (int64_t)es * (r->stride.a + r->stride.b + r->stride.c + r->stride.bias);
  /* rotate sets until the working set is >= 4x L2: a run then never finds
     its inputs left in L2 by the run before */
  r->nsets = ws > 0 && !bench_sanitize ? (int)((4 * (int64_t)d->l2 + ws - 1) / ws) : 1;
  if (r->nsets < 1) r->nsets = 1;
  if (r->nsets > 65536) r->nsets = 65536;
  if ((double)ws * r->nsets > 0.8 * (double)d->mem) {
    fprintf(stderr, "FAIL %s %s: needs %.1f GB of device memory\n", r->c.name,
            bmm_dtype_name(r->c.dtype), (double)ws * r->nsets / 1e9);
    return 0;
  }
  BENCH_CUDA(cudaMalloc((void **)&r->a, (size_t)(es * r->stride.a * r->nsets + 256)));
  BENCH_CUDA(cudaMalloc((void **)&r->b, (size_t)(es * r->stride.b * r->nsets + 256)));
  BENCH_CUDA(cudaMalloc((void **)&r->cc, (size_t)(es * r->stride.c * r->nsets + 256)));
  BENCH_CUDA(cudaMalloc((void **)&r->bias, (size_t)(es * r->stride.bias * r->nsets + 256)));
  r->seed_a = 0xA0000000ull + (uint64_t)r->c.k * 131 + r->c.dtype;
  r->seed_b = r->seed_a + 0x1000, r->seed_bias = r->seed_a + 0x2000;
  bench_fill(r->a, r->stride.a * r->nsets, r->seed_a, r->c.dtype, d->st);
  bench_fill(r->b, r->stride.b * r->nsets, r->seed_b, r->c.dtype, d->st);
  bench_fill(r->bias, r->stride.bias * r->nsets, r->seed_bias, r->c.dtype, d->st);
  r->probs = (bmm_problem *)malloc(sizeof(bmm_problem) * (size_t)r->nsets);
  r->ha = (char *)calloc((size_t)(r->size.a + 1), es);
  r->hb = (char *)calloc((size_t)(r->size.b + 1), es);
  r->hc = (char *)calloc((size_t)(r->size.c + 1), es);
  r->hbias = (char *)calloc((size_t)(r->size.bias + 1), es);
  if (!r->probs || !r->ha || !r->hb || !r->hc || !r->hbias) {
    fprintf(stderr, "FAIL %s: host allocation\n", r->c.name);
    exit(1);
  }
  r->host_filled = 0;
  for (s = 0; s < r->nsets; ++s)
    r->probs[s] = bmmx_problem(&r->c, r->a + es * r->stride.a * s, r->b + es * r->stride.b * s,
                               r->cc + es * r->stride.c * s,
                               r->size.bias ? r->bias + es * r->stride.bias * s : NULL);
  BENCH_CUDA(cudaStreamSynchronize(d->st));
  return 1;
}

static void bench_row_free(bench_row *r) {
  cudaFree(r->a), cudaFree(r->b), cudaFree(r->cc), cudaFree(r->bias);
  free(r->probs), free(r->ha), free(r->hb), free(r->hc), free(r->hbias);
  memset(r, 0, sizeof *r);
}

/* Entries checked: 0, the last, and evenly spread between; fewer for large
   m*n*k so that the long-double reference stays in milliseconds. */
static int64_t bench_nsamples(const bench_row *r, int want) {
  int64_t rows = r->c.m > 8 ? 8 : r->c.m;
  double cost = (double)rows * (double)r->c.n * (double)r->c.k + (double)r->c.m * r->c.k +
                (double)r->c.k * r->c.n + 1;
  int64_t s = (int64_t)(2e7 / cost);
  if (s > want) s = want;
  if (s < 2) s = 2;
  if (s > r->c.batch) s = r->c.batch;
  return s;
}

static int64_t bench_sample(int64_t s, int64_t ns, int64_t nb) {
  return ns <= 1 ? 0 : (int64_t)((double)s * (double)(nb - 1) / (double)(ns - 1));
}

/* Host values of set 0's A, B, bias at the checked entries, from the hash. */
static void bench_host_fill(bench_row *r, const bmm_plan *hp, int64_t ns) {
  int64_t s, i, j;
  bmm_dtype dt = r->c.dtype;
  /* element offsets of the operands' origins in their buffers (a negative
     row stride puts A's origin past the buffer's start) */
  int64_t a0 = ((const char *)hp->a.ptr - r->ha) / (int64_t)bmm_dtype_size(dt);
  int64_t b0 = ((const char *)hp->b.ptr - r->hb) / (int64_t)bmm_dtype_size(dt);
  if (r->host_filled) return;
  for (s = 0; s < ns; ++s) {
    int64_t oa, ob, oc;
    bmm_batch_offsets(hp, bench_sample(s, ns, hp->batch), &oa, &ob, &oc);
    for (i = 0; i < hp->m; ++i)
      for (j = 0; j < hp->k; ++j)
        bench_host_set(dt, r->ha, a0 + oa + i * hp->a.row_stride + j * hp->a.col_stride, r->seed_a);
    for (i = 0; i < hp->k; ++i)
      for (j = 0; j < hp->n; ++j)
        bench_host_set(dt, r->hb, b0 + ob + i * hp->b.row_stride + j * hp->b.col_stride, r->seed_b);
  }
  for (j = 0; j < r->size.bias; ++j)
    bench_host_set(dt, r->hbias, j, r->seed_bias);
  r->host_filled = 1;
}

/* Check r->hc (set 0's C, written by a timed run) on sampled entries: all
   rows when m <= 8, else the first and last 4 rows (the reference of a whole
   1024^3 entry would take seconds). Returns the worst error / bound (<= 1
   passes). Host only. c_stores: bmmx_c_stores of the run's CUDA plan. */
static double bench_check_host(bench_row *r, int want_samples, int c_stores) {
  size_t es = bmm_dtype_size(r->c.dtype);
  bmm_problem hp = bmmx_problem(&r->c, r->ha, r->hb, r->hc, r->size.bias ? r->hbias : NULL);
  bmm_plan pl;
  int64_t ns = bench_nsamples(r, want_samples), s;
  double worst = 0;
  if (r->c.batch * r->c.m * r->c.n == 0) return 0;
  if (bmm_plan_problem(&hp, BMM_BACKEND_CPU, &pl) != BMM_OK) {
    fprintf(stderr, "FAIL %s: host problem: %s\n", r->c.name, bmm_last_error());
    return INFINITY;
  }
  bench_host_fill(r, &pl, ns);
  for (s = 0; s < ns; ++s) {
    int64_t oa, ob, oc, part, rows = pl.m > 8 ? 4 : pl.m;
    bmm_batch_offsets(&pl, bench_sample(s, ns, pl.batch), &oa, &ob, &oc);
    for (part = 0; part < (pl.m > 8 ? 2 : 1); ++part) {
      int64_t r0 = part ? pl.m - rows : 0;
      bmm_problem one = hp;
      double e;
      one.batch_dims = 0;
      one.m = rows;
      one.a.ptr = (const char *)pl.a.ptr + (int64_t)es * (oa + r0 * pl.a.row_stride);
      one.b.ptr = (const char *)pl.b.ptr + (int64_t)es * ob;
      one.c.ptr = (const char *)pl.c.ptr + (int64_t)es * (oc + r0 * pl.c.row_stride);
      e = bmmx_check_stored(&one, one.c.ptr, 0, c_stores);
      if (!(e <= worst)) worst = e;
    }
  }
  return worst;
}

/* The run's CUDA plan (r->probs[0], its strategy as timed) says how often it
   rounded C: cuda_cublas with a bias twice. */
static double bench_check(bench_device *d, bench_row *r, int want_samples) {
  size_t es = bmm_dtype_size(r->c.dtype);
  bmm_plan pl;
  int c_stores = 1;
  if (bmm_plan_problem(&r->probs[0], BMM_BACKEND_CUDA, &pl) == BMM_OK)
    c_stores = bmmx_c_stores(&pl);
  BENCH_CUDA(cudaMemcpyAsync(r->hc, r->cc, (size_t)r->size.c * es, cudaMemcpyDeviceToHost, d->st));
  BENCH_CUDA(cudaStreamSynchronize(d->st));
  return bench_check_host(r, want_samples, c_stores);
}

/* ---- timing one variant (AUTO or a forced strategy) ----------------------- */

typedef struct bench_call_ctx {
  bench_row *r;
  bench_device *d;
  int first; /* set index of run 0 */
  bmm_status status;
  char err[512];
} bench_call_ctx;

static void bench_call_op(void *ctx, int i) {
  bench_call_ctx *c = (bench_call_ctx *)ctx;
  int s = (c->first + i) % c->r->nsets;
  bmm_status st = bmm_cuda(&c->r->probs[s], c->d->st);
  if (st != BMM_OK && c->status == BMM_OK) {
    c->status = st;
    snprintf(c->err, sizeof c->err, "%s", bmm_last_error());
  }
}

typedef struct bench_result {
  double ms, err;
  int runs, ok;
} bench_result;

static void bench_set_strategy(bench_row *r, bmm_strategy s) {
  int i;
  for (i = 0; i < r->nsets; ++i)
    r->probs[i].strategy = s;
}

/* Warm up on the last sets, poison C (NaN), time runs on sets 0, 1, ..., so
   set 0 holds the result of a timed run, then check it. */
static bench_result bench_variant(bench_device *d, bench_row *r, int samples) {
  bench_result res;
  bench_call_ctx c;
  size_t es = bmm_dtype_size(r->c.dtype);
  double est;
  int i;
  memset(&res, 0, sizeof res);
  memset(&c, 0, sizeof c);
  snprintf(bench_current, sizeof bench_current, "%s %s %s", r->c.name, bmm_dtype_name(r->c.dtype),
           bmm_strategy_name(r->probs[0].strategy));
  c.r = r, c.d = d, c.status = BMM_OK;
  if (bench_sanitize) { /* one call on poisoned C, checked */
    BENCH_CUDA(cudaMemsetAsync(r->cc, 0xFF, (size_t)(es * r->stride.c), d->st));
    bench_call_op(&c, 0);
    BENCH_CUDA(cudaStreamSynchronize(d->st));
    BENCH_CUDA(cudaGetLastError());
    if (c.status != BMM_OK) {
      fprintf(stderr, "FAIL %s: bmm_cuda: %s\n", r->c.name, c.err);
      return res;
    }
    res.runs = 1;
    res.err = bench_check(d, r, samples);
    res.ok = res.err <= 1.0;
    return res;
  }
  c.first = r->nsets - BENCH_WARMUP % r->nsets;
  for (i = 0; i + 1 < BENCH_WARMUP; ++i)
    bench_call_op(&c, i);
  est = bench_time(d, bench_call_op, &c, 1); /* the last warm-up sizes the run count */
  BENCH_CUDA(cudaGetLastError());
  if (c.status != BMM_OK) {
    fprintf(stderr, "FAIL %s: bmm_cuda: %s\n", r->c.name, c.err);
    return res;
  }
  res.runs = est > 0 ? (int)(BENCH_TARGET_MS / est) : BENCH_MAX_RUNS;
  if (res.runs < BENCH_MIN_RUNS) res.runs = BENCH_MIN_RUNS;
  if (res.runs > BENCH_MAX_RUNS) res.runs = BENCH_MAX_RUNS;
  BENCH_CUDA(cudaMemsetAsync(r->cc, 0xFF, (size_t)(es * r->stride.c * r->nsets), d->st));
  c.first = 0;
  res.ms = bench_time(d, bench_call_op, &c, res.runs);
  BENCH_CUDA(cudaGetLastError());
  if (c.status != BMM_OK) {
    fprintf(stderr, "FAIL %s: bmm_cuda: %s\n", r->c.name, c.err);
    return res;
  }
  res.err = bench_check(d, r, samples);
  res.ok = res.err <= 1.0;
  return res;
}

/* ---- output ---------------------------------------------------------------- */

/* max(bytes floor, FLOP floor); the bytes floor alone where the dtype's
   FLOP peak was not measured (then a lower bound of the true floor) */
static double bench_roofline_ms(const bench_device *d, const bmmx_case *c) {
  double tb = bmmx_min_bytes(c, 0) / (d->copy_gbs * 1e9);
  double tf = d->peak[c->dtype] > 0 ? bmmx_flops(c) / d->peak[c->dtype] : 0;
  return 1e3 * (tb > tf ? tb : tf);
}

static void bench_emit(const bench_device *d, const bmmx_case *c, const char *strategy,
                       const char *shown, double ms, double err, int runs) {
  double gbps, gflops, pct;
  if (bench_sanitize) { /* the time: what each row costs under a sanitizer */
    fprintf(stderr, "ok %s %s batch %lld %s: error %.2g x bound, at %.1f s\n", c->name,
            bmm_dtype_name(c->dtype), (long long)c->batch, shown, err, bench_now() - bench_t0);
    return;
  }
  gbps = bmmx_min_bytes(c, 0) / (ms * 1e-3) / 1e9;
  gflops = bmmx_flops(c) / (ms * 1e-3) / 1e9;
  pct = 100.0 * bench_roofline_ms(d, c) / ms;
  printf("%s,%s,%lld,%lld,%lld,%lld,%s,%s,%.6f,%.2f,%.2f,%.2f\n", c->name, bmm_dtype_name(c->dtype),
         (long long)c->batch, (long long)c->m, (long long)c->n, (long long)c->k,
         bmmx_layout_name(c->layout), strategy, ms, gbps, gflops, pct);
  fflush(stdout);
  fprintf(stderr,
          "%-22s %-3s %8lld %4lld %4lld %4lld %-13s %-30s %10.4f %8.1f %9.1f %6.1f%%%s %4d  %.2g\n",
          c->name, bmm_dtype_name(c->dtype), (long long)c->batch, (long long)c->m, (long long)c->n,
          (long long)c->k, bmmx_layout_name(c->layout), shown, ms, gbps, gflops, pct,
          d->peak[c->dtype] > 0 ? "" : "*", runs, err);
}

/* The launch cost: the tiny row called back to back, host wall time per call
   (a user's loop pays whichever is larger, issue cost or kernel time). */
static int bench_launch_cost(bench_device *d, bench_row *r, int samples) {
  bench_call_ctx c;
  size_t es = bmm_dtype_size(r->c.dtype);
  double t0, t1, err;
  int i;
  memset(&c, 0, sizeof c);
  c.r = r, c.d = d, c.status = BMM_OK;
  bench_set_strategy(r, BMM_STRATEGY_AUTO);
  for (i = 0; i < 20; ++i)
    bench_call_op(&c, 0);
  BENCH_CUDA(cudaStreamSynchronize(d->st));
  BENCH_CUDA(cudaMemsetAsync(r->cc, 0xFF, (size_t)(es * r->stride.c), d->st));
  BENCH_CUDA(cudaStreamSynchronize(d->st));
  t0 = bench_now();
  for (i = 0; i < BENCH_LAUNCH_CALLS; ++i)
    bench_call_op(&c, 0);
  BENCH_CUDA(cudaStreamSynchronize(d->st));
  t1 = bench_now();
  BENCH_CUDA(cudaGetLastError());
  if (c.status != BMM_OK) {
    fprintf(stderr, "FAIL %s launch cost: bmm_cuda: %s\n", r->c.name, c.err);
    return 0;
  }
  err = bench_check(d, r, samples);
  if (!(err <= 1.0)) {
    fprintf(stderr, "FAIL %s %s auto_back_to_back: error %.3g x bound\n", r->c.name,
            bmm_dtype_name(r->c.dtype), err);
    return 0;
  }
  fprintf(stderr, "launch cost %s %s: %.2f us per call (%d back-to-back AUTO calls, host clock)\n",
          r->c.name, bmm_dtype_name(r->c.dtype), (t1 - t0) * 1e6 / BENCH_LAUNCH_CALLS,
          BENCH_LAUNCH_CALLS);
  bench_emit(d, &r->c, "auto_back_to_back", "auto_back_to_back",
             (t1 - t0) * 1e3 / BENCH_LAUNCH_CALLS, err, BENCH_LAUNCH_CALLS);
  return 1;
}

/* One forced strategy, if it claims the row and is compiled in. Returns
   failures (0 or 1). */
static int bench_strategy(bench_device *d, bench_row *r, bmm_strategy s, int samples) {
  const bmmx_case *cs = &r->c;
  const char *nm = bmm_strategy_name(s);
  bench_result res;
  bmm_plan pl;
  bench_set_strategy(r, s);
  if (bmm_plan_problem(&r->probs[0], BMM_BACKEND_CUDA, &pl) != BMM_OK) return 0;
  if (bmm_cuda(&r->probs[0], d->st) == BMM_NOT_COMPILED) {
    fprintf(stderr, "skip %s %s %s: %s\n", cs->name, bmm_dtype_name(cs->dtype), nm,
            bmm_last_error());
    return 0;
  }
  res = bench_variant(d, r, samples);
  if (res.runs && res.ok) {
    bench_emit(d, cs, nm, nm, res.ms, res.err, res.runs);
    return 0;
  }
  fprintf(stderr, "FAIL %s %s %s: %s (worst error %.3g x bound)\n", cs->name,
          bmm_dtype_name(cs->dtype), nm,
          res.runs ? "result differs from the reference" : "did not run", res.err);
  return 1;
}

/* AUTO, then every CUDA strategy that claims the row. Returns failures. */
static int bench_case(bench_device *d, const bmmx_case *cs, int samples) {
  bench_row r;
  bmm_plan pl;
  char shown[64], why[1024];
  int fails = 0;
  memset(&r, 0, sizeof r);
  r.c = *cs;
  if (!bench_row_alloc(d, &r)) return 1;
  bench_set_strategy(&r, BMM_STRATEGY_AUTO);
  if (bmm_plan_problem(&r.probs[0], BMM_BACKEND_CUDA, &pl) != BMM_OK) {
    fprintf(stderr, "FAIL %s %s: plan: %s\n", cs->name, bmm_dtype_name(cs->dtype),
            bmm_last_error());
    bench_row_free(&r);
    return 1;
  }
  bmm_explain(&r.probs[0], BMM_BACKEND_CUDA, why, sizeof why);
  fprintf(stderr, "explain %s %s: %s\n", cs->name, bmm_dtype_name(cs->dtype), why);
  snprintf(shown, sizeof shown, "auto>%s", bmm_strategy_name(pl.strategy));
  {
    bench_result res = bench_variant(d, &r, samples);
    if (res.runs && res.ok)
      bench_emit(d, cs, "auto", shown, res.ms, res.err, res.runs);
    else {
      fprintf(stderr, "FAIL %s %s auto: %s\n", cs->name, bmm_dtype_name(cs->dtype),
              res.runs ? "result differs from the reference" : "did not run");
      if (res.runs) fprintf(stderr, "  worst error %.3g x bound\n", res.err);
      ++fails;
    }
  }
  if (!bench_sanitize && strcmp(cs->name, "tiny") == 0 && !bench_launch_cost(d, &r, samples))
    ++fails;
#define BENCH_X(E, nm, l, mm, mn, mk, cf, desc) \
  if (!bench_auto_only) fails += bench_strategy(d, &r, BMM_##E, samples);
  BMM_CUDA_STRATEGIES(BENCH_X)
#undef BENCH_X
  bench_row_free(&r);
  return fails;
}

/* ---- main ------------------------------------------------------------------- */

static void bench_usage(void) {
  fprintf(stderr, "usage: bench_gpu [--suite FILE] [--sweep] [--sweep-k LO HI] [--no-suite] "
                  "[--only NAME] [--auto-only] [--samples N] [--meta FILE] [--require-gpu] "
                  "[--sanitize] [--sanitize-macs N]\n");
}

int main(int argc, char **argv) {
  static bmmx_case rows[BENCH_MAX_ROWS];
  const char *suite = "bench/suite.csv", *only = NULL, *meta = NULL;
  int sweep = 0, no_suite = 0, require = 0, samples = 64, nrows = 0, i, ndev = 0, fails = 0;
  int k_lo = 5, k_hi = 50;
  double sanitize_macs = 16777216.0;
  char err[256];
  bench_device d;
  cudaDeviceProp prop;
  bench_t0 = bench_now();
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
      suite = argv[++i];
    else if (strcmp(argv[i], "--sweep") == 0)
      sweep = 1;
    else if (strcmp(argv[i], "--sweep-k") == 0 && i + 2 < argc) {
      k_lo = atoi(argv[++i]), k_hi = atoi(argv[++i]);
      if (k_lo < 1 || k_hi < k_lo || k_hi > 128) {
        fprintf(stderr, "bench_gpu: --sweep-k %d %d: want 1 <= LO <= HI <= 128\n", k_lo, k_hi);
        return 2;
      }
    } else if (strcmp(argv[i], "--auto-only") == 0)
      bench_auto_only = 1;
    else if (strcmp(argv[i], "--no-suite") == 0)
      no_suite = 1;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
      samples = atoi(argv[++i]);
    else if (strcmp(argv[i], "--meta") == 0 && i + 1 < argc)
      meta = argv[++i];
    else if (strcmp(argv[i], "--require-gpu") == 0)
      require = 1;
    else if (strcmp(argv[i], "--sanitize") == 0)
      bench_sanitize = 1;
    else if (strcmp(argv[i], "--sanitize-macs") == 0 && i + 1 < argc)
      bench_sanitize = 1, sanitize_macs = atof(argv[++i]);
    else {
      bench_usage();
      return 2;
    }
  }
  if (samples < 2) samples = 2;
  if (!no_suite) {
    nrows = bmmx_suite_load(suite, rows, BENCH_MAX_ROWS, err, sizeof err);
    if (nrows < 0) {
      fprintf(stderr, "bench_gpu: %s\n", err);
      return 2;
    }
  }
  if (sweep) {
    int t, k;
    for (t = BMM_F32; t <= BMM_F64; ++t)
      for (k = k_lo; k <= k_hi && nrows < BENCH_MAX_ROWS; ++k) {
        bmmx_case *c = &rows[nrows++];
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "sweep_k%d", k);
        c->dtype = (bmm_dtype)t, c->batch = 1000000, c->m = 3, c->n = 1, c->k = k;
        c->layout = BMMX_ROWMAJOR;
      }
  }
  for (i = 0; bench_sanitize && i < nrows; ++i) {
    double per;
    int64_t cap;
    /* an entry over the cap alone (square1024: 2^30) runs halved in m, n and
       k until it fits: the same kernels and code paths (tiles, block
       borders, K loops) on fewer iterations; racecheck on a 1024^3 tile
       product would take longer than the whole GPU window */
    while ((double)rows[i].m * (double)rows[i].n * (double)rows[i].k > sanitize_macs &&
           rows[i].m > 1 && rows[i].n > 1 && rows[i].k > 1) {
      rows[i].m = (rows[i].m + 1) / 2, rows[i].n = (rows[i].n + 1) / 2;
      rows[i].k = (rows[i].k + 1) / 2;
    }
    per = (double)rows[i].m * (double)rows[i].n * (double)rows[i].k;
    if (per * 2 > sanitize_macs || rows[i].m > 64)
      fprintf(stderr, "sanitize: %s %s runs m=%lld n=%lld k=%lld\n", rows[i].name,
              bmm_dtype_name(rows[i].dtype), (long long)rows[i].m, (long long)rows[i].n,
              (long long)rows[i].k);
    cap = per > 0 ? (int64_t)(sanitize_macs / per) : 4096;
    if (cap > 4096) cap = 4096;
    if (cap < 1) cap = 1;
    if (rows[i].batch > cap) rows[i].batch = cap;
  }
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    fprintf(stderr, "SKIP: bench_gpu: no usable CUDA device\n");
    return require ? 1 : 0;
  }
  memset(&d, 0, sizeof d);
  BENCH_CUDA(cudaGetDevice(&d.id));
  BENCH_CUDA(cudaGetDeviceProperties(&prop, d.id));
  snprintf(d.name, sizeof d.name, "%s", prop.name);
  d.cc = prop.major * 10 + prop.minor, d.sms = prop.multiProcessorCount;
  d.l2 = (size_t)prop.l2CacheSize, d.mem = prop.totalGlobalMem;
  BENCH_CUDA(cudaStreamCreateWithFlags(&d.st, cudaStreamNonBlocking));
  for (i = 0; i < BENCH_MAX_RUNS; ++i) {
    BENCH_CUDA(cudaEventCreate(&bench_ev0[i]));
    BENCH_CUDA(cudaEventCreate(&bench_ev1[i]));
  }
  fprintf(stderr, "device: %s, sm_%d, %d SMs, L2 %.1f MiB, %.1f GiB\n", d.name, d.cc, d.sms,
          (double)d.l2 / 1048576.0, (double)d.mem / 1073741824.0);
  if (bench_sanitize) { /* no roofline: nothing is timed */
    d.copy_gbs = 1;
  } else {
    bench_measure_copy(&d);
    bench_measure_peak(&d);
  }
  for (i = BMM_DTYPE_UNSET + 1; i < BMM_DTYPE_COUNT && !bench_sanitize; ++i)
    if (d.peak[i] > 0)
      fprintf(stderr, "roofline: %s FLOP peak %.1f TFLOP/s (%s)\n", bmm_dtype_name((bmm_dtype)i),
              d.peak[i] / 1e12, d.peak_src[i]);
    else
      fprintf(stderr, "roofline: %s no FLOP peak (%s): its %%roof is of the bytes floor alone\n",
              bmm_dtype_name((bmm_dtype)i), d.peak_src[i]);
  if (meta) {
    FILE *f = fopen(meta, "w");
    if (f) {
      time_t now = time(NULL);
      char date[64];
      strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
      fprintf(f, "device=%s\ncc=%d\nsms=%d\nl2_bytes=%zu\ndate=%s\ncopy_gbs=%.2f\n", d.name, d.cc,
              d.sms, d.l2, date, d.copy_gbs);
      fprintf(f,
              "launch_empty_us=%.3f\nlaunch_empty_grid_us=%.3f\ncopy_k1_f32_us=%.3f\n"
              "copy_k1_f64_us=%.3f\n",
              d.empty_us, d.empty_grid_us, d.copy_k1_us[0], d.copy_k1_us[1]);
      /* no peak_DT_tflops line for a dtype not measured: report.py then
         holds its rows to the bytes floor alone */
      for (i = BMM_DTYPE_UNSET + 1; i < BMM_DTYPE_COUNT; ++i) {
        if (d.peak[i] > 0)
          fprintf(f, "peak_%s_tflops=%.3f\n", bmm_dtype_name((bmm_dtype)i), d.peak[i] / 1e12);
        fprintf(f, "peak_%s_source=%s\n", bmm_dtype_name((bmm_dtype)i), d.peak_src[i]);
      }
      fprintf(f, "cublas=%d\n",
#ifdef BMM_WITH_CUBLAS
              1
#else
              0
#endif
      );
      fclose(f);
    }
  }
  if (!bench_sanitize)
    printf("name,dtype,batch,m,n,k,layout,strategy,ms,gbps,gflops,pct_roofline\n");
  fflush(stdout);
  fprintf(stderr, "%-22s %-3s %8s %4s %4s %4s %-13s %-30s %10s %8s %9s %7s %4s  %s\n", "name", "dt",
          "batch", "m", "n", "k", "layout", "strategy", "ms", "GB/s", "GFLOP/s", "%roof", "runs",
          "err/bound");
  for (i = 0; i < nrows; ++i) {
    if (only && strcmp(only, rows[i].name) != 0) continue;
    fails += bench_case(&d, &rows[i], samples);
  }
  if (fails) fprintf(stderr, "bench_gpu: %d FAIL\n", fails);
  return fails ? 1 : 0;
}
