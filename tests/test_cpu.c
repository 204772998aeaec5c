/* tests/test_cpu.c - the CPU test runner of bmm: one registry of tests (TESTS
   below), each a list of checks; every failed check prints what to rebuild the
   case from. Ends with `N passed, N failed` (counting checks) and exits
   non-zero on failure.

     build/test_cpu [--list] [NAME_SUBSTRING ...]   run all tests, or those
                                                   whose name contains one
     BMMX_STREAM_BYTES=0 build/test_cpu            the same with every beta = 0
                                                   call streaming C (the
                                                   threshold BMM_CPU_STREAM_BYTES
                                                   replaced for this run;
                                                   ninja's test_cpu_stream.ok)
   Run from the repository root (it reads tests/data/; BMMX_TEST_DATA
   overrides the folder). It re-executes itself (`--child MODE FILE`) to test
   the BMM_TABLE_FILE environment variable. */
#define _POSIX_C_SOURCE 200809L
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tests/bmm_test.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- the runner -------------------------------------------------------- */

static const char *g_data = "tests/data";
static char g_self[4096];

#define check_at bmmx_check_at
#define CHECK BMMX_CHECK
/* the threshold past which this run streams C and prefetches:
   BMM_CPU_STREAM_BYTES, or BMMX_STREAM_BYTES from the environment (main) */
#define STREAM_BYTES bmm__cpu_stream_bytes()

/* The status, and that the message names the status and contains `has`. */
static int expect_at(const char *file, int line, bmm_status got, bmm_status want, const char *has,
                     const char *ctx) {
  const char *e = bmm_last_error();
  int ok = check_at(got == want, file, line, "status", "%s: got %s, want %s; last error: `%s`", ctx,
                    bmm_status_name(got), bmm_status_name(want), e);
  if (!ok) return 0;
  if (want == BMM_OK)
    return check_at(e[0] == 0, file, line, "last error empty", "%s: OK but last error is `%s`", ctx,
                    e);
  ok = check_at(strncmp(e, bmm_status_name(want), strlen(bmm_status_name(want))) == 0, file, line,
                "message names status", "%s: message `%s` does not start with %s", ctx, e,
                bmm_status_name(want));
  if (has)
    ok &= check_at(strstr(e, has) != NULL, file, line, "message names field",
                   "%s: message `%s` does not contain `%s`", ctx, e, has);
  return ok;
}
#define EXPECT(got, want, has, ctx) expect_at(__FILE__, __LINE__, got, want, has, ctx)

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

typedef bmm_status (*entry_fn)(const bmm_problem *);
static const struct cpu_strategy {
  bmm_strategy s;
  const char *name;
  entry_fn entry;
} cpu_strategies[] = {
#define X(E, name, l, mm, mn, mk, cf, d) {BMM_##E, #name, bmm_##name},
    BMM_CPU_STRATEGIES(X)
#undef X
};
#define NCPU ((int)(sizeof cpu_strategies / sizeof cpu_strategies[0]))
enum {
  NCPU_MAX = 0
#define X(E, name, l, mm, mn, mk, cf, d) +1
  BMM_CPU_STRATEGIES(X)
#undef X
};

static const bmm_strategy cuda_strategies[] = {
#define X(E, name, l, mm, mn, mk, cf, d) BMM_##E,
    BMM_CUDA_STRATEGIES(X)
#undef X
};
#define NCUDA ((int)(sizeof cuda_strategies / sizeof cuda_strategies[0]))

static void claim_of(bmm_strategy s, unsigned *layouts, int64_t *mm, int64_t *mn, int64_t *mk) {
  *layouts = 0, *mm = *mn = *mk = 0;
#define X(E, name, l, xm, xn, xk, cf, d) \
  if (s == BMM_##E) *layouts = (l), *mm = (xm), *mn = (xn), *mk = (xk);
  BMM_CPU_STRATEGIES(X)
#undef X
}

#define now_s bmmx_now

/* ---- problems over guarded buffers ------------------------------------- */

/* One operand's memory: `guard` random elements either side of the elements
   it can address, so stray writes and misaligned pointers show. */
typedef struct tbuf {
  unsigned char *alloc, *init; /* the memory, and its contents before the call */
  int64_t count, lo;           /* elements in alloc; offset of alloc[0] from ptr */
  size_t es;
  void *ptr;
} tbuf;

static void tbuf_make(tbuf *t, bmm_dtype dt, int64_t lo, int64_t hi, int empty, int64_t guard,
                      int poison, uint64_t *seed) {
  int64_t n = empty ? 0 : hi - lo + 1;
  t->es = bmm_dtype_size(dt);
  t->count = n + 2 * guard;
  t->lo = lo - guard;
  t->alloc = (unsigned char *)malloc((size_t)t->count * t->es);
  t->init = (unsigned char *)malloc((size_t)t->count * t->es);
  if (!t->alloc || !t->init) {
    fprintf(stderr, "out of memory (%lld elements)\n", (long long)t->count);
    exit(2);
  }
  bmmx_fill(dt, t->alloc, t->count, seed);
  if (poison) bmmx_poison(dt, t->alloc + (size_t)guard * t->es, n);
  memcpy(t->init, t->alloc, (size_t)t->count * t->es);
  t->ptr = t->alloc + (size_t)(guard - lo) * t->es;
}

static void tbuf_free(tbuf *t) {
  free(t->alloc), free(t->init);
  t->alloc = t->init = NULL;
}

static int tbuf_same(const tbuf *t) {
  return memcmp(t->alloc, t->init, (size_t)t->count * t->es) == 0;
}

/* A problem, its buffers and what a correct call leaves in them. */
typedef struct tprob {
  bmm_problem p; /* strategy AUTO; pointers into a, b, c, bias */
  tbuf a, b, c, bias;
  unsigned char *mask; /* per element of c.alloc: 1 if the problem addresses it */
  int64_t samples;     /* batch entries compared with the reference (0: all) */
  bmmx_expect expect;  /* the reference, computed at the first check */
  int have_expect;
  char label[96];
} tprob;

/* Buffers for `shape` (its pointers are ignored): A, B random; C NaN where
   beta == 0 (so a read of C or an unwritten element shows), else random. */
static void tprob_make(tprob *t, const bmm_problem *shape, int with_bias, uint64_t seed,
                       const char *label) {
  int64_t lo, hi, nb = 1;
  int d;
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  int64_t guard = 5 + (int64_t)(seed % 4); /* varies the alignment of every pointer */
  memset(t, 0, sizeof *t);
  t->p = *shape;
  t->p.strategy = BMM_STRATEGY_AUTO;
  for (d = 0; d < shape->batch_dims; ++d)
    nb *= shape->batch[d];
  bmmx_extent(&shape->a, shape->m, shape->k, shape->batch_dims, shape->batch, &lo, &hi);
  tbuf_make(&t->a, shape->dtype, lo, hi, shape->m * shape->k * nb == 0, guard, 0, &s);
  bmmx_extent(&shape->b, shape->k, shape->n, shape->batch_dims, shape->batch, &lo, &hi);
  tbuf_make(&t->b, shape->dtype, lo, hi, shape->k * shape->n * nb == 0, guard, 0, &s);
  bmmx_extent(&shape->c, shape->m, shape->n, shape->batch_dims, shape->batch, &lo, &hi);
  tbuf_make(&t->c, shape->dtype, lo, hi, shape->m * shape->n * nb == 0, guard, shape->beta == 0.0,
            &s);
  tbuf_make(&t->bias, shape->dtype, 0, shape->n - 1, !with_bias || shape->n == 0, guard, 0, &s);
  t->p.a.ptr = t->a.ptr, t->p.b.ptr = t->b.ptr, t->p.c.ptr = t->c.ptr;
  t->p.bias = with_bias ? t->bias.ptr : NULL;
  t->mask = (unsigned char *)calloc((size_t)t->c.count, 1);
  if (!t->mask) exit(2);
  CHECK(bmmx_c_mask(&t->p, t->c.lo, t->c.count, t->mask) == 0,
        "%s: C mask outside its buffer (test bug)", label);
  snprintf(t->label, sizeof t->label, "%s", label);
}

static void tprob_free(tprob *t) {
  tbuf_free(&t->a), tbuf_free(&t->b), tbuf_free(&t->c), tbuf_free(&t->bias);
  if (t->have_expect) bmmx_expect_free(&t->expect);
  t->have_expect = 0;
  free(t->mask);
  t->mask = NULL;
}

static void tprob_desc(const tprob *t, bmm_strategy s, char *buf, size_t len) {
  char d[400];
  bmm_problem q = t->p;
  q.strategy = s;
  bmmx_describe(&q, d, sizeof d);
  snprintf(buf, len, "[%s] %s", t->label, d);
}

/* Checks that a successful call left the right values in C and nothing else
   changed; `got_status` is what the call returned. */
static int tprob_verify(tprob *t, bmm_strategy s, const char *how) {
  char desc[600];
  bmm_problem ref = t->p;
  double worst;
  int64_t i, bad = -1;
  int ok = 1;
  tprob_desc(t, s, desc, sizeof desc);
  ref.c.ptr = t->c.init + (size_t)(-t->c.lo) * t->c.es; /* C before the call */
  if (!t->have_expect) bmmx_expect_init(&t->expect, &ref, t->samples), t->have_expect = 1;
  worst = bmmx_expect_compare(&t->expect, &ref, t->c.ptr);
  ok &= CHECK(worst <= 1.0,
              "%s via %s: worst |err|/bound = %g at batch entry %lld, C[%lld][%lld] = %.17g, "
              "reference %.17g",
              desc, how, worst, (long long)t->expect.worst_entry, (long long)t->expect.worst_i,
              (long long)t->expect.worst_j, t->expect.worst_got, t->expect.worst_ref);
  for (i = 0; i < t->c.count && bad < 0; ++i)
    if (!t->mask[i] &&
        memcmp(t->c.alloc + (size_t)i * t->c.es, t->c.init + (size_t)i * t->c.es, t->c.es) != 0)
      bad = i;
  ok &= CHECK(bad < 0, "%s via %s: C element at offset %lld (not part of C) was written", desc, how,
              (long long)(bad + t->c.lo));
  ok &= CHECK(tbuf_same(&t->a) && tbuf_same(&t->b) && tbuf_same(&t->bias),
              "%s via %s: an input (A, B or bias) changed", desc, how);
  return ok;
}

/* Runs the problem with strategy s (AUTO: the table) through bmm_cpu, or
   through the strategy's own entry point; checks the status against the
   strategy's claim and the result. */
static int tprob_run(tprob *t, bmm_strategy s, int via_entry) {
  bmm_problem q = t->p;
  bmm_plan plan;
  bmm_status st, want = BMM_OK;
  char desc[600];
  const char *how = "bmm_cpu";
  int i;
  memcpy(t->c.alloc, t->c.init, (size_t)t->c.count * t->c.es);
  tprob_desc(t, s, desc, sizeof desc);
  q.strategy = BMM_CPU_REF; /* claims everything and needs no table: the plan's layout */
  st = bmm_plan_problem(&q, BMM_BACKEND_CPU, &plan);
  q.strategy = BMM_STRATEGY_AUTO;
  if (!CHECK(st == BMM_OK, "%s: plan failed: %s", desc, bmm_last_error())) return 0;
  /* an empty problem does no work: every strategy runs it */
  if (s != BMM_STRATEGY_AUTO && !bmm_strategy_supports(s, &plan) &&
      plan.m * plan.n * plan.batch != 0)
    want = BMM_UNSUPPORTED;
  if (via_entry && s != BMM_STRATEGY_AUTO) {
    for (i = 0; i < NCPU; ++i)
      if (cpu_strategies[i].s == s) st = cpu_strategies[i].entry(&q);
    how = "its entry point";
  } else {
    q.strategy = s;
    st = bmm_cpu(&q);
  }
  if (!CHECK(st == want, "%s via %s: status %s, want %s (%s); plan layout %s", desc, how,
             bmm_status_name(st), bmm_status_name(want), bmm_last_error(),
             bmm_layout_name(plan.layout)))
    return 0;
  if (st != BMM_OK)
    return CHECK(tbuf_same(&t->c), "%s via %s: %s but C was written", desc, how,
                 bmm_status_name(st));
  return tprob_verify(t, s, how);
}

/* AUTO, then every CPU strategy (those that do not claim it must refuse). */
static void tprob_run_all(tprob *t, unsigned variant) {
  int i;
  tprob_run(t, BMM_STRATEGY_AUTO, 0);
  for (i = 0; i < NCPU; ++i)
    tprob_run(t, cpu_strategies[i].s, (int)((variant + (unsigned)i) % 2));
}

/* The descriptor of a bmmx case (pointers set later by tprob_make). */
static bmm_problem case_shape(bmm_dtype dt, int layout, int64_t batch, int64_t m, int64_t n,
                              int64_t k) {
  bmmx_case c;
  memset(&c, 0, sizeof c);
  c.dtype = dt, c.layout = layout, c.batch = batch, c.m = m, c.n = n, c.k = k;
  return bmmx_problem(&c, NULL, NULL, NULL, NULL);
}

/* alpha/beta/bias variants the random tests cycle through */
static void apply_mode(bmm_problem *p, int mode, int layout, int *with_bias) {
  static const double alphas[4] = {1.0, -0.75, 1.5, 1.0}, betas[4] = {0.0, 0.5, 0.0, 1.0};
  p->alpha = alphas[mode % 4], p->beta = betas[mode % 4];
  *with_bias = layout == BMMX_SHARED_B_BIAS || mode % 4 == 1 || mode % 4 == 2;
}

/* ---- names ------------------------------------------------------------------ */

/* Every enum value has its own name and message; the names the table format
   uses parse back to the same value. */
static void test_names(void) {
  static bmm_table_rule r[1];
  char line[200];
  int i, j, n;
  for (i = 0; i < BMM_STATUS_COUNT; ++i) {
    const char *name = bmm_status_name((bmm_status)i), *msg = bmm_status_string((bmm_status)i);
    CHECK(strcmp(name, "UNKNOWN_STATUS") != 0 && msg[0] && strcmp(msg, "unknown status") != 0,
          "status %d: name `%s`, message `%s`", i, name, msg);
    for (j = 0; j < i; ++j)
      CHECK(strcmp(name, bmm_status_name((bmm_status)j)) != 0, "statuses %d and %d share `%s`", i,
            j, name);
  }
  CHECK(strcmp(bmm_status_name(BMM_STATUS_COUNT), "UNKNOWN_STATUS") == 0 &&
            strcmp(bmm_status_string((bmm_status)-1), "unknown status") == 0,
        "out-of-range status names");
  for (i = 1; i < BMM_STRATEGY_COUNT; ++i) {
    const char *name = bmm_strategy_name((bmm_strategy)i);
    CHECK(bmm_strategy_backend((bmm_strategy)i) != BMM_BACKEND_AUTO, "strategy %s has no backend",
          name);
    snprintf(line, sizeof line, "* * * * * * %s", name);
    n = 0;
    CHECK(bmm_table_parse(line, r, 1, &n) == BMM_OK && n == 1 && r[0].strategy == (bmm_strategy)i,
          "strategy name `%s` does not parse back to %d", name, i);
    for (j = 1; j < i; ++j)
      CHECK(strcmp(name, bmm_strategy_name((bmm_strategy)j)) != 0, "strategies %d, %d share `%s`",
            i, j, name);
  }
  CHECK(strcmp(bmm_strategy_name(BMM_STRATEGY_AUTO), "auto") == 0 &&
            bmm_strategy_backend(BMM_STRATEGY_AUTO) == BMM_BACKEND_AUTO &&
            bmm_strategy_backend(BMM_STRATEGY_COUNT) == BMM_BACKEND_AUTO,
        "auto / out-of-range strategy");
  for (i = 0; i < NCPU; ++i)
    CHECK(bmm_strategy_backend(cpu_strategies[i].s) == BMM_BACKEND_CPU &&
              strcmp(bmm_strategy_name(cpu_strategies[i].s), cpu_strategies[i].name) == 0,
          "CPU strategy %s", cpu_strategies[i].name);
  for (i = 0; i < NCUDA; ++i)
    CHECK(bmm_strategy_backend(cuda_strategies[i]) == BMM_BACKEND_CUDA, "CUDA strategy %s",
          bmm_strategy_name(cuda_strategies[i]));
  for (i = 1; i < BMM_DTYPE_COUNT; ++i) {
    snprintf(line, sizeof line, "%s * * * * * cpu_ref", bmm_dtype_name((bmm_dtype)i));
    CHECK(bmm_table_parse(line, r, 1, &n) == BMM_OK && r[0].dtypes == BMM_DT(i) &&
              bmm_dtype_size((bmm_dtype)i) > 0,
          "dtype %d `%s`", i, bmm_dtype_name((bmm_dtype)i));
  }
  CHECK(bmm_dtype_size(BMM_F32) == sizeof(float) && bmm_dtype_size(BMM_F64) == sizeof(double) &&
            bmm_dtype_size(BMM_DTYPE_UNSET) == 0,
        "dtype sizes");
  for (i = 0; i < BMM_LAYOUT_COUNT; ++i) {
    snprintf(line, sizeof line, "* %s * * * * cpu_ref", bmm_layout_name((bmm_layout)i));
    CHECK(bmm_table_parse(line, r, 1, &n) == BMM_OK && r[0].layouts == (1u << i), "layout %d `%s`",
          i, bmm_layout_name((bmm_layout)i));
  }
  CHECK(strcmp(bmm_backend_name(BMM_BACKEND_CPU), "cpu") == 0 &&
            strcmp(bmm_backend_name(BMM_BACKEND_CUDA), "cuda") == 0,
        "backend names");
}

/* ---- errors: every status reachable on the CPU, C never written --------- */

static double g_a[4096], g_b[4096], g_c[4096], g_bias[256];
static double s_a[4096], s_b[4096], s_c[4096], s_bias[256];

static void err_fill(void) {
  uint64_t s = 42;
  bmmx_fill(BMM_F64, g_a, 4096, &s);
  bmmx_fill(BMM_F64, g_b, 4096, &s);
  bmmx_fill(BMM_F64, g_c, 4096, &s);
  bmmx_fill(BMM_F64, g_bias, 256, &s);
  memcpy(s_a, g_a, sizeof g_a), memcpy(s_b, g_b, sizeof g_b);
  memcpy(s_c, g_c, sizeof g_c), memcpy(s_bias, g_bias, sizeof g_bias);
}

static int err_untouched(void) {
  return memcmp(s_a, g_a, sizeof g_a) == 0 && memcmp(s_b, g_b, sizeof g_b) == 0 &&
         memcmp(s_c, g_c, sizeof g_c) == 0 && memcmp(s_bias, g_bias, sizeof g_bias) == 0;
}

/* f64, batch 2, m 3, n 4, k 5, packed; A, B, C in the static buffers */
static bmm_problem err_base(void) {
  return bmm_problem_rowmajor(BMM_F64, 2, 3, 4, 5, g_a, g_b, g_c);
}

/* A bad problem: bmm_cpu, bmm_plan_problem, bmm_explain and bmm_reference
   (and, for validation errors, every strategy entry) fail the same way and
   write nothing. */
static void err_case_at(int line, const char *what, const bmm_problem *p, bmm_status want,
                        const char *has, int validation) {
  char ctx[200], buf[600];
  bmm_plan plan;
  long double out[64];
  int i;
  err_fill();
  snprintf(ctx, sizeof ctx, "%s (test line %d)", what, line);
  EXPECT(bmm_cpu(p), want, has, ctx);
  CHECK(err_untouched(), "%s: bmm_cpu wrote memory on error", ctx);
  EXPECT(bmm_plan_problem(p, BMM_BACKEND_CPU, &plan), want, has, ctx);
  buf[0] = 'x';
  EXPECT(bmm_explain(p, BMM_BACKEND_CPU, buf, sizeof buf), want, has, ctx);
  CHECK(has == NULL || contains(buf, has), "%s: explain text `%s` lacks the message", ctx, buf);
  if (!validation) return;
  EXPECT(bmm_reference(p, out, NULL), want, has, ctx);
  for (i = 0; i < NCPU; ++i) {
    char c2[260];
    snprintf(c2, sizeof c2, "%s via bmm_%s", ctx, cpu_strategies[i].name);
    EXPECT(cpu_strategies[i].entry(p), want, has, c2);
  }
  CHECK(err_untouched(), "%s: a strategy entry wrote memory on error", ctx);
}
#define ERR(what, p, want, has) err_case_at(__LINE__, what, p, want, has, 1)
#define ERR_STRATEGY(what, p, want, has) err_case_at(__LINE__, what, p, want, has, 0)

/* A problem that must succeed and compute the right thing (over the static
   buffers, which it may write). */
static void ok_case_at(int line, const char *what, const bmm_problem *p) {
  char ctx[200];
  static double before[4096];
  bmm_problem ref = *p;
  const double *c = (const double *)p->c.ptr;
  int in_gc = (uintptr_t)c - (uintptr_t)g_c < sizeof g_c;
  err_fill();
  snprintf(ctx, sizeof ctx, "%s (test line %d)", what, line);
  memcpy(before, g_c, sizeof g_c);
  if (in_gc) ref.c.ptr = before + ((uintptr_t)c - (uintptr_t)g_c) / sizeof(double);
  EXPECT(bmm_cpu(p), BMM_OK, NULL, ctx);
  if (in_gc) CHECK(bmmx_check(&ref, c, 0) <= 1.0, "%s: wrong result", ctx);
}
#define OK_CASE(what, p) ok_case_at(__LINE__, what, p)

static void test_errors_null(void) {
  bmm_problem p = err_base();
  bmm_plan plan;
  bmm_table_rule r[2];
  int n = 5;
  char buf[64];
  long double out[64];
  err_fill();
  EXPECT(bmm_cpu(NULL), BMM_NULL_POINTER, "problem", "bmm_cpu(NULL)");
  EXPECT(bmm_plan_problem(NULL, BMM_BACKEND_CPU, &plan), BMM_NULL_POINTER, "problem",
         "plan_problem(NULL)");
  EXPECT(bmm_plan_problem(&p, BMM_BACKEND_CPU, NULL), BMM_NULL_POINTER, "plan",
         "plan_problem(p, NULL)");
  EXPECT(bmm_explain(&p, BMM_BACKEND_CPU, NULL, 10), BMM_NULL_POINTER, "buf", "explain(NULL buf)");
  EXPECT(bmm_explain(&p, BMM_BACKEND_CPU, buf, 0), BMM_NULL_POINTER, "buf", "explain(len 0)");
  EXPECT(bmm_reference(&p, NULL, NULL), BMM_NULL_POINTER, "out", "reference(out NULL)");
  EXPECT(bmm_reference(NULL, out, NULL), BMM_NULL_POINTER, "problem", "reference(NULL)");
  EXPECT(bmm_table_parse(NULL, r, 2, &n), BMM_NULL_POINTER, NULL, "table_parse(NULL)");
  CHECK(n == 0, "table_parse(NULL) left *count = %d", n);
  EXPECT(bmm_table_parse("", NULL, 2, &n), BMM_NULL_POINTER, NULL, "table_parse(rules NULL)");
  EXPECT(bmm_table_get(BMM_BACKEND_CPU, 0, NULL, 2, &n), BMM_NULL_POINTER, NULL, "table_get(NULL)");
  EXPECT(bmm_load_table_file(NULL), BMM_NULL_POINTER, "path", "load_table_file(NULL)");
  p = err_base(), p.c.ptr = NULL;
  ERR("c.ptr NULL", &p, BMM_NULL_POINTER, "c.ptr");
  p = err_base(), p.a.ptr = NULL;
  ERR("a.ptr NULL", &p, BMM_NULL_POINTER, "a.ptr");
  p = err_base(), p.b.ptr = NULL;
  ERR("b.ptr NULL", &p, BMM_NULL_POINTER, "b.ptr");
  /* not needed, so not an error */
  p = err_base(), p.a.ptr = p.b.ptr = NULL, p.alpha = 0, p.beta = 0.5;
  OK_CASE("alpha 0, A and B NULL", &p);
  p = err_base(), p.a.ptr = p.b.ptr = NULL, p.k = 0, p.beta = -2, p.bias = g_bias;
  OK_CASE("k 0, A and B NULL", &p);
  p = err_base(), p.m = 0, p.c.ptr = NULL;
  OK_CASE("m 0, C NULL", &p);
}

static void test_errors_dtype_strategy(void) {
  bmm_problem p = err_base();
  p.dtype = BMM_DTYPE_UNSET;
  ERR("dtype unset", &p, BMM_BAD_DTYPE, "dtype");
  p.dtype = BMM_DTYPE_COUNT;
  ERR("dtype COUNT", &p, BMM_BAD_DTYPE, "dtype");
  p.dtype = (bmm_dtype)-1;
  ERR("dtype -1", &p, BMM_BAD_DTYPE, "dtype");
  p = err_base(), p.strategy = BMM_STRATEGY_COUNT;
  ERR_STRATEGY("strategy COUNT", &p, BMM_BAD_STRATEGY, "strategy");
  p.strategy = (bmm_strategy)1000;
  ERR_STRATEGY("strategy 1000", &p, BMM_BAD_STRATEGY, "strategy");
  p.strategy = (bmm_strategy)-1;
  ERR_STRATEGY("strategy -1", &p, BMM_BAD_STRATEGY, "strategy");
  /* validation comes before any other check: a bad dtype wins over a bad strategy */
  p.dtype = BMM_DTYPE_UNSET;
  ERR_STRATEGY("dtype and strategy bad", &p, BMM_BAD_DTYPE, "dtype");
}

static void test_errors_size(void) {
  bmm_problem p = err_base();
  p.m = -1;
  ERR("m -1", &p, BMM_BAD_SIZE, "m, n, k");
  p = err_base(), p.n = -1;
  ERR("n -1", &p, BMM_BAD_SIZE, "m, n, k");
  p = err_base(), p.k = -7;
  ERR("k -7", &p, BMM_BAD_SIZE, "m, n, k");
  p = err_base(), p.k = INT64_MIN;
  ERR("k INT64_MIN", &p, BMM_BAD_SIZE, "m, n, k");
  p = err_base(), p.batch_dims = -1;
  ERR("batch_dims -1", &p, BMM_BAD_SIZE, "batch_dims");
  p = err_base(), p.batch_dims = BMM_MAX_BATCH_DIMS + 1;
  ERR("batch_dims 5", &p, BMM_BAD_SIZE, "batch_dims");
  p = err_base(), p.batch[0] = -2;
  ERR("batch[0] -2", &p, BMM_BAD_SIZE, "batch[0]");
  p = err_base(), p.batch_dims = 3, p.batch[1] = 1, p.batch[2] = -1;
  ERR("batch[2] -1", &p, BMM_BAD_SIZE, "batch[2]");
  /* sizes past batch_dims are not part of the problem */
  p = err_base(), p.batch_dims = 1, p.batch[1] = -5, p.batch[3] = -1;
  OK_CASE("batch[1..3] ignored past batch_dims", &p);
  p = err_base(), p.batch_dims = 0;
  OK_CASE("batch_dims 0 is one entry", &p);
}

static void test_errors_stride(void) {
  bmm_problem p = err_base();
  p.a.row_stride = 0;
  ERR("a.row_stride 0", &p, BMM_BAD_STRIDE, "a.row_stride");
  p = err_base(), p.a.col_stride = 0;
  ERR("a.col_stride 0", &p, BMM_BAD_STRIDE, "a.col_stride");
  p = err_base(), p.b.row_stride = 0;
  ERR("b.row_stride 0", &p, BMM_BAD_STRIDE, "b.row_stride");
  p = err_base(), p.b.col_stride = 0;
  ERR("b.col_stride 0", &p, BMM_BAD_STRIDE, "b.col_stride");
  /* a zero stride on a size-1 dim means nothing; on a batch dim it broadcasts */
  p = err_base(), p.m = 1, p.a.row_stride = 0, p.c.row_stride = 0;
  OK_CASE("m 1 with a.row_stride 0", &p);
  p = err_base(), p.n = 1, p.b.col_stride = 0, p.c.col_stride = 0;
  OK_CASE("n 1 with b.col_stride 0", &p);
  p = err_base(), p.a.batch_stride[0] = 0;
  OK_CASE("a.batch_stride 0 broadcasts", &p);
  p = err_base(), p.alpha = 0, p.a.row_stride = p.a.col_stride = 0, p.b.col_stride = 0;
  OK_CASE("alpha 0: A, B strides unused", &p);
}

static void test_errors_overflow(void) {
  const int64_t big = (int64_t)1 << 62;
  bmm_problem p = err_base();
  p.m = p.n = (int64_t)1 << 31, p.k = 1, p.batch[0] = 4;
  ERR("m*n*batch = 2^64", &p, BMM_OVERFLOW, "m*n*batch");
  p = err_base(), p.m = (int64_t)1 << 40, p.n = 1, p.k = (int64_t)1 << 30, p.batch[0] = 1;
  ERR("m*k = 2^70", &p, BMM_OVERFLOW, "overflows");
  p = err_base(), p.batch_dims = 2, p.batch[0] = p.batch[1] = (int64_t)1 << 32;
  ERR("batch product 2^64", &p, BMM_OVERFLOW, "batch");
  p = err_base(), p.a.row_stride = INT64_MAX / 2 + 1;
  ERR("a.row_stride * (m-1) overflows", &p, BMM_OVERFLOW, "a:");
  p = err_base(), p.a.row_stride = INT64_MIN;
  ERR("a.row_stride INT64_MIN", &p, BMM_OVERFLOW, "a:");
  p = err_base(), p.b.batch_stride[0] = INT64_MAX - 10;
  ERR("b offsets sum overflows", &p, BMM_OVERFLOW, "b: offsets overflow");
  p = err_base(), p.batch[0] = 3, p.c.batch_stride[0] = big;
  ERR("c.batch_stride * 2 = 2^63", &p, BMM_OVERFLOW, "c:");
  p = err_base(), p.m = 2, p.a.row_stride = -big, p.a.batch_stride[0] = -big;
  ERR("a negative offsets overflow", &p, BMM_OVERFLOW, "a: offsets overflow");
  p = err_base(), p.c.row_stride = (int64_t)1 << 61;
  ERR("C byte span overflows", &p, BMM_OVERFLOW, "byte span");
  p = err_base(), p.a.batch_stride[0] = (int64_t)1 << 61;
  ERR("A byte span overflows", &p, BMM_OVERFLOW, "byte span");
}

static void test_errors_overlap(void) {
  static double one[4096];
  bmm_problem p = err_base();
  p.c.ptr = g_a;
  ERR("C == A", &p, BMM_C_OVERLAP, "A");
  p = err_base(), p.c.ptr = g_b + 39; /* last element of B */
  ERR("C starts on B's last element", &p, BMM_C_OVERLAP, "B");
  p = err_base(), p.a.ptr = g_c + 23; /* A starts on C's last element */
  ERR("A starts on C's last element", &p, BMM_C_OVERLAP, "A");
  p = err_base(), p.bias = g_c + 20;
  ERR("bias inside C", &p, BMM_C_OVERLAP, "bias");
  p = err_base(), p.bias = g_c + 22; /* bias[0..1] on C[22..23] */
  ERR("bias overlapping C's end", &p, BMM_C_OVERLAP, "bias");
  /* A with rows reversed: its pointer is at the last row, it reaches below */
  p = err_base(), p.a.ptr = one + 10, p.a.row_stride = -5, p.a.batch_stride[0] = 15;
  p.c.ptr = one + 2;
  ERR("C below a negative-stride A's pointer", &p, BMM_C_OVERLAP, "A");
  /* touching is not overlapping */
  p = err_base(), p.a.ptr = one, p.b.ptr = one + 30, p.c.ptr = one + 70, p.bias = one + 94;
  {
    bmm_problem ref = p;
    static double before[4096];
    uint64_t s = 7;
    bmmx_fill(BMM_F64, one, 4096, &s);
    memcpy(before, one, sizeof one);
    ref.a.ptr = before, ref.b.ptr = before + 30, ref.c.ptr = before + 70, ref.bias = before + 94;
    EXPECT(bmm_cpu(&p), BMM_OK, NULL, "A, B, C, bias adjacent in one buffer");
    CHECK(bmmx_check(&ref, one + 70, 0) <= 1.0, "adjacent buffers: wrong result");
    CHECK(memcmp(one, before, 70 * sizeof(double)) == 0 &&
              memcmp(one + 94, before + 94, (4096 - 94) * sizeof(double)) == 0,
          "adjacent buffers: memory outside C written");
    p = err_base(), p.a.ptr = one + 10, p.a.row_stride = -5, p.a.batch_stride[0] = 15;
    p.b.ptr = one + 30, p.c.ptr = one + 70;
    memcpy(one, before, sizeof one);
    ref = p, ref.a.ptr = before + 10, ref.b.ptr = before + 30, ref.c.ptr = before + 70;
    EXPECT(bmm_cpu(&p), BMM_OK, NULL, "negative-stride A right below C");
    CHECK(bmmx_check(&ref, one + 70, 0) <= 1.0, "negative-stride A: wrong result");
  }
  /* A is never read when alpha == 0, so it may be C itself */
  p = err_base(), p.alpha = 0, p.beta = 2, p.a.ptr = g_c, p.b.ptr = g_c;
  OK_CASE("alpha 0 with A == B == C", &p);
}

static void test_errors_c_self_overlap(void) {
  bmm_problem p = err_base();
  p.c.batch_stride[0] = 0;
  ERR("c.batch_stride 0, batch 2", &p, BMM_C_SELF_OVERLAP, "c.batch_stride[0]");
  p = err_base(), p.c.row_stride = 0;
  ERR("c.row_stride 0", &p, BMM_C_SELF_OVERLAP, "c.row_stride");
  p = err_base(), p.c.col_stride = 0;
  ERR("c.col_stride 0", &p, BMM_C_SELF_OVERLAP, "c.col_stride");
  p = err_base(), p.c.row_stride = 2; /* row 1 starts inside row 0 */
  ERR("c rows collide", &p, BMM_C_SELF_OVERLAP, "c.row_stride");
  p = err_base(), p.c.row_stride = 1, p.c.col_stride = 2; /* transposed, cols collide */
  ERR("c cols collide", &p, BMM_C_SELF_OVERLAP, "c.col_stride");
  p = err_base(), p.c.batch_stride[0] = 11; /* entry 1 starts on entry 0's last element */
  ERR("c batch entries collide", &p, BMM_C_SELF_OVERLAP, "c.batch_stride[0]");
  p = err_base(), p.batch_dims = 2, p.batch[0] = 2, p.batch[1] = 2;
  p.a.batch_stride[1] = 15, p.a.batch_stride[0] = 30, p.b.batch_stride[1] = 20;
  p.b.batch_stride[0] = 40, p.c.batch_stride[0] = p.c.batch_stride[1] = 12;
  ERR("two batch dims with one C stride", &p, BMM_C_SELF_OVERLAP, "c.batch_stride");
  p = err_base(), p.c.row_stride = -2, p.c.ptr = g_c + 10;
  ERR("negative c rows collide", &p, BMM_C_SELF_OVERLAP, "c.row_stride");
  /* legal unusual C layouts */
  p = err_base(), p.c.row_stride = 1, p.c.col_stride = 3;
  OK_CASE("C transposed", &p);
  p = err_base(), p.c.row_stride = -4, p.c.ptr = g_c + 8, p.c.batch_stride[0] = 12;
  OK_CASE("C rows reversed", &p);
  p = err_base(), p.batch[0] = 1, p.c.batch_stride[0] = 0;
  OK_CASE("c.batch_stride 0 with batch 1", &p);
}

static void test_errors_backend_unsupported(void) {
  bmm_problem p = err_base();
  int i, l, cases = 0;
  char ctx[160];
  for (i = 0; i < NCUDA; ++i) {
    p = err_base(), p.strategy = cuda_strategies[i];
    snprintf(ctx, sizeof ctx, "CUDA strategy %s on bmm_cpu", bmm_strategy_name(p.strategy));
    ERR_STRATEGY(ctx, &p, BMM_WRONG_BACKEND, bmm_strategy_name(p.strategy));
  }
  for (i = 0; i < NCPU; ++i) {
    unsigned layouts;
    int64_t mm, mn, mk;
    int d;
    static const int class_case[BMM_LAYOUT_COUNT] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS,
                                                     BMMX_BATCH_INNER, BMMX_COLMAJOR};
    claim_of(cpu_strategies[i].s, &layouts, &mm, &mn, &mk);
    for (d = 0; d < 3; ++d) {
      int64_t lim = d == 0 ? mm : d == 1 ? mn : mk;
      if (lim == 0) continue;
      {
        tprob t;
        bmm_problem shp = case_shape(BMM_F32, BMMX_ROWMAJOR, 3, d == 0 ? lim + 1 : 2,
                                     d == 1 ? lim + 1 : 2, d == 2 ? lim + 1 : 2);
        snprintf(ctx, sizeof ctx, "%s beyond its %c limit %lld", cpu_strategies[i].name, "mnk"[d],
                 (long long)lim);
        tprob_make(&t, &shp, 0, (uint64_t)(i * 3 + d), ctx);
        t.p.strategy = cpu_strategies[i].s;
        EXPECT(bmm_cpu(&t.p), BMM_UNSUPPORTED, cpu_strategies[i].name, ctx);
        t.p.strategy = BMM_STRATEGY_AUTO;
        EXPECT(cpu_strategies[i].entry(&t.p), BMM_UNSUPPORTED, cpu_strategies[i].name, ctx);
        CHECK(tbuf_same(&t.c), "%s: C written", ctx);
        tprob_free(&t);
        ++cases;
      }
    }
    for (l = 0; l < BMM_LAYOUT_COUNT; ++l) {
      tprob t;
      bmm_problem shp;
      bmm_plan plan;
      if (layouts & (1u << l)) continue;
      shp = case_shape(BMM_F64, class_case[l], 6, 3, 4, 5);
      snprintf(ctx, sizeof ctx, "%s on layout %s", cpu_strategies[i].name,
               bmm_layout_name((bmm_layout)l));
      tprob_make(&t, &shp, 0, (uint64_t)(i * 7 + l), ctx);
      if (CHECK(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan) == BMM_OK &&
                    plan.layout == (bmm_layout)l,
                "%s: the case is not of layout class %s (test bug)", ctx,
                bmm_layout_name((bmm_layout)l))) {
        t.p.strategy = cpu_strategies[i].s;
        EXPECT(bmm_cpu(&t.p), BMM_UNSUPPORTED, bmm_layout_name((bmm_layout)l), ctx);
        t.p.strategy = BMM_STRATEGY_AUTO;
        EXPECT(cpu_strategies[i].entry(&t.p), BMM_UNSUPPORTED, cpu_strategies[i].name, ctx);
        CHECK(tbuf_same(&t.c), "%s: C written", ctx);
      }
      tprob_free(&t);
      ++cases;
    }
  }
  CHECK(cases > 0, "no CPU strategy has a limited claim: UNSUPPORTED untested");
  /* a NOT_COMPILED backend on a CPU-only build */
  {
    char buf[200];
    bmm_plan plan;
    p = err_base();
    EXPECT(bmm_plan_problem(&p, BMM_BACKEND_CUDA, &plan), BMM_NOT_COMPILED, "CUDA",
           "plan on CUDA in a CPU build");
    EXPECT(bmm_explain(&p, BMM_BACKEND_CUDA, buf, sizeof buf), BMM_NOT_COMPILED, "CUDA",
           "explain on CUDA in a CPU build");
    EXPECT(bmm_table_get(BMM_BACKEND_CUDA, 90, NULL, 0, NULL), BMM_NOT_COMPILED, "CUDA",
           "table_get on CUDA in a CPU build");
  }
}

