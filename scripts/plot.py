#!/usr/bin/python3
"""Figures from ckptsim outputs (Debian python3-matplotlib; no other dependency).

usage: scripts/plot.py SOURCE -o OUTDIR [--kind KIND] [options]

SOURCE is one of
  a sweep folder (ckptsim sweep -o DIR: manifest.json + points.csv), kinds:
    line       METRIC against the X axis, one line per value of the GROUP axis, with the 95%
               confidence band of the mean (METRIC_ci95 column) when the sweep has one
    breakdown  stacked bars of where the time not spent training went (every part of the run
               command's time breakdown but training: checkpoint stall, lost progress,
               detection, replacement wait, retrieval, restart, degraded throughput, live
               migration), one bar per value of the GROUP axis; a part the sweep did not
               write is named in the title as not drawn
    heatmap    METRIC over two axes (X across, Y down)
    best       for each value of X, the value of the OVER axis with the best METRIC (e.g. the
               checkpoint interval with the highest ETTR for each failure rate), one line per GROUP
  a `ckptsim placement --json` file, kind placement: P(recover from CPU memory) against the
    number of simultaneous failures k, one line per placement scheme
  a `ckptsim iteration --trace` file (predicted) or a `ckptsim-replay --trace` file (measured),
    kind timeline: compute, collectives and checkpoint chunks per machine (rank) and stream, the
    title saying which of the two it is
With no --kind it draws every kind that fits SOURCE (a kind asked for with --kind that cannot
be drawn is an error, exit 2). Each figure is written as OUTDIR/NAME.png and OUTDIR/NAME.svg
(--formats), with titles and axis labels carrying units.
Axis values such as "1.5%/machine/day" or "3h" are read as their number (1.5, 3) with the unit
shown in the axis label, when every value of the axis is written in the same unit. An axis whose
values mix units is placed by the SI column the sweep writes beside it (interval_s,
failure_rate_per_machine_s), labelled with the SI unit; without that column it is drawn as
categories, each value with its own unit, and --kind best, which needs numbers, exits 2 naming
the axis and its units. Legend and tick labels tell every value apart: values that would read
the same (two strategies of one kind) name the fields in which they differ.
--where AXIS=VALUE (repeatable) keeps only those points; other axes that vary are fixed at their
first value (the title says so).
"""
import argparse
import csv
import json
import math
import os
import re
import sys
import textwrap

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.patches
    import matplotlib.ticker
except ImportError as missing:
    print(f"plot.py: error: needs matplotlib (Debian python3-matplotlib; scripts/install-deps): {missing}",
          file=sys.stderr)
    sys.exit(2)

# Every part of the run's time breakdown but training (run/run_model.hpp, time_breakdown_s): the
# sweep's columns and their legend entries. The wall time is training plus these.
BREAKDOWN = [
    ("checkpoint_stall_s", "checkpoint stall"),
    ("lost_progress_s", "lost progress"),
    ("detection_s", "detection"),
    ("replacement_wait_s", "replacement wait"),
    ("retrieval_s", "retrieval"),
    ("restart_s", "restart"),
    ("degraded_s", "degraded (slowed steps)"),
    ("migration_s", "live migration"),
]
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


def legend_value(text):
    """A legend entry for an axis value: a number with at most 4 significant digits and its unit
    ("0.015000000000" -> "0.015", "1.5%/machine/day" -> "1.5 %/machine/day"), else short_value."""
    number, unit = number_and_unit(text)
    if number is None:
        return short_value(text)
    return f"{number:.4g} {unit}".strip()


