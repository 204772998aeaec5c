/* tests/test_diff.c - randomised differential test and claim audit of the CPU
   backend (issue 24): the next defect of each family found by a test, not a
   user.

     build/test_diff [--count N] [--seed S] [--only I] [--verbose]

   Each run draws N problems (default 20000) from a seed (printed; default
   from the clock, or BMM_TEST_SEED), each in a dtype of BMM_DTYPES (every
   row, equally often): every layout family (row-major, shared B,
   batch-innermost, transposed, negative strides, padded rows, broadcast
   batch dims, big cancelling K-block sums, a pointer misaligned by 1 up to
   the element's alignment - 1 bytes), degenerate sizes (0, 1, k past 256),
   special values (NaN, +-Inf, -0; per part of a complex element), extreme
   alpha (2^+-(emax/2 - 4) of the dtype's range: 2^+-507 f64/c128, 2^+-59
   f32/c64/bf16, 2^+-3 f16; +-Inf, NaN, 0), beta (0, NaN, Inf, ...), bias or
   not, conj on A and B (the identity for a real dtype), and for complex
   dtypes complex alpha and beta (alpha_im, beta_im from the same kinds of
   values). Problem I of seed S is the same on every machine: `--seed S
   --only I` replays it alone (and --verbose prints it).

   Each problem runs through AUTO and every CPU strategy forced (through
   bmm_cpu or the strategy's entry point, alternately), C reset between runs.
   What must hold:
   - a valid problem: AUTO returns OK; a strategy whose claim
     (BMM_CPU_STRATEGIES) covers the family's class and sizes returns OK; one
     that refuses returns UNSUPPORTED exactly when its claim does not cover
     the plan's classes (bmm_strategy_supports), and writes nothing;
   - a misaligned problem: MISALIGNED from every entry, nothing written;
   - after OK: every C element within the README bound of bmm_reference (NaN
     where it is NaN, the same infinity where infinite), no other byte of C's
     buffer written, A, B and bias unchanged.
   Prints the worst |err|/bound per dtype for alpha = 1, beta = 0 without bias
   and for all other cases (the README's numerics section quotes them); the
   bound is bmm_cases.h's per dtype (real, f16/bf16 storage rounding, complex:
   the README's numerics section). Checks are counted by tests/bmm_test.h. */
#define _POSIX_C_SOURCE 200809L
#ifndef BMMX_IMPL_LINKED /* else tests/bmm_impl.c's object holds it */
#define BMM_IMPLEMENTATION
#endif
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tests/bmm_test.h"
#include "tests/fuzz_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORK 120000 /* m*n*k*batch of one problem */
#define MAX_OUT 8192    /* m*n*batch of one problem */

#define FAMILIES(X)                                                      \
  X(ROWMAJOR, rowmajor, BMM_L_ROWMAJOR)                                  \
  X(SHARED_B, shared_b, BMM_L_SHARED_B)                                  \
  X(BATCH_INNER, batch_inner, BMM_L_BATCH_INNER)                         \
  X(TRANSPOSED, transposed, BMM_L_GENERAL)                               \
  X(NEGATIVE, negative, BMM_L_GENERAL)                                   \
  X(PADDED, padded, BMM_L_GENERAL)                                       \
  X(BROADCAST, broadcast, BMM_L_GENERAL)                                 \
  X(CANCEL, cancel, BMM_L_GENERAL)         /* column-major B, k > 256 */ \
  X(MISALIGNED, misaligned, BMM_L_GENERAL) /* must be refused */

enum {
#define X(E, n, l) FAM_##E,
  FAMILIES(X)
#undef X
      FAM_COUNT
};
static const char *const fam_name[] = {
#define X(E, n, l) #n,
    FAMILIES(X)
#undef X
};
static const unsigned fam_class[] = {
#define X(E, n, l) l,
    FAMILIES(X)
#undef X
};

