/* tests/cuda_emu/emu_occupancy.h - resident blocks per multiprocessor from a
   kernel's real resources (registers and static shared memory as ptxas
   allocated them: tools/model/ptxas_resources.sh), the launch bmm picks
   (threads per block, dynamic shared memory) and the architecture's limits.
   The rules are those of the CUDA occupancy calculator:
     - threads: at most max_threads per SM, max_blocks blocks;
     - registers: allocated per warp in units of 256 (a thread's count
       rounded up to a multiple of 8), from 4 sub-partitions of 16384 each;
     - shared memory: the block's static + dynamic bytes in units of 128
       plus 1 KiB the runtime reserves per block, from the SM's carve-out
       maximum. */
#ifndef BMM_EMU_OCCUPANCY_H
#define BMM_EMU_OCCUPANCY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct emu_arch {
  int arch;          /* 90, 80 */
  int sms;           /* multiprocessors of the reference part (H100 SXM, A100) */
  int max_threads;   /* resident threads per SM */
  int max_blocks;    /* resident blocks per SM */
  int regs;          /* 32-bit registers per SM */
  int smem_sm;       /* shared memory per SM, bytes (largest carve-out) */
  int smem_block;    /* per block after opt-in */
  int smem_reserved; /* per block, taken by the runtime */
} emu_arch;

static const emu_arch emu_arch_sm90 = {90, 132, 2048, 32, 65536, 233472, 232448, 1024};
static const emu_arch emu_arch_sm80 = {80, 108, 2048, 32, 65536, 167936, 166912, 1024};

typedef struct emu_occupancy {
  int blocks;        /* resident blocks per SM */
  int threads;       /* resident threads per SM */
  const char *limit; /* "threads", "blocks", "registers", "shared memory" */
} emu_occupancy;

static inline emu_occupancy emu_occupancy_of(const emu_arch *a, int block, int regs,
                                             int smem_bytes) {
  emu_occupancy o;
  const int warps = (block + 31) / 32;
  const int regs_warp = ((regs + 7) / 8 * 8 * 32 + 255) / 256 * 256;
  const int by_threads = a->max_threads / (warps * 32);
  const int by_regs = regs_warp ? (a->regs / 4 / regs_warp) * 4 / warps : a->max_blocks;
  const int by_smem = smem_bytes > 0
                          ? a->smem_sm / ((smem_bytes + 127) / 128 * 128 + a->smem_reserved)
                          : a->max_blocks;
  o.blocks = a->max_blocks, o.limit = "blocks";
  if (by_threads < o.blocks) o.blocks = by_threads, o.limit = "threads";
  if (by_regs < o.blocks) o.blocks = by_regs, o.limit = "registers";
  if (by_smem < o.blocks) o.blocks = by_smem, o.limit = "shared memory";
  if (smem_bytes > a->smem_block) o.blocks = 0, o.limit = "shared memory (cannot launch)";
  o.threads = o.blocks * block;
  return o;
}

/* one row of tools/model/ptxas_sm80_sm90.csv */
typedef struct emu_kernel_res {
  int arch, regs, smem;
  char kernel[32], dtype[8];
} emu_kernel_res;

/* the rows of the resources CSV; 0 rows if it cannot be read */
static inline int emu_load_resources(const char *path, emu_kernel_res *out, int max) {
  FILE *f = fopen(path, "r");
  char line[256];
  int n = 0;
  if (!f) return 0;
  while (n < max && fgets(line, sizeof line, f)) {
    emu_kernel_res r;
    char *c1, *c2, *c3;
    if (line[0] == '#' || strncmp(line, "arch,", 5) == 0) continue;
    c1 = strchr(line, ',');
    c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    c3 = c2 ? strchr(c2 + 1, ',') : NULL;
    if (!c3) continue;
    *c1 = *c2 = *c3 = 0;
    r.arch = atoi(line);
    snprintf(r.kernel, sizeof r.kernel, "%s", c1 + 1);
    snprintf(r.dtype, sizeof r.dtype, "%s", c2 + 1);
    if (sscanf(c3 + 1, "%d,%d", &r.regs, &r.smem) != 2) continue;
    out[n++] = r;
  }
  fclose(f);
  return n;
}

static inline const emu_kernel_res *emu_find_resources(const emu_kernel_res *t, int n, int arch,
                                                       const char *kernel, const char *dtype) {
  int i;
  for (i = 0; i < n; ++i)
    if (t[i].arch == arch && strcmp(t[i].kernel, kernel) == 0 && strcmp(t[i].dtype, dtype) == 0)
      return &t[i];
  return NULL;
}

/* The resources table the emulator and the model read:
   $BMM_MODEL_RESOURCES, else the repository's (run from its root). */
static inline const char *emu_resources_path(void) {
  const char *p = getenv("BMM_MODEL_RESOURCES");
  return p ? p : "tools/model/ptxas_sm80_sm90.csv";
}

/* A kernel's row of that table, read once; NULL where it has none. */
static inline const emu_kernel_res *emu_resources(int arch, const char *kernel, const char *dtype) {
  static emu_kernel_res res[256];
  static int n = -1;
  if (n < 0) n = emu_load_resources(emu_resources_path(), res, 256);
  return emu_find_resources(res, n, arch, kernel, dtype);
}

/* The kernel bmm_explain's text says a launch runs, as the resources table
   spells it (e.g. "staged", "tiled64", "staged_gen"): its kernel= field
   (kernel=bmm__cuda_staged_gen<float>), else the strategy's name without
   tunables. */
static inline void emu_kernel_of_explain(const char *explain, char *kern, size_t size) {
  const char *sn = strstr(explain, "-> cuda_"), *kn = strstr(explain, "kernel=bmm__cuda_");
  snprintf(kern, size, "%s", kn ? kn + 17 : sn ? sn + 8 : "?");
  kern[strcspn(kern, "<; ")] = 0;
}

#endif /* BMM_EMU_OCCUPANCY_H */
