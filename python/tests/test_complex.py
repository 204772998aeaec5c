"""Complex dtypes (issue 23): numpy complex64/complex128 in, complex alpha and
beta, conj_a / conj_b (with a transposed view: a^H), against numpy."""
import numpy as np
import pytest

import bmm

CDTYPES = [np.dtype(np.complex64), np.dtype(np.complex128)]


def crand(rng, shape, dt):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


def tol(dt, k):
    # README: |err| <= 2 sqrt(2) (2k + 4) u (moduli sum); O(1) inputs, sum <= 8 k
    u = float(np.finfo(dt).eps) / 2
    return 2 * 2 ** 0.5 * (2 * k + 4) * u * 8 * max(k, 1)


def test_complex_dtypes_listed():
    for dt in CDTYPES:
        assert dt in bmm.dtypes


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("m,n,k", [(3, 3, 3), (2, 2, 2), (4, 4, 4), (5, 7, 3), (3, 1, 25)])
@pytest.mark.parametrize("conj_a,conj_b", [(False, False), (True, False), (False, True),
                                           (True, True)])
def test_matmul_conj_alpha_beta(dt, m, n, k, conj_a, conj_b):
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    a, b = crand(rng, (11, m, k), dt), crand(rng, (11, k, n), dt)
    c0 = crand(rng, (11, m, n), dt)
    bias = crand(rng, (n,), dt)
    alpha, beta = 0.5 - 1.25j, -0.75 + 0.5j
    out = c0.copy()
    got = bmm.matmul(a, b, out=out, alpha=alpha, beta=beta, bias=bias, conj_a=conj_a,
                     conj_b=conj_b)
    aa = np.conj(a) if conj_a else a
    bb = np.conj(b) if conj_b else b
    want = alpha * (aa.astype(np.complex128) @ bb.astype(np.complex128)) + beta * c0 + bias
    assert got is out and got.dtype == dt
    np.testing.assert_allclose(got, want.astype(dt), rtol=0, atol=tol(dt, k))


@pytest.mark.parametrize("dt", CDTYPES)
def test_hermitian_transpose_by_strides(dt):
    # a^H b with a (batch, k, m) seen through a transposed view: no copy
    rng = np.random.default_rng(3)
    a, b = crand(rng, (9, 3, 3), dt), crand(rng, (9, 3, 3), dt)
    got = bmm.matmul(np.swapaxes(a, -1, -2), b, conj_a=True)
    want = np.conj(np.swapaxes(a, -1, -2)) @ b
    np.testing.assert_allclose(got, want, rtol=0, atol=tol(dt, 3))


def test_su3_kernel_named_in_explain():
    a = np.zeros((100, 3, 3), np.complex64)
    assert "c_small_3x3x3" in bmm.explain(a, a)


def test_complex_scalar_on_real_dtype_refused():
    a = np.ones((2, 2, 2), np.float64)
    with pytest.raises(bmm.Error) as e:
        bmm.matmul(a, a, alpha=1 + 1j)
    assert e.value.status == "BAD_FLAG" and "alpha_im" in str(e.value)
    # conj of a real operand is the identity
    np.testing.assert_array_equal(bmm.matmul(a, a, conj_a=True), bmm.matmul(a, a))


def test_dtype_mix_refused():
    a = np.ones((2, 2), np.complex64)
    with pytest.raises(bmm.Error):
        bmm.matmul(a, np.ones((2, 2), np.complex128))
