/* tools/model/model_main.h - build/bmm-model: what bmm's CUDA launches do to
   the memory system and the bandwidth they are predicted to reach, computed
   on the CPU from the emulated kernels (issue 19). Built from
   tests/cuda_emu/emu_test.cpp with -DBMM_MODEL (the checked, instrumented
   build: emu_check.h traces, emu_mem.h costs, emu_occupancy.h resides,
   tools/model/bmm_model.h predicts); see tools/model/model.ninja.

     build/bmm-model --suite bench/suite.csv [--strategy NAME|auto] [--arch 90|80]
     build/bmm-model --sweep [--strategy NAME|auto] [--arch 90|80]
                          seed problem (batch 10^6, 3x1xK), K = 1..64, every
                          dtype
     --dtypes f32,f64,...  any of the above: only rows of these dtypes (the
                          calibration data and the fitted constants are f32
                          and f64; bench/gpu_check.sh keeps its budget so)
     build/bmm-model --calibration FILE [--fit] [--consts a,b,...]
                          every row of a measured table predicted: the probe's
                          format (variant = a fixture design of
                          tools/model/model_fixtures.cuh: naive, stg32, vec64,
                          skw32, ...) or bench_gpu's CSV (strategy = auto or a
                          CUDA strategy: bmm's own launch); --fit re-fits the
                          constants on it and prints them

   Per suite/sweep row, as CSV: the strategy and kernel bmm picks (or the
   forced one) on the emulated part (H100: 132 SMs; A100 with --arch 80:
   108), the launch, and from the first 2 blocks of the real-size launch,
   traced: global 32-byte sectors per request and the ideal, shared-memory
   wavefronts per request and the ideal, resident threads per SM (registers
   and static shared memory from tools/model/ptxas_sm80_sm90.csv or
   $BMM_MODEL_RESOURCES) and what limits them, the global bytes a block
   touches, bytes in flight per SM, the PREDICTED % of copy bandwidth and
   the term that limits it. Progress goes to stderr. */
#ifndef BMM_MODEL_MAIN_H
#define BMM_MODEL_MAIN_H

#include "tools/model/bmm_model.h"
#include "tools/model/model_fixtures.cuh"

/* the dtypes --dtypes keeps, one bit per bmm_dtype (all by default) */
static unsigned model_dtype_mask = ~0u;
static int model_keep(bmm_dtype dt) { return (model_dtype_mask >> (unsigned)dt) & 1u; }

/* "f32,f64" -> a mask; 0 (and a message naming the word) on an unknown name */
static unsigned model_parse_dtypes(const char *list) {
  unsigned mask = 0;
  char buf[128], *w;
  snprintf(buf, sizeof buf, "%s", list);
  for (w = strtok(buf, ","); w; w = strtok(NULL, ",")) {
    const bmm_dtype dt = bmmx_dtype_parse(w);
    if (dt == BMM_DTYPE_UNSET) {
      fprintf(stderr, "bmm-model: --dtypes: unknown dtype '%s'\n", w);
      return 0;
    }
    mask |= 1u << (unsigned)dt;
  }
  return mask;
}

typedef struct model_row {
  char name[48];
  bmmx_case c;
} model_row;

static int model_read_suite(const char *path, std::vector<model_row> *rows) {
  FILE *f = fopen(path, "r");
  char line[512];
  if (!f) return 0;
  while (fgets(line, sizeof line, f)) {
    model_row r;
    char dt[16], lay[32];
    long long b, m, n, k;
    memset(&r, 0, sizeof r);
    if (sscanf(line, "%47[^,],%15[^,],%lld,%lld,%lld,%lld,%31[^,\n]", r.name, dt, &b, &m, &n, &k,
               lay) != 7)
      continue; /* the header */
    r.c.dtype = bmmx_dtype_parse(dt);
    r.c.batch = b, r.c.m = m, r.c.n = n, r.c.k = k, r.c.layout = bmmx_layout_parse(lay);
    snprintf(r.c.name, sizeof r.c.name, "%s", r.name);
    if (r.c.dtype == BMM_DTYPE_UNSET || r.c.layout < 0) {
      fprintf(stderr, "bmm-model: %s: bad row: %s", path, line);
      fclose(f);
      return 0;
    }
    if (model_keep(r.c.dtype)) rows->push_back(r);
  }
  fclose(f);
  return 1;
}

