#!/usr/bin/env bash
# Prove that the KUnit cases can fail: for each deliberate bug in
# kunit/mutants/NAME.diff (never part of `series`), apply it to the fixed
# tree, run the KUnit suites on UML with kunit.py, and pass only if every
# case the diff names on its "# catches: SUITE.CASE" lines fails.
# Usage: scripts/kunit-mutants.sh [--smp] [NAME...]  (default: every mutant)
#   --smp: the mutants with "# catches-smp: SUITE.CASE" lines, on the
#   x86_64 two-CPU KASAN build of `make kunit-smp` (a walk onto freed
#   memory is a KASAN report, which fails the case; UML has no KASAN here).
#   The mutants are applied in turn to the fixed worktree (build/trees/fixed,
#   locked meanwhile) and built in its UML (or kunit-smp) build dir, so each
#   costs an incremental build; the worktree is restored after each. Logs
#   and results: build/kunit-mutants/ (kunit-mutants-smp/); exit 1 if a
#   case was not caught.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,13s/^# //p' "$0"; exit 0; fi
smp=()
tag=catches out=$BUILD/kunit-mutants
if [ "${1:-}" = --smp ]; then
	smp=(--smp --timeout=900)
	tag=catches-smp out=$BUILD/kunit-mutants-smp
	shift
fi
dir=$TOP/kunit/mutants
if [ $# -gt 0 ]; then names=("$@"); else
	# Each mode runs the mutants that name cases for it.
	mapfile -t names < <(grep -l "^# $tag: " "$dir"/*.diff | sed -e 's|.*/||' -e 's/\.diff$//' | LC_ALL=C sort)
fi
[ ${#names[@]} -gt 0 ] || die "no mutants in $dir"

lock_variant fixed
wt=$("$TOP/scripts/variant.sh" fixed)
lock_tree "$(tree_key fixed)"	# exclusive: the mutants change the tree
tree_ready fixed
if [ ${#smp[@]} -gt 0 ]; then build_dir=$(variant_dir fixed)/kunit-smp; else build_dir=$(variant_dir fixed)/uml; fi
mkdir -p "$out/logs"
# Whatever happens, leave the fixed tree as the series made it.
trap 'git -C "$wt" checkout -q -f HEAD' EXIT
: >"$out/results.tsv"
bad=0
for name in "${names[@]}"; do
	diff=$dir/$name.diff
	[ -f "$diff" ] || die "no mutant $diff"
	mapfile -t want < <(sed -n "s/^# $tag: *//p" "$diff")
	[ ${#want[@]} -gt 0 ] || die "$diff names no case on a '# $tag: SUITE.CASE' line"
	# Back to the fixed tree: only the files the last mutant touched change,
	# so the UML build stays incremental.
	git -C "$wt" checkout -q -f HEAD
	git -C "$wt" apply "$diff" || die "$diff does not apply to the fixed tree"
	say "kunit mutant: $name (${want[*]})"
	log=$out/logs/$name.log json=$out/$name.json
	rm -f "$json"
	# kunit.py exits 1 when a case fails, which is the point here.
	kunit_py run "$wt" "$build_dir" "${smp[@]}" --json="$json" >"$log" 2>&1 || true
	if [ ! -s "$json" ]; then
		tail -n 20 "$log" >&2
		die "$name: kunit.py wrote no results (did the mutant build? log: $log)"
	fi
	for c in "${want[@]}"; do
		# SUITE.CASE; a parameterised case is named by its parameter.
		status=$(jq -r --arg s "${c%%.*}" --arg c "${c#*.}" '
			[.. | objects | select(has("test_cases")) | select(.name == $s) |
			 .. | objects | select(.name? == $c) | .status] | first // "MISSING"' "$json")
		if [ "$status" = FAIL ]; then
			echo "caught: $c fails with mutant $name"
			printf '%s\t%s\tcaught\n' "$name" "$c" >>"$out/results.tsv"
		else
			echo "NOT CAUGHT: $c is $status with mutant $name (log: $log)" >&2
			printf '%s\t%s\tnot caught (%s)\n' "$name" "$c" "$status" >>"$out/results.tsv"
			bad=1
		fi
	done
done
jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
	{mutant: .[0], case: .[1], result: .[2]})' "$out/results.tsv" >"$out/results.json"
exit "$bad"
