/* tests/ir_cases.h - what the per-entry instruction harnesses share: the
   shapes, the two batch sizes, 64-byte aligned operands and the setup and
   printed line of one call, so tests/test_ir.c (bmm's budgets) and
   bench/xsmm_ir.c (LIBXSMM's side of the table) count the same problems and
   tests/ir_check.sh reads both alike. Include after bmm.h and
   tests/bmm_cases.h (posix_memalign: _POSIX_C_SOURCE 200809L first). */
#ifndef BMM_IR_CASES_H
#define BMM_IR_CASES_H

#define IR_N1 64
#define IR_N2 192

/* 8x8x4 and 16x1x16: cpu_small's run-time tile (no fixed-size kernel); 3x1x2:
   f32 rows of C to a vector (AVX2 and AVX-512 builds; entry by entry elsewhere) */
static const int ir_shapes[][3] = {{2, 2, 2},    {3, 3, 3},    {4, 4, 4},   {5, 5, 5},
                                   {8, 8, 8},    {16, 16, 16}, {3, 1, 5},   {3, 1, 25},
                                   {32, 32, 32}, {8, 8, 4},    {16, 1, 16}, {3, 1, 2}};
#define IR_NSHAPES ((int)(sizeof ir_shapes / sizeof *ir_shapes))

/* 64-byte aligned: kernels with an alignment peel take the same path on
   every libc */
static void *ir_alloc(int64_t elems, size_t es) {
  void *p = NULL;
  return posix_memalign(&p, 64, (size_t)elems * es) == 0 ? p : NULL;
}

/* one call: dtype dt, row-major, shape ir_shapes[sh], batch IR_N1 (bi 0) or
   IR_N2 (bi 1), A and B filled from *seed, alpha 1, beta 0 */
typedef struct ir_case {
  bmmx_case cs;
  void *a, *b, *c;
  bmm_problem p;
} ir_case;

/* Sets up x and prints its line (`dtype m n k batch`); 0 when out of memory. */
static int ir_case_make(ir_case *x, bmm_dtype dt, int sh, int bi, uint64_t *seed) {
  const size_t es = bmm_dtype_size(dt);
  bmmx_sizes_t sz;
  memset(x, 0, sizeof *x);
  x->cs.dtype = dt, x->cs.layout = BMMX_ROWMAJOR;
  x->cs.m = ir_shapes[sh][0], x->cs.n = ir_shapes[sh][1], x->cs.k = ir_shapes[sh][2];
  x->cs.batch = bi == 0 ? IR_N1 : IR_N2;
  sz = bmmx_sizes(&x->cs);
  x->a = ir_alloc(sz.a, es), x->b = ir_alloc(sz.b, es), x->c = ir_alloc(sz.c, es);
  if (!x->a || !x->b || !x->c) return 0;
  bmmx_fill(dt, x->a, sz.a, seed);
  bmmx_fill(dt, x->b, sz.b, seed);
  x->p = bmmx_problem(&x->cs, x->a, x->b, x->c, NULL);
  printf("%s %lld %lld %lld %lld\n", bmm_dtype_name(dt), (long long)x->cs.m, (long long)x->cs.n,
         (long long)x->cs.k, (long long)x->cs.batch);
  return 1;
}

static void ir_case_free(ir_case *x) { free(x->a), free(x->b), free(x->c); }

#endif
