/* tools/tune_compress.h - the tuner's deterministic half: from a timing matrix
   (grid points x candidate configurations) to a short ordered rule table, and
   the writers of that table (bmm text format, C header). No clock, no device,
   no allocation that depends on anything but the inputs: the same timings give
   byte-identical output, which tests/test_tune.c checks on synthetic data.
   Include after bmm.h with BMM_IMPLEMENTATION. C99; compiles as C++ (the CUDA
   tuner includes it).

   A configuration is a bmm_table_rule of which only the strategy and the six
   tunables count (its ranges and note are ignored). times[p * ncfg + c] is
   the time of configuration c at point p; anything not finite or <= 0 means
   "did not run there" (unsupported, wrong result, not compiled).

   The compression, per group of points sharing (dtype, layout class):
   1. winner per point: the fastest configuration; every configuration within
      `tie` (relative) of it counts as tied. bmmt_pick gives ties to the first
      in the fixed configuration order (strategy enum order, then tunables,
      smaller first: the defaults win ties); the compression first prefers,
      among the tied, the one tied at most points of the group
      (bmmt_smooth_pick), so that timing noise does not split a region.
   2. each point starts as a box holding just itself; boxes of the same
      winner are merged greedily (fixed order) into their bounding box as
      long as that box holds no point won by another configuration.
   3. the configuration winning most points of the group becomes the group's
      default (all ranges `*`, after the group's boxes); every other box
      grows, axis by axis (batch, m, n, k), only as far as the grid's
      evidence carries it (bmmt__grow): through the points of its own
      configuration that it would take in, then halfway (geometric mean) to
      the nearest other point beyond, a point beside the box counting at its
      distance from it; open (lo 0 / hi unbounded) only past the group's
      last value on that axis (the batch axis: see bmmt__grow).
   4. groups with identical rule lists are joined (dtype masks, then layout
      masks). The table lists every group's boxes, then the group defaults,
      merged where one configuration is the default of groups sharing their
      dtypes or their layouts.
   5. the table ends with a catch-all: the configuration, among those whose
      strategy claims every problem, closest to the best over all points
      (geometric mean of time / best; else the backend's first such
      strategy, cpu_ref / cuda_loop); group defaults equal to it are dropped.
   6. rules that are the first match at no grid point are dropped; while the
      table is over max_rules, the rule whose removal costs least (summed
      relative slowdown over the points) goes. */
#ifndef BMM_TUNE_COMPRESS_H
#define BMM_TUNE_COMPRESS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bmmt_point {
  bmm_dtype dtype;
  bmm_layout layout; /* the class validation derives, not the bmmx layout */
  int64_t m, n, k, batch;
} bmmt_point;

typedef struct bmmt_options {
  bmm_backend backend; /* which strategies may form the catch-all */
  double tie;          /* relative: 0.01 = within 1% of the best is a tie */
  int max_rules;       /* 0 = BMM_TABLE_MAX_RULES */
  const char *note;    /* provenance prefix of every rule's note */
} bmmt_options;

#define BMMT_AXES 4
#define BMMT__BATCH 3 /* the axis index of batch (m, n, k, batch) */

static inline int64_t *bmmt__lo(bmm_table_rule *r, int axis) {
  return axis == 0 ? &r->m_min : axis == 1 ? &r->n_min : axis == 2 ? &r->k_min : &r->batch_min;
}
static inline int64_t *bmmt__hi(bmm_table_rule *r, int axis) {
  return axis == 0 ? &r->m_max : axis == 1 ? &r->n_max : axis == 2 ? &r->k_max : &r->batch_max;
}
static inline int64_t bmmt__coord(const bmmt_point *p, int axis) {
  return axis == 0 ? p->m : axis == 1 ? p->n : axis == 2 ? p->k : p->batch;
}

/* The fixed order of configurations: strategy, then the tunables ascending
   (in BMM_TUNABLES' order). */
static inline int bmmt_config_cmp(const bmm_table_rule *a, const bmm_table_rule *b) {
  if (a->strategy != b->strategy) return (int)a->strategy < (int)b->strategy ? -1 : 1;
#define BMMT__CMP(name) \
  if (a->name != b->name) return a->name < b->name ? -1 : 1;
  BMM_TUNABLES(BMMT__CMP)
#undef BMMT__CMP
  return 0;
}

static inline void bmmt_config_of(const bmm_table_rule *src, bmm_table_rule *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->strategy = src->strategy;
#define BMMT__COPY(name) cfg->name = src->name;
  BMM_TUNABLES(BMMT__COPY)
#undef BMMT__COPY
}

static inline int bmmt_time_ok(double t) { return t > 0 && t < HUGE_VAL; }

/* Winner of one point (times[0..ncfg)): index, or -1 when nothing ran. */
static inline int bmmt_pick(const bmm_table_rule *cfgs, int ncfg, const double *times, double tie) {
  double best = HUGE_VAL;
  int c, w = -1;
  for (c = 0; c < ncfg; ++c)
    if (bmmt_time_ok(times[c]) && times[c] < best) best = times[c];
  if (best == HUGE_VAL) return -1;
  for (c = 0; c < ncfg; ++c)
    if (bmmt_time_ok(times[c]) && times[c] <= best * (1.0 + tie) &&
        (w < 0 || bmmt_config_cmp(&cfgs[c], &cfgs[w]) < 0))
      w = c;
  return w;
}

