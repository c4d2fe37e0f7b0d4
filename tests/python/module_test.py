#!/usr/bin/env python3
"""The Python module (python/ckptsim_module.cpp) against the command line, TAP output.

Each of run, iteration, analyze, placement and optimize must return a dict EQUAL to the command's
JSON output (json.load of `run -o FILE`, `iteration --json`, `analyze --json`, `placement --json`,
`optimize --json`), except manifest.command_line, which names the call; sweep must write the
files `ckptsim sweep -o DIR` writes and return its manifest.json and points.jsonl. A scenario given as a dict must give the
result of its file; bad input must raise an exception carrying the command line's message.
Usage: module_test.py CKPTSIM (with the module's folder on PYTHONPATH; run from anywhere).
"""
import copy
import filecmp
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
    if not isinstance(module_doc, dict) or not isinstance(cli_doc, dict):  # one raised (outcome below)
        report(False, description, f"module: {module_doc!r}\ncommand line: {cli_doc!r}")
        return
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


def outcome(call):
    """What the call returns, or what it raised (a failing check then reports it)."""
    try:
        return call()
    except Exception as e:  # noqa: BLE001 (the test inspects whatever was raised)
        return e


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
# A scenario both refuse is a failed check, not the end of the script (outcome, check_equal).
for path, what in ((paper, "GEMINI"), (multi_level, "multi-level"), (erasure, "erasure-coded")):
    doc = outcome(lambda: ckptsim.analyze(path, replicas=10, seed=3))
    check_equal(f"analyze({what}, replicas=10, seed=3) equals `ckptsim analyze --json -r 10 -s 3`", doc,
                outcome(lambda: cli_json("analyze", path, "--json", "-r", "10", "-s", "3")))
doc = outcome(lambda: ckptsim.analyze(multi_level, replicas=0))
report(isinstance(doc, dict) and "multi_level" in doc["closed_form"],
       "analyze() of a multi-level scenario carries closed_form.multi_level, as the command does", repr(doc)[:2000])
doc = outcome(lambda: ckptsim.analyze(erasure, replicas=0))
report(isinstance(doc, dict) and "erasure_code" in doc,
       "analyze() of an erasure-coded scenario carries erasure_code, as the command does", repr(doc)[:2000])

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
# A file without "name" is named after itself, its file name without ".json" (the bundled
# scenarios write none): `ckptsim run scenarios/paper/gpt2-100b-16xp4d.json` names it
# "gpt2-100b-16xp4d". A dict has no file name: given file=PATH it is loaded as that file is, so
# the dict read from the file, unchanged and without a name, gives the command's document whole
# (name, scenario hash and all); without file= it is named "<dict>", the label of its problems.
report("name" not in paper_dict and cli_run["scenario"]["name"] == "gpt2-100b-16xp4d",
       "the paper scenario writes no name, and the command names it after its file", cli_run["scenario"].get("name"))
check_equal("run(dict, file=path) equals `ckptsim run path -o FILE` for the same document, name included",
            outcome(lambda: ckptsim.run(paper_dict, replicas=20, seed=7, file=paper)), cli_run)
check_equal("run(dict, file=pathlib.Path) equals it too",
            outcome(lambda: ckptsim.run(paper_dict, replicas=20, seed=7, file=pathlib.Path(paper))), cli_run)
check_equal("analyze(dict, file=path) equals `ckptsim analyze path --json`",
            outcome(lambda: ckptsim.analyze(paper_dict, replicas=5, file=paper)),
            cli_json("analyze", paper, "--json", "-r", "5"))
check_equal("iteration(dict, file=path) equals `ckptsim iteration path --json`",
            outcome(lambda: ckptsim.iteration(paper_dict, file=paper)), cli_json("iteration", paper, "--json"))
report(ckptsim.run(paper_dict, replicas=2)["scenario"]["name"] == "<dict>",
       "a dict without name or file= is named <dict>, the label its problems carry")
