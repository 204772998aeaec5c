#!/usr/bin/env python3
"""bench/gpu_summary.py DIR - the key figures of one bench/gpu_check.sh run, in
about 40 lines, from the files in DIR (plain python3, no numpy): the last lines
of gpu_check's output, so that they tell the story if the files are lost.

Per suite row (f32 | f64 side by side): AUTO's % of copy bandwidth (bytes moved
over time, over bench_meta.txt's measured device copy), the model's prediction
beside it where model_suite.csv exists (PREDICTED, not measured), and
x = best full-precision peer time / bmm time (> 1: bmm faster; JAX f32 at
default precision may use TF32 and does not count, as in bench/report.py).
Then one line per other dtype (f16, bf16, c64, c128: AUTO's % of copy, and of
the roofline only where bench_meta.txt has that dtype's own FLOP peak), the
sweep's worst K and largest neighbouring-K drop, each table_NAME.csv (AUTO
under a table file) against the default's AUTO rows, the launch cost, test
pass counts, sanitizer error counts, and the steps that failed, timed out or
were skipped (the model's skip included).
"""
import csv
import glob
import math
import os
import re
import sys

from report import largest_drop, num  # one reading of a CSV number, one no-cliff figure


def read_csv(path):
    try:
        with open(path) as f:  # ninja's stand-in bmm-model (no clang++) writes SKIP lines
            return list(csv.DictReader(line for line in f
                                       if not line.startswith(("#", "SKIP")) and "," in line))
    except (OSError, csv.Error):
        return []


