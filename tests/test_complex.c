/* tests/test_complex.c - the complex dtypes (c64, c128; issue 23) on the CPU:
   every CPU strategy x complex dtype x layout x alpha/beta (complex and real)
   x bias x conj flags against the long-double reference under the complex
   bound (README, "Numerics"); validation of the new fields; explain; NaN and
   Inf; the layout of C99 float _Complex / double _Complex (C builds). Built
   as C++ (tests/complex.ninja) and run as groups of tests/test_cpu.c
   (complex_*), which includes this file in each of its builds. */
#ifndef BMMX_IN_TEST_CPU
#define BMM_IMPLEMENTATION
#endif
#include "bmm.h"
#include "tests/bmm_cases.h"

#if !defined(__cplusplus)
#include <complex.h>
#endif

#include "tests/bmm_test.h"
#define CHECK BMMX_CHECK

static const bmm_strategy cx_strategies[] = {
#define X(E, name, ...) BMM_##E,
    BMM_CPU_STRATEGIES(X)
#undef X
};
#define NCX ((int)(sizeof cx_strategies / sizeof cx_strategies[0]))

static const bmm_dtype complex_dtypes[] = {BMM_C64, BMM_C128};

/* alpha/beta/bias variants: v = 0 plain, 1 complex alpha, 2 complex alpha and
   beta with bias, 3 real beta (alpha_im = beta_im = 0), 4 alpha = 0 (C = beta*C
   + bias), 5 imaginary alpha, beta = 0 with bias */
#define NVARIANTS 6
static void apply_variant(bmm_problem *p, int v, const void *bias) {
  switch (v) {
  case 1: p->alpha = 0.75, p->alpha_im = -0.5; break;
  case 2:
    p->alpha = -1.25, p->alpha_im = 0.5, p->beta = 0.5, p->beta_im = 0.25;
    p->bias = bias;
    break;
  case 3: p->alpha = 1.5, p->beta = -0.75; break;
  case 4:
    p->alpha = 0, p->beta = 0.5, p->beta_im = -1;
    p->bias = bias;
    break;
  case 5:
    p->alpha = 0, p->alpha_im = 2;
    p->bias = bias;
    break;
  default: break;
  }
}

/* The buffers of one case: A, B, bias, C before (c0) and after (c1). */
typedef struct cbufs {
  bmmx_case c;
  bmmx_sizes_t z;
  size_t es, cb;
  void *a, *b, *bias, *c0, *c1;
} cbufs;

static void cbufs_make(cbufs *t, bmm_dtype dt, int layout, int64_t batch, int64_t m, int64_t n,
                       int64_t k, uint64_t seed) {
  memset(t, 0, sizeof *t);
  t->c.dtype = dt, t->c.layout = layout, t->c.batch = batch;
  t->c.m = m, t->c.n = n, t->c.k = k;
  t->z = bmmx_sizes(&t->c);
  t->es = bmm_dtype_size(dt);
  t->cb = (size_t)(t->z.c + 1) * t->es;
  t->a = malloc((size_t)(t->z.a + 1) * t->es), t->b = malloc((size_t)(t->z.b + 1) * t->es);
  t->bias = malloc((size_t)(n + 1) * t->es);
  t->c0 = malloc(t->cb), t->c1 = malloc(t->cb);
  bmmx_fill(dt, t->a, t->z.a, &seed), bmmx_fill(dt, t->b, t->z.b, &seed);
  bmmx_fill(dt, t->bias, n, &seed), bmmx_fill(dt, t->c0, t->z.c, &seed);
}

static void cbufs_free(cbufs *t) {
  free(t->a), free(t->b), free(t->bias), free(t->c0), free(t->c1);
}

/* Runs p (p->c.ptr = t->c0, C before) with strategy s into t->c1 and returns
   the worst |err| / bound against the reference; C is poisoned with NaN where
   beta = 0 (a kernel that reads it, or leaves an element unwritten, fails). */
static double run_check(const cbufs *t, const bmm_problem *p, bmm_strategy s, bmm_status *st) {
  bmm_problem q = *p;
  if (p->beta == 0 && p->beta_im == 0)
    bmmx_poison(p->dtype, t->c1, t->z.c);
  else
    memcpy(t->c1, t->c0, t->cb);
  q.c.ptr = t->c1;
  q.strategy = s;
  *st = bmm_cpu(&q);
  return *st == BMM_OK ? bmmx_check(p, t->c1, 0) : INFINITY;
}

