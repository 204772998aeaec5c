/* tests/test_roofline.c - the CPU floor's rule (bench/cpu_roofline.h,
   bmmx_roof_gbps): a row whose read share is a grid mix's gets that mix's
   bandwidth; a row between two mixes gets the larger of the two. The grid's
   bandwidths here are made up (no probe runs), in no order, so that neither
   neighbour wins by position. The seed's 3 x 1 x K rows read 4K / (4K + 3) of
   their bytes: K = 3, 6 and 12 sit on the grid's 4:1, 8:1 and 16:1. Also
   bmmx_median_interval, the spread bench_cpu_peers gives its ratios: the
   order statistics and coverage of the binomial(n, 1/2) interval, against
   the binomial computed here from its counts. */
#define _POSIX_C_SOURCE 200809L
#ifndef BMMX_IMPL_LINKED /* else tests/bmm_impl.c's object holds it */
#define BMM_IMPLEMENTATION
#endif
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "bench/cpu_roofline.h"
#include "tests/bmm_test.h"

#define CHECK BMMX_CHECK

/* the mix of r reads to w writes, its index; -1 if the grid lacks it */
static int mix_index(int r, int w) {
  int m;
  for (m = 0; m < BMMX_ROOF_NMIX; ++m)
    if (bmmx__roof_mix_r[m] == r && bmmx__roof_mix_w[m] == w) return m;
  return -1;
}

/* P(X <= i), X ~ binomial(n, 1/2), from the counts C(n, j) summed */
static double binom_below(int n, int i) {
  double c = 1, sum = 0, all = 0;
  int j;
  for (j = 0; j <= n; ++j) {
    if (j <= i) sum += c;
    all += c;
    c = c * (double)(n - j) / (double)(j + 1);
  }
  return sum / all;
}

/* n samples shuffled (the helper sorts them): the median, the j-th smallest
   and largest with j the largest whose coverage is >= 95% (1 under 6
   samples), and that coverage */
static void check_median_interval(void) {
  int n, i;
  for (n = 1; n <= 41; ++n) {
    double v[41], med, lo, hi, cover, want_cover;
    int j = 1;
    while (2 * (j + 1) <= n && 1 - 2 * binom_below(n, j) >= 0.95)
      ++j;
    want_cover = 1 - 2 * binom_below(n, j - 1);
    for (i = 0; i < n; ++i)
      v[i] = 10.0 + (double)(i % 2 ? i - 1 : (i + 1 < n ? i + 1 : i)); /* pairs swapped */
    cover = bmmx_median_interval(v, n, &med, &lo, &hi);
    CHECK(med == 10.0 + (n - 1) / 2.0, "n = %d: median %g, want %g", n, med, 10.0 + (n - 1) / 2.0);
    CHECK(lo == 10.0 + (j - 1) && hi == 10.0 + (n - j), "n = %d: interval %g..%g, want %g..%g", n,
          lo, hi, 10.0 + (j - 1), 10.0 + (n - j));
    CHECK(fabs(cover - want_cover) < 1e-12, "n = %d: coverage %.6f, want %.6f", n, cover,
          want_cover);
  }
  { /* the figures the header states */
    double v[15], med, lo, hi;
    for (i = 0; i < 15; ++i)
      v[i] = i + 1;
    CHECK(fabs(bmmx_median_interval(v, 7, &med, &lo, &hi) - 0.984375) < 1e-12 && lo == 1 && hi == 7,
          "n = 7: min..max at 98.4%%");
    CHECK(fabs(bmmx_median_interval(v, 9, &med, &lo, &hi) - (1 - 20.0 / 512)) < 1e-12 && lo == 2 &&
              hi == 8,
          "n = 9: 2nd..8th at 96.1%%");
    CHECK(bmmx_median_interval(v, 15, &med, &lo, &hi) > 0.96 && lo == 4 && hi == 12,
          "n = 15: 4th..12th");
  }
}

/* bmmx_roof_track_end: each of the two mixes takes the better of its two
   configurations' medians over the passes it ran (passes alternate them),
   and its best figure so far never falls; rows that ran no passes leave the
   figures alone. */
