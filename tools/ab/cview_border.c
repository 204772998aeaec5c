/* cview_border DTYPE M N K [MB] [SMALL] [REPS] [OTHER] [bt]: the complex real
   view (kernel c_blocked) against another complex kernel (OTHER, default
   c_rows) on the same problem in one process, called alternately REPS times
   (default 9), one thread, median of each: the measurement behind
   bmm__cpu_cview_pays (bench/notes/cpu.md, "complex: the real view").
   DTYPE c64 or c128; packed row-major entries, batch sized to about MB
   megabytes (default 4); SMALL 1: the choice of cpu_small, else
   cpu_blocked; bt: B stored transposed. Reads the pick's internals, so it
   includes the implementation:
     cc -std=c99 -O3 -march=native -fopenmp -I. tools/ab/cview_border.c \
       -o build/cview_border -lm
     OMP_NUM_THREADS=1 build/cview_border c64 16 16 16 4 0 9 c_rows */
#define BMM_IMPLEMENTATION
#include "bmm.h"

#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmp(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

int main(int argc, char **argv) {
  bmm_dtype dt;
  int64_t m, n, k, batch, i;
  double mb, tr[101], tb[101], fl;
  int reps, r;
  size_t es;
  double *a, *b, *c;
  bmm_problem p;
  bmm_plan pl;
  bmm__cpu_choice cb, co;
  bmm__cpu_range_fn fo, fb;
  if (argc < 5) {
    fprintf(stderr, "usage: cview_border c64|c128 M N K [MB] [SMALL] [REPS] [OTHER] [bt]\n");
    return 2;
  }
  dt = strcmp(argv[1], "c64") == 0 ? BMM_C64 : BMM_C128;
  m = atoll(argv[2]), n = atoll(argv[3]), k = atoll(argv[4]);
  mb = argc > 5 ? atof(argv[5]) : 4;
  reps = argc > 7 ? atoi(argv[7]) : 9;
  if (reps < 1 || reps > 101) reps = 9;
  es = bmm_dtype_size(dt);
  batch = (int64_t)(mb * 1e6 / ((double)(m * k + k * n + m * n) * (double)es));
  if (batch < 1) batch = 1;
  /* doubles enough for either dtype; values in [0, 1) (no zeros to skip) */
  a = (double *)malloc(es * (size_t)(m * k * batch));
  b = (double *)malloc(es * (size_t)(k * n * batch));
  c = (double *)malloc(es * (size_t)(m * n * batch));
  for (i = 0; i < m * k * batch * (int64_t)es / 8; ++i)
    a[i] = (double)(i * 7 % 13 + 1) / 14.0;
  for (i = 0; i < k * n * batch * (int64_t)es / 8; ++i)
    b[i] = (double)(i * 5 % 11 + 1) / 12.0;
  if (dt == BMM_C64) { /* the same values as floats */
    float *fa = (float *)a, *fbv = (float *)b;
    for (i = 0; i < 2 * m * k * batch; ++i)
      fa[i] = (float)(i * 7 % 13 + 1) / 14.0f;
    for (i = 0; i < 2 * k * n * batch; ++i)
      fbv[i] = (float)(i * 5 % 11 + 1) / 12.0f;
  }
  p = bmm_problem_rowmajor(dt, batch, m, n, k, a, b, c);
  if (argc > 9 && strcmp(argv[9], "bt") == 0) p.b.row_stride = 1, p.b.col_stride = k;
  p.strategy = argc > 6 && atoi(argv[6]) ? BMM_CPU_SMALL : BMM_CPU_BLOCKED;
  if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &pl) != BMM_OK) {
    fprintf(stderr, "cview_border: %s\n", bmm_last_error());
    return 1;
  }
  cb = co = bmm__cpu_pick(&pl);
  co.kernel = argc > 8 ? bmm__cpu_kernel_index(argv[8]) : BMM__CPU_K_c_rows;
  if (co.kernel < 0) return 2;
  co.units = pl.batch, co.cview = 0, co.rows = 0;
  cb.kernel = BMM__CPU_K_c_blocked;
  bmm__cpu_cview_units(&pl, &cb);
  cb.threads = co.threads = 1;
  fo = (dt == BMM_C64 ? bmm__cpu_kernels_c64 : bmm__cpu_kernels_c128)[co.kernel];
  fb = (dt == BMM_C64 ? bmm__cpu_kernels_c64 : bmm__cpu_kernels_c128)[cb.kernel];
  for (r = 0; r < reps; ++r) {
    double t0 = now(), t1, t2;
    bmm__cpu_parallel(&pl, &co, fo);
    t1 = now();
    bmm__cpu_parallel(&pl, &cb, fb);
    t2 = now();
    tr[r] = t1 - t0, tb[r] = t2 - t1;
  }
  qsort(tr, (size_t)reps, sizeof tr[0], cmp), qsort(tb, (size_t)reps, sizeof tb[0], cmp);
  fl = 8.0 * (double)(m * n * k * batch);
  printf("%s %lldx%lldx%lld batch %lld: %s %.3f ms (%.1f GF) c_blocked %.3f ms (%.1f GF) "
         "c_blocked/other %.2f\n",
         argv[1], (long long)m, (long long)n, (long long)k, (long long)batch,
         bmm__cpu_kernel_names[co.kernel], tr[reps / 2] * 1e3, fl / tr[reps / 2] * 1e-9,
         tb[reps / 2] * 1e3, fl / tb[reps / 2] * 1e-9, tb[reps / 2] / tr[reps / 2]);
  free(a), free(b), free(c);
  return 0;
}
