/* tests/cuda_emu/emu_selftest.h - the tracer and the checks of emu_check.h
   tested on what they must find (build/cuda_emu/emu_check --self-test,
   part of ninja test-cuda-emu):
   1. emu_mem.h's costs on hand-made warp access patterns whose sector and
      wavefront counts are known;
   2. fixture kernels (small kernels of this file, not bmm's), each run as it
      should be written and then with one bug: the checked build must pass
      the first and name the bug in the second (an off-by-one shared index,
      a race, a misaligned 16-byte load, a read past an operand, shuffles at
      two call sites, lanes exchanging without __syncwarp, warps exchanging
      over one, a __syncwarp that half a warp never reaches);
   3. the bandwidth model (tools/model/bmm_model.h): its curve on made-up
      traffic, and the load rounds traced from two calibration fixtures;
   4. a traced bmm launch whose conflict is known: cuda_staged at K = 32 with
      a table rule padding shared rows to 64 elements (every row on one bank:
      32-way) against the default odd stride (conflict-free).
   Included by emu_test.cpp after its scheduler. */
#ifndef BMM_EMU_SELFTEST_H
#define BMM_EMU_SELFTEST_H

#include "tools/model/bmm_model.h"
#include "tools/model/model_fixtures.cuh"

static int g_st_pass, g_st_fail;

static void st_expect(const char *what, int64_t got, int64_t want) {
  if (got == want)
    ++g_st_pass;
  else {
    ++g_st_fail;
    printf("FAIL self-test %s: got %lld, want %lld\n", what, (long long)got, (long long)want);
  }
}

/* one warp: lane l at base + l * stride, `size` bytes, lanes [0, lanes) */
static void st_pattern(const char *what, uint64_t base, int64_t stride, int size, int lanes,
                       int64_t sectors, int64_t sideal, int64_t wavefronts, int64_t wideal) {
  emu_lane_access a[32];
  int64_t u, i;
  char name[160];
  int l;
  for (l = 0; l < lanes; ++l)
    a[l].addr = (uint64_t)((int64_t)base + l * stride), a[l].lane = l, a[l].size = size;
  emu_global_cost(a, lanes, &u, &i);
  snprintf(name, sizeof name, "%s: global sectors", what);
  st_expect(name, u, sectors);
  snprintf(name, sizeof name, "%s: global ideal", what);
  st_expect(name, i, sideal);
  emu_shared_cost(a, lanes, &u, &i);
  snprintf(name, sizeof name, "%s: shared wavefronts", what);
  st_expect(name, u, wavefronts);
  snprintf(name, sizeof name, "%s: shared ideal", what);
  st_expect(name, i, wideal);
}

/* the model's traced load rounds (emu_check.h's load_burst): per warp and
   barrier interval, (most global loads of a lane, most first touches, most
   shared loads) */
static int64_t st_burst(int n, int fresh, int sh) {
  auto it = g_chk.load_burst.find(std::array<int, 3>{{n, fresh, sh}});
  return it == g_chk.load_burst.end() ? 0 : it->second;
}

/* two calibration fixtures (tools/model/model_fixtures.cuh) traced, their
   counts worked out by hand */
