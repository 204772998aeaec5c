/* bench/cpu_roofline.h - the CPU memory roofline that bench_cpu and the demo
   report against (issue 25). Include after bmm.h and tests/bmm_cases.h, in one
   file; build with OpenMP to measure all threads.

   A row's floor is its minimal bytes (A, B, bias read once, C written once, C
   read too where beta != 0) over the bandwidth this machine sustains for that
   mix of reads and writes. memcpy's "copy" figure is one mix (half reads, half
   writes) and undercounts a read-heavy row by up to 2x (the demo printed 195%
   "of copy"), so the probe measures a grid of mixes, each with every thread
   reading one, two or four streams with wide loads (with software prefetch
   or without) and writing one stream with streaming (non-temporal) stores,
   or plain stores where those do better. At the start each mix keeps its
   two best configurations. A row is then timed in turn with passes of them
   (bmmx_roof_time): its median call against the better configuration's
   median pass, over the same seconds (a shared VM's bandwidth moves by 1.5x
   within minutes). A row whose read share is a grid mix's gets that mix's
   bandwidth; a row between two grid mixes gets the larger of the two, so
   the floor errs towards unreachable, never towards beatable.

   Every stream of a pass covers >= 8x the last-level cache (LLC, from sysfs),
   and a minor stream moves on by its length each pass, so nothing is served
   from cache. Rows smaller than 4x the LLC may partly stay in cache between
   calls: bmmx_roof_cached() says so, and callers flag those rows instead of
   claiming a percentage of a DRAM floor. */
#ifndef BMM_CPU_ROOFLINE_H
#define BMM_CPU_ROOFLINE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <immintrin.h>
#endif

/* read:write lines per step; bytes read fraction = r / (r + w). The seed's
   3 x 1 x K rows read 4K / (4K + 3) of their bytes in every dtype: K = 3 is
   4:1, K = 6 8:1, K = 12 16:1 exactly; 6:1 splits the widest step of the
   bandwidth (4:1 -> 8:1: 36.8 -> 33.7 GB/s on the Intel VM, 2026-11-27),
   where K = 4 and 5 sit. */
#define BMMX_ROOF_MIXES(X) \
  X(0, 1) X(1, 16) X(1, 8) X(1, 4) X(1, 2) X(1, 1) X(2, 1) X(4, 1) X(6, 1) X(8, 1) X(16, 1) X(1, 0)
enum {
#define BMMX__X(r, w) +1
  BMMX_ROOF_NMIX = 0 BMMX_ROOF_MIXES(BMMX__X)
#undef BMMX__X
};

typedef struct bmmx_roofline {
  int threads;
  double llc_bytes;                 /* largest cache of cpu0 (sysfs), 32 MiB if unknown */
  double probe_bytes;               /* per stream per pass */
  double read_frac[BMMX_ROOF_NMIX]; /* ascending */
  double gbps[BMMX_ROOF_NMIX];      /* bytes read + written per second / 1e9, latest probe */
  double best[BMMX_ROOF_NMIX];      /* the best of every probe so far */
  int cfg[BMMX_ROOF_NMIX][2];       /* each mix's two best configurations (bmmx__roof_mix) */
  /* the probe's buffers, kept for bmmx_roof_time (bmmx_roofline_release) */
  void *src, *dst;
  int64_t lines;
} bmmx_roofline;

/* What every CPU benchmark here needs besides the floor: a monotonic clock
   in seconds, the thread count (OpenMP's, 1 without it), and a 64-byte
   aligned allocation (torch's CPU allocator aligns so; numpy's malloc gives
   16: cpu_blocked streams C only where its rows start on a vector, README
   "Speed") that ends the program with a message naming prog. */
static inline double bmmx_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static inline int bmmx_max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
static inline void bmmx_set_threads(int t) {
#ifdef _OPENMP
  omp_set_num_threads(t);
#else
  (void)t;
#endif
}
static inline void *bmmx_xmalloc(int64_t elems, size_t es, const char *prog) {
  void *p = NULL;
  if (posix_memalign(&p, 64, (size_t)(elems > 0 ? elems : 1) * es) != 0) p = NULL;
  if (!p) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(2);
  }
  return p;
}

/* The biggest data/unified cache cpu0 reports under sysfs (the LLC; on a
   machine with several L3 slices, one slice: the conservative size), 0 when
   unknown. */