/* every strategy x complex dtype x layout x shape x variant x conj flags */
static void test_all(void) {
  static const int64_t shapes[][4] = {{2, 2, 2, 7},    {3, 3, 3, 9},   {4, 4, 4, 5},
                                      {1, 1, 1, 3},    {3, 1, 25, 4},  {5, 7, 3, 3},
                                      {16, 16, 16, 2}, {9, 33, 17, 2}, {3, 3, 0, 3},
                                      {2, 5, 300, 2},  {3, 3, 3, 40},  {2, 3, 4, 37},
                                      {5, 5, 5, 3},    {6, 6, 6, 2},   {7, 7, 7, 3},
                                      {8, 8, 8, 2}}; /* 40, 37: whole and part vectors */
  int d, l, sh, v, cj, s, checks = 0;
  double worst[2] = {0, 0};
  for (d = 0; d < 2; ++d)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (sh = 0; sh < (int)(sizeof shapes / sizeof shapes[0]); ++sh) {
        cbufs t;
        cbufs_make(&t, complex_dtypes[d], l, shapes[sh][3], shapes[sh][0], shapes[sh][1],
                   shapes[sh][2], (uint64_t)(1 + d * 1000 + l * 50 + sh));
        for (v = 0; v < NVARIANTS; ++v)
          for (cj = 0; cj < 4; ++cj) {
            bmm_problem p = bmmx_problem(&t.c, t.a, t.b, t.c0, t.bias);
            char desc[512];
            apply_variant(&p, v, t.bias);
            p.a.conj = cj & 1, p.b.conj = cj >> 1;
            bmmx_describe(&p, desc, sizeof desc);
            for (s = -1; s < NCX; ++s) {
              const bmm_strategy strat = s < 0 ? BMM_STRATEGY_AUTO : cx_strategies[s];
              bmm_plan plan;
              bmm_problem q = p;
              bmm_status st;
              double e;
              q.strategy = strat;
              st = bmm_plan_problem(&q, BMM_BACKEND_CPU, &plan);
              if (st != BMM_OK) {
                /* a strategy that does not claim the layout refuses; nothing else may */
                CHECK(s >= 0 && st == BMM_UNSUPPORTED, "%s %s: refused: %s", desc,
                      bmm_strategy_name(strat), bmm_last_error());
                continue;
              }
              e = run_check(&t, &p, strat, &st);
              ++checks;
              if (e > worst[d] && e < INFINITY) worst[d] = e;
              CHECK(st == BMM_OK && e <= 1.0, "%s %s: |err|/bound %g (%s)", desc,
                    bmm_strategy_name(strat), e, bmm_last_error());
            }
          }
        cbufs_free(&t);
      }
  printf("all: %d runs, worst |err|/bound c64 %.3f, c128 %.3f\n", checks, worst[0], worst[1]);
}

/* The fixed-size kernels (BMM__CPU_CSMALL_SIZES) are what cpu_small (and
   AUTO) run for those squares; other squares take the row kernel. */
static void test_kernel_choice(void) {
  int d, m;
  for (d = 0; d < 2; ++d)
    for (m = 1; m <= 10; ++m) {
      static double a[2 * 100 * 100], b[2 * 100 * 100], c[2 * 100 * 100];
      char buf[1024], want[64];
      int fixed = 0;
      bmm_problem p = bmm_problem_rowmajor(complex_dtypes[d], 100, m, m, m, a, b, c);
#define SIZE_IS(A, M) fixed |= m == (M);
      BMM__CPU_CSMALL_SIZES(SIZE_IS, )
#undef SIZE_IS
      snprintf(want, sizeof want, "kernel=c_small_%dx%dx%d", m, m, m);
      p.a.conj = 1;
      CHECK(bmm_explain(&p, BMM_BACKEND_CPU, buf, sizeof buf) == BMM_OK &&
                (strstr(buf, want) != NULL) == fixed && strstr(buf, " conj=a") &&
                (!fixed || strstr(buf, "cpu_small")),
            "explain %s %dx%dx%d (fixed-size kernel: %d): %s", bmm_dtype_name(complex_dtypes[d]), m,
            m, m, fixed, buf);
    }
}

