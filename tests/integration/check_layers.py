#!/usr/bin/env python3
"""Checks that layers depend downward only (docs/architecture.md, "Layers").

Every #include "ckptsim/<layer>/..." in src/<layer>/ and include/ckptsim/<layer>/ must name the
same layer or one below it. Prints each violation and exits 1 if there is any.
"""
import pathlib
import re
import sys

ORDER = ["core", "scenario", "network", "workload", "failure", "checkpoint", "run", "calibration", "analysis", "output", "sweep", "cli"]
RANK = {name: i for i, name in enumerate(ORDER)}
INCLUDE = re.compile(r'#include\s+"ckptsim/([a-z_]+)/')

root = pathlib.Path(__file__).resolve().parents[2]
violations = []
for base in (root / "src", root / "include" / "ckptsim"):
    for layer in ORDER:
        folder = base / layer
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.[ch]pp")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                m = INCLUDE.search(line)
                if m and m.group(1) in RANK and RANK[m.group(1)] > RANK[layer]:
                    violations.append(f"{path.relative_to(root)}:{number}: {layer} includes {m.group(1)} (a higher layer)")
for v in violations:
    print(v)
sys.exit(1 if violations else 0)
