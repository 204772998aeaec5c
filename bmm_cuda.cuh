/* bmm_cuda.cuh - the CUDA backend of bmm (see bmm.h for the problem, the
   table and explain). Header-only like bmm.h.

   Use: in exactly one .cu file
       #define BMM_IMPLEMENTATION
       #include "bmm_cuda.cuh"      (includes bmm.h, which includes bmm_cpu.h)
   and plain `#include "bmm_cuda.cuh"` in other .cu files. bmm.h may come
   before or after it: the backend registers itself with bmm.h's
   implementation. Then

       bmm_problem p = bmm_problem_rowmajor(BMM_F32, batch, m, n, k, dA, dB, dC);
       bmm_status s = bmm_cuda(&p, stream);

   Every call is one kernel launch on `stream` (none for an empty problem,
   two for cuda_cublas with a bias): no allocation, no synchronisation, no
   host<->device copy, so it can be captured in a CUDA graph.

   Pointers must be device, managed or mapped pinned memory (plain host
   memory only where the device can read pageable memory); others give
   BMM_BAD_DEVICE_POINTER before anything is launched.

   Every dtype runs on every kernel strategy but cuda_mma (tensor cores: f16
   and bf16 only): f16 and bf16 sum in f32 and round C once, c64 and c128
   take the conj flags and complex alpha, beta (bmm__cuda_num below is what
   differs by dtype).

   One entry per strategy forces it: bmm_cuda_loop(p, stream),
   bmm_cuda_warp, bmm_cuda_staged, bmm_cuda_tiled, bmm_cuda_batch_inner,
   bmm_cuda_batch_entry, bmm_cuda_cublas, bmm_cuda_fixed, bmm_cuda_async,
   bmm_cuda_warp_staged, bmm_cuda_mma.

   Configuration macros (define before the implementation include):
     BMM_CUDA_TABLE_SM90, BMM_CUDA_TABLE_SM80, BMM_CUDA_TABLE_GENERIC
                          name of a `static const bmm_table_rule[]` that
                          replaces the default table for compute capability
                          9.0, 8.x, or any other device (BMM_RULE writes rules)
     BMM_FORCE_CUDA_STRATEGY  a CUDA bmm_strategy every AUTO call uses
     BMM_WITH_CUBLAS      compile the cuda_cublas strategy (link -lcublas);
                          without it that strategy returns BMM_NOT_COMPILED
   The tables are also in tables/sm90.txt, sm80.txt, generic.txt (text form,
   loadable with BMM_TABLE_FILE or bmm_load_table_file; written by
   build/test_cuda --print-table ARCH, checked by build/test_cuda --no-device
   and by the emulator test).

   Strategies and the rule tunables each reads (0 = the default in brackets):
     cuda_loop         threads [256]
     cuda_warp         threads [256], lanes: sub-warp width, rounded up to a
                       power of two in 2..32 [about k/4]
     cuda_staged       threads [128], batch_per_block [threads / (m*n), within
                       48 KiB], vec: load width in bytes 4/8/16 [16, narrower
                       where misaligned], pad: extra elements per shared row of
                       A and per B entry [odd strides: +1 when even]
     cuda_async        as cuda_staged (halves' rows padded to an odd count of
                       4-byte words); two buffers where they fit, grid one
                       wave of resident blocks
     cuda_warp_staged  threads [128: 4 warps], batch_per_block: entries per
                       warp [the spans of one round of 4 16-byte loads a lane,
                       in whole 16-byte periods, within 48 KiB], vec, pad as
                       cuda_staged
     cuda_tiled        tile: 32 or 64 [64 when m, n >= 64] (256 threads; two
                       pairs of tiles where they fit 48 KiB of static shared
                       memory)
     cuda_batch_inner  threads [256]
     cuda_batch_entry  threads [256] (a 4x4 or 8x8 register array: the pick's)
     cuda_fixed        threads [256], capped at 256 (a 4x1 or 4x4 register
                       array: the pick's)
     cuda_cublas       none (a bias costs a second launch)
     cuda_mma          none (128 threads: 4 warps a 32 x 32 tile; f16, bf16
                       on compute capability 8.0+)
   bmm_explain(p, BMM_BACKEND_CUDA, ...) prints what bmm__cuda_pick decided:
   the kernel (e.g. kernel=bmm__cuda_staged<float>), grid, block, shared
   memory, the strategy's own values, and why.

   Adding a strategy: its BMM_CUDA_STRATEGIES row (bmm.h), its kernel
   template, its BMM__CUDA_VARIANTS row, its bmm__cuda_shape_<name> function
   (the pick does not compile without it) and, if the table should pick it,
   a rule in BMM__CUDA_SEED_RULES or the model tables (then regenerate the
   tables/ files; build/bmm-tune-model --model ranks it by the model); its
   kernel's registers in tools/model/ptxas_sm80_sm90.csv (the emulator's
   cudaFuncGetAttributes: sh tools/model/ptxas_resources.sh). A kernel for
   some dtypes only claims them by a flag (BMM_CLAIM_HALVES_ONLY) and leaves
   the others' instantiations empty (cuda_mma). */

#include <cuda_runtime.h>
#include <cuda_occupancy.h> /* the Toolkit's occupancy calculator: a header, nothing to link */
#include "bmm.h"

#ifndef BMM_CUDA_CUH
#define BMM_CUDA_CUH

#ifdef __cplusplus
extern "C" {
#endif

/* Run on the device that is current for this thread, on `stream`:
   p->strategy AUTO (the table for this device's compute capability) or forced. */
BMM_API bmm_status bmm_cuda(const bmm_problem *p, cudaStream_t stream);
/* One entry point per CUDA strategy: bmm_cuda_loop(), bmm_cuda_warp(), ... */
#define BMM__X(E, name, ...) \
  BMM_API bmm_status bmm_##name(const bmm_problem *p, cudaStream_t stream);
BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X

#ifdef __cplusplus
}
#endif
#endif /* BMM_CUDA_CUH */

/* ======================================================================== */
#ifdef BMM_IMPLEMENTATION
#ifndef BMM__CUDA_IMPLEMENTED
#define BMM__CUDA_IMPLEMENTED

#ifdef BMM_WITH_CUBLAS
#include <cublas_v2.h>
#endif

#ifndef BMM_FORCE_CUDA_STRATEGY
#define BMM_FORCE_CUDA_STRATEGY BMM_STRATEGY_AUTO
#endif

/* CUDA strategies are the last entries of bmm_strategy: count them from the
   list so the check below needs no edit when a strategy is added. */
enum {
  bmm__cuda_nstrategies = 0
#define BMM__X(E, ...) +1
  BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X
};
static_assert((int)(BMM_FORCE_CUDA_STRATEGY) == 0 ||
                  ((int)(BMM_FORCE_CUDA_STRATEGY) >= BMM_STRATEGY_COUNT - bmm__cuda_nstrategies &&
                   (int)(BMM_FORCE_CUDA_STRATEGY) < BMM_STRATEGY_COUNT),
              "BMM_FORCE_CUDA_STRATEGY must be BMM_STRATEGY_AUTO or a CUDA strategy (BMM_CUDA_*)");

/* ---- default tables ------------------------------------------------------
   First match wins; a rule whose strategy does not claim the problem is
   skipped. sm_90's first rules are measured (an H100, 2026-11-26: the
   fastest forced strategy per suite row and seed-sweep K, bench/RESULTS.md);
   the seed rules' borders come from the untuned H100 probe quoted in issue 4 (f32/f64 seed problem
   1e6 x 3x1xK, K = 5..50): a thread per output reading global memory holds 84-93% of copy bandwidth
   for K <= 10 only; staging batch groups through shared memory holds 93-98%
   at most K once bank conflicts at K = 32/40 are avoided (odd shared strides,
   see STAGED); split-K warps are the kInput analogue for long K. The tuner
   replaces these rules with measured ones.

   BMM__CUDA_ARCHS: X(NAME, name, first arch, last arch (0 0: any other
   device), what); the first matching row gives a device its table
   bmm__cuda_table_<name>; the generic row must be last.
   sm_90 after its measured rules, and sm_8x: chosen by the model (issue 20:
   build/bmm-tune-model --model --arch sm90|sm80 over
   tools/grids/cuda_model.txt; PREDICTED, not measured: every note says
   `model v1, not measured`; bench/notes/model.md, "The tables the model
   chose"; sm_8x re-ranked 2026-11-28 with boxes grown only as far as the
   grid's evidence, "sm_8x re-ranked"). The H100 run found the model's
   staged threads=512 batch_per_block=32 for every row-major problem
   2.2-4.1x slower than the loop kernel at K = 5 (f32, f64, halves): sm_90
   keeps it only where it measured best, sm_8x still has it for m, n <= 4,
   k <= 64 (not measured there). Any other device: the seed rules below
   (the model has no part for it; the probe ran on an H100 only). Any other
   device gets STAGED only to k <= 64, where one f64 batch
   entry of the largest claimed m, n fits the 48 KiB every architecture
   grants a block. */
#define BMM__CUDA_ARCHS(X)                                    \
  X(SM90, sm90, 90, 90, "compute capability 9.0 (H100/H200)") \
  X(SM80, sm80, 80, 89, "compute capability 8.x")             \
  X(GENERIC, generic, 0, 0, "any other device")

#define BMM__CUDA_SEED_NOTE "seed from issue 4 H100 probe; not yet measured by bmm"
/* batch-innermost m, n <= 8: a thread per entry reads A and B once, a thread
   per output reads them n and m times (bench/RESULTS.md, predicted) */
#define BMM__CUDA_ENTRY_NOTE "model, not measured: A and B read once (issue 20)"
#define BMM__CUDA_RM (BMM_L_ROWMAJOR | BMM_L_SHARED_B)
/* dtype groups of the measured sm_90 rules: 8 bytes and more per element,
   4 bytes and less, the halves */
#define BMM__CUDA_WIDE (BMM_DT(BMM_F64) | BMM_DT(BMM_C64) | BMM_DT(BMM_C128))
#define BMM__CUDA_HALVES (BMM_DT(BMM_F16) | BMM_DT(BMM_BF16))
#define BMM__CUDA_NARROW (BMM_DT(BMM_F32) | BMM__CUDA_HALVES)
/* sm_90's STAGED with 512 threads x 32 batch entries, for dtype set dt and
   k in kmin..kmax: where it beat 128 threads on the H100 (3x1xK only),
   bounded to m <= 4, n <= 2, k <= 64 so that 32 entries fit the shared
   memory in every dtype (c128: 32 x (4 x 65 + 129) x 16 = 199,168 bytes of
   232,448) */
#define BMM__CUDA_STAGED_512(dt, kmin, kmax, why)                                             \
  BMM_RULE(.dtypes = dt, .layouts = BMM_L_ROWMAJOR, .m_max = 4, .n_max = 2, .k_min = kmin,    \
           .k_max = kmax, .strategy = BMM_CUDA_STAGED, .threads = 512, .batch_per_block = 32, \
           .note = why)
/* general problems STAGED claims (packed entries, column-major ones too:
   col_a, trans_b); the others fall through to WARP and LOOP */
#define BMM__CUDA_PACKED_NOTE \
  "model, not measured: col_a 3x1x25 staged 80/94% vs warp 19/37% (f32/f64)"
/* First in every table: compute-bound sizes to cuBLAS where the build has it
   (BMM_WITH_CUBLAS); elsewhere the rule is skipped as not compiled in and the
   next rule decides. m, n >= 96 and k >= 64 catch the suite's square128..1024
   and linear_bias, where TILED is predicted at 1-15% of copy bandwidth
   (bench/notes/model.md) and cuBLAS's tiles are what TILED would have to
   become (issue 20); not measured by bmm on a GPU yet. */
#define BMM__CUDA_CUBLAS_NOTE "compute-bound: cuBLAS where compiled in; not measured by bmm"
#define BMM__CUDA_CUBLAS_RULES                                             \
  BMM_RULE(.layouts = BMM__CUDA_RM, .m_min = 96, .n_min = 96, .k_min = 64, \
           .strategy = BMM_CUDA_CUBLAS, .note = BMM__CUDA_CUBLAS_NOTE)
#define BMM__CUDA_SEED_RULES(staged_k_max)                                                         \
  BMM_RULE(.layouts = BMM_L_BATCH_INNER, .m_max = 8, .n_max = 8, .strategy = BMM_CUDA_BATCH_ENTRY, \
           .note = BMM__CUDA_ENTRY_NOTE),                                                          \
      BMM_RULE(.layouts = BMM_L_BATCH_INNER, .strategy = BMM_CUDA_BATCH_INNER,                     \
               .note = BMM__CUDA_SEED_NOTE),                                                       \
      BMM_RULE(.m_min = 32, .n_min = 32, .k_min = 32, .strategy = BMM_CUDA_TILED,                  \
               .note = BMM__CUDA_SEED_NOTE),                                                       \
      BMM_RULE(.k_max = 10, .strategy = BMM_CUDA_LOOP, .note = BMM__CUDA_SEED_NOTE),               \
      BMM_RULE(.layouts = BMM__CUDA_RM, .m_max = 32, .n_max = 32, .k_min = 11,                     \
               .k_max = staged_k_max, .strategy = BMM_CUDA_STAGED, .note = BMM__CUDA_SEED_NOTE),   \
      BMM_RULE(.layouts = BMM_L_GENERAL, .m_max = 32, .n_max = 32, .k_min = 11,                    \
               .k_max = staged_k_max, .strategy = BMM_CUDA_STAGED, .note = BMM__CUDA_PACKED_NOTE), \
      BMM_RULE(.k_min = 11, .strategy = BMM_CUDA_WARP, .note = BMM__CUDA_SEED_NOTE),               \
      BMM_RULE(.strategy = BMM_CUDA_LOOP, .note = "catch-all, any strides; " BMM__CUDA_SEED_NOTE)

BMM_RULES_BEGIN
static const bmm_table_rule bmm__cuda_table_sm90[] = {
    /* measured on an H100 (bench_gpu, 2026-11-26; bench/RESULTS.md): the
       best forced strategy per suite row and seed-sweep K, each figure % of
       the roofline */
    BMM_RULE(.layouts = BMM__CUDA_RM, .m_max = 64, .n_max = 64, .k_max = 64, .batch_max = 1,
             .strategy = BMM_CUDA_WARP,
             .note =
                 "H100 2026-11-26: tiny 32x64x32 b=1 warp 5.7 us vs tiled 9.1, cuBLAS 11.2 (f32)"),
    BMM_RULE(.layouts = BMM__CUDA_RM, .m_min = 32, .n_min = 32, .k_min = 32,
             .strategy = BMM_CUDA_CUBLAS,
             .note = "H100 2026-11-26: square32 cuBLAS 75/99% vs staged 33/53 (f32/f64)"),
    BMM_RULE(.dtypes = BMM__CUDA_WIDE, .layouts = BMM_L_ROWMAJOR, .m_min = 5, .m_max = 31,
             .n_min = 5, .n_max = 31, .k_max = 128, .strategy = BMM_CUDA_STAGED,
             .note = "H100 2026-11-26: square8/16 f64 staged 58/62% vs loop 51/31"),
    BMM_RULE(.dtypes = BMM__CUDA_NARROW, .layouts = BMM_L_ROWMAJOR, .m_min = 5, .m_max = 31,
             .n_min = 5, .n_max = 31, .k_max = 15, .strategy = BMM_CUDA_LOOP,
             .note = "H100 2026-11-26: square8 f32 loop 39% vs staged 32; f16 19 vs 14"),
    BMM_RULE(.dtypes = BMM__CUDA_NARROW, .layouts = BMM_L_ROWMAJOR, .m_min = 5, .m_max = 31,
             .n_min = 5, .n_max = 31, .k_max = 128, .strategy = BMM_CUDA_STAGED,
             .note = "H100 2026-11-26: square16 f32 staged 36% vs loop 25; f16 17 vs 12"),
    /* the H200 run (2026-11-26) timed cuda_fixed first: 2.2x LOOP at 4x4x4
       f32; f64 4x4x4 and the 3x1xK seed rows within 3% of LOOP, so LOOP
       keeps them */
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_max = 4, .n_min = 3,
             .n_max = 4, .k_max = 5, .strategy = BMM_CUDA_FIXED, .threads = 64,
             .note = "H200 2026-11-26: square4 f32 fixed 64 threads 0.064 ms vs loop 0.133 "
                     "(76% vs 35%)"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_max = 31, .n_max = 31,
             .k_max = 15, .strategy = BMM_CUDA_LOOP,
             .note = "H100 2026-11-26: seed f32 K 5-15 loop 81-93% vs staged 56-87"),
    BMM__CUDA_STAGED_512(BMM_DT(BMM_F32), 37, 64,
                         "H100 2026-11-26: seed f32 K 37-50 82-86% vs 128 threads 73-81"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_max = 31, .n_max = 31,
             .k_max = 128, .strategy = BMM_CUDA_STAGED,
             .note = "H100 2026-11-26: seed f32 K 16-36 staged 82-90% vs loop 34-84"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_max = 31, .n_max = 31,
             .k_max = 12, .strategy = BMM_CUDA_LOOP,
             .note = "H100 2026-11-26: seed f64 K 5-12 loop 87-96% vs staged 88-92"),
    BMM__CUDA_STAGED_512(BMM_DT(BMM_F64), 19, 55,
                         "H100 2026-11-26: seed f64 K 19-50 87-95% vs 128 threads 61-83"),
    /* from K = 56 a block of 32 f64 entries needs 58368 bytes of shared
       memory: 3 blocks fit in an SM's 228 KiB, not 4 (the same on H100 and
       H200); the H200 lost 13 points of copy from K = 55 to 56 */
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_max = 4, .n_max = 2,
             .k_min = 56, .k_max = 64, .strategy = BMM_CUDA_STAGED, .threads = 256,
             .batch_per_block = 16,
             .note =
                 "H200 2026-11-28: seed f64 K 56 86% vs 512x32 78 (3 blocks/SM); 57-64 not timed"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_max = 31, .n_max = 31,
             .k_max = 128, .strategy = BMM_CUDA_STAGED,
             .note = "H100 2026-11-26: seed f64 K 13-18 staged 83-90% vs loop 59-85"),
    BMM_RULE(.dtypes = BMM_DT(BMM_C64), .layouts = BMM_L_ROWMAJOR, .m_max = 31, .n_max = 31,
             .k_max = 7, .strategy = BMM_CUDA_LOOP,
             .note = "H100 2026-11-26: seed c64 K 5 loop 94% vs staged 81; square4 70 vs 57"),
    BMM__CUDA_STAGED_512(BMM_DT(BMM_C64), 18, 64,
                         "H100 2026-11-26: seed c64 K 20-50 75-87% vs 128 threads 60-77"),
    BMM__CUDA_STAGED_512(BMM_DT(BMM_C128), 13, 64,
                         "H100 2026-11-26: seed c128 K 15-50 77-88% vs any other 65-73"),
    BMM_RULE(.dtypes = BMM_DT(BMM_C64) | BMM_DT(BMM_C128), .layouts = BMM_L_ROWMAJOR, .m_max = 31,
             .n_max = 31, .k_max = 128, .strategy = BMM_CUDA_STAGED,
             .note = "H100 2026-11-26: seed c64 K 10/15 staged 89/87% vs loop 85/79"),
    BMM_RULE(.dtypes = BMM__CUDA_HALVES, .layouts = BMM_L_ROWMAJOR, .m_max = 31, .n_max = 31,
             .k_max = 27, .strategy = BMM_CUDA_LOOP,
             .note = "H100 2026-11-26: seed f16 K 5-25 loop 44-85% vs staged 27-63"),
    BMM_RULE(.dtypes = BMM__CUDA_HALVES, .layouts = BMM_L_ROWMAJOR, .m_max = 31, .n_max = 31,
             .k_max = 128, .strategy = BMM_CUDA_STAGED,
             .note = "H100 2026-11-26: seed f16 K 30-50 staged 66-73% vs loop 55-63"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_BATCH_INNER, .m_max = 4, .n_max = 2,
             .k_min = 11, .k_max = 64, .strategy = BMM_CUDA_LOOP,
             .note =
                 "H200/H100 2026-11-26: 3x1x25 batch_inner f64 loop 91/94% vs batch_entry 86/95"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_BATCH_INNER, .m_max = 4, .n_max = 2,
             .k_min = 11, .k_max = 64, .strategy = BMM_CUDA_BATCH_INNER,
             .note = "H200/H100 2026-11-26: 3x1x25 batch_inner f32 batch_inner 80/85% vs loop "
                     "75/86, entry 68/85"),
    /* not measured: the model's rules (issue 20) for what the above leaves */
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_SHARED_B, .m_min = 197, .m_max = 197,
             .n_min = 768, .n_max = 768, .k_min = 64, .k_max = 64, .strategy = BMM_CUDA_TILED,
             .note = "kept default, suite linear_bias f64; model v1, not measured; weak: TILED "
                     "uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_SHARED_B, .m_min = 197, .m_max = 197,
             .n_min = 768, .n_max = 768, .k_min = 64, .k_max = 64, .strategy = BMM_CUDA_TILED,
             .note = "kept default, suite linear_bias f32; model v1, not measured; weak: TILED "
                     "uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .n_min = 46,
             .strategy = BMM_CUDA_TILED,
             .note = "model v1, not measured; 2 pts; weak: TILED uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 23, .n_min = 23,
             .k_min = 46, .strategy = BMM_CUDA_TILED,
             .note = "model v1, not measured; 3 pts; weak: TILED uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_BATCH_INNER, .k_min = 15, .k_max = 35,
             .strategy = BMM_CUDA_LOOP, .note = "model v1, not measured; 1 pt"),
    BMM_RULE(.layouts = BMM_L_ROWMAJOR, .m_min = 8, .n_min = 8, .strategy = BMM_CUDA_STAGED,
             .note =
                 "model v1, not measured: m, n >= 8 keep 128 threads (square16 f64 69% vs 38%)"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32) | BMM_DT(BMM_F64), .layouts = BMM_L_BATCH_INNER,
             .strategy = BMM_CUDA_BATCH_ENTRY, .note = "model v1, not measured; 9 pts"),
    BMM__CUDA_SEED_RULES(128)};
