/* tests/fuzz_table.c - libFuzzer harness for the threshold-table text format.

   Any text: bmm_table_parse either succeeds, and then bmm_table_format of the
   rules parses back to the same rules (round trip, field by field), or fails
   with count 0 and a message naming the line. A parse with room for one rule
   agrees with the full parse. Parsed text is also installed the two ways a
   user can (bmm_load_table_file from a file, bmm_set_table per backend): the
   load is all or nothing, and a tiny problem then runs through whatever CPU
   table was accepted (fuzzed tunables reach the kernels) and must match the
   reference. The raw bytes are also loaded as a file: NUL bytes are refused
   naming their line, and every refused file names a line (or has no rules).
   Build: clang -fsanitize=fuzzer,address,undefined. */
#define _DEFAULT_SOURCE 1
#include <stdint.h>
#include <unistd.h>

#ifndef BMMX_IMPL_LINKED /* else tests/bmm_impl.c's object holds it */
#define BMM_IMPLEMENTATION
#endif
#include "bmm.h"
#include "tests/bmm_cases.h"
#include "tests/fuzz_util.h"

#define MAX_RULES (BMM_TABLE_MAX_RULES * 2)

static int same_rule(const bmm_table_rule *x, const bmm_table_rule *y) {
  return x->dtypes == y->dtypes && x->layouts == y->layouts && x->m_min == y->m_min &&
         x->m_max == y->m_max && x->n_min == y->n_min && x->n_max == y->n_max &&
         x->k_min == y->k_min && x->k_max == y->k_max && x->batch_min == y->batch_min &&
         x->batch_max == y->batch_max && x->strategy == y->strategy && x->threads == y->threads &&
         x->batch_per_block == y->batch_per_block && x->lanes == y->lanes && x->vec == y->vec &&
         x->tile == y->tile && x->pad == y->pad && strcmp(x->note, y->note) == 0;
}

static void fail(const char *what, const char *text) {
  fprintf(stderr, "fuzz_table: %s\n--- input ---\n%s\n--- error: %s\n", what, text,
          bmm_last_error());
  abort(); /* libFuzzer reports the input that got here */
}

/* A small problem per layout class through the active CPU table. */
static void run_small(const char *text) {
  static float a[2 * 3 * 4], b[2 * 4 * 5], c[2 * 3 * 5];
  static long double ref[2 * 3 * 5], mag[2 * 3 * 5];
  static const int layouts[] = {BMMX_ROWMAJOR, BMMX_SHARED_B_BIAS, BMMX_BATCH_INNER, BMMX_COLMAJOR};
  char msg[256];
  uint64_t seed = 7;
  unsigned li;
  for (li = 0; li < sizeof layouts / sizeof layouts[0]; ++li) {
    bmmx_case cs;
    bmm_problem p;
    bmm_status s;
    memset(&cs, 0, sizeof cs);
    cs.dtype = BMM_F32, cs.batch = 2, cs.m = 3, cs.n = 5, cs.k = 4, cs.layout = layouts[li];
    bmmx_fill(BMM_F32, a, 24, &seed);
    bmmx_fill(BMM_F32, b, 40, &seed);
    bmmx_poison(BMM_F32, c, 30);
    p = bmmx_problem(&cs, a, b, c, b + 20);
    if (bmm_reference(&p, ref, mag) != BMM_OK) fail("reference failed on a valid problem", text);
    s = bmm_cpu(&p);
    if (s != BMM_OK) fail("bmm_cpu failed under an accepted table", text);
    if (rel_compare(&p, ref, mag, msg, sizeof msg)) fail(msg, text);
  }
}

static char tmp_path[64];

static void remove_tmp(void) { unlink(tmp_path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bmm_table_rule rules[MAX_RULES], again[MAX_RULES], one[1];
  char *text = (char *)malloc(size + 1), *out;
  int n = -1, n2 = -1, n1 = -1, i;
  size_t len, len2;
  bmm_status s, s1;
  FILE *f;
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;

  /* the raw bytes as a file: a NUL byte anywhere is refused naming its line
     (bmm_table_parse below stops at it: a C string ends there); every other
     failure of a file names a line too, or says it holds no rules */
  f = fopen(tmp_path, "wb");
  if (f) {
    fwrite(data, 1, size, f);
    fclose(f);
    s = bmm_load_table_file(tmp_path);
    if (memchr(data, 0, size) && (s != BMM_TABLE_FILE || !strstr(bmm_last_error(), "NUL") ||
                                  !strstr(bmm_last_error(), "line ")))
      fail("a file with a NUL byte was not refused naming its line", text);
    if (s != BMM_OK && !strstr(bmm_last_error(), "line ") && !strstr(bmm_last_error(), "no rules"))
      fail("a refused file's message names no line", text);
    bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
    bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
  }

  s = bmm_table_parse(text, rules, MAX_RULES, &n);
  if (s != BMM_OK) {
    if (n != 0) fail("failed parse left count != 0", text);
    if (!strstr(bmm_last_error(), "line ")) fail("failed parse names no line", text);
  }
  s1 = bmm_table_parse(text, one, 1, &n1);
  if (s == BMM_OK && n <= 1 && (s1 != BMM_OK || n1 != n || (n && !same_rule(one, rules))))
    fail("parse with room for one rule disagrees", text);
  if ((s != BMM_OK || n > 1) && (s1 == BMM_OK || n1 != 0))
    fail("parse with room for one rule accepted more", text);
  if (s != BMM_OK) {
    free(text);
    return 0;
  }

  len = bmm_table_format(rules, n, NULL, 0);
  out = (char *)malloc(len + 1);
  if (!out) fail("out of memory", text);
  len2 = bmm_table_format(rules, n, out, len + 1);
  if (len2 != len || strlen(out) != len) fail("bmm_table_format length differs", text);
  if (bmm_table_parse(out, again, MAX_RULES, &n2) != BMM_OK) fail(out, text);
  if (n2 != n) fail("round trip changed the rule count", text);
  for (i = 0; i < n; ++i)
    if (!same_rule(&rules[i], &again[i])) fail("round trip changed a rule", out);

  /* the file path: all or nothing, then the accepted CPU table must work */
  f = fopen(tmp_path, "wb");
  if (f) {
    fwrite(out, 1, len, f);
    fclose(f);
    s = bmm_load_table_file(tmp_path);
    if (s == BMM_OK) run_small(text);
    if (s != BMM_OK && s != BMM_TABLE_FILE) fail("load_table_file: unexpected status", text);
    bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
    bmm_set_table(BMM_BACKEND_CUDA, NULL, 0);
  }
  /* the API path: the CPU rules alone */
  {
    int ncpu = 0;
    for (i = 0; i < n; ++i)
      if (bmm_strategy_backend(rules[i].strategy) == BMM_BACKEND_CPU) again[ncpu++] = rules[i];
    if (ncpu && bmm_set_table(BMM_BACKEND_CPU, again, ncpu) == BMM_OK) {
      run_small(text);
      bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
    }
  }
  free(out);
  free(text);
  return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  snprintf(tmp_path, sizeof tmp_path, "/tmp/bmm_fuzz_table.%ld", (long)getpid());
  atexit(remove_tmp);
  return 0;
}
