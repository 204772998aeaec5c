/* tests/test_half.c - the f16 and bf16 conversions of bmm.h (portable C) and
   bmm_cpu.h (hardware where the build has it) against an independent
   reference: the value of a half from its fields in double arithmetic, and
   rounding by a binary search over the sorted finite halves with the
   distances compared in double (exact: every f32, half and midpoint is a
   double). Every one of the 65536 halves of each kind converts to f32 and
   back; f32 -> half on edge cases (ties, subnormals, overflow, NaN) and
   random values; the bulk converters bit-equal to the scalar ones. Run as
   groups of tests/test_cpu.c in each of its builds (portable, -march=native:
   F16C and AVX-512 BF16 where the machine has them), and compiled alone for
   the AVX-512 BF16 path: tests/half.ninja. */
#ifndef BMMX_IN_TEST_CPU /* else groups of tests/test_cpu.c (half_*), which includes this file */
#define BMM_IMPLEMENTATION
#endif
#include "bmm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/bmm_test.h"
#define CHECK BMMX_CHECK

static uint32_t bits_of(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}
static float float_of(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* the value of a finite, non-negative half from its fields */
static double ref_f16_value(unsigned h) {
  const int e = (int)(h >> 10 & 0x1f), m = (int)(h & 0x3ff);
  return e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
}
static double ref_bf16_value(unsigned h) {
  const int e = (int)(h >> 7 & 0xff), m = (int)(h & 0x7f);
  return e == 0 ? ldexp(m, -133) : ldexp(128 + m, e - 134);
}

/* nearest half to x (not NaN), ties to even; max: the largest finite
   pattern, above: the value the next pattern (Inf) would have */
static unsigned ref_round(double (*value)(unsigned), unsigned max, double above, unsigned inf,
                          float xf) {
  const double x = fabs((double)xf);
  const unsigned sign = signbit(xf) ? 0x8000u : 0;
  unsigned lo = 0, hi = max, h;
  double a, b;
  if (x >= (value(max) + above) / 2) { /* the tie at the top rounds to the even Inf */
    if (x == (value(max) + above) / 2 && (max & 1) == 0) return sign | max;
    return sign | inf;
  }
  if (x >= value(max)) return sign | max;
  while (hi - lo > 1) { /* value(lo) <= x < value(hi) */
    unsigned mid = (lo + hi) / 2;
    if (value(mid) <= x)
      lo = mid;
    else
      hi = mid;
  }
  a = x - value(lo), b = value(hi) - x;
  h = a < b ? lo : b < a ? hi : (lo & 1) ? hi : lo;
  return sign | h;
}
static unsigned ref_to_f16(float x) {
  if (isnan(x)) return 0x7e00u | (signbit(x) ? 0x8000u : 0) | (bits_of(x) >> 13 & 0x3ff);
  return ref_round(ref_f16_value, 0x7bff, 65536.0, 0x7c00, x);
}
static unsigned ref_to_bf16(float x) {
  if (isnan(x)) return (bits_of(x) >> 16) | 0x40u;
  return ref_round(ref_bf16_value, 0x7f7f, ldexp(1, 128), 0x7f80, x);
}

static void test_all_halves(void) {
  unsigned h;
  long bad16 = 0, bad16b = 0, badb = 0, badbb = 0;
  for (h = 0; h < 65536; ++h) {
    const int neg = (h & 0x8000) != 0;
    /* f16 */
    {
      const unsigned e = h >> 10 & 0x1f, m = h & 0x3ff;
      const float f = bmm_f16_to_f32((bmm_f16)h);
      if (e == 0x1f && m) { /* NaN: quiet, payload in the top bits, sign kept */
        if (!(isnan(f) && (bits_of(f) & 0x3fffff) == (m << 13 & 0x3fffff) &&
              (signbit(f) != 0) == neg && bmm_f32_to_f16(f) == (h | 0x200)))
          ++bad16;
      } else {
        const double v = e == 0x1f ? INFINITY : ref_f16_value(h & 0x7fff);
        if (!((double)f == (neg ? -v : v) && (signbit(f) != 0) == neg)) ++bad16;
        if (bmm_f32_to_f16(f) != h) ++bad16b;
      }
    }
    /* bf16 */
    {
      const unsigned e = h >> 7 & 0xff, m = h & 0x7f;
      const float f = bmm_bf16_to_f32((bmm_bf16)h);
      if (e == 0xff && m) {
        if (!(isnan(f) && bits_of(f) >> 16 == h && bmm_f32_to_bf16(f) == (h | 0x40))) ++badb;
      } else {
        const double v = e == 0xff ? INFINITY : ref_bf16_value(h & 0x7fff);
        if (!((double)f == (neg ? -v : v) && (signbit(f) != 0) == neg)) ++badb;
        if (bmm_f32_to_bf16(f) != h) ++badbb;
      }
    }
  }
  CHECK(bad16 == 0, "f16 -> f32: %ld of 65536 halves wrong", bad16);
  CHECK(bad16b == 0, "f16 -> f32 -> f16: %ld of 65536 halves not back", bad16b);
  CHECK(badb == 0, "bf16 -> f32: %ld of 65536 halves wrong", badb);
  CHECK(badbb == 0, "bf16 -> f32 -> bf16: %ld of 65536 halves not back", badbb);
}

/* edge cases, then random floats: every bit pattern class, and values near
   the halves' range */
#define NVALS (1 << 21)
static float g_vals[NVALS];
static int g_nvals;

static uint64_t g_seed = 88172645463325252ull;
static uint64_t rnd(void) {
  g_seed ^= g_seed << 13, g_seed ^= g_seed >> 7, g_seed ^= g_seed << 17;
  return g_seed;
}

static void add(float x) {
  if (g_nvals < NVALS) g_vals[g_nvals++] = x;
}

static void make_values(void) {
  if (g_nvals) return; /* made once (two groups of test_cpu use them) */
  static const uint32_t edge[] = {
      0x00000000, 0x00000001, 0x007fffff, 0x00800000, 0x33000000, 0x33000001, 0x337fffff,
      0x33800000, 0x33c00000, 0x33a00000, 0x38800000, 0x387fffff, 0x387fe000, 0x387ff000,
      0x38801000, 0x38803000, 0x3f800000, 0x3f801000, 0x3f803000, 0x3f800fff, 0x3f801001,
      0x477fe000, 0x477fefff, 0x477ff000, 0x477ff001, 0x477fffff, 0x47800000, 0x7f7f7fff,
      0x7f7f8000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff, 0x7fa00000,
      0x3f808000, 0x3f818000, 0x3f807fff, 0x3f808001, 0x00008000, 0x00018000, 0x00400000};
  int i, e;
  for (i = 0; i < (int)(sizeof edge / sizeof edge[0]); ++i) {
    add(float_of(edge[i]));
    add(float_of(edge[i] | 0x80000000u));
  }
  /* every exponent f16 rounds at, each with the tie, tie +- 1 ulp patterns */
  for (e = 90; e <= 145; ++e) {
    uint32_t base = (uint32_t)e << 23;
    add(float_of(base | 0x1000)), add(float_of(base | 0x3000)), add(float_of(base | 0x0fff));
    add(float_of(base | 0x1001)), add(float_of(base | 0x7fffff)), add(float_of(base));
    for (i = 0; i < 23; ++i)
      add(float_of(base | 1u << i)), add(float_of(base | ((1u << i) - 1)));
  }
  while (g_nvals < NVALS / 2)
    add(float_of((uint32_t)rnd())); /* any bits */
  while (g_nvals < NVALS) {         /* exponents of the f16 range and around it */
    uint32_t x = (uint32_t)rnd();
    x = (x & 0x807fffffu) | (uint32_t)(95 + (int)(rnd() % 55)) << 23;
    add(float_of(x));
  }
}

static void test_f32_to_half(void) {
  int i;
  long bad16 = 0, badb = 0;
  for (i = 0; i < g_nvals; ++i) {
    const float x = g_vals[i];
    const unsigned r16 = ref_to_f16(x), rb = ref_to_bf16(x);
    const unsigned g16 = bmm_f32_to_f16(x), gb = bmm_f32_to_bf16(x);
    if (g16 != r16 && ++bad16 <= 5)
      printf("  f16 of %a (0x%08x): got 0x%04x, reference 0x%04x\n", (double)x, bits_of(x), g16,
             r16);
    if (gb != rb && ++badb <= 5)
      printf("  bf16 of %a (0x%08x): got 0x%04x, reference 0x%04x\n", (double)x, bits_of(x), gb,
             rb);
  }
  CHECK(bad16 == 0, "f32 -> f16: %ld of %d values differ from the reference", bad16, g_nvals);
  CHECK(badb == 0, "f32 -> bf16: %ld of %d values differ from the reference", badb, g_nvals);
}

/* Unit-stride f32 -> half of n values into g[off..off+n) of a 200-element
   window filled with 0xa5a5: elements wrong or written outside it. */
static long from_f32_window(int bf16, bmm_f16 *g, const float *src, int off, int n) {
  long bad = 0;
  int j;
  memset(g, 0xa5, sizeof(bmm_f16) * 200);
  if (bf16)
    bmm__cpu_from_f32_bf16(g + off, 1, src, 1, n);
  else
    bmm__cpu_from_f32_f16(g + off, 1, src, 1, n);
  for (j = 0; j < 200; ++j)
    bad += g[j] != (j < off || j >= off + n ? (bmm_f16)0xa5a5
                    : bf16                  ? bmm_f32_to_bf16(src[j - off])
                                            : bmm_f32_to_f16(src[j - off]));
  return bad;
}

/* the bulk converters (hardware where built with it) against the scalar
   ones, at every start offset and length tail */
static volatile int64_t g_all = 65536; /* every half: see test_bulk */
static void test_bulk(void) {
  static bmm_f16 h[NVALS], g[NVALS];
  static float f[NVALS];
  long bad = 0;
  int i, off;
  bmm__cpu_from_f32_f16(h, 1, g_vals, 1, g_nvals);
  for (i = 0; i < g_nvals; ++i)
    bad += h[i] != bmm_f32_to_f16(g_vals[i]);
  CHECK(bad == 0, "bulk f32 -> f16 (%s): %ld differ from bmm_f32_to_f16", bmm__cpu_cvt_path_f16,
        bad);
  bad = 0;
  bmm__cpu_from_f32_bf16(h, 1, g_vals, 1, g_nvals);
  for (i = 0; i < g_nvals; ++i)
    bad += h[i] != bmm_f32_to_bf16(g_vals[i]);
  CHECK(bad == 0, "bulk f32 -> bf16 (%s): %ld differ from bmm_f32_to_bf16", bmm__cpu_cvt_path_bf16,
        bad);
  for (i = 0; i < 65536; ++i)
    h[i] = (bmm_f16)i;
  bad = 0;
  /* the length through a volatile: inlined with a constant length that the
     vector loop covers whole, GCC 12 at -O3 warns on the scalar tail it
     never runs (-Waggressive-loop-optimizations, test_cpu_native) */
  bmm__cpu_to_f32_f16(f, 1, h, 1, g_all);
  for (i = 0; i < 65536; ++i)
    bad += bits_of(f[i]) != bits_of(bmm_f16_to_f32(h[i]));
  CHECK(bad == 0, "bulk f16 -> f32 (%s): %ld of 65536 differ", bmm__cpu_cvt_path_f16, bad);
  bad = 0;
  bmm__cpu_to_f32_bf16(f, 1, h, 1, g_all);
  for (i = 0; i < 65536; ++i)
    bad += bits_of(f[i]) != bits_of(bmm_bf16_to_f32(h[i]));
  CHECK(bad == 0, "bulk bf16 -> f32: %ld of 65536 differ", bad);
  /* odd offsets, lengths and strides: the vector body, its tail, strided */
  bad = 0;
  for (off = 0; off < 9; ++off)
    for (i = 0; i < 40; ++i) {
      int j;
      bad += from_f32_window(0, g, g_vals + 3 * off, off, i);
      memset(g, 0xa5, sizeof(bmm_f16) * 200);
      bmm__cpu_from_f32_bf16(g + off, 2, g_vals + off, 3, i);
      for (j = 0; j < 200; ++j)
        bad += g[j] != (j >= off && j < off + 2 * i && (j - off) % 2 == 0
                            ? bmm_f32_to_bf16(g_vals[off + (j - off) / 2 * 3])
                            : (bmm_f16)0xa5a5);
      /* unit stride: the AVX2 bf16 lanes (-march=native) and their tail */
      bad += from_f32_window(1, g, g_vals + 5 * off, off, i);
      memset(f, 0, sizeof(float) * 200);
      bmm__cpu_to_f32_bf16(f + off, 1, h + 65000 + off, 1, i);
      for (j = 0; j < 200; ++j)
        bad += bits_of(f[j]) !=
               (j >= off && j < off + i ? bits_of(bmm_bf16_to_f32(h[65000 + j])) : 0u);
      memset(f, 0, sizeof(float) * 200);
      bmm__cpu_to_f32_f16(f + off, 3, h + 31000 + off, 1, i);
      for (j = 0; j < i; ++j)
        bad += bits_of(f[off + 3 * j]) != bits_of(bmm_f16_to_f32(h[31000 + off + j]));
    }
  CHECK(bad == 0, "bulk converters at offsets, tails and strides: %ld elements wrong", bad);
}

static void print_paths(void) {
  printf("conversions: f16 %s, bf16 %s; %d f32 values\n", bmm__cpu_cvt_path_f16,
         bmm__cpu_cvt_path_bf16, g_nvals);
}
#ifndef BMMX_IN_TEST_CPU
int main(void) {
  bmmx_test_begin("all_halves"), test_all_halves(), bmmx_test_end();
  make_values();
  bmmx_test_begin("f32_to_half"), test_f32_to_half(), bmmx_test_end();
  bmmx_test_begin("bulk"), test_bulk(), bmmx_test_end();
  print_paths();
  return bmmx_summary();
}
#else
/* test_cpu's groups (its TESTS list) */
static void test_half_all(void) { test_all_halves(); }
static void test_half_f32_to(void) { make_values(), test_f32_to_half(); }
static void test_half_bulk(void) { make_values(), test_bulk(), print_paths(); }
#endif
