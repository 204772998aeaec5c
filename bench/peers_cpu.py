"""NumPy and JAX (CPU) on the rows of the benchmark suite, as bench_cpu runs them.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/peers_cpu.py \
        [bench/suite.csv] [--mb 256] [--only NAME] [--threads 2]

Same batch scaling as bench/bench_cpu.c (rows over --mb MB get a smaller batch),
same CSV columns on stdout (strategy = numpy or jax), a table on stderr. The
roofline (copy bandwidth, FMA peak) is taken from `build/bench_cpu --roofline`
so both programs divide by the same floor. Every result is checked against a
float64 product on up to 64 sampled batch entries before it is reported. OpenBLAS reads OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE at
load time, so they must be unset in the command that starts this script (above):
the kernel OpenBLAS picked is printed (threadpoolctl).
"""
import argparse
import os
import subprocess
import sys
import time

ROW_BYTES = {"f32": 4, "f64": 8, "c64": 8, "c128": 16, "f16": 2, "bf16": 2}
COMPLEX = ("c64", "c128")
PART = {"c64": "f32", "c128": "f64", "f16": "f32", "bf16": "f32"}  # the peak each dtype runs at


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite", nargs="?", default="bench/suite.csv")
    ap.add_argument("--mb", type=float, default=256)
    ap.add_argument("--only", default=None)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--roofline", default=None,
                    help="GBPS,PEAK_F32,PEAK_F64 as bench_cpu printed them (default: measure)")
    return ap.parse_args()


def main():
    args = parse_args()
    # thread counts must be fixed before numpy / jax load their pools
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")
    import numpy as np
    from threadpoolctl import threadpool_info, threadpool_limits

    blas = [
        f"{i.get('internal_api')} {i.get('version')} kernel={i.get('architecture')} "
        f"threads={i.get('num_threads')}"
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    ]
    env_left = [v for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if v in os.environ]
    print(f"peers_cpu: numpy {np.__version__}; BLAS: {'; '.join(blas) or 'none'}"
          f"{'; WARNING still set: ' + ','.join(env_left) if env_left else ''}",
          file=sys.stderr)
    jax = jnp = None
    if not args.no_jax:
        try:
            import jax as jax_mod

            jax_mod.config.update("jax_enable_x64", True)
            jax_mod.config.update("jax_platforms", "cpu")
            import jax.numpy as jnp_mod

            jax, jnp = jax_mod, jnp_mod
            print(f"peers_cpu: jax {jax.__version__} on {jax.devices()}", file=sys.stderr)
        except Exception as e:  # the report says n/a for jax then
            print(f"peers_cpu: jax unavailable: {e}", file=sys.stderr)

    if args.roofline:
        bw, p32, p64 = map(float, args.roofline.split(","))
        peak = {"f32": p32, "f64": p64}
    else:
        bw, peak = roofline()
    print(f"peers_cpu: roofline copy {bw:.1f} GB/s, FMA peak f32 {peak['f32']:.0f} "
          f"f64 {peak['f64']:.0f} GFLOP/s", file=sys.stderr)
    rng = np.random.default_rng(7)
    print("name,dtype,batch,m,n,k,layout,strategy,ms,gbps,gflops,pct_roofline")
    with open(args.suite) as f:
        rows = [ln.strip().split(",") for ln in f if ln.strip() and not ln.startswith("#")]
    failed = 0
    for r in rows[1:]:
        name, dt, batch, m, n, k, layout = r[0], r[1], *map(int, r[2:6]), r[6]
        if args.only and not name.startswith(args.only):
            continue
        if dt not in ROW_BYTES:
            continue
        es = ROW_BYTES[dt]
        bsz = k * n if layout == "shared_b_bias" else batch * k * n
        bias = n if layout == "shared_b_bias" else 0
        byts = es * (batch * m * k + bsz + bias + batch * m * n)
        if byts > args.mb * 1048576:
            batch = max(1, int(batch * (args.mb * 1048576 / byts)))
            bsz = k * n if layout == "shared_b_bias" else batch * k * n
            byts = es * (batch * m * k + bsz + bias + batch * m * n)
        # real FLOPs: a complex multiply-add is 4 real multiply-adds, at the peak of its part
        flops = (8.0 if dt in COMPLEX else 2.0) * batch * m * n * k
        floor_s = max(byts / (bw * 1e9), flops / (peak[PART.get(dt, dt)] * 1e9))
        if dt == "bf16":  # NumPy has no bfloat16: ml_dtypes' (JAX's) type; NumPy is not timed
            import ml_dtypes

            npdt = ml_dtypes.bfloat16
        else:
            npdt = {"f32": np.float32, "f64": np.float64, "c64": np.complex64,
                    "c128": np.complex128, "f16": np.float16}[dt]

        def rnd(*shape):
            x = rng.uniform(-1, 1, size=shape)
            x[x == 0] = 0.5
            if dt in COMPLEX:
                y = rng.uniform(-1, 1, size=shape)
                y[y == 0] = 0.5
                x = x + 1j * y
            return x.astype(npdt)

        # operands in the stored layout of the suite
        if layout == "batch_inner":
            a, b, c = rnd(m, k, batch), rnd(k, n, batch), np.empty((m, n, batch), npdt)
        elif layout == "col_a":
            a, b, c = rnd(batch, k, m), rnd(batch, k, n), np.empty((batch, m, n), npdt)
        elif layout == "shared_b_bias":
            a, b, c = rnd(batch, m, k), rnd(k, n), np.empty((batch, m, n), npdt)
        else:
            a, b, c = rnd(batch, m, k), rnd(batch, k, n), np.empty((batch, m, n), npdt)
        bv = rnd(n) if layout == "shared_b_bias" else None

        def logical(x, role):  # views in (batch, rows, cols) order
            if layout == "batch_inner":
                return x.transpose(2, 0, 1)
            if layout == "col_a" and role == "a":
                return x.transpose(0, 2, 1)
            return x

        def np_run():
            np.matmul(logical(a, "a"), logical(b, "b"), out=logical(c, "c"))
            if bv is not None:
                np.add(c, bv, out=c)

        results = []
        if dt != "bf16":
            with threadpool_limits(limits=args.threads):
                results.append(("numpy", time_it(np_run, args.reps), lambda: c))
        if jnp is not None:
            ja, jb = jax.device_put(a), jax.device_put(b)
            jbv = jax.device_put(bv) if bv is not None else None
            if layout == "batch_inner":
                fn = jax.jit(lambda x, y: jnp.einsum("ikb,kjb->ijb", x, y))
            elif layout == "col_a":
                fn = jax.jit(lambda x, y: jnp.matmul(jnp.swapaxes(x, 1, 2), y))
            elif layout == "shared_b_bias":
                fn = jax.jit(lambda x, y, z: jnp.matmul(x, y) + z)
            else:
                fn = jax.jit(lambda x, y: jnp.matmul(x, y))
            jargs = (ja, jb, jbv) if jbv is not None else (ja, jb)
            out = {}

            def jax_run():
                out["c"] = fn(*jargs).block_until_ready()

            results.append(("jax", time_it(jax_run, args.reps), lambda: np.asarray(out["c"])))
        for strat, secs, get in results:
            err = check(np, logical(a, "a"), logical(b, "b"), bv, logical(get(), "c"), dt, k)
            if err > 1:
                print(f"{name} {dt} {strat}: WRONG RESULT (err/bound {err:.2g})", file=sys.stderr)
                failed = 1
                continue
            ms = secs * 1e3
            gbps, gflops = byts / secs / 1e9, flops / secs / 1e9
            pct = 100.0 * floor_s / secs
            print(f"{name},{dt},{batch},{m},{n},{k},{layout},{strat},{ms:.4f},{gbps:.2f},"
                  f"{gflops:.2f},{pct:.1f}", flush=True)
            print(f"{name:22s} {dt:4s} {batch:8d} {m},{n},{k:<8} {strat:6s} {ms:9.3f} "
                  f"{gbps:7.1f} {gflops:8.1f} {pct:6.1f}", file=sys.stderr)
        del a, b, c
    return failed


