/* tests/cuda_emu/emu_test.cpp - bmm_cuda.cuh's kernels run on the host, with
   no GPU: real coverage of the CUDA code in CI.

   build/cuda_emu/emu_test          the default set: every CUDA strategy (and
                                    AUTO) x dtype x bmm_cases.h layout it
                                    claims; 7 minutes beside ninja test's other
                                    jobs on the 2-core dev VM (emu_check
                                    below: 8 alone; 2026-11-30)
   build/cuda_emu/emu_test --full   more shapes, every alpha/beta/bias variant
                                    and pointer offset on each
   build/cuda_emu/emu_test --explain  only the check that explain names what launches
   build/cuda_emu/emu_test --strategy cuda_staged  that strategy's rows only
   build/cuda_emu/emu_test --shard I/N  the grid's (strategy x dtype x layout
                                    x shape) cases I, I + N, I + 2N, ...; the
                                    checks after the grid (tunables, grid
                                    stride, table rules, explain) in shard 0
                                    only. `ninja test` runs emu_check in two
                                    shards at once (both cores) and shard 0/8
                                    of the g++ build
   -v                               print every case, not only failures
   Build and run: ninja test-cuda-emu (tests/cuda_emu/emu.ninja).

   build/cuda_emu/emu_check is this file built by clang with every load and
   store instrumented (emu_check.h): the same cases, and each also fails on an
   out-of-bounds shared access, an access outside the operands, a misaligned
   access or a shared-memory race. It adds
   build/cuda_emu/emu_check --self-test     emu_selftest.h: the cost model on
                                            hand-made patterns, a fixture
                                            kernel per check, clean + mutant
   build/cuda_emu/emu_check --trace cuda_staged f32 1000000 3 1 32
                                            the first 2 blocks of that launch
                                            (as on an H100) traced: 32-byte
                                            sectors and shared wavefronts per
                                            request, per call site

   emu_prelude.h maps the CUDA language so that g++ compiles bmm_cuda.cuh;
   this file schedules each launch (every thread a fiber, see the prelude)
   and answers the CUDA runtime calls as an H100 with one multiprocessor
   would, so grids stay small and every grid-stride loop turns several times.

   Each case forces a strategy (AUTO too), poisons C where beta == 0, offsets
   every pointer by 0 or 1 element (STAGED's misaligned vector heads), checks
   every batch entry against bmm_reference with bmm_cases.h's bound, and
   checks that no element of A, B, bias, or of C outside the outputs changed.

   WHAT THIS CHECKS: arithmetic, indexing, shared-memory staging, barrier
   placement (a fiber runs ahead to its next barrier, so a missing one reads
   stale or garbage shared memory), shuffles (all lanes, one call site),
   launch shapes and shared-memory sizes; in the checked build also the
   faults and races above. WHAT IT DOES NOT: speed, or the memory model
   (fibers on one OS thread see every store at once); --trace counts sectors
   and bank conflicts but predicts no time. bench/gpu_check.sh measures on a
   GPU. */
#define BMM_IMPLEMENTATION
#include "emu_prelude.h" /* first: bmm_cuda.cuh sees BMM__CUDA_EMULATED */
#ifdef EMU_BMM_H_FIRST
/* build/cuda_emu/emu_order: bmm.h's implementation before bmm_cuda.cuh's
   works too (the CUDA backend registers itself at program start) */
#include "bmm.h"
#endif
#include "bmm_cuda.cuh"
#include "emu_check.h" /* the checks and the tracer (active in the clang build) */
#include "emu_occupancy.h"
#include "tests/bmm_cases.h"
#include "tests/bmm_test.h" /* BMMX_CHECK, the summary line emu.ninja greps */

#include <sys/mman.h>
#include <ucontext.h>
#include <vector>

/* ---- the device: fibers, barriers, shuffles -------------------------------- */

bmm_emu_dim bmm_emu_thread_idx, bmm_emu_block_idx, bmm_emu_block_dim, bmm_emu_grid_dim;

enum { EMU_RUN, EMU_BAR, EMU_SHFL, EMU_WSYNC, EMU_MMA, EMU_DONE };
enum { EMU_STACK = 64 * 1024, EMU_MAX_THREADS = 1024, EMU_GUARD = 4096 /* elements */ };

typedef struct emu_fiber {
  ucontext_t ctx;
  int state;
  double shfl_val, shfl_res;
  int shfl_mask, shfl_width;
  unsigned shfl_full;
  const void *shfl_site;       /* the kernel's call site: every lane must share it */
  unsigned wsync_mask;         /* __syncwarp's */
  unsigned mma_a[4], mma_b[2]; /* bmm_emu_mma's fragments: A, B (two halves a word) */
  float mma_d[4];              /* and the lane's four sums, in and out */
  int mma_bf16;
} emu_fiber;

static emu_fiber g_fibers[EMU_MAX_THREADS];
static std::vector<char> g_stacks;
static ucontext_t g_sched;
static int g_cur;
static void (*g_kernel)(const void *);
static const void *g_args;
static char g_emu_error[256]; /* the first launch error since the last case */
static long g_launches;
/* the last launch, for the explain check */
const char *bmm_emu_last_kernel;
static int64_t g_last_grid, g_last_block;
static size_t g_last_smem;
static int g_emu_sms = 1; /* multiprocessors the emulated device reports */
/* the shared memory per block it grants after opt-in (check_auto_plans varies it) */
static int g_emu_smem_optin = BMM_EMU_SMEM_MAX;
static int64_t g_emu_max_blocks = -1; /* run only the first blocks of a launch (tracing) */
/* the architecture whose ptxas counts cudaFuncGetAttributes answers (the
   model's --arch 80 sets 80) */
static int g_emu_res_arch = 90;
/* the compute capability the emulated device reports (major * 10 + minor):
   an H100's; run_mma_rules sets 75 (no mma.sync m16n8k16) */
static int g_emu_cc = 90;

/* these run inside fibers: never traced (emu_check.h) */
EMU_NOTRACE static void emu_fiber_main(void) {
  g_kernel(g_args);
  g_fibers[g_cur].state = EMU_DONE; /* uc_link returns to the scheduler */
}

EMU_NOTRACE static void emu_yield(int state) {
  g_fibers[g_cur].state = state;
  swapcontext(&g_fibers[g_cur].ctx, &g_sched);
}

EMU_NOTRACE void bmm_emu_syncthreads(void) { emu_yield(EMU_BAR); }
EMU_NOTRACE void bmm_emu_syncwarp(unsigned mask) {
  g_fibers[g_cur].wsync_mask = mask;
  emu_yield(EMU_WSYNC);
}

/* cp.async: per thread, its copies in issue order, each tagged with its
   group (the thread's commits before it). A copy lands (its bytes written,
   its shared store checked and traced) at its thread's wait for its group on
   even launches and at its issue on odd ones: a kernel that reads a buffer
   before the wait and barrier fails the first way, one that refills a
   buffer other threads still read fails the second. Plain arrays, sized at
   the launch: these hooks run inside fibers, where the checked build traces
   every access of code it instruments (std::vector's inlined code too). */
typedef struct emu_copy {
  void *dst;
  const void *src, *site;
  int bytes;
  long group;
} emu_copy;
static emu_copy *g_cp; /* thread t's copies at g_cp + t * g_cp_cap */
static int g_cp_cap, g_cp_n[EMU_MAX_THREADS], g_cp_overflow;
static long g_cp_commits[EMU_MAX_THREADS];
static int g_cp_eager; /* this launch lands copies at their issue */

EMU_NOTRACE static void emu_cp_land(const emu_copy *c) {
  bmm_emu_vec_access(c->site, c->dst, c->bytes, 1);
  memcpy(c->dst, c->src, (size_t)c->bytes);
}
EMU_NOTRACE void bmm_emu_cp_async(void *dst, const void *src, int bytes) {
  emu_copy c = {dst, src, __builtin_return_address(0), bytes, g_cp_commits[g_cur]};
  bmm_emu_vec_access(c.site, src, bytes, 0);
  if (g_cp_eager)
    emu_cp_land(&c);
  else if (g_cp_n[g_cur] < g_cp_cap)
    g_cp[(size_t)g_cur * (size_t)g_cp_cap + (size_t)g_cp_n[g_cur]++] = c;
  else
    g_cp_overflow = 1;
}
EMU_NOTRACE void bmm_emu_cp_commit(void) { ++g_cp_commits[g_cur]; }
EMU_NOTRACE void bmm_emu_cp_wait(int pending) {
  emu_copy *q = g_cp + (size_t)g_cur * (size_t)g_cp_cap;
  int i = 0, j;
  while (i < g_cp_n[g_cur] && q[i].group < g_cp_commits[g_cur] - pending)
    emu_cp_land(&q[i++]);
  for (j = i; j < g_cp_n[g_cur]; ++j)
    q[j - i] = q[j];
  g_cp_n[g_cur] -= i;
}

EMU_NOTRACE double bmm_emu_shfl_xor(unsigned mask, double v, int lane_mask, int width) {
  emu_fiber *f = &g_fibers[g_cur];
  f->shfl_val = v, f->shfl_mask = lane_mask, f->shfl_width = width, f->shfl_full = mask;
  f->shfl_site = __builtin_return_address(0);
  emu_yield(EMU_SHFL);
  return f->shfl_res;
}

