#!/usr/bin/env python3
"""bench/report.py - one GPU run's CSVs -> bench/RESULTS_generated.md + sweep plots.

    .venv/bin/python bench/report.py [--results bench/results] [--out bench/RESULTS_generated.md]
                                     [--plots DIR] [--suite bench/suite.csv]

Reads every CSV in --results with bench_gpu's columns (bench_gpu.csv, bench_sweep.csv,
peers_*.csv; peers add a `fusion` column; not table_*.csv, AUTO under other tables),
bench_meta.txt (bench_gpu --meta: device, copy bandwidth, FLOP peaks), run_info.txt and
bench_gpu.log (AUTO's choice per row) when present. Writes per suite row: bmm AUTO time, %
of roofline, the best peer and bmm / best peer; geometric means; the issue's targets, each
met or missed (misses in red); the seed sweep as tables and PNG plots (time and % of
roofline vs K, f32 and f64: bmm AUTO, each bmm strategy, JAX, CuPy, PyTorch, Triton). Runs
anywhere (matplotlib, no GPU).

"Best peer" counts full-precision results only: JAX f32 at default precision may
use TF32 in dots (about 3 decimal digits), so it is shown beside, not ranked.

A dtype without a FLOP peak in bench_meta.txt (f16, bf16, c64, c128 from a
bench_gpu built without cuBLAS, or from one before 2026-11-26, which borrowed
the f32/f64 peak and printed square1024 f16 at 1194%) gets the copy floor alone:
its % is "of copy", a lower bound of its % of roofline, whatever the CSV says,
and it is not judged against the roofline target.
"""
import argparse
import csv
import glob
import math
import os
import re
import sys

RED = '<span style="color:red">%s</span>'
PEER_ORDER = ["jax", "jax_highest", "cupy", "torch", "triton"]
ESIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16}
DTYPES = ["f32", "f64", "f16", "bf16", "c64", "c128"]  # the order of the report's lines
# used only when bench_meta.txt is missing (said in the report)
DEFAULT_META = {"copy_gbs": "3000", "peak_f32_tflops": "67", "peak_f64_tflops": "34"}


def is_bmm(strategy):
    return (strategy in ("auto", "auto_back_to_back") or strategy.startswith("cuda_")
            or strategy.startswith("cpu_"))


def full_precision(strategy, dtype):
    return not (strategy == "jax" and dtype == "f32")


