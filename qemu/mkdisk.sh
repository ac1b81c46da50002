#!/usr/bin/env bash
# Make the guest's disks with mkfs.ext4 (-d fills one from a folder: no root,
# no loop mounts):
#   the test disk (vda, read by the guest; attached with snapshot=on, so the
#   guest never changes it and it can be cached and shared between runs),
#   the results disk RUN_DIR/out.img (vdb, empty; the guest writes /out),
#   RUN_DIR/expected-measurements.txt: "sha256:<hex> <guest path>" for each
#   file that root reads or runs in the test.
# Usage: qemu/mkdisk.sh TEST RUN_DIR     Prints the test disk's path.
#   TEST: boot | hang | concurrency | fill | stress | slab (slab: SLAB_FILES
#   files, default 100000). RESULTS_MB: the results disk's size.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

if [ $# -ne 2 ] || [ "$1" = --help ]; then sed -n '2,11s/^# //p' "$0"; exit 0; fi
test=$1 run=$2

mkfs() {	# mkfs IMAGE STAGE_DIR_OR_EMPTY INODES SIZE_MB
	local img=$1 stage=$2 inodes=$3 mb=$4
	rm -f "$img"
	if ! mkfs.ext4 -q -F ${stage:+-d "$stage"} -N "$inodes" -L ima-slim \
		-E lazy_itable_init=0,lazy_journal_init=0 "$img" "${mb}M" >"$img.log" 2>&1; then
		cat "$img.log" >&2
		rm -f "$img"
		die "mkfs.ext4 failed for $img (disk full? see above)"
	fi
	rm -f "$img.log"
}

mkdir -p "$run"
: >"$run/expected-measurements.txt"
case $test in
boot | hang | concurrency | fill)
	# Small files with known content: root reads each once, runs a script and
	# an ELF binary. Small enough to make for every run.
	img=$run/disk.img stage=$run/disk-stage
	rm -rf "$stage" && mkdir -p "$stage/data" "$stage/bin"
	for i in $(seq 1 8); do
		for j in $(seq 1 "$((i * 64))"); do echo "ima-slim boot test file $i line $j"; done >"$stage/data/file$i"
	done
	printf '#!/bin/sh\necho hello from the ext4 disk\n' >"$stage/bin/hello.sh"
	chmod 0755 "$stage/bin/hello.sh"
	cp /bin/busybox "$stage/bin/busybox"
	for f in "$stage"/data/* "$stage"/bin/*; do
		echo "sha256:$(sha256sum "$f" | cut -d' ' -f1) /mnt${f#"$stage"}" >>"$run/expected-measurements.txt"
	done
	mkfs "$img" "$stage" $(( $(find "$stage" | wc -l) + 256 )) $(( $(du -sm "$stage" | cut -f1) + 32 ))
	rm -rf "$stage"
	;;
stress)
	# An empty ext4 with room to spare: the stress makes its own files.
	img=$run/disk.img
	mkfs "$img" "" 16384 512
	;;
slab)
	# N empty files in one folder, only stat'ed by the guest: in-core inodes
	# that no policy rule measures. Cached per N: making it takes a while.
	n=${SLAB_FILES:-100000}
	img=$BUILD/guest/disks/slab-$n.img
	mkdir -p "$(dirname "$img")"
	exec {lockfd}>"$img.lock"
	flock "$lockfd"	# another run may be making the same disk
	if [ ! -f "$img" ]; then
		stage=$BUILD/guest/disks/slab-$n.stage
		say "mkdisk: $n files for the slab test"
		# 1000 files a folder: mkfs.ext4 -d slows down quadratically
		# with the size of one directory.
		rm -rf "$stage" && mkdir -p "$stage/many"
		(cd "$stage/many" && seq -f 'd%03g' 0 $(( (n - 1) / 1000 )) | xargs mkdir &&
			seq 0 $((n - 1)) | awk '{printf "d%03d/f%06d\n", int($1 / 1000), $1}' | xargs touch)
		mkfs "$img.tmp" "$stage" $((n + n / 1000 + 1024)) $(( n / 2048 + 64 ))
		mv "$img.tmp" "$img"
		rm -rf "$stage"
	fi
	;;
*) die "mkdisk: unknown test '$test'" ;;
esac
# The stress test hands back its IMA log and a digest per content read.
out_mb=32
[ "$test" != stress ] || out_mb=512
out_mb=${RESULTS_MB:-$out_mb}
mkfs "$run/out.img" "" 1024 "$out_mb"
echo "$img"
