/* tests/test_int64.c - element offsets beyond 2^31 and 2^32 without gigabytes
   of memory, and extents that overflow int64.

   Each operand lives in its own 512 GiB PROT_NONE, MAP_NORESERVE reservation
   with its pointer in the middle (negative strides reach down as far as
   positive ones reach up). Only the pages holding elements the problem
   touches are made read/write, so a kernel that truncates an offset to 32 bits
   (or strays anywhere else) faults instead of reading a neighbour; the SIGSEGV
   handler says so. The problems use strides that only the general layout can
   express, so every strategy claiming GENERAL runs them, forced one by one,
   and AUTO through the table.

   The overflow half hands validation extents whose products or sums overflow
   int64 with pointers into PROT_NONE memory: the answer must be BMM_OVERFLOW
   from every entry point, with nothing read or written. */
#define _DEFAULT_SOURCE 1
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef BMMX_IMPL_LINKED /* else tests/bmm_impl.c's object holds it */
#define BMM_IMPLEMENTATION
#endif
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tests/bmm_test.h"
#include "tests/fuzz_util.h"

#define RESERVE_BYTES \
  ((int64_t)1 << 39) /* 512 GiB of address space, no memory (c128: 16-byte elements past 2^33) */
#define G31 ((int64_t)1 << 31)
#define G32 ((int64_t)1 << 32)
#define G62 ((int64_t)1 << 62)

static char *reserve_mid[3]; /* A, B, C: the middle of each reservation */
static int64_t page_size;
static double bias_store[4];

static void on_fault(int sig, siginfo_t *si, void *ctx) {
  static const char msg[] = "FAIL: segmentation fault: a kernel touched memory outside the "
                            "elements of its problem (a 32-bit offset?)\n0 passed, 1 failed\n";
  (void)sig, (void)si, (void)ctx;
  if (write(1, msg, sizeof msg - 1) < 0) _exit(2);
  _exit(1);
}

