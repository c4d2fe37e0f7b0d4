# Checks of cli_test.sh (sourced from it, never run alone; $bin, $tmp, $paper and the TAP helpers
# come from there): the clock, input-file, work-limit and silent-behaviour guards of
# docs/limits.md, each class of issue 21 with its examples and variations.

# Scenario variants of the paper testbed: mk_variant OUT 'python statements editing d'.
mk_variant() {
  python3 -c "
import json
d = json.load(open('$paper'))
$2
json.dump(d, open('$1', 'w'))"
}

# --- the clock: sums of time fields, one parse path for durations (docs/limits.md, "Clock range") ---
mk_variant "$tmp/sum.json" "d['training']['iteration_time'] = '1d'; d['strategy'] = {'kind': 'none'}
d['failures']['rate'] = '10%/machine/day'; d['run'].pop('duration'); d['run']['iterations'] = 36000; d['run']['replicas'] = 3"
check "run: 36000 one-day iterations without checkpoints stop at 100 years, unfinished, every figure >= 0" bash -c "
  '$bin' run '$tmp/sum.json' -q -o '$tmp/sum-out.json' >/dev/null && python3 -c \"
import json
s = json.load(open('$tmp/sum-out.json'))['summary']
# 36000 x 1 d = 98.6 years failure-free; the cap is min(100 x that, 100 years) = 100 x 365.25 x 86400 s.
assert s['wall_time_s']['mean'] == 3155760000.0, s['wall_time_s']
assert s['unfinished']['mean'] == 1.0 and 0 <= s['ettr']['mean'] <= 1, s
assert all(v['mean'] >= 0 for v in s['time_breakdown_s'].values()) and 0 <= s['iterations']['mean'] < 36000
\""
mk_variant "$tmp/horizon.json" "d['run']['duration'] = '36525d'; d['failures']['detection'] = '36000d'
d['failures']['restart'] = '36000d'; d['run']['replicas'] = 2"
for command in run analyze; do
  check "$command: a 100-year run with 98-year detection and restart is refused, naming each term" bash -c "
    '$bin' $command '$tmp/horizon.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
    grep -qF 'horizon.json: /run/duration: the run' '$tmp/e' && grep -qF '/failures/detection 36000 d' '$tmp/e' &&
    grep -qF '/failures/restart 36000 d' '$tmp/e' && grep -qF '292.3 years' '$tmp/e'"
done
check "optimize: the combination beyond the clock is invalid with its reason, the other is ranked" bash -c "
  '$bin' optimize '$tmp/horizon.json' --vary /failures/restart=36000d,253s --json > '$tmp/opt.json' && python3 -c \"
import json
d = json.load(open('$tmp/opt.json'))
c = {x['settings']['/failures/restart']: x for x in d['candidates']}
assert c['36000d']['status'] == 'invalid' and 'worst-case horizon' in c['36000d']['reason'], c['36000d']
assert c['253s']['status'] == 'ok' and d['best']['settings']['/failures/restart'] == '253s'
assert 0 <= c['253s']['ettr'] <= 1
\""
mk_variant "$tmp/stall.json" "d['run']['duration'] = '36525d'; d['training']['iteration_time'] = '60s'
d['strategy'] = {'kind': 'multi-level', 'checkpoint_stall': '36000d'}"
check "run: a multi-level checkpoint_stall of 36000 d in a 100-year run is refused naming it" bash -c "
  '$bin' run '$tmp/stall.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -qF '/strategy/checkpoint_stall 36000 d' '$tmp/e'"
for field in strategy/persistent_interval run/duration failures/detection failures/restart; do
  mk_variant "$tmp/number.json" "d['${field%%/*}']['${field#*/}'] = 9e9"
  mk_variant "$tmp/string.json" "d['${field%%/*}']['${field#*/}'] = '104167d'"
  check "/$field: 9e9 seconds as a number and \"104167d\" as a string are refused alike (at most 100 years)" bash -c "
    '$bin' run '$tmp/number.json' 2>'$tmp/e1' >/dev/null; test \$? -eq 2 &&
    '$bin' run '$tmp/string.json' 2>'$tmp/e2' >/dev/null; test \$? -eq 2 &&
    grep -qF '/$field: expected a duration of at most 100 years' '$tmp/e1' &&
    diff <(sed 's/, found .*//; s/number.json/X/' '$tmp/e1') <(sed 's/, found .*//; s/string.json/X/' '$tmp/e2')"
