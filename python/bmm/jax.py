"""bmm from JAX: an XLA FFI custom call, under jit, vmap, grad and shard_map.

    import jax, bmm.jax
    c = jax.jit(bmm.jax.matmul)(a, b)          # jnp.matmul's shape rules
    c = bmm.jax.matmul(a, b, bias=v, alpha=2.0)

One primitive, `bmm_matmul`, lowered to the custom call `bmm_matmul` (CPU; and
CUDA, on XLA's stream, where the package was built with the CUDA backend).
- vmap: a batching rule that moves the mapped axis to the front and lets the
  call broadcast the other operand (batch stride 0): one call, no loop.
- grad: a custom VJP computed by bmm itself, dA = alpha dC B^T and
  dB = alpha A^T dC with the transposes expressed as strides (no transpose is
  materialised); a broadcast operand's gradient is summed by jnp.sum.
- sharding: the target is registered batch-partitionable (jax >= 0.5) and each
  call whose operands all carry the same leading batch dims (no bias, no
  broadcast operand) says how many (`num_batch_dims`): plain jit on inputs
  sharded over those dims then runs one call per shard, no all-gather. Calls
  outside that case (a bias, a shared B, differing batch ranks) are not
  declared: XLA then gathers the sharded operands first (jax issue 32098); use
  jax.shard_map for those, which always runs per shard.
alpha is a Python number (static), not a traced value. Second derivatives are
not implemented.
"""
import ctypes
import os
import string

import numpy as np

import jax
import jax.numpy as jnp
from jax.interpreters import batching, mlir

try:
    from jax.extend.core import Primitive
except ImportError:  # older jax
    from jax.core import Primitive

from . import _HERE, _DTYPES

__all__ = ["matmul", "platforms", "batch_partitionable"]

_XLA_LIB = os.path.join(_HERE, "libbmm_xla.so")
if not os.path.exists(_XLA_LIB):
    raise ImportError("bmm.jax: the XLA handler was not built (was jax installed when bmm was? "
                      "pip install jax, then reinstall bmm: the build log says why)")
_xla = ctypes.CDLL(_XLA_LIB)

_TARGET = "bmm_matmul"
_TARGET_BIAS = "bmm_matmul_bias"

#: platforms the custom call is registered for ("cpu", and "cuda" where built)
platforms = ["cpu"]
jax.ffi.register_ffi_target(_TARGET, jax.ffi.pycapsule(_xla.bmm_xla_cpu), platform="cpu")
jax.ffi.register_ffi_target(_TARGET_BIAS, jax.ffi.pycapsule(_xla.bmm_xla_cpu_bias),
                            platform="cpu")
if hasattr(_xla, "bmm_xla_cuda"):
    jax.ffi.register_ffi_target(_TARGET, jax.ffi.pycapsule(_xla.bmm_xla_cuda), platform="CUDA")
    jax.ffi.register_ffi_target(_TARGET_BIAS, jax.ffi.pycapsule(_xla.bmm_xla_cuda_bias),
                                platform="CUDA")
    platforms.append("cuda")

#: whether the installed JAX lets us declare the call batch-partitionable
batch_partitionable = hasattr(jax.ffi, "register_ffi_target_as_batch_partitionable")
if batch_partitionable:
    jax.ffi.register_ffi_target_as_batch_partitionable(_TARGET)
    jax.ffi.register_ffi_target_as_batch_partitionable(_TARGET_BIAS)

_p = Primitive("bmm_matmul")
_NM = getattr(batching, "not_mapped", None)  # an unmapped operand's axis (None in new jax)


def _out_shape(a_shape, b_shape, ta, tb):
    m = a_shape[-1] if ta else a_shape[-2]
    ka = a_shape[-2] if ta else a_shape[-1]
    kb = b_shape[-1] if tb else b_shape[-2]
    n = b_shape[-2] if tb else b_shape[-1]
    if ka != kb:
        raise ValueError("bmm.jax.matmul: a has %d columns but b has %d rows (shapes %s, %s)" %
                         (ka, kb, a_shape, b_shape))
    batch = np.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2]))
    return tuple(batch) + (m, n)


def _abstract(a, b, *bias, alpha, transpose_a, transpose_b):
    return jax.core.ShapedArray(_out_shape(a.shape, b.shape, transpose_a, transpose_b), a.dtype)


_p.def_abstract_eval(_abstract)
_p.def_impl(lambda *args, **kw: jax.jit(lambda *x: _p.bind(*x, **kw))(*args))


def _lower(ctx, *args, alpha, transpose_a, transpose_b):
    avals_in, (aval_out,) = ctx.avals_in, ctx.avals_out
    a, b = avals_in[0], avals_in[1]
    extra = None
    # Batch-partitionable only where every operand and the result share the
    # leading batch dims: a bias (n,) or a broadcast operand has none to split.
    nbd = len(aval_out.shape) - 2
    if (batch_partitionable and len(avals_in) == 2 and nbd > 0 and
            a.shape[:-2] == b.shape[:-2] == aval_out.shape[:-2]):
        extra = {"mhlo.frontend_attributes": mlir.ir_attribute({"num_batch_dims": str(nbd)})}
        if jax.config.jax_use_shardy_partitioner:
            rule = _sdy_rule(ctx, avals_in, aval_out)
            if rule is not None:
                extra["sdy.sharding_rule"] = rule
    target = _TARGET if len(avals_in) == 2 else _TARGET_BIAS
    kw = {"extra_attributes": extra} if extra else {}
    return jax.ffi.ffi_lowering(target, **kw)(
        ctx, *args, alpha=np.float64(alpha), transpose_a=np.int64(transpose_a),
        transpose_b=np.int64(transpose_b))


