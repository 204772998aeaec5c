/* tests/fuzz_problem.c - libFuzzer harness for problem validation and the CPU
   kernels.

   The input bytes decode into a bmm_problem: dtype (valid or not), m/n/k and
   batch dims (small, zero, negative, huge), a base layout per problem
   (row-major, transposed, batch-innermost, padded) with any stride replaced
   by a small signed value, 0 or a huge one, operands placed one after the
   other or anywhere (overlapping, NULL), alpha/beta from a set with 0, -0,
   NaN and infinities, a bias or not, and a forced strategy (valid, invalid,
   or a CUDA one). Data are small multiples of 1/16 with NaN/Inf/0 sprinkled
   in, so float sums never overflow and specials propagate the same way in
   every summation order.

   All operands live in one 32 KiB arena in the middle of a 1 GiB PROT_NONE
   reservation: a read or write outside the arena faults. The arena is first
   filled with a NaN canary. What must hold:
   - every entry point agrees with bmm_plan_problem on the status, and
     bmm_last_error() is "" after success and starts with the status name
     after a failure; explain never writes past its buffer;
   - a failed call changes no byte of the arena;
   - an accepted problem is sane: sizes >= 0, no two C outputs share memory,
     C shares no byte with an input it reads;
   - after an accepted call (the problem's own strategy, AUTO, and every CPU
     strategy's entry point that claims it) every byte that is not a C
     output is unchanged and every C output matches bmm_reference within the
     per-dtype bound (NaN where it is NaN, the same infinity where infinite).
   Problems that would reach outside the arena, or are too big to be quick,
   are validated but not run. */
#define _DEFAULT_SOURCE 1
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>

#ifndef BMMX_IMPL_LINKED /* else tests/bmm_impl.c's object holds it */
#define BMM_IMPLEMENTATION
#endif
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tests/fuzz_util.h"

#define ARENA_BYTES ((int64_t)1 << 15)
#define GUARD_BYTES ((int64_t)1 << 29) /* each side */
#define MAX_OUT 1024                   /* C elements a run may have */
#define MAX_WORK ((int64_t)1 << 16)    /* m*n*k*batch a run may have */
#define BIG ((int64_t)1 << 40)         /* beyond: certainly outside the arena */

__extension__ typedef __int128 i128;

static unsigned char *arena, *snapshot, *marks;
static long double ref[2 * MAX_OUT], mag[MAX_OUT]; /* complex: (re, im) pairs */

typedef struct reader {
  const uint8_t *d;
  size_t n, i;
} reader;

static unsigned u8(reader *r) { return r->i < r->n ? r->d[r->i++] : 0u; }
static unsigned u16(reader *r) {
  unsigned lo = u8(r);
  return lo | u8(r) << 8;
}

static void die(const char *what, const bmm_problem *p) {
  char buf[512], err[512];
  snprintf(err, sizeof err, "%s", bmm_last_error());
  bmm_explain(p, BMM_BACKEND_CPU, buf, sizeof buf);
  fprintf(stderr,
          "fuzz_problem: %s\n  dtype %d m %lld n %lld k %lld batch_dims %d (%lld %lld %lld %lld)"
          " alpha %g beta %g bias %s strategy %d\n  a %p (%lld %lld | %lld %lld %lld %lld)\n"
          "  b %p (%lld %lld | %lld %lld %lld %lld)\n  c %p (%lld %lld | %lld %lld %lld %lld)\n"
          "  explain: %s\n  last error: %s\n",
          what, (int)p->dtype, (long long)p->m, (long long)p->n, (long long)p->k, p->batch_dims,
          (long long)p->batch[0], (long long)p->batch[1], (long long)p->batch[2],
          (long long)p->batch[3], p->alpha, p->beta, p->bias ? "yes" : "no", (int)p->strategy,
          p->a.ptr, (long long)p->a.row_stride, (long long)p->a.col_stride,
          (long long)p->a.batch_stride[0], (long long)p->a.batch_stride[1],
          (long long)p->a.batch_stride[2], (long long)p->a.batch_stride[3], p->b.ptr,
          (long long)p->b.row_stride, (long long)p->b.col_stride, (long long)p->b.batch_stride[0],
          (long long)p->b.batch_stride[1], (long long)p->b.batch_stride[2],
          (long long)p->b.batch_stride[3], p->c.ptr, (long long)p->c.row_stride,
          (long long)p->c.col_stride, (long long)p->c.batch_stride[0],
          (long long)p->c.batch_stride[1], (long long)p->c.batch_stride[2],
          (long long)p->c.batch_stride[3], buf, err);
  abort(); /* libFuzzer saves the input */
}