static const struct {
  bmm_strategy s;
  const char *name;
  bmm_status (*entry)(const bmm_problem *);
  unsigned layouts;
  int64_t mm, mn, mk;
} strategies[] = {
#define X(E, name, l, xm, xn, xk, cf, d) {BMM_##E, #name, bmm_##name, l, xm, xn, xk},
    BMM_CPU_STRATEGIES(X)
#undef X
};
#define NSTRAT ((int)(sizeof strategies / sizeof strategies[0]))

static const bmm_dtype dtypes[] = {
#define X(E, ...) BMM_##E,
    BMM_DTYPES(X)
#undef X
};
#define NDT ((int)(sizeof dtypes / sizeof dtypes[0]))

static int verbose;
static long problems, runs, refused[NSTRAT], fam_count[FAM_COUNT], dt_count[BMM_DTYPE_COUNT];
/* worst |err|/bound: [dtype][0: alpha 1, beta 0, no bias; 1: other] */
static double worst[BMM_DTYPE_COUNT][2];

/* The largest e with 2^e finite in dt's storage (a part of a complex
   element): 15 f16, 127 f32/bf16/c64, 1023 f64/c128; found through
   bmm_element_set, so a new dtype row needs nothing here. */
static int dtype_emax(bmm_dtype dt) {
  static int emax[BMM_DTYPE_COUNT];
  unsigned char e[16];
  int x = 0;
  if (emax[dt]) return emax[dt];
  do
    bmm_element_set(dt, e, 0, ldexp(1.0, ++x));
  while (x < 16384 && isfinite(bmm_element_get(dt, e, 0)));
  return emax[dt] = x - 1;
}

/* ---- one operand's memory ------------------------------------------------- */

typedef struct buf {
  unsigned char *mem, *init;
  int64_t count, lo; /* elements; element offset of mem[0] from ptr */
  size_t es;
  void *ptr;
} buf;

static uint64_t rnd(uint64_t *s) { return bmmx_rand(s); }
static int64_t pick(uint64_t *s, int64_t n) { return n > 0 ? (int64_t)(rnd(s) % (uint64_t)n) : 0; }

/* Values: exact multiples of 1/16 in [-2, 2] (every summation order gives the
   same sum, so specials propagate alike), or uniform in [-1, 1] (rounding).
   specials: 1 in 40 elements NaN, +-Inf or -0. */
static double value(uint64_t *s, int exact, int specials) {
  if (specials && pick(s, 40) == 0) {
    static const double sp[4] = {NAN, INFINITY, -INFINITY, -0.0};
    return sp[pick(s, 4)];
  }
  if (exact) return (double)(pick(s, 65) - 32) / 16.0;
  return 2.0 * bmmx_uniform(s) - 1.0;
}

static void buf_make(buf *b, bmm_dtype dt, const bmm_operand *o, int64_t rows, int64_t cols, int nd,
                     const int64_t *dims, int empty, uint64_t *s, int exact, int specials,
                     int poison) {
  int64_t lo = 0, hi = -1, i, guard = 2 + pick(s, 4);
  if (!empty) bmmx_extent(o, rows, cols, nd, dims, &lo, &hi);
  b->es = bmm_dtype_size(dt);
  b->count = hi - lo + 1 + 2 * guard;
  b->lo = lo - guard;
  b->mem = (unsigned char *)malloc((size_t)b->count * b->es);
  b->init = (unsigned char *)malloc((size_t)b->count * b->es);
  if (!b->mem || !b->init) {
    fprintf(stderr, "test_diff: out of memory\n");
    exit(2);
  }
  for (i = 0; i < b->count * bmmx_parts(dt); ++i) /* complex: re and im drawn alike */
    bmm_element_set(dt, b->mem, i, poison ? NAN : value(s, exact, specials));
  memcpy(b->init, b->mem, (size_t)b->count * b->es);
  b->ptr = b->mem + (size_t)(-b->lo) * b->es;
}

static void buf_free(buf *b) { free(b->mem), free(b->init); }
static int buf_same(const buf *b) { return memcmp(b->mem, b->init, (size_t)b->count * b->es) == 0; }

/* ---- drawing a problem ------------------------------------------------------ */

