#!/usr/bin/env python3
"""The Python sessions shown in README.md and docs/*.md, run as doctests, TAP output.

A session is a fenced block whose first line is `$ PYTHONPATH=build/python python3`; the lines
after it are an interactive session (`>>>` and `...` lines, then the output Python printed). Each
session runs from the repository's root in a fresh namespace, with the module built here (the
test's PYTHONPATH), and must print exactly what the page shows: a page whose example drifted from
the module fails here. Sessions run in page order, in one process: a scheduler registered by one
page's session stays registered for the next (as in one interpreter).
Usage: docs_examples_test.py (with the module's folder on PYTHONPATH; run from anywhere).
"""
import doctest
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import tap  # noqa: E402  (tests/tap.py)

root = tap.repo_root()
import ckptsim  # noqa: E402,F401  (the module under test; the sessions import it themselves)

checks = tap.Tap(detail_lines=60)
SESSION_START = "$ PYTHONPATH=build/python python3"
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)


def sessions(page):
    """(line number, text after the start line) of each session on the page."""
    text = page.read_text()
    for m in FENCE.finditer(text):
        body = m.group(1)
        if body.startswith(SESSION_START + "\n"):
            line = text.count("\n", 0, m.start()) + 2
            yield line, body[len(SESSION_START) + 1:]


pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
found = 0
parser = doctest.DocTestParser()
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
for page in pages:
    for line, body in sessions(page):
        found += 1
        name = f"{page.relative_to(root)}:{line}"
        test = parser.get_doctest(body, {}, name, str(page), line)
        output = []
        result = runner.run(test, out=output.append)
        checks.report(result.failed == 0 and result.attempted > 0, f"the Python session at {name} prints what it shows",
                      "".join(output) or "no examples in the session")

# The pages show sessions (docs/python.md has three): fewer found means the pattern broke.
checks.report(found >= 3, "the pages hold the Python sessions this test looks for", f"{found} found")
sys.exit(checks.finish())
