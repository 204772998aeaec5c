/* bmm.h - batched small matrix multiply, C[b] = alpha*A[b]*B[b] + beta*C[b] (+bias)
   version 0.1.0, public domain / MIT (see end of file)

   What: one descriptor (bmm_problem) describes any batched matmul that numpy's
   `matmul` can express without copies: up to 4 broadcast batch dims, any element
   strides (transposes, column-major, batch-innermost), alpha/beta, a bias row.
   A threshold table (data, not code) picks the kernel family ("strategy") per
   shape; bmm_explain says which rule matched and why.

   Use: in exactly one C or C++ file
       #define BMM_IMPLEMENTATION
       #include "bmm.h"          (pulls in bmm_cpu.h; keep both files together)
   and plain `#include "bmm.h"` elsewhere. For the GPU, do the same with
   "bmm_cuda.cuh" in one .cu file instead (it includes bmm.h itself; bmm.h
   may also come first).

       float A[1000][3][25], B[1000][25][1], C[1000][3][1];
       bmm_problem p = bmm_problem_rowmajor(BMM_F32, 1000, 3, 1, 25, A, B, C);
       bmm_status s = bmm_cpu(&p);
       if (s != BMM_OK) fprintf(stderr, "bmm: %s\n", bmm_last_error());

   Configuration macros (define before the implementation include):
     BMM_CPU_TABLE        name of a `static const bmm_table_rule[]` array that
                          replaces the compiled-in CPU default table
     BMM_FORCE_CPU_STRATEGY  a bmm_strategy (e.g. BMM_CPU_DOT) that every AUTO
                          CPU call uses instead of the table
     BMM_NO_THREADS       no locking (single-threaded programs, no pthreads)
     BMM_CPU_STREAMS      interleaved runs of batch entries each CPU thread
                          walks (1..BMM_MAX_STREAMS, default 1; a rule's
                          streams= overrides it per shape)
     BMM_CPU_PORTABLE     plain C kernels only (no GCC vector extensions in the
                          cpu_blocked tile and cpu_small's dot kernels; the
                          slower fallback, tested too)
     BMM_API              linkage of the public functions (default: extern)
   Run-time configuration:
     bmm_set_table(), bmm_load_table_file(), and the environment variable
     BMM_TABLE_FILE (a table file read at the first call; see README.md).

   Errors: every function returns a bmm_status; bmm_last_error() gives this
   thread's last detailed message. Bad input never writes C.
*/
#ifndef BMM_H
#define BMM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef BMM_API
#define BMM_API extern
#endif

#ifdef __CUDACC__
#define BMM_HD __host__ __device__
#else
#define BMM_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define BMM_VERSION "0.1.0"
#define BMM_MAX_BATCH_DIMS 4
#define BMM_TABLE_MAX_RULES 64
#define BMM_NOTE_LEN 96
#define BMM_KERNEL_LEN 32

/* ---- half-precision elements ------------------------------------------- */

/* BMM_F16 and BMM_BF16 elements: the bits of an IEEE binary16 (f16) or a
   bfloat16 (bf16, the top half of an f32) in a uint16_t, so that C99 and C++
   code without a native half type can hold, copy and pass them (the layout
   of _Float16, __half, numpy float16; of __bf16, __nv_bfloat16, ml_dtypes
   bfloat16). The two typedefs are one type to the compiler: the dtype field
   says which bits they are. Convert with the functions below: to f32 exactly,
   from f32 rounding to nearest even (subnormals kept, overflow to Inf, a NaN
   stays a quiet NaN with the top bits of its payload). */
typedef uint16_t bmm_f16;
typedef uint16_t bmm_bf16;

