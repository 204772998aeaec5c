/* bmm_test.h: the runner every bmm test program shares (C99 and C++).
   BMMX_CHECK(cond, fmt, ...) counts a check and, when it fails, prints where
   and why (at most BMMX_SHOW_MAX failures per named test; the rest are
   counted); bmmx_skip() counts a check that could not run here (and says
   why; bmmx_skip_quiet() only counts it);
   bmmx_test_begin(name) / bmmx_test_end() frame a named test and print its line;
   bmmx_summary() prints the `N passed, N failed[, N skipped]` line the ninja
   rules and CI read, and returns the exit status: non-zero on any failure or
   when nothing was checked nor skipped (a test that asserts nothing fails). */
#ifndef BMM_TEST_H
#define BMM_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#ifndef BMMX_SHOW_MAX
#define BMMX_SHOW_MAX 20
#endif

typedef struct bmmx_runner_state {
  const char *test; /* the named test running now ("" outside one) */
  long passed, failed, skipped, shown;
  long p0, f0; /* counts when the named test began */
  double t0;
  int verbose; /* print passing checks too */
} bmmx_runner_state;
static bmmx_runner_state bmmx_runner = {"", 0, 0, 0, 0, 0, 0, 0.0, 0};

/* wall seconds where the includer asked for POSIX (_POSIX_C_SOURCE before
   its first header); plain C99 has no wall clock, and its tests print 0 s */
static inline double bmmx_now(void) {
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199309L
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
#else
  return 0.0;
#endif
}

static inline int bmmx_vcheck(int ok, const char *file, int line, const char *expr, const char *fmt,
                              va_list ap) {
  if (ok) {
    ++bmmx_runner.passed;
    if (!bmmx_runner.verbose) return 1;
  } else {
    ++bmmx_runner.failed;
    if (++bmmx_runner.shown > BMMX_SHOW_MAX) return 0;
  }
  printf("%s %s%s(%s:%d): %s\n     ", ok ? "ok  " : "FAIL", bmmx_runner.test,
         bmmx_runner.test[0] ? " " : "", file, line, expr);
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  return ok;
}

static inline int bmmx_check_at(int ok, const char *file, int line, const char *expr,
                                const char *fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = bmmx_vcheck(ok, file, line, expr, fmt, ap);
  va_end(ap);
  return r;
}
/* true when cond holds; the detail is a printf format and its arguments */
#define BMMX_CHECK(cond, ...) bmmx_check_at((cond) != 0, __FILE__, __LINE__, #cond, __VA_ARGS__)

static inline void bmmx_skip(const char *fmt, ...) {
  va_list ap;
  ++bmmx_runner.skipped;
  printf("SKIP %s%s", bmmx_runner.test, bmmx_runner.test[0] ? ": " : "");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* counts a skip without a line: for a program that skips by the thousand
   (a strategy that does not claim a case) and says why once, before its
   summary */
static inline void bmmx_skip_quiet(void) { ++bmmx_runner.skipped; }

static inline void bmmx_test_begin(const char *name) {
  bmmx_runner.test = name, bmmx_runner.shown = 0;
  bmmx_runner.p0 = bmmx_runner.passed, bmmx_runner.f0 = bmmx_runner.failed,
  bmmx_runner.t0 = bmmx_now();
}

/* the named test's line: ok/FAIL, checks, seconds; 1 if it failed nothing */
static inline int bmmx_test_end(void) {
  const long f = bmmx_runner.failed - bmmx_runner.f0;
  if (bmmx_runner.shown > BMMX_SHOW_MAX)
    printf("     ... %ld more failures in %s\n", bmmx_runner.shown - BMMX_SHOW_MAX,
           bmmx_runner.test);
  printf("%s %-28s %7ld checks %6.2f s\n", f ? "FAIL" : "ok  ", bmmx_runner.test,
         bmmx_runner.passed - bmmx_runner.p0 + f, bmmx_now() - bmmx_runner.t0);
  bmmx_runner.test = "";
  return f == 0;
}

static inline int bmmx_summary(void) {
  if (bmmx_runner.skipped)
    printf("%ld passed, %ld failed, %ld skipped\n", bmmx_runner.passed, bmmx_runner.failed,
           bmmx_runner.skipped);
  else
    printf("%ld passed, %ld failed\n", bmmx_runner.passed, bmmx_runner.failed);
  return bmmx_runner.failed || (bmmx_runner.passed == 0 && bmmx_runner.skipped == 0) ? 1 : 0;
}

#endif