static const bmm_table_rule bmm__cuda_table_sm80[] = {
    BMM__CUDA_CUBLAS_RULES,
    /* re-ranked by the model 2026-11-28 (bench/notes/model.md): its boxes grow only as far as
       the grid's evidence; boxes bounded by batch (the grid's batch standing in for a shape)
       and boxes whose entries outgrow an A100's shared memory were left out */
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_GENERAL, .m_min = 3, .m_max = 3,
             .n_min = 1, .n_max = 1, .k_min = 25, .k_max = 25, .strategy = BMM_CUDA_WARP,
             .note = "kept default, suite seed_k25_col_a f64; model v1, not measured"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 32, .m_max = 32,
             .n_min = 64, .n_max = 64, .k_min = 32, .k_max = 32, .strategy = BMM_CUDA_TILED,
             .note =
                 "kept default, suite tiny f64; model v1, not measured; weak: TILED uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_SHARED_B, .m_min = 197, .m_max = 197,
             .n_min = 768, .n_max = 768, .k_min = 64, .k_max = 64, .strategy = BMM_CUDA_TILED,
             .note = "kept default, suite linear_bias f64; model v1, not measured; weak: TILED "
                     "uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 32, .m_max = 32,
             .n_min = 32, .n_max = 32, .k_min = 32, .k_max = 32, .strategy = BMM_CUDA_TILED,
             .note = "kept default, suite square32 f64; model v1, not measured; weak: TILED "
                     "uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_GENERAL, .m_min = 3, .m_max = 3,
             .n_min = 1, .n_max = 1, .k_min = 25, .k_max = 25, .strategy = BMM_CUDA_WARP,
             .note = "kept default, suite seed_k25_col_a f32; model v1, not measured"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_min = 32, .m_max = 32,
             .n_min = 64, .n_max = 64, .k_min = 32, .k_max = 32, .strategy = BMM_CUDA_TILED,
             .note =
                 "kept default, suite tiny f32; model v1, not measured; weak: TILED uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_SHARED_B, .m_min = 197, .m_max = 197,
             .n_min = 768, .n_max = 768, .k_min = 64, .k_max = 64, .strategy = BMM_CUDA_TILED,
             .note = "kept default, suite linear_bias f32; model v1, not measured; weak: TILED "
                     "uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_min = 32, .m_max = 32,
             .n_min = 32, .n_max = 32, .k_min = 32, .k_max = 32, .strategy = BMM_CUDA_STAGED,
             .note = "kept default, suite square32 f32; model v1, not measured"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_max = 1, .n_min = 12,
             .n_max = 256, .k_min = 17, .k_max = 64, .strategy = BMM_CUDA_STAGED,
             .note = "model v1, not measured; 2 pts"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_min = 23, .m_max = 256,
             .n_max = 1, .k_min = 17, .strategy = BMM_CUDA_STAGED,
             .note = "model v1, not measured; 2 pts"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_min = 12, .m_max = 22,
             .n_min = 3, .n_max = 5, .k_min = 17, .k_max = 64, .strategy = BMM_CUDA_STAGED,
             .threads = 256, .batch_per_block = 8, .note = "model v1, not measured; 1 pt"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_min = 6, .m_max = 11,
             .n_max = 1, .k_min = 6, .k_max = 45, .strategy = BMM_CUDA_STAGED, .threads = 256,
             .batch_per_block = 32,
             .note = "model v1, not measured; 2 pts; weak: f32 K 5-25 loop/staged"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32), .layouts = BMM_L_ROWMAJOR, .m_min = 23, .n_min = 23,
             .k_min = 46, .strategy = BMM_CUDA_TILED,
             .note = "model v1, not measured; 3 pts; weak: TILED uncalibrated"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_max = 2, .n_min = 12,
             .n_max = 181, .k_min = 65, .strategy = BMM_CUDA_STAGED,
             .note = "model v1, not measured; 4 pts"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 12, .m_max = 22,
             .n_min = 12, .n_max = 22, .k_min = 3, .k_max = 54, .strategy = BMM_CUDA_STAGED,
             .note = "model v1, not measured; 2 pts"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_max = 1, .n_min = 12,
             .n_max = 256, .k_min = 17, .k_max = 64, .strategy = BMM_CUDA_STAGED, .threads = 64,
             .note = "model v1, not measured; 2 pts"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 23, .m_max = 90,
             .n_min = 6, .n_max = 22, .k_min = 17, .k_max = 54, .strategy = BMM_CUDA_STAGED,
             .threads = 64, .note = "model v1, not measured; 2 pts"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 23, .m_max = 256,
             .n_max = 1, .k_min = 17, .k_max = 64, .strategy = BMM_CUDA_STAGED, .threads = 64,
             .note = "model v1, not measured; 1 pt"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 23, .m_max = 256,
             .n_min = 23, .n_max = 256, .k_max = 2, .strategy = BMM_CUDA_STAGED, .threads = 1024,
             .batch_per_block = 32, .note = "model v1, not measured; 1 pt"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 23, .n_min = 23,
             .k_min = 46, .strategy = BMM_CUDA_TILED,
             .note = "model v1, not measured; 3 pts; weak: TILED uncalibrated"),
    /* bounded so that 32 entries fit an A100's 163 KiB of shared memory (it
       had none: 216 valid problems refused, emu_test's check_auto_plans);
       on the H100 the same rule ran 3.8x slower than LOOP at f32 K = 5 */
    BMM_RULE(.dtypes = BMM_DT(BMM_F32) | BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_max = 4,
             .n_max = 4, .k_max = 64, .strategy = BMM_CUDA_STAGED, .threads = 512,
             .batch_per_block = 32,
             .note = "model v1, not measured; 182 pts; weak: f32 K 5-25 loop/staged; tunables by "
                     "--sweep"),
    /* the re-rank's broadest choice (1024 threads x 16 entries, 272 of its 436
       points) has no bound of its own: 16 f64 entries of 32x32x32 take 266 KB.
       Here only past the rule above with n <= 2: 16 f64 entries of 4x2x128 take
       98,944 bytes, within the 99 KiB an sm_86/89 grants a block */
    BMM_RULE(.dtypes = BMM_DT(BMM_F32) | BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_max = 4,
             .n_max = 2, .k_min = 65, .k_max = 128, .strategy = BMM_CUDA_STAGED, .threads = 1024,
             .batch_per_block = 16,
             .note = "model v1, not measured; 12 pts: the re-rank's 1024 x 16, 16 entries within "
                     "99 KiB"),
    /* the re-rank stages every other row-major problem STAGED claims, thin
       shapes and k <= 10 too (the seed rules send those to LOOP: 4x32x8 f32
       11.9% -> 77.4% predicted); the default staging fits any device */
    BMM_RULE(.dtypes = BMM_DT(BMM_F32) | BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR,
             .strategy = BMM_CUDA_STAGED,
             .note = "model v1, not measured; 199 pts; default staging fits any device; weak: f32 "
                     "K 5-25 loop/staged"),
    BMM_RULE(.dtypes = BMM_DT(BMM_F32) | BMM_DT(BMM_F64), .layouts = BMM_L_BATCH_INNER,
             .strategy = BMM_CUDA_BATCH_ENTRY, .note = "model v1, not measured; 10 pts"),
    BMM__CUDA_SEED_RULES(128)};
static const bmm_table_rule bmm__cuda_table_generic[] = {BMM__CUDA_CUBLAS_RULES,
                                                         BMM__CUDA_SEED_RULES(64)};
BMM_RULES_END

#ifndef BMM_CUDA_TABLE_SM90
#define BMM_CUDA_TABLE_SM90 bmm__cuda_table_sm90
#endif
#ifndef BMM_CUDA_TABLE_SM80
#define BMM_CUDA_TABLE_SM80 bmm__cuda_table_sm80
#endif
#ifndef BMM_CUDA_TABLE_GENERIC
#define BMM_CUDA_TABLE_GENERIC bmm__cuda_table_generic
#endif
#define BMM__CUDA_NRULES(t) ((int)(sizeof(t) / sizeof((t)[0])))

/* ---- numbers: what differs by dtype inside a kernel ----------------------
   Kernels are templates over a kernel element type (BMM__CUDA_T_<name> of
   each BMM_DTYPES row): f32 float, f64 double, c64/c128 the (re, im) structs
   of bmm.h, and for f16/bf16 the two structs below (bmm_f16 and bmm_bf16 are
   one uint16_t to the compiler, so a template could not tell them apart).
   bmm__cuda_num<T> is all a kernel knows of its numbers:
     acc      the type sums are kept in (f32 for f16/bf16: products of two
              halves are exact in f32, and C is rounded once, when stored)
     part     the type of one stored component (the complex dtypes' float or
              double, else T) and parts per element: what staging copies
     zero(), ld(p, conj)  an element into acc (conj: complex only, negates
              the imaginary part; f16/bf16 widened exactly)
     mad(s, a, b)  s += a * b;  add(a, b);  scale(re, im, v): alpha or beta
              times v (a real scale, im == 0, multiplies both parts, so 0 * Inf
              never makes a NaN of the other part, as on the CPU)
     shfl_xor  a full-warp butterfly step, per part
     st(p, v) acc into the stored type (f16/bf16: round to nearest even)
   f32 and f64 are plain loads, stores and `s += a * b`: their kernels
   compile as they did before the traits. */
typedef struct bmm__cuda_f16 {
  uint16_t bits;
} bmm__cuda_f16;
typedef struct bmm__cuda_bf16 {
  uint16_t bits;
} bmm__cuda_bf16;
#define BMM__CUDA_T_f32 float
#define BMM__CUDA_T_f64 double
#define BMM__CUDA_T_c64 bmm_c64
#define BMM__CUDA_T_c128 bmm_c128
#define BMM__CUDA_T_f16 bmm__cuda_f16
#define BMM__CUDA_T_bf16 bmm__cuda_bf16
#define BMM__CUDA_STR_(x) #x
#define BMM__CUDA_STR(x) BMM__CUDA_STR_(x) /* the type's name, for explain */

/* the arithmetic of a real accumulator A (float, double) */
template <typename A> struct bmm__cuda_real_ops {
  typedef A acc;
  static __device__ __forceinline__ A zero() { return (A)0; }
  static __device__ __forceinline__ void mad(A &s, A a, A b) { s += a * b; }
  static __device__ __forceinline__ A add(A a, A b) { return a + b; }
  static __device__ __forceinline__ A scale(double re, double im, A v) {
    (void)im;
    return (A)re * v;
  }
  static __device__ __forceinline__ A shfl_xor(A v, int off, int width) {
    return __shfl_xor_sync(0xffffffffu, v, off, width);
  }
};

template <typename T> struct bmm__cuda_num;

/* f32, f64: stored as computed */
template <typename T> struct bmm__cuda_num_real : bmm__cuda_real_ops<T> {
  typedef T part;
  enum { parts = 1 };
  static __device__ __forceinline__ T ld(const T *p, int conj) {
    (void)conj;
    return *p;
  }
  static __device__ __forceinline__ void st(T *p, T v) { *p = v; }
};
template <> struct bmm__cuda_num<float> : bmm__cuda_num_real<float> {};
template <> struct bmm__cuda_num<double> : bmm__cuda_num_real<double> {};

/* f16, bf16: f32 sums. The device converts with cvt (exact to f32, round to
   nearest even from it); the host build of the kernels (tests/cuda_emu) with
   bmm.h's functions, which give the same bits for every value but NaNs
   (whose payload bmm.h keeps and cvt may not) */
template <> struct bmm__cuda_num<bmm__cuda_f16> : bmm__cuda_real_ops<float> {
  typedef bmm__cuda_f16 part;
  enum { parts = 1 };
  static __device__ __forceinline__ float ld(const bmm__cuda_f16 *p, int conj) {
    (void)conj;
#ifdef __CUDA_ARCH__
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(p->bits));
    return f;
#else
    return bmm_f16_to_f32(p->bits);
#endif
  }
  static __device__ __forceinline__ void st(bmm__cuda_f16 *p, float v) {
#ifdef __CUDA_ARCH__
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    p->bits = h;
#else
    p->bits = bmm_f32_to_f16(v);
#endif
  }
};
template <> struct bmm__cuda_num<bmm__cuda_bf16> : bmm__cuda_real_ops<float> {
  typedef bmm__cuda_bf16 part;
  enum { parts = 1 };
  static __device__ __forceinline__ float ld(const bmm__cuda_bf16 *p, int conj) {
    (void)conj;
    return bmm_bf16_to_f32(p->bits); /* a shift: the f32 with the low half zero */
  }
  static __device__ __forceinline__ void st(bmm__cuda_bf16 *p, float v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
    p->bits = h;
#else
    p->bits = bmm_f32_to_bf16(v);
#endif
  }
};

/* c64, c128: (re, im) sums of the component type R, each part a real dot
   product of 2k terms in the order of the CPU's complex kernels */
template <typename T, typename R> struct bmm__cuda_num_complex {
  typedef T acc;
  typedef R part;
  enum { parts = 2 };
  static __device__ __forceinline__ T make(R re, R im) {
    T v;
    v.re = re, v.im = im;
    return v;
  }
  static __device__ __forceinline__ T zero() { return make((R)0, (R)0); }
  static __device__ __forceinline__ T ld(const T *p, int conj) {
    const R re = p->re, im = p->im;
    return make(re, conj ? -im : im);
  }
  static __device__ __forceinline__ void st(T *p, T v) { *p = v; }
  static __device__ __forceinline__ void mad(T &s, T a, T b) {
    s.re += a.re * b.re;
    s.re -= a.im * b.im;
    s.im += a.re * b.im;
    s.im += a.im * b.re;
  }
  static __device__ __forceinline__ T add(T a, T b) { return make(a.re + b.re, a.im + b.im); }
  static __device__ __forceinline__ T scale(double re, double im, T v) {
    const R r = (R)re, i = (R)im;
    if (im == 0.0) return make(r * v.re, r * v.im);
    return make(r * v.re - i * v.im, r * v.im + i * v.re);
  }
  static __device__ __forceinline__ T shfl_xor(T v, int off, int width) {
    const R re = __shfl_xor_sync(0xffffffffu, v.re, off, width);
    const R im = __shfl_xor_sync(0xffffffffu, v.im, off, width);
    return make(re, im);
  }
};
template <> struct bmm__cuda_num<bmm_c64> : bmm__cuda_num_complex<bmm_c64, float> {};
template <> struct bmm__cuda_num<bmm_c128> : bmm__cuda_num_complex<bmm_c128, double> {};

/* bytes of one sum (TILED keeps its shared tiles in it) */
static size_t bmm__cuda_acc_size(bmm_dtype dt) {
  switch (dt) {
#define BMM__X(E, name, ...) \
  case BMM_##E: return sizeof(bmm__cuda_num<BMM__CUDA_T_##name>::acc);
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: return 0;
  }
}

/* ---- kernels ------------------------------------------------------------
   Every kernel is a function template over the element type, instantiated
   by the launch switch (bmm__cuda_go, generated from BMM__CUDA_VARIANTS)
   for the kernel element type of each BMM_DTYPES row (BMM__CUDA_T_<name>).
   It gets the validated plan (by value, __grid_constant__ so taking its
   address costs no local copy) plus the
   launch values the pick set, and may assume what its strategy claims in
   BMM_CUDA_STRATEGIES. Batch entries and outputs are folded into grid x and
   walked with grid-stride loops in int64, so any batch runs in one launch.
   beta == 0 never reads C; !use_ab never reads A, B (their pointers are NULL
   then). */

typedef struct bmm__cuda_args {
  bmm_plan pl;
  int lanes;      /* WARP: sub-warp width, a power of two in 2..32 */
  int per_block;  /* STAGED: batch entries per block (WARP_STAGED: per warp) */
  int a_ld;       /* STAGED: shared-memory row stride of A (k + pad) */
  int b_ld;       /* STAGED: shared-memory stride between B entries */
  int vec;        /* STAGED: global load width in bytes (element size..16) */
  int b_off;      /* STAGED: element offset of B in shared memory */
  int buf;        /* ASYNC: element offset of the second buffer from the first;
                     WARP_STAGED: of each warp's part from the last */
  int a_cm, b_cm; /* STAGED, packed general: A / B column-major per entry */
} bmm__cuda_args;

/* A thread's R x C sums set to N's zero, unrolled (they stay in registers). */
template <typename N, typename S, int R, int C>
static __device__ __forceinline__ void bmm__cuda_zero_sums(S (&acc)[R][C]) {
  int i, j;
#pragma unroll
  for (i = 0; i < R; ++i)
#pragma unroll
    for (j = 0; j < C; ++j)
      acc[i][j] = N::zero();
}

/* Offsets of batch entry b: one multiply for the single-dim classes (every
   class but some general ones; ndims 0 has stride 0 and b = 0). */