/* memory-bound: below the ridge of the part (H100 SXM FP32 67 TFLOP/s, FP64
   34 TFLOP/s without tensor cores, over the copy bandwidth); 0 above it, -1
   for a launch whose bytes take less time than the model's per-launch cost
   t0 (launch-bound: no kernel reaches the copy bandwidth there) */
static int model_memory_bound(const bmmx_case *c, const bmm_model_arch *a) {
  const double peak = bmmx_acc_f64(c->dtype) ? 34e12 : 67e12;
  if (bmmx_min_bytes(c, 0) / (a->copy_gbs * 1e3) < bmm_model_use->t0_us) return -1;
  return bmmx_flops(c) / bmmx_min_bytes(c, 0) < peak / (a->copy_gbs * 1e9);
}

/* one bmm launch: strategy st, traced, predicted */
static int model_bmm_case(const bmmx_case *c, bmm_strategy st, int arch, bmm_model_result *r,
                          bmm_model_traffic *t, char *kern, size_t ks) {
  const int64_t es = (int64_t)bmm_dtype_size(c->dtype);
  const bmmx_sizes_t sz = bmmx_sizes(c);
  void *A = emu_reserve(sz.a * es), *B = emu_reserve(sz.b * es), *C = emu_reserve(sz.c * es),
       *Bi = emu_reserve((sz.bias + 1) * es);
  bmm_problem p = bmmx_problem(c, A, B, C, sz.bias ? Bi : NULL);
  const int ok = bmm_model_predict(&p, st, NULL, arch, r, t, kern, ks);
  munmap(A, (size_t)(sz.a * es) + 4096), munmap(B, (size_t)(sz.b * es) + 4096);
  munmap(C, (size_t)(sz.c * es) + 4096), munmap(Bi, (size_t)((sz.bias + 1) * es) + 4096);
  return ok;
}

/* ---- the fixtures (the calibration table's designs) ----------------------- */

template <typename T>
static int model_fixture_launch(const char *design, int G, const model_fx_args<T> &args,
                                int64_t *grid, size_t *smem) {
  const model_fx_args<T> a = args; /* bmm_emu_launch takes the struct by name */
  const int k = a.k;
  if (strcmp(design, "naive") == 0) {
    *grid = bmm__ceil_div(a.batch * 3, 256), *smem = 0;
    bmm_emu_launch(model_fx_naive<T>, *grid, 256, *smem, 0, a);
    return 1;
  }
  *grid = bmm__ceil_div(a.batch, G);
  if (strcmp(design, "stg") == 0) {
    *smem = (size_t)G * 4 * (k + 1) * sizeof(T);
    if (G == 32) bmm_emu_launch((model_fx_stg<T, 32>), *grid, 256, *smem, 0, a);
    if (G == 64) bmm_emu_launch((model_fx_stg<T, 64>), *grid, 256, *smem, 0, a);
    return 1;
  }
  /* vec, skw: full groups of 16-byte spans only */
  if ((G * k * sizeof(T)) % 16 || a.batch % G) return 0;
  *smem = (size_t)G * 4 * k * sizeof(T);
  if (strcmp(design, "vec") == 0) {
    if (G == 32) bmm_emu_launch((model_fx_vec<T, 32, 0>), *grid, 256, *smem, 0, a);
    if (G == 64) bmm_emu_launch((model_fx_vec<T, 64, 0>), *grid, 256, *smem, 0, a);
  } else {
    if (G == 32) bmm_emu_launch((model_fx_vec<T, 32, 1>), *grid, 256, *smem, 0, a);
    if (G == 64) bmm_emu_launch((model_fx_vec<T, 64, 1>), *grid, 256, *smem, 0, a);
  }
  return 1;
}

/* a design name of the probe ("naive", "stg32", "vec64", "skw32", ...):
   traced as the 3x1xK seed problem of `batch` entries on arch */
