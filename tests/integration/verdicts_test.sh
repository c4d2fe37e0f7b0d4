#!/usr/bin/env bash
# Verdicts every command that answers for a scenario carries (TAP, like cli_test.sh):
#   - a job that does not fit its GPUs is refused the same way by run, analyze and sweep points,
#     dropped by optimize, reported by iteration, and priced with --force only under a warning;
#   - fields the scenario writes that nothing reads are named in a warning by run, analyze,
#     iteration (text and JSON) and sweep points, with what is read instead.
# Usage: bash tests/integration/verdicts_test.sh [PATH/TO/ckptsim]
set -uo pipefail
bin=${1:-${CKPTSIM:-build/src/cli/ckptsim}}
[[ $bin == */* && $bin != /* ]] && bin=$PWD/$bin
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source tests/integration/tap.sh

edit() {  # edit IN OUT POINTER=JSON...: a copy of IN with fields replaced (null removes)
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for a in sys.argv[3:]:
    p, v = a.split('=', 1)
    keys = p.strip('/').split('/')
    o = d
    for k in keys[:-1]: o = o.setdefault(k, {})
    v = json.loads(v)
    if v is None: o.pop(keys[-1], None)
    else: o[keys[-1]] = v
json.dump(d, open(sys.argv[2], 'w'))
PY
}

# --- a job that does not fit its GPUs ---
# Llama 2 70B (about 69e9 parameters) under ZeRO-3 on one machine of 8 H100s (80 GiB each): the
# model states alone are 16 B x 69e9 / 8 GPUs = 138 GB = 128.5 GiB per GPU, more than 80 GiB
# whatever the activations, so the job cannot run and has no ETTR.
edit scenarios/examples/llama2-70b-64xp5.json "$tmp/oom.json" '/cluster/machines=1' '/strategy/replicas=1' \
  '/run/duration="1d"'
check "iteration reports that the job does not fit" bash -c "
  '$bin' iteration '$tmp/oom.json' --scheduler gemini | grep -q 'does not fit'"
check "run refuses a job that does not fit its GPUs (exit 2, /cluster/gpu_memory)" bash -c "
  '$bin' run '$tmp/oom.json' -r 3 -q >'$tmp/o' 2>'$tmp/e'; test \$? -eq 2 &&
  grep -q '/cluster/gpu_memory: training does not fit its GPUs' '$tmp/e' && grep -q -- '--force' '$tmp/e' &&
  ! grep -q ETTR '$tmp/o'"
check "analyze refuses it the same way" bash -c "
  '$bin' analyze '$tmp/oom.json' >'$tmp/o' 2>'$tmp/e'; test \$? -eq 2 &&
  grep -q '/cluster/gpu_memory: training does not fit its GPUs' '$tmp/e'"
# The refusal is the same whatever the strategy: remote-periodic keeps nothing in GPU memory, but
# training itself does not fit.
edit "$tmp/oom.json" "$tmp/oom-remote.json" '/strategy={"kind":"remote-periodic","interval":"1h"}'
check "run refuses it under a strategy that keeps nothing in memory too" bash -c "
  '$bin' run '$tmp/oom-remote.json' -r 3 -q 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -q 'training does not fit its GPUs' '$tmp/e'"
check "run --force prices it with a warning in the table and the JSON" bash -c "
  '$bin' run '$tmp/oom.json' -r 2 -q --force -o '$tmp/forced.json' >'$tmp/o' &&
  grep -q '^warning    priced although it does not fit (--force): training does not fit its GPUs' '$tmp/o' &&
  python3 -c \"import json; d = json.load(open('$tmp/forced.json')); assert any('does not fit' in w for w in d['costs']['warnings'])\""
check "optimize drops it as does not fit (GPU memory)" bash -c "
  '$bin' optimize '$tmp/oom.json' --vary /cluster/machines=1,8 >'$tmp/o' &&
  grep -E '^ +- +1 ' '$tmp/o' | grep -q 'does not fit' "
cat >"$tmp/sweep.json" <<EOF
{"base": "$tmp/oom.json", "command": "run",
 "axes": [{"pointer": "/cluster/machines", "values": [1, 8]}]}
EOF
check "a sweep point that does not fit is invalid with the same reason; the one that fits is ok" bash -c "
  '$bin' sweep '$tmp/sweep.json' -o '$tmp/sweep-out' --jobs 1 --quiet >/dev/null 2>&1
  python3 - '$tmp/sweep-out/points.jsonl' <<'PY'
import json, sys
points = [json.loads(l) for l in open(sys.argv[1])]
assert points[0]['status'] == 'invalid' and 'training does not fit its GPUs' in points[0]['error'], points[0]
assert points[1]['status'] == 'ok', points[1]
PY"

# --- refusals from the models name the scenario file, as the loader's do ---
# Elastic restart under per-step fault tolerance is refused by the run model itself; an explicit
# cluster without a GPU type gives the kernel model no GEMM efficiency once the explicit compute
# efficiency is gone.
edit scenarios/examples/llama3-405b-16k-torchft.json "$tmp/ft-elastic.json" '/failures/elastic={"min_machines":1024}'
check "the run model's refusal names the file and the field" bash -c "
  '$bin' run '$tmp/ft-elastic.json' -r 1 -q 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -q '$tmp/ft-elastic.json: /failures/elastic/min_machines' '$tmp/e'"
edit scenarios/examples/replay-small.json "$tmp/nohbm.json" '/training/compute_efficiency=null'
check "the iteration model's refusal names the file" bash -c "
  '$bin' run '$tmp/nohbm.json' -r 1 -q 2>'$tmp/e' >/dev/null; grep -q '$tmp/nohbm.json: ' '$tmp/e'"

# --- fields nothing reads ---
paper=scenarios/paper/gpt2-100b-16xp4d.json
edit $paper "$tmp/unread.json" '/strategy/interval="30min"' '/training/fsdp={"forward_prefetch":true}' '/run/duration="1d"'
check "run names each written field that nothing reads, and what is read instead" bash -c "
  '$bin' run '$tmp/unread.json' -r 2 -q >'$tmp/o' &&
  grep -q '^warning    /training/fsdp/forward_prefetch is not read: it is read only when training.parallelism is \"zero3\" and training.engine is \"fsdp\"' '$tmp/o' &&
  grep -q '^warning    /strategy/interval is not read by strategy \"gemini\" (its checkpoint period comes from /strategy/every_iterations' '$tmp/o'"
check "analyze names them too" bash -c "
  '$bin' analyze '$tmp/unread.json' | grep -c '^warning    /' | grep -qx 2"
check "iteration --json carries them in \"warnings\"" bash -c "
  '$bin' iteration '$tmp/unread.json' --scheduler gemini --json >'$tmp/it.json' &&
  python3 -c \"import json; w = json.load(open('$tmp/it.json'))['warnings']; assert len(w) == 2 and w[0].startswith('/training/fsdp/forward_prefetch'), w\""
check "a scenario that writes only what it reads prints no warning" bash -c "
  ! '$bin' run $paper -r 2 -q | grep -q '^warning'"

tap_finish