EMU_NOTRACE void bmm_emu_mma(int bf16, float *d, const unsigned *a, const unsigned *b) {
  emu_fiber *f = &g_fibers[g_cur];
  memcpy(f->mma_a, a, sizeof f->mma_a);
  memcpy(f->mma_b, b, sizeof f->mma_b);
  memcpy(f->mma_d, d, sizeof f->mma_d);
  f->mma_bf16 = bf16;
  f->shfl_site = __builtin_return_address(0);
  emu_yield(EMU_MMA);
  memcpy(d, f->mma_d, sizeof f->mma_d);
}

static float emu_half(unsigned bits, int bf16) {
  return bf16 ? bmm_bf16_to_f32((uint16_t)bits) : bmm_f16_to_f32((uint16_t)bits);
}

/* One m16n8k16 for the warp whose 32 lanes f wait in bmm_emu_mma: the 16 x
   16 A, 16 x 8 B and 16 x 8 sums gathered from the lanes' fragments by the
   PTX ISA's layout (g = lane / 4, t = lane % 4; A's register r holds row g +
   8 (r % 2), k 2t + 8 (r / 2) and the next k; B's register r holds column g,
   k 2t + 8 r and the next; sum r is row g + 8 (r / 2), column 2t + r % 2),
   each sum plus its 16 products in k order in f32, scattered back. */
static void emu_mma_warp(emu_fiber *f) {
  float A[16][16], B[16][8], D[16][8];
  const int bf = f[0].mma_bf16;
  int l, r, i, j, kk;
  for (l = 0; l < 32; ++l) {
    const int g = l >> 2, t = l & 3;
    for (r = 0; r < 4; ++r) {
      A[g + 8 * (r & 1)][2 * t + 8 * (r >> 1)] = emu_half(f[l].mma_a[r] & 0xffffu, bf);
      A[g + 8 * (r & 1)][2 * t + 8 * (r >> 1) + 1] = emu_half(f[l].mma_a[r] >> 16, bf);
      D[g + 8 * (r >> 1)][2 * t + (r & 1)] = f[l].mma_d[r];
    }
    for (r = 0; r < 2; ++r) {
      B[2 * t + 8 * r][g] = emu_half(f[l].mma_b[r] & 0xffffu, bf);
      B[2 * t + 8 * r + 1][g] = emu_half(f[l].mma_b[r] >> 16, bf);
    }
  }
  for (i = 0; i < 16; ++i)
    for (j = 0; j < 8; ++j)
      for (kk = 0; kk < 16; ++kk)
        D[i][j] += A[i][kk] * B[kk][j]; /* exact product, one f32 rounding a sum */
  for (l = 0; l < 32; ++l)
    for (r = 0; r < 4; ++r)
      f[l].mma_d[r] = D[(l >> 2) + 8 * (r >> 1)][2 * (l & 3) + (r & 1)];
}

static void emu_error(const char *what, int64_t block) {
  if (!g_emu_error[0])
    snprintf(g_emu_error, sizeof g_emu_error, "emulated launch %ld, block %lld: %s", g_launches,
             (long long)block, what);
}

/* A warp whose 32 lanes all wait in a shuffle exchanges values; one whose 32
   lanes all wait in __syncwarp goes on (and its lanes' shared accesses are
   ordered from then on, emu_check.h). Any other mix of shuffle, __syncwarp,
   barrier or exit in one warp is a kernel bug (a full mask needs every
   lane). Returns whether a warp went on. */
static int emu_shuffles(int nthreads, int64_t block) {
  int w, l, released = 0;
  for (w = 0; w < nthreads / 32; ++w) {
    emu_fiber *f = &g_fibers[w * 32];
    int at = 0, at_w = 0, at_m = 0;
    for (l = 0; l < 32; ++l)
      at += f[l].state == EMU_SHFL, at_w += f[l].state == EMU_WSYNC, at_m += f[l].state == EMU_MMA;
    if (at_m) {
      if (at_m != 32) {
        emu_error("mma.sync reached by only part of a warp", block);
        return -1;
      }
      for (l = 1; l < 32; ++l)
        if (f[l].shfl_site != f[0].shfl_site || f[l].mma_bf16 != f[0].mma_bf16) {
          emu_error("mma.sync reached from different call sites or types by lanes of one warp",
                    block);
          return -1;
        }
      emu_mma_warp(f);
      for (l = 0; l < 32; ++l)
        f[l].state = EMU_RUN;
      released = 1;
      continue;
    }
    if (at_w) {
      if (at_w != 32) {
        emu_error("__syncwarp() reached by only part of a warp", block);
        return -1;
      }
      for (l = 0; l < 32; ++l)
        if (f[l].wsync_mask != 0xffffffffu) {
          emu_error("__syncwarp() with a partial mask", block);
          return -1;
        }
      for (l = 0; l < 32; ++l)
        f[l].state = EMU_RUN;
      emu_check_warpsync(w);
      released = 1;
      continue;
    }
    if (at == 0) continue;
    if (at != 32) {
      emu_error("shuffle reached by only part of a warp", block);
      return -1;
    }
    for (l = 1; l < 32; ++l)
      if (f[l].shfl_site != f[0].shfl_site) {
        /* on sm_70+ lanes at different shuffles do not exchange with each
           other: the values would be undefined */
        emu_error("shuffle reached from different call sites by lanes of one warp", block);
        return -1;
      }
    for (l = 0; l < 32; ++l) {
      const int src = l ^ f[l].shfl_mask, width = f[l].shfl_width;
      if (f[l].shfl_full != 0xffffffffu || width < 1 || width > 32 || (width & (width - 1)) ||
          f[l].shfl_mask != f[0].shfl_mask || width != f[0].shfl_width) {
        emu_error("shuffle with a partial mask or lanes disagreeing on offset/width", block);
        return -1;
      }
      /* outside the lane's width-segment the lane keeps its own value */
      f[l].shfl_res = src / width == l / width ? f[src].shfl_val : f[l].shfl_val;
    }
    for (l = 0; l < 32; ++l)
      f[l].state = EMU_RUN;
    released = 1;
  }
  return released;
}

/* One block: fibers run in turn (reversed on odd launches, so an order
   dependence shows either way) until each waits or ends; then shuffles
   exchange, or, with every live thread at __syncthreads, all go on. */
static void emu_block(int nthreads, int64_t block, int reverse) {
  int t, i;
  for (t = 0; t < nthreads; ++t) {
    emu_fiber *f = &g_fibers[t];
    getcontext(&f->ctx);
    f->ctx.uc_stack.ss_sp = &g_stacks[(size_t)t * EMU_STACK];
    f->ctx.uc_stack.ss_size = EMU_STACK;
    f->ctx.uc_link = &g_sched;
    makecontext(&f->ctx, emu_fiber_main, 0);
    f->state = EMU_RUN;
  }
  for (t = 0; t < nthreads; ++t)
    g_cp_n[t] = 0, g_cp_commits[t] = 0;
  g_cp_overflow = 0;
  bmm_emu_block_idx.x = (unsigned)block;
  emu_check_block_begin(block, nthreads);
  for (;;) {
    int nbar = 0, ndone = 0, r;
    for (i = 0; i < nthreads; ++i) {
      t = reverse ? nthreads - 1 - i : i;
      if (g_fibers[t].state != EMU_RUN) continue;
      g_cur = t;
      bmm_emu_thread_idx.x = (unsigned)t;
      emu_check_enter(t, &g_stacks[(size_t)t * EMU_STACK], EMU_STACK);
      swapcontext(&g_sched, &g_fibers[t].ctx);
      emu_check_leave();
    }
    r = emu_shuffles(nthreads, block);
    if (r < 0) break;
    if (r > 0) continue;
    for (t = 0; t < nthreads; ++t)
      nbar += g_fibers[t].state == EMU_BAR, ndone += g_fibers[t].state == EMU_DONE;
    if (nbar == 0) break;
    if (ndone) {
      emu_error("__syncthreads() with some threads of the block already exited", block);
      break;
    }
    emu_check_barrier();
    for (t = 0; t < nthreads; ++t)
      g_fibers[t].state = EMU_RUN;
  }
  for (t = 0; t < nthreads; ++t)
    if (g_cp_n[t]) {
      /* a copy still in flight when its thread exits lands nowhere useful */
      emu_error("cp.async copies issued but never waited for", block);
      break;
    }
  if (g_cp_overflow)
    emu_error("more cp.async copies in flight than the shared memory holds", block);
  emu_check_block_end(nthreads);
  if (g_chk.error[0]) emu_error(g_chk.error, block);
}

