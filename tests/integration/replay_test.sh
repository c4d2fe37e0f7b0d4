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
# The nccl backend's issue order (every NCCL call site in the plan's order on every rank), run on
# the mpi backend: every scheduler's plan still completes with matching checksums (no rank waits
# for a call site another rank has not reached).
for s in blocking naive single-buffer gemini; do
  check "$s: --issue-order plan replays without deadlock, checksums match" \
    exits_with 0 "${mpi[@]}" "$replay" "$tmp/$s.plan.json" --issue-order plan --bandwidth none --iterations 1 --warmup 0 -o "$tmp/$s.ordered.json"
done
check "--issue-order ready with the nccl backend exits 2" exits_with 2 "${mpi[@]}" "$replay" "$tmp/gemini.plan.json" --backend nccl --issue-order ready -o "$tmp/x.json"

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
  # The backend is a module beside the executable (or in the installed layout), loaded only for
  # --backend nccl (replay/backend.cpp): the mpi backend's ranks do not load the CUDA libraries.
  check "the executable does not link the CUDA libraries (the nccl module does)" bash -c "
    ! readelf -d '$replay' | grep -q -E 'libcublas|libnccl|libcudart' &&
    readelf -d '$(dirname "$replay")/libckptsim-replay-nccl.so' | grep -q 'libnccl'"
  mkdir -p "$tmp/alone" && cp "$replay" "$tmp/alone/"
  check "a copy without its nccl module still runs the mpi backend" \
    exits_with 0 "${mpi[@]}" "$tmp/alone/ckptsim-replay" "$tmp/gemini.plan.json" --iterations 1 -o "$tmp/alone/m.json"
  check "... and --backend nccl there exits 2 naming the module and where it looked" bash -c "
    '$tmp/alone/ckptsim-replay' --microbench --backend nccl -o '$tmp/alone/x.json' 2>'$tmp/err'; rc=\$?; cat '$tmp/err'
    [[ \$rc -eq 2 ]] && grep -q 'libckptsim-replay-nccl.so could not be loaded' '$tmp/err' && grep -q '$tmp/alone/libckptsim-replay-nccl.so' '$tmp/err'"
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

# --- replay guards: each bad run exits 2 before allocating, naming what it expected ---
plan=$tmp/gemini.plan.json
ln -s "$plan" "$tmp/plan-link.json"
check "-o equal to the plan exits 2" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$plan"
check "the message says the timeline would overwrite the plan" err_has "would overwrite its input"
check "-o through a symlink to the plan exits 2" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$tmp/plan-link.json"
check "--trace equal to the plan exits 2" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$tmp/x.json" --trace "$plan"
check "-o X --trace X exits 2" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$tmp/x.json" --trace "$tmp/./x.json"
check "the message names the shared file" err_has "name the same file"
for bw in 0 NaNMB/s 1e308Gbps -5MB/s 100; do
  check "--bandwidth $bw exits 2 (not an internal error)" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$tmp/x.json" --bandwidth "$bw"
  check "--bandwidth $bw: the message says what a rate looks like" err_has "bandwidth expects"