/* bmm_last_error is per thread: a second thread sees only its own errors. */
static void *err_thread(void *arg) {
  int *result = (int *)arg, i;
  bmm_problem p = err_base();
  bmm_plan plan;
  result[0] = bmm_last_error()[0] == 0; /* a fresh thread starts clean */
  result[1] = 1;
  p.batch_dims = -1;
  for (i = 0; i < 2000; ++i)
    if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) != BMM_BAD_SIZE ||
        !contains(bmm_last_error(), "batch_dims"))
      result[1] = 0;
  return NULL;
}

static void test_errors_per_thread(void) {
  int res[2] = {0, 0};
  pthread_t th;
  char mine[512];
  int i, same = 1;
  bmm_problem p = err_base();
  bmm_plan plan;
  p.dtype = BMM_DTYPE_UNSET;
  EXPECT(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan), BMM_BAD_DTYPE, "dtype", "main thread");
  snprintf(mine, sizeof mine, "%s", bmm_last_error());
  if (!CHECK(pthread_create(&th, NULL, err_thread, res) == 0, "pthread_create failed")) return;
  for (i = 0; i < 2000; ++i) { /* while the other thread writes its own errors */
    bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan);
    if (strcmp(bmm_last_error(), mine) != 0) same = 0;
  }
  pthread_join(th, NULL);
  CHECK(res[0], "a new thread's bmm_last_error() is not empty");
  CHECK(res[1], "the second thread did not see its own BAD_SIZE message");
  CHECK(same && strcmp(bmm_last_error(), mine) == 0,
        "main thread's message changed to `%s` (was `%s`)", bmm_last_error(), mine);
  p = err_base();
  EXPECT(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan), BMM_OK, NULL, "success clears the message");
}

/* ---- semantics ----------------------------------------------------------- */

static void sem_run(bmm_problem shape, int with_bias, uint64_t seed, const char *label) {
  tprob t;
  tprob_make(&t, &shape, with_bias, seed, label);
  tprob_run_all(&t, (unsigned)seed);
  tprob_free(&t);
}

static void test_sem_alpha_beta_bias(void) {
  static const double alphas[] = {1, -1, 0.5, 3}, betas[] = {0, 1, -1, 0.25};
  int ia, ib, l, bias = 0;
  char label[80];
  for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
    for (ia = 0; ia < 4; ++ia)
      for (ib = 0; ib < 4; ++ib) {
        bmm_problem s = case_shape(l % 2 ? BMM_F32 : BMM_F64, l, 5, 3, 5, 7);
        s.alpha = alphas[ia], s.beta = betas[ib];
        bias = l == BMMX_SHARED_B_BIAS || (ia + ib) % 2;
        snprintf(label, sizeof label, "alpha/beta/bias on %s", bmmx_layout_name(l));
        sem_run(s, bias, (uint64_t)(l * 16 + ia * 4 + ib), label);
      }
}

/* beta == 0 never reads C: tprob poisons C with NaN when beta is 0, so any
   read shows as a NaN result; also with a huge k=1 problem and bias. */
static void test_sem_beta0_nan(void) {
  int l, dt;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l) {
      static const int64_t shapes[][3] = {{1, 1, 1}, {4, 4, 4}, {17, 3, 9}, {2, 33, 16}};
      int s;
      for (s = 0; s < 4; ++s) {
        bmm_problem p = case_shape((bmm_dtype)dt, l, 3, shapes[s][0], shapes[s][1], shapes[s][2]);
        tprob t;
        p.beta = 0, p.alpha = s % 2 ? 1 : -2;
        tprob_make(&t, &p, s % 2, (uint64_t)(dt * 100 + l * 4 + s), "beta 0, C all NaN");
        CHECK(isnan(bmmx__get(p.dtype, t.c.ptr, 0)), "C not poisoned (test bug)");
        tprob_run_all(&t, (unsigned)s);
        tprob_free(&t);
      }
    }
}

/* alpha == 0 or k == 0: A and B are never read (NULL is fine), C = beta*C + bias */
static void test_sem_alpha0_k0(void) {
  int l, dt, v;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (v = 0; v < 4; ++v) {
        bmm_problem p = case_shape((bmm_dtype)dt, l, 4, 3, 5, v < 2 ? 0 : 6);
        tprob t;
        char label[80];
        p.alpha = v < 2 ? 1.5 : 0.0;
        p.beta = v % 2 ? 0.0 : -0.5;
        snprintf(label, sizeof label, "%s, A and B NULL", v < 2 ? "k 0" : "alpha 0");
        tprob_make(&t, &p, l == BMMX_SHARED_B_BIAS || v % 2, (uint64_t)(dt * 50 + l * 4 + v),
                   label);
        t.p.a.ptr = t.p.b.ptr = NULL;
        tprob_run_all(&t, (unsigned)v);
        tprob_free(&t);
      }
}

/* m, n or batch 0: success, nothing touched, C may be NULL */
static void test_sem_empty(void) {
  static const int64_t shapes[][4] = {{0, 3, 4, 5}, {6, 0, 4, 5}, {6, 3, 0, 5}, {0, 0, 0, 0}};
  int l, s, i;
  for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
    for (s = 0; s < 4; ++s) {
      bmm_problem p =
          case_shape(BMM_F64, l, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
      tprob t;
      bmm_plan plan;
      char label[120];
      snprintf(label, sizeof label, "empty %s batch=%lld m=%lld n=%lld", bmmx_layout_name(l),
               (long long)shapes[s][0], (long long)shapes[s][1], (long long)shapes[s][2]);
      tprob_make(&t, &p, 1, (uint64_t)(l * 4 + s), label);
      p = t.p;
      EXPECT(bmm_cpu(&p), BMM_OK, NULL, label);
      p.c.ptr = p.a.ptr = p.b.ptr = NULL;
      EXPECT(bmm_cpu(&p), BMM_OK, NULL, label);
      EXPECT(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan), BMM_OK, NULL, label);
      for (i = 0; i < NCPU; ++i) {
        bmm_status st;
        p.strategy = cpu_strategies[i].s;
        st = bmm_cpu(&p);
        CHECK(st == BMM_OK, "%s with %s forced: %s (%s)", label, cpu_strategies[i].name,
              bmm_status_name(st), bmm_last_error());
      }
      CHECK(tbuf_same(&t.c) && tbuf_same(&t.a) && tbuf_same(&t.b), "%s: memory touched", label);
      tprob_free(&t);
    }
  /* a zero batch dim among several */
  {
    bmm_problem p = err_base();
    p.batch_dims = 3, p.batch[0] = 2, p.batch[1] = 0, p.batch[2] = 3, p.c.ptr = NULL;
    EXPECT(bmm_cpu(&p), BMM_OK, NULL, "batch (2,0,3), C NULL");
  }
}

/* Reference values that are Inf (inf_only) or not finite: the tests of
   non-finite results check that their setup made some. */
static int64_t ref_count(const tprob *t, int inf_only) {
  int64_t x, cnt = 0;
  for (x = 0; t->have_expect && x < t->expect.samples * t->p.m * t->p.n; ++x) {
    const double r = (double)t->expect.ref[x];
    cnt += inf_only ? isinf(r) != 0 : !isfinite(r); /* glibc's isinf: -1 for -Inf */
  }
  return cnt;
}

/* Inf and NaN in the inputs land where the reference puts them: no kernel
   may skip, reorder into inf - inf, or multiply padding into them. */
static void test_sem_nonfinite(void) {
  static const int64_t shapes[][3] = {{1, 1, 1}, {3, 4, 5}, {16, 16, 16}, {17, 33, 9}, {5, 2, 70}};
  int l, dt, s;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (s = 0; s < 5; ++s) {
        bmm_problem p = case_shape((bmm_dtype)dt, l, 4, shapes[s][0], shapes[s][1], shapes[s][2]);
        tprob t;
        int64_t oa, ob, e, i, j;
        int bias;
        apply_mode(&p, s + l, l, &bias);
        tprob_make(&t, &p, bias, (uint64_t)(dt * 1000 + l * 5 + s), "Inf in A and B, NaN in B");
        for (e = 0; e < 3; ++e) {
          unsigned char *where[2];
          double v = e == 0 ? -INFINITY : e == 1 ? INFINITY : NAN;
          bmmx__c_offset(&t.p, e == 0 ? 0 : e == 1 ? 1 : 3, &oa, &ob);
          if (e == 1) { /* A[1][m-1][k-1] */
            i = oa + (p.m - 1) * t.p.a.row_stride + (p.k - 1) * t.p.a.col_stride;
            where[0] = (unsigned char *)t.a.ptr, where[1] = t.a.init + (size_t)(-t.a.lo) * t.a.es;
          } else { /* B[0][k-1][0] = -Inf, B[3][0][n-1] = NaN */
            i = ob + (e == 0 ? (p.k - 1) * t.p.b.row_stride : (p.n - 1) * t.p.b.col_stride);
            where[0] = (unsigned char *)t.b.ptr, where[1] = t.b.init + (size_t)(-t.b.lo) * t.b.es;
          }
          for (j = 0; j < 2; ++j)
            bmm_element_set((bmm_dtype)dt, where[j], i * bmmx_parts((bmm_dtype)dt), v);
        }
        tprob_run_all(&t, (unsigned)s);
        CHECK(ref_count(&t, 0) > 0, "%s: the reference has no Inf or NaN (test bug)", t.label);
        tprob_free(&t);
      }
}

/* An infinite alpha scales the whole sum: Inf * (p1 + p2), never
   Inf * p1 + Inf * p2 (NaN where the parts differ in sign). cpu_blocked sums
   k in blocks of 256 when it packs B (here: B over 256 KiB, or not
   row-contiguous), and takes dot products for such calls. */
static void test_sem_inf_alpha(void) {
  static const int64_t shapes[][3] = {{2, 1, 513}, {3, 300, 600}, {7, 5, 300}};
  int l, dt, s, idx = 0;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (s = 0; s < 3; ++s, ++idx) {
        bmm_problem p = case_shape((bmm_dtype)dt, l, 2, shapes[s][0], shapes[s][1], shapes[s][2]);
        tprob t;
        p.alpha = idx % 2 ? INFINITY : -INFINITY, p.beta = idx % 3 ? 1.0 : 0.0;
        tprob_make(&t, &p, 0, (uint64_t)idx + 11000, "alpha = +-Inf, k > 256");
        tprob_run_all(&t, (unsigned)idx);
        CHECK(ref_count(&t, 1) > 0, "%s: the reference has no Inf (test bug)", t.label);
        tprob_free(&t);
      }
}

/* A and B may be the same memory (both are only read): C = A * A^T. */
static void test_sem_ab_alias(void) {
  static const int64_t shapes[][2] = {{1, 1}, {3, 5}, {16, 16}, {17, 70}, {33, 2}};
  int s, dt;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (s = 0; s < 5; ++s) {
      int64_t m = shapes[s][0], k = shapes[s][1];
      bmm_problem p = bmm_problem_rowmajor((bmm_dtype)dt, 6, m, m, k, NULL, NULL, NULL);
      tprob t;
      tprob_make(&t, &p, s % 2, (uint64_t)(dt * 10 + s), "C = A * A^T, B a view of A");
      t.p.b.ptr = t.p.a.ptr;
      t.p.b.row_stride = 1, t.p.b.col_stride = k, t.p.b.batch_stride[0] = m * k;
      tprob_run_all(&t, (unsigned)s);
      tprob_free(&t);
    }
}

/* ---- random problems vs the long-double reference ------------------------- */

static const int64_t grid[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 64, 70};
#define NGRID ((int)(sizeof grid / sizeof grid[0]))

/* Every (m, n, k) of the grid; layout, dtype and alpha/beta/bias cycle with
   the index so that each layout meets every dtype and variant. */
static void random_grid(int64_t batch) {
  int im, in, ik, idx = 0;
  for (im = 0; im < NGRID; ++im)
    for (in = 0; in < NGRID; ++in)
      for (ik = 0; ik < NGRID; ++ik, ++idx) {
        int layout = idx % BMMX_LAYOUT_COUNT, bias;
        bmm_dtype dt = (idx / BMMX_LAYOUT_COUNT) % 2 ? BMM_F64 : BMM_F32;
        bmm_problem p = case_shape(dt, layout, batch, grid[im], grid[in], grid[ik]);
        tprob t;
        char label[64];
        apply_mode(&p, idx / (2 * BMMX_LAYOUT_COUNT), layout, &bias);
        snprintf(label, sizeof label, "grid batch %lld #%d %s", (long long)batch, idx,
                 bmmx_layout_name(layout));
        tprob_make(&t, &p, bias, (uint64_t)idx * 31 + (uint64_t)batch, label);
        tprob_run_all(&t, (unsigned)idx);
        tprob_free(&t);
      }
}

static void test_random_batch1(void) { random_grid(1); }
static void test_random_batch7(void) { random_grid(7); }

static void test_random_batch0(void) {
  int l, dt, s;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (s = 0; s < 3; ++s) {
        bmm_problem p = case_shape((bmm_dtype)dt, l, 0, grid[s * 5], grid[s * 5 + 2], grid[s * 4]);
        tprob t;
        int i;
        tprob_make(&t, &p, 1, (uint64_t)(l * 3 + s), "batch 0");
        EXPECT(bmm_cpu(&t.p), BMM_OK, NULL, "batch 0 AUTO");
        for (i = 0; i < NCPU; ++i) {
          bmm_problem q = t.p;
          bmm_status st = cpu_strategies[i].entry(&q);
          CHECK(st == BMM_OK, "batch 0 %s %s: %s (%s)", bmmx_layout_name(l), cpu_strategies[i].name,
                bmm_status_name(st), bmm_last_error());
        }
        CHECK(tbuf_same(&t.c), "batch 0 %s: C touched", bmmx_layout_name(l));
        tprob_free(&t);
      }
}

static void test_random_batch1000(void) {
  static const int64_t shapes[][3] = {{1, 1, 1},    {3, 1, 5},  {3, 1, 25},  {2, 3, 4},
                                      {4, 4, 4},    {5, 7, 9},  {8, 8, 8},   {16, 16, 16},
                                      {17, 5, 3},   {1, 70, 2}, {70, 1, 3},  {15, 16, 17},
                                      {32, 32, 32}, {2, 2, 64}, {1, 16, 16}, {33, 2, 1}};
  int s, l, idx = 0;
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l, ++idx) {
      int bias;
      bmm_problem p = case_shape((s + l) % 2 ? BMM_F64 : BMM_F32, l, 1000, shapes[s][0],
                                 shapes[s][1], shapes[s][2]);
      tprob t;
      char label[64];
      apply_mode(&p, idx, l, &bias);
      snprintf(label, sizeof label, "batch 1000 #%d %s", idx, bmmx_layout_name(l));
      tprob_make(&t, &p, bias, (uint64_t)idx + 5000, label);
      t.samples = 25;
      tprob_run_all(&t, (unsigned)idx);
      tprob_free(&t);
    }
}

/* Past the grid: sizes across the kernels' blocking borders (tiles of 6 and
   8-64 columns, 96-row and 256-deep blocks, 256-entry chunks, 96-row work
   units of one entry), with beta and bias on the paths that add a second k
   block. The last five: cpu_blocked's 4-vector tiles (AVX-512, n >= 64 f32
   / 32 f64) ending in 5, 3 and 2 rows, beside 2- and 1-vector columns, B read
   in place or packed (trans_b; B of 285 KiB in f32, read in place in cache,
   570 KiB in f64; the last: B of 541 KiB in f32, packed, its last column
   block 116 wide, past 2 vectors of a 4-vector panel). */
static void test_random_large(void) {
  static const int64_t shapes[][4] = {
      {2, 97, 5, 3},     {2, 5, 300, 7},   {2, 7, 5, 600},  {1, 100, 130, 513}, {3, 2, 257, 257},
      {2, 193, 65, 260}, {5, 1, 1, 1000},  {2, 1, 1000, 1}, {1, 1000, 1, 2},    {600, 2, 3, 4},
      {300, 1, 1, 300},  {1, 250, 33, 40}, {2, 17, 64, 9},  {3, 15, 100, 20},   {1, 14, 130, 7},
      {2, 9, 1140, 64},  {2, 9, 2164, 64}};
  int s, l, idx = 0;
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l, ++idx) {
      int bias;
      bmm_problem p = case_shape(idx % 2 ? BMM_F64 : BMM_F32, l, shapes[s][0], shapes[s][1],
                                 shapes[s][2], shapes[s][3]);
      tprob t;
      char label[64];
      apply_mode(&p, idx, l, &bias);
      snprintf(label, sizeof label, "large #%d %s", idx, bmmx_layout_name(l));
      tprob_make(&t, &p, bias, (uint64_t)idx + 7000, label);
      t.samples = 8;
      tprob_run_all(&t, (unsigned)idx);
      tprob_free(&t);
    }
}

/* The seed's sweep, where cpu_small and cpu_dot have constant-k kernels
   (m = 3, n = 1; k = 5..50 by 5 and, for cpu_small, every k < 16) and
   run-time-k ones beside them: every k = 1..51, m = 2..4, in the layouts those kernels take
   (rowmajor, shared B, col_a), batch 37 (not a multiple of the 4 streams
   each thread walks). */
static void test_seed_sweep(void) {
  static const int layouts[] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS, BMMX_COL_A};
  int64_t k, m;
  int l, dt, idx = 0;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (k = 1; k <= 51; ++k)
      for (m = 2; m <= 4; ++m)
        for (l = 0; l < (int)(sizeof layouts / sizeof layouts[0]); ++l) {
          int bias;
          bmm_problem p;
          tprob t;
          char label[64];
          if (m != 3 && k % 5 != 0) continue; /* run-time k: the sweep's ks are enough */
          p = case_shape((bmm_dtype)dt, layouts[l], 37, m, 1, k);
          apply_mode(&p, idx, layouts[l], &bias);
          snprintf(label, sizeof label, "seed sweep #%d %s", idx, bmmx_layout_name(layouts[l]));
          tprob_make(&t, &p, bias, (uint64_t)idx + 9000, label);
          tprob_run_all(&t, (unsigned)idx++);
          tprob_free(&t);
        }
}

/* cpu_small's fixed-size AXPY kernels: each square m = n = 2..16 with its
   constant k (k = m) and a run-time k beside it (k = m + 1), in the layouts
   they take (rowmajor, shared B with bias), both dtypes, every alpha/beta/bias
   mode, batch 37 (not a multiple of the 4 streams each thread walks). Which
   of them keep their sums in named vectors, and how wide, depends on the
   target (BMM__AXPY_FITS), so the -march=native build reaches kernels the
   portable one does not. */
static void test_small_squares(void) {
  static const int layouts[] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS};
  int64_t m, dk;
  int l, dt, mode, idx = 0;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (m = 2; m <= 16; ++m)
      for (dk = 0; dk <= 1; ++dk)
        for (l = 0; l < (int)(sizeof layouts / sizeof layouts[0]); ++l)
          for (mode = 0; mode < 4; ++mode) {
            int bias;
            bmm_problem p = case_shape((bmm_dtype)dt, layouts[l], 37, m, m, m + dk);
            tprob t;
            char label[64];
            apply_mode(&p, mode, layouts[l], &bias);
            snprintf(label, sizeof label, "small square #%d %s", idx, bmmx_layout_name(layouts[l]));
            tprob_make(&t, &p, bias, (uint64_t)idx + 11000, label);
            tprob_run_all(&t, (unsigned)idx++);
            tprob_free(&t);
          }
}

/* f16 and bf16 (issue 23): every layout x alpha/beta/bias mode x strategy on
   shapes that reach each f32 kernel through the converting driver (cpu_small's
   dot form reads the halves itself where built: half_fused): the seed
   3x1x25 over several chunks (batch 400), cpu_small's squares, a blocked
   tile with edges, k > 256 (cpu_blocked's KC blocks), degenerate 1x1x1, and
   the plain loops of cpu_ref; then explain names the conversion. The
   bound adds the store's rounding (bmmx_bound). */
static void test_half_dtypes(void) {
  static const int64_t shapes[][4] = {{400, 3, 1, 25}, {38, 4, 4, 4},    {38, 16, 16, 16},
                                      {38, 17, 9, 33}, {6, 33, 40, 300}, {4, 70, 20, 8},
                                      {2, 1, 1, 1},    {10, 2, 30, 5}};
  static const bmm_dtype dts[] = {BMM_F16, BMM_BF16};
  static bmm_f16 ea[3 * 25 * 1000], eb[25 * 1000], ec[3 * 1000];
  int d, s, l, mode, idx = 0;
  char buf[1024];
  for (d = 0; d < 2; ++d)
    for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s)
      for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
        for (mode = 0; mode < 4; ++mode) {
          int bias;
          bmm_problem p =
              case_shape(dts[d], l, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
          tprob t;
          char label[64];
          apply_mode(&p, mode, l, &bias);
          snprintf(label, sizeof label, "%s #%d %s", bmm_dtype_name(dts[d]), idx,
                   bmmx_layout_name(l));
          tprob_make(&t, &p, bias, (uint64_t)idx + 31000, label);
          if (shapes[s][0] * shapes[s][1] * shapes[s][3] > 60000) t.samples = 9;
          tprob_run_all(&t, (unsigned)idx++);
          tprob_free(&t);
        }
  for (d = 0; d < 2; ++d) {
    bmm_problem p = bmm_problem_rowmajor(dts[d], 1000, 3, 1, 25, ea, eb, ec);
    const int fused = d == 0 ? BMM__CPU_FUSED_f16 : BMM__CPU_FUSED_bf16;
    const char *want = fused    ? "read by the kernel"
                       : d == 0 ? "f16 as f32: chunks of 159 entries"
                                : "bf16 as f32: chunks";
    CHECK(bmm_explain(&p, BMM_BACKEND_CPU, buf, sizeof buf) == BMM_OK && contains(buf, want) &&
              contains(buf, "kernel=small_dot_3x1_k25"),
          "explain of %s 3x1x25: `%s` lacks `%s` or the f32 kernel", bmm_dtype_name(dts[d]), buf,
          want);
    /* cpu_small's axpy form has no fused kernel: converted chunks */
    p = bmm_problem_rowmajor(dts[d], 100, 4, 4, 4, ea, eb, ec);
    CHECK(bmm_explain(&p, BMM_BACKEND_CPU, buf, sizeof buf) == BMM_OK &&
              contains(buf, "as f32: chunks") && contains(buf, "kernel=small_axpy_4x4_k4"),
          "explain of %s 4x4x4: `%s` (converted chunks, the f32 axpy kernel)",
          bmm_dtype_name(dts[d]), buf);
    p = bmm_problem_rowmajor(dts[d], 1000, 3, 1, 25, ea, eb, ec);
    p.strategy = BMM_CPU_REF;
    CHECK(bmm_explain(&p, BMM_BACKEND_CPU, buf, sizeof buf) == BMM_OK && !contains(buf, "as f32") &&
              contains(buf, "kernel=ref"),
          "explain of %s cpu_ref: `%s` (plain loops, no conversion)", bmm_dtype_name(dts[d]), buf);
  }
}

/* The 16-rows-to-a-vector path's sums, one row of C at a time in plain C
   (bmm_cpu.h, "16 rows of C to a vector"): a row of k <= 8 products summed
   in turn (product 0, + product 1, ...); a longer one in 16 lanes summed
   chunk by chunk with multiply-adds (zeros past k in the last chunk), then
   vtree's order, ((s0 + s1) + (s2 + s3)) with s_q = (p_4q + p_4q+2) +
   (p_4q+1 + p_4q+3); then the f32 store's epilogue. q: an f32 problem (m x
   1 x k, one batch dim) over the halves' values; C is overwritten with the
   model's result. */
