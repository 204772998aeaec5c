#!/usr/bin/env python3
"""bench/testdata/make_synthetic.py OUTDIR - SYNTHETIC result CSVs for testing
bench/report.py without a GPU. Every number is invented from a simple model
(an H100-like roofline, made-up efficiencies); none is a measurement.

Writes OUTDIR/bench_gpu.csv, bench_sweep.csv, peers_{jax,cupy,torch,triton}.csv,
bench_meta.txt and bench_gpu.log, with a few planted misses (a row whose AUTO
result is missing, a peer row `wrong`, a sweep dip) so the red marks show.
"""
import csv
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import peers  # noqa: E402  (shapes, bytes, flops: one definition)

BW, PEAK = 3000e9, {"f32": 51e12, "f64": 55e12}
FIELDS = peers.FIELDS


def floor_ms(r):
    return 1e3 * max(peers.min_bytes(r) / BW, peers.flops(r) / PEAK[r["dtype"]])


def row(r, strategy, ms, fusion=None):
    out = [r["name"], r["dtype"], r["batch"], r["m"], r["n"], r["k"], r["layout"], strategy]
    if isinstance(ms, str):
        out += [ms, "", "", ""]
    else:
        out += ["%.6f" % ms, "%.2f" % (peers.min_bytes(r) / ms / 1e6),
                "%.2f" % (peers.flops(r) / ms / 1e6), "%.2f" % (100 * floor_ms(r) / ms)]
    return out + ([fusion] if fusion is not None else [])


def bmm_rows(r, rnd, drop_auto=False):
    f = floor_ms(r)
    small = max(r["m"], r["n"], r["k"]) <= 64
    eff = {"cuda_loop": 0.9 if r["k"] <= 10 else 0.45, "cuda_warp": 0.6,
           "cuda_staged": 0.5 if r["k"] in (32, 40) else 0.95, "cuda_tiled": 0.3 if small else 0.85,
           "cuda_cublas": 0.2 if small else 0.93}
    if r["layout"] == "batch_inner":
        eff = {"cuda_loop": 0.4, "cuda_warp": 0.3, "cuda_tiled": 0.2, "cuda_batch_inner": 0.94}
    if r["layout"] == "col_a":
        eff = {"cuda_loop": 0.7, "cuda_warp": 0.5, "cuda_tiled": 0.3}
    out = []
    best = max(eff.values())
    if not drop_auto:
        out.append(row(r, "auto", f / (best * rnd.uniform(0.97, 1.0))))
    if r["name"] == "tiny":
        out.append(row(r, "auto_back_to_back", 0.0041 if r["dtype"] == "f32" else 0.0056))
    for s, e in eff.items():
        out.append(row(r, s, f / e))
    return out, max(eff, key=eff.get)


def peer_ms(r, p, rnd):
    f = floor_ms(r)
    k = r["k"]
    if p.startswith("jax"):
        e = 0.96 if (k >= 32 or 32 % k == 0) else 0.59  # XLA's kInput/kLoop flip
        fusion = "kInput" if (k >= 32 or 32 % k == 0) else "kLoop"
        if min(r["m"], r["n"], r["k"]) >= 16:
            e, fusion = 0.8, "cublas$gemm"
        return f / e * rnd.uniform(1.0, 1.05), fusion
    e = {"cupy": 0.2, "torch": 0.25, "triton": 0.7}[p]
    if min(r["m"], r["n"], r["k"]) >= 64:
        e = {"cupy": 0.9, "torch": 0.9, "triton": 0.6}[p]
    return f / e * rnd.uniform(1.0, 1.05), ("triton_sum" if p == "triton" else "")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "synthetic")
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(5)
    suite = peers.load_suite(os.path.join(os.path.dirname(HERE), "suite.csv"))
    sweep = peers.sweep_rows()
    log = []
    for fname, rows in (("bench_gpu.csv", suite), ("bench_sweep.csv", sweep)):
        with open(os.path.join(out, fname), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(FIELDS[:-1])
            for r in rows:
                drop = r["name"] == "square256" and r["dtype"] == "f64"  # planted: a FAIL
                rs, best = bmm_rows(r, rnd, drop)
                if r["name"] == "sweep_k32" and r["dtype"] == "f32":  # planted: a dip
                    rs[0][8] = "%.6f" % (floor_ms(r) / 0.8)
                    rs[0][11] = "80.00"
                w.writerows(rs)
                log.append("%-22s %-3s %8d %4d %4d %4d %-13s auto>%-25s 0.1 1 1 95.0%% 20  0.1" % (
                    r["name"], r["dtype"], r["batch"], r["m"], r["n"], r["k"], r["layout"], best))
    with open(os.path.join(out, "bench_gpu.log"), "w") as f:
        f.write("SYNTHETIC\n" + "\n".join(log) + "\n")
    for p in ("jax", "cupy", "torch", "triton"):
        with open(os.path.join(out, "peers_%s.csv" % p), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(FIELDS)
            for r in suite + sweep:
                names = [p, "jax_highest"] if p == "jax" and r["dtype"] == "f32" else [p]
                for s in names:
                    ms, fusion = peer_ms(r, s, rnd)
                    if p == "cupy" and r["name"] == "square8" and r["dtype"] == "f32":
                        w.writerow(row(r, s, "wrong", ""))  # planted: a failed peer check
                    else:
                        w.writerow(row(r, s, ms, fusion))
    with open(os.path.join(out, "bench_meta.txt"), "w") as f:
        f.write("device=SYNTHETIC (not a measurement)\ncc=90\nsms=132\nl2_bytes=52428800\n"
                "date=synthetic\ncopy_gbs=%.2f\npeak_f32_tflops=%.3f\npeak_f32_source=synthetic\n"
                "peak_f64_tflops=%.3f\npeak_f64_source=synthetic\ncublas=1\n" % (
                    BW / 1e9, PEAK["f32"] / 1e12, PEAK["f64"] / 1e12))
    print(out)


if __name__ == "__main__":
    main()