static inline BMM_HD uint32_t bmm__f32_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}
static inline BMM_HD float bmm__f32_from_bits(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static inline BMM_HD float bmm_f16_to_f32(bmm_f16 h) {
  const uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return bmm__f32_from_bits(s | 0x7f800000u | m << 13 | (m ? 0x400000u : 0));
  if (e == 0) /* zero or subnormal: m * 2^-24, exact in f32 */
    return bmm__f32_from_bits(s | bmm__f32_bits((float)m * 5.9604644775390625e-08f));
  return bmm__f32_from_bits(s | (e + 112) << 23 | m << 13);
}

/* Integer arithmetic only, so no FPU mode or excess precision changes a bit. */
static inline BMM_HD bmm_f16 bmm_f32_to_f16(float f) {
  const uint32_t x = bmm__f32_bits(f), s = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  uint32_t e = a >> 23, mant, shift, r, rem, half;
  if (a > 0x7f800000u) return (bmm_f16)(s | 0x7e00u | ((a >> 13) & 0x3ffu)); /* NaN, quiet */
  if (a >= 0x477ff000u) return (bmm_f16)(s | 0x7c00u); /* >= 65520 rounds to Inf */
  if (e >= 113) {                                      /* normal: 11 bits kept, 13 rounded */
    r = (a - (112u << 23)) >> 13, rem = a & 0x1fffu;
    return (bmm_f16)(s | (r + (rem > 0x1000u || (rem == 0x1000u && (r & 1)))));
  }
  if (e < 102) return (bmm_f16)s; /* below half the least subnormal (2^-25): zero */
  mant = (a & 0x7fffffu) | 0x800000u, shift = 126 - e; /* subnormal: mant * 2^(e-126) */
  r = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
  return (bmm_f16)(s | (r + (rem > half || (rem == half && (r & 1)))));
}

static inline BMM_HD float bmm_bf16_to_f32(bmm_bf16 h) {
  return bmm__f32_from_bits((uint32_t)h << 16);
}

static inline BMM_HD bmm_bf16 bmm_f32_to_bf16(float f) {
  const uint32_t x = bmm__f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (bmm_bf16)((x >> 16) | 0x40u); /* NaN, quiet */
  return (bmm_bf16)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

/* ---- the axes, each written once --------------------------------------- */

/* One row per dtype drives everything that differs by dtype:
   X(ENUM, name, storage C type, bytes, accumulation C type, unit roundoff of
     the accumulation (2^-24, 2^-53: test tolerances and the README's bound),
     cuBLAS/CUDA data type token (cudaDataType_t), unit roundoff of the
     storage type (the rounding when C is stored: 2^-11 f16, 2^-8 bf16; the
     accumulation's where storage and accumulation have the same precision)).
   Complex rows (c64, c128): the storage type is a (re, im) struct (below),
   the accumulation type the type of one component (each part is summed as a
   real dot product of 2k terms, see README "Numerics"). f16 and bf16 store
   halves (bmm_f16, bmm_bf16 above) and compute in f32: products and sums in
   f32, alpha and beta applied in f32, C rounded once when stored.
   Consumers take the columns they need and end with "..." so a new column
   breaks none of them. */
#define BMM_DTYPES(X)                                                                             \
  X(F32, f32, float, 4, float, 5.9604644775390625e-08, CUDA_R_32F, 5.9604644775390625e-08)        \
  X(F64, f64, double, 8, double, 1.1102230246251565e-16, CUDA_R_64F, 1.1102230246251565e-16)      \
  X(C64, c64, bmm_c64, 8, float, 5.9604644775390625e-08, CUDA_C_32F, 5.9604644775390625e-08)      \
  X(C128, c128, bmm_c128, 16, double, 1.1102230246251565e-16, CUDA_C_64F, 1.1102230246251565e-16) \
  X(F16, f16, bmm_f16, 2, float, 5.9604644775390625e-08, CUDA_R_16F, 4.8828125e-04)               \
  X(BF16, bf16, bmm_bf16, 2, float, 5.9604644775390625e-08, CUDA_R_16BF, 3.90625e-03)

/* Complex elements: interleaved (re, im), the layout of C99 `float _Complex`
   / `double _Complex`, C++ std::complex<float> / <double> and NumPy
   complex64 / complex128 (each guarantees it), so arrays of any of them are
   passed as they are (operand pointers are void *). A struct and not
   _Complex: C++ has no _Complex, and bmm.h is one header for C99 and C++.
   Pointers need the alignment of one component (4 or 8 bytes), as theirs. */
typedef struct bmm_c64 {
  float re, im;
} bmm_c64;
typedef struct bmm_c128 {
  double re, im;
} bmm_c128;

/* X(ENUM, name, description). Derived from strides by validation. */
#define BMM_LAYOUTS(X)                                                    \
  X(ROWMAJOR, rowmajor, "A[b][m][k], B[b][k][n], C[b][m][n], all packed") \
  X(SHARED_B, shared_b, "as rowmajor but one B for every batch entry")    \
  X(BATCH_INNER, batch_inner, "element (b,i,j) at (i*cols+j)*batch+b")    \
  X(GENERAL, general, "any other strides")

#define BMM_L_ROWMAJOR (1u << BMM_LAYOUT_ROWMAJOR)
#define BMM_L_SHARED_B (1u << BMM_LAYOUT_SHARED_B)
#define BMM_L_BATCH_INNER (1u << BMM_LAYOUT_BATCH_INNER)
#define BMM_L_GENERAL (1u << BMM_LAYOUT_GENERAL)
#define BMM_L_ALL (BMM_L_ROWMAJOR | BMM_L_SHARED_B | BMM_L_BATCH_INNER | BMM_L_GENERAL)

/* What a strategy takes besides layouts and sizes (the claim-flags column). */
#define BMM_CLAIM_CONJ 1u /* conj flags on A or B */
/* general-layout problems whose operands are packed entry after entry, each
   row- or column-major per entry (B may be one shared entry): col_a,
   trans_b, column-major; one batch dim */
#define BMM_CLAIM_PACKED 2u
/* a restriction, not a capability: f16 and bf16 only (a kernel built on the
   halves' own instructions, tensor cores' mma.sync) */
#define BMM_CLAIM_HALVES_ONLY 4u

/* Strategies: X(ENUM, name, layouts it handles, max m, max n, max k (0 = no
   limit), claim flags (BMM_CLAIM_*), what it is). Validation rejects a
   forced strategy outside its claim; a table rule whose strategy does not
   claim a problem is skipped. Kernels must be correct for everything they
   claim. cuda_cublas takes no conj flags: cuBLAS conjugates only together
   with a transpose, which the row-major call already spends, so AUTO falls
   through a cuBLAS rule for them instead of failing the call. */
#define BMM_CPU_STRATEGIES(X)                                                                   \
  X(CPU_REF, cpu_ref, BMM_L_ALL, 0, 0, 0, BMM_CLAIM_CONJ, "plain loops, any strides")           \
  X(CPU_DOT, cpu_dot, BMM_L_ALL, 0, 0, 0, BMM_CLAIM_CONJ,                                       \
    "dot / axpy loops, short columns, row tiles")                                               \
  X(CPU_SMALL, cpu_small, BMM_L_ROWMAJOR | BMM_L_SHARED_B, 16, 16, 0, BMM_CLAIM_CONJ,           \
    "fixed-size micro-kernels, else row tiles")                                                 \
  X(CPU_BLOCKED, cpu_blocked, BMM_L_ALL, 0, 0, 0, BMM_CLAIM_CONJ, "packed cache-blocked tiles") \
  X(CPU_BATCH_SIMD, cpu_batch_simd, BMM_L_BATCH_INNER, 0, 0, 0, BMM_CLAIM_CONJ,                 \
    "SIMD across the batch for batch-innermost")

#define BMM_CUDA_STRATEGIES(X)                                                                   \
  X(CUDA_LOOP, cuda_loop, BMM_L_ALL, 0, 0, 0, BMM_CLAIM_CONJ, "a thread per C element")          \
  X(CUDA_WARP, cuda_warp, BMM_L_ALL, 0, 0, 0, BMM_CLAIM_CONJ, "sub-warp per C element, split K") \
  X(CUDA_STAGED, cuda_staged, BMM_L_ROWMAJOR | BMM_L_SHARED_B, 32, 32, 128,                      \
    BMM_CLAIM_CONJ | BMM_CLAIM_PACKED, "batch groups staged in shared memory")                   \
  X(CUDA_TILED, cuda_tiled, BMM_L_ALL, 0, 0, 0, BMM_CLAIM_CONJ, "shared+register tiles")         \
  X(CUDA_BATCH_INNER, cuda_batch_inner, BMM_L_BATCH_INNER, 0, 0, 0, BMM_CLAIM_CONJ,              \
    "a thread per C element, loads coalesced across the batch")                                  \
  X(CUDA_BATCH_ENTRY, cuda_batch_entry, BMM_L_BATCH_INNER, 8, 8, 0, BMM_CLAIM_CONJ,              \
    "a thread per batch entry, its m x n sums in registers")                                     \
  X(CUDA_CUBLAS, cuda_cublas, BMM_L_ROWMAJOR | BMM_L_SHARED_B, 0, 0, 0, 0,                       \
    "cublasGemmStridedBatchedEx (needs BMM_WITH_CUBLAS)")                                        \
  X(CUDA_FIXED, cuda_fixed, BMM_L_ROWMAJOR | BMM_L_SHARED_B, 4, 4, 0, BMM_CLAIM_CONJ,            \
    "a thread per batch entry, compile-time m x n bound, all in registers")                      \
  X(CUDA_ASYNC, cuda_async, BMM_L_ROWMAJOR | BMM_L_SHARED_B, 32, 32, 128, BMM_CLAIM_CONJ,        \
    "batch groups streamed into two shared buffers by asynchronous copies")                      \
  X(CUDA_WARP_STAGED, cuda_warp_staged, BMM_L_ROWMAJOR | BMM_L_SHARED_B, 32, 32, 128,            \
    BMM_CLAIM_CONJ, "batch groups staged per warp, synchronised by __syncwarp only")             \
  X(CUDA_MMA, cuda_mma, BMM_L_ALL, 0, 0, 0, BMM_CLAIM_CONJ | BMM_CLAIM_HALVES_ONLY,              \
    "tensor cores (mma.sync m16n8k16, f32 sums; compute capability 8.0+)")

/* X(ENUM, message) */
#define BMM_STATUSES(X)                                                   \
  X(OK, "success")                                                        \
  X(NULL_POINTER, "a pointer that the problem needs is NULL")             \
  X(BAD_DTYPE, "dtype unset or unknown")                                  \
  X(BAD_STRATEGY, "strategy unknown, or not the entry point's")           \
  X(BAD_SIZE, "negative size or bad number of batch dims")                \
  X(BAD_STRIDE, "zero stride on a dimension of size > 1")                 \
  X(OVERFLOW, "a size or offset product overflows int64")                 \
  X(C_OVERLAP, "C overlaps A, B or bias")                                 \
  X(C_SELF_OVERLAP, "C's strides may map two outputs to one address")     \
  X(WRONG_BACKEND, "strategy belongs to another backend")                 \
  X(UNSUPPORTED, "the forced strategy does not handle this problem")      \
  X(BAD_TABLE, "threshold table invalid")                                 \
  X(TABLE_FILE, "table file unreadable or malformed")                     \
  X(NOT_COMPILED, "backend or strategy not compiled in")                  \
  X(NO_DEVICE, "no usable CUDA device")                                   \
  X(BAD_DEVICE_POINTER, "pointer not accessible from the device")         \
  X(CUDA_ERROR, "CUDA runtime error")                                     \
  X(MISALIGNED, "a pointer is not aligned to its element size")           \
  X(BAD_FLAG, "a conj flag or an imaginary part the dtype does not take") \
  X(BAD_PLAN, "the plan was not made by bmm_plan_problem or was changed since")

/* ---- enums ------------------------------------------------------------- */

/* dtype 0 is UNSET, not a default: guessing float for a double buffer would
   be a silent wrong answer, so validation rejects it. */
typedef enum bmm_dtype {
  BMM_DTYPE_UNSET = 0,
#define BMM__X(E, n, T, s, ...) BMM_##E,
  BMM_DTYPES(BMM__X)
#undef BMM__X
      BMM_DTYPE_COUNT
} bmm_dtype;

typedef enum bmm_layout {
#define BMM__X(E, n, d) BMM_LAYOUT_##E,
  BMM_LAYOUTS(BMM__X)
#undef BMM__X
      BMM_LAYOUT_COUNT
} bmm_layout;

typedef enum bmm_strategy {
  BMM_STRATEGY_AUTO = 0,
#define BMM__X(E, n, l, mm, mn, mk, cf, d) BMM_##E,
  BMM_CPU_STRATEGIES(BMM__X) BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X
      BMM_STRATEGY_COUNT
} bmm_strategy;

typedef enum bmm_backend {
  BMM_BACKEND_AUTO = 0,
  BMM_BACKEND_CPU,
  BMM_BACKEND_CUDA,
  BMM_BACKEND_COUNT
} bmm_backend;

typedef enum bmm_status {
#define BMM__X(E, msg) BMM_##E,
  BMM_STATUSES(BMM__X)
#undef BMM__X
      BMM_STATUS_COUNT
} bmm_status;

/* One element p[i] of dtype dt as a double, and v stored as one (halves:
   rounded to f32, then to nearest even): for code that handles every dtype
   through one switch (tests, tools, bindings). Complex dtypes are read as
   the array of their components that they are (re, im interleaved): i counts
   components, element e's real part is i = 2e, its imaginary part 2e + 1. An
   unknown dtype reads NaN and stores nothing. */
#define BMM__DBL_f32(p, i) ((double)((const float *)(p))[i])
#define BMM__DBL_f64(p, i) ((double)((const double *)(p))[i])
#define BMM__DBL_c64(p, i) ((double)((const float *)(p))[i])
#define BMM__DBL_c128(p, i) ((double)((const double *)(p))[i])
#define BMM__DBL_f16(p, i) ((double)bmm_f16_to_f32(((const bmm_f16 *)(p))[i]))
#define BMM__DBL_bf16(p, i) ((double)bmm_bf16_to_f32(((const bmm_bf16 *)(p))[i]))
#define BMM__FROM_DBL_f32(p, i, v) (((float *)(p))[i] = (float)(v))
#define BMM__FROM_DBL_f64(p, i, v) (((double *)(p))[i] = (v))
#define BMM__FROM_DBL_c64(p, i, v) (((float *)(p))[i] = (float)(v))
#define BMM__FROM_DBL_c128(p, i, v) (((double *)(p))[i] = (v))
#define BMM__FROM_DBL_f16(p, i, v) (((bmm_f16 *)(p))[i] = bmm_f32_to_f16((float)(v)))
#define BMM__FROM_DBL_bf16(p, i, v) (((bmm_bf16 *)(p))[i] = bmm_f32_to_bf16((float)(v)))
static inline BMM_HD double bmm_element_get(bmm_dtype dt, const void *p, int64_t i) {
  switch (dt) {
#define BMM__X(E, name, ...) \
  case BMM_##E: return BMM__DBL_##name(p, i);
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: return (double)bmm__f32_from_bits(0x7fc00000u);
  }
}
static inline BMM_HD void bmm_element_set(bmm_dtype dt, void *p, int64_t i, double v) {
  switch (dt) {
#define BMM__X(E, name, ...) \
  case BMM_##E: BMM__FROM_DBL_##name(p, i, v); break;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: break;
  }
}

/* ---- the problem ------------------------------------------------------- */

/* One operand: element strides (not bytes), any sign. Strides of a dimension
   of size 1 are ignored. batch_stride[d] = 0 broadcasts over batch dim d.
   conj = 1 reads the operand conjugated (complex dtypes): with the strides of
   a transpose it is A^H, with the plain strides conj(A). For a real dtype it
   is the identity (as BLAS's 'C' is 'T' there), so dtype-generic code may set
   it. 0 or 1 only; C's must be 0 (C is written, not read conjugated). */
typedef struct bmm_operand {
  const void *ptr;
  int64_t row_stride, col_stride;
  int64_t batch_stride[BMM_MAX_BATCH_DIMS];
  int conj;
} bmm_operand;

/* C[b] (m x n) = alpha * A[b] (m x k) * B[b] (k x n) + beta * C[b] + bias.
   batch[0..batch_dims) are C's batch dims, outermost first (numpy order).
   alpha and beta are used as given (0 is a value, not "default"): use a
   bmm_problem_* helper, which sets alpha = 1, beta = 0. beta == 0 never reads
   C; alpha == 0 or k == 0 never reads A or B. bias, if not NULL, holds n
   contiguous elements added to every row of every C[b]. c.ptr is written
   through, although the field is const (one operand type for all three).
   alpha_im, beta_im: imaginary parts of alpha and beta, for complex dtypes
   (0 for a real dtype, else BAD_FLAG); last in the struct, so code that sets
   only alpha and beta, or zero-initialises, is unchanged. */
typedef struct bmm_problem {
  bmm_dtype dtype;
  int64_t m, n, k;
  int batch_dims;
  int64_t batch[BMM_MAX_BATCH_DIMS];
  bmm_operand a, b, c;
  const void *bias;
  double alpha, beta;
  bmm_strategy strategy; /* AUTO (0): the table decides */
  double alpha_im, beta_im;
} bmm_problem;

/* ---- the threshold table ----------------------------------------------- */

/* A rule matches when dtype and layout are in its masks (0 = any) and every
   size lies in [min, max] (max 0 = no upper bound). Tunables 0 = the
   strategy's default; each strategy documents which it reads. */
typedef struct bmm_table_rule {
  unsigned dtypes;  /* bit (1u << bmm_dtype) */
  unsigned layouts; /* BMM_L_* bits */
  int64_t m_min, m_max, n_min, n_max, k_min, k_max, batch_min, batch_max;
  bmm_strategy strategy;
  int threads;             /* threads per block (CUDA), threads (CPU) */
  int batch_per_block;     /* batch entries per block / per CPU chunk */
  int lanes;               /* sub-warp width (CUDA_WARP) */
  int vec;                 /* load width in bytes (0 = widest aligned) */
  int tile;                /* tile edge (TILED/BLOCKED) */
  int pad;                 /* shared-memory padding or bank skew, elements */
  char note[BMM_NOTE_LEN]; /* provenance: device, date, command */
  /* CPU: run this kernel (a name bmm_explain prints after `kernel=`) where it
     belongs to the rule's strategy and fits the problem; "" = the pick
     decides. Last, so rules written positionally up to the note keep their
     meaning. */
  char kernel[BMM_KERNEL_LEN];
  /* CPU: interleaved runs of batch entries each thread walks at once (0 = the
     build's BMM_CPU_STREAMS); after kernel for the same reason */
  int streams;
} bmm_table_rule;

/* the most interleaved batch runs a CPU rule may ask for (streams=) */
#define BMM_MAX_STREAMS 16
/* The integer tunables of a rule, in the order the table text prints them:
   one list for the text format, explain, validation and the tuner. */
#define BMM_TUNABLES(X) X(threads) X(batch_per_block) X(lanes) X(vec) X(tile) X(pad) X(streams)
#define BMM__TUNABLE_ONE(name) +1
enum { BMM_TUNABLE_COUNT = 0 BMM_TUNABLES(BMM__TUNABLE_ONE) };
#undef BMM__TUNABLE_ONE

#define BMM_DT(d) (1u << (d))
/* every dtype's bit (bit 0, BMM_DTYPE_UNSET, is none) */
#define BMM__DT_ALL ((1u << BMM_DTYPE_COUNT) - 2u)

/* One rule by field name, every field not named 0 (= any / default):
     BMM_RULE(.layouts = BMM_L_BATCH_INNER, .k_max = 10, .strategy = BMM_CUDA_LOOP,
              .note = "device, date, command")
   Name fields in declaration order (C++ requires it; g++ and nvcc accept
   designated initialisers from C++11). g++'s -Wextra warns in C++ about the
   fields left out: put a table between BMM_RULES_BEGIN and BMM_RULES_END,
   which silence that warning (and only that) around it. */
#define BMM_RULE(...) \
  { __VA_ARGS__ }
#if defined(__cplusplus) && defined(__GNUC__)
/* _Pragma takes one string literal, which clang-format would split */
/* clang-format off */
#define BMM_RULES_BEGIN \
  _Pragma("GCC diagnostic push") \
  _Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")
/* clang-format on */
#define BMM_RULES_END _Pragma("GCC diagnostic pop")
#else
#define BMM_RULES_BEGIN
#define BMM_RULES_END
#endif

/* words of a plan's backend-private part (bmm_plan.priv) */
#define BMM_PLAN_PRIVATE_WORDS 20
/* What validation resolved: batch dims squeezed and merged, layout class,
   the chosen strategy and rule. Kernels read only this. */
typedef struct bmm_plan {
  bmm_dtype dtype;
  bmm_layout layout; /* the first class of `layouts`: what table rules match */
  unsigned layouts;  /* every class the problem fits (BMM_L_*): what strategies claim */
  bmm_backend backend;
  int64_t m, n, k, batch; /* batch = product of dims */
  int ndims;
  int64_t dims[BMM_MAX_BATCH_DIMS];
  bmm_operand a, b, c;
  const void *bias;
  double alpha, beta;
  double alpha_im, beta_im; /* complex dtypes; 0 for real ones */
  int use_ab;               /* alpha != 0 && k > 0 (either part of alpha) */
  int read_c;               /* beta != 0 (either part) */
  bmm_strategy strategy;
  int rule_index; /* -1 when forced */
  bmm_table_rule rule;
  /* the backend's own decision for a run, made by bmm_plan_problem (CPU: the
     kernel, its units and threads, what bmm_cpu decides on every call) and
     kept by bmm_plan_rebind; opaque, 0 where none is kept */
  uint64_t priv[BMM_PLAN_PRIVATE_WORDS];
  /* a check of the fields above, set by bmm_plan_problem and bmm_plan_rebind:
     bmm_cpu_run_plan refuses a plan changed in any other way */
  uint64_t seal;
} bmm_plan;

/* ---- functions --------------------------------------------------------- */

BMM_API const char *bmm_status_name(bmm_status s);
BMM_API const char *bmm_status_string(bmm_status s);
BMM_API const char *bmm_dtype_name(bmm_dtype d);
BMM_API const char *bmm_layout_name(bmm_layout l);
BMM_API const char *bmm_strategy_name(bmm_strategy s);
BMM_API const char *bmm_backend_name(bmm_backend b);
BMM_API size_t bmm_dtype_size(bmm_dtype d);
/* 1 for the complex dtypes (BMM_C64, BMM_C128), else 0. */
BMM_API int bmm_dtype_is_complex(bmm_dtype d);
BMM_API bmm_backend bmm_strategy_backend(bmm_strategy s);
/* This thread's last detailed error message ("" after success). */
BMM_API const char *bmm_last_error(void);

/* Packed row-major C[batch][m][n] = A[batch][m][k] * B[batch][k][n]. */
BMM_API bmm_problem bmm_problem_rowmajor(bmm_dtype dt, int64_t batch, int64_t m, int64_t n,
                                         int64_t k, const void *a, const void *b, void *c);

/* Validate and resolve (no table lookup when p->strategy is forced). */
BMM_API bmm_status bmm_plan_problem(const bmm_problem *p, bmm_backend backend, bmm_plan *out);
/* Point a plan at other buffers of the same shape and strides: a, b, c and
   bias are checked as bmm_plan_problem checks the problem's (NULL,
   alignment, C overlapping an input); on an error the plan is left as it
   was. a and b are ignored where the plan computes no A*B (alpha = 0 or
   k = 0); bias NULL for none. */
BMM_API bmm_status bmm_plan_rebind(bmm_plan *plan, const void *a, const void *b, void *c,
                                   const void *bias);
/* Does strategy s claim this plan (layout, size limits)? */
BMM_API int bmm_strategy_supports(bmm_strategy s, const bmm_plan *plan);
/* The table's matching rule, for tools that evaluate tables: does rule r
   admit the plan's dtype, layout class and sizes (masks and ranges only)? */
BMM_API int bmm_rule_matches(const bmm_table_rule *r, const bmm_plan *plan);
/* The rule a table picks for a plan, as every backend does: the first whose
   masks and ranges admit it and whose strategy claims it; -1 if none. Only
   dtype, layout, m, n, k and batch of the plan are read. */
BMM_API int bmm_table_lookup(const bmm_table_rule *rules, int count, const bmm_plan *plan);

/* Run on the CPU: p->strategy AUTO (table) or forced. */
BMM_API bmm_status bmm_cpu(const bmm_problem *p);
/* Run a plan of the CPU backend (bmm_plan_problem, then bmm_plan_rebind for
   other buffers) with no validation and no table lookup: for a loop of small
   calls, where those cost as much as the work. The strategy is the one the
   plan was made with, whatever the table says now; the bits are bmm_cpu's
   for the same problem and strategy. */
BMM_API bmm_status bmm_cpu_run_plan(const bmm_plan *plan);
/* One entry point per CPU strategy: bmm_cpu_ref(), bmm_cpu_dot(), ... */
#define BMM__X(E, name, l, mm, mn, mk, cf, d) BMM_API bmm_status bmm_##name(const bmm_problem *p);
BMM_CPU_STRATEGIES(BMM__X)
#undef BMM__X

/* The test oracle: the problem computed in long double into out[batch][m][n]
   (packed, batch flattened in C's dim order), C itself untouched. mag, if not
   NULL, gets |alpha|*sum|a||b| + |beta*c| + |bias| per element, the scale of
   the rounding error bound. Complex dtypes: out holds (re, im) pairs
   (2*batch*m*n values), mag one modulus sum per element. Same validation as
   bmm_cpu(). */
BMM_API bmm_status bmm_reference(const bmm_problem *p, long double *out, long double *mag);

/* One line: problem, layout, strategy and tunables, which rule matched and
   why earlier rules did not. Runs nothing. The CUDA backend is explained when
   the implementation was compiled from bmm_cuda.cuh (else NOT_COMPILED). */
BMM_API bmm_status bmm_explain(const bmm_problem *p, bmm_backend backend, char *buf, size_t len);

/* Replace the active table of a backend (copied; validated first: strategies of
   that backend, min <= max, last rule a catch-all whose strategy handles any
   problem). rules == NULL resets to the default (the BMM_TABLE_FILE rules if
   that variable is set, else the compiled table). */
BMM_API bmm_status bmm_set_table(bmm_backend backend, const bmm_table_rule *rules, int count);
/* Parse table text (format in README.md). All or nothing: on error *count is 0
   and the message names the line and what was expected. Rules of both
   backends may be mixed; their order is kept. */
BMM_API bmm_status bmm_table_parse(const char *text, bmm_table_rule *rules, int max_rules,
                                   int *count);
/* Parse a file and install its rules (per backend, each validated as by
   bmm_set_table) or nothing at all. */
BMM_API bmm_status bmm_load_table_file(const char *path);
/* Write rules in the file format. Returns the length needed (like snprintf). */
BMM_API size_t bmm_table_format(const bmm_table_rule *rules, int count, char *buf, size_t len);
/* Write the active table of a backend (CPU; CUDA from bmm_cuda.cuh builds) in
   the file format; snprintf-like. arch: CUDA compute capability*10 (90 for
   sm_90), ignored for the CPU. */
BMM_API size_t bmm_table_print(bmm_backend backend, int arch, char *buf, size_t len);
/* The active rules of a backend (copied into rules[max]). */
BMM_API bmm_status bmm_table_get(bmm_backend backend, int arch, bmm_table_rule *rules,
                                 int max_rules, int *count);

/* Offsets (elements) of batch entry `b` in A, B and C. */
static inline BMM_HD void bmm_batch_offsets(const bmm_plan *p, int64_t b, int64_t *oa, int64_t *ob,
                                            int64_t *oc) {
  int64_t xa = 0, xb = 0, xc = 0;
  int d;
  for (d = p->ndims - 1; d >= 0; --d) {
    int64_t i = b % p->dims[d];
    b /= p->dims[d];
    xa += i * p->a.batch_stride[d];
    xb += i * p->b.batch_stride[d];
    xc += i * p->c.batch_stride[d];
  }
  *oa = xa;
  *ob = xb;
  *oc = xc;
}

#ifdef __cplusplus
}
#endif
#endif /* BMM_H */

/* ======================================================================== */
#ifdef BMM_IMPLEMENTATION
#ifndef BMM__IMPLEMENTED
#define BMM__IMPLEMENTED

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(BMM_NO_THREADS)
#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>
#endif
#endif

#if defined(_MSC_VER)
#define BMM__TLS __declspec(thread)
#elif defined(__cplusplus) && __cplusplus >= 201103L
#define BMM__TLS thread_local
#else
#define BMM__TLS __thread
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- names and messages ------------------------------------------------ */

static BMM__TLS char bmm__err[512];

const char *bmm_last_error(void) { return bmm__err; }

/* Formats into a local buffer first: callers may pass bmm__err itself (or a
   part of it) as an argument, to wrap an inner message in an outer one. */
static bmm_status bmm__fail(bmm_status s, const char *fmt, ...) {
  char msg[sizeof bmm__err];
  va_list ap;
  int n = snprintf(msg, sizeof msg, "%s: ", bmm_status_name(s));
  va_start(ap, fmt);
  if (n > 0 && (size_t)n < sizeof msg) vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  va_end(ap);
  memcpy(bmm__err, msg, sizeof msg);
  return s;
}

/* The last message without its "STATUS: " prefix, to wrap it in another. */
static const char *bmm__err_body(void) {
  const char *c = strstr(bmm__err, ": ");
  return c ? c + 2 : bmm__err;
}

static bmm_status bmm__ok(void) {
  bmm__err[0] = 0;
  return BMM_OK;
}

const char *bmm_status_name(bmm_status s) {
  switch (s) {
#define BMM__X(E, msg) \
  case BMM_##E: return #E;
    BMM_STATUSES(BMM__X)
#undef BMM__X
  default: return "UNKNOWN_STATUS";
  }
}

const char *bmm_status_string(bmm_status s) {
  switch (s) {
#define BMM__X(E, msg) \
  case BMM_##E: return msg;
    BMM_STATUSES(BMM__X)
#undef BMM__X
  default: return "unknown status";
  }
}

const char *bmm_dtype_name(bmm_dtype d) {
  switch (d) {
#define BMM__X(E, n, T, s, ...) \
  case BMM_##E: return #n;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: return "unset";
  }
}

size_t bmm_dtype_size(bmm_dtype d) {
  switch (d) {
#define BMM__X(E, n, T, s, ...) \
  case BMM_##E: return s;
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: return 0;
  }
}

int bmm_dtype_is_complex(bmm_dtype d) { return d == BMM_C64 || d == BMM_C128; }

const char *bmm_layout_name(bmm_layout l) {
  switch (l) {
#define BMM__X(E, n, d) \
  case BMM_LAYOUT_##E: return #n;
    BMM_LAYOUTS(BMM__X)
#undef BMM__X
  default: return "unknown";
  }
}

const char *bmm_strategy_name(bmm_strategy s) {
  switch (s) {
  case BMM_STRATEGY_AUTO: return "auto";
#define BMM__X(E, n, l, mm, mn, mk, cf, d) \
  case BMM_##E: return #n;
    BMM_CPU_STRATEGIES(BMM__X)
    BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X
  default: return "unknown";
  }
}

const char *bmm_backend_name(bmm_backend b) {
  switch (b) {
  case BMM_BACKEND_AUTO: return "auto";
  case BMM_BACKEND_CPU: return "cpu";
  case BMM_BACKEND_CUDA: return "cuda";
  default: return "unknown";
  }
}

bmm_backend bmm_strategy_backend(bmm_strategy s) {
  switch (s) {
#define BMM__X(E, n, l, mm, mn, mk, cf, d) \
  case BMM_##E: return BMM_BACKEND_CPU;
    BMM_CPU_STRATEGIES(BMM__X)
#undef BMM__X
#define BMM__X(E, n, l, mm, mn, mk, cf, d) \
  case BMM_##E: return BMM_BACKEND_CUDA;
    BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X
  default: return BMM_BACKEND_AUTO;
  }
}

/* The claim of a strategy, from the lists. */
static void bmm__claim(bmm_strategy s, unsigned *layouts, int64_t *mm, int64_t *mn, int64_t *mk,
                       unsigned *flags) {
  *layouts = *flags = 0;
  *mm = *mn = *mk = 0;
  switch (s) {
#define BMM__X(E, n, l, xm, xn, xk, cf, d) \
  case BMM_##E:                            \
    *layouts = (l);                        \
    *mm = (xm);                            \
    *mn = (xn);                            \
    *mk = (xk);                            \
    *flags = (cf);                         \
    break;
    BMM_CPU_STRATEGIES(BMM__X)
    BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X
  default: break;
  }
}

static int bmm__claims_all(bmm_strategy s) {
  unsigned l, f;
  int64_t mm, mn, mk;
  bmm__claim(s, &l, &mm, &mn, &mk, &f);
  return l == BMM_L_ALL && mm == 0 && mn == 0 && mk == 0 && (f & BMM_CLAIM_CONJ) &&
         !(f & BMM_CLAIM_HALVES_ONLY);
}

/* One entry of an operand (rows x cols) packed row-major / column-major:
   the one test of packing every class and claim below is built on. */
static int bmm__rowmajor_packed(const bmm_operand *o, int64_t cols) {
  return o->col_stride == 1 && o->row_stride == cols;
}
static int bmm__colmajor_packed(const bmm_operand *o, int64_t rows) {
  return o->row_stride == 1 && o->col_stride == rows;
}

/* One operand (rows x cols) packed per entry, row- or column-major, the
   entries one after another (shared_ok: or one entry for all, stride 0). */
static int bmm__packed_entries(const bmm_operand *o, int64_t rows, int64_t cols, int shared_ok) {
  return (bmm__rowmajor_packed(o, cols) || bmm__colmajor_packed(o, rows)) &&
         (o->batch_stride[0] == rows * cols || (shared_ok && o->batch_stride[0] == 0));
}

/* BMM_CLAIM_PACKED's problems: one batch dim, C, and A, B where they are
   read, packed per entry (bmm__packed_entries). */
static int bmm__packed_problem(const bmm_plan *p) {
  if (p->ndims != 1 || !bmm__packed_entries(&p->c, p->m, p->n, 0)) return 0;
  return !p->use_ab ||
         (bmm__packed_entries(&p->a, p->m, p->k, 0) && bmm__packed_entries(&p->b, p->k, p->n, 1));
}

/* conj flags set where the strategy's claim lacks BMM_CLAIM_CONJ */
static int bmm__conj_refused(unsigned claim_flags, const bmm_plan *p) {
  return (p->a.conj || p->b.conj) && !(claim_flags & BMM_CLAIM_CONJ);
}

/* a dtype other than f16, bf16 where the claim has BMM_CLAIM_HALVES_ONLY */
static int bmm__dtype_refused(unsigned claim_flags, const bmm_plan *p) {
  return (claim_flags & BMM_CLAIM_HALVES_ONLY) && p->dtype != BMM_F16 && p->dtype != BMM_BF16;
}

int bmm_strategy_supports(bmm_strategy s, const bmm_plan *p) {
  unsigned l, f;
  int64_t mm, mn, mk;
  if (bmm_strategy_backend(s) == BMM_BACKEND_AUTO) return 0;
  bmm__claim(s, &l, &mm, &mn, &mk, &f);
  /* a plan built by hand (not by validation) may give only its layout */
  if (!(l & (p->layouts ? p->layouts : 1u << p->layout)) &&
      !((f & BMM_CLAIM_PACKED) && bmm__packed_problem(p)))
    return 0;
  if ((mm && p->m > mm) || (mn && p->n > mn) || (mk && p->k > mk)) return 0;
  return !bmm__conj_refused(f, p) && !bmm__dtype_refused(f, p);
}

/* a*b for a, b >= 0; 0 on overflow. */
static int bmm__mul(int64_t a, int64_t b, int64_t *out) {
  if (a != 0 && b > INT64_MAX / a) return 0;
  *out = a * b;
  return 1;
}

static int bmm__add(int64_t a, int64_t b, int64_t *out) {
  if (b > INT64_MAX - a) return 0;
  *out = a + b;
  return 1;
}

/* ceil(a / b) for a >= 0, b > 0 without forming a + b - 1, which overflows
   for sizes near INT64_MAX (a valid problem may have n = INT64_MAX when its
   batch is empty: the fuzzer found (n + 256 - 1) / 256 in cpu_blocked) */
static int64_t bmm__ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* a packed stride a*b; 0 where a size is negative or the product overflows
   (validation then refuses the problem: BAD_SIZE or OVERFLOW) */
static int64_t bmm__packed_stride(int64_t a, int64_t b) {
  int64_t r;
  return a >= 0 && b >= 0 && bmm__mul(a, b, &r) ? r : 0;
}

bmm_problem bmm_problem_rowmajor(bmm_dtype dt, int64_t batch, int64_t m, int64_t n, int64_t k,
                                 const void *a, const void *b, void *c) {
  bmm_problem p;
  memset(&p, 0, sizeof p);
  p.dtype = dt;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch_dims = 1;
  p.batch[0] = batch;
  p.a.ptr = a;
  p.a.row_stride = k;
  p.a.col_stride = 1;
  p.a.batch_stride[0] = bmm__packed_stride(m, k);
  p.b.ptr = b;
  p.b.row_stride = n;
  p.b.col_stride = 1;
  p.b.batch_stride[0] = bmm__packed_stride(k, n);
  p.c.ptr = c;
  p.c.row_stride = n;
  p.c.col_stride = 1;
  p.c.batch_stride[0] = bmm__packed_stride(m, n);
  p.alpha = 1.0;
  p.beta = 0.0;
  return p;
}

/* ---- validation -------------------------------------------------------- */

/* Element extent of an operand: lowest and highest offset it can touch. */
typedef struct bmm__extent {
  int64_t lo, hi;
} bmm__extent;

static bmm_status bmm__extent_of(const char *name, const bmm_operand *o, int64_t rows, int64_t cols,
                                 int nd, const int64_t *dims, bmm__extent *e) {
  int64_t size[2 + BMM_MAX_BATCH_DIMS], stride[2 + BMM_MAX_BATCH_DIMS];
  int i, n = 0;
  e->lo = e->hi = 0;
  size[n] = rows, stride[n++] = o->row_stride;
  size[n] = cols, stride[n++] = o->col_stride;
  for (i = 0; i < nd; ++i)
    size[n] = dims[i], stride[n++] = o->batch_stride[i];
  for (i = 0; i < n; ++i) {
    int64_t span;
    if (size[i] <= 1) continue;
    if (stride[i] == INT64_MIN ||
        !bmm__mul(size[i] - 1, stride[i] < 0 ? -stride[i] : stride[i], &span))
      return bmm__fail(BMM_OVERFLOW, "%s: (size %lld - 1) * stride %lld overflows int64", name,
                       (long long)size[i], (long long)stride[i]);
    if (stride[i] < 0) {
      if (!bmm__add(-e->lo, span, &span))
        return bmm__fail(BMM_OVERFLOW, "%s: offsets overflow int64", name);
      e->lo = -span;
    } else if (!bmm__add(e->hi, span, &e->hi)) {
      return bmm__fail(BMM_OVERFLOW, "%s: offsets overflow int64", name);
    }
  }
  return BMM_OK;
}

/* Sufficient test that no two (row, col, batch) indices of C share an address:
   sorted by |stride|, each stride exceeds the reach of all smaller ones. Exotic
   interleavings that pass a full Diophantine test are rejected (documented). */
static bmm_status bmm__check_c_unique(const bmm_operand *c, int64_t m, int64_t n, int nd,
                                      const int64_t *dims) {
  int64_t size[2 + BMM_MAX_BATCH_DIMS], stride[2 + BMM_MAX_BATCH_DIMS], reach = 0;
  const char *what[2 + BMM_MAX_BATCH_DIMS] = {"c.row_stride",      "c.col_stride",
                                              "c.batch_stride[0]", "c.batch_stride[1]",
                                              "c.batch_stride[2]", "c.batch_stride[3]"};
  int i, j, cnt = 0, idx[2 + BMM_MAX_BATCH_DIMS];
  int64_t all[2 + BMM_MAX_BATCH_DIMS], alls[2 + BMM_MAX_BATCH_DIMS];
  all[0] = m, alls[0] = c->row_stride;
  all[1] = n, alls[1] = c->col_stride;
  for (i = 0; i < nd; ++i)
    all[2 + i] = dims[i], alls[2 + i] = c->batch_stride[i];
  for (i = 0; i < 2 + nd; ++i) {
    if (all[i] <= 1) continue;
    if (alls[i] == 0)
      return bmm__fail(
          BMM_C_SELF_OVERLAP,
          "%s is 0 but that dimension has size %lld: two outputs would share one address", what[i],
          (long long)all[i]);
    size[cnt] = all[i];
    stride[cnt] = alls[i] < 0 ? -alls[i] : alls[i];
    idx[cnt++] = i;
  }
  for (i = 1; i < cnt; ++i) /* insertion sort by |stride|, at most 6 */
    for (j = i; j > 0 && stride[j] < stride[j - 1]; --j) {
      int64_t t = stride[j];
      int ti = idx[j];
      stride[j] = stride[j - 1], stride[j - 1] = t;
      t = size[j], size[j] = size[j - 1], size[j - 1] = t;
      idx[j] = idx[j - 1], idx[j - 1] = ti;
    }
  for (i = 0; i < cnt; ++i) {
    if (stride[i] <= reach)
      return bmm__fail(BMM_C_SELF_OVERLAP,
                       "%s = %lld does not clear the %lld elements spanned by smaller C strides: "
                       "two outputs may share one address",
                       what[idx[i]], (long long)alls[idx[i]], (long long)reach);
    reach += (size[i] - 1) * stride[i]; /* cannot overflow: extent checked */
  }
  return BMM_OK;
}

/* (hi - lo + 1) * es fits int64. lo >= -INT64_MAX (extent_of), so -lo does
   not overflow; hi - lo itself may. */
static int bmm__span_fits(bmm__extent e, size_t es) {
  int64_t n;
  return bmm__add(e.hi, -e.lo, &n) && bmm__add(n, 1, &n) && bmm__mul(n, (int64_t)es, &n);
}

static int bmm__bytes_overlap(const void *p, bmm__extent pe, const void *q, bmm__extent qe,
                              size_t es) {
  uintptr_t plo = (uintptr_t)p + (uintptr_t)(pe.lo * (int64_t)es);
  uintptr_t phi = (uintptr_t)p + (uintptr_t)(pe.hi * (int64_t)es) + es;
  uintptr_t qlo = (uintptr_t)q + (uintptr_t)(qe.lo * (int64_t)es);
  uintptr_t qhi = (uintptr_t)q + (uintptr_t)(qe.hi * (int64_t)es) + es;
  return plo < qhi && qlo < phi;
}

/* A zero stride on a dim of size > 1 in an input is almost always an unset
   field; say so rather than silently reading one row for all. */
static bmm_status bmm__check_input_strides(const char *name, const bmm_operand *o,
                                           const char *rows_name, int64_t rows,
                                           const char *cols_name, int64_t cols) {
  if (rows > 1 && o->row_stride == 0)
    return bmm__fail(BMM_BAD_STRIDE, "%s.row_stride is 0 but %s = %lld > 1", name, rows_name,
                     (long long)rows);
  if (cols > 1 && o->col_stride == 0)
    return bmm__fail(BMM_BAD_STRIDE, "%s.col_stride is 0 but %s = %lld > 1", name, cols_name,
                     (long long)cols);
  return BMM_OK;
}

/* Strides of size-1 dims mean nothing: give them the packed row-major value so
   that layout classes are recognised whatever the caller left there. */
static void bmm__canon(bmm_operand *o, int64_t rows, int64_t cols) {
  if (cols == 1) o->col_stride = 1;
  if (rows == 1) o->row_stride = cols * o->col_stride;
}

/* (b, i, j) at (i*cols + j)*batch + b; strides of size-1 dims are free. */
static int bmm__batch_inner(const bmm_operand *o, int64_t rows, int64_t cols, int64_t nb) {
  return o->batch_stride[0] == 1 && (cols == 1 || o->col_stride == nb) &&
         (rows == 1 || o->row_stride == cols * nb);
}

/* The classes one operand (rows x cols) fits, as a BMM_L_* mask; is_b: B,
   which may also be shared. One matrix (no batch dim left) is every class
   its packing allows: batch = 1 is batch-innermost as much as row-major. */
static unsigned bmm__operand_classes(const bmm_plan *p, const bmm_operand *o, int64_t rows,
                                     int64_t cols, int is_b) {
  unsigned l = BMM_L_GENERAL;
  const int packed = bmm__rowmajor_packed(o, cols);
  if (p->ndims == 0) return packed ? BMM_L_ALL : l;
  if (p->ndims != 1) return l;
  if (packed && o->batch_stride[0] == rows * cols)
    l |= BMM_L_ROWMAJOR | (is_b ? 0 : BMM_L_SHARED_B);
  if (packed && is_b && o->batch_stride[0] == 0) l |= BMM_L_SHARED_B;
  if (bmm__batch_inner(o, rows, cols, p->batch)) l |= BMM_L_BATCH_INNER;
  return l;
}

/* Every class the problem fits (strategies are held to this), and the first
   of them in list order (what table rules match and explain prints). A and B
   count only where they are read: alpha = 0 or k = 0 is classed by C alone,
   so it is never refused by a strategy that would handle it with A*B. */
static bmm_layout bmm__classify(const bmm_plan *p, unsigned *all) {
  unsigned l = bmm__operand_classes(p, &p->c, p->m, p->n, 0);
  int i;
  if (p->use_ab)
    l &= bmm__operand_classes(p, &p->a, p->m, p->k, 0) &
         bmm__operand_classes(p, &p->b, p->k, p->n, 1);
  *all = l;
  for (i = 0; i < BMM_LAYOUT_COUNT; ++i)
    if (l & (1u << i)) return (bmm_layout)i;
  return BMM_LAYOUT_GENERAL;
}

/* The pointers a plan reads (A and B where it computes A*B, bias where
   given, C) aligned to their elements: every backend's kernels load them as
   such (a misaligned load is undefined in C and slow or a fault on GPUs). */
static bmm_status bmm__check_aligned(const bmm_plan *q) {
  const void *ptrs[4];
  static const char *const names[4] = {"c.ptr", "bias", "a.ptr", "b.ptr"};
  const size_t es = bmm_dtype_size(q->dtype);
  /* complex: one component's alignment, as float _Complex and numpy have */
  const size_t al = bmm_dtype_is_complex(q->dtype) ? es / 2 : es;
  int i;
  ptrs[0] = q->c.ptr, ptrs[1] = q->bias, ptrs[2] = q->use_ab ? q->a.ptr : NULL;
  ptrs[3] = q->use_ab ? q->b.ptr : NULL;
  for (i = 0; i < 4; ++i)
    if ((uintptr_t)ptrs[i] % al != 0)
      return bmm__fail(BMM_MISALIGNED, "%s = %p is not a multiple of %d bytes (%s elements)",
                       names[i], ptrs[i], (int)al, bmm_dtype_name(q->dtype));
  return BMM_OK;
}

/* C's memory apart from A's and B's (where read, extents ea, eb) and the
   bias's (n elements); ec: C's extent */
static bmm_status bmm__check_apart(const bmm_plan *q, bmm__extent ea, bmm__extent eb,
                                   bmm__extent ec) {
  const size_t es = bmm_dtype_size(q->dtype);
  bmm__extent ebias;
  ebias.lo = 0, ebias.hi = q->n - 1;
  if (q->use_ab && bmm__bytes_overlap(q->c.ptr, ec, q->a.ptr, ea, es))
    return bmm__fail(BMM_C_OVERLAP, "C's memory range overlaps A's (C must not alias an input)");
  if (q->use_ab && bmm__bytes_overlap(q->c.ptr, ec, q->b.ptr, eb, es))
    return bmm__fail(BMM_C_OVERLAP, "C's memory range overlaps B's (C must not alias an input)");
  if (q->bias && bmm__bytes_overlap(q->c.ptr, ec, q->bias, ebias, es))
    return bmm__fail(BMM_C_OVERLAP, "C's memory range overlaps bias");
  return BMM_OK;
}

static bmm_status bmm__validate(const bmm_problem *p, bmm_plan *out) {
  bmm__extent ea = {0, 0}, eb = {0, 0}, ec = {0, 0};
  int64_t total, t;
  size_t es;
  int d, nd = 0;
  bmm_plan q;

  if (!p) return bmm__fail(BMM_NULL_POINTER, "problem is NULL");
  if (!out) return bmm__fail(BMM_NULL_POINTER, "plan is NULL");
  if ((int)p->dtype <= BMM_DTYPE_UNSET || (int)p->dtype >= BMM_DTYPE_COUNT)
    return bmm__fail(BMM_BAD_DTYPE,
                     "dtype is %d: set it to one of BMM_F32, BMM_F64, BMM_C64, BMM_C128, BMM_F16, "
                     "BMM_BF16",
                     (int)p->dtype);
  {
    /* conj: 0 or 1, never on C; imaginary parts only where the dtype has them */
    const int cplx = bmm_dtype_is_complex(p->dtype);
    if (p->a.conj != 0 && p->a.conj != 1)
      return bmm__fail(BMM_BAD_FLAG, "a.conj is %d: must be 0 or 1", p->a.conj);
    if (p->b.conj != 0 && p->b.conj != 1)
      return bmm__fail(BMM_BAD_FLAG, "b.conj is %d: must be 0 or 1", p->b.conj);
    if (p->c.conj != 0)
      return bmm__fail(BMM_BAD_FLAG,
                       "c.conj is %d: C is written, not read conjugated (set it to 0; "
                       "conj(A*B) = conj(A)*conj(B) with conj(alpha), conj(beta))",
                       p->c.conj);
    if (!cplx && p->alpha_im != 0.0)
      return bmm__fail(BMM_BAD_FLAG, "alpha_im is %g but dtype %s is real: use c64/c128 or 0",
                       p->alpha_im, bmm_dtype_name(p->dtype));
    if (!cplx && p->beta_im != 0.0)
      return bmm__fail(BMM_BAD_FLAG, "beta_im is %g but dtype %s is real: use c64/c128 or 0",
                       p->beta_im, bmm_dtype_name(p->dtype));
  }
  if ((int)p->strategy < 0 || (int)p->strategy >= BMM_STRATEGY_COUNT)
    return bmm__fail(BMM_BAD_STRATEGY, "strategy is %d, not a bmm_strategy", (int)p->strategy);
  if (p->m < 0 || p->n < 0 || p->k < 0)
    return bmm__fail(BMM_BAD_SIZE, "m, n, k = %lld, %lld, %lld: sizes must be >= 0",
                     (long long)p->m, (long long)p->n, (long long)p->k);
  if (p->batch_dims < 0 || p->batch_dims > BMM_MAX_BATCH_DIMS)
    return bmm__fail(BMM_BAD_SIZE, "batch_dims is %d, must be 0..%d", p->batch_dims,
                     BMM_MAX_BATCH_DIMS);
  for (d = 0; d < p->batch_dims; ++d)
    if (p->batch[d] < 0)
      return bmm__fail(BMM_BAD_SIZE, "batch[%d] is %lld, must be >= 0", d, (long long)p->batch[d]);

  memset(&q, 0, sizeof q);
  q.dtype = p->dtype;
  q.m = p->m, q.n = p->n, q.k = p->k;
  q.a = p->a, q.b = p->b, q.c = p->c;
  q.bias = p->bias;
  q.alpha = p->alpha, q.beta = p->beta;
  q.alpha_im = p->alpha_im, q.beta_im = p->beta_im;
  q.strategy = p->strategy;
  q.rule_index = -1;
  q.layouts = BMM_L_ALL; /* an empty problem does no work: any strategy runs it */
  q.batch = 1;
  for (d = 0; d < p->batch_dims; ++d)
    if (!bmm__mul(q.batch, p->batch[d], &q.batch))
      return bmm__fail(BMM_OVERFLOW, "batch size product overflows int64");
  if (!bmm__mul(q.m, q.n, &total) || !bmm__mul(total, q.batch, &total) || !bmm__mul(q.m, q.k, &t) ||
      !bmm__mul(t, q.batch, &t) || !bmm__mul(q.k, q.n, &t) || !bmm__mul(t, q.batch, &t))
    return bmm__fail(BMM_OVERFLOW, "m*n*batch, m*k*batch or k*n*batch overflows int64");
  q.use_ab = q.k > 0 && (q.alpha != 0.0 || q.alpha_im != 0.0);
  /* BLAS: alpha times an empty (or unread) product is not computed, so k = 0
     with an infinite or NaN alpha gives beta*C (+ bias), not NaN */
  if (!q.use_ab) q.alpha = q.alpha_im = 0.0;
  q.read_c = q.beta != 0.0 || q.beta_im != 0.0;
  *out = q;
  if (total == 0) return bmm__ok(); /* empty: nothing is read or written */

  es = bmm_dtype_size(p->dtype);
  if (!p->c.ptr) return bmm__fail(BMM_NULL_POINTER, "c.ptr is NULL");
  if (q.use_ab && !p->a.ptr)
    return bmm__fail(BMM_NULL_POINTER, "a.ptr is NULL but k > 0 and alpha != 0");
  if (q.use_ab && !p->b.ptr)
    return bmm__fail(BMM_NULL_POINTER, "b.ptr is NULL but k > 0 and alpha != 0");

  {
    bmm_status s = bmm__check_aligned(&q);
    if (s != BMM_OK) return s;
  }
  if (q.use_ab) {
    bmm_status s = bmm__check_input_strides("a", &q.a, "m", q.m, "k", q.k);
    if (s == BMM_OK) s = bmm__check_input_strides("b", &q.b, "k", q.k, "n", q.n);
    if (s == BMM_OK) s = bmm__extent_of("a", &q.a, q.m, q.k, p->batch_dims, p->batch, &ea);
    if (s == BMM_OK) s = bmm__extent_of("b", &q.b, q.k, q.n, p->batch_dims, p->batch, &eb);
    if (s != BMM_OK) return s;
  }
  {
    bmm_status s = bmm__extent_of("c", &q.c, q.m, q.n, p->batch_dims, p->batch, &ec);
    if (s != BMM_OK) return s;
    /* before the uniqueness test: its reach sums |spans| = hi - lo */
    if (!bmm__span_fits(ec, es) ||
        (q.use_ab && (!bmm__span_fits(ea, es) || !bmm__span_fits(eb, es))))
      return bmm__fail(BMM_OVERFLOW, "an operand's byte span overflows int64");
    s = bmm__check_c_unique(&q.c, q.m, q.n, p->batch_dims, p->batch);
    if (s != BMM_OK) return s;
  }
  {
    bmm_status s = bmm__check_apart(&q, ea, eb, ec);
    if (s != BMM_OK) return s;
  }

  /* squeeze size-1 batch dims, then merge neighbours that are one dim for all
     three operands: the seed's (1000,1000) batch becomes one dim of 10^6 */
  for (d = 0; d < p->batch_dims; ++d) {
    if (p->batch[d] == 1) continue;
    q.dims[nd] = p->batch[d];
    q.a.batch_stride[nd] = q.use_ab ? p->a.batch_stride[d] : 0;
    q.b.batch_stride[nd] = q.use_ab ? p->b.batch_stride[d] : 0;
    q.c.batch_stride[nd] = p->c.batch_stride[d];
    if (nd > 0 && q.a.batch_stride[nd - 1] == q.a.batch_stride[nd] * q.dims[nd] &&
        q.b.batch_stride[nd - 1] == q.b.batch_stride[nd] * q.dims[nd] &&
        q.c.batch_stride[nd - 1] == q.c.batch_stride[nd] * q.dims[nd]) {
      q.dims[nd - 1] *= q.dims[nd];
      q.a.batch_stride[nd - 1] = q.a.batch_stride[nd];
      q.b.batch_stride[nd - 1] = q.b.batch_stride[nd];
      q.c.batch_stride[nd - 1] = q.c.batch_stride[nd];
    } else {
      ++nd;
    }
  }
  for (d = nd; d < BMM_MAX_BATCH_DIMS; ++d)
    q.dims[d] = 1, q.a.batch_stride[d] = q.b.batch_stride[d] = q.c.batch_stride[d] = 0;
  q.ndims = nd;
  if (q.use_ab) {
    bmm__canon(&q.a, q.m, q.k);
    bmm__canon(&q.b, q.k, q.n);
  } else {
    q.a.ptr = q.b.ptr = NULL;
    q.a.row_stride = q.k, q.a.col_stride = 1;
    q.b.row_stride = q.n, q.b.col_stride = 1;
    for (d = 0; d < nd; ++d) {
      q.a.batch_stride[d] = q.b.batch_stride[d] = 0;
    }
    if (nd == 1) q.a.batch_stride[0] = q.m * q.k, q.b.batch_stride[0] = q.k * q.n;
  }
  bmm__canon(&q.c, q.m, q.n);
  q.layout = bmm__classify(&q, &q.layouts);
  *out = q;
  return bmm__ok();
}

/* ---- the table: state, matching, validation ---------------------------- */

#if defined(BMM_NO_THREADS)
#define BMM__LOCK() ((void)0)
#define BMM__UNLOCK() ((void)0)
#elif defined(_WIN32)
static SRWLOCK bmm__lock_obj = SRWLOCK_INIT;
#define BMM__LOCK() AcquireSRWLockExclusive(&bmm__lock_obj)
#define BMM__UNLOCK() ReleaseSRWLockExclusive(&bmm__lock_obj)
#else
static pthread_mutex_t bmm__lock_obj = PTHREAD_MUTEX_INITIALIZER;
#define BMM__LOCK() pthread_mutex_lock(&bmm__lock_obj)
#define BMM__UNLOCK() pthread_mutex_unlock(&bmm__lock_obj)
#endif

/* One slot per backend for each source, in precedence order: set by API call,
   then BMM_TABLE_FILE, then the compiled default (passed in by the backend). */
typedef struct bmm__table_slot {
  int count; /* 0 = not set */
  bmm_table_rule rules[BMM_TABLE_MAX_RULES];
} bmm__table_slot;

static struct {
  int env_read;
  bmm_status env_status;
  char env_msg[512];
  bmm__table_slot api[BMM_BACKEND_COUNT], env[BMM_BACKEND_COUNT];
} bmm__tables;

static int bmm__in(int64_t v, int64_t lo, int64_t hi) { return v >= lo && (hi == 0 || v <= hi); }

int bmm_rule_matches(const bmm_table_rule *r, const bmm_plan *p) {
  return (r->dtypes == 0 || (r->dtypes & BMM_DT(p->dtype))) &&
         (r->layouts == 0 || (r->layouts & (1u << p->layout))) &&
         bmm__in(p->m, r->m_min, r->m_max) && bmm__in(p->n, r->n_min, r->n_max) &&
         bmm__in(p->k, r->k_min, r->k_max) && bmm__in(p->batch, r->batch_min, r->batch_max);
}

int bmm_table_lookup(const bmm_table_rule *rules, int count, const bmm_plan *p) {
  int i;
  for (i = 0; i < count; ++i)
    if (bmm_rule_matches(&rules[i], p) && bmm_strategy_supports(rules[i].strategy, p)) return i;
  return -1;
}

/* Whether a strategy's code is in this build (cuda_cublas needs
   BMM_WITH_CUBLAS): a backend that compiles every strategy gives no
   function. Defined with the backends below. */
static int bmm__strategy_compiled(bmm_backend be, bmm_strategy s);

/* The table lookup of a call: as bmm_table_lookup, and a rule whose strategy
   is not compiled in is skipped like one that does not claim the problem, so
   a table may name cuda_cublas and still work in a build without cuBLAS. */
static int bmm__table_lookup_compiled(const bmm_table_rule *rules, int count, const bmm_plan *p,
                                      bmm_backend be) {
  int i;
  for (i = 0; i < count; ++i)
    if (bmm_rule_matches(&rules[i], p) && bmm_strategy_supports(rules[i].strategy, p) &&
        bmm__strategy_compiled(be, rules[i].strategy))
      return i;
  return -1;
}

static int bmm__rule_is_catch_all(const bmm_table_rule *r) {
  return (r->dtypes == 0 || (r->dtypes & BMM__DT_ALL) == BMM__DT_ALL) &&
         (r->layouts == 0 || (r->layouts & BMM_L_ALL) == BMM_L_ALL) && r->m_min == 0 &&
         r->m_max == 0 && r->n_min == 0 && r->n_max == 0 && r->k_min == 0 && r->k_max == 0 &&
         r->batch_min == 0 && r->batch_max == 0;
}

/* The backend's first strategy (list order) that handles any problem. */
static bmm_strategy bmm__first_claiming_all(bmm_backend be) {
  int s;
  for (s = 1; s < BMM_STRATEGY_COUNT; ++s)
    if (bmm_strategy_backend((bmm_strategy)s) == be && bmm__claims_all((bmm_strategy)s))
      return (bmm_strategy)s;
  return BMM_STRATEGY_AUTO;
}

/* Every field of every rule; *bad gets the index of the rule at fault (count
   for a bad count), so that a file's error can name its line. */
static int bmm__kernel_index(bmm_backend be, const char *name); /* with the backends */

static bmm_status bmm__check_table_at(bmm_backend be, const bmm_table_rule *rules, int count,
                                      int *bad) {
  int i;
  *bad = count;
  if (count < 1 || count > BMM_TABLE_MAX_RULES)
    return bmm__fail(BMM_BAD_TABLE, "%s table has %d rules, must be 1..%d", bmm_backend_name(be),
                     count, BMM_TABLE_MAX_RULES);
  for (i = 0; i < count; ++i) {
    const bmm_table_rule *r = &rules[i];
    *bad = i;
    if ((int)r->strategy <= 0 || (int)r->strategy >= BMM_STRATEGY_COUNT ||
        bmm_strategy_backend(r->strategy) != be)
      return bmm__fail(BMM_BAD_TABLE, "%s table rule %d: strategy %s is not a %s strategy",
                       bmm_backend_name(be), i, bmm_strategy_name(r->strategy),
                       bmm_backend_name(be));
    if ((r->dtypes & ~BMM__DT_ALL) || (r->layouts & ~BMM_L_ALL))
      return bmm__fail(BMM_BAD_TABLE, "%s table rule %d: unknown dtype or layout bits",
                       bmm_backend_name(be), i);
    if (r->m_min < 0 || r->n_min < 0 || r->k_min < 0 || r->batch_min < 0 || r->m_max < 0 ||
        r->n_max < 0 || r->k_max < 0 || r->batch_max < 0 || (r->m_max && r->m_max < r->m_min) ||
        (r->n_max && r->n_max < r->n_min) || (r->k_max && r->k_max < r->k_min) ||
        (r->batch_max && r->batch_max < r->batch_min))
      return bmm__fail(BMM_BAD_TABLE, "%s table rule %d: a range is negative or has max < min",
                       bmm_backend_name(be), i);
#define BMM__TUNABLE_CHECK(name)                                             \
  if (r->name < 0)                                                           \
    return bmm__fail(BMM_BAD_TABLE,                                          \
                     "%s table rule %d: " #name "=%d is negative (0 is the " \
                     "default)",                                             \
                     bmm_backend_name(be), i, r->name);
    BMM_TUNABLES(BMM__TUNABLE_CHECK)
#undef BMM__TUNABLE_CHECK
    if (r->streams > BMM_MAX_STREAMS)
      return bmm__fail(BMM_BAD_TABLE, "%s table rule %d: streams=%d is more than %d",
                       bmm_backend_name(be), i, r->streams, BMM_MAX_STREAMS);
    /* CUDA tunables a launch would have to round or clamp (it did, silently:
       threads=100 ran 128 threads while explain said "from the rule") */
    if (be == BMM_BACKEND_CUDA && r->threads && (r->threads % 32 || r->threads > 1024))
      return bmm__fail(BMM_BAD_TABLE,
                       "cuda table rule %d: threads=%d is not whole warps (a multiple of 32 in "
                       "32..1024)",
                       i, r->threads);
    if (be == BMM_BACKEND_CUDA && r->lanes &&
        (r->lanes < 2 || r->lanes > 32 || (r->lanes & (r->lanes - 1))))
      return bmm__fail(BMM_BAD_TABLE, "cuda table rule %d: lanes=%d is not a power of two in 2..32",
                       i, r->lanes);
    if (be == BMM_BACKEND_CUDA && r->vec && (r->vec > 16 || (r->vec & (r->vec - 1))))
      return bmm__fail(BMM_BAD_TABLE,
                       "cuda table rule %d: vec=%d is not a load width of 1, 2, 4, 8 or 16 "
                       "bytes",
                       i, r->vec);
    if (be == BMM_BACKEND_CUDA && r->tile && r->tile != 32 && r->tile != 64)
      return bmm__fail(BMM_BAD_TABLE, "cuda table rule %d: tile=%d is not 32 or 64", i, r->tile);
    /* the note is printed as text (explain, bmm_table_format): it must end
       within its array and stay on one line */
    if (!memchr(r->note, 0, sizeof r->note))
      return bmm__fail(BMM_BAD_TABLE,
                       "%s table rule %d: note has no terminating NUL in its %d bytes",
                       bmm_backend_name(be), i, BMM_NOTE_LEN);
    if (strpbrk(r->note, "\n\r"))
      return bmm__fail(BMM_BAD_TABLE, "%s table rule %d: note contains a line break",
                       bmm_backend_name(be), i);
    if (!memchr(r->kernel, 0, sizeof r->kernel))
      return bmm__fail(BMM_BAD_TABLE,
                       "%s table rule %d: kernel has no terminating NUL in its %d bytes",
                       bmm_backend_name(be), i, BMM_KERNEL_LEN);
    if (r->kernel[0] && bmm__kernel_index(be, r->kernel) < 0)
      return bmm__fail(BMM_BAD_TABLE,
                       "%s table rule %d: kernel=%s is not a %s kernel (bmm_explain prints the "
                       "names after kernel=; CUDA rules pin their variant by strategy and "
                       "tunables)",
                       bmm_backend_name(be), i, r->kernel, bmm_backend_name(be));
  }
  *bad = count - 1;
  if (!bmm__rule_is_catch_all(&rules[count - 1]) || !bmm__claims_all(rules[count - 1].strategy))
    return bmm__fail(
        BMM_BAD_TABLE,
        "%s table: the last rule must match everything (* * * * * *) with a strategy that "
        "handles any problem (e.g. %s)",
        bmm_backend_name(be), bmm_strategy_name(bmm__first_claiming_all(be)));
  return BMM_OK;
}

static bmm_status bmm__check_table(bmm_backend be, const bmm_table_rule *rules, int count) {
  int bad;
  return bmm__check_table_at(be, rules, count, &bad);
}

static void bmm__env_load(void); /* below, with the parser */

/* ---- backends ------------------------------------------------------------
   What bmm.h needs from a backend: the CPU's is defined at the end of this
   file (part of every implementation, so bmm__backend_get returns it without
   registering), CUDA's is registered by bmm_cuda.cuh's implementation when the program starts (a
   C++ static initialiser), whichever of bmm.h and bmm_cuda.cuh a file includes first. A backend not
   registered gives BMM_NOT_COMPILED. */
typedef struct bmm__backend_ops {
  bmm_backend backend;
  /* the compiled default rules for compute capability arch*10 (CPU: any) */
  void (*default_table)(int arch, const bmm_table_rule **rules, int *count);
  /* validate, table, pick: what a call would run (bmm_plan_problem) */
  bmm_status (*plan)(const bmm_problem *p, bmm_plan *out);
  /* the whole decision in one line (bmm_explain) */
  bmm_status (*explain)(const bmm_problem *p, char *buf, size_t len);
  /* run p; queue: the backend's stream (cudaStream_t), NULL on the CPU */
  bmm_status (*run)(const bmm_problem *p, void *queue);
  /* the index of a kernel a rule may pin by name (kernel=), -1 if none has
     it; NULL: the backend's rules pin nothing by name */
  int (*kernel_index)(const char *name);
  /* whether strategy s is compiled in; NULL: every strategy is */
  int (*compiled)(bmm_strategy s);
} bmm__backend_ops;

static const bmm__backend_ops *bmm__backends[BMM_BACKEND_COUNT];

/* The CPU backend is not in bmm__backends (see bmm__backend_get) and
   compiles every strategy. */
static int bmm__strategy_compiled(bmm_backend be, bmm_strategy s) {
  const bmm__backend_ops *ops =
      (int)be > BMM_BACKEND_AUTO && (int)be < BMM_BACKEND_COUNT ? bmm__backends[be] : NULL;
  return !ops || !ops->compiled || ops->compiled(s);
}

/* inline: only bmm_cuda.cuh's implementation calls it (a CPU-only build
   must not warn that it is unused) */
static inline int bmm__backend_register(const bmm__backend_ops *ops) {
  bmm__backends[ops->backend] = ops;
  return 1;
}

/* Copy the active rules of a backend. Caller holds the lock. */
static bmm_status bmm__active(bmm_backend be, const bmm_table_rule *dflt, int ndflt,
                              const bmm_table_rule **rules, int *count) {
  if (!bmm__tables.env_read) bmm__env_load();
  if (bmm__tables.api[be].count) {
    *rules = bmm__tables.api[be].rules, *count = bmm__tables.api[be].count;
    return BMM_OK;
  }
  if (bmm__tables.env_status != BMM_OK)
    return bmm__fail(bmm__tables.env_status, "%s", bmm__tables.env_msg);
  if (bmm__tables.env[be].count) {
    *rules = bmm__tables.env[be].rules, *count = bmm__tables.env[be].count;
    return BMM_OK;
  }
  *rules = dflt, *count = ndflt;
  return BMM_OK;
}

/* bmm_plan.seal: the sum of every field a run reads (the rule's strategy,
   tunables and kernel pin; its ranges and note are the table's business) as
   64-bit words, word i times its own odd constant, plus one more constant
   (a zeroed plan is not sealed). A change of any one field changes the sum
   (an odd constant times a nonzero difference is nonzero mod 2^64). Sums, not
   a hash chain: the multiplies are independent, ~15 ns a seal where FNV-1a's
   chain of ~60 took ~65 (Zen 4), which is what a small call costs whole. */
/* the words below: sizes and dims, three operands, bias, alpha, beta and
   their imaginary parts, five flags and indices, the tunables, the pin, the
   backend's part */
#define BMM__SEAL_WORDS                                                                    \
  (9 + BMM_MAX_BATCH_DIMS + 3 * (4 + BMM_MAX_BATCH_DIMS) + 1 + 4 + 5 + BMM_TUNABLE_COUNT + \
   (BMM_KERNEL_LEN + 7) / 8 + BMM_PLAN_PRIVATE_WORDS)
/* word i's constant */
static uint64_t bmm__seal_k(int i) { return 0x9e3779b97f4a7c15ull * (2 * (uint64_t)i + 1); }
/* the words of a.ptr, b.ptr, c.ptr and bias below (bmm_plan_rebind updates
   their terms) */
#define BMM__SEAL_OPERAND(i) (9 + BMM_MAX_BATCH_DIMS + (i) * (4 + BMM_MAX_BATCH_DIMS))
static const int bmm__seal_ptr_word[4] = {BMM__SEAL_OPERAND(0), BMM__SEAL_OPERAND(1),
                                          BMM__SEAL_OPERAND(2), BMM__SEAL_OPERAND(3)};
static uint64_t bmm__plan_seal(const bmm_plan *p) {
  uint64_t w[BMM__SEAL_WORDS], h = 0x2545f4914f6cdd1dull;
  int n = 0, d, i;
  const bmm_operand *ops[3];
  ops[0] = &p->a, ops[1] = &p->b, ops[2] = &p->c;
  w[n++] = (uint64_t)p->dtype, w[n++] = (uint64_t)p->layout, w[n++] = (uint64_t)p->layouts;
  w[n++] = (uint64_t)p->backend, w[n++] = (uint64_t)p->m, w[n++] = (uint64_t)p->n;
  w[n++] = (uint64_t)p->k, w[n++] = (uint64_t)p->batch, w[n++] = (uint64_t)p->ndims;
  for (d = 0; d < BMM_MAX_BATCH_DIMS; ++d)
    w[n++] = (uint64_t)p->dims[d];
  for (i = 0; i < 3; ++i) {
    w[n++] = (uint64_t)(uintptr_t)ops[i]->ptr, w[n++] = (uint64_t)ops[i]->row_stride;
    w[n++] = (uint64_t)ops[i]->col_stride, w[n++] = (uint64_t)ops[i]->conj;
    for (d = 0; d < BMM_MAX_BATCH_DIMS; ++d)
      w[n++] = (uint64_t)ops[i]->batch_stride[d];
  }
  w[n++] = (uint64_t)(uintptr_t)p->bias;
  memcpy(&w[n++], &p->alpha, sizeof(double)), memcpy(&w[n++], &p->beta, sizeof(double));
  memcpy(&w[n++], &p->alpha_im, sizeof(double)), memcpy(&w[n++], &p->beta_im, sizeof(double));
  w[n++] = (uint64_t)p->use_ab, w[n++] = (uint64_t)p->read_c, w[n++] = (uint64_t)p->strategy;
  w[n++] = (uint64_t)p->rule_index, w[n++] = (uint64_t)p->rule.strategy;
#define BMM__SEAL_TUNABLE(name) w[n++] = (uint64_t)p->rule.name;
  BMM_TUNABLES(BMM__SEAL_TUNABLE)
#undef BMM__SEAL_TUNABLE
  /* the pin's name, whole: a struct copy copies the bytes after its NUL too */
  for (i = 0; i < BMM_KERNEL_LEN; i += 8) {
    uint64_t v = 0;
    memcpy(&v, p->rule.kernel + i, BMM_KERNEL_LEN - i < 8 ? (size_t)(BMM_KERNEL_LEN - i) : 8);
    w[n++] = v;
  }
  for (i = 0; i < BMM_PLAN_PRIVATE_WORDS; ++i)
    w[n++] = p->priv[i];
  for (i = 0; i < n; ++i)
    h += w[i] * bmm__seal_k(i);
  return h;
}

/* A plan as bmm_plan_problem or bmm_plan_rebind left it? */
static bmm_status bmm__check_seal(const bmm_plan *pl) {
  if (pl->seal != bmm__plan_seal(pl))
    return bmm__fail(BMM_BAD_PLAN,
                     "plan: not made by bmm_plan_problem, or a field was changed since (point it "
                     "at other buffers with bmm_plan_rebind; for another shape make a new plan)");
  return BMM_OK;
}

/* The CPU backend's decision kept in a CPU plan made again where it reads
   the pointers (bmm_cpu.h); nonzero where it did */
static int bmm__cpu_plan_rebound(bmm_plan *pl);

bmm_status bmm_plan_rebind(bmm_plan *pl, const void *a, const void *b, void *c, const void *bias) {
  const void *old[4];
  bmm_status s;
  int i;
  if (!pl) return bmm__fail(BMM_NULL_POINTER, "plan is NULL");
  s = bmm__check_seal(pl);
  if (s != BMM_OK) return s;
  old[0] = pl->a.ptr, old[1] = pl->b.ptr, old[2] = pl->c.ptr, old[3] = pl->bias;
  pl->c.ptr = c, pl->bias = bias;
  if (pl->use_ab) pl->a.ptr = a, pl->b.ptr = b; /* else NULL, as bmm_plan_problem leaves them */
  if (pl->m * pl->n * pl->batch != 0) {
    if (!c)
      s = bmm__fail(BMM_NULL_POINTER, "c is NULL");
    else if (pl->use_ab && !a)
      s = bmm__fail(BMM_NULL_POINTER, "a is NULL but k > 0 and alpha != 0");
    else if (pl->use_ab && !b)
      s = bmm__fail(BMM_NULL_POINTER, "b is NULL but k > 0 and alpha != 0");
    if (s == BMM_OK) s = bmm__check_aligned(pl);
    if (s == BMM_OK) { /* the plan's merged dims reach what the problem's did */
      bmm__extent ea = {0, 0}, eb = {0, 0}, ec = {0, 0};
      if (pl->use_ab) s = bmm__extent_of("a", &pl->a, pl->m, pl->k, pl->ndims, pl->dims, &ea);
      if (s == BMM_OK && pl->use_ab)
        s = bmm__extent_of("b", &pl->b, pl->k, pl->n, pl->ndims, pl->dims, &eb);
      if (s == BMM_OK) s = bmm__extent_of("c", &pl->c, pl->m, pl->n, pl->ndims, pl->dims, &ec);
      if (s == BMM_OK) s = bmm__check_apart(pl, ea, eb, ec);
    }
  }
  if (s != BMM_OK) { /* the plan as it was */
    pl->a.ptr = old[0], pl->b.ptr = old[1], pl->c.ptr = old[2], pl->bias = old[3];
    return s;
  }
  /* the private part changed too: the whole sum; else only the four
     pointers changed: their terms of it */
  if (pl->backend == BMM_BACKEND_CPU && bmm__cpu_plan_rebound(pl))
    pl->seal = bmm__plan_seal(pl);
  else {
    const void *now[4];
    now[0] = pl->a.ptr, now[1] = pl->b.ptr, now[2] = pl->c.ptr, now[3] = pl->bias;
    for (i = 0; i < 4; ++i)
      pl->seal += ((uint64_t)(uintptr_t)now[i] - (uint64_t)(uintptr_t)old[i]) *
                  bmm__seal_k(bmm__seal_ptr_word[i]);
  }
  return bmm__ok();
}

/* The shared half of every backend's entry: validate, then pick the strategy
   (forced by the problem, forced by macro, or first table rule that matches
   and whose strategy claims the problem). */
static bmm_status bmm__plan_with(const bmm_problem *p, bmm_backend be, const bmm_table_rule *dflt,
                                 int ndflt, bmm_strategy forced_by_macro, bmm_plan *out) {
  bmm_status s = bmm__validate(p, out);
  const bmm_table_rule *rules = NULL;
  int count = 0, i;
  if (s != BMM_OK) return s;
  out->backend = be;
  if (p->strategy != BMM_STRATEGY_AUTO || forced_by_macro != BMM_STRATEGY_AUTO) {
    bmm_strategy f = p->strategy != BMM_STRATEGY_AUTO ? p->strategy : forced_by_macro;
    if (bmm_strategy_backend(f) != be)
      return bmm__fail(BMM_WRONG_BACKEND, "strategy %s is a %s strategy, this is the %s backend",
                       bmm_strategy_name(f), bmm_backend_name(bmm_strategy_backend(f)),
                       bmm_backend_name(be));
    /* an empty problem does no work, so any strategy of the backend runs it */
    if (out->m * out->n * out->batch != 0 && !bmm_strategy_supports(f, out)) {
      unsigned l, cf;
      int64_t mm, mn, mk;
      char names[96];
      size_t used = 0;
      int i;
      bmm__claim(f, &l, &mm, &mn, &mk, &cf);
      if (bmm__conj_refused(cf, out))
        return bmm__fail(BMM_UNSUPPORTED, "strategy %s takes no conj flags (a.conj=%d b.conj=%d)",
                         bmm_strategy_name(f), out->a.conj, out->b.conj);
      if (bmm__dtype_refused(cf, out))
        return bmm__fail(BMM_UNSUPPORTED, "strategy %s takes f16 and bf16 only (dtype %s)",
                         bmm_strategy_name(f), bmm_dtype_name(out->dtype));
      names[0] = 0;
      for (i = 0; i < BMM_LAYOUT_COUNT; ++i)
        if (l & (1u << i))
          used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? "," : "",
                                   bmm_layout_name((bmm_layout)i));
      if (cf & BMM_CLAIM_PACKED)
        snprintf(names + used, sizeof names - used, " (and general with packed entries)");
      return bmm__fail(
          BMM_UNSUPPORTED,
          "strategy %s handles layouts %s with m <= %lld, n <= %lld, k <= %lld (0 = any); "
          "this problem is %s with m=%lld n=%lld k=%lld",
          bmm_strategy_name(f), names, (long long)mm, (long long)mn, (long long)mk,
          bmm_layout_name(out->layout), (long long)out->m, (long long)out->n, (long long)out->k);
    }
    out->strategy = f;
    out->rule_index = -1;
    memset(&out->rule, 0, sizeof out->rule);
    out->rule.strategy = f;
    snprintf(out->rule.note, sizeof out->rule.note, "%s",
             p->strategy != BMM_STRATEGY_AUTO ? "forced by problem.strategy" : "forced by macro");
    return BMM_OK;
  }
  BMM__LOCK();
  s = bmm__active(be, dflt, ndflt, &rules, &count);
  if (s == BMM_OK) {
    i = bmm__table_lookup_compiled(rules, count, out, be);
    s = i < 0 ? BMM_BAD_TABLE : BMM_OK;
    if (i >= 0) out->rule = rules[i], out->rule_index = i, out->strategy = rules[i].strategy;
  }
  BMM__UNLOCK();
  if (s == BMM_BAD_TABLE) /* impossible for a checked table: the catch-all matches */
    return bmm__fail(s, "no rule of the %s table matches", bmm_backend_name(be));
  return s;
}

