#!/usr/bin/env bash
# Build the guest's initramfs: static busybox, qemu/guest/init as /init, the
# guest tests (qemu/guest/*.sh) under /tests and the guest's C programs
# (qemu/guest/src/NAME.c, built static on the host) as /bin/NAME.
# Reproducible cpio + gzip.
# Usage: qemu/mkinitramfs.sh OUTPUT.cpio.gz
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

if [ $# -ne 1 ] || [ "$1" = --help ]; then sed -n '2,6s/^# //p' "$0"; exit 0; fi
out=$1
bb=/bin/busybox
[ -x "$bb" ] || die "$bb is missing: install busybox-static (make deps)"
# A dynamic busybox would need a libc in the initramfs.
if LC_ALL=C readelf -l "$bb" 2>/dev/null | grep -q 'INTERP'; then
	die "$bb is dynamically linked: install busybox-static (make deps)"
fi

stage=$(mktemp -d "$(dirname "$out")/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/tests" "$stage/proc" "$stage/sys" "$stage/dev" "$stage/mnt" "$stage/tmp"
cp "$bb" "$stage/bin/busybox"
install -m 0755 "$TOP/qemu/guest/init" "$stage/init"
for t in "$TOP"/qemu/guest/*.sh; do install -m 0644 "$t" "$stage/tests/"; done
# The guest has no libc: its programs are static. Busybox cannot mmap with
# PROT_EXEC, change uid without a passwd file, or time a syscall loop.
for c in "$TOP"/qemu/guest/src/*.c; do
	[ -e "$c" ] || continue
	name=$(basename "$c" .c)
	if ! gcc -static -O2 -g0 -Wall -Wextra -Werror -pthread -o "$stage/bin/$name" "$c" 2>"$stage/cc.log"; then
		cat "$stage/cc.log" >&2
		die "cannot build the guest program $c (gcc -static; libc6-dev installed?)"
	fi
	strip "$stage/bin/$name"
done
rm -f "$stage/cc.log"
find "$stage" -exec touch -h -d "@0" {} +
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -n -9 >"$out.tmp"
mv "$out.tmp" "$out"
