#!/usr/bin/env bash
# The in-guest IMA suite (qemu/guest/suite.sh + qemu/verify.sh --ktap) on
# several variants, one boot each, then the table case x variant.
# Usage: scripts/suite.sh [--table] [VARIANT...]  (default: vanilla baseline fixed)
#   --table: only re-make the table from the runs already in build/runs/.
#   Per run: build/runs/VARIANT-suite/{suite.ktap,suite.json,console.log};
#   the table: build/suite/table.{md,json}.
# Exit: 0 no case failed on any variant, 1 otherwise, 2 harness error.
set -euo pipefail
. "$(dirname "$0")/common.sh"

table_only=
case ${1:-} in
--help) sed -n '2,8s/^# //p' "$0"; exit 0 ;;
--table) table_only=1; shift ;;
esac
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(vanilla baseline fixed)
rc=0
if [ -z "$table_only" ]; then
	for v in "${variants[@]}"; do
		"$TOP/scripts/build.sh" "$v" build
		say "suite: $v"
		r=0
		"$TOP/qemu/run.sh" "$v" suite || r=$?
		[ "$r" -le 1 ] || exit "$r"
		[ "$r" -eq 0 ] || rc=1
	done
fi

# One row per case, one column per variant; a variant whose run is missing
# or stopped early shows the cases it never reported as "-".
out=$BUILD/suite
mkdir -p "$out"
for v in "${variants[@]}"; do
	j=$BUILD/runs/$v-suite/suite.json
	[ -f "$j" ] || { say "suite: no results for $v ($j)"; rc=1; continue; }
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
