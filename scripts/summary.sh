#!/usr/bin/env bash
# Summarise the built variants: kernel release, patches, image and config.
# Usage: scripts/summary.sh VARIANT...  Writes build/summary.{txt,json}.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -eq 0 ] || [ "$1" = --help ]; then sed -n '2,3s/^# //p' "$0"; exit 0; fi
rows=()
for v in "$@"; do
	d=$(variant_dir "$v")
	[ -f "$d/bzImage" ] || die "$v is not built: make build V=$v"
	rows+=("$(jq -n --arg v "$v" \
		--arg release "$(cat "$d/obj/include/config/kernel.release")" \
		--arg head "$(git -C "$d/src" rev-parse --short=12 HEAD)" \
		--argjson patches "$(git -C "$d/src" rev-list --count base..HEAD)" \
		--argjson bytes "$(stat -c %s "$d/bzImage")" \
		--arg config_sha256 "$(sha256sum "$d/obj/.config" | cut -d' ' -f1)" \
		--arg ima "$(grep -q '^CONFIG_IMA=y' "$d/obj/.config" && echo y || echo n)" \
		'{variant: $v, release: $release, head: $head, patches: $patches,
		  bzimage_bytes: $bytes, config_sha256: $config_sha256, ima: $ima}')")
done
printf '%s\n' "${rows[@]}" | jq -s --arg tree "$(tree_id)" '{kernel_tree: $tree, variants: .}' >"$BUILD/summary.json"
{
	printf '%-9s %-28s %-13s %7s %4s %10s  %s\n' variant release head patches IMA bzImage config-sha256
	jq -r '.variants[] | [.variant, .release, .head, .patches, .ima, .bzimage_bytes, .config_sha256[0:16]] | @tsv' "$BUILD/summary.json" |
		while IFS=$'\t' read -r a b c d e f g; do printf '%-9s %-28s %-13s %7s %4s %10s  %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g"; done
} | tee "$BUILD/summary.txt"
say "summary: $BUILD/summary.txt, $BUILD/summary.json"