static int64_t size_draw(uint64_t *s) {
  static const int64_t sz[] = {0, 1, 1, 1,  2,  2,  3,  3,  4,  5, 6,
                               7, 8, 9, 12, 15, 16, 17, 24, 31, 33};
  return sz[pick(s, (int64_t)(sizeof sz / sizeof sz[0]))];
}

/* Packed strides of a rows x cols operand over dims (innermost last), then
   the family's changes. */
static void layout(bmm_operand *o, int fam, int64_t rows, int64_t cols, int nd, const int64_t *dims,
                   int64_t nb, uint64_t *s) {
  int64_t inner, pad = fam == FAM_PADDED ? 1 + pick(s, 3) : 0;
  int d;
  memset(o, 0, sizeof *o);
  if (fam == FAM_BATCH_INNER) {
    o->col_stride = nb, o->row_stride = cols * nb, o->batch_stride[0] = 1;
    return;
  }
  if (fam == FAM_TRANSPOSED && pick(s, 2))
    o->row_stride = 1, o->col_stride = rows, inner = rows * cols;
  else
    o->row_stride = cols + pad, o->col_stride = 1, inner = rows * (cols + pad) + pad;
  for (d = nd - 1; d >= 0; --d) {
    o->batch_stride[d] = inner;
    inner *= dims[d];
  }
  if (fam == FAM_NEGATIVE) {
    if (pick(s, 2)) o->row_stride = -o->row_stride;
    if (pick(s, 2)) o->col_stride = -o->col_stride;
    for (d = 0; d < nd; ++d)
      if (pick(s, 2)) o->batch_stride[d] = -o->batch_stride[d];
  }
}

typedef struct prob {
  bmm_problem p;
  int fam, exact;
  int refuse; /* a misaligned pointer that the problem reads or writes */
  buf a, b, c, bias;
  unsigned char *mask; /* per element of c.mem: addressed by the problem */
} prob;

