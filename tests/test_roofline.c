/* tests/test_roofline.c - the CPU floor's rule (bench/cpu_roofline.h,
   bmmx_roof_gbps): a row whose read share is a grid mix's gets that mix's
   bandwidth; a row between two mixes gets the larger of the two. The grid's
   bandwidths here are made up (no probe runs), in no order, so that neither
   neighbour wins by position. The seed's 3 x 1 x K rows read 4K / (4K + 3) of
   their bytes: K = 3, 6 and 12 sit on the grid's 4:1, 8:1 and 16:1. */
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
  return bmmx_summary();
}
