/* tools/model/bmm_model.h - the bandwidth model of issue 19: a predicted
   percentage of copy bandwidth for one CUDA launch, from what the emulator
   traces (tests/cuda_emu/emu_check.h) and the kernel's resources.

   Two layers:
   - bmm_model_curve(traffic, consts) -> result: pure arithmetic on the traced
     numbers of a launch (no emulator needed; a tuner can call it on numbers
     it has);
   - bmm_model_predict(problem, strategy, tunables, arch) -> result: traces
     bmm's own launch for that problem (first 2 blocks of the real-size
     launch, as the GPU of `arch` gets it), then the curve. It needs the
     emulator's translation unit: include this header after
     tests/cuda_emu/emu_test.cpp's definitions (build it like build/bmm-model,
     tools/model/model.ninja), e.g. a tuner's `--model` mode.
   Nothing here knows any strategy by name: every launch the emulator can run
   is costed by the same terms.

   THE MODEL (all figures per multiprocessor, the launch spread evenly over
   the SMs; `nres` resident blocks per SM from emu_occupancy.h):
     dram   = blocks * DRAM bytes per block / (eff * copy bandwidth)
              DRAM bytes per block = distinct 32-byte sectors the traced block
              touches + the re-read sectors (requested - distinct) that miss
              both L1 and L2 (below)
     l2     = blocks * (distinct + L1-missing re-read bytes) / (l2_ratio * copy bw)
     l1     = blocks per SM * requested sectors / (l1_rate * clock)
     smem   = blocks per SM * shared wavefronts / clock   (one per clock)
     lat    = waves * rounds * lat_ns                    (bytes in flight:
              Little's law) where waves = ceil(grid / (SMs * nres)) * blocks /
              grid and rounds
              = the load round trips of a block: per warp and barrier
              interval, ceil(most global loads of one lane / burst), summed
              over the intervals and averaged over warps (a lane keeps at most
              `burst` loads in flight; a barrier drains them); plus sh_ns per
              shared load of a lane's longest chain per interval (the compute
              phase between barriers, when nothing global is in flight), plus
              blk_ns per block (its start, prologue and retirement)
     time   = (dram^p + l2^p + l1^p + smem^p + lat^p)^(1/p) + t0
     pct    = the problem's minimal bytes / time / copy bandwidth
   `blocks`: the launch's work in traced blocks (the problem's C bytes over a
   traced block's stores; v1 used the grid, which over-counted where
   grid-stride loops give the first blocks an extra turn). The footprints R1
   and the L2's working set below are per turn of the block's grid-stride
   loop (its distinct bytes over its turns: the most times a warp ran one
   store site of C), what the caches hold at a time.
   A round counts only if a load in it must wait for memory: a first touch
   of a sector by the warp, or a re-read L1 lost (rounds = min(ceil(loads /
   burst), such loads)). Re-reads hit L1 in the fraction min(1, C1 / R1),
   R1 = resident blocks * distinct bytes per block (their footprint), C1 =
   the SM's L1 left after shared memory; those missing L1 hit L2 in the
   fraction min(1, l2_frac * L2 size / (SMs * nres * distinct bytes per
   block)).
   The L1 option ($BMM_MODEL_L1=line|sector, not the default; issue 20,
   bench/notes/model.md "L1 line reuse"): instead of the footprint fraction
   above, an L1 simulated over the traced loads (bmm_model_l1: per block, an
   LRU over 128-byte lines in the block's share of the L1, fills of a whole
   line or a sector); a round waits only if a lane's load misses it, L2
   serves the fills and the stores, DRAM the first fill of each granule and
   the refills L2 lost too. It fixes LOOP's level on the H100 run but not the
   ranking of the strategies, so v1 stays the default.
   The cliffs are not constants: a bank conflict multiplies `smem`, scattered
   rows multiply `l1` and the re-reads, a staging barrier or scalar loads
   multiply `rounds`, shared memory per block cuts `nres`.
   The constants (struct bmm_model_consts) were fitted once on the H100
   table (../shared/gpu_calibration/probe_h100.csv): `build/bmm-model
   --calibration FILE --fit` re-fits them on any table in that format or
   bench_gpu's CSV. */