void bmm_emu_run(void (*kernel)(const void *), int64_t grid, int64_t block, size_t smem,
                 const void *args, size_t args_size) {
  int64_t b;
  ++g_launches;
  g_last_grid = grid, g_last_block = block, g_last_smem = smem;
  /* the limits a real launch would fail on; the kernels also need whole warps */
  if (grid < 1 || grid > 2147483647LL || block < 32 || block > EMU_MAX_THREADS || block % 32 ||
      smem > BMM_EMU_SMEM_MAX) {
    char what[128];
    snprintf(what, sizeof what, "bad launch grid=%lld block=%lld smem=%zu", (long long)grid,
             (long long)block, smem);
    emu_error(what, -1);
    return;
  }
  if (g_stacks.empty()) g_stacks.resize((size_t)EMU_MAX_THREADS * EMU_STACK);
  /* dynamic shared memory starts as garbage on a GPU: never zeros here */
  memset(bmm__cuda_smem, 0xA5, smem);
  emu_check_launch(smem, args, args_size, grid, block);
  g_cp_eager = (int)(g_launches & 1);
  /* a thread's copies in flight: at most its share of the launch's shared
     memory in 4-byte copies, plus the heads of a few staging calls */
  if (g_cp_cap < (int)(smem / 4 / (size_t)block) + 64) {
    g_cp_cap = (int)(smem / 4 / (size_t)block) + 64;
    free(g_cp);
    g_cp = (emu_copy *)calloc((size_t)EMU_MAX_THREADS * (size_t)g_cp_cap, sizeof *g_cp);
  }
  g_kernel = kernel, g_args = args;
  bmm_emu_block_dim.x = (unsigned)block, bmm_emu_grid_dim.x = (unsigned)grid;
  bmm_emu_block_dim.y = bmm_emu_block_dim.z = bmm_emu_grid_dim.y = bmm_emu_grid_dim.z = 1;
  for (b = 0; b < grid && !g_emu_error[0] && (g_emu_max_blocks < 0 || b < g_emu_max_blocks); ++b)
    emu_block((int)block, b, (int)(g_launches & 1));
}

/* ---- the runtime calls bmm_cuda.cuh makes: an H100 with one multiprocessor */

extern "C" {
cudaError_t cudaGetDevice(int *d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int) {
  switch (a) {
  case cudaDevAttrComputeCapabilityMajor: *v = g_emu_cc / 10; break;
  case cudaDevAttrComputeCapabilityMinor: *v = g_emu_cc % 10; break;
  case cudaDevAttrMultiProcessorCount: *v = g_emu_sms; break;
  case cudaDevAttrPageableMemoryAccess: *v = 1; break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = g_emu_smem_optin; break;
  case cudaDevAttrMaxThreadsPerMultiProcessor: *v = 2048; break;
  /* an H100's 228 KiB a multiprocessor: 1 KiB over the opt-in per block */
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = g_emu_smem_optin + 1024; break;
  case cudaDevAttrReservedSharedMemoryPerBlock: *v = 1024; break;
  case cudaDevAttrMaxSharedMemoryPerBlock: *v = 48 * 1024; break;
  case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
  case cudaDevAttrMaxRegistersPerMultiprocessor: *v = 65536; break;
  case cudaDevAttrMaxRegistersPerBlock: *v = 65536; break;
  case cudaDevAttrWarpSize: *v = 32; break;
  default: *v = 0;
  }
  return cudaSuccess;
}
/* a bad launch is reported the way the runtime would: by the next
   cudaGetLastError, which bmm checks after every launch */
cudaError_t cudaGetLastError(void) { return g_emu_error[0] ? cudaErrorLaunchFailure : cudaSuccess; }
const char *cudaGetErrorString(cudaError_t) { return g_emu_error[0] ? g_emu_error : "emulated"; }
const char *cudaGetErrorName(cudaError_t) { return "emulated"; }
/* host memory the device can read (pageable access is reported too) */
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *at, const void *p) {
  memset(at, 0, sizeof *at);
  at->type = cudaMemoryTypeManaged;
  at->devicePointer = (void *)p;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *c, int, int) {
  *c = 0;
  return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute, int) { return cudaSuccess; }
}

/* a kernel's registers and static shared memory as ptxas allocated them for
   g_emu_res_arch (emu_occupancy.h's emu_resources);
   a kernel the table lacks is an error, as a kernel without an image for the
   device is on a GPU: bmm then sizes the grid by threads alone */
cudaError_t bmm_emu_func_attributes(struct cudaFuncAttributes *fa, const void *func,
                                    const char *kernel, const char *dtype) {
  const emu_kernel_res *r;
  if (!func) return cudaErrorInvalidDeviceFunction;
  if (strncmp(kernel, "bmm__cuda_", 10) == 0) kernel += 10;
  r = emu_resources(g_emu_res_arch, kernel, dtype);
  if (!r) return cudaErrorInvalidDeviceFunction;
  memset(fa, 0, sizeof *fa);
  fa->numRegs = r->regs, fa->sharedSizeBytes = (size_t)r->smem;
  /* the TILED kernels' __launch_bounds__(256...), MMA's (128); every other kernel takes 1024 */
  fa->maxThreadsPerBlock = strncmp(kernel, "tiled", 5) == 0 ? 256
                           : strcmp(kernel, "mma") == 0     ? 128
                                                            : 1024;
  return cudaSuccess;
}

/* ---- the cases ------------------------------------------------------------ */

static const bmm_strategy g_strategies[] = {BMM_STRATEGY_AUTO,
#define X(E, name, l, mm, mn, mk, cf, d) BMM_##E,
                                            BMM_CUDA_STRATEGIES(X)
#undef X
};
#define NSTRAT ((int)(sizeof g_strategies / sizeof g_strategies[0]))
static const bmm_dtype g_dtypes[] = {
#define X(E, name, T, sz, ...) BMM_##E,
    BMM_DTYPES(X)
#undef X
};
#define NDT ((int)(sizeof g_dtypes / sizeof g_dtypes[0]))
/* passes per strategy x dtype x layout, for the coverage line */
static int g_covered[NSTRAT][NDT][BMMX_LAYOUT_COUNT];

static int changed(const std::vector<char> &a, const std::vector<char> &b) {
  return memcmp(a.data(), b.data(), a.size()) != 0;
}