# The trace example names its trace relative to its own folder ("../../traces/..."): given
# file=, the dict finds it there, as the command does.
trace_scenario = "scenarios/examples/p4d-gemini-trace.json"
with open(trace_scenario) as f:
    trace_dict = json.load(f)
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "run.json")
    cli("run", trace_scenario, "-r", "3", "-s", "2", "-q", "-o", out)
    with open(out) as f:
        cli_trace = json.load(f)
check_equal("run(dict, file=path) finds a relative failures.trace from the file's folder, as the command does",
            outcome(lambda: ckptsim.run(trace_dict, replicas=3, seed=2, file=trace_scenario)), cli_trace)
e = raised(lambda: ckptsim.run(paper, file=paper))
report(isinstance(e, ckptsim.ModelError) and e.parameter == "file", "file= with a path scenario raises ModelError naming file",
       repr(e))
e = raised(lambda: ckptsim.run(paper_dict, file=42))
report(isinstance(e, ckptsim.ModelError) and e.parameter == "file" and str(e).endswith("found 42"),
       "file=42 raises ModelError naming file and 42", repr(e))
e = raised(lambda: ckptsim.run({"storage": {"bandwidth": "20Gbs"}}, file="x/my.json"))
report(isinstance(e, ckptsim.InputError) and e.problems[0]["file"] == "x/my.json",
       "the problems of a dict given with file= name that file", repr(e))
paper_dict.setdefault("name", pathlib.Path(paper).stem)  # the rest runs the dict as the file's
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

# --- placement's arguments: every bad value raises ModelError naming the argument, what it
# expects and what it found (never pybind's RuntimeError "Unable to cast"). failures=(1,) is a
# range without its end, K1 alone: the command line refuses the same thing, "--failures 1.."
# (exit 2, no K2), so the module refuses it too rather than guessing K = 1.
status, _, err = cli("placement", "--machines", "8", "--replicas", "2", "--failures", "1..")
report(status == 2 and "--failures" in err, "the command line refuses --failures 1.. (exit 2)", err)
for value, shown in (((1,), "(1,)"), ((1, 2, 3), "(1, 2, 3)"), ((1, 2.5), "(1, 2.5)"), (True, "True"), (-1, "-1"),
                     (2 ** 70, str(2 ** 70)), ("1..4", "'1..4'"), ([1], "[1]")):
    e = raised(lambda: ckptsim.placement(machines=8, replicas=2, failures=value))
    report(isinstance(e, ckptsim.ModelError) and e.parameter == "failures" and "expected K or (K1, K2)" in str(e)
           and str(e).endswith(f"found {shown}"),
           f"placement(failures={shown}) raises ModelError naming failures, K or (K1, K2) and {shown}", repr(e))
# A list of two is the pair: k = 1..2 gives the probabilities of k = 1 and 2, as (1, 2) does.
check_equal("placement(failures=[1, 2]) equals placement(failures=(1, 2))",
            ckptsim.placement(machines=8, replicas=2, failures=[1, 2]),
            ckptsim.placement(machines=8, replicas=2, failures=(1, 2)))
for value, shown in ((42, "42"), (["ring", 3], "['ring', 3]")):
    e = raised(lambda: ckptsim.placement(machines=8, replicas=2, scheme=value))
    report(isinstance(e, ckptsim.ModelError) and e.parameter == "scheme" and str(e).endswith(f"found {shown}"),
           f"placement(scheme={shown}) raises ModelError naming scheme and {shown}", repr(e))
e = raised(lambda: ckptsim.placement(machines=8, replicas=2, shard_bytes=10 ** 400))
report(isinstance(e, ckptsim.ModelError) and e.parameter == "shard_bytes",
       "placement(shard_bytes=10**400), beyond a double, raises ModelError naming shard_bytes", repr(e))

# --- optimize: ckptsim optimize --json, with --vary as the command's strings or as a dict.
# Closed form only (replicas=0) unless said: 2 replicas x 2 checkpoint intervals = 4 combinations.
vary_args = ["--vary", "/strategy/replicas=2,4", "--vary", "/strategy/every_iterations=1,2"]
cli_optimize = cli_json("optimize", paper, *vary_args, "--json")
check_equal("optimize(path, vary=[...]) equals `ckptsim optimize --vary ... --json`",
            outcome(lambda: ckptsim.optimize(paper, vary=["/strategy/replicas=2,4", "/strategy/every_iterations=1,2"])),
            cli_optimize)