#ifndef BMM_MODEL_H
#define BMM_MODEL_H

#include <math.h>
#include <stdint.h>

/* The model's version: a table it chose says `model vN, not measured` in
   every rule (build/bmm-tune-model --model). Bump it when a term or a
   constant changes, so that such tables show which model chose them.
   (Tables written before 2026-11-25 15:00 UTC chose among the strategies'
   defaults only: a rule's tunables spoiled the kernel lookup and the tuner
   dropped every configuration with tunables; the model itself, terms and
   constants, did not change.) v2 (2026-11-28): the launch's work counted in
   traced blocks by their stores of C, and the caches' footprints per turn of
   a block's grid-stride loop (both below); constants unchanged. */
#define BMM_MODEL_VERSION 2

/* the fitted constants (see above) */
typedef struct bmm_model_consts {
  double eff;      /* DRAM bandwidth reachable, fraction of the copy bandwidth */
  double t0_us;    /* per launch: launch, ramp-up and drain */
  double lat_ns;   /* one load round trip */
  double burst;    /* loads one lane keeps in flight */
  double l2_ratio; /* L2 bandwidth / copy bandwidth */
  double l2_frac;  /* fraction of the L2 that holds re-read lines */
  double l1_rate;  /* L1 sectors per clock per SM */
  double p;        /* how the terms combine (1: add, large: the largest) */
  double sh_ns;    /* one shared load of a lane's chain (nothing global in flight) */
  double blk_ns;   /* a block's own cost: start, prologue, retire */
} bmm_model_consts;

/* fitted 2026-11-25 on probe_h100.csv (182 rows): BMM_MODEL_FIT_HOLD=4,6
   build/bmm-model --calibration ../shared/gpu_calibration/probe_h100.csv --fit
   (l2_ratio and l1_rate held at 3 and 4, near the H100's L2 and L1
   throughput: fitted freely they go to infinity, as no row of the table
   is limited by them), rounded: 158 of 182 rows within 10 points, best
   design matched at 22 of 26 */
static const bmm_model_consts bmm_model_h100 = {1, 5.5, 950, 2, 3, 0.65, 4, 3.4, 25, 1030};

/* the constants predictions use (bmm-model --fit points it at its own) */
static const bmm_model_consts *bmm_model_use = &bmm_model_h100;

/* the architecture: the reference part's figures (H100 SXM measured copy
   bandwidth; A100's an estimate, not measured) */
typedef struct bmm_model_arch {
  int arch, sms;
  double clock_ghz, copy_gbs, l1_bytes, l2_bytes;
} bmm_model_arch;
static const bmm_model_arch bmm_model_sm90 = {90, 132, 1.755, 2985, 256 * 1024, 50e6};
static const bmm_model_arch bmm_model_sm80 = {80, 108, 1.41, 1700, 192 * 1024, 40e6};

