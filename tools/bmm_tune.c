/* tools/bmm_tune.c - bmm-tune: measure this machine and write its threshold
   table. For every point of a grid (dtype, m, n, k, batch, layout) it times
   every strategy that claims the point, with every tunable candidate the grid
   lists, checks each result against bmm_reference, keeps the fastest (median
   of several runs), compresses the winners into a short ordered rule table
   (tools/tune_compress.h), re-runs the public suite with the tuned and the
   default table, keeps the default's choice wherever the tuned table loses
   more than 3%, and writes the table as text (BMM_TABLE_FILE format) and as a
   C header (compile-time override).

     build/bmm-tune [--cpu] [--quick]        the CPU backend (this build has no other)
     build/bmm-tune-cuda [--quick]           the current GPU (--cpu: the CPU)
   Options: --grid FILE (syntax in tools/grids/cpu.txt), --out FILE, --header
   FILE, --suite FILE (default bench/suite.csv; `none` skips the
   validation), --reps N (samples per median, default 5), --tie PCT (winners
   within PCT% count as tied; default 3 on the CPU, 1 on a GPU), --max-rules N, --seed N; --list
   prints the grid's problems and candidate counts and measures nothing.

   This file is the whole CPU tuner and the shared logic of the CUDA one:
   tools/bmm_tune_cuda.cu defines its timing driver and includes this file. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#ifndef BMM_TUNE_CUDA
#define BMM_IMPLEMENTATION
#include "bmm.h"
#endif
#include "tests/bmm_cases.h"
#include "tools/tune_compress.h"

#include <time.h>
#include <unistd.h>

/* ---- the timing driver: what differs between the CPU and a GPU ----------- */

typedef struct bmmt_driver {
  bmm_backend backend;
  char device[128]; /* for notes and the header */
  int arch;         /* CUDA compute capability * 10; 0 for the CPU */
  void *(*alloc)(size_t bytes);
  void (*release)(void *p);
  void (*upload)(void *dst, const void *src, size_t bytes);
  void (*download)(void *dst, const void *src, size_t bytes);
  void (*poison)(void *p, size_t bytes); /* 0xFF bytes: NaN in every float type */
  /* seconds for `calls` back-to-back calls, all finished; *st the first failure */
  double (*time)(const bmm_problem *p, int calls, bmm_status *st);
  double min_sample; /* seconds one timing sample should at least last */
  /* --model: seconds one call of c is PREDICTED to take under the installed
     table (tools/model/tune_model.h), 0 and *st set where it cannot run;
     NULL: time it. Nothing is run for its result, so nothing is checked. */
  double (*predict)(const bmmx_case *c, bmm_status *st);
} bmmt_driver;

static double bmmt__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *bmmt__cpu_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
static void bmmt__cpu_release(void *p) { free(p); }
static void bmmt__cpu_copy(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }
static void bmmt__cpu_poison(void *p, size_t bytes) { memset(p, 0xFF, bytes); }
static double bmmt__cpu_time(const bmm_problem *p, int calls, bmm_status *st) {
  double t0 = bmmt__now();
  int i;
  *st = BMM_OK;
  for (i = 0; i < calls && *st == BMM_OK; ++i)
    *st = bmm_cpu(p);
  return bmmt__now() - t0;
}

/* The CPU's model name (Linux), else "cpu". */
static void bmmt__cpu_name(char *out, size_t len) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  snprintf(out, len, "cpu");
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "model name", 10) == 0) {
      const char *c = strchr(line, ':');
      if (c) {
        c += 1 + (c[1] == ' ');
        snprintf(out, len, "%.*s", (int)strcspn(c, "\n"), c);
      }
      break;
    }
  if (f) fclose(f);
}

static void bmmt__cpu_driver(bmmt_driver *d) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  char name[96];
  memset(d, 0, sizeof *d);
  d->backend = BMM_BACKEND_CPU;
  bmmt__cpu_name(name, sizeof name);
  snprintf(d->device, sizeof d->device, "%s x%ld", name, n);
  d->alloc = bmmt__cpu_alloc, d->release = bmmt__cpu_release;
  d->upload = bmmt__cpu_copy, d->download = bmmt__cpu_copy;
  d->poison = bmmt__cpu_poison, d->time = bmmt__cpu_time;
  d->min_sample = 2e-3;
}

/* ---- the grid ------------------------------------------------------------- */

#define BMMT_MAX_CFG 256
#define BMMT_MAX_ENTRIES 8192
#define BMMT_LIST 256

typedef struct bmmt_entry { /* one problem of the grid */
  bmmx_case c;
  int point; /* its point: problems the table cannot tell apart (same dtype,
                layout class and sizes, e.g. col_a and trans_b) share one, and
                their times add up */
} bmmt_entry;

typedef struct bmmt_grid {
  bmmt_entry e[BMMT_MAX_ENTRIES];
  int n;
  bmm_table_rule cfg[BMMT_MAX_CFG];
  int ncfg;
  int64_t elems; /* cap on A + B + C elements of one problem (0: none) */
  double flops;  /* cap on 2*m*n*k*batch of one problem (0: none) */
} bmmt_grid;

static int bmmt__fail_line(const char *path, int line, const char *what, const char *got) {
  fprintf(stderr, "bmm-tune: %s:%d: expected %s, got `%s`\n", path, line, what, got);
  return -1;
}

/* A size with an optional K (2^10) or M (2^20) suffix. */
static int bmmt__num(const char *s, int64_t *v) {
  char *e;
  long long x = strtoll(s, &e, 10);
  if (e == s || x < 0) return 0;
  if (*e == 'K' || *e == 'k')
    x <<= 10, ++e;
  else if (*e == 'M')
    x <<= 20, ++e;
  *v = x;
  return *e == 0 || *e == ',' || *e == '.' || *e == '/' || *e == '*';
}

/* A list: items `V`, `A..B` (every value), `A..B/S` (step S), `A..B*F` (times
   F), comma separated. `m` (when allowed) stands for the point's m: -1. */
static int bmmt__list(const char *s, int allow_m, int64_t *out) {
  int n = 0;
  while (*s) {
    int64_t a, b, st = 1;
    int mul = 0;
    size_t len = strcspn(s, ",");
    char item[64];
    const char *dots;
    if (len == 0 || len >= sizeof item) return -1;
    memcpy(item, s, len), item[len] = 0;
    s += len + (s[len] == ',');
    if (allow_m && strcmp(item, "m") == 0) {
      if (n >= BMMT_LIST) return -1;
      out[n++] = -1;
      continue;
    }
    if (!bmmt__num(item, &a)) return -1;
    dots = strstr(item, "..");
    if (!dots) {
      if (n >= BMMT_LIST) return -1;
      out[n++] = a;
      continue;
    }
    if (!bmmt__num(dots + 2, &b) || b < a) return -1;
    if (strchr(dots, '/')) {
      if (!bmmt__num(strchr(dots, '/') + 1, &st) || st < 1) return -1;
    } else if (strchr(dots, '*')) {
      if (!bmmt__num(strchr(dots, '*') + 1, &st) || st < 2 || a < 1) return -1;
      mul = 1;
    }
    for (; a <= b; a = mul ? a * st : a + st) {
      if (n >= BMMT_LIST) return -1;
      out[n++] = a;
    }
  }
  return n;
}

/* a tunable's index in bmm.h's list (BMM_TUNABLES), -1 if none */
static int bmmt__tunable_index(const char *key) {
  int i;
  for (i = 0; i < BMM_TUNABLE_COUNT; ++i)
    if (strcmp(key, bmm__tunable_names[i]) == 0) return i;
  return -1;
}

static int bmmt__add_cfg(bmmt_grid *g, const bmm_table_rule *c) {
  if (bmmt_find_config(g->cfg, g->ncfg, c) >= 0) return 0;
  if (g->ncfg >= BMMT_MAX_CFG) return -1;
  bmmt_config_of(c, &g->cfg[g->ncfg++]);
  return 0;
}