static inline double bmmx_llc_bytes(void) {
  double best = 0;
  int i;
  for (i = 0; i < 8; ++i) {
    char path[96], buf[64];
    FILE *f;
    double v;
    char unit = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    f = fopen(path, "r");
    if (!f) continue;
    if (fgets(buf, sizeof buf, f) && sscanf(buf, "%lf%c", &v, &unit) >= 1) {
      if (unit == 'K') v *= 1024;
      if (unit == 'M') v *= 1048576;
      if (v > best) best = v;
    }
    fclose(f);
  }
  return best;
}

typedef uint64_t bmmx__roof_line[8]; /* one 64-byte line */

/* Read `nr` lines of src from line r0 on (as `ns` interleaved streams, each
   prefetched `pf` lines ahead unless 0), write `nw` lines of dst from line
   w0 on, interleaved at r:w. Returns a checksum so the reads stay. Runs in
   each thread on its own part. */
static inline uint64_t bmmx__roof_pass(const bmmx__roof_line *src, int64_t r0, int64_t nr,
                                       bmmx__roof_line *dst, int64_t w0, int64_t nw, int rpw,
                                       int wpr, int streaming, int ns, int pf) {
  uint64_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t q = nr / ns, g, done_w = 0, credit = 0;
  int j;
  (void)streaming;
  for (g = 0; g < q || done_w < nw; ++g) {
    if (g < q) {
      int s;
      for (s = 0; s < ns; ++s) {
        const uint64_t *p = src[r0 + s * q + g];
#if defined(__GNUC__)
        if (pf) __builtin_prefetch((const void *)((uintptr_t)p + 64 * (uintptr_t)pf));
#else
        (void)pf;
#endif
        for (j = 0; j < 8; ++j) /* vectorised: wide loads */
          acc[j] += p[j];
      }
      credit += ns * (int64_t)wpr;
    } else {
      credit = (int64_t)rpw * (nw - done_w); /* write-only tail (or mix 0:1) */
    }
    while (done_w < nw && credit >= rpw) {
      uint64_t *d = dst[w0 + done_w];
#if defined(__AVX__)
      if (streaming) {
        __m256i v = _mm256_set1_epi64x((long long)g);
        _mm256_stream_si256((__m256i *)(void *)d, v);
        _mm256_stream_si256((__m256i *)(void *)(d + 4), v);
      } else
#elif defined(__SSE2__)
      if (streaming) {
        __m128i v = _mm_set1_epi64x((long long)g);
        for (j = 0; j < 8; j += 2)
          _mm_stream_si128((__m128i *)(void *)(d + j), v);
      } else
#endif
        for (j = 0; j < 8; ++j)
          d[j] = (uint64_t)g;
      ++done_w;
      credit -= rpw > 0 ? rpw : 1;
    }
  }
#if defined(__SSE2__)
  _mm_sfence();
#endif
  return acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
}

static volatile uint64_t bmmx__roof_sink;

static const int bmmx__roof_mix_r[] = {
#define BMMX__X(rr, ww) rr,
    BMMX_ROOF_MIXES(BMMX__X)
#undef BMMX__X
};
static const int bmmx__roof_mix_w[] = {
#define BMMX__X(rr, ww) ww,
    BMMX_ROOF_MIXES(BMMX__X)
#undef BMMX__X
};

/* The probe's configurations: 1, 2 or 4 read streams a thread, streaming
   or plain stores, software prefetch 64, 32 or 16 lines ahead (cpu_small's
   distances: 4 KiB, and 2 KiB / 1 KiB on Intel cores) or none. Which is best
   differs by machine and mix (Zen 3/4 VMs: 4 streams, by 20-40%; the Zen 5 VM
   of 2026-11-25: 1, where 4 left the floor at 56 GB/s and cpu_small ran the
   seed at 70; on 2026-11-26 2 streams with prefetch ran 52.6 GB/s at 94%
   reads where the 1/4-stream configurations without it ran 47.4 and
   cpu_small's f64 3x1x12 49.4; on the Intel VM of 2026-11-27 f16 3x1xK ran
   up to 111% of a floor probed at 64 lines only, once cpu_small asked 16
   lines ahead). */
