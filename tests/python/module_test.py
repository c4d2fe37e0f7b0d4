#!/usr/bin/env python3
"""The Python module (python/ckptsim_module.cpp) against the command line, TAP output.

Each of run, iteration, analyze and placement must return a dict EQUAL to the command's JSON
output (json.load of `run -o FILE`, `iteration --json`, `analyze --json`, `placement --json`),
except manifest.command_line, which names the call. A scenario given as a dict must give the
result of its file; bad input must raise an exception carrying the command line's message.
Usage: module_test.py CKPTSIM (with the module's folder on PYTHONPATH; run from anywhere).
"""
import copy
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import tap  # noqa: E402  (tests/tap.py)

ckptsim_exe = tap.executable(sys.argv[1])
root = tap.repo_root()
import ckptsim  # noqa: E402  (found through PYTHONPATH, set by tests/python/meson.build)

checks = tap.Tap(detail_lines=40)
report = checks.report


def cli(*args):
    """(exit status, stdout, stderr) of the command line."""
    p = subprocess.run([ckptsim_exe, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def without_call(doc):
    """The document with manifest.command_line removed: the one field that names how it was asked."""
    doc = copy.deepcopy(doc)
    doc.get("manifest", {}).pop("command_line", None)
    return doc


def first_difference(a, b, where=""):
    """The JSON pointer of the first value that differs, for the failure message."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}/{k}: only in {'the module' if k in a else 'the command line'}"
            d = first_difference(a[k], b[k], f"{where}/{k}")
            if d:
                return d
        return ""
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}/{i}")
            if d:
                return d
        return ""
    return "" if a == b else f"{where}: module {a!r}, command line {b!r}"


def check_equal(description, module_doc, cli_doc):
    a, b = without_call(module_doc), without_call(cli_doc)
    report(a == b, description, first_difference(a, b))


def cli_json(*args):
    status, out, err = cli(*args)
    if status != 0:
        raise RuntimeError(f"ckptsim {' '.join(args)} exited {status}: {err}")
    return json.loads(out)


def raised(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 (the test inspects whatever was raised)
        return e
    return None


paper = "scenarios/paper/gpt2-100b-16xp4d.json"
multi_level = "scenarios/examples/p4d-multi-level.json"
erasure = "scenarios/examples/llama3-405b-erasure-coded.json"

# --- run: ckptsim run -o FILE writes the document run() returns.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "run.json")
    status, _, err = cli("run", paper, "-r", "20", "-s", "7", "-q", "-o", out)
    with open(out) as f:
        cli_run = json.load(f)
check_equal("run(path, replicas=20, seed=7) equals `ckptsim run -r 20 -s 7 -o FILE`",
            ckptsim.run(paper, replicas=20, seed=7), cli_run)
check_equal("run(path, jobs=2) equals run(path, jobs=1): the thread count does not change the result",
            ckptsim.run(paper, replicas=20, seed=7, jobs=2), cli_run)
report(cli_run["manifest"]["command_line"] != ckptsim.run(paper, replicas=3)["manifest"]["command_line"]
       and "ckptsim.run" in ckptsim.run(paper, replicas=3)["manifest"]["command_line"],
       "the manifest's command line names the Python call")

# --- iteration
check_equal("iteration(path) equals `ckptsim iteration --json`", ckptsim.iteration(paper),
            cli_json("iteration", paper, "--json"))
check_equal("iteration(path, scheduler='gemini') equals `ckptsim iteration --scheduler gemini --json`",
            ckptsim.iteration(paper, scheduler="gemini"), cli_json("iteration", paper, "--scheduler", "gemini", "--json"))

# --- analyze: single-tier, multi-level (closed_form.multi_level) and erasure-coded (erasure_code).
for path, what in ((paper, "GEMINI"), (multi_level, "multi-level"), (erasure, "erasure-coded")):
    doc = ckptsim.analyze(path, replicas=10, seed=3)
    check_equal(f"analyze({what}, replicas=10, seed=3) equals `ckptsim analyze --json -r 10 -s 3`", doc,
                cli_json("analyze", path, "--json", "-r", "10", "-s", "3"))
report("multi_level" in ckptsim.analyze(multi_level, replicas=0)["closed_form"],
       "analyze() of a multi-level scenario carries closed_form.multi_level, as the command does")
report("erasure_code" in ckptsim.analyze(erasure, replicas=0),
       "analyze() of an erasure-coded scenario carries erasure_code, as the command does")

# --- placement
check_equal("placement(machines=16, replicas=2, window_probability='1%', shard_bytes='9.4GB') equals the command's --json",
            ckptsim.placement(machines=16, replicas=2, window_probability="1%", shard_bytes="9.4GB"),
            cli_json("placement", "--machines", "16", "--replicas", "2", "--window-probability", "1%",
                     "--shard-bytes", "9.4GB", "--json"))
check_equal("placement(failures=(1, 4), scheme=['random', 'ring'], monte_carlo=True, samples=500, seed=9) "
            "equals the command's --json",
            ckptsim.placement(machines=64, replicas=3, failures=(1, 4), scheme=["random", "ring"], monte_carlo=True,
                              samples=500, seed=9),
            cli_json("placement", "--machines", "64", "--replicas", "3", "--failures", "1..4", "--scheme",
                     "random,ring", "--monte-carlo", "--samples", "500", "--seed", "9", "--json"))
# Independent value: group placement, N = 4, m = 2 is the groups {0,1} and {2,3}; two failures lose
# a checkpoint only when they are one whole group: 2 of the C(4,2) = 6 failure sets, so
# P(recover | k = 2) = 4/6.
group = ckptsim.placement(machines=4, replicas=2, scheme="group")["schemes"]["group"]
report(abs(group["probability"][2] - 4 / 6) < 1e-12, "placement(N=4, m=2, group): P(recover | k=2) = 4/6",
       group["probability"])

# --- a dict gives the result of its file
with open(paper) as f:
    paper_dict = json.load(f)
# A file without "name" is named after itself (the bundled scenarios write none); a dict has no
# file name, so the dict names the scenario as its file would be named.
paper_dict.setdefault("name", pathlib.Path(paper).stem)
check_equal("run(dict) equals run(path) for the same document", ckptsim.run(paper_dict, replicas=20, seed=7), cli_run)
check_equal("analyze(dict) equals analyze(path)", ckptsim.analyze(paper_dict, replicas=5),
            ckptsim.analyze(paper, replicas=5))
check_equal("iteration(dict) equals iteration(path)", ckptsim.iteration(paper_dict), ckptsim.iteration(paper))
check_equal("run(pathlib.Path) equals run(str)", ckptsim.run(pathlib.Path(paper), replicas=4),
            ckptsim.run(paper, replicas=4))
changed = copy.deepcopy(paper_dict)
changed["cluster"]["machines"] = 32
report(ckptsim.run(changed, replicas=2)["scenario"]["cluster"]["machines"] == 32,
       "a changed dict is what runs (cluster.machines 32 in the effective scenario)")

# --- errors: the command line's message, file / pointer / expected / found
bad = "scenarios/invalid/bad-unit.json"
status, _, err = cli("run", bad)
cli_lines = [line[len("error: "):] for line in err.splitlines() if line.startswith("error: ")]
e = raised(lambda: ckptsim.run(bad))
report(isinstance(e, ckptsim.InputError) and isinstance(e, ValueError) and status == 2
       and str(e).splitlines() == cli_lines,
       "run(bad file) raises ckptsim.InputError (a ValueError) with the command line's message", f"{e!r}\n{err}")
report(isinstance(e, ckptsim.InputError) and e.problems[0]["file"] == bad
       and e.problems[0]["pointer"] == "/storage/bandwidth" and e.problems[0]["found"] == '"20Gbs"',
       "InputError.problems names file, pointer, expected and found", getattr(e, "problems", e))
for name, call in (("analyze", ckptsim.analyze), ("iteration", ckptsim.iteration)):
    e = raised(lambda: call(bad))
    report(isinstance(e, ckptsim.InputError) and str(e).splitlines() == cli_lines,
           f"{name}(bad file) raises the same InputError", repr(e))
bad_dict = json.load(open(bad))
e = raised(lambda: ckptsim.run(bad_dict))
report(isinstance(e, ckptsim.InputError) and e.problems[0]["file"] == "<dict>"
       and str(e) == "\n".join(line.replace(bad, "<dict>", 1) for line in cli_lines),
       "run(bad dict) raises the same message, naming <dict> as the file", repr(e))
# A failure rate names its subject (issue 38): "2/day" is refused with both spellings, as the
# command line and the schema refuse it; "2/cluster/day" on the paper's 16 machines is
# 2 / 16 = 12.5% per machine per day, so it runs exactly as the file that says so.
bare_rate = copy.deepcopy(paper_dict)
bare_rate["failures"]["rate"] = "2/day"
e = raised(lambda: ckptsim.run(bare_rate, replicas=2))
report(isinstance(e, ckptsim.InputError) and e.problems[0]["pointer"] == "/failures/rate"
       and '"1.5%/machine/day" or "2/cluster/day"' in e.problems[0]["expected"] and e.problems[0]["found"] == '"2/day"',
       "run(dict) with a bare failure rate raises InputError offering per machine and per cluster", repr(e))
per_cluster, per_machine = copy.deepcopy(paper_dict), copy.deepcopy(paper_dict)
per_cluster["failures"]["rate"] = "2/cluster/day"
per_machine["failures"]["rate"] = "12.5%/machine/day"
cluster_run = ckptsim.run(per_cluster, replicas=4, seed=3)
check_equal("run(dict) with 2/cluster/day on 16 machines equals 12.5%/machine/day", cluster_run,
            ckptsim.run(per_machine, replicas=4, seed=3))
report(cluster_run["scenario"]["failures"]["rate"] == "12.5%/machine/day",
       "the effective scenario states a rate per cluster per machine", cluster_run["scenario"]["failures"]["rate"])
e = raised(lambda: ckptsim.run({"name": 1}))
report(isinstance(e, ckptsim.InputError) and any(p["pointer"] == "/name" for p in e.problems),
       "a dict with a wrong type names its pointer", repr(e))
e = raised(lambda: ckptsim.run({"x": float("nan")}))
report(isinstance(e, ckptsim.InputError) and e.problems[0]["file"] == "<dict>",
       "a dict holding NaN (not JSON) raises InputError", repr(e))
e = raised(lambda: ckptsim.run("scenarios/no-such-file.json"))
status, _, err = cli("run", "scenarios/no-such-file.json")
report(isinstance(e, ckptsim.InputError) and "error: " + str(e) == err.strip() and status == 2,
       "a missing file raises the command line's message", f"{e!r}\n{err}")
e = raised(lambda: ckptsim.run(42))
report(isinstance(e, TypeError), "a scenario that is neither a dict nor a path raises TypeError", repr(e))
e = raised(lambda: ckptsim.iteration(paper, scheduler="fastest"))
report(isinstance(e, ckptsim.ModelError) and e.parameter == "scheduler" and "gemini" in str(e),
       "an unknown scheduler raises ModelError naming scheduler and the names that exist", repr(e))
status, _, err = cli("placement", "--machines", "1000000", "--replicas", "2")
e = raised(lambda: ckptsim.placement(machines=1000000, replicas=2))
report(isinstance(e, ckptsim.LimitError) and status == 2 and "error: " + str(e) == err.strip(),
       "placement beyond the work limits raises LimitError with the command line's message", f"{e!r}\n{err}")
e = raised(lambda: ckptsim.placement(machines=8, replicas=9))
report(isinstance(e, ckptsim.ModelError) and e.parameter == "replicas", "placement(replicas > machines) raises ModelError",
       repr(e))
e = raised(lambda: ckptsim.placement(machines=8, replicas=2, scheme="best"))
report(isinstance(e, ckptsim.ModelError) and e.parameter == "scheme" and "ring" in str(e),
       "placement(scheme='best') raises ModelError listing the schemes", repr(e))
e = raised(lambda: ckptsim.placement(machines=8, replicas=2, shard_bytes="9.4 parsecs"))
report(isinstance(e, ckptsim.ModelError) and e.parameter == "shard_bytes", "a bad unit in shard_bytes raises ModelError",
       repr(e))
status, _, err = cli("placement", "--machines", "8", "--replicas", "2", "--shard-bytes", "10GB", "--cpu-memory", "1GB")
e = raised(lambda: ckptsim.placement(machines=8, replicas=2, shard_bytes="10GB", cpu_memory="1GB"))
report(isinstance(e, ckptsim.InputError) and str(e).splitlines() == [l[len("error: "):] for l in err.splitlines()],
       "placement with too little CPU memory raises the command line's InputError", f"{e!r}\n{err}")

# --- the example runs (with 5 replicas) and shows each of its parts
p = subprocess.run([sys.executable, "examples/python/strategies.py", "5"], capture_output=True, text=True, timeout=600)
report(p.returncode == 0 and all(w in p.stdout for w in ("remote-periodic", "closed-form ETTR", "with GEMINI",
                                                         "k=4", "InputError: ", "/storage/bandwidth")),
       "examples/python/strategies.py runs and prints every part", p.stdout + p.stderr)

sys.exit(checks.finish())
