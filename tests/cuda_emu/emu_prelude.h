/* tests/cuda_emu/emu_prelude.h - the CUDA device language, emulated on the
   host so that g++ compiles bmm_cuda.cuh's kernels as ordinary functions.
   Included before bmm_cuda.cuh, it defines BMM__CUDA_EMULATED, which makes
   bmm_cuda.cuh take its dynamic shared memory and its one launch macro
   (BMM__CUDA_GO) from here; emu_test.cpp holds the scheduler and the
   runtime calls.

   Every thread of a block is a fiber (ucontext) on one OS thread: a fiber
   runs until __syncthreads() or a shuffle, so the interleaving is fixed and
   a missing barrier shows as wrong results, not as a rare race. This models
   arithmetic, indexing, shared-memory staging, barriers and shuffles; it
   says nothing about speed, coalescing, real device faults or the memory
   model (every access here is sequentially consistent). */
#ifndef BMM_EMU_PRELUDE_H
#define BMM_EMU_PRELUDE_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

/* host_defines.h gives these host meanings that do not fit a kernel run as a
   host function (__global__ would need a launch stub, __shared__ must be one
   copy per block, not per thread) */
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __shared__
#undef __grid_constant__
#undef __launch_bounds__
#define __global__ static
#define __device__
#define __host__
#define __forceinline__ inline
/* one block runs at a time, so a function-static array is the block's copy */
#define __shared__ static
#define __grid_constant__
#define __launch_bounds__(x)

/* dynamic shared memory: the opt-in maximum of an H100, which the emulated
   device reports, so STAGED's largest configurations launch */
#define BMM_EMU_SMEM_MAX 232448

/* the scheduler sets these before it resumes a fiber */
struct bmm_emu_dim {
  unsigned x, y, z;
};
extern bmm_emu_dim bmm_emu_thread_idx, bmm_emu_block_idx, bmm_emu_block_dim, bmm_emu_grid_dim;
#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim
#define threadIdx bmm_emu_thread_idx
#define blockIdx bmm_emu_block_idx
#define blockDim bmm_emu_block_dim
#define gridDim bmm_emu_grid_dim

void bmm_emu_syncthreads(void);
/* every lane of the warp must arrive with the full mask, as on sm_70+ with
   a 0xffffffff mask; the value travels as a double, exact for f32 and f64 */
double bmm_emu_shfl_xor(unsigned mask, double v, int lane_mask, int width);
#define __syncthreads() bmm_emu_syncthreads()
template <class T> static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width) {
  return (T)bmm_emu_shfl_xor(mask, (double)v, lane_mask, width);
}
template <class T> static inline T __ldg(const T *p) { return *p; }

/* The launch: the kernel behind a type-erased pointer, args by address (the
   kernel takes them by value, as the device would). */
void bmm_emu_run(void (*kernel)(const void *), int64_t grid, int64_t block, size_t smem,
                 const void *args);
#define bmm_emu_launch(kernel, grid, block, smem, stream, args)                           \
  ((void)(stream),                                                                        \
   bmm_emu_run([](const void *bmm_emu_a) { kernel(*(const decltype(args) *)bmm_emu_a); }, \
               (int64_t)(grid), (int64_t)(block), (size_t)(smem), (const void *)&(args)))

/* bmm_cuda.cuh's hooks: its `extern __shared__` buffer and its launch */
#define BMM__CUDA_EMULATED 1
alignas(16) unsigned char bmm__cuda_smem[BMM_EMU_SMEM_MAX];
extern const char *bmm_emu_last_kernel; /* its text, e.g. "bmm__cuda_loop<T>" */
#define BMM__CUDA_GO(kernel) \
  (bmm_emu_last_kernel = #kernel, bmm_emu_launch(kernel, L->grid, L->block, L->smem, st, L->args))

#endif /* BMM_EMU_PRELUDE_H */
