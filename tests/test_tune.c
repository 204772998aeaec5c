/* tests/test_tune.c - the tuner's compression on synthetic timings: ties go to
   the fixed order, neighbours merge, never-winning rules go, the catch-all is
   last, the text parses back to the same rules, the same timings give the
   same bytes (whatever the order of points and configurations), and the
   shipped tables/cpu_tuned.{txt,h} agree with each other. No clock: runs in
   CI. Prints `N passed, N failed`; exits 1 on any failure. */
#include "bmm.h"
#include "tables/cpu_tuned.h"
#define BMM_CPU_TABLE bmm_tuned_cpu
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tools/tune_compress.h"
#include "tests/bmm_test.h"

#define CHECK BMMX_CHECK

#define MAXP 256
#define MAXC 16

typedef struct synth {
  bmmt_point pts[MAXP];
  int npts;
  bmm_table_rule cfgs[MAXC];
  int ncfg;
  double times[MAXP * MAXC];
} synth;

static bmm_table_rule cfg(bmm_strategy s, int tile) {
  bmm_table_rule r;
  memset(&r, 0, sizeof r);
  r.strategy = s;
  r.tile = tile;
  return r;
}

static void add_point(synth *s, bmm_dtype dt, bmm_layout l, int64_t m, int64_t n, int64_t k,
                      int64_t batch) {
  bmmt_point *p = &s->pts[s->npts++];
  p->dtype = dt, p->layout = l, p->m = m, p->n = n, p->k = k, p->batch = batch;
}

/* A made-up cost model with clear regions: small kernels win small rowmajor
   shapes, dot wins long K, blocked (tile 8) wins big squares, batch_simd wins
   batch-inner; ref is never best. Unsupported configurations get 0 (not run). */
static double model(const bmm_table_rule *c, const bmmt_point *p) {
  double work = (double)p->m * (double)p->n * (double)p->k * (double)p->batch * 1e-9;
  double f = 4.0;
  if (!bmmt_supports(c->strategy, p)) return 0;
  switch (c->strategy) {
  case BMM_CPU_REF: f = 4.0; break;
  case BMM_CPU_DOT: f = p->k >= 30 ? 1.0 : 2.0; break;
  case BMM_CPU_SMALL: f = p->k < 30 ? 1.5 : 2.5; break;
  case BMM_CPU_BLOCKED: f = p->m >= 32 ? (c->tile == 8 ? 0.5 : 0.7) : 3.0; break;
  case BMM_CPU_BATCH_SIMD: f = 0.3; break;
  default: break;
  }
  if (p->dtype == BMM_F64) f *= 1.9;
  return f * work + 1e-7;
}

static void build(synth *s) {
  int d, k, e;
  memset(s, 0, sizeof *s);
  s->cfgs[s->ncfg++] = cfg(BMM_CPU_REF, 0);
  s->cfgs[s->ncfg++] = cfg(BMM_CPU_DOT, 0);
  s->cfgs[s->ncfg++] = cfg(BMM_CPU_SMALL, 0);
  s->cfgs[s->ncfg++] = cfg(BMM_CPU_BLOCKED, 0);
  s->cfgs[s->ncfg++] = cfg(BMM_CPU_BLOCKED, 8);
  s->cfgs[s->ncfg++] = cfg(BMM_CPU_BATCH_SIMD, 0);
  for (d = BMM_F32; d <= BMM_F64; ++d) {
    for (k = 5; k <= 50; k += 5) {
      add_point(s, (bmm_dtype)d, BMM_LAYOUT_ROWMAJOR, 3, 1, k, 100000);
      add_point(s, (bmm_dtype)d, BMM_LAYOUT_BATCH_INNER, 3, 1, k, 100000);
    }
    for (e = 2; e <= 64; e *= 2)
      add_point(s, (bmm_dtype)d, BMM_LAYOUT_ROWMAJOR, e, e, e, 1 << 20 >> (e / 2 > 16 ? 6 : 2));
  }
  for (e = 0; e < s->npts; ++e)
    for (k = 0; k < s->ncfg; ++k)
      s->times[e * s->ncfg + k] = model(&s->cfgs[k], &s->pts[e]);
}