static __device__ __forceinline__ void bmm__cuda_offsets(const bmm_plan *pl, int64_t b, int64_t *oa,
                                                         int64_t *ob, int64_t *oc) {
  if (pl->ndims <= 1) {
    *oa = b * pl->a.batch_stride[0];
    *ob = b * pl->b.batch_stride[0];
    *oc = b * pl->c.batch_stride[0];
  } else {
    bmm_batch_offsets(pl, b, oa, ob, oc);
  }
}

/* The epilogue every kernel ends with: alpha, then beta * C (only when beta
   != 0, so a poisoned C is never read), then the bias row. */
template <typename T>
static __device__ __forceinline__ void
bmm__cuda_epilogue(const bmm_plan *pl, T *cp, typename bmm__cuda_num<T>::acc acc, int64_t j) {
  typedef bmm__cuda_num<T> N;
  typename N::acc v = N::scale(pl->alpha, pl->alpha_im, acc);
  if (pl->read_c) v = N::add(v, N::scale(pl->beta, pl->beta_im, N::ld(cp, 0)));
  if (pl->bias) v = N::add(v, N::ld((const T *)pl->bias + j, 0));
  N::st(cp, v);
}

#define BMM__CUDA_TID() ((int64_t)blockIdx.x * blockDim.x + threadIdx.x)
#define BMM__CUDA_NTHREADS() ((int64_t)gridDim.x * blockDim.x)

/* A strided dot product, A and B read conjugated where the plan says;
   inlined with constant strides for packed layouts. */
template <typename T>
static __device__ __forceinline__ typename bmm__cuda_num<T>::acc
bmm__cuda_dot(const bmm_plan *pl, const T *__restrict__ a, int64_t as, const T *__restrict__ b,
              int64_t bs, int64_t k) {
  typedef bmm__cuda_num<T> N;
  const int ca = pl->a.conj, cb = pl->b.conj;
  typename N::acc acc = N::zero();
  int64_t l;
#pragma unroll 4
  for (l = 0; l < k; ++l)
    N::mad(acc, N::ld(a + l * as, ca), N::ld(b + l * bs, cb));
  return acc;
}

/* LOOP: a thread per C element, K sequential (XLA's kLoop). Consecutive
   threads take consecutive j, then i, then b: C writes are coalesced for
   packed C and A rows are shared through L1 by the n threads of a row. */
template <typename T> __global__ void bmm__cuda_loop(const __grid_constant__ bmm__cuda_args args) {
  const bmm_plan *pl = &args.pl;
  const int64_t m = pl->m, n = pl->n, k = pl->k, mn = m * n, total = mn * pl->batch;
  const int packed = pl->layout == BMM_LAYOUT_ROWMAJOR || pl->layout == BMM_LAYOUT_SHARED_B;
  const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;
  T *C = (T *)pl->c.ptr;
  int64_t idx;
  for (idx = BMM__CUDA_TID(); idx < total; idx += BMM__CUDA_NTHREADS()) {
    int64_t b = idx / mn, r = idx - b * mn, i = r / n, j = r - i * n, oa, ob, oc;
    typename bmm__cuda_num<T>::acc acc = bmm__cuda_num<T>::zero();
    bmm__cuda_offsets(pl, b, &oa, &ob, &oc);
    if (pl->use_ab) {
      if (packed)
        acc = bmm__cuda_dot<T>(pl, A + oa + i * k, 1, B + ob + j, n, k);
      else
        acc = bmm__cuda_dot<T>(pl, A + oa + i * pl->a.row_stride, pl->a.col_stride,
                               B + ob + j * pl->b.col_stride, pl->b.row_stride, k);
    }
    bmm__cuda_epilogue<T>(pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride, acc, j);
  }
}

/* WARP: a sub-warp of `lanes` threads per C element splits K (XLA's kInput,
   llama.cpp's mmv): consecutive lanes read consecutive K for K-contiguous A,
   then a shuffle tree sums. Every lane of a warp runs the same number of
   iterations (the loop tests the warp's first group) so the full-mask
   shuffles are legal; lanes past the end add zeros and store nothing. */
template <typename T> __global__ void bmm__cuda_warp(const __grid_constant__ bmm__cuda_args args) {
  typedef bmm__cuda_num<T> N;
  const bmm_plan *pl = &args.pl;
  const int64_t m = pl->m, n = pl->n, k = pl->k, mn = m * n, total = mn * pl->batch;
  const int lanes = args.lanes, lane = (int)(threadIdx.x & (unsigned)(lanes - 1));
  const int64_t tid = BMM__CUDA_TID(), step = BMM__CUDA_NTHREADS() / lanes;
  const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;
  T *C = (T *)pl->c.ptr;
  int64_t g = tid / lanes, warp_first = (tid - (threadIdx.x & 31u)) / lanes;
  for (; warp_first < total; g += step, warp_first += step) {
    int64_t b = 0, i = 0, j = 0, oa = 0, ob = 0, oc = 0, l;
    typename N::acc acc = N::zero();
    int off;
    if (g < total) {
      int64_t r;
      b = g / mn, r = g - b * mn, i = r / n, j = r - i * n;
      bmm__cuda_offsets(pl, b, &oa, &ob, &oc);
      if (pl->use_ab) {
        const T *ap = A + oa + i * pl->a.row_stride, *bp = B + ob + j * pl->b.col_stride;
        const int64_t as = pl->a.col_stride, bs = pl->b.row_stride;
        const int ca = pl->a.conj, cb = pl->b.conj;
        for (l = lane; l < k; l += lanes)
          N::mad(acc, N::ld(ap + l * as, ca), N::ld(bp + l * bs, cb));
      }
    }
    for (off = lanes >> 1; off > 0; off >>= 1)
      acc = N::add(acc, N::shfl_xor(acc, off, lanes));
    if (g < total && lane == 0)
      bmm__cuda_epilogue<T>(pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride, acc, j);
  }
}

/* STAGED (MAGMA smallsq's idea, generalised to any m, n <= 32, k <= 128):
   a block copies the contiguous A (and B) spans of `per_block` consecutive
   batch entries into shared memory with the widest aligned loads, then
   computes every C element of the group from shared memory and writes the
   group's C span contiguously. Threads computing neighbouring outputs read A
   rows a_ld apart, and a_ld elements apart means gcd(a_ld, 32) of them share
   a bank (32-way at K = 32, 8-way at K = 40: the probe's cliffs), so a_ld
   and b_ld are made odd. Spans are
   bounded by shared memory, so offsets inside a block fit in int. */

/* tests/cuda_emu runs these kernels on the host: it declares this buffer and
   the launch (BMM__CUDA_GO below) itself */
#ifndef BMM__CUDA_EMULATED
extern __shared__ __align__(16) unsigned char bmm__cuda_smem[];
#endif

/* One vector load of vb bytes (16: uint4, else 8: uint2) into u, and its
   store; vb is a constant at every call, so the branch folds away. */
static __device__ __forceinline__ uint4 bmm__cuda_ldg_vec(const void *p, int vb) {
  uint4 u;
  if (vb == 16) {
    u = __ldg((const uint4 *)p);
  } else {
    const uint2 h = __ldg((const uint2 *)p);
    u.x = h.x, u.y = h.y, u.z = u.w = 0;
  }
  return u;
}
static __device__ __forceinline__ void bmm__cuda_st_vec(void *p, uint4 u, int vb) {
  if (vb == 16) {
    *(uint4 *)p = u;
  } else {
    uint2 h;
    h.x = u.x, h.y = u.y;
    *(uint2 *)p = h;
  }
}

/* Copy src[0..cnt) to dst, element e at (e / row) * ld + e % row, by nt
   threads of which this is t0 (a block, or a warp's lanes). A scalar head
   reaches vb-byte alignment, then vb-byte loads, then a scalar tail. A
   thread issues LOADS vector loads before it stores the first (LOADS of its
   own bytes in flight: WARP_STAGED's few lanes need several). */
template <typename T, int LOADS>
static __device__ __forceinline__ void bmm__cuda_stage_vec(const T *__restrict__ src, int cnt,
                                                           T *dst, int row, int ld, int vb, int t0,
                                                           int nt) {
  const int per = vb / (int)sizeof(T);
  const int mis = (int)(((uintptr_t)src % (unsigned)vb) / sizeof(T));
  int head = mis ? per - mis : 0, nvec, v, e;
  if (head > cnt) head = cnt;
  nvec = (cnt - head) / per;
  for (e = t0; e < head; e += nt)
    dst[(e / row) * ld + e % row] = src[e];
  for (v = t0; v < nvec; v += LOADS * nt) {
    uint4 u[LOADS];
    int b;
#pragma unroll
    for (b = 0; b < LOADS; ++b)
      if (v + b * nt < nvec)
        u[b] = bmm__cuda_ldg_vec((const char *)(src + head) + (size_t)(v + b * nt) * vb, vb);
#pragma unroll
    for (b = 0; b < LOADS; ++b) {
      T x[16 / sizeof(T)];
      int q, r, t;
      if (v + b * nt >= nvec) break;
      e = head + (v + b * nt) * per;
      if (ld == row && head == 0) {
        bmm__cuda_st_vec(dst + e, u[b], vb);
        continue;
      }
      memcpy(x, &u[b], (size_t)vb);
      q = e / row, r = e - q * row;
#pragma unroll
      for (t = 0; t < per; ++t) {
        dst[q * ld + r] = x[t];
        if (++r == row) r = 0, ++q;
      }
    }
  }
  for (e = head + nvec * per + t0; e < cnt; e += nt)
    dst[(e / row) * ld + e % row] = src[e];
}

template <typename T, int LOADS>
static __device__ __forceinline__ void bmm__cuda_stage_parts(const T *__restrict__ src, int cnt,
                                                             T *dst, int row, int ld, int vec,
                                                             int t0, int nt) {
  if (vec >= 16 && 16 % sizeof(T) == 0)
    bmm__cuda_stage_vec<T, LOADS>(src, cnt, dst, row, ld, 16, t0, nt);
  else if (vec >= 8 && sizeof(T) <= 8)
    bmm__cuda_stage_vec<T, LOADS>(src, cnt, dst, row, ld, 8, t0, nt);
  else {
    int e;
    for (e = t0; e < cnt; e += nt)
      dst[(e / row) * ld + e % row] = src[e];
  }
}

/* Staging copies components, not elements: a complex element is only
   aligned to its component (4 or 8 bytes), so its vector head is counted in
   components (element e, part q is component parts*e + q at
   (e / row) * parts*ld + parts*(e % row) + q: the same map, scaled). 2-byte
   halves move 8 to a 16-byte load. LOADS: vector loads a thread issues
   before its first store (bmm__cuda_stage_vec). */
template <typename T, int LOADS = 1>
static __device__ __forceinline__ void bmm__cuda_stage(const T *__restrict__ src, int cnt, T *dst,
                                                       int row, int ld, int vec, int t0, int nt) {
  typedef typename bmm__cuda_num<T>::part P;
  const int q = bmm__cuda_num<T>::parts;
  bmm__cuda_stage_parts<P, LOADS>((const P *)src, cnt * q, (P *)dst, row * q, ld * q, vec, t0, nt);
}

/* STAGED: a block stages the A and B spans of G consecutive batch entries
   into shared memory (A's entries in rows of a_ld, B's entries b_ld apart),
   then a thread per output walks them. GEN: the packed-general form
   (BMM_CLAIM_PACKED: col_a, trans_b, column-major): the spans are the same
   contiguous copies, A rows are m long where A is column-major per entry,
   the sums walk each operand in its own order and C is written through its
   strides. The row-major kernel keeps its constant strides. */
template <typename T, bool GEN>
static __device__ __forceinline__ void bmm__cuda_staged_body(const bmm__cuda_args &args) {
  typedef bmm__cuda_num<T> N;
  const bmm_plan *pl = &args.pl;
  const int ca = pl->a.conj, cb = pl->b.conj;
  const int m = (int)pl->m, n = (int)pl->n, k = (int)pl->k, mn = m * n;
  const int G = args.per_block, a_ld = args.a_ld, b_ld = args.b_ld, use_ab = pl->use_ab;
  const int a_cm = GEN && args.a_cm, b_cm = GEN && args.b_cm;
  /* A: staged rows of a_row elements; (i, l) at i * a_si + l * a_sl of its
     entry, a_ent apart. B: (l, j) at l * b_sl + j * b_sj of its entry */
  const int a_row = a_cm ? m : k, a_ent = (a_cm ? k : m) * a_ld;
  const int a_si = a_cm ? 1 : a_ld, a_sl = a_cm ? a_ld : 1;
  const int b_sl = b_cm ? 1 : n, b_sj = b_cm ? k : 1;
  const int shared_b = GEN ? pl->b.batch_stride[0] == 0 : pl->layout == BMM_LAYOUT_SHARED_B;
  const int64_t nb = pl->batch, groups = (nb + G - 1) / G;
  const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;
  T *C = (T *)pl->c.ptr, *sA = (T *)bmm__cuda_smem, *sB = sA + args.b_off;
  int64_t grp;
  if (use_ab && shared_b) {
    bmm__cuda_stage<T>(B, k * n, sB, k * n, k * n, args.vec, (int)threadIdx.x, (int)blockDim.x);
    __syncthreads();
  }
  for (grp = blockIdx.x; grp < groups; grp += gridDim.x) {
    const int64_t b0 = grp * G;
    const int cnt = (int)(nb - b0 < G ? nb - b0 : G), outs = cnt * mn;
    T *Cg = C + b0 * mn;
    int o;
    if (use_ab) {
      bmm__cuda_stage<T>(A + b0 * m * k, cnt * m * k, sA, a_row, a_ld, args.vec, (int)threadIdx.x,
                         (int)blockDim.x);
      if (!shared_b)
        bmm__cuda_stage<T>(B + b0 * k * n, cnt * k * n, sB, k * n, b_ld, args.vec, (int)threadIdx.x,
                           (int)blockDim.x);
      __syncthreads();
    }
    for (o = (int)threadIdx.x; o < outs; o += (int)blockDim.x) {
      const int g = o / mn, r = o - g * mn, i = r / n, j = r - i * n;
      typename N::acc acc = N::zero();
      if (use_ab) {
        const T *ar = sA + g * a_ent + i * a_si, *bc = sB + (shared_b ? 0 : g * b_ld) + j * b_sj;
        int l;
#pragma unroll 4
        for (l = 0; l < k; ++l)
          N::mad(acc, N::ld(ar + l * a_sl, ca), N::ld(bc + l * b_sl, cb));
      }
      if (GEN)
        bmm__cuda_epilogue<T>(
            pl, C + (b0 + g) * pl->c.batch_stride[0] + i * pl->c.row_stride + j * pl->c.col_stride,
            acc, j);
      else
        bmm__cuda_epilogue<T>(pl, Cg + o, acc, j);
    }
    if (use_ab) __syncthreads();
  }
}
template <typename T>
__global__ void bmm__cuda_staged(const __grid_constant__ bmm__cuda_args args) {
  bmm__cuda_staged_body<T, false>(args);
}
template <typename T>
__global__ void bmm__cuda_staged_gen(const __grid_constant__ bmm__cuda_args args) {
  bmm__cuda_staged_body<T, true>(args);
}

/* The sums of a row-major group in shared memory (A's rows a_ld apart, B's
   entries b_ld apart or one shared B): outputs t0, t0 + nt, ... of its cnt
   entries, written into the group's packed C span Cg. */
template <typename T>
static __device__ __forceinline__ void bmm__cuda_group_sums(const bmm_plan *pl, const T *sA,
                                                            const T *sB, int a_ld, int b_ld,
                                                            int cnt, T *Cg, int t0, int nt) {
  typedef bmm__cuda_num<T> N;
  const int ca = pl->a.conj, cb = pl->b.conj, shared_b = pl->layout == BMM_LAYOUT_SHARED_B;
  const int m = (int)pl->m, n = (int)pl->n, k = (int)pl->k, mn = m * n, outs = cnt * mn;
  int o;
  for (o = t0; o < outs; o += nt) {
    const int g = o / mn, r = o - g * mn, i = r / n, j = r - i * n;
    typename N::acc acc = N::zero();
    if (pl->use_ab) {
      const T *ar = sA + (g * m + i) * a_ld, *bc = sB + (shared_b ? 0 : g * b_ld) + j;
      int l;
#pragma unroll 4
      for (l = 0; l < k; ++l)
        N::mad(acc, N::ld(ar + l, ca), N::ld(bc + l * n, cb));
    }
    bmm__cuda_epilogue<T>(pl, Cg + o, acc, j);
  }
}

/* Asynchronous copies global -> shared of BYTES (4, 8 or 16): cp.async on
   sm_80+, where the copy does not hold the thread and lands by its thread's
   bmm__cuda_cp_wait<N> (every committed group but the newest N); before
   sm_80 a plain copy, landed at once. The emulator lands each copy either at
   its issue or at its wait, alternating by launch (tests/cuda_emu), so a
   buffer read before its wait and barrier, or overwritten before every
   thread is done with it, gives wrong results there. */
template <int BYTES>
static __device__ __forceinline__ void bmm__cuda_cp_async(void *dst, const void *src) {
#if defined(BMM__CUDA_EMULATED)
  bmm_emu_cp_async(dst, src, BYTES);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
      "l"(src), "n"(BYTES)
      : "memory");
#else
  memcpy(dst, src, BYTES);
