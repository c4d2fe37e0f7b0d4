#!/usr/bin/env python3
# %% [markdown]
# # A parallel search over the Python module: Ray when it is installed, else multiprocessing
#
# Which remote-checkpoint interval loses the least time on the paper's testbed at a given failure
# rate? Each candidate interval is one evaluation (`ckptsim.analyze`: the closed form beside a
# short Monte Carlo), and the evaluations run in parallel. On a Ray cluster each is a Ray task
# (`ray.remote`, `ray.get`); without Ray the same function runs in a `multiprocessing.Pool`, so
# the call and the result are the same either way. Run it with the module on the path:
#
#     PYTHONPATH=build/python python3 examples/python/search.py [WORKERS] [REPLICAS]
#
# Optuna's or Ray Tune's searchers call an objective of the same shape: `evaluate(interval_s)`
# below returning the closed-form ETTR (docs/python.md).

# %%
import copy
import json
import multiprocessing
import pathlib
import sys

import ckptsim

root = pathlib.Path(__file__).resolve().parents[2]
workers = 2    # processes (or Ray CPUs); the command line's first argument
replicas = 20  # Monte Carlo replicas beside each closed form; its second
with open(root / "scenarios/paper/gpt2-100b-16xp4d.json") as f:
    BASE = json.load(f)
BASE.pop("$schema", None)
BASE["failures"]["rate"] = "5%/machine/day"


def evaluate(interval_s):
    """One candidate: remote checkpoints every interval_s seconds. Returns the interval, the
    closed-form ETTR and the simulated one with its 95% interval."""
    scenario = copy.deepcopy(BASE)
    scenario["strategy"] = {"kind": "remote-periodic", "interval": f"{interval_s}s"}
    ettr = ckptsim.analyze(scenario, replicas=replicas, seed=1)["metrics"]["ettr"]
    return interval_s, ettr["closed"], ettr["simulated"]["mean"], ettr["simulated"]["ci95"]


def evaluate_all(candidates):
    """Ray tasks when Ray is installed, else a process pool: the same function and results."""
    try:
        import ray  # noqa: PLC0415 (optional)
    except ImportError:
        with multiprocessing.Pool(workers) as pool:
            return "multiprocessing", pool.map(evaluate, candidates)
    ray.init(num_cpus=workers, ignore_reinit_error=True)
    task = ray.remote(evaluate)
    return "ray", ray.get([task.remote(c) for c in candidates])


# %% [markdown]
# ## Intervals from 10 minutes to 4 hours

# %%
if __name__ == "__main__":
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else workers
    replicas = int(sys.argv[2]) if len(sys.argv) > 2 else replicas
    candidates = [600, 1200, 1800, 2700, 3600, 5400, 7200, 14400]
    engine, results = evaluate_all(candidates)
    print(f"{len(results)} evaluations on {engine} with {workers} workers")
    print(f"{'interval (s)':>12} {'ETTR closed':>12} {'simulated':>10} {'± ci95':>8}")
    for interval_s, closed, simulated, ci95 in results:
        print(f"{interval_s:>12} {closed:>12.4f} {simulated:>10.4f} {ci95:>8.4f}")
    best = max(results, key=lambda r: r[1])
    print(f"best interval by the closed form: {best[0]} s (ETTR {best[1]:.4f})")