def field_text(value):
    """A field of an axis value as a label writes it: strings bare, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def distinct_labels(values):
    """{value: label} for the values of one axis, every label different. A value's label is its
    legend_value; values that would share one (two strategies of one kind that differ in a field,
    {"kind":"async-two-phase"} and {"kind":"async-two-phase","local_bandwidth":"12GB/s"}) name the
    fields in which they differ, "async-two-phase (no local_bandwidth)" and "async-two-phase
    (local_bandwidth=12GB/s)"; any other clash (numbers equal to 4 digits) shows the values as
    written."""
    labels = {v: legend_value(v) for v in values}
    clashes = {}
    for v in values:
        clashes.setdefault(labels[v], []).append(v)
    for label, same in clashes.items():
        if len(same) < 2:
            continue
        try:
            objects = [json.loads(v) for v in same]
        except ValueError:
            objects = []
        if objects and all(isinstance(o, dict) for o in objects):
            keys = []
            for o in objects:
                keys += [k for k in o if k not in keys]
            missing = object()
            differing = [k for k in keys if len({json.dumps(o.get(k), sort_keys=True) if k in o else missing
                                                 for o in objects}) > 1]
            for v, o in zip(same, objects):
                parts = [f"{k}={field_text(o[k])}" if k in o else f"no {k}" for k in differing]
                labels[v] = f"{label} ({', '.join(parts)})"
        else:
            for v in same:
                labels[v] = v
    if len(set(labels.values())) < len(labels):
        return {v: v for v in values}
    return labels


def wrapped(title, width=72):
    """A title wrapped to lines that fit a 6.4-inch figure at font size 10."""
    return "\n".join(textwrap.fill(line, width) for line in title.split("\n"))


def log_spaced(values):
    """True for positive values spread over a wide range or geometrically (each about a constant
    multiple of the one before): such values belong on a logarithmic axis."""
    v = sorted(set(values))
    if len(v) < 3 or v[0] <= 0:
        return False
    if v[-1] / v[0] >= 100:
        return True
    ratios = [b / a for a, b in zip(v, v[1:])]
    return v[-1] / v[0] >= 8 and min(ratios) >= 1.5 and max(ratios) / min(ratios) <= 1.5


def set_log_ticks(axis, values):
    """Log-axis ticks labelled at the data's extremes and at 1-2-5 values between them (left out
    where they would crowd an extreme), as plain numbers."""
    lo, hi = min(values), max(values)
    span = math.log10(hi / lo) if hi > lo else 1.0
    ticks = [lo, hi]
    for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10.0 ** e
            if lo < v < hi and all(abs(math.log10(v / t)) > 0.08 * span for t in (lo, hi)):
                ticks.append(v)
    axis.set_major_locator(matplotlib.ticker.FixedLocator(sorted(ticks)))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:.3g}"))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def check_metric(sweep, metric):
    """Exit 2 naming the metrics there are when METRIC is not a column of the points."""
    rows = sweep.rows
    if metric not in rows[0] or all(r[metric] == "" for r in rows):
        columns = [m["name"] for m in sweep.manifest.get("metrics", []) if m.get("name") in rows[0]] or [
            c for c in rows[0] if c not in sweep.axes + ["index", "status", "error"] and not c.endswith("_ci95")]
        fail(f"--metric {metric}: not a metric of these points (metrics: {', '.join(columns)})")


# The SI columns `ckptsim sweep` writes beside an axis of unit strings (sweep/results.cpp,
# numeric_axis) and the unit each is in.
SI_COLUMNS = [("_s", "s"), ("_bytes", "bytes"), ("_bytes_per_s", "B/s"), ("_per_machine_s", "/machine/s"),
              ("_flop_per_s", "FLOP/s")]

# Legends with more entries than this become a colour scale (numeric values) or are left out.
MAX_LEGEND_ENTRIES = 10


def save(fig, outdir, name, formats, written):
    fig.tight_layout()
    for ext in formats:
        path = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(path, dpi=110 if ext == "png" else None, metadata={"Date": None} if ext == "svg" else None)
        written.append(path)
    plt.close(fig)


class Sweep:
    def __init__(self, folder, where):
        try:
            with open(os.path.join(folder, "manifest.json")) as f:
                self.manifest = json.load(f)
            with open(os.path.join(folder, "points.csv"), newline="") as f:
                rows = [r for r in csv.DictReader(f) if r.get("status") == "ok"]
        except (OSError, ValueError) as e:
            fail(f"{folder}: not a sweep folder (ckptsim sweep -o DIR): {e}")
        self.axes = [a["name"] for a in self.manifest["axes"]]
        for item in where:
            axis, _, value = item.partition("=")
            if axis not in self.axes:
                fail(f"--where {item}: no axis {axis!r} (axes: {', '.join(self.axes)})")
            # VALUE as written, its short form (--where strategy=gemini) or its figure label.
            labels = distinct_labels(list(dict.fromkeys(r[axis] for r in rows)))
            rows = [r for r in rows if value in (r[axis], short_value(r[axis]), labels[r[axis]])]
        if not rows:
            fail(f"{folder}: no valid points to plot")
        self.rows = rows
        self.varying = [a for a in self.axes if len({r[a] for r in rows}) > 1]
        # Random-mode sweeps draw every axis at random for each point: no two points share a
        # value, so nothing is held fixed and lines between points would mean nothing.
        self.random = (self.manifest.get("spec") or {}).get("mode") == "random"
        self._labels = {}

    def values(self, axis):
        seen = []
        for r in self.rows:
            if r[axis] not in seen:
                seen.append(r[axis])
        return seen

    def units(self, axis):
        """The units the values of an axis are written in ("" for plain numbers), in order; None
        when a value is no number."""
        parsed = [number_and_unit(v) for v in self.values(axis)]
        if any(n is None for n, _ in parsed):
            return None
        return list(dict.fromkeys(u for _, u in parsed))

    def si_column(self, axis):
        """(column, unit) of the SI column `ckptsim sweep` writes beside an axis of unit strings
        (interval_s next to interval, failure_rate_per_machine_s next to failure_rate), when every
        point has a number there; else None."""
        for suffix, unit in SI_COLUMNS:
            column = axis + suffix
            if column in self.rows[0] and column not in self.axes:
                try:
                    [float(r[column]) for r in self.rows]
                except ValueError:
                    continue
                return column, unit
        return None

    def numeric(self, axis):
        """Every value a number on one scale: all written in one unit, or in several units with
        the sweep's SI column beside the axis (then placed by that column). Values in different
        units without it, "1.5%/machine/day" and "0.001/machine/h", are drawn as categories, each
        labelled with its own unit, never placed on one scale by their written numbers."""
        units = self.units(axis)
        return units is not None and (len(units) == 1 or self.si_column(axis) is not None)

    def mixed_units(self, axis):
        """True for an axis of numbers written in more than one unit."""
        units = self.units(axis)
        return units is not None and len(units) > 1

    def axis_label(self, axis):
        """The axis name with the unit every one of its values shares (numeric axes only; the SI
        unit where the values mix units)."""
        if not self.numeric(axis):
            return axis
        unit = self.si_column(axis)[1] if self.mixed_units(axis) else self.units(axis)[0]
        return f"{axis} ({unit})" if unit else axis

    def label(self, axis, value):
        """The legend or tick label of one value of an axis, different from every other value's."""
        if axis not in self._labels:
            self._labels[axis] = distinct_labels(self.values(axis))
        return self._labels[axis][value]

    def fixed(self, used):
        """Rows with every varying axis not in `used` at its first value, and a note saying so
        (random-mode sweeps: every row, and a note that the other axes vary)."""
        if self.random:
            others = [a for a in self.varying if a not in used]
            return self.rows, (f"{len(self.rows)} random points" + (f"; {', '.join(others)} also vary" if others else ""))
        rows, notes = self.rows, []
        for a in self.varying:
            if a not in used:
                first = self.values(a)[0]
                rows = [r for r in rows if r[a] == first]
                notes.append(f"{a} = {self.label(a, first)}")
        return rows, ("; ".join(notes))

    def x_value(self, axis, text):
        """A value's place on its axis: its number, its SI number where the axis mixes units,
        else its index among the values (a categorical axis)."""
        if not self.numeric(axis):
            return self.values(axis).index(text)
        if self.mixed_units(axis):
            column = self.si_column(axis)[0]
            return float(next(r[column] for r in self.rows if r[axis] == text))
        return number_and_unit(text)[0]


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
    return wrapped(f"{base}\n({note})" if note else base)


