"""bmm from NumPy: C[b] = alpha * A[b] @ B[b] + beta * C[b] (+ bias), no copies.

    import numpy as np, bmm
    c = bmm.matmul(a, b)                 # numpy.matmul's shape rules
    bmm.matmul(a, b, out=c, alpha=2.0, beta=1.0, bias=v)
    print(bmm.explain(a, b))             # the strategy the table picks, and why

NumPy strides become bmm's element strides; what bmm cannot express (strides
that are not a whole number of elements, more than 4 unmergeable batch dims, a
zero stride on a matrix dim, C overlapping an input) raises bmm.Error with
bmm's message: nothing is copied behind your back. The JAX binding is bmm.jax.
"""
import ctypes
import os

import numpy as np

__all__ = ["matmul", "explain", "load_table", "table", "dtypes", "Error"]
__version__ = "0.1.0"

_HERE = os.path.dirname(os.path.abspath(__file__))
if not os.path.exists(os.path.join(_HERE, "libbmm.so")):
    raise ImportError("bmm: libbmm.so is not in %s: this is the source tree, not an installed "
                      "package (pip install ./python from the repository)" % _HERE)
_lib = ctypes.CDLL(os.path.join(_HERE, "libbmm.so"), mode=ctypes.RTLD_GLOBAL)

_i64p = ctypes.POINTER(ctypes.c_int64)
_lib.bmm_py_matmul.restype = ctypes.c_int
_lib.bmm_py_matmul.argtypes = [ctypes.c_int, ctypes.c_int, _i64p, ctypes.c_void_p,
                               ctypes.c_void_p, ctypes.c_void_p, _i64p, ctypes.c_void_p,
                               ctypes.c_double, ctypes.c_double, ctypes.c_double,
                               ctypes.c_double, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                               ctypes.c_char_p, ctypes.c_size_t]
_lib.bmm_dtype_name.restype = ctypes.c_char_p
_lib.bmm_dtype_name.argtypes = [ctypes.c_int]
_lib.bmm_status_name.restype = ctypes.c_char_p
_lib.bmm_status_name.argtypes = [ctypes.c_int]
_lib.bmm_last_error.restype = ctypes.c_char_p
_lib.bmm_last_error.argtypes = []
_lib.bmm_load_table_file.restype = ctypes.c_int
_lib.bmm_load_table_file.argtypes = [ctypes.c_char_p]
_lib.bmm_table_print.restype = ctypes.c_size_t
_lib.bmm_table_print.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]

_MAX_BATCH_DIMS = 4  # BMM_MAX_BATCH_DIMS
_BACKENDS = {"cpu": 1, "cuda": 2}  # bmm_backend

# bmm's dtype names (BMM_DTYPES) -> numpy dtype names; a dtype bmm gains that
# numpy (or ml_dtypes, which jax brings) knows is picked up here by its name.
_NP_NAMES = {"f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16",
             "c64": "complex64", "c128": "complex128"}


def _np_dtype(name):
    try:
        return np.dtype(_NP_NAMES.get(name, name))
    except TypeError:
        try:
            import ml_dtypes  # noqa: F401 (registers bfloat16 & co. with numpy)
            return np.dtype(_NP_NAMES.get(name, name))
        except (ImportError, TypeError):
            return None


def _read_dtypes():
    out = {}
    i = 1  # 0 is BMM_DTYPE_UNSET
    while True:
        name = _lib.bmm_dtype_name(i).decode()
        if name == "unset":
            return out
        dt = _np_dtype(name)
        if dt is not None:
            out[dt] = i
        i += 1


_DTYPES = _read_dtypes()
#: numpy dtypes bmm computes in (every row of BMM_DTYPES that numpy can name)
dtypes = tuple(_DTYPES)