/* A+B+C elements of a case, and the batch that keeps it under `elems`. */
static int64_t bmmt__elems(const bmmx_case *c) {
  bmmx_sizes_t s = bmmx_sizes(c);
  return s.a + s.b + s.c + s.bias;
}

static int64_t bmmt__batch_for(int64_t m, int64_t n, int64_t k, int64_t elems) {
  int64_t per = m * k + k * n + m * n, b = per > 0 ? elems / per : 1;
  return b < 1 ? 1 : b;
}

/* Lower a case's batch until it fits the caps; 0 if one entry alone does not. */
static int bmmt__fit(bmmx_case *c, int64_t elems, double flops) {
  while (c->batch > 1 &&
         ((elems && bmmt__elems(c) > elems) || (flops > 0 && bmmx_flops(c) > flops))) {
    int64_t b = c->batch / 2;
    if (elems) {
      int64_t per = bmmt__elems(c) / c->batch + 1, fit = elems / per;
      if (fit < b && fit >= 1) b = fit;
    }
    c->batch = b < 1 ? 1 : b;
  }
  return !((elems && bmmt__elems(c) > elems) || (flops > 0 && bmmx_flops(c) > flops));
}

static int bmmt__add_entry(bmmt_grid *g, const bmmx_case *c) {
  int i;
  for (i = 0; i < g->n; ++i) {
    const bmmx_case *o = &g->e[i].c;
    if (o->dtype == c->dtype && o->layout == c->layout && o->m == c->m && o->n == c->n &&
        o->k == c->k && o->batch == c->batch)
      return 0;
  }
  if (g->n >= BMMT_MAX_ENTRIES) return -1;
  g->e[g->n].c = *c;
  g->e[g->n].point = -1;
  ++g->n;
  return 0;
}

/* Grid file: see tools/grids/cpu.txt for the syntax. */
static int bmmt_grid_load(const char *path, bmm_backend be, bmmt_grid *g) {
  FILE *f = fopen(path, "r");
  char line[1024];
  int ln = 0, s;
  memset(g, 0, sizeof *g);
  if (!f) {
    fprintf(stderr, "bmm-tune: cannot open grid %s\n", path);
    return -1;
  }
  for (s = 1; s < BMM_STRATEGY_COUNT; ++s) /* every strategy's defaults */
    if (bmm_strategy_backend((bmm_strategy)s) == be) {
      bmm_table_rule c;
      memset(&c, 0, sizeof c);
      c.strategy = (bmm_strategy)s;
      bmmt__add_cfg(g, &c);
    }
  while (fgets(line, sizeof line, f)) {
    char w[8][256];
    int nw, i;
    ++ln;
    line[strcspn(line, "#\r\n")] = 0;
    nw = sscanf(line, "%255s %255s %255s %255s %255s %255s %255s %255s", w[0], w[1], w[2], w[3],
                w[4], w[5], w[6], w[7]);
    if (nw <= 0) continue;
    if (strcmp(w[0], "elems") == 0 || strcmp(w[0], "flops") == 0) {
      int64_t v;
      if (nw != 2 || !bmmt__num(w[1], &v))
        return fclose(f), bmmt__fail_line(path, ln, "a number", line);
      if (w[0][0] == 'e')
        g->elems = v;
      else
        g->flops = (double)v;
    } else if (strcmp(w[0], "try") == 0) {
      /* try STRATEGY key=v,v key=v,v ...: the product, on top of the defaults */
      int64_t vals[BMM_TUNABLE_COUNT][BMMT_LIST];
      int nv[BMM_TUNABLE_COUNT], key[BMM_TUNABLE_COUNT], nk = nw - 2, idx[BMM_TUNABLE_COUNT];
      int st = 0, j;
      bmm_table_rule c;
      memset(&c, 0, sizeof c);
      if (nw < 3 || nk > BMM_TUNABLE_COUNT)
        return fclose(f), bmmt__fail_line(path, ln, "try STRATEGY key=values ...", line);
      for (j = 1; j < BMM_STRATEGY_COUNT; ++j)
        if (strcmp(w[1], bmm_strategy_name((bmm_strategy)j)) == 0) st = j;
      if (!st) return fclose(f), bmmt__fail_line(path, ln, "a strategy name", w[1]);
      if (bmm_strategy_backend((bmm_strategy)st) != be) continue; /* the other backend's line */
      c.strategy = (bmm_strategy)st;
      for (i = 0; i < nk; ++i) {
        char *eq = strchr(w[i + 2], '=');
        if (!eq) return fclose(f), bmmt__fail_line(path, ln, "key=values", w[i + 2]);
        *eq = 0;
        key[i] = bmmt__tunable_index(w[i + 2]);
        nv[i] = bmmt__list(eq + 1, 0, vals[i]);
        if (key[i] < 0 || nv[i] <= 0)
          return fclose(f), bmmt__fail_line(path, ln, "a tunable name and values", w[i + 2]);
        idx[i] = 0;
      }
      for (;;) {
        for (i = 0; i < nk; ++i)
          *bmm__tunable(&c, key[i]) = (int)vals[i][idx[i]];
        if (bmmt__add_cfg(g, &c) < 0)
          return fclose(f), bmmt__fail_line(path, ln, "fewer configurations", line);
        for (i = 0; i < nk && ++idx[i] == nv[i]; ++i)
          idx[i] = 0;
        if (i == nk) break;
      }
    } else if (strcmp(w[0], "point") == 0) {
      /* point DTYPES LAYOUTS M N K BATCH */
      int64_t ms[BMMT_LIST], ns[BMMT_LIST], ks[BMMT_LIST], bs[BMMT_LIST], budget = 0;
      int nm, nn, nkk, nb = 1, a, b, cc, d, l;
      char *tok;
      if (nw != 7)
        return fclose(f), bmmt__fail_line(path, ln, "point DTYPES LAYOUTS M N K BATCH", line);
      nm = bmmt__list(w[3], 0, ms), nn = bmmt__list(w[4], 1, ns), nkk = bmmt__list(w[5], 1, ks);
      if (w[6][0] == '~') {
        if (!bmmt__num(w[6] + 1, &budget))
          return fclose(f), bmmt__fail_line(path, ln, "~ELEMS", w[6]);
      } else {
        nb = bmmt__list(w[6], 0, bs);
      }
      if (nm <= 0 || nn <= 0 || nkk <= 0 || nb <= 0)
        return fclose(f), bmmt__fail_line(path, ln, "lists of sizes", line);
      for (tok = strtok(w[1], ","); tok; tok = strtok(NULL, ",")) {
        const bmm_dtype dt = bmmx_dtype_parse(tok);
        char lays[256], *save = lays, *lt;
        if (dt == BMM_DTYPE_UNSET)
          return fclose(f), bmmt__fail_line(path, ln, "a dtype name (f32, f64, f16, bf16)", tok);
        snprintf(lays, sizeof lays, "%s", w[2]);
        while ((lt = save) != NULL) {
          char *comma = strchr(lt, ',');
          save = comma ? comma + 1 : NULL;
          if (comma) *comma = 0;
          l = bmmx_layout_parse(lt);
          if (l < 0)
            return fclose(f), bmmt__fail_line(path, ln, "a layout of tests/bmm_cases.h", lt);
          for (a = 0; a < nm; ++a)
            for (b = 0; b < nn; ++b)
              for (cc = 0; cc < nkk; ++cc)
                for (d = 0; d < nb; ++d) {
                  bmmx_case c;
                  memset(&c, 0, sizeof c);
                  c.dtype = dt, c.layout = l, c.m = ms[a];
                  c.n = ns[b] < 0 ? ms[a] : ns[b];
                  c.k = ks[cc] < 0 ? ms[a] : ks[cc];
                  c.batch = budget ? bmmt__batch_for(c.m, c.n, c.k, budget) : bs[d];
                  if (c.m < 1 || c.n < 1 || c.k < 1 || c.batch < 1)
                    return fclose(f), bmmt__fail_line(path, ln, "sizes >= 1", line);
                  snprintf(c.name, sizeof c.name, "%s_%lldx%lldx%lld", bmmx_layout_name(l),
                           (long long)c.m, (long long)c.n, (long long)c.k);
                  if (!bmmt__fit(&c, g->elems, g->flops) || bmmt__add_entry(g, &c) < 0)
                    return fclose(f),
                           bmmt__fail_line(path, ln,
                                           "a problem within the caps and the entry limit", line);
                }
        }
      }
    } else {
      return fclose(f), bmmt__fail_line(path, ln, "`point`, `try`, `elems` or `flops`", w[0]);
    }
  }
  fclose(f);
  if (g->n == 0) {
    fprintf(stderr, "bmm-tune: %s has no points\n", path);
    return -1;
  }
  return 0;
}

