#!/usr/bin/env bash
# Make the guest's ext4 test disk from a staging folder (mkfs.ext4 -d: no
# root, no loop mounts) and list what the guest's reads should measure.
# Usage: qemu/mkdisk.sh TEST RUN_DIR
#   writes RUN_DIR/disk.img and RUN_DIR/expected-measurements.txt
#   ("sha256:<hex> <path in the guest>" per file that root reads or runs).
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

if [ $# -ne 2 ] || [ "$1" = --help ]; then sed -n '2,6s/^# //p' "$0"; exit 0; fi
test=$1 run=$2
stage=$run/disk-stage
rm -rf "$stage"
mkdir -p "$stage/data" "$stage/bin" "$stage/out"

case $test in
boot | hang)
	# Small files with known content: root reads each one once.
	for i in $(seq 1 8); do
		for j in $(seq 1 "$((i * 64))"); do echo "ima-slim boot test file $i line $j"; done >"$stage/data/file$i"
	done
	printf '#!/bin/sh\necho hello from the ext4 disk\n' >"$stage/bin/hello.sh"
	chmod 0755 "$stage/bin/hello.sh"
	cp /bin/busybox "$stage/bin/busybox"
	;;
*) die "mkdisk: unknown test '$test'" ;;
esac

: >"$run/expected-measurements.txt"
for f in "$stage"/data/* "$stage"/bin/*; do
	echo "sha256:$(sha256sum "$f" | cut -d' ' -f1) /mnt${f#"$stage"}" >>"$run/expected-measurements.txt"
done

files=$(find "$stage" | wc -l)
mb=$(( $(du -sm "$stage" | cut -f1) + 32 ))
rm -f "$run/disk.img"
if ! mkfs.ext4 -q -F -d "$stage" -N $((files + 256)) -L ima-slim \
	-E lazy_itable_init=0,lazy_journal_init=0 "$run/disk.img" "${mb}M" 2>"$run/mkfs.log"; then
	cat "$run/mkfs.log" >&2
	die "mkfs.ext4 failed for $run/disk.img (full disk? see above)"
fi