static void vrows_model(const bmm_problem *q) {
  const float *A = (const float *)q->a.ptr, *B = (const float *)q->b.ptr;
  float *C = (float *)(uintptr_t)q->c.ptr;
  const float al = (float)q->alpha, be = (float)q->beta;
  const int plain = al == 1.0f && q->beta == 0.0 && !q->bias;
  int64_t e, i, l;
  for (e = 0; e < q->batch[0]; ++e)
    for (i = 0; i < q->m; ++i) {
      float p[16], r;
      int u, P = 16;
      const float *a = A + e * q->a.batch_stride[0] + i * q->a.row_stride;
      const float *b = B + e * q->b.batch_stride[0];
      float *c = C + e * q->c.batch_stride[0] + i * q->c.row_stride;
      if (q->k <= 8) {
        P = 1, p[0] = a[0] * b[0];
        for (l = 1; l < q->k; ++l)
          p[0] += a[l * q->a.col_stride] * b[l * q->b.row_stride];
      } else {
        for (u = 0; u < 16; ++u)
          p[u] = u < q->k ? a[u * q->a.col_stride] * b[u * q->b.row_stride] : 0.0f;
        for (l = 16; l < q->k; l += 16)
          for (u = 0; u < 16; ++u)
            p[u] = l + u < q->k
                       ? fmaf(a[(l + u) * q->a.col_stride], b[(l + u) * q->b.row_stride], p[u])
                       : fmaf(0.0f, 0.0f, p[u]);
      }
      if (P == 16) {
        float s4[4];
        for (u = 0; u < 4; ++u)
          s4[u] = (p[4 * u] + p[4 * u + 2]) + (p[4 * u + 1] + p[4 * u + 3]);
        p[0] = (s4[0] + s4[1]) + (s4[2] + s4[3]);
      }
      if (plain) {
        *c = p[0];
        continue;
      }
      r = q->bias ? *(const float *)q->bias : -0.0f;
      if (q->beta != 0.0) r = fmaf(be, *c, r);
      *c = fmaf(al, p[0], r);
    }
}

/* Products that cancel, so that a change in the order of a row's additions
   shows in C's bits: with values of one binade the sums of a few products of
   halves are exact in f32 in any order (or differ below C's rounding). In
   entry e, elements k1 = e % k and k2 = (3e + 1) % k of B's column are made
   y, y and of each row of A x, -x, with x and y 2^10 times the values there:
   the two products cancel exactly, and the row keeps the other products'
   low bits only where its order adds the pair before it adds either to them.
   (A shared B: entry 0's pair for every entry.) */
static void tprob_cancel(tprob *t, bmm_dtype dt) {
  const bmm_problem *p = &t->p;
  int64_t e, i;
  if (p->k < 2) return;
  for (e = 0; e < p->batch[0]; ++e) {
    const int64_t f = p->b.batch_stride[0] ? e : 0, k1 = f % p->k, k2 = (3 * f + 1) % p->k;
    const int64_t b1 = e * p->b.batch_stride[0] + k1 * p->b.row_stride - t->b.lo;
    const int64_t b2 = e * p->b.batch_stride[0] + k2 * p->b.row_stride - t->b.lo;
    const double y = ldexp(bmm_element_get(dt, t->b.init, b1), 10);
    if (k1 == k2) continue;
    bmm_element_set(dt, t->b.init, b1, y), bmm_element_set(dt, t->b.alloc, b1, y);
    bmm_element_set(dt, t->b.init, b2, y), bmm_element_set(dt, t->b.alloc, b2, y);
    for (i = 0; i < p->m; ++i) {
      const int64_t r = e * p->a.batch_stride[0] + i * p->a.row_stride - t->a.lo;
      const double x = ldexp(bmm_element_get(dt, t->a.init, r + k1 * p->a.col_stride), 10);
      bmm_element_set(dt, t->a.init, r + k1 * p->a.col_stride, x);
      bmm_element_set(dt, t->a.alloc, r + k1 * p->a.col_stride, x);
      bmm_element_set(dt, t->a.init, r + k2 * p->a.col_stride, -x);
      bmm_element_set(dt, t->a.alloc, r + k2 * p->a.col_stride, -x);
    }
  }
}

/* Every element of t's operand o (init and alloc alike) times 2^s */
static void tprob_scale(tbuf *o, bmm_dtype dt, int s) {
  int64_t i;
  for (i = 0; i < o->count; ++i) {
    const double x = ldexp(bmm_element_get(dt, o->init, i), s);
    bmm_element_set(dt, o->init, i, x), bmm_element_set(dt, o->alloc, i, x);
  }
}

/* f16 and bf16 read by cpu_small's dot kernels themselves (issue 23,
   bmm__cpu_fused, where the build has F16C / SSE2): m = 1..4 x 1 x k for
   k = 1..64 (the constant-k kernels and the run-time-k ones), every
   alpha/beta/bias mode, row-major and shared B, odd batches and pointers at
   odd element offsets (tprob's guards), products that cancel (tprob_cancel). Each result must be
   within the bound of the reference (tprob_verify) and have the bits of the f32 kernel run on the
   halves' f32 values, then rounded once (bf16 at every third k scaled so that C's f32 values are
   subnormal: the 16-rows path's vcvtneps2bf16 takes those as zero, they must round as the rest):
   the fused kernels keep the f32 kernel's order of additions
   and a product of two halves is exact in f32. Where explain says 16 rows of C to a vector
   (AVX-512), the bits are those of vrows_model instead, and every problem here must take that path.
   Explain must name the fused path where it is built, the conversion where
   not. */
static void test_half_fused(void) {
  static const bmm_dtype dts[] = {BMM_F16, BMM_BF16};
  static const int layouts[] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS};
  int d, m, k, l, idx = 0;
  long bad_bits = 0, not_fused = 0, checked = 0, vrows_calls = 0, subnormal = 0;
  char buf[1024];
  for (d = 0; d < 2; ++d)
    for (m = 1; m <= 4; ++m)
      for (k = 1; k <= 64; ++k)
        for (l = 0; l < 2; ++l) {
          const bmm_dtype dt = dts[d];
          const int fused_built = dt == BMM_F16 ? BMM__CPU_FUSED_f16 : BMM__CPU_FUSED_bf16;
          int bias, mode = (k + l + m) % 4, vrows;
          bmm_problem p = case_shape(dt, layouts[l], 29 + 2 * (k % 7), m, 1, k), q;
          tprob t;
          char label[64];
          float *fa, *fb, *fc, *fbias;
          int64_t i;
          apply_mode(&p, mode, layouts[l], &bias);
          snprintf(label, sizeof label, "fused %s #%d", bmm_dtype_name(dt), idx);
          tprob_make(&t, &p, bias, (uint64_t)idx + 47000, label);
          tprob_cancel(&t, dt);
          if (dt == BMM_BF16 && k % 3 == 1) { /* products near 2^-130, C and bias near 2^-128 */
            tprob_scale(&t.a, dt, -64), tprob_scale(&t.b, dt, -64);
            tprob_scale(&t.c, dt, -128), tprob_scale(&t.bias, dt, -128);
          }
          ++idx;
          if (!tprob_run(&t, BMM_CPU_SMALL, idx % 2)) {
            tprob_free(&t);
            continue;
          }
          /* the kernel that ran, and what explain says of it */
          q = t.p, q.strategy = BMM_CPU_SMALL;
          if (!CHECK(bmm_explain(&q, BMM_BACKEND_CPU, buf, sizeof buf) == BMM_OK &&
                         contains(buf, "kernel=small_dot_") &&
                         contains(buf, "read by the kernel") == fused_built &&
                         contains(buf, "as f32: chunks") == !fused_built,
                     "%s %dx1x%d: explain `%s` (fused path built: %d)", bmm_dtype_name(dt), m, k,
                     buf, fused_built))
            ++not_fused;
          vrows = contains(buf, "16 rows of C to a vector");
          CHECK(contains(buf, "by vcvtneps2bf16") ==
                    (vrows && dt == BMM_BF16 && BMM__CPU_AVX512BF16),
                "%s %dx1x%d: explain `%s` names bf16's store conversion", bmm_dtype_name(dt), m, k,
                buf);
          /* the f32 kernel on the f32 values (or, for vrows, its lane by lane
             model), rounded once: the same bits */
          {
            tbuf *ops[4];
            float *fs[4];
            int o;
            ops[0] = &t.a, ops[1] = &t.b, ops[2] = &t.c, ops[3] = &t.bias;
            for (o = 0; o < 4; ++o) {
              fs[o] = (float *)malloc(sizeof(float) * (size_t)(ops[o]->count + 1));
              if (!fs[o]) exit(2);
              for (i = 0; i < ops[o]->count; ++i)
                fs[o][i] = (float)bmm_element_get(dt, ops[o]->init, i);
            }
            fa = fs[0], fb = fs[1], fc = fs[2], fbias = fs[3];
            q.dtype = BMM_F32;
            q.a.ptr = fa - t.a.lo, q.b.ptr = fb - t.b.lo, q.c.ptr = fc - t.c.lo;
            q.bias = bias ? (const void *)(fbias - t.bias.lo) : NULL;
            if (vrows) {
              vrows_model(&q);
              ++vrows_calls;
            } else {
              CHECK(bmm_cpu(&q) == BMM_OK, "f32 twin of %s: %s", label, bmm_last_error());
            }
            for (i = 0; i < t.c.count; ++i) {
              double want = 0;
              bmm_element_set(dt, &want, 0, (double)fc[i]);
              if (t.mask[i]) {
                uint16_t w;
                memcpy(&w, &want, 2);
                ++checked;
                bad_bits += memcmp(t.c.alloc + (size_t)i * 2, &want, 2) != 0;
                subnormal += dt == BMM_BF16 && (w & 0x7f80) == 0 && (w & 0x7f) != 0;
              }
            }
            for (o = 0; o < 4; ++o)
              free(fs[o]);
          }
          tprob_free(&t);
        }
  CHECK(bad_bits == 0,
        "fused halves: %ld of %ld C elements differ in bits from the f32 kernel "
        "on their f32 values rounded once",
        bad_bits, checked);
  CHECK(not_fused == 0, "fused halves: %ld problems explained otherwise", not_fused);
  CHECK(subnormal > 1000, "fused halves: %ld bf16 results subnormal (the scaled cases)", subnormal);
  /* where built, every one of these problems runs 16 rows to a vector */
  CHECK(vrows_calls == (BMM__CPU_VROWS_f16 + BMM__CPU_VROWS_bf16) * 4 * 64 * 2,
        "fused halves: %ld problems ran 16 rows to a vector", vrows_calls);
  printf("     fused path: f16 %s, bf16 %s; 16 rows to a vector: f16 %s, bf16 %s; %ld C elements "
         "bit-compared (%ld bf16 subnormal)\n",
         BMM__CPU_FUSED_f16 ? "built" : "not built (converting driver)",
         BMM__CPU_FUSED_bf16 ? "built" : "not built (converting driver)",
         BMM__CPU_VROWS_f16 ? "built" : "not built", BMM__CPU_VROWS_bf16 ? "built" : "not built",
         checked, subnormal);
}

/* The public suite (bench/suite.csv), the benchmark's cases, run here over
   every strategy with the batch cut to about 2^21 multiply-adds per case
   (cases over 2^24 per entry are only listed as skipped). */
static void test_suite_cases(void) {
  static bmmx_case cases[256];
  char err[256];
  int n = bmmx_suite_load("bench/suite.csv", cases, 256, err, sizeof err), i, ran = 0;
  if (!CHECK(n > 0, "bench/suite.csv: %s", n < 0 ? err : "no cases")) return;
  for (i = 0; i < n; ++i) {
    bmmx_case c = cases[i];
    double per = (double)c.m * (double)c.n * (double)c.k;
    tprob t;
    bmm_problem p;
    char label[96];
    if (per > 16777216.0) {
      printf("     suite case %s %s (%lldx%lldx%lld) skipped: too big for the test run\n", c.name,
             bmm_dtype_name(c.dtype), (long long)c.m, (long long)c.n, (long long)c.k);
      continue;
    }
    if ((double)c.batch * per > 2097152.0) c.batch = (int64_t)(2097152.0 / (per > 1 ? per : 1));
    if (c.batch < 1) c.batch = 1;
    p = bmmx_problem(&c, NULL, NULL, NULL, NULL);
    snprintf(label, sizeof label, "suite %s %s batch cut to %lld", c.name, bmm_dtype_name(c.dtype),
             (long long)c.batch);
    tprob_make(&t, &p, c.layout == BMMX_SHARED_B_BIAS, (uint64_t)i, label);
    t.samples = 4;
    tprob_run_all(&t, (unsigned)i);
    tprob_free(&t);
    ++ran;
  }
  CHECK(ran > 0, "no suite case ran");
}

/* ---- batch dims ------------------------------------------------------------ */

static void test_batchdims_seed(void) {
  /* (1000,1000,3,K) @ (1000,1000,K,1): two batch dims, one merged dim */
  bmm_problem p = bmm_problem_rowmajor(BMM_F32, 1, 3, 1, 5, NULL, NULL, NULL);
  bmm_plan plan;
  tprob t;
  int i;
  p.batch_dims = 2, p.batch[0] = 1000, p.batch[1] = 1000;
  p.a.batch_stride[0] = 1000 * 15, p.a.batch_stride[1] = 15;
  p.b.batch_stride[0] = 1000 * 5, p.b.batch_stride[1] = 5;
  p.c.batch_stride[0] = 1000 * 3, p.c.batch_stride[1] = 3;
  tprob_make(&t, &p, 0, 1, "seed (1000,1000,3,5)@(1000,1000,5,1)");
  t.samples = 200;
  if (CHECK(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan) == BMM_OK, "%s", bmm_last_error())) {
    CHECK(plan.ndims == 1 && plan.dims[0] == 1000000 && plan.batch == 1000000,
          "seed: ndims %d dims[0] %lld, want 1 dim of 10^6", plan.ndims, (long long)plan.dims[0]);
    CHECK(plan.layout == BMM_LAYOUT_ROWMAJOR, "seed: layout %s, want rowmajor",
          bmm_layout_name(plan.layout));
  }
  tprob_run(&t, BMM_STRATEGY_AUTO, 0);
  for (i = 0; i < NCPU; ++i)
    if (bmm_strategy_supports(cpu_strategies[i].s, &plan))
      tprob_run(&t, cpu_strategies[i].s, i % 2);
  tprob_free(&t);
}

static void test_batchdims_xw_bias(void) {
  /* x (64,197,64) @ w (64,768) + b: B and bias shared by every batch entry */
  bmm_problem p = bmm_problem_rowmajor(BMM_F32, 64, 197, 768, 64, NULL, NULL, NULL);
  bmm_plan plan;
  tprob t;
  p.b.batch_stride[0] = 0;
  tprob_make(&t, &p, 1, 2, "x (64,197,64) @ w (64,768) + b");
  t.samples = 3;
  if (CHECK(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan) == BMM_OK, "%s", bmm_last_error()))
    CHECK(plan.layout == BMM_LAYOUT_SHARED_B && plan.ndims == 1 && plan.batch == 64,
          "x@w+b: layout %s ndims %d, want shared_b, 1", bmm_layout_name(plan.layout), plan.ndims);
  tprob_run(&t, BMM_STRATEGY_AUTO, 0);
  tprob_free(&t);
}

/* Packed strides of a C[d0][d1]..[m][n] array, innermost batch dim last. */
static void packed_batch(bmm_operand *o, int nd, const int64_t *dims, int64_t rows, int64_t cols) {
  int64_t s = rows * cols;
  int d;
  o->row_stride = cols, o->col_stride = 1;
  for (d = nd - 1; d >= 0; --d) {
    o->batch_stride[d] = s;
    s *= dims[d];
  }
}

static void test_batchdims_multi(void) {
  struct {
    const char *what;
    int nd;
    int64_t dims[4], amask[4], bmask[4]; /* 0: that operand broadcasts over the dim */
    int c_reversed;                      /* C's batch dims stored in reverse order */
    int want_ndims;
    bmm_layout want_layout;
  } cases[] = {
      {"3 dims packed merge to 1", 3, {2, 3, 4}, {1, 1, 1}, {1, 1, 1}, 0, 1, BMM_LAYOUT_ROWMAJOR},
      {"3 dims, A bcast dim 0, B bcast dim 1",
       3,
       {2, 3, 4},
       {0, 1, 1},
       {1, 0, 1},
       0,
       3,
       BMM_LAYOUT_GENERAL},
      {"3 dims, B bcast on all: shared_b",
       3,
       {2, 3, 4},
       {1, 1, 1},
       {0, 0, 0},
       0,
       1,
       BMM_LAYOUT_SHARED_B},
      {"4 dims with a size-1 dim, A bcast dim 3, B dim 0",
       4,
       {2, 1, 3, 2},
       {1, 1, 1, 0},
       {0, 1, 1, 1},
       0,
       3,
       BMM_LAYOUT_GENERAL},
      {"4 dims, A bcast dims 1,2; B dims 0,3 (1,2 merge)",
       4,
       {3, 2, 2, 3},
       {1, 0, 0, 1},
       {0, 1, 1, 0},
       0,
       3,
       BMM_LAYOUT_GENERAL},
      {"4 dims, A bcast dims 0,2; B dims 1,3",
       4,
       {3, 2, 2, 3},
       {0, 1, 0, 1},
       {1, 0, 1, 0},
       0,
       4,
       BMM_LAYOUT_GENERAL},
      {"3 dims, C batch order reversed",
       3,
       {2, 3, 4},
       {1, 1, 1},
       {1, 1, 1},
       1,
       3,
       BMM_LAYOUT_GENERAL},
      {"4 dims of size 1", 4, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, 0, 0, BMM_LAYOUT_ROWMAJOR},
      {"A and B bcast on inner dims only", 2, {5, 3}, {1, 0}, {1, 0}, 0, 2, BMM_LAYOUT_GENERAL},
  };
  static const int64_t sizes[][3] = {{3, 5, 4}, {1, 7, 2}, {16, 16, 16}, {5, 1, 9}};
  int c, s, i, dt;
  for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); ++c)
    for (s = 0; s < 4; ++s)
      for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt) {
        bmm_problem p;
        bmm_plan plan;
        tprob t;
        int64_t adims[4], bdims[4];
        int nd = cases[c].nd;
        memset(&p, 0, sizeof p);
        p.dtype = (bmm_dtype)dt, p.m = sizes[s][0], p.n = sizes[s][1], p.k = sizes[s][2];
        p.alpha = 1, p.beta = s == 1 ? 0.5 : 0;
        p.batch_dims = nd;
        for (i = 0; i < nd; ++i) {
          p.batch[i] = cases[c].dims[i];
          adims[i] = cases[c].amask[i] ? cases[c].dims[i] : 1;
          bdims[i] = cases[c].bmask[i] ? cases[c].dims[i] : 1;
        }
        packed_batch(&p.a, nd, adims, p.m, p.k);
        packed_batch(&p.b, nd, bdims, p.k, p.n);
        for (i = 0; i < nd; ++i) {
          if (!cases[c].amask[i]) p.a.batch_stride[i] = 0;
          if (!cases[c].bmask[i]) p.b.batch_stride[i] = 0;
        }
        packed_batch(&p.c, nd, p.batch, p.m, p.n);
        if (cases[c].c_reversed) {
          int64_t st = p.m * p.n;
          for (i = 0; i < nd; ++i) {
            p.c.batch_stride[i] = st;
            st *= p.batch[i];
          }
        }
        tprob_make(&t, &p, s == 2, (uint64_t)(c * 10 + s), cases[c].what);
        if (CHECK(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan) == BMM_OK, "%s: %s", cases[c].what,
                  bmm_last_error()))
          CHECK(plan.ndims == cases[c].want_ndims &&
                    (plan.layout == cases[c].want_layout || p.m == 1 || p.n == 1),
                "%s m=%lld n=%lld k=%lld: plan ndims %d layout %s, want %d %s", cases[c].what,
                (long long)p.m, (long long)p.n, (long long)p.k, plan.ndims,
                bmm_layout_name(plan.layout), cases[c].want_ndims,
                bmm_layout_name(cases[c].want_layout));
        tprob_run_all(&t, (unsigned)s);
        tprob_free(&t);
      }
}

/* Strided problems no bmmx layout covers: negative C strides, transposed C,
   batch reversed, gaps everywhere. */
static void test_random_strided(void) {
  int idx;
  uint64_t seed = 99;
  for (idx = 0; idx < 120; ++idx) {
    bmm_problem p;
    tprob t;
    int64_t m = grid[bmmx_rand(&seed) % 9], n = grid[bmmx_rand(&seed) % 9];
    int64_t k = grid[bmmx_rand(&seed) % 11], nb = 1 + (int64_t)(bmmx_rand(&seed) % 6);
    int tr_a = (int)(bmmx_rand(&seed) % 2), tr_b = (int)(bmmx_rand(&seed) % 2);
    int tr_c = (int)(bmmx_rand(&seed) % 2);
    int64_t gap = (int64_t)(bmmx_rand(&seed) % 3);
    memset(&p, 0, sizeof p);
    p.dtype = idx % 2 ? BMM_F64 : BMM_F32, p.m = m, p.n = n, p.k = k;
    p.batch_dims = 1, p.batch[0] = nb, p.alpha = 1, p.beta = idx % 3 == 0 ? -1 : 0;
    p.a.row_stride = tr_a ? 1 : k + gap, p.a.col_stride = tr_a ? m + gap : 1;
    p.b.row_stride = tr_b ? 1 : n + gap, p.b.col_stride = tr_b ? k + gap : 1;
    p.c.row_stride = tr_c ? 1 : n + gap, p.c.col_stride = tr_c ? m + gap : 1;
    p.a.batch_stride[0] = (m + gap) * (k + gap) + gap;
    p.b.batch_stride[0] = (k + gap) * (n + gap);
    p.c.batch_stride[0] = (m + gap) * (n + gap) + 1;
    if (idx % 4 == 1) p.c.row_stride = -p.c.row_stride;
    if (idx % 4 == 2) p.c.batch_stride[0] = -p.c.batch_stride[0];
    if (idx % 5 == 3) p.a.col_stride = -p.a.col_stride, p.b.row_stride = -p.b.row_stride;
    if (idx % 7 == 4) p.c.col_stride = -p.c.col_stride;
    tprob_make(&t, &p, idx % 2, (uint64_t)idx, "strided (negative / transposed / gaps)");
    tprob_run_all(&t, (unsigned)idx);
    tprob_free(&t);
  }
}

/* ---- the table ------------------------------------------------------------- */

/* Name of the first field where two rules differ, or NULL. */
static const char *rule_diff(const bmm_table_rule *x, const bmm_table_rule *y) {
#define D(f) \
  if (x->f != y->f) return #f
  D(dtypes);
  D(layouts);
  D(m_min);
  D(m_max);
  D(n_min);
  D(n_max);
  D(k_min);
  D(k_max);
  D(batch_min);
  D(batch_max);
  D(strategy);
  D(threads);
  D(batch_per_block);
  D(lanes);
  D(vec);
  D(tile);
  D(pad);
#undef D
  if (strcmp(x->note, y->note) != 0) return "note";
  return NULL;
}

static int rules_equal(const bmm_table_rule *x, int nx, const bmm_table_rule *y, int ny,
                       const char *ctx) {
  int i;
  if (!CHECK(nx == ny, "%s: %d rules vs %d", ctx, nx, ny)) return 0;
  for (i = 0; i < nx; ++i) {
    const char *f = rule_diff(&x[i], &y[i]);
    if (!CHECK(f == NULL, "%s: rule %d differs in %s", ctx, i, f)) return 0;
  }
  return 1;
}

static bmm_table_rule g_default[BMM_TABLE_MAX_RULES];
static int g_ndefault;
static char g_default_text[16384];

static void random_rule(bmm_table_rule *r, uint64_t *s) {
  static const char chars[] = "abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789.,;:=+-*/()[]#_'\"!?";
  int64_t *ranges[4][2];
  int i, len;
  memset(r, 0, sizeof *r);
  ranges[0][0] = &r->m_min, ranges[0][1] = &r->m_max, ranges[1][0] = &r->n_min;
  ranges[1][1] = &r->n_max, ranges[2][0] = &r->k_min, ranges[2][1] = &r->k_max;
  ranges[3][0] = &r->batch_min, ranges[3][1] = &r->batch_max;
  r->dtypes = (unsigned)(bmmx_rand(s) % (1u << BMM_DTYPE_COUNT)) & ~1u;
  r->layouts = (unsigned)(bmmx_rand(s) % (BMM_L_ALL + 1));
  for (i = 0; i < 4; ++i) {
    int64_t lo = 0, hi = 0;
    switch (bmmx_rand(s) % 6) {
    case 0: break;                                              /* * */
    case 1: lo = hi = 1 + (int64_t)(bmmx_rand(s) % 100); break; /* N */
    case 2: lo = (int64_t)(bmmx_rand(s) % 50); break;           /* A.. */
    case 3: lo = (int64_t)(bmmx_rand(s) % 50), hi = lo + 1 + (int64_t)(bmmx_rand(s) % 1000); break;
    case 4: lo = 0, hi = INT64_MAX; break;
    default: lo = hi = INT64_MAX; break;
    }
    *ranges[i][0] = lo, *ranges[i][1] = hi;
  }
  r->strategy = (bmm_strategy)(1 + bmmx_rand(s) % (BMM_STRATEGY_COUNT - 1));
  r->threads = bmmx_rand(s) % 3 ? 0 : (int)(bmmx_rand(s) % 1025);
  r->batch_per_block = bmmx_rand(s) % 3 ? 0 : (int)(bmmx_rand(s) % 100000);
  r->lanes = bmmx_rand(s) % 3 ? 0 : 1 << (bmmx_rand(s) % 6);
  r->vec = bmmx_rand(s) % 3 ? 0 : INT_MAX;
  r->tile = bmmx_rand(s) % 3 ? 0 : (int)(bmmx_rand(s) % 64);
  r->pad = bmmx_rand(s) % 3 ? 0 : 1;
  len = bmmx_rand(s) % 4 == 0 ? 0 : (int)(bmmx_rand(s) % BMM_NOTE_LEN);
  for (i = 0; i < len; ++i)
    r->note[i] = chars[bmmx_rand(s) % (sizeof chars - 1)];
  if (len > 0 && r->note[0] == ' ') r->note[0] = '<';
  if (len > 0 && r->note[len - 1] == ' ') r->note[len - 1] = '>';
  r->note[len] = 0;
}

static void test_table_roundtrip(void) {
  static bmm_table_rule rules[BMM_TABLE_MAX_RULES], back[BMM_TABLE_MAX_RULES];
  static char text[65536];
  uint64_t s = 2024;
  int iter, n, got;
  size_t len;
  /* the default table */
  len = bmm_table_format(g_default, g_ndefault, text, sizeof text);
  CHECK(len < sizeof text && strlen(text) == len, "format: returned %zu, wrote %zu", len,
        strlen(text));
  EXPECT(bmm_table_parse(text, back, BMM_TABLE_MAX_RULES, &got), BMM_OK, NULL,
         "parse(format(default))");
  rules_equal(g_default, g_ndefault, back, got, "default table round trip");
  /* random valid rules of both backends */
  for (iter = 0; iter < 300; ++iter) {
    char ctx[64];
    int i;
    n = iter == 0 ? 0 : 1 + (int)(bmmx_rand(&s) % BMM_TABLE_MAX_RULES);
    for (i = 0; i < n; ++i)
      random_rule(&rules[i], &s);
    len = bmm_table_format(rules, n, text, sizeof text);
    snprintf(ctx, sizeof ctx, "random table #%d (%d rules)", iter, n);
    if (!CHECK(len < sizeof text, "%s: text too long", ctx)) continue;
    got = -1;
    if (!EXPECT(bmm_table_parse(text, back, BMM_TABLE_MAX_RULES, &got), BMM_OK, NULL, ctx)) {
      printf("     text:\n%s\n", text);
      continue;
    }
    if (!rules_equal(rules, n, back, got, ctx)) printf("     text:\n%s\n", text);
  }
  /* snprintf-like: a short buffer gets a terminated prefix, the return is the full length */
  {
    char small[17];
    size_t full = bmm_table_format(g_default, g_ndefault, NULL, 0);
    memset(small, 'Z', sizeof small);
    len = bmm_table_format(g_default, g_ndefault, small, 12);
    CHECK(len == full && strlen(small) == 11 && small[12] == 'Z',
          "format into 12 bytes: returned %zu (full %zu), strlen %zu, byte 12 `%c`", len, full,
          strlen(small), small[12]);
    len = bmm_table_print(BMM_BACKEND_CPU, 0, small, 12);
    CHECK(len == full && strlen(small) == 11 && small[12] == 'Z',
          "print into 12 bytes: returned %zu (full %zu)", len, full);
  }
}

static void test_table_print_default(void) {
  static char text[65536];
  static bmm_table_rule back[BMM_TABLE_MAX_RULES];
  int got = -1, i;
  if (g_ndefault > 1) {
    got = 77;
    EXPECT(bmm_table_get(BMM_BACKEND_CPU, 0, back, g_ndefault - 1, &got), BMM_BAD_TABLE,
           "buffer holds", "table_get into a buffer one rule short");
    CHECK(got == 0, "table_get into a short buffer: *count = %d", got);
  }
  text[0] = 'x';
  CHECK(bmm_table_print(BMM_BACKEND_CUDA, 90, text, sizeof text) == 0 && text[0] == '#' &&
            contains(text, "NOT_COMPILED"),
        "CUDA table print on a CPU build: `%.80s`", text);
  size_t len = bmm_table_print(BMM_BACKEND_CPU, 0, text, sizeof text);
  CHECK(len > 0 && len == strlen(text), "print returned %zu for %zu chars", len, strlen(text));
  EXPECT(bmm_table_parse(text, back, BMM_TABLE_MAX_RULES, &got), BMM_OK, NULL, "parse(print)");
  rules_equal(g_default, g_ndefault, back, got, "print -> parse vs bmm_table_get");
  CHECK(g_ndefault >= 1, "default CPU table is empty");
  for (i = 0; i < g_ndefault; ++i)
    CHECK(bmm_strategy_backend(g_default[i].strategy) == BMM_BACKEND_CPU,
          "default CPU rule %d has strategy %s", i, bmm_strategy_name(g_default[i].strategy));
  for (i = 0; i < g_ndefault; ++i)
    CHECK(g_default[i].note[0] != 0, "default CPU rule %d has no provenance note", i);
  CHECK(bmm_set_table(BMM_BACKEND_CPU, g_default, g_ndefault) == BMM_OK,
        "the default table fails bmm_set_table's checks: %s", bmm_last_error());
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
}

