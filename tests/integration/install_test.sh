#!/usr/bin/env bash
# Installs the build into a temporary folder (`meson install --destdir`), checks what was
# installed and the pkg-config file, then builds the out-of-tree example examples/embed/main.cpp
# against the installed headers with pkg-config alone (compiled once, linked against the shared
# library and, with --static, against the archive) and runs both on the paper scenario; then
# builds examples/extend (a scheduler registered out of tree) and checks its report on a ZeRO-3
# and a Megatron scenario (extend_check.py). TAP output.
# Usage: bash tests/integration/install_test.sh BUILD_DIR [MESON] [REPLAY_BUILT] [PYTHON_BUILT]
#   REPLAY_BUILT, PYTHON_BUILT: "yes" when ckptsim-replay and the Python module were built.
set -u
build=$(cd "$1" && pwd)
meson_cmd=${2:-meson}
replay_built=${3:-no}
python_built=${4:-no}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source tests/integration/tap.sh

dest=$tmp/root
check "meson install --destdir writes the libraries, headers, executable and pkg-config file" \
  "$meson_cmd" install -C "$build" --no-rebuild --quiet --destdir "$dest"
found() { find "$dest" -path "*/$1" | head -1; }
pc=$(found 'pkgconfig/ckptsim.pc')
check "installed: ckptsim.pc, libckptsim.a, libckptsim.so, bin/ckptsim, include/ckptsim/run/run_model.hpp" bash -c "
  test -n '$pc' && test -n '$(found 'libckptsim.a')' && test -L '$(found 'libckptsim.so')' &&
  test -x '$(found 'bin/ckptsim')' && test -n '$(found 'include/ckptsim/run/run_model.hpp')'"
check "installed: the scenario schema (share/ckptsim/scenario.schema.json), equal to the committed one" \
  cmp "$(found 'share/ckptsim/scenario.schema.json')" docs/scenario.schema.json
check "installed: scripts/plot.py as bin/ckptsim-plot, executable" bash -c "
  test -x '$(found 'bin/ckptsim-plot')' && cmp '$(found 'bin/ckptsim-plot')' scripts/plot.py"
if [[ $replay_built == yes ]]; then
  check "installed: bin/ckptsim-replay (built with MPI)" test -x "$(found 'bin/ckptsim-replay')"
  if "$(found 'bin/ckptsim-replay')" --help 2>/dev/null | grep -q "nccl (CUDA + NCCL"; then
    # The nccl backend is a module the executable loads from LIBDIR/ckptsim/ relative to itself
    # (replay/backend.cpp): the installed copy must find it, so it runs (with a GPU) or gets as
    # far as asking for one (exit 2), never to "could not be loaded".
    check "installed: the nccl backend module, found by the installed ckptsim-replay" bash -c "
      test -n '$(found 'ckptsim/libckptsim-replay-nccl.so')' || { echo 'no ckptsim/libckptsim-replay-nccl.so installed'; exit 1; }
      '$(found 'bin/ckptsim-replay')' --microbench --backend nccl -o '$tmp/mb.json' 2>'$tmp/nccl.err'; rc=\$?
      cat '$tmp/nccl.err'; [[ \$rc -eq 0 || \$rc -eq 2 ]] && ! grep -q 'could not be loaded' '$tmp/nccl.err'"
  fi
fi
if [[ $python_built == yes ]]; then
  check "installed: the Python module ckptsim*.so under a python3 folder" \
    bash -c "find '$dest' -path '*python3*' -name 'ckptsim*.so' | grep -q ."
fi
check "the command-line headers are not installed (they belong to the executable)" \
  bash -c "test -z \"\$(find '$dest' -path '*/include/ckptsim/cli*')\""

# The .pc file: only what consumers of the installed headers need.
check "ckptsim.pc: no absolute Boost library paths, no -I/usr/include, no ompi-cxx required" bash -c "
  cat '$pc'; ! grep -q 'libboost_[a-z_]*\.so' '$pc' && ! grep -q -- '-I/usr/include' '$pc' &&
  ! grep -q '^Requires.*ompi' '$pc'"
check "ckptsim.pc requires nlohmann_json and fmt (the installed headers include both)" bash -c "
  grep -q '^Requires:.*nlohmann_json' '$pc' && grep -q '^Requires:.*fmt' '$pc'"
