/* tests/cuda_emu/emu_check.h - every load and store of an emulated kernel,
   seen without editing the kernel: the checked build (emu.ninja,
   build/cuda_emu/emu_check) compiles emu_test.cpp with clang's
   -fsanitize-coverage=trace-loads,trace-stores, which calls
   __sanitizer_cov_load4(addr) etc. before each memory access of the compiled
   code; the vector stand-ins of emu_prelude.h report their 8/16-byte copies
   whole. While a fiber runs a kernel, each access is classified by address:
     shared  inside the section bmm_emu_shared (the dynamic buffer and every
             __shared__ array, emu_prelude.h)
     local   a fiber's stack (registers on the GPU): ignored
     param   the launch's argument struct, the emulated threadIdx & co:
             ignored
     global  anything else.
   and checked the way the GPU would enforce it (a fault there, an error
   here, reported through the launch's cudaGetLastError):
     - dynamic shared accesses past the launch's dynamic size;
     - global accesses outside every registered operand footprint, or
       stores to a read-only operand (the harness registers A, B, bias, C);
     - misaligned accesses (address not a multiple of the access size);
     - shared-memory data races between barriers: per 2-byte unit (the
       smallest element, f16/bf16: two threads storing the two halves of a
       word is no race on a GPU), the writer and readers of the current
       barrier interval (epoch); two threads touching one unit in one
       interval with at least one store;
   shuffles reached from different call sites are checked by the scheduler.

   Tracing (emu_trace_blocks > 0): the accesses of the first blocks of a
   launch are kept per thread and, at the end of each block, grouped into
   warp-level instructions (the n-th execution of one call site by each lane
   of a warp is one instruction, as in SIMT), then costed by emu_mem.h per
   call site: requests, 32-byte sectors vs ideal (global), wavefronts vs ideal
   (shared). Without the instrumented build nothing is recorded and every
   check is silent. */
#ifndef BMM_EMU_CHECK_H
#define BMM_EMU_CHECK_H

#include "emu_mem.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

#include <array>
#include <map>
#include <set>
#include <unordered_set>
#include <string>
#include <vector>

/* the emulator's own code must not be traced: it runs inside fibers */
#define EMU_NOTRACE BMM_EMU_NOTRACE

extern "C" char __start_bmm_emu_shared[], __stop_bmm_emu_shared[];

enum { EMU_GLOBAL = 0, EMU_SHARED = 1 };

typedef struct emu_region {
  uint64_t lo, hi;                    /* bytes [lo, hi) */
  std::vector<unsigned char> elem_ok; /* per element: inside the footprint; empty = all */
  int elem_size, writable;
  std::string name;
} emu_region;

typedef struct emu_record {
  uintptr_t site;
  uint64_t addr;
  int size, space, store;
  uint32_t epoch; /* the interval it ran in: barriers and the warp's __syncwarp (load rounds) */
} emu_record;

/* one lane's global load in the model's L1 order: its sector, its (warp,
   interval) slot, its lane and its warp instruction (a SIMT step: the n-th
   load of every lane of a warp) */
typedef struct emu_l1_access {
  uint64_t sector;
  int32_t slot, step;
  int lane;
} emu_l1_access;

/* per call site (site, space, store): summed over the traced instructions */
typedef struct emu_site_cost {
  int64_t requests, units, ideal, bytes, lanes; /* units: sectors or wavefronts */
  int size;
} emu_site_cost;

/* per 2-byte unit of shared memory: its accesses in this barrier interval
   (epoch); warp: the one warp that made them all (-1: several), wsync: its
   __syncwarp count then (a later __syncwarp of that warp orders them) */
typedef struct emu_shadow {
  uint32_t epoch, wsync;
  int16_t writer, reader;
  int8_t many_readers, warp;
} emu_shadow;

