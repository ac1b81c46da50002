#!/usr/bin/env bash
# Make the source tree of one variant: a sparse git worktree of the pristine
# tree at build/trees/KEY/src (shared by the variants that apply the same
# patches; build/<variant>/src links to it), on branch ima-slim/KEY, with
# the variant's prefix of `series` (or EVM's patches alone) applied by
# `git am`. Re-applies only when the series changed.
# Usage: scripts/variant.sh VARIANT     Prints build/<variant>/src.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -ne 1 ] || [ "$1" = --help ]; then sed -n '2,7s/^# //p' "$0"; exit 0; fi
variant=$1
lock_variant "$variant"
which=$(variant_field "$variant" 2)
tree=$("$TOP/scripts/tree.sh")
key=$(tree_key "$variant")
wt=$BUILD/trees/$key/src
branch=ima-slim/$key
link=$(variant_dir "$variant")/src

mapfile -t all < <(series_patches)
case $which in
none) patches=() ;;
first) patches=("${all[@]:0:1}") ;;
all) patches=("${all[@]}") ;;
[0-9]*) patches=("${all[@]:0:$which}") ;;	# a prefix, for check-series
evm) mapfile -t patches < <(printf '%s\n' "${all[@]}" | grep -E '^[0-9]+-evm-') ;;	# EVM's alone
*) die "variant $variant: bad patch selection '$which'" ;;
esac
for p in "${patches[@]}"; do
	[ -f "$SERIES_DIR/patches/$p" ] || die "series lists $p but patches/$p does not exist"
done

# The stamp says what the worktree holds: the base commit and the patches.
# Contents only: two checkouts of the project (worktrees) sharing one
# build/ must agree on it, or each would reset the other's tree.
stamp=$( { git -C "$tree" rev-parse base; for p in "${patches[@]}"; do echo "$p"; sha256sum <"$SERIES_DIR/patches/$p"; done; } | sha256sum | cut -d' ' -f1)
# build/<variant>/src links to the shared worktree, and build/<variant>/
# obj and uml (the kernel and KUnit build dirs) to build/trees/KEY/obj-
# <variant> and uml-<variant>: every build dir sits beside its sources
# ("../src"), as the same path in every variant's compiler arguments lets
# ccache share objects between them. (Real folders there are the layout
# before trees were shared: removed.)
vdir=$(variant_dir "$variant")
for d in src obj uml; do
	if [ -d "$vdir/$d" ] && [ ! -L "$vdir/$d" ]; then
		say "$variant: removing its own $vdir/$d (now in build/trees/$key)"
		rm -rf "${vdir:?}/$d"
		[ "$d" != src ] || git -C "$tree" worktree prune
	fi
done
link_tree() {
	local d to
	mkdir -p "$vdir"
	for d in src obj uml; do
		to=$d
		[ "$d" = src ] || to=$d-$variant
		mkdir -p "$BUILD/trees/$key/$to"
		[ "$(readlink "$vdir/$d" 2>/dev/null)" = "../trees/$key/$to" ] || ln -sfn "../trees/$key/$to" "$vdir/$d"
	done
	cp "$wt/../src.stamp" "$link.stamp"
	echo "$link"
}
up_to_date() {
	[ -f "$wt/.git" ] && [ "$(cat "$wt/../src.stamp" 2>/dev/null)" = "$stamp" ] &&
		[ -z "$(git -C "$wt" status --porcelain)" ] && sparse_is "$wt" "$SPARSE_BUILD"
}
if up_to_date; then link_tree; exit 0; fi
# To change the tree, wait until nobody builds from it; maybe whoever
# held it made it what we want.
lock_tree "$key"
if up_to_date; then link_tree; exit 0; fi

if [ -f "$wt/.git" ] && [ "$(git -C "$wt" rev-parse --git-common-dir)" = "$(git -C "$tree" rev-parse --absolute-git-dir)" ]; then
	# Reset in place: files the patches do not touch keep their mtimes, so
	# the out-of-tree build stays incremental.
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	sparse_checkout "$wt" "$SPARSE_BUILD"
	git -C "$wt" checkout -q -f -B "$branch" base
	git -C "$wt" clean -q -fdx
else
	rm -rf "$wt"
	say "$variant: worktree $wt"
	worktree_add "$SPARSE_BUILD" "$wt" base -B "$branch"
fi
rm -f "$wt/../src.stamp"

# Commits made by `git am` get a pinned committer date, so the variant's
# commit ids (and the exported patches) are the same on every machine.
export GIT_COMMITTER_DATE="$PINNED_DATE"
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	if ! out=$(git -C "$wt" am -q --keep-cr "$SERIES_DIR/patches/$p" 2>&1); then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		printf '%s\n' "$out" >&2
		where=$(printf '%s\n' "$out" | sed -n 's/^error: patch failed: //p' | head -n 1)
		die "$variant: patch $n/${#patches[@]} patches/$p does not apply to $(git -C "$tree" log -1 --format=%s base)${where:+: hunk at $where fails}"
	fi
done
[ ${#patches[@]} -eq 0 ] || say "$variant: applied ${#patches[@]} patch(es) with git am"
echo "$stamp" >"$wt/../src.stamp"
link_tree
