#!/usr/bin/python3
"""Figures from ckptsim outputs (Debian python3-matplotlib; no other dependency).

usage: scripts/plot.py SOURCE -o OUTDIR [--kind KIND] [options]

SOURCE is one of
  a sweep folder (ckptsim sweep -o DIR: manifest.json + points.csv), kinds:
    line       METRIC against the X axis, one line per value of the GROUP axis, with the 95%
               confidence band of the mean (METRIC_ci95 column) when the sweep has one
    breakdown  stacked bars of where the time lost to failures and checkpoints went (the run
               command's time breakdown minus training), one bar per value of the GROUP axis
    heatmap    METRIC over two axes (X across, Y down)
    best       for each value of X, the value of the OVER axis with the best METRIC (e.g. the
               checkpoint interval with the highest ETTR for each failure rate), one line per GROUP
  a `ckptsim placement --json` file, kind placement: P(recover from CPU memory) against the
    number of simultaneous failures k, one line per placement scheme
  a `ckptsim iteration --trace` file, kind timeline: compute, collectives and checkpoint chunks
    per machine and stream over one iteration
With no --kind it draws every kind that fits SOURCE. Each figure is written as OUTDIR/NAME.png
and OUTDIR/NAME.svg (--formats), with titles and axis labels carrying units.
Axis values such as "1.5%/machine/day" or "3h" are read as their number (1.5, 3) with the unit
shown in the axis label. --where AXIS=VALUE (repeatable) keeps only those points; other axes that
vary are fixed at their first value (the title says so).
"""
import argparse
import csv
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

BREAKDOWN = ["checkpoint_stall_s", "lost_progress_s", "detection_s", "replacement_wait_s", "retrieval_s", "restart_s"]
METRIC_LABELS = {
    "ettr": "ETTR (training time / wall time)",
    "iterations": "iterations completed",
    "failures": "failures per run",
    "wasted_time_per_failure_s": "wasted time per failure (s)",
    "iteration_time_s": "iteration time (s)",
}
NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*)$")