#endif
}
static __device__ __forceinline__ void bmm__cuda_cp_commit(void) {
#if defined(BMM__CUDA_EMULATED)
  bmm_emu_cp_commit();
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> static __device__ __forceinline__ void bmm__cuda_cp_wait(void) {
#if defined(BMM__CUDA_EMULATED)
  bmm_emu_cp_wait(N);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* src[0..cnt) to dst in bmm__cuda_stage's map (element e at (e / row) * ld +
   e % row), one asynchronous copy per component: the padded rows that keep
   the sums free of bank conflicts leave no 16-byte runs to copy whole. The
   2-byte components of f16 / bf16 are below cp.async's smallest size: they
   move in 4-byte pairs where rows and row strides are even and src is on 4
   bytes (the pick pads halves' rows to that), else as plain copies (the
   barrier after the wait covers those too). */
template <typename T>
static __device__ __forceinline__ void bmm__cuda_stage_async(const T *__restrict__ src, int cnt,
                                                             T *dst, int row, int ld) {
  typedef typename bmm__cuda_num<T>::part P;
  const int q = bmm__cuda_num<T>::parts, pc = cnt * q, prow = row * q, pld = ld * q;
  const P *s = (const P *)src;
  P *d = (P *)dst;
  int e;
  if (sizeof(P) == 2 && prow % 2 == 0 && pld % 2 == 0 && (uintptr_t)src % 4 == 0) {
    for (e = 2 * (int)threadIdx.x; e < pc; e += 2 * (int)blockDim.x) {
      const int r = e / prow;
      bmm__cuda_cp_async<4>(d + r * pld + (e - r * prow), s + e);
    }
    return;
  }
  for (e = (int)threadIdx.x; e < pc; e += (int)blockDim.x) {
    const int r = e / prow;
    P *to = d + r * pld + (e - r * prow);
    if (sizeof(P) >= 4)
      bmm__cuda_cp_async<(sizeof(P) >= 4 ? (int)sizeof(P) : 4)>(to, s + e);
    else
      *to = s[e];
  }
}

/* Group grp's A and B spans (per_block entries, fewer in the last group)
   into buffer q: issued, not waited for. */
template <typename T>
static __device__ __forceinline__ void bmm__cuda_async_issue(const bmm__cuda_args &args,
                                                             int64_t grp, int q) {
  const bmm_plan *pl = &args.pl;
  const int m = (int)pl->m, n = (int)pl->n, k = (int)pl->k, G = args.per_block;
  const int64_t b0 = grp * G;
  const int cnt = (int)(pl->batch - b0 < G ? pl->batch - b0 : G);
  T *sA = (T *)bmm__cuda_smem + q * args.buf, *sB = (T *)bmm__cuda_smem + args.b_off + q * args.buf;
  bmm__cuda_stage_async<T>((const T *)pl->a.ptr + b0 * m * k, cnt * m * k, sA, k, args.a_ld);
  if (pl->layout != BMM_LAYOUT_SHARED_B)
    bmm__cuda_stage_async<T>((const T *)pl->b.ptr + b0 * k * n, cnt * k * n, sB, k * n, args.b_ld);
}

/* ASYNC: STAGED's groups and sums (row-major A rows of a_ld, B entries b_ld
   apart) with two buffers: while a block sums one group, the copies of its
   next group are in flight, so the bytes a multiprocessor keeps in flight no
   longer hang on how many threads wait in loads. A shared B is staged once
   (plain copies) after both buffers. args.buf = 0: one buffer (the pick
   found no room for two), each group waited for before it is summed. */
template <typename T> __global__ void bmm__cuda_async(const __grid_constant__ bmm__cuda_args args) {
  const bmm_plan *pl = &args.pl;
  const int m = (int)pl->m, n = (int)pl->n, k = (int)pl->k, mn = m * n;
  const int G = args.per_block, use_ab = pl->use_ab;
  const int shared_b = pl->layout == BMM_LAYOUT_SHARED_B;
  const int64_t nb = pl->batch, groups = (nb + G - 1) / G;
  T *C = (T *)pl->c.ptr, *smem = (T *)bmm__cuda_smem;
  const int two = args.buf != 0;
  int64_t grp = blockIdx.x;
  int q = 0;
  if (use_ab) {
    if (shared_b)
      bmm__cuda_stage<T>((const T *)pl->b.ptr, k * n, smem + args.b_off, k * n, k * n, args.vec,
                         (int)threadIdx.x, (int)blockDim.x);
    if (two && grp < groups) bmm__cuda_async_issue<T>(args, grp, 0);
    bmm__cuda_cp_commit();
  }
  for (; grp < groups; grp += gridDim.x, q ^= two) {
    const int64_t b0 = grp * G, nxt = grp + gridDim.x;
    const int cnt = (int)(nb - b0 < G ? nb - b0 : G);
    const T *sA = smem + q * args.buf, *sB = smem + args.b_off + (shared_b ? 0 : q * args.buf);
    if (use_ab && two) {
      /* the next group streams into the other buffer, which every thread
         finished summing before the barrier that ended the last turn */
      if (nxt < groups) bmm__cuda_async_issue<T>(args, nxt, q ^ 1);
      bmm__cuda_cp_commit();
      bmm__cuda_cp_wait<1>(); /* this group's copies (all but the newest) */
      __syncthreads();        /* ... and every other thread's */
    } else if (use_ab) {
      bmm__cuda_async_issue<T>(args, grp, 0);
      bmm__cuda_cp_commit();
      bmm__cuda_cp_wait<0>();
      __syncthreads();
    }
    bmm__cuda_group_sums<T>(pl, sA, sB, args.a_ld, args.b_ld, cnt, C + b0 * mn, (int)threadIdx.x,
                            (int)blockDim.x);
    if (use_ab) __syncthreads();
  }
  if (use_ab) bmm__cuda_cp_wait<0>(); /* the last turn's group is empty: nothing lands after exit */
}

/* WARP_STAGED: STAGED for tiny entries, a warp at a time (issue 20: where a
   block-wide barrier costs more than the sums). Each warp stages the spans
   of its own group of per_block entries into its own part of shared memory
   (args.buf elements apart; 16-byte loads, several per lane), waits for its
   own lanes only (__syncwarp) and sums the group. A warp's groups follow
   each other warp-stride, so its loop and its __syncwarp are uniform over
   its lanes. A shared B is staged once, by the block, before any group. */
#define BMM__CUDA_WARP_LOADS 4 /* 16-byte loads a lane has in flight while staging */
template <typename T>
__global__ void bmm__cuda_warp_staged(const __grid_constant__ bmm__cuda_args args) {
  const bmm_plan *pl = &args.pl;
  const int m = (int)pl->m, n = (int)pl->n, k = (int)pl->k, G = args.per_block;
  const int lane = (int)(threadIdx.x & 31u), warp = (int)(threadIdx.x >> 5);
  const int warps = (int)(blockDim.x >> 5), shared_b = pl->layout == BMM_LAYOUT_SHARED_B;
  const int64_t nb = pl->batch, groups = (nb + G - 1) / G;
  const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;
  T *C = (T *)pl->c.ptr, *sA = (T *)bmm__cuda_smem + warp * args.buf;
  T *sB = shared_b ? (T *)bmm__cuda_smem + warps * args.buf : sA + args.b_off;
  int64_t grp;
  if (pl->use_ab && shared_b) {
    bmm__cuda_stage<T>(B, k * n, sB, k * n, k * n, args.vec, (int)threadIdx.x, (int)blockDim.x);
    __syncthreads();
  }
  for (grp = (int64_t)blockIdx.x * warps + warp; grp < groups; grp += (int64_t)gridDim.x * warps) {
    const int64_t b0 = grp * G;
    const int cnt = (int)(nb - b0 < G ? nb - b0 : G);
    if (pl->use_ab) {
      bmm__cuda_stage<T, BMM__CUDA_WARP_LOADS>(A + b0 * m * k, cnt * m * k, sA, k, args.a_ld,
                                               args.vec, lane, 32);
      if (!shared_b)
        bmm__cuda_stage<T, BMM__CUDA_WARP_LOADS>(B + b0 * k * n, cnt * k * n, sB, k * n, args.b_ld,
                                                 args.vec, lane, 32);
      __syncwarp();
    }
    bmm__cuda_group_sums<T>(pl, sA, sB, args.a_ld, args.b_ld, cnt, C + b0 * m * n, lane, 32);
    if (pl->use_ab) __syncwarp(); /* every lane is done with the group before the next lands */
  }
}

/* TILED: a TL x TL tile of one C[b] per block iteration, K in steps of 16
   through shared memory, 256 threads each holding (TL/16)^2 accumulators.
   Tile loads pick the thread order from the operand's unit stride so global
   reads coalesce for row- and column-major alike; any strides are legal.
   Shared rows are padded by one element against bank conflicts. TL is a
   template constant (32 or 64: the register tile must unroll); the two
   kernels below are the variants a launch picks from.
   Double-buffered (issue 20): while a block sums K step s from one pair of
   shared tiles, its threads hold step s + 1 in registers, loaded before the
   sums so the loads are in flight during them, and store it into the other
   pair after: one barrier a step instead of two, and no step waits for its
   loads with nothing to do. Where two pairs outgrow the 48 KiB of static
   shared memory (c128, 64 x 64: 66,560 bytes) one pair, and a second
   barrier before the stores. */
#define BMM__CUDA_TILE_K 16
/* the tile pairs: 2 where they fit 48 KiB (the static limit), else 1 */
#define BMM__CUDA_TILED_BUFS(TL, ACC_SIZE) \
  (4 * BMM__CUDA_TILE_K * ((TL) + 1) * (ACC_SIZE) <= 48 * 1024 ? 2 : 1)

/* TILED's and MMA's walk over C: tiles of TL x TL, batch entry after entry;
   tile t of a grid-stride loop lies in entry *b from row *i0, column *j0 */
typedef struct bmm__cuda_tiles {
  int64_t tiles_n, per_entry, total;
} bmm__cuda_tiles;
static __device__ __forceinline__ bmm__cuda_tiles bmm__cuda_tiles_of(const bmm_plan *pl,
                                                                     int64_t tl) {
  bmm__cuda_tiles g;
  g.tiles_n = (pl->n + tl - 1) / tl;
  g.per_entry = (pl->m + tl - 1) / tl * g.tiles_n;
  g.total = g.per_entry * pl->batch;
  return g;
}
static __device__ __forceinline__ void bmm__cuda_tile_at(const bmm__cuda_tiles *g, int64_t t,
                                                         int64_t tl, int64_t *b, int64_t *i0,
                                                         int64_t *j0) {
  const int64_t e = t / g->per_entry, rt = t - e * g->per_entry, tm = rt / g->tiles_n;
  *b = e, *i0 = tm * tl, *j0 = (rt - tm * g->tiles_n) * tl;
}

/* one thread's share of K step l0's tiles (TL * 16 / 256 elements of each),
   loaded into registers in the operand's coalescing order (zeros outside) */
template <typename T, int TL>
static __device__ __forceinline__ void
bmm__cuda_tile_fetch(const bmm_plan *pl, const T *A, const T *B, int64_t i0, int64_t j0, int64_t l0,
                     int a_kfast, int b_nfast, typename bmm__cuda_num<T>::acc (&ra)[TL / 16],
                     typename bmm__cuda_num<T>::acc (&rb)[TL / 16]) {
  typedef bmm__cuda_num<T> N;
  enum { KT = BMM__CUDA_TILE_K };
  int u;
#pragma unroll
  for (u = 0; u < TL / 16; ++u) {
    const int e = (int)threadIdx.x + 256 * u;
    const int ii = a_kfast ? e / KT : e % TL, la = a_kfast ? e % KT : e / TL;
    const int jj = b_nfast ? e % TL : e / KT, lb = b_nfast ? e / TL : e % KT;
    const int64_t gi = i0 + ii, gj = j0 + jj;
    ra[u] = gi < pl->m && l0 + la < pl->k
                ? N::ld(A + gi * pl->a.row_stride + (l0 + la) * pl->a.col_stride, pl->a.conj)
                : N::zero();
    rb[u] = gj < pl->n && l0 + lb < pl->k
                ? N::ld(B + (l0 + lb) * pl->b.row_stride + gj * pl->b.col_stride, pl->b.conj)
                : N::zero();
  }
}

/* ... and into the shared tiles sA, sB ([KT][TL + 1] each), same order */
template <int TL, typename S>
static __device__ __forceinline__ void
bmm__cuda_tile_put(S (*sA)[TL + 1], S (*sB)[TL + 1], int a_kfast, int b_nfast,
                   const S (&ra)[TL / 16], const S (&rb)[TL / 16]) {
  enum { KT = BMM__CUDA_TILE_K };
  int u;
#pragma unroll
  for (u = 0; u < TL / 16; ++u) {
    const int e = (int)threadIdx.x + 256 * u;
    if (a_kfast)
      sA[e % KT][e / KT] = ra[u];
    else
      sA[e / TL][e % TL] = ra[u];
    if (b_nfast)
      sB[e / TL][e % TL] = rb[u];
    else
      sB[e % KT][e / KT] = rb[u];
  }
}

template <typename T, int TL>
static __device__ __forceinline__ void bmm__cuda_tiled_body(const bmm__cuda_args &args) {
  typedef bmm__cuda_num<T> N;
  typedef typename N::acc S;
  enum { R = TL / 16, KT = BMM__CUDA_TILE_K, NB = BMM__CUDA_TILED_BUFS(TL, sizeof(S)) };
  /* the tiles hold sums' type: f16/bf16 widened and conj applied once per
     load, not once per use */
  __shared__ S sA[NB][KT][TL + 1];
  __shared__ S sB[NB][KT][TL + 1];
  const bmm_plan *pl = &args.pl;
  const int64_t m = pl->m, n = pl->n, k = pl->k;
  const bmm__cuda_tiles tiles = bmm__cuda_tiles_of(pl, TL);
  const int a_kfast = pl->a.col_stride == 1 || m == 1, b_nfast = pl->b.col_stride == 1 || k == 1;
  const int tx = (int)(threadIdx.x & 15u), ty = (int)(threadIdx.x >> 4);
  T *C = (T *)pl->c.ptr;
  int64_t t;
  for (t = blockIdx.x; t < tiles.total; t += gridDim.x) {
    int64_t b, i0, j0, oa, ob, oc, l0;
    S acc[R][R], ra[R], rb[R];
    int r, c, q = 0;
    bmm__cuda_tile_at(&tiles, t, TL, &b, &i0, &j0);
    bmm__cuda_zero_sums<N>(acc);
    bmm__cuda_offsets(pl, b, &oa, &ob, &oc);
    if (pl->use_ab) {
      bmm__cuda_tile_fetch<T, TL>(pl, (const T *)pl->a.ptr + oa, (const T *)pl->b.ptr + ob, i0, j0,
                                  0, a_kfast, b_nfast, ra, rb);
      bmm__cuda_tile_put<TL>(sA[0], sB[0], a_kfast, b_nfast, ra, rb);
      __syncthreads();
    }
    for (l0 = 0; pl->use_ab && l0 < k; l0 += KT, q = (q + 1) % NB) {
      const int more = l0 + KT < k;
      int ll;
      if (more) /* the next step's loads, in flight during this step's sums */
        bmm__cuda_tile_fetch<T, TL>(pl, (const T *)pl->a.ptr + oa, (const T *)pl->b.ptr + ob, i0,
                                    j0, l0 + KT, a_kfast, b_nfast, ra, rb);
#pragma unroll
      for (ll = 0; ll < KT; ++ll) {
        S xa[R], xb[R];
#pragma unroll
        for (r = 0; r < R; ++r)
          xa[r] = sA[q][ll][ty + 16 * r];
#pragma unroll
        for (c = 0; c < R; ++c)
          xb[c] = sB[q][ll][tx + 16 * c];
#pragma unroll
        for (r = 0; r < R; ++r)
#pragma unroll
          for (c = 0; c < R; ++c)
            N::mad(acc[r][c], xa[r], xb[c]);
      }
      if (NB == 1) __syncthreads(); /* one pair: every thread done with it before the stores */
      if (more)
        bmm__cuda_tile_put<TL>(sA[(q + 1) % NB], sB[(q + 1) % NB], a_kfast, b_nfast, ra, rb);
      __syncthreads();
    }
#pragma unroll
    for (r = 0; r < R; ++r)
#pragma unroll
      for (c = 0; c < R; ++c) {
        const int64_t i = i0 + ty + 16 * r, j = j0 + tx + 16 * c;
        if (i < m && j < n)
          bmm__cuda_epilogue<T>(pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride, acc[r][c],
                                j);
      }
  }
}
/* Four 256-thread blocks of 32 x 32 a multiprocessor (64 registers: ptxas
   took 80 for f32 and f64 on sm_90 unbounded, 3 blocks; only c128 spills,
   72 bytes). At 64 x 64 a bound buys nothing: 2 blocks either way, and c128
   would spill 724 bytes. */
template <typename T>
__global__ void __launch_bounds__(256, 4)
    bmm__cuda_tiled32(const __grid_constant__ bmm__cuda_args args) {
  bmm__cuda_tiled_body<T, 32>(args);
}
template <typename T>
__global__ void __launch_bounds__(256)
    bmm__cuda_tiled64(const __grid_constant__ bmm__cuda_args args) {
  bmm__cuda_tiled_body<T, 64>(args);
}

/* MMA: tensor cores, f16 and bf16 only (BMM_CLAIM_HALVES_ONLY; issue 23).
   A block of 4 warps computes a 32 x 32 tile of C of one batch entry, each
   warp a 16 x 16 quarter as two mma.sync.m16n8k16 (f32 sums: the products
   of two halves are exact in f32, and C is rounded once, when stored). Per
   K step of 16 the block stages A's 32 x 16 and B's 16 x 32 elements into
   shared memory as 32-bit words of two halves along k (zeros outside the
   matrix), the unit the fragments are made of, B by column so that its
   words are k pairs too; then each lane reads its fragments by the layout
   of the PTX ISA ("Matrix Fragments for mma.m16n8k16 with floating point
   type"), with g = lane / 4 and t = lane % 4 (k in elements):
     A  a0 (row g, k 2t, 2t+1)  a1 (row g+8, same k)  a2, a3 (k 2t+8, 2t+9)
     B  b0 (col g, k 2t, 2t+1)  b1 (col g, k 2t+8, 2t+9)
     C  c0, c1 (row g, cols 2t, 2t+1)  c2, c3 (row g+8, same cols)
   A shared row is BMM__CUDA_MMA_LDW words (8 k pairs and 4 of padding), so
   the 32 lanes' fragment reads (word g * 12 + t, or t + 4) hit 32 distinct
   banks; the stores are spread over 32 banks too (A's rows and B's pairs
   placed below). Elements are loaded through the plan's strides, so any
   layout runs (k pairs side by side on 4 bytes as one load, others one by
   one: a layout's coalescing is its own); an element out of the matrix is
   a zero whose products land only in outputs that are not stored, and k
   out of range is zero in both A and B. Below compute capability 8.0 the
   pick refuses it (the instruction does not exist there). Not yet run on a
   GPU: correct in the emulator, which implements the instruction and its
   fragment layout (tests/cuda_emu). */
#define BMM__CUDA_MMA_TILE 32
#define BMM__CUDA_MMA_LDW 12

/* which mma.sync a kernel element type uses; ok = 0: none (never launched) */
template <typename T> struct bmm__cuda_mma_op {
  enum { ok = 0, bf16 = 0 };
};
template <> struct bmm__cuda_mma_op<bmm__cuda_f16> {
  enum { ok = 1, bf16 = 0 };
};
template <> struct bmm__cuda_mma_op<bmm__cuda_bf16> {
  enum { ok = 1, bf16 = 1 };
};

/* d += a * b: one warp's m16n8k16 with f32 sums (all 32 lanes, converged) */
template <int BF16>
static __device__ __forceinline__ void bmm__cuda_mma16816(float (&d)[4], const unsigned (&a)[4],
                                                          const unsigned (&b)[2]) {
#if defined(BMM__CUDA_EMULATED)
  bmm_emu_mma(BF16, d, a, b);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)d, (void)a, (void)b; /* below sm_80 the pick never launches cuda_mma */
#endif
}

/* elements (x, l) and (x, l + 1) of an operand at x * sx + l * sl as one
   word (l in the low half), each a zero where out of range (x >= nx, l >= k):
   one 4-byte load where the two lie side by side on a 4-byte boundary (A
   row-major: a warp's request then reads whole 32-byte sectors), else two */
template <typename T>
static __device__ __forceinline__ unsigned bmm__cuda_mma_pair(const T *p, int64_t x, int64_t nx,
                                                              int64_t sx, int64_t l, int64_t k,
                                                              int64_t sl) {
  const T *q;
  if (x >= nx || l >= k) return 0;
  q = p + x * sx + l * sl;
  if (l + 1 >= k) return q->bits;
  if (sl == 1 && ((uintptr_t)q & 3u) == 0) return *(const unsigned *)q;
  return (unsigned)q->bits | (unsigned)q[sl].bits << 16;
}

/* the word of k pair kp (0..7) of B's column j in its shared row: the pairs
   of each half of the row rotated by j / 8, so that a warp's stores of 32
   columns (one pair each) hit 32 banks (12 j mod 32 alone repeats every 8
   columns); a warp's fragment reads share j / 8 and stay conflict-free */
static __device__ __forceinline__ int bmm__cuda_mma_swz(int kp, int64_t j) {
  return (kp & 4) | ((kp + (int)(j >> 3)) & 3);
}

