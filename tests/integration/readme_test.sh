#!/usr/bin/env bash
# The command-line transcripts of README.md, docs/limits.md and docs/own-cluster.md against the binary
# (scripts/check-readme), and the checker itself on transcripts made to match or not.
#   readme_test.sh PATH/TO/ckptsim
set -uo pipefail
exe=$1
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/tap.sh"
checker=("$root/scripts/check-readme" --binary "$exe")

check "every README.md, docs/limits.md and docs/own-cluster.md transcript is what the binary prints" "${checker[@]}"

# The bad-unit error, the README's first transcript, printed by hand from the loader's message.
error='error: scenarios/invalid/bad-unit.json: /storage/bandwidth: expected a positive bandwidth such as "400Gbps" (bits/s: bps Kbps Mbps Gbps Tbps) or "25GB/s" (bytes/s: B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s), found "20Gbs"'
printf '```\n$ ckptsim run scenarios/invalid/bad-unit.json\n%s\n```\n' "$error" >"$tmp/good.md"
check "a matching transcript passes" "${checker[@]}" "$tmp/good.md"
printf '```\n$ ckptsim run scenarios/invalid/bad-unit.json\n%s\n```\n' "${error/20Gbs/20Gbps}" >"$tmp/bad.md"
check "a transcript that differs from the binary fails with exit 1" exits_with 1 "${checker[@]}" "$tmp/bad.md"
# `list instances` prints a header line, then instances: "..." stands for every line after the first.
printf '```\n$ ckptsim list instances\ninstances (cluster.instance)\n...\n```\n' >"$tmp/elided.md"
check "'...' stands for the lines a transcript leaves out" "${checker[@]}" "$tmp/elided.md"
printf '```\n$ ckptsim list instances\ninstances (cluster.instance)\n```\n' >"$tmp/dropped.md"
check "lines dropped without '...' are reported" exits_with 1 "${checker[@]}" "$tmp/dropped.md"
cp "$tmp/bad.md" "$tmp/rewritten.md"
check "--write puts the binary's output into the transcript" "${checker[@]}" --write "$tmp/rewritten.md"
check "the rewritten transcript matches" "${checker[@]}" "$tmp/rewritten.md"
check "the rewritten transcript holds the binary's error" grep -qF "$error" "$tmp/rewritten.md"
tap_finish