static void prob_make(prob *q, uint64_t seed) {
  uint64_t st = seed, *s = &st;
  bmm_problem *p = &q->p;
  int64_t nb = 1, work, bd;
  int d, fam = (int)pick(s, FAM_COUNT), specials = pick(s, 6) == 0, exact;
  const bmm_dtype dt = dtypes[pick(s, NDT)];
  const int cplx = bmmx_parts(dt) == 2, emax = dtype_emax(dt);
  memset(q, 0, sizeof *q);
  q->fam = fam;
  exact = q->exact = specials || fam == FAM_CANCEL || pick(s, 2);
  p->dtype = dt;
  p->m = size_draw(s), p->n = size_draw(s), p->k = size_draw(s);
  if (fam == FAM_CANCEL || pick(s, 12) == 0) { /* past cpu_blocked's 256-long K blocks */
    static const int64_t ks[] = {255, 256, 257, 300, 511, 512, 513, 600};
    p->k = ks[fam == FAM_CANCEL ? 3 + pick(s, 5) : pick(s, 8)]; /* cancel: k > 256 */
    if (p->m > 9) p->m = 1 + pick(s, 9);
    if (p->n > 17) p->n = 1 + pick(s, 17);
  }
  if (fam == FAM_CANCEL) p->m += p->m == 0, p->n += p->n == 0;
  /* batch dims: one for the classes that need one, else 0..3 */
  p->batch_dims =
      fam <= FAM_BATCH_INNER ? (fam == FAM_ROWMAJOR && pick(s, 5) == 0 ? 0 : 1) : (int)pick(s, 4);
  if (fam == FAM_BROADCAST && p->batch_dims == 0) p->batch_dims = 1;
  if (fam == FAM_CANCEL) p->batch_dims = 0; /* one entry: the one whose sums cancel */
  for (d = 0; d < p->batch_dims; ++d) {
    static const int64_t bs[] = {0, 1, 1, 2, 3, 4, 5, 7, 8, 16, 33, 100, 300};
    p->batch[d] = p->batch_dims > 1 ? 1 + pick(s, 4) : bs[pick(s, 13)];
    if (pick(s, 60) == 0) p->batch[d] = 0;
  }
  /* stay quick: shrink the batch until the work fits */
  for (;;) {
    nb = 1;
    for (d = 0; d < p->batch_dims; ++d)
      nb *= p->batch[d];
    work = nb * p->m * p->n * (p->k > 0 ? p->k : 1);
    if ((work <= MAX_WORK && nb * p->m * p->n <= MAX_OUT) || p->batch_dims == 0) break;
    for (d = 0, bd = 0; d < p->batch_dims; ++d)
      if (p->batch[d] > p->batch[bd]) bd = d;
    if (p->batch[bd] <= 1) break;
    p->batch[bd] /= 2;
  }
  if (p->batch_dims == 0 && p->m * p->n * p->k > MAX_WORK) p->m = p->n = 4;
  layout(&p->a, fam, p->m, p->k, p->batch_dims, p->batch, nb, s);
  layout(&p->b, fam, p->k, p->n, p->batch_dims, p->batch, nb, s);
  layout(&p->c, fam == FAM_TRANSPOSED && pick(s, 2) ? FAM_ROWMAJOR : fam, p->m, p->n, p->batch_dims,
         p->batch, nb, s);
  if (fam == FAM_SHARED_B) p->b.batch_stride[0] = 0, p->b.row_stride = p->n;
  if (fam == FAM_BROADCAST) {
    d = (int)pick(s, p->batch_dims);
    if (pick(s, 2))
      p->a.batch_stride[d] = 0;
    else
      p->b.batch_stride[d] = 0;
  }
  if (fam == FAM_CANCEL) p->b.row_stride = 1, p->b.col_stride = p->k, p->b.batch_stride[0] = 0;
  /* conj: complex dtypes read A or B conjugated; a real one must ignore it */
  p->a.conj = (int)pick(s, 2), p->b.conj = (int)pick(s, 2);
  /* alpha: ordinary, zero, extreme (in the normal range both ways, with room
     for the sums: the bound assumes nothing overflows or underflows),
     non-finite; complex: an imaginary part drawn alike (beta too) */
  {
    const double big = ldexp(1.0, emax / 2 - 4);
    const double alphas[] = {1,    1,   1,    -1,      0.5,      1.5,       0,
                             -0.0, big, -big, 1 / big, INFINITY, -INFINITY, NAN};
    const double betas[] = {0, 0, 0, 1, -0.5, 0.75, 2, NAN, INFINITY};
    const int64_t na = (int64_t)(sizeof alphas / sizeof alphas[0]),
                  nbeta = (int64_t)(sizeof betas / sizeof betas[0]);
    p->alpha = alphas[pick(s, na)];
    p->beta = betas[pick(s, nbeta)];
    /* rounded sums may differ in sign from the exact one: Inf * that differs */
    if (!exact && (pick(s, 2) || !isfinite(p->alpha))) p->alpha = 4 * bmmx_uniform(s) - 2;
    if (cplx) {
      /* real alpha/beta half the time (the kernels' real-scalar paths) */
      p->alpha_im = pick(s, 2) ? alphas[pick(s, na)] : 0.0;
      p->beta_im = pick(s, 2) ? betas[pick(s, nbeta)] : 0.0;
      if (!exact && (pick(s, 2) || !isfinite(p->alpha_im)))
        p->alpha_im = p->alpha_im != 0.0 ? 4 * bmmx_uniform(s) - 2 : 0.0;
    }
    if (fam == FAM_CANCEL) /* alpha*2^14 overflows, alpha times the sum does not */
      p->alpha = ldexp(1.0, emax - 13), p->alpha_im = 0.0;
  }
  buf_make(&q->a, dt, &p->a, p->m, p->k, p->batch_dims, p->batch, nb * p->m * p->k == 0, s, exact,
           specials, 0);
  buf_make(&q->b, dt, &p->b, p->k, p->n, p->batch_dims, p->batch, nb * p->k * p->n == 0, s, exact,
           specials, 0);
  buf_make(&q->c, dt, &p->c, p->m, p->n, p->batch_dims, p->batch, nb * p->m * p->n == 0, s, exact,
           specials, p->beta == 0.0 && p->beta_im == 0.0);
  {
    bmm_operand bo;
    memset(&bo, 0, sizeof bo);
    bo.row_stride = p->n, bo.col_stride = 1;
    buf_make(&q->bias, dt, &bo, 1, p->n, 0, NULL, p->n == 0, s, exact, specials, 0);
  }
  p->a.ptr = q->a.ptr, p->b.ptr = q->b.ptr, p->c.ptr = q->c.ptr;
  p->bias = pick(s, 3) == 0 ? q->bias.ptr : NULL;
  if (fam == FAM_CANCEL) {
    /* in entry 0, B's column j holds +2^14 in one K block and -2^14 in
       another (real: imaginary part 0), and A's rows the same element at
       both: the parts cancel exactly (conjugated or not), alpha times one
       part overflows, alpha times the sum does not */
    int64_t i, j, l1 = pick(s, 256), l2 = 256 + pick(s, p->k - 256);
    for (j = 0; j < p->n; ++j) {
      rel_set(dt, q->b.ptr, l1 + j * p->k, 16384.0);
      rel_set(dt, q->b.ptr, l2 + j * p->k, -16384.0);
      if (cplx) {
        bmm_element_set(dt, (void *)q->b.ptr, 2 * (l1 + j * p->k) + 1, 0.0);
        bmm_element_set(dt, (void *)q->b.ptr, 2 * (l2 + j * p->k) + 1, 0.0);
      }
    }
    for (i = 0; i < p->m; ++i)
      memcpy((char *)q->a.ptr + (size_t)(i * p->a.row_stride + l2 * p->a.col_stride) * q->a.es,
             (char *)q->a.ptr + (size_t)(i * p->a.row_stride + l1 * p->a.col_stride) * q->a.es,
             q->a.es);
    memcpy(q->a.init, q->a.mem, (size_t)q->a.count * q->a.es);
    memcpy(q->b.init, q->b.mem, (size_t)q->b.count * q->b.es);
  }
  if (fam == FAM_MISALIGNED) { /* one pointer off by 1 .. alignment-1 bytes */
    const void **ptrs[4];
    const int64_t align = (int64_t)q->a.es / bmmx_parts(dt); /* complex: a part's */
    int which = (int)pick(s, 4);
    ptrs[0] = &p->a.ptr, ptrs[1] = &p->b.ptr, ptrs[2] = &p->c.ptr, ptrs[3] = &p->bias;
    if (which == 3 && !p->bias) p->bias = q->bias.ptr;
    *ptrs[which] = (const char *)*ptrs[which] + 1 + pick(s, align - 1);
    /* an empty problem reads nothing; alpha = 0 or k = 0 does not read A, B */
    q->refuse = nb * p->m * p->n > 0 &&
                (which >= 2 || (p->k > 0 && (p->alpha != 0.0 || p->alpha_im != 0.0)));
  }
  q->mask = (unsigned char *)calloc((size_t)q->c.count, 1);
  if (!q->mask) exit(2);
  if (!q->refuse) bmmx_c_mask(p, q->c.lo, q->c.count, q->mask);
}