static struct emu_check_state {
  int active; /* a fiber of a kernel is running */
  int thread; /* its thread index in the block */
  uint64_t stack_lo, stack_hi;
  uint64_t args_lo, args_hi;
  size_t smem;         /* dynamic shared bytes of this launch */
  int64_t grid, block; /* and its shape */
  uint32_t epoch;      /* advances at each block start and barrier */
  uint32_t wsync[32];  /* per warp: its __syncwarp count */
  uint32_t interval;   /* traced records' interval: at barriers and __syncwarp */
  int checks;          /* the safety checks on */
  std::vector<emu_region> regions;
  std::vector<emu_shadow> shadow;
  char error[256];
  long nerrors;
  /* tracing */
  int trace_blocks, tracing;
  std::vector<std::vector<emu_record>> recs;                /* per thread of the block */
  std::map<std::pair<uintptr_t, int>, emu_site_cost> sites; /* (site, space*2+store) */
  std::vector<uint64_t> global_sectors;                     /* distinct, for traffic */
  int64_t traced_blocks;
  /* for the bandwidth model (tools/model/bmm_model.h): per warp and barrier
     interval with loads, the most global loads one lane issued in it, the
     most of them that were first touches and the most shared loads (key),
     and how many such (warp, interval) pairs (value); distinct 128-byte
     lines summed over the global load instructions, and those instructions */
  std::map<std::array<int, 3>, int64_t> load_burst; /* (loads, first touches, shared loads) */
  int64_t load_lines, load_insts, traced_warps, traced_barriers;
  /* for the model's L1 (bmm_model_l1): every traced block's global loads in
     the order its warps issue them, one entry per lane's load; the (warp,
     interval) slots they belong to (most loads and most shared loads of one
     lane); where each traced block's loads start */
  std::vector<emu_l1_access> l1_seq;
  std::vector<std::array<int, 2>> l1_slots;
  std::vector<size_t> l1_block;
} g_chk;

extern bmm_emu_dim bmm_emu_thread_idx, bmm_emu_block_idx, bmm_emu_block_dim, bmm_emu_grid_dim;