bmm_status bmm_set_table(bmm_backend be, const bmm_table_rule *rules, int count) {
  bmm_status s;
  if (be != BMM_BACKEND_CPU && be != BMM_BACKEND_CUDA)
    return bmm__fail(BMM_BAD_TABLE, "backend %d: must be BMM_BACKEND_CPU or BMM_BACKEND_CUDA",
                     (int)be);
  if (rules) {
    s = bmm__check_table(be, rules, count);
    if (s != BMM_OK) return s;
  }
  BMM__LOCK();
  if (!bmm__tables.env_read) bmm__env_load();
  bmm__tables.api[be].count = rules ? count : 0;
  if (rules) memcpy(bmm__tables.api[be].rules, rules, (size_t)count * sizeof *rules);
  BMM__UNLOCK();
  return bmm__ok();
}

/* ---- table text: format and parse -------------------------------------- */
/* One rule a line: dtypes layouts m n k batch strategy [key=value ...] [# note]
   dtypes, layouts: `*` or comma lists (f32,f64 / rowmajor,shared_b);
   ranges: `*`, `N`, `A..B` or `A..` (inclusive); keys: threads, batch_per_block,
   lanes, vec, tile, pad, and kernel=NAME (a CPU kernel the rule pins; names
   checked by the backend when the table is set). `#` starts a comment; blank
   lines are skipped. */

