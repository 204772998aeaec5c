"""bmm.matmul vs numpy.matmul: every dtype, numpy's shape rules, any strides."""
import numpy as np
import pytest

import bmm

DTYPES = list(bmm.dtypes)


# f16 and bf16 sum in f32 and round C once (README, "Numerics"): u of the sums,
# and the unit roundoff of the stored dtype
HALF_U = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}


def tol(dt, k, want=None):
    # README's bound 2 (k + 3) u per unit of |a||b|, complex 2 sqrt(2) (2k + 4) u;
    # inputs here are O(1)
    dt = np.dtype(dt)
    if dt.kind == "c":
        u = float(np.finfo(dt).eps) / 2
        return 2 * 2 ** 0.5 * (2 * k + 4) * u * 8 * max(k, 1)
    u = {4: 2.0 ** -24, 8: 2.0 ** -53, 2: 2.0 ** -24}[dt.itemsize]
    t = 2 * (k + 3) * u * 8 * max(k, 1)
    if dt.name in HALF_U:
        # plus C's rounding to the dtype, in bmm and (numpy computes in the
        # dtype too) in the expected value: a few units of it
        top = float(np.max(np.abs(want.astype(np.float64)))) if want is not None and want.size else 0
        t += 8 * HALF_U[dt.name] * (top + 1)
    return t


def rand(rng, shape, dt):
    if np.dtype(dt).kind == "c":  # both parts random
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def check(c, want, k):
    assert c.shape == want.shape
    if c.dtype.name == "bfloat16" and want.dtype == np.float32:
        want = want.astype(c.dtype)  # ml_dtypes' matmul of bfloat16 returns float32
    assert c.dtype == want.dtype
    np.testing.assert_allclose(c.astype(np.float64), want.astype(np.float64), rtol=0,
                               atol=tol(c.dtype, k, want))


def test_dtypes_cover_f32_f64():
    assert np.dtype(np.float32) in DTYPES and np.dtype(np.float64) in DTYPES


def test_dtypes_cover_halves():
    # numpy names float16; bfloat16 where ml_dtypes (which jax brings) is installed
    assert np.dtype(np.float16) in DTYPES
    try:
        import ml_dtypes
    except ImportError:
        return
    assert np.dtype(ml_dtypes.bfloat16) in DTYPES


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_halves_against_f64(name):
    # the README's bound, checked against a float64 product of the same inputs
    if name == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        dt = np.dtype(ml_dtypes.bfloat16)
    else:
        dt = np.dtype(np.float16)
    rng = np.random.default_rng(7)
    for sa, sb in [((1000, 3, 25), (1000, 25, 1)), ((50, 16, 16), (50, 16, 16)),
                   ((3, 40, 300), (3, 300, 20))]:
        a, b = rand(rng, sa, dt), rand(rng, sb, dt)
        bias = rand(rng, (sb[-1],), dt)
        c0 = rand(rng, sa[:-1] + sb[-1:], dt)
        c = c0.copy()
        bmm.matmul(a, b, out=c, alpha=0.75, beta=-0.5, bias=bias)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        ref = 0.75 * np.matmul(a64, b64) - 0.5 * c0.astype(np.float64) + bias.astype(np.float64)
        mag = (0.75 * np.matmul(np.abs(a64), np.abs(b64)) + 0.5 * np.abs(c0.astype(np.float64))
               + np.abs(bias.astype(np.float64)))
        k = sa[-1]
        bound = 2 * (k + 3) * 2.0 ** -24 * mag + HALF_U[name] * np.abs(ref) + 2.0 ** -25
        err = np.abs(c.astype(np.float64) - ref)
        assert np.all(err <= bound), float(np.max(err / bound))
        # computed in f32 either way: chunks converted to f32, or (cpu_small's
        # dot form, where the build has F16C / SSE2) halves widened by the kernel
        e = bmm.explain(a, b)
        assert "as f32" in e or "read by the kernel" in e, e