/* The real view (c_blocked, bmm_cpu.h's bmm__cpu_cview_plan): alpha and beta
   real, A's and C's columns contiguous, from 6 rows and 3 columns with vector
   extensions. Each case names what it reaches in the blocked kernel on the
   view (m x 2n x 2k): every conj pair, beta 0 and not, bias, k' past the
   256-part K block, n' no multiple of the vector, odd m, two NC column
   blocks, more than MH rows, batch > 1 with shared B, B transposed, batch
   dims. AUTO, cpu_blocked and cpu_small (where it claims the layout) run
   c_blocked (explain says so), within the bound; a rule's kernel=c_blocked
   runs it in every build (the portable one's scalar tiles too); one thread
   (a rule's threads=1) gives the bits of all of them. */
static void test_cview(void) {
  static const struct {
    int64_t m, n, k, batch;
    int layout;
  } cases[] = {
      {13, 7, 300, 3, BMMX_ROWMAJOR},      /* odd m, n' = 14, 3 K blocks (k' = 600) */
      {9, 37, 129, 4, BMMX_SHARED_B_BIAS}, /* shared B, bias, k' = 258: just past KC */
      {6, 3, 5, 5, BMMX_TRANS_B},          /* the border (6 rows, 3 columns), B^T */
      {33, 150, 40, 2, BMMX_PADDED},       /* n' = 300: two column blocks */
      {500, 20, 300, 1, BMMX_ROWMAJOR},    /* k' > KC, m > MH: row blocks of sums */
      {64, 64, 64, 6, BMMX_BROADCAST},     /* 2 batch dims, B per dim 1 */
      {16, 16, 16, 40, BMMX_NEG_ROWS},     /* cpu_small's size, A's rows reversed */
  };
  static const bmm_strategy strats[] = {BMM_STRATEGY_AUTO, BMM_CPU_BLOCKED, BMM_CPU_SMALL};
  int d, ci, v, cj, s, runs = 0, threaded = 0;
  for (d = 0; d < 2; ++d)
    for (ci = 0; ci < (int)(sizeof cases / sizeof cases[0]); ++ci) {
      cbufs t;
      void *one = NULL;
      cbufs_make(&t, complex_dtypes[d], cases[ci].layout, cases[ci].batch, cases[ci].m, cases[ci].n,
                 cases[ci].k, (uint64_t)(300 + 10 * d + ci));
      one = malloc(t.cb);
      for (v = 0; v < 3; ++v) /* beta 0; beta real with bias; alpha real, beta real */
        for (cj = 0; cj < 4; ++cj)
          for (s = 0; s < 4; ++s) {
            bmm_problem p = bmmx_problem(&t.c, t.a, t.b, t.c0, t.bias);
            bmm_table_rule rules[2];
            bmm_plan plan;
            bmm_status st;
            char desc[512], why[1024];
            double e;
            const int pin = s == 3; /* AUTO under a rule kernel=c_blocked threads=1 */
            const bmm_strategy strat = pin ? BMM_STRATEGY_AUTO : strats[s];
            if (v == 1) p.beta = 0.5, p.bias = t.bias;
            if (v == 2) p.alpha = -1.5, p.beta = -0.75;
            p.a.conj = cj & 1, p.b.conj = cj >> 1;
            p.strategy = strat;
            bmmx_describe(&p, desc, sizeof desc);
            if (pin) {
              memset(rules, 0, sizeof rules);
              rules[0].strategy = BMM_CPU_BLOCKED, rules[0].threads = 1;
              snprintf(rules[0].kernel, sizeof rules[0].kernel, "c_blocked");
              rules[1].strategy = BMM_CPU_REF;
              CHECK(bmm_set_table(BMM_BACKEND_CPU, rules, 2) == BMM_OK, "%s", bmm_last_error());
            }
            if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) != BMM_OK) {
              CHECK(strat == BMM_CPU_SMALL, "%s %s refused: %s", desc, bmm_strategy_name(strat),
                    bmm_last_error());
              continue;
            }
            CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, "%s",
                  bmm_last_error());
            if (pin || BMM__CPU_VEXT)
              CHECK(strstr(why, "kernel=c_blocked (") != NULL &&
                        (!pin || (strstr(why, "pinned") && strstr(why, " on 1 thread"))),
                    "%s %s: explain `%s`", desc, bmm_strategy_name(strat), why);
            threaded += strstr(why, " on 1 thread") == NULL;
            e = run_check(&t, &p, strat, &st);
            ++runs;
            CHECK(st == BMM_OK && e <= 1.0, "%s %s%s: |err|/bound %g (%s)", desc,
                  bmm_strategy_name(strat), pin ? " (pinned, 1 thread)" : "", e, bmm_last_error());
            if (s == 1) memcpy(one, t.c1, t.cb); /* cpu_blocked's bits ... */
            if (pin) { /* ... on one thread, and pinned: the same (where it ran c_blocked) */
              CHECK(!BMM__CPU_VEXT || memcmp(one, t.c1, t.cb) == 0, "%s: one thread changed bits",
                    desc);
              bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
            }
          }
      free(one);
      cbufs_free(&t);
    }