check_equal("optimize(vary={pointer: [values]}) equals the same command",
            outcome(lambda: ckptsim.optimize(paper, vary={"/strategy/replicas": [2, 4],
                                                          "/strategy/every_iterations": [1, 2]})), cli_optimize)
check_equal("optimize(dict, file=path) equals the command on that file",
            outcome(lambda: ckptsim.optimize(json.load(open(paper)), vary={"/strategy/replicas": [2, 4],
                                                                          "/strategy/every_iterations": [1, 2]},
                                             file=paper)), cli_optimize)
check_equal("optimize(objective='goodput', replicas=3, seed=5) equals `--objective goodput -r 3 -s 5 --json`",
            outcome(lambda: ckptsim.optimize(paper, vary="/cluster/standby_machines=0,1,2", objective="goodput",
                                             replicas=3, seed=5)),
            cli_json("optimize", paper, "--vary", "/cluster/standby_machines=0,1,2", "--objective", "goodput",
                     "-r", "3", "-s", "5", "--json"))
# Independent of the ranking code: the best combination is one of the four, and no fitting
# combination has a higher ETTR than it (the default objective, ettr, closed form).
fits = [c for c in cli_optimize["candidates"] if c["status"] == "ok"]
report(len(cli_optimize["candidates"]) == 4 and fits and cli_optimize["best"] in fits
       and all(c["ettr"] <= cli_optimize["best"]["ettr"] for c in fits),
       "optimize: 2 x 2 combinations, the best one has the highest ETTR of those that fit", cli_optimize["best"])
status, _, err = cli("optimize", paper, "--vary", "strategy/replicas=2", "--json")
e = raised(lambda: ckptsim.optimize(paper, vary="strategy/replicas=2"))
report(status == 2 and isinstance(e, ckptsim.ModelError) and e.parameter == "vary"
       and f"error: {str(e)[len('vary: '):]}" == err.splitlines()[0],
       "optimize(vary without a leading '/') raises ModelError naming vary with the command line's message",
       f"{e!r}\n{err}")
for value, words in (({"/strategy/replicas": 2}, "expected a list of values, found 2"),
                     ({"/strategy/replicas": []}, "expected at least one value"),
                     ({"/strategy/replicas": [2], "/strategy": [{"kind": "gemini"}]}, "encloses the earlier"),
                     (42, "found 42"), ([], "give at least one")):
    e = raised(lambda: ckptsim.optimize(paper, vary=value))
    report(isinstance(e, ckptsim.ModelError) and e.parameter == "vary" and words in str(e),
           f"optimize(vary={value!r}) raises ModelError naming vary: {words}", repr(e))
e = raised(lambda: ckptsim.optimize(paper, vary="/strategy/replicas=2", objective="speed"))
report(isinstance(e, ckptsim.ModelError) and e.parameter == "objective" and "ettr or goodput" in str(e),
       "optimize(objective='speed') raises ModelError naming objective", repr(e))
status, _, err = cli("optimize", bad, "--vary", "/strategy/replicas=2")
e = raised(lambda: ckptsim.optimize(bad, vary="/strategy/replicas=2"))
report(status == 2 and isinstance(e, ckptsim.InputError) and str(e).splitlines() == cli_lines,
       "optimize(bad file) raises the command line's InputError", f"{e!r}\n{err}")

