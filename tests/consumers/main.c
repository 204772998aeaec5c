/* The consumer program of tests/consumers/run.sh: built against an installed
   or vendored bmm by find_package, add_subdirectory, FetchContent and
   pkg-config; checks one product by hand. */
#define BMM_IMPLEMENTATION
#include "bmm.h"

#include <stdio.h>

int main(void) {
  double a[2][2][3] = {{{1, 2, 3}, {4, 5, 6}}, {{1, 0, 0}, {0, 1, 0}}};
  double b[2][3][1] = {{{1}, {1}, {1}}, {{7}, {8}, {9}}};
  double c[2][2][1];
  bmm_problem p = bmm_problem_rowmajor(BMM_F64, 2, 2, 1, 3, a, b, c);
  if (bmm_cpu(&p) != BMM_OK) {
    fprintf(stderr, "bmm: %s\n", bmm_last_error());
    return 1;
  }
  if (c[0][0][0] != 6 || c[0][1][0] != 15 || c[1][0][0] != 7 || c[1][1][0] != 8) {
    fprintf(stderr, "wrong result %g %g %g %g\n", c[0][0][0], c[0][1][0], c[1][0][0], c[1][1][0]);
    return 1;
  }
  printf("consumer: bmm %s ok\n", BMM_VERSION);
  return 0;
}
