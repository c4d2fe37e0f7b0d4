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
check "placement --domain-size: N=8 m=2 racks of 2; group loses at 1 rack, group-spread P_2 = 1 - 2/C(4,2) = 2/3" bash -c "
  '$bin' placement --machines 8 --replicas 2 --domain-size 2 --scheme group --json > '$tmp/pd.json' &&
  python3 -c \"import json; d=json.load(open('$tmp/pd.json'))['schemes']; assert d['group']['probability'][1] == 0; assert abs(d['group-spread']['probability'][2] - 2/3) < 1e-12, d\""
check "placement --domain-size 0 exits 2" exits_with 2 "$bin" placement --machines 8 --replicas 2 --domain-size 0
check "placement with more replicas than machines exits 2" exits_with 2 "$bin" placement --machines 3 --replicas 4
check "placement: a ring beyond the closed form's memory falls back to Monte Carlo (exit 0, method monte carlo)" bash -c "
  '$bin' placement --machines 200000 --replicas 3 --scheme ring --failures 3 --json > '$tmp/big.json' &&
  python3 -c \"import json; d=json.load(open('$tmp/big.json'))['schemes']['ring']; assert d['method'] == 'monte carlo', d['method']; assert d['exact'] is False; assert d['k'] == [3]; assert 0.99 <= d['probability'][0] <= 1, d\""
check "placement: Monte Carlo over every k of a huge placement is a limit error (exit 2), not a hang" bash -c "
  '$bin' placement --machines 200000 --replicas 3 --scheme ring --samples 1000000 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -q 'limit' '$tmp/e'"

# --- trace synth / stats ---
check "trace synth llama3-405b writes a trace whose header states its source" bash -c "
  '$bin' trace synth llama3-405b --machines 64 --duration 30d -o '$tmp/t.csv' >/dev/null &&
  grep -q 'arXiv 2407.21783' '$tmp/t.csv' && grep -q '^# machines: 64' '$tmp/t.csv' && grep -q '^time,machine,type,cause' '$tmp/t.csv'"
check "trace stats --json reads machines and duration from the header" bash -c "
  '$bin' trace stats '$tmp/t.csv' --json > '$tmp/ts.json'" 
check "trace stats: rate = failures / (64 x 30 machine-days)" json_has "$tmp/ts.json" \
  "d['machines'] == 64 and abs(d['rate_per_machine_day'] - d['failures'] / (64 * 30)) < 1e-12"
check "trace stats of every shipped synthetic trace" bash -c "
  for f in traces/llama3-405b-synth.csv traces/opt-175b-synth.csv traces/lanl-weibull-synth.csv; do
    '$bin' trace stats \$f >/dev/null || exit 1; done"
check "trace synth with --machines 0 exits 2" exits_with 2 "$bin" trace synth opt-175b --machines 0 --duration 1d -o "$tmp/x.csv"
check "trace synth with an unknown preset exits 2" exits_with 2 "$bin" trace synth llama4 --machines 4 --duration 1d -o "$tmp/x.csv"
check "trace synth beyond the record limit exits 2 (LimitError) before writing" bash -c "
  '$bin' trace synth exponential:rate=100/machine/day --machines 1000000 --duration 1000d -o '$tmp/big.csv'; rc=\$?;
  [[ \$rc -eq 2 && ! -e '$tmp/big.csv' ]]"
check "trace synth weibull on a million machines is refused before allocating (exit 2)" exits_with 2 "$bin" trace synth lanl-weibull --machines 1000000 --duration 1d -o "$tmp/w.csv"
check "trace stats of a directory exits 2" exits_with 2 "$bin" trace stats "$tmp"
check "run with causes and racks: JSON has time lost by cause and by tier, and they add up" bash -c "
  '$bin' run scenarios/examples/llama3-405b-causes-racks.json --replicas 4 -o '$tmp/cr.json' >/dev/null"
check "  ... the cause means add up to the tier means (same episodes, two bookkeepings)" json_has "$tmp/cr.json" \
  "abs(sum(v['mean'] for v in d['summary']['time_lost_by_cause_s'].values()) - sum(v['mean'] for v in d['summary']['time_lost_by_tier_s'].values())) < 1e-6 * sum(v['mean'] for v in d['summary']['time_lost_by_tier_s'].values()) and 'rack' in d['summary']['failures_by_cause'] and d['scenario']['failures']['causes'][0]['name'] == 'faulty-gpu'"
check "list failures names the domain kinds, lemon models and cause tables" bash -c "
  out=\$('$bin' list failures); for s in rack leaf power fraction gamma llama3-405b; do grep -q \"\$s\" <<<\"\$out\" || exit 1; done"

# --- list ---
check "list names every strategy" bash -c "
  out=\$('$bin' list); for s in gemini remote-periodic remote-highfreq in-memory-blocking none; do grep -q \"\$s\" <<<\"\$out\" || exit 1; done"

echo "1..$n"
[[ $failures -eq 0 ]]
