#!/usr/bin/env bash
# Configure and build one variant's guest kernel out of tree.
# Usage: scripts/build.sh VARIANT [config|build]    (default: build)
#   config: tinyconfig + the variant's configs/*.config fragments, merged with
#           scripts/kconfig/merge_config.sh; fails naming any option that did
#           not survive.
#   build:  config, then bzImage into build/VARIANT/obj (ccache if present).
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -lt 1 ] || [ "$1" = --help ]; then sed -n '2,8s/^# //p' "$0"; exit 0; fi
variant=$1 step=${2:-build}
vdir=$(variant_dir "$variant")
lock_variant "$variant"
src=$("$TOP/scripts/variant.sh" "$variant")
lock_tree "$(tree_key "$variant")" -s
tree_ready "$variant"
obj=$vdir/obj logs=$vdir/logs
mkdir -p "$obj" "$logs"
read -r -a frags <<<"$(variant_field "$variant" 3)"
fragfiles=()
for f in "${frags[@]}"; do fragfiles+=("$TOP/configs/$f.config"); done

do_config() {
	local stamp
	stamp=$( { cat "$vdir/src.stamp" "${fragfiles[@]}"; } | sha256sum | cut -d' ' -f1)
	if [ -f "$obj/.config" ] && [ "$(cat "$obj/config.stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	rm -f "$obj/config.stamp"
	say "$variant: config (tinyconfig + ${frags[*]})"
	# tinyconfig in one allnoconfig pass: its own fragments first, ours last
	# (later fragments win). merge_config.sh re-checks every requested value.
	if ! (cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -n -O "$obj" \
		kernel/configs/tiny-base.config kernel/configs/tiny.config \
		arch/x86/configs/tiny.config "${fragfiles[@]}") >"$logs/config.log" 2>&1; then
		tail -n 20 "$logs/config.log" >&2
		die "$variant: merge_config.sh failed (log: $logs/config.log)"
	fi
	# Only our fragments count: the kernel's own tiny.config names options
	# of 32-bit x86 that an x86_64 tinyconfig drops as well. An option this
	# kernel does not define at all is lost too, unless a fragment says so
	# on a line "# Not in <series>: CONFIG_X" (one kernel's option that
	# another folded away).
	local sym lost=() absent=()
	while read -r sym; do
		if grep -qxF "# Not in $KERNEL_SERIES: $sym" "${fragfiles[@]}"; then
			absent+=("$sym")
		else
			lost+=("$sym")
		fi
	done < <(awk '/^WARNING: Value requested for/ {print $5}' "$logs/config.log" |
		grep -xF -f <(grep -vhE '^# Not in ' "${fragfiles[@]}" | grep -ohE 'CONFIG_[A-Za-z0-9_]+') || true)
	[ ${#absent[@]} -eq 0 ] || say "$variant: not in Linux $KERNEL_SERIES, as the fragments say: ${absent[*]}"
	if [ ${#lost[@]} -gt 0 ]; then
		grep -A2 -wF -f <(printf '%s\n' "${lost[@]}") "$logs/config.log" >&2
		die "$variant: options lost after merging (missing dependencies, or not in Linux $KERNEL_SERIES?): ${lost[*]}"
	fi
	echo "$stamp" >"$obj/config.stamp"
}

do_build() {
	local cc=gcc t0
	if command -v ccache >/dev/null; then
		cc="ccache gcc"
		# Same relative layout for every variant (build/V/src, build/V/obj),
		# so ccache can share objects between variants.
		export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=true
	fi
	say "$variant: building bzImage (log: $logs/build.log)"
	t0=$(date +%s)
	run_logged "$logs/build.log" make -C "$src" O="$obj" ARCH=x86_64 CC="$cc" LOCALVERSION="-$variant" \
		-j"$(nproc)" bzImage || die "$variant: kernel build failed"
	# The series adds no compiler warning to a file it changes (ccache
	# replays a cached compile's warnings, so a cached build shows them
	# too). A test's throwaway variant may: its bug is not the series.
	if awk -v v="$variant" '$1 == v {f=1} END {exit !f}' <<<"$BASE_VARIANTS"; then
		local warned changed
		mapfile -t changed < <(git -C "$src" diff --name-only base HEAD)
		warned=$(series_warnings "$logs/build.log" "${changed[@]}")
		[ -z "$warned" ] || { printf '%s\n' "$warned" >&2
			die "$variant: the compiler warns in files the series changes (above; log: $logs/build.log)"; }
	fi
	cp "$obj/arch/x86/boot/bzImage" "$vdir/bzImage"
	say "$variant: built $(cat "$obj/include/config/kernel.release") in $(( $(date +%s) - t0 )) s"
}

do_config
[ "$step" = config ] || do_build
