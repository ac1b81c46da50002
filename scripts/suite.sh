#!/usr/bin/env bash
# An in-guest suite on several variants, one boot each, then the table case
# x variant: the IMA suite (qemu/guest/suite.sh + qemu/verify.sh --ktap), or
# with --test evm the EVM suite (qemu/guest/evm.sh: an HMAC key, appraise_tcb).
# Usage: scripts/suite.sh [--test suite|evm] [--table] [VARIANT...]
#   default variants: vanilla baseline fixed; for evm: vanilla-distro
#   evm-lazy-distro fixed-distro (the EVM suite needs a kernel with
#   configs/distro.config or configs/evm.config: vanilla-evm evm-lazy
#   fixed-evm).
#   --table: only re-make the table from the runs already in build/runs/.
#   Per run: build/runs/VARIANT-TEST/{suite.ktap,suite.json,console.log};
#   the table: build/suite/table.{md,json} (evm: build/evm-suite/).
# Exit: 0 no case failed on any variant, 1 otherwise, 2 harness error.
set -euo pipefail
. "$(dirname "$0")/common.sh"

table_only="" test=suite
while [ $# -gt 0 ]; do
	case $1 in
	--help) sed -n '2,14s/^# //p' "$0"; exit 0 ;;
	--table) table_only=1 ;;
	--test) [ $# -ge 2 ] || die "--test needs a suite: suite or evm"; test=$2; shift ;;
	*) break ;;
	esac
	shift
done
variants=("$@")
case $test in
suite) out=$BUILD/suite; [ ${#variants[@]} -gt 0 ] || variants=(vanilla baseline fixed) ;;
evm) out=$BUILD/evm-suite; [ ${#variants[@]} -gt 0 ] || variants=(vanilla-distro evm-lazy-distro fixed-distro) ;;
*) die "scripts/suite.sh: --test '$test': give suite or evm" ;;
esac
rc=0
if [ -z "$table_only" ]; then
	for v in "${variants[@]}"; do
		"$TOP/scripts/build.sh" "$v" build
		say "$test: $v"
		r=0
		"$TOP/qemu/run.sh" "$v" "$test" || r=$?
		[ "$r" -le 1 ] || exit "$r"
		[ "$r" -eq 0 ] || rc=1
	done
fi

# One row per case, one column per variant; a variant whose run is missing
# or stopped early shows the cases it never reported as "-".
mkdir -p "$out"
for v in "${variants[@]}"; do
	j=$BUILD/runs/$v-$test/suite.json
	[ -f "$j" ] || { say "$test: no results for $v ($j)"; rc=1; continue; }
	jq -c --arg v "$v" '.. | objects | select(has("test_cases")) | .name as $s |
		.test_cases[] | {variant: $v, case: "\($s).\(.name)", status: .status}' "$j"
done | jq -s --argjson variants "$(printf '%s\n' "${variants[@]}" | jq -R . | jq -s .)" '
	{variants: $variants,
	 cases: (reduce .[] as $r ([]; if index([$r.case]) then . else . + [$r.case] end)),
	 results: (reduce .[] as $r ({}; .[$r.case][$r.variant] = $r.status))}' >"$out/table.json"
jq -r '
	"| case | " + (.variants | join(" | ")) + " |",
	"|---|" + (.variants | map("---|") | join("")),
	(.variants as $v | .results as $res | .cases[] as $c |
		"| \($c) | " + ($v | map($res[$c][.] // "-") | join(" | ")) + " |")' \
	"$out/table.json" >"$out/table.md"
cat "$out/table.md"
if jq -e '[.results[][]] | any(. != "PASS" and . != "SKIP")' "$out/table.json" >/dev/null; then rc=1; fi
exit "$rc"