done
# Rank 2 of the 4-rank gemini plan sends 10 chunks (0..9); rank 4 does not exist.
check "--inject-corruption 4:0 (no such rank) exits 2" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$tmp/x.json" --inject-corruption 4:0
check "--inject-corruption 2:99 (no such chunk) exits 2 naming the chunks" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$tmp/x.json" --inject-corruption 2:99
# The chunks rank 2 sends, from the plan (the planner decides how many).
last=$(python3 -c "import json, sys; print(max(c['index'] for c in json.load(open(sys.argv[1]))['ranks'][2]['chunks']))" "$plan")
check "the message lists the rank's chunks" err_has "rank 2 sends chunks 0..$last, found 99"
check "negative --idle-sleep-us exits 2" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$tmp/x.json" --idle-sleep-us -1
check "a plan with --microbench exits 2" exits_with 2 "${mpi[@]}" "$replay" "$plan" --microbench -o "$tmp/x.json"
# Run-time estimates (a lower bound; replay_seconds_lower_bound): at 1 B/s the rank's 10.2 MB
# of chunks alone take 1e7 s; 1e20 FLOPs at most 1e12 FLOP/s take 1e8 s; a chunk offset of
# 999999 s waits that long. Each is refused against the 600 s limit unless --force.
python3 - "$plan" "$tmp" <<'PY'
import json, sys
plan, tmp = sys.argv[1], sys.argv[2]
d = json.load(open(plan))
e = json.loads(json.dumps(d)); next(o for o in e["iteration"]["operations"] if o["kind"] == "compute" and o["flops"] > 0)["flops"] = 1e20
json.dump(e, open(f"{tmp}/flops.plan.json", "w"))
e = json.loads(json.dumps(d)); e["ranks"][0]["chunks"][0]["offset_s"] = 999999
json.dump(e, open(f"{tmp}/offset.plan.json", "w"))
e = json.loads(json.dumps(d)); e["parameters"]["bandwidth_per_gpu_bytes_per_s"] = 0
json.dump(e, open(f"{tmp}/zero-bw.plan.json", "w"))
PY
check "--bandwidth 1bps is refused by the run-time estimate (exit 2)" exits_with 2 "${mpi[@]}" "$replay" "$plan" -o "$tmp/x.json" --bandwidth 1bps
check "the estimate names the limit and --force" err_has "beyond the 600 s limit (--time-limit; --force"
check "a compute op of 1e20 FLOPs is refused by the estimate" exits_with 2 "${mpi[@]}" "$replay" "$tmp/flops.plan.json" -o "$tmp/x.json"
check "a chunk offset of 999999 s is refused by the estimate" exits_with 2 "${mpi[@]}" "$replay" "$tmp/offset.plan.json" -o "$tmp/x.json"
check "a plan bandwidth of 0 exits 2 at its pointer" exits_with 2 "${mpi[@]}" "$replay" "$tmp/zero-bw.plan.json" -o "$tmp/x.json"
check "the zero-bandwidth message names /parameters/bandwidth_per_gpu_bytes_per_s" err_has "/parameters/bandwidth_per_gpu_bytes_per_s"
check "no measured file is written by a refused run" test ! -e "$tmp/x.json"

# --- the measured timeline names its plan; its trace overlays the prediction's ---
check "gemini replay with --trace exits 0" \
  exits_with 0 "${mpi[@]}" "$replay" "$plan" --iterations 2 --warmup 0 -o "$tmp/traced.json" --trace "$tmp/traced.trace.json"
check "the timeline's manifest holds the plan's hash, the same as the plan block" json_has "$tmp/traced.json" \
  "len(d['manifest']['plan_hash']) == 16 and d['manifest']['plan_hash'] == d['plan']['hash'] and len(d['pacing']) == 4"