#ifdef _OPENMP
  CHECK(omp_get_max_threads() < 2 || threaded > 0, "no real-view run on more than one thread");
#endif
  printf("cview: %d runs, %d on more than one thread\n", runs, threaded);
}

/* The blocked kernel's dot products (run where its packing scratch cannot be
   had) read B' an element at a time (cview_b): the B' of the pack's panels,
   and the 2 x 2 block of each element: [br bi; -bi br], bi negated by conj
   B, the odd row times -1 by conj A; in panels of 2 and of 4 vectors. */
static void test_cview_b(void) {
  enum { K = 5, N = 7, NR = 2 * BMM__CPU_VBYTES / (int)sizeof(float) };
  static float b[2 * K * N], bp[2 * K * (2 * N + 2 * NR)];
  uint64_t seed = 41;
  int cj, l, j, bad = 0;
  bmmx_fill(BMM_C64, b, K * N, &seed);
  for (cj = 0; cj < 8; ++cj) {
    const int ca = cj & 1, cb = cj >> 1 & 1, pw = cj < 4 ? NR : 2 * NR;
    bmm__cpu_blk_pack_cview_f32(b, 2 * N, 2, 2 * K, 2 * N, pw, ca, cb, bp);
    for (l = 0; l < 2 * K; ++l)
      for (j = 0; j < 2 * N; ++j) {
        const float br = b[2 * (l / 2 * N + j / 2)],
                    bi = (cb ? -1 : 1) * b[2 * (l / 2 * N + j / 2) + 1];
        const float want = l % 2 == 0 ? (j % 2 ? bi : br) : (ca ? -1 : 1) * (j % 2 ? br : -bi);
        bad += bmm__cpu_cview_b_f32(b, 2 * N, 2, l, j, ca, cb) != want;
        bad += bp[j / pw * pw * 2 * K + l * pw + j % pw] != want;
      }
  }
  CHECK(bad == 0, "B' differs from its definition at %d places", bad);
}

/* What the real view does not take: a complex alpha or beta (its parts mix
   after the sums), A's or C's columns strided, too few rows or columns
   (bmm__cpu_cview_pays); the row kernels run those, and explain says why. */
static void test_cview_refused(void) {
  static double a[2 * 64 * 64], b[2 * 64 * 64], c[2 * 64 * 64];
  char buf[1024];
  int i;
  for (i = 0; i < 5; ++i) {
    bmm_problem p = bmm_problem_rowmajor(BMM_C128, 2, 8, 8, 8, a, b, c);
    const char *want =
        i < 3 ? "complex alpha/beta or strided A/C columns" : "the real view does not pay";
    p.strategy = BMM_CPU_BLOCKED;
    if (i == 0) p.alpha_im = 0.5;
    if (i == 1) p.beta = 1, p.beta_im = -1;
    if (i == 2) p.a.row_stride = 1, p.a.col_stride = 8;
    if (i == 3) p.m = 5;
    if (i == 4) p.n = 2, p.b.row_stride = 2, p.c.row_stride = 2;
    CHECK(bmm_explain(&p, BMM_BACKEND_CPU, buf, sizeof buf) == BMM_OK &&
              strstr(buf, "kernel=c_blocked") == NULL && (!BMM__CPU_VEXT || strstr(buf, want)),
          "case %d: explain `%s`", i, buf);
  }
}

/* Validation: the new fields, named in the message. */
static void expect(const bmm_problem *p, bmm_status want, const char *field) {
  bmm_status s = bmm_cpu(p);
  CHECK(s == want && (!field || strstr(bmm_last_error(), field)), "want %s naming `%s`, got %s: %s",
        bmm_status_name(want), field ? field : "", bmm_status_name(s), bmm_last_error());
}

