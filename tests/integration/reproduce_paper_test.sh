#!/usr/bin/env bash
# Runs `scripts/reproduce_paper.py --quick` into a temporary folder and checks that every figure's
# CSV and PNG appear and parse, that README.md embeds each PNG, and that a second run gives
# byte-identical CSVs (determinism). It does not compare numbers with the paper.
# Output is TAP ("ok N - ...", "not ok N - ...", then the plan "1..N").
# usage: tests/integration/reproduce_paper_test.sh [CKPTSIM_BINARY]
set -uo pipefail
ckptsim=${1:-${CKPTSIM:-build/src/cli/ckptsim}}
# meson test passes a path relative to the build folder: make it absolute before leaving it.
[[ $ckptsim == */* && $ckptsim != /* ]] && ckptsim=$PWD/$ckptsim
cd "$(dirname "$0")/../.."
python=/usr/bin/python3
[[ -x $python ]] || python=python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tmp=$out
source tests/integration/tap.sh
"$python" scripts/reproduce_paper.py --quick --ckptsim "$ckptsim" --out "$out/a" 2>"$out/log" >/dev/null
status=$?
check "reproduce-paper --quick runs (exit 0)" test "$status" -eq 0
[[ $status -eq 0 ]] || sed 's/^/# /' "$out/log"
check "progress line per figure" grep -q '\[8/8\] Fig. 16' "$out/log"
for fig in fig07_08_13 fig09 fig10 fig11 fig12 fig14 fig15 fig16; do
  check "$fig.csv parses with a header and rows" "$python" -c "
import csv, sys
rows = list(csv.DictReader(open('$out/a/$fig.csv')))
assert rows and all(len(r) == len(rows[0]) for r in rows) and None not in rows[0]" 
  check "$fig.png is a PNG" bash -c "head -c 8 '$out/a/$fig.png' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
  check "README.md embeds $fig.png" grep -q "($fig.png)" "$out/a/README.md"
done
"$python" scripts/reproduce_paper.py --quick --ckptsim "$ckptsim" --out "$out/b" 2>/dev/null
check "CSVs are byte-identical across two runs" bash -c "cd '$out' && for f in a/*.csv; do cmp -s \$f b/\${f#a/} || exit 1; done"
tap_finish