def meta(folder):
    out = {}
    try:
        with open(os.path.join(folder, "bench_meta.txt")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                out[k] = v
    except OSError:
        pass
    return out


def model_predictions(folder):
    """{(name, dtype): predicted %} from model_suite.csv / model_sweep.csv
    (f32, f64) and model_suite_dtypes.csv (the other dtypes), build/bmm-model's
    CSV, run for AUTO: the first column named pred...)."""
    out = {}
    for path in ("model_suite.csv", "model_sweep.csv", "model_suite_dtypes.csv"):
        rows = read_csv(os.path.join(folder, path))
        if not rows:
            continue
        cols = [c for c in rows[0] if c and re.search(r"pred", c, re.I)]
        if not cols:
            continue
        for r in rows:  # gpu_check runs it without --strategy: every row is AUTO's pick
            v = num(r.get(cols[0]))
            if v is not None and r.get("name"):
                out.setdefault((r["name"], r.get("dtype", "")), v)
    return out


def sweep_line(rows, dt, copy):
    """AUTO along the seed sweep's K for one dtype: worst K, median, and the
    largest drop between neighbouring K (issue 20: <= 5 points), % of copy."""
    pts = sorted((int(re.sub(r"\D", "", r["name"])), num(r.get("gbps"))) for r in rows
                 if r.get("strategy") == "auto" and r.get("dtype") == dt
                 and r.get("name", "").startswith("sweep_k"))
    pts = [(k, 100 * g / copy) for k, g in pts if g is not None and copy]
    if not pts:
        return None
    worst = min(pts, key=lambda t: t[1])
    drop = largest_drop(pts)
    return "K %d..%d, min %.0f%% of copy at K=%d, median %.0f%%, largest neighbour drop %s" % (
        pts[0][0], pts[-1][0], worst[1], worst[0], sorted(p for _, p in pts)[len(pts) // 2],
        "%.1f points (to K=%d)" % drop if drop[1] is not None else "none")


def floor_line(m, sweep, copy, model_t0_us=5.5):
    """The launch floor bench_gpu measured (bench_meta.txt): an empty kernel's
    event time, and a D2D copy of the seed's K = 1 bytes; the first K at which
    a launch of that cost leaves >= 90% of copy (the model's t0 caps f32 K <= 8
    and f64 K <= 3 below it: bench/notes/model.md). None without the figures."""
    t0, grid = num(m.get("launch_empty_us")), num(m.get("launch_empty_grid_us"))
    if not copy or not t0 or not grid:
        return None
    auto = {(r["name"], r["dtype"]): num(r.get("gbps")) for r in sweep
            if r.get("strategy") == "auto"}

    def first_k(es, t0_us):  # seed bytes 10^6 (4K + 3) values
        for k in range(1, 129):
            tb = 1e6 * (4 * k + 3) * es / (copy * 1e3)  # us
            if tb / (tb + t0_us) >= 0.9:
                return k
        return None
    parts = []
    for dt, es in (("f32", 4), ("f64", 8)):
        c = num(m.get("copy_k1_%s_us" % dt))
        g = auto.get(("sweep_k1", dt))
        if c:
            parts.append("%s at %.0f%% of copy (AUTO %s)" % (
                dt, 100 * 7e6 * es / (copy * 1e3 * c), fmt(g and 100 * g / copy, "%.0f%%")))
    caps = "; >= 90%% possible from K = %s (f32) / %s (f64) after a %.1f us launch, the model's " \
           "%.1f us: K = %s / %s" % (fmt(first_k(4, grid), "%d", ">128"),
                                     fmt(first_k(8, grid), "%d", ">128"), grid, model_t0_us,
                                     fmt(first_k(4, model_t0_us), "%d", ">128"),
                                     fmt(first_k(8, model_t0_us), "%d", ">128"))
    return "-- launch floor (measured): empty kernel %.1f us (1 block), %.1f us (grid); " \
        "the seed's K = 1 bytes by D2D copy: %s%s" % (t0, grid, ", ".join(parts) or "-", caps)


def table_lines(folder, default_rows, copy):
    """One block per table_NAME.csv (step tables: AUTO alone under a table
    file): its sweep, and its time against the compiled default's AUTO rows
    of this run (bench_gpu.csv, bench_sweep.csv) row by row."""
    base = {(r["name"], r["dtype"]): num(r.get("ms")) for r in default_rows
            if r.get("strategy") == "auto"}
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "table_*.csv"))):
        name = os.path.basename(path)[len("table_"):-len(".csv")]
        rows = read_csv(path)
        auto = [r for r in rows if r.get("strategy") == "auto"]
        if not auto:
            out.append("-- table %s: no AUTO rows (see %s.log)" % (name, name))
            continue
        for dt in ("f32", "f64"):
            line = sweep_line(auto, dt, copy)
            if line:
                out.append("-- table %s, sweep %s: %s" % (name, dt, line))
        ratios = []
        for r in auto:
            b, ms = base.get((r["name"], r["dtype"])), num(r.get("ms"))
            if b and ms:
                ratios.append((ms / b, r["name"], r["dtype"]))
        if ratios:
            geo = math.exp(sum(math.log(x) for x, _, _ in ratios) / len(ratios))
            lo, hi = min(ratios), max(ratios)
            out.append("-- table %s / default time: geomean %.3f over %d rows, best %.2f (%s %s), "
                       "worst %.2f (%s %s); %d rows < 0.95, %d > 1.05" % (
                           name, geo, len(ratios), lo[0], lo[1], lo[2], hi[0], hi[1], hi[2],
                           sum(x < 0.95 for x, _, _ in ratios),
                           sum(x > 1.05 for x, _, _ in ratios)))
    return out