EMU_NOTRACE static inline void emu_check_fail(const char *fmt, ...) {
  ++g_chk.nerrors;
  if (g_chk.error[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_chk.error, sizeof g_chk.error, fmt, ap);
  va_end(ap);
}

/* the harness: operand footprints for this launch (cleared per case) */
EMU_NOTRACE static inline void emu_check_region(const char *name, const void *base, int64_t elems,
                                                int elem_size, const unsigned char *elem_ok,
                                                int writable) {
  emu_region r;
  r.lo = (uint64_t)(uintptr_t)base, r.hi = r.lo + (uint64_t)(elems * elem_size);
  if (elem_ok) r.elem_ok.assign(elem_ok, elem_ok + elems);
  r.elem_size = elem_size, r.writable = writable, r.name = name;
  g_chk.regions.push_back(r);
}

EMU_NOTRACE static inline void emu_check_access(uintptr_t site, uint64_t addr, int size,
                                                int store) {
  const uint64_t sh_lo = (uint64_t)(uintptr_t)__start_bmm_emu_shared,
                 sh_hi = (uint64_t)(uintptr_t)__stop_bmm_emu_shared;
  const uint64_t dyn_lo = (uint64_t)(uintptr_t)bmm__cuda_smem;
  const char *what = store ? "store" : "load";
  int space;
  if (addr >= g_chk.stack_lo && addr < g_chk.stack_hi) return; /* registers / local */
  if (addr >= g_chk.args_lo && addr < g_chk.args_hi) return;   /* kernel parameters */
  if (addr >= (uint64_t)(uintptr_t)&bmm_emu_thread_idx &&
      addr < (uint64_t)(uintptr_t)(&bmm_emu_thread_idx + 1))
    return;
  if (addr >= (uint64_t)(uintptr_t)&bmm_emu_block_idx &&
      addr < (uint64_t)(uintptr_t)(&bmm_emu_block_idx + 1))
    return;
  if (addr >= (uint64_t)(uintptr_t)&bmm_emu_block_dim &&
      addr < (uint64_t)(uintptr_t)(&bmm_emu_block_dim + 1))
    return;
  if (addr >= (uint64_t)(uintptr_t)&bmm_emu_grid_dim &&
      addr < (uint64_t)(uintptr_t)(&bmm_emu_grid_dim + 1))
    return;
  space = addr >= sh_lo && addr < sh_hi ? EMU_SHARED : EMU_GLOBAL;
  if (g_chk.checks) {
    if (addr % (uint64_t)size)
      emu_check_fail("thread %d: misaligned %d-byte %s of %s address %#llx", g_chk.thread, size,
                     what, space == EMU_SHARED ? "shared" : "global", (unsigned long long)addr);
    if (space == EMU_SHARED && addr >= dyn_lo && addr < dyn_lo + BMM_EMU_SMEM_MAX &&
        addr + (uint64_t)size > dyn_lo + g_chk.smem)
      emu_check_fail("thread %d: %d-byte shared %s at byte %llu of dynamic shared memory, past "
                     "the %zu bytes launched",
                     g_chk.thread, size, what, (unsigned long long)(addr - dyn_lo), g_chk.smem);
    if (space == EMU_GLOBAL && !g_chk.regions.empty()) {
      const emu_region *in = NULL;
      size_t i;
      for (i = 0; i < g_chk.regions.size(); ++i)
        if (addr >= g_chk.regions[i].lo && addr + (uint64_t)size <= g_chk.regions[i].hi) {
          const emu_region &r = g_chk.regions[i];
          const uint64_t e0 = (addr - r.lo) / (uint64_t)r.elem_size,
                         e1 = (addr + (uint64_t)size - 1 - r.lo) / (uint64_t)r.elem_size;
          uint64_t e;
          int ok = 1;
          for (e = e0; e <= e1 && !r.elem_ok.empty(); ++e)
            ok &= r.elem_ok[e];
          if (ok) {
            in = &r;
            break;
          }
        }
      if (!in)
        emu_check_fail("thread %d: global %d-byte %s at %#llx outside every operand's footprint",
                       g_chk.thread, size, what, (unsigned long long)addr);
      else if (store && !in->writable)
        emu_check_fail("thread %d: store into read-only operand %s", g_chk.thread,
                       in->name.c_str());
    }
    if (space == EMU_SHARED) {
      uint64_t w;
      for (w = (addr - sh_lo) / 2; w <= (addr + (uint64_t)size - 1 - sh_lo) / 2; ++w) {
        emu_shadow &s = g_chk.shadow[w];
        const int t = g_chk.thread, wp = t / 32;
        /* a new barrier interval, or every access so far by this warp
           before its latest __syncwarp: nothing to race with */
        if (s.epoch != g_chk.epoch || (s.warp == wp && s.wsync != g_chk.wsync[wp]))
          s.epoch = g_chk.epoch, s.writer = s.reader = -1, s.many_readers = 0, s.warp = (int8_t)wp,
          s.wsync = g_chk.wsync[wp];
        else if (s.warp != wp)
          s.warp = -1;
        if (s.writer >= 0 && s.writer != t)
          emu_check_fail("shared-memory race: thread %d %ss byte %llu of shared memory that "
                         "thread %d wrote since the last barrier",
                         t, what, (unsigned long long)(w * 2 - (dyn_lo - sh_lo)), s.writer);
        if (store) {
          if (s.many_readers || (s.reader >= 0 && s.reader != t))
            emu_check_fail("shared-memory race: thread %d stores to byte %llu of shared memory "
                           "that thread %d read since the last barrier",
                           t, (unsigned long long)(w * 2 - (dyn_lo - sh_lo)), s.reader);
          s.writer = (int16_t)t;
        } else if (s.reader < 0) {
          s.reader = (int16_t)t;
        } else if (s.reader != t) {
          s.many_readers = 1;
        }
      }
    }
  }
  if (g_chk.tracing) {
    emu_record r = {site, addr, size, space, store, g_chk.interval};
    g_chk.recs[g_chk.thread].push_back(r);
  }
}

/* the scheduler's hooks */
EMU_NOTRACE static inline void emu_check_launch(size_t smem, const void *args, size_t args_size,
                                                int64_t grid, int64_t block) {
  g_chk.smem = smem, g_chk.grid = grid, g_chk.block = block;
  g_chk.args_lo = (uint64_t)(uintptr_t)args, g_chk.args_hi = g_chk.args_lo + args_size;
  if (g_chk.shadow.empty())
    g_chk.shadow.resize((size_t)(__stop_bmm_emu_shared - __start_bmm_emu_shared) / 2 + 1);
}
EMU_NOTRACE static inline void emu_check_block_begin(int64_t block, int nthreads) {
  ++g_chk.epoch, ++g_chk.interval;
  g_chk.tracing = block < g_chk.trace_blocks;
  if (g_chk.tracing) {
    g_chk.recs.assign((size_t)nthreads, std::vector<emu_record>());
    ++g_chk.traced_blocks;
  }
}
EMU_NOTRACE static inline void emu_check_barrier(void) {
  ++g_chk.epoch, ++g_chk.interval;
  g_chk.traced_barriers += g_chk.tracing;
}
/* a warp's __syncwarp: its lanes' shared accesses are ordered; a new traced
   interval (the model's load rounds), not a block barrier */
EMU_NOTRACE static inline void emu_check_warpsync(int warp) {
  ++g_chk.wsync[warp], ++g_chk.interval;
}
EMU_NOTRACE static inline void emu_check_enter(int thread, const void *stack, size_t stack_bytes) {
  g_chk.active = 1, g_chk.thread = thread;
  g_chk.stack_lo = (uint64_t)(uintptr_t)stack, g_chk.stack_hi = g_chk.stack_lo + stack_bytes;
}
EMU_NOTRACE static inline void emu_check_leave(void) { g_chk.active = 0; }

/* SIMT grouping: lane l's n-th access from `site` joins the warp's n-th
   instruction at that site; each instruction is costed by emu_mem.h */
EMU_NOTRACE static inline void emu_check_block_end(int nthreads) {
  int w;
  const int nw = nthreads / 32;
  std::vector<std::map<uint32_t, std::vector<std::vector<uint64_t>>>> wseq((size_t)nw);
  std::vector<std::map<uint32_t, std::vector<int>>> wshl((size_t)nw);
  if (!g_chk.tracing) return;
  g_chk.tracing = 0;
  for (w = 0; w < nw; ++w) {
    /* per barrier interval: the most global loads of one lane, the most of
       them that touch a sector no earlier load instruction of the warp
       touched (first touches: the loads that must wait for memory; the n-th
       load of every lane is taken as one SIMT step), and the most shared
       loads of one lane (the interval's chain through shared memory) */
    std::map<uint32_t, std::vector<std::vector<uint64_t>>> seq; /* epoch -> lane -> sectors */
    std::map<uint32_t, std::vector<int>> shl;                   /* epoch -> lane -> shared loads */
    int l0;
    for (l0 = 0; l0 < 32; ++l0)
      for (const emu_record &r : g_chk.recs[(size_t)(w * 32 + l0)]) {
        if (r.store) continue;
        std::vector<std::vector<uint64_t>> &v = seq[r.epoch];
        std::vector<int> &sv = shl[r.epoch];
        if (v.empty()) v.resize(32), sv.assign(32, 0);
        if (r.space == EMU_GLOBAL)
          v[(size_t)l0].push_back(r.addr / 32);
        else
          ++sv[(size_t)l0];
      }
    std::unordered_set<uint64_t> seen; /* sectors the warp touched so far */
    for (auto &e : seq) {
      int most = 0, most_new = 0, most_sh = 0, step;
      std::vector<int> fresh(32, 0);
      for (l0 = 0; l0 < 32; ++l0) {
        if ((int)e.second[(size_t)l0].size() > most) most = (int)e.second[(size_t)l0].size();
        if (shl[e.first][(size_t)l0] > most_sh) most_sh = shl[e.first][(size_t)l0];
      }
      for (step = 0; step < most; ++step) {
        std::vector<uint64_t> now;
        for (l0 = 0; l0 < 32; ++l0)
          if (step < (int)e.second[(size_t)l0].size()) {
            const uint64_t x = e.second[(size_t)l0][(size_t)step];
            if (!seen.count(x)) ++fresh[(size_t)l0];
            now.push_back(x);
          }
        seen.insert(now.begin(), now.end());
      }
      for (l0 = 0; l0 < 32; ++l0)
        if (fresh[(size_t)l0] > most_new) most_new = fresh[(size_t)l0];
      ++g_chk.load_burst[std::array<int, 3>{{most, most_new, most_sh}}];
    }
    ++g_chk.traced_warps;
    wseq[(size_t)w].swap(seq), wshl[(size_t)w].swap(shl);
  }
  {
    /* the model's L1 order: per barrier interval (a barrier orders them for
       the whole block), the n-th load of every lane of warp 0, then of warp
       1, ...: the warps round-robin, as the SM's schedulers interleave them
       while their loads wait */
    std::set<uint32_t> epochs;
    int32_t step_id = g_chk.l1_seq.empty() ? 0 : g_chk.l1_seq.back().step + 1;
    for (w = 0; w < nw; ++w)
      for (auto &e : wseq[(size_t)w])
        epochs.insert(e.first);
    g_chk.l1_block.push_back(g_chk.l1_seq.size());
    for (const uint32_t ep : epochs) {
      std::vector<int> slot((size_t)nw, -1);
      int most_all = 0, step, l;
      for (w = 0; w < nw; ++w) {
        auto it = wseq[(size_t)w].find(ep);
        int most = 0, most_sh = 0;
        if (it == wseq[(size_t)w].end()) continue;
        for (l = 0; l < 32; ++l) {
          if ((int)it->second[(size_t)l].size() > most) most = (int)it->second[(size_t)l].size();
          if (wshl[(size_t)w][ep][(size_t)l] > most_sh) most_sh = wshl[(size_t)w][ep][(size_t)l];
        }
        slot[(size_t)w] = (int)g_chk.l1_slots.size();
        g_chk.l1_slots.push_back(std::array<int, 2>{{most, most_sh}});
        if (most > most_all) most_all = most;
      }
      for (step = 0; step < most_all; ++step)
        for (w = 0; w < nw; ++w) {
          if (slot[(size_t)w] < 0) continue;
          const std::vector<std::vector<uint64_t>> &v = wseq[(size_t)w][ep];
          for (l = 0; l < 32; ++l)
            if (step < (int)v[(size_t)l].size()) {
              const emu_l1_access a = {v[(size_t)l][(size_t)step], slot[(size_t)w], step_id, l};
              g_chk.l1_seq.push_back(a);
            }
          ++step_id;
        }
    }
  }
  for (w = 0; w < nthreads / 32; ++w) {
    std::map<std::pair<uintptr_t, int>, std::vector<std::vector<emu_lane_access>>> inst;
    std::map<std::pair<uintptr_t, int>, int> seen;
    int l;
    for (l = 0; l < 32; ++l) {
      std::map<std::pair<uintptr_t, int>, int> occ;
      for (const emu_record &r : g_chk.recs[(size_t)(w * 32 + l)]) {
        const std::pair<uintptr_t, int> key(r.site, r.space * 2 + r.store);
        const int n = occ[key]++;
        std::vector<std::vector<emu_lane_access>> &v = inst[key];
        emu_lane_access a = {r.addr, l, r.size};
        if ((int)v.size() <= n) v.resize((size_t)n + 1);
        v[(size_t)n].push_back(a);
        (void)seen;
      }
    }
    for (auto &kv : inst) {
      emu_site_cost &c = g_chk.sites[kv.first];
      for (const std::vector<emu_lane_access> &one : kv.second) {
        int64_t units, ideal;
        if (one.empty()) continue;
        if (kv.first.second / 2 == EMU_SHARED)
          emu_shared_cost(one.data(), (int)one.size(), &units, &ideal);
        else {
          emu_global_cost(one.data(), (int)one.size(), &units, &ideal);
          if (kv.first.second % 2 == 0) {
            std::vector<uint64_t> lines;
            for (const emu_lane_access &a : one)
              for (uint64_t x = a.addr / 128; x <= (a.addr + (uint64_t)a.size - 1) / 128; ++x)
                lines.push_back(x);
            std::sort(lines.begin(), lines.end());
            g_chk.load_lines += (int64_t)(std::unique(lines.begin(), lines.end()) - lines.begin());
            ++g_chk.load_insts;
          }
          for (const emu_lane_access &a : one)
            for (uint64_t x = a.addr / 32; x <= (a.addr + (uint64_t)a.size - 1) / 32; ++x)
              g_chk.global_sectors.push_back(x);
        }
        c.requests += 1, c.units += units, c.ideal += ideal, c.lanes += (int64_t)one.size();
        c.bytes += emu_distinct_bytes(one.data(), (int)one.size());
        c.size = one[0].size;
      }
    }
  }
  g_chk.recs.clear();
}

/* file:line of a call site (from -g line tables, via addr2line): the
   innermost inlined frame outside the emulator's own headers */
static inline std::string emu_site_name(uintptr_t site) {
  static std::map<uintptr_t, std::string> cache;
  Dl_info info;
  char cmd[512], line[512];
  std::string out = "?";
  FILE *p;
  if (cache.count(site)) return cache[site];
  if (!dladdr((void *)site, &info) || !info.dli_fname) return out;
  snprintf(cmd, sizeof cmd, "addr2line -i -e '%s' %#lx 2>/dev/null", info.dli_fname,
           (unsigned long)(site - 1 - (uintptr_t)info.dli_fbase));
  p = popen(cmd, "r");
  if (!p) return out;
  while (fgets(line, sizeof line, p)) {
    char *s = strrchr(line, '/'), *nl;
    std::string f = s ? s + 1 : line;
    if ((nl = strchr(&f[0], '\n')) != NULL) f.resize((size_t)(nl - &f[0]));
    if ((nl = strchr(&f[0], ' ')) != NULL) f.resize((size_t)(nl - &f[0]));
    if (out == "?" || out.compare(0, 11, "emu_prelude") == 0) out = f;
  }
  pclose(p);
  cache[site] = out;
  return out;
}

/* the traced costs: summed per kernel (global, shared) and per call site */
typedef struct emu_trace_totals {
  int64_t g_req, g_sectors, g_ideal, g_bytes, g_unique_sectors;
  int64_t g_st_bytes; /* of g_bytes, stored */
  int64_t g_st_site;  /* warp instructions of the busiest global store site */
  int64_t s_req, s_wavefronts, s_ideal;
} emu_trace_totals;

static inline emu_trace_totals emu_trace_sum(void) {
  emu_trace_totals t;
  memset(&t, 0, sizeof t);
  for (auto &kv : g_chk.sites) {
    const emu_site_cost &c = kv.second;
    if (kv.first.second / 2 == EMU_SHARED)
      t.s_req += c.requests, t.s_wavefronts += c.units, t.s_ideal += c.ideal;
    else
      t.g_req += c.requests, t.g_sectors += c.units, t.g_ideal += c.ideal, t.g_bytes += c.bytes,
          t.g_st_bytes += kv.first.second % 2 ? c.bytes : 0;
    if (kv.first.second == EMU_GLOBAL * 2 + 1 && c.requests > t.g_st_site) t.g_st_site = c.requests;
  }
  std::vector<uint64_t> u = g_chk.global_sectors;
  std::sort(u.begin(), u.end());
  t.g_unique_sectors = (int64_t)(std::unique(u.begin(), u.end()) - u.begin());
  return t;
}

static inline void emu_trace_reset(void) {
  g_chk.sites.clear(), g_chk.global_sectors.clear(), g_chk.traced_blocks = 0;
  g_chk.load_burst.clear(), g_chk.load_lines = g_chk.load_insts = g_chk.traced_warps = 0;
  g_chk.traced_barriers = 0;
  g_chk.l1_seq.clear(), g_chk.l1_slots.clear(), g_chk.l1_block.clear();
}

/* per source line and access width (an unrolled loop has several call sites
   on one line; a macro kernel has all of its accesses on one line) */
static inline void emu_trace_print(FILE *f) {
  std::map<std::pair<std::string, int>, emu_site_cost> lines;
  fprintf(f, "%-24s %-6s %-5s %4s %9s %10s %10s %7s\n", "call site", "space", "op", "size",
          "requests", "per req", "ideal/req", "excess");
  for (auto &kv : g_chk.sites) {
    emu_site_cost &c =
        lines[std::make_pair(emu_site_name(kv.first.first), kv.first.second + 4 * kv.second.size)];
    c.requests += kv.second.requests, c.units += kv.second.units, c.ideal += kv.second.ideal;
    c.bytes += kv.second.bytes, c.lanes += kv.second.lanes, c.size = kv.second.size;
  }
  for (auto &kv : lines) {
    const emu_site_cost &c = kv.second;
    const int kind = kv.first.second % 4, sh = kind / 2 == EMU_SHARED;
    fprintf(f, "%-24s %-6s %-5s %4d %9lld %10.2f %10.2f %6.2fx\n", kv.first.first.c_str(),
            sh ? "shared" : "global", kind % 2 ? "store" : "load", c.size, (long long)c.requests,
            (double)c.units / (double)c.requests, (double)c.ideal / (double)c.requests,
            (double)c.units / (double)c.ideal);
  }
}

/* ---- the instrumentation's entry points ---- */
#define EMU_CB(n, T, st)                                                                  \
  extern "C" EMU_NOTRACE void __sanitizer_cov_##st##n(T *p) {                             \
    if (g_chk.active) {                                                                   \
      g_chk.active = 0; /* the tracer's own (instrumented) library calls */               \
      emu_check_access((uintptr_t)__builtin_return_address(0), (uint64_t)(uintptr_t)p, n, \
                       #st[0] == 's');                                                    \
      g_chk.active = 1;                                                                   \
    }                                                                                     \
  }
EMU_CB(1, uint8_t, load)
EMU_CB(2, uint16_t, load)
EMU_CB(4, uint32_t, load)
EMU_CB(8, uint64_t, load)
EMU_CB(16, __int128, load)
EMU_CB(1, uint8_t, store)
EMU_CB(2, uint16_t, store)
EMU_CB(4, uint32_t, store)
EMU_CB(8, uint64_t, store)
EMU_CB(16, __int128, store)
#undef EMU_CB
extern "C" EMU_NOTRACE void __sanitizer_cov_8bit_counters_init(char *, char *) {}

EMU_NOTRACE void bmm_emu_vec_access(const void *site, const void *p, int bytes, int store) {
  if (g_chk.active) {
    g_chk.active = 0;
    emu_check_access((uintptr_t)site, (uint64_t)(uintptr_t)p, bytes, store);
    g_chk.active = 1;
  }
}

#endif /* BMM_EMU_CHECK_H */