/* One case: strategy si (index in g_strategies), optional table `rule`. */
static void run(const bmmx_case *c, double alpha, double beta, int bias, int si, int off,
                const bmm_table_rule *rule) {
  const size_t es = bmm_dtype_size(c->dtype);
  const bmmx_sizes_t sz = bmmx_sizes(c);
  /* every buffer sits between guard zones: a stray store lands in one and
     fails the case instead of corrupting the host heap */
  const int64_t pre = EMU_GUARD + off, na = sz.a + pre + EMU_GUARD, nb = sz.b + pre + EMU_GUARD,
                nc = sz.c + pre + EMU_GUARD, nbias = c->n + pre + EMU_GUARD;
  const int use_ab = alpha != 0.0 && c->k > 0;
  std::vector<char> A(na * es), B(nb * es), C0(nc * es), C(nc * es), Bi(nbias * es);
  uint64_t seed = 99 + (uint64_t)c->k * 31 + (uint64_t)c->m;
  char name[256];
  bmm_problem hp, dp;
  bmm_plan pl;
  bmm_status s;
  int64_t nbt, bi, bad = 0, e, i, j;
  double worst = 0;
  int di;
  bmmx_fill(c->dtype, A.data(), na, &seed);
  bmmx_fill(c->dtype, B.data(), nb, &seed);
  bmmx_fill(c->dtype, Bi.data(), nbias, &seed);
  if (beta != 0)
    bmmx_fill(c->dtype, C0.data(), nc, &seed);
  else
    bmmx_poison(c->dtype, C0.data(), nc); /* beta == 0 must never read C */
  C = C0;
  const std::vector<char> A0 = A, B0 = B, Bi0 = Bi;
  /* hp reads the untouched copy C0 (the reference needs C before the call) */
  hp = bmmx_problem(c, A.data() + pre * es, B.data() + pre * es, C0.data() + pre * es, NULL);
  dp = bmmx_problem(c, A.data() + pre * es, B.data() + pre * es, C.data() + pre * es, NULL);
  hp.alpha = dp.alpha = alpha, hp.beta = dp.beta = beta;
  if (bmm_dtype_is_complex(c->dtype)) {
    /* conj flags and imaginary parts follow the variant and the offset, so
       every strategy meets each conj pair and a real and a complex alpha
       and beta: (1, 0) plain, conj on both with off; (alpha, beta < 0)
       conj on one operand, complex alpha and beta */
    hp.a.conj = dp.a.conj = off;
    hp.b.conj = dp.b.conj = beta < 0 ? !off : off;
    hp.alpha_im = dp.alpha_im = alpha != 0 && beta != 0 ? 0.5 : 0.0;
    hp.beta_im = dp.beta_im = beta != 0 ? -0.25 : 0.0;
  }
  if (bias || c->layout == BMMX_SHARED_B_BIAS) hp.bias = dp.bias = Bi.data() + pre * es;
  if (!use_ab) hp.a.ptr = hp.b.ptr = dp.a.ptr = dp.b.ptr = NULL;
  dp.strategy = g_strategies[si];
  snprintf(name, sizeof name,
           "%s %s batch=%lld m=%lld n=%lld k=%lld %s alpha=%g beta=%g bias=%d off=%d%s",
           bmm_strategy_name(g_strategies[si]), bmm_dtype_name(c->dtype), (long long)c->batch,
           (long long)c->m, (long long)c->n, (long long)c->k, bmmx_layout_name(c->layout), alpha,
           beta, bias || c->layout == BMMX_SHARED_B_BIAS, off, rule ? " (table rule)" : "");
  if (bmm_dtype_is_complex(c->dtype))
    snprintf(name + strlen(name), sizeof name - strlen(name),
             " alpha_im=%g beta_im=%g a.conj=%d b.conj=%d", dp.alpha_im, dp.beta_im, dp.a.conj,
             dp.b.conj);
  /* EMU_ONLY=text runs only the cases whose name contains it (debugging) */
  if (getenv("EMU_ONLY") && !strstr(name, getenv("EMU_ONLY"))) return;
  /* a forced strategy that does not claim the problem is no test of it; AUTO
     must never refuse a valid problem (claim audit, issue 24) */
  s = bmm_plan_problem(&dp, BMM_BACKEND_CUDA, &pl);
  if (g_strategies[si] == BMM_STRATEGY_AUTO) {
    if (!BMMX_CHECK(s == BMM_OK, "%s: AUTO refused a valid problem: %s", name, bmm_last_error()))
      return;
  } else if (s == BMM_UNSUPPORTED) {
    bmmx_skip_quiet();
    return;
  }
  if (g_strategies[si] == BMM_CUDA_CUBLAS) { /* a library call, nothing to emulate */
    bmmx_skip_quiet();
    return;
  }
  if (rule) bmm_set_table(BMM_BACKEND_CUDA, rule, 2);
  g_emu_error[0] = 0, g_chk.error[0] = 0;
  if (g_chk.checks) { /* every element each operand may touch (emu_check.h) */
    std::vector<unsigned char> ma(na, 0), mb(nb, 0), mc(nc, 0);
    /* element index of each operand's origin (negative strides start late) */
    const int64_t a0 = use_ab ? ((const char *)dp.a.ptr - A.data()) / (int64_t)es : 0,
                  b0 = use_ab ? ((const char *)dp.b.ptr - B.data()) / (int64_t)es : 0,
                  c0 = ((const char *)dp.c.ptr - C.data()) / (int64_t)es;
    nbt = bmmx__batch_count(&hp);
    for (bi = 0; bi < nbt; ++bi) {
      int64_t oa, ob, oc = bmmx__c_offset(&hp, bi, &oa, &ob), l;
      for (i = 0; i < hp.m; ++i)
        for (j = 0; j < hp.n; ++j)
          mc[c0 + oc + i * hp.c.row_stride + j * hp.c.col_stride] = 1;
      for (l = 0; use_ab && l < hp.k; ++l) {
        for (i = 0; i < hp.m; ++i)
          ma[a0 + oa + i * hp.a.row_stride + l * hp.a.col_stride] = 1;
        for (j = 0; j < hp.n; ++j)
          mb[b0 + ob + l * hp.b.row_stride + j * hp.b.col_stride] = 1;
      }
    }
    g_chk.regions.clear();
    emu_check_region("a", A.data(), na, (int)es, ma.data(), 0);
    emu_check_region("b", B.data(), nb, (int)es, mb.data(), 0);
    emu_check_region("c", C.data(), nc, (int)es, mc.data(), 1);
    if (dp.bias) emu_check_region("bias", Bi.data() + pre * es, c->n, (int)es, NULL, 0);
  }
  s = bmm_cuda(&dp, 0);
  if (rule) bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
  if (s != BMM_OK) { /* counted as a failure here, as a pass below */
    BMMX_CHECK(s == BMM_OK, "%s: %s", name, bmm_last_error());
    return;
  }
  nbt = bmmx__batch_count(&hp);
  for (bi = 0; bi < nbt && hp.m && hp.n; ++bi) {
    /* (re, im) pairs for a complex dtype */
    long double ref[2 * 64 * 64 + 1], mag[64 * 64 + 1];
    std::vector<long double> bigref, bigmag;
    long double *r = ref, *mg = mag;
    int64_t wi, wj;
    double x;
    if (hp.m * hp.n > 64 * 64) {
      bigref.resize(bmmx_parts(hp.dtype) * hp.m * hp.n), bigmag.resize(hp.m * hp.n);
      r = bigref.data(), mg = bigmag.data();
    }
    if (!bmmx__entry_reference(&hp, bi, r, mg)) {
      worst = INFINITY;
      break;
    }
    x = bmmx__entry_compare(&hp, bi, C.data() + pre * es, r, mg, &wi, &wj);
    if (x > worst) worst = x;
  }
  /* only the m x n outputs of each entry may change */
  {
    std::vector<char> mask(nc, 0);
    for (bi = 0; bi < nbt; ++bi) {
      int64_t oa, ob, oc = bmmx__c_offset(&hp, bi, &oa, &ob);
      for (i = 0; i < hp.m; ++i)
        for (j = 0; j < hp.n; ++j)
          mask[pre + oc + i * hp.c.row_stride + j * hp.c.col_stride] = 1;
    }
    for (e = 0; e < nc; ++e)
      if (!mask[e] && memcmp(&C[e * es], &C0[e * es], es)) ++bad;
  }
  const int intact = !changed(A, A0) && !changed(B, B0) && !changed(Bi, Bi0);
  if (BMMX_CHECK(worst <= 1 && bad == 0 && intact,
                 "%s: worst error/bound %.3g, %lld C elements outside the outputs changed, "
                 "inputs %s",
                 name, worst, (long long)bad, intact ? "intact" : "CHANGED"))
    for (di = 0; di < NDT; ++di)
      if (g_dtypes[di] == c->dtype) ++g_covered[si][di][c->layout];
}

typedef struct shape {
  int64_t batch, m, n, k;
} shape;

/* Default: m/n/k = 1, k = 0, empty problems, odd sizes, the K = 32/40 bank
   borders, STAGED's largest claim (32 x 32 x 128), partial 64-tiles (65 x 70),
   batches that loop the grid (one emulated multiprocessor: 300 x 8 x 8 x 16
   gives STAGED 150 groups on 64 blocks, so its between-group barrier is
   tested), 4 x 4 and 2 x 3 with k off the 16-byte chunks (FIXED's m, n <= 4 kernel with
   full, 8-byte and element-wise rows). --full adds larger and more irregular shapes. */
static const shape g_shapes[] = {
    {7, 3, 1, 5},    {5, 1, 1, 1},    {3, 1, 7, 9},    {4, 7, 1, 13},    {3, 5, 6, 0},
    {0, 3, 3, 3},    {3, 0, 4, 4},    {9, 3, 1, 32},   {9, 3, 1, 40},    {6, 3, 1, 31},
    {2, 33, 35, 37}, {1, 65, 70, 20}, {2, 1, 64, 200}, {2, 32, 32, 128}, {37, 3, 2, 25},
    {300, 3, 1, 25}, {300, 8, 8, 16}, {13, 4, 4, 6},   {5, 2, 3, 9}};
static const shape g_shapes_full[] = {{1, 65, 70, 64},  {6, 4, 4, 4},     {5, 2, 3, 1},
                                      {4, 1, 1, 77},    {1, 9, 10, 11},   {2, 32, 32, 129},
                                      {3, 31, 17, 128}, {1000, 2, 2, 11}, {1, 1, 1, 1000}};
/* alpha, beta, bias */
static const double g_variants[][3] = {{1, 0, 0}, {0.75, -1.25, 1}, {0, 0.5, 1}};

/* --shard I/N: run_shape runs the grid's cases number I, I + N, I + 2N, ... */
static long g_shard_i = 0, g_shard_n = 1, g_shard_at;
static void run_shape(const shape *sh, int si, int di, int layout, int full) {
  bmmx_case c;
  int v, off;
  memset(&c, 0, sizeof c);
  c.dtype = g_dtypes[di], c.batch = sh->batch, c.m = sh->m, c.n = sh->n, c.k = sh->k;
  c.layout = layout;
  for (v = 0; v < 3; ++v)
    for (off = 0; off < 2; ++off) {
      /* by default the big shapes run one variant: variants and offsets
         exercise the epilogue and load heads, which small shapes reach too */
      if (!full && sh->m * sh->n > 200 && (v != 1 || off)) continue;
      if (g_shard_at++ % g_shard_n != g_shard_i) continue;
      run(&c, g_variants[v][0], g_variants[v][1], (int)g_variants[v][2], si, off, NULL);
    }
}

/* Table rules with explicit tunables (threads, batch_per_block, lanes, vec,
   tile, pad): the paths the default configuration never takes. */
