/* ab_cpu OLD.so NEW.so SUITE.csv [--mb N] [--reps R] [--only NAME]: the CPU
   speed of two builds of bmm in one process (tools/ab/ab_cpu.sh makes them
   from git revisions). Per suite row: the same random problem, the two builds
   called alternately R times each (ABAB..., so drift in this shared machine's
   speed hits both alike), median time of each, their ratio, and a check that
   both wrote the same bits. Problems are sized to about N MB (default 256:
   8x a 32 MB last-level cache) by scaling the batch. Prints CSV and a last
   line with the geometric mean of new/old. */
#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"

#include <dlfcn.h>
#include <math.h>
#include <time.h>

typedef int (*ab_fn)(const void *);
typedef size_t (*ab_size_fn)(void);

static double ab_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static ab_fn ab_load(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ab_size_fn size;
  ab_fn fn;
  if (!h) {
    fprintf(stderr, "ab_cpu: cannot load %s: %s\n", path, dlerror());
    return NULL;
  }
  size = (ab_size_fn)(uintptr_t)dlsym(h, "ab_problem_size");
  fn = (ab_fn)(uintptr_t)dlsym(h, "ab_cpu");
  if (!size || !fn) {
    fprintf(stderr, "ab_cpu: %s lacks ab_problem_size/ab_cpu (build it from tools/ab/ab_lib.c)\n",
            path);
    return NULL;
  }
  /* the harness builds descriptors in its own revision's layout */
  if (size() != sizeof(bmm_problem)) {
    fprintf(stderr, "ab_cpu: %s has a bmm_problem of %zu bytes, this harness %zu: not comparable\n",
            path, size(), sizeof(bmm_problem));
    return NULL;
  }
  return fn;
}

static int ab_row(const char *line, bmmx_case *c) {
  char dt[16], lay[32];
  long long b, m, n, k;
  if (sscanf(line, "%47[^,],%15[^,],%lld,%lld,%lld,%lld,%31[^,\n]", c->name, dt, &b, &m, &n, &k,
             lay) != 7)
    return 0;
  c->dtype = bmmx_dtype_parse(dt); /* every dtype: f16/bf16 rows are issue 23's A/B */
  if (c->dtype == BMM_DTYPE_UNSET) return 0;
  c->batch = b, c->m = m, c->n = n, c->k = k;
  c->layout = bmmx_layout_parse(lay);
  return c->layout >= 0;
}

int main(int argc, char **argv) {
  ab_fn fn[2];
  FILE *f;
  char line[256];
  double mb = 256, logsum = 0;
  int reps = 9, i, rows = 0, differ = 0;
  const char *only = NULL;
  uint64_t seed = 1;
  if (argc < 4) {
    fprintf(stderr, "usage: ab_cpu OLD.so NEW.so SUITE.csv [--mb N] [--reps R] [--only NAME]\n");
    return 2;
  }
  for (i = 4; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--mb") == 0)
      mb = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--reps") == 0)
      reps = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--only") == 0)
      only = argv[i + 1];
  }
  if (reps < 1 || reps > 101 || mb <= 0) {
    fprintf(stderr, "ab_cpu: --reps must be 1..101 and --mb positive\n");
    return 2;
  }
  if (!(fn[0] = ab_load(argv[1])) || !(fn[1] = ab_load(argv[2]))) return 2;
  if (!(f = fopen(argv[3], "r"))) {
    fprintf(stderr, "ab_cpu: cannot open %s\n", argv[3]);
    return 2;
  }
  printf("name,dtype,batch,m,n,k,layout,old_ms,new_ms,new_over_old,same_bits\n");
  while (fgets(line, sizeof line, f)) {
    bmmx_case c;
    bmmx_sizes_t s;
    size_t es;
    double bytes, t[2][101], med[2];
    void *a, *b, *out[2], *bias = NULL;
    int r, side, same;
    if (!ab_row(line, &c) || (only && strcmp(only, c.name) != 0)) continue;
    es = bmm_dtype_size(c.dtype);
    s = bmmx_sizes(&c);
    bytes = (double)(s.a + s.b + s.c) * (double)es;
    if (bytes > mb * 1e6 && c.batch > 1) {
      c.batch = (int64_t)((double)c.batch * mb * 1e6 / bytes);
      if (c.batch < 1) c.batch = 1;
      s = bmmx_sizes(&c);
    }
    a = malloc((size_t)s.a * es), b = malloc((size_t)s.b * es);
    out[0] = malloc((size_t)s.c * es), out[1] = malloc((size_t)s.c * es);
    if (s.bias) bias = malloc((size_t)s.bias * es);
    if (!a || !b || !out[0] || !out[1] || (s.bias && !bias)) {
      fprintf(stderr, "ab_cpu: %s: out of memory\n", c.name);
      return 2;
    }
    bmmx_fill_parallel(c.dtype, a, s.a, &seed);
    bmmx_fill_parallel(c.dtype, b, s.b, &seed);
    if (bias) bmmx_fill(c.dtype, bias, s.bias, &seed);
    for (side = 0; side < 2; ++side)
      bmmx_fill_parallel(c.dtype, out[side], s.c, &seed);
    for (r = -1; r < reps; ++r) { /* r = -1: warm-up of both */
      for (side = 0; side < 2; ++side) {
        int who = (r & 1) ? 1 - side : side; /* ABBA: neither always goes first */
        bmm_problem p = bmmx_problem(&c, a, b, out[who], bias);
        double t0 = ab_now();
        int st = fn[who](&p);
        double t1 = ab_now();
        if (st != 0) {
          fprintf(stderr, "ab_cpu: %s: %s build returned status %d\n", c.name, who ? "new" : "old",
                  st);
          return 1;
        }
        if (r >= 0) t[who][r] = t1 - t0;
      }
    }
    med[0] = bmmx_median(t[0], reps), med[1] = bmmx_median(t[1], reps);
    same = memcmp(out[0], out[1], (size_t)s.c * es) == 0;
    differ += !same;
    logsum += log(med[1] / med[0]), ++rows;
    printf("%s,%s,%lld,%lld,%lld,%lld,%s,%.3f,%.3f,%.3f,%s\n", c.name, bmm_dtype_name(c.dtype),
           (long long)c.batch, (long long)c.m, (long long)c.n, (long long)c.k,
           bmmx_layout_name(c.layout), 1e3 * med[0], 1e3 * med[1], med[1] / med[0],
           same ? "yes" : "NO");
    fflush(stdout);
    free(a), free(b), free(out[0]), free(out[1]), free(bias);
  }
  fclose(f);
  printf("ab: new/old geometric mean %.3f over %d rows, %d with different bits\n",
         rows ? exp(logsum / rows) : 0.0, rows, differ);
  return differ ? 1 : 0;
}