static bmmt_options opts(int max_rules) {
  bmmt_options o;
  o.backend = BMM_BACKEND_CPU;
  o.tie = 0.01;
  o.max_rules = max_rules;
  o.note = "synthetic test";
  return o;
}

static int winner_of(const synth *s, int p) {
  return bmmt_smooth_pick(s->pts, s->npts, s->cfgs, s->ncfg, s->times, 0.01, p);
}

/* the growth's halfway edge (bmmt__half_to): hi from own towards a larger
   wall, lo from own towards a smaller one */
static void test_half_to(void) {
  CHECK(bmmt__half_to(16, 32, 1) == 22, "half_to(16,32) = %lld",
        (long long)bmmt__half_to(16, 32, 1));
  CHECK(bmmt__half_to(4, 5, 1) == 4, "half_to(4,5)");
  CHECK(bmmt__half_to(1, 2, 1) == 1, "half_to(1,2)");
  CHECK(bmmt__half_to(25, 30, 1) == 27, "half_to(25,30)");
  CHECK(bmmt__half_to(1, 1000000000000.0L, 1) == 1000000, "half_to large");
  CHECK(bmmt__half_to(32, 16, 0) == 23, "half_to(32,16) lo = %lld",
        (long long)bmmt__half_to(32, 16, 0));
}

static void test_ties(void) {
  bmm_table_rule c[3];
  double t[3] = {1.0, 1.0, 1.0};
  c[0] = cfg(BMM_CPU_BLOCKED, 8), c[1] = cfg(BMM_CPU_DOT, 0), c[2] = cfg(BMM_CPU_BLOCKED, 0);
  CHECK(bmmt_pick(c, 3, t, 0) == 1, "exact tie: strategy order picks cpu_dot");
  t[1] = 2.0;
  CHECK(bmmt_pick(c, 3, t, 0) == 2, "exact tie: smaller tunable (tile 0) first");
  t[2] = 1.005;
  CHECK(bmmt_pick(c, 3, t, 0) == 0, "no tolerance: the fastest");
  CHECK(bmmt_pick(c, 3, t, 0.01) == 2, "within 1%%: the fixed order");
  t[0] = 0, t[1] = -1, t[2] = HUGE_VAL;
  CHECK(bmmt_pick(c, 3, t, 0.01) == -1, "nothing ran: -1");
}

static void test_merge_1d(void) {
  synth s;
  bmm_table_rule out[BMM_TABLE_MAX_RULES];
  bmmt_options o = opts(0);
  int k, n;
  memset(&s, 0, sizeof s);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_REF, 0);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_DOT, 0);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_SMALL, 0);
  for (k = 5; k <= 50; k += 5) {
    add_point(&s, BMM_F32, BMM_LAYOUT_ROWMAJOR, 3, 1, k, 1000);
    s.times[(s.npts - 1) * 3 + 0] = 9;
    s.times[(s.npts - 1) * 3 + 1] = k <= 25 ? 1 : 2;
    s.times[(s.npts - 1) * 3 + 2] = k <= 25 ? 2 : 1;
  }
  n = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out, BMM_TABLE_MAX_RULES);
  CHECK(n == 2, "1-D sweep, two halves: 2 rules (small for k >= 28, dot catch-all), got %d", n);
  if (n == 2) {
    CHECK(
        out[0].strategy == BMM_CPU_SMALL && out[0].k_min == 28 && out[0].k_max == 0,
        "first rule small k 28.. (border at the geometric mean of 25 and 30), got %s k %lld..%lld",
        bmm_strategy_name(out[0].strategy), (long long)out[0].k_min, (long long)out[0].k_max);
    CHECK(out[0].m_min == 0 && out[0].m_max == 0 && out[0].batch_max == 0,
          "single-valued axes open to `*`");
    CHECK(out[1].strategy == BMM_CPU_DOT && bmm__rule_is_catch_all(&out[1]),
          "catch-all is the claims-everything winner cpu_dot");
  }
  /* interleaved winners: A A B B A A -> three boxes, the middle one kept */
  memset(&s, 0, sizeof s);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_REF, 0);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_DOT, 0);
  for (k = 1; k <= 6; ++k) {
    add_point(&s, BMM_F64, BMM_LAYOUT_GENERAL, 2, 2, k, 10);
    s.times[(s.npts - 1) * 2 + 0] = k == 3 || k == 4 ? 1 : 2;
    s.times[(s.npts - 1) * 2 + 1] = k == 3 || k == 4 ? 2 : 1;
  }
  n = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out, BMM_TABLE_MAX_RULES);
  CHECK(n == 2 && out[0].strategy == BMM_CPU_REF && out[0].k_min == 3 && out[0].k_max == 4 &&
            out[1].strategy == BMM_CPU_DOT,
        "A A B B A A: ref k 3..4 then dot catch-all, got %d rules", n);
}

