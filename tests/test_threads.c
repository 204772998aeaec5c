/* tests/test_threads.c - bmm_cpu from several threads while others replace,
   reset, load and print the table.

   The expected bits of every case are computed first, single-threaded. The
   tables the mutators install are the default rules with rules in front that
   never match (sizes no case has) and other notes, so every table state picks
   the same strategy and tunables: any difference in the bits then comes from
   a race, not from a legitimate change of kernel. BMM_TABLE_FILE is set to
   such a table before the first call, so the lazy environment read races too.
   Workers also check that bmm_last_error() is per thread. Run plainly and
   under TSan (`ninja sanitize`). */
#define _DEFAULT_SOURCE 1
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tests/bmm_test.h"
#include "tests/fuzz_util.h"

#define WORKERS 4
#define MUTATORS 2

typedef struct tcase {
  bmmx_case c;
  bmm_strategy strategy; /* AUTO: through the table */
  void *a, *b, *bias;
  size_t c_bytes;
  void *expect;
} tcase;

static tcase cases[512];
static int ncases, rounds = 40; /* argv[1] overrides (TSan runs fewer) */
static bmm_table_rule variant[BMM_TABLE_MAX_RULES];
static int nvariant;
static char file_env[64], file_load[64];
static int stop_flag;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;

static int stopped(void) {
  int s;
  pthread_mutex_lock(&stop_lock);
  s = stop_flag;
  pthread_mutex_unlock(&stop_lock);
  return s;
}

static void set_stop(int s) {
  pthread_mutex_lock(&stop_lock);
  stop_flag = s;
  pthread_mutex_unlock(&stop_lock);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    printf("FAIL: out of memory\n");
    exit(1);
  }
  return p;
}

static bmm_problem problem_of(const tcase *t, void *c) {
  bmm_problem p = bmmx_problem(&t->c, t->a, t->b, c, t->bias);
  p.strategy = t->strategy;
  return p;
}

/* Never-matching rules in front of the compiled default; notes differ. */
static int make_variant(bmm_table_rule *out, int extra, const char *note) {
  int i, n = 0;
  for (i = 0; i < extra; ++i) {
    memset(&out[n], 0, sizeof out[n]);
    out[n].m_min = 1000000 + i;
    out[n].strategy = BMM_CPU_DOT;
    out[n].threads = 1;
    snprintf(out[n].note, sizeof out[n].note, "%s: never matches", note);
    ++n;
  }
  for (i = 0; i < BMM__CPU_NRULES && n < BMM_TABLE_MAX_RULES; ++i) {
    out[n] = BMM_CPU_TABLE[i];
    snprintf(out[n].note, sizeof out[n].note, "%s %d", note, i);
    ++n;
  }
  return n;
}

static int write_table(const char *path, const bmm_table_rule *rules, int n) {
  size_t len = bmm_table_format(rules, n, NULL, 0);
  char *text = (char *)xmalloc(len + 1);
  FILE *f = fopen(path, "w");
  int ok = f != NULL;
  bmm_table_format(rules, n, text, len + 1);
  if (f) ok = fwrite(text, 1, len, f) == len && fclose(f) == 0;
  free(text);
  return ok;
}