static void test_table_malformed(void) {
  static const struct {
    const char *line, *has;
  } bad[] = {
      {"f8 * * * * * cpu_ref", "field 1"},
      {"f32,f65 * * * * * cpu_ref", "field 1"},
      {"f32, * * * * * cpu_ref", "field 1"},
      {"* rowmajr * * * * cpu_ref", "field 2"},
      {"* rowmajor,,general * * * * cpu_ref", "field 2"},
      {"* * 5..3 * * * cpu_ref", "field 3"},
      {"* * 0 * * * cpu_ref", "field 3"},
      {"* * 0..0 * * * cpu_ref", "field 3"},
      {"* * * -1 * * cpu_ref", "field 4"},
      {"* * * 1.2 * * cpu_ref", "field 4"},
      {"* * * * 3..x * cpu_ref", "field 5"},
      {"* * * * ..3 * cpu_ref", "field 5"},
      {"* * * * * 1...4 cpu_ref", "field 6"},
      {"* * * * * 99999999999999999999 cpu_ref", "field 6"},
      {"* * * * * * cpu_fast", "field 7"},
      {"* * * * * * CPU_REF", "field 7"},
      {"* * * * * * cpu_ref foo=1", "key=value"},
      {"* * * * * * cpu_ref threads=x", "key=value"},
      {"* * * * * * cpu_ref threads=-1", "key=value"},
      {"* * * * * * cpu_ref threads=", "key=value"},
      {"* * * * * * cpu_ref threads", "key=value"},
      {"* * * * * * cpu_ref threads=3000000000", "key=value"},
      {"* * * * * * cpu_ref =4", "key=value"},
      {"* * * * *", "after 5 fields"},
      {"*", "after 1 field"},
      {"* * * * * * # strategy missing", "after 6 fields"},
      {"* * * * * * cpu_ref # "
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxx",
       "note longer"},
  };
  static bmm_table_rule rules[8];
  char text[512], ctx[300];
  int i, n;
  for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); ++i) {
    snprintf(text, sizeof text, "# comment\n* * 1..4 * * * cpu_dot\n%s\n* * * * * * cpu_ref\n",
             bad[i].line);
    snprintf(ctx, sizeof ctx, "malformed line `%s`", bad[i].line);
    n = 77;
    if (EXPECT(bmm_table_parse(text, rules, 8, &n), BMM_TABLE_FILE, "line 3", ctx))
      CHECK(contains(bmm_last_error(), bad[i].has), "%s: message `%s` lacks `%s`", ctx,
            bmm_last_error(), bad[i].has);
    CHECK(n == 0, "%s: *count = %d after failure", ctx, n);
  }
  /* too many rules */
  n = 77;
  EXPECT(bmm_table_parse("* * * * * * cpu_ref\n* * * * * * cpu_ref\n\n* * * * * * cpu_ref\n", rules,
                         2, &n),
         BMM_TABLE_FILE, "line 4", "3 rules into max 2");
  CHECK(n == 0, "too many rules: *count = %d", n);
  /* what must parse: tabs, CRLF, comments, blank lines, lists, open ranges, a note
     with `#` inside and the longest note */
  {
    char note95[BMM_NOTE_LEN];
    memset(note95, 'n', BMM_NOTE_LEN - 1);
    note95[BMM_NOTE_LEN - 1] = 0;
    snprintf(text, sizeof text,
             "  # leading comment\r\n\r\n\t\n"
             "f64,f32\trowmajor,general 1.. 0..7 3 2..9 cpu_blocked tile=8 threads=2 pad=0  "
             "# a #note\r\n"
             "* * * * * * cpu_ref # %s\n"
             "f32 batch_inner * * * * cuda_warp lanes=8 vec=16 batch_per_block=4",
             note95);
    n = -1;
    if (EXPECT(bmm_table_parse(text, rules, 8, &n), BMM_OK, NULL, "valid variations") &&
        CHECK(n == 3, "valid variations: %d rules, want 3", n)) {
      CHECK(rules[0].dtypes == (BMM_DT(BMM_F32) | BMM_DT(BMM_F64)) &&
                rules[0].layouts == (BMM_L_ROWMAJOR | BMM_L_GENERAL) && rules[0].m_min == 1 &&
                rules[0].m_max == 0 && rules[0].n_min == 0 && rules[0].n_max == 7 &&
                rules[0].k_min == 3 && rules[0].k_max == 3 && rules[0].batch_min == 2 &&
                rules[0].batch_max == 9 && rules[0].strategy == BMM_CPU_BLOCKED &&
                rules[0].tile == 8 && rules[0].threads == 2 && rules[0].pad == 0 &&
                strcmp(rules[0].note, "a #note") == 0,
            "rule 0 parsed wrong (note `%s`)", rules[0].note);
      CHECK(strcmp(rules[1].note, note95) == 0 && rules[1].dtypes == 0 && rules[1].layouts == 0,
            "rule 1: the %d-char note did not survive", BMM_NOTE_LEN - 1);
      CHECK(rules[2].strategy == BMM_CUDA_WARP && rules[2].lanes == 8 && rules[2].vec == 16 &&
                rules[2].batch_per_block == 4 && rules[2].layouts == BMM_L_BATCH_INNER &&
                rules[2].note[0] == 0,
            "rule 2 (no newline at end, CUDA) parsed wrong");
    }
    n = -1;
    EXPECT(bmm_table_parse("# only comments\n\n", rules, 8, &n), BMM_OK, NULL, "no rules");
    CHECK(n == 0, "comments only: %d rules", n);
  }
}

static void table_text(char *buf, size_t len) { bmm_table_print(BMM_BACKEND_CPU, 0, buf, len); }

static void test_table_set_bad(void) {
  static bmm_table_rule t[BMM_TABLE_MAX_RULES + 1];
  static char before[16384], after[16384];
  bmm_table_rule catch_all, r;
  int i;
  char ctx[120];
  memset(&catch_all, 0, sizeof catch_all);
  catch_all.strategy = BMM_CPU_REF;
  table_text(before, sizeof before);
#define BAD_TABLE(what, rules, count, has)                                          \
  do {                                                                              \
    EXPECT(bmm_set_table(BMM_BACKEND_CPU, rules, count), BMM_BAD_TABLE, has, what); \
    table_text(after, sizeof after);                                                \
    CHECK(strcmp(before, after) == 0, "%s: the active table changed", what);        \
  } while (0)
  t[0] = catch_all;
  BAD_TABLE("count 0", t, 0, "0 rules");
  for (i = 0; i <= BMM_TABLE_MAX_RULES; ++i)
    t[i] = catch_all;
  BAD_TABLE("65 rules", t, BMM_TABLE_MAX_RULES + 1, "65 rules");
  t[0] = catch_all, t[0].m_max = 4;
  BAD_TABLE("no catch-all", t, 1, "last rule");
  t[0] = catch_all, t[1] = catch_all, t[1].dtypes = BMM_DT(BMM_F32);
  BAD_TABLE("last rule f32 only", t, 2, "last rule");
  t[0] = catch_all, t[0].layouts = BMM_L_ROWMAJOR;
  BAD_TABLE("last rule rowmajor only", t, 1, "last rule");
  t[0] = catch_all, t[0].batch_min = 1;
  BAD_TABLE("last rule batch 1..", t, 1, "last rule");
  t[0] = catch_all, t[0].strategy = BMM_CPU_SMALL;
  BAD_TABLE("catch-all with a limited strategy", t, 1, "last rule");
  t[0] = catch_all, t[0].strategy = BMM_CPU_BATCH_SIMD;
  BAD_TABLE("catch-all with batch_simd", t, 1, "last rule");
  for (i = 0; i < NCUDA; ++i) {
    t[0] = catch_all, t[0].m_max = 4, t[0].strategy = cuda_strategies[i], t[1] = catch_all;
    snprintf(ctx, sizeof ctx, "CUDA strategy %s in the CPU table",
             bmm_strategy_name(cuda_strategies[i]));
    BAD_TABLE(ctx, t, 2, "rule 0");
  }
  t[0] = catch_all, t[0].strategy = BMM_STRATEGY_AUTO;
  BAD_TABLE("strategy auto", t, 1, "rule 0");
  t[0] = catch_all, t[0].strategy = (bmm_strategy)999;
  BAD_TABLE("strategy 999", t, 1, "rule 0");
  t[0] = catch_all, t[1] = catch_all, t[0].m_min = 5, t[0].m_max = 3;
  BAD_TABLE("m max < min", t, 2, "rule 0");
  t[0] = catch_all, t[1] = catch_all, t[0].batch_min = 9, t[0].batch_max = 8;
  BAD_TABLE("batch max < min", t, 2, "rule 0");
  t[0] = catch_all, t[1] = catch_all, t[2] = catch_all, t[1].k_min = -1;
  BAD_TABLE("k_min -1", t, 3, "rule 1");
  t[0] = catch_all, t[1] = catch_all, t[0].n_max = -3;
  BAD_TABLE("n_max -3", t, 2, "rule 0");
  for (i = 0; i < BMM_TUNABLE_COUNT; ++i) { /* the message names the field */
    char field[48];
    r = catch_all;
    *bmm__tunable(&r, i) = -1;
    t[0] = r, t[1] = catch_all;
    snprintf(ctx, sizeof ctx, "negative tunable %s", bmm__tunable_names[i]);
    snprintf(field, sizeof field, "%s=-1 is negative", bmm__tunable_names[i]);
    BAD_TABLE(ctx, t, 2, field);
  }
  t[0] = catch_all, t[1] = catch_all, t[0].dtypes = 1u << 12;
  BAD_TABLE("unknown dtype bit", t, 2, "rule 0");
  t[0] = catch_all, t[1] = catch_all, t[0].layouts = 1u << 9;
  BAD_TABLE("unknown layout bit", t, 2, "rule 0");
  t[0] = catch_all, t[0].dtypes = BMM_DT(BMM_DTYPE_UNSET);
  BAD_TABLE("dtype bit 0 (unset)", t, 1, "rule 0");
#undef BAD_TABLE
  t[0] = catch_all;
  EXPECT(bmm_set_table(BMM_BACKEND_AUTO, t, 1), BMM_BAD_TABLE, "backend", "backend AUTO");
  EXPECT(bmm_set_table((bmm_backend)7, t, 1), BMM_BAD_TABLE, "backend", "backend 7");
  t[0].strategy = BMM_CUDA_LOOP;
  EXPECT(bmm_set_table(BMM_BACKEND_CUDA, t, 1), BMM_OK, NULL, "CUDA table set on a CPU build");
  table_text(after, sizeof after);
  CHECK(strcmp(before, after) == 0, "setting the CUDA table changed the CPU table");
  t[0].strategy = BMM_CPU_REF;
  EXPECT(bmm_set_table(BMM_BACKEND_CUDA, t, 1), BMM_BAD_TABLE, "rule 0", "CPU rule in CUDA table");
  /* CUDA tunables a launch cannot take as written: refused, not rounded (the
     edges that are valid beside each) */
  {
    static const struct {
      int threads, lanes, vec, tile, ok;
      const char *said;
    } tun[] = {{100, 0, 0, 0, 0, "threads=100"},
               {1056, 0, 0, 0, 0, "threads=1056"},
               {1024, 0, 0, 0, 1, NULL},
               {32, 0, 0, 0, 1, NULL},
               {0, 3, 0, 0, 0, "lanes=3"},
               {0, 64, 0, 0, 0, "lanes=64"},
               {0, 1, 0, 0, 0, "lanes=1"},
               {0, 2, 0, 0, 1, NULL},
               {0, 0, 12, 0, 0, "vec=12"},
               {0, 0, 32, 0, 0, "vec=32"},
               {0, 0, 1, 0, 1, NULL},
               {0, 0, 0, 48, 0, "tile=48"},
               {0, 0, 0, 64, 1, NULL}};
    char ctx[64];
    int i;
    for (i = 0; i < (int)(sizeof tun / sizeof tun[0]); ++i) {
      t[0] = catch_all, t[0].threads = tun[i].threads, t[0].lanes = tun[i].lanes;
      t[0].vec = tun[i].vec, t[0].tile = tun[i].tile;
      snprintf(ctx, sizeof ctx, "CPU rule, tunables #%d", i);
      EXPECT(bmm_set_table(BMM_BACKEND_CPU, t, 1), BMM_OK, NULL, ctx); /* not CUDA widths */
      t[0].strategy = BMM_CUDA_LOOP;
      snprintf(ctx, sizeof ctx, "CUDA rule, tunables #%d", i);
      EXPECT(bmm_set_table(BMM_BACKEND_CUDA, t, 1), tun[i].ok ? BMM_OK : BMM_BAD_TABLE, tun[i].said,
             ctx);
    }
    bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  }
  bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
}

/* A table whose every rule is reachable from the problems below. */
static int test_rules(bmm_table_rule *r) {
  memset(r, 0, 4 * sizeof *r);
  r[0].dtypes = BMM_DT(BMM_F64), r[0].layouts = BMM_L_ROWMAJOR, r[0].m_min = 1, r[0].m_max = 4;
  r[0].strategy = BMM_CPU_SMALL, r[0].threads = 1;
  snprintf(r[0].note, sizeof r[0].note, "r0 small f64");
  r[1].layouts = BMM_L_GENERAL, r[1].strategy = BMM_CPU_DOT, r[1].batch_per_block = 3;
  r[2].strategy = BMM_CPU_BATCH_SIMD, r[2].lanes = 4; /* claims batch_inner only */
  r[3].strategy = BMM_CPU_BLOCKED, r[3].tile = 8, r[3].threads = 2;
  snprintf(r[3].note, sizeof r[3].note, "catch-all");
  return 4;
}

/* a bmmx case, its strategy and explain text under the active table */
static int auto_choice(bmm_dtype dt, int layout, int64_t m, bmm_plan *plan, char *why, size_t len) {
  bmm_problem p = case_shape(dt, layout, 6, m, 4, 5);
  /* c128 padded m = 70 spans more than 4096 doubles */
  static double a[16384], b[16384], c[16384], bias[64];
  p.a.ptr = a, p.b.ptr = b, p.c.ptr = c;
  if (layout == BMMX_SHARED_B_BIAS) p.bias = bias;
  if (bmm_plan_problem(&p, BMM_BACKEND_CPU, plan) != BMM_OK) return 0;
  return bmm_explain(&p, BMM_BACKEND_CPU, why, len) == BMM_OK;
}

static void test_table_set_auto(void) {
  static const struct {
    bmm_dtype dt;
    int layout;
    int64_t m;
    int rule;
    const char *has[4];
  } probs[] = {
      {BMM_F64, BMMX_ROWMAJOR, 3, 0, {"-> cpu_small threads=1", "rule 0 of 4 matched", "r0 small"}},
      {BMM_F32,
       BMMX_ROWMAJOR,
       3,
       3,
       {"rule 0 (dtype out of range)", "rule 1 (layout out of range)",
        "rule 2 (cpu_batch_simd does not handle rowmajor", "-> cpu_blocked threads=2 tile=8"}},
      {BMM_F64, BMMX_ROWMAJOR, 5, 3, {"rule 0 (m out of range)", "rule 3 of 4 matched"}},
      {BMM_F64, BMMX_COLMAJOR, 3, 1, {"rule 0 (layout out of range)", "-> cpu_dot"}},
      {BMM_F32, BMMX_BATCH_INNER, 2, 2, {"-> cpu_batch_simd lanes=4", "rule 2 of 4"}},
      {BMM_F64, BMMX_SHARED_B_BIAS, 2, 3, {"rule 0 (layout out of range)", "layout=shared_b"}},
  };
  bmm_table_rule rules[4], got[BMM_TABLE_MAX_RULES];
  bmm_plan plan, before[6];
  char why[1024], ctx[200];
  int i, j, n = test_rules(rules), ngot;
  for (i = 0; i < 6; ++i)
    CHECK(auto_choice(probs[i].dt, probs[i].layout, probs[i].m, &before[i], why, sizeof why),
          "plan under the default table failed: %s", bmm_last_error());
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, rules, n), BMM_OK, NULL, "set a valid table");
  rules[0].strategy = BMM_CPU_REF; /* the table is a copy */
  EXPECT(bmm_table_get(BMM_BACKEND_CPU, 0, got, BMM_TABLE_MAX_RULES, &ngot), BMM_OK, NULL, "get");
  test_rules(rules);
  rules_equal(rules, n, got, ngot, "bmm_table_get after bmm_set_table");
  for (i = 0; i < 6; ++i) {
    snprintf(ctx, sizeof ctx, "%s %s m=%lld under the test table", bmm_dtype_name(probs[i].dt),
             bmmx_layout_name(probs[i].layout), (long long)probs[i].m);
    if (!CHECK(auto_choice(probs[i].dt, probs[i].layout, probs[i].m, &plan, why, sizeof why),
               "%s: %s", ctx, bmm_last_error()))
      continue;
    CHECK(plan.rule_index == probs[i].rule && plan.strategy == rules[probs[i].rule].strategy,
          "%s: rule %d (%s), want rule %d", ctx, plan.rule_index, bmm_strategy_name(plan.strategy),
          probs[i].rule);
    CHECK(rule_diff(&plan.rule, &rules[probs[i].rule]) == NULL, "%s: plan.rule differs in %s", ctx,
          rule_diff(&plan.rule, &rules[probs[i].rule]));
    for (j = 0; j < 4 && probs[i].has[j]; ++j)
      CHECK(contains(why, probs[i].has[j]), "%s: explain `%s` lacks `%s`", ctx, why,
            probs[i].has[j]);
    CHECK(probs[i].rule > 0 || !contains(why, "skipped"), "%s: `%s` skips rules before 0", ctx,
          why);
  }
  /* AUTO runs the new rule's strategy and computes right */
  for (i = 0; i < 6; ++i) {
    tprob t;
    bmm_problem p = case_shape(probs[i].dt, probs[i].layout, 6, probs[i].m, 4, 5);
    tprob_make(&t, &p, probs[i].layout == BMMX_SHARED_B_BIAS, (uint64_t)i, "AUTO on test table");
    tprob_run(&t, BMM_STRATEGY_AUTO, 0);
    tprob_free(&t);
  }
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, NULL, 0), BMM_OK, NULL, "reset");
  EXPECT(bmm_table_get(BMM_BACKEND_CPU, 0, got, BMM_TABLE_MAX_RULES, &ngot), BMM_OK, NULL, "get");
  rules_equal(g_default, g_ndefault, got, ngot, "table after bmm_set_table(NULL)");
  for (i = 0; i < 6; ++i)
    if (auto_choice(probs[i].dt, probs[i].layout, probs[i].m, &plan, why, sizeof why))
      CHECK(plan.strategy == before[i].strategy && plan.rule_index == before[i].rule_index,
            "after reset: problem %d gets %s rule %d, before %s rule %d", i,
            bmm_strategy_name(plan.strategy), plan.rule_index,
            bmm_strategy_name(before[i].strategy), before[i].rule_index);
}

static void data_path(char *buf, size_t len, const char *file) {
  snprintf(buf, len, "%s/%s", g_data, file);
}

/* The CPU rules of a table file, parsed here (not through the library). */
static int file_cpu_rules(const char *path, bmm_table_rule *out) {
  static char text[65536];
  static bmm_table_rule all[2 * BMM_TABLE_MAX_RULES];
  FILE *f = fopen(path, "rb");
  size_t n;
  int i, cnt = 0, nout = 0;
  if (!f) return -1;
  n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  if (bmm_table_parse(text, all, 2 * BMM_TABLE_MAX_RULES, &cnt) != BMM_OK) return -1;
  for (i = 0; i < cnt; ++i)
    if (bmm_strategy_backend(all[i].strategy) == BMM_BACKEND_CPU) out[nout++] = all[i];
  return nout;
}

static void test_table_file(void) {
  static bmm_table_rule want[BMM_TABLE_MAX_RULES], got[BMM_TABLE_MAX_RULES];
  static char before[16384], after[16384];
  char path[512];
  int nwant, ngot;
  bmm_plan plan;
  char why[512];
  data_path(path, sizeof path, "good.txt");
  nwant = file_cpu_rules(path, want);
  if (!CHECK(nwant > 0, "cannot read %s (run from the repository root)", path)) return;
  EXPECT(bmm_load_table_file(path), BMM_OK, NULL, "load good.txt");
  EXPECT(bmm_table_get(BMM_BACKEND_CPU, 0, got, BMM_TABLE_MAX_RULES, &ngot), BMM_OK, NULL, "get");
  rules_equal(want, nwant, got, ngot, "table after loading good.txt");
  if (CHECK(auto_choice(BMM_F64, BMMX_ROWMAJOR, 3, &plan, why, sizeof why), "%s", bmm_last_error()))
    CHECK(plan.strategy == BMM_CPU_SMALL && plan.rule_index == 0,
          "good.txt: f64 rowmajor m=3 gets %s rule %d, want cpu_small rule 0",
          bmm_strategy_name(plan.strategy), plan.rule_index);
  table_text(before, sizeof before);
  {
    static const struct {
      const char *file, *has[3];
    } bad[] = {
        {"bad_line.txt", {"bad_line.txt", "line 4", "field 3"}},
        {"bad_key.txt", {"bad_key.txt", "line 3", "key=value"}},
        {"no_catchall.txt", {"no_catchall.txt", "last rule", NULL}},
        {"cuda_no_catchall.txt", {"cuda_no_catchall.txt", "cuda", "last rule"}},
        {"comments_only.txt", {"comments_only.txt", "no rules", NULL}},
        {"does_not_exist.txt", {"does_not_exist.txt", "cannot open", NULL}},
    };
    int i, j;
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); ++i) {
      data_path(path, sizeof path, bad[i].file);
      if (EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, bad[i].has[0], bad[i].file))
        for (j = 1; j < 3 && bad[i].has[j]; ++j)
          CHECK(contains(bmm_last_error(), bad[i].has[j]), "%s: message `%s` lacks `%s`",
                bad[i].file, bmm_last_error(), bad[i].has[j]);
      table_text(after, sizeof after);
      CHECK(strcmp(before, after) == 0, "%s: rejected file changed the active table", bad[i].file);
    }
  }
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, NULL, 0), BMM_OK, NULL, "reset");
  bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
  EXPECT(bmm_table_get(BMM_BACKEND_CPU, 0, got, BMM_TABLE_MAX_RULES, &ngot), BMM_OK, NULL, "get");
  rules_equal(g_default, g_ndefault, got, ngot, "table after reset");
}

/* ---- BMM_TABLE_FILE, in a child process (the variable is read once) ------ */

static int run_child(const char *mode, const char *table_file) {
  pid_t pid;
  int status = 0;
  fflush(stdout), fflush(stderr);
  pid = fork();
  if (pid == 0) {
    if (table_file)
      setenv("BMM_TABLE_FILE", table_file, 1);
    else
      unsetenv("BMM_TABLE_FILE");
    execl(g_self, g_self, "--child", mode, table_file ? table_file : "", (char *)NULL);
    _exit(127);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

static void child_env_good(const char *file) {
  static bmm_table_rule want[BMM_TABLE_MAX_RULES], got[BMM_TABLE_MAX_RULES], ref[1];
  int nwant = file_cpu_rules(file, want), ngot, pass;
  bmm_plan plan;
  char why[512];
  for (pass = 0; pass < 2; ++pass) { /* before and after bmm_set_table(NULL) */
    EXPECT(bmm_table_get(BMM_BACKEND_CPU, 0, got, BMM_TABLE_MAX_RULES, &ngot), BMM_OK, NULL,
           "table_get under BMM_TABLE_FILE");
    rules_equal(want, nwant, got, ngot, "active table vs BMM_TABLE_FILE");
    if (CHECK(auto_choice(BMM_F64, BMMX_ROWMAJOR, 3, &plan, why, sizeof why), "%s",
              bmm_last_error()))
      CHECK(plan.strategy == BMM_CPU_SMALL && plan.rule_index == 0 && contains(why, "rule 0"),
            "env table: f64 rowmajor m=3 gets %s rule %d (%s)", bmm_strategy_name(plan.strategy),
            plan.rule_index, why);
    {
      tprob t;
      bmm_problem p = case_shape(BMM_F64, BMMX_ROWMAJOR, 6, 3, 4, 5);
      tprob_make(&t, &p, 0, 3, "AUTO under BMM_TABLE_FILE");
      tprob_run(&t, BMM_STRATEGY_AUTO, 0);
      tprob_free(&t);
    }
    memset(ref, 0, sizeof ref);
    ref[0].strategy = BMM_CPU_REF;
    if (pass == 0) {
      EXPECT(bmm_set_table(BMM_BACKEND_CPU, ref, 1), BMM_OK, NULL, "set over env table");
      if (auto_choice(BMM_F64, BMMX_ROWMAJOR, 3, &plan, why, sizeof why))
        CHECK(plan.strategy == BMM_CPU_REF, "bmm_set_table does not override BMM_TABLE_FILE");
      EXPECT(bmm_set_table(BMM_BACKEND_CPU, NULL, 0), BMM_OK, NULL, "reset to env table");
    }
  }
}

static void child_env_bad(const char *file, const char *has) {
  bmm_table_rule ref[1], got[BMM_TABLE_MAX_RULES];
  bmm_plan plan;
  char why[512];
  int n, i;
  tprob t;
  bmm_problem p = case_shape(BMM_F32, BMMX_ROWMAJOR, 6, 3, 4, 5);
  tprob_make(&t, &p, 0, 4, "calls under a bad BMM_TABLE_FILE");
  for (i = 0; i < 2; ++i) { /* the error is sticky, not a first-call accident */
    EXPECT(bmm_cpu(&t.p), BMM_TABLE_FILE, "BMM_TABLE_FILE", "bmm_cpu under a bad table file");
    CHECK(contains(bmm_last_error(), file) && contains(bmm_last_error(), has),
          "message `%s` does not name `%s` and `%s`", bmm_last_error(), file, has);
    CHECK(tbuf_same(&t.c), "bmm_cpu wrote C under a bad table file");
  }
  EXPECT(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan), BMM_TABLE_FILE, file, "plan");
  EXPECT(bmm_explain(&t.p, BMM_BACKEND_CPU, why, sizeof why), BMM_TABLE_FILE, file, "explain");
  EXPECT(bmm_table_get(BMM_BACKEND_CPU, 0, got, BMM_TABLE_MAX_RULES, &n), BMM_TABLE_FILE, file,
         "table_get");
  /* a forced strategy needs no table */
  tprob_run(&t, BMM_CPU_REF, 0);
  memset(ref, 0, sizeof ref);
  ref[0].strategy = BMM_CPU_REF;
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, ref, 1), BMM_OK, NULL, "set over a bad env table");
  tprob_run(&t, BMM_STRATEGY_AUTO, 0);
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, NULL, 0), BMM_OK, NULL, "reset");
  EXPECT(bmm_cpu(&t.p), BMM_TABLE_FILE, file, "after reset the bad file applies again");
  tprob_free(&t);
}

static int child_main(const char *mode, const char *file) {
  bmmx_runner.test = mode;
  if (strcmp(mode, "env-good") == 0)
    child_env_good(file);
  else if (strcmp(mode, "env-bad") == 0)
    child_env_bad(file, "line 4");
  else if (strcmp(mode, "env-missing") == 0)
    child_env_bad(file, "cannot open");
  else
    CHECK(0, "unknown child mode %s", mode);
  printf("child %s: ", mode);
  return bmmx_summary();
}

static void test_table_env(void) {
  char path[512];
  int rc;
  data_path(path, sizeof path, "good.txt");
  rc = run_child("env-good", path);
  CHECK(rc == 0, "child with BMM_TABLE_FILE=%s exited %d (its failures are above)", path, rc);
  data_path(path, sizeof path, "bad_line.txt");
  rc = run_child("env-bad", path);
  CHECK(rc == 0, "child with BMM_TABLE_FILE=%s exited %d", path, rc);
  data_path(path, sizeof path, "does_not_exist.txt");
  rc = run_child("env-missing", path);
  CHECK(rc == 0, "child with BMM_TABLE_FILE=%s exited %d", path, rc);
}

/* ---- explain ----------------------------------------------------------------- */

static void test_explain(void) {
  int l, dt, i;
  char why[2048], ctx[160], want[64];
  bmm_plan plan;
  /* under the default table: names the strategy, the rule and every skipped rule */
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (i = 0; i < 3; ++i) {
        int64_t m = i == 0 ? 1 : i == 1 ? 8 : 70;
        snprintf(ctx, sizeof ctx, "explain %s %s m=%lld", bmm_dtype_name((bmm_dtype)dt),
                 bmmx_layout_name(l), (long long)m);
        if (!CHECK(auto_choice((bmm_dtype)dt, l, m, &plan, why, sizeof why), "%s: %s", ctx,
                   bmm_last_error()))
          continue;
        snprintf(want, sizeof want, "-> %s", bmm_strategy_name(plan.strategy));
        CHECK(contains(why, want), "%s: `%s` lacks `%s`", ctx, why, want);
        snprintf(want, sizeof want, "rule %d of %d matched", plan.rule_index, g_ndefault);
        CHECK(plan.rule_index >= 0 && contains(why, want), "%s: `%s` lacks `%s`", ctx, why, want);
        CHECK(contains(why, bmm_layout_name(plan.layout)), "%s: `%s` lacks the layout", ctx, why);
        {
          int r;
          for (r = 0; r < plan.rule_index; ++r) {
            snprintf(want, sizeof want, " rule %d (", r);
            CHECK(contains(why, want), "%s: `%s` does not say why rule %d was skipped", ctx, why,
                  r);
          }
        }
      }
  /* forced */
  for (i = 0; i < NCPU; ++i) {
    bmm_problem p = err_base();
    p.strategy = cpu_strategies[i].s;
    snprintf(ctx, sizeof ctx, "explain forced %s", cpu_strategies[i].name);
    if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) != BMM_OK) continue; /* does not claim it */
    EXPECT(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why), BMM_OK, NULL, ctx);
    CHECK(contains(why, "forced") && contains(why, cpu_strategies[i].name) && plan.rule_index == -1,
          "%s: `%s` (rule_index %d)", ctx, why, plan.rule_index);
  }
  /* explain says where C is streamed (non-temporal stores): alpha != 0,
     beta = 0, k <= 256, not cpu_ref, a call that moves BMM_CPU_STREAM_BYTES or
     more; x86-64 only. Explain reads no operand, so the 41 MB problem is left
     unallocated. */
  {
    const int64_t batches[2] = {1000, 100000};
    void *a = malloc((size_t)100000 * 75 * 4), *b = malloc((size_t)100000 * 25 * 4);
    void *c = malloc((size_t)100000 * 3 * 4);
    int bi, beta, ref, alpha0;
    for (bi = 0; bi < 2 && a && b && c; ++bi)
      for (beta = 0; beta < 2; ++beta)
        for (ref = 0; ref < 2; ++ref)
          for (alpha0 = 0; alpha0 < 2; ++alpha0) {
            bmm_problem p = bmm_problem_rowmajor(BMM_F32, batches[bi], 3, 1, 25, a, b, c);
            const double bytes = (double)batches[bi] * (75 + 25 + 3) * 4;
            const int want_stream = BMM__CPU_NT && !alpha0 && !beta && !ref && STREAM_BYTES >= 0 &&
                                    bytes >= (double)STREAM_BYTES;
            p.beta = beta, p.strategy = ref ? BMM_CPU_REF : BMM_STRATEGY_AUTO;
            p.alpha = alpha0 ? 0.0 : 1.0;
            snprintf(ctx, sizeof ctx, "explain streaming batch=%lld alpha=%d beta=%d %s",
                     (long long)batches[bi], !alpha0, beta, ref ? "cpu_ref" : "auto");
            EXPECT(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why), BMM_OK, NULL, ctx);
            CHECK(contains(why, "C streamed") == want_stream, "%s: `%s` (want streamed: %d)", ctx,
                  why, want_stream);
          }
    free(a), free(b), free(c);
  }
  /* ... and only where every row of C that holds a 16-byte vector starts on
     16 bytes: n x n x n squares, n = 2..11, f32 and f64, C at its pointer
     (malloc: 16-byte aligned) and one element past it */
  {
    void *a = malloc((size_t)400000 * 121 * 8), *b = malloc((size_t)400000 * 121 * 8);
    void *c = malloc((size_t)400000 * 121 * 8 + 8);
    int n, d, off;
    for (n = 2; n <= 11 && a && b && c; ++n)
      for (d = 0; d < 2; ++d)
        for (off = 0; off < 2; ++off) {
          const bmm_dtype dt = d ? BMM_F64 : BMM_F32;
          const int64_t es = d ? 8 : 4, rb = n * es;
          bmm_problem p =
              bmm_problem_rowmajor(dt, 400000, n, n, n, a, b, (char *)c + off * (size_t)es);
          const double bytes = 400000.0 * 3 * n * n * (double)es;
          const int big = BMM__CPU_NT && STREAM_BYTES >= 0 && bytes >= (double)STREAM_BYTES;
          const int rows_ok = rb < 16 || (rb % 16 == 0 && (off * es) % 16 == 0);
          snprintf(ctx, sizeof ctx, "explain streaming %s %dx%dx%d C+%d", bmm_dtype_name(dt), n, n,
                   n, off);
          EXPECT(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why), BMM_OK, NULL, ctx);
          CHECK(contains(why, "C streamed") == (big && rows_ok) &&
                    contains(why, "C not streamed: its rows") == (big && !rows_ok),
                "%s: `%s` (want streamed: %d, refused for its rows: %d)", ctx, why, big && rows_ok,
                big && !rows_ok);
        }
    free(a), free(b), free(c);
  }
  /* a short buffer is cut and terminated */
  {
    char small[20];
    bmm_problem p = err_base();
    memset(small, 'Z', sizeof small);
    EXPECT(bmm_explain(&p, BMM_BACKEND_CPU, small, 10), BMM_OK, NULL, "explain into 10 bytes");
    CHECK(strlen(small) == 9 && small[10] == 'Z', "explain into 10 bytes wrote past the end");
  }
}