SHAPES = [
    ((3, 5), (5, 2)),
    ((7, 3, 5), (7, 5, 2)),
    ((7, 3, 5), (5, 2)),  # shared B
    ((3, 5), (7, 5, 2)),  # shared A
    ((2, 1, 3, 4), (1, 6, 4, 5)),  # broadcast batch dims both ways
    ((4, 3, 2, 3, 4), (4, 3, 2, 4, 1)),  # 3 batch dims, merged into one
    ((2, 3, 2, 3, 2, 3, 4), (4, 2)),  # 5 batch dims merged into one (shared B)
    ((2, 1, 3, 1, 1, 3, 4), (1, 5, 1, 4, 1, 4, 2)),  # 5 batch dims (4 after size 1 goes), broadcasts
    ((5,), (5,)),  # 1-D @ 1-D
    ((5,), (4, 5, 3)),  # 1-D a
    ((4, 3, 5), (5,)),  # 1-D b
    ((10, 3, 25), (10, 25, 1)),  # the seed, small
]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("sa,sb", SHAPES, ids=str)
def test_shapes(dt, sa, sb):
    rng = np.random.default_rng(1)
    a, b = rand(rng, sa, dt), rand(rng, sb, dt)
    check(bmm.matmul(a, b), np.matmul(a, b), sa[-1])


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_views_without_copies(dt):
    rng = np.random.default_rng(2)
    base_a = rand(rng, (6, 9, 8), dt)
    base_b = rand(rng, (6, 8, 10), dt)
    inner_a = rand(rng, (9, 8, 6), dt)
    inner_b = rand(rng, (8, 10, 6), dt)
    views = [
        (base_a.transpose(0, 2, 1), base_b.transpose(0, 2, 1)[:, :9, :]),  # transposed A and B
        (base_a[::-1, ::2, ::-1], base_b[::-1, ::-1, ::3]),  # negative and skipping strides
        (base_a[1::2, 1:4, 2:7], base_b[::2, 3:8, 1::2]),  # non-contiguous slices
        (np.asfortranarray(base_a[0]), np.asfortranarray(base_b[0])),  # column-major
        (inner_a.transpose(2, 0, 1), inner_b.transpose(2, 0, 1)),  # batch-innermost
    ]
    for a, b in views:
        assert not (a.flags.c_contiguous and b.flags.c_contiguous)
        check(bmm.matmul(a, b), np.matmul(a, b), a.shape[-1])
    # the views really reach bmm as strides: explain names their layout class
    out = np.empty((9, 10, 6), dt).transpose(2, 0, 1)
    assert "batch_inner" in bmm.explain(*views[-1], out=out)
    assert "general" in bmm.explain(*views[1])


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_alpha_beta_bias_out(dt):
    rng = np.random.default_rng(3)
    a, b = rand(rng, (4, 3, 6), dt), rand(rng, (4, 6, 5), dt)
    bias = rand(rng, (5,), dt)
    c0 = rand(rng, (4, 3, 5), dt)
    c = c0.copy()
    r = bmm.matmul(a, b, out=c, alpha=-1.5, beta=0.5, bias=bias)
    assert r is c
    check(c, -1.5 * np.matmul(a, b) + 0.5 * c0 + bias, 6)
    check(bmm.matmul(a, b, bias=bias, alpha=2.0), 2.0 * np.matmul(a, b) + bias, 6)
    # out= with strides: every other column of a wider array
    wide = np.zeros((4, 3, 10), dt)
    bmm.matmul(a, b, out=wide[:, :, ::2])
    check(wide[:, :, ::2], np.matmul(a, b), 6)
    assert not wide[:, :, 1::2].any()
    # out= whose batch dims are swapped: a and b's dims merge, C's must not
    a2, b2 = rand(rng, (3, 4, 2, 5), dt), rand(rng, (3, 4, 5, 6), dt)
    out = np.empty((4, 3, 2, 6), dt).transpose(1, 0, 2, 3)
    bmm.matmul(a2, b2, out=out)
    check(out, np.matmul(a2, b2), 5)
    # beta = 0 never reads out: NaN there is overwritten
    c = np.full((4, 3, 5), np.nan, dt)
    check(bmm.matmul(a, b, out=c), np.matmul(a, b), 6)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_empty(dt):
    for sa, sb in [((0, 3, 4), (0, 4, 2)), ((5, 0, 4), (5, 4, 2)), ((5, 3, 0), (5, 0, 2)),
                   ((3, 4), (4, 0))]:
        a, b = np.ones(sa, dt), np.ones(sb, dt)
        check(bmm.matmul(a, b), np.matmul(a, b), 0)