#define BMMX_ROOF_NCFG 24
static inline int bmmx__roof_cfg_ns(int c) { return c % 3 == 0 ? 1 : c % 3 == 1 ? 2 : 4; }
/* lines ahead of configuration c: 0, 64, 32, 16 for c / 6 = 0..3 */
static inline int bmmx__roof_cfg_pf(int c) { return c < 6 ? 0 : 128 >> (c / 6); }

/* GB/s of one pass of grid mix m in configuration cfg, the minor stream
   placed by `pass`. */
static inline double bmmx__roof_run(const bmmx_roofline *r, int m, int cfg, int pass) {
  const bmmx__roof_line *src = (const bmmx__roof_line *)r->src;
  bmmx__roof_line *dst = (bmmx__roof_line *)r->dst;
  int64_t lines = r->lines;
  int rr = bmmx__roof_mix_r[m], ww = bmmx__roof_mix_w[m];
  const int ns = bmmx__roof_cfg_ns(cfg), streaming = cfg / 3 % 2 == 0, pf = bmmx__roof_cfg_pf(cfg);
  /* the dominant stream covers the buffer; the minor one its share */
  int64_t nr = rr >= ww ? lines : lines / ww * rr, nw = ww >= rr ? lines : lines / rr * ww;
  /* the minor stream starts further on each pass: not served from cache */
  int64_t rbase = nr < lines ? (nr * (pass + 1)) % (lines - nr + 1) : 0;
  int64_t wbase = nw < lines ? (nw * (pass + 1)) % (lines - nw + 1) : 0;
  uint64_t sink = 0;
  double t0 = bmmx_now_s();
#ifdef _OPENMP
#pragma omp parallel reduction(+ : sink)
#endif
  {
    int64_t id = 0, nt = 1, rq, wq;
#ifdef _OPENMP
    id = omp_get_thread_num(), nt = omp_get_num_threads();
#endif
    rq = nr / nt / 4 * 4, wq = nw / nt;
    /* pf a constant in each call: the loop without prefetch stays as it was */
#define BMMX__PASS(PF) \
  bmmx__roof_pass(src, rbase + id * rq, rq, dst, wbase + id * wq, wq, rr, ww, streaming, ns, PF)
    sink += pf == 64   ? BMMX__PASS(64)
            : pf == 32 ? BMMX__PASS(32)
            : pf       ? BMMX__PASS(16)
                       : BMMX__PASS(0);
#undef BMMX__PASS
  }
  bmmx__roof_sink += sink; /* keeps the reads */
  return 64.0 * (double)(nr + nw) / (bmmx_now_s() - t0) / 1e9;
}

/* Best GB/s of grid mix m over the probe's configurations: one pass each,
   then a second pass of the four best (a pass can lose to the VM's noise;
   two passes of all 24 made the probe twice as long); the two best
   configurations are kept for bmmx_roof_time (which one is best moves with
   the VM's phases: the one chosen at start-up ran 42 GB/s a minute later
   where another ran 51). */
static inline double bmmx__roof_mix(bmmx_roofline *r, int m) {
  int cfg, i, j;
  double g[BMMX_ROOF_NCFG], h[BMMX_ROOF_NCFG], best[2] = {0, 0};
  for (cfg = 0; cfg < BMMX_ROOF_NCFG; ++cfg)
    h[cfg] = g[cfg] = bmmx__roof_run(r, m, cfg, 2 * cfg);
  for (i = 0; i < 4; ++i) { /* the four best first passes, best first */
    double x;
    for (cfg = 0, j = 0; cfg < BMMX_ROOF_NCFG; ++cfg)
      if (h[cfg] > h[j]) j = cfg;
    h[j] = -1; /* taken */
    x = bmmx__roof_run(r, m, j, 2 * j + 1);
    if (x > g[j]) g[j] = x;
  }
  r->cfg[m][0] = r->cfg[m][1] = 0;
  for (cfg = 0; cfg < BMMX_ROOF_NCFG; ++cfg) {
    if (g[cfg] > best[0])
      best[1] = best[0], r->cfg[m][1] = r->cfg[m][0], best[0] = g[cfg], r->cfg[m][0] = cfg;
    else if (g[cfg] > best[1])
      best[1] = g[cfg], r->cfg[m][1] = cfg;
  }
  return best[0];
}

