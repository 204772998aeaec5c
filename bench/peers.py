#!/usr/bin/env python3
"""bench/peers.py - bmm's peers on the same rows: JAX, CuPy, PyTorch, Triton.

One framework per process (they fight over device memory and streams):

    python3 bench/peers.py --framework jax    [--suite bench/suite.csv] [--sweep] [--no-suite]
    python3 bench/peers.py --framework cupy   ...
    python3 bench/peers.py --framework torch  ...
    python3 bench/peers.py --framework triton ...

stdout: CSV with bench_gpu's columns plus `fusion`:
    name,dtype,batch,m,n,k,layout,strategy,ms,gbps,gflops,pct_roofline,fusion
strategy names the peer: jax (f32 at default precision, which lets XLA use
TF32 in dots), jax_highest (precision=HIGHEST), cupy, torch (TF32 off), triton.
fusion: for JAX the XLA fusion kinds and library calls of the compiled HLO
(kLoop, kInput, cublas$gemm, triton_gemm, ...); for Triton the kernel path
(sum: masked loads + multiply + sum over K; dot: tl.dot tiles).
pct_roofline is filled when --meta names bench_gpu's meta file (its copy
bandwidth and FLOP peaks); else empty and report.py computes it.
ms is `n/a` where the peer cannot express the layout without a copy, `error`
where it raised, `wrong` where its result failed the check (exit code 1).

Method: random data made on the device; buffer sets rotated until the working
set is >= 256 MiB (> 4x the L2 of an H100) so no run finds its inputs in L2;
warm-up (compilation) first; median of >= 20 timed runs. PyTorch, CuPy and
Triton are timed per call with CUDA events. JAX exposes no events: blocks of
back-to-back calls over the rotated sets are timed with the host clock up to
block_until_ready, per call = block / calls (a block lasts >= 1 ms, so the
final synchronisation costs little), median of >= 20 blocks. Every result is
checked on sampled batch entries against numpy float64:
||out - ref|| / ||ref|| <= 1e-5 (f32), 1e-11 (f64), 1e-2 (jax f32 default
precision, which may use TF32).
"""
import argparse
import csv
import math
import os
import sys
import time

import numpy as np

FIELDS = ["name", "dtype", "batch", "m", "n", "k", "layout", "strategy", "ms", "gbps",
          "gflops", "pct_roofline", "fusion"]
WS_FLOOR = 256 << 20
MAX_SETS = 4096  # only `tiny` reaches it (80 MiB of sets; it is launch-bound)
MIN_RUNS = 20
MAX_RUNS = 200
TARGET_MS = 20.0
TOL = {"f32": 1e-5, "f64": 1e-11, "tf32": 1e-2}
ESIZE = {"f32": 4, "f64": 8}


# ---- rows ---------------------------------------------------------------------