static void add_cases(void) {
  static const int64_t shapes[][4] = {{7, 5, 6, 9}, {16, 3, 3, 3}, {3, 17, 19, 21}, {64, 1, 8, 4}};
  uint64_t seed = 99;
  int dt, l;
  unsigned si;
  for (dt = 1; dt < BMM_DTYPE_COUNT; ++dt)
    for (l = 0; l < BMMX_LAYOUT_COUNT; ++l)
      for (si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
        int s;
        for (s = 0; s < BMM_STRATEGY_COUNT; ++s) {
          tcase *t;
          bmmx_sizes_t sz;
          bmm_problem p;
          bmm_plan plan;
          size_t es = bmm_dtype_size((bmm_dtype)dt);
          if (s != BMM_STRATEGY_AUTO && bmm_strategy_backend((bmm_strategy)s) != BMM_BACKEND_CPU)
            continue;
          if (ncases == (int)(sizeof cases / sizeof cases[0])) return;
          t = &cases[ncases];
          memset(t, 0, sizeof *t);
          t->c.dtype = (bmm_dtype)dt, t->c.layout = l;
          t->c.batch = shapes[si][0], t->c.m = shapes[si][1], t->c.n = shapes[si][2];
          t->c.k = shapes[si][3];
          snprintf(t->c.name, sizeof t->c.name, "%s/%s", bmmx_layout_name(l),
                   bmm_dtype_name((bmm_dtype)dt));
          t->strategy = (bmm_strategy)s;
          sz = bmmx_sizes(&t->c);
          t->a = xmalloc((size_t)sz.a * es), t->b = xmalloc((size_t)sz.b * es);
          t->bias = sz.bias ? xmalloc((size_t)sz.bias * es) : NULL;
          t->c_bytes = (size_t)sz.c * es;
          bmmx_fill(t->c.dtype, t->a, sz.a, &seed);
          bmmx_fill(t->c.dtype, t->b, sz.b, &seed);
          if (t->bias) bmmx_fill(t->c.dtype, t->bias, sz.bias, &seed);
          t->expect = xmalloc(t->c_bytes);
          memset(t->expect, 0xA5, t->c_bytes); /* padding keeps it, as in the workers */
          p = problem_of(t, t->expect);
          if (bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) != BMM_OK) {
            free(t->a), free(t->b), free(t->bias), free(t->expect);
            continue; /* a forced strategy that does not claim this layout */
          }
          BMMX_CHECK(bmm_cpu(&p) == BMM_OK, "%s %s: %s", t->c.name, bmm_strategy_name(t->strategy),
                     bmm_last_error());
          ++ncases;
        }
      }
}

static void *worker(void *arg) {
  uint64_t seed = 1 + (uint64_t)(uintptr_t)arg;
  int r, i, bad = 0, errors_ok = 1;
  void *c = NULL;
  size_t cap = 0;
  for (r = 0; r < rounds; ++r)
    for (i = 0; i < ncases; ++i) {
      tcase *t = &cases[(i + (int)(bmmx_rand(&seed) % (uint64_t)ncases)) % ncases];
      bmm_problem p;
      bmm_status s;
      if (t->c_bytes > cap) {
        free(c);
        cap = t->c_bytes;
        c = xmalloc(cap);
      }
      memset(c, 0xA5, t->c_bytes);
      p = problem_of(t, c);
      if (bmmx_rand(&seed) % 8 == 0) { /* an error here must not leak to others */
        bmm_problem bad_p = p;
        bad_p.m = -1;
        if (bmm_cpu(&bad_p) != BMM_BAD_SIZE || strncmp(bmm_last_error(), "BAD_SIZE", 8) != 0)
          errors_ok = 0;
      }
      s = bmm_cpu(&p);
      if (s != BMM_OK || bmm_last_error()[0] != 0 || memcmp(c, t->expect, t->c_bytes) != 0) ++bad;
    }
  free(c);
  return (void *)(intptr_t)(bad * 2 + !errors_ok);
}

static void *first_touch(void *arg) {
  static char bufs[WORKERS][1 << 14];
  static int next;
  static pthread_mutex_t next_lock = PTHREAD_MUTEX_INITIALIZER;
  char *buf;
  (void)arg;
  pthread_mutex_lock(&next_lock);
  buf = bufs[next++ % WORKERS];
  pthread_mutex_unlock(&next_lock);
  {
    /* also the first kernel call: lazily read settings (BMM_CPU_THREADS) race here */
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4];
    bmm_problem p = bmm_problem_rowmajor(BMM_F32, 1, 2, 2, 3, a, b, c);
    if (bmm_cpu(&p) != BMM_OK || c[0] != 4 || c[1] != 5 || c[2] != 10 || c[3] != 11)
      return (void *)1;
  }
  bmm_table_print(BMM_BACKEND_CPU, 0, buf, sizeof bufs[0]);
  return strstr(buf, "env: never matches") ? NULL : (void *)1;
}