static int reserve_all(void) {
  int i;
  for (i = 0; i < 3; ++i) {
    void *p = mmap(NULL, (size_t)RESERVE_BYTES, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 0;
    reserve_mid[i] = (char *)p + RESERVE_BYTES / 2;
  }
  return 1;
}

/* Make the page(s) of element `off` of an operand read/write. */
static int touch(char *base, int64_t off, size_t es) {
  char *lo = base + off * (int64_t)es, *hi = lo + es - 1;
  uintptr_t plo = (uintptr_t)lo & ~(uintptr_t)(page_size - 1);
  uintptr_t phi = (uintptr_t)hi & ~(uintptr_t)(page_size - 1);
  if (off * (int64_t)es < -RESERVE_BYTES / 2 || off * (int64_t)es + (int64_t)es > RESERVE_BYTES / 2)
    return 0;
  return mprotect((void *)plo, (size_t)(phi - plo) + (size_t)page_size, PROT_READ | PROT_WRITE) ==
         0;
}

/* Open and fill every element the problem reads or writes; track the largest
   |offset| so the test can prove it went past 2^32. */
static int prepare(const bmm_problem *p, uint64_t *seed, int64_t *max_off) {
  size_t es = bmm_dtype_size(p->dtype);
  int64_t nb = rel_batch_count(p), bi, i, j, l;
  *max_off = 0;
  for (bi = 0; bi < nb; ++bi) {
    int64_t oa, ob, oc;
    rel_offsets(p, bi, &oa, &ob, &oc);
    for (i = 0; i < p->m; ++i)
      for (l = 0; l < p->k; ++l) {
        int64_t o = oa + i * p->a.row_stride + l * p->a.col_stride;
        if (!touch((char *)p->a.ptr, o, es)) return 0;
        rel_set(p->dtype, (void *)p->a.ptr, o, bmmx_uniform(seed));
        *max_off = o < 0 ? (-o > *max_off ? -o : *max_off) : (o > *max_off ? o : *max_off);
      }
    for (l = 0; l < p->k; ++l)
      for (j = 0; j < p->n; ++j) {
        int64_t o = ob + l * p->b.row_stride + j * p->b.col_stride;
        if (!touch((char *)p->b.ptr, o, es)) return 0;
        rel_set(p->dtype, (void *)p->b.ptr, o, bmmx_uniform(seed));
        *max_off = o < 0 ? (-o > *max_off ? -o : *max_off) : (o > *max_off ? o : *max_off);
      }
    for (i = 0; i < p->m; ++i)
      for (j = 0; j < p->n; ++j) {
        int64_t o = rel_c_offset(p, bi, i, j);
        if (!touch((char *)p->c.ptr, o, es)) return 0;
        rel_set(p->dtype, (void *)p->c.ptr, o, p->beta == 0.0 ? NAN : bmmx_uniform(seed));
        *max_off = o < 0 ? (-o > *max_off ? -o : *max_off) : (o > *max_off ? o : *max_off);
      }
  }
  return 1;
}

/* Copy C's elements out/in so each strategy starts from the same C. */
static void save_c(const bmm_problem *p, double *buf, int restore) {
  int64_t nb = rel_batch_count(p), bi, i, j, e = 0;
  for (bi = 0; bi < nb; ++bi)
    for (i = 0; i < p->m; ++i)
      for (j = 0; j < p->n; ++j, ++e) {
        int64_t o = rel_c_offset(p, bi, i, j);
        if (restore)
          rel_set(p->dtype, (void *)p->c.ptr, o, buf[e]);
        else
          buf[e] = rel_get(p->dtype, p->c.ptr, o);
      }
}

static void run_large(const char *name, bmm_problem p) {
  int64_t cnt = rel_batch_count(&p) * p.m * p.n, max_off = 0;
  long double *ref = (long double *)malloc(sizeof *ref * (size_t)(cnt * bmmx_parts(p.dtype)));
  long double *mag = (long double *)malloc(sizeof *mag * (size_t)cnt);
  double *c0 = (double *)malloc(sizeof *c0 * (size_t)cnt);
  uint64_t seed = 12345;
  bmm_plan plan;
  char msg[256];
  int s;
  p.a.ptr = reserve_mid[0], p.b.ptr = reserve_mid[1], p.c.ptr = reserve_mid[2];
  BMMX_CHECK(ref && mag && c0, "%s: out of memory", name);
  if (!ref || !mag || !c0) goto done;
  BMMX_CHECK(prepare(&p, &seed, &max_off), "%s: an element lies outside the reservation", name);
  BMMX_CHECK(max_off > G32, "%s %s: largest offset %lld does not pass 2^32", name,
             bmm_dtype_name(p.dtype), (long long)max_off);
  s = bmm_reference(&p, ref, mag);
  BMMX_CHECK(s == BMM_OK, "%s: bmm_reference: %s", name, bmm_last_error());
  if (s != BMM_OK) goto done;
  save_c(&p, c0, 0);
  BMMX_CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK &&
                 plan.layout == BMM_LAYOUT_GENERAL,
             "%s: expected a general-layout plan (%s)", name, bmm_last_error());
  for (s = 0; s < BMM_STRATEGY_COUNT; ++s) {
    bmm_strategy st = (bmm_strategy)s;
    bmm_status r;
    int64_t bad;
    if (st != BMM_STRATEGY_AUTO &&
        (bmm_strategy_backend(st) != BMM_BACKEND_CPU || !bmm_strategy_supports(st, &plan)))
      continue;
    p.strategy = st;
    save_c(&p, c0, 1);
    r = bmm_cpu(&p);
    BMMX_CHECK(r == BMM_OK, "%s %s %s: %s", name, bmm_dtype_name(p.dtype), bmm_strategy_name(st),
               bmm_last_error());
    if (r != BMM_OK) continue;
    bad = rel_compare(&p, ref, mag, msg, sizeof msg);
    BMMX_CHECK(bad == 0, "%s %s %s: %lld wrong: %s", name, bmm_dtype_name(p.dtype),
               bmm_strategy_name(st), (long long)bad, msg);
  }
done:
  free(ref), free(mag), free(c0);
}

static bmm_problem base(bmm_dtype dt, int64_t m, int64_t n, int64_t k) {
  bmm_problem p;
  memset(&p, 0, sizeof p);
  p.dtype = dt, p.m = m, p.n = n, p.k = k;
  p.alpha = 1.0;
  return p;
}