def test_refusals():
    a32 = np.ones((2, 3, 4), np.float32)
    b32 = np.ones((2, 4, 5), np.float32)
    with pytest.raises(bmm.Error, match="wrong dtype mix"):
        bmm.matmul(a32, b32.astype(np.float64))
    with pytest.raises(bmm.Error, match="wrong dtype mix"):
        bmm.matmul(a32, b32, out=np.empty((2, 3, 5), np.float64))
    with pytest.raises(bmm.Error, match="not one of bmm's"):
        bmm.matmul(a32.astype(np.int32), b32.astype(np.int32))
    with pytest.raises(bmm.Error, match="4 columns but b has 3 rows"):
        bmm.matmul(a32, b32[:, :3])
    with pytest.raises(bmm.Error, match="do not broadcast"):
        bmm.matmul(np.ones((3, 3, 4), np.float32), b32)
    with pytest.raises(bmm.Error, match="reads C: pass out="):
        bmm.matmul(a32, b32, beta=1.0)
    with pytest.raises(bmm.Error, match="out has shape"):
        bmm.matmul(a32, b32, out=np.empty((2, 3, 4), np.float32))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        bmm.matmul([[1.0]], np.ones((1, 1)))


def test_refusals_carry_bmm_messages():
    # C overlapping A: bmm's own check, status and message
    x = np.ones((3, 3), np.float64)
    with pytest.raises(bmm.Error, match="C_OVERLAP") as e:
        bmm.matmul(x, np.ones((3, 3)), out=x)
    assert e.value.status == "C_OVERLAP"
    # an out whose strides map two results to one element
    buf = np.zeros(8, np.float32)
    out = np.lib.stride_tricks.as_strided(buf, (3, 3), (4, 4))
    with pytest.raises(bmm.Error, match="C_SELF_OVERLAP") as e:
        bmm.matmul(np.ones((3, 2), np.float32), np.ones((2, 3), np.float32), out=out)
    # a zero stride on a matrix dim (numpy.broadcast_to): bmm refuses, nothing is copied
    a = np.broadcast_to(np.ones(4, np.float32), (3, 4))
    with pytest.raises(bmm.Error, match="BAD_STRIDE") as e:
        bmm.matmul(a, np.ones((4, 2), np.float32))
    assert "a." in str(e.value)


def test_refusals_unsupported_strides():
    raw = np.zeros(64, np.uint8)
    a = np.ndarray((3, 4), np.float32, raw.data, offset=0, strides=(18, 4))
    with pytest.raises(bmm.Error, match="not a whole number of 4-byte elements"):
        bmm.matmul(a, np.ones((4, 2), np.float32))
    big = np.ones((2, 1, 2, 1, 2, 1, 2, 1, 2, 3, 4), np.float32)[::1, :, ::-1, :, :, :, ::-1, :, ::-1]
    with pytest.raises(bmm.Error, match="batch dims that cannot be merged"):
        bmm.matmul(big, np.ones((2, 4, 2), np.float32)[:, :, :])
    with pytest.raises(bmm.Error, match="bias must be contiguous"):
        bmm.matmul(np.ones((2, 3)), np.ones((3, 4)), bias=np.ones(8)[::2])
    with pytest.raises(bmm.Error, match="non-native byte order"):
        bmm.matmul(np.ones((2, 3), ">f8"), np.ones((3, 4), ">f8"))


def test_explain_and_table(tmp_path):
    a = np.ones((10, 3, 25), np.float32)
    b = np.ones((10, 25, 1), np.float32)
    line = bmm.explain(a, b)
    assert "m=3 n=1 k=25" in line and "->" in line
    text = bmm.table()
    assert "cpu_ref" in text or "cpu_" in text
    # a one-rule table forcing cpu_ref: explain says so, results still right
    p = tmp_path / "t.txt"
    p.write_text("* * * * * * cpu_ref # test\n")
    try:
        bmm.load_table(str(p))
        assert "cpu_ref" in bmm.explain(a, b)
        assert bmm.table().count("cpu_ref") == 1
        check(bmm.matmul(a, b), np.matmul(a, b), 25)
    finally:
        bmm._lib.bmm_set_table(1, None, 0)
    bad = tmp_path / "bad.txt"
    bad.write_text("* * * * * * no_such_strategy\n")
    with pytest.raises(bmm.Error, match="TABLE_FILE|line 1"):
        bmm.load_table(str(bad))