# --- sweep: ckptsim sweep SPEC -o DIR. A small spec of 2 strategies x 2 machine counts = 4 points
# of the paper's testbed, one day and 3 replicas each, its base a file beside it; 0 machines is
# not a cluster, so exactly the 2 points with machines 0 are invalid.
with tempfile.TemporaryDirectory() as tmp:
    base = copy.deepcopy(paper_dict)
    base["run"].update({"duration": "1d", "replicas": 3})
    with open(os.path.join(tmp, "base.json"), "w") as f:
        json.dump(base, f)
    spec = {"base": "base.json", "seed": 3,
            "axes": [{"pointer": "/strategy", "values": [{"kind": "gemini"}, {"kind": "remote-periodic"}]},
                     {"pointer": "/cluster/machines", "name": "machines", "values": [16, 0]}]}
    spec_path = os.path.join(tmp, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)

    def cli_sweep(folder, *options):
        """(manifest.json, points.jsonl records) of `ckptsim sweep` into tmp/folder."""
        status, _, err = cli("sweep", spec_path, "-o", os.path.join(tmp, folder), "--quiet", *options)
        if status != 0:
            raise RuntimeError(f"ckptsim sweep exited {status}: {err}")
        with open(os.path.join(tmp, folder, "manifest.json")) as f:
            manifest = json.load(f)
        with open(os.path.join(tmp, folder, "points.jsonl")) as f:
            return {"manifest": manifest, "points": [json.loads(line) for line in f]}

    cli_doc = cli_sweep("cli")
    module_doc = outcome(lambda: ckptsim.sweep(spec_path, output=os.path.join(tmp, "module")))
    check_equal("sweep(path, output=DIR) returns the manifest.json and points.jsonl of `ckptsim sweep -o DIR`",
                module_doc, cli_doc)
    report(all(filecmp.cmp(os.path.join(tmp, "cli", name), os.path.join(tmp, "module", name), shallow=False)
               for name in ("points.csv", "points.jsonl")),
           "sweep(output=DIR) writes the command's points.csv and points.jsonl byte for byte")
    statuses = [(r["values"][1], r["status"]) for r in cli_doc["points"]]
    report(len(statuses) == 4 and all((status == "ok") == (machines == 16) for machines, status in statuses),
           "sweep: 4 points, invalid exactly where machines is 0", statuses)
    check_equal("sweep(dict, file=path) without output (a temporary folder) returns the same",
                outcome(lambda: ckptsim.sweep(spec, file=spec_path)), cli_doc)
    check_equal("sweep(jobs=2) returns what jobs=1 does", outcome(lambda: ckptsim.sweep(spec_path, jobs=2)), cli_doc)
    cli_shard = cli_sweep("cli-shard", "--shard", "1/2")
    check_equal("sweep(shard=(1, 2)) equals `ckptsim sweep --shard 1/2`",
                outcome(lambda: ckptsim.sweep(spec_path, shard=(1, 2))), cli_shard)
    check_equal("sweep(shard='1/2') equals it too", outcome(lambda: ckptsim.sweep(spec_path, shard="1/2")), cli_shard)
    for value in ("2/2", (0, 0), (1,), "1/2x", True):
        e = raised(lambda: ckptsim.sweep(spec_path, shard=value))
        report(isinstance(e, ckptsim.ModelError) and e.parameter == "shard" and str(e).endswith(f"found {value!r}"),
               f"sweep(shard={value!r}) raises ModelError naming shard and {value!r}", repr(e))
    e = raised(lambda: ckptsim.sweep(spec_path, resume=True))
    report(isinstance(e, ckptsim.ModelError) and e.parameter == "resume", "sweep(resume=True) without output raises ModelError",
           repr(e))
    # A folder holding a sweep's journal is refused unless resume=True, as the command refuses it
    # without --resume; resumed, the finished sweep's outputs come back unchanged.
    module_dir = os.path.join(tmp, "module")
    status, _, err = cli("sweep", spec_path, "-o", module_dir, "--quiet")
    e = raised(lambda: ckptsim.sweep(spec_path, output=module_dir))
    report(status == 2 and isinstance(e, ckptsim.InputError) and "--resume" in str(e)
           and str(e).splitlines() == [l[len("error: "):] for l in err.splitlines()],
           "sweep(output=a folder with a journal) raises the command line's InputError", f"{e!r}\n{err}")
    check_equal("sweep(output=that folder, resume=True) returns the finished sweep's outputs",
                outcome(lambda: ckptsim.sweep(spec_path, output=module_dir, resume=True)), cli_doc)
    bad_spec = dict(spec, axes=[{"pointer": "strategy", "values": [1]}])
    with open(os.path.join(tmp, "bad-spec.json"), "w") as f:
        json.dump(bad_spec, f)
    status, _, err = cli("sweep", os.path.join(tmp, "bad-spec.json"), "-o", os.path.join(tmp, "bad"), "--quiet")
    e = raised(lambda: ckptsim.sweep(os.path.join(tmp, "bad-spec.json")))
    report(status == 2 and isinstance(e, ckptsim.InputError)
           and str(e).splitlines() == [l[len("error: "):] for l in err.splitlines()],
           "sweep(bad spec file) raises the command line's InputError", f"{e!r}\n{err}")
    e = raised(lambda: ckptsim.sweep(bad_spec))
    report(isinstance(e, ckptsim.InputError) and e.problems[0]["file"] == "<dict>",
           "sweep(bad spec dict) raises InputError naming <dict>", repr(e))