static void check_track(const bmmx_roofline *grid) {
  int n, j, i;
  for (n = 0; n <= 9; ++n) {
    bmmx_roofline r = *grid;
    bmmx_roof_track t;
    double want[2], before[2], got;
    memset(&t, 0, sizeof t);
    t.m = 6, t.probe = 1, t.n = n, t.rd = 2e9, t.wr = 1e9; /* read share 2/3: mixes 5 and 6 */
    for (j = 0; j < 2; ++j) {
      double v[2][BMMX_ROOF_TRACK_MAX / 2];
      int cnt[2] = {0, 0}, k;
      for (i = 0; i < n; ++i) { /* configuration i % 2, distinct made-up figures */
        t.g[j][i % 2][i / 2] = 10.0 + (double)((i * 7 + j * 3) % 11);
        v[i % 2][cnt[i % 2]++] = t.g[j][i % 2][i / 2];
      }
      want[j] = 0;
      for (k = 0; k < 2; ++k)
        if (cnt[k] > 0) {
          const double med = bmmx_median(v[k], cnt[k]);
          if (med > want[j]) want[j] = med;
        }
      before[j] = r.gbps[t.m - 1 + j];
      r.best[t.m - 1 + j] = 15.0;
    }
    got = bmmx_roof_track_end(&r, &t);
    for (j = 0; j < 2; ++j) {
      const double w = n > 0 ? want[j] : before[j];
      CHECK(r.gbps[t.m - 1 + j] == w, "track, %d passes: mix %d at %.2f GB/s, want %.2f", n,
            t.m - 1 + j, r.gbps[t.m - 1 + j], w);
      CHECK(r.best[t.m - 1 + j] == (n > 0 && want[j] > 15.0 ? want[j] : 15.0),
            "track, %d passes: mix %d's best %.2f", n, t.m - 1 + j, r.best[t.m - 1 + j]);
    }
    CHECK(got == bmmx_roof_gbps(&r, t.rd, t.wr), "track, %d passes: returns the row's floor", n);
    t.probe = 0; /* a cached row: nothing moves */
    r.gbps[t.m] = 99;
    bmmx_roof_track_end(&r, &t);
    CHECK(r.gbps[t.m] == 99, "track without passes moved a mix");
  }
}

int main(void) {
  bmmx_roofline r;
  int m, k, d;
  memset(&r, 0, sizeof r);
  bmmx__roof_grid(&r); /* as bmmx_roofline_measure fills it */
  for (m = 0; m < BMMX_ROOF_NMIX; ++m)
    r.gbps[m] = 20.0 + (double)((m * 7) % 5) + 0.1 * m; /* distinct, not monotonic */
  for (m = 1; m < BMMX_ROOF_NMIX; ++m)
    CHECK(r.read_frac[m] > r.read_frac[m - 1], "grid mixes not ascending at %d", m);
  for (m = 0; m < BMMX_ROOF_NMIX; ++m) {
    /* on the mix, at several sizes (the fraction rounds differently) */
    const double rr = bmmx__roof_mix_r[m], ww = bmmx__roof_mix_w[m];
    double scale;
    for (scale = 1; scale < 1e12; scale *= 37.3)
      CHECK(bmmx_roof_gbps(&r, rr * scale, ww * scale) == r.gbps[m],
            "mix %g:%g at scale %g: %.2f GB/s, want the mix's %.2f", rr, ww, scale,
            bmmx_roof_gbps(&r, rr * scale, ww * scale), r.gbps[m]);
    if (m > 0) { /* between mix m - 1 and m: the larger */
      const double f = 0.5 * (r.read_frac[m - 1] + r.read_frac[m]);
      const double want = r.gbps[m] > r.gbps[m - 1] ? r.gbps[m] : r.gbps[m - 1];
      CHECK(bmmx_roof_gbps(&r, f * 1e9, (1 - f) * 1e9) == want,
            "between mixes %d and %d: %.2f GB/s, want %.2f", m - 1, m,
            bmmx_roof_gbps(&r, f * 1e9, (1 - f) * 1e9), want);
    }
  }
  /* the seed's rows, every dtype: on the grid exactly at K = 3, 6, 12 */
  for (d = 0; d < 4; ++d)
    for (k = 1; k <= 64; ++k) {
      static const bmm_dtype dts[4] = {BMM_F32, BMM_F64, BMM_F16, BMM_BF16};
      bmmx_case c;
      double rd, wr, f, got, want;
      int up;
      memset(&c, 0, sizeof c);
      c.dtype = dts[d], c.layout = BMMX_ROWMAJOR, c.batch = 1000003, c.m = 3, c.n = 1, c.k = k;
      bmmx_case_rw(&c, 0, &rd, &wr);
      f = rd / (rd + wr);
      CHECK(f > (4.0 * k) / (4.0 * k + 3) - 1e-12 && f < (4.0 * k) / (4.0 * k + 3) + 1e-12,
            "%s 3x1x%d reads %.6f of its bytes", bmm_dtype_name(dts[d]), k, f);
      got = bmmx_roof_gbps(&r, rd, wr);
      up = bmmx__roof_upper(&r, f);
      want = k == 3 || k == 6 || k == 12
                 ? r.gbps[mix_index(k == 3   ? 4
                                    : k == 6 ? 8
                                             : 16,
                                    1)]
                 : (r.gbps[up] > r.gbps[up - 1] ? r.gbps[up] : r.gbps[up - 1]);
      CHECK(got == want, "%s 3x1x%d: floor %.2f GB/s, want %.2f", bmm_dtype_name(dts[d]), k, got,
            want);
      CHECK(bmmx_roof_seconds(&r, &c, 0) == (rd + wr) / (got * 1e9), "%s 3x1x%d: seconds",
            bmm_dtype_name(dts[d]), k);
    }
  CHECK(mix_index(4, 1) >= 0 && mix_index(8, 1) >= 0 && mix_index(16, 1) >= 0,
        "the grid lost a seed mix");
  check_median_interval();
  check_track(&r);
  return bmmx_summary();
}
