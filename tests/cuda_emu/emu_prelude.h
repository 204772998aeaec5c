/* tests/cuda_emu/emu_prelude.h - the CUDA device language, emulated on the
   host so that g++ compiles bmm_cuda.cuh's kernels as ordinary functions.
   Included before bmm_cuda.cuh, it defines BMM__CUDA_EMULATED, which makes
   bmm_cuda.cuh take its dynamic shared memory and its one launch macro
   (BMM__CUDA_GO) from here; emu_test.cpp holds the scheduler and the
   runtime calls.

   Every thread of a block is a fiber (ucontext) on one OS thread: a fiber
   runs until __syncthreads(), __syncwarp() or a shuffle, so the interleaving is fixed and
   a missing barrier shows as wrong results, not as a rare race. This models
   arithmetic, indexing, shared-memory staging, barriers and shuffles; it
   says nothing about speed or the memory model (every access here is
   sequentially consistent). Device faults, races, coalescing and bank
   conflicts are emu_check.h's, in the clang-instrumented build. */
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
/* one block runs at a time, so a function-static array is the block's copy;
   every one lands in the section bmm_emu_shared (with the dynamic buffer
   below), whose bounds (__start_/__stop_bmm_emu_shared, from the linker) tell
   emu_check.h's tracer a shared address from a global one. clang keeps
   template statics in that range too; g++ does not, which is why the checked
   build (emu.ninja) uses clang. */
#define BMM_EMU_SHARED_SECTION __attribute__((section("bmm_emu_shared")))
#define __shared__ static BMM_EMU_SHARED_SECTION
#define __grid_constant__
#define __launch_bounds__(...)

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
/* a warp's barrier: all 32 lanes must arrive with the full mask; it orders
   shared-memory accesses between the lanes of that warp only */
void bmm_emu_syncwarp(unsigned mask = 0xffffffffu);
#define __syncwarp(...) bmm_emu_syncwarp(__VA_ARGS__)
/* always inlined: bmm_emu_shfl_xor's return address is then the kernel's
   call site, and every lane of a warp must shuffle from the same one */
template <class T>
static inline __attribute__((always_inline)) T __shfl_xor_sync(unsigned mask, T v, int lane_mask,
                                                               int width) {
  return (T)bmm_emu_shfl_xor(mask, (double)v, lane_mask, width);
}
template <class T> static inline __attribute__((always_inline)) T __ldg(const T *p) { return *p; }
/* mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32, d += a * b:
   a warp collective like a shuffle (all 32 lanes, from one call site), which
   gathers the lanes' fragments by the PTX ISA's layout, multiplies in f32
   (the products of two halves are exact) and sums in k order; the
   hardware's order and rounding of the sums inside one instruction are not
   documented, and the tests' f16/bf16 bound holds for any order */
void bmm_emu_mma(int bf16, float *d, const unsigned *a, const unsigned *b);

/* cp.async (bmm__cuda_cp_async & co): a thread's copies, in groups by
   commit, land when the thread waits for their group; or, on odd launches,
   at once (emu_test.cpp). The global read is checked and traced at the
   issue, the shared store where the copy lands. */
void bmm_emu_cp_async(void *dst, const void *src, int bytes);
void bmm_emu_cp_commit(void);
void bmm_emu_cp_wait(int pending);

/* The vector types a kernel moves 16 or 8 bytes with. A host compiler splits
   a 16-byte struct copy into pieces, so the tracer (emu_check.h) would see
   two 8-byte accesses where the GPU makes one 16-byte one: these stand-ins
   report every copy of a whole vector as one access of its full width (the
   copies that stay on a fiber's stack are then dropped as local). Without
   the tracer bmm_emu_vec_access does nothing. */
#ifdef __clang__
#define BMM_EMU_NOTRACE __attribute__((no_sanitize("coverage"), noinline))
#else
#define BMM_EMU_NOTRACE __attribute__((noinline))
#endif
void bmm_emu_vec_access(const void *site, const void *p, int bytes, int store);
/* a copy that assumes no alignment: a misaligned vector access must reach the
   checks (emu_check.h), not fault in an aligned host instruction first */