/* The grid's read fractions, ascending (bmmx_roofline_measure; the
   floor's test fills its made-up grid the same way) */
static inline void bmmx__roof_grid(bmmx_roofline *r) {
  int m;
  for (m = 0; m < BMMX_ROOF_NMIX; ++m)
    r->read_frac[m] =
        (double)bmmx__roof_mix_r[m] / (double)(bmmx__roof_mix_r[m] + bmmx__roof_mix_w[m]);
}

/* Measure the mixes with omp_get_max_threads() threads (one without OpenMP).
   Keeps its 2 x probe_bytes of buffers for bmmx_roof_time until
   bmmx_roofline_release. Returns 0 when out of memory. About 35 s with 2 GiB streams
   and 11 mixes (Intel VM, 2 threads, 2026-11-27; the 12th, 6:1, adds one mix's
   share, not timed apart). */
static inline int bmmx_roofline_measure(bmmx_roofline *r) {
  double llc = bmmx_llc_bytes(), bytes;
  int64_t lines, nthreads = 1;
  bmmx__roof_line *src = NULL, *dst = NULL;
  int m;
  memset(r, 0, sizeof *r);
  r->llc_bytes = llc > 0 ? llc : 32.0 * 1048576;
  bytes = 8 * r->llc_bytes;
  if (bytes < 256.0 * 1048576) bytes = 256.0 * 1048576;
  if (bytes > 2048.0 * 1048576) bytes = 2048.0 * 1048576;
  r->probe_bytes = bytes;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  r->threads = (int)nthreads;
  lines = (int64_t)(bytes / 64) / (8 * nthreads) * (8 * nthreads);
  if (posix_memalign((void **)&src, 64, (size_t)lines * 64) != 0) src = NULL;
  if (posix_memalign((void **)&dst, 64, (size_t)lines * 64) != 0) dst = NULL;
  if (!src || !dst) {
    free(src), free(dst);
    return 0;
  }
  {
    int64_t i;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (i = 0; i < lines; ++i) { /* first touch by the thread that reads it */
      memset(src[i], 1, 64);
      memset(dst[i], 2, 64);
    }
  }
  r->src = src, r->dst = dst, r->lines = lines;
  bmmx__roof_grid(r);
  for (m = 0; m < BMMX_ROOF_NMIX; ++m)
    r->gbps[m] = r->best[m] = bmmx__roof_mix(r, m);
  return 1;
}

static inline void bmmx_roofline_release(bmmx_roofline *r) {
  free(r->src), free(r->dst);
  r->src = r->dst = NULL;
}

/* The upper of the two grid mixes bmmx_roof_gbps consults for a row of read
   fraction f (the last mix reads only, so f <= 1 always finds one). */
static inline int bmmx__roof_upper(const bmmx_roofline *r, double f) {
  int m;
  for (m = 1; m < BMMX_ROOF_NMIX; ++m)
    if (f <= r->read_frac[m]) return m;
  return BMMX_ROOF_NMIX - 1;
}

/* Bandwidth (GB/s) for a row reading `rd` bytes and writing `wr` bytes: the
   grid mix's own where the row's read fraction is one (to rounding), else
   the larger of the two grid mixes around it. */
static inline double bmmx_roof_gbps(const bmmx_roofline *r, double rd, double wr) {
  double f = rd + wr > 0 ? rd / (rd + wr) : 1;
  int m = bmmx__roof_upper(r, f), j;
  for (j = m - 1; j <= m; ++j)
    if (f - r->read_frac[j] < 1e-9 && r->read_frac[j] - f < 1e-9) return r->gbps[j];
  return r->gbps[m] > r->gbps[m - 1] ? r->gbps[m] : r->gbps[m - 1];
}

/* A case's reads and writes: what bmmx_min_bytes counts, split. */
static inline void bmmx_case_rw(const bmmx_case *c, int reads_c, double *rd, double *wr) {
  double cbytes = (double)bmm_dtype_size(c->dtype) * (double)(c->batch * c->m * c->n);
  *wr = cbytes;
  *rd = bmmx_min_bytes(c, reads_c) - cbytes;
}