def fail(message):
    print(f"plot.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def number_and_unit(text):
    """'1.5%/machine/day' -> (1.5, '%/machine/day'); '16' -> (16.0, ''); other text -> (None, '')."""
    m = NUMBER.match(text)
    if not m:
        return None, ""
    return float(m.group(1)), m.group(2).strip()


def metric_label(name):
    if name in METRIC_LABELS:
        return METRIC_LABELS[name]
    if name.endswith("_s"):
        return f"{name[:-2].replace('_', ' ')} (s)"
    if name.endswith("_bytes"):
        return f"{name[:-6].replace('_', ' ')} (bytes)"
    return name.replace("_", " ")


def short_value(text):
    """A readable legend entry: {"kind":"gemini"} -> gemini."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict):
        return value.get("kind") or value.get("name") or text
    return text


def save(fig, outdir, name, formats, written):
    fig.tight_layout()
    for ext in formats:
        path = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(path, dpi=110 if ext == "png" else None, metadata={"Date": None} if ext == "svg" else None)
        written.append(path)
    plt.close(fig)


class Sweep:
    def __init__(self, folder, where):
        with open(os.path.join(folder, "manifest.json")) as f:
            self.manifest = json.load(f)
        with open(os.path.join(folder, "points.csv"), newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
        self.axes = [a["name"] for a in self.manifest["axes"]]
        for item in where:
            axis, _, value = item.partition("=")
            if axis not in self.axes:
                fail(f"--where {item}: no axis {axis!r} (axes: {', '.join(self.axes)})")
            rows = [r for r in rows if r[axis] == value or short_value(r[axis]) == value]
        if not rows:
            fail(f"{folder}: no valid points to plot")
        self.rows = rows
        self.varying = [a for a in self.axes if len({r[a] for r in rows}) > 1]

    def values(self, axis):
        seen = []
        for r in self.rows:
            if r[axis] not in seen:
                seen.append(r[axis])
        return seen

    def numeric(self, axis):
        return all(number_and_unit(v)[0] is not None for v in self.values(axis))

    def axis_label(self, axis):
        unit = number_and_unit(self.values(axis)[0])[1] if self.numeric(axis) else ""
        return f"{axis} ({unit})" if unit else axis

    def fixed(self, used):
        """Rows with every varying axis not in `used` at its first value, and a note saying so."""
        rows, notes = self.rows, []
        for a in self.varying:
            if a not in used:
                first = self.values(a)[0]
                rows = [r for r in rows if r[a] == first]
                notes.append(f"{a} = {short_value(first)}")
        return rows, ("; ".join(notes))

    def x_value(self, axis, text):
        return number_and_unit(text)[0] if self.numeric(axis) else self.values(axis).index(text)


def pick(sweep, wanted, exclude=(), prefer_numeric=True):
    if wanted:
        if wanted not in sweep.axes:
            fail(f"no axis {wanted!r} (axes: {', '.join(sweep.axes)})")
        return wanted
    candidates = [a for a in sweep.varying if a not in exclude]
    if prefer_numeric:
        candidates.sort(key=lambda a: not sweep.numeric(a))
    return candidates[0] if candidates else None


def title_with(base, note):
    return f"{base}\n({note})" if note else base


def plot_line(sweep, args, outdir, written):
    x = pick(sweep, args.x)
    if x is None:
        return
    group = pick(sweep, args.group, exclude=[x], prefer_numeric=False)
    metric = args.metric
    rows, note = sweep.fixed([x, group])
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for g in (sweep.values(group) if group else [None]):
        sub = [r for r in rows if group is None or r[group] == g]
        sub.sort(key=lambda r: sweep.x_value(x, r[x]))
        xs = [sweep.x_value(x, r[x]) for r in sub]
        ys = [float(r[metric]) for r in sub]
        line, = ax.plot(xs, ys, marker="o", markersize=3, label=short_value(g) if g else metric)
        if f"{metric}_ci95" in sub[0] and sub[0][f"{metric}_ci95"] != "":
            half = [float(r[f"{metric}_ci95"]) for r in sub]
            ax.fill_between(xs, [y - h for y, h in zip(ys, half)], [y + h for y, h in zip(ys, half)],
                            color=line.get_color(), alpha=0.2, linewidth=0)
    if sweep.numeric(x):
        xs_all = [sweep.x_value(x, v) for v in sweep.values(x)]
        if min(xs_all) > 0 and max(xs_all) / min(xs_all) >= 32:
            ax.set_xscale("log", base=2 if all(float(v).is_integer() for v in xs_all) else 10)
            if len(xs_all) <= 12:
                ax.set_xticks(xs_all, [f"{v:g}" for v in xs_all])
                ax.minorticks_off()
    else:
        ax.set_xticks(range(len(sweep.values(x))), [short_value(v) for v in sweep.values(x)])
    ax.set_xlabel(sweep.axis_label(x))
    ax.set_ylabel(metric_label(metric))
    ax.set_title(title_with(args.title or f"{metric_label(metric)} against {x}", note), fontsize=10)
    if group:
        ax.legend(title=group, fontsize=8)
    ax.grid(True, alpha=0.3)
    save(fig, outdir, args.name or f"{metric}-vs-{x}".replace("/", "_"), args.formats, written)


def plot_breakdown(sweep, args, outdir, written):
    parts = [p for p in BREAKDOWN if p in (sweep.rows[0].keys())]
    if not parts:
        return
    group = pick(sweep, args.group, prefer_numeric=False)
    rows, note = sweep.fixed([group] if group else [])
    labels = [short_value(r[group]) if group else str(r["index"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    bottom = [0.0] * len(rows)
    for p in parts:
        hours = [float(r[p]) / 3600 for r in rows]
        ax.bar(labels, hours, bottom=bottom, label=p[:-2].replace("_", " "))
        bottom = [b + h for b, h in zip(bottom, hours)]
    ax.set_ylabel("time lost per run (hours)")
    ax.set_xlabel(group or "point")
    ax.set_title(title_with(args.title or "Where the time lost to failures and checkpoints goes", note), fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, outdir, args.name or f"breakdown-by-{group}", args.formats, written)


def plot_heatmap(sweep, args, outdir, written):
    x = pick(sweep, args.x)
    y = pick(sweep, args.y, exclude=[x])
    if x is None or y is None:
        return
    rows, note = sweep.fixed([x, y])
    xv, yv = sweep.values(x), sweep.values(y)
    if sweep.numeric(x):
        xv.sort(key=lambda v: sweep.x_value(x, v))
    if sweep.numeric(y):
        yv.sort(key=lambda v: sweep.x_value(y, v))
    grid = [[math.nan] * len(xv) for _ in yv]
    for r in rows:
        grid[yv.index(r[y])][xv.index(r[x])] = float(r[args.metric])
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    image = ax.imshow(grid, aspect="auto", origin="lower", cmap="viridis")
    fig.colorbar(image, ax=ax, label=metric_label(args.metric))
    ax.set_xticks(range(len(xv)), [short_value(v) for v in xv], rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(yv)), [short_value(v) for v in yv], fontsize=8)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(title_with(args.title or f"{metric_label(args.metric)} over {x} and {y}", note), fontsize=10)
    save(fig, outdir, args.name or f"heatmap-{args.metric}", args.formats, written)


def plot_best(sweep, args, outdir, written):
    x = pick(sweep, args.x)
    over = pick(sweep, args.over, exclude=[x])
    if x is None or over is None or not sweep.numeric(over):
        return
    group = pick(sweep, args.group, exclude=[x, over], prefer_numeric=False)
    rows, note = sweep.fixed([x, over, group])
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for g in (sweep.values(group) if group else [None]):
        xs, best = [], []
        for xval in sorted(sweep.values(x), key=lambda v: sweep.x_value(x, v)):
            cands = [r for r in rows if r[x] == xval and (g is None or r[group] == g)]
            if cands:
                top = max(cands, key=lambda r: float(r[args.metric]))
                xs.append(sweep.x_value(x, xval))
                best.append(sweep.x_value(over, top[over]))
        ax.plot(xs, best, marker="o", label=short_value(g) if g else None)
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))
    ax.set_xlabel(sweep.axis_label(x))
    ax.set_ylabel(f"best {sweep.axis_label(over)}")
    ax.set_title(title_with(args.title or f"{over} with the best {metric_label(args.metric)}", note), fontsize=10)
    if group:
        ax.legend(title=group, fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    save(fig, outdir, args.name or f"best-{over}-vs-{x}", args.formats, written)


def plot_placement(doc, args, outdir, written):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, s in doc["schemes"].items():
        if s.get("applicable"):
            ax.plot(s["k"], s["probability"], marker="o", markersize=3, label=f"{name} ({s.get('method', '')})")
    ax.set_xlabel("simultaneous machine failures k")
    ax.set_ylabel("P(every checkpoint recoverable from CPU memory)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(args.title or f"Recovery from CPU memory: {doc['machines']} machines, {doc['replicas']} replicas",
                 fontsize=10)
    ax.legend(title="placement", fontsize=8)
    ax.grid(True, alpha=0.3)
    save(fig, outdir, args.name or "placement-probability", args.formats, written)


def trace_group(category):
    if category in ("forward", "backward", "optimizer"):
        return "compute", "tab:blue"
    if category in ("all-gather", "reduce-scatter", "all-reduce"):
        return "collectives", "tab:orange"
    return "checkpoint", "tab:green"


def plot_timeline(doc, args, outdir, written):
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in doc["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    machines = sorted({e["pid"] for e in events})[: args.machines]
    lanes = sorted({(e["pid"], e["tid"]) for e in events if e["pid"] in machines})
    row = {lane: i for i, lane in enumerate(lanes)}
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(lanes) + 1.6))
    spans = {}
    for e in events:
        lane = (e["pid"], e["tid"])
        if lane in row:
            spans.setdefault((lane, trace_group(e.get("cat", ""))), []).append((e["ts"] / 1e6, e["dur"] / 1e6))
    seen = set()
    for (lane, (group, color)), bars in spans.items():
        ax.broken_barh(bars, (row[lane] - 0.4, 0.8), facecolors=color, label=None if group in seen else group)
        seen.add(group)
    ax.set_yticks(range(len(lanes)), [f"m{p} {names.get((p, t), t)}" for p, t in lanes], fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("time since the iteration started (s)")
    ax.set_title(args.title or f"One iteration: compute, collectives and checkpoint chunks (machines 0-{len(machines) - 1})",
                 fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(True, axis="x", alpha=0.3)
    save(fig, outdir, args.name or "iteration-timeline", args.formats, written)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source")
    p.add_argument("-o", "--output", required=True, help="output folder (created if missing)")
    p.add_argument("--kind", choices=["line", "breakdown", "heatmap", "best", "placement", "timeline"])
    p.add_argument("--metric", default="ettr", help="sweep metric column (default ettr)")
    p.add_argument("--x", help="sweep axis across (default: the first numeric axis that varies)")
    p.add_argument("--y", help="heatmap: axis down")
    p.add_argument("--group", help="sweep axis with one line/bar per value")
    p.add_argument("--over", help="best: the axis optimized over")
    p.add_argument("--where", action="append", default=[], help="AXIS=VALUE: keep only those points")
    p.add_argument("--machines", type=int, default=4, help="timeline: machines shown (default 4)")
    p.add_argument("--name", help="file name without extension")
    p.add_argument("--title")
    p.add_argument("--formats", default="png,svg", help="comma-separated (default png,svg)")
    args = p.parse_args()
    args.formats = [f for f in args.formats.split(",") if f]
    os.makedirs(args.output, exist_ok=True)
    written = []
    if os.path.isdir(args.source):
        sweep = Sweep(args.source, args.where)
        kinds = [args.kind] if args.kind else ["line", "breakdown", "heatmap"]
        for kind in kinds:
            {"line": plot_line, "breakdown": plot_breakdown, "heatmap": plot_heatmap, "best": plot_best}.get(
                kind, lambda *a: fail(f"--kind {kind} needs a different SOURCE"))(sweep, args, args.output, written)
    else:
        try:
            with open(args.source) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            fail(f"{args.source}: {e}")
        if isinstance(doc, dict) and "schemes" in doc:
            plot_placement(doc, args, args.output, written)
        elif isinstance(doc, dict) and "traceEvents" in doc:
            plot_timeline(doc, args, args.output, written)
        else:
            fail(f"{args.source}: neither a sweep folder, a placement --json file nor an iteration --trace file")
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
