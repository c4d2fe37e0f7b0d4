#!/usr/bin/env python3
"""The Kubernetes recipe of a sharded sweep (scripts/kubernetes/sweep-jobs, docs/sweeps.md). TAP.

No cluster here, so the manifests are checked as far as this machine allows:
1. Their shape: a ConfigMap holding the spec (its base renamed to the file beside it) and the
   base; an Indexed Job with completions = parallelism = shards; the claim mounted at /out.
2. Their commands, run: each pod's shell command with JOB_COMPLETION_INDEX = 0 .. N-1 (the
   variable the Indexed Job sets), then the merge Job's command, with /spec and /out pointing at
   folders here and `ckptsim` the binary under test; the merged outputs must equal one
   unsharded sweep's byte for byte (what `ckptsim merge` promises).
3. Mistakes in the arguments exit 2 with a message.

Usage: kubernetes_test.py PATH/TO/ckptsim   (needs python3-yaml)
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import tap  # noqa: E402

ckptsim = tap.executable(sys.argv[1])
ROOT = tap.repo_root()
t = tap.Tap(detail_lines=30)
try:
    import yaml
except ImportError:
    sys.exit(t.finish(skip="python3-yaml is not installed (scripts/install-deps installs it)"))

SCRIPT = str(ROOT / "scripts" / "kubernetes" / "sweep-jobs")
SHARDS = 3


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    # A small sweep: 2 strategies x 2 machine counts x 2 rates of the paper's testbed, 1 day, 5
    # replicas each; the base one folder away, as the bundled specs name theirs.
    (tmp / "scenarios").mkdir()
    base = json.loads((ROOT / "scenarios" / "paper" / "gpt2-100b-16xp4d.json").read_text())
    base.pop("$schema", None)
    base["run"]["duration"] = "1d"
    base["run"]["replicas"] = 5
    (tmp / "scenarios" / "base.json").write_text(json.dumps(base))
    (tmp / "sweeps").mkdir()
    spec = {"base": "../scenarios/base.json", "seed": 3,
            "axes": [{"pointer": "/strategy", "values": [{"kind": "gemini"}, {"kind": "remote-periodic"}]},
                     {"pointer": "/cluster/machines", "name": "machines", "values": [16, 32]},
                     {"pointer": "/failures/rate", "values": ["1.5%/machine/day", "10%/machine/day"]}]}
    spec_path = tmp / "sweeps" / "spec.json"
    spec_path.write_text(json.dumps(spec))
    common = ["--shards", str(SHARDS), "--image", "registry.example/ckptsim:test", "--claim", "sweeps",
              "--name", "test-sweep", "--cpus", "1"]

    r = run([SCRIPT, str(spec_path)] + common)
    t.report(r.returncode == 0, "sweep-jobs writes the shard manifests", r.stderr)
    docs = list(yaml.safe_load_all(r.stdout)) if r.returncode == 0 else []
    kinds = [d.get("kind") for d in docs]
    t.report(kinds == ["ConfigMap", "Job"], "a ConfigMap and a Job", f"found {kinds}")
    config = docs[0] if len(docs) > 0 else {}
    job = docs[1] if len(docs) > 1 else {}
    data = config.get("data", {})
    t.report(sorted(data) == ["base.json", "spec.json"] and json.loads(data.get("spec.json", "{}")).get("base") == "base.json"
             and json.loads(data.get("base.json", "{}")) == base,
             "the ConfigMap holds the spec, naming its base by the file beside it, and the base as read",
             f"found keys {sorted(data)}")
    js = job.get("spec", {})
    t.report(js.get("completionMode") == "Indexed" and js.get("completions") == SHARDS and js.get("parallelism") == SHARDS,
             "an Indexed Job of one completion per shard, all in parallel", f"found {js}")
    pod = js.get("template", {}).get("spec", {})
    claims = [v.get("persistentVolumeClaim", {}).get("claimName") for v in pod.get("volumes", [])]
    mounts = {m["name"]: m["mountPath"] for m in pod.get("containers", [{}])[0].get("volumeMounts", [])}
    t.report("sweeps" in claims and mounts == {"spec": "/spec", "out": "/out"} and pod.get("restartPolicy") == "OnFailure",
             "the claim at /out, the spec at /spec, pods retried in place (--resume continues the journal)",
             f"found claims {claims}, mounts {mounts}, restartPolicy {pod.get('restartPolicy')}")

    # The pods, run here: /spec and /out become folders of tmp, ckptsim the binary under test.
    spec_dir, out_dir, bin_dir = tmp / "spec", tmp / "out", tmp / "bin"
    for d in (spec_dir, out_dir, bin_dir):
        d.mkdir()
    for name, text in data.items():
        (spec_dir / name).write_text(text)
    (bin_dir / "ckptsim").symlink_to(ckptsim)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")

    def local(command):
        return command.replace("/spec/", f"{spec_dir}/").replace("/out/", f"{out_dir}/")

    container = pod.get("containers", [{}])[0]
    command = container.get("command", ["sh", "-c", "false"])
    failures = []
    for i in range(SHARDS):
        r = run([command[0], command[1], local(command[2]) + " --quiet"], env=dict(env, JOB_COMPLETION_INDEX=str(i)))
        if r.returncode != 0:
            failures.append(f"shard {i}: {r.stderr}")
    t.report(not failures and all((out_dir / "test-sweep" / f"shard-{i}" / "points.csv").is_file() for i in range(SHARDS)),
             f"each of the {SHARDS} pods' commands runs its shard", "\n".join(failures))

    r = run([SCRIPT, str(spec_path), "--merge"] + common)
    merge_docs = list(yaml.safe_load_all(r.stdout)) if r.returncode == 0 else []
    t.report(r.returncode == 0 and [d.get("kind") for d in merge_docs] == ["Job"], "--merge writes the merge Job", r.stderr)
    merge_cmd = merge_docs[0]["spec"]["template"]["spec"]["containers"][0]["command"] if merge_docs else ["sh", "-c", "false"]
    r = run([merge_cmd[0], merge_cmd[1], local(merge_cmd[2])], env=env)
    t.report(r.returncode == 0, "the merge Job's command joins the shards", r.stderr)

    r = run([ckptsim, "sweep", str(spec_path), "-o", str(tmp / "one"), "--jobs", "1", "--quiet"])
    same = r.returncode == 0 and all(
        (tmp / "one" / f).read_bytes() == (out_dir / "test-sweep" / "merged" / f).read_bytes()
        for f in ("points.csv", "points.jsonl"))
    t.report(same, "the merged outputs equal one unsharded sweep's byte for byte (points.csv, points.jsonl)", r.stderr)

    # Mistakes: exit 2 with a message naming what was expected.
    r = run([SCRIPT, str(spec_path), "--shards", "0", "--image", "x", "--claim", "c"])
    t.report(r.returncode == 2 and "--shards" in r.stderr, "--shards 0 is refused (exit 2)", f"{r.returncode}: {r.stderr}")
    traced = dict(base, failures=dict(base["failures"], process="trace", trace="failures.csv"))
    (tmp / "scenarios" / "traced.json").write_text(json.dumps(traced))
    (tmp / "sweeps" / "traced-spec.json").write_text(json.dumps(dict(spec, base="../scenarios/traced.json")))
    r = run([SCRIPT, str(tmp / "sweeps" / "traced-spec.json"), "--shards", "2", "--image", "x", "--claim", "c"])
    t.report(r.returncode == 2 and "/failures/trace" in r.stderr, "a base that names a trace file is refused (exit 2)",
             f"{r.returncode}: {r.stderr}")
    r = run([SCRIPT, str(spec_path), "--shards", "2", "--image", "x", "--claim", "c", "--name", "Bad_Name"])
    t.report(r.returncode == 2 and "--name" in r.stderr, "a name that is no DNS label is refused (exit 2)",
             f"{r.returncode}: {r.stderr}")

sys.exit(t.finish())
