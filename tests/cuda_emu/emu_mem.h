/* tests/cuda_emu/emu_mem.h - what one warp-level memory instruction costs,
   from the addresses its lanes touch: the two counts that decide most of the
   speed of a memory-bound kernel and that need no GPU to compute.

   Global memory: the L1/L2 move 32-byte sectors. A request costs one sector
   for every distinct 32-byte sector any active lane touches; the ideal is the
   fewest sectors that can hold the distinct bytes requested (a coalesced warp
   of 4-byte loads: 4 sectors; the same word for every lane: 1).

   Shared memory: 32 banks of 4-byte words. A request is served in
   wavefronts: 4-byte (or narrower) accesses in one phase of 32 lanes, 8-byte
   accesses in two phases of 16 lanes, 16-byte ones in four phases of 8 lanes
   (the Volta-and-later rule Nsight Compute counts by). In a phase every bank
   serves one word per wavefront: lanes reading the same word share it
   (broadcast), lanes on different words of one bank take one wavefront
   each. The ideal is the distinct bytes over 128, at least one.

   Plain functions of an access list: tests/cuda_emu/emu_check_test.cpp checks
   them on hand-made patterns, emu_check.h applies them to traced kernels. */
#ifndef BMM_EMU_MEM_H
#define BMM_EMU_MEM_H

#include <stdint.h>

#include <algorithm>
#include <vector>

/* one lane's part of a warp-level access */
typedef struct emu_lane_access {
  uint64_t addr;
  int lane, size;
} emu_lane_access;

/* distinct bytes covered by the accesses (overlaps counted once) */
static inline int64_t emu_distinct_bytes(const emu_lane_access *a, int n) {
  std::vector<std::pair<uint64_t, uint64_t>> iv;
  int64_t total = 0;
  uint64_t end = 0;
  int i;
  for (i = 0; i < n; ++i)
    iv.push_back(std::make_pair(a[i].addr, a[i].addr + (uint64_t)a[i].size));
  std::sort(iv.begin(), iv.end());
  for (i = 0; i < (int)iv.size(); ++i) {
    uint64_t lo = iv[i].first > end ? iv[i].first : end;
    if (iv[i].second > lo) total += (int64_t)(iv[i].second - lo);
    if (iv[i].second > end) end = iv[i].second;
  }
  return total;
}

/* 32-byte sectors touched, and the ideal for the same distinct bytes */
static inline void emu_global_cost(const emu_lane_access *a, int n, int64_t *sectors,
                                   int64_t *ideal) {
  std::vector<uint64_t> s;
  int i;
  for (i = 0; i < n; ++i) {
    uint64_t x;
    for (x = a[i].addr / 32; x <= (a[i].addr + (uint64_t)a[i].size - 1) / 32; ++x)
      s.push_back(x);
  }
  std::sort(s.begin(), s.end());
  *sectors = (int64_t)(std::unique(s.begin(), s.end()) - s.begin());
  *ideal = n ? (emu_distinct_bytes(a, n) + 31) / 32 : 0;
  if (n && *ideal < 1) *ideal = 1;
}

/* shared-memory wavefronts (phases by access width, banks, broadcast) and the
   ideal for the distinct bytes */
static inline void emu_shared_cost(const emu_lane_access *a, int n, int64_t *wavefronts,
                                   int64_t *ideal) {
  int size = 4, i, phase;
  int64_t total = 0;
  for (i = 0; i < n; ++i)
    if (a[i].size > size) size = a[i].size;
  /* lanes per phase: 32 for <= 4 bytes, 16 for 8, 8 for 16 */
  const int per_phase = size >= 16 ? 8 : size >= 8 ? 16 : 32;
  for (phase = 0; phase < 32 / per_phase; ++phase) {
    std::vector<uint64_t> words[32];
    int worst = 0, b;
    for (i = 0; i < n; ++i) {
      uint64_t w;
      if (a[i].lane / per_phase != phase) continue;
      for (w = a[i].addr / 4; w <= (a[i].addr + (uint64_t)a[i].size - 1) / 4; ++w)
        words[w % 32].push_back(w);
    }
    for (b = 0; b < 32; ++b) {
      std::vector<uint64_t> &v = words[b];
      std::sort(v.begin(), v.end());
      int d = (int)(std::unique(v.begin(), v.end()) - v.begin());
      if (d > worst) worst = d;
    }
    total += worst;
  }
  *wavefronts = total;
  *ideal = n ? (emu_distinct_bytes(a, n) + 127) / 128 : 0;
  if (n && *ideal < 1) *ideal = 1;
}

#endif /* BMM_EMU_MEM_H */
