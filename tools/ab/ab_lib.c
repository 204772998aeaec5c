/* One side of tools/ab/ab_cpu.sh: a git revision's bmm compiled into a shared
   object whose only exported symbols are these two (-fvisibility=hidden), so
   two revisions load side by side in one process (dlopen, RTLD_LOCAL) and the
   harness alternates between them call by call. */
#define BMM_IMPLEMENTATION
#include "bmm.h"

__attribute__((visibility("default"))) size_t ab_problem_size(void) { return sizeof(bmm_problem); }

__attribute__((visibility("default"))) int ab_cpu(const void *problem) {
  return (int)bmm_cpu((const bmm_problem *)problem);
}
