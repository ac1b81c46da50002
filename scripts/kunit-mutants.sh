#!/usr/bin/env bash
# Prove that the KUnit cases can fail: for each deliberate bug in
# kunit/mutants/NAME.diff (never part of `series`), apply it to the fixed
# tree, run the KUnit suites on UML with kunit.py, and pass only if every
# case the diff names on its "# catches: SUITE.CASE" lines fails.
# Usage: scripts/kunit-mutants.sh [NAME...]    (default: every mutant)
#   The mutants are applied in turn to the fixed worktree (build/trees/fixed,
#   locked meanwhile) and built in its UML build dir, so each costs an
#   incremental build; the worktree is restored after each. Logs and
#   results: build/kunit-mutants/; exit 1 if a case was not caught.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,9s/^# //p' "$0"; exit 0; fi
dir=$TOP/kunit/mutants
if [ $# -gt 0 ]; then names=("$@"); else
	mapfile -t names < <(find "$dir" -name '*.diff' -printf '%f\n' | sed 's/\.diff$//' | LC_ALL=C sort)
fi
[ ${#names[@]} -gt 0 ] || die "no mutants in $dir"

lock_variant fixed
wt=$("$TOP/scripts/variant.sh" fixed)
lock_tree "$(tree_key fixed)"	# exclusive: the mutants change the tree
tree_ready fixed
uml=$(variant_dir fixed)/uml
out=$BUILD/kunit-mutants
mkdir -p "$out/logs"
# Whatever happens, leave the fixed tree as the series made it.
trap 'git -C "$wt" checkout -q -f HEAD' EXIT
cc=gcc
if command -v ccache >/dev/null; then cc="ccache gcc"; export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=true; fi
: >"$out/results.tsv"
bad=0
for name in "${names[@]}"; do
	diff=$dir/$name.diff
	[ -f "$diff" ] || die "no mutant $diff"
	mapfile -t want < <(sed -n 's/^# catches: *//p' "$diff")
	[ ${#want[@]} -gt 0 ] || die "$diff names no case on a '# catches: SUITE.CASE' line"
	# Back to the fixed tree: only the files the last mutant touched change,
	# so the UML build stays incremental.
	git -C "$wt" checkout -q -f HEAD
	git -C "$wt" apply "$diff" || die "$diff does not apply to the fixed tree"
	say "kunit mutant: $name (${want[*]})"
	log=$out/logs/$name.log json=$out/$name.json
	rm -f "$json"
	# kunit.py exits 1 when a case fails, which is the point here.
	(cd "$wt" && /usr/bin/python3 tools/testing/kunit/kunit.py run \
		--kunitconfig=security/integrity/ima --kunitconfig="$TOP/kunit/.kunitconfig" \
		--build_dir="$uml" --jobs="$(nproc)" --make_options "CC=$cc" \
		--json="$json") >"$log" 2>&1 || true
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