/* ---- explain names the kernel that runs ------------------------------------- */

/* the kernel name explain gives (after "kernel=") into out */
static int explained_kernel(const bmm_problem *p, char *out, size_t len) {
  char why[1024];
  const char *k;
  size_t n = 0;
  if (bmm_explain(p, BMM_BACKEND_CPU, why, sizeof why) != BMM_OK) return 0;
  k = strstr(why, "; kernel="); /* the backend's decision, not a rule's kernel= pin */
  if (!k) return 0;
  k += 9;
  while (k[n] && k[n] != ' ' && n + 1 < len)
    out[n] = k[n], ++n;
  out[n] = 0;
  return 1;
}

/* Every CPU strategy (forced, and AUTO) over dtypes, layouts and shapes that
   reach the fixed-size, short-column, blocked and batch-across kernels:
   bmm_explain's kernel= is the kernel bmm_cpu ran (bmm__cpu_last_kernel), and
   the seed's 3x1x25 and 3x1x5 name different kernels. */
static void test_explain_kernel(void) {
  static const int64_t shapes[][4] = {
      {3, 1, 25, 40}, {3, 1, 5, 40},   {3, 1, 7, 9},  {2, 1, 33, 9},    {4, 4, 4, 9}, {4, 4, 9, 9},
      {8, 8, 8, 5},   {16, 16, 16, 2}, {5, 12, 3, 4}, {40, 33, 300, 1}, {1, 1, 1, 3}, {3, 3, 0, 2}};
  static char seen[BMM__CPU_KERNEL_COUNT];
  int dt, li, si, s, distinct = 0, i;
  char name[64], ctx[256];
  for (dt = 1; dt < BMM_DTYPE_COUNT; ++dt)
    for (li = 0; li < BMMX_LAYOUT_COUNT; ++li)
      for (si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); ++si)
        for (s = -1; s < NCPU; ++s) {
          bmmx_case c;
          bmmx_sizes_t z;
          bmm_problem p;
          size_t es = bmm_dtype_size((bmm_dtype)dt);
          void *a, *b, *cc, *bias;
          uint64_t seed = 7;
          memset(&c, 0, sizeof c);
          c.dtype = (bmm_dtype)dt, c.layout = li, c.m = shapes[si][0], c.n = shapes[si][1];
          c.k = shapes[si][2], c.batch = shapes[si][3];
          z = bmmx_sizes(&c);
          a = malloc(es * (size_t)(z.a + 1)), b = malloc(es * (size_t)(z.b + 1));
          cc = malloc(es * (size_t)(z.c + 1)), bias = malloc(es * (size_t)(c.n + 1));
          bmmx_fill(c.dtype, a, z.a, &seed), bmmx_fill(c.dtype, b, z.b, &seed);
          bmmx_fill(c.dtype, cc, z.c, &seed), bmmx_fill(c.dtype, bias, c.n, &seed);
          p = bmmx_problem(&c, a, b, cc, bias);
          p.strategy = s < 0 ? BMM_STRATEGY_AUTO : cpu_strategies[s].s;
          snprintf(ctx, sizeof ctx, "%s %s %lldx%lldx%lld batch %lld strategy %s",
                   bmm_dtype_name(c.dtype), bmmx_layout_name(li), (long long)c.m, (long long)c.n,
                   (long long)c.k, (long long)c.batch, bmm_strategy_name(p.strategy));
          if (explained_kernel(&p, name, sizeof name)) {
            bmm__cpu_last_kernel = -1;
            CHECK(bmm_cpu(&p) == BMM_OK, "%s: explain worked, bmm_cpu failed: %s", ctx,
                  bmm_last_error());
            CHECK(bmm__cpu_last_kernel >= 0 &&
                      strcmp(name, bmm__cpu_kernel_names[bmm__cpu_last_kernel]) == 0,
                  "%s: explain says kernel=%s, ran %s", ctx, name,
                  bmm__cpu_last_kernel >= 0 ? bmm__cpu_kernel_names[bmm__cpu_last_kernel]
                                            : "nothing");
            if (bmm__cpu_last_kernel >= 0) seen[bmm__cpu_last_kernel] = 1;
          } else {
            CHECK(bmm_cpu(&p) != BMM_OK, "%s: explain failed, bmm_cpu worked", ctx);
          }
          if (s < 0 && li == BMMX_ROWMAJOR && c.n == 1 && c.m == 3 && c.batch == 40 &&
              !bmm_dtype_is_complex(c.dtype)) {
            const char *want = c.k == 25 ? "small_dot_3x1_k25" : "small_dot_3x1_k5";
            CHECK(strcmp(name, want) == 0, "%s: seed shape names kernel %s, want %s", ctx, name,
                  want);
          }
          free(a), free(b), free(cc), free(bias);
        }
  for (i = 0; i < BMM__CPU_KERNEL_COUNT; ++i)
    distinct += seen[i];
  /* the short-column kernels exist only with vector extensions */
  CHECK(distinct >= (BMM__CPU_VEXT ? 20 : 12), "only %d distinct kernels reached", distinct);
}

/* cpu_small's run-time tile (small_tile): every m = 1..16 by n = 1..16 with
   no fixed-size kernel, k from 1 to 19 (to 59 at n = 1), batch 9, each
   alpha/beta/bias mode in turn, row-major and shared B with a bias. AUTO and
   cpu_small against the reference (guards around C, pointers at varying
   alignment); explain names small_tile and small_tile ran (n = 1 only with
   vector extensions). The halves reach it through the converting driver.
   Then cpu_dot's use of it, below. */
static void test_small_tile(void) {
  static const int layouts[] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS};
  static const bmm_dtype dts[] = {BMM_F32, BMM_F64, BMM_F16, BMM_BF16};
  int64_t m, n;
  int l, dt, idx = 0, tiles = 0;
  char name[64];
  for (dt = 0; dt < (int)(sizeof dts / sizeof dts[0]); ++dt)
    for (m = 1; m <= 16; ++m)
      for (n = 1; n <= 16; ++n)
        for (l = 0; l < (int)(sizeof layouts / sizeof layouts[0]); ++l) {
          const int64_t k = 1 + (m * 7 + n * 3 + l) % 19 + (n == 1 ? 20 * l : 0);
          const int half = bmm_dtype_size(dts[dt]) == 2;
          int bias;
          bmm_problem p;
          tprob t;
          char label[96];
          if (bmm__cpu_find_shape(
                  bmm__cpu_small_shapes,
                  (int)(sizeof bmm__cpu_small_shapes / sizeof bmm__cpu_small_shapes[0]), m, n,
                  k) >= 0 ||
              (half && (m + n) % 3)) /* a third of the shapes for the halves */
            continue;
          p = case_shape(dts[dt], layouts[l], 9, m, n, k);
          apply_mode(&p, idx, layouts[l], &bias);
          snprintf(label, sizeof label, "small tile #%d %s", idx, bmmx_layout_name(layouts[l]));
          tprob_make(&t, &p, bias, (uint64_t)idx + 23000, label);
          tprob_run(&t, BMM_STRATEGY_AUTO, 0);
          tprob_run(&t, BMM_CPU_SMALL, idx % 2);
          /* the kernel of the f32 chunks where the dtype converts */
          if (n > 1 || BMM__CPU_VEXT) {
            t.p.strategy = BMM_CPU_SMALL;
            bmm__cpu_last_kernel = -1;
            CHECK(explained_kernel(&t.p, name, sizeof name) && strcmp(name, "small_tile") == 0,
                  "%s %s %lldx%lldx%lld: explain names kernel %s, want small_tile", label,
                  bmm_dtype_name(dts[dt]), (long long)m, (long long)n, (long long)k, name);
            CHECK(bmm_cpu(&t.p) == BMM_OK && bmm__cpu_last_kernel == BMM__CPU_K_small_tile,
                  "%s %s %lldx%lldx%lld: small_tile did not run", label, bmm_dtype_name(dts[dt]),
                  (long long)m, (long long)n, (long long)k);
            tiles++;
          }
          tprob_free(&t);
          idx++;
        }
  CHECK(tiles >= 600, "only %d shapes reached small_tile", tiles);
  /* cpu_dot, every layout: where B and C rows are contiguous, n = 2..16 and
     k <= 256 (A not m = 2..4 short columns), explain names small_tile and it
     runs; AUTO and cpu_dot right against the reference either way */
  tiles = 0;
  for (dt = 0; dt < 2; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (m = 1; m <= 40; m += 13)
        for (n = 1; n <= 17; n += 4) {
          static const int64_t ks[] = {1, 9, 256, 257};
          const int64_t k = ks[(m + n + l) % 4];
          int bias;
          bmm_problem p = case_shape(dts[dt], l, 4, m, n, k);
          bmm_plan pl;
          tprob t;
          char label[96];
          int want;
          apply_mode(&p, idx, l, &bias);
          snprintf(label, sizeof label, "small tile #%d %s", idx, bmmx_layout_name(l));
          tprob_make(&t, &p, bias, (uint64_t)idx + 23000, label);
          tprob_run(&t, BMM_STRATEGY_AUTO, 0);
          tprob_run(&t, BMM_CPU_DOT, idx % 2);
          t.p.strategy = BMM_CPU_DOT;
          if (bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &pl) == BMM_OK &&
              explained_kernel(&t.p, name, sizeof name)) {
            want = n == 1 ? BMM__CPU_VEXT && pl.a.col_stride == 1 && pl.b.row_stride == 1
                          : n <= 16 && k <= 256 && pl.b.col_stride == 1 && pl.c.col_stride == 1;
            want = want && !(pl.a.row_stride == 1 && m >= 2 && m <= 4);
            CHECK(want == (strcmp(name, "small_tile") == 0),
                  "%s %s %lldx%lldx%lld under cpu_dot: explain names kernel %s", label,
                  bmm_dtype_name(dts[dt]), (long long)m, (long long)n, (long long)k, name);
            bmm__cpu_last_kernel = -1;
            CHECK(bmm_cpu(&t.p) == BMM_OK && bmm__cpu_last_kernel >= 0 &&
                      strcmp(bmm__cpu_kernel_names[bmm__cpu_last_kernel], name) == 0,
                  "%s: explain's kernel %s did not run", label, name);
            tiles += want;
          }
          tprob_free(&t);
          idx++;
        }
  CHECK(tiles >= 40, "only %d cpu_dot problems reached small_tile", tiles);
}

/* A rule's kernel= pin (issue 18): every kernel pinned under every strategy,
   over dtypes, layouts and shapes (each fixed-size kernel at its own shape).
   Where explain says the pin applies, that kernel runs (bmm__cpu_last_kernel)
   and the result is within the bound; where it does not, explain says why and
   the pick's kernel runs. Every kernel but scale must apply somewhere (ref
   under cpu_ref; short-column kernels only with vector extensions). */
static void test_kernel_pin(void) {
  static const int64_t common[][3] = {{3, 1, 25}, {5, 12, 3}, {4, 4, 4}, {2, 1, 33}};
  static char applied[BMM__CPU_KERNEL_COUNT];
  int kid, dt, li, si, s, missing = 0;
  char name[64], ctx[320], why[1024];
  for (kid = 0; kid < BMM__CPU_KERNEL_COUNT; ++kid) {
    const char *kn = bmm__cpu_kernel_names[kid];
    const bmm__cpu_shape *own = bmm__cpu_shape_of(
        bmm__cpu_small_shapes,
        (int)(sizeof bmm__cpu_small_shapes / sizeof bmm__cpu_small_shapes[0]), kid);
    if (!own)
      own =
          bmm__cpu_shape_of(bmm__cpu_col_shapes,
                            (int)(sizeof bmm__cpu_col_shapes / sizeof bmm__cpu_col_shapes[0]), kid);
    for (dt = 1; dt < BMM_DTYPE_COUNT; ++dt)
      for (li = 0; li < BMMX_LAYOUT_COUNT; ++li)
        for (si = -1; si < (int)(sizeof common / sizeof common[0]); ++si)
          for (s = 0; s < NCPU; ++s) {
            bmm_table_rule rules[2];
            bmmx_case c;
            bmmx_sizes_t z;
            bmm_problem p;
            bmm_plan pl;
            size_t es = bmm_dtype_size((bmm_dtype)dt);
            void *a, *b, *cc, *c0, *bias;
            uint64_t seed = 11;
            if (si < 0 && !own) continue;
            memset(&c, 0, sizeof c);
            c.dtype = (bmm_dtype)dt, c.layout = li, c.batch = 3;
            if (si < 0)
              c.m = own->m, c.n = own->n ? own->n : 3, c.k = own->k ? own->k : 7;
            else
              c.m = common[si][0], c.n = common[si][1], c.k = common[si][2];
            memset(rules, 0, sizeof rules);
            rules[0].strategy = cpu_strategies[s].s;
            snprintf(rules[0].kernel, sizeof rules[0].kernel, "%s", kn);
            rules[1].strategy = BMM_CPU_REF;
            if (!CHECK(bmm_set_table(BMM_BACKEND_CPU, rules, 2) == BMM_OK, "kernel=%s: %s", kn,
                       bmm_last_error()))
              return;
            z = bmmx_sizes(&c);
            a = malloc(es * (size_t)(z.a + 1)), b = malloc(es * (size_t)(z.b + 1));
            cc = malloc(es * (size_t)(z.c + 1)), c0 = malloc(es * (size_t)(z.c + 1));
            bias = malloc(es * (size_t)(c.n + 1));
            bmmx_fill(c.dtype, a, z.a, &seed), bmmx_fill(c.dtype, b, z.b, &seed);
            bmmx_fill(c.dtype, cc, z.c, &seed), bmmx_fill(c.dtype, bias, c.n, &seed);
            memcpy(c0, cc, es * (size_t)z.c);
            p = bmmx_problem(&c, a, b, cc, bias);
            snprintf(ctx, sizeof ctx, "kernel=%s under %s: %s %s %lldx%lldx%lld", kn,
                     cpu_strategies[s].name, bmm_dtype_name(c.dtype), bmmx_layout_name(li),
                     (long long)c.m, (long long)c.n, (long long)c.k);
            if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &pl) == BMM_OK && pl.rule_index == 0 &&
                explained_kernel(&p, name, sizeof name) &&
                CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, "%s: %s", ctx,
                      bmm_last_error())) {
              const int pinned = contains(why, "pinned by the rule");
              bmm_problem ref = p;
              CHECK(pinned != contains(why, "does not apply") && (!pinned || strcmp(name, kn) == 0),
                    "%s: explain `%s`", ctx, why);
              bmm__cpu_last_kernel = -1;
              CHECK(bmm_cpu(&p) == BMM_OK, "%s: %s", ctx, bmm_last_error());
              CHECK(bmm__cpu_last_kernel >= 0 &&
                        strcmp(bmm__cpu_kernel_names[bmm__cpu_last_kernel], name) == 0,
                    "%s: explain says kernel=%s, ran %s", ctx, name,
                    bmm__cpu_last_kernel >= 0 ? bmm__cpu_kernel_names[bmm__cpu_last_kernel]
                                              : "nothing");
              ref.c.ptr = c0;
              CHECK(bmmx_check(&ref, cc, 0) <= 1.0, "%s: wrong result (%s)", ctx,
                    pinned ? "pinned" : "pin refused");
              if (pinned) applied[kid] = 1;
            }
            free(a), free(b), free(cc), free(c0), free(bias);
          }
  }
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  for (kid = 0; kid < BMM__CPU_KERNEL_COUNT; ++kid) {
    const int col = strncmp(bmm__cpu_kernel_names[kid], "dot_col_", 8) == 0;
    /* the fixed-size complex kernels other than 4x4x4 meet no shape of theirs here */
    const int csmall =
        strncmp(bmm__cpu_kernel_names[kid], "c_small_", 8) == 0 && kid != BMM__CPU_K_c_small_4x4x4;
    /* c_dotv too needs vector extensions */
    if (kid == BMM__CPU_K_scale || ((col || kid == BMM__CPU_K_c_dotv) && !BMM__CPU_VEXT) || csmall)
      continue;
    missing += !CHECK(applied[kid], "kernel=%s never applied", bmm__cpu_kernel_names[kid]);
  }
  (void)missing;
}

/* kernel= in table text: parsed, printed back, refused with the field named. */
static void test_kernel_pin_text(void) {
  bmm_table_rule r[4];
  int n = 0;
  char out[2048];
  CHECK(bmm_table_parse("* * * * * * cpu_dot kernel=dot_rows # pinned\n* * * * * * cpu_ref\n", r, 4,
                        &n) == BMM_OK &&
            n == 2 && strcmp(r[0].kernel, "dot_rows") == 0,
        "parse: %s", bmm_last_error());
  bmm_table_format(r, n, out, sizeof out);
  CHECK(contains(out, "cpu_dot kernel=dot_rows"), "format: `%s`", out);
  CHECK(bmm_set_table(BMM_BACKEND_CPU, r, n) == BMM_OK, "set: %s", bmm_last_error());
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  EXPECT(bmm_table_parse("* * * * * * cpu_dot kernel=Dot-Rows\n", r, 4, &n), BMM_TABLE_FILE,
         "kernel=", "bad characters");
  EXPECT(bmm_table_parse("* * * * * * cpu_dot kernel=dot_rows kernel=dot_cols\n", r, 4, &n),
         BMM_TABLE_FILE, "kernel given twice", "twice");
  EXPECT(bmm_table_parse("* * * * * * cpu_dot kernel=\n", r, 4, &n), BMM_TABLE_FILE,
         "kernel=", "empty");
  EXPECT(bmm_table_parse("* * * * * * cpu_dot kernel=abcdefghijklmnopqrstuvwxyz0123456789\n", r, 4,
                         &n),
         BMM_TABLE_FILE, "kernel=", "too long");
  CHECK(bmm_table_parse("* * * * * * cpu_dot kernel=no_such_kernel\n* * * * * * cpu_ref\n", r, 4,
                        &n) == BMM_OK,
        "parse of an unknown name: %s", bmm_last_error());
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, r, n), BMM_BAD_TABLE, "kernel=no_such_kernel",
         "unknown kernel");
  memset(r, 0, sizeof r);
  r[0].strategy = BMM_CPU_REF;
  memset(r[0].kernel, 'a', sizeof r[0].kernel);
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, r, 1), BMM_BAD_TABLE, "kernel has no terminating NUL",
         "unterminated");
}

/* streams= (interleaved runs of entries per thread): every kernel that walks
   its entries so gives the same bits for any count, right against the
   reference, and says the count in explain; a kernel that walks in order
   says the rule's streams= does not apply; the text form round-trips and
   out-of-range counts are refused naming the field. */
static void test_streams(void) {
  static const int counts[] = {1, 2, 3, 4, 7, 16};
  bmm_table_rule r[4];
  char why[1024], want[64], ctx[200], out[1024];
  int kid, dt, ci, n = 0, walked = 0;
  for (kid = 0; kid < BMM__CPU_KERNEL_COUNT; ++kid) {
    const char *kn = bmm__cpu_kernel_names[kid];
    const bmm__cpu_shape *own = bmm__cpu_shape_of(
        bmm__cpu_small_shapes,
        (int)(sizeof bmm__cpu_small_shapes / sizeof bmm__cpu_small_shapes[0]), kid);
    const int col = !own;
    if (!bmm__cpu_walks_streams(kid)) continue;
    if (!own)
      own =
          bmm__cpu_shape_of(bmm__cpu_col_shapes,
                            (int)(sizeof bmm__cpu_col_shapes / sizeof bmm__cpu_col_shapes[0]), kid);
    if (!CHECK(own != NULL, "%s walks streams but has no shape (test bug)", kn)) continue;
    for (dt = 1; dt < BMM_DTYPE_COUNT; ++dt) {
      bmmx_case c;
      bmmx_sizes_t z;
      size_t es = bmm_dtype_size((bmm_dtype)dt);
      unsigned char *first = NULL;
      void *a, *b, *cc, *c0;
      uint64_t seed = 5 + (uint64_t)kid;
      if (bmm_dtype_is_complex((bmm_dtype)dt)) continue;
      memset(&c, 0, sizeof c);
      c.dtype = (bmm_dtype)dt, c.layout = col ? BMMX_COL_A : BMMX_ROWMAJOR, c.batch = 37;
      c.m = own->m, c.n = own->n ? own->n : 3, c.k = own->k ? own->k : 7;
      z = bmmx_sizes(&c);
      a = malloc(es * (size_t)z.a), b = malloc(es * (size_t)z.b);
      cc = malloc(es * (size_t)z.c), c0 = malloc(es * (size_t)z.c);
      first = (unsigned char *)malloc(es * (size_t)z.c);
      if (!a || !b || !cc || !c0 || !first) exit(2);
      bmmx_fill(c.dtype, a, z.a, &seed), bmmx_fill(c.dtype, b, z.b, &seed);
      bmmx_fill(c.dtype, c0, z.c, &seed);
      for (ci = 0; ci < (int)(sizeof counts / sizeof counts[0]); ++ci) {
        bmm_problem p = bmmx_problem(&c, a, b, cc, NULL), ref = p;
        memset(r, 0, sizeof r);
        r[0].strategy = col ? BMM_CPU_DOT : BMM_CPU_SMALL, r[0].streams = counts[ci];
        snprintf(r[0].kernel, sizeof r[0].kernel, "%s", kn);
        r[1].strategy = BMM_CPU_REF;
        snprintf(ctx, sizeof ctx, "kernel=%s streams=%d %s %lldx%lldx%lld batch 37", kn, counts[ci],
                 bmm_dtype_name(c.dtype), (long long)c.m, (long long)c.n, (long long)c.k);
        if (!CHECK(bmm_set_table(BMM_BACKEND_CPU, r, 2) == BMM_OK, "%s: %s", ctx, bmm_last_error()))
          break;
        memcpy(cc, c0, es * (size_t)z.c);
        CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, "%s: %s", ctx,
              bmm_last_error());
        /* f16/bf16 take this kernel only where the kernel reads them itself */
        if (!contains(why, "pinned by the rule")) continue;
        snprintf(want, sizeof want, "walked as %d interleaved run", counts[ci]);
        CHECK(contains(why, want), "%s: explain `%s` lacks `%s`", ctx, why, want);
        CHECK(bmm_cpu(&p) == BMM_OK, "%s: %s", ctx, bmm_last_error());
        ref.c.ptr = c0;
        CHECK(bmmx_check(&ref, cc, 0) <= 1.0, "%s: wrong result", ctx);
        if (ci == 0)
          memcpy(first, cc, es * (size_t)z.c);
        else
          CHECK(memcmp(first, cc, es * (size_t)z.c) == 0, "%s: bits differ from streams=1", ctx);
        ++walked;
      }
      free(a), free(b), free(cc), free(c0), free(first);
    }
  }
  CHECK(walked > 0, "no kernel walked streams (test bug)");
  /* a kernel that walks in order: the rule's streams= is said not to apply */
  {
    bmm_problem p = case_shape(BMM_F64, BMMX_ROWMAJOR, 3, 32, 32, 32);
    memset(r, 0, sizeof r);
    r[0].strategy = BMM_CPU_BLOCKED, r[0].streams = 3;
    r[1].strategy = BMM_CPU_REF;
    CHECK(bmm_set_table(BMM_BACKEND_CPU, r, 2) == BMM_OK, "blocked streams=3: %s",
          bmm_last_error());
    /* explain reads nothing: addresses far apart will do */
    p.a.ptr = (void *)(uintptr_t)(1u << 20), p.b.ptr = (void *)(uintptr_t)(2u << 20);
    p.c.ptr = (void *)(uintptr_t)(3u << 20);
    CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK &&
              contains(why, "streams=3 does not apply"),
          "blocked streams=3: explain `%s`", why);
  }
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  CHECK(bmm_table_parse("* * * * * * cpu_small streams=4 # runs\n* * * * * * cpu_ref\n", r, 4,
                        &n) == BMM_OK &&
            n == 2 && r[0].streams == 4,
        "parse streams=4: %s", bmm_last_error());
  bmm_table_format(r, n, out, sizeof out);
  CHECK(contains(out, "cpu_small streams=4"), "format: `%s`", out);
  EXPECT(bmm_table_parse("* * * * * * cpu_small streams=2 streams=3\n", r, 4, &n), BMM_TABLE_FILE,
         "streams given twice", "twice");
  CHECK(bmm_table_parse("* * * * * * cpu_small streams=17\n* * * * * * cpu_ref\n", r, 4, &n) ==
            BMM_OK,
        "parse streams=17: %s", bmm_last_error());
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, r, n), BMM_BAD_TABLE, "streams=17", "streams above 16");
  r[0].streams = -1;
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, r, n), BMM_BAD_TABLE, "streams=-1", "negative streams");
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
}

/* The prefetch distance the README states: BMM_CPU_PREFETCH_BYTES where the
   build defines it (test_cpu_noomp does), else 4096 bytes per entry and
   16384 per block of 16 entries (the 16-row path); on Intel cores 2048 per
   entry and, per block, 4096 for entries of up to 160 bytes of A and B,
   1024 for larger ones; on AMD family 19h per entry, for one column of C
   none, 2048 for entries of over 1280 bytes, for a tile of C (n > 1) none
   but f64's 2x2..4x4 tiles of run-time k (2048), and per block Intel's
   rule for the halves and 1024 for f32. */
/* The distance the library should choose on core `core` (BMM__CORE_*,
   forced through bmm__cpu_core_test): per entry, or the 16-rows blocks
   (vrows) by dtype, entry size, whether C is a tile (n > 1) and whether
   that tile's kernel takes k at run time (kany) */
static int want_pf_bytes(int core, int vrows, bmm_dtype d, int64_t entry, int64_t n, int kany) {
#if defined(BMM_CPU_PREFETCH_BYTES)
  (void)core, (void)vrows, (void)d, (void)entry, (void)n, (void)kany;
  return BMM_CPU_PREFETCH_BYTES;
#else
  if (core == BMM__CORE_INTEL) return !vrows ? 2048 : entry <= 160 ? 4096 : 1024;
  if (core == BMM__CORE_AMD19 && !vrows && n > 1) return d == BMM_F64 && kany ? 2048 : 0;
  if (core == BMM__CORE_AMD19 && !vrows) return entry > 1280 ? 2048 : 0;
  if (core == BMM__CORE_AMD19) return d == BMM_F32 ? 512 : entry <= 160 ? 4096 : 1024;
  return vrows ? 16384 : 4096;
#endif
}

/* The source explain names for that distance: what of the call chose it,
   where the core's rule asks */
static const char *want_pf_source(int core, int vrows, bmm_dtype d, int64_t entry, int64_t n,
                                  int kany) {
#if defined(BMM_CPU_PREFETCH_BYTES)
  (void)core, (void)vrows, (void)d, (void)entry, (void)n, (void)kany;
  return "BMM_CPU_PREFETCH_BYTES";
#else
  if (core == BMM__CORE_OTHER) return "the default";
  if (vrows && !(core == BMM__CORE_AMD19 && d == BMM_F32))
    return entry <= 160 ? "this core's default for entries of at most 160 bytes of A and B"
                        : "this core's default for entries of over 160 bytes of A and B";
  if (vrows || core != BMM__CORE_AMD19) return "this core's default";
  if (n > 1)
    return d == BMM_F64 && kany ? "this core's default for f64's 2x2..4x4 tiles of C of run-time k"
                                : "this core's default for a tile of C";
  return entry <= 1280 ? "this core's default for one column of C and entries of at most 1280 "
                         "bytes of A and B"
                       : "this core's default for entries of over 1280 bytes of A and B";
#endif
}

/* The prefetches: cpu_blocked's next entry and the fixed-size kernels' A and
   B the distance ahead (f16 too: the kernel that reads the halves in place),
   chosen only for calls past BMM_CPU_STREAM_BYTES (cpu_blocked: with B read
   in place; the fixed-size kernels: entries of BMM_CPU_PREFETCH_MIN_BYTES or
   more), said by explain with the distance, and the result of such a call
   right (sampled against the reference). */