/* ---- decoding ----------------------------------------------------------- */

static const int64_t special_sizes[] = {-1,
                                        INT64_MIN,
                                        INT64_MAX,
                                        (int64_t)1 << 31,
                                        (int64_t)1 << 32,
                                        (int64_t)1 << 62,
                                        3000000000LL,
                                        65537,
                                        17,
                                        33,
                                        -7,
                                        (int64_t)1 << 21,
                                        300,
                                        513};
static const int64_t special_strides[] = {INT64_MIN,
                                          INT64_MAX,
                                          (int64_t)1 << 31,
                                          -((int64_t)1 << 31),
                                          (int64_t)1 << 32,
                                          BIG,
                                          (int64_t)1 << 62,
                                          -((int64_t)1 << 62),
                                          4096,
                                          -4096,
                                          INT64_MIN + 1,
                                          65536};
static const double scalars[] = {1,   0,        -1,        0.5,  2, -0.25, 1.5,   -0.0,
                                 NAN, INFINITY, -INFINITY, 0.75, 3, -2,    0.125, 1};

/* CPU strategies are the enum values 1..cpu_strategy_count */
static const int cpu_strategy_count = 0
#define REL__X(E, name, l, mm, mn, mk, cf, desc) +1
    BMM_CPU_STRATEGIES(REL__X)
#undef REL__X
    ;

static int tunable(reader *r) {
  static const int special[] = {INT_MAX, 1 << 20, 4096, 513, 256, 128, 65, 64, 63, 33, 32, 31};
  unsigned b = u8(r);
  if (b < 220) return (int)(b % 17);
  return special[(b - 220) % (sizeof special / sizeof special[0])];
}

static int64_t size_of(reader *r, unsigned small_max) {
  unsigned b = u8(r);
  if (b < 232) return (int64_t)(b % (small_max + 1));
  return special_sizes[(b - 232) % (sizeof special_sizes / sizeof special_sizes[0])];
}

/* wrapping multiply: the harness itself must not overflow on absurd sizes */
static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

enum { BASE_ROWMAJOR, BASE_TRANSPOSED, BASE_BATCH_INNER, BASE_PADDED, BASE_COUNT };

/* Strides of one operand (rows x cols per entry) under the base layout, then
   each one possibly replaced. */
static void strides_of(reader *r, int base, bmm_operand *o, int64_t rows, int64_t cols,
                       const bmm_problem *p) {
  int64_t nb = 1, inner;
  int d;
  for (d = 0; d < p->batch_dims && d < BMM_MAX_BATCH_DIMS; ++d)
    nb = wmul(nb, p->batch[d]);
  switch (base) {
  case BASE_TRANSPOSED: o->row_stride = 1, o->col_stride = rows, inner = wmul(rows, cols); break;
  case BASE_BATCH_INNER: o->col_stride = nb, o->row_stride = wmul(cols, nb), inner = 1; break;
  case BASE_PADDED:
    o->row_stride = wadd(cols, 3), o->col_stride = 1, inner = wadd(wmul(rows, wadd(cols, 3)), 5);
    break;
  default: o->row_stride = cols, o->col_stride = 1, inner = wmul(rows, cols); break;
  }
  for (d = (p->batch_dims < BMM_MAX_BATCH_DIMS ? p->batch_dims : BMM_MAX_BATCH_DIMS) - 1; d >= 0;
       --d) {
    o->batch_stride[d] = inner;
    inner = wmul(inner, p->batch[d]);
  }
  {
    int64_t *s[2 + BMM_MAX_BATCH_DIMS];
    int i;
    s[0] = &o->row_stride, s[1] = &o->col_stride;
    for (i = 0; i < BMM_MAX_BATCH_DIMS; ++i)
      s[2 + i] = &o->batch_stride[i];
    for (i = 0; i < 2 + BMM_MAX_BATCH_DIMS; ++i) {
      unsigned b = u8(r);
      if (b < 150) continue;
      if (b < 214)
        *s[i] = (int64_t)(b % 19) - 9;
      else if (b < 232)
        *s[i] = 0;
      else
        *s[i] = special_strides[(b - 232) % (sizeof special_strides / sizeof special_strides[0])];
    }
  }
}

/* ---- what the problem touches, computed here, not by the library -------- */

