#!/usr/bin/env python3
"""A checkpoint traffic scheduler written in Python (ckptsim.register_scheduler), TAP output.

The library calls the Python function from whichever thread plans (the GIL is released while the
library works); each check below states where its expected value comes from.
Usage: scheduler_test.py (with the module's folder on PYTHONPATH; run from anywhere).
"""
import json
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import tap  # noqa: E402  (tests/tap.py)

root = tap.repo_root()
import ckptsim  # noqa: E402  (found through PYTHONPATH, set by tests/python/meson.build)

checks = tap.Tap(detail_lines=40)
report = checks.report
ZERO3 = "scenarios/paper/gpt2-100b-16xp4d.json"
MEGATRON = "scenarios/examples/gpt3-175b-megatron-1024xa100.json"


def with_scheduler(path, name):
    doc = json.load(open(path))
    doc.setdefault("strategy", {})["scheduler"] = name
    return doc


def raised(call):
    """The exception `call()` raises, or None."""
    try:
        call()
    except Exception as e:  # noqa: BLE001  (the type is what the checks look at)
        return e
    return None


# --- the list: the four built-ins first (scheduler.hpp's registry), none registered yet.
names = [s["name"] for s in ckptsim.schedulers()]
report(names == ["blocking", "naive", "single-buffer", "gemini"] and all(s["builtin"] for s in ckptsim.schedulers()),
       "schedulers() lists the four built-ins, in order", names)

# --- delegation: a function that returns a built-in's name gets that built-in's plan, so its
# iteration row must equal the built-in's field for field, on ZeRO-3 and on Megatron (whose span
# groups each get a plan of their own), but for min_every_iterations: a registered plan that
# blocks training hides at no k, 100001 (iteration_study.hpp: the search limit 100,000 plus one),
# where the built-in blocking reports gemini's partition's k (it has no spans of its own).
ckptsim.register_scheduler("py-blocking", "the built-in blocking plan, from Python", lambda plan_input: "blocking")
for path in (ZERO3, MEGATRON):
    mine = ckptsim.iteration(path, scheduler="py-blocking")["schedulers"]["py-blocking"]
    builtin = ckptsim.iteration(path, scheduler="blocking")["schedulers"]["blocking"]
    never = mine.pop("min_every_iterations")
    builtin.pop("min_every_iterations")
    report(mine == builtin and never == 100001,
           f"a Python scheduler returning \"blocking\" plans as blocking does: {path}", f"{mine}\nvs\n{builtin}; k {never}")
listed = ckptsim.schedulers()[-1]
report(listed == {"name": "py-blocking", "description": "the built-in blocking plan, from Python", "builtin": False},
       "schedulers() lists the registration last, with its description", listed)
report("py-blocking" in ckptsim.iteration(ZERO3)["schedulers"], "iteration(scheduler=\"all\") compares it too")

# --- a plan written in Python: every copy's shard in chunks of R/p, back to back before training
# (span -1), sub-buffers in turn, each chunk costing alpha + bytes/B. Hand counts from the input
# the function receives: ceil(C / (R/p)) chunks per copy; each sub-buffer's largest chunk is R/p,
# so the buffer reserved is p x R/p = R (plan.hpp's buffer_bytes); the plan blocks training.
seen = []


def back_to_back(plan_input):
    seen.append(plan_input)
    chunk = plan_input["buffer_bytes"] / plan_input["sub_buffers"]
    chunks, offset = [], 0.0
    for copy in range(plan_input["copies"]):
        left = plan_input["shard_bytes"]
        while left > 0:
            size = min(chunk, left)
            chunks.append({"copy": copy, "span": -1, "offset": offset, "bytes": size,
                           "sub_buffer": len(chunks) % plan_input["sub_buffers"]})
            offset += plan_input["alpha"] + size / plan_input["bandwidth"]
            left -= size
    return {"chunks": chunks, "sub_buffers": plan_input["sub_buffers"], "chunk_limit": chunk, "blocks_training": True}