/* Noise: blocked is fastest everywhere, dot (earlier in the fixed order) is
   within the tie at one point only. The point keeps blocked: one rule. */
static void test_smoothing(void) {
  synth s;
  bmm_table_rule out[BMM_TABLE_MAX_RULES];
  bmmt_options o = opts(0);
  int k, n;
  memset(&s, 0, sizeof s);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_DOT, 0);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_BLOCKED, 0);
  for (k = 1; k <= 5; ++k) {
    add_point(&s, BMM_F32, BMM_LAYOUT_GENERAL, 2, 2, k, 100);
    s.times[(s.npts - 1) * 2 + 0] = k == 3 ? 1.005 : 1.5;
    s.times[(s.npts - 1) * 2 + 1] = 1.0;
  }
  CHECK(bmmt_pick(s.cfgs, s.ncfg, s.times + 2 * 2, 0.01) == 0,
        "bmmt_pick alone: the fixed order gives the tied point to dot");
  CHECK(bmmt_smooth_pick(s.pts, s.npts, s.cfgs, s.ncfg, s.times, 0.01, 2) == 1,
        "smoothed: blocked, tied at every point of the group, keeps it");
  n = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out, BMM_TABLE_MAX_RULES);
  CHECK(n == 1 && out[0].strategy == BMM_CPU_BLOCKED, "one rule, blocked catch-all (got %d)", n);
}

/* Two groups (f32 rowmajor, f32 shared_b) whose default is cpu_small: one
   default rule for both, after rowmajor's box. */
static void test_merge_defaults(void) {
  synth s;
  bmm_table_rule out[BMM_TABLE_MAX_RULES];
  bmmt_options o = opts(0);
  int k, l, n, p, wrong = 0;
  memset(&s, 0, sizeof s);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_REF, 0);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_DOT, 0);
  s.cfgs[s.ncfg++] = cfg(BMM_CPU_SMALL, 0);
  for (l = 0; l < 2; ++l)
    for (k = 1; k <= (l ? 3 : 4); ++k) {
      double *t;
      add_point(&s, BMM_F32, l ? BMM_LAYOUT_SHARED_B : BMM_LAYOUT_ROWMAJOR, 2, 2, k, 100);
      t = s.times + (s.npts - 1) * s.ncfg;
      t[0] = 5, t[1] = k == 4 ? 1 : 2, t[2] = k == 4 ? 2 : 1;
    }
  n = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out, BMM_TABLE_MAX_RULES);
  CHECK(n == 3 && out[0].strategy == BMM_CPU_DOT && out[0].layouts == BMM_L_ROWMAJOR &&
            out[1].strategy == BMM_CPU_SMALL &&
            out[1].layouts == (BMM_L_ROWMAJOR | BMM_L_SHARED_B) &&
            out[1].dtypes == BMM_DT(BMM_F32) && out[2].strategy == BMM_CPU_DOT,
        "rowmajor box, one merged default for both groups, dot catch-all (got %d rules)", n);
  for (p = 0; p < s.npts; ++p) {
    int r = bmmt_eval(out, n, &s.pts[p]);
    if (r < 0 || bmmt_config_cmp(&out[r], &s.cfgs[winner_of(&s, p)])) ++wrong;
  }
  CHECK(wrong == 0, "merged defaults: %d points lose their winner", wrong);
}