template <typename T, int OK = bmm__cuda_mma_op<T>::ok> struct bmm__cuda_mma_body {
  static __device__ __forceinline__ void run(const bmm__cuda_args &args) { (void)args; }
};
template <typename T> struct bmm__cuda_mma_body<T, 1> {
  static __device__ __forceinline__ void run(const bmm__cuda_args &args) {
    enum { TL = BMM__CUDA_MMA_TILE, KT = 16, LDW = BMM__CUDA_MMA_LDW };
    __shared__ unsigned sA[TL][LDW]; /* [row of A][k pair] */
    __shared__ unsigned sB[TL][LDW]; /* [column of B][k pair] */
    const bmm_plan *pl = &args.pl;
    const int64_t m = pl->m, n = pl->n, k = pl->k;
    const bmm__cuda_tiles tiles = bmm__cuda_tiles_of(pl, TL);
    const int lane = (int)(threadIdx.x & 31u), warp = (int)(threadIdx.x >> 5);
    const int g = lane >> 2, tg = lane & 3, wm = (warp >> 1) * 16, wn = (warp & 1) * 16;
    T *C = (T *)pl->c.ptr;
    int64_t t;
    for (t = blockIdx.x; t < tiles.total; t += gridDim.x) {
      int64_t b, i0, j0, oa, ob, oc, l0;
      float d[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
      int nt, r, u;
      bmm__cuda_tile_at(&tiles, t, TL, &b, &i0, &j0);
      bmm__cuda_offsets(pl, b, &oa, &ob, &oc);
      for (l0 = 0; pl->use_ab && l0 < k; l0 += KT) {
        const T *A = (const T *)pl->a.ptr + oa, *B = (const T *)pl->b.ptr + ob;
        unsigned fa[4], fb[2];
        /* 256 words of each tile, 2 a thread: A by rows (k fastest, as
           row-major A lies), a warp's 4 rows two apart (rows 2s + w % 2 of
           each 8: their 8 words start 8 banks apart, where 4 rows in a row
           would share 4 banks); B by columns (j fastest, as row-major B
           lies), its pairs rotated (bmm__cuda_mma_swz) */
#pragma unroll
        for (u = 0; u < 2; ++u) {
          const int e = (int)threadIdx.x + 128 * u;
          const int ra = (e >> 6) << 3 | ((e >> 3) & 3) << 1 | ((e >> 5) & 1);
          sA[ra][e & 7] = bmm__cuda_mma_pair(A, i0 + ra, m, pl->a.row_stride, l0 + 2 * (e & 7), k,
                                             pl->a.col_stride);
          sB[e & 31][bmm__cuda_mma_swz(e >> 5, e & 31)] = bmm__cuda_mma_pair(
              B, j0 + (e & 31), n, pl->b.col_stride, l0 + 2 * (e >> 5), k, pl->b.row_stride);
        }
        __syncthreads();
        fa[0] = sA[wm + g][tg];
        fa[1] = sA[wm + g + 8][tg];
        fa[2] = sA[wm + g][tg + 4];
        fa[3] = sA[wm + g + 8][tg + 4];
#pragma unroll
        for (nt = 0; nt < 2; ++nt) {
          fb[0] = sB[wn + 8 * nt + g][bmm__cuda_mma_swz(tg, wn + 8 * nt + g)];
          fb[1] = sB[wn + 8 * nt + g][bmm__cuda_mma_swz(tg + 4, wn + 8 * nt + g)];
          bmm__cuda_mma16816<bmm__cuda_mma_op<T>::bf16>(d[nt], fa, fb);
        }
        __syncthreads(); /* every warp done with the tiles before the next step's stores */
      }
#pragma unroll
      for (nt = 0; nt < 2; ++nt)
#pragma unroll
        for (r = 0; r < 4; ++r) {
          const int64_t i = i0 + wm + g + 8 * (r >> 1), j = j0 + wn + 8 * nt + 2 * tg + (r & 1);
          if (i < m && j < n)
            bmm__cuda_epilogue<T>(pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride,
                                  d[nt][r], j);
        }
    }
  }
};
template <typename T>
__global__ void __launch_bounds__(128) bmm__cuda_mma(const __grid_constant__ bmm__cuda_args args) {
  bmm__cuda_mma_body<T>::run(args);
}

/* BATCH_INNER: batch-innermost operands (element (b,i,j) at (i*cols+j)*nb+b):
   consecutive threads take consecutive b of the same (i, j), so every load
   and store of a warp is one contiguous run across the batch. */
template <typename T>
__global__ void bmm__cuda_batch_inner(const __grid_constant__ bmm__cuda_args args) {
  const bmm_plan *pl = &args.pl;
  const int64_t nb = pl->batch, n = pl->n, total = pl->m * n * nb;
  const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;
  T *C = (T *)pl->c.ptr;
  int64_t idx;
  for (idx = BMM__CUDA_TID(); idx < total; idx += BMM__CUDA_NTHREADS()) {
    const int64_t r = idx / nb, b = idx - r * nb, i = r / n, j = r - i * n;
    int64_t oa, ob, oc;
    typename bmm__cuda_num<T>::acc acc = bmm__cuda_num<T>::zero();
    bmm__cuda_offsets(pl, b, &oa, &ob, &oc);
    if (pl->use_ab)
      acc = bmm__cuda_dot<T>(pl, A + oa + i * pl->a.row_stride, pl->a.col_stride,
                             B + ob + j * pl->b.col_stride, pl->b.row_stride, pl->k);
    bmm__cuda_epilogue<T>(pl, C + oc + i * pl->c.row_stride + j * pl->c.col_stride, acc, j);
  }
}

/* BATCH_ENTRY: a thread per batch entry of a batch-innermost problem, all
   m x n sums of the entry in registers, so every element of A and B is read
   once (BATCH_INNER's thread per C element reads A n times and B m times,
   from DRAM once the batch outgrows L2). Consecutive threads take
   consecutive b: each load and store of a warp is one contiguous run across
   the batch. MM x NN (>= m x n) are template constants so the sums unroll
   into registers; the pick chooses the smallest variant that holds m x n. */
template <typename T, int MM, int NN>
static __device__ __forceinline__ void bmm__cuda_batch_entry_body(const bmm__cuda_args &args) {
  typedef bmm__cuda_num<T> N;
  typedef typename N::acc S;
  const bmm_plan *pl = &args.pl;
  const int ca = pl->a.conj, cb = pl->b.conj;
  const int64_t nb = pl->batch, m = pl->m, n = pl->n, k = pl->k;
  const int64_t ars = pl->a.row_stride, acs = pl->a.col_stride;
  const int64_t brs = pl->b.row_stride, bcs = pl->b.col_stride;
  const int64_t crs = pl->c.row_stride, ccs = pl->c.col_stride;
  const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;
  T *C = (T *)pl->c.ptr;
  int64_t b;
  for (b = BMM__CUDA_TID(); b < nb; b += BMM__CUDA_NTHREADS()) {
    int64_t oa, ob, oc, l;
    S acc[MM][NN];
    int i, j;
    bmm__cuda_zero_sums<N>(acc);
    bmm__cuda_offsets(pl, b, &oa, &ob, &oc);
    for (l = 0; pl->use_ab && l < k; ++l) {
      S av[MM], bv[NN];
#pragma unroll
      for (i = 0; i < MM; ++i)
        av[i] = i < m ? N::ld(A + oa + i * ars + l * acs, ca) : N::zero();
#pragma unroll
      for (j = 0; j < NN; ++j)
        bv[j] = j < n ? N::ld(B + ob + l * brs + j * bcs, cb) : N::zero();
#pragma unroll
      for (i = 0; i < MM; ++i)
#pragma unroll
        for (j = 0; j < NN; ++j)
          N::mad(acc[i][j], av[i], bv[j]);
    }
#pragma unroll
    for (i = 0; i < MM; ++i)
#pragma unroll
      for (j = 0; j < NN; ++j)
        if (i < m && j < n) bmm__cuda_epilogue<T>(pl, C + oc + i * crs + j * ccs, acc[i][j], j);
  }
}
template <typename T>
__global__ void bmm__cuda_batch_entry4(const __grid_constant__ bmm__cuda_args args) {
  bmm__cuda_batch_entry_body<T, 4, 4>(args);
}
template <typename T>
__global__ void bmm__cuda_batch_entry8(const __grid_constant__ bmm__cuda_args args) {
  bmm__cuda_batch_entry_body<T, 8, 8>(args);
}

/* FIXED: a thread per batch entry of a packed row-major (or shared-B)
   problem, every m x n sum of the entry in registers: no shared memory and
   no barrier, so nothing waits on a block (STAGED's cost on tiny entries),
   and no C element re-reads its A row and B column (LOOP's). MM x NN (>= m
   x n) are template constants from BMM__CUDA_FIXED_SIZES, so the sums and
   the loads unroll into registers; m, n themselves stay runtime values
   (zero-padded rows and columns are summed and never stored), which keeps
   the instantiations to one per size-list row and dtype. K is a runtime
   loop over 16-byte chunks of each A row: the registers a thread holds do
   not grow with k, so k needs no bound and no instantiation. Loads and
   stores are the widest the address allows (16, then 8 bytes, else element
   by element: a misaligned pointer or a k that leaves rows off 16-byte
   boundaries only narrows them). Not in any default table: not measured on
   a GPU yet (PREDICTED figures: bench/notes/cuda_fixed.md). */

/* dst[0..cnt) = src[0..cnt), the rest zero. cnt <= W. */
template <typename T, int W>
static __device__ __forceinline__ void bmm__cuda_fixed_ld(T (&dst)[W], const T *src, int cnt) {
  enum { BYTES = W * (int)sizeof(T) };
  const int have = cnt * (int)sizeof(T);
  int e;
  memset(dst, 0, sizeof dst);
  if (BYTES >= 16 && have % 16 == 0 && (uintptr_t)src % 16 == 0) {
#pragma unroll
    for (e = 0; e < BYTES / 16; ++e)
      if (16 * e < have) {
        const uint4 u = __ldg((const uint4 *)src + e);
        memcpy((char *)dst + 16 * e, &u, 16);
      }
  } else if (BYTES >= 8 && have % 8 == 0 && (uintptr_t)src % 8 == 0) {
#pragma unroll
    for (e = 0; e < BYTES / 8; ++e)
      if (8 * e < have) {
        const uint2 u = __ldg((const uint2 *)src + e);
        memcpy((char *)dst + 8 * e, &u, 8);
      }
  } else {
#pragma unroll
    for (e = 0; e < W; ++e)
      if (e < cnt) dst[e] = src[e];
  }
}

/* dst[0..cnt) = src[0..cnt), the same widths as the load ((void *): the
   emulator's vector types are classes, which memcpy may not write to) */
template <typename T, int W>
static __device__ __forceinline__ void bmm__cuda_fixed_st(T *dst, const T (&src)[W], int cnt) {
  enum { BYTES = W * (int)sizeof(T) };
  const int have = cnt * (int)sizeof(T);
  int e;
  if (BYTES >= 16 && have % 16 == 0 && (uintptr_t)dst % 16 == 0) {
#pragma unroll
    for (e = 0; e < BYTES / 16; ++e)
      if (16 * e < have) {
        uint4 u;
        memcpy((void *)&u, (const char *)src + 16 * e, 16);
        ((uint4 *)dst)[e] = u;
      }
  } else if (BYTES >= 8 && have % 8 == 0 && (uintptr_t)dst % 8 == 0) {
#pragma unroll
    for (e = 0; e < BYTES / 8; ++e)
      if (8 * e < have) {
        uint2 u;
        memcpy((void *)&u, (const char *)src + 8 * e, 8);
        ((uint2 *)dst)[e] = u;
      }
  } else {
#pragma unroll
    for (e = 0; e < W; ++e)
      if (e < cnt) dst[e] = src[e];
  }
}

template <typename T, int MM, int NN>
static __device__ __forceinline__ void bmm__cuda_fixed_body(const bmm__cuda_args &args) {
  typedef bmm__cuda_num<T> N;
  typedef typename N::acc S;
  enum { KC = 16 / (int)sizeof(T) }; /* elements of an A row per chunk: one 16-byte load */
  const bmm_plan *pl = &args.pl;
  const int ca = pl->a.conj, cb = pl->b.conj, m = (int)pl->m, n = (int)pl->n;
  const int64_t k = pl->k, nb = pl->batch;
  const T *A = (const T *)pl->a.ptr, *B = (const T *)pl->b.ptr;
  T *C = (T *)pl->c.ptr;
  T bias[NN];
  int64_t b;
  /* one bias row for every entry: read once per thread */
  if (pl->bias)
    bmm__cuda_fixed_ld<T, NN>(bias, (const T *)pl->bias, n);
  else
    memset(bias, 0, sizeof bias);
  for (b = BMM__CUDA_TID(); b < nb; b += BMM__CUDA_NTHREADS()) {
    int64_t oa, ob, oc, l0;
    S acc[MM][NN];
    int i, j, t;
    bmm__cuda_zero_sums<N>(acc);
    bmm__cuda_offsets(pl, b, &oa, &ob, &oc);
    for (l0 = 0; pl->use_ab && l0 < k; l0 += KC) {
      const int cnt = k - l0 < KC ? (int)(k - l0) : KC;
      T a[MM][KC], bv[KC][NN];
      S av[MM][KC], bw[KC][NN];
#pragma unroll
      for (i = 0; i < MM; ++i)
        if (i < m)
          bmm__cuda_fixed_ld<T, KC>(a[i], A + oa + i * k + l0, cnt);
        else
          memset(a[i], 0, sizeof a[i]);
      if (NN == 1) {
        /* one column: the chunk's B is cnt contiguous elements, one load */
        T col[KC];
        bmm__cuda_fixed_ld<T, KC>(col, B + ob + l0, cnt);
#pragma unroll
        for (t = 0; t < KC; ++t)
          bv[t][0] = col[t];
      } else {
#pragma unroll
        for (t = 0; t < KC; ++t)
          if (t < cnt)
            bmm__cuda_fixed_ld<T, NN>(bv[t], B + ob + (l0 + t) * n, n);
          else
            memset(bv[t], 0, sizeof bv[t]);
      }
#pragma unroll
      for (t = 0; t < KC; ++t) {
#pragma unroll
        for (i = 0; i < MM; ++i)
          av[i][t] = N::ld(&a[i][t], ca);
#pragma unroll
        for (j = 0; j < NN; ++j)
          bw[t][j] = N::ld(&bv[t][j], cb);
      }
      /* past cnt the chunk holds zeros: skipped, not added, so a sum keeps
         the sign of its zero as the other kernels do */
#pragma unroll
      for (t = 0; t < KC; ++t)
        if (t < cnt)
#pragma unroll
          for (i = 0; i < MM; ++i)
#pragma unroll
            for (j = 0; j < NN; ++j)
              N::mad(acc[i][j], av[i][t], bw[t][j]);
    }
    /* bmm__cuda_epilogue's arithmetic, a row at a time so C moves in
       vectors: alpha, then beta * C (read only when beta != 0), then bias */
#pragma unroll
    for (i = 0; i < MM; ++i)
      if (i < m) {
        T *cp = C + oc + (int64_t)i * n, cin[NN], out[NN];
        if (pl->read_c)
          bmm__cuda_fixed_ld<T, NN>(cin, cp, n);
        else
          memset(cin, 0, sizeof cin);
#pragma unroll
        for (j = 0; j < NN; ++j) {
          S v = N::scale(pl->alpha, pl->alpha_im, acc[i][j]);
          if (pl->read_c) v = N::add(v, N::scale(pl->beta, pl->beta_im, N::ld(&cin[j], 0)));
          if (pl->bias) v = N::add(v, N::ld(&bias[j], 0));
          N::st(&out[j], v);
        }
        bmm__cuda_fixed_st<T, NN>(cp, out, n);
      }
  }
}

/* The size list: X(MM, NN), one kernel bmm__cuda_fixed<MM>x<NN> each; the
   pick takes the first row that holds m x n. 4 x 1 is the seed's
   matrix-vector shape (its B chunk is one contiguous load and 4 sums, not
   16); 4 x 4 takes the rest of the claim (BMM_CUDA_STRATEGIES: m, n <= 4). */
#define BMM__CUDA_FIXED_SIZES(X, A) X(A, 4, 1) X(A, 4, 4)
/* Threads per block at most: the 4 x 4 c128 kernel takes 136 registers
   (ptxas, sm_90), so 512 threads would ask for more than a block's 65536;
   256 x 255 fits whatever ptxas allocates. The pick caps the rule's value
   (a __launch_bounds__(256) does the same but made ptxas squeeze that
   kernel to 128 registers and spill 88 bytes). */
#define BMM__CUDA_FIXED_MAX_THREADS 256
#define BMM__CUDA_FIXED_KERNEL(A, MM, NN)                                                   \
  template <typename T>                                                                     \
  __global__ void bmm__cuda_fixed##MM##x##NN(const __grid_constant__ bmm__cuda_args args) { \
    bmm__cuda_fixed_body<T, MM, NN>(args);                                                  \
  }
BMM__CUDA_FIXED_SIZES(BMM__CUDA_FIXED_KERNEL, )
#undef BMM__CUDA_FIXED_KERNEL

/* cuBLAS has no bias: added by a second launch after the GEMM (documented in
   explain). Packed C, as CUDA_CUBLAS claims rowmajor/shared_b only. */
template <typename T>
__global__ void bmm__cuda_add_bias(const __grid_constant__ bmm__cuda_args args) {
  const bmm_plan *pl = &args.pl;
  const int64_t n = pl->n, total = pl->m * n * pl->batch;
  const T *bias = (const T *)pl->bias;
  T *C = (T *)pl->c.ptr;
  int64_t idx;
  for (idx = BMM__CUDA_TID(); idx < total; idx += BMM__CUDA_NTHREADS())
    bmm__cuda_num<T>::st(C + idx, bmm__cuda_num<T>::add(bmm__cuda_num<T>::ld(C + idx, 0),
                                                        bmm__cuda_num<T>::ld(bias + idx % n, 0)));
}

/* ---- host side ---------------------------------------------------------- */

#define BMM__CUDA_MAX_DEVICES 64
/* Shared memory every architecture grants a block without opting in. */
#define BMM__CUDA_SMEM_DEFAULT (48 * 1024)

/* Kernel variants, the unit a launch picks: X(variant, strategy ENUM,
   kernel template, what it is). The launch switch is generated from it. */
#define BMM__CUDA_FIXED_VARIANT(X, MM, NN)                    \
  X(fixed##MM##x##NN, CUDA_FIXED, bmm__cuda_fixed##MM##x##NN, \
    "a thread per entry, m x n in registers")