/* Seconds of the memory floor of a case. */
static inline double bmmx_roof_seconds(const bmmx_roofline *r, const bmmx_case *c, int reads_c) {
  double rd, wr;
  bmmx_case_rw(c, reads_c, &rd, &wr);
  return (rd + wr) / (bmmx_roof_gbps(r, rd, wr) * 1e9);
}

/* A row this small may stay in cache between calls: its percentage of a DRAM
   floor means nothing (callers print it flagged). */
static inline int bmmx_roof_cached(const bmmx_roofline *r, double bytes) {
  return bytes <= 4 * r->llc_bytes;
}

/* bmmx_roof_time's fn for a bmm_cpu call: ctx is the bmm_problem */
static inline void bmmx_roof_call_cpu(void *ctx) { bmm_cpu((const bmm_problem *)ctx); }

/* A row's floor tracked over its own timed calls (bmmx_roof_time, and
   bench_cpu_peers, whose samples alternate three codes): after the i-th
   call, one pass of each of the two grid mixes around the row's read share,
   in their two best configurations by turns (rows small enough to stay in
   cache are not probed: their floor is not DRAM's). */
#define BMMX_ROOF_TRACK_MAX 64
typedef struct bmmx_roof_track {
  int m;     /* the upper of the two mixes (bmmx__roof_upper) */
  int probe; /* passes run: the row cannot stay in cache and buffers are kept */
  int n;     /* passes so far */
  double rd, wr;
  double g[2][2][BMMX_ROOF_TRACK_MAX / 2]; /* [mix][configuration][pass] GB/s */
} bmmx_roof_track;

static inline void bmmx_roof_track_begin(const bmmx_roofline *r, const bmmx_case *c,
                                         bmmx_roof_track *t) {
  double f;
  memset(t, 0, sizeof *t);
  bmmx_case_rw(c, 0, &t->rd, &t->wr);
  f = t->rd + t->wr > 0 ? t->rd / (t->rd + t->wr) : 1;
  t->m = bmmx__roof_upper(r, f);
  t->probe = r->src && !bmmx_roof_cached(r, t->rd + t->wr);
}

/* one pass of each mix, after the row's next call */
static inline void bmmx_roof_track_pass(const bmmx_roofline *r, bmmx_roof_track *t) {
  const int i = t->n;
  int j;
  if (!t->probe || i >= BMMX_ROOF_TRACK_MAX) return;
  for (j = 0; j < 2; ++j)
    t->g[j][i % 2][i / 2] = bmmx__roof_run(r, t->m - 1 + j, r->cfg[t->m - 1 + j][i % 2], i);
  t->n = i + 1;
}

/* The two mixes' latest figures (r->gbps, what bmmx_roof_gbps and
   bmmx_roof_seconds read) become the median of their better
   configuration's passes; returns the row's floor in GB/s. */
static inline double bmmx_roof_track_end(bmmx_roofline *r, const bmmx_roof_track *t) {
  int j, k;
  for (j = 0; t->probe && t->n > 0 && j < 2; ++j) {
    double x = 0, v[BMMX_ROOF_TRACK_MAX / 2];
    for (k = 0; k < 2 && k < t->n; ++k) {
      const int cnt = (t->n - k + 1) / 2;
      double y;
      memcpy(v, t->g[j][k], (size_t)cnt * sizeof *v); /* bmmx_median sorts */
      y = bmmx_median(v, cnt);
      if (y > x) x = y;
    }
    r->gbps[t->m - 1 + j] = x;
    if (x > r->best[t->m - 1 + j]) r->best[t->m - 1 + j] = x;
  }
  return bmmx_roof_gbps(r, t->rd, t->wr);
}

/* Time a row and its floor in turn: `reps` calls of fn(ctx), each followed
   by the floor's passes (bmmx_roof_track). *sec is the median call. The
   row and its floor are medians of the same seconds (the floor the better
   of two configurations): on a shared VM whose bandwidth moves by 1.5x
   within minutes, the median of a row's calls against the best of twelve
   probe passes taken after them read 57-133% from one minute to the next
   for the same kernel (Zen 5 VM, 2026-11-26, f16 3x1x48..56),
   bench/notes/cpu.md. Returns the row's floor in GB/s. */