/* what one launch does, from its trace (per traced block, averaged) */
typedef struct bmm_model_traffic {
  int64_t grid;
  int block;
  int nres;             /* resident blocks per SM (0: cannot launch) */
  int smem_block;       /* static + dynamic shared bytes per block */
  double useful_bytes;  /* the problem's minimal bytes (A, B, C once) */
  double distinct;      /* distinct bytes of global memory a block touches */
  double sectors;       /* 32-byte sectors its warp instructions request */
  double wavefronts;    /* shared-memory wavefronts */
  double lines_per_ld;  /* distinct 128-byte lines per global load instruction */
  double g_req, s_req;  /* global and shared warp instructions */
  double g_ideal;       /* sectors the same bytes need at best */
  double barriers;      /* __syncthreads per block */
  double s_ideal;       /* wavefronts at best */
  int nburst;           /* load bursts: per (warp, barrier interval) */
  int burst_n[64];      /* most loads of one lane in it (capped bins) */
  int burst_new[64];    /* most of those touching a sector first */
  int burst_sh[64];     /* most shared loads of one lane in it */
  double burst_cnt[64]; /* per traced warp */
  /* the L1 option (BMM_MODEL_L1): the L1 simulated over the traced loads; with
     l1_sim 0 the v1 estimate (hit1 from the footprint) is used instead */
  int l1_sim;      /* the fill granule simulated: 128 (line) or 32 (sector); 0: none */
  double l1_fill;  /* bytes the block's loads brought into L1 (its misses) */
  double l1_first; /* of those, granules fetched for the first time */
  double st_bytes; /* distinct bytes the block stores */
  double l1_hit;   /* fraction of the lanes' loads that hit L1 */
  /* the launch's work in traced blocks: the problem's bytes of C over those
     a traced block stores (0: unknown, grid). A grid-stride loop gives the
     first blocks, the traced ones, a turn more than the average where the
     work does not divide evenly (f32 3x1x20 STAGED: 4 turns against 3.006) */
  double blocks_eff;
  /* a block's turns through its grid-stride loop: the most times a warp ran
     one global store site (one output of C each turn; 1 without stores).
     The L1 and L2 hold one turn's bytes at a time, not a block's lifetime */
  double turns;
} bmm_model_traffic;

typedef struct bmm_model_result {
  double pct;                               /* predicted % of copy bandwidth */
  double t_us, dram, l2, l1, smem, lat, t0; /* the terms, microseconds */
  double rounds, hit1, hit2, inflight_kb;   /* load rounds per block, hits,
                                               bytes in flight per SM */
  char reason[96];                          /* the largest term, in words */
} bmm_model_result;

static inline void bmm_model_curve(const bmm_model_traffic *t, const bmm_model_arch *a,
                                   const bmm_model_consts *k, bmm_model_result *r) {
  const double clk = a->clock_ghz * 1e3; /* per microsecond */
  const double bps = a->copy_gbs * 1e3;  /* bytes per microsecond */
  const double work = t->blocks_eff > 0 ? t->blocks_eff : (double)t->grid; /* traced blocks */
  const double per_sm = work / a->sms;
  double waves, excess, c1, r1, ws2, rounds = 0, chain = 0, dram_b, l2_b, terms[5], s = 0, big = 0;
  int i, bi = 0;
  static const char *names[5] = {"DRAM bandwidth", "L2 bandwidth (L1 misses)",
                                 "L1 sector throughput", "shared-memory wavefronts",
                                 "latency (too few bytes in flight)"};
  memset(r, 0, sizeof *r);
  if (t->nres <= 0 || t->grid <= 0) {
    snprintf(r->reason, sizeof r->reason, "cannot launch (resources)");
    return;
  }
  /* the waves of blocks, each as long as a traced block (the first, the
     longest), then scaled to the average block's share of the work */
  waves = ceil((double)t->grid / ((double)a->sms * t->nres)) * work / (double)t->grid;
  c1 = a->l1_bytes - (double)t->nres * t->smem_block;
  if (c1 < 16384) c1 = 16384;
  r1 = (double)t->nres * t->distinct / (t->turns > 1 ? t->turns : 1);
  r->hit1 = t->l1_sim ? t->l1_hit : r1 > c1 ? c1 / r1 : 1;
  for (i = 0; i < t->nburst; ++i) {
    /* a round waits for memory if one of its loads misses: first touches,
       and re-reads that L1 lost (the L1 option: burst_new counts the L1's misses) */
    const double n = t->burst_n[i],
                 miss = t->l1_sim ? t->burst_new[i]
                                  : t->burst_new[i] + (n - t->burst_new[i]) * (1 - r->hit1);
    double rd = ceil(n / k->burst);
    if (miss < rd) rd = miss < 1 && n > 0 ? 1 : miss;
    rounds += t->burst_cnt[i] * rd;
    chain += t->burst_cnt[i] * t->burst_sh[i];
  }
  excess = t->sectors * 32 - t->distinct;
  if (excess < 0) excess = 0;
  ws2 = (double)a->sms * t->nres * t->distinct / (t->turns > 1 ? t->turns : 1);
  r->hit2 = ws2 > k->l2_frac * a->l2_bytes ? k->l2_frac * a->l2_bytes / ws2 : 1;
  if (t->l1_sim) {
    /* the L1 option: L2 serves what L1 missed (and the stores); DRAM the first fetch
       of each granule (at least the distinct sectors) and the refetches of
       evicted ones that L2 lost too */
    double first = t->l1_first + t->st_bytes, refetch = t->l1_fill - t->l1_first;
    l2_b = t->l1_fill + t->st_bytes;
    dram_b = (first > t->distinct ? first : t->distinct) + refetch * (1 - r->hit2);
  } else {
    l2_b = t->distinct + excess * (1 - r->hit1);
    dram_b = t->distinct + excess * (1 - r->hit1) * (1 - r->hit2);
  }
  terms[0] = work * dram_b / (k->eff * bps);
  terms[1] = work * l2_b / (k->l2_ratio * bps);
  terms[2] = per_sm * t->sectors / (k->l1_rate * clk);
  terms[3] = per_sm * t->wavefronts / clk;
  terms[4] = waves * (rounds * k->lat_ns + chain * k->sh_ns + k->blk_ns) * 1e-3;
  for (i = 0; i < 5; ++i) {
    s += pow(terms[i], k->p);
    if (terms[i] > big) big = terms[i], bi = i;
  }
  r->dram = terms[0], r->l2 = terms[1], r->l1 = terms[2], r->smem = terms[3], r->lat = terms[4];
  r->t0 = k->t0_us, r->rounds = rounds;
  r->inflight_kb =
      rounds > 0 ? t->nres * (t->l1_sim ? t->l1_fill : t->distinct) / rounds / 1024 : 0;
  r->t_us = pow(s, 1 / k->p) + k->t0_us;
  r->pct = 100 * t->useful_bytes / r->t_us / bps;
  snprintf(r->reason, sizeof r->reason, "%s", names[bi]);
}