def time_it(fn, min_reps):
    """Median of >= min_reps timed runs after a warm-up (more for short runs)."""
    t0 = time.perf_counter()
    fn()
    warm = time.perf_counter() - t0
    reps = min_reps
    while reps < 60 and warm * reps < 0.3:
        reps += 1
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2] if reps % 2 else 0.5 * (ts[reps // 2 - 1] + ts[reps // 2])


def check(np, a, b, bias, c, dt, k):
    """Worst |err| / bound over up to 64 sampled batch entries, the bound being
    the one of tests/bmm_cases.h: 2 (k+3) u sum|a||b| (+|bias|), complex: the
    README's 2 sqrt(2) (2k+4) u sum|a||b| (+|bias|); f16 / bf16: the same with
    the half's own u, since a peer may sum in the half type (bmm sums in f32 and
    meets the tighter bound of the README, which tests/ enforce)."""
    u = {"f32": 2.0**-24, "c64": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8}.get(dt, 2.0**-53)
    wide = np.complex128 if dt in COMPLEX else np.float64
    idx = np.unique(np.linspace(0, a.shape[0] - 1, min(64, a.shape[0])).astype(int))
    bb = b if b.ndim == 2 else None
    worst = 0.0
    for i in idx:
        ai = a[i].astype(wide)
        bi = (bb if bb is not None else b[i]).astype(wide)
        ref = ai @ bi
        mag = np.abs(ai) @ np.abs(bi)
        if bias is not None:
            ref = ref + bias.astype(wide)
            mag = mag + np.abs(bias.astype(wide))
        scale = 2.0 * np.sqrt(2.0) * (2 * k + 4) if dt in COMPLEX else 2.0 * (k + 3)
        bound = scale * u * mag + 1e-300
        e = np.abs(c[i].astype(wide) - ref) / bound
        if not np.all(np.isfinite(e)):
            return float("inf")
        worst = max(worst, float(e.max()))
    return worst


def roofline():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bench_cpu")
    out = subprocess.run([exe, "--roofline"], capture_output=True, text=True, check=True).stdout
    bw, p32, p64 = map(float, out.split())
    return bw, {"f32": p32, "f64": p64}


if __name__ == "__main__":
    sys.exit(main())