#define BMM__CUDA_VARIANTS(X)                                                                   \
  X(loop, CUDA_LOOP, bmm__cuda_loop, "a thread per output")                                     \
  X(warp, CUDA_WARP, bmm__cuda_warp, "a sub-warp per output, K split over its lanes")           \
  X(staged, CUDA_STAGED, bmm__cuda_staged, "batch groups staged in shared memory")              \
  X(staged_gen, CUDA_STAGED, bmm__cuda_staged_gen, "staged, operands column-major per entry")   \
  X(async, CUDA_ASYNC, bmm__cuda_async, "staged through two buffers by asynchronous copies")    \
  X(warp_staged, CUDA_WARP_STAGED, bmm__cuda_warp_staged, "groups staged per warp, __syncwarp") \
  X(tiled32, CUDA_TILED, bmm__cuda_tiled32, "32x32 tiles, 2x2 outputs per thread")              \
  X(tiled64, CUDA_TILED, bmm__cuda_tiled64, "64x64 tiles, 4x4 outputs per thread")              \
  X(batch_inner, CUDA_BATCH_INNER, bmm__cuda_batch_inner, "a thread per output, b fastest")     \
  X(batch_entry4, CUDA_BATCH_ENTRY, bmm__cuda_batch_entry4, "a thread per entry, m, n <= 4")    \
  X(batch_entry8, CUDA_BATCH_ENTRY, bmm__cuda_batch_entry8, "a thread per entry, m, n <= 8")    \
  X(add_bias, CUDA_CUBLAS, bmm__cuda_add_bias, "the bias row added after cuBLAS")               \
  X(mma, CUDA_MMA, bmm__cuda_mma, "32x32 tiles, 4 warps of two m16n8k16 mma.sync each")         \
  BMM__CUDA_FIXED_SIZES(BMM__CUDA_FIXED_VARIANT, X)

typedef enum bmm__cuda_variant {
  BMM__CUDA_V_NONE = 0, /* no kernel: empty problem, or cuBLAS alone */
#define BMM__X(v, ...) BMM__CUDA_V_##v,
  BMM__CUDA_VARIANTS(BMM__X)
#undef BMM__X
      BMM__CUDA_V_COUNT
} bmm__cuda_variant;

typedef struct bmm__cuda_device {
  int ready;
  int id;                        /* the device's number (its kernels' cached resources) */
  int arch;                      /* major * 10 + minor */
  int sms;                       /* multiprocessors */
  int pageable;                  /* device reads pageable host memory (HMM/ATS) */
  int smem_optin;                /* max dynamic shared memory per block after opt-in */
  int smem_sm;                   /* shared memory per multiprocessor */
  int smem_rsv;                  /* shared memory the runtime reserves per block */
  int smem_block;                /* per block without opting in */
  int threads_sm, threads_block; /* resident threads per multiprocessor; per block */
  int regs_sm, regs_block;       /* 32-bit registers per multiprocessor; per block */
  int warp;
  /* kernels opted in: bit variant * dtypes + dtype (more than 64 since f16/bf16 and complex) */
  unsigned long long optin_done[(BMM__CUDA_V_COUNT * BMM_DTYPE_COUNT + 63) / 64];
} bmm__cuda_device;

static bmm__cuda_device bmm__cuda_devices[BMM__CUDA_MAX_DEVICES];

/* The current device and its cached properties; the first call per device
   queries them (under the lock: two threads may race to fill one entry). */
static bmm_status bmm__cuda_device_get(int *dev, bmm__cuda_device *out) {
  static const cudaDeviceAttr attrs[] = {cudaDevAttrComputeCapabilityMajor,
                                         cudaDevAttrComputeCapabilityMinor,
                                         cudaDevAttrMultiProcessorCount,
                                         cudaDevAttrPageableMemoryAccess,
                                         cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                         cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                         cudaDevAttrReservedSharedMemoryPerBlock,
                                         cudaDevAttrMaxSharedMemoryPerBlock,
                                         cudaDevAttrMaxThreadsPerMultiProcessor,
                                         cudaDevAttrMaxThreadsPerBlock,
                                         cudaDevAttrMaxRegistersPerMultiprocessor,
                                         cudaDevAttrMaxRegistersPerBlock,
                                         cudaDevAttrWarpSize};
  enum { NATTR = sizeof attrs / sizeof attrs[0] };
  cudaError_t e = cudaGetDevice(dev);
  bmm_status s = BMM_OK;
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return bmm__fail(BMM_NO_DEVICE, "cudaGetDevice: %s", cudaGetErrorString(e));
  }
  if (*dev < 0 || *dev >= BMM__CUDA_MAX_DEVICES)
    return bmm__fail(BMM_NO_DEVICE, "device %d: bmm caches at most %d devices", *dev,
                     BMM__CUDA_MAX_DEVICES);
  BMM__LOCK();
  if (!bmm__cuda_devices[*dev].ready) {
    int v[NATTR], i;
    for (i = 0; i < NATTR && e == cudaSuccess; ++i)
      e = cudaDeviceGetAttribute(&v[i], attrs[i], *dev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      s = bmm__fail(BMM_NO_DEVICE, "device %d: cudaDeviceGetAttribute(%d): %s", *dev,
                    (int)attrs[i - 1], cudaGetErrorString(e));
    } else {
      bmm__cuda_device d;
      memset(&d, 0, sizeof d);
      d.id = *dev, d.arch = v[0] * 10 + v[1], d.sms = v[2], d.pageable = v[3];
      d.smem_optin = v[4] < BMM__CUDA_SMEM_DEFAULT ? BMM__CUDA_SMEM_DEFAULT : v[4];
      d.smem_sm = v[5] < d.smem_optin ? d.smem_optin : v[5];
      d.smem_rsv = v[6] < 0 ? 0 : v[6];
      d.smem_block = v[7] > 0 ? v[7] : BMM__CUDA_SMEM_DEFAULT;
      d.threads_sm = v[8] < 1024 ? 1024 : v[8];
      d.threads_block = v[9] > 0 ? v[9] : 1024;
      d.regs_sm = v[10] > 0 ? v[10] : 65536;
      d.regs_block = v[11] > 0 ? v[11] : 65536;
      d.warp = v[12] > 0 ? v[12] : 32;
      d.ready = 1;
      bmm__cuda_devices[*dev] = d;
    }
  }
  if (s == BMM_OK) *out = bmm__cuda_devices[*dev];
  BMM__UNLOCK();
  return s;
}

/* The element type's name, for explain's kernel name. */
static const char *bmm__cuda_type_name(bmm_dtype dt) {
  switch (dt) {
#define BMM__X(E, name, ...) \
  case BMM_##E: return BMM__CUDA_STR(BMM__CUDA_T_##name);
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: return "?";
  }
}

static const char *bmm__cuda_variant_kernel(bmm__cuda_variant v) {
  switch (v) {
#define BMM__X(v, strat, kernel, ...) \
  case BMM__CUDA_V_##v: return #kernel;
    BMM__CUDA_VARIANTS(BMM__X)
#undef BMM__X
  default: return "none";
  }
}

/* A kernel's resources as compiled, from cudaFuncGetAttributes, cached per
   device and variant x dtype on a call's first pick: its registers decide how
   many blocks stay resident on a multiprocessor, so the grid's waves (a
   38-register kernel of 128 threads fits 12 blocks an H100 SM, not the 16
   its threads allow). */
typedef struct bmm__cuda_kattr {
  int state; /* 0: not asked yet; 1: known; -1: the runtime did not say */
  int regs, smem_static, max_threads;
} bmm__cuda_kattr;

static bmm__cuda_kattr bmm__cuda_kattrs[BMM__CUDA_MAX_DEVICES][BMM__CUDA_V_COUNT * BMM_DTYPE_COUNT];

/* The kernel of variant v for element type T (NULL: none). */
template <typename T> static const void *bmm__cuda_kernel_t(bmm__cuda_variant v) {
  switch (v) {
#define BMM__X(v, strat, kernel, ...) \
  case BMM__CUDA_V_##v: return (const void *)kernel<T>;
    BMM__CUDA_VARIANTS(BMM__X)
#undef BMM__X
  default: return NULL;
  }
}

static const void *bmm__cuda_kernel_of(bmm__cuda_variant v, bmm_dtype dt) {
  switch (dt) {
#define BMM__X(E, name, ...) \
  case BMM_##E: return bmm__cuda_kernel_t<BMM__CUDA_T_##name>(v);
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: return NULL;
  }
}

/* The emulator (tests/cuda_emu) answers from ptxas's counts instead. */
#ifndef BMM__CUDA_FUNC_ATTRIBUTES
#define BMM__CUDA_FUNC_ATTRIBUTES(fa, v, dt) cudaFuncGetAttributes(fa, bmm__cuda_kernel_of(v, dt))
#endif

static bmm__cuda_kattr bmm__cuda_kernel_attr(const bmm__cuda_device *d, bmm__cuda_variant v,
                                             bmm_dtype dt) {
  bmm__cuda_kattr k;
  BMM__LOCK();
  k = bmm__cuda_kattrs[d->id][v * BMM_DTYPE_COUNT + dt];
  if (!k.state) {
    struct cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    if (BMM__CUDA_FUNC_ATTRIBUTES(&fa, v, dt) == cudaSuccess && fa.numRegs > 0) {
      k.state = 1, k.regs = fa.numRegs, k.smem_static = (int)fa.sharedSizeBytes;
      k.max_threads = fa.maxThreadsPerBlock;
    } else {
      /* no image for this device, say: the launch reports it */
      (void)cudaGetLastError();
      k.state = -1;
    }
    bmm__cuda_kattrs[d->id][v * BMM_DTYPE_COUNT + dt] = k;
  }
  BMM__UNLOCK();
  return k;
}

/* Resident blocks per multiprocessor of a launch: the CUDA Toolkit's own
   occupancy calculator (cuda_occupancy.h, header only: the rules of
   cudaOccupancyMaxActiveBlocksPerMultiprocessor without its call on every
   pick) over the kernel's cached resources. Registers are allocated per warp
   from 4 sub-partitions, shared memory in 128-byte units plus the runtime's
   reservation per block; dynamic shared memory as the launch opts in. 0: no
   block fits. *limit: the binding resource. Where the calculator does not
   know the device (or the runtime did not give the kernel's resources),
   threads and shared memory alone decide, as before it. */
static int bmm__cuda_resident(const bmm__cuda_device *d, const bmm__cuda_kattr *k, int block,
                              size_t smem, const char **limit) {
  int n;
  if (k->state == 1 && block > k->max_threads) { /* __launch_bounds__ (TILED's 256) */
    *limit = "the kernel's thread limit";
    return 0;
  }
  if (k->state == 1) {
    cudaOccDeviceProp dp;
    cudaOccFuncAttributes fa;
    cudaOccDeviceState st;
    cudaOccResult r;
    memset(&r, 0, sizeof r);
    dp.computeMajor = d->arch / 10, dp.computeMinor = d->arch % 10, dp.numSms = d->sms;
    dp.maxThreadsPerBlock = d->threads_block, dp.maxThreadsPerMultiprocessor = d->threads_sm;
    dp.regsPerBlock = d->regs_block, dp.regsPerMultiprocessor = d->regs_sm, dp.warpSize = d->warp;
    dp.sharedMemPerBlock = (size_t)d->smem_block;
    dp.sharedMemPerMultiprocessor = (size_t)d->smem_sm;
    dp.sharedMemPerBlockOptin = (size_t)d->smem_optin;
    dp.reservedSharedMemPerBlock = (size_t)d->smem_rsv;
    fa.maxThreadsPerBlock = k->max_threads, fa.numRegs = k->regs;
    fa.sharedSizeBytes = (size_t)k->smem_static, fa.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    fa.maxDynamicSharedSizeBytes = (size_t)(d->smem_optin - k->smem_static);
    fa.numBlockBarriers = 1;
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &dp, &fa, &st, block, smem) ==
        CUDA_OCC_SUCCESS) {
      const unsigned f = r.limitingFactors;
      /* of several limits at the same count, the first of these */
      *limit = f & OCC_LIMIT_BLOCKS          ? "blocks"
               : f & OCC_LIMIT_WARPS         ? "threads"
               : f & OCC_LIMIT_REGISTERS     ? "registers"
               : f & OCC_LIMIT_SHARED_MEMORY ? "shared memory"
                                             : "barriers";
      return r.activeBlocksPerMultiprocessor;
    }
  }
  n = d->threads_sm / ((block + 31) / 32 * 32), *limit = "threads";
  if (smem && (int)((size_t)d->smem_sm / (smem + (size_t)d->smem_rsv)) < n)
    n = (int)((size_t)d->smem_sm / (smem + (size_t)d->smem_rsv)), *limit = "shared memory";
  return n;
}

static void bmm__cuda_default_table(int arch, const bmm_table_rule **rules, int *count) {
#define BMM__X(NAME, name, lo, hi, ...)                                               \
  if (lo == 0 || (arch >= lo && arch <= hi)) {                                        \
    *rules = BMM_CUDA_TABLE_##NAME, *count = BMM__CUDA_NRULES(BMM_CUDA_TABLE_##NAME); \
    return;                                                                           \
  }
  BMM__CUDA_ARCHS(BMM__X)
#undef BMM__X
}

/* What one call does, decided by bmm__cuda_pick: used by the launch and
   printed by explain. */
typedef struct bmm__cuda_launch {
  bmm__cuda_args args; /* args.pl: the validated problem and its table choice */
  int planned;         /* validation and table lookup succeeded */
  bmm__cuda_variant variant;
  int gemm; /* cuda_cublas: cublasGemmStridedBatchedEx before the kernel */
  int64_t grid;
  int block;
  size_t smem;           /* dynamic shared memory of the launch */
  size_t smem_static;    /* declared in the kernel (TILED), for explain */
  int tile;              /* TILED: tile edge */
  int sums_m, sums_n;    /* BATCH_ENTRY, FIXED: a thread's register array of sums (0: none) */
  int waves;             /* grid cap in waves of resident blocks (0: the default, 4) */
  int resident;          /* blocks per multiprocessor (0: no device to ask) */
  int regs;              /* the kernel's registers a thread (0: unknown) */
  const char *res_limit; /* what bounds `resident` */
  char why[384];         /* the reasons for the launch shape */
} bmm__cuda_launch;

static int bmm__cuda_pow2_at_least(int64_t v, int lo, int hi) {
  int w = lo;
  while (w < hi && w < v)
    w <<= 1;
  return w;
}

/* Blocks for `items` work units of `per_block` each; bmm__cuda_waves caps
   them at a few waves of resident blocks. */
static int64_t bmm__cuda_blocks(int64_t items, int64_t per_block) {
  int64_t want = bmm__ceil_div(items, per_block);
  return want < 1 ? 1 : want;
}

/* Threads per block: the rule's, else the strategy default; whole warps
   (WARP's shuffles need them). */
static int bmm__cuda_threads(const bmm_plan *pl, int dflt) {
  int t = pl->rule.threads ? pl->rule.threads : dflt;
  t = (t + 31) / 32 * 32;
  return t < 32 ? 32 : t > 1024 ? 1024 : t;
}

#define BMM__CUDA_WHY(L, ...) snprintf((L)->why, sizeof(L)->why, __VA_ARGS__)

/* ---- the launch shape of each strategy: bmm__cuda_shape_<name> ----------
   One function per BMM_CUDA_STRATEGIES row (the pick's switch is generated
   from the list, so a strategy without one does not compile). Each sets the
   variant, grid, block, shared memory and its own arguments, and says why. */

static bmm_status bmm__cuda_shape_cuda_loop(const bmm_plan *pl, const bmm__cuda_device *d,
                                            bmm__cuda_launch *L) {
  (void)d; /* the launch's waves: bmm__cuda_waves */
  L->variant = BMM__CUDA_V_loop;
  L->block = bmm__cuda_threads(pl, 256);
  L->grid = bmm__cuda_blocks(pl->m * pl->n * pl->batch, L->block);
  BMM__CUDA_WHY(L, "a thread per output; block: %s", pl->rule.threads ? "from the rule" : "256");
  return BMM_OK;
}

static bmm_status bmm__cuda_shape_cuda_batch_inner(const bmm_plan *pl, const bmm__cuda_device *d,
                                                   bmm__cuda_launch *L) {
  bmm_status s = bmm__cuda_shape_cuda_loop(pl, d, L);
  L->variant = BMM__CUDA_V_batch_inner;
  return s;
}

static bmm_status bmm__cuda_shape_cuda_batch_entry(const bmm_plan *pl, const bmm__cuda_device *d,
                                                   bmm__cuda_launch *L) {
  (void)d; /* the launch's waves: bmm__cuda_waves */
  const int small = pl->m <= 4 && pl->n <= 4;
  L->variant = small ? BMM__CUDA_V_batch_entry4 : BMM__CUDA_V_batch_entry8;
  L->sums_m = L->sums_n = small ? 4 : 8;
  L->block = bmm__cuda_threads(pl, 256);
  L->grid = bmm__cuda_blocks(pl->batch, L->block);
  BMM__CUDA_WHY(L,
                "a thread per batch entry, sums in a %dx%d register array (the smallest "
                "holding m x n); block: %s",
                L->sums_m, L->sums_n, pl->rule.threads ? "from the rule" : "256");
  return BMM_OK;
}

/* FIXED: the first size-list kernel whose MM x NN holds m x n (the claim,
   m, n <= 4, guarantees one); a thread per batch entry */
static bmm_status bmm__cuda_shape_cuda_fixed(const bmm_plan *pl, const bmm__cuda_device *d,
                                             bmm__cuda_launch *L) {
  (void)d; /* the launch's waves: bmm__cuda_waves */
#define BMM__CUDA_FIXED_PICK(A, MM, NN)                             \
  if (L->variant == BMM__CUDA_V_NONE && pl->m <= MM && pl->n <= NN) \
    L->variant = BMM__CUDA_V_fixed##MM##x##NN, L->sums_m = MM, L->sums_n = NN;
  BMM__CUDA_FIXED_SIZES(BMM__CUDA_FIXED_PICK, )
#undef BMM__CUDA_FIXED_PICK
  if (L->variant == BMM__CUDA_V_NONE)
    return bmm__fail(BMM_UNSUPPORTED, "cuda_fixed: no kernel of its size list holds m=%lld n=%lld",
                     (long long)pl->m, (long long)pl->n);
  L->block = bmm__cuda_threads(pl, BMM__CUDA_FIXED_MAX_THREADS);
  if (L->block > BMM__CUDA_FIXED_MAX_THREADS) L->block = BMM__CUDA_FIXED_MAX_THREADS;
  L->grid = bmm__cuda_blocks(pl->batch, L->block);
  BMM__CUDA_WHY(L,
                "a thread per batch entry, sums in a %dx%d register array (the first of the "
                "size list holding m x n); block: %s",
                L->sums_m, L->sums_n,
                pl->rule.threads ? "from the rule, at most 256 (136 registers x 512 > 65536)"
                                 : "256");
  return BMM_OK;
}

static bmm_status bmm__cuda_shape_cuda_warp(const bmm_plan *pl, const bmm__cuda_device *d,
                                            bmm__cuda_launch *L) {
  (void)d; /* the launch's waves: bmm__cuda_waves */
  /* about four K elements per lane: enough to hide the shuffle tree, few
     enough that long K still spreads over a full warp */
  const int lanes = pl->rule.lanes ? bmm__cuda_pow2_at_least(pl->rule.lanes, 2, 32)
                                   : bmm__cuda_pow2_at_least((pl->k + 3) / 4, 2, 32);
  L->variant = BMM__CUDA_V_warp;
  L->args.lanes = lanes;
  L->block = bmm__cuda_threads(pl, 256);
  L->grid = bmm__cuda_blocks(pl->m * pl->n * pl->batch, L->block / lanes);
  BMM__CUDA_WHY(L, "lanes: %s",
                pl->rule.lanes ? "from the rule (power of two in 2..32)"
                               : "about k/4 K elements per lane, a power of two in 2..32");
  return BMM_OK;
}

/* The staged strategies' shared rows (STAGED, ASYNC, WARP_STAGED): A's row
   stride *a_ld and B's entry stride *b_ld get the rule's pad, else are made
   odd against bank conflicts; where halves move in 4-byte pairs (ASYNC),
   an odd count of 4-byte words per row instead (2 mod 4 as is, 0 mod 4 plus
   2; odd rows stay), which keeps the sums free of bank conflicts as the odd
   row does for others. Returns the load width in bytes: the rule's vec, at
   least one element, else 16. */