static void *mutator(void *arg) {
  int id = (int)(intptr_t)arg, it = 0, bad = 0;
  static char bufs[MUTATORS][1 << 14];
  char *buf = bufs[id];
  bmm_table_rule back[BMM_TABLE_MAX_RULES * 2];
  while (!stopped()) {
    int n = 0;
    switch ((it + id) % 6) {
    case 0:
      if (bmm_set_table(BMM_BACKEND_CPU, variant, nvariant) != BMM_OK) ++bad;
      break;
    case 1:
      if (bmm_set_table(BMM_BACKEND_CPU, NULL, 0) != BMM_OK) ++bad;
      break;
    case 2:
      if (bmm_load_table_file(file_load) != BMM_OK) ++bad;
      break;
    case 3: /* what is printed is a whole table, whichever it is */
      bmm_table_print(BMM_BACKEND_CPU, 0, buf, sizeof bufs[0]);
      if (bmm_table_parse(buf, back, BMM_TABLE_MAX_RULES * 2, &n) != BMM_OK ||
          n < BMM__CPU_NRULES ||
          back[n - 1].strategy != BMM_CPU_TABLE[BMM__CPU_NRULES - 1].strategy)
        ++bad;
      break;
    case 4: {
      bmm_problem p = problem_of(&cases[it % ncases], cases[it % ncases].expect);
      if (bmm_explain(&p, BMM_BACKEND_CPU, buf, sizeof bufs[0]) != BMM_OK) ++bad;
      break;
    }
    default:
      if (bmm_table_get(BMM_BACKEND_CPU, 0, back, BMM_TABLE_MAX_RULES, &n) != BMM_OK ||
          n < BMM__CPU_NRULES)
        ++bad;
      break;
    }
    ++it;
  }
  return (void *)(intptr_t)(bad * 2 + (it < 6));
}

int main(int argc, char **argv) {
  pthread_t w[WORKERS], m[MUTATORS];
  bmm_table_rule rules[BMM_TABLE_MAX_RULES];
  int i, n;
  if (argc > 1 && atoi(argv[1]) > 0) rounds = atoi(argv[1]);
  snprintf(file_env, sizeof file_env, "/tmp/bmm_threads_env.%ld", (long)getpid());
  snprintf(file_load, sizeof file_load, "/tmp/bmm_threads_load.%ld", (long)getpid());
  n = make_variant(rules, 1, "env");
  BMMX_CHECK(write_table(file_env, rules, n), "cannot write %s", file_env);
  n = make_variant(rules, 2, "file");
  BMMX_CHECK(write_table(file_load, rules, n), "cannot write %s", file_load);
  nvariant = make_variant(variant, 3, "api");
  setenv("BMM_TABLE_FILE", file_env, 1);

  /* the first table access (which reads BMM_TABLE_FILE) in several threads at once */
  for (i = 0; i < WORKERS; ++i)
    pthread_create(&w[i], NULL, first_touch, NULL);
  for (i = 0; i < WORKERS; ++i) {
    void *ret;
    pthread_join(w[i], &ret);
    BMMX_CHECK(ret == NULL,
               "first touch %d: wrong result, or the BMM_TABLE_FILE table is not active", i);
  }

  add_cases();
  BMMX_CHECK(ncases > 0, "no cases");
  for (i = 0; i < MUTATORS; ++i)
    pthread_create(&m[i], NULL, mutator, (void *)(intptr_t)i);
  for (i = 0; i < WORKERS; ++i)
    pthread_create(&w[i], NULL, worker, (void *)(intptr_t)i);
  for (i = 0; i < WORKERS; ++i) {
    void *ret;
    intptr_t r;
    pthread_join(w[i], &ret);
    r = (intptr_t)ret;
    BMMX_CHECK(r / 2 == 0, "worker %d: %d results differ from the single-thread bits", i,
               (int)(r / 2));
    BMMX_CHECK(r % 2 == 0, "worker %d: bmm_last_error() was not per thread", i);
  }
  set_stop(1);
  for (i = 0; i < MUTATORS; ++i) {
    void *ret;
    pthread_join(m[i], &ret);
    BMMX_CHECK((intptr_t)ret / 2 == 0, "mutator %d: %d table operations failed", i,
               (int)((intptr_t)ret / 2));
    BMMX_CHECK((intptr_t)ret % 2 == 0, "mutator %d ran less than one cycle", i);
  }
  printf("%d cases x %d rounds x %d workers, %d mutators\n", ncases, rounds, WORKERS, MUTATORS);
  unlink(file_env), unlink(file_load);
  for (i = 0; i < ncases; ++i)
    free(cases[i].a), free(cases[i].b), free(cases[i].bias), free(cases[i].expect);
  return bmmx_summary();
}