/* ---- measuring -------------------------------------------------------------- */

typedef struct bmmt_state {
  const bmmt_driver *d;
  bmm_backend be;
  void *h[4], *dev[4]; /* A, B, C, bias: host copies and the driver's buffers */
  size_t cap[4];       /* bytes of each */
  int64_t most[4];     /* elements of each that any problem uses */
  bmm_dtype filled;    /* dtype of the random data now in the buffers */
  uint64_t seed;
  int reps;
  double keep; /* the suite keeps the default's choice where tuned > keep x default */
  /* progress */
  double t0, last_draw, work_total, work_done;
  int tty;
  /* disqualified configurations (wrong results), kept for the report */
  char bad[32][160];
  int nbad;
} bmmt_state;

static int bmmt__alloc(bmmt_state *S, const bmmx_case *cases, int n) {
  int i, b;
  size_t widest = 1;
  for (i = BMM_DTYPE_UNSET + 1; i < BMM_DTYPE_COUNT; ++i)
    if (bmm_dtype_size((bmm_dtype)i) > widest) widest = bmm_dtype_size((bmm_dtype)i);
  for (i = 0; i < n; ++i) {
    bmmx_sizes_t s = bmmx_sizes(&cases[i]);
    int64_t el[4];
    el[0] = s.a, el[1] = s.b, el[2] = s.c, el[3] = s.bias;
    for (b = 0; b < 4; ++b) {
      size_t bytes = (size_t)el[b] * widest; /* one buffer serves every dtype (c128: 16 bytes) */
      if (bytes > S->cap[b]) S->cap[b] = bytes;
      if (el[b] > S->most[b]) S->most[b] = el[b];
    }
  }
  for (b = 0; b < 4; ++b) {
    S->h[b] = malloc(S->cap[b] + 8);
    S->dev[b] = S->d->alloc(S->cap[b] + 8);
    if (!S->h[b] || !S->dev[b]) {
      fprintf(stderr, "bmm-tune: cannot allocate %zu bytes\n", S->cap[b]);
      return -1;
    }
  }
  S->filled = BMM_DTYPE_UNSET;
  return 0;
}

static void bmmt__free(bmmt_state *S) {
  int b;
  for (b = 0; b < 4; ++b) {
    free(S->h[b]);
    if (S->dev[b]) S->d->release(S->dev[b]);
    S->h[b] = S->dev[b] = NULL;
  }
}

/* Random inputs of dtype dt in every buffer (A, B, bias), uploaded once per dtype. */
static void bmmt__fill(bmmt_state *S, bmm_dtype dt) {
  int b;
  if (S->filled == dt || S->d->predict) return; /* the model reads no data */
  for (b = 0; b < 4; ++b) {
    if (b == 2) continue;
    bmmx_fill(dt, S->h[b], S->most[b], &S->seed);
    S->d->upload(S->dev[b], S->h[b], (size_t)S->most[b] * bmm_dtype_size(dt));
  }
  S->filled = dt;
}

static void bmmt__progress(bmmt_state *S, const char *what, int force) {
  double now = bmmt__now(), el = now - S->t0, frac;
  char bar[31];
  int i, fill;
  if (!force && now - S->last_draw < (S->tty ? 0.2 : 10.0)) return;
  S->last_draw = now;
  frac = S->work_total > 0 ? S->work_done / S->work_total : 1;
  if (frac > 1) frac = 1;
  fill = (int)(frac * 30);
  for (i = 0; i < 30; ++i)
    bar[i] = i < fill ? '#' : '.';
  bar[30] = 0;
  fprintf(stderr, "%s[%s] %3.0f%% %6.1f s, ETA %5.0f s  %-34.34s%s", S->tty ? "\r" : "", bar,
          100 * frac, el, frac > 0.01 ? el / frac - el : 0.0, what, S->tty ? "" : "\n");
  fflush(stderr);
}

/* One contender in a timing round: a table to install (rules, n) and what
   its measurement gave. */
typedef struct bmmt_cand {
  const bmm_table_rule *rules;
  int n;
  int calls;     /* per sample, so that a sample lasts min_sample */
  int samples;   /* taken so far */
  double s[64];  /* seconds per call */
  double t;      /* result: median seconds per call; 0 did not run; -1 wrong */
  double worst;  /* error of the checked call, in units of the tolerance */
  bmm_status st; /* why it did not run */
} bmmt_cand;

/* Time a case under each candidate table, interleaved: first each one's
   checked call (C poisoned, compared with bmm_reference on 4 batch entries),
   calibration and first sample; then candidates slower than `prune` times the
   best first sample stop; the others take the remaining samples in rounds,
   one each per round, so that a burst of other work on the machine hits them
   all alike. t = median of the samples. */
static void bmmt__time_cands(bmmt_state *S, const bmmx_case *c, bmmt_cand *cd, int ncd, int reps,
                             double prune) {
  bmmx_sizes_t sz = bmmx_sizes(c);
  size_t es = bmm_dtype_size(c->dtype);
  bmm_problem p = bmmx_problem(c, S->dev[0], S->dev[1], S->dev[2], sz.bias ? S->dev[3] : NULL);
  bmm_problem hp = bmmx_problem(c, S->h[0], S->h[1], S->h[2], sz.bias ? S->h[3] : NULL);
  double best = HUGE_VAL;
  int i, r;
  if (reps > 64) reps = 64;
  if (S->d->predict) { /* --model: one deterministic prediction each */
    for (i = 0; i < ncd; ++i) {
      bmmt_cand *x = &cd[i];
      x->samples = 0, x->t = 0, x->worst = 0, x->st = BMM_OK;
      if (bmm_set_table(S->be, x->rules, x->n) != BMM_OK) {
        x->st = BMM_BAD_TABLE;
        continue;
      }
      x->t = S->d->predict(c, &x->st);
      if (x->st != BMM_OK || !(x->t > 0)) x->t = 0;
      x->samples = x->t > 0;
    }
    return;
  }
  bmmt__fill(S, c->dtype);
  for (i = 0; i < ncd; ++i) {
    bmmt_cand *x = &cd[i];
    double t1, t2;
    x->samples = 0, x->t = 0, x->worst = 0, x->st = BMM_OK;
    if (bmm_set_table(S->be, x->rules, x->n) != BMM_OK) {
      x->st = BMM_BAD_TABLE;
      continue;
    }
    S->d->poison(S->dev[2], (size_t)sz.c * es);
    t1 = S->d->time(&p, 1, &x->st);
    if (x->st != BMM_OK) continue;
    S->d->download(S->h[2], S->dev[2], (size_t)sz.c * es);
    /* 4 entries; over 2^24 multiply-adds an entry, of its C the first and
       last 4 rows: whole 1024^3 entries in long double took ~40 s a dtype
       (H100, 2026-11-26), so gpu_check left square1024 out of the suite,
       and the H200's tuned table (2026-11-28) sent it, unvalidated, to
       cuda_loop, 32x slower than the default's cuBLAS */
    x->worst = bmmx_check_edges(&hp, S->h[2], 4,
                                (double)c->m * (double)c->n * (double)c->k > 16777216.0 ? 4 : 0);
    if (!(x->worst <= 1.0)) {
      x->t = -1;
      continue;
    }
    t2 = S->d->time(&p, 1, &x->st); /* the first call may pay one-time costs */
    if (x->st != BMM_OK) continue;
    if (t2 < t1) t1 = t2;
    x->calls = t1 >= S->d->min_sample ? 1 : (int)(S->d->min_sample / (t1 > 1e-9 ? t1 : 1e-9)) + 1;
    if (x->calls > 100000) x->calls = 100000;
    x->s[0] = S->d->time(&p, x->calls, &x->st) / x->calls;
    if (x->st != BMM_OK) continue;
    x->samples = 1;
    if (x->s[0] < best) best = x->s[0];
  }
  for (r = 1; r < reps; ++r)
    for (i = 0; i < ncd; ++i) {
      bmmt_cand *x = &cd[i];
      if (x->samples != r || x->s[0] > prune * best) continue;
      if (bmm_set_table(S->be, x->rules, x->n) != BMM_OK) continue;
      x->s[r] = S->d->time(&p, x->calls, &x->st) / x->calls;
      if (x->st != BMM_OK) {
        x->samples = 0;
        continue;
      }
      x->samples = r + 1;
    }
  for (i = 0; i < ncd; ++i)
    if (cd[i].samples > 0) cd[i].t = bmmx_median(cd[i].s, cd[i].samples);
}