static int model_fixture_case(const char *variant, bmm_dtype dt, int64_t batch, int k, int arch,
                              bmm_model_result *r, bmm_model_traffic *t) {
  char design[16];
  int G = 0;
  const emu_arch *ea = arch == 80 ? &emu_arch_sm80 : &emu_arch_sm90;
  const bmm_model_arch *ma = arch == 80 ? &bmm_model_sm80 : &bmm_model_sm90;
  const int64_t es = (int64_t)bmm_dtype_size(dt);
  char rname[32];
  const emu_kernel_res *kr;
  int64_t grid = 0;
  size_t smem = 0;
  int ok;
  memset(r, 0, sizeof *r), r->pct = -1;
  if (sscanf(variant, "%15[a-z]%d", design, &G) < 1) return 0;
  if (strcmp(design, "naive") != 0 &&
      ((G != 32 && G != 64) ||
       (strcmp(design, "stg") != 0 && strcmp(design, "vec") != 0 && strcmp(design, "skw") != 0)))
    return 0;
  snprintf(rname, sizeof rname, "fx_%s", variant);
  kr = emu_resources(arch, rname, bmm_dtype_name(dt));
  if (!kr) {
    snprintf(r->reason, sizeof r->reason, "no resources for %s", rname);
    return 0;
  }
  void *A = emu_reserve(batch * 3 * k * es), *B = emu_reserve(batch * k * es),
       *C = emu_reserve(batch * 3 * es);
  emu_trace_reset();
  g_chk.checks = 0, g_chk.trace_blocks = 2, g_emu_max_blocks = 2, g_chk.regions.clear();
  g_emu_error[0] = 0, g_chk.error[0] = 0;
  if (dt == BMM_F64) {
    const model_fx_args<double> a = {(const double *)A, (const double *)B, (double *)C, batch, k};
    ok = model_fixture_launch<double>(design, G, a, &grid, &smem);
  } else {
    const model_fx_args<float> a = {(const float *)A, (const float *)B, (float *)C, batch, k};
    ok = model_fixture_launch<float>(design, G, a, &grid, &smem);
  }
  g_chk.trace_blocks = 0, g_emu_max_blocks = -1;
  if (ok && !g_emu_error[0]) {
    bmm_model_collect(ea, ma, kr->regs, kr->smem, (double)batch * (4.0 * k + 3) * es,
                      (double)batch * 3 * es, t);
    bmm_model_curve(t, ma, bmm_model_use, r);
  } else {
    snprintf(r->reason, sizeof r->reason, "%s", ok ? g_emu_error : "not this design's shape");
    ok = 0;
  }
  munmap(A, (size_t)(batch * 3 * k * es) + 4096), munmap(B, (size_t)(batch * k * es) + 4096);
  munmap(C, (size_t)(batch * 3 * es) + 4096);
  return ok;
}

/* ---- --calibration --------------------------------------------------------- */

typedef struct model_cal_row {
  char design[40], key[96];
  bmmx_case c;
  double measured;
  int ok;
  bmm_model_traffic t;
  bmm_model_result r;
} model_cal_row;

/* a CSV line split at commas (no quoting in these files) */
static int model_split(char *line, char **f, int max) {
  int n = 0;
  char *s = line;
  while (n < max) {
    f[n++] = s;
    s = strchr(s, ',');
    if (!s) break;
    *s++ = 0;
  }
  if (n && strchr(f[n - 1], '\n')) *strchr(f[n - 1], '\n') = 0;
  return n;
}

static int model_col(char **h, int nh, const char *a, const char *b) {
  int i;
  for (i = 0; i < nh; ++i)
    if (strcmp(h[i], a) == 0 || (b && strcmp(h[i], b) == 0)) return i;
  return -1;
}

/* the probe's rows (variant,...,pct_of_copy) or bench_gpu's
   (name,...,layout,strategy,...,pct_roofline; compute-bound rows and the
   launch-cost row, compute-bound rows and entries over 32x32x32 skipped) */
