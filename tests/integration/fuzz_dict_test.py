#!/usr/bin/env python3
"""The fuzzers' dictionary (fuzz/ckptsim.dict) holds every key and every name of the scenario
format, as the parameter table declares them: every property of docs/scenario.schema.json (the
schema `ckptsim schema` generates from the table; the schema test keeps it equal) and every value
of its enums and name patterns. A parameter added to the table without its dictionary entry would
leave the fuzzers guessing its key byte by byte. TAP output, one line per check.
Usage: fuzz_dict_test.py (run from anywhere; paths are relative to the repository)."""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def schema_words(node, keys, names):
    if isinstance(node, dict):
        for k, v in node.get("properties", {}).items():
            keys.add(k)
            schema_words(v, keys, names)
        for v in node.get("enum", []):
            if isinstance(v, str):
                names.add(v)
        for k in ("anyOf", "oneOf", "allOf", "items", "prefixItems"):
            sub = node.get(k)
            for s in sub if isinstance(sub, list) else [sub] if sub else []:
                schema_words(s, keys, names)
        for k in ("$defs", "definitions"):
            for s in node.get(k, {}).values():
                schema_words(s, keys, names)


def main():
    schema = json.loads((ROOT / "docs" / "scenario.schema.json").read_text())
    keys, names = set(), set()
    schema_words(schema, keys, names)
    keys.discard("$schema")
    entries = set()
    for line in (ROOT / "fuzz" / "ckptsim.dict").read_text().splitlines():
        m = re.match(r'^[A-Za-z0-9_]*="(.*)"$', line.strip())
        if m:
            entries.add(m.group(1).encode().decode("unicode_escape"))
    n = 0
    failed = 0
    for kind, words in (("key", keys), ("name", names)):
        missing = sorted(w for w in words if f'"{w}"' not in entries)
        n += 1
        if missing:
            failed += 1
            print(f"not ok {n} - every scenario {kind} of the schema is in fuzz/ckptsim.dict")
            print(f"#     missing ({len(missing)}): " + ", ".join(missing))
        else:
            print(f"ok {n} - every scenario {kind} of the schema ({len(words)}) is in fuzz/ckptsim.dict")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
