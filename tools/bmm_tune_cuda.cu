/* tools/bmm_tune_cuda.cu - bmm-tune on the current GPU: the CUDA timing
   driver; everything else (grid, checks, compression, validation, writers) is
   tools/bmm_tune.c, included below. `build/bmm-tune-cuda --cpu` still tunes
   the CPU. Each call is timed alone with CUDA events on the default stream,
   after a write of 4x the L2 (at least 64 MiB) that evicts its inputs, as
   bench/bench_gpu.cu's rotated buffer sets do: a grid problem of ~64 MB
   would otherwise run partly from a 50-60 MB L2 on its second call. The
   host-side planning of a call overlaps the flush, so it is not in the
   times (bench_gpu's auto_back_to_back row measures the launch cost).
   A launch that fails (bmm_cuda's status) only rules its configuration out
   at that problem; a kernel that faults ends the run, naming it, since the
   CUDA context is then lost.

   Build it with -DBMM_WITH_CUBLAS -lcublas (bench/gpu_check.sh does): the
   default table sends compute-bound shapes to cuda_cublas, and without it
   that strategy gets no time at any grid point and the default's choice
   cannot run in the suite's validation (it never wins there, so nothing
   keeps it: H100 tune.log, 2026-11-26). The suite's validation checks each
   result on the host in long double, 4 batch entries at ~9 ns a multiply-add:
   square1024 took ~40 s per dtype and candidate there, so gpu_check.sh
   validates on the suite without it (bench/notes/gpu_check.md). */
#define BMM_TUNE_CUDA 1
#define BMM_IMPLEMENTATION
#include "bmm_cuda.cuh"

#include "tools/bmm_tune.c"

static cudaEvent_t bmmt__ev[2];
static void *bmmt__flush;
static size_t bmmt__flush_bytes;

static void *bmmt__cuda_alloc(size_t bytes) {
  void *p = NULL;
  return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}
static void bmmt__cuda_release(void *p) { cudaFree(p); }
static void bmmt__cuda_upload(void *dst, const void *src, size_t bytes) {
  cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}
static void bmmt__cuda_download(void *dst, const void *src, size_t bytes) {
  cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}
static void bmmt__cuda_poison(void *p, size_t bytes) { cudaMemset(p, 0xFF, bytes); }

static double bmmt__cuda_time(const bmm_problem *p, int calls, bmm_status *st) {
  double total = 0;
  int i;
  cudaError_t e = cudaSuccess;
  *st = BMM_OK;
  for (i = 0; i < calls && *st == BMM_OK && e == cudaSuccess; ++i) {
    float ms = 0;
    cudaMemsetAsync(bmmt__flush, i & 0xFF, bmmt__flush_bytes, 0);
    cudaEventRecord(bmmt__ev[0], 0);
    *st = bmm_cuda(p, 0);
    cudaEventRecord(bmmt__ev[1], 0);
    e = cudaEventSynchronize(bmmt__ev[1]);
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, bmmt__ev[0], bmmt__ev[1]);
    total += 1e-3 * (double)ms;
  }
  if (e != cudaSuccess) {
    /* a kernel faulted: the context is lost, every later call would fail too */
    char why[1024];
    bmm_explain(p, BMM_BACKEND_CUDA, why, sizeof why);
    fprintf(stderr,
            "\nbmm-tune: the device failed (%s) running\n  %s\nthe CUDA context is lost: "
            "that kernel is broken (run the CUDA tests); giving up\n",
            cudaGetErrorString(e), why);
    exit(1);
  }
  return total;
}

static int bmmt_cuda_driver(bmmt_driver *d) {
  cudaDeviceProp prop;
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
  if (e == cudaSuccess) e = cudaEventCreate(&bmmt__ev[0]);
  if (e == cudaSuccess) e = cudaEventCreate(&bmmt__ev[1]);
  bmmt__flush_bytes = 4 * (size_t)(prop.l2CacheSize > 0 ? prop.l2CacheSize : 0);
  if (bmmt__flush_bytes < ((size_t)64 << 20)) bmmt__flush_bytes = (size_t)64 << 20;
  if (e == cudaSuccess) e = cudaMalloc(&bmmt__flush, bmmt__flush_bytes);
  if (e != cudaSuccess) {
    fprintf(stderr, "bmm-tune: no usable CUDA device (%s); use --cpu for the CPU\n",
            cudaGetErrorString(e));
    return -1;
  }
#ifndef BMM_WITH_CUBLAS
  fprintf(stderr, "bmm-tune: built without BMM_WITH_CUBLAS: cuda_cublas cannot be timed, and "
                  "where the default table picks it the suite compares nothing\n");
#endif
  memset(d, 0, sizeof *d);
  d->backend = BMM_BACKEND_CUDA;
  d->arch = prop.major * 10 + prop.minor;
  snprintf(d->device, sizeof d->device, "%.100s sm_%d", prop.name, d->arch);
  d->alloc = bmmt__cuda_alloc, d->release = bmmt__cuda_release;
  d->upload = bmmt__cuda_upload, d->download = bmmt__cuda_download;
  d->poison = bmmt__cuda_poison, d->time = bmmt__cuda_time;
  /* 100 us of calls timed one by one: 200 event ticks of 0.5 us; a grid
     problem (~25-100 us) is 1-4 calls, each after its own flush */
  d->min_sample = 1e-4;
  return 0;
}
