/* tests/bmm_impl.c - bmm's implementation alone, compiled once per set of
   flags and linked into the test programs that use only the public API (built
   with -DBMMX_IMPL_LINKED), as a project that includes bmm.h in several files
   does it. One compile of the implementation costs 1-4 minutes on the 2-core
   dev VM (bench/notes/ci_time.md); the programs that reach inside (test_cpu,
   with test_half and test_complex as its groups) compile it themselves, in
   the one-file form. */
#define BMM_IMPLEMENTATION
#include "bmm.h"