static void large_offsets(bmm_dtype dt) {
  bmm_problem p;

  /* one batch dim; strides past 2^31 in A, past 2^32 in B and C, B's rows
     running downwards */
  p = base(dt, 2, 3, 4);
  p.batch_dims = 1, p.batch[0] = 3;
  p.a.row_stride = 5, p.a.col_stride = 1, p.a.batch_stride[0] = G31 + 11;
  p.b.row_stride = -(G31 / 2 + 3), p.b.col_stride = 7, p.b.batch_stride[0] = G32 + 1;
  p.c.row_stride = G31 - 1, p.c.col_stride = 1, p.c.batch_stride[0] = G32 + 5;
  run_large("one dim, strides > 2^31", p);

  /* no batch: the row and column strides alone pass 2^32, alpha/beta != 1 */
  p = base(dt, 3, 2, 5);
  p.a.row_stride = G32 + 3, p.a.col_stride = G31 / 4 + 1;
  p.b.row_stride = -(G31 + 1), p.b.col_stride = G32 / 3;
  p.c.row_stride = -(G32 + 17), p.c.col_stride = G31 + 1;
  p.alpha = -0.75, p.beta = 0.5;
  run_large("no batch, huge row/col strides, beta", p);

  /* two batch dims with broadcast (numpy rules) and a negative batch stride;
     batch index products pass 2^32 */
  p = base(dt, 2, 2, 3);
  p.batch_dims = 2, p.batch[0] = 2, p.batch[1] = 3;
  p.a.row_stride = 3, p.a.col_stride = 1, p.a.batch_stride[0] = 3 * G31, p.a.batch_stride[1] = 0;
  p.b.row_stride = 2, p.b.col_stride = 1, p.b.batch_stride[0] = 0, p.b.batch_stride[1] = -(G31 + 1);
  p.c.row_stride = 1 << 20, p.c.col_stride = 1, p.c.batch_stride[0] = G32 + (1 << 21),
  p.c.batch_stride[1] = G31 + 7;
  run_large("two dims, broadcast, negative", p);

  /* shared B with a padded C: the bias row is one more operand */
  p = base(dt, 2, 2, 2);
  p.batch_dims = 1, p.batch[0] = 4;
  p.a.row_stride = 2, p.a.col_stride = 1, p.a.batch_stride[0] = G31 + 2;
  p.b.row_stride = 2, p.b.col_stride = 1, p.b.batch_stride[0] = 0;
  p.c.row_stride = 2, p.c.col_stride = 1, p.c.batch_stride[0] = -(G31 + 3);
  p.bias = bias_store;
  rel_set(dt, bias_store, 0, 0.25), rel_set(dt, bias_store, 1, -1.5);
  run_large("shared B, C downwards", p);
}

/* Every entry point must answer `want` without touching memory (all pointers
   point at PROT_NONE pages). */
static void expect_status(const char *name, const bmm_problem *p0, bmm_status want) {
  bmm_problem p = *p0;
  bmm_plan plan;
  bmm_status r;
  int s;
  long double out[4];
  char buf[256];
  p.a.ptr = reserve_mid[0], p.b.ptr = reserve_mid[1], p.c.ptr = reserve_mid[2];
  r = bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan);
  BMMX_CHECK(r == want, "%s: bmm_plan_problem gave %s (%s), expected %s", name, bmm_status_name(r),
             bmm_last_error(), bmm_status_name(want));
  r = bmm_reference(&p, out, out);
  BMMX_CHECK(r == want, "%s: bmm_reference gave %s, expected %s", name, bmm_status_name(r),
             bmm_status_name(want));
  r = bmm_explain(&p, BMM_BACKEND_CPU, buf, sizeof buf);
  BMMX_CHECK(r == want, "%s: bmm_explain gave %s, expected %s", name, bmm_status_name(r),
             bmm_status_name(want));
  for (s = 0; s < BMM_STRATEGY_COUNT; ++s) {
    if (s != BMM_STRATEGY_AUTO && bmm_strategy_backend((bmm_strategy)s) != BMM_BACKEND_CPU)
      continue;
    p.strategy = (bmm_strategy)s;
    r = bmm_cpu(&p);
    BMMX_CHECK(r == want, "%s: bmm_cpu (%s) gave %s (%s), expected %s", name,
               bmm_strategy_name((bmm_strategy)s), bmm_status_name(r), bmm_last_error(),
               bmm_status_name(want));
    if (want != BMM_OK)
      BMMX_CHECK(
          strncmp(bmm_last_error(), bmm_status_name(want), strlen(bmm_status_name(want))) == 0,
          "%s: message `%s` does not start with %s", name, bmm_last_error(), bmm_status_name(want));
  }
}