"$bin" iteration "$scenario" --scheduler gemini --trace "$tmp/predicted.trace.json" >/dev/null 2>&1
check "the replay trace uses the prediction's slice names, tracks, flows and counters" python3 - "$tmp/predicted.trace.json" "$tmp/traced.trace.json" <<'PY'
import json, sys
pred, meas = (json.load(open(f))["traceEvents"] for f in sys.argv[1:3])
names = lambda ev, ph: {e["name"] for e in ev if e["ph"] == ph}
tracks = lambda ev: {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
# The same operations by the same names: every slice name of the prediction's machine 0 on the
# engine's GPU streams (tracks 0-5: compute, gather, pre-gather, reduce, NCCL streams) appears in
# the measurement (which also draws the zero-length copies the prediction leaves out); the same
# track names, flows and counters.
pred_ops = {e["name"] for e in pred if e["ph"] == "X" and e["pid"] == 0 and e["tid"] in range(6)}
meas_ops = {e["name"] for e in meas if e["ph"] == "X" and e["tid"] in range(6)}
assert pred_ops and pred_ops <= meas_ops, (sorted(pred_ops - meas_ops)[:5], sorted(meas_ops - pred_ops)[:5])
assert tracks(pred) == tracks(meas), (tracks(pred), tracks(meas))
for ev in (pred, meas):
    assert "iteration 0" in names(ev, "X")
    assert {"NIC send rate (B/s)", "receive sub-buffers in use"} <= names(ev, "C")
    s = [e for e in ev if e["ph"] == "s"]; f = [e for e in ev if e["ph"] == "f"]
    assert s and len(s) == len(f) and {e["id"] for e in s} == {e["id"] for e in f}
    chunk = next(e for e in ev if e["ph"] == "X" and e["tid"] == 7)
    assert {"bytes", "peer", "span", "sub_buffer"} <= set(chunk["args"]), chunk
PY
# scripts/plot.py on the real replay trace (2 iterations, 4 ranks): titled as measured, every slice
# in a named colour group (its checkpoint chunks as checkpoint traffic, not "other"). Needs
# Debian's python3-matplotlib, which plot.py's #! line uses; skipped without it.
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  check "plot.py titles the replay trace as 2 measured iterations, its chunks as checkpoint traffic" \
    /usr/bin/python3 - "$tmp/traced.trace.json" "$PWD/scripts/plot.py" <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("plot", sys.argv[2])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
figures = []
plot.save = lambda fig, *rest: figures.append(fig)
args = type("Args", (), dict(title=None, name=None, formats=["png"], machines=4, source=sys.argv[1]))()
plot.plot_timeline(json.load(open(sys.argv[1])), args, ".", [])
ax = figures[0].axes[0]
title, legend = ax.get_title(), [t.get_text() for t in ax.get_legend().get_texts()]
assert title.startswith("2 iterations measured") and "ckptsim-replay" in title, title
assert "checkpoint traffic" in legend and "other" not in legend, legend
PY
else
  n=$((n + 1)); echo "ok $n - # SKIP plot.py on the replay trace: python3-matplotlib is not installed"
fi

# --- validate: a known good and a known bad pair, and measurements it cannot compare ---
# The measured file is the plan's own prediction with every time stretched by a factor f, so
# every relative error is exactly f - 1: 0.05 (within the default 10% tolerance) or 0.25 (beyond).
# Its header (backend, plan block, manifest with the plan's hash) is the real replay's.
make_measured() {  # make_measured PLAN HEADER FACTOR OUT
  python3 - "$@" <<'PY'
import json, sys
plan, head = (json.load(open(f)) for f in sys.argv[1:3]); f = float(sys.argv[3])
p = plan["parameters"]; s = plan["summary"]
ops = [{"id": o["id"], "kind": o["kind"] if o["kind"] == "compute" else o["category"], "category": o["category"],
        "start_s": f * o["planned_start_s"], "end_s": f * o["planned_end_s"],
        **({"flops": o["flops"]} if o["kind"] == "compute" else {"bytes": o["bytes"]})}
       for o in plan["iteration"]["operations"] if o["kind"] != "marker"]
def sends(r):
    return [{"index": c["index"], "copy": c["copy"], "peer": c["peer"], "bytes": c["bytes"],
             "start_s": f * c["planned_start_s"],
             "end_s": f * (c["planned_start_s"] + p["alpha_s"] + c["bytes"] / p["bandwidth_per_gpu_bytes_per_s"])}
            for c in r["chunks"]]
def copies(rank):
    return [{"from": q["rank"], "index": c["index"], "bytes": c["bytes"], "received_start_s": 0, "received_end_s": 0,
             "start_s": 0, "end_s": 0} for q in plan["ranks"] for c in q["chunks"] if c["peer"] == rank]
doc = {k: head[k] for k in ("format", "source", "manifest", "backend", "command_line", "plan", "paced_bandwidth_bytes_per_s")}
doc["ranks"] = [{"rank": r["rank"], "iterations": [{"iteration": 0, "iteration_time_s": f * s["iteration_time_with_checkpoint_s"],
     "checkpoint_time_s": f * s["checkpoint_time_s"], "operations": ops, "sends": sends(r), "copies": copies(r["rank"]),
     "local_copy": {"start_s": 0, "end_s": 0}}]} for r in plan["ranks"]]
json.dump(doc, open(sys.argv[4], "w"))
PY
}
make_measured "$plan" "$tmp/traced.json" 1.05 "$tmp/good.json"
make_measured "$plan" "$tmp/traced.json" 1.25 "$tmp/bad.json"
check "validate: a replay 5% slower than predicted passes (exit 0)" \
  exits_with 0 "$bin" validate "$plan" "$tmp/good.json" --json
cp "$tmp/out" "$tmp/good.validate.json"
check "validate JSON: every median error is +5%, per kind and per phase" json_has "$tmp/good.validate.json" \
  "d['pass'] and all(abs(q['median'] - 0.05) < 1e-6 for q in list(d['operations'].values()) + list(d['phases'].values()) + [d['iteration_time'], d['idle_time'], d['checkpoint_completion']]) and {'forward', 'backward', 'optimizer', 'checkpoint'} <= set(d['phases'])"
check "validate: a replay 25% slower than predicted fails (exit 1)" \
  exits_with 1 "$bin" validate "$plan" "$tmp/bad.json" --json
cp "$tmp/out" "$tmp/bad.validate.json"
check "validate JSON: iteration-time error +25%, pass false" json_has "$tmp/bad.validate.json" \
  "not d['pass'] and abs(d['iteration_time']['median'] - 0.25) < 1e-6"
check "validate: a wider tolerance (0.3) passes the 25% pair" \
  exits_with 0 "$bin" validate "$plan" "$tmp/bad.json" --tolerance 0.3
check "validate: a plan in place of the measured file exits 2" \
  exits_with 2 "$bin" validate "$plan" "$plan"
# Measurements validate cannot compare: each edit of the good file must exit 2 naming its pointer.
mutate() {  # mutate NAME PYTHON-STATEMENT: $tmp/NAME.json = the good file after the statement (on d)
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2; json.dump(d, open(sys.argv[2], 'w'))" "$tmp/good.json" "$tmp/$1.json"
}
mutate other-plan "d['manifest']['plan_hash'] = d['plan']['hash'] = '0123456789abcdef'"
mutate no-iterations "[r.update(iterations=[]) for r in d['ranks']]"
mutate missing-rank "d['ranks'].pop(); d['plan']['ranks'] = 3"
mutate duplicate-rank "d['ranks'][3] = d['ranks'][2]"
mutate rank-out-of-range "d['ranks'][3]['rank'] = 7"
mutate negative-duration "d['ranks'][0]['iterations'][0]['iteration_time_s'] = -1"
mutate zero-duration "d['ranks'][0]['iterations'][0]['iteration_time_s'] = 0"
mutate huge-duration "d['ranks'][0]['iterations'][0]['iteration_time_s'] = 1e300"
mutate unequal-iterations "d['ranks'][1]['iterations'].append(d['ranks'][1]['iterations'][0])"
mutate missing-send "d['ranks'][0]['iterations'][0]['sends'].pop()"
mutate missing-op "d['ranks'][0]['iterations'][0]['operations'].pop()"
mutate other-scheduler "d['plan']['scheduler'] = 'blocking'"
for case in other-plan:/manifest/plan_hash no-iterations:/ranks/0/iterations missing-rank:/plan/ranks duplicate-rank:/ranks/3/rank \
            rank-out-of-range:/ranks/3/rank negative-duration:iteration_time_s zero-duration:iteration_time_s huge-duration:iteration_time_s \
            unequal-iterations:/ranks/1/iterations missing-send:/sends missing-op:/operations other-scheduler:/plan/scheduler; do
  name=${case%%:*} pointer=${case#*:}
  check "validate: $name exits 2" exits_with 2 "$bin" validate "$plan" "$tmp/$name.json"
  check "validate: $name names $pointer" err_has "$pointer"
done

# --- calibrate on exact synthetic samples recovers the parameters that generated them ---
# Collectives t = 3 steps x 0.5 ms + bytes / 50 MB/s over 4 ranks (a ring of 4 has 3 steps);
# p2p t = 0.1 ms + bytes / 40 MB/s; gemm t = flops / 3 GFLOP/s; host copy t = bytes / 6 GB/s.
# Exact data: the fits reproduce them, with no line rate given (unpaced, emulated devices):
# network_bandwidth = max(50, 40) MB/s, collective_efficiency 1, p2p_efficiency 40/50 = 0.8.
python3 - "$tmp/synthetic.mb.json" <<'PY'
import json, sys
samples = []
for b in (65536, 262144, 1048576, 4194304):
    for kind in ("all-gather", "reduce-scatter"):
        samples.append({"kind": kind, "bytes": b, "seconds": 3 * 0.5e-3 + b / 50e6})
    samples.append({"kind": "p2p", "bytes": b, "seconds": 1e-4 + b / 40e6})
    samples.append({"kind": "host-copy", "bytes": b, "seconds": b / 6e9})
for f in (1e8, 4e8, 1.6e9):
    samples.append({"kind": "gemm", "flops": f, "seconds": f / 3e9})
json.dump({"format": "ckptsim-microbench/1", "ranks": 4, "backend": "mpi", "paced_bandwidth_bytes_per_s": 0, "samples": samples}, open(sys.argv[1], "w"))
PY
check "calibrate on exact synthetic samples exits 0" \
  exits_with 0 "$bin" calibrate "$tmp/synthetic.mb.json" --scenario "$scenario" -o "$tmp/synthetic.cal.json" --json
cp "$tmp/out" "$tmp/synthetic.fits.json"
check "calibrate recovers 50 MB/s, 0.5 ms per step, 40 MB/s p2p, 3 GFLOP/s and 6 GB/s" python3 - "$tmp/synthetic.fits.json" "$tmp/synthetic.cal.json" <<'PY'
import json, sys
fits = {f["name"]: f for f in json.load(open(sys.argv[1]))["fits"]}; cal = json.load(open(sys.argv[2]))
close = lambda a, b: abs(a - b) <= 1e-6 * abs(b)
c, p = fits["collectives (4 machines)"], fits["p2p (between machines)"]
assert close(c["rate"], 50e6) and close(c["latency_per_step_s"], 0.5e-3) and c["rms_relative_residual"] < 1e-9
assert close(p["rate"], 40e6) and close(p["latency_per_step_s"], 1e-4)
assert close(fits["compute (GEMM FLOP rate)"]["rate"], 3e9) and close(fits["host-copy (GPU to CPU memory)"]["rate"], 6e9)
net = cal["cluster"]["network"]
assert cal["cluster"]["network_bandwidth"] == "5e+07B/s" and cal["cluster"]["gpu_peak_flops"] == "3e+09FLOPS", cal["cluster"]
assert net["collective_efficiency"] == 1.0 and net["p2p_efficiency"] == 0.8 and net["latency"] == "0.0005s", net
PY
check "the calibrated scenario loads: ckptsim schedule accepts it" exits_with 0 "$bin" schedule "$tmp/synthetic.cal.json" -o "$tmp/synthetic.plan.json"
# The base (scenarios/examples/) names its schema "../../docs/scenario.schema.json"; written into
# $tmp, that path would name nothing: calibrate rewrites it to name the same file from $tmp. The
# base writes no name, so the calibrated file is named after itself by the loader.
check "the calibrated scenario's \$schema still names the committed schema, and it writes no name" python3 - "$tmp/synthetic.cal.json" docs/scenario.schema.json <<'PY'
import json, os, sys
cal = json.load(open(sys.argv[1]))
target = os.path.join(os.path.dirname(sys.argv[1]), cal["$schema"])
assert os.path.samefile(target, sys.argv[2]), (cal["$schema"], target)
assert "name" not in cal, cal.get("name")
PY
check "calibrate without --scenario writes fields that merge into a loadable scenario" bash -c "
  '$bin' calibrate '$tmp/synthetic.mb.json' -o '$tmp/fields.json' >/dev/null 2>&1 &&
  python3 -c \"import json,sys; b=json.load(open('$scenario')); f=json.load(open('$tmp/fields.json'))
def m(a, c):
    for k, v in c.items():
        m(a[k], v) if isinstance(v, dict) and isinstance(a.get(k), dict) else a.__setitem__(k, v)
m(b, f); json.dump(b, open('$tmp/merged.json', 'w'))\" && '$bin' schedule '$tmp/merged.json' -o '$tmp/merged.plan.json' >/dev/null 2>&1"

# --- the loop, measured: microbench -> calibrate -> schedule -> replay -> validate ---
# The emulated cluster's network delivers 50 MB/s per rank (both the microbenchmarks and the
# replays are paced at 50 MB/s), while the scenario's data sheet says 800 Mbps (100 MB/s): the
# uncalibrated prediction expects twice the network the machine has, the calibrated one fits
# what it has. Two ranks (replay-small on 2 machines): one core per rank on a 2-core machine,
# so the GEMM rate the microbenchmarks fit is the rate the replay computes at (with 4 ranks on
# 2 cores, compute runs at a share of a core that depends on how many ranks compute at once).
# The iteration is dominated by the network (20 MB of collectives per rank at 50 MB/s, 0.4 s,
# against ~0.15 s of compute), so the uncalibrated prediction is short by about the network's
# factor 2 (expected error near +60%), and the calibrated one is off by its compute share at
# most. The check compares the median |iteration-time error| of the two, each validated against
# a replay of its own plan (3 iterations after 1 warm-up).
python3 - "$scenario" "$tmp/two.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("$schema", None); d["name"] = "replay-small-2"; d["cluster"]["machines"] = 2
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
mpi2=(mpirun --oversubscribe --allow-run-as-root -np 2)
check "--microbench at 50 MB/s writes samples of every kind" \
  exits_with 0 "${mpi2[@]}" "$replay" --microbench --bandwidth 50MB/s -o "$tmp/mb.json"
check "microbench file has all-gather, reduce-scatter, p2p, gemm and host-copy samples" json_has "$tmp/mb.json" \
  "d['format'] == 'ckptsim-microbench/1' and d['ranks'] == 2 and {s['kind'] for s in d['samples']} == {'all-gather', 'reduce-scatter', 'p2p', 'gemm', 'host-copy'}"
check "calibrate fits the microbenchmarks into a scenario that loads" \
  exits_with 0 "$bin" calibrate "$tmp/mb.json" --scenario "$tmp/two.json" -o "$tmp/calibrated.json"
"$bin" schedule "$tmp/two.json" -o "$tmp/uncal.plan.json" 2>/dev/null
"$bin" schedule "$tmp/calibrated.json" -o "$tmp/cal.plan.json" 2>/dev/null
check "the uncalibrated plan replays on the 50 MB/s network" \
  exits_with 0 "${mpi2[@]}" "$replay" "$tmp/uncal.plan.json" --bandwidth 50MB/s --iterations 3 --warmup 1 -o "$tmp/uncal.measured.json"
check "the calibrated plan replays on the 50 MB/s network" \
  exits_with 0 "${mpi2[@]}" "$replay" "$tmp/cal.plan.json" --bandwidth 50MB/s --iterations 3 --warmup 1 -o "$tmp/cal.measured.json"
"$bin" validate "$tmp/cal.plan.json" "$tmp/cal.measured.json" --json >"$tmp/cal.validate.json" 2>/dev/null
"$bin" validate "$tmp/uncal.plan.json" "$tmp/uncal.measured.json" --json >"$tmp/uncal.validate.json" 2>/dev/null
check "the calibrated prediction of the iteration time beats the uncalibrated one" python3 - "$tmp/cal.validate.json" "$tmp/uncal.validate.json" <<'PY'
import json, sys
cal, uncal = (json.load(open(f))["iteration_time"] for f in sys.argv[1:3])
print(f"# iteration-time error: calibrated {cal['median']:+.1%}, uncalibrated {uncal['median']:+.1%}")
assert cal["median_abs"] < uncal["median_abs"], (cal, uncal)
PY
python3 -c "import json,sys; c,u=(json.load(open(f))['iteration_time']['median'] for f in sys.argv[1:3]); print('# iteration-time error of the prediction: calibrated %+.1f%%, uncalibrated %+.1f%%' % (100*c, 100*u))" "$tmp/cal.validate.json" "$tmp/uncal.validate.json"
check "validate refuses the calibrated timeline against the uncalibrated plan (another plan's hash)" \
  exits_with 2 "$bin" validate "$tmp/uncal.plan.json" "$tmp/cal.measured.json"

tap_finish