def plot_line(sweep, args, outdir, written):
    x = pick(sweep, args.x)
    if x is None:
        return nothing_to_draw(args, "line", "no axis varies among the points")
    group = pick(sweep, args.group, exclude=[x], prefer_numeric=False)
    metric = args.metric
    check_metric(sweep, metric)
    rows, note = sweep.fixed([x, group])
    groups = sweep.values(group) if group else [None]
    # Many values of the group axis (a random-mode sweep has one per point): a colour scale when
    # they are numbers, else no grouping; a legend of more than MAX_LEGEND_ENTRIES is unreadable.
    colour_scale = bool(group) and len(groups) > MAX_LEGEND_ENTRIES and sweep.numeric(group)
    if group and len(groups) > MAX_LEGEND_ENTRIES and not colour_scale:
        note = "; ".join(n for n in (note, f"{len(groups)} values of {group} not told apart") if n)
        group, groups = None, [None]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    with_band = False
    if sweep.random or colour_scale:
        xs = [sweep.x_value(x, r[x]) for r in rows]
        ys = [float(r[metric]) for r in rows if True]
        colours = [sweep.x_value(group, r[group]) for r in rows] if colour_scale else None
        points = ax.scatter(xs, ys, s=10, c=colours, cmap="viridis" if colour_scale else None,
                            norm="log" if colour_scale and log_spaced(colours) else None)
        if colour_scale:
            fig.colorbar(points, ax=ax, label=sweep.axis_label(group))
        elif group:
            for g in groups:
                sub = [r for r in rows if r[group] == g]
                ax.scatter([sweep.x_value(x, r[x]) for r in sub], [float(r[metric]) for r in sub], s=10,
                           label=sweep.label(group, g))
            points.remove()
    else:
        for g in groups:
            sub = [r for r in rows if group is None or r[group] == g]
            sub.sort(key=lambda r: sweep.x_value(x, r[x]))
            xs = [sweep.x_value(x, r[x]) for r in sub]
            ys = [float(r[metric]) for r in sub]
            line, = ax.plot(xs, ys, marker="o", markersize=3, label=sweep.label(group, g) if g else None)
            if f"{metric}_ci95" in sub[0] and all(r[f"{metric}_ci95"] != "" for r in sub):
                half = [float(r[f"{metric}_ci95"]) for r in sub]
                ax.fill_between(xs, [y - h for y, h in zip(ys, half)], [y + h for y, h in zip(ys, half)],
                                color=line.get_color(), alpha=0.2, linewidth=0)
                with_band = True
    if sweep.numeric(x):
        xs_all = [sweep.x_value(x, v) for v in sweep.values(x)]
        if log_spaced(xs_all):
            ax.set_xscale("log")
            if len(xs_all) <= 12:
                ax.set_xticks(xs_all, [f"{v:g}" for v in xs_all])
                ax.minorticks_off()
            else:
                set_log_ticks(ax.xaxis, xs_all)
    else:
        ax.set_xticks(range(len(sweep.values(x))), [sweep.label(x, v) for v in sweep.values(x)])
    ax.set_xlabel(sweep.axis_label(x))
    ax.set_ylabel(metric_label(metric))
    ax.set_title(title_with(args.title or f"{metric_label(metric)} against {x}", note), fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    if with_band:
        handles.append(matplotlib.patches.Patch(color="grey", alpha=0.3, linewidth=0))
        labels.append("95% confidence interval of the mean")
    if handles:
        # More than 5 entries would cover the lines: outside the axes, right, on a wider figure.
        outside = len(handles) > 5
        if outside:
            fig.set_size_inches(9.6, 4.2)
        ax.legend(handles, labels, title=group if group and not colour_scale else None, fontsize=8,
                  loc="upper left" if outside else "best", bbox_to_anchor=(1.01, 1.0) if outside else None,
                  framealpha=0.85)
    ax.grid(True, alpha=0.3)
    save(fig, outdir, args.name or f"{metric}-vs-{x}".replace("/", "_"), args.formats, written)


def nothing_to_draw(args, kind, why):
    """A kind that cannot be drawn: an error when --kind asked for it, else a note on stderr."""
    if args.kind:
        fail(f"--kind {kind}: {why}")
    print(f"plot.py: note: no {kind} figure: {why}", file=sys.stderr)


def plot_breakdown(sweep, args, outdir, written):
    group = pick(sweep, args.group, prefer_numeric=False)
    rows, note = sweep.fixed([group] if group else [])
    # A part drawn only where every bar has it; one missing anywhere is named in the title (and on
    # stderr) rather than silently left out, which would make its time look free. The exception:
    # a run without live migration writes no time_breakdown_s.migration (run/monte_carlo.cpp), so
    # the sweep leaves migration_s empty there, and none of its time went to migration: 0.
    rows = [dict(r, migration_s=r["migration_s"] or "0") if "migration_s" in r else r for r in rows]
    parts = [(column, name) for column, name in BREAKDOWN
             if column in rows[0] and all(r[column] != "" for r in rows)]
    missing = [column for column, _ in BREAKDOWN if column not in [c for c, _ in parts]]
    if not parts:
        return nothing_to_draw(args, "breakdown", "points.csv has none of the time-breakdown columns ("
                               + ", ".join(c for c, _ in BREAKDOWN) + ")")
    if missing:
        gap = f"not drawn, not in points.csv: {', '.join(missing)}"
        print(f"plot.py: warning: breakdown: {gap}", file=sys.stderr)
        note = "; ".join(n for n in (note, gap) if n)
    if group and sweep.numeric(group):
        rows = sorted(rows, key=lambda r: sweep.x_value(group, r[group]))
    labels = [sweep.label(group, r[group]) if group else str(r["index"]) for r in rows]
    # Bars share the axis left of the legend, about 4.5 inches (60 characters at font size 10):
    # labels longer than their bar's slot are turned 35 degrees, right-aligned under their bar,
    # so neighbours never overlap.
    slot_chars = 60 / max(1, len(labels))
    turned = max(len(s) for s in labels) > slot_chars
    fig, ax = plt.subplots(figsize=(7.4, 4.4 if turned else 4.2))
    positions = list(range(len(rows)))
    bottom = [0.0] * len(rows)
    handles = []
    colours = iter(plt.rcParams["axes.prop_cycle"].by_key()["color"] * 2)
    for column, name in parts:
        hours = [float(r[column]) / 3600 for r in rows]
        colour = next(colours)
        if any(hours):
            handles.append(ax.bar(positions, hours, bottom=bottom, label=name, color=colour))
            bottom = [b + h for b, h in zip(bottom, hours)]
        else:
            # Counted and zero in every bar: said in the legend, not drawn as empty bars.
            handles.append(matplotlib.patches.Patch(color=colour, label=f"{name}: none"))
    ax.set_xticks(positions, labels, rotation=35 if turned else 0, ha="right" if turned else "center",
                  fontsize=8 if turned else 10)
    ax.set_ylabel("time lost per run (hours)")
    ax.set_xlabel(sweep.axis_label(group) if group else "point")
    # The axis is narrower than the figure (the legend is beside it): titles wrap at 60 characters.
    title = args.title or "Where the time lost to failures and checkpoints goes"
    ax.set_title(wrapped(f"{title}\n({note})" if note else title, 60), fontsize=10)
    # Outside the axes, right: a legend inside would sit over the tallest bars.
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="time lost to",
              title_fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, outdir, args.name or f"breakdown-by-{group}", args.formats, written)