static inline double bmmx_roof_time(bmmx_roofline *r, const bmmx_case *c, void (*fn)(void *),
                                    void *ctx, int reps, double *sec) {
  double t[BMMX_ROOF_TRACK_MAX];
  bmmx_roof_track tr;
  int i;
  if (reps > BMMX_ROOF_TRACK_MAX) reps = BMMX_ROOF_TRACK_MAX;
  if (reps < 1) reps = 1;
  bmmx_roof_track_begin(r, c, &tr);
  for (i = 0; i < reps; ++i) {
    double t0 = bmmx_now_s();
    fn(ctx);
    t[i] = bmmx_now_s() - t0;
    bmmx_roof_track_pass(r, &tr);
  }
  *sec = bmmx_median(t, reps);
  return bmmx_roof_track_end(r, &tr);
}

/* The latest probe of each mix (bmmx_roof_print) or the best of all
   (bmmx_roof_print_best). */
static inline void bmmx__roof_print(FILE *f, const bmmx_roofline *r, const double *gbps) {
  int m;
  fprintf(f,
          "roofline: %d thread%s, LLC %.0f MiB, %.0f MiB per stream; GB/s (read+write) by "
          "read share:",
          r->threads, r->threads == 1 ? "" : "s", r->llc_bytes / 1048576, r->probe_bytes / 1048576);
  for (m = 0; m < BMMX_ROOF_NMIX; ++m)
    fprintf(f, " %.0f%%:%.1f", 100 * r->read_frac[m], gbps[m]);
  fprintf(f, "\n");
}
static inline void bmmx_roof_print(FILE *f, const bmmx_roofline *r) {
  bmmx__roof_print(f, r, r->gbps);
}
static inline void bmmx_roof_print_best(FILE *f, const bmmx_roofline *r) {
  bmmx__roof_print(f, r, r->best);
}

#ifdef BMM__CPU_VEXT /* bmm_cpu.h's implementation is in this file */
/* ---- the FMA peak ---------------------------------------------------------
   GFLOP/s of independent FMA chains, with the threads of an OpenMP region
   (set them first): 16 vectors of accumulators per thread cover latency x
   throughput of two FMA pipes. With GCC vector extensions
   (as the cpu_blocked tile uses) the vectors are BMM__CPU_VBYTES wide, the
   widest the kernels use: the autovectoriser alone picks 16-byte vectors
   under some -march=native tunings (znver1) and read half the peak. */
