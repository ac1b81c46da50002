#!/usr/bin/env bash
# Run the commands README.md gives a user, verbatim, so the two cannot drift.
# Usage: scripts/readme.sh list | BLOCK
#   list     the runnable blocks of the selected kernel: those README.md
#            marks with a line "<!-- make test runs this: NAME -->" just
#            before a ```sh fence (NAME-6.12: a block for KERNEL=6.12)
#   BLOCK    run that block with bash -e in a fresh checkout of the pinned
#            tree at build/readme/src (/path/to/linux in the text), with
#            /path/to/ima-slim read as this checkout; then check its effect:
#              apply-*  the tree is the one the fixed variant has
#              make     (lines "make ...") every target exists: make -n
#   Logs: build/readme/. Exit 0: the block ran and did what it says.
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage() { sed -n '2,11s/^# //p' "$0"; }
readme=${README_FILE:-$TOP/README.md}	# a selftest passes an altered copy

# block NAME: the text of the ```sh block that follows NAME's marker.
block() {
	awk -v want="$1" '
		/^<!-- make test runs this: / { name = $6; next }
		name == want && /^```sh$/ { inblock = 1; next }
		inblock && /^```$/ { exit }
		inblock { print }
		!inblock && !/^$/ { name = "" }' "$readme"
}
blocks() { sed -n 's/^<!-- make test runs this: \([A-Za-z0-9_.-]*\) -->$/\1/p' "$readme"; }
# kernel_of NAME: the kernel a block is for. A name ending in -<kernel> of
# stable/<kernel>/ is the backport's (apply-quilt-6.12); `make` is for any;
# every other block is mainline's.
kernel_of() {
	local k _
	while read -r k _; do
		case $1 in *-"$k") echo "$k"; return ;; esac
	done < <(known_kernels | grep -v '^mainline ')
	if [ "$1" = make ]; then echo any; else echo mainline; fi
}

case ${1:-} in
list)	# the blocks of the selected kernel
	for b in $(blocks); do
		k=$(kernel_of "$b")
		[ "$k" != any ] && [ "$k" != "$KERNEL_ID" ] || echo "$b"
	done
	exit 0 ;;
--help) usage; exit 0 ;;
'') usage >&2; exit 2 ;;
esac
name=$1
text=$(block "$name")
[ -n "$text" ] || die "README.md has no block marked '$name' (known: $(blocks | paste -sd' '))"
k=$(kernel_of "$name")
[ "$k" = any ] || [ "$k" = "$KERNEL_ID" ] ||
	die "README block '$name' is for the $k series; run it as KERNEL=$k scripts/readme.sh $name"

out=$BUILD/readme
mkdir -p "$out"
if [ "$name" = make ]; then
	# The make lines a user types: each target must exist. make -n runs
	# nothing (and needs no kernel), but fails on an unknown target.
	while read -r line; do
		cmd=${line%%#*}
		read -r -a words <<<"$cmd"
		[ "${words[0]:-}" = make ] || die "block make: '$line' is not a make command"
		echo "+ ${words[*]} (make -n)"
		(cd "$TOP" && make -n "${words[@]:1}") >"$out/make-n.log" 2>&1 ||
			{ tail -n 5 "$out/make-n.log" >&2; die "README's '$cmd' fails: no such target?"; }
	done <<<"$text"
	exit 0
fi

linux=$out/src
[ -e "$linux/.git" ] || worktree_add "$SPARSE_BUILD" "$linux" base --detach
sparse_checkout "$linux" "$SPARSE_BUILD"
# A fresh checkout of the pinned tree, as a user would have; kunit.py's
# build folder (.kunit) is kept, so its builds stay incremental.
git -C "$linux" am --abort >/dev/null 2>&1 || true
git -C "$linux" checkout -q -f --detach base
git -C "$linux" clean -q -fdx -e .kunit
rm -rf "$linux/.pc"
# kunit.py builds in .kunit, inside the tree: its compiler arguments would
# read "../include" where every variant's read "../src/include", and ccache
# would share nothing with `make kunit` (a whole cold UML build on a fresh
# machine). A link to build/readme/uml, beside src as a variant's build dir
# sits, gives the same arguments: kbuild resolves O= to its real path.
if [ ! -L "$linux/.kunit" ]; then
	rm -rf "$linux/.kunit"
	mkdir -p "$out/uml"
	ln -s ../uml "$linux/.kunit"
fi

script=${text//\/path\/to\/ima-slim/$TOP}
script=${script//\/path\/to\/linux/$linux}
printf '%s\n' "$script" >"$out/$name.sh"
say "readme: $name (bash -e $out/$name.sh in $linux)"
# ccache's gcc first on PATH, if there: the commands stay as written, and
# kunit.py's build (.kunit, kept between runs) is cached like every other.
# Paths relative to build/ in its hashes, so that another clone hits too.
ccache_path=
[ ! -d /usr/lib/ccache ] || ccache_path=/usr/lib/ccache:
export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=true
(cd "$linux" && PATH="$ccache_path$PATH" bash -e -o pipefail "$out/$name.sh") ||
	die "README block '$name' failed (script: $out/$name.sh)"

case $name in
apply-*)
	fixed=$("$TOP/scripts/variant.sh" fixed)
	rm -rf "$linux/.pc"
	git -C "$linux" add -A -f -- . ':!.kunit'
	t1=$(git -C "$linux" write-tree) t2=$(git -C "$fixed" rev-parse 'HEAD^{tree}')
	[ "$t1" = "$t2" ] || die "README block '$name' gives tree $t1, the fixed variant has $t2"
	echo "README block '$name': the tree is the fixed variant's ($t1)"
	;;
esac