static void test_prefetch(void) {
  static const struct {
    bmm_strategy s;
    int64_t batch, m, n, k;
  } cases[] = {{BMM_CPU_BLOCKED, 3000, 32, 32, 32},
               {BMM_CPU_BLOCKED, 200, 64, 64, 64},
               {BMM_CPU_BLOCKED, 2, 32, 32, 32},
               /* 6400 bytes of A and of B: no whole 4 KiB, asked for on every core */
               {BMM_CPU_BLOCKED, 3000, 40, 40, 40},
               {BMM_CPU_SMALL, 300000, 3, 1, 16},
               {BMM_CPU_SMALL, 3000, 3, 1, 40},
               {BMM_CPU_SMALL, 1200000, 3, 1, 2},
               {BMM_CPU_SMALL, 300000, 4, 4, 4},
               {BMM_CPU_SMALL, 120000, 3, 1, 40},
               {BMM_CPU_SMALL, 200000, 3, 1, 12}, /* f32: 192 bytes, the border */
               /* f16 160 and 168 bytes: the Intel block distance's border */
               {BMM_CPU_SMALL, 300000, 3, 1, 20},
               {BMM_CPU_SMALL, 300000, 3, 1, 21},
               /* f64 1312 bytes, past AMD 19h's per-entry border (3x1x40: 1280) */
               {BMM_CPU_SMALL, 120000, 3, 1, 41},
               /* f64 1600 bytes, a constant-k kernel: A's rows side by side */
               {BMM_CPU_SMALL, 100000, 3, 1, 50},
               /* tiles of C: 3x3 of run-time k, small_tile (4x4x4: of constant k) */
               {BMM_CPU_SMALL, 30000, 3, 3, 64},
               {BMM_CPU_SMALL, 20000, 8, 8, 32},
               /* entries of 2 and 3 row units: each unit asks for its share */
               {BMM_CPU_BLOCKED, 300, 128, 128, 128},
               {BMM_CPU_BLOCKED, 300, 200, 40, 40}};
  static const bmm_dtype dts[] = {BMM_F32, BMM_F64, BMM_F16};
  static const int cores[] = {BMM__CORE_INTEL, BMM__CORE_AMD19, BMM__CORE_OTHER};
  int s, dt, co;
  char why[1024];
  /* explain as each core; the call itself (the same bits whatever the
     distance) once, as the core this is */
  const int real = bmm__cpu_core();
  for (co = 0; co < 3; ++co)
    for (s = 0; s < (int)(sizeof cases / sizeof cases[0]); ++s)
      for (dt = 0; dt < 3; ++dt) {
        bmmx_case c;
        bmmx_sizes_t z;
        bmm_problem p;
        uint64_t seed = 3;
        const bmm_dtype d = dts[dt];
        const size_t es = bmm_dtype_size(d);
        const int blocked = cases[s].s == BMM_CPU_BLOCKED;
        const int64_t entry = (cases[s].m + cases[s].n) * cases[s].k * (int64_t)es;
        const int core = cores[co];
        /* cpu_small's 2x2..4x4 tiles of run-time k (not small_tile's shapes,
           nor the fixed-size squares) */
        const int kany = cases[s].m == cases[s].n && cases[s].m >= 2 && cases[s].m <= 4 &&
                         cases[s].k != cases[s].m;
        void *a, *b, *cc;
        int want, said, big, asks, vr, dist, none, seq, blk_hw;
        if (blocked && d == BMM_F16) continue; /* converted in chunks: in cache */
        bmm__cpu_core_test = core;
        memset(&c, 0, sizeof c);
        c.dtype = d, c.layout = BMMX_ROWMAJOR, c.batch = cases[s].batch;
        c.m = cases[s].m, c.n = cases[s].n, c.k = cases[s].k;
        z = bmmx_sizes(&c);
        big = STREAM_BYTES >= 0 && (double)(z.a + z.b + z.c) * (double)es >= STREAM_BYTES;
        a = malloc(es * (size_t)z.a), b = malloc(es * (size_t)z.b), cc = malloc(es * (size_t)z.c);
        if (!a || !b || !cc) exit(2);
        p = bmmx_problem(&c, a, b, cc, NULL);
        p.strategy = cases[s].s;
        CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, "%s", bmm_last_error());
        /* the fixed-size kernels ask past the cache size (16 rows to a vector
           at any entry size, bmm__cpu_small_prefetch), but not f16 converted in
           chunks (no F16C kernel in this build): in cache. A distance of 0 is
           said as left to the hardware. */
        vr = contains(why, " rows of C to a vector");
        dist = want_pf_bytes(core, vr, d, entry, c.n, kany);
        asks = big && !blocked && (entry >= BMM_CPU_PREFETCH_MIN_BYTES || vr) &&
               !(d == BMM_F16 && !contains(why, "read by the kernel"));
        /* cpu_blocked leaves whole 4 KiB multiples of A and B (at most 32
           KiB an entry) to the hardware on AMD family 19h */
        blk_hw = core == BMM__CORE_AMD19 && (c.m * c.k * (int64_t)es) % 4096 == 0 &&
                 (c.k * c.n * (int64_t)es) % 4096 == 0 && entry <= 32768;
        want = blocked ? big && !blk_hw : asks && dist > 0;
        none = blocked ? big && blk_hw : asks && dist <= 0;
        said = contains(why, blocked ? "next entry's A and B prefetched" : "A and B prefetched");
        CHECK(said == want, "%s %lldx%lldx%lld batch %lld on core %d (%s): explain `%s`",
              bmm_dtype_name(d), (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.batch,
              core,
              want   ? "want a prefetch"
              : asks ? "want none: distance 0"
                     : "within cache size",
              why);
        /* and into L2 where f64 on AMD family 19h (bmm__cpu_blk_pf_l2) */
        CHECK(!(blocked && want) ||
                  contains(why, "prefetched into L2") == (core == BMM__CORE_AMD19 && d == BMM_F64),
              "%s %lldx%lldx%lld on core %d: the prefetch's level, explain `%s`", bmm_dtype_name(d),
              (long long)c.m, (long long)c.n, (long long)c.k, core, why);
        CHECK(contains(why, blocked ? "next entry's A and B left to the hardware"
                                    : "A and B left to the hardware prefetchers") == none,
              "%s %lldx%lldx%lld on core %d: explain `%s`", bmm_dtype_name(d), (long long)c.m,
              (long long)c.n, (long long)c.k, core, why);
        if (!blocked && (said || none)) {
          const char *at = strstr(why, "A and B prefetched ");
          int got = none ? 0 : -1;
          if (at) sscanf(at, "A and B prefetched %d bytes ahead", &got);
          CHECK(got == dist,
                "%s %lldx%lldx%lld on core %d: prefetch distance %d, want %d: explain `%s`",
                bmm_dtype_name(d), (long long)c.m, (long long)c.n, (long long)c.k, core, got, dist,
                why);
          { /* and what chose it: explain's source in full */
            char src[160];
            snprintf(src, sizeof src, "(%s;", want_pf_source(core, vr, d, entry, c.n, kany));
            CHECK(contains(why, src),
                  "%s %lldx%lldx%lld, %lld bytes an entry, core %d: want `%s` in `%s`",
                  bmm_dtype_name(d), (long long)c.m, (long long)c.n, (long long)c.k,
                  (long long)entry, core, src, why);
          }
        }
        /* f64 dot products asked for ahead on AMD family 19h sum A's rows
           one after another (bmm__cpu_rowseq), in the kernels of run-time k:
           run there as well, whatever core this is */
        seq = core == BMM__CORE_AMD19 && d == BMM_F64 && !blocked && c.n == 1 && want &&
              contains(why, "_kany") && BMM__CPU_VEXT;
        CHECK(contains(why, "A's rows summed one after another") == seq,
              "%s %lldx%lldx%lld batch %lld on core %d: want %s: explain `%s`", bmm_dtype_name(d),
              (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.batch, core,
              seq ? "A's rows one after another" : "A's rows side by side", why);
        if (core == real || seq) {
          bmmx_fill(d, a, z.a, &seed), bmmx_fill(d, b, z.b, &seed), bmmx_fill(d, cc, z.c, &seed);
          CHECK(bmm_cpu(&p) == BMM_OK, "%s", bmm_last_error());
          CHECK(bmmx_check(&p, cc, 17) <= 1.0, "%s %lldx%lldx%lld batch %lld: wrong result",
                bmm_dtype_name(d), (long long)c.m, (long long)c.n, (long long)c.k,
                (long long)c.batch);
        }
        if (seq) { /* the same bits as the rows side by side (an Intel core's) */
          void *c2 = malloc(es * (size_t)z.c);
          bmm_problem p2;
          if (!c2) exit(2);
          seed = 3, bmmx_fill(d, a, z.a, &seed), bmmx_fill(d, b, z.b, &seed);
          bmmx_fill(d, c2, z.c, &seed);
          p2 = bmmx_problem(&c, a, b, c2, NULL);
          p2.strategy = cases[s].s;
          bmm__cpu_core_test = BMM__CORE_INTEL;
          CHECK(bmm_cpu(&p2) == BMM_OK, "%s", bmm_last_error());
          CHECK(!memcmp(cc, c2, es * (size_t)z.c),
                "%s %lldx%lldx%lld: A's rows one after another "
                "changed the bits",
                bmm_dtype_name(d), (long long)c.m, (long long)c.n, (long long)c.k);
          free(c2);
        }
        bmm__cpu_core_test = 0;
        free(a), free(b), free(cc);
      }
  /* c_dotv's entries (complex dot products) take the dots' distance or none,
     said with the source: explain only (no operand is read) */
  for (co = 0; co < 3; ++co)
    for (s = 0; s < 4; ++s) {
      const bmm_dtype d = s & 1 ? BMM_C128 : BMM_C64;
      const int64_t k = s < 2 ? 12 : 64, entry = 4 * k * (int64_t)bmm_dtype_size(d);
      const bmm_problem p =
          bmm_problem_rowmajor(d, 100000000, 3, 1, k, (void *)((uintptr_t)1 << 40),
                               (void *)((uintptr_t)2 << 40), (void *)((uintptr_t)3 << 40));
      int dist;
      char want[256];
      bmm__cpu_core_test = cores[co];
      CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, "%s", bmm_last_error());
      bmm__cpu_core_test = 0;
      if (!contains(why, "kernel=c_dotv")) continue; /* not built without vector extensions */
      dist = want_pf_bytes(cores[co], 0, d, entry, 1, 0);
      if (dist > 0)
        snprintf(want, sizeof want, "A and B prefetched %d bytes ahead (%s;", dist,
                 want_pf_source(cores[co], 0, d, entry, 1, 0));
      else
        snprintf(want, sizeof want, "A and B left to the hardware prefetchers (%s;",
                 want_pf_source(cores[co], 0, d, entry, 1, 0));
      CHECK(contains(why, want), "%s 3x1x%lld on core %d: want `%s` in `%s`", bmm_dtype_name(d),
            (long long)k, cores[co], want, why);
    }
}

/* cpu_small's dot kernels streaming C a line at a time (entries' C back to
   back, beta = 0; every call of a run that streams every call, so
   test_cpu_stream): C at every element offset within a line, batches around
   the block of 64 / sizeof(T) entries, 1 and 2 threads (a thread's first and
   last entries are stored plainly). f16 and bf16 too: their 16-row path
   (AVX-512) streams C for k <= 8 in whole lines of two groups, C at every
   element offset of a line (32 halves), and stores it plainly elsewhere.
   Nothing outside C changes, the result is right, explain says whether C is
   streamed, and the bits do not depend on the offset's path or the
   threads. */
static void test_stream_lines(void) {
  static const int64_t batches[] = {1, 7, 15, 16, 17, 53, 1000, 40001};
  static const bmm_dtype dts[] = {BMM_F32, BMM_F64, BMM_F16, BMM_BF16};
  enum { G = 40 }; /* guard elements on each side of C */
  int dt, m, kk, bi, off, th;
#ifdef _OPENMP
  const int max_threads = omp_get_max_threads();
#endif
  for (dt = 0; dt < 4; ++dt)
    for (m = 1; m <= 4; ++m)
      for (kk = 0; kk < 3; ++kk)
        for (bi = 0; bi < (int)(sizeof batches / sizeof batches[0]); ++bi)
          for (off = 0; off < (dt < 2 ? 17 : 33); off += (batches[bi] > 2000 ? 8
                                                          : bi % 2           ? 1
                                                                             : 5)) {
            static const int64_t ks[] = {1, 5, 9};
            const bmm_dtype d = dts[dt];
            const size_t es = bmm_dtype_size(d);
            const int64_t batch = batches[bi], k = ks[kk], nc = batch * m;
            uint64_t seed = (uint64_t)(1 + dt * 1000 + m * 100 + kk * 10 + bi);
            unsigned char *a = (unsigned char *)malloc(es * (size_t)(batch * m * k));
            unsigned char *b = (unsigned char *)malloc(es * (size_t)(batch * k));
            /* 64-byte aligned, so off walks C's start through a line */
            void *al = NULL;
            unsigned char *buf = posix_memalign(&al, 64, es * (size_t)(nc + 2 * G + 64))
                                     ? NULL
                                     : (unsigned char *)al;
            unsigned char *keep = (unsigned char *)malloc(es * (size_t)(nc + 2 * G + 64));
            unsigned char *first = (unsigned char *)malloc(es * (size_t)nc);
            unsigned char *cc;
            bmm_problem p;
            if (!a || !b || !buf || !keep || !first) exit(2);
            bmmx_fill(d, a, batch * m * k, &seed), bmmx_fill(d, b, batch * k, &seed);
            bmmx_fill(d, buf, nc + 2 * G + 64, &seed);
            memcpy(keep, buf, es * (size_t)(nc + 2 * G + 64));
            cc = buf + es * (size_t)(G + off);
            p = bmm_problem_rowmajor(d, batch, m, 1, k, a, b, cc);
            p.strategy = BMM_CPU_SMALL;
            p.alpha = 0.75;
            {
              char why[1024];
              const double bytes = (double)(nc + batch * m * k + batch * k) * (double)es;
              int want;
              CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, "%s",
                    bmm_last_error());
              want = BMM__CPU_NT && STREAM_BYTES >= 0 && bytes >= (double)STREAM_BYTES &&
                     (es > 2 || (k <= 8 && contains(why, "16 rows of C to a vector")));
              CHECK(contains(why, "C streamed") == want, "%s %dx1x%lld batch %lld: explain `%s`",
                    bmm_dtype_name(d), m, (long long)k, (long long)batch, why);
            }
            static const char *const thn[] = {"1 thread", "2 threads", "2 threads in chunks"};
            for (th = 1; th <= 3; ++th) { /* 3: 2 threads in 2 x 3 chunks (forced) */
#ifdef _OPENMP
              omp_set_num_threads(th > 2 ? 2 : th);
#else
              if (th == 2) break;
#endif
              /* C as before the first call: a store a pass leaves out must show */
              memcpy(buf, keep, es * (size_t)(nc + 2 * G + 64));
              bmm__cpu_chunks_test = th == 3 ? 3 : 0;
              CHECK(bmm_cpu(&p) == BMM_OK, "%s", bmm_last_error());
              bmm__cpu_chunks_test = 0;
              CHECK(memcmp(buf, keep, es * (size_t)(G + off)) == 0 &&
                        memcmp(cc + es * (size_t)nc, keep + es * (size_t)(G + off + nc),
                               es * (size_t)(G + 64 - off)) == 0,
                    "%s %dx1x%lld batch %lld, C %d elements past a line, %s: a store "
                    "outside C",
                    bmm_dtype_name(d), m, (long long)k, (long long)batch, off, thn[th - 1]);
              CHECK(bmmx_check(&p, cc, 0) <= 1.0,
                    "%s %dx1x%lld batch %lld, C %d elements past a line, %s: wrong result",
                    bmm_dtype_name(d), m, (long long)k, (long long)batch, off, thn[th - 1]);
              if (th == 1)
                memcpy(first, cc, es * (size_t)nc);
              else
                CHECK(memcmp(first, cc, es * (size_t)nc) == 0,
                      "%s %dx1x%lld batch %lld, C %d elements past a line: 1 and 2 threads%s "
                      "differ",
                      bmm_dtype_name(d), m, (long long)k, (long long)batch, off,
                      th == 3 ? " in chunks" : "");
            }
#ifdef _OPENMP
            omp_set_num_threads(max_threads);
#endif
            free(a), free(b), free(buf), free(keep), free(first);
          }
}

/* f32 k <= BMM__CPU_VK_KMAX(m), BMM__CPU_VK_W rows of C to a vector (AVX-512: 16 rows, k <= 8, m =
   3 k <= 5; AVX2 with FMA: 8 rows, k <= 3; BMM__CPU_VROWS_f32): m = 1..4, k = 1..8, B per entry or
   shared, batches around the blocks of 8 and 16, C at every element offset within a line, each
   alpha/beta/bias mode. The result is within the bound, nothing outside C is written, explain says
   the path where it is built, and the bits equal those of the per-entry kernel (a rule's streams=2
   turns the path off) and of 1 and 2 threads. All of it as an Intel core (bmm__cpu_core_test), so
   that every compiled block kernel runs whatever the machine; then each core's reach
   (bmm__cpu_vk_kmax: shorter on AMD family 19h) as explain says it. */
static void test_vrows_f32(void) {
  static const int64_t batches[] = {1, 7, 8, 9, 15, 16, 17, 33, 100, 1000, 40001};
  enum { G = 40 };
  int m, k, bi, off, shared, mode = 0, used = 0;
#ifdef _OPENMP
  const int max_threads = omp_get_max_threads();
#endif
  /* every compiled block kernel runs whatever core this is: the lists' reach
     (Intel's) */
  bmm__cpu_core_test = BMM__CORE_INTEL;
  for (m = 1; m <= 4; ++m)
    for (k = 1; k <= 8; ++k)
      for (shared = 0; shared < 2; ++shared)
        for (bi = 0; bi < (int)(sizeof batches / sizeof batches[0]); ++bi)
          for (off = 0; off < 17; off += (batches[bi] > 2000 ? 8 : bi % 2 ? 1 : 5), ++mode) {
            static const double alphas[5] = {1.0, -0.75, 1.5, 1.0, 2.5};
            static const double betas[5] = {0.0, 0.5, 0.0, 1.0, 0.0};
            const int64_t batch = batches[bi], nc = batch * m;
            uint64_t seed = (uint64_t)(7 + m * 100 + k * 10 + bi + 1000 * shared);
            float *a = (float *)malloc(sizeof(float) * (size_t)(batch * m * k));
            float *b = (float *)malloc(sizeof(float) * (size_t)(shared ? k : batch * k));
            float bias[1];
            void *al = NULL;
            float *buf = posix_memalign(&al, 64, sizeof(float) * (size_t)(nc + 2 * G + 64))
                             ? NULL
                             : (float *)al;
            float *keep = (float *)malloc(sizeof(float) * (size_t)(nc + 2 * G + 64));
            float *first = (float *)malloc(sizeof(float) * (size_t)nc);
            float *cc;
            bmm_problem p;
            bmm_table_rule r[2];
            char why[1024], ctx[160];
            int th, pass;
            if (!a || !b || !buf || !keep || !first) exit(2);
            bmmx_fill(BMM_F32, a, batch * m * k, &seed);
            bmmx_fill(BMM_F32, b, shared ? k : batch * k, &seed);
            bmmx_fill(BMM_F32, bias, 1, &seed);
            { /* zeros of both signs in A: a sum that starts at -0 would show */
              int64_t z;
              for (z = 0; z < batch * m * k; z += 7)
                a[z] = z % 2 ? -0.0f : 0.0f;
            }
            bmmx_fill(BMM_F32, buf, nc + 2 * G + 64, &seed);
            memcpy(keep, buf, sizeof(float) * (size_t)(nc + 2 * G + 64));
            cc = buf + G + off;
            p = bmm_problem_rowmajor(BMM_F32, batch, m, 1, k, a, b, cc);
            if (shared) p.b.batch_stride[0] = 0;
            p.alpha = alphas[mode % 5], p.beta = betas[mode % 5]; /* AUTO: the rules below */
            p.bias = mode % 5 == 1 || mode % 5 == 2 ? bias : NULL;
            snprintf(ctx, sizeof ctx,
                     "f32 %dx1x%d batch %lld%s, C %d elements past a line, mode %d", m, k,
                     (long long)batch, shared ? " (B shared)" : "", off, mode % 5);
            /* pass 0: the per-entry kernel (streams=2); pass 1, 2: the
               block path, 1 and 2 threads; 3: 2 threads in 2 x 3 chunks
               (bmm__cpu_chunks, forced) */
            for (pass = 0; pass < 4; ++pass) {
              memset(r, 0, sizeof r);
              r[0].strategy = BMM_CPU_SMALL, r[0].streams = pass == 0 ? 2 : 1;
              r[1].strategy = BMM_CPU_REF;
              bmm_set_table(BMM_BACKEND_CPU, r, 2);
              th = pass >= 2 ? 2 : 1;
#ifdef _OPENMP
              omp_set_num_threads(th);
#else
              (void)th; /* one thread either way */
#endif
              bmm__cpu_chunks_test = pass == 3 ? 3 : 0;
              memcpy(buf, keep, sizeof(float) * (size_t)(nc + 2 * G + 64));
              CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, "%s: %s", ctx,
                    bmm_last_error());
              /* batch 1 has no batch dimension: no run of entries to block */
              CHECK(contains(why, " rows of C to a vector") ==
                        (pass > 0 && BMM__CPU_VROWS_f32 && batch > 1 && k <= BMM__CPU_VK_KMAX(m)),
                    "%s, pass %d: explain `%s`", ctx, pass, why);
              used += pass > 0 && contains(why, " rows of C to a vector");
              CHECK(bmm_cpu(&p) == BMM_OK, "%s: %s", ctx, bmm_last_error());
              CHECK(memcmp(buf, keep, sizeof(float) * (size_t)(G + off)) == 0 &&
                        memcmp(cc + nc, keep + G + off + nc,
                               sizeof(float) * (size_t)(G + 64 - off)) == 0,
                    "%s, pass %d: a store outside C", ctx, pass);
              if (pass == 0) {
                bmm_problem q = p;
                q.c.ptr = keep + G + off; /* C before the call */
                CHECK(bmmx_check(&q, cc, 0) <= 1.0, "%s: wrong result", ctx);
                memcpy(first, cc, sizeof(float) * (size_t)nc);
              } else {
                CHECK(memcmp(first, cc, sizeof(float) * (size_t)nc) == 0,
                      "%s: %s differs from the per-entry kernel's bits", ctx,
                      pass == 1   ? "one thread"
                      : pass == 2 ? "two threads"
                                  : "two threads in chunks");
              }
            }
            bmm__cpu_chunks_test = 0;
#ifdef _OPENMP
            omp_set_num_threads(max_threads);
#endif
            bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
            free(a), free(b), free(buf), free(keep), free(first);
          }
  CHECK(used > 0 || !BMM__CPU_VROWS_f32, "the block path never ran");
  { /* each core's reach, as explain says it: AMD family 19h stops m = 2 at k
       = 7, 3 at 4, 4 at 5 (AVX-512); every other core the lists */
    static const int amd19[4] = {8, 7, 4, 5};
    static const int cores[] = {BMM__CORE_INTEL, BMM__CORE_AMD19, BMM__CORE_OTHER};
    float *buf = (float *)malloc(sizeof(float) * 1000 * (4 * 8 + 8 + 4));
    int co;
    if (!buf) exit(2);
    for (co = 0; co < 3; ++co)
      for (m = 1; m <= 4; ++m)
        for (k = 1; k <= 8; ++k) {
          bmm_problem p =
              bmm_problem_rowmajor(BMM_F32, 1000, m, 1, k, buf, buf + 32000, buf + 40000);
          char why[1024];
          int reach = BMM__CPU_VK_KMAX(m);
          if (cores[co] == BMM__CORE_AMD19 && BMM__CPU_VK_W == 16 && amd19[m - 1] < reach)
            reach = amd19[m - 1];
          p.strategy = BMM_CPU_SMALL;
          bmm__cpu_core_test = cores[co];
          CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, "%s",
                bmm_last_error());
          CHECK(contains(why, " rows of C to a vector") == (BMM__CPU_VROWS_f32 && k <= reach),
                "f32 %dx1x%d on core %d: explain `%s`", m, k, cores[co], why);
        }
    bmm__cpu_core_test = 0;
    free(buf);
  }
#if BMM__CPU_VROWS_f32
  /* the pick's bound (BMM__CPU_VK_KMAX, the lists' length) and the table of functions say the
     same k per m */
  for (m = 1; m <= 4; ++m)
    for (k = 1; k <= 8; ++k)
      CHECK((bmm__cpu_vk_fns_f32[m - 1][k - 1] != NULL) == (k <= BMM__CPU_VK_KMAX(m)),
            "vk_fns[%d][%d] against BMM__CPU_VK_KMAX(%d) = %d", m - 1, k - 1, m,
            BMM__CPU_VK_KMAX(m));
#endif
}

/* ---- same bits for 1 and 2 threads ------------------------------------------ */

/* Strategy i of cpu_strategies (-1: AUTO) into *st and its description into
   desc; 0 where it does not claim t's problem (or the problem has no plan). */
static int claiming_strategy(const tprob *t, int i, bmm_strategy *st, char *desc, size_t len) {
  bmm_plan plan;
  *st = i < 0 ? BMM_STRATEGY_AUTO : cpu_strategies[i].s;
  if (bmm_plan_problem(&t->p, BMM_BACKEND_CPU, &plan) != BMM_OK ||
      (i >= 0 && !bmm_strategy_supports(*st, &plan)))
    return 0;
  tprob_desc(t, *st, desc, len);
  return 1;
}

/* With k == 1 every strategy's sum is the one product a*b, so C's bits are
   those of the epilogue alone: every strategy must match cpu_ref bit for bit.
   Fails if any kernel's copy of the epilogue lets the compiler fuse alpha*acc
   or beta*C with an add where another's does not (BMM__EPILOGUE). */
static void test_epilogue_same_bits(void) {
  static const int64_t shapes[][4] = {{1000, 3, 1, 1}, {500, 4, 4, 1},  {200, 7, 7, 1},
                                      {64, 16, 16, 1}, {9, 33, 17, 1},  {2, 70, 64, 1},
                                      {301, 2, 2, 1},  {1000, 1, 5, 1}, {50, 8, 8, 1}};
  int s, l, i, mode;
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (mode = 0; mode < 4; ++mode) {
        tprob t;
        int bias;
        bmm_problem p = case_shape((s + mode) % 2 ? BMM_F32 : BMM_F64, l, shapes[s][0],
                                   shapes[s][1], shapes[s][2], shapes[s][3]);
        unsigned char *want;
        apply_mode(&p, mode, l, &bias);
        tprob_make(&t, &p, bias, (uint64_t)(s * 40 + l * 4 + mode), "k=1 epilogue bits");
        t.samples = 3;
        want = (unsigned char *)malloc((size_t)t.c.count * t.c.es);
        if (!want) exit(2);
        if (tprob_run(&t, BMM_CPU_REF, 0)) {
          memcpy(want, t.c.alloc, (size_t)t.c.count * t.c.es);
          for (i = -1; i < NCPU; ++i) {
            bmm_strategy st;
            char desc[600];
            if (!claiming_strategy(&t, i, &st, desc, sizeof desc) || st == BMM_CPU_REF) continue;
            if (!tprob_run(&t, st, i & 1)) continue;
            CHECK(memcmp(want, t.c.alloc, (size_t)t.c.count * t.c.es) == 0,
                  "%s: C's bits differ from cpu_ref's (k == 1: the epilogue alone)", desc);
          }
        }
        free(want);
        tprob_free(&t);
      }
}

static void test_threads_same_bits(void) {
#ifdef _OPENMP
  /* {batch, m, n, k}: each above the kernels' threshold for a parallel region
     (bmm_cpu.h: about 2 * 65536 multiply-adds plus elements moved) */
  static const int64_t shapes[][4] = {
      {1000, 3, 1, 25},   {4000, 4, 4, 4},    {257, 16, 16, 16}, {64, 33, 17, 70}, {3, 70, 64, 33},
      {2, 70, 70, 70},    {20001, 1, 5, 2},   {1000, 8, 8, 8},   {999, 7, 3, 5},   {1, 200, 40, 50},
      {1, 200, 300, 300}, {1001, 13, 13, 13}, {300, 10, 10, 10}, {1001, 7, 7, 7}};
  int s, l, i, max_threads = omp_get_max_threads();
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s)
    for (l = 0; l < BMMX_LAYOUT_COUNT; l += 1 + s % 2) {
      tprob t;
      int bias;
      bmm_problem p = case_shape(s % 2 ? BMM_F32 : BMM_F64, l, shapes[s][0], shapes[s][1],
                                 shapes[s][2], shapes[s][3]);
      unsigned char *one;
      apply_mode(&p, s + l, l, &bias);
      tprob_make(&t, &p, bias, (uint64_t)(s * 10 + l), "1 vs 2 threads");
      t.samples = 5;
      one = (unsigned char *)malloc((size_t)t.c.count * t.c.es);
      if (!one) exit(2);
      for (i = -1; i < NCPU; ++i) {
        bmm_strategy st;
        char desc[600];
        if (!claiming_strategy(&t, i, &st, desc, sizeof desc)) continue;
        omp_set_num_threads(1);
        if (!tprob_run(&t, st, 0)) continue;
        memcpy(one, t.c.alloc, (size_t)t.c.count * t.c.es);
        omp_set_num_threads(2);
        tprob_run(&t, st, 1);
        CHECK(memcmp(one, t.c.alloc, (size_t)t.c.count * t.c.es) == 0,
              "%s: C differs between 1 and 2 OpenMP threads", desc);
        /* the same call in 2 x 5 uneven chunks taken by the free thread
           (out of cache's split, bmm__cpu_chunks, forced on this small call) */
        bmm__cpu_chunks_test = 5;
        tprob_run(&t, st, 1);
        bmm__cpu_chunks_test = 0;
        CHECK(memcmp(one, t.c.alloc, (size_t)t.c.count * t.c.es) == 0,
              "%s: C differs between 1 thread and 2 threads in 10 chunks", desc);
      }
      omp_set_num_threads(max_threads);
      free(one);
      tprob_free(&t);
    }
  /* Out of cache the units go in chunks (bmm__cpu_chunks): 16 a thread, of
     at least 4 MiB and an entry; in cache one share a thread. Explain says
     which. No call runs here: explain reads no operand, so the operands are
     addresses 2^40 bytes apart with nothing behind them. */
  {
    static const struct {
      int64_t batch, m, n, k;
      const char *want; /* NULL: no chunks */
    } cs[] = {{36000000, 3, 1, 1, " in 32 chunks,"},
              {1000000, 3, 1, 5, " in 21 chunks,"},   /* 92 MB: 2 threads x 16 > 92 MB / 4 MiB */
              {6, 1024, 1024, 1024, " in 6 chunks,"}, /* 75 MB, but at most one an entry */
              {682, 16, 16, 16, NULL},
              {1, 2048, 2048, 2048, NULL}}; /* one entry: one share a thread */
    float *const far[3] = {(float *)(uintptr_t)(UINT64_C(1) << 40),
                           (float *)(uintptr_t)(UINT64_C(2) << 40),
                           (float *)(uintptr_t)(UINT64_C(3) << 40)};
    char buf[2048];
    int c;
    omp_set_num_threads(2);
    for (c = 0; c < (int)(sizeof cs / sizeof cs[0]); ++c) {
      bmm_problem p = bmm_problem_rowmajor(BMM_F32, cs[c].batch, cs[c].m, cs[c].n, cs[c].k, far[0],
                                           far[1], far[2]);
      CHECK(bmm_explain(&p, BMM_BACKEND_CPU, buf, sizeof buf) == BMM_OK &&
                (cs[c].want ? contains(buf, cs[c].want) : !contains(buf, " chunks,")),
            "explain of f32 %lldx%lldx%lld batch %lld: `%s`, want %s%s", (long long)cs[c].m,
            (long long)cs[c].n, (long long)cs[c].k, (long long)cs[c].batch, buf,
            cs[c].want ? "" : "no chunks", cs[c].want ? cs[c].want : "");
    }
    omp_set_num_threads(max_threads);
  }
#else
  printf("     (built without OpenMP: one thread only, nothing to compare)\n");
#endif
}

/* ---- concurrent calls ------------------------------------------------------- */

/* Two threads run different problems with every strategy at once; each
   result must have the bits it has when run alone (no shared scratch). */
#define CONC_PROBS 4
typedef struct conc_set {
  tprob t[CONC_PROBS];
  unsigned char *want[CONC_PROBS][NCPU_MAX];
  int bad, runs;
} conc_set;

static void conc_run_one(conc_set *c, int i, int si, unsigned char *scratch, int *bad) {
  tprob *t = &c->t[i];
  bmm_problem q = t->p;
  size_t bytes = (size_t)t->c.count * t->c.es;
  memcpy(scratch, t->c.init, bytes);
  q.c.ptr = scratch + (size_t)(-t->c.lo) * t->c.es;
  q.strategy = cpu_strategies[si].s;
  if (bmm_cpu(&q) != BMM_OK || memcmp(scratch, c->want[i][si], bytes) != 0) ++*bad;
}

static void *conc_thread(void *arg) {
  conc_set *c = (conc_set *)arg;
  int rep, i, si;
  unsigned char *scratch[CONC_PROBS];
  for (i = 0; i < CONC_PROBS; ++i)
    scratch[i] = (unsigned char *)malloc((size_t)c->t[i].c.count * c->t[i].c.es);
  for (rep = 0; rep < 6; ++rep)
    for (i = 0; i < CONC_PROBS; ++i)
      for (si = 0; si < NCPU; ++si)
        if (c->want[i][si]) {
          conc_run_one(c, i, si, scratch[i], &c->bad);
          ++c->runs;
        }
  for (i = 0; i < CONC_PROBS; ++i)
    free(scratch[i]);
  return NULL;
}