#define BMM__TUNABLE_LISTED(name) #name ", "
#define BMM__TUNABLE_NAME(name) #name,
static const char *const bmm__tunable_names[BMM_TUNABLE_COUNT] = {BMM_TUNABLES(BMM__TUNABLE_NAME)};
#undef BMM__TUNABLE_NAME

static int *bmm__tunable(bmm_table_rule *r, int i) {
#define BMM__TUNABLE_FIELD(name) &r->name,
  int *f[BMM_TUNABLE_COUNT] = {BMM_TUNABLES(BMM__TUNABLE_FIELD)};
#undef BMM__TUNABLE_FIELD
  return f[i];
}

typedef struct bmm__buf {
  char *p;
  size_t len, used;
} bmm__buf;

static void bmm__put(bmm__buf *b, const char *fmt, ...) {
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(b->used < b->len ? b->p + b->used : NULL, b->used < b->len ? b->len - b->used : 0,
                fmt, ap);
  va_end(ap);
  if (n > 0) b->used += (size_t)n;
}

static void bmm__put_range(bmm__buf *b, int64_t lo, int64_t hi, int width) {
  char s[48];
  if (lo == 0 && hi == 0)
    snprintf(s, sizeof s, "*");
  else if (lo == hi)
    snprintf(s, sizeof s, "%lld", (long long)lo);
  else if (hi == 0)
    snprintf(s, sizeof s, "%lld..", (long long)lo);
  else
    snprintf(s, sizeof s, "%lld..%lld", (long long)lo, (long long)hi);
  bmm__put(b, " %-*s", width, s);
}

