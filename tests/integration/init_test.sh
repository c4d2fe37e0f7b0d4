#!/usr/bin/env bash
# `ckptsim init` (TAP, like cli_test.sh): the scenario it writes runs; the deciding fields are in
# it with the documented defaults and their sources; bad inputs exit 2 naming the option; an
# existing file is kept unless --force; the GPU memory check is run's.
# Usage: bash tests/integration/init_test.sh [PATH/TO/ckptsim]
set -uo pipefail
bin=${1:-${CKPTSIM:-build/src/cli/ckptsim}}
[[ $bin == */* && $bin != /* ]] && bin=$PWD/$bin
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source tests/integration/tap.sh

fails_with() {  # fails_with CODE TEXT COMMAND...: exit status CODE and TEXT in stderr
  local code=$1 text=$2
  shift 2
  timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [[ $got -eq $code ]] || { echo "exit $got, expected $code"; cat "$tmp/err"; return 1; }
  grep -qF -- "$text" "$tmp/err" || { echo "stderr lacks: $text"; cat "$tmp/err"; return 1; }
}

# 16 x p4d.24xlarge (8 x A100 40GB each, docs/references.md "Machines") training GPT-2 20B:
# small enough for the iteration model to answer at once.
base=(--instance p4d.24xlarge --model gpt2-20b --machines 16)

check "init --help exits 0 and names the deciding options" bash -c "
  '$bin' init --help | grep -q -- '--replacement' && '$bin' init --help | grep -q -- '--storage-bandwidth'"
check "init writes a scenario, exit 0" exits_with 0 "$bin" init "${base[@]}" -o "$tmp/first.json"
check "  ... that run runs (ETTR printed)" bash -c "'$bin' run '$tmp/first.json' -r 5 | grep -q ETTR"
check "  ... and iteration reads" exits_with 0 "$bin" iteration "$tmp/first.json"
# The deciding fields with the defaults of docs/references.md ("GEMINI"): 1.5 % of machines per
# day (the OPT-175B log), 15 s detection, replacement 4-7 min (5 min our choice inside), warm-up
# 253 s, 20 Gbps storage, 930 MB/s serialization (100.28e9 x 12 B / 16 machines / 81 s); hardware
# share 0.5 (our assumption) and no spares (the table's default).
check "  ... with every deciding field written, at the documented defaults" json_has "$tmp/first.json" "
d['failures']['rate'] == '1.5%/machine/day' and d['failures']['hardware_fraction'] == 0.5 and
d['failures']['detection'] == '15s' and d['failures']['replacement'] == '5min' and
d['failures']['restart_phases'] == {'warmup': '253s'} and d['storage'] == {'bandwidth': '20Gbps'} and
d['training']['serialization_bandwidth'] == '930MB/s' and d['cluster']['standby_machines'] == 0"
check "  ... and the choices: instance, machines, model, zero3, gemini, 30 days" json_has "$tmp/first.json" "
d['cluster']['instance'] == 'p4d.24xlarge' and d['cluster']['machines'] == 16 and d['model'] == {'preset': 'gpt2-20b'} and
d['training']['parallelism'] == 'zero3' and d['strategy'] == {'kind': 'gemini'} and d['run'] == {'duration': '30d'}"
check "init lists each deciding field with its source and the option that replaces it" bash -c "
  '$bin' init ${base[*]} -o '$tmp/listed.json' > '$tmp/list.txt' &&
  grep -q '^deciding   /failures/rate = 1.5%/machine/day (GEMINI, SOSP .23, from the OPT-175B log.*; --failure-rate replaces it)' '$tmp/list.txt' &&
  grep -q '/failures/replacement = 5min (GEMINI.s AWS testbed replaced an instance in 4-7 min.*--replacement' '$tmp/list.txt' &&
  grep -q '/storage/bandwidth = 20Gbps (GEMINI' '$tmp/list.txt' &&
  grep -q '/cluster/standby_machines = 0 (' '$tmp/list.txt' &&
  grep -q '^chosen     /cluster/instance = p4d.24xlarge (--instance)' '$tmp/list.txt'"
# 128 ranks with the phase defaults (docs/references.md, "Restart phases"): 253 s + 5 s +
# 128 x 1.017 ms (0.130176 s) + 0.66 s + 3 x 127 x 0.896 ms (0.341376 s) = 259.131552 s.
check "init prints the restart the phases make at 128 ranks" grep -q '/failures/restart = 259.132s (computed, not written' "$tmp/list.txt"
check "run's assumed block names the written replacement delay and its origin" bash -c "
  '$bin' run '$tmp/first.json' -r 2 | grep -q '/failures/replacement/value = 5min (scenario file)'"
# Issue 42: the replacement delay is always under `assumed`, even where no failure replaces a
# machine (every failure software): then it says so.
check "run's assumed block shows the replacement delay where no failure replaces a machine, and says so" bash -c "
  '$bin' init ${base[*]} --hardware-fraction 0 -o '$tmp/software.json' >/dev/null &&
  '$bin' run '$tmp/software.json' -r 2 | grep -q '/failures/replacement/value = 5min (scenario file; no failure here replaces a machine)'"
check "options replace the defaults: rate, replacement, spares, storage" bash -c "
  '$bin' init ${base[*]} --failure-rate 0.4%/machine/day --replacement 2h --spares 2 --storage-bandwidth 100GB/s -o '$tmp/own.json' >/dev/null &&
  python3 -c \"
import json; d = json.load(open('$tmp/own.json'))
assert d['failures']['rate'] == '0.4%/machine/day' and d['failures']['replacement'] == '2h', d
assert d['cluster']['standby_machines'] == 2 and d['storage']['bandwidth'] == '100GB/s', d
\" && '$bin' run '$tmp/own.json' -r 2 | grep -q '/failures/replacement/value = 2h (scenario file)'"
check "a megatron layout: --tp/--pp choose megatron, run runs it" bash -c "
  '$bin' init --instance dgx-h100 --model gpt2-20b --machines 2 --tp 8 --pp 2 -o '$tmp/mega.json' >/dev/null &&
  python3 -c \"
import json; d = json.load(open('$tmp/mega.json'))
assert d['training']['parallelism'] == 'megatron' and d['training']['megatron'] == {'tp': 8, 'pp': 2}, d
\" && '$bin' run '$tmp/mega.json' -r 2 | grep -q ETTR"
check "-o - writes the scenario to stdout (JSON) and the list to stderr" bash -c "
  '$bin' init ${base[*]} -o - > '$tmp/stdout.json' 2> '$tmp/stderr.txt' &&
  cmp '$tmp/stdout.json' '$tmp/first.json' && grep -q '^deciding ' '$tmp/stderr.txt'"
check "the same options write the same bytes" bash -c "
  '$bin' init ${base[*]} -o '$tmp/again.json' >/dev/null && cmp '$tmp/again.json' '$tmp/first.json'"

# --- overwriting ---
cp "$tmp/first.json" "$tmp/kept.json"
echo '{"mine": true}' > "$tmp/kept.json"
check "an existing output file is refused (exit 2) without --force" \
  fails_with 2 "-o: \"$tmp/kept.json\" exists; --force replaces it" "$bin" init "${base[@]}" -o "$tmp/kept.json"
check "  ... and left as it was" json_has "$tmp/kept.json" "d == {'mine': True}"
check "  ... --force replaces it" bash -c "
  '$bin' init ${base[*]} -o '$tmp/kept.json' --force >/dev/null && cmp '$tmp/kept.json' '$tmp/first.json'"

# --- bad inputs: exit 2, the option named, nothing written ---
check "an unknown instance lists the instances (exit 2)" fails_with 2 \
  '<command line>: --instance: expected one of "p4d.24xlarge", "p4de.24xlarge"' \
  "$bin" init --instance p4d --model gpt2-20b --machines 16 -o "$tmp/bad.json"
check "an unknown model lists the models with a suggestion (exit 2)" fails_with 2 \
  'found "gpt2-20" (did you mean' "$bin" init --instance p4d.24xlarge --model gpt2-20 --machines 16 -o "$tmp/bad.json"
check "an unknown GPU type lists the types (exit 2)" fails_with 2 \
  '--gpu: expected one of "v100-sxm2-16gb", "v100-sxm2-32gb", "a100-sxm4-40gb"' "$bin" init --gpu a100 --model gpt2-20b --machines 16 -o "$tmp/bad.json"
check "--machines 0 (exit 2)" fails_with 2 \
  '--machines: expected an integer of at least 1, found 0' "$bin" init --instance p4d.24xlarge --model gpt2-20b --machines 0 -o "$tmp/bad.json"
check "--machines=-3 (exit 2)" fails_with 2 \
  '--machines: expected an integer of at least 1, found -3' "$bin" init --instance p4d.24xlarge --model gpt2-20b --machines=-3 -o "$tmp/bad.json"
check "--machines missing (exit 2)" fails_with 2 \
  '--machines: expected the number of machines training' "$bin" init --instance p4d.24xlarge --model gpt2-20b -o "$tmp/bad.json"
check "--machines not a number (exit 2)" fails_with 2 "machines" "$bin" init "${base[@]:0:4}" --machines many -o "$tmp/bad.json"
check "--spares=-1 (exit 2)" fails_with 2 '--spares: expected an integer of at least 0, found -1' "$bin" init "${base[@]}" --spares=-1 -o "$tmp/bad.json"
# 16 machines x 8 GPUs = 128; a tensor x pipeline x context product of 3 does not divide it.
check "a layout not dividing the GPUs (exit 2)" fails_with 2 \
  '--tp x --pp x --cp: expected a product dividing the 128 GPUs of 16 machines x 8, the quotient being dp, found 3 x 1 x 1 = 3' "$bin" init "${base[@]}" --tp 3 -o "$tmp/bad.json"
# tp 8 x pp 2 x dp 4 = 64, not 128.
check "a layout with --dp not equal to the GPUs (exit 2)" fails_with 2 \
  '--tp x --pp x --cp x --dp: expected a product equal to the 128 GPUs of 16 machines x 8, found 8 x 2 x 1 x 4 = 64' \
  "$bin" init "${base[@]}" --tp 8 --pp 2 --dp 4 -o "$tmp/bad.json"
check "--tp with --parallelism zero3 (exit 2)" fails_with 2 \
  '--tp: expected a megatron layout option only with --parallelism megatron' "$bin" init "${base[@]}" --parallelism zero3 --tp 8 -o "$tmp/bad.json"
check "a bad unit names its option (exit 2)" fails_with 2 \
  '--replacement: expected a non-negative duration' "$bin" init "${base[@]}" --replacement soon -o "$tmp/bad.json"
check "a rate without its subject is refused (exit 2)" fails_with 2 '--failure-rate: expected' "$bin" init "${base[@]}" --failure-rate 2/day -o "$tmp/bad.json"
check "--gpu without --instance needs the machine's figures (exit 2)" fails_with 2 \
  '--cpu-memory: expected a size such as "2TiB" (--gpu without --instance' "$bin" init --gpu a100-sxm4-40gb --model gpt2-20b --machines 16 -o "$tmp/bad.json"
check "no -o (exit 2)" fails_with 2 'missing -o FILE' "$bin" init "${base[@]}"
check "none of the refused commands wrote a file" test ! -e "$tmp/bad.json"

# --- what run would say ---
# GPT-2 100B on 4 x p4d (32 A100 40GB) with checkpoints to storage only (no CPU-memory replicas to
# refuse first): 100e9 x 16 B of model states / 32 GPUs = 50 GB per GPU before any activation,
# above its 40 GiB (42.9 GB). run refuses it; init says the same (its way out aside) and writes
# nothing.
oom=(--instance p4d.24xlarge --model gpt2-100b --machines 4 --strategy remote-periodic)
check "a job that does not fit its GPUs: init exits 2 with run's message, writes nothing" bash -c "
  '$bin' init ${oom[*]} -o '$tmp/oom.json' 2> '$tmp/init-oom.err'; test \$? -eq 2 || exit 1
  test ! -e '$tmp/oom.json' || exit 1
  '$bin' init ${oom[*]} --no-check -o '$tmp/oom.json' > /dev/null || exit 1
  '$bin' run '$tmp/oom.json' -r 2 2> '$tmp/run-oom.err'; test \$? -eq 2 || exit 1
  grep -q 'oom.json: /cluster/gpu_memory: training does not fit its GPUs' '$tmp/init-oom.err' || exit 1
  cmp <(sed 's/ ([^()]*)\$//' '$tmp/init-oom.err') <(sed 's/ ([^()]*)\$//' '$tmp/run-oom.err')"

tap_finish
