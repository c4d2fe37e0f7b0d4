# Command-line checks of result files and standard output (src/output/output_file.cpp, main.cpp):
# failed writes exit non-zero with the errno text, devices stay devices, the temporary file is
# created exclusively and removed on failure, -o never overwrites an input.
# Sourced by cli_test.sh (uses its check / exits_with helpers, $bin, $tmp and $paper).

# --- standard output on a full device (/dev/full fails every write with ENOSPC) ---
for cmd in "list" "run $paper --replicas 5" "placement --machines 4 --replicas 2 --failures 2 --json"; do
  check "$cmd > /dev/full exits 1 with the reason" bash -c "
    '$bin' $cmd >/dev/full 2>'$tmp/e'; test \$? -eq 1 && grep -q 'cannot write the standard output: No space left on device' '$tmp/e'"
done

# --- devices and folders as -o ---
check "run -o /dev/null succeeds and /dev/null stays a character device (matters as root)" bash -c "
  '$bin' run $paper --replicas 5 -o /dev/null >/dev/null && test -c /dev/null"
check "run -o /dev/full exits 1 with the errno text" bash -c "
  '$bin' run $paper --replicas 5 -o /dev/full >/dev/null 2>'$tmp/e'; test \$? -eq 1 &&
  grep -q 'cannot write /dev/full: No space left on device' '$tmp/e' && test -c /dev/full"
check "run -o /dev/stdout puts the report and the table on standard output, in that order" bash -c "
  '$bin' run $paper --replicas 3 -o /dev/stdout >'$tmp/both.txt' && head -1 '$tmp/both.txt' | grep -qx '{' &&
  tail -n +2 '$tmp/both.txt' | grep -q ETTR"
check "run -o DIRECTORY exits 1: Is a directory" bash -c "
  mkdir -p '$tmp/outdir'; '$bin' run $paper --replicas 5 -o '$tmp/outdir' >/dev/null 2>'$tmp/e'; test \$? -eq 1 &&
  grep -q 'Is a directory' '$tmp/e'"
# Unwritable folders that stay unwritable for root: below a regular file, and inside /proc.
check "run -o below a regular file exits 1: Not a directory" bash -c "
  : >'$tmp/plain'; '$bin' run $paper --replicas 5 -o '$tmp/plain/out.json' >/dev/null 2>'$tmp/e'; test \$? -eq 1 &&
  grep -q 'Not a directory' '$tmp/e'"
check "run -o in an unwritable folder (/proc) exits 1 and names the folder" bash -c "
  '$bin' run $paper --replicas 5 -o /proc/ckptsim-test-out.json >/dev/null 2>'$tmp/e'; test \$? -eq 1 &&
  grep -q 'cannot create a temporary file in /proc' '$tmp/e'"
check "schedule -o /dev/full exits 1" exits_with 1 "$bin" schedule $paper -o /dev/full
check "iteration --write-profile /dev/full exits 1" exits_with 1 "$bin" iteration $paper --scheduler naive --write-profile /dev/full
check "iteration --trace DIRECTORY exits 1" exits_with 1 "$bin" iteration $paper --scheduler naive --trace "$tmp/outdir"

# --- the temporary file ---
check "run -o never follows a symlink at the old temporary name OUT.tmp" bash -c "
  mkdir -p '$tmp/sym' && echo precious >'$tmp/sym/victim' && ln -sf '$tmp/sym/victim' '$tmp/sym/out.json.tmp' &&
  '$bin' run $paper --replicas 5 -o '$tmp/sym/out.json' >/dev/null && grep -qx precious '$tmp/sym/victim' &&
  test -L '$tmp/sym/out.json.tmp' && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$tmp/sym/out.json'"
# A file-size limit (ulimit -f, in 512-byte blocks; SIGXFSZ ignored) makes the write fail half-way
# even for root: the old report must survive untouched and no temporary file may remain.
check "a failed write keeps the old -o file and removes the temporary file" bash -c "
  mkdir -p '$tmp/torn' && echo 'old report' >'$tmp/torn/out.json' &&
  ( trap '' XFSZ; ulimit -f 1; '$bin' run $paper --replicas 5 -o '$tmp/torn/out.json' >/dev/null 2>'$tmp/e' ); test \$? -eq 1 &&
  grep -q 'File too large' '$tmp/e' && grep -qx 'old report' '$tmp/torn/out.json' && test \$(ls -A '$tmp/torn' | wc -l) -eq 1"

# --- -o equal to an input ---
check "run -o SCENARIO (the input itself, through a symlink) exits 2 and leaves it intact" bash -c "
  mkdir -p '$tmp/same' && cp $paper '$tmp/same/s.json' && ln -sf s.json '$tmp/same/alias.json' &&
  '$bin' run '$tmp/same/s.json' --replicas 5 -o '$tmp/same/alias.json' >/dev/null 2>'$tmp/e'; test \$? -eq 2 &&
  grep -q 'the same file as the input' '$tmp/e' && cmp -s $paper '$tmp/same/s.json'"
check "schedule -o SCENARIO exits 2" exits_with 2 "$bin" schedule "$tmp/same/s.json" -o "$tmp/same/s.json"
check "iteration --write-profile SCENARIO exits 2" exits_with 2 "$bin" iteration "$tmp/same/s.json" --write-profile "$tmp/same/s.json"
