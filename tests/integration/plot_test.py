#!/usr/bin/env python3
"""scripts/plot.py: its error paths (exit 2 and a message, no traceback) and a smoke test of every
kind of figure, TAP output. Without matplotlib (Debian python3-matplotlib) only the message that
names the missing package is checked and the figures are skipped.
Usage: plot_test.py CKPTSIM (run by meson test under the Python that runs Meson)."""
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
# A ckptsim-replay trace (replay/timeline.cpp: no "cat"; streams named by thread_name; iterations
# laid end to end, one local replica copy each): 3 iterations of compute and chunks.
names = ["GPU compute", "all-gather", "reduce-scatter", "checkpoint chunks sent",
         "GPU-to-CPU copies (received chunks)", "GPU-to-CPU copy (local replica)"]
events = [{"ph": "M", "pid": 0, "name": "process_name", "args": {"name": "rank 0"}}]
events += [{"ph": "M", "pid": 0, "tid": t, "name": "thread_name", "args": {"name": n}} for t, n in enumerate(names)]
for i in range(3):
    base = i * 1e6
    events += [{"ph": "X", "pid": 0, "tid": 0, "name": "forward S0", "ts": base, "dur": 4e5},
               {"ph": "X", "pid": 0, "tid": 1, "name": "all-gather S0", "ts": base + 4e5, "dur": 1e5},
               {"ph": "X", "pid": 0, "tid": 3, "name": "chunk 0 (copy 1)", "ts": base + 5e5, "dur": 1e5},
               {"ph": "X", "pid": 0, "tid": 5, "name": "local replica", "ts": base + 6e5, "dur": 1e5}]
plotmod.plot_timeline({"traceEvents": events, "displayTimeUnit": "ms"}, Args(), tmp, [])
fig = captured.pop()
title = fig.axes[0].get_title()
legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
report(title.startswith("3 iterations"), "a replay trace of 3 iterations is titled so", title)
report(legend == ["compute", "collectives", "checkpoint traffic", "copies to CPU memory"],
       "a replay trace's streams are coloured by their names (compute, collectives, checkpoint, copies)", legend)

# Legend labels: at most 4 significant digits with the unit (not the CSV's 12 digits).
report(plotmod.legend_value("0.015000000000") == "0.015" and plotmod.legend_value("1.5%/machine/day") == "1.5 %/machine/day"
       and plotmod.legend_value('{"kind":"gemini"}') == "gemini", "legend values are short",
       [plotmod.legend_value("0.015000000000"), plotmod.legend_value("1.5%/machine/day")])
# Log axes: 16..4096 doubling and 0.25..16 doubling are log-spaced; 1, 2, 3, 4 and 10..100 by 10 are not.
report(plotmod.log_spaced([16, 32, 64, 128, 256]) and plotmod.log_spaced([0.25, 0.5, 1, 2, 4, 8, 16])
       and not plotmod.log_spaced([1, 2, 3, 4]) and not plotmod.log_spaced(list(range(10, 101, 10))),
       "log spacing is recognised (geometric or >= 100x), linear spacing is not")

# The README's best-interval figure labels both ends of its log axes.
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

# A line plot with confidence columns labels its band; the long README title is wrapped to fit.
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

sys.exit(checks.finish())