static void st_fixture_rounds(void) {
  enum { BATCH = 64, K = 8 };
  alignas(32) static float A[BATCH * 3 * K], B[BATCH * K], C[BATCH * 3];
  const model_fx_args<float> args = {A, B, C, BATCH, K};
  g_chk.regions.clear();
  /* naive, K = 8: a lane loads A[k], B[k] for 8 k (16 loads); its A row and
     B[b] are one 32-byte sector each (32-byte aligned arrays), first touched
     at its first two loads; 64 entries = 192 threads = 6 warps with loads */
  emu_trace_reset(), g_chk.trace_blocks = 1, g_emu_error[0] = 0, g_chk.error[0] = 0;
  bmm_emu_launch(model_fx_naive<float>, 1, 256, 0, 0, args);
  st_expect("naive K=8: 6 warps with 16 loads, 2 first touches", st_burst(16, 2, 0), 6);
  if (bmmx_runner.verbose || st_burst(16, 2, 0) != 6)
    for (auto &e : g_chk.load_burst)
      printf("  naive K=8 traced: %lld warp intervals with (%d loads, %d first, %d shared)\n",
             (long long)e.second, e.first[0], e.first[1], e.first[2]);
  st_expect("naive K=8: no barrier", g_chk.traced_barriers, 0);
  /* vec32, K = 8: A span 3072 bytes = 192 16-byte loads, B 1024 = 64: warps
     0-1 load twice (A and B), 2-5 once, all first touches; after the
     barrier the 96 computing threads (warps 0-2) read 2K = 16 shared values */
  emu_trace_reset(), g_chk.trace_blocks = 1, g_emu_error[0] = 0, g_chk.error[0] = 0;
  bmm_emu_launch((model_fx_vec<float, 32, 0>), 2, 256, 32 * 4 * K * 4, 0, args);
  st_expect("vec32 K=8: warps with 2 loads, 2 first touches", st_burst(2, 2, 0), 2);
  st_expect("vec32 K=8: warps with 1 load", st_burst(1, 1, 0), 4);
  st_expect("vec32 K=8: computing warps, 16 shared loads", st_burst(0, 0, 16), 3);
  st_expect("vec32 K=8: one barrier", g_chk.traced_barriers, 1);
  g_chk.trace_blocks = 0;
  emu_trace_reset();
}

/* the model's L1 option (bmm_model_l1) on the naive fixture at K = 32, f32: every
   A row and every B entry is one 128-byte line (128-byte aligned arrays), a
   lane loads 64 values from two lines. With the block's whole L1 (one
   resident block) a lane misses twice with line fills (the first load of
   each line), 8 times with sector fills (4 sectors a line), and its loads'
   lines are fetched once: 64 entries * 4 lines * 128 bytes. With 32 blocks
   resident (4 lines each, against the 32 + 11 lines a warp walks at once)
   the LRU loses every line before its next load: 64 misses, every load. */
static double st_l1_warps(const bmm_model_traffic *t, int n, int miss) {
  int i;
  for (i = 0; i < t->nburst; ++i)
    if (t->burst_n[i] == n && t->burst_new[i] == miss)
      return t->burst_cnt[i] * (double)g_chk.traced_warps;
  return 0;
}
static void st_model_l1(void) {
  enum { BATCH = 64, K = 32 };
  alignas(128) static float A[BATCH * 3 * K], B[BATCH * K], C[BATCH * 3];
  const model_fx_args<float> args = {A, B, C, BATCH, K};
  bmm_model_traffic t;
  g_chk.regions.clear();
  emu_trace_reset(), g_chk.trace_blocks = 1, g_emu_error[0] = 0, g_chk.error[0] = 0;
  bmm_emu_launch(model_fx_naive<float>, 1, 256, 0, 0, args);
  memset(&t, 0, sizeof t);
  t.nres = 1, t.distinct = (double)emu_trace_sum().g_unique_sectors * 32;
  bmm_model_l1(&bmm_model_sm90, 128, &t);
  st_expect("L1 line fills: 6 warps, 64 loads a lane, 2 misses", (int64_t)st_l1_warps(&t, 64, 2),
            6);
  st_expect("L1 line fills: bytes fetched", (int64_t)t.l1_fill, BATCH * 4 * 128);
  st_expect("L1 line fills: nothing fetched twice", (int64_t)(t.l1_fill - t.l1_first), 0);
  st_expect("L1 line fills: stores, C's bytes", (int64_t)t.st_bytes, BATCH * 3 * 4);
  memset(&t, 0, sizeof t);
  t.nres = 1;
  bmm_model_l1(&bmm_model_sm90, 32, &t);
  st_expect("L1 sector fills: 6 warps, 8 misses a lane", (int64_t)st_l1_warps(&t, 64, 8), 6);
  memset(&t, 0, sizeof t);
  t.nres = 32;
  bmm_model_l1(&bmm_model_sm90, 128, &t);
  st_expect("L1 of 4 lines: every load misses", (int64_t)st_l1_warps(&t, 64, 64), 6);
  if (bmmx_runner.verbose || g_st_fail)
    for (int i = 0; i < t.nburst; ++i)
      printf("  L1 4 lines traced: %.2f warps with (%d loads, %d misses)\n",
             t.burst_cnt[i] * (double)g_chk.traced_warps, t.burst_n[i], t.burst_new[i]);
  g_chk.trace_blocks = 0;
  emu_trace_reset();
}