/* A dtype mask as the table text writes it: "*" for 0, else "f32,c64,..."
   (the tuner prints its masks with it too). Returns s. */
static const char *bmm__dtype_names(unsigned dtypes, char *s, size_t len) {
  size_t n = 0;
  int i;
  s[0] = 0;
  if (dtypes == 0) snprintf(s, len, "*");
  for (i = 1; dtypes && i < BMM_DTYPE_COUNT && n < len; ++i)
    if (dtypes & BMM_DT(i))
      n += (size_t)snprintf(s + n, len - n, "%s%s", n ? "," : "", bmm_dtype_name((bmm_dtype)i));
  return s;
}

/* width 0: compact (explain); else aligned columns (files) */
static void bmm__put_rule(bmm__buf *b, const bmm_table_rule *r, int width) {
  char s[96];
  size_t n = 0;
  int i;
  bmm__put(b, "%-*s", width ? 8 : 0, bmm__dtype_names(r->dtypes, s, sizeof s));
  if (r->layouts == 0) n += (size_t)snprintf(s, sizeof s, "*");
  for (i = 0; r->layouts && i < BMM_LAYOUT_COUNT; ++i)
    if (r->layouts & (1u << i))
      n += (size_t)snprintf(s + n, sizeof s - n, "%s%s", n ? "," : "",
                            bmm_layout_name((bmm_layout)i));
  bmm__put(b, " %-*s", width ? 12 : 0, s);
  bmm__put_range(b, r->m_min, r->m_max, width);
  bmm__put_range(b, r->n_min, r->n_max, width);
  bmm__put_range(b, r->k_min, r->k_max, width);
  bmm__put_range(b, r->batch_min, r->batch_max, width);
  bmm__put(b, " %s", bmm_strategy_name(r->strategy));
  for (i = 0; i < BMM_TUNABLE_COUNT; ++i) {
    int v = *bmm__tunable((bmm_table_rule *)r, i);
    if (v) bmm__put(b, " %s=%d", bmm__tunable_names[i], v);
  }
  if (r->kernel[0]) bmm__put(b, " kernel=%s", r->kernel);
  if (r->note[0]) bmm__put(b, width ? "  # %s" : " # %s", r->note);
}