class Error(ValueError):
    """A call bmm refuses. .status is bmm's status name (e.g. 'C_OVERLAP'), or
    'UNSUPPORTED_ARGUMENT' for what the binding refuses before calling bmm."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _refuse(msg):
    raise Error("UNSUPPORTED_ARGUMENT", "bmm: " + msg)


def _check_array(x, what):
    if not isinstance(x, np.ndarray):
        raise TypeError("bmm: %s must be a numpy.ndarray, got %s (bmm converts nothing: "
                        "pass numpy.asarray(%s) yourself)" % (what, type(x).__name__, what))
    if not x.dtype.isnative:
        _refuse("%s has non-native byte order (%s)" % (what, x.dtype.str))


def _elem_strides(x, what):
    item = x.itemsize
    out = []
    for s, n in zip(x.strides, x.shape):
        if n > 1 and s % item:
            _refuse("%s has a stride of %d bytes, not a whole number of %d-byte elements: bmm "
                    "strides are in elements" % (what, s, item))
        out.append(s // item if n > 1 else 0)
    return out


def _plan(a, b, out, alpha, beta, bias):
    """numpy.matmul's shape rules -> (dims, strides, out array, drop axes)."""
    _check_array(a, "a")
    _check_array(b, "b")
    if a.ndim == 0 or b.ndim == 0:
        _refuse("matmul: a 0-d operand (numpy.matmul refuses scalars too)")
    if a.dtype != b.dtype:
        _refuse("wrong dtype mix: a is %s, b is %s (bmm converts nothing: cast one yourself)" %
                (a.dtype, b.dtype))
    if a.dtype not in _DTYPES:
        _refuse("dtype %s is not one of bmm's (%s)" % (a.dtype, ", ".join(str(d) for d in dtypes)))
    # 1-D operands as numpy: a (k,) is (1, k), b (k,) is (k, 1); the added axis is dropped.
    a_shape, a_st = list(a.shape), _elem_strides(a, "a")
    b_shape, b_st = list(b.shape), _elem_strides(b, "b")
    drop_m = a.ndim == 1
    drop_n = b.ndim == 1
    if drop_m:
        a_shape, a_st = [1] + a_shape, [0] + a_st
    if drop_n:
        b_shape, b_st = b_shape + [1], b_st + [0]
    m, k = a_shape[-2:]
    k2, n = b_shape[-2:]
    if k != k2:
        _refuse("matmul: a has %d columns but b has %d rows (shapes %s, %s)" %
                (k, k2, a.shape, b.shape))
    nb = max(len(a_shape), len(b_shape)) - 2
    a_bs = [1] * (nb - len(a_shape) + 2) + a_shape[:-2]
    b_bs = [1] * (nb - len(b_shape) + 2) + b_shape[:-2]
    a_bst = [0] * (nb - len(a_shape) + 2) + a_st[:-2]
    b_bst = [0] * (nb - len(b_shape) + 2) + b_st[:-2]
    batch = []
    for d in range(nb):
        x, y = a_bs[d], b_bs[d]
        if x != y and x != 1 and y != 1:
            _refuse("matmul: batch dims do not broadcast (shapes %s, %s)" % (a.shape, b.shape))
        batch.append(max(x, y))
    out_shape = tuple(batch) + (() if drop_m else (m,)) + (() if drop_n else (n,))
    if out is None:
        if beta != 0:
            _refuse("beta = %r reads C: pass out=" % (beta,))
        out = np.empty(out_shape, a.dtype)
    else:
        _check_array(out, "out")
        if out.shape != out_shape:
            _refuse("out has shape %s, the product has %s" % (out.shape, out_shape))
        if out.dtype != a.dtype:
            _refuse("wrong dtype mix: out is %s, a and b are %s" % (out.dtype, a.dtype))
        if not out.flags.writeable:
            _refuse("out is read-only")
    c_st = _elem_strides(out, "out")
    if drop_m:
        c_st = c_st[:nb] + [0] + c_st[nb:]
    if drop_n:
        c_st = c_st + [0]
    if bias is not None:
        _check_array(bias, "bias")
        if bias.dtype != a.dtype:
            _refuse("wrong dtype mix: bias is %s, a and b are %s" % (bias.dtype, a.dtype))
        if bias.ndim > 1 or bias.size != n:
            _refuse("bias must have shape (%d,) (one value per column of C), got %s" %
                    (n, bias.shape))
        if n > 1 and bias.strides[0] != bias.itemsize:
            _refuse("bias must be contiguous (bmm reads n consecutive values), its stride is "
                    "%d bytes" % bias.strides[0])
    # Batch dims: broadcast dims get stride 0; dims of size 1 go; neighbours that
    # every operand walks as one dim merge (the seed's (1000,1000) is one dim of
    # 10^6). bmm takes at most 4.
    dims = [[batch[d], (a_bst[d] if a_bs[d] > 1 else 0), (b_bst[d] if b_bs[d] > 1 else 0),
             c_st[d]] for d in range(nb) if batch[d] != 1]
    merged = []
    for dim in dims:
        if merged and all(merged[-1][i] == dim[i] * dim[0] for i in (1, 2, 3)):
            merged[-1] = [merged[-1][0] * dim[0]] + dim[1:]
        else:
            merged.append(dim)
    if len(merged) > _MAX_BATCH_DIMS:
        _refuse("%d batch dims that cannot be merged (bmm takes at most %d); reshape "
                "yourself" % (len(merged), _MAX_BATCH_DIMS))
    sizes = [d[0] for d in merged] + [m, n, k]
    strides = []
    for i, mat in ((1, a_st[-2:]), (2, b_st[-2:]), (3, c_st[-2:])):
        strides += [d[i] for d in merged] + list(mat)
    return sizes, len(merged), strides, out