/* Is configuration c tied with the fastest at point p? */
static inline int bmmt__tied(const double *times, int ncfg, int p, int c, double tie) {
  const double *t = times + (size_t)p * (size_t)ncfg;
  double best = HUGE_VAL;
  int o;
  for (o = 0; o < ncfg; ++o)
    if (bmmt_time_ok(t[o]) && t[o] < best) best = t[o];
  return bmmt_time_ok(t[c]) && t[c] <= best * (1.0 + tie);
}

/* The winner the compression uses at point p: of the configurations tied
   with the fastest there, the one tied at the most points of p's group (same
   dtype and layout class), then the fixed order. Noise then cannot split a
   region that one configuration serves within the tolerance. -1: nothing ran. */
static inline int bmmt_smooth_pick(const bmmt_point *pts, int npts, const bmm_table_rule *cfgs,
                                   int ncfg, const double *times, double tie, int p) {
  int c, q, w = -1, wn = 0;
  for (c = 0; c < ncfg; ++c) {
    int n = 0;
    if (!bmmt__tied(times, ncfg, p, c, tie)) continue;
    for (q = 0; q < npts; ++q)
      n += pts[q].dtype == pts[p].dtype && pts[q].layout == pts[p].layout &&
           bmmt__tied(times, ncfg, q, c, tie);
    if (w < 0 || n > wn || (n == wn && bmmt_config_cmp(&cfgs[c], &cfgs[w]) < 0)) w = c, wn = n;
  }
  return w;
}

/* The point as the plan bmm.h's matching reads (dtype, layout, sizes). */
static inline bmm_plan bmmt__plan(const bmmt_point *p) {
  bmm_plan pl;
  memset(&pl, 0, sizeof pl);
  pl.dtype = p->dtype, pl.layout = p->layout;
  pl.m = p->m, pl.n = p->n, pl.k = p->k, pl.batch = p->batch;
  return pl;
}

/* Does a rule's masks and ranges admit the point (bmm_rule_matches)? */
static inline int bmmt_rule_admits(const bmm_table_rule *r, const bmmt_point *p) {
  const bmm_plan pl = bmmt__plan(p);
  return bmm_rule_matches(r, &pl);
}

static inline int bmmt_supports(bmm_strategy s, const bmmt_point *p) {
  const bmm_plan pl = bmmt__plan(p);
  return bmm_strategy_supports(s, &pl);
}

/* The rule a table picks for a point: bmm_table_lookup, the library's own
   first-match-whose-strategy-claims-it. */
static inline int bmmt_eval(const bmm_table_rule *rules, int n, const bmmt_point *p) {
  const bmm_plan pl = bmmt__plan(p);
  return bmm_table_lookup(rules, n, &pl);
}

/* Index of the configuration equal to rule r, or -1. */
static inline int bmmt_find_config(const bmm_table_rule *cfgs, int ncfg, const bmm_table_rule *r) {
  int c;
  for (c = 0; c < ncfg; ++c)
    if (bmmt_config_cmp(&cfgs[c], r) == 0) return c;
  return -1;
}

static inline int bmmt_claims_all(bmm_strategy s) {
  switch (s) {
#define BMMT__X(E, name, l, mm, mn, mk, cf, d) \
  case BMM_##E:                                \
    return (l) == BMM_L_ALL && (mm) == 0 && (mn) == 0 && (mk) == 0 && !((cf)&BMM_CLAIM_HALVES_ONLY);
    BMM_CPU_STRATEGIES(BMMT__X)
    BMM_CUDA_STRATEGIES(BMMT__X)
#undef BMMT__X
  default: return 0;
  }
}

/* The backend's first strategy (list order) that claims every problem. */
static inline bmm_strategy bmmt_default_catch_all(bmm_backend be) {
  int s;
  for (s = 1; s < BMM_STRATEGY_COUNT; ++s)
    if (bmm_strategy_backend((bmm_strategy)s) == be && bmmt_claims_all((bmm_strategy)s))
      return (bmm_strategy)s;
  return BMM_STRATEGY_AUTO;
}

/* ---- compression --------------------------------------------------------- */

typedef struct bmmt__item {
  bmmt_point p;
  int has;            /* a configuration ran here */
  bmm_table_rule cfg; /* its winner */
} bmmt__item;

static inline int bmmt__cmp64(int64_t a, int64_t b) { return a < b ? -1 : a > b ? 1 : 0; }

static inline int bmmt__item_cmp(const void *x, const void *y) {
  const bmmt__item *a = (const bmmt__item *)x, *b = (const bmmt__item *)y;
  int c, ax;
  if (a->p.layout != b->p.layout) return a->p.layout < b->p.layout ? -1 : 1;
  if (a->p.dtype != b->p.dtype) return a->p.dtype < b->p.dtype ? -1 : 1;
  for (ax = 0; ax < BMMT_AXES; ++ax)
    if ((c = bmmt__cmp64(bmmt__coord(&a->p, ax), bmmt__coord(&b->p, ax))) != 0) return c;
  if (a->has != b->has) return a->has < b->has ? -1 : 1;
  return bmmt_config_cmp(&a->cfg, &b->cfg);
}