size_t bmm_table_format(const bmm_table_rule *rules, int count, char *buf, size_t len) {
  bmm__buf b;
  int i;
  b.p = buf, b.len = len, b.used = 0;
  if (buf && len) buf[0] = 0;
  bmm__put(&b, "# dtypes layouts        m         n         k         batch     strategy "
               "[tunables] # note\n");
  for (i = 0; i < count; ++i) {
    bmm__put_rule(&b, &rules[i], 9);
    bmm__put(&b, "\n");
  }
  return b.used;
}

static int bmm__word_eq(const char *w, size_t n, const char *name) {
  return strlen(name) == n && strncmp(w, name, n) == 0;
}

/* Parse an int64 in [0, INT64_MAX]; returns chars used, 0 on error. */
static size_t bmm__parse_int(const char *s, size_t n, int64_t *v) {
  size_t i = 0;
  int64_t x = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9') {
    if (x > (INT64_MAX - (s[i] - '0')) / 10) return 0;
    x = x * 10 + (s[i] - '0');
    ++i;
  }
  *v = x;
  return i;
}

static int bmm__parse_range(const char *w, size_t n, int64_t *lo, int64_t *hi) {
  size_t u;
  if (n == 1 && w[0] == '*') return *lo = *hi = 0, 1;
  u = bmm__parse_int(w, n, lo);
  if (!u) return 0;
  if (u == n) return *hi = *lo, *lo > 0; /* N: a point range; 0 would read as "any" */
  if (n - u < 2 || w[u] != '.' || w[u + 1] != '.') return 0;
  if (u + 2 == n) return *hi = 0, 1;
  if (bmm__parse_int(w + u + 2, n - u - 2, hi) != n - u - 2) return 0;
  return *hi >= *lo && *hi > 0;
}