/* The H200 case (2026-11-28, bench/notes/tune.md): configuration X (here
   blocked tile 8; cuBLAS on the H200) wins square32 and no other point; Y
   (dot) wins the seed 3x1xK and the squares 2..16, Z (blocked) the squares
   64..256. The seed K is sampled every 3 from 1 (the grid now) or every 5
   from 5 (the H200's grid: no point between 30 and 35). X's box must not
   reach the seed: the old growth found no point in line with square32 on m
   and n, opened both to `*` and sent 3x1x32 (both grids) and 3x1x31..33
   (every 5) to X. It must still reach what lies nearer square32 than any
   other point, and keep the batch open (the grid's batch is the shape's). */
static int64_t h200_batch(int64_t m, int64_t n, int64_t k) {
  return 16000000 / (m * k + k * n + m * n);
}

static void test_grow_evidence(void) {
  static synth s;
  bmm_table_rule out[BMM_TABLE_MAX_RULES];
  bmmt_options o = opts(0);
  int grid, k, e, n, p, i, wrong;
  for (grid = 0; grid < 2; ++grid) {
    const bmm_table_rule X = cfg(BMM_CPU_BLOCKED, 8), Y = cfg(BMM_CPU_DOT, 0),
                         Z = cfg(BMM_CPU_BLOCKED, 0);
    const char *what = grid ? "seed K 5..50/5" : "seed K 1..64/3";
    int xr = -1, zr = -1;
    memset(&s, 0, sizeof s);
    s.cfgs[s.ncfg++] = cfg(BMM_CPU_REF, 0);
    s.cfgs[s.ncfg++] = Y, s.cfgs[s.ncfg++] = Z, s.cfgs[s.ncfg++] = X;
    for (k = grid ? 5 : 1; k <= (grid ? 50 : 64); k += grid ? 5 : 3)
      add_point(&s, BMM_F32, BMM_LAYOUT_ROWMAJOR, 3, 1, k, h200_batch(3, 1, k));
    for (e = 2; e <= 256; e *= 2)
      add_point(&s, BMM_F32, BMM_LAYOUT_ROWMAJOR, e, e, e, h200_batch(e, e, e));
    for (p = 0; p < s.npts; ++p) { /* the winner 1, the others 2, ref 4 */
      const bmmt_point *q = &s.pts[p];
      int w = q->m == 32 ? 3 : q->m >= 64 ? 2 : 1;
      for (i = 0; i < s.ncfg; ++i)
        s.times[p * s.ncfg + i] = i == 0 ? 4.0 : i == w ? 1.0 : 2.0;
    }
    n = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out, BMM_TABLE_MAX_RULES);
    CHECK(n > 0, "%s: compressed (%d rules)", what, n);
    if (n <= 0) continue;
    for (i = 0; i < n; ++i) {
      if (bmmt_config_cmp(&out[i], &X) == 0) xr = i;
      if (bmmt_config_cmp(&out[i], &Z) == 0) zr = i;
    }
    for (k = 30; k <= 35; ++k) {
      bmmt_point q = s.pts[0];
      int r;
      q.k = k, q.batch = h200_batch(3, 1, k);
      r = bmmt_eval(out, n, &q);
      CHECK(r >= 0 && bmmt_config_cmp(&out[r], &X) != 0,
            "%s: 3x1x%d goes to %s tile %d, not X (blocked tile 8)", what, k,
            r < 0 ? "none" : bmm_strategy_name(out[r].strategy), r < 0 ? -1 : out[r].tile);
      q.batch = 1000000;
      r = bmmt_eval(out, n, &q);
      CHECK(r >= 0 && bmmt_config_cmp(&out[r], &X) != 0, "%s: 3x1x%d batch 1e6 not to X", what, k);
    }
    { /* X keeps square32 and what lies nearer it than any other point */
      bmmt_point q;
      static const int64_t close_by[][4] = {
          {32, 32, 32, 0}, {32, 32, 32, 1000000}, {40, 40, 40, 0}, {24, 45, 33, 0}};
      memset(&q, 0, sizeof q);
      q.dtype = BMM_F32, q.layout = BMM_LAYOUT_ROWMAJOR;
      for (i = 0; i < 4; ++i) {
        int r;
        q.m = close_by[i][0], q.n = close_by[i][1], q.k = close_by[i][2];
        q.batch = close_by[i][3] ? close_by[i][3] : h200_batch(q.m, q.n, q.k);
        r = bmmt_eval(out, n, &q);
        CHECK(r >= 0 && bmmt_config_cmp(&out[r], &X) == 0, "%s: %lldx%lldx%lld batch %lld to X",
              what, (long long)q.m, (long long)q.n, (long long)q.k, (long long)q.batch);
      }
    }
    /* X's box ends halfway to square16 and square64 on m, n and k (the seed's
       K = 31, 34 lie 7x aside in m: no wall at k = 32); its batch stays open
       (no other batch of these shapes). Z's reaches past square256, the last
       m, n and k of the grid. */
    CHECK(xr >= 0 && out[xr].m_min == 23 && out[xr].m_max == 45 && out[xr].n_min == 23 &&
              out[xr].n_max == 45 && out[xr].k_min == 23 && out[xr].k_max == 45 &&
              out[xr].batch_min == 0 && out[xr].batch_max == 0,
          "%s: X's box m %lld..%lld n %lld..%lld k %lld..%lld batch %lld..%lld (want 23..45 "
          "each, batch 0..0)",
          what, xr < 0 ? -1LL : (long long)out[xr].m_min, xr < 0 ? -1LL : (long long)out[xr].m_max,
          xr < 0 ? -1LL : (long long)out[xr].n_min, xr < 0 ? -1LL : (long long)out[xr].n_max,
          xr < 0 ? -1LL : (long long)out[xr].k_min, xr < 0 ? -1LL : (long long)out[xr].k_max,
          xr < 0 ? -1LL : (long long)out[xr].batch_min,
          xr < 0 ? -1LL : (long long)out[xr].batch_max);
    CHECK(zr >= 0 && out[zr].m_min == 46 && out[zr].m_max == 0 && out[zr].k_max == 0,
          "%s: Z's box m %lld..%lld k ..%lld (want 46.. and k open past square256)", what,
          zr < 0 ? -1LL : (long long)out[zr].m_min, zr < 0 ? -1LL : (long long)out[zr].m_max,
          zr < 0 ? -1LL : (long long)out[zr].k_max);
    for (p = 0, wrong = 0; p < s.npts; ++p) {
      int r = bmmt_eval(out, n, &s.pts[p]);
      if (r < 0 || bmmt_config_cmp(&out[r], &s.cfgs[winner_of(&s, p)])) ++wrong;
    }
    CHECK(wrong == 0, "%s: %d grid points lose their winner", what, wrong);
  }
}