typedef struct span {
  int ok;        /* every element lies inside the arena */
  i128 lo, hi;   /* element offsets from ptr */
  int64_t count; /* elements enumerated (with repeats) */
} span;

static span span_of(const bmm_problem *p, const bmm_operand *o, int64_t rows, int64_t cols,
                    size_t es) {
  span s;
  int64_t size[2 + BMM_MAX_BATCH_DIMS], stride[2 + BMM_MAX_BATCH_DIMS];
  int i, n = 0;
  s.ok = 1, s.lo = s.hi = 0, s.count = 1;
  size[n] = rows, stride[n++] = o->row_stride;
  size[n] = cols, stride[n++] = o->col_stride;
  for (i = 0; i < p->batch_dims && i < BMM_MAX_BATCH_DIMS; ++i)
    size[n] = p->batch[i], stride[n++] = o->batch_stride[i];
  for (i = 0; i < n; ++i) {
    if (size[i] <= 1) continue;
    if (size[i] > BIG || stride[i] > BIG || stride[i] < -BIG) {
      s.ok = 0;
      return s;
    }
    if (stride[i] > 0)
      s.hi += (i128)(size[i] - 1) * stride[i];
    else
      s.lo += (i128)(size[i] - 1) * stride[i];
    s.count = s.count * size[i] > MAX_WORK * 4 ? MAX_WORK * 4 : s.count * size[i];
  }
  {
    i128 base = ((const unsigned char *)o->ptr - arena) / (i128)es;
    s.ok = o->ptr && ((const unsigned char *)o->ptr - arena) % (i128)es == 0 && base + s.lo >= 0 &&
           (base + s.hi + 1) * (i128)es <= ARENA_BYTES && s.count < MAX_WORK * 4;
  }
  return s;
}

/* Runs the trailing statements with `off` = each element's offset in an
   operand (every batch entry, repeats included). */
#define FOR_EACH_ELEMENT(p, o, rows, cols, which, ...)                            \
  do {                                                                            \
    int64_t fe_nb = rel_batch_count(p), fe_b, fe_i, fe_j;                         \
    for (fe_b = 0; fe_b < fe_nb; ++fe_b) {                                        \
      int64_t fe_o[3];                                                            \
      rel_offsets(p, fe_b, &fe_o[0], &fe_o[1], &fe_o[2]);                         \
      for (fe_i = 0; fe_i < (rows); ++fe_i)                                       \
        for (fe_j = 0; fe_j < (cols); ++fe_j) {                                   \
          int64_t off = fe_o[which] + ((rows) > 1 ? fe_i * (o)->row_stride : 0) + \
                        ((cols) > 1 ? fe_j * (o)->col_stride : 0);                \
          __VA_ARGS__;                                                            \
        }                                                                         \
    }                                                                             \
  } while (0)

static double value(uint64_t *seed, unsigned special_rate) {
  static const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0};
  uint64_t x = bmmx_rand(seed);
  if ((x & 255) < special_rate) return specials[(x >> 8) % 5];
  return (double)((int64_t)((x >> 16) % 129) - 64) / 16.0;
}

/* The arena's background: a quiet NaN with a payload, so that a kernel that
   reads an element outside its problem turns its output into NaN. */
static void fill_canary(size_t es) {
  static unsigned char pattern[2][ARENA_BYTES];
  static int made;
  if (!made) {
    static const uint32_t nan32 = 0x7FE5A5A5u;
    static const uint64_t nan64 = 0x7FFCA5A5A5A5A5A5ull;
    int64_t i;
    for (i = 0; i < ARENA_BYTES; i += 8) {
      memcpy(pattern[0] + i, &nan32, 4);
      memcpy(pattern[0] + i + 4, &nan32, 4);
      memcpy(pattern[1] + i, &nan64, 8);
    }
    made = 1;
  }
  memcpy(arena, pattern[es == 4 ? 0 : 1], (size_t)ARENA_BYTES);
}

/* Every entry point's status must match; messages must match the status. */
static void check_message(bmm_status s, const bmm_problem *p) {
  const char *e = bmm_last_error();
  if (s == BMM_OK && e[0]) die("success left an error message", p);
  if (s != BMM_OK && strncmp(e, bmm_status_name(s), strlen(bmm_status_name(s))) != 0)
    die("error message does not start with its status name", p);
}

/* Run one entry point on the arena restored from the snapshot; check C's
   outputs against the reference, put the snapshot's bytes back under them,
   and then the whole arena must equal the snapshot. */
