#!/usr/bin/env bash
# The host's half of an in-guest suite: wrap the guest's KTAP (ttyS1,
# RUN_DIR/ktap.log) and, for the IMA suite, the host's checks of the log it
# handed back (qemu/verify.sh --ktap) into one KTAP document,
# RUN_DIR/suite.ktap, and read it with the kernel's own parser, kunit.py
# parse (JSON in RUN_DIR/suite.json).
# Usage: qemu/suite.sh RUN_DIR [TEST]  (after qemu/run.sh VARIANT TEST;
#   TEST: suite, the default, or evm)
# Exit: 0 every case passed or was skipped, 1 a case failed or is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/common.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "$1" = --help ]; then sed -n '2,10s/^# //p' "$0"; exit 0; fi
run=$1 test=${2:-suite}
case $test in
suite) ntests=2 ;;
evm) ntests=1 ;;
*) die "qemu/suite.sh: unknown suite '$test' (suite or evm)" ;;
esac
# The parser of the pinned tree (made on first use, as every step does).
kunit=$("$TOP/scripts/tree.sh")/tools/testing/kunit/kunit.py
[ -f "$kunit" ] || die "$kunit is missing: the kernel tree has no kunit.py"
[ -f "$run/ktap.log" ] || die "$run/ktap.log is missing: the guest was not booted with qemu/run.sh"
doc=$run/suite.ktap
{
	printf 'KTAP version 1\n1..%s\n' "$ntests"
	# The serial line may add carriage returns; nothing else is touched.
	tr -d '\r' <"$run/ktap.log"
	[ "$test" != suite ] || "$here/verify.sh" --ktap 2 "$run/out" || true
} >"$doc"
rc=0
/usr/bin/python3 "$kunit" parse --json="$run/suite.json" <"$doc" >"$run/suite.txt" 2>&1 || rc=$?
cat "$run/suite.txt"
# kunit.py parse fails the run on a failed or missing case; a guest that
# stopped early leaves its suite short, which it reports as a crash.
[ "$rc" -eq 0 ] || exit 1