static void test_synthetic(void) {
  static synth s, t;
  bmm_table_rule out[BMM_TABLE_MAX_RULES], out2[BMM_TABLE_MAX_RULES], back[BMM_TABLE_MAX_RULES];
  static char text[1 << 16], text2[1 << 16], hdr[1 << 16];
  bmmt_options o = opts(0);
  int n, n2, nb, p, i, wrong = 0, blocked0 = 0, lines = 0;
  uint64_t seed = 7;
  const char *c;
  build(&s);
  n = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out, BMM_TABLE_MAX_RULES);
  CHECK(n > 1 && n < s.npts / 3, "compressed %d points to %d rules", s.npts, n);
  if (n < 1) return;
  bmmt_format_text(out, n, "synthetic\ncommand: test_tune", text, sizeof text);

  for (p = 0; p < s.npts; ++p) { /* every grid point gets its winner */
    int r = bmmt_eval(out, n, &s.pts[p]);
    int w = winner_of(&s, p);
    if (r < 0 || bmmt_config_cmp(&out[r], &s.cfgs[w])) {
      ++wrong;
      if (wrong < 4)
        printf("  point %d (%s %s %lldx%lldx%lld): table %s, winner %s\n", p,
               bmm_dtype_name(s.pts[p].dtype), bmm_layout_name(s.pts[p].layout),
               (long long)s.pts[p].m, (long long)s.pts[p].n, (long long)s.pts[p].k,
               r < 0 ? "none" : bmm_strategy_name(out[r].strategy),
               bmm_strategy_name(s.cfgs[w].strategy));
    }
  }
  CHECK(wrong == 0, "%d grid points do not get their winner", wrong);

  for (i = 0; i < n; ++i) { /* cpu_ref and blocked tile 0 never win: no rule */
    if (out[i].strategy == BMM_CPU_BLOCKED && out[i].tile == 0) ++blocked0;
    if (i < n - 1 && out[i].strategy == BMM_CPU_REF) ++blocked0;
  }
  CHECK(blocked0 == 0, "never-winning configurations have no rule");
  CHECK(bmm__rule_is_catch_all(&out[n - 1]) && bmmt_claims_all(out[n - 1].strategy),
        "last rule is a catch-all with a claims-everything strategy");
  CHECK(bmm_set_table(BMM_BACKEND_CPU, out, n) == BMM_OK, "bmm_set_table accepts it: %s",
        bmm_last_error());

  /* the library picks what bmmt_eval says, on real descriptors */
  wrong = 0;
  for (p = 0; p < s.npts; ++p) {
    bmmx_case cs;
    bmm_problem pr;
    bmm_plan pl;
    const bmmt_point *q = &s.pts[p];
    memset(&cs, 0, sizeof cs);
    cs.dtype = q->dtype, cs.m = q->m, cs.n = q->n, cs.k = q->k, cs.batch = q->batch;
    cs.layout = q->layout == BMM_LAYOUT_BATCH_INNER ? BMMX_BATCH_INNER : BMMX_ROWMAJOR;
    pr = bmmx_problem(&cs, (const void *)(uintptr_t)0x100000000ull,
                      (const void *)(uintptr_t)0x10000000000ull,
                      (void *)(uintptr_t)0x20000000000ull, NULL);
    if (bmm_plan_problem(&pr, BMM_BACKEND_CPU, &pl) != BMM_OK || pl.layout != q->layout ||
        pl.rule_index != bmmt_eval(out, n, q))
      ++wrong;
  }
  CHECK(wrong == 0, "library rule choice differs from bmmt_eval at %d points", wrong);
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);

  CHECK(bmm_table_parse(text, back, BMM_TABLE_MAX_RULES, &nb) == BMM_OK && nb == n &&
            bmmt_rules_equal(back, out, n),
        "text parses back to the same rules (%s)", bmm_last_error());

  n2 = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out2, BMM_TABLE_MAX_RULES);
  bmmt_format_text(out2, n2, "synthetic\ncommand: test_tune", text2, sizeof text2);
  CHECK(strcmp(text, text2) == 0, "second run: byte-identical text");

  /* same timings, points and configurations in another order: same bytes */
  t = s;
  for (p = t.npts - 1; p > 0; --p) {
    int q = (int)(bmmx_rand(&seed) % (uint64_t)(p + 1)), cc;
    bmmt_point tp = t.pts[p];
    t.pts[p] = t.pts[q], t.pts[q] = tp;
    for (cc = 0; cc < t.ncfg; ++cc) {
      double x = t.times[p * t.ncfg + cc];
      t.times[p * t.ncfg + cc] = t.times[q * t.ncfg + cc], t.times[q * t.ncfg + cc] = x;
    }
  }
  for (i = 0; i < t.ncfg / 2; ++i) { /* reverse the configurations */
    int j = t.ncfg - 1 - i;
    bmm_table_rule x = t.cfgs[i];
    t.cfgs[i] = t.cfgs[j], t.cfgs[j] = x;
    for (p = 0; p < t.npts; ++p) {
      double y = t.times[p * t.ncfg + i];
      t.times[p * t.ncfg + i] = t.times[p * t.ncfg + j], t.times[p * t.ncfg + j] = y;
    }
  }
  n2 = bmmt_compress(t.pts, t.npts, t.cfgs, t.ncfg, t.times, &o, out2, BMM_TABLE_MAX_RULES);
  bmmt_format_text(out2, n2, "synthetic\ncommand: test_tune", text2, sizeof text2);
  CHECK(strcmp(text, text2) == 0, "shuffled points and configurations: byte-identical text");

  /* header: one initialiser per rule, the requested name, quotes escaped */
  snprintf(out[0].note, sizeof out[0].note, "a \"quoted\" note");
  bmmt_format_header(out, n, "bmm_tuned_cpu", "BMM_CPU_TABLE", "synthetic", hdr, sizeof hdr);
  for (c = hdr; (c = strstr(c, "\n    {")) != NULL; ++c)
    ++lines;
  CHECK(strstr(hdr, "static const bmm_table_rule bmm_tuned_cpu[] = {") != NULL,
        "header declares the array");
  CHECK(strstr(hdr, "#define BMM_CPU_TABLE bmm_tuned_cpu") != NULL, "header says how to use it");
  CHECK(lines == n, "header has %d initialisers for %d rules", lines, n);
  CHECK(strstr(hdr, "a \\\"quoted\\\" note") != NULL, "quotes in notes are escaped");
}