static inline int bmmt__box_holds(const bmm_table_rule *box, const bmmt_point *p) {
  int a;
  for (a = 0; a < BMMT_AXES; ++a) {
    int64_t v = bmmt__coord(p, a);
    if (v < *bmmt__lo((bmm_table_rule *)box, a) || v > *bmmt__hi((bmm_table_rule *)box, a))
      return 0;
  }
  return 1;
}

static inline int bmmt__rule_cmp(const bmm_table_rule *a, const bmm_table_rule *b) {
  int c = bmmt_config_cmp(a, b), ax;
  if (c) return c;
  for (ax = 0; ax < BMMT_AXES; ++ax) {
    if ((c = bmmt__cmp64(*bmmt__lo((bmm_table_rule *)a, ax), *bmmt__lo((bmm_table_rule *)b, ax))))
      return c;
    if ((c = bmmt__cmp64(*bmmt__hi((bmm_table_rule *)a, ax), *bmmt__hi((bmm_table_rule *)b, ax))))
      return c;
  }
  return 0;
}

/* Rules of one group: box rules then the group default (masks set by caller). */
typedef struct bmmt__group {
  unsigned dtypes, layouts;
  int dflt; /* the last rule is the group default (not the catch-all's config) */
  int nrules;
  bmm_table_rule *rules;
  int alive;
} bmmt__group;

static inline int bmmt__same_rules(const bmmt__group *a, const bmmt__group *b) {
  int i, ax;
  if (a->nrules != b->nrules) return 0;
  for (i = 0; i < a->nrules; ++i) {
    if (bmmt_config_cmp(&a->rules[i], &b->rules[i])) return 0;
    for (ax = 0; ax < BMMT_AXES; ++ax)
      if (*bmmt__lo(&a->rules[i], ax) != *bmmt__lo(&b->rules[i], ax) ||
          *bmmt__hi(&a->rules[i], ax) != *bmmt__hi(&b->rules[i], ax))
        return 0;
  }
  return 1;
}

/* Is w inside the box's extent on axis b (an edge 0 is open)? */
static inline int bmmt__within(const bmm_table_rule *r, int b, int64_t w) {
  int64_t lo = *bmmt__lo((bmm_table_rule *)r, b), up = *bmmt__hi((bmm_table_rule *)r, b);
  return w >= lo && (!up || w <= up);
}

/* Where a point lies beside the box, on the axes other than a: 0 when the
   box would take it in; else how far off it is, the largest ratio over m, n
   and k (1 when it is off on the batch axis alone). */
static inline long double bmmt__aside(const bmm_table_rule *r, int a, const bmmt_point *q) {
  long double far = 1;
  int b, in = 1;
  for (b = 0; b < BMMT_AXES; ++b) {
    int64_t w = bmmt__coord(q, b), lo = *bmmt__lo((bmm_table_rule *)r, b),
            up = *bmmt__hi((bmm_table_rule *)r, b);
    long double off = w < lo         ? (w > 0 ? (long double)lo / (long double)w : HUGE_VALL)
                      : up && w > up ? (long double)w / (long double)up
                                     : 1;
    if (b == a || off == 1) continue;
    in = 0;
    if (b != BMMT__BATCH && off > far) far = off;
  }
  return in ? 0 : far;
}

/* The edge halfway (geometric mean) from own, the box's outermost own value,
   to a wall at w beyond it (not always a whole number): the last value
   before the midpoint (hi: floor(sqrt(own w)), at least own, under w) or the
   first after it (lo), without overflow; a border between two grid values
   that splits powers of two evenly (16 | 22 | 32). */
static inline int64_t bmmt__half_to(int64_t own, long double w, int hi) {
  long double prod = (long double)own * w;
  int64_t r;
  if (!(prod < 1e36L)) return 0; /* a wall past any int64 size: none (open) */
  r = (int64_t)sqrtl(prod);
  while (r > 0 && (long double)r * (long double)r > prod)
    --r;
  while ((long double)(r + 1) * (long double)(r + 1) <= prod)
    ++r;
  if (hi) {
    if (r < own) r = own;
    while (r > own && (long double)r >= w)
      --r;
    return r;
  }
  if (++r > own) r = own;
  while (r < own && (long double)r <= w)
    ++r;
  return r;
}