static void prob_free(prob *q) {
  buf_free(&q->a), buf_free(&q->b), buf_free(&q->c), buf_free(&q->bias);
  free(q->mask);
}

/* ---- checking ----------------------------------------------------------- */

static void describe(const prob *q, long idx, uint64_t run_seed, char *out, size_t len) {
  char d[600];
  bmmx_describe(&q->p, d, sizeof d);
  snprintf(out, len, "problem %ld (%s, replay: --seed %llu --only %ld) %s", idx, fam_name[q->fam],
           (unsigned long long)run_seed, idx, d);
}

/* C equals the reference; nothing else written. Returns 1 when all holds. */
static int verify(prob *q, const long double *ref, const long double *mag, const char *what,
                  const char *desc) {
  char msg[256];
  int64_t bad, i, stray = -1;
  const int plain = q->p.alpha == 1.0 && q->p.alpha_im == 0.0 && q->p.beta == 0.0 &&
                    q->p.beta_im == 0.0 && !q->p.bias;
  double w0 = rel_worst[q->p.dtype];
  int ok = 1;
  rel_worst[q->p.dtype] = 0;
  bad = rel_compare(&q->p, ref, mag, msg, sizeof msg);
  if (rel_worst[q->p.dtype] > worst[q->p.dtype][!plain])
    worst[q->p.dtype][!plain] = rel_worst[q->p.dtype];
  if (w0 > rel_worst[q->p.dtype]) rel_worst[q->p.dtype] = w0;
  BMMX_CHECK(bad == 0, "%s via %s: %lld C elements outside the bound, first %s", desc, what,
             (long long)bad, msg);
  ok &= bad == 0;
  for (i = 0; i < q->c.count && stray < 0; ++i)
    if (!q->mask[i] &&
        memcmp(q->c.mem + (size_t)i * q->c.es, q->c.init + (size_t)i * q->c.es, q->c.es) != 0)
      stray = i;
  BMMX_CHECK(stray < 0, "%s via %s: C's buffer written outside C (element offset %lld)", desc, what,
             (long long)(stray + q->c.lo));
  BMMX_CHECK(buf_same(&q->a) && buf_same(&q->b) && buf_same(&q->bias),
             "%s via %s: an input changed", desc, what);
  return ok && stray < 0;
}