def load_suite(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(line for line in f if line.strip() and not line.startswith("#")):
            if r["dtype"] not in ESIZE:  # f16, bf16: no GPU kernels or peers here yet (issue 23)
                continue
            rows.append({"name": r["name"], "dtype": r["dtype"], "batch": int(r["batch"]),
                         "m": int(r["m"]), "n": int(r["n"]), "k": int(r["k"]),
                         "layout": r["layout"].strip()})
    return rows


def sweep_rows(ks=range(5, 51)):
    return [{"name": "sweep_k%d" % k, "dtype": dt, "batch": 1000000, "m": 3, "n": 1, "k": k,
             "layout": "rowmajor"} for dt in ("f32", "f64") for k in ks]


def parse_ks(text):
    """'5,10,31..33' -> [5, 10, 31, 32, 33]"""
    ks = []
    for part in text.split(","):
        lo, _, hi = part.partition("..")
        ks += range(int(lo), int(hi or lo) + 1)
    return ks


def min_bytes(r):
    """bytes a row must move: A, B (and bias) read once, C written once."""
    b, m, n, k = r["batch"], r["m"], r["n"], r["k"]
    nb_b = 1 if r["layout"] == "shared_b_bias" else b
    bias = n if r["layout"] == "shared_b_bias" else 0
    return ESIZE[r["dtype"]] * (b * m * k + nb_b * k * n + bias + b * m * n)


def flops(r):
    return 2.0 * r["batch"] * r["m"] * r["n"] * r["k"]


def read_meta(path):
    meta = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    key, val = line.rstrip("\n").split("=", 1)
                    meta[key] = val
    return meta


def roofline_ms(r, meta):
    try:
        bw = float(meta["copy_gbs"]) * 1e9
        peak = float(meta["peak_%s_tflops" % r["dtype"]]) * 1e12
    except (KeyError, ValueError):
        return None
    return 1e3 * max(min_bytes(r) / bw, flops(r) / peak)


# ---- shapes of each layout -------------------------------------------------------

def storage_shapes(r):
    """(A shape, B shape, C shape, bias shape or None) as stored in memory."""
    b, m, n, k, lay = r["batch"], r["m"], r["n"], r["k"], r["layout"]
    if lay == "rowmajor":
        return (b, m, k), (b, k, n), (b, m, n), None
    if lay == "shared_b_bias":
        return (b, m, k), (k, n), (b, m, n), (n,)
    if lay == "batch_inner":
        return (m, k, b), (k, n, b), (m, n, b), None
    if lay == "col_a":
        return (b, k, m), (b, k, n), (b, m, n), None
    raise ValueError("unknown layout " + lay)


def set_bytes(r):
    sa, sb, sc, sbias = storage_shapes(r)
    n = math.prod(sa) + math.prod(sb) + math.prod(sc) + (math.prod(sbias) if sbias else 0)
    return n * ESIZE[r["dtype"]]


def nsets_for(r, floor=None):
    ws = max(1, set_bytes(r))
    return max(1, min(MAX_SETS, -(-(WS_FLOOR if floor is None else floor) // ws)))


def sample_entries(r, want=64):
    """Batch entries checked: 0, last, spread between; fewer for large m*n*k."""
    cost = r["m"] * r["n"] * r["k"] + r["m"] * r["k"] + r["k"] * r["n"] + 1
    s = max(2, min(want, int(2e8 // cost)))  # numpy's float64 matmul: ~0.1 s
    s = min(s, r["batch"])
    if s <= 1:
        return np.zeros(1, dtype=np.int64)
    return np.unique(np.round(np.linspace(0, r["batch"] - 1, s)).astype(np.int64))


def entries_np(r, a, b, bias, idx):
    """Logical A[idx] (s,m,k), B[idx] (s,k,n) and bias from host copies of the
    sampled storage (batch axis first for all but batch_inner)."""
    lay = r["layout"]
    if lay == "batch_inner":
        a = np.moveaxis(a, -1, 0)
        b = np.moveaxis(b, -1, 0)
    elif lay == "col_a":
        a = np.swapaxes(a, 1, 2)
    if lay == "shared_b_bias":
        b = np.broadcast_to(b, (len(idx),) + b.shape)
    return a.astype(np.float64), b.astype(np.float64), bias


def check(r, got, a, b, bias, tol):
    """||got - ref|| / ||ref|| over the sampled entries, and whether it passes."""
    ref = np.matmul(a, b)
    if bias is not None:
        ref = ref + bias.astype(np.float64)
    got = np.asarray(got, dtype=np.float64)
    if got.shape != ref.shape or not np.all(np.isfinite(got)):
        return float("inf"), False
    den = np.linalg.norm(ref)
    err = np.linalg.norm(got - ref) / (den if den > 0 else 1.0)
    return err, err <= tol


# ---- timing --------------------------------------------------------------------

def median(v):
    v = sorted(v)
    h = len(v) // 2
    return v[h] if len(v) % 2 else 0.5 * (v[h - 1] + v[h])


def runs_for(est_ms):
    if est_ms <= 0:
        return MAX_RUNS
    return int(max(MIN_RUNS, min(MAX_RUNS, TARGET_MS / est_ms)))


def time_events(event_cls, sync, call, nsets):
    """Median ms per call, each call between two CUDA events, sets rotated.
    Returns (ms, output of the first timed call, which used set 0)."""
    for w in range(3):
        call((nsets - 1 - w) % nsets)
    sync()
    e0, e1 = event_cls(), event_cls()
    e0.record()
    call(nsets - 1)
    e1.record()
    e1.synchronize()
    runs = runs_for(elapsed(e0, e1))
    evs = [(event_cls(), event_cls()) for _ in range(runs)]
    first = None
    for i, (s, e) in enumerate(evs):
        s.record()
        out = call(i % nsets)
        e.record()
        if i == 0:
            first = out
    sync()
    return median([elapsed(s, e) for s, e in evs]), first


def elapsed(s, e):
    if hasattr(s, "elapsed_time"):  # torch
        return s.elapsed_time(e)
    import cupy
    return cupy.cuda.get_elapsed_time(s, e)


def time_host_blocks(call, block_ready, nsets):
    """JAX: median over >= 20 blocks of back-to-back calls, host clock."""
    for w in range(3):
        block_ready(call((nsets - 1 - w) % nsets))
    t0 = time.perf_counter()
    block_ready(call(nsets - 1))
    est = (time.perf_counter() - t0) * 1e3
    inner = int(max(1, min(100, math.ceil(1.0 / max(est, 1e-3)))))
    blocks = runs_for(est * inner)
    first = call(0)
    block_ready(first)
    per = []
    j = 0
    for _ in range(blocks):
        t0 = time.perf_counter()
        out = None
        for _ in range(inner):
            out = call(j % nsets)
            j += 1
        block_ready(out)
        per.append((time.perf_counter() - t0) * 1e3 / inner)
    return median(per), first


# ---- the frameworks --------------------------------------------------------------
# Each gives: rand(shape, dtype, seed), host(x), take(x, idx, axis), sync(), and
# variants(r) -> [(strategy, tol key, fn(set index) -> out, fusion)] after setup.


class Torch:
    name = "torch"

    def __init__(self):
        import torch
        try:  # the newer switch; the older ones below still hold where it is absent
            torch.backends.cuda.matmul.fp32_precision = "ieee"
        except (AttributeError, RuntimeError):
            pass
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        self.t = torch
        self.dev = torch.device("cuda")

    def dt(self, d):
        return self.t.float32 if d == "f32" else self.t.float64

    def rand(self, shape, d, seed):
        g = self.t.Generator(device=self.dev)
        g.manual_seed(seed)
        x = self.t.empty(shape, dtype=self.dt(d), device=self.dev)
        return x.uniform_(-1.0, 1.0, generator=g)

    def host(self, x):
        return x.cpu().numpy()

    def take(self, x, idx, axis):
        return self.host(self.t.index_select(x, axis, self.t.as_tensor(idx, device=self.dev)))

    def sync(self):
        self.t.cuda.synchronize()

    def time(self, call, nsets):
        return time_events(lambda: self.t.cuda.Event(enable_timing=True), self.sync, call, nsets)

    def variants(self, r, sets):
        t, lay = self.t, r["layout"]
        if lay == "rowmajor":
            f = lambda s: t.matmul(sets[s][0], sets[s][1])
        elif lay == "shared_b_bias":  # what a user writes for x @ w + b: F.linear takes w as (n, k)
            f = lambda s: t.nn.functional.linear(sets[s][0], sets[s][1].t(), sets[s][2])
        elif lay == "batch_inner":
            f = lambda s: t.einsum("ikb,kjb->ijb", sets[s][0], sets[s][1])
        else:  # col_a: a transposed view, which cuBLAS takes without a copy
            f = lambda s: t.matmul(sets[s][0].transpose(1, 2), sets[s][1])
        return [("torch", r["dtype"], f, "")]


class Cupy:
    name = "cupy"

    def __init__(self):
        os.environ.setdefault("CUPY_TF32", "0")
        import cupy
        self.cp = cupy

    def rand(self, shape, d, seed):
        rs = self.cp.random.RandomState(seed)
        return rs.uniform(-1.0, 1.0, size=shape, dtype=np.float32 if d == "f32" else np.float64)

    def host(self, x):
        return self.cp.asnumpy(x)

    def take(self, x, idx, axis):
        return self.host(self.cp.take(x, self.cp.asarray(idx), axis=axis))

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def time(self, call, nsets):
        return time_events(self.cp.cuda.Event, self.sync, call, nsets)

    def variants(self, r, sets):
        cp, lay = self.cp, r["layout"]
        if lay == "rowmajor":
            f = lambda s: cp.matmul(sets[s][0], sets[s][1])
        elif lay == "shared_b_bias":
            f = lambda s: cp.matmul(sets[s][0], sets[s][1]) + sets[s][2]
        elif lay == "batch_inner":
            f = lambda s: cp.einsum("ikb,kjb->ijb", sets[s][0], sets[s][1])
        else:
            f = lambda s: cp.matmul(sets[s][0].transpose(0, 2, 1), sets[s][1])
        return [("cupy", r["dtype"], f, "")]


class Jax:
    name = "jax"

    def __init__(self):
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        self.x64 = jnp.zeros(1, dtype=jnp.float64).dtype == np.float64

    def rand(self, shape, d, seed):
        if d == "f64" and not self.x64:
            raise RuntimeError("JAX float64 unavailable (jax_enable_x64 did not take)")
        key = (self.jax.random.key if hasattr(self.jax.random, "key")
               else self.jax.random.PRNGKey)(seed)
        return self.jax.random.uniform(key, shape, dtype=self.jnp.float32 if d == "f32"
                                       else self.jnp.float64, minval=-1.0, maxval=1.0)

    def host(self, x):
        return np.asarray(x)

    def take(self, x, idx, axis):
        return np.asarray(self.jnp.take(x, self.jnp.asarray(idx), axis=axis))

    def sync(self):
        pass

    def time(self, call, nsets):
        return time_host_blocks(call, lambda o: o.block_until_ready(), nsets)

    def fn(self, lay, prec):
        jnp = self.jnp
        if lay == "rowmajor":
            return lambda a, b: jnp.matmul(a, b, precision=prec)
        if lay == "shared_b_bias":
            return lambda a, b, bias: jnp.matmul(a, b, precision=prec) + bias
        if lay == "batch_inner":
            return lambda a, b: jnp.einsum("ikb,kjb->ijb", a, b, precision=prec)
        return lambda a, b: jnp.matmul(jnp.swapaxes(a, 1, 2), b, precision=prec)

    def variants(self, r, sets):
        out = []
        precs = [("jax", None, "tf32" if r["dtype"] == "f32" else "f64")]
        if r["dtype"] == "f32":
            precs.append(("jax_highest", self.jax.lax.Precision.HIGHEST, "f32"))
        for strat, prec, tol in precs:
            # compiled once ahead of time; the same executable is timed and
            # its HLO gives the fusion kinds
            comp = self.jax.jit(self.fn(r["layout"], prec)).lower(*sets[0]).compile()
            out.append((strat, tol, (lambda c: lambda s: c(*sets[s]))(comp),
                        fusion_kinds(comp.as_text())))
        return out


def fusion_kinds(hlo):
    """Distinct fusion kinds and library calls in compiled HLO text."""
    import re
    kinds = set()
    for line in hlo.splitlines():
        if " fusion(" in line:
            m = re.search(r"kind=(k\w+)", line)
            if m:
                kind = m.group(1)
                if kind == "kCustom":
                    c = re.search(r'"kind":"(\w+)"', line)
                    kind = c.group(1).lstrip("_") if c else kind
                kinds.add(kind)
        if "custom-call(" in line:
            m = re.search(r'custom_call_target="([^"]+)"', line)
            if m:
                kinds.add(m.group(1).lstrip("_"))
        elif re.search(r"= \S+ (dot|convolution)\(", line):
            kinds.add("unfused_" + re.search(r"= \S+ (dot|convolution)\(", line).group(1))
    return "+".join(sorted(kinds)).replace(",", ";") or "none"


class Triton(Torch):
    name = "triton"

    def variants(self, r, sets):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import peers_triton
        lay = r["layout"]
        outs = []
        for s in range(len(sets)):
            a, b = sets[s][0], sets[s][1]
            if lay == "batch_inner":
                a, b = a.permute(2, 0, 1), b.permute(2, 0, 1)
            elif lay == "col_a":
                a = a.transpose(1, 2)
            elif lay == "shared_b_bias":
                b = b.expand(r["batch"], r["k"], r["n"])  # batch stride 0, no copy
            outs.append((a, b, sets[s][2] if len(sets[s]) > 2 else None))
        cshape = storage_shapes(r)[2]
        # NaN: an element the kernel leaves unwritten fails the check
        cs = [self.t.full(cshape, float("nan"), dtype=self.dt(r["dtype"]), device=self.dev)
              for _ in range(len(sets))]
        cview = [c.permute(2, 0, 1) if lay == "batch_inner" else c for c in cs]
        path = [peers_triton.path_for(r["m"], r["n"], r["k"])]
        note = "triton_" + path[0]

        def f(s):
            a, b, bias = outs[s]
            peers_triton.bmm(a, b, cview[s], bias, path[0])
            return cs[s]
        if path[0] == "dot":  # tl.dot may not compile for a dtype here: say so, use sum
            try:
                f(0)
                self.sync()
            except Exception as e:
                why = str(e).splitlines()[0][:100] if str(e) else type(e).__name__
                sys.stderr.write("triton: dot kernel failed (%s): sum kernel instead\n" % why)
                path[0], note = "sum", "triton_sum(dot_failed)"
        return [("triton", r["dtype"], f, note)]


class Numpy:
    """The CPU, through numpy: not a peer, a way to test this script without a
    GPU (python3 bench/peers.py --framework numpy --max-batch 1000 ...)."""
    name = "numpy"

    def rand(self, shape, d, seed):
        x = np.random.default_rng(seed).uniform(-1.0, 1.0, shape)
        return x.astype(np.float32 if d == "f32" else np.float64)

    def host(self, x):
        return np.asarray(x)

    def take(self, x, idx, axis):
        return np.take(x, idx, axis=axis)

    def sync(self):
        pass

    def time(self, call, nsets):
        return time_host_blocks(call, lambda o: None, nsets)

    def variants(self, r, sets):
        lay = r["layout"]
        if lay == "rowmajor":
            f = lambda s: np.matmul(sets[s][0], sets[s][1])
        elif lay == "shared_b_bias":
            f = lambda s: np.matmul(sets[s][0], sets[s][1]) + sets[s][2]
        elif lay == "batch_inner":
            f = lambda s: np.einsum("ikb,kjb->ijb", sets[s][0], sets[s][1])
        else:
            f = lambda s: np.matmul(np.swapaxes(sets[s][0], 1, 2), sets[s][1])
        return [("numpy", r["dtype"], f, "cpu")]


FRAMEWORKS = {"torch": Torch, "cupy": Cupy, "jax": Jax, "triton": Triton, "numpy": Numpy}


# ---- one row ------------------------------------------------------------------------

def run_row(fw, r, meta, seed, ws_floor):
    sa, sb, sc, sbias = storage_shapes(r)
    ns = nsets_for(r, ws_floor)
    # each set drawn apart (slicing one big array would copy in JAX)
    sets = [tuple(fw.rand(shape, r["dtype"], seed + 16 * s + j)
                  for j, shape in enumerate((sa, sb, sbias) if sbias else (sa, sb)))
            for s in range(ns)]
    fw.sync()
    idx = sample_entries(r)
    baxis = 2 if r["layout"] == "batch_inner" else 0
    a = fw.take(sets[0][0], idx, baxis)
    b = fw.host(sets[0][1]) if r["layout"] == "shared_b_bias" else fw.take(sets[0][1], idx, baxis)
    bias = fw.host(sets[0][2]) if sbias else None
    a, b, bias = entries_np(r, a, b, bias, idx)
    results, bad = [], 0
    for strat, tol, call, fusion in fw.variants(r, sets):
        ms, first = fw.time(call, ns)
        got = fw.take(first, idx, baxis)
        if r["layout"] == "batch_inner":
            got = np.moveaxis(got, -1, 0)
        err, ok = check(r, got, a, b, bias, TOL[tol])
        results.append((strat, ms if ok else "wrong", fusion, err))
        bad += not ok
    del sets
    return results, bad


def fmt_row(r, strat, ms, fusion, meta):
    base = [r["name"], r["dtype"], r["batch"], r["m"], r["n"], r["k"], r["layout"], strat]
    if isinstance(ms, str):
        return base + [ms, "", "", "", fusion]
    roof = roofline_ms(r, meta)
    pct = "%.2f" % (100.0 * roof / ms) if roof else ""
    return base + ["%.6f" % ms, "%.2f" % (min_bytes(r) / (ms * 1e-3) / 1e9),
                   "%.2f" % (flops(r) / (ms * 1e-3) / 1e9), pct, fusion]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--framework", required=True, choices=sorted(FRAMEWORKS))
    ap.add_argument("--suite", default="bench/suite.csv")
    ap.add_argument("--sweep", action="store_true", help="also the seed sweep (K = 5..50)")
    ap.add_argument("--sweep-ks", help="the sweep's K values, e.g. 5,10,31..33 (default 5..50; "
                    "JAX and Triton compile per row: bench/gpu_check.sh splits them)")
    ap.add_argument("--no-suite", action="store_true")
    ap.add_argument("--only", help="only rows of these names (comma-separated)")
    ap.add_argument("--meta", help="bench_gpu's --meta file (copy bandwidth, FLOP peaks)")
    ap.add_argument("--dry-run", action="store_true", help="list the rows and exit (no GPU)")
    ap.add_argument("--max-batch", type=int, help="cap every row's batch (testing only)")
    ap.add_argument("--ws-floor", type=int, default=WS_FLOOR,
                    help="rotate buffer sets up to this many bytes (default 256 MiB)")
    args = ap.parse_args()
    rows = [] if args.no_suite else load_suite(args.suite)
    if args.sweep or args.sweep_ks:
        rows += sweep_rows(parse_ks(args.sweep_ks)) if args.sweep_ks else sweep_rows()
    if args.only:
        rows = [r for r in rows if r["name"] in args.only.split(",")]
    if args.max_batch:
        for r in rows:
            r["batch"] = min(r["batch"], args.max_batch)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(FIELDS)
    if args.dry_run:
        for r in rows:
            sys.stderr.write("%-22s %s sets=%d samples=%d bytes=%d\n" % (
                r["name"], r["dtype"], nsets_for(r), len(sample_entries(r)), min_bytes(r)))
        return 0
    meta = read_meta(args.meta)
    fw = FRAMEWORKS[args.framework]()
    fails = 0
    for i, r in enumerate(rows):
        t0 = time.time()
        try:
            res, bad = run_row(fw, r, meta, 1000 + 7 * i, args.ws_floor)
            fails += bad
        except Exception as e:  # one row's failure must not hide the others
            msg = ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:120].replace(",", ";")
            sys.stderr.write("ERROR %s %s %s: %s\n" % (args.framework, r["name"], r["dtype"], msg))
            res = [(args.framework, "error", msg, float("nan"))]
            fails += 1
        for strat, ms, fusion, err in res:
            out.writerow(fmt_row(r, strat, ms, fusion, meta))
            sys.stderr.write("%-22s %-3s %-13s %-12s %12s  err %.2g  %s  (%.1fs)\n" % (
                r["name"], r["dtype"], r["layout"], strat,
                ms if isinstance(ms, str) else "%.4f ms" % ms, err, fusion, time.time() - t0))
        sys.stdout.flush()
    if fails:
        sys.stderr.write("peers %s: %d rows failed\n" % (args.framework, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
