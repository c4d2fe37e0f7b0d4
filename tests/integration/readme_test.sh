#!/usr/bin/env bash
# The command-line transcripts of README.md and of every docs/*.md page that has one against the
# binary (scripts/check-readme), and the checker itself on transcripts made to match or not.
#   readme_test.sh PATH/TO/ckptsim
set -uo pipefail
exe=$1
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/tap.sh"
checker=("$root/scripts/check-readme" --binary "$exe")

checked_all() { "${checker[@]}" | tee "$tmp/all.out"; }
check "every transcript of README.md and docs/*.md is what the binary prints" checked_all
# The pages checked by default: README.md and each docs/*.md page with a line "$ ckptsim ..." or
# "$ cp ..." (a transcript's first command), found here by grep, not by the checker's own parser.
pages=$(cd "$root" && { echo README.md; grep -lE '^ *\$ (ckptsim|cp) ' docs/*.md; } | paste -sd, - | sed 's/,/, /g')
covers() { tail -1 "$tmp/all.out" | grep -qF "($pages)" || { echo "wanted ($pages)"; tail -1 "$tmp/all.out"; return 1; }; }
check "by default every docs/*.md page with a transcript is checked ($pages)" covers

# A page that gains a transcript is checked without being listed: the checker copied into a
# scratch tree (it finds README.md and docs/ beside its own scripts/ folder) with a README, a
# docs page holding a wrong transcript and a docs page with none.
fake="$tmp/fake"
mkdir -p "$fake/scripts" "$fake/docs" "$fake/scenarios" "$fake/traces"
cp "$root/scripts/check-readme" "$fake/scripts/"
printf '# r\n' >"$fake/README.md"
printf '```\n$ ckptsim run scenarios/invalid/bad-unit.json\nnot what it prints\n```\n' >"$fake/docs/new-page.md"
printf '```\nckptsim run x.json\n```\n' >"$fake/docs/no-transcript.md"
finds_new_page() {
  "$fake/scripts/check-readme" --binary "$exe" >"$tmp/fake.out" 2>&1
  local status=$?
  cat "$tmp/fake.out"
  [[ $status -eq 1 ]] && grep -q '^--- new-page.md:2: ' "$tmp/fake.out" &&
    tail -1 "$tmp/fake.out" | grep -qF '1 commands checked, 1 differ, 0 skipped (README.md, docs/new-page.md)'
}
check "a docs page with a transcript is checked by default, one without is not" finds_new_page

# Figures the command-line tour's prose (docs/tour.md, moved there from the README) takes from
# result files the binary wrote: the iteration times in minutes of the ETTR-beyond-GEMINI paragraph
# (results/ettr-beyond-gemini.csv, 4,096 machines) and of the recovery paragraph
# (results/recovery/recovery.csv, 2,048 machines), iteration_time_s / 60 to one decimal.
prose_minutes() {
  python3 - "$root" <<'PY'
import csv, re, sys
root = sys.argv[1]
page = open(f"{root}/docs/tour.md").read()
def minutes(path, machines):
    times = {float(r["iteration_time_s"]) for r in csv.DictReader(open(f"{root}/{path}"))
             if r["status"] == "ok" and int(r["machines"]) == machines}
    assert len(times) == 1, (path, times)
    return f"{times.pop() / 60:.1f}"
for sentence, path, machines in (("completes one ([0-9.]+)-minute iteration later", "results/ettr-beyond-gemini.csv", 4096),
                                 ("completes one ([0-9.]+)-minute iteration after it starts", "results/recovery/recovery.csv", 2048)):
    # The sentence as markdown wraps it: any run of spaces and line breaks between its words.
    found = re.findall(sentence.replace(" ", r"\s+"), page)
    want = minutes(path, machines)
    assert found == [want], f"docs/tour.md: {sentence!r} says {found}, {path} gives {want} min at {machines} machines"
PY
}
check "the tour's iteration minutes are those of the result files it cites" prose_minutes

# The README is an introduction: at most 300 lines, and its map of the documentation links every
# docs/*.md page (a page added without a line there fails here). A page counts as linked when
# the README holds the Markdown link target "(docs/NAME.md" (a "#fragment" may follow).
readme_is_an_introduction() {
  local lines status=0 page
  lines=$(wc -l <"$root/README.md")
  if ((lines > 300)); then echo "README.md has $lines lines, more than 300"; status=1; fi
  for page in "$root"/docs/*.md; do
    grep -qF "](docs/${page##*/}" "$root/README.md" || { echo "README.md does not link docs/${page##*/}"; status=1; }
  done
  return $status
}
check "README.md has at most 300 lines and links every docs/*.md page" readme_is_an_introduction

# Every relative link of README.md and docs/*.md names an existing file (and, into a Markdown
# page, one of its headings): tests/integration/check_doc_links.py on this tree, then on a scratch
# tree with one good link, one to a missing file and one to a missing heading, where it must
# report exactly those two (2 broken of 3) and exit 1.
links="$root/tests/integration/check_doc_links.py"
check "every relative link of README.md and docs/*.md resolves" python3 "$links" "$root"
links_fake="$tmp/links"
mkdir -p "$links_fake/docs"
printf '# Top\n\n[a](docs/page.md#a-heading) [b](docs/gone.md)\n' >"$links_fake/README.md"
printf '# A heading\n\n[back](../README.md#no-such-heading) `[code](not-a-link.md)`\n' >"$links_fake/docs/page.md"
finds_broken_links() {
  python3 "$links" "$links_fake" >"$tmp/links.out" 2>&1
  local status=$?
  cat "$tmp/links.out"
  [[ $status -eq 1 ]] && grep -qx 'README.md:3: docs/gone.md: no such file' "$tmp/links.out" &&
    grep -qx 'docs/page.md:3: ../README.md#no-such-heading: no heading with anchor #no-such-heading in README.md' "$tmp/links.out" &&
    tail -1 "$tmp/links.out" | grep -qx 'check_doc_links: 3 relative links in 2 files, 2 broken'
}
check "a link to a missing file or heading is reported, one in inline code is not" finds_broken_links

# The bad-unit error, the tour's first transcript (docs/tour.md), printed by hand from the loader's message.
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