def plot_heatmap(sweep, args, outdir, written):
    x = pick(sweep, args.x)
    y = pick(sweep, args.y, exclude=[x])
    if x is None or y is None:
        return nothing_to_draw(args, "heatmap", "needs two axes that vary; varying: "
                               + (", ".join(sweep.varying) or "none"))
    check_metric(sweep, args.metric)
    rows, note = sweep.fixed([x, y])
    if sweep.random:
        fail("--kind heatmap needs a grid sweep: a random-mode sweep has no grid (try --kind line)")
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
    ax.set_xticks(range(len(xv)), [sweep.label(x, v) for v in xv], rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(yv)), [sweep.label(y, v) for v in yv], fontsize=8)
    ax.set_xlabel(sweep.axis_label(x))
    ax.set_ylabel(sweep.axis_label(y))
    ax.set_title(title_with(args.title or f"{metric_label(args.metric)} over {x} and {y}", note), fontsize=10)
    save(fig, outdir, args.name or f"heatmap-{args.metric}", args.formats, written)


def not_numeric_reason(sweep, axis):
    """Why the values of an axis cannot be placed on one numeric scale (names the units found)."""
    units = sweep.units(axis)
    if units is None:
        shown = ", ".join(sweep.label(axis, v) for v in sweep.values(axis)[:4])
        return f"its values are not numbers ({shown}{', ...' if len(sweep.values(axis)) > 4 else ''})"
    found = ", ".join(repr(u) if u else "no unit" for u in units)
    return (f"its values mix units ({found}) and points.csv has no SI column beside it (such as "
            f"{axis}_s, which ckptsim sweep writes for a duration axis); write them in one unit")