static void run_checked(bmm_status (*fn)(const bmm_problem *), const char *fn_name,
                        const bmm_problem *p, const bmm_problem *orig, size_t es) {
  int64_t bad;
  char msg[320];
  bmm_status s;
  memcpy(arena, snapshot, (size_t)ARENA_BYTES);
  s = fn(p);
  check_message(s, p);
  if (s != BMM_OK) die(fn_name, p); /* failed on a problem its plan accepted */
  if (orig->m * orig->n * rel_batch_count(orig) > 0) {
    const unsigned char *c0 = (const unsigned char *)orig->c.ptr;
    size_t used = (size_t)snprintf(msg, sizeof msg, "%s: ", fn_name);
    bad = rel_compare(orig, ref, mag, msg + used, sizeof msg - used);
    if (bad) die(msg, p);
    FOR_EACH_ELEMENT(orig, &orig->c, orig->m, orig->n, 2, {
      int64_t byte = (c0 - arena) + off * (int64_t)es;
      memcpy(arena + byte, snapshot + byte, es);
    });
  }
  if (memcmp(arena, snapshot, (size_t)ARENA_BYTES) != 0)
    die("a byte outside C's outputs changed", p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r;
  bmm_problem p;
  bmm_plan plan;
  bmm_status st, s2;
  int base, d, placement, sane, null_mask;
  unsigned special_rate;
  size_t es;
  uint64_t seed;
  span sa, sb, sc;
  int64_t nb, total;
  r.d = data, r.n = size, r.i = 0;
  memset(&p, 0, sizeof p);

  {
    unsigned b = u8(&r);
    p.dtype = b < 200 ? (bmm_dtype)(1 + b % (BMM_DTYPE_COUNT - 1))
                      : (bmm_dtype)((int)(b % (BMM_DTYPE_COUNT + 2)) - 1);
    b = u8(&r);
    p.strategy =
        b < 128 ? BMM_STRATEGY_AUTO : (bmm_strategy)((int)(b % (BMM_STRATEGY_COUNT + 2)) - 1);
  }
  p.m = size_of(&r, 6), p.n = size_of(&r, 6), p.k = size_of(&r, 6);
  {
    unsigned b = u8(&r);
    p.batch_dims = b < 200 ? (int)(b % 3) : (int)(b % 7) - 1;
  }
  for (d = 0; d < BMM_MAX_BATCH_DIMS; ++d)
    p.batch[d] = d < p.batch_dims ? size_of(&r, 4) : 0;
  {
    unsigned b = u8(&r);
    p.alpha = scalars[b & 15];
    p.beta = scalars[b >> 4];
  }
  base = (int)(u8(&r) % BASE_COUNT);
  strides_of(&r, base, &p.a, p.m, p.k, &p);
  strides_of(&r, base, &p.b, p.k, p.n, &p);
  strides_of(&r, base, &p.c, p.m, p.n, &p);
  placement = (int)u8(&r);
  null_mask = (int)u8(&r);
  null_mask = null_mask >= 240 ? null_mask & 15 : 0;
  special_rate = u8(&r) % 32;
  seed = 1 + u16(&r);
  es = bmm_dtype_size(p.dtype) ? bmm_dtype_size(p.dtype) : 8;

  /* placement: one after the other (each operand's lowest element first), or
     at offsets the input gives (overlaps, misfits) */
  {
    bmm_operand *ops[3];
    int64_t at = 0, rows[3], cols[3];
    int i;
    ops[0] = &p.a, ops[1] = &p.b, ops[2] = &p.c;
    rows[0] = p.m, cols[0] = p.k, rows[1] = p.k, cols[1] = p.n, rows[2] = p.m, cols[2] = p.n;
    for (i = 0; i < 3; ++i) {
      span s;
      int64_t off;
      ops[i]->ptr = arena;
      s = span_of(&p, ops[i], rows[i], cols[i], es);
      if (placement < 200) {
        off = at - (s.lo < -BIG ? 0 : (int64_t)s.lo);
        at = off + (s.hi > BIG ? 0 : (int64_t)s.hi) + 1 + (int64_t)(u8(&r) % 3);
      } else {
        off = (int64_t)(u16(&r) % (unsigned)(ARENA_BYTES / (int64_t)es));
      }
      if (off < 0 || off >= ARENA_BYTES / (int64_t)es) off = 0;
      ops[i]->ptr = arena + off * (int64_t)es;
      if (i == 1 && (u8(&r) & 7) == 7) { /* a bias row after B's slot */
        int64_t boff = at;
        if (placement >= 200) boff = (int64_t)(u16(&r) % (unsigned)(ARENA_BYTES / (int64_t)es));
        if (p.n >= 0 && p.n <= BIG && boff >= 0 && (boff + p.n) * (int64_t)es <= ARENA_BYTES) {
          p.bias = arena + boff * (int64_t)es;
          at = boff + p.n + 1;
        }
      }
    }
  }
  if (null_mask & 1) p.a.ptr = NULL;
  if (null_mask & 2) p.b.ptr = NULL;
  if (null_mask & 4) p.c.ptr = NULL;
  if (null_mask & 8) p.bias = NULL;

  /* ---- validation-only entry points ---- */
  st = bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan);
  check_message(st, &p);
  {
    char buf[256];
    size_t len = 1 + (size_t)(seed % 200), i;
    memset(buf, 'Z', sizeof buf);
    s2 = bmm_explain(&p, BMM_BACKEND_CPU, buf, len);
    if (s2 != st) die("bmm_explain and bmm_plan_problem disagree", &p);
    if (strlen(buf) >= len) die("bmm_explain wrote an unterminated string", &p);
    for (i = len; i < sizeof buf; ++i)
      if (buf[i] != 'Z') die("bmm_explain wrote past len", &p);
    if (bmm_plan_problem(&p, BMM_BACKEND_CUDA, &plan) != BMM_NOT_COMPILED)
      die("the CUDA backend answered in a CPU-only build", &p);
    st = bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan);
  }

  sane = (int)p.dtype > 0 && (int)p.dtype < BMM_DTYPE_COUNT && p.m >= 0 && p.n >= 0 && p.k >= 0 &&
         p.batch_dims >= 0 && p.batch_dims <= BMM_MAX_BATCH_DIMS;
  for (d = 0; sane && d < p.batch_dims; ++d)
    sane = p.batch[d] >= 0;
  if (st == BMM_OK && !sane) die("validation accepted a negative size or bad dtype", &p);
  if (!sane) {
    /* nothing to lay out: the call must fail the same way and touch nothing */
    fill_canary(es);
    memcpy(snapshot, arena, (size_t)ARENA_BYTES);
    s2 = bmm_cpu(&p);
    if (s2 != st) die("bmm_cpu and bmm_plan_problem disagree", &p);
    if (memcmp(arena, snapshot, (size_t)ARENA_BYTES) != 0)
      die("a rejected problem wrote memory", &p);
    return 0;
  }

  /* ---- lay out data where the problem says ---- */
  nb = 1;
  for (d = 0; d < p.batch_dims; ++d) {
    i128 t = (i128)nb * p.batch[d];
    nb = t > BIG ? BIG + 1 : (int64_t)t;
  }
  {
    i128 t = (i128)(p.m > BIG ? BIG : p.m) * (p.n > BIG ? BIG : p.n) * (nb > BIG ? BIG : nb);
    total = t > BIG ? BIG : (int64_t)t;
  }
  {
    int use_ab = p.alpha != 0.0 && p.k > 0;
    int in_arena;
    sa = span_of(&p, &p.a, p.m, p.k, es);
    sb = span_of(&p, &p.b, p.k, p.n, es);
    sc = span_of(&p, &p.c, p.m, p.n, es);
    in_arena = total == 0 || (sc.ok && (!use_ab || (sa.ok && sb.ok)));
    fill_canary(es);
    memset(marks, 0, (size_t)ARENA_BYTES);
    if (in_arena && total > 0) {
      if (use_ab) {
        FOR_EACH_ELEMENT(&p, &p.a, p.m, p.k, 0,
                         rel_set(p.dtype, (void *)p.a.ptr, off, value(&seed, special_rate)));
        FOR_EACH_ELEMENT(&p, &p.b, p.k, p.n, 1,
                         rel_set(p.dtype, (void *)p.b.ptr, off, value(&seed, special_rate)));
      }
      if (p.bias) {
        int64_t j;
        for (j = 0; j < p.n; ++j)
          rel_set(p.dtype, (void *)p.bias, j, value(&seed, special_rate));
      }
      FOR_EACH_ELEMENT(
          &p, &p.c, p.m, p.n, 2,
          rel_set(p.dtype, (void *)p.c.ptr, off, p.beta == 0.0 ? NAN : value(&seed, special_rate)));
    }
    memcpy(snapshot, arena, (size_t)ARENA_BYTES);

    if (st != BMM_OK) {
      s2 = bmm_cpu(&p);
      if (s2 != st) die("bmm_cpu and bmm_plan_problem disagree", &p);
      check_message(s2, &p);
      if (memcmp(arena, snapshot, (size_t)ARENA_BYTES) != 0)
        die("a rejected problem changed memory", &p);
      return 0;
    }
    if (!in_arena || total > MAX_OUT || (use_ab && (i128)total * p.k > MAX_WORK)) return 0;

    /* an accepted problem: C outputs distinct, disjoint from what is read */
    if (total > 0) {
      const unsigned char *c0 = (const unsigned char *)p.c.ptr;
      FOR_EACH_ELEMENT(&p, &p.c, p.m, p.n, 2, {
        int64_t byte = (c0 - arena) + off * (int64_t)es, e;
        for (e = 0; e < (int64_t)es; ++e)
          if (marks[byte + e]++) die("accepted: two C outputs share memory", &p);
      });
      if (use_ab) {
        const unsigned char *a0 = (const unsigned char *)p.a.ptr,
                            *b0 = (const unsigned char *)p.b.ptr;
        FOR_EACH_ELEMENT(&p, &p.a, p.m, p.k, 0, {
          if (marks[(a0 - arena) + off * (int64_t)es]) die("accepted: C overlaps A", &p);
        });
        FOR_EACH_ELEMENT(&p, &p.b, p.k, p.n, 1, {
          if (marks[(b0 - arena) + off * (int64_t)es]) die("accepted: C overlaps B", &p);
        });
      }
      if (p.bias) {
        int64_t j, b0 = (const unsigned char *)p.bias - arena;
        for (j = 0; j < p.n * (int64_t)es; ++j)
          if (marks[b0 + j]) die("accepted: C overlaps bias", &p);
      }
      if (bmm_reference(&p, ref, mag) != BMM_OK)
        die("bmm_reference failed on an accepted problem", &p);
    }
  }

  /* ---- run: as given, then each CPU strategy's own entry point ---- */
  run_checked(bmm_cpu, "bmm_cpu, strategy as given", &p, &p, es);
  {
    bmm_problem q = p;
    q.strategy = BMM_STRATEGY_AUTO;
    run_checked(bmm_cpu, "bmm_cpu, AUTO, default table", &q, &p, es);
    {
      /* AUTO once more through a table whose first rule sends this problem to
         a CPU strategy with tunables from the input (huge ones included) */
      unsigned t = u8(&r);
      if (t & 1) {
        bmm_table_rule rules[2];
        int *tun[6], i;
        memset(rules, 0, sizeof rules);
        rules[0].strategy = (bmm_strategy)(1 + (int)((t >> 1) % (unsigned)cpu_strategy_count));
        rules[1].strategy = BMM_CPU_REF;
        tun[0] = &rules[0].threads, tun[1] = &rules[0].batch_per_block, tun[2] = &rules[0].lanes;
        tun[3] = &rules[0].vec, tun[4] = &rules[0].tile, tun[5] = &rules[0].pad;
        for (i = 0; i < 6; ++i)
          *tun[i] = tunable(&r);
        if (bmm_set_table(BMM_BACKEND_CPU, rules, 2) != BMM_OK)
          die("bmm_set_table refused a valid table", &p);
        run_checked(bmm_cpu, "bmm_cpu, AUTO, table of one rule with fuzzed tunables", &q, &p, es);
        bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
      }
    }
#define REL__X(E, name, l, mm, mn, mk, cf, desc)                \
  q.strategy = BMM_##E;                                         \
  if (bmm_plan_problem(&q, BMM_BACKEND_CPU, &plan) == BMM_OK) { \
    q.strategy = BMM_STRATEGY_AUTO;                             \
    run_checked(bmm_##name, "bmm_" #name, &q, &p, es);          \
  }
    BMM_CPU_STRATEGIES(REL__X)
#undef REL__X
  }
  return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  unsigned char *r = (unsigned char *)mmap(NULL, (size_t)(2 * GUARD_BYTES + ARENA_BYTES), PROT_NONE,
                                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  (void)argc, (void)argv;
  if (r == MAP_FAILED) abort();
  arena = r + GUARD_BYTES;
  if (mprotect(arena, (size_t)ARENA_BYTES, PROT_READ | PROT_WRITE) != 0) abort();
  snapshot = (unsigned char *)malloc((size_t)ARENA_BYTES);
  marks = (unsigned char *)malloc((size_t)ARENA_BYTES);
  if (!snapshot || !marks) abort();
  return 0;
}
