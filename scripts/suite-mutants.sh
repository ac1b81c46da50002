#!/usr/bin/env bash
# Prove that the in-guest suites can fail: each deliberate bug in
# qemu/test_data/mutants/ is built into a throwaway kernel (the whole
# series plus the bug, scripts/mutant.sh) and booted with its suite, which
# must fail the cases named below. An x86 build each, so this is not part
# of `make test`; CI runs it as a step of its own.
# Usage: scripts/suite-mutants.sh [NAME...]   (default: all four)
#   no-violations           a kernel that never records a violation (IMA suite)
#   no-violation-limit      one that records every offending open again (as
#                           before 6.15) (IMA suite)
#   evm-any-hmac-verifies   EVM takes any HMAC for a match (EVM suite)
#   evm-new-file-needs-key  EVM marks no file new before it has a key (EVM suite)
# Exit: 0 every mutant caught, 1 a case was not caught, 2 a broken run.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,15s/^# //p' "$0"; exit 0; fi
all=(no-violations no-violation-limit evm-any-hmac-verifies evm-new-file-needs-key)
# test_and_cases_of NAME: the guest test the mutant is booted with, then
# the cases that must fail.
test_and_cases_of() {
	case $1 in
	no-violations) echo suite violation_open_writers violation_tomtou violation_open_writers_once violation_tomtou_once ;;
	no-violation-limit) echo suite violation_open_writers_once violation_tomtou_once ;;
	evm-any-hmac-verifies) echo evm offline_ima_change_refused offline_evm_change_refused offline_mode_change_refused ;;
	evm-new-file-needs-key) echo evm mknod_file_from_before_key_is_new ;;
	*) die "unknown suite mutant '$1' (known: ${all[*]})" ;;
	esac
}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
for name in "${names[@]}"; do test_and_cases_of "$name" >/dev/null; done
bad=0
for name in "${names[@]}"; do
	read -r test want_text <<<"$(test_and_cases_of "$name")"
	read -r -a want <<<"$want_text"
	say "suite mutant: $name (guest test $test; must fail: ${want[*]})"
	rc=0
	"$TOP/scripts/mutant.sh" "$name" "$test" "${want[@]}" || rc=$?
	case $rc in
	0) ;;
	1) bad=1 ;;
	*) exit "$rc" ;;
	esac
done
exit "$bad"