static inline void bmm_emu_vec_copy(void *d, const void *s, size_t n) {
  __asm__("" : "+r"(s));
  memcpy(d, s, n);
}
template <class E, int N> struct bmm_emu_vec_fields;
template <class E> struct bmm_emu_vec_fields<E, 2> { E x, y; };
template <class E> struct bmm_emu_vec_fields<E, 4> { E x, y, z, w; };
template <class E, int N> struct alignas(sizeof(E) * N) bmm_emu_vec : bmm_emu_vec_fields<E, N> {
  bmm_emu_vec() = default;
  BMM_EMU_NOTRACE bmm_emu_vec(const bmm_emu_vec &o) {
    bmm_emu_vec_access(__builtin_return_address(0), &o, (int)sizeof o, 0);
    bmm_emu_vec_access(__builtin_return_address(0), this, (int)sizeof o, 1);
    bmm_emu_vec_copy(this, &o, sizeof o);
  }
  BMM_EMU_NOTRACE bmm_emu_vec &operator=(const bmm_emu_vec &o) {
    bmm_emu_vec_access(__builtin_return_address(0), &o, (int)sizeof o, 0);
    bmm_emu_vec_access(__builtin_return_address(0), this, (int)sizeof o, 1);
    bmm_emu_vec_copy(this, &o, sizeof o);
    return *this;
  }
};
typedef bmm_emu_vec<unsigned, 4> bmm_emu_uint4;
typedef bmm_emu_vec<unsigned, 2> bmm_emu_uint2;
typedef bmm_emu_vec<int, 4> bmm_emu_int4;
typedef bmm_emu_vec<int, 2> bmm_emu_int2;
typedef bmm_emu_vec<float, 4> bmm_emu_float4;
typedef bmm_emu_vec<float, 2> bmm_emu_float2;
typedef bmm_emu_vec<double, 2> bmm_emu_double2;
#define uint4 bmm_emu_uint4
#define uint2 bmm_emu_uint2
#define int4 bmm_emu_int4
#define int2 bmm_emu_int2
#define float4 bmm_emu_float4
#define float2 bmm_emu_float2
#define double2 bmm_emu_double2

/* The launch: the kernel behind a type-erased pointer, args by address (the
   kernel takes them by value, as the device would). */
void bmm_emu_run(void (*kernel)(const void *), int64_t grid, int64_t block, size_t smem,
                 const void *args, size_t args_size);
#define bmm_emu_launch(kernel, grid, block, smem, stream, args)                           \
  ((void)(stream),                                                                        \
   bmm_emu_run([](const void *bmm_emu_a) { kernel(*(const decltype(args) *)bmm_emu_a); }, \
               (int64_t)(grid), (int64_t)(block), (size_t)(smem), (const void *)&(args),  \
               sizeof(args)))

/* bmm_cuda.cuh's hooks: its `extern __shared__` buffer and its launch */
#define BMM__CUDA_EMULATED 1
alignas(16) BMM_EMU_SHARED_SECTION unsigned char bmm__cuda_smem[BMM_EMU_SMEM_MAX];
extern const char *bmm_emu_last_kernel; /* its text, e.g. "bmm__cuda_loop<T>" */
#define BMM__CUDA_GO(kernel) \
  (bmm_emu_last_kernel = #kernel, bmm_emu_launch(kernel, L->grid, L->block, L->smem, st, L->args))
/* cudaFuncGetAttributes of a kernel: ptxas's registers and static shared
   memory for it (tools/model/ptxas_sm80_sm90.csv, emu_test.cpp) */
cudaError_t bmm_emu_func_attributes(struct cudaFuncAttributes *fa, const void *func,
                                    const char *kernel, const char *dtype);
#define BMM__CUDA_FUNC_ATTRIBUTES(fa, v, dt)                                           \
  bmm_emu_func_attributes(fa, bmm__cuda_kernel_of(v, dt), bmm__cuda_variant_kernel(v), \
                          bmm_dtype_name(dt))

#endif /* BMM_EMU_PRELUDE_H */