/* A table that gives configuration cfg to everything it claims. */
static void bmmt__solo_table(bmm_backend be, const bmm_table_rule *cfg, bmm_table_rule *t) {
  bmmt_config_of(cfg, &t[0]);
  memset(&t[1], 0, sizeof t[1]);
  t[1].strategy = bmmt_default_catch_all(be);
}

/* The configuration (strategy + tunables) that the installed table gives c. */
static int bmmt__choice(bmmt_state *S, const bmmx_case *c, bmm_table_rule *cfg, int *rule) {
  bmmx_sizes_t sz = bmmx_sizes(c);
  bmm_problem p = bmmx_problem(c, S->dev[0], S->dev[1], S->dev[2], sz.bias ? S->dev[3] : NULL);
  bmm_plan pl;
  if (bmm_plan_problem(&p, S->be, &pl) != BMM_OK) return 0;
  bmmt_config_of(&pl.rule, cfg);
  cfg->strategy = pl.strategy;
  if (rule) *rule = pl.rule_index;
  return 1;
}

static void bmmt__cfg_name(const bmm_table_rule *c, char *out, size_t len) {
  bmm_table_rule r = *c;
  size_t n = (size_t)snprintf(out, len, "%s", bmm_strategy_name(c->strategy));
  int i;
  for (i = 0; i < BMM_TUNABLE_COUNT && n < len; ++i)
    if (*bmm__tunable(&r, i))
      n +=
          (size_t)snprintf(out + n, len - n, " %s=%d", bmm__tunable_names[i], *bmm__tunable(&r, i));
}

/* The layout class validation derives for a case (the same for every
   backend; the addresses only need to be apart, nothing is read). */
static int bmmt__class(const bmmx_case *c, bmm_layout *layout) {
  bmmx_sizes_t sz = bmmx_sizes(c);
  const uint64_t at = (uint64_t)1 << 40, gap = (uint64_t)1 << 42;
  bmm_problem p = bmmx_problem(c, (const void *)(uintptr_t)at, (const void *)(uintptr_t)(at + gap),
                               (void *)(uintptr_t)(at + 2 * gap),
                               sz.bias ? (const void *)(uintptr_t)(at + 3 * gap) : NULL);
  bmm_plan pl;
  if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &pl) != BMM_OK) return 0;
  *layout = pl.layout;
  return 1;
}

static double bmmt__weight(const bmmx_case *c) {
  double bytes = (double)bmmt__elems(c) * (double)bmm_dtype_size(c->dtype);
  return 1.0 + bytes / (4.0 * 1048576.0);
}