/* Does the family's class (and the sizes) fall under a strategy's claim? */
static int claimed(int i, const prob *q) {
  const bmm_problem *p = &q->p;
  return (strategies[i].layouts & fam_class[q->fam]) &&
         (!strategies[i].mm || p->m <= strategies[i].mm) &&
         (!strategies[i].mn || p->n <= strategies[i].mn) &&
         (!strategies[i].mk || p->k <= strategies[i].mk);
}

static void run_problem(long idx, uint64_t run_seed) {
  static long double ref[2 * MAX_OUT], mag[MAX_OUT]; /* complex: (re, im) pairs */
  prob q;
  bmm_plan plan;
  bmm_problem r;
  char desc[900];
  bmm_status st;
  int i;
  prob_make(&q, run_seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(idx + 1)));
  describe(&q, idx, run_seed, desc, sizeof desc);
  if (verbose) printf("%s\n", desc);
  ++problems, ++fam_count[q.fam], ++dt_count[q.p.dtype];
  if (q.refuse) {
    st = bmm_cpu(&q.p);
    BMMX_CHECK(st == BMM_MISALIGNED, "%s: AUTO gave %s (%s)", desc, bmm_status_name(st),
               bmm_last_error());
    for (i = 0; i < NSTRAT; ++i) {
      st = strategies[i].entry(&q.p);
      BMMX_CHECK(st == BMM_MISALIGNED, "%s: bmm_%s gave %s", desc, strategies[i].name,
                 bmm_status_name(st));
    }
    BMMX_CHECK(buf_same(&q.a) && buf_same(&q.b) && buf_same(&q.c) && buf_same(&q.bias),
               "%s: a refused call wrote memory", desc);
    runs += 1 + NSTRAT;
    prob_free(&q);
    return;
  }
  r = q.p; /* the reference reads C as it was */
  st = bmm_reference(&r, ref, mag);
  BMMX_CHECK(st == BMM_OK, "%s: reference: %s", desc, bmm_last_error());
  r.strategy = BMM_CPU_REF;
  if (st != BMM_OK || bmm_plan_problem(&r, BMM_BACKEND_CPU, &plan) != BMM_OK) {
    prob_free(&q);
    return;
  }
  st = bmm_cpu(&q.p);
  ++runs;
  BMMX_CHECK(st == BMM_OK, "%s: AUTO refused a valid problem: %s", desc, bmm_last_error());
  if (st == BMM_OK) verify(&q, ref, mag, "AUTO", desc);
  for (i = 0; i < NSTRAT; ++i) {
    bmm_problem f = q.p;
    const int via_entry = (int)((idx + i) % 2);
    const int supports =
        plan.m * plan.n * plan.batch == 0 || bmm_strategy_supports(strategies[i].s, &plan);
    memcpy(q.c.mem, q.c.init, (size_t)q.c.count * q.c.es);
    f.strategy = strategies[i].s;
    st = via_entry ? strategies[i].entry(&q.p) : bmm_cpu(&f);
    ++runs;
    if (claimed(i, &q))
      BMMX_CHECK(st == BMM_OK, "%s: claim audit: %s claims %s problems, got %s (%s)", desc,
                 strategies[i].name, fam_name[q.fam], bmm_status_name(st), bmm_last_error());
    BMMX_CHECK(st == (supports ? BMM_OK : BMM_UNSUPPORTED),
               "%s: %s via %s gave %s, its claim says %s (%s)", desc, strategies[i].name,
               via_entry ? "its entry point" : "bmm_cpu", bmm_status_name(st),
               supports ? "OK" : "UNSUPPORTED", bmm_last_error());
    if (st == BMM_OK)
      verify(&q, ref, mag, strategies[i].name, desc);
    else {
      ++refused[i];
      BMMX_CHECK(buf_same(&q.c), "%s: %s refused but wrote C", desc, strategies[i].name);
    }
  }
  prob_free(&q);
}

