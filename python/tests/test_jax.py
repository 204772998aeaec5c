"""bmm.jax.matmul vs jnp.matmul under jit, vmap, grad and shard_map (2 host devices)."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import bmm  # noqa: E402
import bmm.jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

DTYPES = [d for d in (jnp.float32, jnp.float64) if np.dtype(d) in bmm.dtypes]
TOL = {np.dtype(jnp.float32): 1e-4, np.dtype(jnp.float64): 1e-12}


def rand(key, shape, dt):
    return jnp.asarray(np.random.default_rng(key).standard_normal(shape), dt)


def close(x, y):
    assert x.shape == y.shape and x.dtype == y.dtype
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=TOL[np.dtype(x.dtype)],
                               atol=TOL[np.dtype(x.dtype)])


SHAPES = [((3, 5), (5, 2)), ((7, 3, 5), (7, 5, 2)), ((7, 3, 5), (5, 2)), ((3, 5), (7, 5, 2)),
          ((2, 1, 3, 4), (1, 6, 4, 5)), ((5,), (5,)), ((5,), (4, 5, 3)), ((4, 3, 5), (5,)),
          ((10, 10, 3, 25), (10, 10, 25, 1)), ((0, 3, 4), (0, 4, 2))]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("sa,sb", SHAPES, ids=str)
def test_jit(dt, sa, sb):
    a, b = rand(1, sa, dt), rand(2, sb, dt)
    close(jax.jit(bmm.jax.matmul)(a, b), jnp.matmul(a, b))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_alpha_bias(dt):
    a, b, v = rand(1, (4, 3, 6), dt), rand(2, (4, 6, 5), dt), rand(3, (5,), dt)
    f = jax.jit(lambda a, b, v: bmm.jax.matmul(a, b, bias=v, alpha=-2.0))
    close(f(a, b, v), -2.0 * (a @ b) + v)


def test_hlo_has_the_custom_call():
    a, b = rand(1, (8, 3, 5), jnp.float32), rand(2, (8, 5, 1), jnp.float32)
    for fn in (bmm.jax.matmul, jax.vmap(bmm.jax.matmul),
               jax.grad(lambda a, b: bmm.jax.matmul(a, b).sum())):
        text = jax.jit(fn).lower(a, b).as_text()
        assert 'custom_call' in text and 'bmm_matmul' in text
        assert 'dot_general' not in text  # no silent fallback to XLA's dot
    compiled = jax.jit(bmm.jax.matmul).lower(a, b).compile().as_text()
    assert 'custom_call_target="bmm_matmul"' in compiled


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_vmap_nested(dt):
    a, b = rand(1, (6, 4, 3, 5), dt), rand(2, (7, 5, 2), dt)
    # outer over b's leading axis, inner over a's first two axes; b unmapped inside
    f = jax.vmap(jax.vmap(bmm.jax.matmul, in_axes=(0, None)), in_axes=(None, 0))
    g = jax.vmap(jax.vmap(jnp.matmul, in_axes=(0, None)), in_axes=(None, 0))
    close(jax.jit(f)(a, b), g(a, b))
    # a mapped axis that is not the first, and a mapped bias
    x, v = rand(3, (3, 4, 5), dt), rand(4, (2, 4), dt)
    f = jax.vmap(lambda x, v: bmm.jax.matmul(x, b[0], bias=v), in_axes=(1, 1))
    close(jax.jit(f)(x, v), jnp.moveaxis(x, 1, 0) @ b[0] + v.T[:, None, :])
    # vmap is one call, not a loop: one custom call in the HLO
    text = jax.jit(jax.vmap(bmm.jax.matmul)).lower(a[:, 0], b[:6]).as_text()
    assert text.count("bmm_matmul") - text.count("bmm_matmul_bias") >= 1
    assert "while" not in text


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("sa,sb", [((7, 3, 5), (7, 5, 2)), ((7, 3, 5), (5, 2)),
                                   ((2, 1, 3, 4), (1, 6, 4, 5)), ((5,), (4, 5, 3))], ids=str)
def test_grad(dt, sa, sb):
    a, b = rand(1, sa, dt), rand(2, sb, dt)
    n = sb[-1] if len(sb) > 1 else 1
    v = rand(3, (n,), dt)
    w = rand(4, np.broadcast_shapes(sa[:-2], sb[:-2]) + sa[-2:-1] * (len(sa) > 1) + (n,) * (len(sb) > 1), dt)

    def ours(a, b, v):
        return jnp.sum(w * jnp.sin(bmm.jax.matmul(a, b, bias=v if len(sb) > 1 else None, alpha=1.5)))

    def ref(a, b, v):
        return jnp.sum(w * jnp.sin(1.5 * (a @ b) + (v if len(sb) > 1 else 0)))

    for x, y in zip(jax.jit(jax.grad(ours, (0, 1, 2)))(a, b, v), jax.grad(ref, (0, 1, 2))(a, b, v)):
        close(x, y)


def test_shard_map_two_devices():
    if jax.device_count() < 2:
        pytest.skip("needs XLA_FLAGS=--xla_force_host_platform_device_count=2 (conftest sets it)")
    from jax.sharding import NamedSharding, PartitionSpec as P
    mesh = jax.make_mesh((2,), ("x",))
    sh = NamedSharding(mesh, P("x"))
    a = jax.device_put(rand(1, (8, 4, 3, 5), jnp.float32), sh)
    b = jax.device_put(rand(2, (8, 4, 5, 1), jnp.float32), sh)
    f = jax.jit(jax.shard_map(bmm.jax.matmul, mesh=mesh, in_specs=(P("x"), P("x")),
                              out_specs=P("x")))
    c = f(a, b)
    close(c, jnp.matmul(a, b))
    assert c.sharding.spec[0] == "x"
    text = f.lower(a, b).compile().as_text()
    assert "all-gather" not in text and "f32[4,4,3,5]" in text  # each device its half


def test_batch_partitionable_plain_jit():
    if jax.device_count() < 2:
        pytest.skip("needs 2 devices")
    if not bmm.jax.batch_partitionable:
        pytest.skip("this JAX cannot declare FFI targets batch-partitionable")
    from jax.sharding import NamedSharding, PartitionSpec as P
    mesh = jax.make_mesh((2,), ("x",))
    sh = NamedSharding(mesh, P("x"))
    a = jax.device_put(rand(1, (8, 4, 3, 5), jnp.float32), sh)
    b = jax.device_put(rand(2, (8, 4, 5, 1), jnp.float32), sh)
    f = jax.jit(bmm.jax.matmul)
    text = f.lower(a, b).compile().as_text()
    call = [ln for ln in text.splitlines() if 'custom_call_target="bmm_matmul"' in ln]
    assert call and "f32[4,4,3,1]" in call[0], call  # per-shard call
    assert "all-gather" not in text
    close(f(a, b), jnp.matmul(a, b))
    # with a bias the call is not declared partitionable: XLA gathers (documented)
    v = rand(3, (1,), jnp.float32)
    g = jax.jit(lambda a, b: bmm.jax.matmul(a, b, bias=v))
    assert "all-gather" in g.lower(a, b).compile().as_text()
    close(g(a, b), jnp.matmul(a, b) + v)


def test_errors():
    a = rand(1, (2, 3, 4), jnp.float32)
    with pytest.raises(TypeError, match="wrong dtype mix"):
        bmm.jax.matmul(a, rand(2, (2, 4, 5), jnp.float64))
    with pytest.raises(TypeError, match="not one of bmm's"):
        bmm.jax.matmul(a.astype(jnp.int32), a.astype(jnp.int32))
    with pytest.raises(ValueError, match="4 columns but b has 3 rows"):
        bmm.jax.matmul(a, rand(2, (2, 3, 5), jnp.float32))
    with pytest.raises(ValueError, match="bias must have shape"):
        bmm.jax.matmul(a, rand(2, (2, 4, 5), jnp.float32), bias=jnp.ones(4, jnp.float32))