#ifdef BMM_EMU_CHECK_H /* the traced layer: needs the emulator */
#include <list>
#include <unordered_map>

/* the L1 option ($BMM_MODEL_L1, bmm_model_l1_granule): an L1 simulated
   over the traced loads (g_chk.l1_seq: per barrier interval, the warps'
   n-th loads round-robin). Per block, not per SM: only the first blocks of
   a launch are traced, and the blocks resident on an SM run the same code
   on their own entries, so each is given an equal share of the L1 left
   after shared memory, (l1_bytes - nres * smem_block) / nres (at least
   16 KiB per SM, as v1), and an LRU over 128-byte lines in it
   ($BMM_MODEL_L1_REPL=random: a random resident line is replaced, as a
   set-associative, not-quite-LRU cache degrades when a cyclic walk is a
   little larger than it, where LRU loses every line). `granule` is what a
   miss fetches: 128 (the line: a warp's first loads bring in whole lines,
   which its next loads of the same rows hit) or 32 (the sector only). A
   load that finds its granule resident (or already requested by an earlier
   instruction) costs no L2 or DRAM bytes and waits for nothing; the lanes
   of one instruction see the L1 as it was before it. Fills t's l1_* fields
   and replaces its bursts' first touches by the L1's misses (most of one
   lane per warp and interval). */
