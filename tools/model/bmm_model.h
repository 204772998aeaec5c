/* tools/model/bmm_model.h - build/bmm-model: what bmm's CUDA launches do to
   the memory system, computed on the CPU from the emulated kernels (issue 19).
   Built from tests/cuda_emu/emu_test.cpp with -DBMM_MODEL (the checked,
   instrumented build: emu_check.h traces, emu_mem.h costs, emu_occupancy.h
   resides); see tools/model/model.ninja.

     build/bmm-model --suite bench/suite.csv [--strategy NAME|auto] [--arch 90|80]
     build/bmm-model --sweep [--strategy NAME|auto] [--arch 90|80]
                                     seed problem (batch 10^6, 3x1xK), K = 1..64,
                                     f32 and f64

   Per row, as CSV: the strategy and kernel bmm picks (or the forced one) on
   an emulated H100 (132 SMs; A100 with --arch 80: 108), the launch, and from
   the first 2 blocks of the real-size launch, traced: global 32-byte sectors
   per request and the ideal, shared-memory wavefronts per request and the
   ideal, resident threads per SM (registers and static shared memory from
   tools/model/ptxas_sm80_sm90.csv or $BMM_MODEL_RESOURCES) and what limits
   them, and the global bytes a resident SM has requested per traced block.

   NOT DONE: the predicted percentage of copy bandwidth (issue 19's curve from
   bytes in flight, calibrated on ../shared/gpu_calibration/probe_h100.csv)
   and --calibration; the last line says so instead of giving a figure.
   Progress goes to stderr. */
#ifndef BMM_MODEL_H
#define BMM_MODEL_H

typedef struct model_row {
  char name[48];
  bmmx_case c;
} model_row;

static int model_read_suite(const char *path, std::vector<model_row> *rows) {
  FILE *f = fopen(path, "r");
  char line[512];
  if (!f) return 0;
  while (fgets(line, sizeof line, f)) {
    model_row r;
    char dt[16], lay[32];
    long long b, m, n, k;
    int di;
    memset(&r, 0, sizeof r);
    if (sscanf(line, "%47[^,],%15[^,],%lld,%lld,%lld,%lld,%31[^,\n]", r.name, dt, &b, &m, &n, &k,
               lay) != 7)
      continue; /* the header */
    r.c.dtype = BMM_DTYPE_UNSET;
    for (di = 0; di < NDT; ++di)
      if (strcmp(dt, bmm_dtype_name(g_dtypes[di])) == 0) r.c.dtype = g_dtypes[di];
    r.c.batch = b, r.c.m = m, r.c.n = n, r.c.k = k, r.c.layout = bmmx_layout_parse(lay);
    snprintf(r.c.name, sizeof r.c.name, "%s", r.name);
    if (r.c.dtype == BMM_DTYPE_UNSET || r.c.layout < 0) {
      fprintf(stderr, "bmm-model: %s: bad row: %s", path, line);
      fclose(f);
      return 0;
    }
    rows->push_back(r);
  }
  fclose(f);
  return 1;
}

/* one row: plan, launch the first 2 blocks traced, print the CSV line */
static void model_row_run(const model_row *r, bmm_strategy st, const emu_arch *arch,
                          const emu_kernel_res *res, int nres) {
  const int64_t es = (int64_t)bmm_dtype_size(r->c.dtype);
  const bmmx_sizes_t sz = bmmx_sizes(&r->c);
  void *A = emu_reserve(sz.a * es), *B = emu_reserve(sz.b * es), *C = emu_reserve(sz.c * es),
       *Bi = emu_reserve((sz.bias + 1) * es);
  bmm_problem p = bmmx_problem(&r->c, A, B, C, sz.bias ? Bi : NULL);
  char explain[2048], kern[32] = "?";
  const char *sn;
  bmm_status s;
  p.strategy = st;
  emu_trace_reset();
  g_chk.checks = 0, g_chk.trace_blocks = 2, g_emu_max_blocks = 2, g_emu_sms = arch->sms;
  g_chk.block = g_chk.grid = 0, g_chk.smem = 0;
  g_emu_error[0] = 0;
  bmm_explain(&p, BMM_BACKEND_CUDA, explain, sizeof explain);
  s = bmm_cuda(&p, 0);
  sn = strstr(explain, "-> cuda_");
  if (sn) {
    snprintf(kern, sizeof kern, "%s", sn + 8);
    if (strchr(kern, ';')) *strchr(kern, ';') = 0;
  }
  if (strstr(explain, "tile=64")) snprintf(kern, sizeof kern, "tiled64");
  if (strstr(explain, "tile=32")) snprintf(kern, sizeof kern, "tiled32");
  if (strstr(explain, "sums=4x4")) snprintf(kern, sizeof kern, "batch_entry4");
  if (strstr(explain, "sums=8x8")) snprintf(kern, sizeof kern, "batch_entry8");
  printf("%s,%s,%lld,%lld,%lld,%lld,%s,%s,%s,", r->name, bmm_dtype_name(r->c.dtype),
         (long long)r->c.batch, (long long)r->c.m, (long long)r->c.n, (long long)r->c.k,
         bmmx_layout_name(r->c.layout), sn ? "cuda" : "-", kern);
  if (s != BMM_OK || !sn) {
    printf("%lld,%lld,%zu,,,,,,,,not run: %s\n", (long long)g_chk.grid, (long long)g_chk.block,
           g_chk.smem, s != BMM_OK ? bmm_last_error() : "no CUDA kernel");
    return;
  }
  const emu_trace_totals t = emu_trace_sum();
  const emu_kernel_res *kr =
      emu_find_resources(res, nres, arch->arch, kern, bmm_dtype_name(r->c.dtype));
  emu_occupancy o = {0, 0, "no resources"};
  if (kr) o = emu_occupancy_of(arch, (int)g_chk.block, kr->regs, kr->smem + (int)g_chk.smem);
  printf("%lld,%lld,%zu,%.2f,%.2f,%.2f,%.2f,%d,%s,%lld,\n", (long long)g_chk.grid,
         (long long)g_chk.block, g_chk.smem + (kr ? (size_t)kr->smem : 0),
         t.g_req ? (double)t.g_sectors / (double)t.g_req : 0.0,
         t.g_req ? (double)t.g_ideal / (double)t.g_req : 0.0,
         t.s_req ? (double)t.s_wavefronts / (double)t.s_req : 0.0,
         t.s_req ? (double)t.s_ideal / (double)t.s_req : 0.0, o.threads, o.limit,
         g_chk.traced_blocks ? (long long)(t.g_unique_sectors * 32 / g_chk.traced_blocks) : 0LL);
  munmap(A, (size_t)(sz.a * es) + 4096), munmap(B, (size_t)(sz.b * es) + 4096);
  munmap(C, (size_t)(sz.c * es) + 4096), munmap(Bi, (size_t)((sz.bias + 1) * es) + 4096);
}