int main(int argc, char **argv) {
  long count = 20000, only = -1, i;
  uint64_t seed = 0;
  int have_seed = 0, j;
  const char *env = getenv("BMM_TEST_SEED");
  struct timespec t0, t1;
  for (j = 1; j < argc; ++j) {
    if (strcmp(argv[j], "--count") == 0 && j + 1 < argc)
      count = atol(argv[++j]);
    else if (strcmp(argv[j], "--seed") == 0 && j + 1 < argc)
      seed = strtoull(argv[++j], NULL, 0), have_seed = 1;
    else if (strcmp(argv[j], "--only") == 0 && j + 1 < argc)
      only = atol(argv[++j]);
    else if (strcmp(argv[j], "--verbose") == 0)
      verbose = 1;
    else {
      fprintf(stderr, "usage: %s [--count N] [--seed S] [--only I] [--verbose]\n", argv[0]);
      return 2;
    }
  }
  if (!have_seed && env && *env) seed = strtoull(env, NULL, 0), have_seed = 1;
  if (!have_seed) {
    clock_gettime(CLOCK_REALTIME, &t0);
    seed = (uint64_t)t0.tv_sec * 1000003u ^ (uint64_t)t0.tv_nsec ^ (uint64_t)getpid() << 32;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  unsetenv("BMM_TABLE_FILE");
  printf("test_diff: seed %llu (replay: BMM_TEST_SEED=%llu %s --count %ld)\n",
         (unsigned long long)seed, (unsigned long long)seed, argv[0], count);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (i = 0; i < count; ++i)
    if (only < 0 || i == only) run_problem(i, seed);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%ld problems, %ld calls in %.1f s; families:", problems, runs,
         (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  for (j = 0; j < FAM_COUNT; ++j)
    printf(" %s %ld", fam_name[j], fam_count[j]);
  printf("\nrefused (UNSUPPORTED, as claimed):");
  for (j = 0; j < NSTRAT; ++j)
    printf(" %s %ld", strategies[j].name, refused[j]);
  printf("\ndtypes:");
  for (j = 0; j < NDT; ++j)
    printf(" %s %ld", bmm_dtype_name(dtypes[j]), dt_count[dtypes[j]]);
  printf("\nworst |err|/bound (alpha 1, beta 0, no bias / other):");
  for (j = 0; j < NDT; ++j)
    printf("%s %s %.3f / %.3f", j ? ";" : "", bmm_dtype_name(dtypes[j]), worst[dtypes[j]][0],
           worst[dtypes[j]][1]);
  printf("\n");
  if (bmmx_runner.failed) printf("seed %llu\n", (unsigned long long)seed);
  return bmmx_summary();
}
