#!/usr/bin/env bash
# `make stress`: the guest test "stress" (qemu/guest/stress.sh) on the debug
# variant (lockdep, KASAN, kmemleak, failslab; 2 CPUs), then on the kcsan
# variant (KCSAN, 2 CPUs; not with --short), then the same stress, shorter,
# on baseline and fixed for the ratio of completed operations.
# Each run is judged by scripts/stress_check.py (console splats, unexpected
# failures, open counts, kmemleak, contents that escaped measurement, fault
# injection) and qemu/verify.sh (the IMA log replays to PCR 10).
# Usage: scripts/stress.sh [--short] [--seconds N] [--no-debug] [--no-kcsan] [--no-compare]
#   --seconds N   stress on the debug variant (default 180; --short: 40);
#                 the failslab phase and each comparison run last N/4,
#                 the KCSAN run N/2
#   --short       also skips the KCSAN run (a kernel build of its own: CI's
#                 `make stress-short` keeps within its time that way)
#   --no-debug    skip the debug run (and its failslab phase)
#   --no-kcsan    skip the KCSAN run
#   --no-compare  skip the baseline and fixed runs
# Results: build/stress/summary.{txt,json}; each run in build/runs/V-stress/.
# Exit: 0 every check passed, 1 a check failed, 2 harness error or bad usage.
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage() { sed -n '2,18s/^# //p' "$0"; }
secs=180 debug=1 kcsan=1 compare=1
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--short) secs=40 kcsan=0 ;;
	--seconds)
		if ! [[ ${2:-} =~ ^[0-9]+$ ]] || [ "$2" -lt 8 ]; then
			die "--seconds needs a whole number of seconds, at least 8 (got '${2:-}')"
		fi
		secs=$2; shift ;;
	--no-debug) debug=0 ;;
	--no-kcsan) kcsan=0 ;;
	--no-compare) compare=0 ;;
	*) usage >&2; die "unknown argument '$1'" ;;
	esac
	shift
done
quarter=$((secs / 4))
out=$BUILD/stress
rm -rf "$out"
mkdir -p "$out"
results=$out/results.tsv
: >"$results"
rc=0

# stress_run VARIANT SECONDS FAILSLAB_SECONDS CPUS MEMORY: boot, judge, record.
stress_run() {
	local v=$1 s=$2 f=$3 cpus=$4 mem=$5 run=$BUILD/runs/$1-stress r=0 t0
	t0=$(date +%s)
	say "stress: $v: ${s}s of stress${f:+ + ${f}s with failing iint allocations} ($cpus CPU(s), $mem)"
	if ! scripts_build "$v"; then
		printf '%s\tbuild\tfail\n' "$v" >>"$results"; rc=1; return 0
	fi
	# Boot, the kmemleak scan and hashing the records take long under TCG.
	GUEST_SMP=$cpus GUEST_MEM=$mem \
	GUEST_CMDLINE="${GUEST_CMDLINE:-} ima_slim.stress_seconds=$s ima_slim.failslab_seconds=${f:-0}" \
		"$TOP/qemu/run.sh" "$v" stress --timeout $((s + ${f:-0} + 900)) || r=$?
	if [ "$r" -ne 0 ]; then
		say "stress: $v: the guest run failed (exit $r; $run/console.log)"
		printf '%s\trun\tfail\n' "$v" >>"$results"; rc=$((r > rc ? r : rc)); return 0
	fi
	local c=0 verify=0
	/usr/bin/python3 "$TOP/scripts/stress_check.py" run "$run" | tee "$run/stress-check.txt" || c=$?
	"$TOP/qemu/verify.sh" "$run/out" >"$run/verify.log" 2>&1 || verify=$?
	sed 's/^/     /' "$run/verify.log" | grep -E 'PASS|FAIL' >&2 || true
	printf '%s\tchecks\t%s\n' "$v" "$([ "$c" -eq 0 ] && echo pass || echo fail)" >>"$results"
	printf '%s\treplay\t%s\n' "$v" "$([ "$verify" -eq 0 ] && echo pass || echo fail)" >>"$results"
	if [ "$c" -ne 0 ] || [ "$verify" -ne 0 ]; then rc=1; fi
	jq --arg v "$v" --argjson s "$(( $(date +%s) - t0 ))" --argjson replay "$([ "$verify" -eq 0 ] && echo true || echo false)" \
		'{variant: $v, wall_seconds: $s, replay_pcr10: $replay, checks: .}' \
		"$run/stress-check.json" >"$out/$v.json"
	say "stress: $v: done in $(( $(date +%s) - t0 ))s"
}
scripts_build() { "$TOP/scripts/build.sh" "$1" build; }

if [ "$debug" = 1 ]; then stress_run debug "$secs" "$quarter" 2 1G; fi
if [ "$kcsan" = 1 ]; then stress_run kcsan $((secs / 2)) "" 2 1G; fi
if [ "$compare" = 1 ]; then
	for v in baseline fixed; do stress_run "$v" "$quarter" "" 1 1G; done
fi

# The summary: per run the operations done, and fixed/baseline.
total() { jq -r '.checks.stress.ops.stress.total // empty' "$out/$1.json" 2>/dev/null || true; }
ratio=null
if [ "$compare" = 1 ] && [ -n "$(total fixed)" ] && [ -n "$(total baseline)" ] && [ "$(total baseline)" -gt 0 ]; then
	ratio=$(awk -v a="$(total fixed)" -v b="$(total baseline)" 'BEGIN {printf "%.3f", a / b}')
fi
shopt -s nullglob
jsons=("$out"/*.json)
jq -s --argjson ratio "$ratio" --argjson secs "$secs" --rawfile results "$results" '
	{stress_seconds: $secs, ratio_fixed_over_baseline: $ratio, runs: .,
	 verdicts: ($results | split("\n") | map(select(length > 0) | split("\t") |
		{variant: .[0], check: .[1], status: .[2]}))}' "${jsons[@]}" >"$out/summary.json"
{
	printf '%-9s %8s %8s %8s %7s %6s %8s %s\n' variant seconds ops read+mmap exec escaped viol wall
	for j in "${jsons[@]}"; do
		jq -r '[.variant, .checks.stress.ops.stress.seconds, .checks.stress.ops.stress.total,
			(.checks.stress.ops.stress.read + .checks.stress.ops.stress.mmap_exec),
			.checks.stress.ops.stress.exec, .checks.escapes.escaped, .checks.escapes.violation,
			"\(.wall_seconds)s"] | map(tostring) | join(" ")' "$j" |
			awk '{printf "%-9s %8s %8s %8s %7s %6s %8s %s\n", $1, $2, $3, $4, $5, $6, $7, $8}'
	done
	for j in "${jsons[@]}"; do	# KCSAN's figures, where the kernel has it
		jq -r 'select(.checks.kcsan.status // "skip" != "skip") |
			"\(.variant): KCSAN: \(.checks.kcsan.detail)"' "$j"
	done
	[ "$ratio" = null ] || echo "completed operations, fixed / baseline: $ratio"
	awk -F'\t' '{printf "%-6s %s %s\n", toupper($3), $1, $2}' "$results"
} | tee "$out/summary.txt"
n_pass=$(grep -c $'\tpass$' "$results" || true)
n_fail=$(grep -c $'\tfail$' "$results" || true)
say "stress: $n_pass passed, $n_fail failed (build/stress/summary.txt)"
exit "$rc"
