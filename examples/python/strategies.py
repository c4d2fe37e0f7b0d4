#!/usr/bin/env python3
# %% [markdown]
# # ckptsim from Python: strategies, failure rates and placements
#
# A notebook-style script (cells marked `# %%`; run it whole with python3, or cell by cell in an
# editor that knows the markers). It needs the module built (`scripts/build`, with Debian's
# python3-pybind11 and python3-dev) and on the path:
#
#     PYTHONPATH=build/python python3 examples/python/strategies.py [REPLICAS]
#
# Every call returns the dict that the command's JSON output holds: `ckptsim.run` the report of
# `ckptsim run -o FILE`, `ckptsim.analyze` that of `analyze --json`, `ckptsim.iteration` that of
# `iteration --json`, `ckptsim.placement` that of `placement --json`.

# %%
import copy
import json
import pathlib
import sys

import ckptsim

root = pathlib.Path(__file__).resolve().parents[2]
replicas = int(sys.argv[1]) if len(sys.argv) > 1 else 50
with open(root / "scenarios/paper/gpt2-100b-16xp4d.json") as f:
    base = json.load(f)  # the paper's setting: GPT-2 100B on 16 p4d.24xlarge machines
base.pop("$schema", None)

# %% [markdown]
# ## Strategies at a higher failure rate
# A scenario is a plain dict: change a field and run it. The summary holds each metric's mean,
# standard deviation and 95% interval.

# %%
print(f"{'strategy':<22} {'ETTR':>8} {'± ci95':>8} {'wasted s/failure':>17}")
for kind in ("gemini", "in-memory-blocking", "remote-highfreq", "remote-periodic"):
    scenario = copy.deepcopy(base)
    scenario["strategy"] = {"kind": kind}
    scenario["failures"]["rate"] = "5%/machine/day"
    summary = ckptsim.run(scenario, replicas=replicas, seed=1, jobs=0)["summary"]
    wasted = summary["wasted_time_per_failure_s"]["mean"]
    print(f"{kind:<22} {summary['ettr']['mean']:>8.4f} {summary['ettr']['ci95']:>8.4f} "
          f"{wasted if wasted is not None else float('nan'):>17.1f}")

# %% [markdown]
# ## Closed forms beside the simulation
# `analyze` flags every metric whose closed form lies outside the simulated 95% interval.

# %%
report = ckptsim.analyze(base, replicas=replicas, seed=1)
print(f"\nclosed-form ETTR {report['metrics']['ettr']['closed']:.4f}, simulated "
      f"{report['metrics']['ettr']['simulated']['mean']:.4f}; {report['disagreements']} disagreement(s)")

# %% [markdown]
# ## One iteration and the traffic schedulers

# %%
iteration = ckptsim.iteration(base, scheduler="gemini")
gemini = iteration["schedulers"]["gemini"]
print(f"iteration {iteration['iteration_time_s']:.2f} s; with GEMINI's checkpoint traffic "
      f"{gemini['iteration_time_with_checkpoint_s']:.2f} s")

# %% [markdown]
# ## Where the replicas go: P(recover from CPU memory) after k failures

# %%
placement = ckptsim.placement(machines=16, replicas=2, failures=(0, 4), scheme=["group", "ring"])
for name, scheme in placement["schemes"].items():
    print(f"{name:<6} " + "  ".join(f"k={k}: {p:.4f}" for k, p in zip(scheme["k"], scheme["probability"])))

# %% [markdown]
# ## Errors
# A bad field raises ckptsim.InputError with the command line's message (file, JSON pointer,
# what was expected, what was found); `.problems` holds them as dicts.

# %%
broken = copy.deepcopy(base)
broken["storage"]["bandwidth"] = "20 parsecs"
try:
    ckptsim.run(broken)
except ckptsim.InputError as e:
    print(f"\nInputError: {e}")
    print(f"pointer {e.problems[0]['pointer']}, found {e.problems[0]['found']}")