static void run_tunables(void) {
  /* the last: 32 warps of 50 entries, cut to fewer entries, then (32x32x40
     c128) to fewer warps */
  static const int tun[][7] = {
      {BMM_CUDA_WARP, 0, 0, 2, 0, 0, 0},           {BMM_CUDA_WARP, 64, 0, 8, 0, 0, 0},
      {BMM_CUDA_WARP, 96, 0, 32, 0, 0, 0},         {BMM_CUDA_STAGED, 32, 1, 0, 4, 0, 0},
      {BMM_CUDA_STAGED, 96, 3, 0, 8, 0, 1},        {BMM_CUDA_STAGED, 1024, 200, 0, 16, 0, 2},
      {BMM_CUDA_STAGED, 128, 7, 0, 16, 0, 3},      {BMM_CUDA_STAGED, 1024, 1, 0, 0, 0, 0},
      {BMM_CUDA_TILED, 0, 0, 0, 0, 64, 0},         {BMM_CUDA_TILED, 0, 0, 0, 0, 32, 0},
      {BMM_CUDA_LOOP, 32, 0, 0, 0, 0, 0},          {BMM_CUDA_BATCH_INNER, 64, 0, 0, 0, 0, 0},
      {BMM_CUDA_BATCH_ENTRY, 64, 0, 0, 0, 0, 0},   {BMM_CUDA_FIXED, 32, 0, 0, 0, 0, 0},
      {BMM_CUDA_FIXED, 1024, 0, 0, 0, 0, 0},       {BMM_CUDA_ASYNC, 1024, 1, 0, 0, 0, 0},
      {BMM_CUDA_ASYNC, 1024, 3, 0, 8, 0, 1},       {BMM_CUDA_ASYNC, 32, 2, 0, 4, 0, 0},
      {BMM_CUDA_WARP_STAGED, 32, 1, 0, 4, 0, 0},   {BMM_CUDA_WARP_STAGED, 96, 3, 0, 16, 0, 3},
      {BMM_CUDA_WARP_STAGED, 1024, 50, 0, 8, 0, 1}};
  static const shape ts[] = {{37, 3, 1, 25}, {11, 4, 5, 32}, {5, 32, 32, 40}, {4, 1, 1, 1}};
  static const int lays[] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS, BMMX_BATCH_INNER};
  size_t t, s, l;
  int di, off;
  for (t = 0; t < sizeof tun / sizeof tun[0]; ++t)
    for (di = 0; di < NDT; ++di)
      for (s = 0; s < sizeof ts / sizeof ts[0]; ++s)
        for (l = 0; l < sizeof lays / sizeof lays[0]; ++l)
          for (off = 0; off < 2; ++off) {
            bmm_table_rule r[2];
            bmmx_case c;
            memset(r, 0, sizeof r);
            r[0].strategy = (bmm_strategy)tun[t][0], r[0].threads = tun[t][1];
            r[0].batch_per_block = tun[t][2], r[0].lanes = tun[t][3], r[0].vec = tun[t][4];
            r[0].tile = tun[t][5], r[0].pad = tun[t][6];
            r[1].strategy = BMM_CUDA_LOOP; /* where r[0] does not claim the problem */
            memset(&c, 0, sizeof c);
            c.dtype = g_dtypes[di], c.batch = ts[s].batch, c.m = ts[s].m, c.n = ts[s].n;
            c.k = ts[s].k, c.layout = lays[l];
            run(&c, 1.5, off ? 0.0 : -0.5, off, 0, off, r);
          }
}

/* The strategies with a thread per batch entry (BATCH_ENTRY, FIXED) get a
   grid of at most 8192 threads on the emulated one-multiprocessor device
   (bmm__cuda_waves: 4 waves of at most 2048, fewer where registers bind),
   which no default shape's batch reaches: 8200 entries make their
   grid-stride loop turn. ASYNC's grid is one wave of resident blocks (12-16
   on the emulated multiprocessor by dtype), so its 391 groups of 21 2x3x5
   entries turn 24-33 times a block,
   the second buffer filling while the first is summed (copies landing at
   the issue on half the launches, at the wait on the other half).
   WARP_STAGED's groups (a warp's each: 2048 bytes of spans, 20 entries in
   f32, 5 in c128) number 410-1640: 64 blocks of 4 warps take 256 at a
   time, so every warp turns. */
static void run_grid_stride(void) {
  static const bmm_strategy per_entry[] = {BMM_CUDA_BATCH_ENTRY, BMM_CUDA_FIXED, BMM_CUDA_ASYNC,
                                           BMM_CUDA_WARP_STAGED};
  static const int lays[] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS, BMMX_BATCH_INNER};
  size_t p, l;
  int si, di, off;
  for (p = 0; p < sizeof per_entry / sizeof per_entry[0]; ++p)
    for (si = 0; si < NSTRAT; ++si)
      for (di = 0; g_strategies[si] == per_entry[p] && di < NDT; ++di)
        for (l = 0; l < sizeof lays / sizeof lays[0]; ++l)
          for (off = 0; off < 2; ++off) {
            bmmx_case c;
            memset(&c, 0, sizeof c);
            c.dtype = g_dtypes[di], c.batch = 8200, c.m = 2, c.n = 3, c.k = 5;
            c.layout = lays[l];
            run(&c, 0.75, -1.25, 1, si, off, NULL);
          }
}

/* A table rule whose strategy is not compiled in (cuda_cublas: this build
   has no BMM_WITH_CUBLAS) is skipped like one that does not claim the
   problem: AUTO falls through to the next rule, runs it, and explain names
   the skipped rule. */
static void run_uncompiled_rule(void) {
  static const shape us[] = {{37, 3, 1, 25}, {5, 4, 4, 4}};
  int di, off, ok;
  size_t s;
  bmm_table_rule r[2];
  memset(r, 0, sizeof r);
  r[0].strategy = BMM_CUDA_CUBLAS, r[1].strategy = BMM_CUDA_LOOP;
  for (di = 0; di < NDT; ++di)
    for (s = 0; s < sizeof us / sizeof us[0]; ++s)
      for (off = 0; off < 2; ++off) {
        bmmx_case c;
        memset(&c, 0, sizeof c);
        c.dtype = g_dtypes[di], c.batch = us[s].batch, c.m = us[s].m, c.n = us[s].n;
        c.k = us[s].k, c.layout = off ? BMMX_SHARED_B_BIAS : BMMX_ROWMAJOR;
        run(&c, 1.5, off ? 0.0 : -0.5, off, 0, off, r);
      }
  {
    std::vector<float> A(3 * 25), B(25), C(3);
    bmm_problem p = bmm_problem_rowmajor(BMM_F32, 1, 3, 1, 25, A.data(), B.data(), C.data());
    char why[1024];
    bmm_set_table(BMM_BACKEND_CUDA, r, 2);
    ok = bmm_explain(&p, BMM_BACKEND_CUDA, why, sizeof why) == BMM_OK &&
         strstr(why, "-> cuda_loop") && strstr(why, "rule 0 (cuda_cublas not compiled in)");
    bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
    BMMX_CHECK(ok, "explain of an uncompiled cuda_cublas rule: %s", why);
  }
}

/* A table rule whose launch leaves no block resident (1024 threads of
   batch_entry8's c128 kernel, 255 registers each by ptxas: four times an
   SM's registers) cannot run: AUTO runs cuda_loop instead, correctly, and
   explain says why, naming the registers. */
static void run_unresident_rule(void) {
  int off, ok;
  bmm_table_rule r[2];
  memset(r, 0, sizeof r);
  r[0].strategy = BMM_CUDA_BATCH_ENTRY, r[0].threads = 1024, r[1].strategy = BMM_CUDA_LOOP;
  for (off = 0; off < 2; ++off) {
    bmmx_case c;
    memset(&c, 0, sizeof c);
    c.dtype = BMM_C128, c.batch = 37, c.m = 5, c.n = 8, c.k = 7, c.layout = BMMX_BATCH_INNER;
    run(&c, 1.5, off ? 0.0 : -0.5, off, 0, off, r);
  }
  {
    std::vector<bmm_c128> A(37 * 5 * 7), B(37 * 7 * 8), C(37 * 5 * 8);
    bmmx_case c;
    bmm_problem p;
    char why[2048];
    memset(&c, 0, sizeof c);
    c.dtype = BMM_C128, c.batch = 37, c.m = 5, c.n = 8, c.k = 7, c.layout = BMMX_BATCH_INNER;
    p = bmmx_problem(&c, A.data(), B.data(), C.data(), NULL);
    bmm_set_table(BMM_BACKEND_CUDA, r, 2);
    ok = bmm_explain(&p, BMM_BACKEND_CUDA, why, sizeof why) == BMM_OK &&
         strstr(why, "kernel=bmm__cuda_loop<") && strstr(why, "cannot launch here") &&
         strstr(why, "no block of 1024 threads fits") && strstr(why, "(registers: 255");
    bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
    BMMX_CHECK(ok, "explain of a rule no block of which fits: %s", why);
  }
}

/* cuda_mma claims f16 and bf16 only: a table rule for it passes every other
   dtype to the next rule (cuda_loop here), and runs the halves itself. On a
   device of compute capability 7.5 (no mma.sync m16n8k16) a forced call is
   refused by name and AUTO under the same rule runs cuda_loop, correctly,
   explain saying why. */