def plot_best(sweep, args, outdir, written):
    x = pick(sweep, args.x)
    over = pick(sweep, args.over, exclude=[x])
    if x is None or over is None:
        fail("--kind best needs two axes that vary, X and the axis optimized over (--over); "
             f"varying: {', '.join(sweep.varying) or 'none'}")
    if not sweep.numeric(over):
        fail(f"--kind best: the axis optimized over, {over!r}, has no numeric scale: {not_numeric_reason(sweep, over)}")
    check_metric(sweep, args.metric)
    if sweep.random:
        fail("--kind best needs a grid sweep: a random-mode sweep has no two points at one X")
    group = pick(sweep, args.group, exclude=[x, over], prefer_numeric=False)
    rows, note = sweep.fixed([x, over, group])
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    all_x, all_best = [], []
    x_values = sorted(sweep.values(x), key=lambda v: sweep.x_value(x, v))
    for g in (sweep.values(group) if group else [None]):
        xs, best = [], []
        for xval in x_values:
            cands = [r for r in rows if r[x] == xval and (g is None or r[group] == g)]
            if cands:
                top = max(cands, key=lambda r: float(r[args.metric]))
                xs.append(sweep.x_value(x, xval))
                best.append(sweep.x_value(over, top[over]))
        ax.plot(xs, best, marker="o", label=sweep.label(group, g) if g else None)
        all_x += xs
        all_best += best
    scales = [(ax.yaxis, ax.set_yscale, all_best)]
    if sweep.numeric(x):
        scales.append((ax.xaxis, ax.set_xscale, all_x))
    else:
        # Categories (names, or values in units no column converts): one tick per value, labelled.
        ax.set_xticks([sweep.x_value(x, v) for v in x_values], [sweep.label(x, v) for v in x_values])
    for axis, setter, values in scales:
        if log_spaced(values) or (min(values) > 0 and max(values) / min(values) >= 4):
            setter("log")
            set_log_ticks(axis, values)
    ax.set_xlabel(sweep.axis_label(x))
    ax.set_ylabel(f"best {sweep.axis_label(over)}")
    ax.set_title(title_with(args.title or f"{over} with the best {metric_label(args.metric)}", note), fontsize=10)
    if group:
        ax.legend(title=group, fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    save(fig, outdir, args.name or f"best-{over}-vs-{x}", args.formats, written)


def plot_placement(doc, args, outdir, written):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    # `placement --domain-size` documents count whole domains j instead of machines k.
    k_name = "j" if "domain_size" in doc else "k"
    for name, s in doc["schemes"].items():
        if s.get("applicable", "probability" in s):
            s = dict(s, k=s[k_name])
            method = s.get("method", "")
            ax.plot(s["k"], [math.nan if v is None else v for v in s["probability"]], marker="o", markersize=3,
                    label=f"{name} ({textwrap.shorten(method, 40, placeholder='...')})" if method else name)
    ax.set_xlabel(f"whole domains of {doc['domain_size']} machines failing at once j" if k_name == "j"
                  else "simultaneous machine failures k")
    ax.set_ylabel("P(every checkpoint recoverable from CPU memory)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(wrapped(args.title or f"Recovery from CPU memory: {doc['machines']} machines, {doc['replicas']} replicas"),
                 fontsize=10)
    ax.legend(title="placement", fontsize=8, loc="best")
    ax.grid(True, alpha=0.3)
    save(fig, outdir, args.name or "placement-probability", args.formats, written)


# Colour groups of a timeline. Both trace writers (output/trace_events.hpp) name each slice's
# category in "cat": `ckptsim iteration --trace` the task categories of workload/task_graph.cpp
# (checkpoint-chunk, gpu-to-cpu-copy, local-copy), `ckptsim-replay --trace` the plan's operation
# categories and checkpoint_send, checkpoint_copy, local_copy for its measured checkpoint
# traffic; both add one "iteration" slice per iteration on the track "iterations". Older replay
# traces have no "cat" and are grouped by the name of their stream (thread_name).
TRACE_GROUPS = [
    ("compute", "tab:blue"),
    ("collectives", "tab:orange"),
    ("checkpoint traffic", "tab:green"),
    ("copies to CPU memory", "tab:olive"),
    ("side-stream copies", "tab:purple"),
    ("host waits", "tab:gray"),
    ("iterations", "lightgray"),
    ("other", "black"),
]
CATEGORY_GROUP = {
    "forward": "compute", "recompute": "compute", "backward": "compute", "boundary": "compute",
    "optimizer": "compute",
    "all-gather": "collectives", "reduce-scatter": "collectives", "all-reduce": "collectives",
    "checkpoint-chunk": "checkpoint traffic", "checkpoint_send": "checkpoint traffic",
    "gpu-to-cpu-copy": "copies to CPU memory", "local-copy": "copies to CPU memory",
    "checkpoint_copy": "copies to CPU memory", "local_copy": "copies to CPU memory",
    "copy": "side-stream copies",
    "host": "host waits",
    "iteration": "iterations",
}


def trace_group(category, stream):
    """The colour group of an event: by its category, else by its stream's name."""
    if category:
        return CATEGORY_GROUP.get(category, "other")
    s = stream.lower()
    if "compute" in s:
        return "compute"
    if any(c in s for c in ("gather", "scatter", "reduce", "nccl")):
        return "collectives"
    if "chunk" in s and "sent" in s:
        return "checkpoint traffic"
    if "cpu" in s or "cop" in s:
        return "copies to CPU memory"
    if s == "iterations":
        return "iterations"
    return "other"


def trace_source(doc, events):
    """(measured, how the title names the source). otherData.source is "measured" in a
    ckptsim-replay trace and "predicted" in an iteration --trace file; older replay traces have no
    otherData and no "cat"."""
    other = doc.get("otherData", {})
    source = other.get("source")
    measured = source == "measured" or (source is None and "cat" not in events[0])
    if measured:
        backend = other.get("backend")
        return True, "measured by ckptsim-replay" + (f", {backend} backend" if backend else "") + (
            f", scheduler {other['scheduler']}" if other.get("scheduler") else "")
    return False, f"predicted by ckptsim iteration, scheduler {other.get('scheduler', '?')}"


def plot_timeline(doc, args, outdir, written):
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    if not events:
        fail(f"{args.source}: the trace holds no events to draw")
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in doc["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    processes = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"]
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
    machines = sorted({e["pid"] for e in events})[: args.machines]
    lanes = sorted({(e["pid"], e["tid"]) for e in events if e["pid"] in machines})
    row = {lane: i for i, lane in enumerate(lanes)}
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(lanes) + 1.8))
    spans = {}
    for e in events:
        lane = (e["pid"], e["tid"])
        if lane in row:
            group = trace_group(e.get("cat", ""), str(names.get(lane, "")))
            spans.setdefault((lane, group), []).append((e["ts"] / 1e6, e["dur"] / 1e6))
    colours = dict(TRACE_GROUPS)
    for (lane, group), bars in spans.items():
        ax.broken_barh(bars, (row[lane] - 0.4, 0.8), facecolors=colours[group])
    present = {g for _, g in spans}
    handles = [matplotlib.patches.Patch(color=c, label=g) for g, c in TRACE_GROUPS if g in present]

    def lane_name(p, t):
        who = processes.get(p, f"m{p}").replace("rank ", "r").replace("machine ", "m")
        return f"{who} {names.get((p, t), t)}"

    ax.set_yticks(range(len(lanes)), [lane_name(p, t) for p, t in lanes], fontsize=6)
    ax.invert_yaxis()
    # How many iterations the trace holds: otherData.iterations when the writer gives it, else
    # its "iteration" slices on the first machine (both writers draw one per iteration), else
    # one local replica copy per iteration (older replay traces lay iterations end to end).
    other = doc.get("otherData", {})
    measured, source = trace_source(doc, events)
    iterations = other.get("iterations")
    if iterations is None:
        first = [e for e in events if e["pid"] == machines[0]]
        slices = [e for e in first if e.get("cat") == "iteration"]
        local = [e for e in first if e.get("name") == "local replica"]
        iterations = max(1, len(slices) or (len(local) if measured else 1))
    what = ("One iteration" if iterations == 1 else f"{iterations} iterations") + (" measured" if measured else " predicted")
    ax.set_xlabel("time since the first iteration started (s)" if iterations > 1 else "time since the iteration started (s)")
    shown = f"{len(machines)} of {other['machines']}" if "machines" in other else f"{len(machines)}"
    ax.set_title(wrapped(args.title or f"{what}: compute, collectives and checkpoint traffic per stream\n"
                         f"({source}; {shown} {'ranks' if measured else 'machines'} shown)", 110), fontsize=10)
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
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
    unknown = [f for f in args.formats if f not in ("png", "svg", "pdf")]
    if unknown or not args.formats:
        fail(f"--formats expects png, svg or pdf (comma-separated), found {args.formats!r}")
    if args.machines < 1:
        fail(f"--machines expects at least 1, found {args.machines}")
    if not os.path.exists(args.source):
        fail(f"{args.source}: no such file or folder")
    try:
        os.makedirs(args.output, exist_ok=True)
    except OSError as e:
        fail(f"--output {args.output}: {e}")
    written = []
    if os.path.isdir(args.source):
        sweep = Sweep(args.source, args.where)
        kinds = [args.kind] if args.kind else ["line", "breakdown"] + ([] if sweep.random else ["heatmap"])
        for kind in kinds:
            {"line": plot_line, "breakdown": plot_breakdown, "heatmap": plot_heatmap, "best": plot_best}.get(
                kind, lambda *a: fail(f"--kind {kind} needs a different SOURCE"))(sweep, args, args.output, written)
    else:
        try:
            with open(args.source) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            fail(f"{args.source}: {e}")
        if isinstance(doc, dict) and "schemes" in doc and args.kind in (None, "placement"):
            plot_placement(doc, args, args.output, written)
        elif isinstance(doc, dict) and "traceEvents" in doc and args.kind in (None, "timeline"):
            plot_timeline(doc, args, args.output, written)
        elif args.kind:
            fail(f"--kind {args.kind} does not fit {args.source} (a sweep folder: line, breakdown, heatmap, best; "
                 "a placement --json file: placement; an iteration --trace or ckptsim-replay trace: timeline)")
        else:
            fail(f"{args.source}: neither a sweep folder, a placement --json file nor an iteration --trace file")
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
