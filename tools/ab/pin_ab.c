/* pin_ab DTYPE M N K MB STRATEGY KERNEL_A KERNEL_B [REPS]: two kernels of one
   build on the same problem in one process, each pinned by a table rule
   (`* * * * * * STRATEGY kernel=NAME`), called alternately REPS times
   (default 15), median of each; refuses a pin that does not apply (explain
   says why). DTYPE f32 or f64, packed row-major entries, batch sized to
   about MB megabytes. The measurement behind cpu_small's choice of
   small_tile over blocked (bench/notes/cpu.md, "the run-time tile"):
     cc -std=c99 -O3 -march=native -fopenmp -I. tools/ab/pin_ab.c -o build/pin_ab -lm
     OMP_NUM_THREADS=1 build/pin_ab f32 8 16 4 1 cpu_small blocked small_tile */
#define _POSIX_C_SOURCE 200809L
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"

#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  enum { MAXR = 101 };
  double t[2][MAXR];
  bmm_table_rule rules[2][2];
  bmmx_case c;
  bmmx_sizes_t z;
  bmm_problem p;
  uint64_t seed = 3;
  void *a, *b, *cc;
  size_t es;
  int64_t per;
  int r, s, n, reps = argc > 9 ? atoi(argv[9]) : 15;
  if (argc < 9 || reps < 1 || reps > MAXR) {
    fprintf(stderr, "usage: pin_ab f32|f64 M N K MB STRATEGY KERNEL_A KERNEL_B [REPS <= %d]\n",
            MAXR);
    return 2;
  }
  memset(&c, 0, sizeof c);
  c.dtype = strcmp(argv[1], "f64") == 0 ? BMM_F64 : BMM_F32, c.layout = BMMX_ROWMAJOR;
  c.m = atoll(argv[2]), c.n = atoll(argv[3]), c.k = atoll(argv[4]);
  es = bmm_dtype_size(c.dtype);
  per = (c.m * c.k + c.k * c.n + c.m * c.n) * (int64_t)es;
  c.batch = (int64_t)(atof(argv[5]) * 1e6 / (double)per);
  if (c.batch < 1) c.batch = 1;
  for (s = 0; s < 2; ++s) {
    char text[256];
    snprintf(text, sizeof text, "* * * * * * %s kernel=%s\n* * * * * * cpu_ref\n", argv[6],
             argv[7 + s]);
    if (bmm_table_parse(text, rules[s], 2, &n) != BMM_OK || n != 2) {
      fprintf(stderr, "pin_ab: %s\n", bmm_last_error());
      return 2;
    }
  }
  z = bmmx_sizes(&c);
  a = malloc(es * (size_t)z.a), b = malloc(es * (size_t)z.b), cc = malloc(es * (size_t)z.c);
  if (!a || !b || !cc) return 2;
  bmmx_fill(c.dtype, a, z.a, &seed), bmmx_fill(c.dtype, b, z.b, &seed);
  bmmx_fill(c.dtype, cc, z.c, &seed);
  p = bmmx_problem(&c, a, b, cc, NULL);
  for (r = 0; r < reps; ++r)
    for (s = 0; s < 2; ++s) {
      double t0;
      bmm_set_table(BMM_BACKEND_CPU, rules[s], 2);
      if (r == 0) {
        char why[1024];
        bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why);
        if (!strstr(why, "pinned by the rule")) {
          fprintf(stderr, "pin_ab: kernel=%s does not apply: %s\n", argv[7 + s], why);
          return 1;
        }
      }
      t0 = now();
      if (bmm_cpu(&p) != BMM_OK) {
        fprintf(stderr, "pin_ab: %s\n", bmm_last_error());
        return 1;
      }
      t[s][r] = now() - t0;
    }
  qsort(t[0], (size_t)reps, sizeof(double), cmp), qsort(t[1], (size_t)reps, sizeof(double), cmp);
  printf("%s %lldx%lldx%lld batch %lld: %s %.1f GB/s, %s %.1f GB/s, time %s/%s %.2f\n", argv[1],
         (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.batch, argv[7],
         (double)(c.batch * per) / t[0][reps / 2] / 1e9, argv[8],
         (double)(c.batch * per) / t[1][reps / 2] / 1e9, argv[8], argv[7],
         t[1][reps / 2] / t[0][reps / 2]);
  free(a), free(b), free(cc);
  return 0;
}
