#!/usr/bin/env bash
# Prove that a test can fail: build a throwaway kernel, the whole series
# plus one deliberate bug (qemu/test_data/mutants/NAME.diff, never part of
# `series`), boot a guest test on it and pass only if the named cases fail.
# Usage: scripts/mutant.sh NAME TEST CASE...
#   e.g. scripts/mutant.sh no-violations suite violation_open_writers
#   The variant is mutant-NAME (build/mutant-NAME/, branch ima-slim/mutant-NAME).
# Exit: 0 every named case failed on the mutant, 1 one of them did not.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -lt 3 ] || [ "$1" = --help ]; then sed -n '2,8s/^# //p' "$0"; exit 0; fi
name=$1 test=$2
shift 2
diff=$TOP/qemu/test_data/mutants/$name.diff
[ -f "$diff" ] || die "no mutant $diff"
variant=mutant-$name
# The children read the variant from EXTRA_VARIANTS; this shell, already
# past common.sh, gets it in its table directly.
# The EVM suite needs its small kernel's options (configs/evm.config).
frags="guest tpm ima"
[ "$test" != evm ] || frags+=" evm"
export EXTRA_VARIANTS="$variant all $frags"
VARIANTS_TABLE+="$EXTRA_VARIANTS"$'\n'
throwaway_variant "$variant" "$diff" >/dev/null
"$TOP/scripts/build.sh" "$variant" build
rc=0
"$TOP/qemu/run.sh" "$variant" "$test" || rc=$?
[ "$rc" -eq 1 ] || die "$variant: expected the test '$test' to fail (exit 1), got exit $rc"
json=$BUILD/runs/$variant-$test/suite.json
bad=0
for c in "$@"; do
	status=$(jq -r --arg c "$c" '[.. | objects | select(has("test_cases")) | .test_cases[] |
		select(.name == $c) | .status] | first // "MISSING"' "$json")
	if [ "$status" = FAIL ]; then
		echo "caught: $c fails on $variant, as it must"
	else
		echo "NOT CAUGHT: $c is $status on $variant" >&2
		bad=1
	fi
done
exit "$bad"
