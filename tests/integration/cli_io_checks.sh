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

# --- import torch-profiler: a plain trace's size limits (docs/limits.md: 256 MiB, 4 GiB with
# --force), checked on sparse files of zero bytes: past the size check, the JSON reader refuses
# the NUL byte at line 1, column 1, which shows the size was accepted.
truncate -s 65M "$tmp/io-65m.json"
check "import torch-profiler: a 65 MiB plain trace passes the size check (the 64 MiB generic limit does not apply)" bash -c "
  '$bin' import torch-profiler '$tmp/io-65m.json' -o '$tmp/io-p.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'a NUL byte at line 1, column 1' '$tmp/e'"
truncate -s 300M "$tmp/io-300m.json"
check "import torch-profiler: a 300 MiB plain trace is refused with its size and --force, read with --force" bash -c "
  '$bin' import torch-profiler '$tmp/io-300m.json' -o '$tmp/io-p.json' 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'expected a PyTorch profiler trace of at most 256 MiB, found a file of 300 MiB (--force reads up to 4 GiB)' '$tmp/e' &&
  '$bin' import torch-profiler '$tmp/io-300m.json' -o '$tmp/io-p.json' --force 2>'$tmp/e' >/dev/null; test \$? -eq 2 &&
  grep -qF 'a NUL byte at line 1, column 1' '$tmp/e'"
rm -f "$tmp/io-65m.json" "$tmp/io-300m.json"
