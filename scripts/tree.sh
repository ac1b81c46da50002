#!/usr/bin/env bash
# Make the pristine kernel tree: a git repository whose branch `base` is
# either the pinned Debian linux-source tarball, committed reproducibly, or
# the HEAD of the user's own tree of the selected kernel (v7.3.y, or v6.12.y
# with KERNEL=6.12) given as KERNEL_SRC (never written).
# Usage: scripts/tree.sh        Prints the tree's path on stdout.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,6s/^# //p' "$0"; exit 0; fi

# Refuse a KERNEL_SRC that is not a clean git tree of the selected kernel.
check_kernel_src() {
	local src=$1 mk ver
	[ -d "$src" ] || die "KERNEL_SRC=$src does not exist"
	[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ] ||
		die "KERNEL_SRC=$src is not a git tree (a v$KERNEL_SERIES.y checkout is needed)"
	mk=$(git -C "$src" show HEAD:Makefile 2>/dev/null) ||
		die "KERNEL_SRC=$src: HEAD has no top-level Makefile: not a kernel tree"
	ver=$(awk '/^VERSION =/ {v=$3} /^PATCHLEVEL =/ {p=$3} END {print v "." p}' <<<"$mk")
	if [ "$ver" != "$KERNEL_SERIES" ]; then
		local hint name
		name=$(known_kernels | awk -v v="$ver" '$2 == v {print $1; exit}')
		hint=${name:+ (for Linux $ver use KERNEL=$name)}
		die "KERNEL_SRC=$src is Linux $ver, not $KERNEL_SERIES: the selected series ($KERNEL_ID) is for v$KERNEL_SERIES.y$hint"
	fi
	if [ -n "$(git -C "$src" status --porcelain 2>/dev/null)" ]; then
		git -C "$src" status --short | head -n 5 >&2
		die "KERNEL_SRC=$src is dirty (changes above): commit or stash them; ima-slim builds from HEAD and never writes into your tree"
	fi
}

# The user's tree: a shared clone (objects borrowed, nothing written there).
make_from_git() {
	local src=$1 dir=$2 head
	head=$(git -C "$src" rev-parse HEAD)
	say "tree: shared clone of $src at ${head:0:12}"
	rm -rf "$dir.tmp"
	git clone -q --shared --no-checkout "$src" "$dir.tmp"
	sparse_checkout "$dir.tmp" "$SPARSE_PRISTINE"
	git -C "$dir.tmp" checkout -q -B base "$head"
	mv "$dir.tmp" "$dir"
}

# The Debian tarball: extract once, commit with fixed identity and dates.
make_from_debian() {
	local dir=$1 tarball sum subl have
	tarball=$(kernel_tarball)
	[ -f "$tarball" ] || die "$tarball is missing: run 'make deps' (needs $KERNEL_PKG=$KERNEL_PKG_VERSION)"
	if [ -z "$KERNEL_APT_SUITE" ]; then
		have=$(dpkg-query -W -f '${Version}' "$KERNEL_PKG" 2>/dev/null || true)
		[ "$have" = "$KERNEL_PKG_VERSION" ] ||
			die "$KERNEL_PKG is $have, the pin is $KERNEL_PKG_VERSION: run 'make deps' or move the pin in $PIN_FILE"
	fi
	say "tree: extracting $tarball"
	sum=$(sha256sum "$tarball" | cut -d' ' -f1)
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -xf "$tarball" -C "$dir.tmp" --strip-components=1
	subl=$(awk '/^SUBLEVEL =/ {print $3}' "$dir.tmp/Makefile")
	say "tree: committing Linux $KERNEL_SERIES.$subl as branch base"
	(
		cd "$dir.tmp"
		export GIT_AUTHOR_DATE="$PINNED_DATE" GIT_COMMITTER_DATE="$PINNED_DATE"
		git init -q -b base
		git config core.autocrlf false
		git add -A -f
		git commit -q --no-verify -F - <<-MSG
		Linux $KERNEL_SERIES.$subl from Debian $KERNEL_PKG $KERNEL_PKG_VERSION

		The unpacked /usr/src/$KERNEL_PKG.tar.xz, committed with a fixed
		identity and date by ima-slim so that this commit id is the same on
		every machine and can serve as the series' base-commit.

		tarball-sha256: $sum
		MSG
	)
	echo "$sum" >"$dir.tmp/.git/ima-slim-tarball.sha256"
	say "tree: keeping only kunit.py checked out (builds use worktrees)"
	sparse_checkout "$dir.tmp" "$SPARSE_PRISTINE"
	mv "$dir.tmp" "$dir"
}

# One maker at a time (two makes may start together on a fresh machine).
mkdir -p "$BUILD/src"
exec {lockfd}>"$BUILD/src/.lock"
flock "$lockfd"
dir=$(tree_dir)
if [ -n "${KERNEL_SRC:-}" ]; then
	given=$KERNEL_SRC
	KERNEL_SRC=$(cd "$given" 2>/dev/null && pwd) || die "KERNEL_SRC=$given does not exist"
	check_kernel_src "$KERNEL_SRC"
	dir=$(tree_dir)
	[ -d "$dir" ] || make_from_git "$KERNEL_SRC" "$dir"
else
	[ -d "$dir" ] || make_from_debian "$dir"
fi
git -C "$dir" rev-parse -q --verify base >/dev/null || die "$dir has no branch 'base': remove it and run again"
# A tree made before the pristine checkout was sparse: the same now.
sparse_checkout "$dir" "$SPARSE_PRISTINE"
echo "$dir"
