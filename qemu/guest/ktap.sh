# shellcheck shell=sh
# Sourced by the guest's KTAP suites (suite.sh, evm.sh), not a test itself:
# KTAP lines go to ttyS1 (their own channel: kernel messages go to ttyS0) and
# to /out/ktap; each case runs in a subshell of its own, `set -e`, and fails
# with its last lines as KTAP diagnostics.

ktap_tty=/dev/ttyS1
stty -F "$ktap_tty" raw -echo 2>/dev/null || true

emit() {
	printf '%s\n' "$*" >>/out/ktap
	printf '%s\n' "$*" >"$ktap_tty" 2>/dev/null || true
}
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*" >/tmp/skip-reason; exit 77; }
expect_eq() {	# expect_eq WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got $2, expected $3"
}

# A case every suite ends with.
case_no_kernel_warning() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|possible (circular|recursive) locking|suspicious RCU' ||
		fail "the kernel warned during the suite (above)"
}

# ktap_run SUITE CASES: run case_NAME for each NAME in CASES, in order, as
# one KTAP subtest named SUITE. Returns 0: the verdict is the KTAP's.
ktap_run() {
	: >/out/ktap
	emit "    KTAP version 1"
	emit "    # Subtest: $1"
	emit "    1..$(echo "$2" | wc -w)"
	n=0 failed=0
	for c in $2; do
		n=$((n + 1))
		echo "=== $c"
		rm -f /tmp/skip-reason
		# Not in an `||` list: there, `set -e` would be off inside the case.
		set +e
		( set -e; "case_$c" ) >/tmp/case.log 2>&1
		rc=$?
		set -e
		cat /tmp/case.log
		if [ "$rc" = 0 ]; then
			emit "    ok $n $c"
		elif [ "$rc" = 77 ]; then
			emit "    ok $n $c # SKIP $(cat /tmp/skip-reason)"
		else
			tail -n 5 /tmp/case.log | sed 's/^/    # /' | while IFS= read -r l; do emit "$l"; done
			emit "    not ok $n $c"
			failed=1
		fi
	done
	if [ "$failed" = 0 ]; then emit "ok 1 $1"; else emit "not ok 1 $1"; fi
}