/* bmm_model_curve on made-up traffic whose answer is known: one term alone
   gives its own time; two equal terms added (p = 1) take twice as long */
static void st_model_curve(void) {
  bmm_model_traffic t;
  bmm_model_result r;
  const bmm_model_consts k = {1, 0, 0, 1, 1e30, 1, 1e30, 1, 0, 0};
  memset(&t, 0, sizeof t);
  t.grid = 132 * 8, t.block = 256, t.nres = 8, t.distinct = 1 << 20;
  t.useful_bytes = (double)t.grid * t.distinct, t.sectors = t.distinct / 32;
  bmm_model_curve(&t, &bmm_model_sm90, &k, &r);
  st_expect("model: streaming alone, % of copy", (int64_t)(r.pct + 0.5), 100);
  /* shared wavefronts taking as long as DRAM: (1 MiB / 2985 GB/s) * 1.755 GHz per block */
  t.wavefronts = (double)t.grid * t.distinct / 2985e3 * 1755 / 8;
  bmm_model_curve(&t, &bmm_model_sm90, &k, &r);
  st_expect("model: + equal shared time, p = 1", (int64_t)(r.pct + 0.5), 50);
  st_expect("model: names the tie's first term", strcmp(r.reason, "DRAM bandwidth") == 0, 1);
  /* v2: half the sectors re-read; 8 blocks' lifetime footprint (8 MiB)
     outgrows the L1, one turn's of 64 (128 KiB) does not: the re-reads hit
     it and DRAM streams the distinct bytes alone */
  t.wavefronts = 0, t.sectors = 2 * t.distinct / 32, t.turns = 64;
  bmm_model_curve(&t, &bmm_model_sm90, &k, &r);
  st_expect("model: footprint per turn, re-reads hit L1, % of copy", (int64_t)(r.pct + 0.5), 100);
  st_expect("model: footprint per turn, L1 hits %", (int64_t)(r.hit1 * 100 + 0.5), 100);
  /* the traced blocks did a turn more than the average: the launch is 0.8
     grids of them */
  t.blocks_eff = 0.8 * (double)t.grid;
  bmm_model_curve(&t, &bmm_model_sm90, &k, &r);
  st_expect("model: work in traced blocks, % of copy", (int64_t)(r.pct + 0.5), 125);
}

