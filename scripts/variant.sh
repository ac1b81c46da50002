#!/usr/bin/env bash
# Make the source tree of one variant: a git worktree of the pristine tree at
# build/<variant>/src, on branch ima-slim/<variant>, with the variant's prefix
# of `series` applied by `git am`. Re-applies only when the series changed.
# Usage: scripts/variant.sh VARIANT     Prints the worktree's path.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -ne 1 ] || [ "$1" = --help ]; then sed -n '2,5s/^# //p' "$0"; exit 0; fi
variant=$1
lock_variant "$variant"
which=$(variant_field "$variant" 2)
tree=$("$TOP/scripts/tree.sh")
wt=$(variant_dir "$variant")/src
branch=ima-slim/$variant

mapfile -t all < <(series_patches)
case $which in
none) patches=() ;;
first) patches=("${all[@]:0:1}") ;;
all) patches=("${all[@]}") ;;
[0-9]*) patches=("${all[@]:0:$which}") ;;	# a prefix, for check-series
*) die "variant $variant: bad patch selection '$which'" ;;
esac
for p in "${patches[@]}"; do
	[ -f "$SERIES_DIR/patches/$p" ] || die "series lists $p but patches/$p does not exist"
done

# The stamp says what the worktree holds: the base commit and the patches.
# Contents only: two checkouts of the project (worktrees) sharing one
# build/ must agree on it, or each would reset the other's tree.
stamp=$( { git -C "$tree" rev-parse base; for p in "${patches[@]}"; do echo "$p"; sha256sum <"$SERIES_DIR/patches/$p"; done; } | sha256sum | cut -d' ' -f1)
if [ -f "$wt/.git" ] && [ "$(cat "$wt/../src.stamp" 2>/dev/null)" = "$stamp" ] &&
	[ -z "$(git -C "$wt" status --porcelain)" ]; then
	echo "$wt"; exit 0
fi

if [ -f "$wt/.git" ] && [ "$(git -C "$wt" rev-parse --git-common-dir)" = "$(git -C "$tree" rev-parse --absolute-git-dir)" ]; then
	# Reset in place: files the patches do not touch keep their mtimes, so
	# the out-of-tree build stays incremental.
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f -B "$branch" base
	git -C "$wt" clean -q -fdx
else
	rm -rf "$wt"
	git -C "$tree" worktree prune
	mkdir -p "$(dirname "$wt")"
	say "$variant: worktree $wt"
	git -C "$tree" worktree add -q -f -B "$branch" "$wt" base
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
echo "$wt"
