# shellcheck shell=bash
# Parsers shared by the QEMU harness and its tests (qemu/tests.sh). Sourced.

# console_status CONSOLE_LOG: how the guest ended, from its serial console.
#   "finished N"  /init reached its end, the test body's status was N
#   "panic"       the kernel panicked (or oopsed) first
#   "incomplete"  neither: the guest hung, or QEMU was stopped
console_status() {
	local log=$1 line
	line=$(grep -a -o "ima-slim: test '[^']*' finished with status [0-9]*" "$log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		echo "finished ${line##* }"
	elif grep -a -qE 'Kernel panic - not syncing|BUG: kernel NULL pointer|Oops:' "$log"; then
		echo panic
	else
		echo incomplete
	fi
}

# evmctl_verdict EVMCTL_OUTPUT: did evmctl replay the log to the PCRs?
# Debian's evmctl 1.4 can exit 0 when it compared nothing, so read its words:
# pass needs "Matched per TPM bank" and no "Failed ..." line, except the one
# about the EVM signature key, which a replay does not use.
evmctl_verdict() {
	local out=$1
	if grep -v '^Failed to open keyfile' "$out" | grep -qiE '^Failed|mismatch|^errno'; then
		echo fail
	elif grep -q '^Matched per TPM bank' "$out"; then
		echo pass
	else
		echo fail
	fi
}
