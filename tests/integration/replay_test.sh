#!/usr/bin/env bash
# Tests of ckptsim-replay (mpi backend, 4 ranks under mpirun) and ckptsim validate.
# Output is TAP (registered in tests/integration/meson.build): one line per check, "# " lines with
# what a failing command printed, the plan "1..N" at the end. Exits 1 when any check failed.
# Usage: bash tests/integration/replay_test.sh [PATH/TO/ckptsim [PATH/TO/ckptsim-replay]]
set -u
bin=${1:-${CKPTSIM:-build/src/cli/ckptsim}}
replay=${2:-${CKPTSIM_REPLAY:-build/replay/ckptsim-replay}}
[[ $bin == */* && $bin != /* ]] && bin=$PWD/$bin
[[ $replay == */* && $replay != /* ]] && replay=$PWD/$replay
cd "$(dirname "$0")/../.."
# Sanitizer build: OpenMPI unloads its dlopen'ed components before LeakSanitizer runs, so their
# allocations held until exit show up as leaks in "<unknown module>" that no suppression can
# name; leak checking is off for the MPI processes (address and undefined-behaviour checks stay
# on). The plan reader and timeline code are leak-checked by the replay-unit tests.
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scenario=scenarios/examples/replay-small.json
mpi=(mpirun --oversubscribe --allow-run-as-root -np 4)
# shellcheck source=tap.sh
source tests/integration/tap.sh

err_has() { grep -q -- "$1" "$tmp/err" || { echo "stderr lacks: $1"; cat "$tmp/err"; return 1; }; }

# --- every scheduler's plan replays on 4 ranks, with matching checksums ---
for s in blocking naive single-buffer gemini; do
  "$bin" schedule "$scenario" --scheduler "$s" -o "$tmp/$s.plan.json" 2>/dev/null
  check "$s: plan replays on 4 ranks (exit 0, checksums match)" \
    exits_with 0 "${mpi[@]}" "$replay" "$tmp/$s.plan.json" --iterations 1 --warmup 0 -o "$tmp/$s.measured.json"
  check "$s: the replay reports matching checksums" err_has "checksums match"
  # Every rank sends each of its planned chunks once and receives each chunk its sender planned
  # for it (group placement, 2 replicas: each rank has exactly one peer), and every training
  # operation of the plan except markers was timed, with end >= start.
  check "$s: measured timeline has every op, send and copy of the plan" python3 - "$tmp/$s.plan.json" "$tmp/$s.measured.json" <<'PY'
import json, sys
plan, m = (json.load(open(f)) for f in sys.argv[1:3])
assert m["format"] == "ckptsim-timeline/1" and len(m["ranks"]) == 4
ops = [o for o in plan["iteration"]["operations"] if o["kind"] != "marker"]
for r in m["ranks"]:
    it = r["iterations"][0]
    chunks = plan["ranks"][r["rank"]]["chunks"]
    assert len(it["operations"]) == len(ops), (len(it["operations"]), len(ops))
    assert all(o["end_s"] >= o["start_s"] >= 0 for o in it["operations"])
    assert [s["index"] for s in it["sends"]] == [c["index"] for c in chunks]
    incoming = [c for q in plan["ranks"] for c in q["chunks"] if c["peer"] == r["rank"]]
    assert len(it["copies"]) == len(incoming)
    assert sum(c["bytes"] for c in it["copies"]) == int(plan["parameters"]["shard_bytes"])
    assert it["iteration_time_s"] > 0 and it["checkpoint_time_s"] > 0
PY
done
# blocking holds training until every chunk was sent: no training op starts before the last send ends.
check "blocking: training starts after the last chunk was sent" json_has "$tmp/blocking.measured.json" \
  "all(min(o['start_s'] for o in it['operations']) >= it['sends'][-1]['end_s'] for r in d['ranks'] for it in r['iterations'])"

# --- integrity: a flipped byte is caught and named ---
# Group placement with 2 replicas on 4 machines pairs {0,1} and {2,3}: rank 2 sends to rank 3.
check "--inject-corruption 2:1 fails the run with exit 1" \
  exits_with 1 "${mpi[@]}" "$replay" "$tmp/gemini.plan.json" --iterations 1 --warmup 0 -o "$tmp/bad.json" --inject-corruption 2:1
check "the failure names receiver, chunk, sender and iteration" err_has "rank 3 received chunk 1 from rank 2 in iteration 0"
check "no measured file is written after an integrity failure" test ! -e "$tmp/bad.json"

# --- bad launches and inputs exit 2 ---
check "a plan for 4 ranks launched on 2 exits 2" \
  exits_with 2 mpirun --oversubscribe --allow-run-as-root -np 2 "$replay" "$tmp/gemini.plan.json" -o "$tmp/x.json"
check "the rank mismatch message says how to launch" err_has "launch with mpirun -np 4"
# The nccl backend: built when CUDA, NCCL and cuBLAS were found (the help says which). CI and the
# development machine have the toolkit but no GPU, where --backend nccl must exit 2 saying so;
# on a machine with GPUs the run would go ahead, so there the check is skipped (scripts/gpu-check
# covers GPUs).
if "$replay" --help | grep -q "nccl (CUDA + NCCL"; then
  if nvidia-smi -L 2>/dev/null | grep -q "^GPU "; then
    n=$((n + 1)); echo "ok $n - # SKIP --backend nccl without a GPU (this machine has GPUs)"
    n=$((n + 1)); echo "ok $n - # SKIP the no-GPU message (this machine has GPUs)"
  else
    check "--backend nccl on a machine without a GPU exits 2" \
      exits_with 2 "${mpi[@]}" "$replay" "$tmp/gemini.plan.json" --backend nccl -o "$tmp/x.json"
    check "the no-GPU message says why and to use the mpi backend" err_has "needs an NVIDIA GPU per rank, and this machine has none usable"
    check "--microbench --backend nccl without a GPU exits 2 too" \
      exits_with 2 "${mpi[@]}" "$replay" --microbench --backend nccl -o "$tmp/x.json"
  fi
else
  check "--backend nccl in a build without CUDA/NCCL exits 2" \
    exits_with 2 "${mpi[@]}" "$replay" "$tmp/gemini.plan.json" --backend nccl -o "$tmp/x.json"
  check "the message says the backend was not built and to use the mpi backend" err_has "built without the nccl backend"
fi
check "no measured file is written when the nccl backend cannot run" test ! -e "$tmp/x.json"
echo '{"format": "ckptsim-plan/1", "scenario": 3}' >"$tmp/broken.plan.json"
check "a malformed plan exits 2 naming the JSON pointer" \
  exits_with 2 "${mpi[@]}" "$replay" "$tmp/broken.plan.json" -o "$tmp/x.json"
check "the malformed plan message names /scenario" err_has "/scenario"

# A collective of 10 TB per rank stream needs 2 x 10 TB / 3 x 4 ~ 25 TiB of buffers per rank,
# far beyond the default 4096 MiB limit: refused before allocating (exit 2).
python3 - "$tmp/gemini.plan.json" "$tmp/huge.plan.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
next(o for o in d["iteration"]["operations"] if o["kind"] == "collective")["bytes"] = 1e13
json.dump(d, open(sys.argv[2], "w"))
PY
check "a plan whose buffers exceed --memory-limit exits 2 before allocating" \
  exits_with 2 "${mpi[@]}" "$replay" "$tmp/huge.plan.json" -o "$tmp/x.json"
check "the memory message names the limit" err_has "beyond the 4096 MiB limit"

# --- validate: a known good and a known bad pair ---
# The measured file is the plan's own prediction with every time stretched by a factor f, so
# every relative error is exactly f - 1: 0.05 (within the default 10% tolerance) or 0.25 (beyond).
make_measured() {  # make_measured PLAN FACTOR OUT
  python3 - "$@" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1])); f = float(sys.argv[2])
p = plan["parameters"]; s = plan["summary"]
ops = [{"id": o["id"], "kind": o["kind"], "category": o["category"],
        "start_s": f * o["planned_start_s"], "end_s": f * o["planned_end_s"]}
       for o in plan["iteration"]["operations"] if o["kind"] != "marker"]
def sends(r):
    return [{"index": c["index"], "copy": c["copy"], "peer": c["peer"], "bytes": c["bytes"],
             "start_s": f * c["planned_start_s"],
             "end_s": f * (c["planned_start_s"] + p["alpha_s"] + c["bytes"] / p["bandwidth_per_gpu_bytes_per_s"])}
            for c in r["chunks"]]
doc = {"format": "ckptsim-timeline/1", "source": "measured", "ranks": [
    {"rank": r["rank"], "iterations": [{"iteration": 0, "iteration_time_s": f * s["iteration_time_with_checkpoint_s"],
     "checkpoint_time_s": f * s["checkpoint_time_s"], "operations": ops, "sends": sends(r), "copies": [],
     "local_copy": {"start_s": 0, "end_s": 0}}]} for r in plan["ranks"]]}
json.dump(doc, open(sys.argv[3], "w"))
PY
}
make_measured "$tmp/gemini.plan.json" 1.05 "$tmp/good.json"
make_measured "$tmp/gemini.plan.json" 1.25 "$tmp/bad.json"
check "validate: a replay 5% slower than predicted passes (exit 0)" \
  exits_with 0 "$bin" validate "$tmp/gemini.plan.json" "$tmp/good.json" --json
cp "$tmp/out" "$tmp/good.validate.json"
check "validate JSON: every median error is +5%" json_has "$tmp/good.validate.json" \
  "d['pass'] and all(abs(q['median'] - 0.05) < 1e-6 for q in list(d['operations'].values()) + [d['iteration_time'], d['idle_time'], d['checkpoint_completion']])"
check "validate: a replay 25% slower than predicted fails (exit 1)" \
  exits_with 1 "$bin" validate "$tmp/gemini.plan.json" "$tmp/bad.json" --json
cp "$tmp/out" "$tmp/bad.validate.json"
check "validate JSON: iteration-time error +25%, pass false" json_has "$tmp/bad.validate.json" \
  "not d['pass'] and abs(d['iteration_time']['median'] - 0.25) < 1e-6"
check "validate: a wider tolerance (0.3) passes the 25% pair" \
  exits_with 0 "$bin" validate "$tmp/gemini.plan.json" "$tmp/bad.json" --tolerance 0.3
check "validate: a plan in place of the measured file exits 2" \
  exits_with 2 "$bin" validate "$tmp/gemini.plan.json" "$tmp/gemini.plan.json"

# --- calibrate on exact synthetic samples recovers the parameters that generated them ---
# Collectives t = 2 ms + bytes / 50 MB/s over 4 ranks: per-step latency 2 ms / 3 = 666.667 us;
# gemm t = flops / 3 GFLOP/s; host copy t = bytes / 6 GB/s. Exact data: the fits reproduce them.
python3 - "$tmp/synthetic.mb.json" <<'PY'
import json, sys
samples = []
for b in (65536, 262144, 1048576, 4194304):
    for kind in ("all-gather", "reduce-scatter"):
        samples.append({"kind": kind, "bytes": b, "seconds": 2e-3 + b / 50e6})
    samples.append({"kind": "p2p", "bytes": b, "seconds": 1e-4 + b / 40e6})
    samples.append({"kind": "host-copy", "bytes": b, "seconds": b / 6e9})
for f in (1e8, 4e8, 1.6e9):
    samples.append({"kind": "gemm", "flops": f, "seconds": f / 3e9})
json.dump({"format": "ckptsim-microbench/1", "ranks": 4, "samples": samples}, open(sys.argv[1], "w"))
PY
check "calibrate on exact synthetic samples exits 0" \
  exits_with 0 "$bin" calibrate "$tmp/synthetic.mb.json" -o "$tmp/synthetic.cal.json" --json
cp "$tmp/out" "$tmp/synthetic.fits.json"
check "calibrate recovers 50 MB/s, 666.7 us per step, 3 GFLOP/s, 6 GB/s and p2p 40 MB/s" python3 - "$tmp/synthetic.fits.json" "$tmp/synthetic.cal.json" <<'PY'
import json, sys
fits = json.load(open(sys.argv[1]))["fits"]; cal = json.load(open(sys.argv[2]))
close = lambda a, b: abs(a - b) <= 1e-6 * abs(b)
assert close(fits["collectives"]["rate_per_s"], 50e6) and close(fits["collectives"]["latency_per_step_s"], 2e-3 / 3)
assert close(fits["p2p"]["rate_per_s"], 40e6) and close(fits["p2p"]["latency_per_step_s"], 1e-4)
assert close(fits["compute"]["rate_per_s"], 3e9) and close(fits["copy"]["rate_per_s"], 6e9)
assert fits["collectives"]["rms_relative_residual"] < 1e-9
assert cal["cluster"]["network_bandwidth"] == "5e+07B/s" and cal["cluster"]["gpu_peak_flops"] == "3e+09FLOPS"
assert cal["cluster"]["network"]["collective_efficiency"] == 1.0 and cal["cluster"]["network"]["p2p_efficiency"] == 1.0
PY

# --- microbenchmarks, calibration, and predicting replay-small with the fitted parameters ---
# The emulated network is paced at 100 MB/s (replay-small's 800 Mbps per GPU).
check "--microbench writes samples of every kind" \
  exits_with 0 "${mpi[@]}" "$replay" --microbench --bandwidth 100MB/s -o "$tmp/mb.json"
check "microbench file has all-gather, reduce-scatter, p2p, gemm and host-copy samples" json_has "$tmp/mb.json" \
  "d['format'] == 'ckptsim-microbench/1' and d['ranks'] == 4 and {s['kind'] for s in d['samples']} == {'all-gather', 'reduce-scatter', 'p2p', 'gemm', 'host-copy'}"
check "calibrate fits the microbenchmarks into a scenario that loads" \
  exits_with 0 "$bin" calibrate "$tmp/mb.json" --scenario "$scenario" -o "$tmp/calibrated.json"
# The paced link carries 100 MB/s. The fit's free intercept absorbs MPI's and the scheduler's
# per-operation delays, and on the loaded shared machine those vary by milliseconds between
# samples, which tilts the slope either way (seen: 89 to 115 MB/s); a factor-2 window around the
# pacing rate (50..200 MB/s, in the file as bytes/s) still catches a wrong unit or size.
check "the fitted network bandwidth is within a factor 2 of the 100 MB/s pacing" python3 - "$tmp/calibrated.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bw = float(d["cluster"]["network_bandwidth"].removesuffix("B/s"))
assert 50e6 <= bw <= 200e6, bw
PY
"$bin" schedule "$tmp/calibrated.json" -o "$tmp/calibrated.plan.json" 2>/dev/null
check "the calibrated plan replays" \
  exits_with 0 "${mpi[@]}" "$replay" "$tmp/calibrated.plan.json" --iterations 2 --warmup 1 -o "$tmp/calibrated.measured.json"
"$bin" validate "$tmp/calibrated.plan.json" "$tmp/calibrated.measured.json" --json >"$tmp/cal.validate.json" 2>/dev/null
"$bin" validate "$tmp/gemini.plan.json" "$tmp/calibrated.measured.json" --json >"$tmp/uncal.validate.json" 2>/dev/null
# Tolerance: 4 ranks time-share 2 cores, and compute (most of the iteration) runs at whatever
# share of a core each rank gets. On the shared development machine (load average 11-13 from
# other jobs) nine runs of this loop in a row gave calibrated errors of +14% to +81% (median +31%;
# README, "Measured against predicted on this machine"; +6.5% to +18% with the machine otherwise
# quiet): collectives came within 2% and the
# scheduler's delays within 4%, but the GEMM rate the microbenchmarks fit moved between 3.4 and
# 5.5 GFLOP/s per rank from one run to the next, so the replay's compute, seconds later, runs at
# a different share. The bound is therefore a factor 2: the calibrated prediction is within 100%
# of the measurement (a wrong unit, a FLOP count off by the rank count or a missing operation
# kind is off by far more). Comparing with the uncalibrated prediction is no invariant: its
# nominal compute rate can happen to match the machine. The errors are printed as TAP comments.
check "the calibrated prediction is within a factor 2 of the measured iteration time" python3 - "$tmp/cal.validate.json" "$tmp/uncal.validate.json" <<'PY'
import json, sys
cal, uncal = (json.load(open(f))["iteration_time"]["median_abs"] for f in sys.argv[1:3])
print(f"# calibrated iteration-time error {cal:.1%}, uncalibrated {uncal:.1%}")
assert cal < 1.0, (cal, uncal)
PY

python3 -c "import json,sys; c,u=(json.load(open(f))['iteration_time']['median'] for f in sys.argv[1:3]); print('# iteration-time error of the prediction: calibrated %+.1f%%, uncalibrated %+.1f%%' % (100*c, 100*u))" "$tmp/cal.validate.json" "$tmp/uncal.validate.json"

tap_finish