static void test_validation(void) {
  static double a[64], b[64], c[64];
  float fa[16], fb[16], fc[16];
  bmm_problem p;
  memset(fa, 0, sizeof fa), memset(fb, 0, sizeof fb);
  p = bmm_problem_rowmajor(BMM_F64, 2, 2, 2, 2, a, b, c);
  p.alpha_im = 1;
  expect(&p, BMM_BAD_FLAG, "alpha_im");
  p.alpha_im = 0, p.beta_im = -1;
  expect(&p, BMM_BAD_FLAG, "beta_im");
  p.beta_im = 0, p.c.conj = 1;
  expect(&p, BMM_BAD_FLAG, "c.conj");
  p.c.conj = 0, p.a.conj = 2;
  expect(&p, BMM_BAD_FLAG, "a.conj");
  p.a.conj = 0, p.b.conj = -1;
  expect(&p, BMM_BAD_FLAG, "b.conj");
  p.b.conj = 0;
  expect(&p, BMM_OK, NULL);
  /* complex: the same checks on C, and imaginary parts are taken */
  p = bmm_problem_rowmajor(BMM_C128, 2, 2, 2, 2, a, b, c);
  p.alpha_im = 1, p.beta_im = 1;
  expect(&p, BMM_OK, NULL);
  p.c.conj = 1;
  expect(&p, BMM_BAD_FLAG, "c.conj");
  /* complex elements need one part's alignment (4 bytes for c64), not 8 */
  p = bmm_problem_rowmajor(BMM_C64, 1, 2, 2, 2, fa + 1, fb + 1, fc + 1);
  expect(&p, BMM_OK, NULL);
  p.a.ptr = (const char *)fa + 2;
  expect(&p, BMM_MISALIGNED, "a.ptr");
  /* k = 0 or alpha = 0 (both parts) never reads A or B */
  p = bmm_problem_rowmajor(BMM_C64, 1, 2, 2, 2, NULL, NULL, fc);
  p.alpha = 0, p.alpha_im = 0;
  expect(&p, BMM_OK, NULL);
  p.alpha_im = 1;
  expect(&p, BMM_NULL_POINTER, "a.ptr");
}

/* conj on a real dtype is the identity: the same bits as without it; a
   complex problem with alpha_im = beta_im = 0 is the same as one that never
   heard of them (zero-initialised). */
static void test_real_conj_identity(void) {
  int dt, s;
  for (dt = BMM_F32; dt <= BMM_F64; ++dt)
    for (s = 0; s < NCX; ++s) {
      cbufs t;
      bmm_problem p, q;
      void *c2;
      bmm_status s1, s2;
      cbufs_make(&t, (bmm_dtype)dt, BMMX_ROWMAJOR, 5, 3, 4, 6, 77);
      c2 = malloc(t.cb);
      p = bmmx_problem(&t.c, t.a, t.b, t.c1, NULL);
      p.strategy = cx_strategies[s];
      q = p;
      q.c.ptr = c2, q.a.conj = 1, q.b.conj = 1;
      s1 = bmm_cpu(&p), s2 = bmm_cpu(&q);
      if (cx_strategies[s] == BMM_CPU_BATCH_SIMD) {
        CHECK(s1 == s2, "%s: conj changed the status", bmm_strategy_name(cx_strategies[s]));
      } else {
        CHECK(s1 == BMM_OK && s2 == BMM_OK && memcmp(t.c1, c2, (size_t)t.z.c * t.es) == 0,
              "%s %s: conj on a real dtype changed bits", bmm_dtype_name((bmm_dtype)dt),
              bmm_strategy_name(cx_strategies[s]));
      }
      free(c2);
      cbufs_free(&t);
    }
}

/* NaN and Inf as for the real dtypes: an Inf in A reaches its row of C, a NaN
   in B its column, NaN in C with beta = 0 is never read; every strategy agrees
   with the reference on which elements are NaN or infinite. */
