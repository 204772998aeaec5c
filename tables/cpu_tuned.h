/* clang-format off */
/* bmm_tuned_cpu - a bmm threshold table written by bmm-tune.
   bmm threshold table (cpu backend) written by bmm-tune
   device: AMD EPYC x2
   date: 2026-11-23 13:10:06 UTC
   command: build/bmm-tune --cpu --out tables/cpu_tuned.txt
   grid: tools/grids/cpu.txt: 128 problems, 122 points, 9 configurations, tie 3.0%, 5 samples per median; measured in 11 s
   validation: 42 suite points timed (2 skipped): tuned/default time, geometric mean 1.000 after 0 overrides
   wrong results (disqualified): 0
   first match wins; each note says at how many grid points its rule is the first match
   load average at start: 0.51 (other work on the machine inflates and scatters CPU times)

   Use it as the compiled-in table: in the file that compiles the
   implementation, after a first #include of bmm.h,
       #include "this header"
       #define BMM_CPU_TABLE bmm_tuned_cpu
       #define BMM_IMPLEMENTATION
       #include "bmm.h"   (or bmm_cuda.cuh for the CUDA backend)
   The same rules, as text for BMM_TABLE_FILE, are in the .txt beside it. */
#ifndef BMM_TUNED_CPU_H
#define BMM_TUNED_CPU_H
static const bmm_table_rule bmm_tuned_cpu[] = {
    {0, BMM_L_ROWMAJOR, 0, 0, 6, 0, 23, 0, 0, 0, BMM_CPU_BLOCKED, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 8 pts", "", 0},
    {BMM_DT(BMM_F32), BMM_L_SHARED_B, 0, 16, 0, 32, 0, 32, 0, 0, BMM_CPU_SMALL, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 1 pt", "", 0},
    {BMM_DT(BMM_F32), BMM_L_GENERAL, 0, 0, 5, 0, 0, 0, 0, 0, BMM_CPU_BLOCKED, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 2 pts", "", 0},
    {BMM_DT(BMM_F64), BMM_L_GENERAL, 0, 0, 3, 0, 0, 0, 0, 0, BMM_CPU_BLOCKED, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 3 pts", "", 0},
    {0, BMM_L_ROWMAJOR, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_SMALL, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 62 pts", "", 0},
    {0, BMM_L_SHARED_B, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_BLOCKED, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 15 pts", "", 0},
    {0, BMM_L_BATCH_INNER, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_BATCH_SIMD, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 24 pts", "", 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_DOT, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; catch-all, 7 pts", "", 0},
};
#endif
/* clang-format on */