/* Grow one edge of a rule's box (axis a, hi or lo) only as far as the grid's
   evidence carries it. From the box's outermost own point outwards, value by
   value of the group's points: a point that the box would take in (inside on
   the other axes) and that its own configuration won carries the edge
   through it; any other point beyond is a wall, and the edge stops halfway
   (geometric mean) to the nearest one. A point beside the box is a wall at
   its distance from it, the largest ratio over m, n and k: a point twice as
   far aside as it is ahead counts as twice as far ahead, so that square32's
   box is bounded by square16 and square64, not by the seed's K = 31 and 34
   at m = 3, n = 1. The edge opens (0 / unbounded) only where no point of the
   group lies beyond it: the rule is then the last word there. What the boxes
   leave goes to the group's default (ranges `*`).
   Why: until 2026-11-28 only points inside on the other axes were walls and
   an edge with none opened; a box grown from one grid point has almost none
   on the axes grown first, so on the H200 square32's cuBLAS box opened m and
   n to `*` with no evidence and took the seed 3x1xK at K = 31..33 (8-11% of
   copy, 7-9x slower than the default's pick; bench/notes/tune.md). The batch
   axis keeps that rule (walls only inside on m, n, k; none: open): the grid
   ties each shape's batch to its size (~E elements), so another shape's
   batch says nothing about this one, and stopping at it would leave e.g. the
   suite's 3x1x25 at batch 10^6 (the grid's: 1.6e5) to the group's default. */
static inline void bmmt__grow(bmm_table_rule *r, int a, int hi, const bmmt__item *it, int n) {
  int64_t own = hi ? 0 : INT64_MAX, at;
  long double wall = 0;
  int p, walled = 0;
  for (p = 0; p < n; ++p) {
    int64_t v = bmmt__coord(&it[p].p, a);
    if (it[p].has && bmmt_config_cmp(&it[p].cfg, r) == 0 && bmmt__within(r, a, v) &&
        bmmt__aside(r, a, &it[p].p) == 0)
      own = hi ? (v > own ? v : own) : (v < own ? v : own);
  }
  if (own == (hi ? 0 : INT64_MAX)) return; /* no own point inside: keep the edge */
  for (at = own;;) {                       /* the next value beyond, nearest first */
    int64_t v = hi ? INT64_MAX : 0;
    int found = 0, carry = 0, blocked = 0;
    for (p = 0; p < n; ++p) {
      int64_t w = bmmt__coord(&it[p].p, a);
      if (it[p].has && (a != BMMT__BATCH || bmmt__aside(r, a, &it[p].p) == 0) &&
          (hi ? w > at && w < v : w < at && w > v))
        v = w, found = 1;
    }
    if (!found || (walled && (hi ? wall <= (long double)v : wall >= (long double)v))) break;
    for (p = 0; p < n; ++p)
      if (it[p].has && bmmt__coord(&it[p].p, a) == v && bmmt__aside(r, a, &it[p].p) == 0) {
        if (bmmt_config_cmp(&it[p].cfg, r) == 0)
          carry = 1;
        else
          blocked = 1;
      }
    if (carry && !blocked) { /* own evidence: what it passed lies behind the edge now */
      own = at = v, walled = 0;
      continue;
    }
    for (p = 0; p < n; ++p) { /* walls at v, each at its distance from the box */
      long double ahead, far, w;
      if (!it[p].has || bmmt__coord(&it[p].p, a) != v) continue;
      ahead = hi ? (long double)v / (long double)own : (long double)own / (long double)v;
      far = bmmt__aside(r, a, &it[p].p);
      if (a == BMMT__BATCH && far != 0) continue;
      w = far <= ahead ? (long double)v : hi ? (long double)own * far : (long double)own / far;
      if (!walled || (hi ? w < wall : w > wall)) wall = w, walled = 1;
    }
    at = v;
  }
  if (hi)
    *bmmt__hi(r, a) = walled ? bmmt__half_to(own, wall, 1) : 0;
  else
    *bmmt__lo(r, a) = walled ? bmmt__half_to(own, wall, 0) : 0;
}

/* Build one group's rules from its sorted items. Returns the rule count; rules
   must hold n + 1 entries. The last rule is the group default (ranges `*`). */