static void test_budget_and_drop(void) {
  static synth s;
  bmm_table_rule out[BMM_TABLE_MAX_RULES], full[BMM_TABLE_MAX_RULES];
  bmmt_options o = opts(0);
  int n, nf, m;
  double cost_full, cost_small;
  build(&s);
  nf = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, full, BMM_TABLE_MAX_RULES);
  o.max_rules = 2;
  n = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out, BMM_TABLE_MAX_RULES);
  CHECK(n >= 1 && n <= 2, "max_rules 2: got %d", n);
  CHECK(n >= 1 && bmm_set_table(BMM_BACKEND_CPU, out, n) == BMM_OK,
        "budgeted table is valid (catch-all last)");
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  cost_full = bmmt_table_cost(full, nf, s.pts, s.npts, s.cfgs, s.ncfg, s.times, 10);
  cost_small = bmmt_table_cost(out, n, s.pts, s.npts, s.cfgs, s.ncfg, s.times, 10);
  CHECK(cost_full < 1e-9 && cost_small >= cost_full,
        "full table costs nothing (%g), budgeted one more (%g)", cost_full, cost_small);

  /* a rule shadowed by an earlier, wider one is dropped; the catch-all stays */
  memcpy(out, full, sizeof(bmm_table_rule) * (size_t)nf);
  m = nf;
  memmove(&out[1], &out[0], sizeof(bmm_table_rule) * (size_t)m);
  out[0] = full[nf - 1]; /* a copy of the catch-all first shadows everything */
  out[0].strategy = BMM_CPU_DOT;
  ++m;
  m = bmmt_drop_unused(out, m, s.pts, s.npts);
  CHECK(m == 2, "everything behind a leading catch-all is dropped except the last (got %d)", m);
}

