/* bench/xsmm_dispatch.h - LIBXSMM's kernel for a row-major bmm shape, for the
   harnesses that call it beside bmm (bench_cpu_peers, bench_cpu_calls,
   xsmm_ir). LIBXSMM is column-major: row-major C = A*B is C^T = B^T A^T, so
   the kernel is (M, N, K) = (n, m, k), called as (B, A, C), tight leading
   dimensions, alpha 1, beta 0. Include after bmm.h and <libxsmm.h>. */
#ifndef BMMX_XSMM_DISPATCH_H
#define BMMX_XSMM_DISPATCH_H

/* The f64 kernel into *d or the f32 one into *s (the other left alone), with
   LIBXSMM_PREFETCH_AUTO where `prefetch` (then called with the next
   entry's B, A and C as three more arguments); 0 where LIBXSMM has none. */
static inline int bmmx_xsmm_dispatch(bmm_dtype dt, int64_t m, int64_t n, int64_t k, int prefetch,
                                     libxsmm_smmfunction *s, libxsmm_dmmfunction *d) {
  const libxsmm_blasint M = (libxsmm_blasint)n, N = (libxsmm_blasint)m, K = (libxsmm_blasint)k;
  int flags = LIBXSMM_GEMM_FLAG_NONE, pf = prefetch ? LIBXSMM_PREFETCH_AUTO : LIBXSMM_PREFETCH_NONE;
  if (dt == BMM_F64) {
    double alpha = 1, beta = 0;
    *d = libxsmm_dmmdispatch(M, N, K, NULL, NULL, NULL, &alpha, &beta, &flags, &pf);
    return *d != NULL;
  }
  {
    float alpha = 1, beta = 0;
    *s = libxsmm_smmdispatch(M, N, K, NULL, NULL, NULL, &alpha, &beta, &flags, &pf);
    return *s != NULL;
  }
}

#endif