static inline int bmmt__group_rules(const bmmt__item *it, int n, bmm_table_rule *rules, int *wins) {
  static const int grow_order[BMMT_AXES] = {3, 0, 1, 2}; /* batch matters least */
  int nr = 0, i, j, a, changed;
  for (i = 0; i < n; ++i) { /* one box per point that has a winner: the point itself */
    if (!it[i].has) continue;
    rules[nr] = it[i].cfg;
    for (a = 0; a < BMMT_AXES; ++a)
      *bmmt__lo(&rules[nr], a) = *bmmt__hi(&rules[nr], a) = bmmt__coord(&it[i].p, a);
    wins[nr++] = 1;
  }
  do { /* greedy merge, fixed order: lowest index pair first, repeat to a fixpoint */
    changed = 0;
    for (i = 0; i < nr; ++i)
      for (j = i + 1; j < nr; ++j) {
        bmm_table_rule u;
        int p, ok = 1;
        if (bmmt_config_cmp(&rules[i], &rules[j])) continue;
        u = rules[i];
        for (a = 0; a < BMMT_AXES; ++a) {
          if (*bmmt__lo(&rules[j], a) < *bmmt__lo(&u, a))
            *bmmt__lo(&u, a) = *bmmt__lo(&rules[j], a);
          if (*bmmt__hi(&rules[j], a) > *bmmt__hi(&u, a))
            *bmmt__hi(&u, a) = *bmmt__hi(&rules[j], a);
        }
        for (p = 0; p < n && ok; ++p)
          if (it[p].has && bmmt_config_cmp(&it[p].cfg, &u) && bmmt__box_holds(&u, &it[p].p)) ok = 0;
        if (!ok) continue;
        rules[i] = u;
        wins[i] += wins[j];
        memmove(&rules[j], &rules[j + 1], (size_t)(nr - j - 1) * sizeof *rules);
        memmove(&wins[j], &wins[j + 1], (size_t)(nr - j - 1) * sizeof *wins);
        --nr, --j, changed = 1;
      }
  } while (changed);
  if (nr == 0) return 0;
  { /* the group default: the configuration with most points (ties: fixed order) */
    int best = 0, bestw = 0, c;
    bmm_table_rule d;
    for (i = 0; i < nr; ++i) {
      int w = 0;
      for (c = 0; c < nr; ++c)
        if (bmmt_config_cmp(&rules[c], &rules[i]) == 0) w += wins[c];
      if (w > bestw || (w == bestw && bmmt_config_cmp(&rules[i], &rules[best]) < 0))
        best = i, bestw = w;
    }
    bmmt_config_of(&rules[best], &d);
    for (i = 0, c = 0; i < nr; ++i)
      if (bmmt_config_cmp(&rules[i], &d)) rules[c++] = rules[i];
    nr = c;
    for (i = 0; i < nr; ++i)
      for (a = 0; a < BMMT_AXES; ++a) {
        bmmt__grow(&rules[i], grow_order[a], 0, it, n);
        bmmt__grow(&rules[i], grow_order[a], 1, it, n);
      }
    for (i = 1; i < nr; ++i) /* fixed order inside the group */
      for (j = i; j > 0 && bmmt__rule_cmp(&rules[j], &rules[j - 1]) < 0; --j) {
        bmm_table_rule t = rules[j];
        rules[j] = rules[j - 1], rules[j - 1] = t;
      }
    rules[nr++] = d;
  }
  return nr;
}

/* Summed relative slowdown of a table over the points (choice / best - 1); a
   choice that did not run at a point costs `miss`. */
static inline double bmmt_table_cost(const bmm_table_rule *rules, int nr, const bmmt_point *pts,
                                     int npts, const bmm_table_rule *cfgs, int ncfg,
                                     const double *times, double miss) {
  double cost = 0;
  int p, c;
  for (p = 0; p < npts; ++p) {
    const double *t = times + (size_t)p * (size_t)ncfg;
    double best = HUGE_VAL;
    int r;
    for (c = 0; c < ncfg; ++c)
      if (bmmt_time_ok(t[c]) && t[c] < best) best = t[c];
    if (best == HUGE_VAL) continue;
    r = bmmt_eval(rules, nr, &pts[p]);
    c = r < 0 ? -1 : bmmt_find_config(cfgs, ncfg, &rules[r]);
    cost += c >= 0 && bmmt_time_ok(t[c]) ? t[c] / best - 1.0 : miss;
  }
  return cost;
}

/* Drop every rule but the last that is the first match at none of the points
   (exact: no point's choice changes). Returns the new count. */
static inline int bmmt_drop_unused(bmm_table_rule *rules, int nr, const bmmt_point *pts, int npts) {
  int *used = (int *)calloc((size_t)nr + 1, sizeof *used), i, p, c = 0;
  if (!used) return nr;
  for (p = 0; p < npts; ++p) {
    int r = bmmt_eval(rules, nr, &pts[p]);
    if (r >= 0) used[r] = 1;
  }
  for (i = 0; i < nr; ++i)
    if (used[i] || i == nr - 1) rules[c++] = rules[i];
  free(used);
  return c;
}

/* A note the text format carries unchanged: no control characters, no
   leading or trailing blanks (the parser trims them). */
static inline void bmmt__clean_note(char *note) {
  size_t i, n = strlen(note), a = 0;
  for (i = 0; i < n; ++i)
    if ((unsigned char)note[i] < 32 || note[i] == 127) note[i] = ' ';
  while (a < n && note[a] == ' ')
    ++a;
  memmove(note, note + a, n - a + 1);
  n -= a;
  while (n > 0 && note[n - 1] == ' ')
    note[--n] = 0;
}

static inline void bmmt__note(bmm_table_rule *r, const char *prefix, const char *what, int pts) {
  char s[BMM_NOTE_LEN + 64];
  size_t n;
  snprintf(s, sizeof s, "%s%s%s%d pt%s", prefix ? prefix : "", prefix && *prefix ? "; " : "", what,
           pts, pts == 1 ? "" : "s");
  n = strlen(s);
  if (n >= BMM_NOTE_LEN) n = BMM_NOTE_LEN - 1;
  memcpy(r->note, s, n);
  r->note[n] = 0;
  bmmt__clean_note(r->note);
}

/* The whole compression (see the top of this file). Writes at most max_out
   rules to out; returns their count, or -1 if out is too small or memory
   ran out. */
