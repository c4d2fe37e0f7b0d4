"""TAP output for the Python tests (tests/python/module_test.py, tests/integration/plot_test.py,
tests/integration/schema_test.py): one `ok N - what` / `not ok N - what` line per check, the
details of a failed check as `#` lines, the plan `1..N` at the end, and the exit status.

    import tap                       # tests/ on sys.path: see repo_root()
    t = tap.Tap(detail_lines=40)
    t.report(value == expected, "what is checked", f"found {value}")
    sys.exit(t.finish())
"""
import os
import pathlib
import sys


def repo_root(chdir=True):
    """The repository's root (this file's parent's parent); made the working directory unless
    chdir is False, so that paths in the tests read as from the root."""
    root = pathlib.Path(__file__).resolve().parents[1]
    if chdir:
        os.chdir(root)
    return root


def executable(argument):
    """The ckptsim binary given on the command line, as an absolute path (before any chdir)."""
    return os.path.abspath(argument)


class Tap:
    """Counts checks and failures. detail_lines: how many lines of a failure's details to print;
    last: the last ones instead of the first; prefix: what starts each detail line."""

    def __init__(self, detail_lines=40, last=False, prefix="# "):
        self.count = 0
        self.failures = 0
        self.detail_lines = detail_lines
        self.last = last
        self.prefix = prefix

    def report(self, ok, description, details=""):
        self.count += 1
        self.failures += 0 if ok else 1
        print(f"{'ok' if ok else 'not ok'} {self.count} - {description}")
        if not ok and details:
            lines = str(details).splitlines()
            for line in lines[-self.detail_lines:] if self.last else lines[:self.detail_lines]:
                print(f"{self.prefix}{line}")
        return ok

    def finish(self, skip=""):
        """Prints the plan (with `# SKIP reason` when given) and returns the exit status."""
        print(f"1..{self.count}" + (f" # SKIP {skip}" if skip else ""))
        return 1 if self.failures else 0