static int model_read_calibration(const char *path, std::vector<model_cal_row> *rows,
                                  const bmm_model_arch *ma) {
  FILE *f = fopen(path, "r");
  char line[1024], head[1024], *h[32], *v[32];
  int nh = 0, cd, cdt, cb, cm, cn, ck, cl, cp;
  if (!f) return 0;
  while (fgets(head, sizeof head, f) && head[0] == '#') {
  }
  nh = model_split(head, h, 32);
  cd = model_col(h, nh, "variant", "strategy"), cdt = model_col(h, nh, "dtype", NULL);
  cb = model_col(h, nh, "batch", NULL), cm = model_col(h, nh, "m", NULL);
  cn = model_col(h, nh, "n", NULL), ck = model_col(h, nh, "k", NULL);
  cl = model_col(h, nh, "layout", NULL), cp = model_col(h, nh, "pct_of_copy", "pct_roofline");
  if (cd < 0 || cdt < 0 || cb < 0 || cm < 0 || cn < 0 || ck < 0 || cp < 0) {
    fprintf(stderr,
            "bmm-model: %s: header needs variant|strategy, dtype, batch, m, n, k, "
            "pct_of_copy|pct_roofline\n",
            path);
    fclose(f);
    return 0;
  }
  while (fgets(line, sizeof line, f)) {
    model_cal_row r;
    int n = model_split(line, v, 32);
    if (line[0] == '#' || n < nh) continue;
    memset(&r, 0, sizeof r);
    snprintf(r.design, sizeof r.design, "%s", v[cd]);
    if (strcmp(r.design, "auto_back_to_back") == 0) continue;
    r.c.dtype = bmmx_dtype_parse(v[cdt]);
    r.c.batch = atoll(v[cb]), r.c.m = atoll(v[cm]), r.c.n = atoll(v[cn]), r.c.k = atoll(v[ck]);
    r.c.layout = cl >= 0 ? bmmx_layout_parse(v[cl]) : BMMX_ROWMAJOR;
    r.measured = atof(v[cp]);
    if (r.c.dtype == BMM_DTYPE_UNSET || r.c.layout < 0 || !model_keep(r.c.dtype)) continue;
    /* bench_gpu's rows: memory-bound ones, entries up to 32x32x32 (larger
       ones trace for minutes per forced strategy, and the model is fitted
       on small entries) */
    if (cl >= 0 && (model_memory_bound(&r.c, ma) != 1 || r.c.m * r.c.n * r.c.k > 32768)) continue;
    snprintf(r.c.name, sizeof r.c.name, "%s", cl >= 0 ? v[0] : "seed");
    snprintf(r.key, sizeof r.key, "%s %s b=%lld %lldx%lldx%lld %s", r.c.name,
             bmm_dtype_name(r.c.dtype), (long long)r.c.batch, (long long)r.c.m, (long long)r.c.n,
             (long long)r.c.k, bmmx_layout_name(r.c.layout));
    rows->push_back(r);
  }
  fclose(f);
  return 1;
}

static void model_cal_trace(std::vector<model_cal_row> *rows, int arch) {
  size_t i;
  for (i = 0; i < rows->size(); ++i) {
    model_cal_row &r = (*rows)[i];
    int s;
    fprintf(stderr, "\rbmm-model: tracing %zu/%zu %-8s %s   ", i + 1, rows->size(), r.design,
            r.key);
    r.ok = 0;
    for (s = 0; s < BMM_STRATEGY_COUNT; ++s)
      if (strcmp(r.design, bmm_strategy_name((bmm_strategy)s)) == 0 ||
          (s == BMM_STRATEGY_AUTO && strcmp(r.design, "auto") == 0))
        break;
    if (s < BMM_STRATEGY_COUNT)
      r.ok = model_bmm_case(&r.c, (bmm_strategy)s, arch, &r.r, &r.t, NULL, 0);
    else if (r.c.m == 3 && r.c.n == 1 && r.c.layout == BMMX_ROWMAJOR)
      r.ok = model_fixture_case(r.design, r.c.dtype, r.c.batch, (int)r.c.k, arch, &r.r, &r.t);
  }
  fprintf(stderr, "\n");
}

typedef struct model_fit_stats {
  int within, rows, best_ok, points;
  double sse;
} model_fit_stats;

/* rows within 10 points; per (problem): is the design predicted best
   within 3 points of the measured best? */