static inline int bmmt_compress(const bmmt_point *pts, int npts, const bmm_table_rule *cfgs,
                                int ncfg, const double *times, const bmmt_options *opt,
                                bmm_table_rule *out, int max_out) {
  bmmt__item *it = (bmmt__item *)calloc((size_t)npts + 1, sizeof *it);
  bmmt__group *g = (bmmt__group *)calloc((size_t)npts + 1, sizeof *g);
  bmm_table_rule *pool = (bmm_table_rule *)calloc((size_t)npts * 2 + 2, sizeof *pool);
  bmm_table_rule *tab = (bmm_table_rule *)calloc((size_t)npts * 2 + 2, sizeof *tab);
  int *wins = (int *)calloc((size_t)npts + 1, sizeof *wins);
  int ng = 0, i, j, used = 0, nt = 0, nbox, changed, result = -1;
  int max_rules = opt->max_rules > 0 ? opt->max_rules : BMM_TABLE_MAX_RULES;
  bmm_table_rule catch_all;
  if (!it || !g || !pool || !tab || !wins) goto done;

  for (i = 0; i < npts; ++i) {
    int w = bmmt_smooth_pick(pts, npts, cfgs, ncfg, times, opt->tie, i);
    it[i].p = pts[i];
    it[i].has = w >= 0;
    if (w >= 0) bmmt_config_of(&cfgs[w], &it[i].cfg);
  }
  qsort(it, (size_t)npts, sizeof *it, bmmt__item_cmp);

  for (i = 0; i < npts; i = j) {
    bmmt__group *gr = &g[ng];
    for (j = i; j < npts && it[j].p.layout == it[i].p.layout && it[j].p.dtype == it[i].p.dtype;
         ++j) {
    }
    gr->dtypes = BMM_DT(it[i].p.dtype), gr->layouts = 1u << it[i].p.layout;
    gr->rules = pool + used;
    gr->nrules = bmmt__group_rules(it + i, j - i, gr->rules, wins);
    used += gr->nrules;
    gr->alive = gr->nrules > 0;
    if (gr->alive) ++ng;
  }

  { /* the catch-all: of the configurations that claim every problem, the one
       closest to the best over all points (geometric mean of time / best; a
       point where it did not run counts as 10x) */
    double best_score = HUGE_VAL;
    int c, p;
    memset(&catch_all, 0, sizeof catch_all);
    catch_all.strategy = bmmt_default_catch_all(opt->backend);
    for (c = 0; c < ncfg; ++c) {
      double score = 0;
      int ran = 0;
      if (bmm_strategy_backend(cfgs[c].strategy) != opt->backend ||
          !bmmt_claims_all(cfgs[c].strategy))
        continue;
      for (p = 0; p < npts; ++p) {
        const double *t = times + (size_t)p * (size_t)ncfg;
        double best = HUGE_VAL;
        int o;
        for (o = 0; o < ncfg; ++o)
          if (bmmt_time_ok(t[o]) && t[o] < best) best = t[o];
        if (best == HUGE_VAL) continue;
        score += bmmt_time_ok(t[c]) ? log(t[c] / best) : log(10.0);
        ran += bmmt_time_ok(t[c]);
      }
      if (ran && (score < best_score ||
                  (score == best_score && bmmt_config_cmp(&cfgs[c], &catch_all) < 0)))
        best_score = score, bmmt_config_of(&cfgs[c], &catch_all);
    }
    for (i = 0; i < ng; ++i) {
      g[i].dflt = bmmt_config_cmp(&g[i].rules[g[i].nrules - 1], &catch_all) != 0;
      if (!g[i].dflt) --g[i].nrules;
    }
  }

  /* join groups whose rule lists are identical: across dtypes, then layouts */
  for (i = 0; i < ng; ++i)
    for (j = i + 1; j < ng; ++j)
      if (g[i].alive && g[j].alive && g[i].layouts == g[j].layouts &&
          bmmt__same_rules(&g[i], &g[j]))
        g[i].dtypes |= g[j].dtypes, g[j].alive = 0;
  for (i = 0; i < ng; ++i)
    for (j = i + 1; j < ng; ++j)
      if (g[i].alive && g[j].alive && g[i].dtypes == g[j].dtypes && bmmt__same_rules(&g[i], &g[j]))
        g[i].layouts |= g[j].layouts, g[j].alive = 0;

  /* every group's boxes first (each matches only its own group), then the
     group defaults, which merge where one configuration serves groups that
     share their dtypes or their layouts (the union of two such products is
     again a product: no other group's problems are taken in) */
  for (i = 0; i < ng; ++i)
    for (j = 0; g[i].alive && j < g[i].nrules - g[i].dflt; ++j) {
      tab[nt] = g[i].rules[j];
      tab[nt].dtypes = g[i].dtypes, tab[nt++].layouts = g[i].layouts;
    }
  nbox = nt;
  for (i = 0; i < ng; ++i)
    if (g[i].alive && g[i].dflt) {
      tab[nt] = g[i].rules[g[i].nrules - 1];
      tab[nt].dtypes = g[i].dtypes, tab[nt++].layouts = g[i].layouts;
    }
  do {
    changed = 0;
    for (i = nbox; i < nt; ++i)
      for (j = i + 1; j < nt; ++j)
        if (bmmt_config_cmp(&tab[i], &tab[j]) == 0 &&
            (tab[i].dtypes == tab[j].dtypes || tab[i].layouts == tab[j].layouts)) {
          tab[i].dtypes |= tab[j].dtypes, tab[i].layouts |= tab[j].layouts;
          memmove(&tab[j], &tab[j + 1], (size_t)(nt - j - 1) * sizeof *tab);
          --nt, --j, changed = 1;
        }
  } while (changed);
  for (i = 0; i < nt; ++i) {
    if (tab[i].dtypes == BMM__DT_ALL) tab[i].dtypes = 0;
    if (tab[i].layouts == BMM_L_ALL) tab[i].layouts = 0;
  }
  tab[nt++] = catch_all;

  nt = bmmt_drop_unused(tab, nt, pts, npts);
  while (nt > max_rules) { /* over budget: remove the cheapest rule to lose */
    int drop = -1;
    double best = HUGE_VAL;
    for (i = 0; i < nt - 1; ++i) {
      bmm_table_rule keep = tab[i];
      double c;
      memmove(&tab[i], &tab[i + 1], (size_t)(nt - i - 1) * sizeof *tab);
      c = bmmt_table_cost(tab, nt - 1, pts, npts, cfgs, ncfg, times, 10.0);
      memmove(&tab[i + 1], &tab[i], (size_t)(nt - i - 1) * sizeof *tab);
      tab[i] = keep;
      if (c < best) best = c, drop = i;
    }
    memmove(&tab[drop], &tab[drop + 1], (size_t)(nt - drop - 1) * sizeof *tab);
    nt = bmmt_drop_unused(tab, nt - 1, pts, npts);
  }

  for (i = 0; i < nt; ++i) { /* notes: provenance and how many points each rule takes */
    int n = 0, p;
    for (p = 0; p < npts; ++p)
      n += bmmt_eval(tab, nt, &pts[p]) == i;
    bmmt__note(&tab[i], opt->note, i == nt - 1 ? "catch-all, " : "", n);
  }
  if (nt <= max_out) {
    memcpy(out, tab, (size_t)nt * sizeof *tab);
    result = nt;
  }
done:
  free(it), free(g), free(pool), free(tab), free(wins);
  return result;
}