static inline void bmm_model_l1(const bmm_model_arch *a, int granule, bmm_model_traffic *t) {
  const std::vector<emu_l1_access> &q = g_chk.l1_seq;
  const double nb = g_chk.l1_block.empty() ? 1 : (double)g_chk.l1_block.size();
  const double nw = g_chk.traced_warps ? (double)g_chk.traced_warps : 1;
  const uint64_t gs = (uint64_t)granule / 32; /* sectors per granule */
  double c1 = a->l1_bytes - (double)t->nres * t->smem_block, fill = 0, first = 0, hits = 0,
         ld_sectors = 0;
  size_t cap, b, i, j;
  std::vector<int> miss(g_chk.l1_slots.size() * 32, 0);
  std::vector<char> was;
  std::map<std::array<int, 3>, double> bins;
  const char *repl = getenv("BMM_MODEL_L1_REPL");
  const int random_repl = repl && strcmp(repl, "random") == 0;
  if (c1 < 16384) c1 = 16384;
  cap = (size_t)(c1 / (t->nres > 0 ? t->nres : 1) / 128);
  if (cap < 1) cap = 1;
  for (b = 0; b < g_chk.l1_block.size(); ++b) {
    const size_t end = b + 1 < g_chk.l1_block.size() ? g_chk.l1_block[b + 1] : q.size();
    std::list<uint64_t> lru; /* lines, most recent first */
    std::unordered_map<uint64_t, std::pair<std::list<uint64_t>::iterator, unsigned>> res;
    std::vector<uint64_t> held; /* random replacement: the resident lines */
    std::unordered_map<uint64_t, size_t> pos;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    std::unordered_set<uint64_t> ever, sect; /* granules fetched, sectors loaded */
    for (i = g_chk.l1_block[b]; i < end; i = j) {
      for (j = i; j < end && q[j].step == q[i].step; ++j) {
      }
      was.assign(j - i, 0);
      for (size_t x = i; x < j; ++x) {
        const uint64_t line = q[x].sector / 4;
        const unsigned bit = gs == 4 ? 15u : 1u << (q[x].sector % 4);
        auto it = res.find(line);
        was[x - i] = it != res.end() && (it->second.second & bit) == bit;
      }
      for (size_t x = i; x < j; ++x) {
        const uint64_t line = q[x].sector / 4;
        const unsigned bit = gs == 4 ? 15u : 1u << (q[x].sector % 4);
        auto it = res.find(line);
        hits += was[x - i], sect.insert(q[x].sector);
        miss[(size_t)q[x].slot * 32 + (size_t)q[x].lane] += !was[x - i];
        if (it == res.end()) {
          if (!random_repl) lru.push_front(line);
          res[line] = std::make_pair(random_repl ? lru.end() : lru.begin(), bit);
          if (random_repl) {
            pos[line] = held.size(), held.push_back(line);
            if (held.size() > cap) {
              size_t v;
              rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
              v = (size_t)(rng % (held.size() - 1)); /* not the line just brought in */
              res.erase(held[v]), pos.erase(held[v]);
              held[v] = held.back(), held.pop_back(), pos[held[v]] = v;
            }
          } else if (res.size() > cap) {
            res.erase(lru.back()), lru.pop_back();
          }
        } else {
          if (!random_repl) lru.splice(lru.begin(), lru, it->second.first);
          if ((it->second.second & bit) == bit) continue;
          it->second.second |= bit;
        }
        fill += granule;
        if (ever.insert(q[x].sector / gs).second) first += granule;
      }
    }
    ld_sectors += (double)sect.size();
  }
  for (i = 0; i < g_chk.l1_slots.size(); ++i) {
    int most = 0, l;
    for (l = 0; l < 32; ++l)
      if (miss[i * 32 + (size_t)l] > most) most = miss[i * 32 + (size_t)l];
    bins[std::array<int, 3>{{g_chk.l1_slots[i][0], most, g_chk.l1_slots[i][1]}}] += 1 / nw;
  }
  t->l1_sim = granule, t->l1_fill = fill / nb, t->l1_first = first / nb;
  t->st_bytes = t->distinct - ld_sectors * 32 / nb;
  if (t->st_bytes < 0) t->st_bytes = 0;
  t->l1_hit = q.empty() ? 1 : hits / (double)q.size();
  t->nburst = 0;
  memset(t->burst_cnt, 0, sizeof t->burst_cnt);
  for (auto &e : bins)
    if (t->nburst < 64) {
      i = (size_t)t->nburst++;
      t->burst_n[i] = e.first[0], t->burst_new[i] = e.first[1], t->burst_sh[i] = e.first[2];
      t->burst_cnt[i] = e.second;
    } else {
      t->burst_cnt[63] += e.second; /* more distinct counts than bins: merge */
    }
}