static int model_main(int argc, char **argv) {
  const char *suite = NULL;
  int sweep = 0, i, archn = 90;
  bmm_strategy st = BMM_STRATEGY_AUTO;
  std::vector<model_row> rows;
  static emu_kernel_res res[256];
  const char *rpath = getenv("BMM_MODEL_RESOURCES") ? getenv("BMM_MODEL_RESOURCES")
                                                    : "tools/model/ptxas_sm80_sm90.csv";
  const int nres = emu_load_resources(rpath, res, 256);
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
      suite = argv[++i];
    else if (strcmp(argv[i], "--sweep") == 0)
      sweep = 1;
    else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
      archn = atoi(argv[++i]);
    else if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc) {
      int s, found = 0;
      ++i;
      for (s = 0; s < BMM_STRATEGY_COUNT; ++s)
        if (strcmp(argv[i], bmm_strategy_name((bmm_strategy)s)) == 0)
          st = (bmm_strategy)s, found = 1;
      if (!found) {
        fprintf(stderr, "bmm-model: unknown strategy %s\n", argv[i]);
        return 2;
      }
    } else {
      fprintf(stderr,
              "usage: %s --suite bench/suite.csv | --sweep  [--strategy NAME|auto] "
              "[--arch 90|80]\n",
              argv[0]);
      return 2;
    }
  }
  if ((!suite && !sweep) || (archn != 90 && archn != 80)) {
    fprintf(stderr, "bmm-model: --suite FILE or --sweep, --arch 90 or 80\n");
    return 2;
  }
  if (nres == 0) fprintf(stderr, "bmm-model: no kernel resources in %s\n", rpath);
  if (suite && !model_read_suite(suite, &rows)) {
    fprintf(stderr, "bmm-model: cannot read %s\n", suite);
    return 2;
  }
  if (sweep) {
    int k, di;
    for (di = 0; di < NDT; ++di)
      for (k = 1; k <= 64; ++k) {
        model_row r;
        memset(&r, 0, sizeof r);
        snprintf(r.name, sizeof r.name, "seed_k%d", k);
        r.c.dtype = g_dtypes[di], r.c.batch = 1000000, r.c.m = 3, r.c.n = 1, r.c.k = k;
        r.c.layout = BMMX_ROWMAJOR;
        rows.push_back(r);
      }
  }
  const emu_arch *arch = archn == 80 ? &emu_arch_sm80 : &emu_arch_sm90;
  printf("# bmm-model: traced (emulated, not measured) memory costs of bmm's CUDA launches, "
         "sm_%d, strategy %s, 2 blocks traced per launch\n",
         archn, bmm_strategy_name(st));
  printf("name,dtype,batch,m,n,k,layout,backend,kernel,grid,block,smem_per_block,"
         "sectors_per_req,ideal_sectors_per_req,wavefronts_per_req,ideal_wavefronts_per_req,"
         "resident_threads_per_sm,occupancy_limit,global_bytes_per_block,note\n");
  for (i = 0; i < (int)rows.size(); ++i) {
    fprintf(stderr, "\rbmm-model: %d/%d %s %s   ", i + 1, (int)rows.size(), rows[i].name,
            bmm_dtype_name(rows[i].c.dtype));
    model_row_run(&rows[i], st, arch, res, nres);
    fflush(stdout);
  }
  fprintf(stderr, "\n");
  printf("model: no predicted %% of copy bandwidth: the bandwidth model of issue 19 (step 4) is "
         "not built yet; the columns above are traced costs and residency only\n");
  return 0;
}

#endif /* BMM_MODEL_H */