ckptsim.register_scheduler("back-to-back", "every chunk before training, chunks of R/p", back_to_back)
row = ckptsim.iteration(ZERO3, scheduler="back-to-back")["schedulers"]["back-to-back"]
given = seen[-1]
per_copy = math.ceil(given["shard_bytes"] / (given["buffer_bytes"] / given["sub_buffers"]))
report(row["chunks_per_rank"] == per_copy * given["copies"], "a Python plan's chunk count is ceil(C/(R/p)) per copy",
       f"{row['chunks_per_rank']} vs {per_copy} x {given['copies']}")
report(abs(row["gpu_buffer_bytes"] - given["buffer_bytes"]) <= 1e-6 * given["buffer_bytes"],
       "a Python plan of R/p chunks over p sub-buffers reserves R", f"{row['gpu_buffer_bytes']} vs {given['buffer_bytes']}")
report(row["iteration_time_with_checkpoint_s"] > row["iteration_time_s"] and row["fits_in_one_iteration"] is False,
       "a blocking Python plan makes the iteration longer and never fits in one iteration", row)
report(isinstance(given["spans"], list) and all(set(s) == {"start", "length"} for s in given["spans"]),
       "the input's spans are {start, length} in seconds", given["spans"][:2])

# --- the run model calls it from worker threads: 2 threads give the 1-thread result (outputs are
# the same for any thread count), and the delegating scheduler runs as the built-in does (the same
# plan, the same draws), the scheduler's name aside.
doc = with_scheduler(ZERO3, "py-blocking")
one = ckptsim.run(doc, replicas=6, jobs=1)
two = ckptsim.run(doc, replicas=6, jobs=2)
report(one["summary"] == two["summary"], "a Python scheduler's run is the same on 1 and 2 threads")
builtin = ckptsim.run(with_scheduler(ZERO3, "blocking"), replicas=6, jobs=2)
report(one["summary"] == builtin["summary"], "a run with the delegating scheduler equals the built-in's")

# --- refusals: each a ModelError at /strategy/scheduler naming the scheduler, the place and what
# was expected (the result is read before the plan is checked), or the plan contract's rule.
cases = [
    ("py-number", lambda i: 42, "expected a plan dict or a built-in scheduler's name, found 42"),
    ("py-raises", lambda i: i["no such key"], "raised KeyError"),
    ("py-no-chunks", lambda i: {"sub_buffers": 1}, "expected a \"chunks\" list, found none"),
    ("py-bad-bytes", lambda i: {"chunks": [{"copy": 0, "span": 0, "offset": 0.0, "bytes": "9GB"}]},
     "at chunks[0].bytes: expected a number, found '9GB'"),
    ("py-unknown-key", lambda i: {"chunks": [], "chunk": 1}, "found \"chunk\""),
    ("py-not-builtin", lambda i: "py-blocking", "expected a built-in scheduler's name"),
]
for name, function, expected in cases:
    ckptsim.register_scheduler(name, "refused", function)
    e = raised(lambda: ckptsim.iteration(ZERO3, scheduler=name))
    report(isinstance(e, ckptsim.ModelError) and e.parameter == "/strategy/scheduler" and f"\"{name}\"" in str(e)
           and expected in str(e), f"{name}: refused with a ModelError naming it", repr(e))

# One 1-byte chunk for a shard of gigabytes breaks the contract (every copy's bytes add up to the
# shard: plan_check.hpp): refused by the check, never simulated.
ckptsim.register_scheduler("py-short", "too few bytes", lambda i: {"chunks": [{"copy": 0, "span": 0, "offset": 0.0, "bytes": 1}]})
e = raised(lambda: ckptsim.iteration(ZERO3, scheduler="py-short"))
report(isinstance(e, ckptsim.ModelError) and "py-short" in str(e), "a plan that breaks the contract is refused", repr(e))

# Names: taken (a built-in or earlier registration) and reserved ones are InputErrors.
for name in ("gemini", "py-blocking", "all", ""):
    e = raised(lambda: ckptsim.register_scheduler(name, "again", lambda i: "blocking"))
    report(isinstance(e, ckptsim.InputError), f"register_scheduler refuses the name {name!r}", repr(e))
e = raised(lambda: ckptsim.register_scheduler("py-not-callable", "x", 42))
report(isinstance(e, TypeError), "register_scheduler refuses a plan that is not callable", repr(e))

sys.exit(checks.finish())
