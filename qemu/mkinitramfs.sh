#!/usr/bin/env bash
# Build the guest's initramfs: static busybox, qemu/guest/init as /init, the
# guest tests (qemu/guest/*.sh) under /tests, the guest's C programs
# (qemu/guest/src/NAME.c, built static on the host) as /bin/NAME, and the
# host's keyctl, getfattr, setfattr and debugfs with their libraries.
# Reproducible cpio + gzip.
# Usage: qemu/mkinitramfs.sh OUTPUT.cpio.gz
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

if [ $# -ne 1 ] || [ "$1" = --help ]; then sed -n '2,7s/^# //p' "$0"; exit 0; fi
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
# The EVM suite gives EVM a key (keyutils), reads and writes labels (attr)
# and changes the disk behind the kernel's back (e2fsprogs): Debian's own
# tools, dynamically linked, so each comes with the libraries ldd names and
# the dynamic loader, at the paths the host has them (no busybox applet
# does any of the three).
copy_with_libs() {	# copy_with_libs PROGRAM: into /bin, its libraries to their paths
	local prog=$1 lib
	if ldd "$prog" | grep -q 'not found'; then
		ldd "$prog" >&2
		die "$prog needs a library this machine does not have (above)"
	fi
	install -m 0755 "$prog" "$stage/bin/"
	for lib in $(ldd "$prog" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
		[ -e "$stage$lib" ] || install -D -m 0755 "$lib" "$stage$lib"
	done
}
for tool in keyctl:keyutils getfattr:attr setfattr:attr debugfs:e2fsprogs; do
	path=$(command -v "${tool%%:*}") || die "${tool%%:*} is missing: install ${tool#*:} (make deps)"
	copy_with_libs "$path"
done
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