static void bmmt__disqualify(bmmt_state *S, const bmmx_case *c, const bmm_table_rule *cfg,
                             double worst) {
  char name[96];
  bmmt__cfg_name(cfg, name, sizeof name);
  fprintf(stderr,
          "%sbmm-tune: WRONG RESULT, disqualified: %s on %s %s %lldx%lldx%lld batch %lld "
          "(error %.3g x tolerance)\n",
          S->tty ? "\n" : "", name, bmm_dtype_name(c->dtype), bmmx_layout_name(c->layout),
          (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->batch, worst);
  if (S->nbad < 32)
    snprintf(S->bad[S->nbad++], sizeof S->bad[0], "%s on %s %s %lldx%lldx%lld (error %.3g x tol)",
             name, bmm_dtype_name(c->dtype), bmmx_layout_name(c->layout), (long long)c->m,
             (long long)c->n, (long long)c->k, worst);
}

/* Every configuration at every grid problem into times[point * ncfg + cfg]. */
static int bmmt_measure(bmmt_state *S, bmmt_grid *g, bmmt_point *pts, int *npts, double *times) {
  int e, c, p, np = 0;
  char *bad = (char *)calloc((size_t)g->n * (size_t)g->ncfg + 1, 1);
  char wrong[BMMT_MAX_CFG];
  static bmm_table_rule solo[BMMT_MAX_CFG][2];
  static bmmt_cand cand[BMMT_MAX_CFG];
  int which[BMMT_MAX_CFG];
  if (!bad) return -1;
  memset(wrong, 0, sizeof wrong);
  for (e = 0; e < g->n; ++e) { /* points: entries that the table cannot tell apart share one */
    bmmt_point q;
    const bmmx_case *cs = &g->e[e].c;
    memset(&q, 0, sizeof q); /* compared with memcmp below */
    if (!bmmt__class(cs, &q.layout)) {
      fprintf(stderr, "bmm-tune: grid problem %s does not validate: %s\n", cs->name,
              bmm_last_error());
      free(bad);
      return -1;
    }
    q.dtype = cs->dtype, q.m = cs->m, q.n = cs->n, q.k = cs->k, q.batch = cs->batch;
    for (p = 0; p < np; ++p)
      if (memcmp(&pts[p], &q, sizeof q) == 0) break;
    if (p == np) pts[np++] = q;
    g->e[e].point = p;
    for (c = 0; c < g->ncfg; ++c)
      if (bmmt_supports(g->cfg[c].strategy, &q)) S->work_total += bmmt__weight(cs);
  }
  memset(times, 0, sizeof *times * (size_t)np * (size_t)g->ncfg);
  for (e = 0; e < g->n; ++e) {
    const bmmx_case *cs = &g->e[e].c;
    const bmmt_point *q = &pts[g->e[e].point];
    char what[64];
    int nc = 0, k;
    snprintf(what, sizeof what, "%s %s %lldx%lldx%lld b%lld", bmm_dtype_name(cs->dtype),
             bmmx_layout_name(cs->layout), (long long)cs->m, (long long)cs->n, (long long)cs->k,
             (long long)cs->batch);
    bmmt__progress(S, what, 0);
    for (c = 0; c < g->ncfg; ++c) { /* the configurations the library really runs here */
      bmm_table_rule got;
      if (!bmmt_supports(g->cfg[c].strategy, q)) continue;
      bmmt__solo_table(S->be, &g->cfg[c], solo[c]);
      if (bmm_set_table(S->be, solo[c], 2) != BMM_OK || !bmmt__choice(S, cs, &got, NULL) ||
          bmmt_config_cmp(&got, &g->cfg[c]) != 0) {
        size_t at = (size_t)g->e[e].point * (size_t)g->ncfg + (size_t)c;
        bad[at] = 1, times[at] = 0; /* a point's time is the sum over all its problems */
        continue;
      }
      cand[nc].rules = solo[c], cand[nc].n = 2;
      which[nc++] = c;
    }
    bmmt__time_cands(S, cs, cand, nc, S->reps, 2.0);
    for (k = 0; k < nc; ++k) {
      size_t at;
      double t = cand[k].t;
      c = which[k];
      at = (size_t)g->e[e].point * (size_t)g->ncfg + (size_t)c;
      if (t < 0) {
        bmmt__disqualify(S, cs, &g->cfg[c], cand[k].worst);
        wrong[c] = 1;
      }
      if (t > 0 && !bad[at])
        times[at] += t;
      else
        bad[at] = 1, times[at] = 0;
    }
    for (c = 0; c < g->ncfg; ++c)
      if (bmmt_supports(g->cfg[c].strategy, q)) S->work_done += bmmt__weight(cs);
  }
  bmmt__progress(S, "grid measured", 1);
  fprintf(stderr, "\n");
  /* a configuration that computed a wrong result anywhere is trusted nowhere */
  for (c = 0; c < g->ncfg; ++c)
    for (p = 0; wrong[c] && p < np; ++p)
      times[(size_t)p * (size_t)g->ncfg + (size_t)c] = 0;
  /* one that got no time at any point is said, not dropped in silence: a
     strategy not compiled here, or (--model) one the model could not cost,
     as tunables once were when their name spoiled the resources lookup */
  for (c = 0; c < g->ncfg; ++c) {
    int got = 0, claimed = 0;
    for (p = 0; p < np; ++p) {
      got += times[(size_t)p * (size_t)g->ncfg + (size_t)c] > 0;
      claimed += bmmt_supports(g->cfg[c].strategy, &pts[p]);
    }
    if (claimed && !got && !wrong[c]) {
      char name[96];
      bmmt__cfg_name(&g->cfg[c], name, sizeof name);
      fprintf(stderr, "bmm-tune: %s got no %s at any of its %d grid points: left out\n", name,
              S->d->predict ? "prediction" : "time", claimed);
    }
  }
  free(bad);
  *npts = np;
  return 0;
}

/* ---- self-validation on the public suite ------------------------------------ */

typedef struct bmmt_suite_row {
  bmmx_case c;
  int skipped;
  bmm_table_rule dflt, tuned; /* the configuration each table picks */
  double t_dflt, t_tuned;
  int overridden;
} bmmt_suite_row;

/* The dtypes the grid measured. The others keep the default table's rules:
   the tuned catch-all is narrowed to the measured dtypes and the default's
   rules that can see another dtype follow it, narrowed to those, its own
   catch-all last and whole. H200, 2026-11-26: the grid held f32 and f64, its
   catch-all took c64 and c128 (up to 10.7x slower) and the 64-rule limit
   left no room to override them (bench/notes/gpu_check.md). */
static unsigned bmmt_measured_dtypes(const bmmt_point *pts, int npts) {
  unsigned d = 0;
  int i;
  for (i = 0; i < npts; ++i)
    d |= BMM_DT(pts[i].dtype);
  return d;
}
static int bmmt_default_tail(const bmm_table_rule *dflt, int nd, unsigned measured,
                             bmm_table_rule *out) {
  int i, n = 0;
  if ((measured & BMM__DT_ALL) == BMM__DT_ALL) return 0;
  for (i = 0; i < nd; ++i) {
    unsigned dt = dflt[i].dtypes ? dflt[i].dtypes : BMM__DT_ALL;
    char note[BMM_NOTE_LEN + 32];
    size_t len;
    if (i < nd - 1 && !(dt & ~measured)) continue;
    out[n] = dflt[i];
    if (i < nd - 1) out[n].dtypes = dt & ~measured;
    snprintf(note, sizeof note, "default, not in the grid: %s", dflt[i].note);
    len = strlen(note);
    if (len >= BMM_NOTE_LEN) len = BMM_NOTE_LEN - 1;
    memcpy(out[n].note, note, len);
    out[n].note[len] = 0;
    bmmt__clean_note(out[n++].note); /* a cut may end in a space */
  }
  return n;
}

static int bmmt_validate(bmmt_state *S, const char *path, const bmmt_grid *g,
                         const bmm_table_rule *dflt, int nd, bmm_table_rule *tuned, int *nt,
                         const char *note_prefix, char *summary, size_t sumlen) {
  static bmmx_case cases[512];
  static bmmt_suite_row rows[512];
  char err[256], first[32] = ""; /* first: the row whose override the next K may widen */
  int n = bmmx_suite_load(path, cases, 512, err, sizeof err), i, over = 0, timed = 0, skipped = 0;
  double logsum = 0;
  if (n < 0) {
    fprintf(stderr, "bmm-tune: %s\n", err);
    return -1;
  }
  for (i = 0; i < n; ++i) {
    rows[i].c = cases[i];
    rows[i].skipped = !bmmt__fit(&rows[i].c, g->elems, g->flops);
  }
  {
    static bmmx_case fit[512];
    int m = 0;
    for (i = 0; i < n; ++i)
      if (!rows[i].skipped) fit[m++] = rows[i].c;
    bmmt__free(S);
    memset(S->cap, 0, sizeof S->cap);
    memset(S->most, 0, sizeof S->most);
    if (bmmt__alloc(S, fit, m) < 0) return -1;
  }
  for (i = 0; i < n; ++i) {
    bmmt_suite_row *r = &rows[i];
    char what[64];
    if (r->skipped) continue;
    snprintf(what, sizeof what, "suite %.40s %s", r->c.name, bmm_dtype_name(r->c.dtype));
    if (bmm_set_table(S->be, dflt, nd) != BMM_OK || !bmmt__choice(S, &r->c, &r->dflt, NULL) ||
        bmm_set_table(S->be, tuned, *nt) != BMM_OK || !bmmt__choice(S, &r->c, &r->tuned, NULL)) {
      r->skipped = 1;
      continue;
    }
    {
      bmmt_cand cd[2];
      int same = bmmt_config_cmp(&r->dflt, &r->tuned) == 0, look;
      memset(cd, 0, sizeof cd);
      cd[0].rules = dflt, cd[0].n = nd, cd[1].rules = tuned, cd[1].n = *nt;
      for (look = 1; look <= 2; ++look) { /* a loss gets a second, longer look */
        bmmt__time_cands(S, &r->c, cd, same ? 1 : 2, look * S->reps, HUGE_VAL);
        r->t_dflt = cd[0].t;
        r->t_tuned = same ? cd[0].t : cd[1].t;
        if (!(r->t_dflt > 0 && r->t_tuned > S->keep * r->t_dflt) || S->d->predict) break;
      }
      if (cd[0].t < 0) bmmt__disqualify(S, &r->c, &r->dflt, cd[0].worst);
      if (!same && cd[1].t < 0) bmmt__disqualify(S, &r->c, &r->tuned, cd[1].worst);
    }
    S->work_done += 2 * bmmt__weight(&r->c);
    bmmt__progress(S, what, 0);
  }
  bmmt__progress(S, "suite measured", 1);
  fprintf(stderr, "\n");

  for (i = 0; i < n;
       ++i) { /* where the tuned table loses (> 3% timed), keep the default's choice */
    bmmt_suite_row *r = &rows[i];
    bmmt_point q;
    char note[BMM_NOTE_LEN];
    int k;
    if (r->skipped || !(r->t_dflt > 0) || (r->t_tuned > 0 && r->t_tuned <= S->keep * r->t_dflt))
      continue;
    if (!bmmt__class(&r->c, &q.layout)) continue;
    q.dtype = r->c.dtype, q.m = r->c.m, q.n = r->c.n, q.k = r->c.k, q.batch = r->c.batch;
    snprintf(note, sizeof note, "kept default, suite %.28s %s; %.36s", r->c.name,
             bmm_dtype_name(r->c.dtype), note_prefix);
    k = bmmt_insert_override(tuned, *nt, BMM_TABLE_MAX_RULES, &q, &r->dflt, note);
    if (k == *nt) { /* widened to this K (sweep rows in K order): say which rows */
      /* only an override this loop wrote: the first rule before any is the
         grid's, widened with the same choice, its note kept */
      if (first[0])
        snprintf(tuned[0].note, sizeof tuned[0].note,
                 "kept default, suite %.24s to k=%lld %s; %.30s", first, (long long)r->c.k,
                 bmm_dtype_name(r->c.dtype), note_prefix);
    } else if (k > 0)
      snprintf(first, sizeof first, "%.31s", r->c.name);
    if (k < 0) {
      printf("  %s %s: tuned loses %.1f%% but the table is full (%d rules): not overridden\n",
             r->c.name, bmm_dtype_name(r->c.dtype), 100 * (r->t_tuned / r->t_dflt - 1), *nt);
      continue;
    }
    *nt = k;
    r->overridden = 1;
    ++over;
  }

  printf("\nself-validation on %s (%s):\n", path,
         S->be == BMM_BACKEND_CPU ? "batch scaled down to the grid's caps" : "as listed");
  printf("  %-22s %-4s %8s  %-28s %10s  %-28s %10s  %s\n", "suite point", "type", "batch",
         "default table picks", "time", "tuned table picks", "time", "tuned/default");
  for (i = 0; i < n; ++i) {
    bmmt_suite_row *r = &rows[i];
    char a[96], b[96];
    if (r->skipped) {
      printf("  %-22s %-4s %8lld  skipped: one entry exceeds this grid's caps\n", r->c.name,
             bmm_dtype_name(r->c.dtype), (long long)cases[i].batch);
      ++skipped;
      continue;
    }
    bmmt__cfg_name(&r->dflt, a, sizeof a);
    bmmt__cfg_name(&r->tuned, b, sizeof b);
    printf("  %-22s %-4s %8lld  %-28s %8.3f ms  %-28s %8.3f ms  %5.3f%s\n", r->c.name,
           bmm_dtype_name(r->c.dtype), (long long)r->c.batch, a, 1e3 * r->t_dflt, b,
           1e3 * r->t_tuned, r->t_dflt > 0 ? r->t_tuned / r->t_dflt : 0.0,
           r->overridden ? "  -> kept the default's choice (rule inserted first)" : "");
    if (r->t_dflt > 0 && r->t_tuned > 0) {
      logsum += log((r->overridden ? r->t_dflt : r->t_tuned) / r->t_dflt);
      ++timed;
    }
  }
  snprintf(summary, sumlen,
           "%d suite points timed (%d skipped): tuned/default time, geometric mean %.3f after "
           "%d override%s",
           timed, skipped, timed ? exp(logsum / timed) : 1.0, over, over == 1 ? "" : "s");
  printf("  %s\n", summary);
  return 0;
}

/* Progress weight of the suite's validation (2 tables per point), for the ETA. */
static double bmmt_suite_weight(const char *path, const bmmt_grid *g) {
  static bmmx_case cases[512];
  char err[256];
  int n = bmmx_suite_load(path, cases, 512, err, sizeof err), i;
  double w = 0;
  for (i = 0; i < n; ++i)
    if (bmmt__fit(&cases[i], g->elems, g->flops)) w += 2 * bmmt__weight(&cases[i]);
  return w;
}

/* ---- output ------------------------------------------------------------------ */

static void bmmt__sanitize(char *s) {
  char *w = s, *r;
  for (r = s; *r; ++r) {
    char ch =
        (*r >= 32 && *r < 127 && *r != '#' && *r != '"' && *r != '\\' && *r != '*' && *r != '/')
            ? *r
            : ' ';
    if (ch == ' ' && (w == s || w[-1] == ' ')) continue;
    *w++ = ch;
  }
  while (w > s && w[-1] == ' ')
    --w;
  *w = 0;
}

static char *bmmt__read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  char *t;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  t = (char *)malloc((size_t)(n > 0 ? n : 0) + 1);
  if (t && n >= 0 && fread(t, 1, (size_t)n, f) == (size_t)n) {
    t[n] = 0;
  } else {
    free(t);
    t = NULL;
  }
  fclose(f);
  return t;
}

