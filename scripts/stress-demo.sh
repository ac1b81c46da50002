#!/usr/bin/env bash
# Show that the stress checks catch what they are for. Builds a throwaway
# variant "stressdemo": the debug variant (fixed series, configs/debug.config)
# plus qemu/test_data/stress-demo.patch (a deliberately broken IMA, never
# part of patches/), then runs the guest test "stress" on it twice:
#   ima_slim_break=skip       every 8th measurement is lost while the iint
#                             says "measured": the escapes check must fail;
#   ima_slim_break=unbalance  every 64th read-only open leaks an i_readcount:
#                             the console scan (the series' WARN) and the
#                             open-count check must fail.
# Usage: scripts/stress-demo.sh [--seconds N]   (stress per run, default 20)
# Exit: 0 both runs failed as they must, 1 a check missed its fault, 2 harness.
set -euo pipefail
# The throwaway variant, known to common.sh's table (and to every child).
export EXTRA_VARIANTS="${EXTRA_VARIANTS:-}
stressdemo all guest tpm ima debug"
. "$(dirname "$0")/common.sh"

secs=20
while [ $# -gt 0 ]; do
	case $1 in
	--help) sed -n '2,12s/^# //p' "$0"; exit 0 ;;
	--seconds)
		if ! [[ ${2:-} =~ ^[0-9]+$ ]] || [ "$2" -lt 5 ]; then
			die "--seconds needs a whole number of seconds, at least 5 (got '${2:-}')"
		fi
		secs=$2; shift ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
v=stressdemo patch=$TOP/qemu/test_data/stress-demo.patch
throwaway_variant "$v" "$patch" >/dev/null
"$TOP/scripts/build.sh" "$v" build

rc=0
# demo MODE CHECK...: a run with ima_slim_break=MODE must fail each CHECK.
demo() {
	local mode=$1 run=$BUILD/runs/$v-stress c r=0
	shift
	say "stressdemo: ima_slim_break=$mode, ${secs}s of stress"
	GUEST_SMP=2 GUEST_CMDLINE="ima_slim_break=$mode ima_slim.stress_seconds=$secs" \
		"$TOP/qemu/run.sh" "$v" stress --timeout $((secs + 900)) || die "the guest run failed"
	/usr/bin/python3 "$TOP/scripts/stress_check.py" run "$run" >"$BUILD/stressdemo/$mode.txt" && r=0 || r=$?
	sed 's/^/    /' "$BUILD/stressdemo/$mode.txt" | head -n 30 >&2
	cp "$run/stress-check.json" "$BUILD/stressdemo/$mode.json"
	[ "$r" -eq 1 ] || { echo "FAIL: ima_slim_break=$mode: the checks passed (exit $r)" >&2; rc=1; }
	for c in "$@"; do
		if [ "$(jq -r --arg c "$c" '.[$c].status' "$run/stress-check.json")" = fail ]; then
			say "stressdemo: ima_slim_break=$mode: caught by the '$c' check, as it must be"
		else
			echo "FAIL: ima_slim_break=$mode: the '$c' check did not catch it" >&2
			rc=1
		fi
	done
}
demo skip escapes
demo unbalance splats counters
[ "$rc" -eq 0 ] && say "stressdemo: every deliberate fault was caught"
exit "$rc"
