#!/usr/bin/env bash
# Installs the build into a temporary folder (`meson install --destdir`) and builds the
# out-of-tree example examples/embed/main.cpp against the installed headers and library with
# pkg-config alone, then runs it on the paper scenario. TAP output, one line per step.
# Usage: bash tests/integration/install_test.sh BUILD_DIR [MESON]
set -u
build=$(cd "$1" && pwd)
meson_cmd=${2:-meson}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source tests/integration/tap.sh

dest=$tmp/root
check "meson install --destdir writes the library, headers, executable and pkg-config file" \
  "$meson_cmd" install -C "$build" --no-rebuild --quiet --destdir "$dest"
pc=$(find "$dest" -name ckptsim.pc | head -1)
lib=$(find "$dest" -name libckptsim.a | head -1)
check "installed: ckptsim.pc, libckptsim.a, bin/ckptsim, include/ckptsim/run/run_model.hpp" bash -c "
  test -n '$pc' && test -n '$lib' && test -x \"\$(find '$dest' -path '*/bin/ckptsim' | head -1)\" &&
  test -n \"\$(find '$dest' -path '*/include/ckptsim/run/run_model.hpp')\""
check "the command-line headers are not installed (they belong to the executable)" \
  bash -c "test -z \"\$(find '$dest' -path '*/include/ckptsim/cli*')\""
# The .pc file names the configured prefix; point it into the destdir instead.
export PKG_CONFIG_PATH=$(dirname "${pc:-/nonexistent/x}")
prefix=$dest$(pkg-config --variable=prefix ckptsim 2>/dev/null)
check "examples/embed builds with only pkg-config's flags" bash -c "
  c++ -std=c++20 -O1 examples/embed/main.cpp \
    \$(pkg-config --define-variable=prefix='$prefix' --cflags --libs --static ckptsim) -o '$tmp/embed'"
check "examples/embed runs the paper scenario and prints an ETTR in (0, 1]" bash -c "
  out=\$('$tmp/embed' scenarios/paper/gpt2-100b-16xp4d.json 10) && echo \"\$out\" &&
  python3 -c 'import sys; e = float(sys.argv[1].split(\"ETTR \")[1].split()[0]); assert 0 < e <= 1, e' \"\$out\""
check "examples/embed reports a bad scenario with exit 2" bash -c "
  out=\$('$tmp/embed' scenarios/invalid/bad-unit.json 1 2>&1); status=\$?; echo \"\$out\";
  test \$status -eq 2 && grep -q /storage/bandwidth <<<\"\$out\""
tap_finish
