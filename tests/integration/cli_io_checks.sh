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

# --- output options: the same file twice, an empty path, all outputs or none ---
check "iteration: --trace X --write-profile ./X (neither existing) is refused before the work (exit 2)" bash -c "
  cd '$tmp' && '$bin' iteration '$OLDPWD/$paper' --scheduler gemini --trace io-same.json --write-profile ./io-same.json 2>'$tmp/e' >/dev/null
  test \$? -eq 2 && grep -qF 'the same file as --trace' '$tmp/e' && test ! -e '$tmp/io-same.json'"
check "import torch-profiler: -o X --kernels ./X (neither existing) is refused (exit 2)" bash -c "
  cd '$tmp' && '$bin' import torch-profiler '$OLDPWD/$tp/hta-sampled-rank-0.json.gz' -o io-same.json --kernels ./io-same.json 2>'$tmp/e' >/dev/null
  test \$? -eq 2 && grep -qF 'the same file as -o' '$tmp/e' && test ! -e '$tmp/io-same.json'"
# An empty path was taken for an option not given (run -o \"\" ran without writing the report).
empty_output_cases=(
  "run $paper -r 2 -o"
  "schedule $paper -o"
  "trace synth llama3-405b -n 4 -d 1d -o"
  "calibrate $timeline_seeds/mb.json -o"
  "import nccl-tests $fx/nccl-tests/all_reduce_perf-aws-ofi-nccl-33-p3dn-2x8.txt -o"
  "import torch-profiler $tp/hta-sampled-rank-0.json.gz -o"
  "sweep scenarios/sweeps/adaptive-interval-weibull.json -o"
  "merge $tmp -o"
  "iteration $paper --trace"
  "iteration $paper --write-profile"
  "import torch-profiler $tp/hta-sampled-rank-0.json.gz -o $tmp/io-p.json --kernels"
)
for case in "${empty_output_cases[@]}"; do
  check "an empty output path is a usage error (exit 2): ckptsim $case \"\"" bash -c "
    '$bin' $case '' 2>'$tmp/e' >/dev/null; test \$? -eq 2 && grep -q 'expects a path to write, found an empty one' '$tmp/e'"
done
# A write that fails at the end (/dev/full: no space) leaves none of the command's outputs.
check "iteration: --write-profile P --trace /dev/full fails (exit 1) and leaves no P" bash -c "
  '$bin' iteration $paper --scheduler gemini --write-profile '$tmp/io-wp.json' --trace /dev/full 2>'$tmp/e' >/dev/null
  test \$? -eq 1 && grep -qF '/dev/full' '$tmp/e' && test ! -e '$tmp/io-wp.json'"
check "import torch-profiler: -o P --kernels /dev/full fails (exit 1) and leaves no P" bash -c "
  '$bin' import torch-profiler $tp/hta-sampled-rank-0.json.gz -o '$tmp/io-p.json' --kernels /dev/full 2>'$tmp/e' >/dev/null
  test \$? -eq 1 && grep -qF '/dev/full' '$tmp/e' && test ! -e '$tmp/io-p.json'"