/* which L1 the model simulates: $BMM_MODEL_L1 = line or sector (the
   simulated L1 with that fill granule), anything else or unset: none (v1,
   the default: re-reads hit L1 in the fraction the blocks' footprint fits
   it). $BMM_MODEL_L1_REPL=random: random replacement instead of LRU. Not
   the default: against the H100 run it predicts more rows within 10 points
   but ranks the strategies worse (bench/notes/model.md, "L1 line reuse") */
static inline int bmm_model_l1_granule(void) {
  const char *e = getenv("BMM_MODEL_L1");
  if (e && strcmp(e, "line") == 0) return 128;
  if (e && strcmp(e, "sector") == 0) return 32;
  return 0;
}

/* the model's form beyond its version, for what a table it chose says:
   "" (v1 as it is), " L1 line", " L1 sector random", ... */
static inline const char *bmm_model_form(void) {
  const char *r = getenv("BMM_MODEL_L1_REPL");
  const int g = bmm_model_l1_granule(), rnd = r && strcmp(r, "random") == 0;
  return !g         ? ""
         : g == 128 ? (rnd ? " L1 line random" : " L1 line")
                    : (rnd ? " L1 sector random" : " L1 sector");
}

/* the traffic of the launch just traced (g_chk), for a kernel with `regs`
   registers and `static_smem` static shared bytes */
static inline int bmm_model_collect(const emu_arch *arch, const bmm_model_arch *ma, int regs,
                                    int static_smem, double useful_bytes, double c_bytes,
                                    bmm_model_traffic *t) {
  const emu_trace_totals s = emu_trace_sum();
  const double nb = g_chk.traced_blocks ? (double)g_chk.traced_blocks : 1;
  const double nw = g_chk.traced_warps ? (double)g_chk.traced_warps : 1;
  emu_occupancy o;
  memset(t, 0, sizeof *t);
  t->grid = g_chk.grid, t->block = (int)g_chk.block;
  t->smem_block = (int)g_chk.smem + static_smem;
  o = emu_occupancy_of(arch, t->block, regs, t->smem_block);
  t->nres = o.blocks;
  t->useful_bytes = useful_bytes;
  t->distinct = (double)s.g_unique_sectors * 32 / nb;
  t->sectors = (double)s.g_sectors / nb, t->g_req = (double)s.g_req / nb;
  t->g_ideal = (double)s.g_ideal / nb;
  t->wavefronts = (double)s.s_wavefronts / nb, t->s_req = (double)s.s_req / nb;
  t->s_ideal = (double)s.s_ideal / nb;
  t->barriers = (double)g_chk.traced_barriers / nb;
  t->blocks_eff = s.g_st_bytes > 0 ? c_bytes / ((double)s.g_st_bytes / nb) : 0;
  t->turns = (double)s.g_st_site / nw;
  t->lines_per_ld = g_chk.load_insts ? (double)g_chk.load_lines / (double)g_chk.load_insts : 0;
  for (auto &e : g_chk.load_burst) {
    int i;
    for (i = 0; i < t->nburst && (t->burst_n[i] != e.first[0] || t->burst_new[i] != e.first[1] ||
                                  t->burst_sh[i] != e.first[2]);
         ++i) {
    }
    if (i == t->nburst) {
      if (t->nburst == 64)
        i = 63; /* more distinct counts than bins: merge */
      else
        t->burst_n[i] = e.first[0], t->burst_new[i] = e.first[1], t->burst_sh[i] = e.first[2],
        ++t->nburst;
    }
    t->burst_cnt[i] += (double)e.second / nw;
  }
  if (bmm_model_l1_granule() && t->nres > 0) bmm_model_l1(ma, bmm_model_l1_granule(), t);
  return g_chk.traced_blocks > 0;
}