/* Put first a rule for exactly this dtype, layout class and (m, n, k), any
   batch, with configuration cfg: the self-validation's way to keep the default
   table's choice where the tuned one lost. Returns the new count, -1 if full.
   If the first rule is such a rule for the K just below, with the same
   configuration, it is widened to this K instead and the count returned
   unchanged: the seed sweep's K = 1..64 would otherwise spend a rule per K of
   the 64 a table holds (H200, 2026-11-28: the tuned table lost at f32
   K = 31, 32, 33, one rule stretched from one grid point). */
static inline int bmmt_insert_override(bmm_table_rule *rules, int n, int max, const bmmt_point *p,
                                       const bmm_table_rule *cfg, const char *note) {
  bmm_table_rule r;
  if (n > 0 && rules[0].dtypes == BMM_DT(p->dtype) && rules[0].layouts == 1u << p->layout &&
      p->m > 0 && rules[0].m_min == p->m && rules[0].m_max == p->m && p->n > 0 &&
      rules[0].n_min == p->n && rules[0].n_max == p->n && rules[0].k_max > 0 &&
      rules[0].k_max + 1 == p->k && rules[0].batch_min == 0 && rules[0].batch_max == 0 &&
      bmmt_config_cmp(&rules[0], cfg) == 0) {
    rules[0].k_max = p->k;
    return n;
  }
  if (n >= max) return -1;
  bmmt_config_of(cfg, &r);
  r.dtypes = BMM_DT(p->dtype);
  r.layouts = 1u << p->layout;
  r.m_min = r.m_max = p->m;
  r.n_min = r.n_max = p->n;
  r.k_min = r.k_max = p->k;
  snprintf(r.note, sizeof r.note, "%s", note ? note : "");
  bmmt__clean_note(r.note);
  memmove(&rules[1], &rules[0], (size_t)n * sizeof *rules);
  rules[0] = r;
  return n + 1;
}

/* ---- writers ------------------------------------------------------------- */

/* Text goes through bmm.h's own bounded writer (bmm__buf, bmm__put), which is
   why this header needs bmm.h's implementation before it. */
#ifndef BMM_IMPLEMENTATION
#error "tools/tune_compress.h: include it after #define BMM_IMPLEMENTATION and bmm.h"
#endif

/* Lines of text, each prefixed (`# ` for the table file, `   ` in a C comment). */
static inline void bmm__put_lines(bmm__buf *b, const char *text, const char *prefix) {
  while (text && *text) {
    const char *e = strchr(text, '\n');
    int n = e ? (int)(e - text) : (int)strlen(text);
    bmm__put(b, "%s%.*s\n", prefix, n, text);
    text += n + (e ? 1 : 0);
  }
}

/* The table file: comment lines, then bmm_table_format's text. snprintf-like. */
static inline size_t bmmt_format_text(const bmm_table_rule *rules, int n, const char *comment,
                                      char *buf, size_t len) {
  bmm__buf b;
  size_t need;
  b.p = buf, b.len = len, b.used = 0;
  if (buf && len) buf[0] = 0;
  bmm__put_lines(&b, comment, "# ");
  need = bmm_table_format(rules, n, b.used < len ? buf + b.used : NULL,
                          b.used < len ? len - b.used : 0);
  return b.used + need;
}

