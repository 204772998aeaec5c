/* tools/bmm_tune_cuda.cu - bmm-tune on the current GPU: the CUDA timing
   driver; everything else (grid, checks, compression, validation, writers) is
   tools/bmm_tune.c, included below. `build/bmm-tune-cuda --cpu` still tunes
   the CPU. Times are CUDA events around back-to-back bmm_cuda calls on the
   default stream, so each includes the host-side planning a user pays too.
   A launch that fails (bmm_cuda's status) only rules its configuration out
   at that problem; a kernel that faults ends the run, naming it, since the
   CUDA context is then lost. */
#define BMM_TUNE_CUDA 1
#define BMM_IMPLEMENTATION
#include "bmm_cuda.cuh"

#include "tools/bmm_tune.c"

static cudaEvent_t bmmt__ev[2];

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
  float ms = 0;
  int i;
  cudaError_t e;
  *st = BMM_OK;
  cudaEventRecord(bmmt__ev[0], 0);
  for (i = 0; i < calls && *st == BMM_OK; ++i)
    *st = bmm_cuda(p, 0);
  cudaEventRecord(bmmt__ev[1], 0);
  e = cudaEventSynchronize(bmmt__ev[1]);
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
  cudaEventElapsedTime(&ms, bmmt__ev[0], bmmt__ev[1]);
  return 1e-3 * (double)ms;
}

static int bmmt_cuda_driver(bmmt_driver *d) {
  cudaDeviceProp prop;
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
  if (e == cudaSuccess) e = cudaEventCreate(&bmmt__ev[0]);
  if (e == cudaSuccess) e = cudaEventCreate(&bmmt__ev[1]);
  if (e != cudaSuccess) {
    fprintf(stderr, "bmm-tune: no usable CUDA device (%s); use --cpu for the CPU\n",
            cudaGetErrorString(e));
    return -1;
  }
  memset(d, 0, sizeof *d);
  d->backend = BMM_BACKEND_CUDA;
  d->arch = prop.major * 10 + prop.minor;
  snprintf(d->device, sizeof d->device, "%.100s sm_%d", prop.name, d->arch);
  d->alloc = bmmt__cuda_alloc, d->release = bmmt__cuda_release;
  d->upload = bmmt__cuda_upload, d->download = bmmt__cuda_download;
  d->poison = bmmt__cuda_poison, d->time = bmmt__cuda_time;
  d->min_sample = 2e-4; /* 200 us: far above the events' resolution and launch jitter */
  return 0;
}
