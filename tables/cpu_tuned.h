/* clang-format off */
/* bmm_tuned_cpu - a bmm threshold table written by bmm-tune.
   bmm threshold table (cpu backend) written by bmm-tune
   device: AMD EPYC x2
   date: 2026-11-23 01:16:28 UTC
   command: ./build/bmm-tune --cpu --quick --suite none --out tables/cpu_tuned.txt
   grid: tools/grids/cpu_quick.txt: 12 problems, 12 points, 6 configurations, tie 1.0%, 5 samples per median; measured in 5 s
   validation: skipped (--suite none)
   wrong results (disqualified): 0
   first match wins; each note says at how many grid points its rule is the first match
   load average at start: 49.82 (other work on the machine inflates and scatters CPU times)

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
    {BMM_DT(BMM_F32), BMM_L_ROWMAJOR, 0, 0, 0, 0, 5, 8, 0, 0, BMM_CPU_REF, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 1 pt"},
    {BMM_DT(BMM_F32), BMM_L_ROWMAJOR, 0, 0, 0, 0, 36, 56, 0, 0, BMM_CPU_REF, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 1 pt"},
    {BMM_DT(BMM_F32), BMM_L_ROWMAJOR, 0, 0, 0, 0, 21, 35, 0, 0, BMM_CPU_SMALL, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 1 pt"},
    {BMM_DT(BMM_F32), BMM_L_ROWMAJOR, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_DOT, 1, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 3 pts"},
    {BMM_DT(BMM_F64), BMM_L_ROWMAJOR, 0, 0, 0, 0, 36, 0, 0, 0, BMM_CPU_DOT, 1, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 1 pt"},
    {BMM_DT(BMM_F32), BMM_L_GENERAL, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_DOT, 1, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; 1 pt"},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, BMM_CPU_REF, 0, 0, 0, 0, 0, 0, "bmm-tune 2026-11-23 AMD EPYC x2; catch-all, 4 pts"},
};
#endif
/* clang-format on */