def num(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def load_csvs(folder):
    rows, files = [], []
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        if os.path.basename(path).startswith("table_"):
            continue  # AUTO under another table (gpu_check step tables): not this run's AUTO
        with open(path) as f:
            head = f.readline()
            if not head.startswith("name,dtype,batch,m,n,k,layout,strategy,ms"):
                continue
            f.seek(0)
            n = 0
            for r in csv.DictReader(f):
                if not r.get("name") or r["name"] == "name" or r.get("ms") is None:
                    continue  # a header again, or a line cut short by a timeout
                try:
                    for key in ("batch", "m", "n", "k"):
                        r[key] = int(r[key])
                except (TypeError, ValueError):
                    continue
                r["file"] = os.path.basename(path)
                rows.append(r)
                n += 1
            files.append((os.path.basename(path), n))
    return rows, files


def read_kv(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    out[k.strip()] = v.strip()
    return out


def auto_choices(path):
    """AUTO's strategy per (name, dtype) from bench_gpu's stderr table."""
    out = {}
    if os.path.exists(path):
        pat = re.compile(r"^(\S+)\s+(%s)\s+.*\sauto>(\S+)\s" % "|".join(DTYPES))
        with open(path, errors="replace") as f:
            for line in f:
                m = pat.match(line)
                if m:
                    out[(m.group(1), m.group(2))] = m.group(3)
    return out


def min_bytes(r):
    b, m, n, k = r["batch"], r["m"], r["n"], r["k"]
    shared = r["layout"] == "shared_b_bias"
    return ESIZE[r["dtype"]] * (b * m * k + (1 if shared else b) * k * n + (n if shared else 0)
                                + b * m * n)


def flop_peak(meta, dtype):
    """FLOP/s of the dtype's own measured peak; None where bench_meta.txt has
    none (never another dtype's: f16 on tensor cores runs 10x f32's)."""
    v = num(meta.get("peak_%s_tflops" % dtype))
    return v * 1e12 if v else None


def floors_ms(r, meta):
    """(bytes floor, FLOP floor or None without the dtype's FLOP peak) in ms;
    real FLOPs as bmmx_flops counts them (a complex multiply-add is 4)."""
    bw = float(meta["copy_gbs"]) * 1e9
    peak = flop_peak(meta, r["dtype"])
    flops = (8.0 if r["dtype"] in ("c64", "c128") else 2.0) * r["batch"] * r["m"] * r["n"] * r["k"]
    return 1e3 * min_bytes(r) / bw, 1e3 * flops / peak if peak else None


def roofline_ms(r, meta):
    return max(f for f in floors_ms(r, meta) if f is not None)


def pct_of(r, meta):
    ms = num(r["ms"])
    if flop_peak(meta, r["dtype"]) is None:  # the CSV's figure may rest on a borrowed peak
        return 100.0 * floors_ms(r, meta)[0] / ms if ms else None
    p = num(r.get("pct_roofline"))
    if p is None and ms:
        p = 100.0 * roofline_ms(r, meta) / ms
    return p


def geomean(v):
    v = [x for x in v if x and x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def fmt_ms(ms):
    if ms is None:
        return "—"
    return "%.3g" % ms if ms < 100 else "%.1f" % ms


def mark(text, ok):
    return text if ok else RED % text


def suite_order(path, rows):
    order = []
    measured = {r["dtype"] for r in rows}  # a dtype the run did not cover (f16 on the GPU) is left out
    if os.path.exists(path):
        with open(path) as f:
            for r in csv.DictReader(line for line in f if line.strip()):
                if r["dtype"] in measured:
                    order.append((r["name"], r["dtype"]))
    for r in rows:
        key = (r["name"], r["dtype"])
        if not r["name"].startswith("sweep_") and key not in order:
            order.append(key)
    return order


class Index:
    def __init__(self, rows):
        self.by = {}
        for r in rows:
            self.by.setdefault((r["name"], r["dtype"]), {})[r["strategy"]] = r

    def get(self, name, dtype):
        return self.by.get((name, dtype), {})


def ms_of(entry, strategy):
    r = entry.get(strategy)
    return num(r["ms"]) if r else None


def best_peer(entry, dtype):
    best = None
    for s, r in entry.items():
        if is_bmm(s) or s == "numpy" or not full_precision(s, dtype):
            continue
        ms = num(r["ms"])
        if ms and (best is None or ms < best[1]):
            best = (s, ms)
    return best


def suite_section(idx, order, meta, choices, targets):
    out = ["## The suite", "",
           "Times in ms (median of >= 20 runs, CUDA events; JAX host clock, see peers.py). "
           "% roofline = max(bytes / bandwidth, flops / FLOP peak) / time; bandwidth: the GPU's "
           "copy figure, on the CPU the one measured for the row's read/write mix "
           "(bench/cpu_roofline.h; NumPy/JAX rows still against copy). "
           "Best peer: fastest full-precision peer (JAX f32 default precision, which may use "
           "TF32, is the `jax tf32` column, not ranked). Red: a target missed.", "",
           "| row | dtype | batch | m×n×k | layout | bmm AUTO | AUTO strategy | % roofline | "
           "best bmm strategy | best peer | peer ms | bmm / best peer | jax tf32 | "
           "jax fusion | cupy | torch | triton |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    ratios = {}
    peer_ratios = {}
    no_peak = {}  # dtype: rows shown against the copy floor alone
    for name, dt in order:
        e = idx.get(name, dt)
        any_row = next(iter(e.values()), None)
        if any_row is None:
            out.append("| %s | %s | %s |" % (name, dt, RED % "no results"))
            targets.append(("measured and checked", "%s %s" % (name, dt), False, "no results"))
            continue
        auto = e.get("auto")
        auto_ms = num(auto["ms"]) if auto else None
        fb, ff = floors_ms(any_row, meta)
        mem_bound = ff is not None and fb >= ff  # unknown without a FLOP peak: not judged
        if ff is None:
            no_peak[dt] = no_peak.get(dt, 0) + 1
        pct = pct_of(auto, meta) if auto_ms else None
        strat = [(s, num(r["ms"])) for s, r in e.items()
                 if s.startswith("cuda_") and num(r["ms"])]
        best_s = min(strat, key=lambda x: x[1]) if strat else None
        bp = best_peer(e, dt)
        ratio = auto_ms / bp[1] if auto_ms and bp else None
        if ratio:
            ratios.setdefault(dt, []).append(ratio)
        for p in PEER_ORDER:
            pm = ms_of(e, p)
            if auto_ms and pm and full_precision(p, dt):
                peer_ratios.setdefault(p, []).append(auto_ms / pm)
        jax = e.get("jax")
        cells = [name, dt, str(any_row["batch"]),
                 "%d×%d×%d" % (any_row["m"], any_row["n"], any_row["k"]), any_row["layout"],
                 fmt_ms(auto_ms) if auto_ms else RED % "missing (FAIL?)",
                 choices.get((name, dt), ""),
                 "—" if pct is None else
                 "%.1f%% of copy (no FLOP peak measured for %s)" % (pct, dt) if ff is None else
                 mark("%.1f%%" % pct, not mem_bound or pct >= 90.0)
                 + ("" if mem_bound else " (FLOP-bound)"),
                 "%s %s" % (best_s[0], fmt_ms(best_s[1])) if best_s else "—",
                 bp[0] if bp else "n/a", fmt_ms(bp[1]) if bp else "n/a",
                 "—" if ratio is None else mark("%.3f" % ratio, ratio <= 1.0),
                 fmt_ms(ms_of(e, "jax")) if dt == "f32" and jax else "",
                 (jax or {}).get("fusion", "") or "",
                 peer_cell(e, "cupy"), peer_cell(e, "torch"), peer_cell(e, "triton")]
        out.append("| " + " | ".join(cells) + " |")
        if auto_ms is None:
            targets.append(("measured and checked", "%s %s" % (name, dt), False,
                            "no AUTO result (failed check or not run: see bench_gpu.log)"))
        elif mem_bound:
            targets.append((">= 90% of roofline at every memory-bound suite point",
                            "%s %s" % (name, dt), pct >= 90.0, "%.1f%%" % pct))
        if ratio is not None:
            targets.append(("bmm / best peer <= 1.0 at every point", "%s %s" % (name, dt),
                            ratio <= 1.0, "%.3f (vs %s)" % (ratio, bp[0])))
        if not mem_bound and auto_ms:
            cub = ms_of(e, "cuda_cublas")
            if cub:
                targets.append((">= 90% of cuBLAS on FLOP-bound rows" if ff is not None else
                                ">= 90% of cuBLAS where no FLOP peak tells the bound",
                                "%s %s" % (name, dt), cub / auto_ms >= 0.9,
                                "%.0f%% of cuda_cublas" % (100 * cub / auto_ms)))
            elif ff is not None:  # without a FLOP peak it may be memory-bound: not a miss
                targets.append((">= 90% of cuBLAS on FLOP-bound rows", "%s %s" % (name, dt),
                                False, "no cuda_cublas row (an AUTO-only run, or built "
                                "without BMM_WITH_CUBLAS)"))
    allr = [x for v in ratios.values() for x in v]
    g = geomean(allr)
    out += ["", "Geometric mean of bmm AUTO / best peer: " +
            ("—" if g is None else mark("**%.3f**" % g, g <= 0.7)) +
            " over %d rows (%s)." % (len(allr), ", ".join(
                "%s %s" % (dt, "%.3f" % geomean(ratios[dt]) if ratios.get(dt) else "—")
                for dt in DTYPES if dt in ("f32", "f64") or dt in ratios))]
    if g is not None:
        targets.append(("geometric mean of bmm / best peer <= 0.7", "all rows", g <= 0.7,
                        "%.3f" % g))
    if peer_ratios:
        out.append("Per peer, geometric mean of bmm AUTO / peer: " + ", ".join(
            "%s %.3f (%d rows)" % (p, geomean(v), len(v)) for p, v in sorted(peer_ratios.items())))
    if no_peak:
        out.append("Not judged against the roofline: %s: bench_meta.txt has no FLOP peak for "
                   "these dtypes, so their %% is of the copy floor alone (a lower bound; a "
                   "FLOP-bound row shows low). bench_gpu built with cuBLAS measures them." %
                   ", ".join("%s (%d rows)" % (dt, n) for dt, n in no_peak.items()))
    return out


def peer_cell(e, p):
    r = e.get(p)
    if r is None:
        return ""
    ms = num(r["ms"])
    return fmt_ms(ms) if ms else RED % r["ms"] if r["ms"] in ("wrong", "error") else r["ms"]


def launch_section(idx, order, targets):
    out = []
    for name, dt in order:
        r = idx.get(name, dt).get("auto_back_to_back")
        if r and num(r["ms"]):
            us = num(r["ms"]) * 1e3
            out.append("- `%s` %s: %s per call (1000 back-to-back AUTO calls, host clock)" % (
                name, dt, mark("%.2f us" % us, us <= 5.0)))
            targets.append(("launch cost <= 5 us (back-to-back tiny calls)", "%s %s" % (name, dt),
                            us <= 5.0, "%.2f us" % us))
    if not out:
        return []
    return ["## Launch cost", ""] + out


def sweep_data(rows, dtype):
    """{strategy: [(K, ms, pct)]} for the seed sweep rows of a dtype."""
    data = {}
    for r in rows:
        m = re.match(r"sweep_k(\d+)$", r["name"])
        if not m or r["dtype"] != dtype:
            continue
        ms = num(r["ms"])
        if ms:
            data.setdefault(r["strategy"], []).append((int(m.group(1)), ms, r))
    for v in data.values():
        v.sort(key=lambda t: t[:2])  # a row measured twice: both kept, no dict compare
    return data


def largest_drop(points):
    """The sweep's no-cliff figure: the largest fall of % between neighbouring
    K in (K, %) pairs sorted by K, and the K it falls to; (0.0, None) if none."""
    worst = (0.0, None)
    for (_, before), (k, pct) in zip(points, points[1:]):
        if before - pct > worst[0]:
            worst = (before - pct, k)
    return worst


def sweep_section(rows, meta, choices, targets, plot_paths):
    out = []
    for dt in ("f32", "f64"):
        data = sweep_data(rows, dt)
        if not data:
            continue
        out += ["## Seed sweep, %s: batch 10^6 of (3×K)(K×1), K = 5..50" % dt, ""]
        if dt in plot_paths:
            out += ["![seed sweep %s](%s)" % (dt, plot_paths[dt]), ""]
        auto = {k: (ms, pct_of(r, meta)) for k, ms, r in data.get("auto", [])}
        peers = [p for p in PEER_ORDER if p in data]
        strategies = sorted(s for s in data if s.startswith("cuda_"))
        out.append("| K | bmm AUTO ms | AUTO strategy | % roofline | best bmm strategy | " +
                   " | ".join(peers) + " |")
        out.append("|---|---|---|---|---|" + "---|" * len(peers))
        for k in sorted({k for v in data.values() for k, _, _ in v}):
            a = auto.get(k)
            best = min(((s, ms) for s in strategies for kk, ms, _ in data[s] if kk == k),
                       key=lambda x: x[1], default=None)
            pcells = []
            for p in peers:
                pm = next((ms for kk, ms, _ in data[p] if kk == k), None)
                pcells.append(fmt_ms(pm))
            pct = a[1] if a else None
            out.append("| %d | %s | %s | %s | %s | %s |" % (
                k, fmt_ms(a[0]) if a else RED % "missing", choices.get(("sweep_k%d" % k, dt), ""),
                "—" if pct is None else mark("%.1f%%" % pct, pct >= 90.0),
                "%s %s" % (best[0], fmt_ms(best[1])) if best else "—", " | ".join(pcells)))
        pcts = [p for _, p in auto.values() if p is not None]
        worst_drop = largest_drop(sorted((k, p) for k, (_, p) in auto.items() if p is not None))
        if pcts:
            lo = min(pcts)
            targets.append(("sweep: AUTO >= 90% of roofline at every K (issue 4)", dt,
                            lo >= 90.0, "min %.1f%%" % lo))
            targets.append(("sweep: no drop > 5 points between neighbouring K (issue 4)", dt,
                            worst_drop[0] <= 5.0,
                            "largest drop %.1f points (at K=%s)" % worst_drop if worst_drop[1]
                            else "none"))
        out.append("")
    return out


def plot_sweep(rows, meta, folder):
    """PNG per dtype: time and % roofline vs K. Returns {dtype: path}."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("report: matplotlib missing: no plots\n")
        return {}
    paths = {}
    styles = {"jax": ("tab:orange", "--", "JAX (default precision: TF32)"),
              "jax_highest": ("tab:red", "--", "JAX precision=HIGHEST"),
              "cupy": ("tab:green", "--", "CuPy"),
              "torch": ("tab:purple", "--", "PyTorch (TF32 off)"),
              "triton": ("tab:brown", "--", "Triton (user kernel)")}
    for dt in ("f32", "f64"):
        data = sweep_data(rows, dt)
        if not data:
            continue
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 5.5))
        bmm_colors = ["tab:blue", "tab:cyan", "tab:olive", "tab:pink", "navy", "tab:gray"]
        used = []
        order = (["auto"] + sorted(s for s in data if s.startswith("cuda_")) +
                 [p for p in PEER_ORDER if p in data])
        for s in order:
            if s not in data:
                continue
            ks = [k for k, _, _ in data[s]]
            ms = [m for _, m, _ in data[s]]
            pct = [pct_of(r, meta) for _, _, r in data[s]]
            if s == "auto":
                kw = dict(color="black", lw=2.6, marker="o", ms=3.5, label="bmm AUTO", zorder=5)
            elif s.startswith("cuda_"):
                kw = dict(lw=1.2, alpha=0.85, color=bmm_colors[len(used) % len(bmm_colors)],
                          label="bmm " + s.replace("cuda_", ""))
                used.append(s)
            else:
                c, ls, lab = styles.get(s, (None, "--", s))
                if s == "jax" and dt == "f64":
                    lab = "JAX"
                kw = dict(color=c, ls=ls, lw=1.6, marker=".", label=lab)
            ax1.plot(ks, ms, **kw)
            ax2.plot(ks, pct, **kw)
        kall = sorted({k for v in data.values() for k, _, _ in v})
        any_row = next(iter(data.values()))[0][2]
        floor = []
        for k in kall:
            r = dict(any_row, k=k, batch=1000000, m=3, n=1, layout="rowmajor", dtype=dt)
            floor.append(roofline_ms(r, meta))
        ax1.plot(kall, floor, color="gray", ls=":", lw=2, label="roofline (copy bandwidth)")
        ax2.axhline(100, color="gray", ls=":", lw=2)
        ax2.axhline(90, color="red", ls=":", lw=1, label="90% target")
        ax1.set_xlabel("K")
        ax1.set_ylabel("time per call, ms")
        ax1.set_yscale("log")
        ax1.set_title("%s: batch 10^6 of (3×K)·(K×1)" % dt)
        ax2.set_xlabel("K")
        ax2.set_ylabel("% of roofline")
        ax2.set_ylim(0, 110)
        ax2.set_title("%s: share of the memory roofline" % dt)
        for ax in (ax1, ax2):
            ax.grid(True, which="both", alpha=0.3)
        handles, labels = ax2.get_legend_handles_labels()
        h1, l1 = ax1.get_legend_handles_labels()
        handles.append(h1[-1])  # the roofline line
        labels.append(l1[-1])
        fig.suptitle("%s, %s" % (meta.get("device", "device unknown"), meta.get("date", "")))
        fig.tight_layout(rect=(0, 0.12, 1, 1))
        fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=9, frameon=False)
        path = os.path.join(folder, "sweep_%s.png" % dt)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths[dt] = path
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default="bench/results")
    ap.add_argument("--out", default="bench/RESULTS_generated.md")
    ap.add_argument("--plots", help="folder of the PNGs (default: beside --out)")
    ap.add_argument("--suite", default="bench/suite.csv")
    args = ap.parse_args()
    rows, files = load_csvs(args.results)
    if not rows:
        sys.stderr.write("report: no result CSVs in %s\n" % args.results)
        return 1
    meta = read_kv(os.path.join(args.results, "bench_meta.txt"))
    meta_note = ""
    if "copy_gbs" not in meta:
        meta_note = RED % ("bench_meta.txt missing: roofline from assumed H100 figures "
                           "(3000 GB/s, 67/34 TFLOP/s), not measured")
        for k, v in DEFAULT_META.items():
            meta.setdefault(k, v)
    info = read_kv(os.path.join(args.results, "run_info.txt"))
    choices = auto_choices(os.path.join(args.results, "bench_gpu.log"))
    choices.update(auto_choices(os.path.join(args.results, "bench_sweep.log")))
    outdir = os.path.dirname(os.path.abspath(args.out))
    plots = args.plots or outdir
    os.makedirs(plots, exist_ok=True)
    paths = plot_sweep(rows, meta, plots)
    rel = {dt: os.path.relpath(p, outdir) for dt, p in paths.items()}
    targets = []
    order = suite_order(args.suite, rows)
    suite = suite_section(Index(rows), order, meta, choices, targets)
    launch = launch_section(Index(rows), order, targets)
    sweep = sweep_section(rows, meta, choices, targets, rel)
    md = ["# bmm benchmark results (generated by bench/report.py)", "",
          "- device: %s (sm_%s, %s SMs, L2 %s bytes)" % (
              meta.get("device", "?"), meta.get("cc", "?"), meta.get("sms", "?"),
              meta.get("l2_bytes", "?")),
          "- date: %s" % meta.get("date", info.get("date", "?")),
          "- copy bandwidth (roofline bytes floor): %s GB/s, cudaMemcpy D2D, read + written" %
          meta.get("copy_gbs")]
    for dt in DTYPES:
        if dt in ("f32", "f64") or any(r["dtype"] == dt for r in rows):
            md.append("- FLOP peak %s: %s" % (dt, "%s TFLOP/s (%s)" % (
                meta["peak_%s_tflops" % dt], meta.get("peak_%s_source" % dt, "assumed"))
                if flop_peak(meta, dt) else "none measured (%s): its rows against the copy "
                "floor alone" % meta.get("peak_%s_source" % dt, "not in bench_meta.txt")))
    for k in ("command", "git", "host"):
        if k in info:
            md.append("- %s: `%s`" % (k, info[k]))
    md.append("- files: " + ", ".join("%s (%d rows)" % f for f in files))
    if meta_note:
        md.append("- " + meta_note)
    missed = [t for t in targets if not t[2]]
    md += ["", "## Targets (issue 5; sweep targets from issue 4)", "",
           "%d checks, %s." % (len(targets), mark("%d missed" % len(missed), not missed)), "",
           "| target | met | misses |", "|---|---|---|"]
    kinds = []
    for t in targets:
        if t[0] not in kinds:
            kinds.append(t[0])
    for kind in kinds:
        ts = [t for t in targets if t[0] == kind]
        bad = [t for t in ts if not t[2]]
        md.append("| %s | %s | %s |" % (
            kind, mark("%d of %d" % (len(ts) - len(bad), len(ts)), not bad),
            "; ".join(RED % ("%s: %s" % (t[1], t[3])) for t in bad) or "none"))
    md += ["", "<details><summary>every check</summary>", "", "| target | row | met | value |",
           "|---|---|---|---|"]
    for kind, label, ok, val in targets:
        md.append("| %s | %s | %s | %s |" % (kind, label, "yes" if ok else RED % "**no**",
                                             mark(val, ok)))
    md += ["", "</details>"]
    md += [""] + suite + [""] + launch + [""] + sweep
    with open(args.out, "w") as f:
        f.write("\n".join(md).rstrip() + "\n")
    sys.stderr.write("report: %s (%d rows from %d files, %d targets, %d missed), plots: %s\n" % (
        args.out, len(rows), len(files), len(targets), len(missed),
        ", ".join(paths.values()) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