static void st_patterns(void) {
  /*          what                       base stride size lanes  sec ideal  wave ideal */
  st_pattern("coalesced 4-byte warp", 1024, 4, 4, 32, 4, 4, 1, 1);
  st_pattern("coalesced, 4 bytes off", 1028, 4, 4, 32, 5, 4, 1, 1);
  st_pattern("stride-2 4-byte warp", 1024, 8, 4, 32, 8, 4, 2, 1);
  st_pattern("32-way conflict (stride 32 words)", 0, 128, 4, 32, 32, 4, 32, 1);
  st_pattern("padded stride 33 words", 0, 132, 4, 32, 32, 4, 1, 1);
  st_pattern("broadcast (one word)", 256, 0, 4, 32, 1, 1, 1, 1);
  st_pattern("16-byte accesses in 4 phases", 0, 16, 16, 32, 16, 16, 4, 4);
  st_pattern("16-byte, stride 32 bytes", 0, 32, 16, 32, 32, 16, 8, 4);
  st_pattern("8-byte coalesced (2 phases)", 0, 8, 8, 32, 8, 8, 2, 2);
  st_pattern("8-byte stride-2", 0, 16, 8, 32, 16, 8, 4, 2);
  st_pattern("half warp 4-byte", 0, 4, 4, 16, 2, 2, 1, 1);
  {
    /* phases are served one after the other: 8-byte accesses, the first
       half warp 16-way on banks 0-1, the second 16-way on banks 2-3: 32
       wavefronts (as one 32-lane phase it would be 16) */
    emu_lane_access a[32];
    int64_t u, i;
    int l;
    for (l = 0; l < 32; ++l)
      a[l].addr = l < 16 ? (uint64_t)(128 * l) : (uint64_t)(4096 + 8 + 128 * (l - 16)),
      a[l].lane = l, a[l].size = 8;
    emu_shared_cost(a, 32, &u, &i);
    st_expect("8-byte, each half warp 16-way on its own banks: wavefronts", u, 32);
    /* 16-byte accesses, every 8-lane phase reading the same 128 bytes: 4
       wavefronts (one per phase; as 2 phases of 16 lanes it would be 2, as
       one of 32 lanes 1) for the ideal 1 */
    for (l = 0; l < 32; ++l)
      a[l].addr = (uint64_t)(16 * (l % 8)), a[l].lane = l, a[l].size = 16;
    emu_shared_cost(a, 32, &u, &i);
    st_expect("16-byte, each 8-lane phase the same 128 bytes: wavefronts", u, 4);
    st_expect("16-byte, each 8-lane phase the same 128 bytes: ideal", i, 1);
  }
}

/* ---- fixture kernels -------------------------------------------------- */

typedef struct st_args {
  const float *src;
  float *dst;
  int n, bug;
} st_args;

extern unsigned char bmm__cuda_smem[];

/* stage n floats through dynamic shared memory, reversed; bug: one past */
__global__ void emu_fixture_offby1(const st_args a) {
  float *s = (float *)bmm__cuda_smem;
  const int t = (int)threadIdx.x;
  if (t < a.n) s[t + a.bug] = a.src[t];
  __syncthreads();
  if (t < a.n) a.dst[t] = s[a.n - 1 - t + a.bug];
}

/* neighbour exchange; bug: no barrier between the store and the load */
__global__ void emu_fixture_race(const st_args a) {
  float *s = (float *)bmm__cuda_smem;
  const int t = (int)threadIdx.x;
  s[t] = a.src[t];
  if (!a.bug) __syncthreads();
  a.dst[t] = s[(t + 1) % (int)blockDim.x];
}

/* exchange with the lane next door through shared memory; bug: no
   __syncwarp between the store and the load */
__global__ void emu_fixture_warpx(const st_args a) {
  float *s = (float *)bmm__cuda_smem;
  const int t = (int)threadIdx.x;
  s[t] = a.src[t];
  if (!a.bug) __syncwarp();
  a.dst[t] = s[t ^ 1];
}

/* exchange with the other warp of the block; bug: __syncwarp where the
   warps need __syncthreads (it orders one warp's lanes, not two warps) */
__global__ void emu_fixture_warpcross(const st_args a) {
  float *s = (float *)bmm__cuda_smem;
  const int t = (int)threadIdx.x;
  s[t] = a.src[t];
  if (a.bug)
    __syncwarp();
  else
    __syncthreads();
  a.dst[t] = s[t ^ 32];
}

/* a warp sum through shared memory; bug: odd lanes leave before the
   __syncwarp (a full mask needs every lane) */
__global__ void emu_fixture_warppart(const st_args a) {
  float *s = (float *)bmm__cuda_smem;
  const int t = (int)threadIdx.x;
  if (a.bug && (t & 1)) return;
  s[t] = a.src[t];
  __syncwarp();
  a.dst[t] = s[t ^ 2];
}

/* 16-byte loads; bug: from one element past a 16-byte boundary */
__global__ void emu_fixture_misaligned(const st_args a) {
  const int t = (int)threadIdx.x;
  if (t < a.n / 4 - 1) {
    uint4 u = __ldg((const uint4 *)(a.src + a.bug) + t);
    float x[4];
    memcpy(x, &u, sizeof x);
    a.dst[t] = x[0] + x[1] + x[2] + x[3];
  }
}