static void test_override(void) {
  static synth s;
  bmm_table_rule out[BMM_TABLE_MAX_RULES];
  bmmt_options o = opts(0);
  bmm_table_rule keep = cfg(BMM_CPU_REF, 0);
  int n, p, changed = 0, target = 3;
  build(&s);
  n = bmmt_compress(s.pts, s.npts, s.cfgs, s.ncfg, s.times, &o, out, BMM_TABLE_MAX_RULES);
  n = bmmt_insert_override(out, n, BMM_TABLE_MAX_RULES, &s.pts[target], &keep, "kept default");
  CHECK(out[0].strategy == BMM_CPU_REF && bmmt_eval(out, n, &s.pts[target]) == 0,
        "override rule is first and picked at its point");
  for (p = 0; p < s.npts; ++p)
    if (p != target && bmmt_eval(out, n, &s.pts[p]) == 0) ++changed;
  CHECK(changed == 0, "override changes no other point (%d)", changed);
  CHECK(bmm_set_table(BMM_BACKEND_CPU, out, n) == BMM_OK, "table with override is valid");
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
  { /* the next K with the same choice widens that rule; a gap or another
       choice starts a new one */
    bmmt_point q = s.pts[target];
    int n0 = n, hits = 0;
    q.k = s.pts[target].k + 1;
    n = bmmt_insert_override(out, n, BMM_TABLE_MAX_RULES, &q, &keep, "kept default");
    CHECK(n == n0 && out[0].k_min == s.pts[target].k && out[0].k_max == q.k,
          "override at K + 1 widens the rule to k %lld..%lld (%d rules, was %d)",
          (long long)out[0].k_min, (long long)out[0].k_max, n, n0);
    for (p = 0; p < s.npts; ++p)
      if (p != target && bmmt_eval(out, n, &s.pts[p]) == 0) ++hits;
    CHECK(hits == 0 && bmmt_eval(out, n, &q) == 0,
          "the widened rule takes K + 1 and no grid point");
    q.k += 2;
    n = bmmt_insert_override(out, n, BMM_TABLE_MAX_RULES, &q, &keep, "kept default");
    CHECK(n == n0 + 1 && out[0].k_min == q.k && out[0].k_max == q.k,
          "an override past a gap in K is a rule of its own");
    q.k += 1;
    n = bmmt_insert_override(out, n, BMM_TABLE_MAX_RULES, &q, &s.cfgs[1], "kept default");
    CHECK(n == n0 + 2 && bmmt_config_cmp(&out[0], &s.cfgs[1]) == 0,
          "an override with another configuration is a rule of its own");
    n -= 3, memmove(&out[0], &out[3], sizeof(bmm_table_rule) * (size_t)n);
    out[0].k_max = out[0].k_min; /* back to the one-point override */
  }
  { /* a note cut in the middle of a device name, with a tab: still parses back */
    static char text[1 << 16];
    bmm_table_rule back[BMM_TABLE_MAX_RULES];
    int nb = 0;
    n = bmmt_insert_override(out, n, BMM_TABLE_MAX_RULES, &s.pts[1], &keep, "  kept\tdefault ");
    bmmt_format_text(out, n, "override notes", text, sizeof text);
    CHECK(strcmp(out[0].note, "kept default") == 0, "note cleaned: `%s`", out[0].note);
    CHECK(bmm_table_parse(text, back, BMM_TABLE_MAX_RULES, &nb) == BMM_OK && nb == n &&
              bmmt_rules_equal(back, out, n),
          "table with overrides parses back to the same rules");
  }
}

