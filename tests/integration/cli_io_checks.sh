# Checks of cli_test.sh (sourced from it, never run alone; $bin, $tmp, $paper, $tp and the TAP
# helpers come from there): reading and writing files (issue 38): importer limits and the clock
# range, output options, refusals that name their file, calibrations that keep the fits that hold.

# A trace of one ProfilerStep [0, 100) us with a GEMM of DUR us and an NCCL kernel:
# io_trace OUT DUR
io_trace() {
  python3 -c "
import json
ev = [{'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep#1', 'ts': 0, 'dur': 100},
      {'ph': 'X', 'cat': 'kernel', 'name': 'sm80_gemm', 'ts': 10, 'dur': $2},
      {'ph': 'X', 'cat': 'kernel', 'name': 'ncclKernel_AllReduce_RING_LL_Sum_float', 'ts': 40, 'dur': 10}]
json.dump({'traceEvents': ev}, open('$1', 'w'))"
}

# --- import torch-profiler: durations within the clock's range (docs/limits.md, "Clock range") ---
io_trace "$tmp/io-1e300.json" 1e300
check "import torch-profiler: a 1e300 us kernel is refused (exit 2) with the file, pointer and value" bash -c "
  '$bin' import torch-profiler '$tmp/io-1e300.json' -o '$tmp/io-p.json' --kernels '$tmp/io-k.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'io-1e300.json: /traceEvents/1/dur: expected a duration >= 0 of at most 100 years' '$tmp/e' &&
  grep -qF 'found 1e+300' '$tmp/e' && test ! -e '$tmp/io-p.json' && test ! -e '$tmp/io-k.json'"
