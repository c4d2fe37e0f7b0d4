#!/usr/bin/env python3
"""Checks the scenario JSON Schema (docs/scenario.schema.json). TAP output, one line per check.

1. The committed file is exactly what `ckptsim schema` prints (the schema is generated from
   the loader's parameter table; regenerate with `ckptsim schema > docs/scenario.schema.json`).
2. It is a valid draft 2020-12 schema.
3. Every bundled scenario (scenarios/paper, scenarios/examples, benchmarks/scenarios) names it
   in "$schema" (a path relative to the scenario file) and validates against it.
4. Each file of scenarios/invalid/ listed in scenarios/invalid/schema-level.txt fails
   validation; every other file there passes it (its mistake is one only the loader can see:
   a cross-field rule, a duplicate key, a missing trace file, a value out of a unit string's
   range) or is not JSON at all. So the list stays exact as the schema or the corpus change.

Usage: schema_test.py PATH/TO/ckptsim   (needs python3-jsonschema, see scripts/install-deps)
"""
import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import tap  # noqa: E402  (tests/tap.py)

ROOT = tap.repo_root(chdir=False)
SCHEMA_FILE = ROOT / "docs" / "scenario.schema.json"
# JSON files in the scenario folders that are not scenarios.
# Inputs of scripts/reproduce-paper and sweep specs (docs/sweep-format.md), not scenarios.
NOT_SCENARIOS = {"scenarios/paper/figures.json", "benchmarks/scenarios/sweep-10000-points.json"}
checks = tap.Tap(detail_lines=20, prefix="#     ")
report = checks.report


def errors_of(validator, path):
    """The schema errors of one file; None when the file is not JSON."""
    try:
        document = json.loads(path.read_text())
    except ValueError:
        return None
    return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))


def describe(errors):
    return "\n".join(f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


def main():
    try:
        import jsonschema
    except ImportError:
        report(False, "python3 can import jsonschema", "install python3-jsonschema (scripts/install-deps)")
        return checks.finish()
    printed = subprocess.run([sys.argv[1], "schema"], capture_output=True, text=True, check=False)
    committed = SCHEMA_FILE.read_text()
    report(printed.returncode == 0 and printed.stdout == committed,
           "docs/scenario.schema.json is exactly the output of `ckptsim schema`",
           "regenerate it: build/src/cli/ckptsim schema > docs/scenario.schema.json\n" + printed.stderr)
    schema = json.loads(committed)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        report(True, "the schema is a valid draft 2020-12 JSON Schema")
    except jsonschema.SchemaError as e:
        report(False, "the schema is a valid draft 2020-12 JSON Schema", e.message)
    validator = jsonschema.Draft202012Validator(schema)

    bundled = sorted([*ROOT.glob("scenarios/paper/*.json"), *ROOT.glob("scenarios/examples/*.json"),
                      *ROOT.glob("benchmarks/scenarios/*.json")])
    bundled = [p for p in bundled if str(p.relative_to(ROOT)) not in NOT_SCENARIOS]
    for path in bundled:
        name = path.relative_to(ROOT)
        reference = json.loads(path.read_text()).get("$schema", "")
        report((path.parent / reference).resolve() == SCHEMA_FILE,
               f"{name} names docs/scenario.schema.json in $schema", f"found {reference!r}")
        errors = errors_of(validator, path)
        report(errors == [], f"{name} validates against the schema", describe(errors or []))

    invalid = ROOT / "scenarios" / "invalid"
    listed = set()
    for line in (invalid / "schema-level.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            listed.add(line)
    for path in sorted(invalid.glob("*.json")):
        if path.name == "expected.json":
            continue
        errors = errors_of(validator, path)
        if path.name in listed:
            report(bool(errors), f"invalid/{path.name} fails the schema (listed as schema-level)",
                   "the schema accepts it: tighten the schema or remove it from schema-level.txt")
        else:
            report(errors is None or errors == [],
                   f"invalid/{path.name} is not a schema-level error and passes the schema",
                   "the schema rejects it: list it in scenarios/invalid/schema-level.txt\n" + describe(errors or []))
    missing = sorted(name for name in listed if not (invalid / name).is_file())
    report(not missing, "every file in schema-level.txt exists", ", ".join(missing))
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
