"""The seed's JAX sweep with bmm in place of `a @ b`.

(1000, 1000, 3, K) @ (1000, 1000, K, 1) for K = 5..50, f32: JAX's own `a @ b`
and `bmm.jax.matmul(a, b)`, both under jax.jit, on JAX's default device (the
CPU here; the GPU where jax[cuda] and bmm's CUDA build are installed). Each
point: one warm-up call (compiles), then the median of timed calls, each ended
by block_until_ready; bmm's result is checked against JAX's. Writes a CSV and,
when matplotlib is installed, a PNG like the seed's figure.

    python examples/seed_jax.py                 # batch (1000, 1000), K = 5..50
    python examples/seed_jax.py --quick         # batch (10, 100), K = 5, 20, 35, 50 (CI)
    python examples/seed_jax.py --out DIR --reps 10
"""
import argparse
import csv
import os
import statistics
import sys
import time

import jax
import jax.numpy as jnp

import bmm.jax


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small batch, 4 values of K (CI)")
    ap.add_argument("--batch", type=int, nargs=2, default=None, metavar=("B0", "B1"))
    ap.add_argument("--reps", type=int, default=None, help="timed calls per point")
    ap.add_argument("--out", default="build/seed_jax", help="directory for the CSV and PNG")
    args = ap.parse_args()
    batch = tuple(args.batch or ((10, 100) if args.quick else (1000, 1000)))
    ks = [5, 20, 35, 50] if args.quick else list(range(5, 51))
    reps = args.reps or (3 if args.quick else 10)
    os.makedirs(args.out, exist_ok=True)

    dev = jax.devices()[0]
    print("device: %s, batch %s of (3xK)@(Kx1) f32, %d timed calls per point" %
          (dev.device_kind, batch, reps))
    xla = jax.jit(lambda a, b: a @ b)
    ours = jax.jit(bmm.jax.matmul)
    rows = []
    path = os.path.join(args.out, "seed_jax.csv")
    f = open(path, "w", newline="")  # written row by row: a stopped run keeps its rows
    w = None
    for k in ks:
        # made on the device: numpy's generator would take longer than the sweep
        ka, kb = jax.random.split(jax.random.PRNGKey(k))
        a = jax.jit(lambda key: jax.random.normal(key, batch + (3, k), jnp.float32))(ka)
        b = jax.jit(lambda key: jax.random.normal(key, batch + (k, 1), jnp.float32))(kb)
        gb = (a.size + b.size + a.size // k) * 4 / 1e9  # bytes moved: A, B read, C written
        t = {}
        for name, fn in (("jax", xla), ("bmm", ours)):
            fn(a, b).block_until_ready()  # compile + warm-up
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn(a, b).block_until_ready()
                ts.append(time.perf_counter() - t0)
            t[name] = statistics.median(ts)
        err = float(jnp.max(jnp.abs(ours(a, b) - xla(a, b))))
        scale = float(jnp.max(jnp.abs(xla(a, b)))) or 1.0
        ok = err <= 2 * (k + 3) * 2.0 ** -24 * 8 * k * max(scale, 1.0)
        rows.append(dict(K=k, jax_ms=t["jax"] * 1e3, bmm_ms=t["bmm"] * 1e3,
                         jax_GBps=gb / t["jax"], bmm_GBps=gb / t["bmm"],
                         speedup=t["jax"] / t["bmm"], max_abs_err=err, ok=ok))
        r = rows[-1]
        if w is None:
            w = csv.DictWriter(f, fieldnames=list(r))
            w.writeheader()
        w.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})
        f.flush()
        print("K=%2d  jax %8.3f ms %6.1f GB/s   bmm %8.3f ms %6.1f GB/s   x%.2f  err %.1e %s" %
              (k, r["jax_ms"], r["jax_GBps"], r["bmm_ms"], r["bmm_GBps"], r["speedup"], err,
               "ok" if ok else "WRONG"), flush=True)
    f.close()
    print("wrote", path)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: CSV only (pip install matplotlib for the plot)")
    else:
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.plot(ks, [r["jax_ms"] for r in rows], "o-", label="jax.jit(a @ b)")
        ax.plot(ks, [r["bmm_ms"] for r in rows], "s-", label="jax.jit(bmm.jax.matmul)")
        ax.set_xlabel("K")
        ax.set_ylabel("ms per call (median)")
        ax.set_title("(%d,%d,3,K) @ (%d,%d,K,1) f32 on %s" % (batch + batch + (dev.device_kind,)))
        ax.set_ylim(bottom=0)
        ax.legend()
        fig.tight_layout()
        png = os.path.join(args.out, "seed_jax.png")
        fig.savefig(png, dpi=120)
        print("wrote", png)
    if not all(r["ok"] for r in rows):
        print("bmm's result differs from JAX's beyond the bound", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
