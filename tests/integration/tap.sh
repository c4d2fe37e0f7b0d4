# Shared TAP helpers of the command-line test scripts (sourced, never run). Each check prints
# "ok N - DESCRIPTION" or "not ok N - DESCRIPTION" followed by the command's output as "# "
# comments; tap_finish prints the plan "1..N" and returns non-zero when any check failed
# (scripts/summarize-tests counts these lines). The sourcing script sets $tmp (a scratch folder
# it removes on exit) before the first check.
n=0
failures=0

check() {  # check DESCRIPTION COMMAND...: passes when the command exits 0
  local description=$1
  shift
  n=$((n + 1))
  if "$@" >"$tmp/check.out" 2>&1; then
    echo "ok $n - $description"
  else
    echo "not ok $n - $description"
    failures=$((failures + 1))
    sed 's/^/#     /' "$tmp/check.out" | tail -25
  fi
}

exits_with() {  # exits_with CODE COMMAND...: the command's exit status is CODE
  local code=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [[ $got -eq $code ]] || { echo "exit $got, expected $code"; tail -20 "$tmp/err"; return 1; }
}

json_has() {  # json_has FILE EXPRESSION: a Python expression over `d` (the parsed file) is true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

tap_finish() {  # the plan line; fails when any check failed
  echo "1..$n"
  [[ $failures -eq 0 ]]
}
