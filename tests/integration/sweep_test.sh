#!/usr/bin/env bash
# Command-line tests of ckptsim sweep / merge: determinism across --jobs, MPI ranks and merged
# shards; crash (SIGKILL after K points, via the CKPTSIM_SWEEP_KILL_AFTER hook) and --resume;
# torn journal lines; changed specs refused; invalid points recorded; spec errors by pointer.
# Output is TAP (one "ok N - ..." / "not ok N - ..." line per check, "# " diagnostics, the plan
# "1..N" at the end; registered in tests/integration/meson.build). Exits 1 when any check failed.
# Usage: bash tests/integration/sweep_test.sh [PATH/TO/ckptsim]   (default: $CKPTSIM, then
#        build/src/cli/ckptsim)
set -u
bin=${1:-${CKPTSIM:-build/src/cli/ckptsim}}
[[ $bin == */* && $bin != /* ]] && bin=$PWD/$bin
cd "$(dirname "$0")/../.."
root=$(pwd)
[[ $bin == /* ]] || bin="$root/$bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source tests/integration/tap.sh

# A small sweep: 2 strategies x 3 machine counts (0 is invalid) x 2 failure rates = 12 points of
# the paper's testbed, one day and 5 replicas each.
cat >"$tmp/base.json" <<JSON
$(python3 -c "
import json; d = json.load(open('$root/scenarios/paper/gpt2-100b-16xp4d.json'))
d['run']['duration'] = '1d'; d['run']['replicas'] = 5; print(json.dumps(d))")
JSON
cat >"$tmp/spec.json" <<'JSON'
{ "base": "base.json", "seed": 3,
  "axes": [ {"pointer": "/strategy", "values": [{"kind": "gemini"}, {"kind": "remote-periodic"}]},
            {"pointer": "/cluster/machines", "name": "machines", "values": [16, 32, 0]},
            {"pointer": "/failures/rate", "values": ["1.5%/machine/day", "10%/machine/day"]} ] }
JSON
spec=$tmp/spec.json

check "sweep writes points.csv, points.jsonl and manifest.json" bash -c "
  '$bin' sweep '$spec' -o '$tmp/one' --jobs 1 --quiet &&
  test -s '$tmp/one/points.csv' && test -s '$tmp/one/points.jsonl' && test -s '$tmp/one/manifest.json'"
check "points.csv is tidy: 12 rows, the same columns in each, axes as written" python3 -c "
import csv, json, sys
rows = list(csv.DictReader(open('$tmp/one/points.csv')))
assert len(rows) == 12, len(rows)
assert [r['index'] for r in rows] == [str(i) for i in range(12)]
# grid order: the last axis fastest -> point 3 is gemini, 32 machines, 10%/machine/day
r = rows[3]
assert (r['strategy'], r['machines'], r['failures.rate']) == ('{\"kind\":\"gemini\"}', '32', '10%/machine/day'), r
for r in rows:
    if r['status'] == 'ok':
        assert 0 < float(r['ettr']) <= 1 and float(r['ettr_ci95']) >= 0
m = json.load(open('$tmp/one/manifest.json'))
assert m['point_count'] == 12 and m['seed'] == 3 and len(m['spec_hash']) == 16
assert 'command_line' in m and 'git_revision' in m and 'ckptsim_version' in m
# points.jsonl: every point's full result in index order (the run report minus its manifest)
lines = [json.loads(l) for l in open('$tmp/one/points.jsonl')]
assert [l['index'] for l in lines] == list(range(12))
ok = [l for l in lines if l['status'] == 'ok']
assert len(ok) == 8 and all(set(l['result']) == {'scenario_hash', 'scenario', 'costs', 'summary'} for l in ok)
assert all('restart' in l['result']['summary']['time_breakdown_s'] for l in ok)
"
check "invalid points (0 machines) are recorded with their error and the others run" python3 -c "
import csv
rows = list(csv.DictReader(open('$tmp/one/points.csv')))
bad = [r for r in rows if r['machines'] == '0']
assert len(bad) == 4 and all(r['status'] == 'invalid' and '/cluster/machines' in r['error'] and r['ettr'] == '' for r in bad)
assert all(r['status'] == 'ok' and r['error'] == '' for r in rows if r['machines'] != '0')
"
if python3 -c "import pandas" 2>/dev/null; then
  check "points.csv loads with pandas read_csv as is" python3 -c "
import pandas as pd
d = pd.read_csv('$tmp/one/points.csv')
assert len(d) == 12 and d['ettr'].dtype == float and set(d['status']) == {'ok', 'invalid'}"
fi
check "--jobs 2 gives a byte-identical points.csv" bash -c "
  '$bin' sweep '$spec' -o '$tmp/two' --jobs 2 --quiet && cmp '$tmp/one/points.csv' '$tmp/two/points.csv' &&
  cmp '$tmp/one/points.jsonl' '$tmp/two/points.jsonl'"
check "shards 0/3 1/3 2/3 merged in any order give the same points.csv" bash -c "
  for i in 0 1 2; do '$bin' sweep '$spec' -o \"$tmp/shard\$i\" --shard \$i/3 --quiet || exit 1; done
  '$bin' merge '$tmp/shard2' '$tmp/shard0' '$tmp/shard1' -o '$tmp/merged' 2>/dev/null &&
  cmp '$tmp/one/points.csv' '$tmp/merged/points.csv' && cmp '$tmp/one/points.jsonl' '$tmp/merged/points.jsonl' &&
  '$bin' merge '$tmp/shard1' '$tmp/shard2' '$tmp/shard0' -o '$tmp/merged2' 2>/dev/null &&
  cmp '$tmp/one/points.csv' '$tmp/merged2/points.csv'"
check "merge refuses a missing shard (exit 2, names the missing point)" bash -c "
  exits_with() { '$bin' \"\$@\" >/dev/null 2>'$tmp/merge.err'; [[ \$? -eq 2 ]]; }
  exits_with merge '$tmp/shard0' '$tmp/shard2' -o '$tmp/merged3' && grep -q 'point 1 missing' '$tmp/merge.err'"
check "kill -9 after 5 points, then --resume: the same points.csv, no point redone" bash -c "
  CKPTSIM_SWEEP_KILL_AFTER=5 '$bin' sweep '$spec' -o '$tmp/killed' --quiet; [[ \$? -eq 137 ]] || exit 1
  [[ ! -e '$tmp/killed/points.csv' ]] || exit 1
  [[ \$(wc -l < '$tmp/killed/journal.jsonl') -eq 6 ]] || exit 1
  '$bin' sweep '$spec' -o '$tmp/killed' --resume 2>'$tmp/resume.err' &&
  grep -q '5 from the journal, 7 computed' '$tmp/resume.err' && cmp '$tmp/one/points.csv' '$tmp/killed/points.csv'"
check "an existing journal without --resume is refused (exit 2)" exits_with 2 "$bin" sweep "$spec" -o "$tmp/killed" --quiet
check "a torn last journal line is dropped and its point redone" bash -c "
  CKPTSIM_SWEEP_KILL_AFTER=4 '$bin' sweep '$spec' -o '$tmp/torn' --quiet; [[ \$? -eq 137 ]] || exit 1
  size=\$(stat -c %s '$tmp/torn/journal.jsonl'); truncate -s \$((size - 25)) '$tmp/torn/journal.jsonl'
  '$bin' sweep '$spec' -o '$tmp/torn' --resume 2>'$tmp/torn.err' &&
  grep -q '3 from the journal, 9 computed, 1 torn or corrupt journal lines dropped' '$tmp/torn.err' &&
  cmp '$tmp/one/points.csv' '$tmp/torn/points.csv'"
check "--resume with a changed spec is refused by spec hash (exit 2)" bash -c "
  sed 's/\"seed\": 3/\"seed\": 4/' '$spec' > '$tmp/spec-changed.json'
  '$bin' sweep '$tmp/spec-changed.json' -o '$tmp/one' --resume --quiet 2>'$tmp/changed.err'; [[ \$? -eq 2 ]] &&
  grep -q 'spec hash' '$tmp/changed.err'"
check "a spec error exits 2 naming the spec file and the JSON pointer" bash -c "
  echo '{\"base\": \"base.json\", \"axes\": [{\"pointer\": \"cluster\", \"values\": [1]}], \"colour\": 1}' > '$tmp/bad-spec.json'
  '$bin' sweep '$tmp/bad-spec.json' -o '$tmp/bad' 2>'$tmp/bad.err'; [[ \$? -eq 2 ]] &&
  grep -q '$tmp/bad-spec.json: /axes/0/pointer: expected a JSON pointer' '$tmp/bad.err' &&
  grep -q '$tmp/bad-spec.json: /colour: expected one of the keys' '$tmp/bad.err'"
check "a spec that is not JSON exits 2" bash -c "
  echo '{\"base\": ' > '$tmp/broken.json'; '$bin' sweep '$tmp/broken.json' -o '$tmp/broken' 2>/dev/null; [[ \$? -eq 2 ]]"
check "the issue's example spec (scenarios/sweeps/paper-strategies.json) runs all 8 points" bash -c "
  '$bin' sweep scenarios/sweeps/paper-strategies.json -o '$tmp/paper' --quiet &&
  [[ \$(grep -c ',ok,' '$tmp/paper/points.csv') -eq 8 ]]"
check "progress: a line per 10% when stderr is not a terminal; --quiet silences it" bash -c "
  '$bin' sweep '$spec' -o '$tmp/progress' 2>'$tmp/progress.err' >/dev/null &&
  [[ \$(grep -c '^sweep: [0-9]*% ' '$tmp/progress.err') -ge 9 ]] &&
  '$bin' sweep '$spec' -o '$tmp/quiet' --quiet 2>'$tmp/quiet.err' && [[ ! -s '$tmp/quiet.err' ]]"
# scripts/plot.py: every figure kind from the small sweep, a placement --json and an iteration
# --trace file, each as a valid PNG (signature, IHDR size) and a valid SVG (parses as XML, root <svg>).
valid_figures() {  # valid_figures FILE...: each exists and is a well-formed PNG or SVG
  /usr/bin/python3 - "$@" <<'PY'
import struct, sys, xml.etree.ElementTree as ET
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    if path.endswith(".png"):
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
        width, height = struct.unpack(">II", data[16:24])
        assert width > 100 and height > 100, (path, width, height)
    else:
        assert ET.fromstring(data).tag.endswith("svg"), path
PY
}
check "plot.py: line, breakdown and heatmap figures from a sweep folder (PNG + SVG)" bash -c "
  scripts/plot.py '$tmp/one' -o '$tmp/fig' >'$tmp/fig.list' && [[ \$(wc -l < '$tmp/fig.list') -eq 6 ]] &&
  $(declare -f valid_figures); valid_figures \$(cat '$tmp/fig.list') &&
  grep -q 'ettr-vs-machines.png' '$tmp/fig.list' && grep -q 'breakdown-by-strategy.svg' '$tmp/fig.list' &&
  grep -q 'heatmap-ettr.png' '$tmp/fig.list'"
check "plot.py: the best value of one axis against another" bash -c "
  scripts/plot.py '$tmp/one' -o '$tmp/fig' --kind best --x failures.rate --over machines >'$tmp/best.list' &&
  $(declare -f valid_figures); valid_figures \$(cat '$tmp/best.list') && [[ \$(wc -l < '$tmp/best.list') -eq 2 ]]"
check "plot.py: probability against k per scheme from ckptsim placement --json" bash -c "
  '$bin' placement --machines 12 --replicas 2 --json > '$tmp/placement.json' &&
  scripts/plot.py '$tmp/placement.json' -o '$tmp/fig' >'$tmp/pl.list' &&
  $(declare -f valid_figures); valid_figures \$(cat '$tmp/pl.list') && grep -q placement-probability.png '$tmp/pl.list'"
check "plot.py: an iteration timeline from ckptsim iteration --trace" bash -c "
  '$bin' iteration '$tmp/base.json' --trace '$tmp/trace.json' >/dev/null &&
  scripts/plot.py '$tmp/trace.json' -o '$tmp/fig' --machines 2 >'$tmp/tl.list' &&
  $(declare -f valid_figures); valid_figures \$(cat '$tmp/tl.list') && grep -q iteration-timeline.svg '$tmp/tl.list'"
check "plot.py: a file that is no ckptsim output exits 2" bash -c "
  echo '[1, 2]' > '$tmp/other.json'; scripts/plot.py '$tmp/other.json' -o '$tmp/fig' 2>/dev/null; [[ \$? -eq 2 ]]"

# scripts/slurm/sweep.sbatch with a stand-in sbatch that runs array tasks one after another and
# then the dependent job: the shards and the merge must give the unsharded points.csv.
# analyze and placement points. An analyze point is the document of `ckptsim analyze --json` on
# the point's scenario (its seed is the point seed), without the manifest, plus the hash.
cat >"$tmp/analyze-spec.json" <<'JSON'
{ "base": "base.json", "command": "analyze", "seed": 5,
  "axes": [ {"pointer": "/strategy", "values": [{"kind": "gemini"}, {"kind": "remote-periodic"}]} ] }
JSON
check "analyze points: each result is ckptsim analyze --json on the point's scenario" bash -c "
  '$bin' sweep '$tmp/analyze-spec.json' -o '$tmp/analyze' --quiet && /usr/bin/python3 -c \"
import json, subprocess, sys
rows = [json.loads(l) for l in open('$tmp/analyze/points.jsonl')]
assert len(rows) == 2 and all(r['status'] == 'ok' for r in rows), rows
for r in rows:
    result = r['result']
    json.dump(result['scenario'], open('$tmp/analyze-point.json', 'w'))
    doc = json.loads(subprocess.check_output(['$bin', 'analyze', '$tmp/analyze-point.json', '--json']))
    del doc['manifest']
    assert len(result.pop('scenario_hash')) == 16
    assert doc == result, r['index']
\" && head -1 '$tmp/analyze/points.csv' | grep -q '^index,strategy,status,ettr_closed,ettr,ettr_ci95,'"
# Placement points of 16 machines, 2 replicas. By hand: group (8 pairs) loses a checkpoint at
# k = 2 only when the two failures are a pair: P2 = 1 - 8/C(16,2) = 1 - 8/120; ring (16 adjacent
# pairs): P2 = 1 - 16/120; P1 = 1 for both; group at k = 3: one machine from each of 3 pairs,
# C(8,3) 2^3 / C(16,3) = 448/560 = 0.8; storage machines at k = 2 for group: 16 x 8/120.
cat >"$tmp/placement-spec.json" <<'JSON'
{ "base": "base.json", "command": "placement",
  "axes": [ {"pointer": "/strategy", "values": [{"kind": "gemini", "replicas": 2, "placement": "group"},
                                                 {"kind": "gemini", "replicas": 2, "placement": "ring"}]} ] }
JSON
check "placement points: P_k of group and ring match the hand counts" bash -c "
  '$bin' sweep '$tmp/placement-spec.json' -o '$tmp/placement' --quiet && /usr/bin/python3 -c \"
import csv
rows = list(csv.DictReader(open('$tmp/placement/points.csv')))
close = lambda a, b: abs(float(a) - b) < 1e-12
g, r = rows
assert close(g['p_recover_k1'], 1) and close(r['p_recover_k1'], 1), rows
assert close(g['p_recover_k2'], 1 - 8 / 120) and close(r['p_recover_k2'], 1 - 16 / 120), rows
assert close(g['p_recover_k3'], 448 / 560), rows
assert close(g['storage_machines_k2'], 16 * 8 / 120), rows
assert g['shards_per_machine'] == '2', rows
\""
check "placement points: the curve equals ckptsim placement --json for the same N, m and scheme" bash -c "
  '$bin' placement --machines 16 --replicas 2 --scheme ring --json > '$tmp/placement-cmd.json' && /usr/bin/python3 -c \"
import json
point = [json.loads(l) for l in open('$tmp/placement/points.jsonl')][1]['result']['placement']
cmd = json.load(open('$tmp/placement-cmd.json'))['schemes']['ring']
assert point['k'] == cmd['k'] and point['probability'] == cmd['probability'], (point, cmd)
\""
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/sbatch" <<'STUB'
#!/usr/bin/env bash
array="" args=()
for a in "$@"; do case $a in --array=*) array=${a#--array=} ;; --*) ;; *) args+=("$a") ;; esac; done
if [[ -n $array ]]; then
  for ((i = 0; i <= ${array#0-}; i++)); do
    SLURM_JOB_ID=100 SLURM_ARRAY_TASK_ID=$i SLURM_CPUS_PER_TASK=2 bash "${args[@]}" >/dev/null 2>&1 || exit 1
  done
  echo 100
else
  SLURM_JOB_ID=101 bash "${args[@]}" >/dev/null 2>&1
fi
STUB
chmod +x "$tmp/fakebin/sbatch"
check "scripts/slurm/sweep.sbatch: array of 4 shards + dependent merge = the unsharded points.csv" bash -c "
  PATH='$tmp/fakebin':\$PATH CKPTSIM='$bin' scripts/slurm/sweep.sbatch '$spec' '$tmp/slurm' 4 >/dev/null &&
  cmp '$tmp/one/points.csv' '$tmp/slurm/merged/points.csv'"
if command -v script >/dev/null; then
  check "progress on a terminal: a bar redrawn in place with points done, rate and ETA" bash -c "
    script -qec \"'$bin' sweep '$spec' -o '$tmp/tty'\" /dev/null > '$tmp/tty.out' &&
    grep -q \$'\\r\\[#*\\.*\\] [0-9]*/12 points  [0-9]*/s  ETA ' '$tmp/tty.out' && ! grep -q '% (' '$tmp/tty.out'"
fi
if command -v mpirun >/dev/null && ldd "$bin" 2>/dev/null | grep -q libmpi; then
  check "mpirun -np 3 (rank 0 writes) gives the same points.csv" bash -c "
    ASAN_OPTIONS=detect_leaks=0 mpirun --oversubscribe --allow-run-as-root -np 3 '$bin' sweep '$spec' -o '$tmp/mpi' --quiet &&
    cmp '$tmp/one/points.csv' '$tmp/mpi/points.csv'"
fi
tap_finish