done
mk_variant "$tmp/max.json" "d['failures']['detection'] = 3155760000; d['run']['replicas'] = 2"
check "a duration of exactly 100 years as a number of seconds is accepted (the bound is inclusive)" \
  exits_with 0 "$bin" run "$tmp/max.json" -q

# --- work and memory limits: every one names the file, the fields and their values; --force ---
mk_variant "$tmp/gpus.json" "d['cluster']['gpus_per_machine'] = 1000000"
check "iteration-model flows: the limit names the file and all three factors with their values" bash -c "
  '$bin' run '$tmp/gpus.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'gpus.json: /model/layers x /cluster/machines x /cluster/gpus_per_machine = 124 x 16 x 1000000' '$tmp/e'"
mk_variant "$tmp/events.json" "d['failures']['rate'] = '100000%/machine/day'; d['run']['duration'] = '3650d'; d['run']['replicas'] = 1"
check "failure events of one replica: the limit names the file, /failures/rate and the values, and says --force" bash -c "
  '$bin' run '$tmp/events.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'events.json: /failures/rate x /cluster/machines x /run/duration' '$tmp/e' &&
  grep -qF '1000 per machine-day x 16' '$tmp/e' && grep -qF -- '--force runs it anyway' '$tmp/e'"
# The trace of all 2,048 machines of the Llama 3 405B example: the estimate (per machine its
# process, a slice per task, two NIC counter changes per transfer, the chunks' flows, at 192
# bytes an event) is above the 4 GiB limit, so it is refused before the trace is built (the
# trace of 64 machines is 98 MB: about 3.1 GB for 2,048), naming --trace-machines.
check "iteration --trace of 2,048 machines: the limit names --trace-machines and its value, and neither output is written" bash -c "
  '$bin' iteration scenarios/examples/llama3-405b-16k-hot-spares.json --scheduler gemini --trace '$tmp/wide.trace.json' --trace-machines 2048 \\
    --write-profile '$tmp/wide.profile.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF -- '--trace-machines = 2048: the trace (--trace) of the machines shown needs about' '$tmp/e' &&
  test ! -e '$tmp/wide.trace.json' && test ! -e '$tmp/wide.profile.json'"
# An output that cannot be written is refused before the work (output/output_file.hpp,
# check_output_writable): on these scenarios the work limit would refuse first (exit 2) if the
# output were only tried at the end.
check "run -o into a missing folder exits 1 before any estimate or replica, naming the folder" bash -c "
  '$bin' run '$tmp/events.json' -o '$tmp/missing/r.json' 2>'$tmp/e' >/dev/null; test \$? -eq 1 &&
  grep -qF 'cannot create a temporary file in $tmp/missing: No such file or directory' '$tmp/e'"
check "iteration --trace naming a folder exits 1 before the iteration model, naming it" bash -c "
  '$bin' iteration '$tmp/gpus.json' --trace '$tmp' 2>'$tmp/e' >/dev/null; test \$? -eq 1 &&
  grep -qF 'cannot write $tmp: Is a directory' '$tmp/e'"
# --force, cheaply: 6e7 iterations of 1 ms without stalls take 6e4 s failure-free, so the run's
# end is 100 x that, 6e6 s, over which 16 machines x 0.12/s draw 1.15e7 failures, above the 1e7
# limit. Forced, the replica finishes after about 1.15e5 of them (recoveries cost microseconds).
mk_variant "$tmp/events-force.json" "d['training']['iteration_time'] = '1ms'; d['training']['serialization_bandwidth'] = '1000TB/s'
d['strategy']['checkpoint_stall'] = '0s'; d['strategy']['persistent_interval'] = 'never'
d['failures'].update({'rate': '0.12/machine/s', 'hardware_fraction': 0, 'detection': '0s', 'restart': '0s'})
d['run'].pop('duration'); d['run']['iterations'] = 60000000; d['run']['replicas'] = 1"
check "failure events of one replica: --force runs it anyway" bash -c "
  '$bin' run '$tmp/events-force.json' -q >/dev/null 2>'$tmp/e'; test \$? -eq 2 && grep -qF '1.15e+07 failure events' '$tmp/e' &&
  '$bin' run '$tmp/events-force.json' -q --force >/dev/null"