static void run_mma_rules(void) {
  int di, off, ok;
  bmm_table_rule r[2];
  memset(r, 0, sizeof r);
  r[0].strategy = BMM_CUDA_MMA, r[1].strategy = BMM_CUDA_LOOP;
  for (int cc = 90; cc >= 75; cc -= 15) {
    g_emu_cc = cc;
    bmm__cuda_devices[0].ready = 0; /* queried again: the new compute capability */
    for (di = 0; di < NDT; ++di)
      for (off = 0; off < 2; ++off) {
        const int half = g_dtypes[di] == BMM_F16 || g_dtypes[di] == BMM_BF16;
        std::vector<char> A(37 * 3 * 25 * 16), B(37 * 25 * 2 * 16), C(37 * 3 * 2 * 16), Bi(2 * 16);
        bmmx_case c;
        bmm_problem p;
        char why[2048];
        memset(&c, 0, sizeof c);
        c.dtype = g_dtypes[di], c.batch = 37, c.m = 3, c.n = 2, c.k = 25;
        c.layout = off ? BMMX_SHARED_B_BIAS : BMMX_ROWMAJOR;
        run(&c, 1.5, off ? 0.0 : -0.5, off, 0, off, r);
        p = bmmx_problem(&c, A.data(), B.data(), C.data(), NULL);
        if (off) p.bias = Bi.data();
        bmm_set_table(BMM_BACKEND_CUDA, r, 2);
        ok = bmm_explain(&p, BMM_BACKEND_CUDA, why, sizeof why) == BMM_OK &&
             (half && cc >= 80 ? strstr(why, "kernel=bmm__cuda_mma<") != NULL
                               : strstr(why, "kernel=bmm__cuda_loop<") != NULL) &&
             (!half || cc >= 80 || strstr(why, "needs compute capability 8.0"));
        bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
        BMMX_CHECK(ok, "cuda_mma rule, %s, compute capability %d: %s", bmm_dtype_name(c.dtype), cc,
                   why);
        p.strategy = BMM_CUDA_MMA;
        g_emu_error[0] = 0; /* no footprints registered for these buffers (as check_explain) */
        g_chk.regions.clear(), g_chk.error[0] = 0;
        {
          const bmm_status s = bmm_cuda(&p, 0);
          BMMX_CHECK(half && cc >= 80 ? s == BMM_OK
                                      : s == BMM_UNSUPPORTED &&
                                            strstr(bmm_last_error(), half ? "compute capability 8.0"
                                                                          : "f16 and bf16"),
                     "forced cuda_mma, %s, compute capability %d: %s (%s)", bmm_dtype_name(c.dtype),
                     cc, bmm_status_name(s), bmm_last_error());
        }
      }
  }
  g_emu_cc = 90;
  bmm__cuda_devices[0].ready = 0;
}

/* A device check_auto_plans plans a default table on: the table's arch, the
   shared memory a block it grants, and where that limit changes the launch,
   one problem whose explain must say how (else dt is 0) */
typedef struct emu_auto_dev {
  int arch, smem;
  bmm_dtype dt;
  int64_t m, n, k;
  const char *why, *kernel; /* in explain's text */
} emu_auto_dev;

/* check_auto_plans under the table in effect on device dv */
static void check_auto_plans_with(const emu_auto_dev *dv) {
  const int arch = dv->arch, smem = dv->smem;
  static const int64_t ms[] = {1, 2, 3, 4, 5, 8, 16, 31, 32, 33, 64, 200, 1000};
  static const int64_t ks[] = {1, 5, 12, 13, 16, 19, 37, 50, 64, 65, 128, 129, 300, 1000};
  /* apart far enough that no size here overlaps; never dereferenced */
  char *const base[4] = {(char *)((uintptr_t)1 << 40), (char *)((uintptr_t)2 << 40),
                         (char *)((uintptr_t)3 << 40), (char *)((uintptr_t)4 << 40)};
  const int layouts[] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS, BMMX_COL_A, BMMX_BATCH_INNER};
  size_t mi, ni, ki, li;
  int di;
  long planned = 0, bad = 0;
  g_emu_smem_optin = smem;
  bmm__cuda_devices[0].ready = 0; /* queried again: the new limit */
  for (di = 0; di < NDT; ++di)
    for (li = 0; li < sizeof layouts / sizeof layouts[0]; ++li)
      for (mi = 0; mi < sizeof ms / sizeof ms[0]; ++mi)
        for (ni = 0; ni < sizeof ms / sizeof ms[0]; ++ni)
          for (ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki) {
            bmmx_case c;
            bmm_problem p;
            char why[2048];
            bmm_status s;
            memset(&c, 0, sizeof c);
            c.dtype = g_dtypes[di], c.batch = 1000, c.m = ms[mi], c.n = ms[ni], c.k = ks[ki];
            c.layout = layouts[li];
            p = bmmx_problem(&c, base[0], base[1], base[2], NULL); /* explain reads none */
            if (c.layout == BMMX_SHARED_B_BIAS) p.bias = base[3];
            s = bmm_explain(&p, BMM_BACKEND_CUDA, why, sizeof why);
            ++planned;
            if (s != BMM_OK && bad++ < 5)
              BMMX_CHECK(0,
                         "table %d, %d bytes of shared memory, AUTO %s %s %lldx%lldx%lld: %s: %s",
                         arch, smem, bmm_dtype_name(c.dtype), bmmx_layout_name(c.layout),
                         (long long)c.m, (long long)c.n, (long long)c.k, bmm_status_name(s), why);
          }
  BMMX_CHECK(bad == 0,
             "table %d, %d bytes of shared memory: AUTO planned %ld problems, %ld refused", arch,
             smem, planned, bad);
  if (dv->dt != BMM_DTYPE_UNSET) { /* and how the limit changed the launch */
    bmmx_case c;
    bmm_problem p;
    char why[2048];
    memset(&c, 0, sizeof c);
    c.dtype = dv->dt, c.batch = 1000, c.layout = BMMX_ROWMAJOR;
    c.m = dv->m, c.n = dv->n, c.k = dv->k;
    p = bmmx_problem(&c, base[0], base[1], base[2], NULL);
    BMMX_CHECK(bmm_explain(&p, BMM_BACKEND_CUDA, why, sizeof why) == BMM_OK &&
                   strstr(why, dv->why) && strstr(why, dv->kernel),
               "table %d, %d bytes: explain says \"%s\" and %s: %s", arch, smem, dv->why,
               dv->kernel, why);
    if (bmmx_runner.verbose) printf("table %d, %d bytes: %s\n", arch, smem, why);
  }
  g_emu_smem_optin = BMM_EMU_SMEM_MAX;
  bmm__cuda_devices[0].ready = 0;
}

/* AUTO must plan every problem some strategy claims: a table rule whose
   tunables do not fit the device (STAGED's shared memory for its batch
   entries) would turn a valid call into BMM_UNSUPPORTED. Planned, not run:
   explain goes through the whole pick (table, strategy, launch shape) on the
   emulated sm_90, under each default table in turn (sm_90's, sm_8x's and the
   generic one, set as the override), with the shared memory the devices
   each table serves grant a block: 227 KiB (H100, H200), 163 KiB (A100) and
   99 KiB (RTX 30/40, sm_86/89: the sm_8x table's 512 x 32 rule refused f64
   4x4x64 there until STAGED cut a rule's batch_per_block to fit), 48 KiB
   (any other device: the generic table). On the two smallest, explain must
   say how: a rule's batch_per_block cut to fit (sm_8x's 512 x 32 rule, f64
   4x4x64: 132 KiB for 32 entries), or cuda_loop where one entry does not
   fit (c128 31x32x50 under the generic table). */
static void check_auto_plans(void) {
  static const emu_auto_dev devs[] = {
      {90, 232448, BMM_DTYPE_UNSET, 0, 0, 0, NULL, NULL},
      {80, 166912, BMM_DTYPE_UNSET, 0, 0, 0, NULL, NULL},
      {80, 101376, BMM_F64, 4, 4, 64, "cut to what the device's shared memory holds",
       "bmm__cuda_staged"},
      {0, 49152, BMM_C128, 31, 32, 50, "cannot launch here", "bmm__cuda_loop"}};
  static bmm_table_rule rules[BMM_TABLE_MAX_RULES];
  int count;
  size_t ai;
  for (ai = 0; ai < sizeof devs / sizeof devs[0]; ++ai)
    if (bmm_set_table(BMM_BACKEND_CUDA, NULL, 0) != BMM_OK || /* get returns an override */
        bmm_table_get(BMM_BACKEND_CUDA, devs[ai].arch, rules, BMM_TABLE_MAX_RULES, &count) !=
            BMM_OK ||
        bmm_set_table(BMM_BACKEND_CUDA, rules, count) != BMM_OK)
      BMMX_CHECK(0, "default table %d: %s", devs[ai].arch, bmm_last_error());
    else
      check_auto_plans_with(&devs[ai]);
  bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
}

/* The residency explain states, against the occupancy calculator of the
   model (emu_occupancy.h, written apart from bmm's) over the same ptxas
   counts, and the grid it caps: at most 4 waves of it (ASYNC 1) on the
   emulated device's g_emu_sms multiprocessors. */