static void test_nonfinite(void) {
  int d, s, e;
  for (d = 0; d < 2; ++d)
    for (e = 0; e < 3; ++e)
      for (s = 0; s < NCX; ++s) {
        cbufs t;
        bmm_problem p;
        bmm_status st;
        double w;
        const bmm_dtype dt = complex_dtypes[d];
        int part = e == 2; /* the imaginary part of B, or the real part of A */
        cbufs_make(&t, dt, BMMX_ROWMAJOR, 4, 3, 3, 3, (uint64_t)(9 + e));
        if (dt == BMM_C64) {
          float *x = (float *)(e == 0 ? t.a : t.b);
          x[2 * 4 + part] = e == 2 ? NAN : e == 1 ? -INFINITY : INFINITY;
        } else {
          double *x = (double *)(e == 0 ? t.a : t.b);
          x[2 * 4 + part] = e == 2 ? NAN : e == 1 ? -INFINITY : INFINITY;
        }
        p = bmmx_problem(&t.c, t.a, t.b, t.c0, NULL);
        p.alpha_im = e == 1 ? 0.5 : 0;
        if (cx_strategies[s] == BMM_CPU_BATCH_SIMD) { /* batch-innermost only */
          bmm_plan plan;
          p.strategy = cx_strategies[s];
          CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_UNSUPPORTED, "%s",
                bmm_last_error());
          cbufs_free(&t);
          continue;
        }
        w = run_check(&t, &p, cx_strategies[s], &st);
        CHECK(st == BMM_OK && w <= 1.0, "%s %s non-finite %d: |err|/bound %g", bmm_dtype_name(dt),
              bmm_strategy_name(cx_strategies[s]), e, w);
        cbufs_free(&t);
      }
}

#if !defined(__cplusplus)
/* The storage is C99's: float _Complex arrays in, the product of C99 complex
   arithmetic out (within the bound), conj() as the flag. */
static void test_c99_layout(void) {
  enum { NB = 6, M = 3 };
  static float _Complex A[NB][M][M], B[NB][M][M], C[NB][M][M], W[NB][M][M];
  int bi, i, j, l;
  uint64_t seed = 5;
  bmm_problem p;
  double worst = 0;
  CHECK(sizeof(bmm_c64) == sizeof(float _Complex) && sizeof(bmm_c128) == sizeof(double _Complex),
        "sizes of the complex structs");
  for (bi = 0; bi < NB; ++bi)
    for (i = 0; i < M; ++i)
      for (j = 0; j < M; ++j) {
        A[bi][i][j] = (float)bmmx_uniform(&seed) + (float)bmmx_uniform(&seed) * I;
        B[bi][i][j] = (float)bmmx_uniform(&seed) + (float)bmmx_uniform(&seed) * I;
      }
  p = bmm_problem_rowmajor(BMM_C64, NB, M, M, M, A, B, C);
  p.b.conj = 1, p.alpha = 0.5, p.alpha_im = 2;
  CHECK(bmm_cpu(&p) == BMM_OK, "c99 layout: %s", bmm_last_error());
  for (bi = 0; bi < NB; ++bi)
    for (i = 0; i < M; ++i)
      for (j = 0; j < M; ++j) {
        double _Complex s = 0;
        for (l = 0; l < M; ++l)
          s += (double _Complex)A[bi][i][l] * conj((double _Complex)B[bi][l][j]);
        W[bi][i][j] = (float _Complex)((0.5 + 2.0 * I) * s);
        if (cabs((double _Complex)C[bi][i][j] - (double _Complex)W[bi][i][j]) > worst)
          worst = cabs((double _Complex)C[bi][i][j] - (double _Complex)W[bi][i][j]);
      }
  CHECK(worst < 1e-5, "c99 layout: C differs from C99 complex arithmetic by %g", worst);
}
#endif

#ifndef BMMX_IN_TEST_CPU
int main(void) {
  test_validation();
  test_kernel_choice();
  test_cview();
  test_cview_refused();
  test_cview_b();
  test_real_conj_identity();
  test_nonfinite();
#if !defined(__cplusplus)
  test_c99_layout();
#endif
  test_all();
  return bmmx_summary();
}
#else
/* test_cpu's groups (its TESTS list) */
static void test_complex_validation(void) { test_validation(); }
static void test_complex_kernel_choice(void) { test_kernel_choice(); }
static void test_complex_cview(void) { test_cview(), test_cview_refused(), test_cview_b(); }
static void test_complex_conj_real(void) { test_real_conj_identity(); }
static void test_complex_nonfinite(void) { test_nonfinite(); }
static void test_complex_c99_layout(void) { test_c99_layout(); }
static void test_complex_all(void) { test_all(); }
#endif