static int bmm__cuda_group_rows(const bmm_plan *pl, int pairs, int64_t *a_ld, int64_t *b_ld) {
  const int es = (int)bmm_dtype_size(pl->dtype), vec = pl->rule.vec ? pl->rule.vec : 16;
  if (pl->rule.pad) {
    *a_ld += pl->rule.pad, *b_ld += pl->rule.pad;
  } else if (pairs) {
    if (*a_ld % 4 == 0) *a_ld += 2;
    if (*b_ld % 4 == 0) *b_ld += 2;
  } else {
    *a_ld |= 1, *b_ld |= 1;
  }
  return vec < es ? es : vec;
}

/* STAGED's and ASYNC's groups: batch entries per block, shared-memory rows
   and layout, for nbuf buffers of a group each (ASYNC: 2, the next group
   streaming into one while the other is summed; a shared B once after them). */
static bmm_status bmm__cuda_shape_groups(const bmm_plan *pl, const bmm__cuda_device *d,
                                         bmm__cuda_launch *L, int async) {
  const int64_t m = pl->m, n = pl->n, k = pl->k, es = (int64_t)bmm_dtype_size(pl->dtype);
  /* the packed-general form where the problem is no row-major class
     (BMM_CLAIM_PACKED): A or B may be column-major per entry, B shared */
  const unsigned cls = pl->layouts ? pl->layouts : 1u << pl->layout; /* hand-built: its layout */
  const int gen = !(cls & (BMM_L_ROWMAJOR | BMM_L_SHARED_B));
  const int a_cm = gen && !bmm__rowmajor_packed(&pl->a, k);
  const int b_cm = gen && !bmm__rowmajor_packed(&pl->b, n);
  const int shared_b = gen ? pl->b.batch_stride[0] == 0 : pl->layout == BMM_LAYOUT_SHARED_B;
  const char *name = async ? "cuda_async" : "cuda_staged";
  int nbuf = async ? 2 : 1;
  int64_t a_ld = a_cm ? m : k, b_ld = k * n, per_entry, fixed, b_off, buf, g, limit;
  const int64_t a_rows = a_cm ? k : m;
  const int vec = bmm__cuda_group_rows(pl, async && es == 2, &a_ld, &b_ld);
  const char *group_why;
  L->variant = async ? BMM__CUDA_V_async : gen ? BMM__CUDA_V_staged_gen : BMM__CUDA_V_staged;
  L->args.a_cm = a_cm, L->args.b_cm = b_cm;
  L->block = bmm__cuda_threads(pl, 128);
  /* per entry across the buffers; two buffers round up to 16 bytes three
     times (up to 45 bytes) */
  per_entry = pl->use_ab ? (a_rows * a_ld + (shared_b ? 0 : b_ld)) * es * nbuf : 0;
  fixed = pl->use_ab ? (shared_b ? k * n * es : 0) + (nbuf > 1 ? 48 : 0) : 0;
  if (pl->rule.batch_per_block) {
    g = pl->rule.batch_per_block;
    group_why = "from the rule";
  } else {
    /* one output per thread (rounding up would leave one straggler round),
       within the 48 KiB that lets several blocks share a multiprocessor */
    g = L->block / (m * n);
    group_why = "one output per thread";
    if (per_entry && g * per_entry + fixed > BMM__CUDA_SMEM_DEFAULT) {
      g = (BMM__CUDA_SMEM_DEFAULT - fixed) / per_entry;
      group_why = "as many as fit 48 KiB";
    }
    if (g < 1) g = 1;
  }
  if (g > pl->batch) g = pl->batch;
  if (g < 1) g = 1;
  limit = d->sms > 0 ? d->smem_optin : BMM__CUDA_SMEM_DEFAULT;
  /* a rule's batch_per_block is a speed choice, made for the device its
     table was measured or predicted on: where this device's shared memory
     holds fewer entries (the sm_8x table's 32 f64 4x4x64 entries need 132
     KiB, an RTX 30/40 card grants 99), as many as fit, not a refused call.
     The 16 bytes are B's alignment below. */
  if (pl->rule.batch_per_block && per_entry && g * per_entry + fixed + 16 > limit) {
    g = (limit - fixed - 16) / per_entry;
    group_why = "from the rule, cut to what the device's shared memory holds";
    if (g < 1) g = 1;
  }
  /* where one entry's spans in two buffers outgrow the device (c128
     32x32x128: 263,200 bytes), one buffer: the copies still do not hold the
     threads, but a group is waited for before it is summed */
  if (nbuf > 1 && per_entry && g * per_entry + fixed + 16 > limit) {
    nbuf = 1, per_entry /= 2, fixed -= 48;
    if (g * per_entry + fixed + 16 > limit) g = (limit - fixed - 16) / per_entry;
    if (g < 1) g = 1;
  }
  /* B after A, rounded up to 16 bytes so B's vector stores stay aligned;
     ASYNC's second buffer after the first (a shared B after both) */
  b_off = (g * a_rows * a_ld * es + 15) / 16 * 16 / es;
  buf = 0;
  if (nbuf > 1) {
    buf = shared_b ? b_off : ((b_off + g * b_ld) * es + 15) / 16 * 16 / es;
    if (shared_b) b_off = 2 * buf;
  }
  L->smem = pl->use_ab ? (size_t)((b_off + (shared_b ? k * n : buf + g * b_ld)) * es) : 0;
  if ((int64_t)L->smem > limit)
    return bmm__fail(BMM_UNSUPPORTED,
                     "%s needs %lld bytes of shared memory for %lld batch entries per "
                     "block (m=%lld n=%lld k=%lld), the device allows %lld",
                     name, (long long)L->smem, (long long)g, (long long)m, (long long)n,
                     (long long)k, (long long)limit);
  L->args.per_block = (int)g;
  L->args.a_ld = (int)a_ld;
  L->args.b_ld = (int)b_ld;
  L->args.b_off = (int)b_off;
  L->args.buf = (int)buf;
  L->args.vec = vec;
  L->grid = bmm__cuda_blocks(bmm__ceil_div(pl->batch, g), 1);
  /* one wave of resident blocks: each block then turns through several
     groups, the next in flight while it sums this one; four waves would
     leave most blocks one group and nothing to overlap */
  if (async) L->waves = 1;
  BMM__CUDA_WHY(L, "batch_per_block: %s; a_ld, b_ld: %s; vec: %s%s%s", group_why,
                pl->rule.pad       ? "padded by the rule"
                : async && es == 2 ? "an odd count of 4-byte words against bank conflicts"
                                   : "odd against bank conflicts",
                pl->rule.vec ? "from the rule" : "16 bytes (narrower where misaligned)",
                !async      ? ""
                : nbuf == 1 ? "; one buffer (two entries' spans exceed the device's shared memory)"
                : bmm_dtype_size(pl->dtype) == 2
                    ? "; two buffers of a group, cp.async of 4-byte pairs where rows are even "
                      "(plain copies for odd rows)"
                    : "; two buffers of a group, cp.async per component (plain copies below sm_80)"
                      ", vec for a shared B",
                async ? "; grid: one wave of resident blocks" : "");
  return BMM_OK;
}

static bmm_status bmm__cuda_shape_cuda_staged(const bmm_plan *pl, const bmm__cuda_device *d,
                                              bmm__cuda_launch *L) {
  return bmm__cuda_shape_groups(pl, d, L, 0);
}

static bmm_status bmm__cuda_shape_cuda_async(const bmm_plan *pl, const bmm__cuda_device *d,
                                             bmm__cuda_launch *L) {
  return bmm__cuda_shape_groups(pl, d, L, 1);
}

/* Entries after which spans of `bytes` each are back on 16 bytes: a power
   of two, at most 16. */
static int64_t bmm__cuda_align_period(int64_t bytes) {
  int64_t p = 1;
  while (p < 16 && (bytes * p) % 16)
    p *= 2;
  return p;
}

/* WARP_STAGED: a group of entries per warp, each warp's spans in its own
   part of shared memory (rounded to 16 bytes), a shared B once after them */
static bmm_status bmm__cuda_shape_cuda_warp_staged(const bmm_plan *pl, const bmm__cuda_device *d,
                                                   bmm__cuda_launch *L) {
  const int64_t m = pl->m, n = pl->n, k = pl->k, es = (int64_t)bmm_dtype_size(pl->dtype);
  const int shared_b = pl->layout == BMM_LAYOUT_SHARED_B;
  const int64_t limit = d->sms > 0 ? d->smem_optin : BMM__CUDA_SMEM_DEFAULT;
  const int64_t fixed = pl->use_ab && shared_b ? k * n * es : 0;
  int64_t a_ld = k, b_ld = k * n, per_entry, g, warps, b_off, wbuf;
  const int vec = bmm__cuda_group_rows(pl, 0, &a_ld, &b_ld);
  const char *group_why, *warps_why = pl->rule.threads ? "from the rule" : "4";
  L->variant = BMM__CUDA_V_warp_staged;
  L->block = bmm__cuda_threads(pl, 128);
  warps = L->block / 32;
  /* a warp's part: its entries plus up to 30 bytes of 16-byte rounding */
  per_entry = pl->use_ab ? (m * a_ld + (shared_b ? 0 : b_ld)) * es : 0;
  if (pl->rule.batch_per_block) {
    g = pl->rule.batch_per_block;
    group_why = "from the rule";
  } else {
    /* one round of loads: the entries whose spans fill every lane's
       BMM__CUDA_WARP_LOADS 16-byte loads (2 KiB a warp; f32 3x1x5: 25
       entries), so a group costs one trip to memory and shared memory
       stays small enough not to limit the blocks per multiprocessor */
    const int64_t bytes = (m * k + (shared_b ? 0 : k * n)) * es;
    g = bytes ? (int64_t)BMM__CUDA_WARP_LOADS * 32 * 16 / bytes : 1;
    group_why = "one 16-byte load round of the warp's lanes";
    /* whole 16-byte periods of A's and B's spans, so that every group's
       copies start aligned where the first does (no scalar heads) */
    {
      const int64_t pa = bmm__cuda_align_period(m * k * es);
      const int64_t pb = shared_b ? 1 : bmm__cuda_align_period(k * n * es);
      const int64_t per = pa > pb ? pa : pb; /* powers of two: the larger is their lcm */
      if (g >= per) g -= g % per;
    }
    if (per_entry && warps * (g * per_entry + 32) + fixed > BMM__CUDA_SMEM_DEFAULT) {
      g = ((BMM__CUDA_SMEM_DEFAULT - fixed) / warps - 32) / per_entry;
      group_why = "as many as fit 48 KiB";
    }
  }
  if (g > pl->batch) g = pl->batch;
  if (g < 1) g = 1;
  /* where the warps' parts outgrow the device: fewer entries, then fewer
     warps, then a refusal */
  if (per_entry && warps * (g * per_entry + 32) + fixed > limit) {
    g = ((limit - fixed) / warps - 32) / per_entry;
    group_why = "cut to what the device's shared memory holds";
    if (g < 1) {
      g = 1;
      warps = (limit - fixed) / (per_entry + 32);
      warps_why = "as many as the device's shared memory holds one entry each";
      if (warps < 1)
        return bmm__fail(BMM_UNSUPPORTED,
                         "cuda_warp_staged needs %lld bytes of shared memory for one batch entry "
                         "(m=%lld n=%lld k=%lld), the device allows %lld",
                         (long long)(per_entry + 32 + fixed), (long long)m, (long long)n,
                         (long long)k, (long long)limit);
      L->block = (int)warps * 32;
    }
  }
  b_off = (g * m * a_ld * es + 15) / 16 * 16 / es;
  wbuf = ((b_off + (shared_b ? 0 : g * b_ld)) * es + 15) / 16 * 16 / es;
  L->smem = pl->use_ab ? (size_t)((warps * wbuf + (shared_b ? k * n : 0)) * es) : 0;
  L->args.per_block = (int)g;
  L->args.a_ld = (int)a_ld;
  L->args.b_ld = (int)b_ld;
  L->args.b_off = (int)b_off;
  L->args.buf = (int)wbuf;
  L->args.vec = vec;
  L->grid = bmm__cuda_blocks(bmm__ceil_div(bmm__ceil_div(pl->batch, g), warps), 1);
  BMM__CUDA_WHY(L,
                "batch_per_block (entries per warp): %s; warps: %s; a_ld, b_ld: %s; vec: %s; "
                "__syncwarp only (a shared B: one block barrier)",
                group_why, warps_why,
                pl->rule.pad ? "padded by the rule" : "odd against bank conflicts",
                pl->rule.vec ? "from the rule" : "16 bytes (narrower where misaligned)");
  return BMM_OK;
}

static bmm_status bmm__cuda_shape_cuda_tiled(const bmm_plan *pl, const bmm__cuda_device *d,
                                             bmm__cuda_launch *L) {
  (void)d; /* the launch's waves: bmm__cuda_waves */
  int64_t tl;
  L->tile = pl->rule.tile ? (pl->rule.tile > 32 ? 64 : 32) : (pl->m >= 64 && pl->n >= 64 ? 64 : 32);
  tl = L->tile;
  L->variant = tl == 64 ? BMM__CUDA_V_tiled64 : BMM__CUDA_V_tiled32;
  L->smem_static = (size_t)(2 * BMM__CUDA_TILE_K * (tl + 1)) * bmm__cuda_acc_size(pl->dtype) *
                   BMM__CUDA_TILED_BUFS(tl, bmm__cuda_acc_size(pl->dtype));
  L->block = 256;
  L->grid = bmm__cuda_blocks(bmm__ceil_div(pl->m, tl) * bmm__ceil_div(pl->n, tl) * pl->batch, 1);
  BMM__CUDA_WHY(L, "tile: %s",
                pl->rule.tile ? "from the rule (32 or 64)" : "64 when m, n >= 64, else 32");
  return BMM_OK;
}

/* MMA: a block of 4 warps per 32 x 32 tile of C (the kernel above); the
   instruction needs compute capability 8.0 */
static bmm_status bmm__cuda_shape_cuda_mma(const bmm_plan *pl, const bmm__cuda_device *d,
                                           bmm__cuda_launch *L) {
  const int64_t tl = BMM__CUDA_MMA_TILE;
  if (d->ready && d->arch < 80)
    return bmm__fail(BMM_UNSUPPORTED,
                     "cuda_mma: mma.sync m16n8k16 needs compute capability 8.0 or later "
                     "(device %d is %d.%d)",
                     d->id, d->arch / 10, d->arch % 10);
  L->variant = BMM__CUDA_V_mma;
  L->smem_static = 2 * (size_t)(tl * BMM__CUDA_MMA_LDW) * sizeof(unsigned);
  L->block = 128;
  L->grid = bmm__cuda_blocks(bmm__ceil_div(pl->m, tl) * bmm__ceil_div(pl->n, tl) * pl->batch, 1);
  BMM__CUDA_WHY(L, "32 x 32 tiles of C, 4 warps of two m16n8k16 tensor-core products each, K "
                   "in steps of 16, f32 sums");
  return BMM_OK;
}

static bmm_status bmm__cuda_shape_cuda_cublas(const bmm_plan *pl, const bmm__cuda_device *d,
                                              bmm__cuda_launch *L) {
  bmm_status s = bmm__cuda_shape_cuda_loop(pl, d, L);
  if (!pl->use_ab) { /* C = beta C + bias: no GEMM to call */
    BMM__CUDA_WHY(L, "alpha = 0 or k = 0: the loop kernel computes beta*C + bias");
    return s;
  }
  if (pl->m > INT_MAX || pl->n > INT_MAX || pl->k > INT_MAX || pl->batch > INT_MAX)
    return bmm__fail(BMM_UNSUPPORTED,
                     "cuda_cublas: m, n, k and batch must fit int (m=%lld n=%lld k=%lld "
                     "batch=%lld)",
                     (long long)pl->m, (long long)pl->n, (long long)pl->k, (long long)pl->batch);
  /* cuBLAS conjugates only with a transpose (CUBLAS_OP_C), and the
     row-major trick above already spends the transpose */
  if (pl->a.conj || pl->b.conj)
    return bmm__fail(BMM_UNSUPPORTED,
                     "cuda_cublas: a.conj=%d b.conj=%d: cuBLAS cannot conjugate without "
                     "transposing (use cuda_loop, cuda_staged, ... or AUTO without a cuBLAS rule)",
                     pl->a.conj, pl->b.conj);
  L->gemm = 1;
  L->variant = pl->bias ? BMM__CUDA_V_add_bias : BMM__CUDA_V_NONE;
  BMM__CUDA_WHY(L, "%s",
                pl->bias ? "cuBLAS has no bias: a second launch adds it"
                         : "one cuBLAS call, no kernel of bmm's");
  return s;
}

static int bmm__cuda_compiled(bmm_strategy s);

/* The grid: at most a few waves of resident blocks (L->waves, default 4;
   the grid-stride loops take the rest, and grid x stays far below its
   2^31 - 1 limit whatever the batch). Residency from the kernel's registers
   and shared memory on this device (bmm__cuda_resident); a launch no block
   of which fits is refused here, by name, not by the runtime. Without a
   device (explain), 65535 blocks at most. */
static bmm_status bmm__cuda_waves(const bmm_plan *pl, const bmm__cuda_device *d,
                                  bmm__cuda_launch *L) {
  int64_t cap = 65535;
  if (d->ready && d->sms > 0) {
    const bmm__cuda_kattr k = bmm__cuda_kernel_attr(d, L->variant, pl->dtype);
    L->regs = k.state == 1 ? k.regs : 0;
    L->resident = bmm__cuda_resident(d, &k, L->block, L->smem, &L->res_limit);
    if (L->resident < 1)
      return bmm__fail(BMM_UNSUPPORTED,
                       "%s<%s>: no block of %d threads fits a multiprocessor of device %d (%s: "
                       "%d registers a thread of %d, %zu + %d bytes of shared memory of %d)",
                       bmm__cuda_variant_kernel(L->variant), bmm__cuda_type_name(pl->dtype),
                       L->block, d->id, L->res_limit, L->regs, d->regs_sm, L->smem, k.smem_static,
                       d->smem_sm);
    cap = (int64_t)d->sms * L->resident * (L->waves ? L->waves : 4);
  }
  if (L->grid > cap) L->grid = cap;
  return BMM_OK;
}

/* The launch shape of pl's strategy (the switch is generated from the list),
   then its grid's waves. */
static bmm_status bmm__cuda_shape(const bmm_plan *pl, const bmm__cuda_device *d,
                                  bmm__cuda_launch *L) {
  bmm_status s;
  switch (pl->strategy) {
#define BMM__X(E, name, ...) \
  case BMM_##E: s = bmm__cuda_shape_##name(pl, d, L); break;
    BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X
  default:
    return bmm__fail(BMM_BAD_STRATEGY, "strategy %s is not a CUDA strategy",
                     bmm_strategy_name(pl->strategy));
  }
  return s != BMM_OK || L->variant == BMM__CUDA_V_NONE ? s : bmm__cuda_waves(pl, d, L);
}

/* The pick: every choice one CUDA call makes, in one place. Validation and
   the table give the strategy (bmm__plan_with), the strategy's shape
   function the kernel variant, grid, block, group size, shared memory and
   vector width, with the reasons in L->why. Without a device the generic
   table and the limits every device grants decide. Returns the first
   failure; L->planned says whether validation and the table succeeded (a
   launch-shape failure comes after them). */