static void check_resident(const char *why, const char *kern, bmm_dtype dt, int block,
                           long long smem, long long grid) {
  const char *at = strstr(why, " resident=");
  char name[32], limit[32] = "";
  const emu_kernel_res *r;
  emu_occupancy o;
  int resident = -1, regs = -1;
  snprintf(name, sizeof name, "%s", kern + (strncmp(kern, "bmm__cuda_", 10) ? 0 : 10));
  name[strcspn(name, "<")] = 0;
  r = emu_resources(90, name, bmm_dtype_name(dt));
  if (!r) {
    BMMX_CHECK(0, "no ptxas row for %s %s: explain %s", name, bmm_dtype_name(dt), why);
    return;
  }
  if (at) sscanf(at, " resident=%d/SM (limit: %31[^;]; %d registers", &resident, limit, &regs);
  o = emu_occupancy_of(&emu_arch_sm90, block, r->regs,
                       (int)(strstr(kern, "tiled") ? smem : smem + r->smem));
  BMMX_CHECK(resident == o.blocks && regs == r->regs && strcmp(limit, o.limit) == 0 &&
                 grid <= (long long)g_emu_sms * resident * (strstr(kern, "async") ? 1 : 4),
             "%s %s: explain says resident=%d (limit: %s; %d registers), grid %lld; the "
             "occupancy calculator %d (limit: %s; %d registers) on %d SMs",
             name, bmm_dtype_name(dt), resident, limit, regs, grid, o.blocks, o.limit, r->regs,
             g_emu_sms);
}

/* bmm_explain says what bmm__cuda_pick decided; the launch must be exactly
   that: the kernel explain names, its grid, block and dynamic shared memory
   (TILED's is static: explain adds it, the launch has none). The seed's
   3x1x25 and a 3x1x5 with A column-major run different kernels (STAGED and
   LOOP), so explain must name them differently. */
static void check_explain(void) {
  static const struct {
    bmm_dtype dt;
    int64_t batch, m, n, k;
    int layout;
    bmm_strategy forced;
    const char *kernel; /* what explain must name, "" = whatever ran */
    const char *says;   /* a phrase it must say (sums=MxN, buffers=N); "" = no sums= */
  } ex[] = {
      {BMM_F32, 1000, 3, 1, 25, BMMX_ROWMAJOR, BMM_STRATEGY_AUTO, "bmm__cuda_staged<float>", ""},
      {BMM_F32, 1000, 3, 1, 5, BMMX_COL_A, BMM_STRATEGY_AUTO, "bmm__cuda_loop<float>", ""},
      {BMM_F64, 7, 3, 1, 40, BMMX_SHARED_B_BIAS, BMM_STRATEGY_AUTO, "bmm__cuda_staged<double>", ""},
      {BMM_F32, 2, 65, 70, 40, BMMX_ROWMAJOR, BMM_STRATEGY_AUTO, "bmm__cuda_tiled64<float>",
       " buffers=2"},
      /* two pairs of c128 64 x 64 tiles (66,560 bytes) outgrow static shared
         memory: one pair */
      {BMM_C128, 2, 65, 70, 40, BMMX_ROWMAJOR, BMM_CUDA_TILED, "bmm__cuda_tiled64<bmm_c128>",
       " buffers=1"},
      {BMM_F64, 2, 33, 35, 37, BMMX_COL_A, BMM_STRATEGY_AUTO, "bmm__cuda_tiled32<double>", ""},
      {BMM_F32, 5, 40, 1, 200, BMMX_ROWMAJOR, BMM_STRATEGY_AUTO, "bmm__cuda_warp<float>", ""},
      {BMM_F32, 9, 3, 2, 7, BMMX_BATCH_INNER, BMM_STRATEGY_AUTO, "bmm__cuda_batch_entry4<float>",
       " sums=4x4"},
      {BMM_F64, 9, 5, 8, 7, BMMX_BATCH_INNER, BMM_STRATEGY_AUTO, "bmm__cuda_batch_entry8<double>",
       " sums=8x8"},
      {BMM_F32, 9, 9, 2, 7, BMMX_BATCH_INNER, BMM_STRATEGY_AUTO, "bmm__cuda_batch_inner<float>",
       ""},
      {BMM_F64, 9, 3, 2, 7, BMMX_PADDED, BMM_CUDA_WARP, "bmm__cuda_warp<double>", ""},
      {BMM_F32, 300, 8, 8, 16, BMMX_ROWMAJOR, BMM_CUDA_STAGED, "bmm__cuda_staged<float>", ""},
      {BMM_F32, 300, 4, 4, 4, BMMX_ROWMAJOR, BMM_CUDA_FIXED, "bmm__cuda_fixed4x4<float>",
       " sums=4x4"},
      {BMM_F64, 7, 3, 1, 25, BMMX_SHARED_B_BIAS, BMM_CUDA_FIXED, "bmm__cuda_fixed4x1<double>",
       " sums=4x1"},
      {BMM_F32, 3000, 3, 1, 25, BMMX_ROWMAJOR, BMM_CUDA_ASYNC, "bmm__cuda_async<float>",
       " buffers=2"},
      /* halves: rows padded to an odd count of 4-byte words, copied in pairs */
      {BMM_F16, 3000, 3, 1, 32, BMMX_ROWMAJOR, BMM_CUDA_ASYNC, "bmm__cuda_async<bmm__cuda_f16>",
       " a_ld=34"},
      /* two entries' spans (263,200 bytes) outgrow the device: one buffer */
      {BMM_C128, 2, 32, 32, 128, BMMX_ROWMAJOR, BMM_CUDA_ASYNC, "bmm__cuda_async<bmm_c128>",
       " buffers=1"},
      /* one round of 16-byte loads a lane: 2048 / 80 bytes = 25 entries a
         warp, 24 to keep every group's spans on 16 bytes; four warps */
      {BMM_F32, 3000, 3, 1, 5, BMMX_ROWMAJOR, BMM_CUDA_WARP_STAGED, "bmm__cuda_warp_staged<float>",
       " batch_per_block=24 (per warp) warps=4"},
      /* one entry's spans (131,632 bytes with rounding) fit the device once:
         one warp */
      {BMM_C128, 2, 32, 32, 128, BMMX_ROWMAJOR, BMM_CUDA_WARP_STAGED,
       "bmm__cuda_warp_staged<bmm_c128>", " batch_per_block=1 (per warp) warps=1"},
      /* tensor cores: 3 x 3 tiles of 32 x 32 a batch entry, 4 warps */
      {BMM_BF16, 2, 65, 70, 40, BMMX_COL_A, BMM_CUDA_MMA, "bmm__cuda_mma<bmm__cuda_bf16>", ""},
      /* the sm_90 rules the H200 measured (2026-11-26) */
      {BMM_F32, 300, 4, 4, 4, BMMX_ROWMAJOR, BMM_STRATEGY_AUTO, "bmm__cuda_fixed4x4<float>",
       " sums=4x4"},
      {BMM_F32, 1000, 3, 1, 25, BMMX_BATCH_INNER, BMM_STRATEGY_AUTO, "bmm__cuda_batch_inner<float>",
       ""},
      {BMM_F64, 1000, 3, 1, 25, BMMX_BATCH_INNER, BMM_STRATEGY_AUTO, "bmm__cuda_loop<double>", ""},
  };
  char names[2][64];
  size_t e;
  for (e = 0; e < sizeof ex / sizeof ex[0]; ++e) {
    bmmx_case c;
    bmmx_sizes_t sz;
    bmm_problem p;
    char why[2048], kern[64] = "", want[64], kname[32];
    const emu_kernel_res *res;
    long long grid = -1, smem = -1;
    int block = -1, ok;
    const char *at;
    memset(&c, 0, sizeof c);
    c.dtype = ex[e].dt, c.batch = ex[e].batch, c.m = ex[e].m, c.n = ex[e].n, c.k = ex[e].k;
    c.layout = ex[e].layout;
    sz = bmmx_sizes(&c);
    std::vector<char> A(sz.a * 16 + 16), B(sz.b * 16 + 16), C(sz.c * 16 + 16), Bi(c.n * 16 + 16);
    p = bmmx_problem(&c, A.data(), B.data(), C.data(), NULL);
    if (c.layout == BMMX_SHARED_B_BIAS) p.bias = Bi.data();
    p.strategy = ex[e].forced;
    bmm_explain(&p, BMM_BACKEND_CUDA, why, sizeof why);
    at = strstr(why, "kernel=");
    if (at)
      sscanf(at, "kernel=%63s launch grid=%lld block=%d smem=%lld", kern, &grid, &block, &smem);
    g_emu_error[0] = 0, bmm_emu_last_kernel = "", g_last_grid = g_last_block = -2;
    g_chk.regions.clear(), g_chk.error[0] = 0; /* no footprints registered for these buffers */
    g_last_smem = 0;
    ok = bmm_cuda(&p, 0) == BMM_OK;
    /* the recorded text is "bmm__cuda_loop<T>": compare up to the '<'; explain's
       smem is the launch's dynamic shared memory plus the kernel's static
       (ptxas's figure: TILED's and MMA's tiles) */
    snprintf(want, sizeof want, "%s", bmm_emu_last_kernel);
    if (strchr(want, '<')) strchr(want, '<')[1] = 0;
    emu_kernel_of_explain(why, kname, sizeof kname);
    res = emu_resources(g_emu_res_arch, kname, bmm_dtype_name(ex[e].dt));
    ok = ok && strncmp(kern, want, strlen(want)) == 0 && grid == g_last_grid &&
         block == g_last_block && res && smem == (long long)g_last_smem + res->smem &&
         (!ex[e].kernel[0] || strcmp(kern, ex[e].kernel) == 0) &&
         (ex[e].says[0] ? strstr(why, ex[e].says) != NULL : strstr(why, " sums=") == NULL);
    if (e < 2) snprintf(names[e], sizeof names[e], "%s", kern);
    BMMX_CHECK(
        ok, "explain vs launch: launched %s grid=%lld block=%lld smem=%zu; want %s%s; explain: %s",
        bmm_emu_last_kernel, (long long)g_last_grid, (long long)g_last_block, g_last_smem,
        ex[e].kernel, ex[e].says, why);
    check_resident(why, kern, ex[e].dt, block, smem, grid);
  }
  BMMX_CHECK(strcmp(names[0], names[1]) != 0,
             "explain names the seed 3x1x25 and 3x1x5 kernels alike: %s", names[0]);
  printf("explain vs launch: %zu problems checked\n", sizeof ex / sizeof ex[0]);
}