/* a plain copy; bug: every thread reads one element further (the last one
   past the operand) */
__global__ void emu_fixture_oob(const st_args a) {
  const int t = (int)threadIdx.x;
  if (t < a.n) a.dst[t] = a.src[t + a.bug];
}

/* the same shuffle at a second call site (a function of its own, so that
   the compiler cannot merge the two) */
static __attribute__((noinline)) float st_shfl_elsewhere(float v) {
  return __shfl_xor_sync(0xffffffffu, v, 1, 32);
}

/* a pair sum; bug: odd lanes shuffle from another call site */
__global__ void emu_fixture_shfl(const st_args a) {
  const int t = (int)threadIdx.x;
  float v = a.src[t];
  if (a.bug && (t & 1))
    v += st_shfl_elsewhere(v);
  else
    v += __shfl_xor_sync(0xffffffffu, v, 1, 32);
  a.dst[t] = v;
}

/* run one fixture clean and mutated: the clean run must pass every check,
   the mutant must fail with `want` in its message */
static void st_fixture(const char *what, void (*launch)(const st_args *, size_t), size_t smem,
                       const char *want) {
  enum { N = 64 };
  alignas(16) float src[N], dst[N];
  int bug;
  for (bug = 0; bug < 2; ++bug) {
    st_args a = {src, dst, N, bug};
    char name[160];
    int l;
    for (l = 0; l < N; ++l)
      src[l] = (float)l, dst[l] = 0;
    g_chk.regions.clear();
    emu_check_region("src", src, N, 4, NULL, 0);
    emu_check_region("dst", dst, N, 4, NULL, 1);
    g_emu_error[0] = 0, g_chk.error[0] = 0;
    launch(&a, smem);
    snprintf(name, sizeof name, "%s (%s) caught", what, bug ? "mutant" : "clean");
    if (!bug)
      st_expect(name, g_emu_error[0] != 0, 0);
    else
      st_expect(name, strstr(g_emu_error, want) != NULL, 1);
    if (g_emu_error[0] && (bmmx_runner.verbose || (!bug) || !strstr(g_emu_error, want)))
      printf("  %s: %s\n", what, g_emu_error);
    else if (bug && bmmx_runner.verbose)
      printf("  %s: %s\n", what, g_emu_error);
  }
  g_chk.regions.clear();
}

#define ST_LAUNCHER(k, block)                                 \
  static void st_launch_##k(const st_args *a, size_t smem) {  \
    const st_args args = *a;                                  \
    bmm_emu_launch(emu_fixture_##k, 1, block, smem, 0, args); \
  }
ST_LAUNCHER(offby1, 64)
ST_LAUNCHER(race, 64)
ST_LAUNCHER(misaligned, 32)
ST_LAUNCHER(oob, 64)
ST_LAUNCHER(shfl, 32)
ST_LAUNCHER(warpx, 64)
ST_LAUNCHER(warpcross, 64)
ST_LAUNCHER(warppart, 32)
#undef ST_LAUNCHER

/* bmm's own STAGED, traced: shared-memory wavefronts per request of the
   compute loop with rows 64 elements apart (32-way) and the default odd
   stride (1) */
static double st_staged_wavefronts(int pad) {
  enum { BATCH = 64, M = 3, K = 32 };
  static float A[BATCH * M * K], B[BATCH * K], C[BATCH * M];
  bmm_table_rule r[2];
  bmm_problem p = bmm_problem_rowmajor(BMM_F32, BATCH, M, 1, K, A, B, C);
  memset(r, 0, sizeof r);
  r[0].strategy = BMM_CUDA_STAGED, r[0].pad = pad, r[0].threads = 96, r[0].batch_per_block = 32;
  r[1].strategy = BMM_CUDA_LOOP;
  bmm_set_table(BMM_BACKEND_CUDA, r, 2);
  emu_trace_reset();
  g_chk.regions.clear();
  g_chk.trace_blocks = 1;
  g_emu_error[0] = 0, g_chk.error[0] = 0;
  if (bmm_cuda(&p, 0) != BMM_OK) printf("  staged pad=%d: %s\n", pad, bmm_last_error());
  g_chk.trace_blocks = 0;
  bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
  emu_trace_totals t = emu_trace_sum();
  /* the loads only: the compute loop (the staging stores are scattered
     scalar stores, conflict-free either way at this stride) */
  int64_t req = 0, units = 0;
  for (auto &kv : g_chk.sites)
    if (kv.first.second == EMU_SHARED * 2) req += kv.second.requests, units += kv.second.units;
  (void)t;
  return req ? (double)units / (double)req : 0;
}