static bmm_status bmm__cuda_pick(const bmm_problem *p, bmm_strategy forced,
                                 const bmm__cuda_device *d, bmm__cuda_launch *L) {
  bmm_plan *pl = &L->args.pl;
  const bmm_table_rule *rules;
  int count;
  bmm_status s;
  memset(L, 0, sizeof *L);
  bmm__cuda_default_table(d->ready ? d->arch : 0, &rules, &count);
  s = bmm__plan_with(p, BMM_BACKEND_CUDA, rules, count, forced, pl);
  if (s != BMM_OK) return s;
  L->planned = 1;
  if (pl->m == 0 || pl->n == 0 || pl->batch == 0) {
    BMM__CUDA_WHY(L, "empty: no launch");
    return BMM_OK;
  }
  if (!bmm__cuda_compiled(pl->strategy)) {
    BMM__CUDA_WHY(L, "not compiled: define BMM_WITH_CUBLAS");
    return BMM_OK;
  }
  s = bmm__cuda_shape(pl, d, L);
  /* AUTO: a table's choice that cannot launch this problem on this device
     (STAGED: one batch entry needs more shared memory than the device grants
     a block, e.g. c128 31x32x50 on a 48 KiB device under the generic table)
     runs as cuda_loop, which needs none and handles every problem, and the
     why says so: a valid call is never refused for a table's choice. A
     forced strategy keeps its error. */
  if (s == BMM_UNSUPPORTED && pl->rule_index >= 0 && pl->strategy != BMM_CUDA_LOOP) {
    char was[200];
    bmm_plan keep = *pl;
    int i;
    snprintf(was, sizeof was, "%.199s", bmm__err);
    memset(L, 0, sizeof *L); /* what the failed shape set: smem, variant, args */
    L->args.pl = keep, L->planned = 1;
    pl->strategy = pl->rule.strategy = BMM_CUDA_LOOP;
    for (i = 0; i < BMM_TUNABLE_COUNT; ++i) /* the tunables were the other strategy's */
      *bmm__tunable(&pl->rule, i) = 0;
    pl->rule.kernel[0] = 0;
    s = bmm__cuda_shape(pl, d, L);
    if (s == BMM_OK) {
      char why[100];
      snprintf(why, sizeof why, "%.99s", L->why);
      BMM__CUDA_WHY(L, "the table's choice cannot launch here (%s): cuda_loop, %s", was, why);
    }
  }
  return s;
}

/* A launch error, with the runtime's text. */
static bmm_status bmm__cuda_check_launch(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    return bmm__fail(BMM_CUDA_ERROR, "%s launch: %s (%s)", what, cudaGetErrorString(e),
                     cudaGetErrorName(e));
  return BMM_OK;
}

/* Above 48 KiB a kernel must opt in once per device; the attribute call is
   not a stream operation, so capture is not disturbed. */
static bmm_status bmm__cuda_optin(const void *kernel, int bit, bmm__cuda_device *d, int dev) {
  bmm_status s = BMM_OK;
  BMM__LOCK();
  if (!(bmm__cuda_devices[dev].optin_done[bit / 64] & (1ull << bit % 64))) {
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, d->smem_optin);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      s = bmm__fail(BMM_CUDA_ERROR, "cudaFuncSetAttribute(MaxDynamicSharedMemorySize, %d): %s",
                    d->smem_optin, cudaGetErrorString(e));
    } else {
      bmm__cuda_devices[dev].optin_done[bit / 64] |= 1ull << bit % 64;
    }
  }
  BMM__UNLOCK();
  return s;
}

#ifdef BMM_WITH_CUBLAS
#define BMM__CUDA_HAVE_CUBLAS 1
static cublasHandle_t bmm__cuda_cublas_handles[BMM__CUDA_MAX_DEVICES];

/* Row-major C = A B is column-major C^T = B^T A^T: B goes first, no copies.
   The handle is made on the first call per device (so that call must not be
   inside a stream capture) and used under the lock: cublasSetStream and the
   GEMM must not interleave between threads. ty: the dtype row's CUDA type;
   the products accumulate in f64 for f64 and c128 and in f32 for every other
   type (f16, bf16: CUBLAS_COMPUTE_32F, halves in and out, as the kernels);
   alpha and beta are then (re, im) of that type (a real type reads re). */
template <typename T>
static bmm_status bmm__cuda_gemm(const bmm_plan *pl, int dev, cudaStream_t st, cudaDataType_t ty) {
  const long long sa = pl->a.batch_stride[0], sb = pl->b.batch_stride[0],
                  sc = pl->c.batch_stride[0];
  const int wide = ty == CUDA_R_64F || ty == CUDA_C_64F;
  const double ald[2] = {pl->alpha, pl->alpha_im}, bed[2] = {pl->beta, pl->beta_im};
  const float alf[2] = {(float)pl->alpha, (float)pl->alpha_im};
  const float bef[2] = {(float)pl->beta, (float)pl->beta_im};
  const void *al = wide ? (const void *)ald : (const void *)alf;
  const void *be = wide ? (const void *)bed : (const void *)bef;
  cublasStatus_t cs = CUBLAS_STATUS_SUCCESS;
  cublasHandle_t h;
  BMM__LOCK();
  if (!bmm__cuda_cublas_handles[dev]) cs = cublasCreate(&bmm__cuda_cublas_handles[dev]);
  h = bmm__cuda_cublas_handles[dev];
  if (cs == CUBLAS_STATUS_SUCCESS) cs = cublasSetStream(h, st);
  if (cs == CUBLAS_STATUS_SUCCESS)
    cs = cublasGemmStridedBatchedEx(
        h, CUBLAS_OP_N, CUBLAS_OP_N, (int)pl->n, (int)pl->m, (int)pl->k, al, pl->b.ptr, ty,
        (int)pl->n, sb, pl->a.ptr, ty, (int)pl->k, sa, be, (void *)pl->c.ptr, ty, (int)pl->n, sc,
        (int)pl->batch, wide ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  BMM__UNLOCK();
  if (cs != CUBLAS_STATUS_SUCCESS)
    return bmm__fail(BMM_CUDA_ERROR, "cuda_cublas: %s (%s)", cublasGetStatusName(cs),
                     cublasGetStatusString(cs));
  return BMM_OK;
}
#else
#define BMM__CUDA_HAVE_CUBLAS 0
template <typename T>
static bmm_status bmm__cuda_gemm(const bmm_plan *pl, int dev, cudaStream_t st, cudaDataType_t ty) {
  (void)pl, (void)dev, (void)st, (void)ty;
  return bmm__fail(BMM_NOT_COMPILED, "cuda_cublas: compile with -DBMM_WITH_CUBLAS, link -lcublas");
}
#endif

static int bmm__cuda_compiled(bmm_strategy s) {
  return s != BMM_CUDA_CUBLAS || BMM__CUDA_HAVE_CUBLAS;
}

/* ---- the launch: does what the pick decided ------------------------------ */

#ifndef BMM__CUDA_EMULATED
#define BMM__CUDA_GO(kernel) kernel<<<(unsigned)L->grid, (unsigned)L->block, L->smem, st>>>(L->args)
#endif

/* The kernel variant for element type T; the cases come from
   BMM__CUDA_VARIANTS. Kernels above 48 KiB of shared memory opt in first. */
template <typename T>
static bmm_status bmm__cuda_go(const bmm__cuda_launch *L, bmm__cuda_device *d, int dev,
                               cudaStream_t st, cudaDataType_t ty) {
  bmm_status s = L->gemm ? bmm__cuda_gemm<T>(&L->args.pl, dev, st, ty) : BMM_OK;
  if (s == BMM_OK && L->variant != BMM__CUDA_V_NONE && L->smem > BMM__CUDA_SMEM_DEFAULT)
    s = bmm__cuda_optin(bmm__cuda_kernel_t<T>(L->variant),
                        L->variant * BMM_DTYPE_COUNT + (int)L->args.pl.dtype, d, dev);
  if (s != BMM_OK) return s;
  switch (L->variant) {
#define BMM__X(v, strat, kernel, ...) \
  case BMM__CUDA_V_##v: BMM__CUDA_GO(kernel<T>); break;
    BMM__CUDA_VARIANTS(BMM__X)
#undef BMM__X
  default: break;
  }
  return bmm__cuda_check_launch(
      L->variant != BMM__CUDA_V_NONE ? bmm__cuda_variant_kernel(L->variant) : "cuda_cublas");
}

/* The dtype switch of a launch (bmm__cuda_kernel_of has the other: a
   kernel's address, for its resources). */
static bmm_status bmm__cuda_launch_dtype(const bmm__cuda_launch *L, bmm__cuda_device *d, int dev,
                                         cudaStream_t st) {
  switch (L->args.pl.dtype) {
#define BMM__X(E, name, T, bytes, acc, roundoff, cuda_type, ...) \
  case BMM_##E: return bmm__cuda_go<BMM__CUDA_T_##name>(L, d, dev, st, cuda_type);
    BMM_DTYPES(BMM__X)
#undef BMM__X
  default: break;
  }
  return bmm__fail(BMM_BAD_DTYPE, "dtype %d", (int)L->args.pl.dtype); /* never: validated */
}

/* The device must be able to dereference every pointer the kernel reads or
   writes: checked here because a fault inside the kernel would poison the
   whole context. Element alignment too: a misaligned element faults. */
static bmm_status bmm__cuda_check_ptr(const char *name, const void *p, size_t es, int dev,
                                      const bmm__cuda_device *d) {
  cudaPointerAttributes at;
  cudaError_t e;
  if ((uintptr_t)p % es)
    return bmm__fail(BMM_BAD_DEVICE_POINTER, "%s (%p) is not aligned to its %d-byte elements", name,
                     p, (int)es);
  e = cudaPointerGetAttributes(&at, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return bmm__fail(BMM_BAD_DEVICE_POINTER, "%s (%p): cudaPointerGetAttributes: %s", name, p,
                     cudaGetErrorString(e));
  }
  switch (at.type) {
  case cudaMemoryTypeManaged: return BMM_OK;
  case cudaMemoryTypeDevice: {
    int peer = 0;
    if (at.device == dev) return BMM_OK;
    if (cudaDeviceCanAccessPeer(&peer, dev, at.device) == cudaSuccess && peer) return BMM_OK;
    return bmm__fail(BMM_BAD_DEVICE_POINTER,
                     "%s (%p) is memory of device %d, which device %d cannot access", name, p,
                     at.device, dev);
  }
  case cudaMemoryTypeHost:
    if (at.devicePointer == p) return BMM_OK;
    return bmm__fail(BMM_BAD_DEVICE_POINTER,
                     "%s (%p) is pinned host memory not mapped at the same address on the device "
                     "(pass cudaHostGetDevicePointer's address)",
                     name, p);
  default:
    if (d->pageable) return BMM_OK;
    return bmm__fail(BMM_BAD_DEVICE_POINTER,
                     "%s (%p) is host memory the device cannot read (use cudaMalloc, "
                     "cudaMallocManaged or cudaHostRegister)",
                     name, p);
  }
}

static bmm_status bmm__cuda_entry(const bmm_problem *p, bmm_strategy forced, cudaStream_t st) {
  bmm__cuda_launch L;
  bmm__cuda_device d;
  int dev = 0;
  bmm_status ds, s;
  size_t es;
  const bmm_plan *pl = &L.args.pl;
  memset(&d, 0, sizeof d);
  ds = bmm__cuda_device_get(&dev, &d);
  s = bmm__cuda_pick(p, forced, &d, &L);
  if (!L.planned) return s;
  if (!bmm__cuda_compiled(pl->strategy))
    return bmm__fail(BMM_NOT_COMPILED, "%s: compile with -DBMM_WITH_CUBLAS, link -lcublas",
                     bmm_strategy_name(pl->strategy));
  if (ds != BMM_OK) {
    bmm__cuda_device_get(&dev, &d); /* the message again: planning replaced it */
    return ds;
  }
  if (pl->m == 0 || pl->n == 0 || pl->batch == 0) return bmm__ok();
  /* pointers first, then a launch shape the device cannot take (the
     message of s survives: a passing check leaves it alone) */
  /* a complex element needs the alignment of its component only (bmm.h) */
  es = bmm_dtype_size(pl->dtype) / (bmm_dtype_is_complex(pl->dtype) ? 2 : 1);
  {
    bmm_status ps = bmm__cuda_check_ptr("c.ptr", pl->c.ptr, es, dev, &d);
    if (ps == BMM_OK && pl->use_ab) ps = bmm__cuda_check_ptr("a.ptr", pl->a.ptr, es, dev, &d);
    if (ps == BMM_OK && pl->use_ab) ps = bmm__cuda_check_ptr("b.ptr", pl->b.ptr, es, dev, &d);
    if (ps == BMM_OK && pl->bias) ps = bmm__cuda_check_ptr("bias", pl->bias, es, dev, &d);
    if (ps != BMM_OK) return ps;
  }
  if (s != BMM_OK) return s;
  s = bmm__cuda_launch_dtype(&L, &d, dev, st);
  return s == BMM_OK ? bmm__ok() : s;
}

bmm_status bmm_cuda(const bmm_problem *p, cudaStream_t stream) {
  return bmm__cuda_entry(p, BMM_FORCE_CUDA_STRATEGY, stream);
}

#define BMM__X(E, name, ...)                                         \
  bmm_status bmm_##name(const bmm_problem *p, cudaStream_t stream) { \
    return bmm__cuda_entry(p, BMM_##E, stream);                      \
  }
BMM_CUDA_STRATEGIES(BMM__X)
#undef BMM__X

/* explain: the shared text, then the device and what the pick decided. */
static bmm_status bmm__cuda_explain(const bmm_problem *p, char *buf, size_t len) {
  const bmm_table_rule *rules;
  bmm__cuda_device d;
  bmm__cuda_launch L;
  bmm_plan pl;
  int dev = 0, count;
  char why[512];
  size_t used;
  bmm_status s, ds;
  memset(&d, 0, sizeof d);
  ds = bmm__cuda_device_get(&dev, &d);
  if (ds != BMM_OK) snprintf(why, sizeof why, "%s", bmm__err_body());
  bmm__cuda_default_table(ds == BMM_OK ? d.arch : 0, &rules, &count);
  s = bmm__explain_with(p, BMM_BACKEND_CUDA, rules, count, BMM_FORCE_CUDA_STRATEGY, buf, len, &pl);
  if (s != BMM_OK) return s;
  used = strlen(buf);
  if (ds == BMM_OK)
    used +=
        (size_t)snprintf(buf + used, len - used, "; device %d sm_%d (%d SMs)", dev, d.arch, d.sms);
  else
    used += (size_t)snprintf(buf + used, len - used, "; no device (%s): generic table", why);
  if (used >= len) return bmm__ok();
  s = bmm__cuda_pick(p, BMM_FORCE_CUDA_STRATEGY, &d, &L);
  if (s != BMM_OK) {
    snprintf(buf + used, len - used, "; cannot launch: %s", bmm__err);
    return s;
  }
  if (!L.gemm && L.variant == BMM__CUDA_V_NONE) {
    snprintf(buf + used, len - used, "; %s", L.why);
    return bmm__ok();
  }
  used +=
      (size_t)snprintf(buf + used, len - used, "; %s%s", L.gemm ? "cublasGemmStridedBatchedEx" : "",
                       L.gemm && L.variant ? " then " : "");
  if (used < len && L.variant)
    used +=
        (size_t)snprintf(buf + used, len - used, "kernel=%s<%s> launch grid=%lld block=%d smem=%zu",
                         bmm__cuda_variant_kernel(L.variant), bmm__cuda_type_name(pl.dtype),
                         (long long)L.grid, L.block, L.smem + L.smem_static);
  if (used < len && L.variant && L.resident)
    used += L.regs ? (size_t)snprintf(buf + used, len - used,
                                      " resident=%d/SM (limit: %s; %d registers a thread)",
                                      L.resident, L.res_limit, L.regs)
                   : (size_t)snprintf(buf + used, len - used,
                                      " resident=%d/SM (limit: %s; registers unknown)", L.resident,
                                      L.res_limit);
  if (used >= len) return bmm__ok();
  switch (L.variant) {
  case BMM__CUDA_V_warp:
    used += (size_t)snprintf(buf + used, len - used, " lanes=%d", L.args.lanes);
    break;
  case BMM__CUDA_V_staged:
  case BMM__CUDA_V_staged_gen:
  case BMM__CUDA_V_async:
    used += (size_t)snprintf(buf + used, len - used, " batch_per_block=%d a_ld=%d b_ld=%d vec=%dB",
                             L.args.per_block, L.args.a_ld, L.args.b_ld, L.args.vec);
    if (L.variant == BMM__CUDA_V_async && used < len)
      used += (size_t)snprintf(buf + used, len - used, " buffers=%d buf=%d", L.args.buf ? 2 : 1,
                               L.args.buf);
    if (L.variant == BMM__CUDA_V_staged_gen && used < len)
      used += (size_t)snprintf(buf + used, len - used, " a=%s b=%s", L.args.a_cm ? "col" : "row",
                               L.args.b_cm ? "col" : "row");
    break;
  case BMM__CUDA_V_warp_staged:
    used += (size_t)snprintf(buf + used, len - used,
                             " batch_per_block=%d (per warp) warps=%d a_ld=%d b_ld=%d vec=%dB",
                             L.args.per_block, L.block / 32, L.args.a_ld, L.args.b_ld, L.args.vec);
    break;
  case BMM__CUDA_V_tiled32:
  case BMM__CUDA_V_tiled64:
    used += (size_t)snprintf(buf + used, len - used, " tile=%dx%dx%d buffers=%d", L.tile, L.tile,
                             BMM__CUDA_TILE_K,
                             BMM__CUDA_TILED_BUFS(L.tile, bmm__cuda_acc_size(pl.dtype)));
    break;
  default: break;
  }
  if (L.sums_m && used < len)
    used += (size_t)snprintf(buf + used, len - used, " sums=%dx%d", L.sums_m, L.sums_n);
  if (used < len) snprintf(buf + used, len - used, " (why: %s)", L.why);
  return bmm__ok();
}

static bmm_status bmm__cuda_plan(const bmm_problem *p, bmm_plan *out) {
  bmm__cuda_device d;
  bmm__cuda_launch L;
  int dev;
  bmm_status s;
  memset(&d, 0, sizeof d);
  bmm__cuda_device_get(&dev, &d);
  s = bmm__cuda_pick(p, BMM_FORCE_CUDA_STRATEGY, &d, &L);
  if (L.planned) *out = L.args.pl;
  return L.planned ? bmm__ok() : s;
}

static bmm_status bmm__cuda_run(const bmm_problem *p, void *queue) {
  return bmm_cuda(p, (cudaStream_t)queue);
}

/* bmm.h's implementation learns of this backend here, at program start, so
   it needs no declaration of it and either include order works. */
static const bmm__backend_ops bmm__cuda_backend = {
    BMM_BACKEND_CUDA,  bmm__cuda_default_table,
    bmm__cuda_plan,    bmm__cuda_explain,
    bmm__cuda_run,     NULL, /* CUDA rules pin their variant by strategy and tunables */
    bmm__cuda_compiled /* an AUTO call skips a rule naming cuda_cublas without it */};
static const int bmm__cuda_registered = bmm__backend_register(&bmm__cuda_backend);

#endif /* BMM__CUDA_IMPLEMENTED */
#endif /* BMM_IMPLEMENTATION */