export PKG_CONFIG_PATH=$(dirname "${pc:-/nonexistent/x}")
prefix=$dest$(pkg-config --variable=prefix ckptsim 2>/dev/null)
pcflags() { pkg-config --define-variable=prefix="$prefix" "$@" ckptsim; }
check "--define-variable=prefix moves ckptsim's own paths into the destdir" bash -c "
  $(declare -f pcflags); prefix='$prefix'; pcflags --cflags --libs | tee /dev/stderr | grep -q -- '-I$prefix/include'"
if pkg-config --exists ompi-cxx 2>/dev/null; then
  mpi_libdir=$(pkg-config --variable=libdir ompi-cxx)
  check "--define-variable=prefix leaves MPI's library path alone ($mpi_libdir)" bash -c "
    $(declare -f pcflags); prefix='$prefix'; pcflags --static --libs | tee /dev/stderr | grep -q -- '-L$mpi_libdir'"
fi

check "examples/embed compiles with only pkg-config's --cflags" bash -c "
  $(declare -f pcflags); prefix='$prefix'
  c++ -std=c++20 -O1 -c examples/embed/main.cpp \$(pcflags --cflags) -o '$tmp/embed.o'"
check "examples/embed links against the shared library (pkg-config --libs)" bash -c "
  $(declare -f pcflags); prefix='$prefix'
  c++ '$tmp/embed.o' \$(pcflags --libs) -o '$tmp/embed-shared' && readelf -d '$tmp/embed-shared' | grep -q 'libckptsim.so'"
check "examples/embed links against the archive (pkg-config --static --libs)" bash -c "
  $(declare -f pcflags); prefix='$prefix'
  c++ '$tmp/embed.o' -Wl,-Bstatic -lckptsim -Wl,-Bdynamic \$(pcflags --static --libs | sed 's/-lckptsim//') \
    -o '$tmp/embed-static' && ! readelf -d '$tmp/embed-static' | grep -q 'libckptsim.so'"
libdir=$(dirname "$(found 'libckptsim.so')")
for kind in shared static; do
  check "examples/embed ($kind) runs the paper scenario and prints an ETTR in (0, 1]" bash -c "
    out=\$(LD_LIBRARY_PATH='$libdir' '$tmp/embed-$kind' scenarios/paper/gpt2-100b-16xp4d.json 10) && echo \"\$out\" &&
    python3 -c 'import sys; e = float(sys.argv[1].split(\"ETTR \")[1].split()[0]); assert 0 < e <= 1, e' \"\$out\""
done
check "examples/embed reports a bad scenario with exit 2" bash -c "
  out=\$(LD_LIBRARY_PATH='$libdir' '$tmp/embed-shared' scenarios/invalid/bad-unit.json 1 2>&1); status=\$?; echo \"\$out\";
  test \$status -eq 2 && grep -q /storage/bandwidth <<<\"\$out\""

# examples/extend: a scheduler registered out of tree (front-load), run on a ZeRO-3 and two Megatron
# scenarios (one whose idle span holds the checkpoint, one where it falls back to blocking) through
# the installed library; extend_check.py holds its report to what follows from
# the scheduler's definition and to the installed command line's figures.
check "examples/extend (a scheduler registered out of tree) builds against the shared library with pkg-config" bash -c "
  $(declare -f pcflags); prefix='$prefix'
  c++ -std=c++20 -O1 examples/extend/main.cpp \$(pcflags --cflags --libs) -o '$tmp/extend'"
check "examples/extend runs front-load on ZeRO-3 and Megatron: every copy's bytes sent, no faster iteration, gemini unchanged" \
  env LD_LIBRARY_PATH="$libdir" python3 tests/integration/extend_check.py "$tmp/extend" "$(found 'bin/ckptsim')" \
    scenarios/paper/gpt2-100b-16xp4d.json scenarios/examples/gpt3-175b-megatron-1024xa100.json \
    scenarios/examples/mixtral-8x7b-megatron-64xh100.json
check "examples/extend reports a bad scenario with exit 2" bash -c "
  out=\$(LD_LIBRARY_PATH='$libdir' '$tmp/extend' 1 scenarios/invalid/bad-unit.json 2>&1); status=\$?; echo \"\$out\";
  test \$status -eq 2 && grep -q /storage/bandwidth <<<\"\$out\""
tap_finish