static void conc_make(conc_set *c, int which) {
  static const int64_t shapes[2][CONC_PROBS][5] = {{{BMMX_ROWMAJOR, 40, 33, 31, 70},
                                                    {BMMX_COLMAJOR, 9, 64, 20, 33},
                                                    {BMMX_BATCH_INNER, 300, 4, 4, 4},
                                                    {BMMX_SHARED_B_BIAS, 30, 16, 16, 16}},
                                                   {{BMMX_TRANS_B, 40, 70, 17, 64},
                                                    {BMMX_ROWMAJOR, 500, 3, 1, 25},
                                                    {BMMX_BATCH_INNER, 200, 8, 3, 5},
                                                    {BMMX_PADDED, 12, 31, 32, 33}}};
  int i, si;
  memset(c, 0, sizeof *c);
  for (i = 0; i < CONC_PROBS; ++i) {
    const int64_t *sh = shapes[which][i];
    bmm_problem p = case_shape(i % 2 ? BMM_F32 : BMM_F64, (int)sh[0], sh[1], sh[2], sh[3], sh[4]);
    bmm_plan plan;
    tprob_make(&c->t[i], &p, sh[0] == BMMX_SHARED_B_BIAS, (uint64_t)(which * 10 + i),
               "concurrent calls");
    c->t[i].samples = 4;
    if (bmm_plan_problem(&c->t[i].p, BMM_BACKEND_CPU, &plan) != BMM_OK) continue;
    for (si = 0; si < NCPU; ++si) {
      size_t bytes = (size_t)c->t[i].c.count * c->t[i].c.es;
      if (!bmm_strategy_supports(cpu_strategies[si].s, &plan)) continue;
      if (!tprob_run(&c->t[i], cpu_strategies[si].s, 0)) continue; /* wrong alone: reported */
      c->want[i][si] = (unsigned char *)malloc(bytes);
      memcpy(c->want[i][si], c->t[i].c.alloc, bytes);
    }
  }
}

static void conc_free(conc_set *c) {
  int i, si;
  for (i = 0; i < CONC_PROBS; ++i) {
    for (si = 0; si < NCPU; ++si)
      free(c->want[i][si]);
    tprob_free(&c->t[i]);
  }
}

static void test_concurrent_calls(void) {
  static conc_set sets[2];
  pthread_t th[2];
  int k;
  conc_make(&sets[0], 0);
  conc_make(&sets[1], 1);
  for (k = 0; k < 2; ++k)
    CHECK(pthread_create(&th[k], NULL, conc_thread, &sets[k]) == 0, "pthread_create");
  for (k = 0; k < 2; ++k) {
    pthread_join(th[k], NULL);
    CHECK(sets[k].runs > 0 && sets[k].bad == 0,
          "thread %d: %d of %d concurrent calls differ from the same call alone", k, sets[k].bad,
          sets[k].runs);
  }
#ifdef _OPENMP
  { /* called from inside the caller's own parallel region */
    int bad = 0, runs = 0, i;
#pragma omp parallel for reduction(+ : bad, runs) schedule(static, 1)
    for (i = 0; i < CONC_PROBS * NCPU; ++i) {
      conc_set *c = &sets[0];
      int pi = i / NCPU, si = i % NCPU;
      if (c->want[pi][si]) {
        unsigned char *scratch = (unsigned char *)malloc((size_t)c->t[pi].c.count * c->t[pi].c.es);
        conc_run_one(c, pi, si, scratch, &bad);
        free(scratch);
        ++runs;
      }
    }
    CHECK(runs > 0 && bad == 0, "%d of %d calls inside an omp parallel region differ", bad, runs);
  }
#endif
  conc_free(&sets[0]);
  conc_free(&sets[1]);
}

/* ---- concurrency of the table ------------------------------------------------ */

static pthread_mutex_t g_stop_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_stop;

static int stopped(void) {
  int s;
  pthread_mutex_lock(&g_stop_lock);
  s = g_stop;
  pthread_mutex_unlock(&g_stop_lock);
  return s;
}

/* Plans while the main thread swaps tables: every plan must succeed with a
   CPU strategy of one table or the other. */
static void *plan_thread(void *arg) {
  int *bad = (int *)arg, i;
  bmm_problem p = case_shape(BMM_F64, BMMX_ROWMAJOR, 6, 3, 4, 5);
  static double a[256], b[256], c[256];
  bmm_plan plan;
  p.a.ptr = a, p.b.ptr = b, p.c.ptr = c;
  for (i = 0; i < 200000 && (i % 64 || !stopped()); ++i) {
    if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) != BMM_OK ||
        bmm_strategy_backend(plan.strategy) != BMM_BACKEND_CPU)
      ++*bad;
  }
  return NULL;
}

static void test_table_concurrent(void) {
  pthread_t th;
  int bad = 0, i;
  bmm_table_rule rules[4];
  int n = test_rules(rules);
  g_stop = 0;
  if (!CHECK(pthread_create(&th, NULL, plan_thread, &bad) == 0, "pthread_create")) return;
  for (i = 0; i < 2000; ++i) {
    bmm_set_table(BMM_BACKEND_CPU, rules, n);
    bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  }
  pthread_mutex_lock(&g_stop_lock);
  g_stop = 1;
  pthread_mutex_unlock(&g_stop_lock);
  pthread_join(th, NULL);
  CHECK(bad == 0, "%d plans failed while another thread swapped tables", bad);
}

/* ---- registry ------------------------------------------------------------------ */

/* ---- regressions of issue 24 (adversarial testing) ------------------------ */

/* alpha multiplies the whole sum over k, never a part of it: f64, k = 512
   (two of cpu_blocked's 256-long K blocks), B column-major (so packed, not read
   in place), A all ones, B's column j holding 1e10 at l = 0 and -1e10 + 1 at
   l = 256: the exact C is alpha * 1 = 1e300, while alpha * 1e10 alone is Inf
   (and Inf + alpha * (-1e10 + 1) is NaN). Every strategy that claims it, and
   AUTO (which picked cpu_blocked here), must give 1e300. */
static void test_regress_alpha_whole_sum(void) {
  enum { M = 16, N = 16, K = 512 };
  static double a[M * K], b[K * N], c[M * N];
  int s, i;
  for (i = 0; i < M * K; ++i)
    a[i] = 1.0;
  for (s = -1; s < NCPU; ++s) {
    bmm_problem p = bmm_problem_rowmajor(BMM_F64, 1, M, N, K, a, b, c);
    bmm_plan plan;
    int bad = 0;
    p.b.row_stride = 1, p.b.col_stride = K; /* column-major B */
    p.alpha = 1e300;
    p.strategy = s < 0 ? BMM_STRATEGY_AUTO : cpu_strategies[s].s;
    memset(b, 0, sizeof b);
    for (i = 0; i < N; ++i)
      b[i * K] = 1e10, b[i * K + 256] = -1e10 + 1;
    if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) != BMM_OK) continue; /* not claimed */
    for (i = 0; i < M * N; ++i)
      c[i] = NAN;
    if (!CHECK(bmm_cpu(&p) == BMM_OK, "%s: %s", bmm_strategy_name(plan.strategy), bmm_last_error()))
      continue;
    for (i = 0; i < M * N; ++i)
      bad += !(fabs(c[i] - 1e300) <= 1e300 * 1e-15);
    CHECK(bad == 0, "%s (%s): %d of %d C elements are not alpha * 1 = 1e300 (C[0] = %g)",
          bmm_strategy_name(plan.strategy), s < 0 ? "AUTO" : "forced", bad, M * N, c[0]);
  }
}

/* cpu_blocked with B packed and k > KC (256): a unit holds its rows' sums over
   the KC blocks in scratch (at most BMM__BLK_MH rows), and a row-major B is
   packed a row at a time. Small-integer data: every sum is exact, so blocked
   and cpu_ref must agree exactly. Column-major B, 8 entries of MH + 10 rows by
   NC + 8 columns (16 units: one of MH held rows and one of 10 per column
   block, every tile of the scratch, a narrow last panel: the scratch's extent,
   under ASan; with MH = 512 and 6-row tiles the last tile outgrew a scratch of
   MH rows, which 8 columns did not reach); row-major B of 130 x 260 (packed:
   over 256 KiB), both dtypes. */
static void test_regress_blocked_held_rows(void) {
  static const struct {
    int64_t batch, m, n, k;
    int colb;
  } cases[] = {{8, BMM__BLK_MH + 10, BMM__BLK_NC + 8, 260, 1}, {1, 100, 130, 260, 0}};
  int ci, d;
  for (ci = 0; ci < 2; ++ci)
    for (d = 0; d < 2; ++d) {
      const int64_t bt = cases[ci].batch, m = cases[ci].m, n = cases[ci].n, k = cases[ci].k;
      const bmm_dtype dt = d ? BMM_F64 : BMM_F32;
      const size_t sz = d ? sizeof(double) : sizeof(float);
      char *a = malloc(sz * (size_t)(bt * m * k)), *b = malloc(sz * (size_t)(bt * k * n));
      char *c[2] = {malloc(sz * (size_t)(bt * m * n)), malloc(sz * (size_t)(bt * m * n))};
      int64_t i, bad = 0;
      int r;
      if (!CHECK(a && b && c[0] && c[1], "allocation")) {
        free(a), free(b), free(c[0]), free(c[1]);
        continue;
      }
      for (i = 0; i < bt * m * k; ++i)
        d ? (((double *)a)[i] = (double)(i % 13 - 6)) : (((float *)a)[i] = (float)(i % 13 - 6));
      for (i = 0; i < bt * k * n; ++i)
        d ? (((double *)b)[i] = (double)(i % 11 - 5)) : (((float *)b)[i] = (float)(i % 11 - 5));
      for (r = 0; r < 2; ++r) {
        bmm_problem p = bmm_problem_rowmajor(dt, bt, m, n, k, a, b, c[r]);
        if (cases[ci].colb) p.b.row_stride = 1, p.b.col_stride = k;
        for (i = 0; i < bt * m * n; ++i)
          d ? (((double *)c[r])[i] = (double)(i % 7)) : (((float *)c[r])[i] = (float)(i % 7));
        p.alpha = 0.5, p.beta = 0.25;
        p.strategy = r ? BMM_CPU_REF : BMM_CPU_BLOCKED;
        CHECK(bmm_cpu(&p) == BMM_OK, "%s: %s", r ? "cpu_ref" : "cpu_blocked", bmm_last_error());
      }
      bad = memcmp(c[0], c[1], sz * (size_t)(bt * m * n)) != 0;
      CHECK(!bad, "%s %lldx%lldx%lld x %lld, %s B: cpu_blocked differs from cpu_ref",
            bmm_dtype_name(dt), (long long)m, (long long)n, (long long)k, (long long)bt,
            cases[ci].colb ? "column-major" : "row-major");
      free(a), free(b), free(c[0]), free(c[1]);
    }
}

/* cpu_blocked reads a B of up to 512 KiB in place where the call stays in
   cache and k <= 256, and packs it where the call is out of cache or k > 256
   (bmm__cpu_blk_in_place): explain names the choice, and an entry's bits do
   not depend on it (one entry alone against the same entry inside a call of
   over STREAM_BYTES). Random data; 13 rows and a right edge. Runs and builds
   that set the threshold (0: every call out of cache; negative: none) move
   the expectations with it. */
static void test_blocked_in_place_bits(void) {
  static const struct {
    bmm_dtype dt;
    int64_t m, n, k;
    int in_place; /* alone, in cache */
  } cases[] = {{BMM_F64, 13, 250, 256, 1}, {BMM_F32, 13, 500, 256, 1}, {BMM_F32, 13, 250, 300, 0}};
  int ci;
  for (ci = 0; ci < 3; ++ci) {
    const bmm_dtype dt = cases[ci].dt;
    const int64_t m = cases[ci].m, n = cases[ci].n, k = cases[ci].k;
    const size_t sz = bmm_dtype_size(dt);
    const double entry = (double)(m * k + k * n + m * n) * (double)sz;
    const int64_t bt = (int64_t)(STREAM_BYTES / entry) + 2, e[2] = {0, bt - 1};
    /* in place where the rule allows it and the call is in cache */
    const int outs = STREAM_BYTES >= 0, big_ip = cases[ci].in_place && !outs,
              one_ip = cases[ci].in_place && !(outs && entry >= STREAM_BYTES);
    char *a = malloc(sz * (size_t)(bt * m * k)), *b = malloc(sz * (size_t)(bt * k * n));
    char *c = malloc(sz * (size_t)(bt * m * n)), *c1 = malloc(sz * (size_t)(m * n)), why[2][2048];
    uint64_t seed = 77 + (uint64_t)ci;
    bmm_problem p;
    int j;
    if (!CHECK(a && b && c && c1, "allocation")) {
      free(a), free(b), free(c), free(c1);
      continue;
    }
    bmmx_fill(dt, a, bt * m * k, &seed), bmmx_fill(dt, b, bt * k * n, &seed);
    p = bmm_problem_rowmajor(dt, bt, m, n, k, a, b, c);
    p.strategy = BMM_CPU_BLOCKED;
    CHECK(bmm_cpu(&p) == BMM_OK &&
              bmm_explain(&p, BMM_BACKEND_CPU, why[0], sizeof why[0]) == BMM_OK,
          "%s batch %lld: %s", bmm_dtype_name(dt), (long long)bt, bmm_last_error());
    CHECK(contains(why[0], big_ip ? "B read in place" : "B packed in blocks"),
          "%s %lldx%lldx%lld, batch %lld: want B %s: %s", bmm_dtype_name(dt), (long long)m,
          (long long)n, (long long)k, (long long)bt, big_ip ? "in place" : "packed", why[0]);
    for (j = 0; j < 2; ++j) {
      bmm_problem q = bmm_problem_rowmajor(dt, 1, m, n, k, a + sz * (size_t)(e[j] * m * k),
                                           b + sz * (size_t)(e[j] * k * n), c1);
      q.strategy = BMM_CPU_BLOCKED;
      CHECK(bmm_cpu(&q) == BMM_OK &&
                bmm_explain(&q, BMM_BACKEND_CPU, why[1], sizeof why[1]) == BMM_OK,
            "%s batch 1: %s", bmm_dtype_name(dt), bmm_last_error());
      CHECK(contains(why[1], one_ip ? "B read in place" : "B packed in blocks"),
            "%s %lldx%lldx%lld alone: want B %s: %s", bmm_dtype_name(dt), (long long)m,
            (long long)n, (long long)k, one_ip ? "in place" : "packed", why[1]);
      CHECK(memcmp(c1, c + sz * (size_t)(e[j] * m * n), sz * (size_t)(m * n)) == 0,
            "%s %lldx%lldx%lld: entry %lld alone differs from the same entry in a batch of %lld",
            bmm_dtype_name(dt), (long long)m, (long long)n, (long long)k, (long long)e[j],
            (long long)bt);
    }
    free(a), free(b), free(c), free(c1);
  }
}

/* cpu_blocked's entries of the sizes in BMM__CPU_BLK_SIZES, packed row-major,
   run tiles compiled for the size (bmm__cpu_blk_fixed): explain says so
   wherever nothing is asked for ahead, and C is bit for bit the run-time
   tiles' C of the same call with C's rows padded (which keeps the fixed
   copy out). f32 and f64, plain and with alpha, beta and a bias, batch 3. */
static void test_blocked_fixed_sizes(void) {
  static const bmm_dtype dts[] = {BMM_F32, BMM_F64};
  const int nsizes = (int)(sizeof bmm__cpu_blk_sizes / sizeof bmm__cpu_blk_sizes[0]);
  int si, di, v;
  for (si = 0; si < nsizes; ++si)
    for (di = 0; di < 2; ++di)
      for (v = 0; v < 2; ++v) {
        const bmm_dtype dt = dts[di];
        const int64_t m = bmm__cpu_blk_sizes[si][0], n = bmm__cpu_blk_sizes[si][1],
                      k = bmm__cpu_blk_sizes[si][2], bt = 3, np = n + 1;
        const size_t sz = bmm_dtype_size(dt);
        char *a = malloc(sz * (size_t)(bt * m * k)), *b = malloc(sz * (size_t)(bt * k * n));
        char *c = malloc(sz * (size_t)(bt * m * n)), *cp = malloc(sz * (size_t)(bt * m * np));
        char *bias = malloc(sz * (size_t)n), why[2][2048];
        uint64_t seed = 91 + (uint64_t)(si * 4 + di * 2 + v);
        bmm_problem p, q;
        int64_t e, i, bad = 0;
        if (!CHECK(a && b && c && cp && bias, "allocation")) {
          free(a), free(b), free(c), free(cp), free(bias);
          continue;
        }
        bmmx_fill(dt, a, bt * m * k, &seed), bmmx_fill(dt, b, bt * k * n, &seed);
        bmmx_fill(dt, c, bt * m * n, &seed), bmmx_fill(dt, bias, n, &seed);
        for (e = 0; e < bt * m; ++e) /* the same C, rows n + 1 apart */
          memcpy(cp + sz * (size_t)(e * np), c + sz * (size_t)(e * n), sz * (size_t)n);
        p = bmm_problem_rowmajor(dt, bt, m, n, k, a, b, c);
        p.strategy = BMM_CPU_BLOCKED;
        if (v) p.alpha = 0.75, p.beta = -1.25, p.bias = bias;
        q = p;
        q.c.ptr = cp, q.c.row_stride = np, q.c.batch_stride[0] = m * np;
        CHECK(bmm_cpu(&p) == BMM_OK && bmm_cpu(&q) == BMM_OK &&
                  bmm_explain(&p, BMM_BACKEND_CPU, why[0], sizeof why[0]) == BMM_OK &&
                  bmm_explain(&q, BMM_BACKEND_CPU, why[1], sizeof why[1]) == BMM_OK,
              "%s %lldx%lldx%lld: %s", bmm_dtype_name(dt), (long long)m, (long long)n, (long long)k,
              bmm_last_error());
        /* the fixed copy where the next entry is not asked for (that path
           has its own test, prefetch) */
        CHECK(contains(why[0], "tiles compiled for that size") !=
                  contains(why[0], "next entry's A and B prefetched"),
              "%s %lldx%lldx%lld packed: want the fixed tiles: %s", bmm_dtype_name(dt),
              (long long)m, (long long)n, (long long)k, why[0]);
        CHECK(!contains(why[1], "tiles compiled for that size"),
              "%s %lldx%lldx%lld, C's rows padded: want the run-time tiles: %s", bmm_dtype_name(dt),
              (long long)m, (long long)n, (long long)k, why[1]);
        for (e = 0; e < bt * m; ++e)
          for (i = 0; i < n; ++i)
            bad += memcmp(c + sz * (size_t)(e * n + i), cp + sz * (size_t)(e * np + i), sz) != 0;
        CHECK(!bad, "%s %lldx%lldx%lld%s: %lld elements differ from the run-time tiles'",
              bmm_dtype_name(dt), (long long)m, (long long)n, (long long)k,
              v ? " (alpha, beta, bias)" : "", (long long)bad);
        free(a), free(b), free(c), free(cp), free(bias);
      }
}

/* A temporary file holding `size` bytes of `text`; its path in path[64]. */
static void tmp_file(char *path, const char *text, size_t size) {
  FILE *f;
  snprintf(path, 64, "/tmp/bmm_test_cpu.%ld.txt", (long)getpid());
  f = fopen(path, "wb");
  if (f) fwrite(text, 1, size, f), fclose(f);
}

/* Does strategy s claim p (by the plan's classes)? */
static int claims(bmm_strategy s, const bmm_problem *p) {
  bmm_problem q = *p;
  bmm_plan plan;
  q.strategy = BMM_CPU_REF;
  return bmm_plan_problem(&q, BMM_BACKEND_CPU, &plan) == BMM_OK && bmm_strategy_supports(s, &plan);
}

/* every strategy with its list's claim-flags column */
static const struct claim_flags {
  bmm_strategy s;
  unsigned cf;
} claim_list[] = {
#define X(E, name, l, mm, mn, mk, cf, d) {BMM_##E, cf},
    BMM_CPU_STRATEGIES(X) BMM_CUDA_STRATEGIES(X)
#undef X
};

/* BMM_CLAIM_HALVES_ONLY (cuda_mma): its strategies claim f16 and bf16 and no
   other dtype, every other strategy claims a problem whatever its dtype;
   such a strategy cannot end a table (it claims no f32 problem), so a table
   whose catch-all names it is refused. */
static void test_halves_only_claim(void) {
  static const bmm_dtype dts[] = {BMM_F32, BMM_F64, BMM_C64, BMM_C128, BMM_F16, BMM_BF16};
  double buf[3][64];
  bmm_problem f32;
  size_t i, d;
  int flagged = 0;
  memset(buf, 0, sizeof buf);
  f32 = bmm_problem_rowmajor(BMM_F32, 2, 2, 2, 2, buf[0], buf[1], buf[2]);
  for (i = 0; i < sizeof claim_list / sizeof claim_list[0]; ++i) {
    const bmm_strategy st = claim_list[i].s;
    const unsigned cf = claim_list[i].cf;
    flagged += (cf & BMM_CLAIM_HALVES_ONLY) != 0;
    for (d = 0; d < sizeof dts / sizeof dts[0]; ++d) {
      const bmm_problem p = bmm_problem_rowmajor(dts[d], 2, 2, 2, 2, buf[0], buf[1], buf[2]);
      const int half = dts[d] == BMM_F16 || dts[d] == BMM_BF16;
      const int want = (cf & BMM_CLAIM_HALVES_ONLY) ? half : claims(st, &f32);
      CHECK(claims(st, &p) == want, "%s claims a 2x2x2 %s problem %d (claim flags %u)",
            bmm_strategy_name(st), bmm_dtype_name(dts[d]), claims(st, &p), cf);
    }
  }
  CHECK(flagged == 1, "%d strategies with BMM_CLAIM_HALVES_ONLY (cuda_mma alone expected)",
        flagged);
  {
    bmm_table_rule r[1];
    bmm_status s;
    memset(r, 0, sizeof r);
    r[0].strategy = BMM_CUDA_MMA;
    s = bmm_set_table(BMM_BACKEND_CUDA, r, 1);
    CHECK(s == BMM_BAD_TABLE, "a CUDA table ending in a cuda_mma catch-all: %s (%s)",
          bmm_status_name(s), bmm_last_error());
    bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
  }
}

/* cuda_cublas does not claim a problem with a conj flag (cuBLAS cannot
   conjugate without transposing), so a table rule naming it is skipped for
   such a problem rather than AUTO failing the call; the kernels claim it. */
static void test_cublas_claim_conj(void) {
  bmm_c64 a[8], b[8], c[8];
  bmm_problem p;
  memset(a, 0, sizeof a), memset(b, 0, sizeof b), memset(c, 0, sizeof c);
  p = bmm_problem_rowmajor(BMM_C64, 2, 2, 2, 2, a, b, c);
  CHECK(claims(BMM_CUDA_CUBLAS, &p), "cuda_cublas must claim a plain row-major c64 problem");
  p.a.conj = 1;
  CHECK(!claims(BMM_CUDA_CUBLAS, &p), "cuda_cublas claims a problem with a.conj");
  CHECK(claims(BMM_CUDA_LOOP, &p), "cuda_loop must claim a problem with a.conj");
  p.a.conj = 0, p.b.conj = 1;
  CHECK(!claims(BMM_CUDA_CUBLAS, &p), "cuda_cublas claims a problem with b.conj");
  /* every strategy as its list's claim-flags column says */
  {
    bmm_problem plain = p;
    size_t i;
    plain.a.conj = plain.b.conj = 0;
    for (i = 0; i < sizeof claim_list / sizeof claim_list[0]; ++i) {
      const bmm_strategy st = claim_list[i].s;
      CHECK(claims(st, &p) == (claims(st, &plain) && (claim_list[i].cf & BMM_CLAIM_CONJ)),
            "%s: claims a b.conj problem %d, its plain twin %d, claim flags %u",
            bmm_strategy_name(st), claims(st, &p), claims(st, &plain), claim_list[i].cf);
    }
  }
}

/* cuda_staged claims the general problems whose operands are packed entry
   after entry, each row- or column-major (BMM_CLAIM_PACKED: col_a, trans_b,
   colmajor) besides its row-major classes; not padded or reversed rows, two
   batch dims or batch-innermost operands, and nothing past its k limit.
   emu_test runs what it claims against the reference. */
static void test_staged_claims_packed(void) {
  int l;
  for (l = 0; l < BMMX_LAYOUT_COUNT; ++l) {
    const int want = l == BMMX_ROWMAJOR || l == BMMX_SHARED_B_BIAS || l == BMMX_COL_A ||
                     l == BMMX_TRANS_B || l == BMMX_COLMAJOR;
    int kk;
    for (kk = 0; kk < 2; ++kk) {
      bmmx_case c;
      bmm_problem p;
      memset(&c, 0, sizeof c);
      c.dtype = BMM_F32, c.layout = l, c.batch = 6, c.m = 3, c.n = 2, c.k = kk ? 129 : 5;
      p = bmmx_problem(&c, (void *)64, (void *)(1 << 20), (void *)(1 << 24), (void *)(1 << 26));
      CHECK(claims(BMM_CUDA_STAGED, &p) == (want && !kk), "cuda_staged claims %s 3x2x%lld: %d",
            bmmx_layout_name(l), (long long)c.k, claims(BMM_CUDA_STAGED, &p));
      /* LOOP claims everything: the claim above is the flag's, not chance */
      CHECK(claims(BMM_CUDA_LOOP, &p), "cuda_loop does not claim %s", bmmx_layout_name(l));
    }
  }
}

/* The text after a NUL byte is part of the file: a NUL is refused, naming
   its line, not taken as the end of the table. */
static void test_regress_table_nul(void) {
  static const char text[] = "* * 1..4 * * * cpu_dot\n* * * * * * cpu_ref\n\0garbage\n";
  static const char mid[] = "* * 1..4 * * * cpu_dot\n* * * * * * cpu\0_ref\n";
  char path[64];
  tmp_file(path, text, sizeof text - 1);
  if (EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "line 3", "NUL byte after the rules"))
    CHECK(contains(bmm_last_error(), "NUL"), "message `%s` does not name the NUL",
          bmm_last_error());
  tmp_file(path, mid, sizeof mid - 1);
  EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "line 2", "NUL byte inside a rule");
  unlink(path);
}

/* Sizes whose products overflow int64 are refused as OVERFLOW by the helper's
   problem, the helper computing no wrapped product (UBSan: no overflow). */
static void test_regress_rowmajor_overflow(void) {
  const int64_t big = ((int64_t)1 << 40) + 1; /* big^2 wraps to 2^41 + 1, not 0 */
  float x = 0;
  bmm_problem p = bmm_problem_rowmajor(BMM_F32, 3, big, big, big, &x, &x, &x);
  CHECK(p.a.batch_stride[0] == 0 && p.b.batch_stride[0] == 0 && p.c.batch_stride[0] == 0,
        "overflowing packed strides are %lld %lld %lld, want 0", (long long)p.a.batch_stride[0],
        (long long)p.b.batch_stride[0], (long long)p.c.batch_stride[0]);
  EXPECT(bmm_cpu(&p), BMM_OVERFLOW, NULL, "rowmajor 2^40+1 cubed");
  p = bmm_problem_rowmajor(BMM_F32, 3, -big, big, big, &x, &x, &x);
  EXPECT(bmm_cpu(&p), BMM_BAD_SIZE, NULL, "rowmajor negative m");
}

/* bmm_cpu_X runs X or refuses; it never runs the strategy in problem.strategy. */
static void test_regress_entry_point(void) {
  float a[2 * 3 * 4], b[2 * 4 * 5], c[2 * 3 * 5];
  int i, j, k;
  for (i = 0; i < 24; ++i)
    a[i] = (float)i;
  for (i = 0; i < 40; ++i)
    b[i] = (float)(i % 7);
  for (i = 0; i < NCPU; ++i)
    for (j = 0; j < BMM_STRATEGY_COUNT; ++j) {
      bmm_problem p = bmm_problem_rowmajor(BMM_F32, 2, 3, 5, 4, a, b, c);
      bmm_plan plan;
      char ctx[128];
      int untouched = 1;
      bmm_status want;
      p.strategy = (bmm_strategy)j;
      snprintf(ctx, sizeof ctx, "bmm_%s with problem.strategy %s", cpu_strategies[i].name,
               bmm_strategy_name((bmm_strategy)j));
      for (k = 0; k < 30; ++k)
        c[k] = -7.0f;
      if (j != BMM_STRATEGY_AUTO && j != (int)cpu_strategies[i].s) {
        EXPECT(cpu_strategies[i].entry(&p), BMM_BAD_STRATEGY, cpu_strategies[i].name, ctx);
        for (k = 0; k < 30; ++k)
          untouched &= c[k] == -7.0f;
        CHECK(untouched, "%s: C written", ctx);
        continue;
      }
      p.strategy = cpu_strategies[i].s;
      want = bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK ? BMM_OK : BMM_UNSUPPORTED;
      p.strategy = (bmm_strategy)j;
      EXPECT(cpu_strategies[i].entry(&p), want, NULL, ctx);
    }
}

/* What a strategy claims it runs, whatever alpha, k or degenerate sizes make
   of the other classes: batch-innermost problems with alpha = 0, k = 0,
   batch = 1 or m = n = k = 1 reach every strategy that claims batch_inner. */
static void test_regress_claims_degenerate(void) {
  static const struct {
    int64_t batch, m, n, k;
    double alpha;
    const char *what;
  } cases[] = {{9, 3, 4, 5, 0.0, "alpha 0"},
               {9, 3, 4, 0, 1.5, "k 0"},
               {1, 3, 4, 5, 1.5, "batch 1"},
               {9, 1, 1, 1, 1.5, "m = n = k = 1"},
               {1, 1, 1, 1, 0.0, "all 1, alpha 0"}};
  int c, i, dt;
  for (dt = BMM_F32; dt < BMM_DTYPE_COUNT; ++dt)
    for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); ++c) {
      bmm_problem p = case_shape((bmm_dtype)dt, BMMX_BATCH_INNER, cases[c].batch, cases[c].m,
                                 cases[c].n, cases[c].k);
      tprob t;
      p.alpha = cases[c].alpha, p.beta = 0.5;
      tprob_make(&t, &p, 1, (uint64_t)(c + 31 * dt), cases[c].what);
      for (i = 0; i < NCPU; ++i) {
        unsigned l;
        int64_t mm, mn, mk;
        bmm_problem q = t.p;
        bmm_status st;
        claim_of(cpu_strategies[i].s, &l, &mm, &mn, &mk);
        if (!(l & BMM_L_BATCH_INNER)) continue;
        memcpy(t.c.alloc, t.c.init, (size_t)t.c.count * t.c.es);
        q.strategy = cpu_strategies[i].s;
        st = bmm_cpu(&q);
        if (CHECK(st == BMM_OK, "%s %s batch-inner, %s forced: %s", bmm_dtype_name(p.dtype),
                  cases[c].what, cpu_strategies[i].name, bmm_last_error()))
          tprob_verify(&t, q.strategy, "bmm_cpu");
      }
      tprob_free(&t);
    }
}

/* k = 0 with alpha = +-Inf or NaN: alpha * (empty sum) is not computed (BLAS),
   so C = beta*C + bias, in every strategy and in the reference. */
static void test_regress_k0_nonfinite_alpha(void) {
  const double alphas[3] = {INFINITY, -INFINITY, NAN};
  double a[1], b[1], c[2 * 3 * 4], bias[4];
  long double ref[24];
  int ai, s, i;
  for (ai = 0; ai < 3; ++ai)
    for (s = -1; s < NCPU; ++s) {
      bmm_problem p = bmm_problem_rowmajor(BMM_F64, 2, 3, 4, 0, a, b, c);
      int bad = 0;
      p.alpha = alphas[ai], p.beta = 0.5, p.bias = bias;
      for (i = 0; i < 4; ++i)
        bias[i] = i + 1;
      for (i = 0; i < 24; ++i)
        c[i] = i;
      if (s < 0) {
        EXPECT(bmm_reference(&p, ref, NULL), BMM_OK, NULL, "reference");
        for (i = 0; i < 24; ++i)
          bad += ref[i] != 0.5L * i + (i % 4 + 1);
        CHECK(bad == 0, "reference, k 0, alpha %g: %d elements not beta*C + bias", alphas[ai], bad);
      }
      p.strategy = s < 0 ? BMM_STRATEGY_AUTO : cpu_strategies[s].s;
      if (s >= 0 && !claims(p.strategy, &p)) continue;
      if (!EXPECT(bmm_cpu(&p), BMM_OK, NULL, "k 0, non-finite alpha")) continue;
      for (i = 0, bad = 0; i < 24; ++i)
        bad += c[i] != 0.5 * i + (i % 4 + 1);
      CHECK(bad == 0, "%s, k 0, alpha %g: %d elements not beta*C + bias (C[0] = %g)",
            s < 0 ? "auto" : cpu_strategies[s].name, alphas[ai], bad, c[0]);
    }
}

