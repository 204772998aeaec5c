// XLA FFI handlers for bmm.jax: C = alpha * op(A) @ op(B) (+ bias) on buffers
// XLA lays out row-major. Batch dims broadcast numpy-style (a size-1 or missing
// dim is batch stride 0), transposes (the VJP's A^T, B^T) are strides, so no
// handler call copies anything. Linked to libbmm.so: one threshold table for
// NumPy and JAX. The CUDA handler (BMM_PY_CUDA) runs on the stream XLA gives.
#include <cstdint>
#include <cstring>
#include <string>

#include "bmm.h"
#include "xla/ffi/api/ffi.h"

#ifdef BMM_PY_CUDA
#include <cuda_runtime_api.h>
extern "C" bmm_status bmm_cuda(const bmm_problem *p, cudaStream_t stream);
#endif

namespace ffi = xla::ffi;

namespace {

// XLA's element type -> bmm's dtype, by bmm's own names (BMM_DTYPES), so a
// dtype bmm gains is taken here once XLA's name for it is listed.
bmm_dtype bmm_dtype_of(ffi::DataType t) {
  const char *name = "";
  switch (t) {
  case ffi::DataType::F16: name = "f16"; break;
  case ffi::DataType::BF16: name = "bf16"; break;
  case ffi::DataType::F32: name = "f32"; break;
  case ffi::DataType::F64: name = "f64"; break;
  default: break;
  }
  for (int d = 1; d < BMM_DTYPE_COUNT; ++d)
    if (std::strcmp(bmm_dtype_name((bmm_dtype)d), name) == 0) return (bmm_dtype)d;
  return BMM_DTYPE_UNSET;
}

ffi::Error fail(const std::string &msg) {
  return ffi::Error(ffi::ErrorCode::kInvalidArgument, "bmm: " + msg);
}

// Row-major element strides of a buffer's dims, aligned right on C's batch
// dims: missing or size-1 batch dims broadcast (stride 0).
void batch_strides(ffi::AnyBuffer::Dimensions dims, int nb, int64_t *out) {
  int rank = (int)dims.size();
  int64_t s = dims[rank - 1] * dims[rank - 2];
  for (int d = 0; d < nb; ++d)
    out[d] = 0;
  for (int d = rank - 3; d >= 0; --d) {
    int cd = nb - (rank - 2) + d;
    out[cd] = dims[d] > 1 ? s : 0;
    s *= dims[d];
  }
}

ffi::Error fill(ffi::AnyBuffer a, ffi::AnyBuffer b, const void *bias,
                ffi::AnyBuffer::Dimensions bias_dims, ffi::Result<ffi::AnyBuffer> c, double alpha,
                int64_t ta, int64_t tb, bmm_problem *p) {
  auto ad = a.dimensions(), bd = b.dimensions(), cd = c->dimensions();
  int ra = (int)ad.size(), rb = (int)bd.size(), rc = (int)cd.size();
  if (ra < 2 || rb < 2 || rc < 2) return fail("operands must have rank >= 2");
  if (a.element_type() != b.element_type() || a.element_type() != c->element_type())
    return fail("a, b and the result must have one dtype");
  int nb = rc - 2;
  if (ra - 2 > nb || rb - 2 > nb) return fail("operand rank exceeds the result's");
  int64_t m = cd[rc - 2], n = cd[rc - 1];
  int64_t k = ta ? ad[ra - 2] : ad[ra - 1];
  if ((ta ? ad[ra - 1] : ad[ra - 2]) != m || (tb ? bd[rb - 1] : bd[rb - 2]) != k ||
      (tb ? bd[rb - 2] : bd[rb - 1]) != n)
    return fail("operand shapes do not match the result's");
  std::memset(p, 0, sizeof *p);
  p->dtype = bmm_dtype_of(a.element_type());
  if (p->dtype == BMM_DTYPE_UNSET) return fail("dtype not supported by bmm");
  p->m = m;
  p->n = n;
  p->k = k;
  // A stored (.., m, k) or, transposed, (.., k, m): op(A)(i, l) at i*k + l or l*m + i.
  p->a.row_stride = ta ? 1 : ad[ra - 1];
  p->a.col_stride = ta ? ad[ra - 1] : 1;
  p->b.row_stride = tb ? 1 : bd[rb - 1];
  p->b.col_stride = tb ? bd[rb - 1] : 1;
  p->c.row_stride = n;
  p->c.col_stride = 1;
  int64_t sa[64], sb[64], sc[64];
  if (nb > 64) return fail("more than 64 batch dims");
  batch_strides(ad, nb, sa);
  batch_strides(bd, nb, sb);
  batch_strides(cd, nb, sc);
  // Size-1 dims go; neighbours every operand walks as one dim merge (the seed's
  // (1000, 1000) batch is one dim of 10^6); bmm takes BMM_MAX_BATCH_DIMS.
  int nd = 0;
  for (int d = 0; d < nb; ++d) {
    int64_t size = cd[d];
    if (size == 1) continue;
    if (nd > 0 && p->a.batch_stride[nd - 1] == sa[d] * size &&
        p->b.batch_stride[nd - 1] == sb[d] * size && p->c.batch_stride[nd - 1] == sc[d] * size) {
      p->batch[nd - 1] *= size;
    } else {
      if (nd == BMM_MAX_BATCH_DIMS)
        return fail("more than " + std::to_string(BMM_MAX_BATCH_DIMS) +
                    " batch dims that cannot be merged");
      p->batch[nd] = size;
      ++nd;
    }
    p->a.batch_stride[nd - 1] = sa[d];
    p->b.batch_stride[nd - 1] = sb[d];
    p->c.batch_stride[nd - 1] = sc[d];
  }
  p->batch_dims = nd;
  if (bias && (bias_dims.size() != 1 || bias_dims[0] != n))
    return fail("bias must have shape (n,) = (" + std::to_string(n) + ",)");
  p->a.ptr = a.untyped_data();
  p->b.ptr = b.untyped_data();
  p->c.ptr = c->untyped_data();
  p->bias = bias;
  p->alpha = alpha;
  p->beta = 0.0;
  return ffi::Error::Success();
}

ffi::Error status_error(bmm_status s) {
  if (s == BMM_OK) return ffi::Error::Success();
  return fail(bmm_last_error());
}

ffi::Error cpu_impl(ffi::AnyBuffer a, ffi::AnyBuffer b, ffi::Result<ffi::AnyBuffer> c, double alpha,
                    int64_t ta, int64_t tb) {
  bmm_problem p;
  ffi::Error e = fill(a, b, nullptr, a.dimensions(), c, alpha, ta, tb, &p);
  if (e.failure()) return e;
  return status_error(bmm_cpu(&p));
}

ffi::Error cpu_bias_impl(ffi::AnyBuffer a, ffi::AnyBuffer b, ffi::AnyBuffer bias,
                         ffi::Result<ffi::AnyBuffer> c, double alpha, int64_t ta, int64_t tb) {
  bmm_problem p;
  ffi::Error e = fill(a, b, bias.untyped_data(), bias.dimensions(), c, alpha, ta, tb, &p);
  if (e.failure()) return e;
  return status_error(bmm_cpu(&p));
}

#ifdef BMM_PY_CUDA
ffi::Error cuda_impl(cudaStream_t stream, ffi::AnyBuffer a, ffi::AnyBuffer b,
                     ffi::Result<ffi::AnyBuffer> c, double alpha, int64_t ta, int64_t tb) {
  bmm_problem p;
  ffi::Error e = fill(a, b, nullptr, a.dimensions(), c, alpha, ta, tb, &p);
  if (e.failure()) return e;
  return status_error(bmm_cuda(&p, stream));
}

ffi::Error cuda_bias_impl(cudaStream_t stream, ffi::AnyBuffer a, ffi::AnyBuffer b,
                          ffi::AnyBuffer bias, ffi::Result<ffi::AnyBuffer> c, double alpha,
                          int64_t ta, int64_t tb) {
  bmm_problem p;
  ffi::Error e = fill(a, b, bias.untyped_data(), bias.dimensions(), c, alpha, ta, tb, &p);
  if (e.failure()) return e;
  return status_error(bmm_cuda(&p, stream));
}
#endif

} // namespace

#define BMM_XLA_ATTRS \
  .Attr<double>("alpha").Attr<int64_t>("transpose_a").Attr<int64_t>("transpose_b")

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    bmm_xla_cpu, cpu_impl,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>()
        BMM_XLA_ATTRS);
XLA_FFI_DEFINE_HANDLER_SYMBOL(bmm_xla_cpu_bias, cpu_bias_impl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>() BMM_XLA_ATTRS);
#ifdef BMM_PY_CUDA
XLA_FFI_DEFINE_HANDLER_SYMBOL(bmm_xla_cuda, cuda_impl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>() BMM_XLA_ATTRS);
XLA_FFI_DEFINE_HANDLER_SYMBOL(bmm_xla_cuda_bias, cuda_bias_impl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>() BMM_XLA_ATTRS);
#endif