/* bmm's launch for problem p (its operands' addresses are only traced,
   never read beyond the first blocks): strategy st (AUTO: bmm's pick),
   tunables a table rule for it or NULL, arch 90 or 80. Fills r (r->pct < 0
   and a reason when it cannot predict) and, if given, the traffic, the
   kernel name and bmm_explain's text. */
static inline int bmm_model_predict(const bmm_problem *p, bmm_strategy st,
                                    const bmm_table_rule *tunables, int arch, bmm_model_result *r,
                                    bmm_model_traffic *traffic, char *kern, size_t kern_size) {
  const emu_arch *ea = arch == 80 ? &emu_arch_sm80 : &emu_arch_sm90;
  const bmm_model_arch *ma = arch == 80 ? &bmm_model_sm80 : &bmm_model_sm90;
  bmm_problem q = *p;
  bmm_model_traffic t;
  char explain[2048], kn[32];
  const emu_kernel_res *kr;
  bmm_status s;
  double ab = (double)bmm_dtype_size(p->dtype);
  memset(r, 0, sizeof *r);
  r->pct = -1;
  q.strategy = st;
  if (tunables) {
    bmm_table_rule rule[2];
    rule[0] = *tunables, rule[1] = *tunables;
    rule[1].strategy = BMM_CUDA_LOOP; /* never reached when rule[0] claims it */
    bmm_set_table(BMM_BACKEND_CUDA, rule, 2);
  }
  emu_trace_reset();
  g_chk.checks = 0, g_chk.trace_blocks = 2, g_emu_max_blocks = 2, g_emu_sms = ea->sms;
  g_emu_res_arch = arch; /* the kernels' registers: bmm caches them at its first pick */
  g_chk.block = g_chk.grid = 0, g_chk.smem = 0, g_chk.regions.clear();
  g_emu_error[0] = 0;
  bmm_explain(&q, BMM_BACKEND_CUDA, explain, sizeof explain);
  s = bmm_cuda(&q, 0);
  if (tunables) bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
  g_chk.trace_blocks = 0, g_emu_max_blocks = -1;
  emu_kernel_of_explain(explain, kn, sizeof kn); /* as the resources table names it */
  if (kern) snprintf(kern, kern_size, "%s", strstr(explain, "-> cuda_") ? kn : "-");
  if (s != BMM_OK || !strstr(explain, "-> cuda_")) {
    snprintf(r->reason, sizeof r->reason, "not run: %.80s",
             s != BMM_OK ? bmm_last_error() : "no CUDA kernel");
    return 0;
  }
  kr = emu_resources(arch, kn, bmm_dtype_name(p->dtype));
  if (!kr) {
    snprintf(r->reason, sizeof r->reason, "no resources for %s", kn);
    return 0;
  }
  {
    /* the minimal bytes: A and B once each (an operand broadcast over a
       batch dimension once per distinct entry), C written, bias read */
    double nb = 1, na = 1, nbb = 1;
    int d;
    for (d = 0; d < p->batch_dims; ++d) {
      nb *= (double)p->batch[d];
      if (p->a.batch_stride[d] != 0 || p->batch[d] == 1) na *= (double)p->batch[d];
      if (p->b.batch_stride[d] != 0 || p->batch[d] == 1) nbb *= (double)p->batch[d];
    }
    bmm_model_collect(ea, ma, kr->regs, kr->smem,
                      ((double)p->m * p->k * na + (double)p->k * p->n * nbb +
                       (double)p->m * p->n * nb + (p->bias ? (double)p->n : 0)) *
                          ab,
                      (double)p->m * p->n * nb * ab, &t);
  }
  bmm_model_curve(&t, ma, bmm_model_use, r);
  if (traffic) *traffic = t;
  return 1;
}

#endif /* BMM_EMU_CHECK_H */
#endif /* BMM_MODEL_H */
