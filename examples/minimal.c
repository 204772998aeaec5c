/* The smallest complete bmm program: copy bmm.h, bmm_cpu.h and this file,
   then `cc -std=c99 -O2 minimal.c -lm -lpthread`. It multiplies a batch of
   3x25 by 25x1 matrices (the seed problem, small), checks one result by hand
   and shows which strategy the table chose. */
#define BMM_IMPLEMENTATION
#include "bmm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCH 1000
#define M 3
#define N 1
#define K 25

int main(void) {
  float *a = (float *)malloc(sizeof(float) * BATCH * M * K);
  float *b = (float *)malloc(sizeof(float) * BATCH * K * N);
  float *c = (float *)malloc(sizeof(float) * BATCH * M * N);
  char why[512];
  double want = 0;
  int i, fails = 0;
  bmm_problem p;
  bmm_status s;
  if (!a || !b || !c) return 1;
  for (i = 0; i < BATCH * M * K; ++i)
    a[i] = (float)((i * 7) % 11) - 5.0f;
  for (i = 0; i < BATCH * K * N; ++i)
    b[i] = (float)((i * 3) % 5) - 2.0f;

  p = bmm_problem_rowmajor(BMM_F32, BATCH, M, N, K, a, b, c);
  s = bmm_cpu(&p);
  if (s != BMM_OK) {
    fprintf(stderr, "bmm_cpu failed: %s\n", bmm_last_error());
    return 1;
  }
  /* C[7][2][0] = sum_l A[7][2][l] * B[7][l][0] */
  for (i = 0; i < K; ++i)
    want += (double)a[(7 * M + 2) * K + i] * b[(7 * K + i) * N];
  if (fabs(c[7 * M + 2] - want) > 1e-4 * (1 + fabs(want))) ++fails;

  bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why);
  printf("%s\n", why);

  /* bad input is a status, never a crash: C aliasing A is refused */
  p.c.ptr = a;
  s = bmm_cpu(&p);
  printf("aliasing C to A -> %s (%s)\n", bmm_status_name(s), bmm_last_error());
  if (s != BMM_C_OVERLAP) ++fails;

  free(a), free(b), free(c);
  printf("%s\n", fails ? "FAILED" : "ok");
  return fails != 0;
}
