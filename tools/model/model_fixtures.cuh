/* tools/model/model_fixtures.cuh - the seven kernel designs of the H100
   calibration table (../shared/gpu_calibration/README.md), written from its
   description as model fixtures: test kernels that bmm-model traces in the
   emulator (tests/cuda_emu) to calibrate its bandwidth model, never library
   strategies. The problem is C[b] (3x1) = A[b] (3xK) B[b] (Kx1), packed
   row-major, 256 threads per block.
     naive      one thread per output (b, i): row i of A[b] and B[b] from
                global memory, K in order
     stg<G>     a block owns G entries: scalar loads of the A and B spans into
                shared rows K + 1 apart, one barrier, thread o < 3G computes
                output (o / 3, o % 3) from shared memory
     vec<G>     as stg, 16-byte loads and stores into unpadded rows (K apart)
     skw<G>     as vec, each thread starts its K loop at threadIdx.x % K
   The same file compiles with nvcc (tools/model/ptxas_resources.sh reads the
   fixtures' registers from it) and in the emulator, which defines
   BMM__CUDA_EMULATED and the dynamic shared buffer bmm__cuda_smem. */
#ifndef BMM_MODEL_FIXTURES_CUH
#define BMM_MODEL_FIXTURES_CUH

#include <stdint.h>

#ifndef BMM__CUDA_EMULATED
extern __shared__ __align__(16) unsigned char model_fx_smem[];
#else
#define model_fx_smem bmm__cuda_smem
#endif

template <typename T> struct model_fx_args {
  const T *A, *B;
  T *C;
  int64_t batch;
  int k;
};

template <typename T> __global__ void model_fx_naive(const model_fx_args<T> a) {
  const int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (o < a.batch * 3) {
    const int64_t b = o / 3, i = o % 3;
    const T *ar = a.A + b * 3 * a.k + i * a.k, *bc = a.B + b * a.k;
    T acc = 0;
    int l;
    for (l = 0; l < a.k; ++l)
      acc += ar[l] * bc[l];
    a.C[o] = acc;
  }
}

/* the compute phase shared by the staged designs: rows ld apart, the K loop
   started at `start` (0, or the skew) */
template <typename T>
static __device__ __forceinline__ void model_fx_compute(const model_fx_args<T> &a, const T *sA,
                                                        const T *sB, int ld, int64_t b0, int cnt,
                                                        int skew) {
  const int o = (int)threadIdx.x;
  if (o < 3 * cnt) {
    const int g = o / 3, i = o % 3, k = a.k;
    const T *ar = sA + (g * 3 + i) * ld, *bc = sB + g * ld;
    int l = skew ? o % k : 0, j;
    T acc = 0;
    for (j = 0; j < k; ++j) {
      acc += ar[l] * bc[l];
      if (++l == k) l = 0;
    }
    a.C[b0 * 3 + o] = acc;
  }
}

template <typename T, int G> __global__ void model_fx_stg(const model_fx_args<T> a) {
  const int64_t b0 = (int64_t)blockIdx.x * G;
  const int cnt = (int)(a.batch - b0 < G ? a.batch - b0 : G), k = a.k, ld = k + 1;
  T *sA = (T *)model_fx_smem, *sB = sA + G * 3 * ld;
  const T *gA = a.A + b0 * 3 * k, *gB = a.B + b0 * k;
  int e;
  for (e = (int)threadIdx.x; e < cnt * 3 * k; e += (int)blockDim.x)
    sA[(e / k) * ld + e % k] = gA[e];
  for (e = (int)threadIdx.x; e < cnt * k; e += (int)blockDim.x)
    sB[(e / k) * ld + e % k] = gB[e];
  __syncthreads();
  model_fx_compute<T>(a, sA, sB, ld, b0, cnt, 0);
}

/* vec and skw: full groups only, spans a multiple of 16 bytes (the launcher
   checks) */
template <typename T, int G, int SKEW> __global__ void model_fx_vec(const model_fx_args<T> a) {
  const int64_t b0 = (int64_t)blockIdx.x * G;
  const int k = a.k, na = G * 3 * k * (int)sizeof(T) / 16, nb = G * k * (int)sizeof(T) / 16;
  T *sA = (T *)model_fx_smem, *sB = sA + G * 3 * k;
  const uint4 *gA = (const uint4 *)(a.A + b0 * 3 * k), *gB = (const uint4 *)(a.B + b0 * k);
  uint4 *vA = (uint4 *)sA, *vB = (uint4 *)sB;
  int v;
  for (v = (int)threadIdx.x; v < na; v += (int)blockDim.x)
    vA[v] = gA[v];
  for (v = (int)threadIdx.x; v < nb; v += (int)blockDim.x)
    vB[v] = gB[v];
  __syncthreads();
  model_fx_compute<T>(a, sA, sB, k, b0, G, SKEW);
}

#endif /* BMM_MODEL_FIXTURES_CUH */
