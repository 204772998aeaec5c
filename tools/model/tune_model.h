/* tools/model/tune_model.h - build/bmm-tune-model: the tuner (tools/bmm_tune.c)
   whose driver ranks configurations by the model instead of timing them
   (issue 20). Built from tests/cuda_emu/emu_test.cpp with -DBMM_MODEL
   -DBMM_TUNE_MODEL (tools/model/model.ninja): the emulator runs the first 2
   blocks of each real-size launch, traced, and tools/model/bmm_model.h turns
   the trace into a PREDICTED time. No GPU is needed, and nothing is measured.

     build/bmm-tune-model --model [--arch sm90|sm80|generic] [--grid FILE]
                          [--out FILE] [--suite FILE|none] [--max-rules N]

   --arch: sm90 predicts an H100 (132 SMs) and writes a table for BMM_CUDA_TABLE_SM90,
   sm80 an A100 (108 SMs) for BMM_CUDA_TABLE_SM80; generic uses the A100's
   part for BMM_CUDA_TABLE_GENERIC (the model has no part of its own for
   other devices). Everything after the prediction is the timed tuner's:
   the grid (default tools/grids/cuda_model.txt), the compression into
   threshold rules, the suite's validation against today's default table
   (where the model predicts the new table slower at a suite row, the
   default's choice is kept: no tolerance, the predictions are
   deterministic), the writers and the parse-back check. Every rule's note
   starts `model vN, not measured` (BMM_MODEL_VERSION). */
#ifndef BMM_TUNE_MODEL_H
#define BMM_TUNE_MODEL_H

#define BMM_TUNE_CUDA 1 /* bmm.h and bmm_cuda.cuh are already implemented here */
#define BMMT_MAIN bmmt_main
#include "tools/bmm_tune.c"

static int bmmt__model_part = 90;

/* The installed table's AUTO choice for c, predicted: seconds per call. */
static double bmmt__model_predict(const bmmx_case *c, bmm_status *st) {
  bmm_model_result r;
  bmm_model_traffic t;
  char kern[32];
  bmm_plan pl;
  const bmmx_sizes_t sz = bmmx_sizes(c);
  const uint64_t at = (uint64_t)1 << 40, gap = (uint64_t)1 << 42;
  const bmm_problem p = bmmx_problem(
      c, (const void *)(uintptr_t)at, (const void *)(uintptr_t)(at + gap),
      (void *)(uintptr_t)(at + 2 * gap), sz.bias ? (const void *)(uintptr_t)(at + 3 * gap) : NULL);
  *st = BMM_OK;
  /* TILED below 32x32 outputs is not ranked: its tiles are mostly empty
     there, its trace of a real-size launch takes seconds (each block walks
     hundreds of entries), and its figure rests on an uncalibrated constant
     (bench/notes/model.md) */
  if (bmm_plan_problem(&p, BMM_BACKEND_CUDA, &pl) == BMM_OK && pl.strategy == BMM_CUDA_TILED &&
      (c->m < 32 || c->n < 32)) {
    *st = BMM_NOT_COMPILED;
    return 0;
  }
  if (!model_bmm_case(c, BMM_STRATEGY_AUTO, bmmt__model_part, &r, &t, kern, sizeof kern) ||
      !(r.pct > 0) || !(r.t_us > 0)) {
    *st = BMM_NOT_COMPILED; /* not run here (no kernel for the dtype) or no resources */
    return 0;
  }
  return r.t_us * 1e-6;
}

static void *bmmt__model_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }

static int bmmt_model_driver(bmmt_driver *d, int arch, int table_arch) {
  memset(d, 0, sizeof *d);
  bmmt__model_part = arch;
  /* before any call: bmm caches the device's properties at its first one, and
     the grid it sizes (waves of resident blocks) comes from this count */
  g_emu_sms = arch == 80 ? emu_arch_sm80.sms : emu_arch_sm90.sms;
  g_emu_res_arch = arch == 80 ? 80 : 90; /* and the kernels' registers, cached too */
  d->backend = BMM_BACKEND_CUDA;
  d->arch = table_arch;
  snprintf(d->device, sizeof d->device,
           "model v%d%s of an %s (sm_%d part), predicted, not measured", BMM_MODEL_VERSION,
           bmm_model_form(), arch == 80 ? "A100" : "H100 SXM", arch);
  /* buffers only give the plans addresses: never read, never written */
  d->alloc = bmmt__model_alloc, d->release = bmmt__cpu_release;
  d->upload = bmmt__cpu_copy, d->download = bmmt__cpu_copy, d->poison = bmmt__cpu_poison;
  d->time = bmmt__cpu_time; /* not called: predict is */
  d->predict = bmmt__model_predict;
  d->min_sample = 0;
  return 0;
}

/* bench/notes/model.md: the model (v1) ranks the probe's naive design (LOOP's
   access pattern) against the staged ones wrongly at f32 K = 5, 10, 20 and
   25, and TILED's figure rests on constants no TILED row calibrated. A rule
   whose choice rests on such a point says so in its note. */
static void bmmt_model_caveats(bmm_table_rule *rules, int n, const bmmt_point *pts, int npts) {
  int r, i;
  for (r = 0; r < n; ++r) {
    const bmm_strategy s = rules[r].strategy;
    const char *why = NULL;
    char note[BMM_NOTE_LEN + 64];
    for (i = 0; i < npts && !why; ++i)
      if (bmmt_eval(rules, n, &pts[i]) == r && pts[i].dtype == BMM_F32 && pts[i].k >= 5 &&
          pts[i].k <= 25 && (s == BMM_CUDA_LOOP || s == BMM_CUDA_STAGED))
        why = "weak: f32 K 5-25 loop/staged";
    if (s == BMM_CUDA_TILED) why = "weak: TILED uncalibrated";
    if (!why) continue;
    snprintf(note, sizeof note, "%s; %s", rules[r].note, why);
    note[BMM_NOTE_LEN - 1] = 0;
    memcpy(rules[r].note, note, BMM_NOTE_LEN);
  }
}

/* --caveats TABLE: TABLE's rules with bmmt_model_caveats' notes over the
   grid's points, as text on stdout (no prediction: for a table written
   before the caveats existed) */
static int bmmt_model_annotate(const char *grid, const char *table) {
  static bmmt_grid g;
  static bmmt_point pts[BMMT_MAX_ENTRIES];
  static bmm_table_rule rules[BMM_TABLE_MAX_RULES];
  static char text[1 << 16];
  char *t = bmmt__read_all(table);
  int n = 0, np = 0, e, p;
  if (!t || bmm_table_parse(t, rules, BMM_TABLE_MAX_RULES, &n) != BMM_OK ||
      bmmt_grid_load(grid, BMM_BACKEND_CUDA, &g) < 0) {
    fprintf(stderr, "bmm-tune-model: cannot read %s or %s: %s\n", table, grid, bmm_last_error());
    free(t);
    return 1;
  }
  free(t);
  for (e = 0; e < g.n; ++e) {
    bmmt_point q;
    memset(&q, 0, sizeof q);
    if (!bmmt__class(&g.e[e].c, &q.layout)) continue;
    q.dtype = g.e[e].c.dtype, q.m = g.e[e].c.m, q.n = g.e[e].c.n, q.k = g.e[e].c.k;
    q.batch = g.e[e].c.batch;
    for (p = 0; p < np && memcmp(&pts[p], &q, sizeof q) != 0; ++p) {
    }
    if (p == np) pts[np++] = q;
  }
  bmmt_model_caveats(rules, n, pts, np);
  bmm_table_format(rules, n, text, sizeof text);
  fputs(text, stdout);
  return 0;
}

#endif /* BMM_TUNE_MODEL_H */