static void overflow(bmm_dtype dt) {
  bmm_problem p, q = base(dt, 2, 2, 2);
  q.batch_dims = 1, q.batch[0] = 1;
  q.a.row_stride = 2, q.a.col_stride = 1;
  q.b.row_stride = 2, q.b.col_stride = 1;
  q.c.row_stride = 2, q.c.col_stride = 1;

  p = q, p.m = G32, p.n = G32;
  expect_status("m*n overflows", &p, BMM_OVERFLOW);
  p = q, p.m = (int64_t)1 << 40, p.k = (int64_t)1 << 30, p.n = 0;
  expect_status("m*k overflows although n = 0", &p, BMM_OVERFLOW);
  p = q, p.batch_dims = 2, p.batch[0] = G32, p.batch[1] = G32;
  expect_status("batch product overflows", &p, BMM_OVERFLOW);
  p = q, p.m = 3, p.c.row_stride = G62;
  expect_status("(m-1)*c.row_stride overflows", &p, BMM_OVERFLOW);
  p = q, p.a.row_stride = INT64_MIN;
  expect_status("a.row_stride = INT64_MIN", &p, BMM_OVERFLOW);
  p = q, p.a.row_stride = G62, p.a.col_stride = G62;
  expect_status("A's positive spans sum past INT64_MAX", &p, BMM_OVERFLOW);
  p = q, p.b.row_stride = -G62, p.b.col_stride = -G62;
  expect_status("B's negative spans sum past INT64_MIN", &p, BMM_OVERFLOW);
  p = q, p.a.row_stride = G62, p.a.col_stride = -G62;
  expect_status("A's hi - lo overflows (mixed signs)", &p, BMM_OVERFLOW);
  p = q, p.c.row_stride = G62, p.c.col_stride = -(G62 + 1);
  expect_status("C's hi - lo overflows (mixed signs)", &p, BMM_OVERFLOW);
  p = q, p.batch[0] = 3, p.c.batch_stride[0] = G62 - 1, p.c.row_stride = -(G62 / 2 - 1);
  expect_status("C's reach over three dims overflows", &p, BMM_OVERFLOW);
  /* 2^63 bytes / element size + 1 elements: past INT64_MAX bytes for any dtype */
  p = q, p.c.row_stride = (int64_t)(((uint64_t)1 << 63) / bmm_dtype_size(dt)) + 1;
  expect_status("C's span in bytes overflows", &p, BMM_OVERFLOW);
  p = q, p.batch[0] = 2, p.batch_dims = 1, p.a.batch_stride[0] = INT64_MAX;
  expect_status("a.batch_stride = INT64_MAX", &p, BMM_OVERFLOW);

  /* near the limit but representable: validation must accept (nothing runs) */
  q.a.ptr = reserve_mid[0], q.b.ptr = reserve_mid[1], q.c.ptr = reserve_mid[2];
  p = q, p.alpha = 0.0, p.c.row_stride = (int64_t)1 << 58;
  {
    bmm_plan plan;
    bmm_status r = bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan);
    BMMX_CHECK(r == BMM_OK, "c.row_stride = 2^58 must validate: %s", bmm_last_error());
  }
  /* alpha = 0 never reads A, so A's strides do not matter */
  p = q, p.alpha = 0.0, p.a.row_stride = INT64_MIN;
  {
    bmm_plan plan;
    bmm_status r = bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan);
    BMMX_CHECK(r == BMM_OK && !plan.use_ab, "alpha = 0 must ignore A's strides: %s",
               bmm_last_error());
  }
}

int main(void) {
  struct sigaction sa;
  page_size = (int64_t)sysconf(_SC_PAGESIZE);
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  if (!reserve_all()) {
    printf("FAIL: cannot reserve 3 x 512 GiB of address space (MAP_NORESERVE)\n0 passed, 1 "
           "failed\n");
    return 1;
  }
#define REL__X(E, n, T, s, ...) \
  large_offsets(BMM_##E);       \
  overflow(BMM_##E);
  BMM_DTYPES(REL__X)
#undef REL__X
  return bmmx_summary();
}