static model_fit_stats model_cal_eval(std::vector<model_cal_row> *rows, const bmm_model_arch *ma,
                                      const bmm_model_consts *k, int print) {
  model_fit_stats st = {0, 0, 0, 0, 0};
  std::map<std::string, std::vector<size_t>> groups;
  size_t i;
  for (i = 0; i < rows->size(); ++i) {
    model_cal_row &r = (*rows)[i];
    if (!r.ok) continue;
    bmm_model_curve(&r.t, ma, k, &r.r);
    const double d = r.r.pct - r.measured;
    ++st.rows, st.within += fabs(d) <= 10, st.sse += d * d;
    groups[r.key].push_back(i);
  }
  for (auto &g : groups) {
    size_t bp = g.second[0], bm = g.second[0];
    if (g.second.size() < 2) continue;
    for (size_t j : g.second) {
      if ((*rows)[j].r.pct > (*rows)[bp].r.pct) bp = j;
      if ((*rows)[j].measured > (*rows)[bm].measured) bm = j;
    }
    ++st.points;
    st.best_ok += (*rows)[bp].measured >= (*rows)[bm].measured - 3;
    if (print)
      printf("# %s: measured best %s %.0f%%, predicted best %s (measured %.0f%%, predicted "
             "%.0f%%)%s\n",
             g.first.c_str(), (*rows)[bm].design, (*rows)[bm].measured, (*rows)[bp].design,
             (*rows)[bp].measured, (*rows)[bp].r.pct,
             (*rows)[bp].measured >= (*rows)[bm].measured - 3 ? "" : "  MISS");
  }
  return st;
}

static void model_print_consts(const char *tag, const bmm_model_consts *k) {
  printf("%s %.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g (eff, t0_us, lat_ns, burst, "
         "l2_ratio, l2_frac, l1_rate, p, sh_ns, blk_ns)\n",
         tag, k->eff, k->t0_us, k->lat_ns, k->burst, k->l2_ratio, k->l2_frac, k->l1_rate, k->p,
         k->sh_ns, k->blk_ns);
}

/* Nelder-Mead on the constants (log space; burst rounded in use), minimising
   the squared error in points plus 100 per (dtype, K) whose predicted best
   is not within 3 points of the measured best */
