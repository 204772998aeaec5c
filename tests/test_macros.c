/* tests/test_macros.c - the compile-time overrides take effect. Built twice by
   tests/tests.ninja:
     -DBMMX_MACRO_TABLE                        BMM_CPU_TABLE names the table below
     -DBMMX_MACRO_FORCE -DBMM_FORCE_CPU_STRATEGY=BMM_CPU_DOT   every AUTO call runs cpu_dot
   Prints `N passed, N failed`; exits non-zero on failure. */
#define _POSIX_C_SOURCE 200809L
#include "bmm.h"

#ifdef BMMX_MACRO_TABLE
/* Declared between the two includes of bmm.h, as a user would. */
static const bmm_table_rule bmmx_macro_table[] = {
    BMM_RULE(.dtypes = BMM_DT(BMM_F64), .layouts = BMM_L_ROWMAJOR, .m_min = 1, .m_max = 4,
             .strategy = BMM_CPU_SMALL, .note = "macro table rule 0"),
    BMM_RULE(.strategy = BMM_CPU_BLOCKED, .threads = 3, .tile = 8, .note = "macro table catch-all"),
};
#define BMM_CPU_TABLE bmmx_macro_table
#endif

#define BMM_IMPLEMENTATION
#include "bmm.h"
#include "tests/bmm_cases.h"

#include "tests/bmm_test.h"

#define CHECK(cond, detail) BMMX_CHECK(cond, "%s", detail)

static double a[6 * 3 * 5], b[6 * 5 * 4], c[6 * 3 * 4], before[6 * 3 * 4];

/* f64 or f32 (as double storage is enough for both sizes) rowmajor batch 6 */
static bmm_problem problem(bmm_dtype dt, int64_t m) {
  return bmm_problem_rowmajor(dt, 6, m, 4, 5, a, b, c);
}

/* AUTO runs and computes right */
static void run_checked(bmm_problem p, const char *what) {
  bmm_problem ref = p;
  uint64_t s = 11;
  bmmx_fill(p.dtype, a, 6 * 3 * 5, &s);
  bmmx_fill(p.dtype, b, 6 * 5 * 4, &s);
  bmmx_poison(p.dtype, c, 6 * 3 * 4);
  memcpy(before, c, sizeof c);
  ref.c.ptr = before;
  CHECK(bmm_cpu(&p) == BMM_OK, bmm_last_error());
  CHECK(bmmx_check(&ref, c, 0) <= 1.0, what);
}

int main(void) {
  bmm_plan plan;
  char why[1024];
  bmm_problem p;
#ifdef BMMX_MACRO_TABLE
  {
    bmm_table_rule got[BMM_TABLE_MAX_RULES], one;
    int n = 0, i, pass;
    printf("BMM_CPU_TABLE=bmmx_macro_table\n");
    for (pass = 0; pass < 2; ++pass) { /* the compiled table, and after a reset */
      CHECK(bmm_table_get(BMM_BACKEND_CPU, 0, got, BMM_TABLE_MAX_RULES, &n) == BMM_OK,
            bmm_last_error());
      CHECK(n == 2, "the active table is not the macro's 2 rules");
      for (i = 0; i < n && i < 2; ++i)
        CHECK(memcmp(&got[i], &bmmx_macro_table[i], sizeof got[i]) == 0,
              "active rule differs from the macro table");
      p = problem(BMM_F64, 3);
      CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK, bmm_last_error());
      CHECK(plan.strategy == BMM_CPU_SMALL && plan.rule_index == 0, "f64 m=3 not on rule 0");
      p = problem(BMM_F32, 3);
      CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK, bmm_last_error());
      CHECK(plan.strategy == BMM_CPU_BLOCKED && plan.rule_index == 1 && plan.rule.threads == 3 &&
                plan.rule.tile == 8,
            "f32 m=3 not on the macro catch-all with its tunables");
      CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, bmm_last_error());
      CHECK(strstr(why, "macro table catch-all") && strstr(why, "rule 1 of 2"), why);
      run_checked(problem(BMM_F64, 3), "f64 on the macro table");
      run_checked(problem(BMM_F32, 3), "f32 on the macro table");
      memset(&one, 0, sizeof one);
      one.strategy = BMM_CPU_REF;
      CHECK(bmm_set_table(BMM_BACKEND_CPU, &one, 1) == BMM_OK, bmm_last_error());
      p = problem(BMM_F64, 3);
      CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK && plan.strategy == BMM_CPU_REF,
            "bmm_set_table does not override the macro table");
      CHECK(bmm_set_table(BMM_BACKEND_CPU, NULL, 0) == BMM_OK, bmm_last_error());
    }
  }
#endif
#ifdef BMMX_MACRO_FORCE
  {
    bmm_table_rule one;
    printf("BMM_FORCE_CPU_STRATEGY=%s\n", bmm_strategy_name(BMM_FORCE_CPU_STRATEGY));
    CHECK(BMM_FORCE_CPU_STRATEGY == BMM_CPU_DOT, "tests.ninja builds this with BMM_CPU_DOT");
    p = problem(BMM_F64, 3);
    CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK, bmm_last_error());
    CHECK(plan.strategy == BMM_CPU_DOT && plan.rule_index == -1, "AUTO is not forced to cpu_dot");
    CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK, bmm_last_error());
    CHECK(strstr(why, "-> cpu_dot") && strstr(why, "forced by macro"), why);
    run_checked(problem(BMM_F64, 3), "forced cpu_dot f64");
    run_checked(problem(BMM_F32, 2), "forced cpu_dot f32");
    /* the table no longer decides */
    memset(&one, 0, sizeof one);
    one.strategy = BMM_CPU_REF;
    CHECK(bmm_set_table(BMM_BACKEND_CPU, &one, 1) == BMM_OK, bmm_last_error());
    CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK && plan.strategy == BMM_CPU_DOT,
          "a run-time table overrode BMM_FORCE_CPU_STRATEGY");
    bmm_set_table(BMM_BACKEND_CPU, NULL, 0);
    /* a strategy in the problem still wins over the macro */
    p.strategy = BMM_CPU_REF;
    CHECK(bmm_plan_problem(&p, BMM_BACKEND_CPU, &plan) == BMM_OK && plan.strategy == BMM_CPU_REF,
          "problem.strategy did not win over the macro");
    CHECK(bmm_explain(&p, BMM_BACKEND_CPU, why, sizeof why) == BMM_OK &&
              strstr(why, "forced by problem.strategy"),
          why);
  }
#endif
  return bmmx_summary();
}