def parity_lines(folder, copy):
    """The evenk step's tables (table_diag_*.csv): AUTO's % of copy at even
    and at odd K, geomean per dtype, so the sawtooth (or its absence) under
    each table reads off one line."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "table_diag_*.csv"))):
        name = os.path.basename(path)[len("table_"):-len(".csv")]
        rows = read_csv(path)
        cells = []
        for dt in ("f32", "f64"):
            pct = {0: [], 1: []}
            for r in rows:
                g, k = num(r.get("gbps")), num(r.get("k"))
                if r.get("strategy") == "auto" and r.get("dtype") == dt and g and k and copy:
                    pct[int(k) % 2].append(100 * g / copy)
            if pct[0] and pct[1]:
                geo = [math.exp(sum(math.log(x) for x in v) / len(v)) for v in (pct[0], pct[1])]
                cells.append("%s even K %.1f%%, odd K %.1f%% (%d / %d rows)" % (
                    dt, geo[0], geo[1], len(pct[0]), len(pct[1])))
        out.append("-- %s, %% of copy (geomean): %s" % (name, "; ".join(cells) or "no rows"))
    return out


def against_staged(rows, news=(("cuda_async", "cuda_staged"), ("cuda_warp_staged", "cuda_staged"),
                               ("cuda_mma", "cuda_tiled"))):
    """The strategies not yet in a table, forced, against the strategy each
    would replace row by row (suite and sweep, every dtype it claims: cuda_mma
    f16/bf16 against cuda_tiled): x = base ms / its ms, > 1 faster."""
    ms = {(r["name"], r["dtype"], r["layout"], r.get("strategy")): num(r.get("ms")) for r in rows}
    out = []
    for s, b in news:
        xs = []
        for (name, dt, lay, st), t in ms.items():
            base = ms.get((name, dt, lay, b))
            if st == s and t and base:
                xs.append((base / t, "%s/%s" % (name, dt)))
        if not xs:
            out.append("-- %s vs %s: no rows timed (forced strategies not run?)" % (s, b))
            continue
        xs.sort()
        geo = math.exp(sum(math.log(x) for x, _ in xs) / len(xs))
        out.append("-- %s vs %s (%s ms / its ms, >1 faster): geomean %.2f over %d "
                   "rows, %d faster; best %.2f (%s), worst %.2f (%s)" % (
                       s, b, b.replace("cuda_", ""), geo, len(xs), sum(x > 1 for x, _ in xs),
                       xs[-1][0], xs[-1][1], xs[0][0], xs[0][1]))
    return out


def fmt(v, spec="%.0f", none="-"):
    return none if v is None else spec % v


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    m = meta(folder)
    copy = num(m.get("copy_gbs"))
    bench = read_csv(os.path.join(folder, "bench_gpu.csv"))
    sweep = read_csv(os.path.join(folder, "bench_sweep.csv"))
    peers = []
    for p in sorted(glob.glob(os.path.join(folder, "peers*.csv"))):
        peers += read_csv(p)
    pred = model_predictions(folder)
    lines = []
    auto = {(r["name"], r["dtype"]): r for r in bench if r.get("strategy") == "auto"}
    best = {}
    for r in peers:
        ms = num(r.get("ms"))
        if ms is None or (r.get("strategy") == "jax" and r.get("dtype") == "f32"):
            continue
        key = (r["name"], r["dtype"])
        if key not in best or ms < best[key][0]:
            best[key] = (ms, r["strategy"])
    names = []
    for r in bench:
        if r.get("strategy") == "auto" and r.get("dtype") in ("f32", "f64") \
                and r["name"] not in names:
            names.append(r["name"])
    lines.append("-- suite, AUTO: %%copy of %s GB/s%s; x = best peer ms / bmm ms (>1: bmm faster)"
                 % (fmt(copy, "%.0f", "?"), "; pred = model, PREDICTED" if pred else
                    "; no model predictions"))
    if not names:
        lines.append("  no bench_gpu.csv rows (the bench step did not run or failed)")
    lines.append("  %-20s %5s %4s %5s %-11s| %5s %4s %5s %s" % (
        "row", "f32%", "pred", "x", "peer", "f64%", "pred", "x", "peer"))
    ratios = {"f32": [], "f64": []}
    low = []
    for name in names:
        cells = []
        for dt in ("f32", "f64"):
            r = auto.get((name, dt))
            gbps = num(r.get("gbps")) if r else None
            ms = num(r.get("ms")) if r else None
            pct = 100 * gbps / copy if gbps is not None and copy else None
            b = best.get((name, dt))
            x = b[0] / ms if b and ms else None
            if x:
                ratios[dt].append(x)
            if pct is not None and pct < 90 and num(r.get("pct_roofline")) is not None \
                    and num(r.get("pct_roofline")) < 90:
                low.append("%s/%s %.0f%%" % (name, dt, pct))
            cells.append((fmt(pct) if r else ("miss" if name else "-"), fmt(pred.get((name, dt))),
                          fmt(x, "%.2f"), b[1] if b else "-"))
        lines.append("  %-20s %5s %4s %5s %-11s| %5s %4s %5s %s" % (
            (name[:20],) + cells[0] + cells[1]))
    geo = []
    for dt in ("f32", "f64"):
        v = ratios[dt]
        if v:
            geo.append("%s %.2f (%d rows, worst %.2f)" % (
                dt, math.exp(sum(math.log(x) for x in v) / len(v)), len(v), min(v)))
    lines.append("-- x geomean: %s" % ("; ".join(geo) if geo else "no peer rows"))
    if low:
        lines.append("-- under 90%% of copy and of roofline: %s" % ", ".join(low[:12]) +
                     (" (+%d)" % (len(low) - 12) if len(low) > 12 else ""))
    for dt in ("f16", "bf16", "c64", "c128"):
        rows = [(r["name"], num(r.get("gbps")), num(r.get("pct_roofline"))) for r in bench
                if r.get("strategy") == "auto" and r.get("dtype") == dt]
        rows = [(n, 100 * g / copy, p) for n, g, p in rows if g is not None and copy]
        if not rows:
            continue
        worst = min(rows, key=lambda t: t[1])
        line = "-- %s AUTO (%d rows): %%copy min %.0f (%s), median %.0f" % (
            dt, len(rows), worst[1], worst[0], sorted(t[1] for t in rows)[len(rows) // 2])
        pcts = [p for _, _, p in rows if p is not None]
        if num(m.get("peak_%s_tflops" % dt)) and pcts:
            line += "; %%roofline min %.0f" % min(pcts)
        else:  # a bench_gpu before 2026-11-26 put a borrowed peak into pct_roofline
            line += "; no FLOP peak measured for %s: no %%roofline" % dt
        lines.append(line)
    for dt in ("f32", "f64"):
        line = sweep_line(sweep, dt, copy)
        if line:
            lines.append("-- sweep %s AUTO: %s" % (dt, line))
    line = floor_line(m, sweep, copy)
    if line:
        lines.append(line)
    lines += table_lines(folder, bench + sweep, copy)
    lines += parity_lines(folder, copy)
    lines += against_staged(bench + sweep)
    for r in bench:
        if r.get("strategy") == "auto_back_to_back":
            lines.append("-- launch cost (tiny, back to back): %s us per call (%s)" % (
                fmt(num(r.get("ms")) and 1e3 * num(r.get("ms")), "%.1f"), r["dtype"]))
    for log in ("tests.log",):
        try:
            text = open(os.path.join(folder, log), errors="replace").read()
        except OSError:
            continue
        counts = [(p, f, sk or "0") for p, f, sk in
                  re.findall(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?", text, re.M)]
        fails = len(re.findall(r"^FAIL", text, re.M))
        lines.append("-- %s: %s%s" % (log, "; ".join("%s passed, %s failed, %s skipped" % c
                                                       for c in counts) or "no count line",
                                        ", %d FAIL lines" % fails if fails else ""))
        # test_cuda's residency check against the runtime, and where failures were
        for m in re.findall(r"^(occupancy: \d+ launch shapes.*|failures by group.*)$", text, re.M):
            lines.append("--   %s" % m)
    san = []
    for path in sorted(glob.glob(os.path.join(folder, "*check.log"))):
        text = open(path, errors="replace").read()
        tool = os.path.basename(path)[:-4]
        errs = [int(x) for x in re.findall(r"ERROR SUMMARY: (\d+) errors?\b(?! were not)", text)]
        races = [int(x) for x in re.findall(r"RACECHECK SUMMARY: (\d+) hazard", text)]
        sites = re.findall(r"sanitizer_sites: (\d+) distinct", text)  # sanitizer_sites.awk
        if errs or races:
            hazards = ", %d hazards" % sum(races) if races else ""
            at = " at %s site%s" % (sites[-1], "" if sites[-1] == "1" else "s") if sites else ""
            san.append("%s %d errors%s%s" % (tool, sum(errs), hazards, at))
        else:
            san.append("%s no summary line" % tool)
    if san:
        lines.append("-- sanitizers: " + "; ".join(san))
    bad = []
    try:
        for line in open(os.path.join(folder, "steps.txt")):
            if re.search(r": (FAIL|TIMEOUT|SKIPPED)", line):
                bad.append(line.strip())
            elif re.match(r"model\w*: skipped", line):
                lines.append("-- " + line.strip())
    except OSError:
        pass
    lines.append("-- steps not ok: %s" % ("; ".join(bad) if bad else "none"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