static int bmmt__write(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  int ok = f && fputs(text, f) >= 0;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) fprintf(stderr, "bmm-tune: cannot write %s\n", path);
  return ok ? 0 : -1;
}

/* The table as text (out) and as a C header (hdr), the comment on top of
   both (a "*" "/" in it is defused: the header puts it inside a C comment).
   text and header are the caller's buffers of tl and hl bytes. */
static int bmmt__save(const bmm_table_rule *rules, int n, char *comment, const char *name,
                      const char *macro, const char *out, const char *hdr, char *text, size_t tl,
                      char *header, size_t hl) {
  int i;
  for (i = 0; comment[i]; ++i)
    if (comment[i] == '*' && comment[i + 1] == '/') comment[i] = '?';
  if (bmmt_format_text(rules, n, comment, text, tl) >= tl ||
      bmmt_format_header(rules, n, name, macro, comment, header, hl) >= hl) {
    fprintf(stderr, "bmm-tune: table text too long\n");
    return -1;
  }
  return bmmt__write(out, text) < 0 || bmmt__write(hdr, header) < 0 ? -1 : 0;
}

/* ---- main ---------------------------------------------------------------------- */

#if defined(BMM_TUNE_CUDA) && !defined(BMM_TUNE_MODEL)
static int bmmt_cuda_driver(bmmt_driver *d); /* tools/bmm_tune_cuda.cu */
#endif
#ifdef BMM_TUNE_MODEL
/* tools/model/tune_model.h: arch 90 or 80 (the model's parts), table_arch the
   default table it replaces (90, 80 or 0 for the generic one) */
static int bmmt_model_driver(bmmt_driver *d, int arch, int table_arch);
/* notes where a rule's choice rests on a point the model is known weak at */
static void bmmt_model_caveats(bmm_table_rule *rules, int n, const bmmt_point *pts, int npts);
static int bmmt_model_annotate(const char *grid, const char *table);
#endif

/* --list: the grid's problems and candidate counts, nothing measured (any
   backend, no device needed): for budgeting a grid. */
static int bmmt_list(const char *path, bmm_backend be, const char *suite) {
  static bmmt_grid g;
  static bmmx_case cases[512];
  char err[256];
  int e, c, total = 0, ns = 0;
  double elems = 0, suite_elems = 0;
  if (bmmt_grid_load(path, be, &g) < 0) return 1;
  printf("%-30s %-4s %-11s %9s %11s  candidates\n", "problem", "type", "class", "batch",
         "elements");
  for (e = 0; e < g.n; ++e) {
    const bmmx_case *cs = &g.e[e].c;
    bmmt_point q;
    int n = 0;
    if (!bmmt__class(cs, &q.layout)) return 1;
    q.dtype = cs->dtype, q.m = cs->m, q.n = cs->n, q.k = cs->k, q.batch = cs->batch;
    for (c = 0; c < g.ncfg; ++c)
      n += bmmt_supports(g.cfg[c].strategy, &q);
    printf("%-30s %-4s %-11s %9lld %11lld  %d\n", cs->name, bmm_dtype_name(cs->dtype),
           bmm_layout_name(q.layout), (long long)cs->batch, (long long)bmmt__elems(cs), n);
    total += n;
    elems += (double)bmmt__elems(cs) * n;
  }
  if (strcmp(suite, "none") != 0) {
    ns = bmmx_suite_load(suite, cases, 512, err, sizeof err);
    for (e = 0; e < ns; ++e)
      if (bmmt__fit(&cases[e], g.elems, g.flops))
        suite_elems += 2.0 * (double)bmmt__elems(&cases[e]);
  }
  printf("%s: %d problems, %d configurations, %d timings (%.3g elements moved per round of "
         "calls); suite %d rows, %.3g elements per round\n",
         path, g.n, g.ncfg, total, elems, ns > 0 ? ns : 0, suite_elems);
  return 0;
}

static int bmmt__usage(void) {
  fprintf(stderr,
          "usage: bmm-tune [--cpu] [--quick] [--grid FILE] [--out FILE] [--header FILE]\n"
          "                [--suite FILE|none] [--reps N] [--tie PCT] [--max-rules N] [--seed N]\n"
          "       bmm-tune-model --model [--arch sm90|sm80|generic] [same options]\n");
  return 2;
}