#include "emu_selftest.h"

/* Memory the traced launch may touch: reserved, never committed until used
   (only the sampled blocks' pages are). */
static void *emu_reserve(int64_t bytes) {
  void *p = mmap(NULL, (size_t)(bytes > 0 ? bytes : 1) + 4096, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* --trace STRATEGY DTYPE BATCH M N K: a real-size packed row-major launch as
   an H100 (132 multiprocessors) would get it, its first `blocks` blocks run
   and traced; prints bmm's launch and the cost per call site. */
static int trace_main(int argc, char **argv) {
  int64_t batch, m, n, k, blocks = 2;
  bmm_dtype dt = g_dtypes[0];
  bmm_strategy st = BMM_STRATEGY_AUTO;
  bmm_problem p;
  char explain[1024];
  int i;
  if (argc < 7) return 2;
  for (i = 0; i < BMM_STRATEGY_COUNT; ++i)
    if (strcmp(argv[1], bmm_strategy_name((bmm_strategy)i)) == 0) st = (bmm_strategy)i;
  if (bmmx_dtype_parse(argv[2]) != BMM_DTYPE_UNSET) dt = bmmx_dtype_parse(argv[2]);
  batch = atoll(argv[3]), m = atoll(argv[4]), n = atoll(argv[5]), k = atoll(argv[6]);
  if (argc > 7) blocks = atoll(argv[7]);
  const int64_t es = (int64_t)bmm_dtype_size(dt);
  void *A = emu_reserve(batch * m * k * es), *B = emu_reserve(batch * k * n * es),
       *C = emu_reserve(batch * m * n * es);
  if (!A || !B || !C) return 3;
  p = bmm_problem_rowmajor(dt, batch, m, n, k, A, B, C);
  p.strategy = st;
  g_emu_sms = 132, g_emu_max_blocks = blocks, g_chk.trace_blocks = (int)blocks;
  g_chk.checks = 0;
  bmm_explain(&p, BMM_BACKEND_CUDA, explain, sizeof explain);
  printf("%s\n", explain);
  if (bmm_cuda(&p, 0) != BMM_OK) {
    printf("launch failed: %s\n", bmm_last_error());
    return 1;
  }
  emu_trace_totals t = emu_trace_sum();
  printf("traced %lld blocks\n", (long long)g_chk.traced_blocks);
  {
    /* the kernel's resources as ptxas allocated them, and the residency */
    const emu_arch *archs[2] = {&emu_arch_sm90, &emu_arch_sm80};
    char kern[32];
    int ai;
    emu_kernel_of_explain(explain, kern, sizeof kern);
    for (ai = 0; ai < 2; ++ai) {
      const emu_kernel_res *r = emu_resources(archs[ai]->arch, kern, bmm_dtype_name(dt));
      if (!r) {
        printf("sm_%d: no resources for kernel %s %s in %s\n", archs[ai]->arch, kern,
               bmm_dtype_name(dt), emu_resources_path());
        continue;
      }
      const emu_occupancy o =
          emu_occupancy_of(archs[ai], (int)g_chk.block, r->regs, r->smem + (int)g_chk.smem);
      printf("sm_%d: %s %s: %d registers, %d + %zu bytes shared per %lld-thread block: %d "
             "blocks = %d threads per SM (limit: %s)\n",
             archs[ai]->arch, kern, bmm_dtype_name(dt), r->regs, r->smem, g_chk.smem,
             (long long)g_chk.block, o.blocks, o.threads, o.limit);
    }
  }
  emu_trace_print(stdout);
  printf("global: %.2f sectors per request (ideal %.2f); shared: %.2f wavefronts per request "
         "(ideal %.2f)\n",
         t.g_req ? (double)t.g_sectors / (double)t.g_req : 0.0,
         t.g_req ? (double)t.g_ideal / (double)t.g_req : 0.0,
         t.s_req ? (double)t.s_wavefronts / (double)t.s_req : 0.0,
         t.s_req ? (double)t.s_ideal / (double)t.s_req : 0.0);
  return 0;
}

#ifdef BMM_MODEL
#include "tools/model/model_main.h" /* build/bmm-model: this file's scheduler, its own main */
#endif

int main(int argc, char **argv) {
  int full = 0, explain_only = 0, si, di, l, i;
  const char *only = NULL; /* --strategy: that strategy's rows only */
  size_t s;
#ifdef BMM_MODEL
  return model_main(argc, argv);
#endif
  if (argc > 1 && strcmp(argv[1], "--trace") == 0) {
    const int r = trace_main(argc - 1, argv + 1);
    if (r == 2)
      printf("usage: %s --trace STRATEGY DTYPE BATCH M N K [BLOCKS]  (e.g. cuda_staged f32 "
             "1000000 3 1 32)\n",
             argv[0]);
    return r;
  }
#ifdef BMM_EMU_CHECK
  g_chk.checks = 1;
#endif
  if (argc > 1 && strcmp(argv[1], "--self-test") == 0) return selftest_main();
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--full") == 0)
      full = 1;
    else if (strcmp(argv[i], "-v") == 0)
      bmmx_runner.verbose = 1;
    else if (strcmp(argv[i], "--explain") == 0)
      explain_only = 1;
    else if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--shard") == 0 && i + 1 < argc &&
             sscanf(argv[i + 1], "%ld/%ld", &g_shard_i, &g_shard_n) == 2 && g_shard_n >= 1 &&
             g_shard_i >= 0 && g_shard_i < g_shard_n)
      ++i;
    else {
      printf("usage: %s [--full] [--explain] [--strategy NAME] [--shard I/N] [-v]\n", argv[0]);
      return 2;
    }
  }
  if (explain_only) {
    check_auto_plans();
    check_explain();
    return bmmx_summary();
  }
  printf("cuda_emu: bmm_cuda.cuh's kernels on the host (%s set). Checks arithmetic, indexing,\n"
         "staging, barriers and shuffles; NOT speed, coalescing, real faults or the memory "
         "model.\n",
         full ? "full" : "default");
  if (g_shard_n > 1)
    printf("shard %ld/%ld: the grid's cases %ld, %ld, %ld, ...%s\n", g_shard_i, g_shard_n,
           g_shard_i, g_shard_i + g_shard_n, g_shard_i + 2 * g_shard_n,
           g_shard_i ? "; the checks after the grid in shard 0" : "");
  if (g_chk.checks)
    printf("checked build: every load and store traced (emu_check.h): shared bounds, operand "
           "footprints, alignment, shared races between barriers\n");
  printf("cases passed per strategy and dtype, one count per layout:");
  for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
    printf(" %s", bmmx_layout_name(l));
  printf("\n");
  for (si = 0; si < NSTRAT; ++si) {
    const long before = bmmx_runner.failed;
    if (only && strcmp(only, bmm_strategy_name(g_strategies[si])) != 0) continue;
    for (di = 0; di < NDT; ++di)
      for (l = 0; l < BMMX_LAYOUT_COUNT; ++l) {
        for (s = 0; s < sizeof g_shapes / sizeof g_shapes[0]; ++s)
          run_shape(&g_shapes[s], si, di, l, full);
        for (s = 0; full && s < sizeof g_shapes_full / sizeof g_shapes_full[0]; ++s)
          run_shape(&g_shapes_full[s], si, di, l, full);
      }
    printf("%-17s %-6s", bmm_strategy_name(g_strategies[si]),
           bmmx_runner.failed == before ? "ok" : "FAILED");
    if (g_strategies[si] == BMM_CUDA_CUBLAS) {
      printf(" skipped: a cuBLAS call, nothing of bmm's to emulate\n");
      continue;
    }
    for (di = 0; di < NDT; ++di) {
      printf(" %s:", bmm_dtype_name(g_dtypes[di]));
      for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
        printf(" %d", g_covered[si][di][l]);
    }
    printf("\n");
    fflush(stdout);
  }
  /* one strategy's rows (a quick look while working), or a shard past 0:
     the checks below are shard 0's */
  if (only || g_shard_i) return bmmx_summary();
  run_tunables();
  run_grid_stride();
  run_uncompiled_rule();
  run_unresident_rule();
  run_mma_rules();
  check_auto_plans();
  check_explain();
  printf("tunables (table rules) done; %ld emulated launches\n", g_launches);
  printf("skipped below: a forced strategy that does not claim the problem, and cuda_cublas\n");
  return bmmx_summary();
}