static bmm_model_consts model_fit(std::vector<model_cal_row> *rows, const bmm_model_arch *ma,
                                  bmm_model_consts k0) {
  enum { D = 10 };
  double x[D + 1][D], fx[D + 1];
  int i, j, it;
  auto unpack = [](const double *v) {
    bmm_model_consts c;
    c.eff = exp(v[0]), c.t0_us = exp(v[1]), c.lat_ns = exp(v[2]), c.burst = floor(exp(v[3]) + .5);
    c.l2_ratio = exp(v[4]), c.l2_frac = exp(v[5]), c.l1_rate = exp(v[6]), c.p = exp(v[7]);
    c.sh_ns = exp(v[8]), c.blk_ns = exp(v[9]);
    if (c.eff > 1) c.eff = 1;
    if (c.burst < 1) c.burst = 1;
    if (c.l2_frac > 1) c.l2_frac = 1;
    return c;
  };
  auto cost = [&](const double *v) {
    const bmm_model_consts c = unpack(v);
    const model_fit_stats s = model_cal_eval(rows, ma, &c, 0);
    return s.sse + 100.0 * (s.points - s.best_ok);
  };
  const double base[D] = {log(k0.eff),      log(k0.t0_us),   log(k0.lat_ns),  log(k0.burst),
                          log(k0.l2_ratio), log(k0.l2_frac), log(k0.l1_rate), log(k0.p),
                          log(k0.sh_ns),    log(k0.blk_ns)};
  /* $BMM_MODEL_FIT_HOLD: constants (0-based, as --consts orders them) kept
     as given, e.g. "4,6" holds l2_ratio and l1_rate */
  const char *hold = getenv("BMM_MODEL_FIT_HOLD") ? getenv("BMM_MODEL_FIT_HOLD") : "";
  for (i = 0; i <= D; ++i) {
    for (j = 0; j < D; ++j) {
      char tag[8];
      snprintf(tag, sizeof tag, "%d", j);
      int held = 0;
      for (const char *h = hold; *h; h += strcspn(h, ",") + (h[strcspn(h, ",")] ? 1 : 0))
        held |= (int)strcspn(h, ",") == (int)strlen(tag) && strncmp(h, tag, strlen(tag)) == 0;
      x[i][j] = base[j] + (i == j + 1 && !held ? 0.3 : 0);
    }
    fx[i] = cost(x[i]);
  }
  for (it = 0; it < 3000; ++it) {
    int hi = 0, lo = 0, nh = 0;
    double c[D], xr[D], fr;
    for (i = 0; i <= D; ++i) {
      if (fx[i] > fx[hi]) hi = i;
      if (fx[i] < fx[lo]) lo = i;
    }
    for (i = 0; i <= D; ++i)
      if (i != hi && (nh == hi || fx[i] > fx[nh])) nh = i;
    for (j = 0; j < D; ++j) {
      c[j] = 0;
      for (i = 0; i <= D; ++i)
        if (i != hi) c[j] += x[i][j] / D;
      xr[j] = c[j] + (c[j] - x[hi][j]);
    }
    fr = cost(xr);
    if (fr < fx[lo]) {
      double xe[D], fe;
      for (j = 0; j < D; ++j)
        xe[j] = c[j] + 2 * (c[j] - x[hi][j]);
      fe = cost(xe);
      if (fe < fr)
        memcpy(x[hi], xe, sizeof xe), fx[hi] = fe;
      else
        memcpy(x[hi], xr, sizeof xr), fx[hi] = fr;
    } else if (fr < fx[nh]) {
      memcpy(x[hi], xr, sizeof xr), fx[hi] = fr;
    } else {
      double xc[D], fc;
      for (j = 0; j < D; ++j)
        xc[j] = c[j] + 0.5 * (x[hi][j] - c[j]);
      fc = cost(xc);
      if (fc < fx[hi])
        memcpy(x[hi], xc, sizeof xc), fx[hi] = fc;
      else
        for (i = 0; i <= D; ++i)
          if (i != lo) {
            for (j = 0; j < D; ++j)
              x[i][j] = x[lo][j] + 0.5 * (x[i][j] - x[lo][j]);
            fx[i] = cost(x[i]);
          }
    }
    if (it % 200 == 0) fprintf(stderr, "\rbmm-model: fit %d/3000 cost %.0f   ", it, fx[lo]);
  }
  fprintf(stderr, "\n");
  {
    int lo = 0;
    for (i = 0; i <= D; ++i)
      if (fx[i] < fx[lo]) lo = i;
    return unpack(x[lo]);
  }
}

static int model_calibration(const char *path, int arch, int fit) {
  const bmm_model_arch *ma = arch == 80 ? &bmm_model_sm80 : &bmm_model_sm90;
  std::vector<model_cal_row> rows;
  static bmm_model_consts fitted;
  size_t i;
  if (!model_read_calibration(path, &rows, ma)) {
    fprintf(stderr, "bmm-model: cannot read %s\n", path);
    return 2;
  }
  model_cal_trace(&rows, arch);
  if (fit) {
    /* the given constants' score first: one run (tracing is the cost) says
       how far the fit moved (bench/gpu_check.sh runs --fit only) */
    const model_fit_stats g = model_cal_eval(&rows, ma, bmm_model_use, 0);
    printf("# given constants: %d of %d rows within 10 points, best design matched at %d of %d\n",
           g.within, g.rows, g.best_ok, g.points);
    model_print_consts("# given", bmm_model_use);
    fitted = model_fit(&rows, ma, *bmm_model_use);
    model_print_consts("# fitted", &fitted);
    bmm_model_use = &fitted;
  }
  model_print_consts("# constants", bmm_model_use);
  printf("# bmm-model --calibration %s: PREDICTED (model) vs measured %% of copy bandwidth, "
         "sm_%d\n",
         path, arch);
  const model_fit_stats st = model_cal_eval(&rows, ma, bmm_model_use, 1);
  printf("design,problem,measured_pct,predicted_pct,diff,limit,sectors_per_req,ideal_sectors,"
         "wavefronts_per_req,ideal_wavefronts,resident_threads,rounds,dram_us,l2_us,l1_us,"
         "smem_us,lat_us\n");
  for (i = 0; i < rows.size(); ++i) {
    const model_cal_row &r = rows[i];
    if (!r.ok) {
      printf("%s,%s,%.1f,,,not predicted: %s\n", r.design, r.key, r.measured, r.r.reason);
      continue;
    }
    printf("%s,%s,%.1f,%.1f,%+.1f,%s,%.2f,%.2f,%.2f,%.2f,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f%s\n",
           r.design, r.key, r.measured, r.r.pct, r.r.pct - r.measured, r.r.reason,
           r.t.g_req ? r.t.sectors / r.t.g_req : 0, r.t.g_req ? r.t.g_ideal / r.t.g_req : 0,
           r.t.s_req ? r.t.wavefronts / r.t.s_req : 0, r.t.s_req ? r.t.s_ideal / r.t.s_req : 0,
           r.t.nres * r.t.block, r.r.rounds, r.r.dram, r.r.l2, r.r.l1, r.r.smem, r.r.lat,
           fabs(r.r.pct - r.measured) > 10 ? ",MISS" : "");
  }
  printf("calibration: %d of %d rows within 10 points, best design matched at %d of %d (dtype, "
         "K)\n",
         st.within, st.rows, st.best_ok, st.points);
  return 0;
}