check "analyze checks the run's work like run (and honours --force)" bash -c "
  '$bin' analyze '$tmp/events.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -qF 'one replica' '$tmp/e'"
# The closed forms build the strategy's placement once: 10^8 machines x (2 x (32 + 4 x 2) + 16)
# = 9.6e9 bytes (8.9 GiB) of holder lists and flags, above 4 GiB. It is refused before it is
# built, by analyze before the run's own estimates and by optimize (a work limit stops optimize
# as a whole, --force lifts it) (fuzz/fuzz_sweep_limits finding: an analyze point took 6.5 GB).
mk_variant "$tmp/closed-machines.json" "d['training']['iteration_time'] = '60s'; d['cluster']['machines'] = 100000000
d['run']['replicas'] = 1"
check "analyze: the closed forms' placement of 10^8 machines is refused before it is built" bash -c "
  '$bin' analyze '$tmp/closed-machines.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'closed-machines.json: /cluster/machines = 100000000: memory for the placement of the closed forms needs about 8.94 GiB' '$tmp/e' &&
  grep -qF -- '--force runs it anyway' '$tmp/e'"
mk_variant "$tmp/closed-16.json" "d['training']['iteration_time'] = '60s'"
check "optimize: a combination whose closed forms exceed the memory limit stops it, as its other work limits do" bash -c "
  '$bin' optimize '$tmp/closed-16.json' --vary /cluster/machines=100000000,16 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'closed-16.json: /cluster/machines = 100000000: memory for the placement of the closed forms' '$tmp/e' &&
  grep -qF -- '--force runs it anyway' '$tmp/e'"
mk_variant "$tmp/every.json" "d['strategy']['every_iterations'] = 2147483648"
check "every_iterations 2147483648 states the maximum" bash -c "
  '$bin' run '$tmp/every.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -qF 'at most 2147483647, found 2147483648' '$tmp/e'"
mk_variant "$tmp/share.json" "d['failures']['causes'] = [{'name': 'gpu', 'share': 1e300, 'outcome': 'hardware'}]"
check "a cause share of 1e300 states the maximum" bash -c "
  '$bin' run '$tmp/share.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -qF 'at most 1e+12' '$tmp/e'"
for value in NaN 150%; do
  check "placement --window-probability $value names the option and the value" bash -c "
    '$bin' placement --machines 16 --replicas 2 --window-probability '$value' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
    grep -qF -- '--window-probability expects a fraction' '$tmp/e' && grep -qF 'found \"$value\"' '$tmp/e'"
done
check "placement --shard-bytes NaNGB names the option and the value" bash -c "
  '$bin' placement --machines 16 --replicas 2 --shard-bytes NaNGB 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF -- '--shard-bytes expects a non-negative size' '$tmp/e' && grep -qF 'found \"NaNGB\"' '$tmp/e'"
check "placement --domain-size 32 on 16 machines is refused, as the loader refuses such a rack" bash -c "
  '$bin' placement --machines 16 --replicas 2 --domain-size 32 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF -- '--domain-size expects at most --machines (16)' '$tmp/e'"

# --- sweeps: a point is checked as its command checks it, and a sweep always finishes ---
python3 -c "
import json
json.dump({'base': '$PWD/$paper', 'axes': [{'pointer': '/run/replicas', 'values': [2, 2147483647, 3]},
                                          {'pointer': '/run/duration', 'values': ['1d']}]}, open('$tmp/sw-replicas.json', 'w'))
json.dump({'base': '$PWD/$paper', 'axes': [{'pointer': '/cluster/machines', 'values': [10000, 100000, 2e9]},
                                          {'pointer': '/run/duration', 'values': ['1d']}]}, open('$tmp/sw-machines.json', 'w'))"
check "sweep: /run/replicas [2, 2^31-1, 3] finishes; the middle point is invalid with the run's memory limit" bash -c "
  CKPTSIM_SWEEP_KILL_AFTER=1 '$bin' sweep '$tmp/sw-replicas.json' -o '$tmp/swr' -q; test \$? -ne 0 &&
  '$bin' sweep '$tmp/sw-replicas.json' -o '$tmp/swr' -q --resume && python3 -c \"
