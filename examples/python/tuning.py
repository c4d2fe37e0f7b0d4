#!/usr/bin/env python3
# %% [markdown]
# # ckptsim from Python: tuning a strategy with optimize and sweep
#
# A notebook-style script (cells marked `# %%`; run it whole with python3, or cell by cell in an
# editor that knows the markers). Install the module with pip into a virtual environment (offline,
# against the Debian packages scripts/install-deps installs; docs/python.md, "Installing with pip"),
# from the source tree:
#
#     /usr/bin/python3 -m venv --system-site-packages ~/ckptsim-venv
#     ~/ckptsim-venv/bin/pip install --no-build-isolation .
#     ~/ckptsim-venv/bin/python examples/python/tuning.py [REPLICAS]
#
# or use the build folder's module: `PYTHONPATH=build/python python3 examples/python/tuning.py`.
# `ckptsim.optimize` returns the document of `ckptsim optimize --json`; `ckptsim.sweep` writes the
# files of `ckptsim sweep -o DIR` (into a temporary folder without output=) and returns its
# manifest.json and the records of points.jsonl.

# %%
import copy
import json
import pathlib
import sys

import ckptsim

root = pathlib.Path(__file__).resolve().parents[2]
replicas = int(sys.argv[1]) if len(sys.argv) > 1 else 20
with open(root / "scenarios/paper/gpt2-100b-16xp4d.json") as f:
    base = json.load(f)  # the paper's setting: GPT-2 100B on 16 p4d.24xlarge machines
base.pop("$schema", None)
base["failures"]["rate"] = "5%/machine/day"
print(f"ckptsim {ckptsim.__version__}")

# %% [markdown]
# ## The best checkpoint settings at 5% failures per machine per day
# Every combination of the values given per JSON pointer is loaded, checked against CPU and GPU
# memory and ranked by its closed-form ETTR (replicas=N ranks by the Monte Carlo mean instead).

# %%
result = ckptsim.optimize(base, vary={"/strategy/replicas": [2, 3, 4], "/strategy/every_iterations": [1, 2, 4]})
print(f"ranked by {result['ranking']}")
print(f"{'replicas':>8} {'every':>5} {'ETTR':>7}  status")
for c in result["candidates"]:
    ettr = f"{c['ettr']:.4f}" if c["status"] == "ok" else "-"
    status = c["status"] if c["status"] == "ok" else f"{c['status']}: {c['reason'][:80]}"
    print(f"{c['settings']['/strategy/replicas']:>8} {c['settings']['/strategy/every_iterations']:>5} {ettr:>7}  {status}")
print(f"best: {result['best']['settings']}, ETTR {result['best']['ettr']:.4f}")
if result["runner_up"]:
    print(f"the runner-up lost because of {result['why_runner_up_lost']}")

# %% [markdown]
# ## GEMINI against the Strawman over failure rates
# A sweep spec is a dict too (docs/sweep-format.md); its base may be the scenario itself. Each
# point's record holds the axis values, a status and the run report.

# %%
spec = {"base": copy.deepcopy(base), "seed": 7,
        "axes": [{"pointer": "/strategy", "name": "strategy",
                  "values": [{"kind": "gemini"}, {"kind": "remote-periodic"}]},
                 {"pointer": "/failures/rate", "name": "rate",
                  "values": ["1%/machine/day", "5%/machine/day", "10%/machine/day"]},
                 {"pointer": "/run/replicas", "values": [replicas]}]}
sweep = ckptsim.sweep(spec, jobs=0)
print(f"{sweep['manifest']['point_count']} points, spec hash {sweep['manifest']['spec_hash']}")
print(f"{'strategy':<16} {'rate':<16} {'ETTR':>7} {'± ci95':>7}")
for point in sweep["points"]:
    strategy, rate, _ = point["values"]
    ettr = point["result"]["summary"]["ettr"]
    print(f"{strategy['kind']:<16} {rate:<16} {ettr['mean']:>7.4f} {ettr['ci95']:>7.4f}")

# %% [markdown]
# ## Bad arguments
# Bad input raises the exceptions of the other functions: here ckptsim.ModelError naming vary.

# %%
try:
    ckptsim.optimize(base, vary={"strategy/replicas": [2]})
except ckptsim.ModelError as e:
    print(f"ModelError: {e}")
