/* tools/bitcompare.c - a hash of every CPU result bit over a fixed grid of
   problems: every CPU strategy (forced) and AUTO x dtype x layout family
   (tests/bmm_cases.h) x alpha/beta/bias mode x a fixed list of shapes. Build
   it against two versions of bmm.h + bmm_cpu.h (-I<dir> first) and compare
   the output: a refactoring that changes no behaviour prints the same lines.
   One line per (strategy, dtype, layout), then the total:
     cc -std=c99 -O2 -fopenmp -I<headers> -I. tools/bitcompare.c -lm -o bc
   (see tools/bitcompare.sh, which builds main's headers and this tree's). */
#define BMM_IMPLEMENTATION
#include "bmm.h"

#include "tests/bmm_cases.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  size_t i;
  for (i = 0; i < n; ++i)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

typedef struct shape {
  int64_t m, n, k, batch;
} shape;

/* alpha, beta, bias: the epilogue's branches */
static const double modes[][3] = {{1, 0, 0},    {0.5, 0, 1}, {1.5, 0.75, 0},
                                  {-1, 0.5, 1}, {0, 2, 1},   {2, 0, 0}};
#define NMODES ((int)(sizeof modes / sizeof modes[0]))

int main(void) {
  static shape shapes[512];
  /* AUTO, then every CPU strategy forced */
  static const bmm_strategy strategies[] = {BMM_STRATEGY_AUTO,
#define X(E, ...) BMM_##E,
                                            BMM_CPU_STRATEGIES(X)
#undef X
  };
  int ns = 0, si, hi, mi, li, d;
  int64_t m, k;
  uint64_t total = 14695981039346656037ull;
  /* cpu_small's DOT list (m x 1, k = 1..51) and col_a kernels (m = 2..4) */
  for (m = 1; m <= 4; ++m)
    for (k = m == 3 ? 0 : 1; k <= 51; k += m == 3 ? 1 : 3)
      shapes[ns].m = m, shapes[ns].n = 1, shapes[ns].k = k, shapes[ns++].batch = 11;
  /* AXPY squares, constant and run-time k */
  for (m = 2; m <= 16; ++m) {
    shapes[ns].m = m, shapes[ns].n = m, shapes[ns].k = m, shapes[ns++].batch = 9;
    shapes[ns].m = m, shapes[ns].n = m, shapes[ns].k = m + 3, shapes[ns++].batch = 6;
  }
  {
    /* blocked: tiles, edges, packing, k > 256, odd shapes */
    static const int64_t more[][4] = {
        {17, 17, 17, 3},    {24, 24, 24, 3},  {32, 32, 32, 2}, {5, 40, 7, 4},   {3, 9, 4, 5},
        {7, 20, 300, 2},    {40, 70, 33, 1},  {64, 64, 64, 1}, {2, 300, 5, 2},  {1, 1, 1, 1},
        {6, 6, 0, 3},       {3, 1, 25, 257},  {4, 4, 4, 300},  {9, 33, 290, 1}, {100, 3, 8, 2},
        {2, 2, 9, 33},      {3, 2, 25, 40},   {16, 8, 16, 5},  {8, 16, 3, 7},   {12, 24, 5, 3},
        {130, 260, 520, 1}, {500, 17, 300, 1}};
    for (si = 0; si < (int)(sizeof more / sizeof more[0]); ++si)
      shapes[ns].m = more[si][0], shapes[ns].n = more[si][1], shapes[ns].k = more[si][2],
      shapes[ns++].batch = more[si][3];
  }
  for (si = 0; si < (int)(sizeof strategies / sizeof strategies[0]); ++si)
    for (d = 1; d < BMM_DTYPE_COUNT; ++d)
      for (li = 0; li < BMMX_LAYOUT_COUNT; ++li) {
        uint64_t h = 14695981039346656037ull;
        long runs = 0, refused = 0;
        for (hi = 0; hi < ns; ++hi)
          for (mi = 0; mi < NMODES; ++mi) {
            bmmx_case c;
            bmmx_sizes_t z;
            void *a, *b, *cc, *bias;
            size_t es = bmm_dtype_size((bmm_dtype)d);
            uint64_t seed = (uint64_t)(hi * 131 + mi * 7 + d + 1);
            bmm_problem p;
            bmm_status st;
            memset(&c, 0, sizeof c);
            c.dtype = (bmm_dtype)d, c.m = shapes[hi].m, c.n = shapes[hi].n;
            c.k = shapes[hi].k, c.batch = shapes[hi].batch, c.layout = li;
            z = bmmx_sizes(&c);
            a = malloc(es * (size_t)(z.a + 1)), b = malloc(es * (size_t)(z.b + 1));
            cc = malloc(es * (size_t)(z.c + 1)), bias = malloc(es * (size_t)(c.n + 1));
            bmmx_fill(c.dtype, a, z.a, &seed), bmmx_fill(c.dtype, b, z.b, &seed);
            bmmx_fill(c.dtype, cc, z.c, &seed), bmmx_fill(c.dtype, bias, c.n, &seed);
            p = bmmx_problem(&c, a, b, cc, bias);
            p.alpha = modes[mi][0], p.beta = modes[mi][1];
            p.bias = modes[mi][2] != 0 ? bias : NULL;
            p.strategy = strategies[si];
            st = bmm_cpu(&p);
            h = fnv(h, &st, sizeof st);
            if (st == BMM_OK)
              h = fnv(h, cc, es * (size_t)z.c), ++runs;
            else
              ++refused;
            free(a), free(b), free(cc), free(bias);
          }
        printf("%-14s %s %-13s runs %5ld refused %5ld hash %016llx\n",
               si ? bmm_strategy_name(strategies[si]) : "auto", bmm_dtype_name((bmm_dtype)d),
               bmmx_layout_name(li), runs, refused, (unsigned long long)h);
        total = fnv(total, &h, sizeof h);
      }
  printf("total %016llx over %d shapes x %d modes\n", (unsigned long long)total, ns, NMODES);
  return 0;
}
