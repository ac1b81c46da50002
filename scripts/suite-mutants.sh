#!/usr/bin/env bash
# Prove that the in-guest IMA suite can fail: each deliberate bug in
# qemu/test_data/mutants/ is built into a throwaway kernel (the whole
# series plus the bug, scripts/mutant.sh) and booted with the suite, which
# must fail the cases named below. Two x86 builds, so this is not part of
# `make test`; CI runs it as a step of its own.
# Usage: scripts/suite-mutants.sh [NAME...]   (default: both)
#   no-violations       a kernel that never records a violation
#   no-violation-limit  one that records every offending open again (as
#                       before 6.15)
# Exit: 0 every mutant caught, 1 a case was not caught, 2 a broken run.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,11s/^# //p' "$0"; exit 0; fi
cases_of() {
	case $1 in
	no-violations) echo violation_open_writers violation_tomtou violation_open_writers_once violation_tomtou_once ;;
	no-violation-limit) echo violation_open_writers_once violation_tomtou_once ;;
	*) die "unknown suite mutant '$1' (known: no-violations no-violation-limit)" ;;
	esac
}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(no-violations no-violation-limit)
for name in "${names[@]}"; do cases_of "$name" >/dev/null; done
bad=0
for name in "${names[@]}"; do
	read -r -a want <<<"$(cases_of "$name")"
	say "suite mutant: $name (must fail: ${want[*]})"
	rc=0
	"$TOP/scripts/mutant.sh" "$name" suite "${want[@]}" || rc=$?
	case $rc in
	0) ;;
	1) bad=1 ;;
	*) exit "$rc" ;;
	esac
done
exit "$bad"
