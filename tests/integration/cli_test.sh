#!/usr/bin/env bash
# Command-line tests of the ckptsim executable: exit codes, outputs, determinism.
# Output is TAP: one line per check ("ok N - ..." / "not ok N - ..." followed by "# " lines with
# what the failing command printed) and the plan "1..N" at the end, so `meson test` counts each
# check (registered in tests/integration/meson.build) and notices when the script stops early.
# Exits 1 when any check failed.
# Usage: bash tests/integration/cli_test.sh [PATH/TO/ckptsim]   (default: $CKPTSIM, then
#        build/src/cli/ckptsim)
set -uo pipefail
bin=${1:-${CKPTSIM:-build/src/cli/ckptsim}}
[[ $bin == */* && $bin != /* ]] && bin=$PWD/$bin
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failures=0

check() {  # check DESCRIPTION COMMAND...: passes when the command exits 0
  local description=$1
  shift
  n=$((n + 1))
  if "$@" >"$tmp/check.out" 2>&1; then
    echo "ok $n - $description"
  else
    echo "not ok $n - $description"
    failures=$((failures + 1))
    sed 's/^/#     /' "$tmp/check.out" | head -20
  fi
}

exits_with() {  # exits_with CODE COMMAND...: the command's exit status is CODE
  local code=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [[ $got -eq $code ]] || { echo "exit $got, expected $code"; cat "$tmp/err"; return 1; }
}

json_has() {  # json_has FILE EXPRESSION: a Python expression over `d` (the parsed file) is true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

paper=scenarios/paper/gpt2-100b-16xp4d.json

# --- general ---
check "no arguments is a usage error (exit 2)" exits_with 2 "$bin"
check "--help exits 0" exits_with 0 "$bin" --help
check "unknown command exits 2" exits_with 2 "$bin" frobnicate
check "--version names the version" bash -c "'$bin' --version | grep -q '^ckptsim '"

# --- run ---
check "run on the paper scenario exits 0 and prints ETTR" bash -c "'$bin' run $paper --replicas 20 | grep -q ETTR"
check "run --output writes manifest, scenario and summary" bash -c "
  '$bin' run $paper --replicas 10 --output '$tmp/run.json' >/dev/null &&
  python3 -c \"
import json, sys
d = json.load(open('$tmp/run.json'))
m = d['manifest']; s = d['summary']
assert set(m) >= {'ckptsim_version', 'git_revision', 'seed', 'scenario_hash', 'command_line'}
for key in ('ettr', 'wall_time_s', 'iterations', 'wasted_time_per_failure_s'):
    assert set(s[key]) == {'mean', 'std', 'ci95'}, key
for part in ('software', 'hardware'): assert 'mean' in s['failures'][part]
for tier in ('local', 'peer', 'storage'): assert 'mean' in s['recoveries'][tier]
parts = ('training', 'checkpoint_stall', 'lost_progress', 'detection', 'replacement_wait', 'retrieval', 'restart')
total = sum(s['time_breakdown_s'][p]['mean'] for p in parts)
assert abs(total - s['wall_time_s']['mean']) < 1e-6 * s['wall_time_s']['mean'], (total, s['wall_time_s'])
assert 0 <= s['ettr']['mean'] <= 1
\""
check "run output is identical for --jobs 1 and --jobs 3" bash -c "
  '$bin' run $paper --replicas 30 --format csv --jobs 1 > '$tmp/j1.csv' &&
  '$bin' run $paper --replicas 30 --format csv --jobs 3 > '$tmp/j3.csv' && cmp '$tmp/j1.csv' '$tmp/j3.csv'"
check "run --format csv prints a header and one row per replica" bash -c "
  test \$('$bin' run $paper --replicas 7 --format csv | wc -l) -eq 8"
check "run --format csv: wasted time per failure is an empty cell (NA) for replicas without failures" bash -c "
  python3 -c \"import json; d=json.load(open('scenarios/examples/p4d-remote-periodic.json')); d['run']['duration']='3d'; json.dump(d, open('$tmp/short.json', 'w'))\" &&
  '$bin' run '$tmp/short.json' --replicas 20 --format csv > '$tmp/na.csv' &&
  python3 -c \"
import csv
# 16 machines x 1.5%/day x 3 days: 0.72 failures expected, so about half the replicas
# (e^-0.72 = 0.49) see none; the seed fixes which.
rows = list(csv.DictReader(open('$tmp/na.csv')))
assert len(rows) == 20
for r in rows:
    assert (r['wasted_time_per_failure_s'] == '') == (float(r['failures.total']) == 0), r
empty = sum(r['wasted_time_per_failure_s'] == '' for r in rows)
assert 0 < empty < 20, empty
\""
check "run --exact agrees with the closed form" bash -c "
  '$bin' run scenarios/examples/p4d-remote-periodic.json --replicas 3 --format csv > '$tmp/cf.csv' &&
  '$bin' run scenarios/examples/p4d-remote-periodic.json --replicas 3 --format csv --exact > '$tmp/ex.csv' &&
  cmp '$tmp/cf.csv' '$tmp/ex.csv'"
check "run on a missing file exits 2 and names it" bash -c "
  '$bin' run no/such/file.json 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -q 'no/such/file.json' '$tmp/e'"
check "run on an invalid scenario exits 2 with a JSON pointer" bash -c "
  f=\$(ls scenarios/invalid/*.json | head -1); '$bin' run \"\$f\" 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -q ': /' '$tmp/e'"
check "run warns when an iteration target is out of reach (no checkpoints, 1 failure/machine/day)" bash -c "
  python3 -c \"import json; d=json.load(open('scenarios/examples/p4d-no-checkpoint.json')); d['failures']['rate']='100%/machine/day'; d['run']['iterations']=2000; json.dump(d, open('$tmp/nock.json', 'w'))\" &&
  '$bin' run '$tmp/nock.json' --replicas 3 | grep -q 'did not reach run.iterations'"
check "run --format xml is a usage error" exits_with 2 "$bin" run $paper --format xml
check "run --replicas 0 is a usage error" exits_with 2 "$bin" run $paper --replicas 0
check "run --help exits 0" exits_with 0 "$bin" run --help

# --- every bundled scenario runs ---
for f in scenarios/paper/*.json scenarios/examples/*.json; do
  [[ $(basename "$f") == figures.json ]] && continue  # scripts/reproduce-paper's figure list, not a scenario
  check "run $(basename "$f") gives ETTR in [0, 1]" bash -c "
    '$bin' run '$f' --replicas 4 --output '$tmp/x.json' >/dev/null &&
    python3 -c \"import json; e=json.load(open('$tmp/x.json'))['summary']['ettr']['mean']; assert 0 <= e <= 1, e\""
done

# --- iteration / schedule ---
check "iteration --json gives every scheduler's fields" bash -c "
  '$bin' iteration $paper --json > '$tmp/it.json' &&
  python3 -c \"
import json
d = json.load(open('$tmp/it.json'))['schedulers']
for name in ('blocking', 'naive', 'single-buffer', 'gemini'):
    for key in ('iteration_time_s', 'iteration_time_with_checkpoint_s', 'idle_time_s', 'checkpoint_time_s', 'gpu_buffer_bytes', 'oom'):
        assert key in d[name], (name, key)
    assert d[name]['iteration_time_with_checkpoint_s'] >= d[name]['iteration_time_s']
# blocking sends everything while training waits: never faster than gemini
assert d['blocking']['iteration_time_with_checkpoint_s'] >= d['gemini']['iteration_time_with_checkpoint_s']
\""
check "iteration --json: idle-span distribution, time breakdown and memory terms add up" bash -c "
  python3 -c \"
import json
d = json.load(open('$tmp/it.json'))
s = d['idle_span_distribution']
# the histogram counts every span once; the total is the idle time; the longest fits in it
assert sum(b['count'] for b in s['histogram']) == s['count'] == d['idle_spans']
assert abs(s['total_s'] - d['idle_time_s']) <= 1e-9 and 0 < s['longest_s'] <= s['total_s']
b = d['breakdown']
# compute + exposed communication + boundary + optimizer step = the iteration
parts = b['compute_s'] + b['exposed_communication_s'] + b['boundary_s'] + b['optimizer_step_s']
assert abs(parts - d['iteration_time_s']) <= 1e-6 and b['limited_by'] in ('compute', 'exposed communication')
m = d['gpu_memory']
assert abs(sum(t['bytes'] for t in m['terms']) - m['used_bytes']) <= 1
assert abs(m['capacity_bytes'] - m['used_bytes'] - m['free_bytes']) <= 1 and m['free_bytes'] == d['free_gpu_memory_bytes']
\""
check "iteration --trace writes Chrome trace-event JSON" bash -c "
  '$bin' iteration $paper --scheduler gemini --trace '$tmp/trace.json' >/dev/null &&
  python3 -c \"import json; d=json.load(open('$tmp/trace.json')); e=d['traceEvents'] if isinstance(d, dict) else d; assert len(e) > 100\""
check "iteration --scheduler bogus exits 2" exits_with 2 "$bin" iteration $paper --scheduler bogus
check "schedule -o writes a ckptsim-plan/1 plan" bash -c "
  '$bin' schedule $paper -o '$tmp/plan.json' >/dev/null &&
  python3 -c \"import json; d=json.load(open('$tmp/plan.json')); assert d['format'] == 'ckptsim-plan/1'; assert len(d['ranks']) == 16 * 8\""
check "schedule without -o is a usage error" exits_with 2 "$bin" schedule $paper

# --- placement ---
check "placement --json: group N=4 m=2 k=2 recovers with probability 4/6" bash -c "
  '$bin' placement --machines 4 --replicas 2 --failures 2 --scheme group --json > '$tmp/pl.json' &&
  python3 -c \"import json; d=json.load(open('$tmp/pl.json'))['schemes']['group']; assert d['k'] == [2]; assert abs(d['probability'][0] - 4/6) < 1e-12, d\""
check "placement with more replicas than machines exits 2" exits_with 2 "$bin" placement --machines 3 --replicas 4
check "placement: a ring beyond the closed form's memory falls back to Monte Carlo (exit 0, method monte carlo)" bash -c "
  '$bin' placement --machines 200000 --replicas 3 --scheme ring --failures 3 --json > '$tmp/big.json' &&
  python3 -c \"import json; d=json.load(open('$tmp/big.json'))['schemes']['ring']; assert d['method'] == 'monte carlo', d['method']; assert d['exact'] is False; assert d['k'] == [3]; assert 0.99 <= d['probability'][0] <= 1, d\""
check "placement: Monte Carlo over every k of a huge placement is a limit error (exit 2), not a hang" bash -c "
  '$bin' placement --machines 200000 --replicas 3 --scheme ring --samples 1000000 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -q 'limit' '$tmp/e'"

# --- list ---
check "list names every strategy" bash -c "
  out=\$('$bin' list); for s in gemini remote-periodic remote-highfreq in-memory-blocking none; do grep -q \"\$s\" <<<\"\$out\" || exit 1; done"

echo "1..$n"
[[ $failures -eq 0 ]]
