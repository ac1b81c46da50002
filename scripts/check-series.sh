#!/usr/bin/env bash
# Bisectability: every prefix of the series builds (x86_64 guest and UML
# KUnit configs), passes its KUnit suites and boots with the in-guest IMA
# suite passing (a verified log, measurement, violations).
# Stops at the first prefix that fails and names it.
# Usage: scripts/check-series.sh      Logs and results: build/check-series/.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,6s/^# //p' "$0"; exit 0; fi
# One extra variant: its own worktree, build dirs and guest runs.
export EXTRA_VARIANTS="check-series all guest tpm ima"
out=$BUILD/check-series
"$TOP/scripts/build.sh" fixed config	# the guest config every prefix starts from
fixed=$("$TOP/scripts/variant.sh" fixed)
mapfile -t commits < <(git -C "$fixed" rev-list --reverse base..HEAD)
n=${#commits[@]}
[ "$n" -gt 0 ] || die "the series is empty"
# Laid out as a variant's tree (scripts/variant.sh): the build dirs beside
# the sources, so ccache finds what the variants built of the same files.
trees=$BUILD/trees/check-series
wt=$trees/src
if [ -d "$out/src" ]; then	# before trees were shared, it lived here
	rm -rf "$out/src" "$out/obj" "$out/uml"
	git -C "$("$TOP/scripts/tree.sh")" worktree prune
fi
[ -f "$wt/.git" ] || worktree_add "$SPARSE_BUILD" "$wt" base --detach
sparse_checkout "$wt" "$SPARSE_BUILD"
mkdir -p "$out/logs"
: >"$out/results.tsv"
cc=gcc
if command -v ccache >/dev/null; then cc="ccache gcc"; export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=true; fi

fail() {	# fail K WHAT LOG
	printf '%s\tfail\t%s\n' "$1" "$2" >>"$out/results.tsv"
	tail -n 20 "$3" >&2
	die "first failing prefix: patch $1/$n ($(git -C "$wt" log -1 --format=%s)): $2 (log: $3)"
}

for k in $(seq 1 "$n"); do
	c=${commits[$((k - 1))]}
	# Checking out the next commit touches only the files the patch changed,
	# so every build after the first is incremental.
	git -C "$wt" checkout -q -f --detach "$c"
	say "check-series: $k/$n $(git -C "$wt" log -1 --format=%s)"
	obj=$trees/obj log=$out/logs/$k-x86.log
	mkdir -p "$obj"
	cp "$BUILD/fixed/obj/.config" "$obj/.config"
	if ! make -C "$wt" O="$obj" ARCH=x86_64 CC="$cc" LOCALVERSION=-check-series \
		-j"$(nproc)" olddefconfig bzImage >"$log" 2>&1; then
		fail "$k" "x86_64 build" "$log"
	fi
	mapfile -t changed < <(git -C "$wt" diff --name-only base HEAD)
	warned=$(series_warnings "$log" "${changed[@]}")
	[ -z "$warned" ] || { printf '%s\n' "$warned" >>"$log"
		fail "$k" "the compiler warns in files the series changes" "$log"; }
	cp "$obj/arch/x86/boot/bzImage" "$out/bzImage"
	log=$out/logs/$k-kunit.log
	if [ -f "$wt/security/integrity/ima/.kunitconfig" ]; then
		if ! kunit_py run "$wt" "$trees/uml" >"$log" 2>&1; then
			fail "$k" "UML KUnit build or run" "$log"
		fi
	fi
	log=$out/logs/$k-suite.log
	"$TOP/qemu/run.sh" check-series suite >"$log" 2>&1 || fail "$k" "boot with the IMA suite" "$log"
	printf '%s\tpass\t%s\n' "$k" "$(grep -o 'Ran [0-9]* tests.*' "$out/logs/$k-kunit.log" 2>/dev/null | tail -n 1)" >>"$out/results.tsv"
done
say "check-series: all $n prefixes build, pass KUnit and boot"