/* Comma list of names -> bit mask; `*` -> 0. */
static int bmm__parse_mask(const char *w, size_t n, int is_dtype, unsigned *mask) {
  size_t i = 0;
  *mask = 0;
  if (n == 1 && w[0] == '*') return 1;
  if (n == 0 || w[n - 1] == ',') return 0; /* "f32," is a typo, not "f32" */
  while (i < n) {
    size_t j = i;
    int e, found = 0;
    while (j < n && w[j] != ',')
      ++j;
    if (is_dtype) {
      for (e = 1; e < BMM_DTYPE_COUNT && !found; ++e)
        if (bmm__word_eq(w + i, j - i, bmm_dtype_name((bmm_dtype)e))) *mask |= BMM_DT(e), found = 1;
    } else {
      for (e = 0; e < BMM_LAYOUT_COUNT && !found; ++e)
        if (bmm__word_eq(w + i, j - i, bmm_layout_name((bmm_layout)e))) *mask |= 1u << e, found = 1;
    }
    if (!found) return 0;
    i = j + 1;
  }
  return 1;
}

static bmm_status bmm__parse_line(const char *s, size_t n, int line, bmm_table_rule *r) {
  static const char *const what[7] = {
      "dtypes (`*` or a comma list of f32,f64,c64,c128)",
      "layouts (`*` or a comma list of rowmajor,shared_b,batch_inner,general)",
      "an m range (`*`, N, A..B or A..)",
      "an n range (`*`, N, A..B or A..)",
      "a k range (`*`, N, A..B or A..)",
      "a batch range (`*`, N, A..B or A..)",
      "a strategy name (cpu_ref, cuda_loop, ...)"};
  size_t i = 0, end = n;
  int field = 0;
  unsigned seen = 0; /* tunables given: a second value would silently win */
  memset(r, 0, sizeof *r);
  for (i = 0; i < n; ++i) /* the note: text after `#` */
    if (s[i] == '#') {
      size_t a = i + 1, b = n;
      end = i;
      while (a < b && (s[a] == ' ' || s[a] == '\t'))
        ++a;
      while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
        --b;
      if (b - a >= BMM_NOTE_LEN)
        return bmm__fail(BMM_TABLE_FILE, "line %d: note longer than %d characters", line,
                         BMM_NOTE_LEN - 1);
      memcpy(r->note, s + a, b - a);
      r->note[b - a] = 0;
      break;
    }
  i = 0;
  for (;;) {
    size_t w0, wn;
    int ok = 1;
    while (i < end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
      ++i;
    if (i >= end) break;
    w0 = i;
    while (i < end && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      ++i;
    wn = i - w0;
    switch (field) {
    case 0: ok = bmm__parse_mask(s + w0, wn, 1, &r->dtypes); break;
    case 1: ok = bmm__parse_mask(s + w0, wn, 0, &r->layouts); break;
    case 2: ok = bmm__parse_range(s + w0, wn, &r->m_min, &r->m_max); break;
    case 3: ok = bmm__parse_range(s + w0, wn, &r->n_min, &r->n_max); break;
    case 4: ok = bmm__parse_range(s + w0, wn, &r->k_min, &r->k_max); break;
    case 5: ok = bmm__parse_range(s + w0, wn, &r->batch_min, &r->batch_max); break;
    case 6: {
      int e;
      ok = 0;
      for (e = 1; e < BMM_STRATEGY_COUNT && !ok; ++e)
        if (bmm__word_eq(s + w0, wn, bmm_strategy_name((bmm_strategy)e)))
          r->strategy = (bmm_strategy)e, ok = 1;
      break;
    }
    default: {
      size_t eq = w0;
      int t, found = -1;
      int64_t v;
      while (eq < i && s[eq] != '=')
        ++eq;
      if (bmm__word_eq(s + w0, eq - w0, "kernel")) {
        size_t c, kn = i - eq - 1;
        int bad = eq + 1 >= i || kn >= BMM_KERNEL_LEN;
        for (c = eq + 1; c < i && !bad; ++c)
          bad = !((s[c] >= 'a' && s[c] <= 'z') || (s[c] >= '0' && s[c] <= '9') || s[c] == '_');
        if (bad)
          return bmm__fail(BMM_TABLE_FILE,
                           "line %d: kernel= takes a kernel name of 1..%d characters a-z, 0-9, _ "
                           "(bmm_explain prints them), got `%.*s`",
                           line, BMM_KERNEL_LEN - 1, (int)wn, s + w0);
        if (seen & (1u << BMM_TUNABLE_COUNT))
          return bmm__fail(BMM_TABLE_FILE, "line %d: kernel given twice", line);
        seen |= 1u << BMM_TUNABLE_COUNT;
        memcpy(r->kernel, s + eq + 1, kn);
        r->kernel[kn] = 0;
        break;
      }
      for (t = 0; t < BMM_TUNABLE_COUNT && eq < i; ++t)
        if (bmm__word_eq(s + w0, eq - w0, bmm__tunable_names[t])) found = t;
      if (found < 0 || eq + 1 >= i || bmm__parse_int(s + eq + 1, i - eq - 1, &v) != i - eq - 1 ||
          v > INT_MAX)
        return bmm__fail(
            BMM_TABLE_FILE,
            "line %d: expected key=value with key one of " BMM_TUNABLES(
                BMM__TUNABLE_LISTED) "and a value in 0..%d (or kernel=NAME), got `%.*s`",
            line, INT_MAX, (int)wn, s + w0);
      if (seen & (1u << found))
        return bmm__fail(BMM_TABLE_FILE, "line %d: %s given twice", line,
                         bmm__tunable_names[found]);
      seen |= 1u << found;
      *bmm__tunable(r, found) = (int)v;
    }
    }
    if (!ok)
      return bmm__fail(BMM_TABLE_FILE, "line %d, field %d: expected %s, got `%.*s`", line,
                       field + 1, what[field], (int)wn, s + w0);
    ++field;
  }
  if (field < 7)
    return bmm__fail(BMM_TABLE_FILE, "line %d: expected %s after %d field%s", line, what[field],
                     field, field == 1 ? "" : "s");
  return BMM_OK;
}

/* text[0..size): a NUL byte anywhere is the first error reported, before
   any line is parsed (a file's text would end there silently, and a file
   holding one is not text); lines[i], if not NULL, gets rule i's line
   number. */
static bmm_status bmm__parse_text(const char *text, size_t size, bmm_table_rule *rules,
                                  int max_rules, int *count, int *lines) {
  int line = 0, n = 0;
  const char *s = text, *end = text + size;
  const char *nul = (const char *)memchr(text, 0, size);
  *count = 0;
  if (nul) {
    for (line = 1; s < nul; ++s)
      line += *s == '\n';
    return bmm__fail(BMM_TABLE_FILE, "line %d: a NUL byte (a table file is text)", line);
  }
  while (s < end) {
    const char *e = (const char *)memchr(s, '\n', (size_t)(end - s));
    size_t len = e ? (size_t)(e - s) : (size_t)(end - s), i = 0;
    ++line;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
      ++i;
    if (i < len && s[i] != '#') {
      bmm_status st;
      if (n >= max_rules)
        return bmm__fail(BMM_TABLE_FILE, "line %d: more than %d rules", line, max_rules);
      st = bmm__parse_line(s, len, line, &rules[n]);
      if (st != BMM_OK) return st;
      if (lines) lines[n] = line;
      ++n;
    }
    s += len + (e ? 1 : 0);
  }
  *count = n;
  return bmm__ok();
}

bmm_status bmm_table_parse(const char *text, bmm_table_rule *rules, int max_rules, int *count) {
  if (count) *count = 0;
  if (!text || !rules || !count)
    return bmm__fail(BMM_NULL_POINTER, "text, rules and count must not be NULL");
  return bmm__parse_text(text, strlen(text), rules, max_rules, count, NULL);
}

/* Split parsed rules by backend and check each part; fills slots, or fails. */
/* lines[i]: rule i's line in the file, so that every error names one. */
static bmm_status bmm__split(const bmm_table_rule *rules, const int *lines, int n,
                             bmm__table_slot *slots) {
  int i, be, at[BMM_BACKEND_COUNT][BMM_TABLE_MAX_RULES];
  for (be = 0; be < BMM_BACKEND_COUNT; ++be)
    slots[be].count = 0;
  for (i = 0; i < n; ++i) {
    bmm__table_slot *t = &slots[bmm_strategy_backend(rules[i].strategy)];
    if (t->count == BMM_TABLE_MAX_RULES)
      return bmm__fail(BMM_TABLE_FILE, "line %d: more than %d %s rules", lines[i],
                       BMM_TABLE_MAX_RULES,
                       bmm_backend_name(bmm_strategy_backend(rules[i].strategy)));
    at[bmm_strategy_backend(rules[i].strategy)][t->count] = lines[i];
    t->rules[t->count++] = rules[i];
  }
  for (be = BMM_BACKEND_CPU; be < BMM_BACKEND_COUNT; ++be) {
    int bad = 0;
    bmm_status s = slots[be].count ? bmm__check_table_at((bmm_backend)be, slots[be].rules,
                                                         slots[be].count, &bad)
                                   : BMM_OK;
    if (s != BMM_OK)
      return bmm__fail(BMM_TABLE_FILE, "line %d: %s", at[be][bad < slots[be].count ? bad : 0],
                       bmm__err_body());
  }
  if (n == 0) return bmm__fail(BMM_TABLE_FILE, "no rules");
  return BMM_OK;
}

/* Reads to the end of whatever the path is: a pipe or FIFO (what
   BMM_TABLE_FILE=<(...) gives) and /proc files have no size to seek to. */
static bmm_status bmm__read_file(const char *path, char **text, size_t *size) {
  enum { MAX_BYTES = 1 << 20 }; /* 128 rules of 95-character notes fit many times */
  FILE *f = fopen(path, "rb");
  size_t n = 0, got;
  int err;
  *text = NULL, *size = 0;
  if (!f) return bmm__fail(BMM_TABLE_FILE, "cannot open `%s`: %s", path, strerror(errno));
  *text = (char *)malloc((size_t)MAX_BYTES + 2);
  if (!*text) {
    fclose(f);
    return bmm__fail(BMM_TABLE_FILE, "`%s`: out of memory", path);
  }
  errno = 0;
  while (n <= MAX_BYTES && (got = fread(*text + n, 1, (size_t)MAX_BYTES + 1 - n, f)) > 0)
    n += got;
  err = ferror(f) ? errno : 0;
  fclose(f);
  if (err || n > MAX_BYTES) {
    free(*text);
    *text = NULL;
    if (err) return bmm__fail(BMM_TABLE_FILE, "`%s`: read failed: %s", path, strerror(err));
    return bmm__fail(BMM_TABLE_FILE, "`%s`: larger than 1 MiB", path);
  }
  (*text)[n] = 0;
  *size = n;
  return BMM_OK;
}

/* Parse a file into per-backend slots; all or nothing. */
static bmm_status bmm__parse_file(const char *path, bmm__table_slot *slots) {
  static bmm_table_rule rules[BMM_TABLE_MAX_RULES * 2]; /* callers hold the lock or are single */
  static int lines[BMM_TABLE_MAX_RULES * 2];
  char *text;
  size_t size;
  int n;
  bmm_status s = bmm__read_file(path, &text, &size);
  if (s != BMM_OK) return s;
  s = bmm__parse_text(text, size, rules, BMM_TABLE_MAX_RULES * 2, &n, lines);
  free(text);
  if (s == BMM_OK) s = bmm__split(rules, lines, n, slots);
  if (s != BMM_OK) {
    char msg[sizeof bmm__err];
    memcpy(msg, bmm__err_body(), sizeof msg - 1);
    msg[sizeof msg - 1] = 0;
    return bmm__fail(BMM_TABLE_FILE, "`%s` %s", path, msg);
  }
  return BMM_OK;
}

/* Caller holds the lock. A bad BMM_TABLE_FILE makes every table lookup fail
   with its message (until bmm_set_table overrides): ignoring a table the user
   asked for would be a silent surprise. */
static void bmm__env_load(void) {
  static bmm__table_slot slots[BMM_BACKEND_COUNT];
  const char *path = getenv("BMM_TABLE_FILE");
  int be;
  bmm__tables.env_read = 1;
  bmm__tables.env_status = BMM_OK;
  if (!path || !*path) return;
  if (bmm__parse_file(path, slots) != BMM_OK) {
    bmm__tables.env_status = BMM_TABLE_FILE;
    size_t n = strlen(bmm__err_body());
    if (n > sizeof bmm__tables.env_msg - 16) n = sizeof bmm__tables.env_msg - 16;
    memcpy(bmm__tables.env_msg, "BMM_TABLE_FILE=", 15);
    memcpy(bmm__tables.env_msg + 15, bmm__err_body(), n);
    bmm__tables.env_msg[15 + n] = 0;
    return;
  }
  for (be = 0; be < BMM_BACKEND_COUNT; ++be)
    bmm__tables.env[be] = slots[be];
}

bmm_status bmm_load_table_file(const char *path) {
  static bmm__table_slot slots[BMM_BACKEND_COUNT];
  bmm_status s;
  int be;
  if (!path) return bmm__fail(BMM_NULL_POINTER, "path is NULL");
  BMM__LOCK();
  if (!bmm__tables.env_read) bmm__env_load();
  s = bmm__parse_file(path, slots);
  if (s == BMM_OK)
    for (be = BMM_BACKEND_CPU; be < BMM_BACKEND_COUNT; ++be)
      if (slots[be].count) bmm__tables.api[be] = slots[be];
  BMM__UNLOCK();
  return s == BMM_OK ? bmm__ok() : s;
}

/* ---- explain ----------------------------------------------------------- */

static const char *bmm__range_miss(const bmm_table_rule *r, const bmm_plan *p) {
  if (r->dtypes && !(r->dtypes & BMM_DT(p->dtype))) return "dtype";
  if (r->layouts && !(r->layouts & (1u << p->layout))) return "layout";
  if (!bmm__in(p->m, r->m_min, r->m_max)) return "m";
  if (!bmm__in(p->n, r->n_min, r->n_max)) return "n";
  if (!bmm__in(p->k, r->k_min, r->k_max)) return "k";
  if (!bmm__in(p->batch, r->batch_min, r->batch_max)) return "batch";
  return NULL;
}

/* Shared text of explain for any backend: problem, choice, why. */
static size_t bmm__explain_plan(const bmm_plan *p, const bmm_table_rule *rules, int count,
                                char *buf, size_t len) {
  bmm__buf b;
  int i;
  b.p = buf, b.len = len, b.used = 0;
  if (buf && len) buf[0] = 0;
  bmm__put(&b, "%s %s m=%lld n=%lld k=%lld batch=%lld (%d dim%s) layout=%s -> %s",
           bmm_backend_name(p->backend), bmm_dtype_name(p->dtype), (long long)p->m, (long long)p->n,
           (long long)p->k, (long long)p->batch, p->ndims, p->ndims == 1 ? "" : "s",
           bmm_layout_name(p->layout), bmm_strategy_name(p->strategy));
  for (i = 0; i < BMM_TUNABLE_COUNT; ++i) {
    int v = *bmm__tunable((bmm_table_rule *)&p->rule, i);
    if (v) bmm__put(&b, " %s=%d", bmm__tunable_names[i], v);
  }
  if (p->rule.kernel[0]) bmm__put(&b, " kernel=%s", p->rule.kernel);
  /* a real dtype ignores conj (the identity), so it shows only for complex */
  if (bmm_dtype_is_complex(p->dtype) && (p->a.conj || p->b.conj))
    bmm__put(&b, " conj=%s%s%s", p->a.conj ? "a" : "", p->a.conj && p->b.conj ? "," : "",
             p->b.conj ? "b" : "");
  if (p->rule_index < 0) {
    bmm__put(&b, "; %s", p->rule.note);
    return b.used;
  }
  bmm__put(&b, "; rule %d of %d matched [", p->rule_index, count);
  bmm__put_rule(&b, &p->rule, 0);
  bmm__put(&b, "]");
  for (i = 0; i < p->rule_index && i < count; ++i) {
    const char *miss = bmm__range_miss(&rules[i], p);
    if (i == 0) bmm__put(&b, "; skipped:");
    if (miss)
      bmm__put(&b, " rule %d (%s out of range)", i, miss);
    else if (bmm_strategy_supports(rules[i].strategy, p))
      bmm__put(&b, " rule %d (%s not compiled in)", i, bmm_strategy_name(rules[i].strategy));
    else
      bmm__put(&b, " rule %d (%s does not handle %s m=%lld n=%lld k=%lld)", i,
               bmm_strategy_name(rules[i].strategy), bmm_layout_name(p->layout), (long long)p->m,
               (long long)p->n, (long long)p->k);
  }
  return b.used;
}

/* Explain through a given default table; used by every backend. */
static bmm_status bmm__explain_with(const bmm_problem *p, bmm_backend be,
                                    const bmm_table_rule *dflt, int ndflt, bmm_strategy forced,
                                    char *buf, size_t len, bmm_plan *plan_out) {
  static BMM__TLS bmm_table_rule copy[BMM_TABLE_MAX_RULES];
  const bmm_table_rule *rules = NULL;
  int count = 0;
  bmm_status s;
  if (!buf || !len) return bmm__fail(BMM_NULL_POINTER, "buf is NULL or len is 0");
  buf[0] = 0;
  s = bmm__plan_with(p, be, dflt, ndflt, forced, plan_out);
  if (s != BMM_OK) {
    snprintf(buf, len, "%s", bmm__err);
    return s;
  }
  BMM__LOCK();
  if (bmm__active(be, dflt, ndflt, &rules, &count) == BMM_OK)
    memcpy(copy, rules, (size_t)count * sizeof *rules);
  BMM__UNLOCK();
  bmm__explain_plan(plan_out, copy, count, buf, len);
  return bmm__ok();
}

static bmm_status bmm__table_get_with(bmm_backend be, const bmm_table_rule *dflt, int ndflt,
                                      bmm_table_rule *out, int max, int *count) {
  const bmm_table_rule *rules = NULL;
  int n = 0;
  bmm_status s;
  if (!out || !count) return bmm__fail(BMM_NULL_POINTER, "rules and count must not be NULL");
  *count = 0;
  BMM__LOCK();
  s = bmm__active(be, dflt, ndflt, &rules, &n);
  if (s == BMM_OK && n <= max) memcpy(out, rules, (size_t)n * sizeof *rules);
  BMM__UNLOCK();
  if (s != BMM_OK) return s;
  if (n > max) return bmm__fail(BMM_BAD_TABLE, "table has %d rules, buffer holds %d", n, max);
  *count = n;
  return bmm__ok();
}

#ifdef __cplusplus
}
#endif

/* ---- the CPU backend: kernels, bmm_cpu and the bmm_<strategy> entry
   points, bmm_reference, and its descriptor bmm__cpu_backend ------------- */
#include "bmm_cpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the API over the registered backends ------------------------------ */

/* The registered backend, or NULL with the NOT_COMPILED message set. The
   CPU backend is part of every implementation and is returned directly: C
   has no static initialisers, and registering it on first use was a write
   that concurrent first calls raced on (TSan, test_threads_tsan_omp). */
static const bmm__backend_ops *bmm__backend_get(bmm_backend be) {
  if (be == BMM_BACKEND_AUTO) be = BMM_BACKEND_CPU; /* as before backends registered */
  if (be == BMM_BACKEND_CPU) return &bmm__cpu_backend;
  if ((int)be <= BMM_BACKEND_AUTO || (int)be >= BMM_BACKEND_COUNT) {
    bmm__fail(BMM_NOT_COMPILED, "backend %d: no such backend", (int)be);
    return NULL;
  }
  if (!bmm__backends[be])
    bmm__fail(BMM_NOT_COMPILED,
              "%s backend: not compiled in (for CUDA: compile the "
              "implementation from bmm_cuda.cuh)",
              bmm_backend_name(be));
  return bmm__backends[be];
}

static int bmm__kernel_index(bmm_backend be, const char *name) {
  const bmm__backend_ops *ops =
      be == BMM_BACKEND_CPU
          ? &bmm__cpu_backend
          : ((int)be > 0 && (int)be < BMM_BACKEND_COUNT ? bmm__backends[be] : NULL);
  return ops && ops->kernel_index ? ops->kernel_index(name) : -1;
}

bmm_status bmm_plan_problem(const bmm_problem *p, bmm_backend be, bmm_plan *out) {
  const bmm__backend_ops *ops = bmm__backend_get(be);
  const bmm_status s = ops ? ops->plan(p, out) : BMM_NOT_COMPILED;
  /* sealed here, not in every call's plan: a call runs the plan it made */
  if (s == BMM_OK) out->seal = bmm__plan_seal(out);
  return s;
}

bmm_status bmm_explain(const bmm_problem *p, bmm_backend be, char *buf, size_t len) {
  const bmm__backend_ops *ops = bmm__backend_get(be);
  if (ops) return ops->explain(p, buf, len);
  if (buf && len) { /* the message, cut to len (a copy: snprintf would warn it may cut) */
    size_t n = strlen(bmm__err);
    if (n >= len) n = len - 1;
    memcpy(buf, bmm__err, n);
    buf[n] = 0;
  }
  return BMM_NOT_COMPILED;
}

bmm_status bmm_table_get(bmm_backend be, int arch, bmm_table_rule *rules, int max, int *count) {
  const bmm__backend_ops *ops = bmm__backend_get(be);
  const bmm_table_rule *d;
  int nd;
  if (!ops) return BMM_NOT_COMPILED;
  ops->default_table(arch, &d, &nd);
  return bmm__table_get_with(be, d, nd, rules, max, count);
}

size_t bmm_table_print(bmm_backend be, int arch, char *buf, size_t len) {
  static BMM__TLS bmm_table_rule rules[BMM_TABLE_MAX_RULES];
  int n = 0;
  if (bmm_table_get(be, arch, rules, BMM_TABLE_MAX_RULES, &n) != BMM_OK) {
    if (buf && len) snprintf(buf, len, "# %s\n", bmm__err);
    return 0;
  }
  return bmm_table_format(rules, n, buf, len);
}

#ifdef __cplusplus
}
#endif
#endif /* BMM__IMPLEMENTED */
#endif /* BMM_IMPLEMENTATION */

/* License: MIT or public domain (Unlicense), at your choice. */