/* ---- --suite, --sweep --------------------------------------------------------- */

static void model_row_run(const model_row *row, bmm_strategy st, int arch, double *minp, int *nmb) {
  const bmm_model_arch *ma = arch == 80 ? &bmm_model_sm80 : &bmm_model_sm90;
  bmm_model_result r;
  bmm_model_traffic t;
  char kern[32];
  const bmmx_case *c = &row->c;
  const int ok = model_bmm_case(c, st, arch, &r, &t, kern, sizeof kern);
  const int mb = model_memory_bound(c, ma);
  printf("%s,%s,%lld,%lld,%lld,%lld,%s,%s,%s,", row->name, bmm_dtype_name(c->dtype),
         (long long)c->batch, (long long)c->m, (long long)c->n, (long long)c->k,
         bmmx_layout_name(c->layout), strcmp(kern, "-") ? "cuda" : "-", kern);
  if (!ok) {
    printf("%lld,%lld,%zu,,,,,,,,,,,%s\n", (long long)g_chk.grid, (long long)g_chk.block,
           g_chk.smem, r.reason);
    return;
  }
  printf("%lld,%d,%d,%.2f,%.2f,%.2f,%.2f,%d,%.0f,%.1f,%.1f,%s,%s\n", (long long)t.grid, t.block,
         t.smem_block, t.g_req ? t.sectors / t.g_req : 0, t.g_req ? t.g_ideal / t.g_req : 0,
         t.s_req ? t.wavefronts / t.s_req : 0, t.s_req ? t.s_ideal / t.s_req : 0, t.nres * t.block,
         t.distinct, r.inflight_kb, r.pct,
         /* v1 costs a cp.async like a load that holds its lane: the overlap
            the kernel exists for is not in the model; nor the tensor cores'
            rate (MMA's loads and shared traffic are traced as any kernel's) */
         !strcmp(kern, "async") ? "not modelled: cp.async costed as blocking loads"
         : !strcmp(kern, "mma") ? "not modelled: the tensor cores' rate"
                                : r.reason,
         mb > 0   ? "memory-bound"
         : mb < 0 ? "launch-bound"
                  : "compute-bound");
  if (mb > 0 && r.pct < *minp) *minp = r.pct;
  *nmb += mb > 0;
}

#ifdef BMM_TUNE_MODEL
#include "tools/model/tune_model.h" /* build/bmm-tune-model: the tuner, ranking by the model */
#endif