static inline void bmm__put_mask(bmm__buf *b, unsigned mask, int is_dtype) {
  int any = 0;
  if (!mask) {
    bmm__put(b, "0");
    return;
  }
  if (is_dtype) {
#define BMMT__X(E, name, T, sz, ...)                                \
  if (mask & BMM_DT(BMM_##E)) {                                     \
    bmm__put(b, "%sBMM_DT(BMM_%s)", any ? " | " : "", #E), any = 1; \
  }
    BMM_DTYPES(BMMT__X)
#undef BMMT__X
  } else {
#define BMMT__X(E, name, d)                                   \
  if (mask & BMM_L_##E) {                                     \
    bmm__put(b, "%sBMM_L_%s", any ? " | " : "", #E), any = 1; \
  }
    BMM_LAYOUTS(BMMT__X)
#undef BMMT__X
  }
}

static inline const char *bmmt__strategy_enum(bmm_strategy s) {
  switch (s) {
#define BMMT__X(E, name, l, mm, mn, mk, cf, d) \
  case BMM_##E: return "BMM_" #E;
    BMM_CPU_STRATEGIES(BMMT__X)
    BMM_CUDA_STRATEGIES(BMMT__X)
#undef BMMT__X
  default: return "BMM_STRATEGY_AUTO";
  }
}

/* The same rules as a C header: `static const bmm_table_rule name[]`, for
   the compile-time override macro (BMM_CPU_TABLE, BMM_CUDA_TABLE_SM90, ...).
   comment must not hold the two characters that end a C comment. */
static inline size_t bmmt_format_header(const bmm_table_rule *rules, int n, const char *name,
                                        const char *override_macro, const char *comment, char *buf,
                                        size_t len) {
  bmm__buf b;
  int i;
  const char *c;
  b.p = buf, b.len = len, b.used = 0;
  if (buf && len) buf[0] = 0;
  bmm__put(&b, "/* clang-format off */\n"); /* generated: one rule a line, as written */
  bmm__put(&b, "/* %s - a bmm threshold table written by bmm-tune.\n", name);
  bmm__put_lines(&b, comment, "   ");
  bmm__put(&b,
           "\n   Use it as the compiled-in table: in the file that compiles the\n"
           "   implementation, after a first #include of bmm.h,\n"
           "       #include \"this header\"\n"
           "       #define %s %s\n"
           "       #define BMM_IMPLEMENTATION\n"
           "       #include \"bmm.h\"   (or bmm_cuda.cuh for the CUDA backend)\n"
           "   The same rules, as text for BMM_TABLE_FILE, are in the .txt beside it. */\n",
           override_macro, name);
  bmm__put(&b, "#ifndef ");
  for (c = name; *c; ++c)
    bmm__put(&b, "%c", *c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
  bmm__put(&b, "_H\n#define ");
  for (c = name; *c; ++c)
    bmm__put(&b, "%c", *c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
  bmm__put(&b, "_H\n");
  bmm__put(&b, "static const bmm_table_rule %s[] = {\n", name);
  for (i = 0; i < n; ++i) {
    const bmm_table_rule *r = &rules[i];
    bmm__put(&b, "    {");
    bmm__put_mask(&b, r->dtypes, 1);
    bmm__put(&b, ", ");
    bmm__put_mask(&b, r->layouts, 0);
    bmm__put(&b, ", %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %s, %d, %d, %d, %d, %d, %d, \"",
             (long long)r->m_min, (long long)r->m_max, (long long)r->n_min, (long long)r->n_max,
             (long long)r->k_min, (long long)r->k_max, (long long)r->batch_min,
             (long long)r->batch_max, bmmt__strategy_enum(r->strategy), r->threads,
             r->batch_per_block, r->lanes, r->vec, r->tile, r->pad);
    for (c = r->note; *c; ++c)
      bmm__put(&b, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    bmm__put(&b, "\", \"%s\", %d},\n", r->kernel, r->streams); /* kernels: [a-z0-9_] */
  }
  bmm__put(&b, "};\n#endif\n/* clang-format on */\n");
  return b.used;
}

/* Rules equal in every field the text format carries (masks, ranges,
   strategy, tunables, note, kernel pin)? */
static inline int bmmt_rules_equal(const bmm_table_rule *a, const bmm_table_rule *b, int n) {
  int i, ax;
  for (i = 0; i < n; ++i) {
    if (a[i].dtypes != b[i].dtypes || a[i].layouts != b[i].layouts ||
        bmmt_config_cmp(&a[i], &b[i]) || strcmp(a[i].note, b[i].note) ||
        strcmp(a[i].kernel, b[i].kernel))
      return 0;
    for (ax = 0; ax < BMMT_AXES; ++ax)
      if (*bmmt__lo((bmm_table_rule *)&a[i], ax) != *bmmt__lo((bmm_table_rule *)&b[i], ax) ||
          *bmmt__hi((bmm_table_rule *)&a[i], ax) != *bmmt__hi((bmm_table_rule *)&b[i], ax))
        return 0;
  }
  return 1;
}

#endif /* BMM_TUNE_COMPRESS_H */