/* A FIFO (what BMM_TABLE_FILE=<(...) gives) holding a valid table loads; a
   directory, /proc/self/status and a file over 1 MiB are refused saying why. */
static void test_regress_table_streams(void) {
  static const char table[] = "* * 1..4 * * * cpu_dot\n* * * * * * cpu_ref\n";
  char fifo[64], path[64];
  char *big;
  pid_t pid;
  snprintf(fifo, sizeof fifo, "/tmp/bmm_test_fifo.%ld", (long)getpid());
  unlink(fifo);
  if (CHECK(mkfifo(fifo, 0600) == 0, "mkfifo failed")) {
    pid = fork();
    if (pid == 0) {
      FILE *f = fopen(fifo, "wb");
      if (f) fputs(table, f), fclose(f);
      _exit(0);
    }
    EXPECT(bmm_load_table_file(fifo), BMM_OK, NULL, "a FIFO holding a valid table");
    waitpid(pid, NULL, 0);
    unlink(fifo);
    bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  }
  if (EXPECT(bmm_load_table_file("tests"), BMM_TABLE_FILE, "tests", "a directory"))
    CHECK(contains(bmm_last_error(), "directory"), "directory: message `%s`", bmm_last_error());
  EXPECT(bmm_load_table_file("/proc/self/status"), BMM_TABLE_FILE, "line 1", "/proc/self/status");
  big = (char *)malloc((1 << 20) + 2);
  if (big) {
    memset(big, '#', (1 << 20) + 1);
    tmp_file(path, big, (1 << 20) + 1);
    EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "larger than 1 MiB", "1 MiB + 1 byte");
    tmp_file(path, big, 1 << 20); /* exactly 1 MiB of comments: read, no rules */
    EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "no rules", "1 MiB of comments");
    unlink(path);
    free(big);
  }
}

/* Every error of a file names a line: a missing or misplaced catch-all, more
   than 64 rules of a backend, a bad rule caught by the table check. */
static void test_regress_table_lines(void) {
  static char text[65 * 32 + 64];
  char path[64];
  int i;
  size_t n = 0;
  tmp_file(path, "# c\n* * 1..4 * * * cpu_dot\n\n* * 5.. * * * cpu_ref\n", 48);
  EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "line 4", "no catch-all");
  snprintf(text, sizeof text, "* * * * * * cpu_ref\n# c\n* * 1..4 * * * cpu_dot\n");
  tmp_file(path, text, strlen(text));
  EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "line 3", "catch-all not last");
  snprintf(text, sizeof text, "* * * * * * cpu_small\n");
  tmp_file(path, text, strlen(text));
  EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "line 1", "catch-all of a limited strategy");
  for (i = 0; i < 65; ++i)
    n += (size_t)snprintf(text + n, sizeof text - n, "* * * * * * cpu_ref\n");
  tmp_file(path, text, n);
  EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "line 65", "65 CPU rules");
  tmp_file(path, "* * * * * * cpu_ref threads=2 threads=3\n", 40);
  EXPECT(bmm_load_table_file(path), BMM_TABLE_FILE, "line 1", "a tunable given twice");
  CHECK(contains(bmm_last_error(), "threads given twice"), "repeated tunable: `%s`",
        bmm_last_error());
  unlink(path);
}

/* bmm_set_table checks every field, the note too: one without a NUL would be
   read past its end by bmm_table_format and explain; a line break in it
   would break the file format. */
static void test_regress_set_table_note(void) {
  bmm_table_rule r[1];
  memset(r, 0, sizeof r);
  r[0].strategy = BMM_CPU_REF;
  memset(r[0].note, 'x', sizeof r[0].note);
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, r, 1), BMM_BAD_TABLE, "note", "note without a NUL");
  snprintf(r[0].note, sizeof r[0].note, "two\nlines");
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, r, 1), BMM_BAD_TABLE, "note", "note with a newline");
  snprintf(r[0].note, sizeof r[0].note, "fine");
  EXPECT(bmm_set_table(BMM_BACKEND_CPU, r, 1), BMM_OK, NULL, "a plain note");
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
}

/* Element pointers not aligned to their size are refused (MISALIGNED) by
   validation, so by every entry point, and nothing is written. */
static void test_regress_misaligned(void) {
  static double buf[4 * 64];
  int op, off;
  for (op = 0; op < 4; ++op)
    for (off = 1; off < 8; ++off) {
      const int f32 = off < 4;
      char *base = (char *)buf;
      bmm_problem p =
          bmm_problem_rowmajor(f32 ? BMM_F32 : BMM_F64, 2, 3, 4, 5, base, base + 512, base + 1024);
      char what[96];
      if (!f32 && off % 4 == 0) continue;
      p.bias = base + 1536;
      if (op == 0) p.a.ptr = base + off;
      if (op == 1) p.b.ptr = base + 512 + off;
      if (op == 2) p.c.ptr = base + 1024 + off;
      if (op == 3) p.bias = base + 1536 + off;
      snprintf(what, sizeof what, "%s %s at +%d bytes", bmm_dtype_name(p.dtype),
               op == 0   ? "a.ptr"
               : op == 1 ? "b.ptr"
               : op == 2 ? "c.ptr"
                         : "bias",
               off);
      ERR(what, &p, BMM_MISALIGNED,
          op == 3   ? "bias"
          : op == 0 ? "a.ptr"
          : op == 1 ? "b.ptr"
                    : "c.ptr");
    }
}

/* ---- plans run as made, and pointed at other buffers ---------------------- */

/* bmm_cpu_run_plan runs what bmm_cpu would: the same bits on the plan's own
   buffers; after bmm_plan_rebind (a second set of buffers, at other addresses
   and alignments) the reference's values there, nothing written outside C,
   and bmm_cpu's bits on them. Every dtype and layout, the alpha/beta/bias
   modes by turns, k = 0 and an empty batch among the shapes. */
static void test_plan_run(void) {
  static const int64_t shapes[][4] = {{1000, 3, 1, 25}, {300, 4, 4, 4},  {40, 16, 16, 16},
                                      {6, 32, 64, 32},  {3, 70, 40, 33}, {50, 2, 5, 0},
                                      {0, 3, 3, 3}};
  static const bmm_dtype dts[] = {BMM_F32, BMM_F64, BMM_F16, BMM_BF16, BMM_C64, BMM_C128};
  int s, d, l, ran = 0;
  for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s)
    for (d = 0; d < (int)(sizeof dts / sizeof dts[0]); ++d)
      for (l = 0; l < BMMX_LAYOUT_COUNT; ++l) {
        const uint64_t seed = (uint64_t)((s * 8 + d) * 8 + l) * 2;
        bmm_problem p =
            case_shape(dts[d], l, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
        tprob t, u;
        bmm_plan plan;
        unsigned char *want;
        size_t nt, nu;
        int bias;
        apply_mode(&p, s + d + l, l, &bias);
        tprob_make(&t, &p, bias, seed, "plan, its own buffers");
        tprob_make(&u, &p, bias, seed + 1, "plan, rebound");
        t.samples = u.samples = 3;
        nt = (size_t)t.c.count * t.c.es, nu = (size_t)u.c.count * u.c.es;
        want = (unsigned char *)malloc(nt > nu ? nt : nu);
        if (!want) exit(2);
        if (CHECK(bmm_cpu(&t.p) == BMM_OK, "[%s] bmm_cpu: %s", t.label, bmm_last_error()) &&
            CHECK(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan) == BMM_OK, "[%s] plan: %s",
                  t.label, bmm_last_error())) {
          memcpy(want, t.c.alloc, nt);
          memcpy(t.c.alloc, t.c.init, nt);
          if (CHECK(bmm_cpu_run_plan(&plan) == BMM_OK, "[%s] run: %s", t.label, bmm_last_error()) &&
              tprob_verify(&t, BMM_STRATEGY_AUTO, "bmm_cpu_run_plan"))
            CHECK(memcmp(want, t.c.alloc, nt) == 0, "[%s] C's bits differ from bmm_cpu's", t.label);
          if (CHECK(bmm_plan_rebind(&plan, u.p.a.ptr, u.p.b.ptr, u.c.ptr, u.p.bias) == BMM_OK,
                    "[%s] rebind: %s", u.label, bmm_last_error()) &&
              CHECK(bmm_cpu_run_plan(&plan) == BMM_OK, "[%s] run: %s", u.label, bmm_last_error()) &&
              tprob_verify(&u, BMM_STRATEGY_AUTO, "bmm_cpu_run_plan after bmm_plan_rebind")) {
            memcpy(want, u.c.alloc, nu);
            memcpy(u.c.alloc, u.c.init, nu);
            if (CHECK(bmm_cpu(&u.p) == BMM_OK, "[%s] bmm_cpu: %s", u.label, bmm_last_error()))
              CHECK(memcmp(want, u.c.alloc, nu) == 0,
                    "[%s] C's bits differ from bmm_cpu's on the same buffers", u.label);
          }
          ++ran;
        }
        free(want);
        tprob_free(&t), tprob_free(&u);
      }
  CHECK(ran > 0, "no plan ran");
}

/* A plan keeps the strategy it was made with when the table changes after:
   it runs the kernel and the bits it ran before, where bmm_cpu now runs
   cpu_ref's (bmm__cpu_last_kernel: the kernel of the latest call). */
static void test_plan_keeps_strategy(void) {
  bmm_problem p = case_shape(BMM_F64, BMMX_ROWMAJOR, 40, 16, 16, 33);
  bmm_table_rule ref;
  bmm_plan plan;
  tprob t;
  unsigned char *want;
  size_t n;
  int kernel;
  tprob_make(&t, &p, 0, 99, "plan under a changed table");
  n = (size_t)t.c.count * t.c.es;
  want = (unsigned char *)malloc(n);
  if (!want) exit(2);
  memset(&ref, 0, sizeof ref);
  ref.strategy = BMM_CPU_REF;
  if (CHECK(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan) == BMM_OK, "plan: %s",
            bmm_last_error()) &&
      CHECK(bmm_cpu(&t.p) == BMM_OK, "bmm_cpu: %s", bmm_last_error())) {
    kernel = bmm__cpu_last_kernel;
    memcpy(want, t.c.alloc, n);
    CHECK(kernel != BMM__CPU_K_ref, "the default table runs cpu_ref here (test bug)");
    CHECK(bmm_set_table(BMM_BACKEND_CPU, &ref, 1) == BMM_OK, "set table: %s", bmm_last_error());
    memcpy(t.c.alloc, t.c.init, n);
    CHECK(bmm_cpu(&t.p) == BMM_OK && bmm__cpu_last_kernel == BMM__CPU_K_ref,
          "bmm_cpu under cpu_ref's table ran kernel %s",
          bmm__cpu_kernel_names[bmm__cpu_last_kernel]);
    memcpy(t.c.alloc, t.c.init, n);
    if (CHECK(bmm_cpu_run_plan(&plan) == BMM_OK, "run: %s", bmm_last_error())) {
      CHECK(bmm__cpu_last_kernel == kernel,
            "the plan of %s ran kernel %s after the table changed, %s before",
            bmm_strategy_name(plan.strategy), bmm__cpu_kernel_names[bmm__cpu_last_kernel],
            bmm__cpu_kernel_names[kernel]);
      CHECK(memcmp(want, t.c.alloc, n) == 0, "the plan's bits changed with the table");
    }
    bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  }
  free(want);
  tprob_free(&t);
}

/* "" where the kept pick x is the fresh one y field by field, else the
   first field that differs */
static const char *choice_diff(const bmm__cpu_choice *x, const bmm__cpu_choice *y) {
  // clang-format off
#define BMMX_SAME(f) if (x->f != y->f) return #f;
  BMM__CPU_CHOICE_INTS(BMMX_SAME)
  BMM__CPU_CHOICE_I64S(BMMX_SAME)
  BMM__CPU_CHOICE_STRS(BMMX_SAME)
#undef BMMX_SAME
  // clang-format on
  return "";
}

/* The pick a plan keeps is bmm__cpu_pick's, field by field: after
   bmm_plan_problem and after bmm_plan_rebind, for the shapes, dtypes and
   layouts of test_plan_run, and where the call is big enough to stream C
   (bmm__cpu_stream_test = 0) with C moved an element on and back, where
   the streaming answer turns and the plan must pick again. */
static void test_plan_kept(void) {
  static const int64_t shapes[][4] = {{1000, 3, 1, 25}, {300, 4, 4, 4},  {40, 16, 16, 16},
                                      {6, 32, 64, 32},  {3, 70, 40, 33}, {50, 2, 5, 0}};
  static const bmm_dtype dts[] = {BMM_F32, BMM_F64, BMM_F16, BMM_BF16, BMM_C64, BMM_C128};
  const double stream_was = bmm__cpu_stream_test;
  int s, d, l, big, checked = 0, turned = 0;
  for (big = 0; big < 2; ++big) {
    bmm__cpu_stream_test = big ? 0 : stream_was;
    for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s)
      for (d = 0; d < (int)(sizeof dts / sizeof dts[0]); ++d)
        for (l = 0; l < BMMX_LAYOUT_COUNT; ++l) {
          bmm_problem p =
              case_shape(dts[d], l, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
          tprob t;
          bmm_plan plan;
          bmm__cpu_choice kept, now;
          const bmm__cpu_choice *k;
          int bias, step;
          apply_mode(&p, s + d + l, l, &bias);
          p.beta = p.beta_im = 0; /* a C that is only written: the calls that stream */
          tprob_make(&t, &p, bias, (uint64_t)(s * 64 + d * 8 + l), "kept pick");
          if (!CHECK(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan) == BMM_OK, "[%s] plan: %s",
                     t.label, bmm_last_error())) {
            tprob_free(&t);
            continue;
          }
          for (step = 0; step < 3; ++step) {
            /* step 1: C an element on (inside tprob's guard), step 2: back */
            char *c = (char *)t.c.ptr + (step == 1 ? t.c.es : 0);
            int was = -1;
            if (step) {
              k = bmm__cpu_plan_kept(&plan, &kept);
              was = k ? k->stream : -1;
              if (!CHECK(bmm_plan_rebind(&plan, t.p.a.ptr, t.p.b.ptr, c, t.p.bias) == BMM_OK,
                         "[%s] rebind: %s", t.label, bmm_last_error()))
                break;
            }
            k = bmm__cpu_plan_kept(&plan, &kept);
            now = bmm__cpu_pick(&plan);
            if (plan.m * plan.n * plan.batch == 0)
              CHECK(!k, "[%s] an empty plan kept a pick", t.label);
            else if (CHECK(k != NULL, "[%s] step %d: the plan kept no pick", t.label, step))
              CHECK(!*choice_diff(k, &now),
                    "[%s] step %d: the kept pick's %s differs from bmm__cpu_pick's", t.label, step,
                    choice_diff(k, &now));
            turned += k && was >= 0 && was != k->stream;
            ++checked;
          }
          tprob_free(&t);
        }
  }
  bmm__cpu_stream_test = stream_was;
  CHECK(checked > 0, "no kept pick checked");
#if BMM__CPU_NT
  CHECK(turned > 0, "no rebind turned the streaming of C (test bug)");
#endif
}

/* bmm_cpu_run_plan runs the kept pick, not a new one: a plan whose kept
   kernel is changed to cpu_ref's (and sealed again) runs cpu_ref's kernel
   and bits; offered other threads (omp_set_num_threads) it picks again and
   runs the kernel bmm_cpu runs. */
static void test_plan_runs_kept(void) {
  bmm_problem p = case_shape(BMM_F32, BMMX_ROWMAJOR, 64, 8, 8, 8);
  bmm_plan plan;
  tprob t;
  int kernel;
  tprob_make(&t, &p, 0, 7, "plan runs its kept pick");
  if (CHECK(bmm_cpu(&t.p) == BMM_OK, "bmm_cpu: %s", bmm_last_error()) &&
      CHECK(bmm_plan_problem(&t.p, BMM_BACKEND_CPU, &plan) == BMM_OK, "plan: %s",
            bmm_last_error())) {
    kernel = bmm__cpu_last_kernel;
    CHECK(kernel != BMM__CPU_K_ref, "bmm_cpu runs cpu_ref here (test bug)");
    CHECK(plan.priv[BMM__CPU_KEPT_AT] == (uint64_t)kernel, "the kept kernel is %d, bmm_cpu's %d",
          (int)plan.priv[BMM__CPU_KEPT_AT], kernel);
    plan.priv[BMM__CPU_KEPT_AT] = BMM__CPU_K_ref, plan.seal = bmm__plan_seal(&plan);
    memcpy(t.c.alloc, t.c.init, (size_t)t.c.count * t.c.es);
    if (CHECK(bmm_cpu_run_plan(&plan) == BMM_OK, "run: %s", bmm_last_error()))
      CHECK(bmm__cpu_last_kernel == BMM__CPU_K_ref &&
                tprob_verify(&t, BMM_CPU_REF, "the kept pick changed to cpu_ref"),
            "the plan ran kernel %s, not the kept cpu_ref",
            bmm__cpu_kernel_names[bmm__cpu_last_kernel]);
#ifdef _OPENMP
    {
      const int was = omp_get_max_threads();
      omp_set_num_threads(was + 1);
      if (CHECK(bmm_cpu_run_plan(&plan) == BMM_OK, "run: %s", bmm_last_error()))
        CHECK(bmm__cpu_last_kernel == kernel,
              "offered %d threads, not the plan's %d, the plan ran kernel %s, not bmm_cpu's %s",
              was + 1, was, bmm__cpu_kernel_names[bmm__cpu_last_kernel],
              bmm__cpu_kernel_names[kernel]);
      omp_set_num_threads(was);
    }
#endif
  }
  tprob_free(&t);
}

/* What bmm_cpu_run_plan and bmm_plan_rebind refuse, by name; a refused
   rebind leaves the plan as it was. */
static void test_plan_errors(void) {
  bmm_problem p = err_base();
  bmm_plan plan, q, before;
  static const char *const changed[] = {"m",        "k",           "a.row_stride", "c.ptr", "alpha",
                                        "strategy", "rule.kernel", "bias",         "priv"};
  int i;
  memset(&plan, 0, sizeof plan);
  EXPECT(bmm_cpu_run_plan(NULL), BMM_NULL_POINTER, "plan", "run a NULL plan");
  EXPECT(bmm_plan_rebind(NULL, g_a, g_b, g_c, NULL), BMM_NULL_POINTER, "plan",
         "rebind a NULL plan");
  EXPECT(bmm_cpu_run_plan(&plan), BMM_BAD_PLAN, "bmm_plan_problem", "run a zeroed plan");
  EXPECT(bmm_plan_rebind(&plan, g_a, g_b, g_c, NULL), BMM_BAD_PLAN, "bmm_plan_problem",
         "rebind a zeroed plan");
  if (!CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK, "plan: %s", bmm_last_error()))
    return;
  for (i = 0; i < (int)(sizeof changed / sizeof changed[0]); ++i) {
    char what[64];
    q = plan;
    if (i == 0) q.m = 2;
    if (i == 1) q.k = 4;
    if (i == 2) q.a.row_stride = 4;
    if (i == 3) q.c.ptr = g_c + 1;
    if (i == 4) q.alpha = 2;
    if (i == 5) q.strategy = q.strategy == BMM_CPU_REF ? BMM_CPU_DOT : BMM_CPU_REF;
    if (i == 6) snprintf(q.rule.kernel, sizeof q.rule.kernel, "ref");
    if (i == 7) q.bias = g_bias;
    if (i == 8) q.priv[BMM__CPU_KEPT_AT] ^= 1; /* the kept pick's kernel */
    snprintf(what, sizeof what, "plan.%s changed by hand", changed[i]);
    EXPECT(bmm_cpu_run_plan(&q), BMM_BAD_PLAN, "bmm_plan_rebind", what);
    EXPECT(bmm_plan_rebind(&q, g_a, g_b, g_c, NULL), BMM_BAD_PLAN, "bmm_plan_rebind", what);
  }
  q = plan, q.backend = BMM_BACKEND_CUDA, q.seal = bmm__plan_seal(&q);
  EXPECT(bmm_cpu_run_plan(&q), BMM_WRONG_BACKEND, "cuda", "a CUDA plan run on the CPU");
  before = plan;
#define BMMX_REBIND_ERR(what, a, b, c, bias, want, has)           \
  EXPECT(bmm_plan_rebind(&plan, a, b, c, bias), want, has, what); \
  CHECK(memcmp(&plan, &before, sizeof plan) == 0, "%s: the refused rebind changed the plan", what)
  BMMX_REBIND_ERR("c NULL", g_a, g_b, NULL, NULL, BMM_NULL_POINTER, "c");
  BMMX_REBIND_ERR("a NULL", NULL, g_b, g_c, NULL, BMM_NULL_POINTER, "a");
  BMMX_REBIND_ERR("b NULL", g_a, NULL, g_c, NULL, BMM_NULL_POINTER, "b");
  BMMX_REBIND_ERR("c misaligned", g_a, g_b, (char *)g_c + 4, NULL, BMM_MISALIGNED, "c.ptr");
  BMMX_REBIND_ERR("a misaligned", (char *)g_a + 4, g_b, g_c, NULL, BMM_MISALIGNED, "a.ptr");
  BMMX_REBIND_ERR("bias misaligned", g_a, g_b, g_c, (char *)g_bias + 4, BMM_MISALIGNED, "bias");
  BMMX_REBIND_ERR("C == A", g_a, g_b, g_a, NULL, BMM_C_OVERLAP, "A");
  BMMX_REBIND_ERR("C on B's last element", g_a, g_b, g_b + 39, NULL, BMM_C_OVERLAP, "B");
  BMMX_REBIND_ERR("A on C's last element", g_c + 23, g_b, g_c, NULL, BMM_C_OVERLAP, "A");
  BMMX_REBIND_ERR("bias over C's end", g_a, g_b, g_c, g_c + 22, BMM_C_OVERLAP, "bias");
#undef BMMX_REBIND_ERR
  {
    bmm_problem ref = p;
    uint64_t seed = 3;
    bmmx_fill(BMM_F64, g_a, 30, &seed), bmmx_fill(BMM_F64, g_b, 40, &seed);
    EXPECT(bmm_cpu_run_plan(&plan), BMM_OK, NULL, "the plan after refused rebinds");
    CHECK(bmmx_check(&ref, g_c, 0) <= 1.0, "the plan after refused rebinds: wrong result");
    /* A and B adjacent to C (touching is not overlapping), and a bias */
    EXPECT(bmm_plan_rebind(&plan, g_a + 200, g_a + 230, g_a + 270, g_a + 294), BMM_OK, NULL,
           "A, B, C, bias adjacent in one buffer");
    ref.a.ptr = g_a + 200, ref.b.ptr = g_a + 230, ref.c.ptr = g_a + 270, ref.bias = g_a + 294;
    bmmx_fill(BMM_F64, g_a + 200, 30 + 40, &seed), bmmx_fill(BMM_F64, g_a + 294, 4, &seed);
    EXPECT(bmm_cpu_run_plan(&plan), BMM_OK, NULL, "rebound to adjacent buffers");
    CHECK(bmmx_check(&ref, g_a + 270, 0) <= 1.0, "rebound to adjacent buffers: wrong result");
  }
  /* alpha = 0 reads neither A nor B: a rebind ignores them, and the plan keeps
     them NULL */
  p = err_base(), p.alpha = 0, p.beta = 2;
  if (CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK, "plan: %s", bmm_last_error())) {
    EXPECT(bmm_plan_rebind(&plan, NULL, NULL, g_c + 100, NULL), BMM_OK, NULL,
           "alpha 0, A and B NULL");
    CHECK(!plan.a.ptr && !plan.b.ptr, "alpha 0: the rebind set A or B");
    EXPECT(bmm_cpu_run_plan(&plan), BMM_OK, NULL, "alpha 0 rebound");
  }
  /* an empty batch reads and writes nothing: any pointers */
  p = err_base(), p.batch[0] = 0;
  if (CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK, "plan: %s", bmm_last_error())) {
    EXPECT(bmm_plan_rebind(&plan, NULL, NULL, NULL, NULL), BMM_OK, NULL, "empty, all NULL");
    EXPECT(bmm_cpu_run_plan(&plan), BMM_OK, NULL, "empty rebound");
  }
}

/* The UNSUPPORTED message names layouts, not a bit mask. */
static void test_regress_unsupported_names(void) {
  float a[60], b[60], c[60];
  bmm_problem p = bmm_problem_rowmajor(BMM_F32, 2, 3, 4, 5, a, b, c);
  p.strategy = BMM_CPU_BATCH_SIMD;
  if (EXPECT(bmm_cpu(&p), BMM_UNSUPPORTED, "layouts batch_inner ", "rowmajor via batch_simd"))
    CHECK(!contains(bmm_last_error(), "0x"), "message `%s` has a hex mask", bmm_last_error());
}

/* the f16/bf16 conversions and the complex dtypes: files of their own (built
   alone too: test_complex as C++, test_half for the AVX-512 BF16 compile),
   run as groups here so that each build compiles bmm once */
#define BMMX_IN_TEST_CPU
#include "tests/test_half.c"
#include "tests/test_complex.c"

#define TESTS(X)                \
  X(names)                      \
  X(errors_null)                \
  X(errors_dtype_strategy)      \
  X(errors_size)                \
  X(errors_stride)              \
  X(errors_overflow)            \
  X(errors_overlap)             \
  X(errors_c_self_overlap)      \
  X(errors_backend_unsupported) \
  X(errors_per_thread)          \
  X(sem_alpha_beta_bias)        \
  X(sem_beta0_nan)              \
  X(sem_alpha0_k0)              \
  X(sem_empty)                  \
  X(sem_nonfinite)              \
  X(sem_inf_alpha)              \
  X(sem_ab_alias)               \
  X(random_batch0)              \
  X(random_batch1)              \
  X(random_batch7)              \
  X(random_batch1000)           \
  X(random_strided)             \
  X(random_large)               \
  X(seed_sweep)                 \
  X(small_squares)              \
  X(small_tile)                 \
  X(half_dtypes)                \
  X(half_fused)                 \
  X(half_all)                   \
  X(half_f32_to)                \
  X(half_bulk)                  \
  X(complex_validation)         \
  X(complex_kernel_choice)      \
  X(complex_cview)              \
  X(complex_conj_real)          \
  X(complex_nonfinite)          \
  X(complex_c99_layout)         \
  X(complex_all)                \
  X(suite_cases)                \
  X(batchdims_seed)             \
  X(batchdims_xw_bias)          \
  X(batchdims_multi)            \
  X(table_roundtrip)            \
  X(table_print_default)        \
  X(table_malformed)            \
  X(table_set_bad)              \
  X(table_set_auto)             \
  X(table_file)                 \
  X(table_env)                  \
  X(table_concurrent)           \
  X(concurrent_calls)           \
  X(explain)                    \
  X(explain_kernel)             \
  X(kernel_pin)                 \
  X(kernel_pin_text)            \
  X(streams)                    \
  X(prefetch)                   \
  X(stream_lines)               \
  X(vrows_f32)                  \
  X(cublas_claim_conj)          \
  X(halves_only_claim)          \
  X(staged_claims_packed)       \
  X(epilogue_same_bits)         \
  X(threads_same_bits)          \
  X(regress_alpha_whole_sum)    \
  X(regress_blocked_held_rows)  \
  X(blocked_in_place_bits)      \
  X(blocked_fixed_sizes)        \
  X(regress_table_nul)          \
  X(regress_rowmajor_overflow)  \
  X(regress_entry_point)        \
  X(regress_claims_degenerate)  \
  X(regress_k0_nonfinite_alpha) \
  X(regress_table_streams)      \
  X(regress_table_lines)        \
  X(regress_set_table_note)     \
  X(regress_misaligned)         \
  X(regress_unsupported_names)  \
  X(plan_run)                   \
  X(plan_keeps_strategy)        \
  X(plan_kept)                  \
  X(plan_runs_kept)             \
  X(plan_errors)

static const struct {
  const char *name;
  void (*fn)(void);
} tests[] = {
#define X(name) {#name, test_##name},
    TESTS(X)
#undef X
};

int main(int argc, char **argv) {
  int i, j, ran = 0;
  double t_all = now_s();
  const char *d = getenv("BMMX_TEST_DATA");
  ssize_t len = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
  if (len > 0)
    g_self[len] = 0;
  else
    snprintf(g_self, sizeof g_self, "%s", argv[0]);
  if (d && *d) g_data = d;
  /* read before --child too: the children of a streaming run stream */
  if (getenv("BMMX_STREAM_BYTES")) bmm__cpu_stream_test = atof(getenv("BMMX_STREAM_BYTES"));
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc >= 3 && strcmp(argv[1], "--child") == 0)
    return child_main(argv[2], argc >= 4 ? argv[3] : "");
  unsetenv("BMM_TABLE_FILE"); /* the tests start from the compiled default table */
  if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
    for (i = 0; i < (int)(sizeof tests / sizeof tests[0]); ++i)
      printf("%s\n", tests[i].name);
    return 0;
  }
  if (bmm_table_get(BMM_BACKEND_CPU, 0, g_default, BMM_TABLE_MAX_RULES, &g_ndefault) != BMM_OK) {
    printf("FAIL cannot read the default CPU table: %s\n", bmm_last_error());
    return 1;
  }
  table_text(g_default_text, sizeof g_default_text);
#ifdef _OPENMP
  printf("bmm %s CPU tests, OpenMP on (%d threads max)\n", BMM_VERSION, omp_get_max_threads());
#else
  printf("bmm %s CPU tests, OpenMP off\n", BMM_VERSION);
#endif
  printf("C streamed (non-temporal stores) from calls of %.0f bytes on (%s)\n", STREAM_BYTES,
         getenv("BMMX_STREAM_BYTES") ? "BMMX_STREAM_BYTES" : "BMM_CPU_STREAM_BYTES");
  printf("error bound: |got - ref| <= %g * (k + 3) * u * (|alpha| sum|a||b| + |beta c| + |bias|),"
         " u = 2^-24 (f32, f16, bf16: sums in f32), 2^-53 (f64); f16, bf16 also + u_s |ref| +"
         " eta/2, u_s = 2^-11 (f16), 2^-8 (bf16), eta the least subnormal; ref in long double\n",
         BMMX_TOL_C);
  for (i = 0; i < (int)(sizeof tests / sizeof tests[0]); ++i) {
    int want = argc < 2;
    for (j = 1; j < argc; ++j)
      if (strstr(tests[i].name, argv[j])) want = 1;
    if (!want) continue;
    ++ran;
    bmmx_test_begin(tests[i].name);
    tests[i].fn();
    bmm_set_table(BMM_BACKEND_CPU, NULL, 0); /* a failed test may leave its table */
    bmmx_test_end();
  }
  if (ran == 0) printf("no test matches the filter (--list shows them)\n");
  printf("total %.1f s\n", now_s() - t_all);
  return bmmx_summary() || ran == 0 ? 1 : 0;
}
