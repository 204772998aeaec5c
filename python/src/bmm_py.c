/* The C side of the Python package: bmm's implementation (one copy, shared by
   the NumPy binding and the XLA handler, so bmm.load_table() changes what both
   run) plus one flat entry point. Python passes sizes and element strides as
   int64 arrays instead of a ctypes mirror of bmm_problem: the struct's layout
   is then known only to the compiler, never written twice. */
#define BMM_IMPLEMENTATION
#ifdef BMM_PY_CUDA
#include "bmm_cuda.cuh"
#else
#include "bmm.h"
#endif

#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dims[0..batch_dims) batch sizes, then m, n, k. strides: per operand
   (a, b, c) batch_dims batch strides, then row and column stride, elements.
   what: 0 run on the CPU, 1 explain for the CPU (text into buf). Returns the
   bmm_status; on failure buf holds bmm_last_error(). */
BMM_API int bmm_py_matmul(int dtype, int batch_dims, const int64_t *dims, const void *a,
                          const void *b, void *c, const int64_t *strides, const void *bias,
                          double alpha, double beta, double alpha_im, double beta_im, int conj_a,
                          int conj_b, int what, char *buf, size_t len);

int bmm_py_matmul(int dtype, int batch_dims, const int64_t *dims, const void *a, const void *b,
                  void *c, const int64_t *strides, const void *bias, double alpha, double beta,
                  double alpha_im, double beta_im, int conj_a, int conj_b, int what, char *buf,
                  size_t len) {
  bmm_problem p;
  bmm_operand *ops[3];
  bmm_status s;
  int o, d;
  memset(&p, 0, sizeof p);
  ops[0] = &p.a;
  ops[1] = &p.b;
  ops[2] = &p.c;
  if (batch_dims < 0 || batch_dims > BMM_MAX_BATCH_DIMS) {
    snprintf(buf, len, "BAD_SIZE: %d batch dims, bmm takes at most %d", batch_dims,
             BMM_MAX_BATCH_DIMS);
    return BMM_BAD_SIZE;
  }
  p.dtype = (bmm_dtype)dtype;
  p.batch_dims = batch_dims;
  for (d = 0; d < batch_dims; ++d)
    p.batch[d] = dims[d];
  p.m = dims[batch_dims];
  p.n = dims[batch_dims + 1];
  p.k = dims[batch_dims + 2];
  p.a.ptr = a;
  p.b.ptr = b;
  p.c.ptr = c;
  for (o = 0; o < 3; ++o) {
    const int64_t *st = strides + o * (batch_dims + 2);
    for (d = 0; d < batch_dims; ++d)
      ops[o]->batch_stride[d] = st[d];
    ops[o]->row_stride = st[batch_dims];
    ops[o]->col_stride = st[batch_dims + 1];
  }
  p.bias = bias;
  p.alpha = alpha;
  p.beta = beta;
  p.alpha_im = alpha_im;
  p.beta_im = beta_im;
  p.a.conj = conj_a;
  p.b.conj = conj_b;
  if (what == 1)
    s = bmm_explain(&p, BMM_BACKEND_CPU, buf, len);
  else
    s = bmm_cpu(&p);
  if (s != BMM_OK) snprintf(buf, len, "%s", bmm_last_error());
  return (int)s;
}

#ifdef __cplusplus
}
#endif