/* The shipped candidate: header (compiled in above as the CPU default) and
   text file hold the same rules, and the library accepts them. */
static void test_shipped(void) {
  static bmm_table_rule from_txt[BMM_TABLE_MAX_RULES], active[BMM_TABLE_MAX_RULES];
  static char text[1 << 16];
  int nt = 0, na = 0, nh = (int)(sizeof bmm_tuned_cpu / sizeof bmm_tuned_cpu[0]);
  FILE *f = fopen("tables/cpu_tuned.txt", "rb");
  size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) fclose(f);
  text[got] = 0;
  CHECK(got > 0, "tables/cpu_tuned.txt readable (run from the repo root)");
  CHECK(bmm_table_parse(text, from_txt, BMM_TABLE_MAX_RULES, &nt) == BMM_OK,
        "tables/cpu_tuned.txt parses: %s", bmm_last_error());
  CHECK(bmm_table_get(BMM_BACKEND_CPU, 0, active, BMM_TABLE_MAX_RULES, &na) == BMM_OK,
        "active table readable");
  CHECK(nt == nh && na == nh && bmmt_rules_equal(from_txt, bmm_tuned_cpu, nh) &&
            bmmt_rules_equal(active, bmm_tuned_cpu, nh),
        "tables/cpu_tuned.h (%d rules, compiled in via BMM_CPU_TABLE) == .txt (%d rules)", nh, nt);
  CHECK(bmm_set_table(BMM_BACKEND_CPU, bmm_tuned_cpu, nh) == BMM_OK,
        "shipped table passes bmm_set_table's checks: %s", bmm_last_error());
  bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
}

int main(void) {
  test_half_to();
  test_ties();
  test_merge_1d();
  test_merge_defaults();
  test_smoothing();
  test_grow_evidence();
  test_synthetic();
  test_budget_and_drop();
  test_override();
  test_shipped();
  return bmmx_summary();
}