/* the emulator build (tools/model/tune_model.h) has its own main and calls this */
#ifndef BMMT_MAIN
#define BMMT_MAIN main
#endif
int BMMT_MAIN(int argc, char **argv) {
  static bmmt_grid g;
  static bmmt_state S;
  static bmmt_point pts[BMMT_MAX_ENTRIES];
  static bmm_table_rule dflt[BMM_TABLE_MAX_RULES], tuned[BMM_TABLE_MAX_RULES],
      back[BMM_TABLE_MAX_RULES];
  static char text[1 << 17], header[1 << 17], comment[4096], cmd[512], summary[256];
  bmmt_driver d;
  bmmt_options opt;
  const char *grid = NULL, *out = NULL, *hdr = NULL, *suite = "bench/suite.csv";
  char load[64] = "unknown", out_buf[256], hdr_buf[256], name[64], macro[64], date[32], day[16],
       prefix[80], dev[64];
  int use_cpu = 0, quick = 0, list = 0, model = 0, model_arch = 90, reps = 5, max_rules = 0, nd = 0,
      nt, npts = 0, i, nback = 0;
  int exact = 0, within = 0;
  double tie = -1, *times, t_start = bmmt__now();
  time_t now = time(NULL);
  char *reread;

  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--cpu") == 0)
      use_cpu = 1;
    else if (strcmp(a, "--quick") == 0)
      quick = 1;
    else if (strcmp(a, "--list") == 0)
      list = 1;
    else if (strcmp(a, "--model") == 0)
      model = 1;
#ifdef BMM_TUNE_MODEL
    else if (v && strcmp(a, "--caveats") == 0) /* re-derive the notes' caveats, predict nothing */
      return bmmt_model_annotate(grid ? grid : "tools/grids/cuda_model.txt", v);
#endif
    else if (v && strcmp(a, "--arch") == 0) {
      model_arch = strcmp(v, "sm90") == 0      ? 90
                   : strcmp(v, "sm80") == 0    ? 80
                   : strcmp(v, "generic") == 0 ? 0
                                               : -1;
      ++i;
      if (model_arch < 0) return bmmt__usage();
    } else if (v && strcmp(a, "--grid") == 0)
      grid = v, ++i;
    else if (v && strcmp(a, "--out") == 0)
      out = v, ++i;
    else if (v && strcmp(a, "--header") == 0)
      hdr = v, ++i;
    else if (v && strcmp(a, "--suite") == 0)
      suite = v, ++i;
    else if (v && strcmp(a, "--reps") == 0)
      reps = atoi(v), ++i;
    else if (v && strcmp(a, "--tie") == 0)
      tie = atof(v), ++i;
    else if (v && strcmp(a, "--max-rules") == 0)
      max_rules = atoi(v), ++i;
    else if (v && strcmp(a, "--seed") == 0)
      S.seed = (uint64_t)strtoull(v, NULL, 10), ++i;
    else
      return bmmt__usage();
  }
  if (reps < 1 || reps > 64 || tie < -1 || max_rules < 0 || max_rules > BMM_TABLE_MAX_RULES)
    return bmmt__usage();
  if (!S.seed) S.seed = 12345;

#ifndef BMM_TUNE_MODEL
  if (model) {
    fprintf(stderr, "bmm-tune: --model needs build/bmm-tune-model (the emulator build of the "
                    "tuner, tools/model/model.ninja)\n");
    return 2;
  }
#else
  if (!model && !list) {
    fprintf(stderr, "bmm-tune-model: ranks by the model only: pass --model\n");
    return 2;
  }
#endif
#ifndef BMM_TUNE_CUDA
  if (!use_cpu && !list) /* no GPU backend in this build: the CPU is what it can tune */
    fprintf(stderr, "bmm-tune: CPU build: tuning the CPU (build/bmm-tune-cuda tunes the GPU)\n");
  if (!list) use_cpu = 1;
#endif
  if (list) {
    if (!grid)
      grid = use_cpu ? (quick ? "tools/grids/cpu_quick.txt" : "tools/grids/cpu.txt")
                     : (quick ? "tools/grids/cuda_quick.txt" : "tools/grids/cuda.txt");
    return bmmt_list(grid, use_cpu ? BMM_BACKEND_CPU : BMM_BACKEND_CUDA, suite);
  }
#ifdef BMM_TUNE_MODEL
  if (bmmt_model_driver(&d, model_arch ? model_arch : 80, model_arch) != 0) return 1;
  use_cpu = 0;
#elif defined(BMM_TUNE_CUDA)
  if (!use_cpu && bmmt_cuda_driver(&d) != 0) return 1;
#endif
  if (use_cpu) bmmt__cpu_driver(&d);
  S.d = &d, S.be = d.backend, S.reps = reps, S.tty = isatty(2);
  /* a timed loss under 3% may be noise; a predicted one is not */
  S.keep = d.predict ? 1.0 : 1.03;
  if (d.predict) S.reps = reps = 1;
  /* CPU times scatter by a few percent from run to run (GPU event times far
     less): a rule should not hang on a difference smaller than that */
  if (tie < 0) tie = S.be == BMM_BACKEND_CPU ? 3.0 : 1.0;
  if (!grid)
    grid = use_cpu ? (quick ? "tools/grids/cpu_quick.txt" : "tools/grids/cpu.txt")
           : model ? (quick ? "tools/grids/cuda_model_quick.txt" : "tools/grids/cuda_model.txt")
           : quick ? "tools/grids/cuda_quick.txt"
                   : "tools/grids/cuda.txt";
  if (S.be == BMM_BACKEND_CPU) {
    snprintf(name, sizeof name, "bmm_tuned_cpu");
    snprintf(macro, sizeof macro, "BMM_CPU_TABLE");
  } else {
    snprintf(name, sizeof name, "bmm_tuned_sm%d", d.arch);
    snprintf(macro, sizeof macro, "%s",
             d.arch == 90                   ? "BMM_CUDA_TABLE_SM90"
             : d.arch >= 80 && d.arch <= 89 ? "BMM_CUDA_TABLE_SM80"
                                            : "BMM_CUDA_TABLE_GENERIC");
  }
  if (!out) snprintf(out_buf, sizeof out_buf, "%s.txt", name), out = out_buf;
  if (!hdr) {
    size_t n = strlen(out);
    snprintf(hdr_buf, sizeof hdr_buf, "%.*s.h",
             (int)(n > 4 && strcmp(out + n - 4, ".txt") == 0 ? n - 4 : n), out);
    hdr = hdr_buf;
  }
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  strftime(day, sizeof day, "%Y-%m-%d", gmtime(&now));
  for (i = 0; i < argc; ++i)
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s%s", i ? " " : "", argv[i]);
  bmmt__sanitize(d.device);
  snprintf(dev, sizeof dev, "%.48s", d.device);
  bmmt__sanitize(dev);
  snprintf(prefix, sizeof prefix, "bmm-tune %.10s %.48s", day, dev);
#ifdef BMM_TUNE_MODEL
  /* issue 20: every rule of a table the model chose says so until a GPU
     measures it */
  snprintf(prefix, sizeof prefix, "model v%d%s, not measured", BMM_MODEL_VERSION, bmm_model_form());