import csv
rows = list(csv.DictReader(open('$tmp/swr/points.csv')))
assert [r['status'] for r in rows] == ['ok', 'invalid', 'ok'], rows
assert 'memory for the replica results' in rows[1]['error'] and '2147483647' in rows[1]['error'], rows[1]['error']
\""
mk_variant "$tmp/machines.json" "d['cluster']['machines'] = 10000"
check "sweep: machine counts the command refuses are invalid points with the command's reason" bash -c "
  '$bin' run '$tmp/machines.json' 2>'$tmp/cmd' >/dev/null; test \$? -eq 2 &&
  '$bin' sweep '$tmp/sw-machines.json' -o '$tmp/swm' -q && python3 -c \"
import csv
rows = list(csv.DictReader(open('$tmp/swm/points.csv')))
assert [r['status'] for r in rows] == ['invalid'] * 3, rows
command = open('$tmp/cmd').read()
# 10,000 machines: 3 x 124 layers x 10000 x 8 GPUs = 2.98e7 flows > 2e7, as the command says.
assert 'training flows' in rows[0]['error'] and 'training flows' in command, (rows[0]['error'], command)
assert 'training flows' in rows[1]['error'] and 'an integer' in rows[2]['error'], rows
\""

# --- reads that hang or skip the regular-file check ---
mkdir -p "$tmp/fifo-sweep" "$tmp/zero-sweep"
mkfifo "$tmp/fifo-sweep/journal.jsonl"
ln -s /dev/zero "$tmp/zero-sweep/journal.jsonl"
check "sweep --resume with a FIFO journal.jsonl exits 2 at once naming it" bash -c "
  timeout 60 '$bin' sweep '$tmp/sw-replicas.json' -o '$tmp/fifo-sweep' --resume -q 2>'$tmp/e'; test \$? -eq 2 &&
  grep -qF 'fifo-sweep/journal.jsonl' '$tmp/e' && grep -qF 'FIFO' '$tmp/e'"
check "sweep --resume with journal.jsonl a link to /dev/zero exits 2 naming it" bash -c "
  timeout 60 '$bin' sweep '$tmp/sw-replicas.json' -o '$tmp/zero-sweep' --resume -q 2>'$tmp/e'; test \$? -eq 2 &&
  grep -qF 'zero-sweep/journal.jsonl' '$tmp/e'"
for kind in fifo zero; do
  mkdir -p "$tmp/merge-$kind"
  cp "$tmp/swr/manifest.json" "$tmp/merge-$kind/"
  if [[ $kind == fifo ]]; then mkfifo "$tmp/merge-$kind/points.jsonl"; else ln -s /dev/zero "$tmp/merge-$kind/points.jsonl"; fi
  check "merge with a points.jsonl that is a $kind exits 2 naming it" bash -c "
    timeout 60 '$bin' merge '$tmp/merge-$kind' -o '$tmp/merged-$kind' 2>'$tmp/e'; test \$? -eq 2 &&
    grep -qF 'merge-$kind/points.jsonl' '$tmp/e' && grep -qF 'regular file' '$tmp/e'"
done
mkfifo "$tmp/trace.fifo"
check "trace stats on a FIFO exits 2 at once" bash -c "
  timeout 60 '$bin' trace stats '$tmp/trace.fifo' 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -qF 'FIFO' '$tmp/e'"
