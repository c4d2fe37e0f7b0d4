#!/usr/bin/env python3
"""`python -m pip install .` of ckptsim (pyproject.toml, meson-python), TAP output.

In a throw-away virtual environment of Debian's Python (/usr/bin/python3 -m venv
--system-site-packages, which sees Debian's meson-python), pip installs a copy of the source tree
offline (--no-build-isolation --no-index: nothing is downloaded). Then, from a folder that is not
the source tree, the module must import from the environment, carry the Meson project's version
(as __version__ and as the installed distribution's version), hold nothing but the module (a
wheel cannot place headers, libraries or programs), and give the command line's result.
Skipped (TAP `1..0 # SKIP`) when /usr/bin/python3, its venv module or meson-python is missing.
The build compiles the library once more (about five minutes on two cores).
Usage: pip_install_test.py CKPTSIM PROJECT_VERSION
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import tap  # noqa: E402  (tests/tap.py)

ckptsim_exe = tap.executable(sys.argv[1])
project_version = sys.argv[2]
root = tap.repo_root()
checks = tap.Tap(detail_lines=60, last=True)
report = checks.report
system_python = "/usr/bin/python3"

probe = subprocess.run([system_python, "-c", "import venv, ensurepip, mesonpy"], capture_output=True, text=True) \
    if os.access(system_python, os.X_OK) else None
if probe is None or probe.returncode != 0:
    print("1..0 # SKIP /usr/bin/python3 with venv, ensurepip and meson-python (Debian python3-venv, python3-mesonpy; "
          "scripts/install-deps) is not installed")
    sys.exit(0)

paper = root / "scenarios/paper/gpt2-100b-16xp4d.json"


def ignored(folder, names):
    """What the copy leaves out: build folders, git's data and caches."""
    return [n for n in names if n.startswith("build") and folder == str(root) or n in (".git", ".cache", "__pycache__")]


with tempfile.TemporaryDirectory(prefix="ckptsim-pip-") as tmp:
    tmp = pathlib.Path(tmp)
    source = tmp / "source"
    shutil.copytree(root, source, ignore=ignored, symlinks=True)
    venv = tmp / "venv"
    p = subprocess.run([system_python, "-m", "venv", "--system-site-packages", str(venv)], capture_output=True, text=True)
    report(p.returncode == 0, "a virtual environment of /usr/bin/python3 is made", p.stdout + p.stderr)
    python = str(venv / "bin" / "python")
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", str(source)],
                       capture_output=True, text=True, env=env, cwd=tmp, timeout=3000)
    report(p.returncode == 0, "pip install --no-build-isolation --no-index . builds and installs ckptsim (offline)",
           p.stdout + p.stderr)
    # A wheel holds what `meson install` would install; a package build installs only the module.
    p = subprocess.run([python, "-m", "pip", "show", "--files", "ckptsim"], capture_output=True, text=True, env=env)
    files = [line.strip() for line in p.stdout.split("Files:", 1)[-1].splitlines() if line.strip()]
    installed = [f for f in files if ".dist-info/" not in f]
    report(p.returncode == 0 and len(installed) == 1 and installed[0].startswith("ckptsim.")
           and installed[0].endswith(".so"),
           "the package installs the module alone (ckptsim.*.so, besides its dist-info)", p.stdout + p.stderr)

    # From a folder that is not the source tree: the environment's module, not build/python's.
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    program = (
        "import importlib.metadata, json, sys, ckptsim\n"
        "print(json.dumps({'file': ckptsim.__file__, 'version': ckptsim.__version__,\n"
        "                  'distribution': importlib.metadata.version('ckptsim'),\n"
        "                  'analyze': ckptsim.analyze(sys.argv[1], replicas=10, seed=3)}))\n")
    p = subprocess.run([python, "-c", program, str(paper)], capture_output=True, text=True, env=env, cwd=elsewhere,
                       timeout=600)
    found = json.loads(p.stdout) if p.returncode == 0 else {}
    report(p.returncode == 0 and pathlib.Path(found["file"]).resolve().is_relative_to(venv.resolve()),
           "import ckptsim from another folder finds the module installed in the environment",
           p.stdout[:2000] + p.stderr)
    # The version comes from meson.build (project(..., version : ...)), passed here by Meson.
    report(found.get("version") == project_version and found.get("distribution") == project_version,
           f"ckptsim.__version__ and the installed distribution's version are the project's, {project_version}",
           {k: found.get(k) for k in ("version", "distribution")})
    # The installed module computes what the command line does: the same document except the
    # manifest's command line and git revision (the copy has no git data: "unknown").
    p = subprocess.run([ckptsim_exe, "analyze", str(paper), "--json", "-r", "10", "-s", "3"], capture_output=True,
                       text=True, timeout=600)
    cli_doc = json.loads(p.stdout) if p.returncode == 0 else {}
    module_doc = found.get("analyze", {})
    for doc in (cli_doc, module_doc):
        for key in ("command_line", "git_revision"):
            doc.get("manifest", {}).pop(key, None)
    report(p.returncode == 0 and module_doc == cli_doc and "metrics" in cli_doc,
           "the installed module's analyze() equals `ckptsim analyze --json -r 10 -s 3` (manifest's command line "
           "and revision aside)", json.dumps(module_doc)[:1500] + "\n" + json.dumps(cli_doc)[:1500])

sys.exit(checks.finish())
