#!/usr/bin/env bash
# Verify what a guest handed back: the IMA measurement list replays to the
# TPM's PCR 10 (evmctl ima_measurement, judged by its words, not its exit
# code), boot_aggregate comes first, and every file the guest read or ran
# as root appears with its sha256.
# Usage: qemu/verify.sh OUT_DIR [EXPECTED_MEASUREMENTS]
# Exit: 0 verified, 1 verification failed, 2 cannot verify (harness error).
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"

if [ $# -lt 1 ] || [ "$1" = --help ]; then sed -n '2,7s/^# //p' "$0"; exit 0; fi
out=$1 expected=${2:-}
command -v evmctl >/dev/null || { echo "error: evmctl is missing: install ima-evm-utils (make deps)" >&2; exit 2; }
fail() { echo "FAIL: $*" >&2; exit 1; }

bin=$out/binary_runtime_measurements ascii=$out/ascii_runtime_measurements
[ -s "$bin" ] || fail "no binary measurement list in $out: IMA was not active in the guest"
[ -s "$out/pcrs-sha256.txt" ] || fail "no sha256 PCR values in $out: the guest saw no TPM (tpm0 missing?)"
first=$(head -n 1 "$ascii" | awk '{print $5}')
[ "$first" = boot_aggregate ] || fail "the first measurement is '$first', not boot_aggregate"

# Replay against every bank the guest read (sha256 always, sha1 if present).
args=()
for bank in sha256 sha1; do
	[ -s "$out/pcrs-$bank.txt" ] && args+=(--pcrs "$bank,$out/pcrs-$bank.txt")
done
ignore=()
# Violations are logged as all-zero digests and never extend as zeros.
if awk '$2 ~ /^0+$/ {found=1} END {exit !found}' "$ascii"; then ignore=(--ignore-violations); fi
evmctl ima_measurement "${args[@]}" "${ignore[@]}" -v "$bin" >"$out/evmctl.log" 2>&1 || true
if [ "$(evmctl_verdict "$out/evmctl.log")" != pass ]; then
	sed 's/^/  evmctl: /' "$out/evmctl.log" | tail -n 15 >&2
	fail "the measurement list does not replay to the PCRs (evmctl ima_measurement)"
fi
echo "PASS: $(wc -l <"$ascii") measurements replay to PCR 10 ($(grep -o 'Matched per TPM bank.*' "$out/evmctl.log" | head -n 1))"

if [ -n "$expected" ]; then
	missing=0
	while read -r digest path; do
		n=$(awk -v d="$digest" -v p="$path" '$4 == d && $5 == p' "$ascii" | wc -l)
		if [ "$n" -ne 1 ]; then
			echo "FAIL: $path ($digest) is measured $n times, expected once" >&2
			missing=$((missing + 1))
		fi
	done <"$expected"
	[ "$missing" -eq 0 ] || exit 1
	echo "PASS: all $(wc -l <"$expected") files read or run by root are measured once, with the right sha256"
fi