#endif

  {
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fgets(load, sizeof load, f)) load[strcspn(load, " \n")] = 0;
    if (f) fclose(f);
    if (S.be == BMM_BACKEND_CPU && atof(load) > 0.5 * (double)sysconf(_SC_NPROCESSORS_ONLN))
      fprintf(stderr,
              "bmm-tune: warning: load average %s on %ld cores: other work will inflate "
              "and scatter the CPU timings (and a parallel kernel waits for descheduled "
              "threads); tune on an idle machine\n",
              load, (long)sysconf(_SC_NPROCESSORS_ONLN));
  }
  if (bmm_table_get(S.be, d.arch, dflt, BMM_TABLE_MAX_RULES, &nd) != BMM_OK) {
    fprintf(stderr, "bmm-tune: cannot read the default table: %s\n", bmm_last_error());
    return 1;
  }
  if (getenv("BMM_TABLE_FILE"))
    fprintf(stderr, "bmm-tune: note: BMM_TABLE_FILE is set: the 'default' compared against is "
                    "that file's table\n");
  if (bmmt_grid_load(grid, S.be, &g) < 0) return 1;
  { /* f32 problems first, then f64: the random data is drawn once per dtype */
    int a = 0, b;
    for (b = BMM_F32; b < BMM_DTYPE_COUNT; ++b)
      for (i = 0; i < g.n; ++i)
        if (g.e[i].c.dtype == (bmm_dtype)b) {
          bmmt_entry x = g.e[i];
          memmove(&g.e[a + 1], &g.e[a], (size_t)(i - a) * sizeof x);
          g.e[a++] = x;
        }
  }
  fprintf(stderr, "bmm-tune: %s, grid %s: %d problems x %d configurations\n", d.device, grid, g.n,
          g.ncfg);
  {
    static bmmx_case cs[BMMT_MAX_ENTRIES];
    for (i = 0; i < g.n; ++i)
      cs[i] = g.e[i].c;
    if (bmmt__alloc(&S, cs, g.n) < 0) return 1;
  }
  times = (double *)calloc((size_t)g.n * (size_t)g.ncfg + 1, sizeof *times);
  if (!times) return 1;
  if (strcmp(suite, "none") != 0) S.work_total = bmmt_suite_weight(suite, &g);
  S.t0 = bmmt__now();
  if (bmmt_measure(&S, &g, pts, &npts, times) < 0) return 1;

  opt.backend = S.be, opt.tie = tie / 100.0, opt.max_rules = max_rules, opt.note = prefix;
  {
    static bmm_table_rule tail[BMM_TABLE_MAX_RULES];
    char names[96];
    unsigned measured = bmmt_measured_dtypes(pts, npts);
    int ntail = bmmt_default_tail(dflt, nd, measured, tail), budget;
    /* room for the default's rules and a few of the suite's overrides */
    budget = (max_rules ? max_rules : BMM_TABLE_MAX_RULES) - ntail - (ntail ? 8 : 0);
    if (ntail && budget < 4) {
      fprintf(stderr,
              "bmm-tune: the default's %d rules for the dtypes the grid leaves out "
              "leave too few rules for the grid's (%d): --max-rules or a grid with "
              "every dtype\n",
              ntail, budget);
      return 1;
    }
    if (ntail) opt.max_rules = budget;
    nt = bmmt_compress(pts, npts, g.cfg, g.ncfg, times, &opt, tuned, BMM_TABLE_MAX_RULES);
    if (nt >= 1 && ntail) {
      tuned[nt - 1].dtypes = measured; /* the grid's catch-all, for its dtypes */
      memcpy(tuned + nt, tail, (size_t)ntail * sizeof *tail);
      nt += ntail;
      fprintf(stderr,
              "bmm-tune: the grid measured %s only: %d rules of the default table keep "
              "the other dtypes\n",
              bmm__dtype_names(measured, names, sizeof names), ntail);
    }
  }
  if (nt < 1) {
    fprintf(stderr, "bmm-tune: compression failed\n");
    return 1;
  }

  /* the library must pick, at every grid problem, the rule bmmt_eval says */
  if (bmm_set_table(S.be, tuned, nt) != BMM_OK) {
    fprintf(stderr, "bmm-tune: the tuned table is invalid: %s\n", bmm_last_error());
    return 1;
  }
  for (i = 0; i < g.n; ++i) {
    const bmmt_point *q = &pts[g.e[i].point];
    bmm_table_rule cfg;
    int rule = -1, w = bmmt_pick(g.cfg, g.ncfg, times + (size_t)g.e[i].point * (size_t)g.ncfg, 0);
    int c;
    if (!bmmt__choice(&S, &g.e[i].c, &cfg, &rule) || rule != bmmt_eval(tuned, nt, q)) {
      fprintf(stderr, "bmm-tune: internal error: library picks rule %d at %s, bmmt_eval %d\n", rule,
              g.e[i].c.name, bmmt_eval(tuned, nt, q));
      return 1;
    }
    if (w < 0) continue;
    c = bmmt_find_config(g.cfg, g.ncfg, &cfg);
    if (c == w)
      ++exact;
    else if (c >= 0 && times[(size_t)g.e[i].point * (size_t)g.ncfg + (size_t)c] <=
                           times[(size_t)g.e[i].point * (size_t)g.ncfg + (size_t)w] * (1 + opt.tie))
      ++within;
  }
  printf("bmm-tune: %d grid points, %d configurations -> %d rules; of the %d grid problems the "
         "table gives %d the fastest configuration, %d one within %.1f%%, %d another\n",
         npts, g.ncfg, nt, g.n, exact, within, tie, g.n - exact - within);

  /* the grid's table on disk before the suite's validation, which checks
     each suite row's results on the host and can take minutes: a run cut off
     there still leaves a table (H100, 2026-11-26: gpu_check's tune step timed
     out in it with nothing written); rewritten below when it finishes */
  if (strcmp(suite, "none") != 0) {
    snprintf(comment, sizeof comment,
             "bmm threshold table (%s backend) written by bmm-tune\n"
             "device: %s\ndate: %s\ncommand: %s\n"
             "grid: %s: %d problems, %d points, %d configurations; measured in %.0f s\n"
             "validation: NOT RUN: written when the grid was measured; the suite's validation "
             "rewrites this file when it finishes",
             bmm_backend_name(S.be), d.device, date, cmd, grid, g.n, npts, g.ncfg,
             bmmt__now() - t_start);
    if (bmmt__save(tuned, nt, comment, name, macro, out, hdr, text, sizeof text, header,
                   sizeof header) == 0)
      fprintf(stderr, "bmm-tune: wrote %s and %s (the grid's table; validating it now)\n", out,
              hdr);
  }

  summary[0] = 0;
  if (strcmp(suite, "none") != 0 &&
      bmmt_validate(&S, suite, &g, dflt, nd, tuned, &nt, prefix, summary, sizeof summary) < 0)
    return 1;
  bmm_set_table(S.be, NULL, 0);
#ifdef BMM_TUNE_MODEL
  bmmt_model_caveats(tuned, nt, pts, npts);
#endif

  snprintf(comment, sizeof comment,
           "bmm threshold table (%s backend) written by bmm-tune\n"
           "device: %s\n"
           "date: %s\n"
           "command: %s\n"
           "grid: %s: %d problems, %d points, %d configurations, tie %.1f%%, %d samples per "
           "median; measured in %.0f s\n"
           "validation: %s\n"
           "wrong results (disqualified): %d\n"
           "first match wins; each note says at how many grid points its rule is the first match",
           bmm_backend_name(S.be), d.device, date, cmd, grid, g.n, npts, g.ncfg, tie, reps,
           bmmt__now() - t_start, summary[0] ? summary : "skipped (--suite none)", S.nbad);
  for (i = 0; i < S.nbad; ++i)
    snprintf(comment + strlen(comment), sizeof comment - strlen(comment), "\n  %s", S.bad[i]);
  if (d.predict)
    snprintf(comment + strlen(comment), sizeof comment - strlen(comment),
             "\nPREDICTED, NOT MEASURED: every time above is the model's (--model: "
             "tools/model/bmm_model.h on emulated traces, 2 blocks per launch); no GPU ran and no "
             "result was checked here (the emulator tests check them)");
  if (S.be == BMM_BACKEND_CPU)
    snprintf(comment + strlen(comment), sizeof comment - strlen(comment),
             "\nload average at start: %s (other work on the machine inflates and scatters "
             "CPU times)",
             load);
  if (bmmt__save(tuned, nt, comment, name, macro, out, hdr, text, sizeof text, header,
                 sizeof header) < 0)
    return 1;
  reread = bmmt__read_all(out);
  if (!reread || bmm_table_parse(reread, back, BMM_TABLE_MAX_RULES, &nback) != BMM_OK ||
      nback != nt || !bmmt_rules_equal(back, tuned, nt)) {
    fprintf(stderr, "bmm-tune: %s does not parse back to the same table: %s\n", out,
            bmm_last_error());
    return 1;
  }
  free(reread);
  printf("\n%s", text + strlen(text) - bmm_table_format(tuned, nt, NULL, 0));
  printf("\nwrote %s (parses back to the same %d rules) and %s (#define %s %s); %.1f s in all\n",
         out, nt, hdr, macro, name, bmmt__now() - t_start);
  bmmt__free(&S);
  free(times);
  return 0;
}
