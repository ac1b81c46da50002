#!/usr/bin/env bash
# `make test`: every check of the project, with progress, one log per check
# under build/test/logs/, build/test/results.json, and as its last line
# "N passed, N failed, N skipped". Exit 0 only if nothing failed.
# Usage: scripts/test.sh [VARIANT...]   (default: vanilla baseline fixed)
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,5s/^# //p' "$0"; exit 0; fi
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(vanilla baseline fixed)
out=$BUILD/test
rm -rf "$out"
mkdir -p "$out/logs"
results=$out/results.tsv
: >"$results"

# check NAME CMD...: run one check, log it, record its verdict and time.
check() {
	local name=$1 log rc=0 t0 secs
	shift
	log=$out/logs/$(tr -c 'A-Za-z0-9_.-' '_' <<<"$name" | sed 's/_$//').log
	t0=$(date +%s)
	say "test: $name ..."
	"$@" >"$log" 2>&1 || rc=$?
	secs=$(( $(date +%s) - t0 ))
	if [ "$rc" -eq 0 ]; then
		printf '%s\tpass\t%s\t%s\t\n' "$name" "$secs" "$log" >>"$results"
		say "test: $name: ok (${secs}s)"
	else
		printf '%s\tfail\t%s\t%s\texit %s\n' "$name" "$secs" "$log" "$rc" >>"$results"
		say "test: $name: FAILED (exit $rc, ${secs}s, log $log)"
		sed 's/^/    | /' "$log" | tail -n 15 >&2
	fi
	return 0
}
# skip NAME REASON: a check that could not run is counted and named, never passed.
skip() {
	printf '%s\tskip\t0\t\t%s\n' "$1" "$2" >>"$results"
	say "test: $1: SKIPPED ($2)"
}
# cases PREFIX JSON LOG: every case in kunit.py's JSON as one result.
cases() {
	jq -r --arg p "$1" --arg log "$3" '
		.. | objects | select(has("test_cases")) | .name as $s | .test_cases[] |
		"\($p): \($s).\(.name)\t\(if .status == "PASS" then "pass"
			elif .status == "SKIP" then "skip" else "fail" end)\t0\t\($log)\t\(.status)"' \
		"$2" >>"$results"
}
passed() { awk -F'\t' -v n="$1" '$1 == n && $2 == "pass" {f=1} END {exit !f}' "$results"; }

# 1. The harness's own tests: parsers and bad input, no kernel needed.
for t in lint console_status evmctl_verdict verify_golden verify_corrupted_log \
	verify_no_tpm verify_missing_file suite_golden suite_case_failed suite_guest_stopped evm_golden evm_case_failed kernel_src_dirty kernel_src_wrong_version kernel_src_not_git \
	kernel_unknown pin_sha256_mismatch pin_not_in_archive \
	report_check_golden report_check_corrupted report_eviction report_two_cpus report_steps report_distro report_distro_evm report_bad_input \
	deps_missing commands_packaged commands_unlisted readme_stale_command tool_missing build_warnings host_disk_full stress_splats stress_kcsan stress_escapes stress_bad_input; do
	check "harness: $t" "$TOP/scripts/selftest.sh" "$t"
done

# 2. The series: it names its base, applies with git am and quilt to the same
#    tree (and its EVM patches alone to the released tree), is what the
#    export step writes, reads with b4, passes checkpatch.
check "harness: broken_patch" "$TOP/scripts/selftest.sh" broken_patch
# (quilt push -a is the README's block apply-quilt, run with the others below.)
for s in base am standalone export b4 checkpatch; do
	check "series: $s" "$TOP/scripts/series.sh" check "$s"
done

# 3. KUnit on UML on the whole series, each case counted. (The baseline
#    patch's suites run where its UML kernel is built anyway: `make
#    check-series`, at prefix 1; or `make kunit V=baseline`. A third UML
#    kernel here would be ten minutes of a fresh machine's budget.)
check "kunit: fixed" "$TOP/scripts/kunit.sh" fixed
if passed "kunit: fixed" && [ -f "$BUILD/fixed/kunit-results.json" ]; then
	cases "kunit: fixed" "$BUILD/fixed/kunit-results.json" "$BUILD/fixed/uml/test.log"
fi

# The README's own commands, verbatim: applying the series (git am, quilt),
# kunit.py run on the result, and the make targets it names.
for b in $("$TOP/scripts/readme.sh" list); do
	check "readme: $b" "$TOP/scripts/readme.sh" "$b"
done

# 4. Each variant: build, then one boot under swtpm running the IMA suite
#    (qemu/guest/suite.sh, qemu/verify.sh --ktap); each case is one result,
#    and the table case x variant goes to build/suite/.
for v in "${variants[@]}"; do
	check "build: $v" "$TOP/scripts/build.sh" "$v" build
	if ! passed "build: $v"; then
		skip "suite: $v" "build: $v failed"
		continue
	fi
	check "suite: $v" "$TOP/qemu/run.sh" "$v" suite
	json=$BUILD/runs/$v-suite/suite.json
	if [ -f "$json" ]; then
		cases "suite: $v" "$json" "$BUILD/runs/$v-suite/suite.ktap"
	fi
done
"$TOP/scripts/suite.sh" --table "${variants[@]}" >"$out/logs/suite-table.log" 2>&1 || true
# (That the suite can fail, shown on two kernels with a deliberate bug
# each, is `make suite-mutants`: two more builds, so CI runs it as a step.)

# 5. A guest that hangs, panics, loses its TPM or fills its results disk is
#    named as such.
for t in guest_timeout guest_panic swtpm_fails_to_start swtpm_killed results_disk_full; do
	if passed "build: vanilla"; then
		check "harness: $t" "$TOP/scripts/selftest.sh" "$t"
	else
		skip "harness: $t" "needs the vanilla kernel (build: vanilla failed)"
	fi
done

# 6. The report, reduced (scripts/report.sh --smoke, into build/report-smoke):
#    it is made and adds up (scripts/report.py check: sums, N, inodes in
#    core, variants, keys). Its figures are read, never asserted here.
check "report: smoke (noima ${variants[*]})" "$TOP/scripts/report.sh" --smoke noima "${variants[@]}"

# The summary, as text and JSON.
jq -R -s --arg started "$(date -u -d "@$START_TIME" +%FT%TZ)" --arg tree "$(tree_id)" '
	split("\n") | map(select(length > 0) | split("\t") |
		{name: .[0], status: .[1], seconds: (.[2] | tonumber), log: .[3], detail: .[4]}) |
	{started: $started, kernel_tree: $tree, checks: .,
	 passed: map(select(.status == "pass")) | length,
	 failed: map(select(.status == "fail")) | length,
	 skipped: map(select(.status == "skip")) | length}' "$results" >"$out/results.json"
awk -F'\t' '{printf "%-6s %-45s %5ss %s\n", toupper($2), $1, $3, $5}' "$results" | tee "$out/summary.txt"
read -r p f s < <(jq -r '"\(.passed) \(.failed) \(.skipped)"' "$out/results.json")
say "test: results in $out/results.json"
if [ "$s" -gt 0 ]; then echo "$p passed, $f failed, $s skipped"; else echo "$p passed, $f failed"; fi
[ "$f" -eq 0 ]