def _sdy_rule(ctx, avals_in, aval_out):
    # "... a b, ... c d -> ... e f": the leading dims are shared batch factors;
    # the matrix dims get their own factors, so Shardy gathers those if split.
    try:
        from jax._src.custom_partitioning_sharding_rule import (sdy_sharding_rule_to_mlir,
                                                                str_to_sdy_sharding_rule)
    except ImportError:
        return None
    letters = iter(string.ascii_letters)

    def side(avals):
        return ", ".join("... %s %s" % (next(letters), next(letters)) for _ in avals)

    rule = str_to_sdy_sharding_rule("%s -> %s" % (side(avals_in), side([aval_out])))
    mc = ctx.module_context
    return sdy_sharding_rule_to_mlir(rule, [mlir.aval_to_ir_type(mc, a) for a in avals_in],
                                     [mlir.aval_to_ir_type(mc, aval_out)])


mlir.register_lowering(_p, _lower, platform="cpu")
if "cuda" in platforms:
    mlir.register_lowering(_p, _lower, platform="cuda")


def _batch(args, dims, *, alpha, transpose_a, transpose_b):
    """vmap: the mapped axis goes first; the call broadcasts the operand that
    is not mapped over it (batch stride 0): one call for the whole vmap."""
    a, b = args[0], args[1]
    da, db = dims[0], dims[1]
    size = next(x.shape[d] for x, d in zip(args, dims) if d is not _NM)
    ra = a.ndim - (da is not _NM)
    rb = b.ndim - (db is not _NM)
    nbo = max(ra, rb) - 2  # batch rank of one unmapped call

    def front(x, d, r):
        if d is _NM:
            return x
        x = jnp.moveaxis(x, d, 0)
        return x.reshape((size,) + (1,) * (nbo - (r - 2)) + x.shape[1:])

    a, b = front(a, da, ra), front(b, db, rb)
    if da is _NM and db is _NM:
        a = jnp.broadcast_to(a, (size,) + a.shape)  # only the bias is mapped
    kw = dict(alpha=alpha, transpose_a=transpose_a, transpose_b=transpose_b)
    if len(args) == 2:
        return _p.bind(a, b, **kw), 0
    bias, dbias = args[2], dims[2]
    if dbias is _NM:
        return _p.bind(a, b, bias, **kw), 0
    # bmm's bias is one row for the whole call: a mapped bias is added by XLA.
    c = _p.bind(a, b, **kw)
    bias = jnp.moveaxis(bias, dbias, 0)
    return c + bias.reshape((size,) + (1,) * (c.ndim - 2) + bias.shape[1:]), 0


batching.primitive_batchers[_p] = _batch


def _unbroadcast(x, shape):
    """Sum x over the dims that broadcasting added to an operand of `shape`."""
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1)
    if axes:
        x = jnp.sum(x, axis=axes, keepdims=True)
        x = x.reshape(x.shape[lead:]) if lead else x
    return x


def _make(alpha, with_bias):
    kw = dict(alpha=alpha, transpose_a=False, transpose_b=False)

    @jax.custom_vjp
    def f(a, b, *bias):
        return _p.bind(a, b, *bias, **kw)

    def fwd(a, b, *bias):
        return f(a, b, *bias), (a, b)

    def bwd(res, dc):
        a, b = res
        # dA = alpha dC B^T, dB = alpha A^T dC: bmm with B, A read transposed.
        da = _p.bind(dc, b, alpha=alpha, transpose_a=False, transpose_b=True)
        db = _p.bind(a, dc, alpha=alpha, transpose_a=True, transpose_b=False)
        out = (_unbroadcast(da, a.shape), _unbroadcast(db, b.shape))
        if with_bias:
            out += (jnp.sum(dc.reshape(-1, dc.shape[-1]), axis=0),)
        return out

    f.defvjp(fwd, bwd)
    return f


_fns = {}


def matmul(a, b, *, bias=None, alpha=1.0):
    """alpha * (a @ b) (+ bias) through bmm, jnp.matmul's shape rules.

    a, b: one dtype that bmm computes in (float32, float64, ...); batch dims
    broadcast; a 1-D operand is a row (a) or column (b) vector whose axis is
    dropped from the result. bias: shape (n,), added to every row. alpha: a
    Python number. Works under jit, vmap, grad and shard_map."""
    a, b = jnp.asarray(a), jnp.asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("bmm.jax.matmul: a 0-d operand (jnp.matmul refuses scalars too)")
    if a.dtype != b.dtype:
        raise TypeError("bmm.jax.matmul: wrong dtype mix: a is %s, b is %s (cast one yourself)" %
                        (a.dtype, b.dtype))
    if np.dtype(a.dtype) not in _DTYPES:
        raise TypeError("bmm.jax.matmul: dtype %s is not one of bmm's (%s)" %
                        (a.dtype, ", ".join(str(d) for d in _DTYPES)))
    drop_m, drop_n = a.ndim == 1, b.ndim == 1
    if drop_m:
        a = a[None, :]
    if drop_n:
        b = b[:, None]
    args = (a, b)
    if bias is not None:
        bias = jnp.asarray(bias)
        if bias.dtype != a.dtype:
            raise TypeError("bmm.jax.matmul: wrong dtype mix: bias is %s, a and b are %s" %
                            (bias.dtype, a.dtype))
        if bias.shape != (b.shape[-1],):
            raise ValueError("bmm.jax.matmul: bias must have shape (%d,), got %s" %
                             (b.shape[-1], bias.shape))
        args += (bias,)
    key = (float(alpha), bias is not None)
    if key not in _fns:
        _fns[key] = _make(*key)
    c = _fns[key](*args)
    if drop_m:
        c = c[..., 0, :] if not drop_n else c[..., 0, 0]
    elif drop_n:
        c = c[..., 0]
    return c