#if BMM__CPU_VEXT
/* ISO C mode does not contract a * x + y into an FMA; ask for it (gcc) */
#if defined(__clang__)
#define BMMX__FMA_ATTR
#else
#define BMMX__FMA_ATTR __attribute__((optimize("fp-contract=fast")))
#endif
#define BMMX__FMA_T(name, T) bmm__vec_##name
#define BMMX__FMA_LANES(sz) (BMM__CPU_VBYTES / (sz))
#define BMMX__FMA_STEP(name, a, x, y) ((a) * (x) + (y))
#define BMMX__FMA_SUM(a, sz) bmmx__fma_lanes_sum((const void *)&(a), sz)
static inline double bmmx__fma_lanes_sum(const void *v, int sz) {
  double s = 0;
  int i;
  for (i = 0; i < BMM__CPU_VBYTES / sz; ++i)
    s += sz == 4 ? (double)((const float *)v)[i] : ((const double *)v)[i];
  return s;
}
#else
#define BMMX__FMA_ATTR
#define BMMX__FMA_T(name, T) T
#define BMMX__FMA_LANES(sz) 1
#define BMMX__FMA_STEP(name, a, x, y) BMM__FMA_##name(a, x, y)
#define BMMX__FMA_SUM(a, sz) (double)(a)
#endif
#define BMMX__FMA_PEAK(E, name, T, sz, ...)                                                   \
  static inline BMMX__FMA_ATTR double bmmx__fma_once_##name(void) {                           \
    enum { NACC = BMMX__FMA_LANES(sz) > 1 ? 16 : 16 * 64 / sz };                              \
    const long iters = 20000000L / (64 / sz);                                                 \
    double t0 = bmmx_now_s(), sink = 0;                                                       \
    int nt = 1;                                                                               \
    BMMX__FMA_OMP_PARALLEL {                                                                  \
      BMMX__FMA_T(name, T) acc[NACC], x = {0}, y = {0};                                       \
      long it;                                                                                \
      int v;                                                                                  \
      x += (T)0.999999, y += (T)1e-7; /* a scalar broadcasts to every lane */                 \
      for (v = 0; v < NACC; ++v)                                                              \
        acc[v] = x * (T)v;                                                                    \
      for (it = 0; it < iters; ++it) {                                                        \
        for (v = 0; v < NACC; ++v)                                                            \
          acc[v] = BMMX__FMA_STEP(name, acc[v], x, y);                                        \
      }                                                                                       \
      for (v = 1; v < NACC; ++v)                                                              \
        acc[0] += acc[v];                                                                     \
      BMMX__FMA_OMP_CRITICAL {                                                                \
        sink += BMMX__FMA_SUM(acc[0], sz);                                                    \
        nt = BMMX__FMA_NT;                                                                    \
      }                                                                                       \
    }                                                                                         \
    if (sink == 42.0) fprintf(stderr, " ");                                                   \
    return 2.0 * NACC * BMMX__FMA_LANES(sz) * (double)iters * nt / (bmmx_now_s() - t0) / 1e9; \
  }                                                                                           \
  /* the best of 7: a shared VM's neighbours only ever slow it (a single probe                \
     of 221 GFLOP/s at 2 threads, f32, under rows later timed at 227; Zen 4) */               \
  static inline double bmmx_fma_peak_##name(void) {                                           \
    double best = 0, g;                                                                       \
    int r;                                                                                    \
    for (r = 0; r < 7; ++r)                                                                   \
      if ((g = bmmx__fma_once_##name()) > best) best = g;                                     \
    return best;                                                                              \
  }
#ifdef _OPENMP
#define BMMX__FMA_OMP_PARALLEL _Pragma("omp parallel")
#define BMMX__FMA_OMP_CRITICAL _Pragma("omp critical")
#define BMMX__FMA_NT omp_get_num_threads()
#else
#define BMMX__FMA_OMP_PARALLEL
#define BMMX__FMA_OMP_CRITICAL
#define BMMX__FMA_NT 1
#endif
BMMX__FMA_PEAK(F32, f32, float, 4, float)
BMMX__FMA_PEAK(F64, f64, double, 8, double)
/* One probe run (5-11 ms on one Zen 4 core) of f64's chains for BMM_F64,
   else f32's: what a benchmark runs between a row's samples, whose best is
   the row's peak (the VM lends fewer cores now and then: a start-up probe
   at 2 threads read one core's 117 GFLOP/s, 2026-12-02). */
static inline double bmmx_fma_once(bmm_dtype dt) {
  return dt == BMM_F64 ? bmmx__fma_once_f64() : bmmx__fma_once_f32();
}
#endif

/* ---- two timings' ratio, and its spread --------------------------------
   Samples of two codes alternated on a shared machine: the median of the
   per-sample ratios and a distribution-free interval for it, the j-th
   smallest and j-th largest ratio with j the largest that keeps the
   interval's coverage >= 95% (binomial(n, 1/2) order statistics: n = 7 gives
   min..max at 98.4%, n = 9 the 2nd..8th at 96.1%, n = 15 the 4th..12th at
   96.5%; under 6 samples min..max, below 95%). bmmx_interval_rank: that j
   for n samples, and its coverage in *cover. */
static inline int bmmx_interval_rank(int n, double *cover) {
  double p = 1, below = 0;
  int i, j = 1;
  for (i = 0; i < n; ++i)
    p *= 0.5;                          /* P(X = 0) */
  *cover = 1 - 2 * p;                  /* j = 1: min..max */
  for (i = 0; 2 * (i + 1) <= n; ++i) { /* j = i + 1 <= n / 2 */
    below += p;                        /* P(X <= i) */
    if (1 - 2 * below < 0.95) break;
    j = i + 1, *cover = 1 - 2 * below;
    p *= (double)(n - i) / (double)(i + 1); /* P(X = i + 1) */
  }
  return j;
}
/* The median of v (sorted in place, bmmx_median) and the interval's ends;
   returns its coverage. */
static inline double bmmx_median_interval(double *v, int n, double *med, double *lo, double *hi) {
  double cover;
  const int j = bmmx_interval_rank(n, &cover);
  *med = bmmx_median(v, n);
  *lo = v[j - 1], *hi = v[n - j];
  return cover;
}

#endif