printf '\xef\xbb\xbf\xef\xbb\xbf' >"$tmp/bom2.json"
# fuzz/fuzz_time_edges finding: a multi-level run whose adaptive persistent period (prior MTBF of
# 1 ns) puts the 1 Mbps upload's stall at every block once the run has started; the time to
# complete the remaining iterations left the clock (an internal error, exit 1). The run's end,
# 100 x the checked failure-free length capped at 100 years, now comes first: exit 0, unfinished.
cat >"$tmp/adaptive-levels.json" <<'JSON'
{"cluster":{"instance":"p4d.24xlarge","machines":16},"failures":{"causes":[{"detection":1e-09,"name":"edge","outcome":"hardware","restart":1e-09,"share":1},{"name":"plain","outcome":"software","share":1}],"detection":"1s","lemons":{"quarantine_window":1e-09},"process":"exponential","rate":"1.5%/machine/day","replacement":1e-09,"restart":3155760000.0,"scale":1e-09},"model":{"preset":"gpt2-100b"},"name":"time-edges","run":{"iterations":36000,"replicas":1,"seed":1},"storage":{"bandwidth":"1Mbps"},"strategy":{"adaptive_interval":true,"adaptive_prior_mtbf":1e-09,"checkpoint_duration":1e-09,"checkpoint_stall":1e-09,"every_iterations":2,"interval":3155760000.0,"kind":"multi-level","partner_interval":1e-09,"persistent_interval":3155760000.0},"training":{"iteration_time":60,"serialization_bandwidth":"930MB/s"}}
JSON
check "run: an adaptive multi-level period beyond the clock ends at the run's end, unfinished" bash -c "
  '$bin' run '$tmp/adaptive-levels.json' -q -o '$tmp/adaptive-levels-out.json' >/dev/null && python3 -c \"
import json
s = json.load(open('$tmp/adaptive-levels-out.json'))['summary']
assert s['unfinished']['mean'] == 1.0 and 0 <= s['ettr']['mean'] <= 1, s
assert s['iterations']['mean'] < 36000 and all(v['mean'] >= 0 for v in s['time_breakdown_s'].values()), s
\""
cat "$paper" >>"$tmp/bom2.json"
check "a scenario with two byte-order marks is refused" bash -c "
  '$bin' run '$tmp/bom2.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -qF 'second byte-order mark' '$tmp/e'"

# --- silent behaviours made loud ---
spec_error() {  # spec_error DESCRIPTION POINTER 'python dict literal of the spec'
  local description=$1 pointer=$2
  python3 -c "import json; json.dump($3, open('$tmp/bad-spec.json', 'w'))"
  cp "$tmp/bad-spec.json" "$tmp/bad-spec-$n.json"
  check "sweep spec: $description is refused at $pointer" bash -c "
    '$bin' sweep '$tmp/bad-spec-$n.json' -o '$tmp/never-$n' -q 2>'$tmp/e'; test \$? -eq 2 &&
    grep -qF 'bad-spec-$n.json: $pointer: ' '$tmp/e' && test ! -e '$tmp/never-$n/points.csv'"
}
base="'base': '$PWD/$paper'"
spec_error "an axis named ettr (a metric's column)" /axes/0/name \
  "{$base, 'axes': [{'pointer': '/failures/hardware_fraction', 'name': 'ettr', 'values': [0.5]}]}"
spec_error "an axis named status" /axes/0/name \
  "{$base, 'axes': [{'pointer': '/failures/hardware_fraction', 'name': 'status', 'values': [0.5]}]}"
spec_error "an axis named index" /axes/0/name \
  "{$base, 'axes': [{'pointer': '/failures/hardware_fraction', 'name': 'index', 'values': [0.5]}]}"
spec_error "a metric repeated" /metrics/1 "{$base, 'axes': [], 'metrics': ['/summary/ettr', '/summary/ettr']}"
spec_error "a metric pointer that resolves to nothing" /metrics/0 "{$base, 'axes': [], 'metrics': ['/summary/etr']}"
spec_error "a range of 1 step from 1 to 10" /axes/0/range/steps \
  "{$base, 'axes': [{'pointer': '/run/replicas', 'range': {'from': 1, 'to': 10, 'steps': 1}}]}"
spec_error "an axis that replaces an earlier axis's value" /axes/1/pointer \
  "{$base, 'axes': [{'pointer': '/strategy/replicas', 'values': [2]}, {'pointer': '/strategy', 'values': [{'kind': 'gemini'}]}]}"
check "optimize: a repeated --vary is refused instead of replacing the first" bash -c "
  '$bin' optimize $paper --vary /strategy/replicas=2 --vary /strategy/replicas=3 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'given twice' '$tmp/e'"
check "iteration --trace X --write-profile X is refused before anything is written" bash -c "
  '$bin' iteration $paper --trace '$tmp/same.json' --write-profile '$tmp/same.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF -- '--write-profile' '$tmp/e' && test ! -e '$tmp/same.json'"