static int model_main(int argc, char **argv) {
  const char *suite = NULL, *cal = NULL;
  int sweep = 0, i, archn = 90, fit = 0, nmb = 0;
  double minp = 1e9;
  static bmm_model_consts given;
  bmm_strategy st = BMM_STRATEGY_AUTO;
  std::vector<model_row> rows;
#ifdef BMM_TUNE_MODEL
  if (argc > 0) return bmmt_main(argc, argv); /* the tuner's options, not these */
#endif
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
      suite = argv[++i];
    else if (strcmp(argv[i], "--sweep") == 0)
      sweep = 1;
    else if (strcmp(argv[i], "--calibration") == 0 && i + 1 < argc)
      cal = argv[++i];
    else if (strcmp(argv[i], "--fit") == 0)
      fit = 1;
    else if (strcmp(argv[i], "--dtypes") == 0 && i + 1 < argc) {
      if (!(model_dtype_mask = model_parse_dtypes(argv[++i]))) return 2;
    } else if (strcmp(argv[i], "--consts") == 0 && i + 1 < argc) {
      if (sscanf(argv[++i], "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &given.eff, &given.t0_us,
                 &given.lat_ns, &given.burst, &given.l2_ratio, &given.l2_frac, &given.l1_rate,
                 &given.p, &given.sh_ns, &given.blk_ns) != 10) {
        fprintf(stderr, "bmm-model: --consts needs 10 numbers\n");
        return 2;
      }
      bmm_model_use = &given;
    } else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
      archn = atoi(argv[++i]);
    else if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc) {
      int s, found = 0;
      ++i;
      for (s = 0; s < BMM_STRATEGY_COUNT; ++s)
        if (strcmp(argv[i], bmm_strategy_name((bmm_strategy)s)) == 0)
          st = (bmm_strategy)s, found = 1;
      if (!found) {
        fprintf(stderr, "bmm-model: unknown strategy %s\n", argv[i]);
        return 2;
      }
    } else {
      fprintf(stderr,
              "usage: %s --suite bench/suite.csv | --sweep | --calibration FILE [--fit]  "
              "[--strategy NAME|auto] [--arch 90|80] [--consts 10 numbers] "
              "[--dtypes f32,f64,...]\n",
              argv[0]);
      return 2;
    }
  }
  if ((!suite && !sweep && !cal) || (archn != 90 && archn != 80)) {
    fprintf(stderr, "bmm-model: --suite FILE, --sweep or --calibration FILE; --arch 90 or 80\n");
    return 2;
  }
  if (cal) return model_calibration(cal, archn, fit);
  if (suite && !model_read_suite(suite, &rows)) {
    fprintf(stderr, "bmm-model: cannot read %s\n", suite);
    return 2;
  }
  if (sweep) {
    int k, di;
    for (di = 0; di < NDT; ++di)
      for (k = 1; k <= 64 && model_keep(g_dtypes[di]); ++k) {
        model_row r;
        memset(&r, 0, sizeof r);
        snprintf(r.name, sizeof r.name, "seed_k%d", k);
        r.c.dtype = g_dtypes[di], r.c.batch = 1000000, r.c.m = 3, r.c.n = 1, r.c.k = k;
        r.c.layout = BMMX_ROWMAJOR;
        rows.push_back(r);
      }
  }
  printf("# bmm-model: PREDICTED (emulated and modelled, not measured) memory costs and %% of "
         "copy bandwidth of bmm's CUDA launches, sm_%d, strategy %s, 2 blocks traced per "
         "launch\n",
         archn, bmm_strategy_name(st));
  printf("name,dtype,batch,m,n,k,layout,backend,kernel,grid,block,smem_per_block,"
         "sectors_per_req,ideal_sectors_per_req,wavefronts_per_req,ideal_wavefronts_per_req,"
         "resident_threads_per_sm,global_bytes_per_block,bytes_in_flight_kb_per_sm,"
         "predicted_pct_of_copy,limit,bound\n");
  for (i = 0; i < (int)rows.size(); ++i) {
    fprintf(stderr, "\rbmm-model: %d/%d %s %s   ", i + 1, (int)rows.size(), rows[i].name,
            bmm_dtype_name(rows[i].c.dtype));
    model_row_run(&rows[i], st, archn, &minp, &nmb);
    fflush(stdout);
  }
  fprintf(stderr, "\n");
  if (nmb)
    printf("model: min %.0f%% over %d memory-bound rows (%s)\n", minp, nmb,
           st == BMM_STRATEGY_AUTO ? "auto" : bmm_strategy_name(st));
  else
    printf("model: no memory-bound row predicted (%s claims none, or none ran)\n",
           st == BMM_STRATEGY_AUTO ? "auto" : bmm_strategy_name(st));
  return 0;
}

#endif /* BMM_MODEL_MAIN_H */
