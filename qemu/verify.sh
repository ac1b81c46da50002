#!/usr/bin/env bash
# shellcheck disable=SC2317  # the case_* functions are called by name
# Verify the IMA log a guest handed back: boot_aggregate comes first, the
# binary and ASCII lists agree, the binary list replays to PCR 10 in every
# bank the guest read (evmctl ima_measurement, judged by its words, not its
# exit code), violations are in the log as the counter says, and every file
# in EXPECTED (if given) appears once with its sha256.
# Usage: qemu/verify.sh [--ktap N] OUT_DIR [EXPECTED_MEASUREMENTS]
#   --ktap N: print the cases as KTAP subtest "ima_log", number N of its
#   parent (for qemu/suite.sh), instead of PASS/FAIL lines.
# Exit: 0 verified, 1 a case failed, 2 cannot verify (harness error).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

ktap=
if [ "${1:-}" = --ktap ]; then ktap=$2; shift 2; fi
if [ $# -lt 1 ] || [ "$1" = --help ]; then sed -n '2,10s/^# //p' "$0"; exit 0; fi
out=$1 expected=${2:-}
command -v evmctl >/dev/null || { echo "error: evmctl is missing: install ima-evm-utils (make deps)" >&2; exit 2; }
bin=$out/binary_runtime_measurements ascii=$out/ascii_runtime_measurements

fail() { echo "$*"; exit 1; }
skip() { echo "$*"; exit 77; }
have_log() {
	[ -s "$bin" ] || fail "no binary measurement list in $out: IMA was not active in the guest"
}
zero_entries() { awk '$2 ~ /^0+$/' "$ascii" | wc -l; }

case_boot_aggregate_first() {
	have_log
	local first
	first=$(head -n 1 "$ascii" | awk '{print $5}')
	[ "$first" = boot_aggregate ] || fail "the first measurement is '$first', not boot_aggregate"
	echo "boot_aggregate is the first of $(wc -l <"$ascii") measurements"
}
case_ascii_binary_agree() {
	have_log
	"$here/logcmp.py" "$bin" "$ascii" || fail "the binary and ASCII measurement lists differ"
}
# replay BANK: the list replays to the PCRs of one bank. Violations are
# logged as all-zero digests and extend the PCR with ones: evmctl must be
# told, or it cannot match.
replay() {
	local bank=$1 ignore=() log=$out/evmctl-$1.log
	have_log
	[ -s "$out/pcrs-$bank.txt" ] || return 2
	[ "$(zero_entries)" -eq 0 ] || ignore=(--ignore-violations)
	evmctl ima_measurement --pcrs "$bank,$out/pcrs-$bank.txt" "${ignore[@]}" -v "$bin" >"$log" 2>&1 || true
	if [ "$(evmctl_verdict "$log")" != pass ]; then
		sed 's/^/evmctl: /' "$log" | tail -n 8
		fail "the measurement list does not replay to the $bank PCRs (evmctl ima_measurement)"
	fi
	echo "$(wc -l <"$ascii") measurements replay to PCR 10 in the $bank bank (${ignore[*]:-no violations})"
}
case_replay_pcr10_sha256() {
	replay sha256 || fail "no sha256 PCR values in $out: the guest saw no TPM (tpm0 missing?)"
}
case_replay_pcr10_sha1() {
	replay sha1 || skip "the TPM has no sha1 bank"
}
case_violations_in_log() {
	have_log
	local counter
	counter=$(cat "$out/violations" 2>/dev/null) || fail "the guest did not hand back the violations counter"
	[ "$counter" -gt 0 ] || skip "no violation in this run"
	[ "$(zero_entries)" -eq "$counter" ] ||
		fail "the counter says $counter violations, the log holds $(zero_entries) all-zero entries"
	echo "$counter violations, each an all-zero entry in the log"
}
case_expected_files() {
	have_log
	local missing=0 digest path n
	while read -r digest path; do
		n=$(awk -v d="$digest" -v p="$path" '$4 == d && $5 == p' "$ascii" | wc -l)
		if [ "$n" -ne 1 ]; then
			echo "$path ($digest) is measured $n times, expected once"
			missing=$((missing + 1))
		fi
	done <"$expected"
	[ "$missing" -eq 0 ] || exit 1
	echo "all $(wc -l <"$expected") files read or run by root are measured once, with the right sha256"
}

cases=(boot_aggregate_first ascii_binary_agree replay_pcr10_sha256 replay_pcr10_sha1 violations_in_log)
[ -z "$expected" ] || cases+=(expected_files)
[ -z "$ktap" ] || printf '    KTAP version 1\n    # Subtest: ima_log\n    1..%s\n' "${#cases[@]}"
n=0 failed=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	rc=0
	msg=$("case_$c" 2>&1) || rc=$?
	if [ -n "$ktap" ]; then
		case $rc in
		0) echo "    ok $n $c" ;;
		77) echo "    ok $n $c # SKIP $msg" ;;
		*) printf '%s\n' "$msg" | sed 's/^/    # /'; echo "    not ok $n $c"; failed=1 ;;
		esac
	else
		case $rc in
		0) printf '%s\n' "$msg" | sed 's/^/PASS: /' ;;
		77) echo "SKIP: $c: $msg" ;;
		*) printf '%s\n' "$msg" | sed 's/^/FAIL: /' >&2; failed=1 ;;
		esac
	fi
done
if [ -n "$ktap" ]; then
	if [ "$failed" -eq 0 ]; then echo "ok $ktap ima_log"; else echo "not ok $ktap ima_log"; fi
fi
exit "$failed"
