#!/usr/bin/env bash
# Remove what the project generated. Your KERNEL_SRC is never touched.
# Usage: scripts/clean.sh [--src]   (--src: also the pristine kernel trees)
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,3s/^# //p' "$0"; exit 0; fi
[ -d "$BUILD" ] || exit 0
# Mainline's build/ also holds the backports' build/<kernel>/ and the
# downloaded sources (build/apt/): `make clean` is for one kernel.
keep=" apt $(known_kernels | awk '$1 != "mainline" {printf "%s ", $1}')"
for d in "$BUILD"/*; do
	[ -e "$d" ] || continue
	[ "$(basename "$d")" = src ] && [ "${1:-}" != --src ] && continue
	[ "$KERNEL_ID" = mainline ] && [[ "$keep" == *" $(basename "$d") "* ]] && continue
	rm -rf "$d"
done
# Forget the worktrees that were just removed.
for t in "$BUILD"/src/*; do [ -d "$t/.git" ] && git -C "$t" worktree prune; done
say "clean: removed $BUILD$([ "${1:-}" = --src ] || echo ' (kept the pristine trees in build/src)')"
