#!/usr/bin/env python3
"""scripts/plot.py: its error paths (exit 2 and a message, no traceback) and a smoke test of every
kind of figure, TAP output. Without matplotlib (Debian python3-matplotlib) only the message that
names the missing package is checked and the figures are skipped.
Usage: plot_test.py CKPTSIM (run by meson test under the Python that runs Meson)."""
import csv
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import tap  # noqa: E402  (tests/tap.py)

ckptsim = tap.executable(sys.argv[1])
root = tap.repo_root()
plot_py = str(root / "scripts" / "plot.py")
checks = tap.Tap(detail_lines=30, last=True)
report = checks.report


def plot(*args):
    p = subprocess.run([sys.executable, plot_py, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def clean_error(description, args, wanted):
    status, out, err = plot(*args)
    report(status == 2 and "Traceback" not in err and wanted in err and err.startswith("plot.py: error: "),
           description, f"exit {status}\n{err}")


have_matplotlib = importlib.util.find_spec("matplotlib") is not None
tmp = tempfile.mkdtemp()
out = os.path.join(tmp, "figures")
machines_sweep = "results/sweeps/ettr-vs-machines"
interval_sweep = "results/sweeps/interval-vs-failure-rate"

if not have_matplotlib:
    clean_error("without matplotlib: exit 2 naming python3-matplotlib", [machines_sweep, "-o", out], "python3-matplotlib")
    sys.exit(checks.finish("figures: matplotlib (python3-matplotlib) is not installed"))

# --- error paths
clean_error("an unknown --metric: exit 2 listing the metrics there are",
            [machines_sweep, "-o", out, "--kind", "line", "--metric", "etr"], "--metric etr: not a metric")
status, _, err = plot(machines_sweep, "-o", out, "--kind", "line", "--metric", "etr")
report("ettr" in err and "wasted_time_per_failure_s" in err, "the --metric message lists ettr and the other metrics", err)
clean_error("a SOURCE that does not exist", ["no/such/folder", "-o", out], "no such file or folder")
clean_error("a folder that is not a sweep", ["scenarios", "-o", out], "not a sweep folder")
clean_error("a file that is no plot source", ["scenarios/paper/gpt2-100b-16xp4d.json", "-o", out],
            "neither a sweep folder")
clean_error("a file that is not JSON", ["README.md", "-o", out], "README.md")
clean_error("an unknown --where axis", [machines_sweep, "-o", out, "--where", "nodes=4"], "no axis 'nodes'")
clean_error("--where that keeps no point", [machines_sweep, "-o", out, "--where", "machines=3"], "no valid points")
clean_error("--formats with an unknown format", [machines_sweep, "-o", out, "--formats", "gif"], "--formats")

# --- one figure of each kind
def draws(description, args, names):
    status, stdout, err = plot(*args, "-o", out, "--formats", "png")
    files = [os.path.join(out, f"{n}.png") for n in names]
    report(status == 0 and all(os.path.getsize(f) > 1000 for f in files if os.path.exists(f))
           and all(os.path.exists(f) for f in files), description, f"exit {status}\n{stdout}\n{err}")


draws("line: ETTR against machines per strategy", [machines_sweep, "--kind", "line", "--x", "machines",
                                                    "--group", "strategy", "--name", "line"], ["line"])
draws("breakdown: stacked bars per strategy", [machines_sweep, "--kind", "breakdown", "--group", "strategy",
                                               "--where", "machines=1024", "--name", "breakdown"], ["breakdown"])
draws("heatmap: ETTR over machines and strategy", [machines_sweep, "--kind", "heatmap", "--x", "machines",
                                                   "--y", "strategy", "--name", "heatmap"], ["heatmap"])
draws("best: best interval against failure rate", [interval_sweep, "--kind", "best", "--x", "failure_rate",
                                                   "--over", "interval", "--name", "best"], ["best"])
placement = os.path.join(tmp, "placement.json")
with open(placement, "w") as f:
    subprocess.run([ckptsim, "placement", "--machines", "16", "--replicas", "2", "--json"], stdout=f, check=True)
draws("placement: P(recover) against k per scheme", [placement, "--name", "placement"], ["placement"])
trace = os.path.join(tmp, "trace.json")
subprocess.run([ckptsim, "iteration", "scenarios/paper/gpt2-100b-16xp4d.json", "--scheduler", "gemini",
                "--trace", trace, "--trace-machines", "2"], stdout=subprocess.DEVNULL, check=True)
draws("timeline: an iteration --trace file", [trace, "--name", "timeline"], ["timeline"])
clean_error("--kind line on a placement file", [placement, "-o", out, "--kind", "line"], "does not fit")

# --- what the figures say (plot.py's functions on captured figures, no pixels compared)
spec = importlib.util.spec_from_file_location("plot", plot_py)
plotmod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plotmod)
captured = []
plotmod.save = lambda fig, outdir, name, formats, written: captured.append(fig)


class Args:
    def __init__(self, **kw):
        self.__dict__.update(dict(x=None, y=None, group=None, over=None, metric="ettr", title=None, name=None,
                                  formats=["png"], machines=4, source="test"), **kw)


# Every category iteration --trace writes (workload/task_graph.cpp): recompute and boundary are
# compute on the compute stream, not checkpoint traffic.
for cat, group in (("forward", "compute"), ("recompute", "compute"), ("boundary", "compute"),
                   ("optimizer", "compute"), ("all-gather", "collectives"), ("all-reduce", "collectives"),
                   ("checkpoint-chunk", "checkpoint traffic"), ("gpu-to-cpu-copy", "copies to CPU memory"),
                   ("host", "host waits")):
    report(plotmod.trace_group(cat, "") == group, f"timeline colours category {cat} as {group}",
           plotmod.trace_group(cat, ""))
# A ckptsim-replay trace as output/trace_events.cpp's measured_trace writes it: otherData.source
# "measured", every slice with a "cat" (the plan's categories; checkpoint_send, checkpoint_copy
# and local_copy for the measured checkpoint traffic; "iteration" spans on the iterations track),
# iterations laid end to end: 3 iterations of compute, a collective and checkpoint traffic.
tracks = ["GPU compute (every GPU)", "gather stream", "pre-gather stream", "reduce stream",
          "NCCL stream (sharding group)", "NCCL stream (replicate group)", "host waits", "checkpoint chunks sent",
          "GPU-to-CPU copies (received chunks)", "GPU-to-CPU copy (local replica)", "iterations"]
events = [{"ph": "M", "pid": 0, "name": "process_name", "args": {"name": "rank 0"}}]
events += [{"ph": "M", "pid": 0, "tid": t, "name": "thread_name", "args": {"name": n}} for t, n in enumerate(tracks)]
for i in range(3):
    base = i * 1e6
    events += [{"ph": "X", "pid": 0, "tid": 10, "name": f"iteration {i}", "cat": "iteration", "ts": base, "dur": 8e5},
               {"ph": "X", "pid": 0, "tid": 0, "name": "forward S0", "cat": "forward", "ts": base, "dur": 4e5},
               {"ph": "X", "pid": 0, "tid": 1, "name": "all-gather S0", "cat": "all-gather", "ts": base + 4e5, "dur": 1e5},
               {"ph": "X", "pid": 0, "tid": 7, "name": "chunk 0 (copy 1)", "cat": "checkpoint_send", "ts": base + 5e5,
                "dur": 1e5},
               {"ph": "X", "pid": 0, "tid": 8, "name": "copy chunk 0", "cat": "checkpoint_copy", "ts": base + 6e5, "dur": 5e4},
               {"ph": "X", "pid": 0, "tid": 9, "name": "local replica", "cat": "local_copy", "ts": base + 6e5, "dur": 1e5}]
measured = {"traceEvents": events, "displayTimeUnit": "ms",
            "otherData": {"source": "measured", "backend": "mpi", "plan_hash": "0", "scheduler": "gemini"}}
plotmod.plot_timeline(measured, Args(), tmp, [])
fig = captured.pop()
title = fig.axes[0].get_title()
legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
report(title.startswith("3 iterations measured") and "measured by ckptsim-replay" in title
       and "predicted" not in title and "ckptsim iteration" not in title,
       "a replay trace of 3 iterations is titled as 3 measured iterations, not as a prediction", title)
report(legend == ["compute", "collectives", "checkpoint traffic", "copies to CPU memory", "iterations"],
       "a replay trace's checkpoint chunks and copies are coloured as such, nothing as 'other'", legend)
# The same trace as older replays wrote it (no "cat", no otherData): grouped by stream names.
legacy = {"traceEvents": [{k: v for k, v in e.items() if k != "cat"} for e in events], "displayTimeUnit": "ms"}
plotmod.plot_timeline(legacy, Args(), tmp, [])
fig = captured.pop()
title = fig.axes[0].get_title()
legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
report(title.startswith("3 iterations measured") and "other" not in legend,
       "an older replay trace (no categories) is titled as measured, its streams grouped by name", (title, legend))
# The binary's own prediction (iteration --trace above, 2 machines): one predicted iteration,
# every slice in a named group.
with open(trace) as f:
    plotmod.plot_timeline(json.load(f), Args(), tmp, [])
fig = captured.pop()
title = fig.axes[0].get_title()
legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
report(title.startswith("One iteration predicted") and "scheduler gemini" in title and "measured" not in title,
       "an iteration --trace file is titled as one predicted iteration", title)
report("other" not in legend and "checkpoint traffic" in legend, "iteration --trace: no slice coloured as 'other'",
       legend)

# Legend labels: at most 4 significant digits with the unit (not the CSV's 12 digits).
report(plotmod.legend_value("0.015000000000") == "0.015" and plotmod.legend_value("1.5%/machine/day") == "1.5 %/machine/day"
       and plotmod.legend_value('{"kind":"gemini"}') == "gemini", "legend values are short",
       [plotmod.legend_value("0.015000000000"), plotmod.legend_value("1.5%/machine/day")])
# Log axes: 16..4096 doubling and 0.25..16 doubling are log-spaced; 1, 2, 3, 4 and 10..100 by 10 are not.
report(plotmod.log_spaced([16, 32, 64, 128, 256]) and plotmod.log_spaced([0.25, 0.5, 1, 2, 4, 8, 16])
       and not plotmod.log_spaced([1, 2, 3, 4]) and not plotmod.log_spaced(list(range(10, 101, 10))),
       "log spacing is recognised (geometric or >= 100x), linear spacing is not")

# The best-interval figure of docs/sweeps.md labels both ends of its log axes.
sweep = plotmod.Sweep(interval_sweep, [])
plotmod.plot_best(sweep, Args(x="failure_rate", over="interval"), tmp, [])
fig = captured.pop()
ax = fig.axes[0]
ys = [y for line in ax.get_lines() for y in line.get_ydata()]
ticks = list(ax.get_yticks())
report(any(abs(t - min(ys)) < 1e-9 for t in ticks) and any(abs(t - max(ys)) < 1e-9 for t in ticks),
       "best: the y axis has ticks at the lowest and the highest best interval", (ticks, min(ys), max(ys)))
xs = [x for line in ax.get_lines() for x in line.get_xdata()]
report(ax.get_xscale() == "log" and min(xs) in list(ax.get_xticks()) and max(xs) in list(ax.get_xticks()),
       "best: the failure-rate axis is logarithmic with ticks at both ends", list(ax.get_xticks()))

# A line plot with confidence columns labels its band; the long title of docs/sweeps.md's figure
# is wrapped to fit.
sweep = plotmod.Sweep(machines_sweep, [])
long_title = "ETTR against cluster size, 1.5% of machines failing per day (GPT-2 100B, p4d.24xlarge, 7 days)"
plotmod.plot_line(sweep, Args(x="machines", group="strategy", title=long_title), tmp, [])
fig = captured.pop()
labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
report("95% confidence interval of the mean" in labels, "line: the confidence band has a legend entry", labels)
report(all(len(line) <= 72 for line in fig.axes[0].get_title().split("\n")), "line: a long title is wrapped",
       fig.axes[0].get_title())
report(fig.axes[0].get_xscale() == "log", "line: machines 16..4096 are on a log axis")

# A random-mode sweep (every point draws every axis): no legend of one entry per point.
rnd = os.path.join(tmp, "random")
os.makedirs(rnd)
with open(os.path.join(machines_sweep, "manifest.json")) as f:
    manifest = json.load(f)
manifest["spec"]["mode"] = "random"
manifest["axes"] = [{"name": "rate"}, {"name": "machines"}]
with open(os.path.join(rnd, "manifest.json"), "w") as f:
    json.dump(manifest, f)
with open(os.path.join(rnd, "points.csv"), "w") as f:
    f.write("index,rate,machines,status,ettr,ettr_ci95\n")
    for i in range(142):
        f.write(f"{i},{0.01 + i * 0.000123456789:.12f},{16 + 7 * i},ok,{0.9 - i * 0.001},0.001\n")
plotmod.plot_line(plotmod.Sweep(rnd, []), Args(x="machines", group="rate"), tmp, [])
fig = captured.pop()
legend = fig.axes[0].get_legend()
report(legend is None or len(legend.get_texts()) <= plotmod.MAX_LEGEND_ENTRIES,
       "random mode: 142 values of the group axis give a colour scale, not 142 legend entries",
       None if legend is None else len(legend.get_texts()))
report(len(fig.axes) == 2, "random mode: the colour scale has its colour bar")

# An axis whose values are written in different units is not put on one numeric scale: 1.5 in
# %/machine/day is 1.7e-7 /s and 0.001 in /machine/h is 2.8e-7 /s, so the numbers 1.5 and 0.001
# would order them the wrong way round. It becomes a categorical axis; one unit gives a numeric one.
mixed = os.path.join(tmp, "mixed-units")
os.makedirs(mixed)
with open(os.path.join(mixed, "manifest.json"), "w") as f:
    json.dump({"axes": [{"name": "rate"}], "spec": {"mode": "grid"}}, f)
with open(os.path.join(mixed, "points.csv"), "w") as f:
    f.write("index,rate,status,ettr,ettr_ci95\n0,1.5%/machine/day,ok,0.9,0.01\n1,0.001/machine/h,ok,0.8,0.01\n")
mixed_sweep = plotmod.Sweep(mixed, [])
report(not mixed_sweep.numeric("rate") and mixed_sweep.axis_label("rate") == "rate",
       "an axis mixing units is categorical, with no single unit in its label",
       (mixed_sweep.numeric("rate"), mixed_sweep.axis_label("rate")))
same = os.path.join(tmp, "same-units")
os.makedirs(same)
with open(os.path.join(same, "manifest.json"), "w") as f:
    json.dump({"axes": [{"name": "rate"}], "spec": {"mode": "grid"}}, f)
with open(os.path.join(same, "points.csv"), "w") as f:
    f.write("index,rate,status,ettr,ettr_ci95\n0,1.5%/machine/day,ok,0.9,0.01\n1,3%/machine/day,ok,0.8,0.01\n")
same_sweep = plotmod.Sweep(same, [])
report(same_sweep.numeric("rate") and same_sweep.axis_label("rate") == "rate (%/machine/day)",
       "an axis in one unit is numeric, labelled with that unit", same_sweep.axis_label("rate"))


def sweep_folder(name, axes, header, rows):
    """A sweep folder written by hand: manifest with `axes`, points.csv with `header` and `rows`."""
    folder = os.path.join(tmp, name)
    os.makedirs(folder)
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump({"axes": [{"name": a} for a in axes], "spec": {"mode": "grid"}}, f)
    with open(os.path.join(folder, "points.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return folder


# Legend labels tell strategies of one kind apart by the fields in which they differ (the
# recovery comparison's two async-two-phase strategies: one to storage, one through a local tier
# of 12 GB/s uploaded every 30 min). Before, both read "async-two-phase".
to_storage = json.dumps({"kind": "async-two-phase", "every_iterations": 1})
local_tier = json.dumps({"kind": "async-two-phase", "every_iterations": 1, "local_bandwidth": "12GB/s",
                         "persistent_interval": "30min"})
gemini = json.dumps({"kind": "gemini"})
two_kinds = sweep_folder("same-kind", ["strategy", "machines"],
                         ["index", "strategy", "machines", "status", "ettr", "ettr_ci95", "restart_s"],
                         [[i * 2 + j, s, m, "ok", 0.9 - 0.01 * i, 0.001, 60]
                          for i, s in enumerate([to_storage, local_tier, gemini]) for j, m in enumerate([16, 32])])
plotmod.plot_line(plotmod.Sweep(two_kinds, []), Args(x="machines", group="strategy"), tmp, [])
fig = captured.pop()
labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
want = ["async-two-phase (no local_bandwidth, no persistent_interval)",
        "async-two-phase (local_bandwidth=12GB/s, persistent_interval=30min)", "gemini"]
report(labels[:3] == want, "line: two strategies of one kind get labels naming the fields that differ", labels)
plotmod.plot_breakdown(plotmod.Sweep(two_kinds, []), Args(group="strategy"), tmp, [])
fig = captured.pop()
ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
report(ticks == want, "breakdown: the bars of two strategies of one kind are labelled apart", ticks)
# Numbers equal to 4 significant digits are shown as written rather than merged into one label.
# Numbers equal to 4 significant digits (both 0.1) are shown as written rather than merged.
close = sweep_folder("close-numbers", ["fraction", "machines"], ["index", "fraction", "machines", "status", "ettr"],
                     [[0, "0.100001", 16, "ok", 0.9], [1, "0.100001", 32, "ok", 0.8],
                      [2, "0.100002", 16, "ok", 0.7], [3, "0.100002", 32, "ok", 0.6]])
plotmod.plot_line(plotmod.Sweep(close, []), Args(x="machines", group="fraction"), tmp, [])
labels = [t.get_text() for t in captured.pop().axes[0].get_legend().get_texts()]
report(labels == ["0.100001", "0.100002"], "numbers that round to one label are shown as written", labels)
status, _, err = plot(two_kinds, "-o", out, "--kind", "line", "--where",
                      "strategy=async-two-phase (local_bandwidth=12GB/s, persistent_interval=30min)", "--formats", "png")
report(status == 0, "--where accepts a value's figure label", err)

# Breakdown: every part of the run's time breakdown but training is drawn, degraded throughput
# and live migration included. One point with each of the 8 parts a different number of hours
# (1..8 h): the stacked bar is 1 + 2 + ... + 8 = 36 h high, and each part's own segment is its
# hours.
# The run's time breakdown but training (run/run_model.hpp, TimeBreakdown), as the sweep names it.
parts = ["checkpoint_stall_s", "lost_progress_s", "detection_s", "replacement_wait_s", "retrieval_s", "restart_s",
         "degraded_s", "migration_s"]
hours = sweep_folder("hours", ["strategy"], ["index", "strategy", "status", "ettr"] + parts,
                     [[0, gemini, "ok", 0.5] + [3600 * (k + 1) for k in range(len(parts))],
                      [1, to_storage, "ok", 0.5] + [3600 * (k + 1) for k in range(len(parts))]])
plotmod.plot_breakdown(plotmod.Sweep(hours, []), Args(group="strategy"), tmp, [])
fig = captured.pop()
ax = fig.axes[0]
legend = [t.get_text() for t in ax.get_legend().get_texts()]
report("degraded (slowed steps)" in legend and "live migration" in legend and len(legend) == 8,
       "breakdown: degraded throughput and live migration have their own bars", legend)
heights = {}
for container, name in zip(ax.containers, legend):
    heights[name] = container.patches[0].get_height()
tops = [p.get_y() + p.get_height() for c in ax.containers for p in c.patches]
report(abs(max(tops) - 36) < 1e-9 and abs(heights["degraded (slowed steps)"] - 7) < 1e-9
       and abs(heights["live migration"] - 8) < 1e-9, "breakdown: the stacked bar is 36 h, degraded 7 h, migration 8 h",
       (max(tops), heights))
# A sweep whose points.csv lacks a part (written before degraded_s and migration_s were default
# metrics) says so in the title instead of leaving that time out silently.
old = sweep_folder("old-breakdown", ["strategy"], ["index", "strategy", "status", "ettr"] + parts[:6],
                   [[0, gemini, "ok", 0.5] + [60] * 6, [1, to_storage, "ok", 0.5] + [60] * 6])
plotmod.plot_breakdown(plotmod.Sweep(old, []), Args(group="strategy"), tmp, [])
title = captured.pop().axes[0].get_title().replace("\n", " ")
report("not drawn" in title and "degraded_s" in title and "migration_s" in title,
       "breakdown: parts missing from points.csv are named in the title", title)
# A run without live migration has no migration part (run/monte_carlo.cpp), so the sweep leaves
# migration_s empty: that is no time spent migrating, drawn as 0 h, and the title names nothing
# as missing; the bar is the other 7 parts, 1 + 2 + ... + 7 = 28 h.
no_migration = sweep_folder("no-migration", ["strategy"], ["index", "strategy", "status", "ettr"] + parts,
                            [[0, gemini, "ok", 0.5] + [3600 * (k + 1) for k in range(7)] + [""],
                             [1, to_storage, "ok", 0.5] + [3600 * (k + 1) for k in range(7)] + [""]])
plotmod.plot_breakdown(plotmod.Sweep(no_migration, []), Args(group="strategy"), tmp, [])
ax = captured.pop().axes[0]
tops = [p.get_y() + p.get_height() for c in ax.containers for p in c.patches]
legend = [t.get_text() for t in ax.get_legend().get_texts()]
report("not drawn" not in ax.get_title() and abs(max(tops) - 28) < 1e-9 and "live migration: none" in legend,
       "breakdown: an empty migration_s (no live migration) is 0 h, 'none' in the legend, not a missing part",
       (ax.get_title(), max(tops), legend))
# The binary's own sweep writes both columns (sweep/spec.cpp's default run metrics). GPT-2 100B on
# 16 p4d under torchft with 2 replica groups, 20 % of machines failing per day for 3 days (about
# 10 failures a run): a group out of the quorum slows the step, so degraded time is above zero,
# and the parts of the time breakdown add up to the 3-day wall time, 259,200 s.
spec = os.path.join(tmp, "torchft-sweep.json")
with open(spec, "w") as f:
    json.dump({"base": str(root / "scenarios/paper/gpt2-100b-16xp4d.json"), "command": "run", "mode": "grid", "seed": 1,
               "axes": [{"pointer": "/strategy", "name": "strategy", "values": [{"kind": "torchft", "replica_groups": 2}]},
                        {"pointer": "/failures/rate", "name": "rate", "values": ["20%/machine/day"]},
                        {"pointer": "/run/duration", "name": "duration", "values": ["3d"]},
                        {"pointer": "/run/replicas", "name": "replicas", "values": [2]}]}, f)
swept = os.path.join(tmp, "torchft-swept")
p = subprocess.run([ckptsim, "sweep", spec, "-o", swept, "--quiet", "--jobs", "1"], capture_output=True, text=True,
                   timeout=300)
row = {}
if p.returncode == 0:
    with open(os.path.join(swept, "points.csv")) as f:
        row = next(csv.DictReader(f))
total = sum(float(row.get(c) or 0) for c in ["training_s"] + parts) if row.get("status") == "ok" else 0
report(row.get("status") == "ok" and "degraded_s" in row and "migration_s" in row and float(row["degraded_s"]) > 0
       and abs(total - 259200) < 1e-6 * 259200,
       "ckptsim sweep writes degraded_s and migration_s; with them the parts add up to the wall time",
       (p.stderr, row, total))

# --kind best over an axis whose values mix units: "30min" and "1h" are 1800 s and 3600 s, so
# their written numbers (30 and 1) would put 30 min above 1 h. Without the SI column the sweep
# writes beside such an axis, exit 2 naming the axis and both units; with it (interval_s), the best
# interval is placed in seconds: at rate 1 the best ETTR is at 1h (3600 s), at rate 2 at 30min
# (1800 s).
best_rows = [[0, "1%/machine/day", "30min", 1800, "ok", 0.80], [1, "1%/machine/day", "1h", 3600, "ok", 0.90],
             [2, "2%/machine/day", "30min", 1800, "ok", 0.85], [3, "2%/machine/day", "1h", 3600, "ok", 0.70]]
no_si = sweep_folder("best-mixed", ["rate", "interval"], ["index", "rate", "interval", "status", "ettr"],
                     [r[:3] + r[4:] for r in best_rows])
status, stdout, err = plot(no_si, "-o", os.path.join(tmp, "best-mixed-out"), "--kind", "best", "--x", "rate",
                           "--over", "interval")
report(status == 2 and "'interval'" in err and "'min'" in err and "'h'" in err and stdout == "",
       "best: an axis mixing units without an SI column exits 2 naming the axis and its units", f"exit {status}\n{err}")
with_si = sweep_folder("best-mixed-si", ["rate", "interval"], ["index", "rate", "interval", "interval_s", "status", "ettr"],
                       best_rows)
status, stdout, err = plot(with_si, "-o", os.path.join(tmp, "best-si-out"), "--kind", "best", "--x", "rate",
                           "--over", "interval", "--formats", "png")
report(status == 0 and stdout.strip().endswith(".png"), "best: an axis mixing units with its SI column is drawn", err)
plotmod.plot_best(plotmod.Sweep(with_si, []), Args(x="rate", over="interval"), tmp, [])
ax = captured.pop().axes[0] if captured else None
ys = [list(line.get_ydata()) for line in ax.get_lines()] if ax else "no figure"
report(ys == [[3600.0, 1800.0]] and ax.get_ylabel() == "best interval (s)",
       "best: mixed-unit intervals are placed in seconds (3600 s, then 1800 s)", (ys, ax and ax.get_ylabel()))
one_axis = sweep_folder("one-axis", ["rate"], ["index", "rate", "status", "ettr"],
                        [[0, "1%/machine/day", "ok", 0.9], [1, "2%/machine/day", "ok", 0.8]])
clean_error("--kind best with one varying axis exits 2 instead of writing nothing",
            [one_axis, "-o", out, "--kind", "best"], "--kind best needs two axes")

sys.exit(checks.finish())
