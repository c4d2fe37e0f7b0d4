#!/usr/bin/env python3
"""Checks examples/extend's report (a scheduler registered out of tree) against the command line.

  extend_check.py EXTEND CKPTSIM SCENARIO...

Runs EXTEND (built against the installed library; LD_LIBRARY_PATH as the caller set it) with 5
replicas on the scenarios, and `CKPTSIM iteration SCENARIO --json` on each, then checks what
follows from the front-load scheduler's definition, independently of its code:
  - its plan sends every byte of the checkpoint once per remote copy: the bytes it reports sent
    equal the command line's shard_bytes_per_gpu x (strategy.replicas - 1) of the scenario file
    (m = 2 when the file does not say);
  - the iteration without a checkpoint is the command line's, and with front-load's checkpoint it
    is no shorter (a checkpoint cannot speed training up);
  - gemini's iteration with a checkpoint, reported beside it, is the command line's for gemini
    (the registered scheduler changed nothing of the built-ins);
  - where no idle span holds the checkpoint, front-load's plan is the blocking plan: its
    iteration is the command line's for blocking;
  - the run's ETTR is in (0, 1].
Prints one line per check and exits 1 when any fails.
"""
import json
import re
import subprocess
import sys

extend, ckptsim, scenarios = sys.argv[1], sys.argv[2], sys.argv[3:]
out = subprocess.run([extend, "5", *scenarios], capture_output=True, text=True)
print(out.stdout + out.stderr, end="")
if out.returncode != 0:
    print(f"extend exited {out.returncode}")
    sys.exit(1)
reports = re.split(r"\n(?=\S)", out.stdout.strip())
failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAILED: ") + what)
    failed += not ok


check(len(reports) == len(scenarios), f"{len(scenarios)} reports")
for path, text in zip(scenarios, reports):
    cli = json.loads(subprocess.run([ckptsim, "iteration", path, "--json"], capture_output=True, text=True, check=True).stdout)
    with open(path) as f:
        replicas = json.load(f).get("strategy", {}).get("replicas", 2)
    sent, copies, shard = re.search(r"sent (\d+) bytes = (\d+) copies x (\d+)-byte shard", text).groups()
    expected = float(cli["shard_bytes_per_gpu"]) * (replicas - 1)
    check(abs(float(sent) - expected) <= 1 + 1e-9 * expected, f"{path}: sent {sent} bytes = shard x (m - 1) = {expected:.0f}")
    without, mine, gemini = map(float, re.search(r"iteration: ([\d.]+) s without a checkpoint, ([\d.]+) s with front-load, "
                                                r"([\d.]+) s with gemini", text).groups())
    cli_gemini = cli["schedulers"]["gemini"]
    check(abs(without - cli_gemini["iteration_time_s"]) <= 5e-4, f"{path}: iteration without a checkpoint {without} s, as the CLI's")
    check(mine >= without, f"{path}: with front-load's checkpoint {mine} s >= {without} s")
    check(abs(gemini - cli_gemini["iteration_time_with_checkpoint_s"]) <= 5e-4, f"{path}: gemini's {gemini} s, as the CLI's")
    if "no idle span holds it: blocking" in text:
        blocking = cli["schedulers"]["blocking"]["iteration_time_with_checkpoint_s"]
        check(abs(mine - blocking) <= 5e-4, f"{path}: falls back to blocking: {mine} s, the CLI's blocking {blocking:.3f} s")
    ettr = float(re.search(r"ETTR ([\d.]+)", text).group(1))
    check(0 < ettr <= 1, f"{path}: ETTR {ettr} in (0, 1]")
sys.exit(1 if failed else 0)