check "merge -o into one of the folders merged is refused and leaves it as it was" bash -c "
  cp '$tmp/swr/points.csv' '$tmp/before.csv' && '$bin' merge '$tmp/swr' -o '$tmp/swr/.' 2>'$tmp/e'; test \$? -eq 2 &&
  grep -qF 'not one of the folders merged' '$tmp/e' && cmp '$tmp/before.csv' '$tmp/swr/points.csv'"
mkdir -p "$tmp/not-journal" "$tmp/link-journal"
echo 'precious data' >"$tmp/not-journal/journal.jsonl"
echo 'outside data' >"$tmp/outside.txt"
ln -s "$tmp/outside.txt" "$tmp/link-journal/journal.jsonl"
check "sweep --resume never overwrites a journal.jsonl that is not a journal" bash -c "
  '$bin' sweep '$tmp/sw-replicas.json' -o '$tmp/not-journal' --resume -q 2>'$tmp/e'; test \$? -eq 2 &&
  grep -qF 'not a sweep journal' '$tmp/e' && test \"\$(cat '$tmp/not-journal/journal.jsonl')\" = 'precious data'"
check "sweep --resume never writes through a journal.jsonl link to a file outside the folder" bash -c "
  '$bin' sweep '$tmp/sw-replicas.json' -o '$tmp/link-journal' --resume -q 2>'$tmp/e'; test \$? -eq 2 &&
  grep -qF 'symbolic link' '$tmp/e' && test \"\$(cat '$tmp/outside.txt')\" = 'outside data'"
check "trace synth refuses a key given twice" bash -c "
  '$bin' trace synth exponential:rate=1%/machine/day,rate=2%/machine/day --machines 4 --duration 1d -o '$tmp/twice.csv' 2>'$tmp/e'; test \$? -eq 2 &&
  grep -qF '/rate' '$tmp/e' && test ! -e '$tmp/twice.csv'"
check "trace synth writes the parameters in effect, its default rate included, in the header" bash -c "
  '$bin' trace synth exponential --machines 4 --duration 1d -o '$tmp/default.csv' >/dev/null &&
  grep -qF '# In effect: exponential (Poisson) failures, rate 0.015 per machine-day, hardware fraction 0.5.' '$tmp/default.csv' &&
  '$bin' trace synth --help | grep -qF '1.5%/machine/day'"
for value in -5 1e3 4abc; do
  printf '# machines: %s\ntime,machine,type\n10,0,software\n' "$value" >"$tmp/header.csv"
  check "trace stats refuses '# machines: $value' at its line" bash -c "
    '$bin' trace stats '$tmp/header.csv' 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -qF 'header.csv: /line/1: ' '$tmp/e'"
done
printf 'time,machine,type\n3600,0,software\n200000,1,hardware\n' >"$tmp/long.csv"
check "trace stats --duration 1d on a longer trace names the first line beyond it" bash -c "
  '$bin' trace stats '$tmp/long.csv' --duration 1d 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'long.csv: /line/3: expected failures within the observation length' '$tmp/e'"
for kind in erasure-coded multi-level remote-periodic; do
  mk_variant "$tmp/plan-$kind.json" "d['strategy'] = {'kind': '$kind'}"
  check "schedule refuses a $kind scenario instead of writing a GEMINI replica plan" bash -c "
    '$bin' schedule '$tmp/plan-$kind.json' -o '$tmp/plan-$kind.out' 2>'$tmp/e'; test \$? -eq 2 &&
    grep -qF '/strategy/kind: expected a strategy whose checkpoint is whole replicas' '$tmp/e' && test ! -e '$tmp/plan-$kind.out'"
done

# Per sub-buffer state (checkpoint/iteration_work.cpp): 2^31 - 1 sub-buffers x 64 bytes = 128 GiB,
# above the 4 GiB limit, even with one replica (no remote copy, no chunks) — the sweep_limits
# finding that held 16 GiB; 1000 sub-buffers (64 KB) pass the check.
mk_variant "$tmp/subbuf.json" "d['strategy']['sub_buffers'] = 2147483647; d['strategy']['replicas'] = 1"
check "iteration: 2^31 - 1 sub-buffers are refused by their memory estimate, naming /strategy/sub_buffers" bash -c "
  '$bin' iteration '$tmp/subbuf.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF '/strategy/sub_buffers' '$tmp/e' && grep -qF '2147483647' '$tmp/e' && grep -qF -- '--force' '$tmp/e'"
