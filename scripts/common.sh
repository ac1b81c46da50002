# shellcheck shell=bash
# Shared helpers for the ima-slim scripts: paths, logging, errors, variants.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Which kernel: KERNEL unset (or "mainline", or the mainline pin's series)
# is mainline, the top-level series; KERNEL=6.12 is the backport in
# stable/6.12/. SERIES_DIR holds the kernel's series, patches/ and pin.
# known_kernels: one line per pin, "NAME SERIES PIN_FILE" (mainline first).
known_kernels() {
	local pin
	for pin in "$TOP/configs/kernel.pin" "$TOP"/stable/*/kernel.pin; do
		[ -f "$pin" ] || continue
		if [ "$pin" = "$TOP/configs/kernel.pin" ]; then printf mainline; else basename "$(dirname "$pin")" | tr -d '\n'; fi
		printf ' %s %s\n' "$(sed -n 's/^KERNEL_SERIES=//p' "$pin")" "$pin"
	done
}
KERNEL=${KERNEL:-}
MAINLINE_SERIES=$(sed -n 's/^KERNEL_SERIES=//p' "$TOP/configs/kernel.pin")
case $KERNEL in
"" | mainline | "$MAINLINE_SERIES")
	KERNEL_ID=mainline SERIES_DIR=$TOP PIN_FILE=$TOP/configs/kernel.pin ;;
*)
	if [ ! -f "$TOP/stable/$KERNEL/kernel.pin" ]; then
		printf 'error: KERNEL=%s names no pin: known are %s\n' "$KERNEL" \
			"$(known_kernels | while read -r n v f; do
			if [ "$n" = "$v" ]; then v=; else v="$v, "; fi; printf '%s (%s%s), ' "$n" "$v" "${f#"$TOP"/}"; done | sed 's/, $//')" >&2
		exit 2
	fi
	KERNEL_ID=$KERNEL SERIES_DIR=$TOP/stable/$KERNEL PIN_FILE=$TOP/stable/$KERNEL/kernel.pin ;;
esac
export KERNEL
# shellcheck source=configs/kernel.pin
. "$PIN_FILE"
export PINNED_DATE

# Each kernel builds in its own folder: mainline in build/, a backport in
# build/<kernel>/ (so `KERNEL=6.12 make` never touches mainline's builds).
# BUILD names the root the first time; IMA_SLIM_RESOLVED remembers what it
# was resolved to, so that child scripts do not append the kernel twice.
root=${BUILD:-$TOP/build} resolved=${IMA_SLIM_RESOLVED:-}
if [ -n "$resolved" ] && [ "$root" = "${resolved#*:}" ] && [ "${resolved%%:*}" != mainline ]; then
	root=${root%/"${resolved%%:*}"}
fi
BUILD_ROOT=$root
if [ "$KERNEL_ID" = mainline ]; then BUILD=$root; else BUILD=$root/$KERNEL_ID; fi
unset root resolved
export BUILD BUILD_ROOT IMA_SLIM_RESOLVED="$KERNEL_ID:$BUILD"

# Reproducible builds: the same inputs give the same bzImage on every machine.
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2024-11-17 00:00:00 UTC}
export KBUILD_BUILD_USER=${KBUILD_BUILD_USER:-ima-slim}
export KBUILD_BUILD_HOST=${KBUILD_BUILD_HOST:-ima-slim}

# Identity used for every commit the project makes in its own kernel trees, so
# that commit ids are the same on every machine.
export GIT_AUTHOR_NAME="ima-slim" GIT_AUTHOR_EMAIL="ima-slim@invalid"
export GIT_COMMITTER_NAME="ima-slim" GIT_COMMITTER_EMAIL="ima-slim@invalid"

START_TIME=${START_TIME:-$(date +%s)}
export START_TIME

elapsed() { local s=$(( $(date +%s) - START_TIME )); printf '%02d:%02d' $((s / 60)) $((s % 60)); }
say() { printf '[%s] %s\n' "$(elapsed)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit "${DIE_CODE:-2}"; }

# Run a long command with its output in LOG; on failure show the log's tail.
run_logged() {
	local log=$1; shift
	mkdir -p "$(dirname "$log")"
	if ! "$@" >"$log" 2>&1; then
		printf 'error: command failed: %s\n--- last lines of %s ---\n' "$*" "$log" >&2
		tail -n 30 "$log" >&2
		return 1
	fi
}

# Variants, in one place. Fields: name, patches applied from `series`
# (none | first | all | the first N | evm: the EVM patches alone, as they are
# posted on their own), config fragments merged onto tinyconfig.
# seed: up to patch 4, "ima: move the open counters into struct inode", the
# shape Eric Paris posted in October 2010 (three counters in every inode).
# rbtree: up to patch 11, the series' last step on the rbtree (lockless
# lookups), for the report's comparison with the hash table that follows.
# vanilla-smp, fixed-smp: two CPUs (configs/smp.config), for the report's
# throughput boots; rwlock-lockstat (up to patch 10, the last whose lookups
# take ima_iint_lock), rbtree-lockstat and fixed-lockstat: the same with
# /proc/lock_stat.
# kcsan: the fixed series under KCSAN (two CPUs), for `make stress`.
# *-distro: Debian's LSM stack (configs/distro.config, distro-ima.config);
# noima-distro, without IMA and EVM, is their reference; evm-lazy-distro is
# the released kernel with only EVM's patches (state on demand).
# vanilla-evm, evm-lazy, fixed-evm: small kernels with what the in-guest
# EVM suite needs (configs/evm.config), for checks with less time than the
# distribution's stack takes to build.
# vanilla-landlock, lookup-landlock (up to patch 15, whose release of a
# file opened for write looks the iint up again), fixed-landlock: the small
# guest with Landlock, whose file blob IMA's share rides on
# (configs/landlock.config), for the report's open+close figures there.
BASE_VARIANTS="
noima    none  guest tpm noima
vanilla  none  guest tpm ima
baseline first guest tpm ima
seed     4     guest tpm ima
rbtree   11    guest tpm ima
fixed    all   guest tpm ima
debug    all   guest tpm ima debug
kcsan    all   guest tpm ima kcsan
vanilla-smp     none guest tpm ima smp
fixed-smp       all  guest tpm ima smp
rwlock-lockstat 10   guest tpm ima smp lockstat
rbtree-lockstat 11   guest tpm ima smp lockstat
fixed-lockstat  all  guest tpm ima smp lockstat
noima-distro    none guest tpm distro noima
vanilla-distro  none guest tpm ima distro distro-ima
fixed-distro    all  guest tpm ima distro distro-ima
evm-lazy-distro evm  guest tpm ima distro distro-ima
vanilla-evm     none guest tpm ima evm
evm-lazy        evm  guest tpm ima evm
fixed-evm       all  guest tpm ima evm
vanilla-landlock none guest tpm ima landlock
lookup-landlock  15   guest tpm ima landlock
fixed-landlock   all  guest tpm ima landlock
"
VARIANTS_TABLE="$BASE_VARIANTS${EXTRA_VARIANTS:-}
"
# EXTRA_VARIANTS (same columns) lets a test add a throwaway variant.
variant_field() {	# variant_field NAME COLUMN(2=patches, 3=fragments)
	local line
	line=$(awk -v v="$1" '$1 == v' <<<"$VARIANTS_TABLE")
	[ -n "$line" ] || die "unknown variant '$1' (known: $(awk 'NF {printf "%s ", $1}' <<<"$VARIANTS_TABLE"))"
	if [ "$2" = 2 ]; then awk '{print $2}' <<<"$line"; else cut -d' ' -f3- <<<"$(tr -s ' ' <<<"$line")"; fi
}
variant_dir() { echo "$BUILD/$1"; }

# Variants that apply the same patches share one worktree, build/trees/KEY/
# src (build/VARIANT/src links to it): vanilla for none, baseline for
# first, fixed for all, prefix-N for the first N. A variant that only a
# test adds (EXTRA_VARIANTS, a mutant) commits on top of its tree, so it
# keeps one of its own, named after it.
tree_key() {
	if awk -v v="$1" '$1 == v {f=1} END {exit !f}' <<<"$BASE_VARIANTS"; then
		case $(variant_field "$1" 2) in
		none) echo vanilla ;;
		first) echo baseline ;;
		all) echo fixed ;;
		evm) echo evm-lazy ;;
		*) echo "prefix-$(variant_field "$1" 2)" ;;
		esac
	else
		echo "$1"
	fi
}

# Worktrees are sparse checkouts (git sparse-checkout, non-cone patterns):
# no builds of ours (tinyconfig x86_64 guests, UML KUnit, the distro
# fragment) compile GPU, media, Ethernet, Wi-Fi or sound drivers, other
# architectures, perf or the selftests, so their sources are left out,
# but every Kconfig, Makefile and Kbuild file stays (Kconfig reads them
# all). A worktree is ~0.7 GB instead of ~1.8 GB; a CI machine ran out
# of disk with a dozen full ones. A build that needed a file left out
# fails loudly (no rule to make it), never silently differently.
# shellcheck disable=SC2034 # read by the scripts that source this
SPARSE_BUILD='/*
!/arch/*/**
/arch/x86/**
/arch/um/**
!/drivers/gpu/drm/*/**
!/drivers/net/ethernet/**
!/drivers/net/wireless/**
!/drivers/media/**
!/sound/**
!/tools/perf/**
!/tools/testing/selftests/**
!/Documentation/devicetree/**
!/Documentation/translations/**
Kconfig*
Makefile*
Kbuild*'
# The pristine tree's own checkout: its top-level files and kunit.py
# (for `kunit.py parse`); everything else is read from its worktrees.
# shellcheck disable=SC2034 # read by tree.sh
SPARSE_PRISTINE='/*
!/*/
/tools/testing/kunit/'

# sparse_is DIR PATTERNS: DIR is checked out sparse with exactly PATTERNS.
sparse_is() {
	local file
	file=$(git -C "$1" rev-parse --git-path info/sparse-checkout)
	[[ "$file" = /* ]] || file=$1/$file
	[ "$(git -C "$1" config --worktree --get core.sparseCheckout 2>/dev/null)" = true ] &&
		[ "$(cat "$file" 2>/dev/null)" = "$2" ]
}
# sparse_checkout DIR PATTERNS: check DIR out with PATTERNS (SPARSE_*, or
# "full"); does nothing when DIR already has them.
sparse_checkout() {
	if [ "$2" = full ]; then
		[ "$(git -C "$1" config --worktree --get core.sparseCheckout 2>/dev/null)" != true ] ||
			git -C "$1" sparse-checkout disable
	elif ! sparse_is "$1" "$2"; then
		git -C "$1" sparse-checkout set --no-cone --stdin <<<"$2"
	fi
}

# worktree_add PATTERNS DIR COMMIT [ARGS...]: a worktree of the pristine
# tree at DIR on COMMIT (ARGS go to `git worktree add`: -B BRANCH,
# --detach), checked out with PATTERNS as sparse_checkout takes them.
worktree_add() {
	local want=$1 dir=$2 commit=$3 tree
	shift 3
	tree=$("$TOP/scripts/tree.sh")
	git -C "$tree" worktree prune
	mkdir -p "$(dirname "$dir")"
	# --no-checkout, then the patterns, then the files: no full checkout
	# on the way (and none of the pristine tree's own patterns, which git
	# copies into a new worktree).
	git -C "$tree" worktree add -q -f --no-checkout "$@" "$dir" "$commit"
	sparse_checkout "$dir" "$want"
	git -C "$dir" reset -q --hard
}

# lock_variant VARIANT: hold the variant's lock until this process exits, so
# two makes (or two agents) never build in one build dir at once.
# Children of a holder see the variant in IMA_SLIM_LOCKS and do not re-lock
# (a second flock on a new descriptor would wait on their own parent).
lock_variant() {
	variant_field "$1" 2 >/dev/null	# dies on an unknown variant
	hold_lock "$1" "$(variant_dir "$1").lock" "this variant"
}
# lock_tree KEY [-s]: hold the lock of the worktree build/trees/KEY,
# exclusive to change it (variant.sh, kunit-mutants.sh), or shared (-s) to
# build from it: a variant's build never sees its sources change, and
# variants sharing a tree build side by side. Take it after variant.sh has
# made the tree (it locks exclusive to change it), never before.
lock_tree() { hold_lock "tree:$1" "$BUILD/trees/$1.lock" "the worktree build/trees/$1" "${2:-}"; }
# tree_ready VARIANT: after lock_tree KEY -s, fail if the variant's tree is
# not what variant.sh made for it (another series was applied meanwhile).
tree_ready() {
	cmp -s "$(variant_dir "$1")/src.stamp" "$BUILD/trees/$(tree_key "$1")/src.stamp" ||
		die "$1: build/trees/$(tree_key "$1") changed while this build waited for it (another series?): run again"
}
hold_lock() {	# hold_lock NAME FILE WHAT [-s]
	local fd
	case " ${IMA_SLIM_LOCKS:-} " in *" $1 "*) return 0 ;; esac
	mkdir -p "$(dirname "$2")"
	exec {fd}>"$2"
	if ! flock -n ${4:+"$4"} "$fd"; then
		say "${1#tree:}: waiting for another user of $3 (lock $2)"
		flock ${4:+"$4"} "$fd"
	fi
	export IMA_SLIM_LOCKS="${IMA_SLIM_LOCKS:-} $1"
}

# series_warnings LOG FILE...: the compiler's warnings in build log LOG
# ("path:line:col: warning: ...", the path as kbuild prints it, e.g.
# ../src/fs/inode.c) that fall in one of FILES, paths in the kernel tree:
# a patch may not add a warning to a file it changes.
series_warnings() {
	local log=$1
	shift
	[ $# -gt 0 ] || return 0
	awk -F: 'NR == FNR { want[$0] = 1; next }
		/: warning: / { p = $1; sub(/^(\.\.\/)*(src\/)?/, "", p); if (p in want) print }' \
		<(printf '%s\n' "$@") "$log"
}

# The patch file names listed in `series`, in order (comments skipped).
series_patches() { sed -e 's/#.*//' -e 's/[[:space:]].*//' "$SERIES_DIR/series" | grep -v '^$' || true; }

# Where the pristine kernel tree lives (a git repo with branch `base`).
tree_id() {
	if [ -n "${KERNEL_SRC:-}" ]; then
		echo "git-$(git -C "$KERNEL_SRC" rev-parse --short=12 HEAD)"
	else
		echo "debian-$KERNEL_PKG_VERSION" | tr '~' '_'
	fi
}
tree_dir() { echo "$BUILD/src/$(tree_id)"; }
# The pinned source tarball: the installed package's, or for a kernel from
# another suite (KERNEL_APT_SUITE) the one scripts/deps.sh unpacked.
kernel_tarball() {
	if [ -n "$KERNEL_APT_SUITE" ]; then
		echo "$BUILD_ROOT/apt/src/${KERNEL_PKG}_$(tr '~' '_' <<<"$KERNEL_PKG_VERSION").tar.xz"
	else
		echo "/usr/src/$KERNEL_PKG.tar.xz"
	fi
}

# throwaway_variant VARIANT DIFF: the variant's worktree (its line must be
# in EXTRA_VARIANTS) with DIFF, a deliberate bug that is never part of
# `series`, committed on top; prints the worktree. variant.sh keeps a clean
# worktree whose series is unchanged, so the commit survives later builds.
throwaway_variant() {
	local v=$1 diff=$2 src subject
	subject="ima-slim throwaway: $(basename "$diff") (test data, not a patch)"
	lock_variant "$v"
	src=$("$TOP/scripts/variant.sh" "$v")
	# Already there (applies in reverse): a rebuild, not a second bug.
	if ! git -C "$src" apply --reverse --check "$diff" 2>/dev/null; then
		git -C "$src" apply --index "$diff" >&2 || die "$diff does not apply to $v"
		GIT_AUTHOR_DATE=$PINNED_DATE GIT_COMMITTER_DATE=$PINNED_DATE \
			git -C "$src" commit -q -m "$subject"
		say "$v: applied $diff"
	fi
	echo "$src"
}

# kunit_py VERB SRC BUILD_DIR [--smp] [ARGS...]: kunit.py VERB (run, build)
# in the tree SRC, building in BUILD_DIR, with the series' kunitconfigs (IMA's,
# and EVM's once the series has EVM's suite) and the project's
# (kunit/.kunitconfig), through ccache if there. --smp: on
# x86_64 under QEMU with two CPUs and kunit/smp.kunitconfig, kunit/qemu/
# first on PATH (kunit.py's QEMU without KVM, see there).
kunit_py() {
	local verb=$1 src=$2 build_dir=$3 cc=gcc path=$PATH smp_args=() suites=(--kunitconfig=security/integrity/ima)
	shift 3
	[ ! -f "$src/security/integrity/evm/.kunitconfig" ] || suites+=(--kunitconfig=security/integrity/evm)
	if [ "${1:-}" = --smp ]; then
		shift
		smp_args=(--arch=x86_64 '--qemu_args=-smp 2' --kunitconfig="$TOP/kunit/smp.kunitconfig")
		path=$TOP/kunit/qemu:$PATH
	fi
	if command -v ccache >/dev/null; then
		cc="ccache gcc"
		export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=true
	fi
	(cd "$src" && PATH=$path /usr/bin/python3 tools/testing/kunit/kunit.py "$verb" \
		"${suites[@]}" --kunitconfig="$TOP/kunit/.kunitconfig" "${smp_args[@]}" \
		--build_dir="$build_dir" --jobs="$(nproc)" --make_options "CC=$cc" "$@")
}