def _call(what, a, b, out, alpha, beta, bias, conj_a=False, conj_b=False):
    sizes, nbd, strides, out = _plan(a, b, out, alpha, beta, bias)
    alpha, beta = complex(alpha), complex(beta)  # imaginary parts: complex dtypes only
    buf = ctypes.create_string_buffer(4096)
    dims = (ctypes.c_int64 * len(sizes))(*sizes)
    st = (ctypes.c_int64 * len(strides))(*strides)
    s = _lib.bmm_py_matmul(_DTYPES[a.dtype], nbd, dims, a.ctypes.data, b.ctypes.data,
                           out.ctypes.data, st, None if bias is None else bias.ctypes.data,
                           alpha.real, beta.real, alpha.imag, beta.imag, int(bool(conj_a)),
                           int(bool(conj_b)), what, buf, len(buf))
    if s != 0:
        raise Error(_lib.bmm_status_name(s).decode(), "bmm: " + buf.value.decode())
    return out, buf.value.decode()


def matmul(a, b, *, out=None, alpha=1.0, beta=0.0, bias=None, conj_a=False, conj_b=False):
    """alpha * (a @ b) + beta * out (+ bias), numpy.matmul's shape rules.

    a, b, out, bias: numpy arrays of one dtype from bmm.dtypes, any strides
    (no copy is made: what bmm cannot express raises bmm.Error). beta != 0
    needs out=. bias: shape (n,), contiguous, added to every row. Returns out
    (a new C-contiguous array when out is None). complex64/complex128: alpha
    and beta may be complex; conj_a / conj_b read a / b conjugated (with a
    transposed view, a.T, that is a^H: matmul(a.T, b, conj_a=True)). On a real
    dtype conj is the identity and a complex alpha or beta is refused."""
    return _call(0, a, b, out, alpha, beta, bias, conj_a, conj_b)[0]


def explain(a, b, *, out=None, alpha=1.0, beta=0.0, bias=None, conj_a=False, conj_b=False):
    """bmm_explain's line for this call on the CPU: layout class, strategy,
    tunables, the table rule that matched and why earlier ones did not. Runs
    nothing (without out= a result array is allocated, not written)."""
    return _call(1, a, b, out, alpha, beta, bias, conj_a, conj_b)[1]


def load_table(path):
    """Install a threshold table file (README's format) for every later call,
    NumPy and JAX alike (bmm_load_table_file). All or nothing."""
    s = _lib.bmm_load_table_file(os.fsencode(path))
    if s != 0:
        raise Error(_lib.bmm_status_name(s).decode(), "bmm: " + _lib.bmm_last_error().decode())


def table(backend="cpu", arch=0):
    """The active threshold table of a backend, in the file format
    (bmm_table_print; arch: CUDA compute capability * 10, e.g. 90)."""
    be = _BACKENDS[backend]
    n = _lib.bmm_table_print(be, arch, None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    _lib.bmm_table_print(be, arch, buf, n + 1)
    return buf.value.decode()


def __getattr__(name):
    # bmm.jax after a plain `import bmm`, without importing jax for NumPy users
    if name == "jax":
        import importlib
        return importlib.import_module(".jax", __name__)
    raise AttributeError("module 'bmm' has no attribute %r" % name)