# --- a job that does not fit its GPUs (tests/integration/verdicts_test.sh, the CLI side): Llama 2
# 70B (about 69e9 parameters) under ZeRO-3 on one machine of 8 H100s (80 GiB each). The model
# states alone are 16 B x 69e9 / 8 GPUs = 138 GB = 128.5 GiB per GPU, more than 80 GiB whatever
# the activations: run and analyze refuse it as the command does (ModelError at
# /cluster/gpu_memory, exit 2 there); force=True prices it under a warning in costs.warnings.
with open("scenarios/examples/llama2-70b-64xp5.json") as f:
    oom = json.load(f)
oom["cluster"]["machines"] = 1
oom["strategy"]["replicas"] = 1
oom["run"]["duration"] = "1d"
with tempfile.TemporaryDirectory() as tmp:
    oom_path = os.path.join(tmp, "oom.json")
    with open(oom_path, "w") as f:
        json.dump(oom, f)
    for name, call, args in (("run", ckptsim.run, ("run", oom_path, "-r", "2", "-q")),
                             ("analyze", ckptsim.analyze, ("analyze", oom_path, "-r", "2"))):
        status, _, err = cli(*args)
        e = raised(lambda: call(oom_path, replicas=2))
        report(status == 2 and isinstance(e, ckptsim.ModelError) and "error: " + str(e) == err.strip()
               and e.parameter == f"{oom_path}: /cluster/gpu_memory" and "does not fit its GPUs" in str(e),
               f"{name}(job that does not fit) raises the command's ModelError at /cluster/gpu_memory", f"{e!r}\n{err}")
        e = raised(lambda: call(oom, replicas=2))
        report(isinstance(e, ckptsim.ModelError) and e.parameter == "<dict>: /cluster/gpu_memory",
               f"{name}(the same job as a dict) raises it naming <dict>", repr(e))
    out = os.path.join(tmp, "forced.json")
    status, _, err = cli("run", oom_path, "-r", "2", "-s", "5", "-q", "--force", "-o", out)
    with open(out) as f:
        forced_cli = json.load(f)
    forced = outcome(lambda: ckptsim.run(oom_path, replicas=2, seed=5, force=True))
    report(isinstance(forced, dict) and any(w.startswith("priced although it does not fit (--force): training does not fit")
                                            for w in forced["costs"]["warnings"]),
           "run(job that does not fit, force=True) prices it with the warning in costs.warnings", repr(forced)[:2000])
    if isinstance(forced, dict):
        check_equal("run(force=True) equals `ckptsim run --force -o FILE`", forced, forced_cli)
    forced_cli = cli_json("analyze", oom_path, "-r", "2", "-s", "5", "--force", "--json")
    forced = outcome(lambda: ckptsim.analyze(oom_path, replicas=2, seed=5, force=True))
    report(isinstance(forced, dict) and any(w.startswith("priced although it does not fit (--force): training does not fit")
                                            for w in forced["costs"]["warnings"]),
           "analyze(job that does not fit, force=True) prices it with the warning in costs.warnings", repr(forced)[:2000])
    if isinstance(forced, dict):
        check_equal("analyze(force=True) equals `ckptsim analyze --force --json`", forced, forced_cli)