/* residency from resources: the occupancy calculator's answers */
static void st_occupancy(void) {
  emu_occupancy o = emu_occupancy_of(&emu_arch_sm90, 256, 128, 8320);
  st_expect("sm_90 256 threads x 128 registers: blocks", o.blocks, 2);
  st_expect("  limited by registers", strcmp(o.limit, "registers") == 0, 1);
  o = emu_occupancy_of(&emu_arch_sm90, 256, 46, 0);
  st_expect("sm_90 256 threads x 46 registers (48 allocated): blocks", o.blocks, 5);
  o = emu_occupancy_of(&emu_arch_sm90, 128, 30, 41664);
  st_expect("sm_90 128 threads, 41664 B shared: blocks", o.blocks, 5);
  st_expect("  limited by shared memory", strcmp(o.limit, "shared memory") == 0, 1);
  o = emu_occupancy_of(&emu_arch_sm80, 128, 30, 41664);
  st_expect("sm_80 128 threads, 41664 B shared: blocks", o.blocks, 3);
  o = emu_occupancy_of(&emu_arch_sm90, 64, 16, 0);
  st_expect("sm_90 64 threads x 16 registers: 32-block limit", o.threads, 2048);
  o = emu_occupancy_of(&emu_arch_sm90, 32, 16, 0);
  st_expect("sm_90 32-thread blocks: 32 blocks = 1024 threads", o.threads, 1024);
}

static int selftest_main(void) {
  if (!g_chk.checks) {
    printf("SKIP: self-test needs the checked build (build/cuda_emu/emu_check)\n");
    return 0;
  }
  st_patterns();
  st_occupancy();
  st_model_curve();
  st_fixture_rounds();
  st_model_l1();
  st_fixture("off-by-one shared index", st_launch_offby1, 64 * 4, "past the 256 bytes launched");
  st_fixture("shared store then neighbour's load, no barrier", st_launch_race, 64 * 4,
             "shared-memory race");
  st_fixture("16-byte load one element off", st_launch_misaligned, 0, "misaligned 16-byte load");
  st_fixture("read one past the operand", st_launch_oob, 0, "outside every operand's footprint");
  st_fixture("shuffles at two call sites", st_launch_shfl, 0, "different call sites");
  st_fixture("lanes exchange, no __syncwarp", st_launch_warpx, 64 * 4, "shared-memory race");
  st_fixture("warps exchange over __syncwarp", st_launch_warpcross, 64 * 4, "shared-memory race");
  st_fixture("__syncwarp with half the lanes gone", st_launch_warppart, 32 * 4,
             "only part of a warp");
  {
    const double conflicted = st_staged_wavefronts(32), padded = st_staged_wavefronts(0);
    printf("  cuda_staged f32 K=32 compute loop: %.2f shared wavefronts per load with rows 64 "
           "apart, %.2f with the default odd stride\n",
           conflicted, padded);
    /* A's rows all on one bank (32-way), B's entries 64 apart shared by
       the 3 outputs of an entry (11-way): about 21 on average */
    st_expect("staged K=32 rows 64 apart: conflicts", conflicted >= 16, 1);
    st_expect("staged K=32 odd stride: conflict-free", (int64_t)(padded + 0.5), 1);
  }
  printf("self-test: %d passed, %d failed\n", g_st_pass, g_st_fail);
  return g_st_fail != 0;
}

#endif /* BMM_EMU_SELFTEST_H */