# --- analyze(force=True) lifts the work limits as --force does (cli_limits_checks.sh's cheap case):
# 6e7 iterations of 1 ms without stalls take 6e4 s failure-free, so the run's end is 100 x that,
# 6e6 s, over which 16 machines x 0.12/s draw 1.15e7 failures, above the 1e7 limit of one
# replica's events. Forced, the replica finishes after about 1.15e5 of them.
with open(paper) as f:
    events = json.load(f)
events["training"].update({"iteration_time": "1ms", "serialization_bandwidth": "1000TB/s"})
events["strategy"].update({"checkpoint_stall": "0s", "persistent_interval": "never"})
events["failures"].update({"rate": "0.12/machine/s", "hardware_fraction": 0, "detection": "0s", "restart": "0s"})
events["run"].pop("duration", None)
events["run"].update({"iterations": 60000000, "replicas": 1})
e = raised(lambda: ckptsim.analyze(events))
report(isinstance(e, ckptsim.LimitError) and "1.15e+07 failure events" in str(e),
       "analyze(1.15e7 failure events per replica) raises LimitError", repr(e))
forced = outcome(lambda: ckptsim.analyze(events, force=True))
# Simulated: 16 x 0.12/s = 1.92 failures/s over the 6e4 s of training (detection, restart and
# recovery cost nothing here, no hardware failure waits for a replacement) = 115,200 failures,
# Poisson standard deviation 339: the one replica lies in 110,000..120,000.
failures = forced["metrics"]["failures.total"]["simulated"]["mean"] if isinstance(forced, dict) else None
report(isinstance(forced, dict) and forced["replicas"] == 1 and 110000 < failures < 120000,
       "analyze(..., force=True) runs it anyway: one replica of about 115,200 failures", repr(forced)[:2000])

# --- the example runs (with 5 replicas) and shows each of its parts
p = subprocess.run([sys.executable, "examples/python/strategies.py", "5"], capture_output=True, text=True, timeout=600)
report(p.returncode == 0 and all(w in p.stdout for w in ("remote-periodic", "closed-form ETTR", "with GEMINI",
                                                         "k=4", "InputError: ", "/storage/bandwidth")),
       "examples/python/strategies.py runs and prints every part", p.stdout + p.stderr)

# --- the tuning example (optimize and sweep) runs with 3 replicas: a 3 x 3 optimize table with
# its best, and 2 strategies x 3 failure rates = 6 sweep rows.
p = subprocess.run([sys.executable, "examples/python/tuning.py", "3"], capture_output=True, text=True, timeout=600)
sweep_rows = [line for line in p.stdout.splitlines() if line.split()[:1] in (["gemini"], ["remote-periodic"])]
report(p.returncode == 0 and f"ckptsim {ckptsim.__version__}" in p.stdout and "best: {" in p.stdout
       and "6 points" in p.stdout and len(sweep_rows) == 6 and "ModelError: vary: " in p.stdout,
       "examples/python/tuning.py runs and prints every part", p.stdout + p.stderr)

# --- the parallel search example (Ray when installed, else a process pool): its evaluations in
# 2 worker processes equal the same function called here one by one (the module is deterministic
# whatever the process), and the best interval it names is the argmax of its closed-form column.
sys.path.insert(0, "examples/python")
import search  # noqa: E402

search.replicas = 5
engine, parallel = search.evaluate_all([1800, 3600, 7200])
serial = [search.evaluate(c) for c in (1800, 3600, 7200)]
report(engine in ("ray", "multiprocessing") and parallel == serial,
       "examples/python/search.py: parallel evaluations equal the serial ones", f"{engine}: {parallel} vs {serial}")
p = subprocess.run([sys.executable, "examples/python/search.py", "2", "5"], capture_output=True, text=True, timeout=600)
rows = [line.split() for line in p.stdout.splitlines() if line.strip()[:1].isdigit() and len(line.split()) == 4]
best = max(rows, key=lambda r: float(r[1]))[0] if rows else None
report(p.returncode == 0 and len(rows) == 8 and f"best interval by the closed form: {best} s" in p.stdout,
       "examples/python/search.py runs 8 evaluations and names the closed form's best", p.stdout + p.stderr)

sys.exit(checks.finish())
