#!/usr/bin/env bash
# Make the guest's disks with mkfs.ext4 (-d fills one from a folder: no root,
# no loop mounts):
#   the test disk (vda, read by the guest; attached with snapshot=on, so the
#   guest never changes it and it can be cached and shared between runs),
#   the results disk RUN_DIR/out.img (vdb, empty; the guest writes /out),
#   RUN_DIR/expected-measurements.txt: "sha256:<hex> <guest path>" for each
#   file that root reads or runs in the test.
# Usage: qemu/mkdisk.sh TEST RUN_DIR     Prints the test disk's path.
#   TEST: boot | hang | concurrency | fill | suite | evm | stress | report
#   RESULTS_MB: the results disk's size. suite: the disk also holds
#   /manifest, the sha256 of every file as the host computed it, for the
#   guest's cases to compare.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

if [ $# -ne 2 ] || [ "$1" = --help ]; then sed -n '2,13s/^# //p' "$0"; exit 0; fi
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
suite)
	# One folder per case of the in-guest suite (qemu/guest/suite.sh), so
	# that no case touches another's files. Every file has its own content.
	img=$run/disk.img stage=$run/disk-stage
	rm -rf "$stage" && mkdir -p "$stage"/{data,uid,exec,mmap,change,same,viol,policy}
	line() { for j in $(seq 1 "$2"); do echo "ima-slim suite: $1, line $j"; done; }
	for i in 1 2 3; do line "data/file$i" $((i * 50)) >"$stage/data/file$i"; done
	line uid/other 10 >"$stage/uid/other"
	printf '#!/bin/sh\necho script run from the ext4 disk\n' >"$stage/exec/script.sh"
	cp /bin/busybox "$stage/exec/busybox"
	chmod 0755 "$stage/exec/script.sh" "$stage/exec/busybox"
	# Mapped, never run: any content will do.
	line mmap/lib.so 100 >"$stage/mmap/lib.so"
	line change/file 20 >"$stage/change/file"
	{ cat "$stage/change/file"; echo "changed by the guest"; } >"$stage/change.after"
	line same/file 20 >"$stage/same/file"
	for f in ow tomtou clean ow_once tomtou_once; do line "viol/$f" 5 >"$stage/viol/$f"; done
	for f in owner0 owner1234; do line "policy/$f" 5 >"$stage/policy/$f"; done
	chmod -R a+rX "$stage"
	(cd "$stage" && find . -type f ! -name change.after | LC_ALL=C sort | while read -r f; do
		echo "sha256:$(sha256sum "$f" | cut -d' ' -f1) /mnt/${f#./}"
	done) >"$stage/manifest"
	# The content the guest gives change/file, under a name of its own.
	echo "sha256:$(sha256sum "$stage/change.after" | cut -d' ' -f1) /mnt/change/file+changed" >>"$stage/manifest"
	rm "$stage/change.after"
	cp "$stage/manifest" "$run/manifest"
	mkfs "$img" "$stage" $(( $(find "$stage" | wc -l) + 256 )) $(( $(du -sm "$stage" | cut -f1) + 32 ))
	rm -rf "$stage"
	;;
evm)
	# The EVM suite (qemu/guest/evm.sh) labels its files itself, under its
	# key: a folder per case, and two files without labels.
	img=$run/disk.img stage=$run/disk-stage
	rm -rf "$stage" && mkdir -p "$stage"/{unlabelled,new,meta,tamper,ovl/lower,ovl/upper,ovl/work}
	echo "ima-slim evm: no labels, read" >"$stage/unlabelled/read"
	echo "ima-slim evm: no labels, labelled by root" >"$stage/unlabelled/setxattr"
	mkfs "$img" "$stage" 256 32
	rm -rf "$stage"
	;;
stress)
	# An empty ext4 with room to spare: the stress makes its own files.
	img=$run/disk.img
	mkfs "$img" "" 16384 512
	;;
report)
	# The report's disk (REPORT_FILES, default 200000; REPORT_MEASURED,
	# default 10000): /many/dNNN/fNNNNNN, REPORT_FILES empty files that
	# the guest only stats (a sweep over cumulative slices of whole folders)
	# or opens as a user no rule measures (mode 0666, for O_RDWR);
	# /meas/dNNN/mNNNNNN, REPORT_MEASURED files that root reads (measured
	# under tcb), each with its own content and so its own digest.
	# 1000 files a folder; cached per size, shared between runs.
	n=${REPORT_FILES:-200000} m=${REPORT_MEASURED:-10000}
	[[ $n =~ ^[1-9][0-9]*000$ ]] || die "mkdisk: REPORT_FILES=$n is not a positive multiple of 1000"
	[[ $m =~ ^[1-9][0-9]*$ ]] || die "mkdisk: REPORT_MEASURED=$m is not a positive number"
	img=$BUILD/guest/disks/report-$n-$m.img
	mkdir -p "$(dirname "$img")"
	exec {lockfd}>"$img.lock"
	flock "$lockfd"
	if [ ! -f "$img" ]; then
		stage=$BUILD/guest/disks/report-$n-$m.stage
		say "mkdisk: $n empty and $m measured files for the report (once; cached in $img)"
		rm -rf "$stage" && mkdir -p "$stage/many" "$stage/meas"
		(cd "$stage/many" && seq -f 'd%03g' 0 $(( (n - 1) / 1000 )) | xargs mkdir &&
			seq 0 $((n - 1)) | awk '{printf "d%03d/f%06d\n", int($1 / 1000), $1}' | xargs touch &&
			find . -type f -exec chmod 0666 {} +)
		(cd "$stage/meas" && seq -f 'd%03g' 0 $(( (m - 1) / 1000 )) | xargs mkdir &&
			seq 0 $((m - 1)) | awk '{f = sprintf("d%03d/m%06d", int($1 / 1000), $1)
				print "ima-slim report: measured file " $1 > f; close(f)}')
		mkfs "$img.tmp" "$stage" $((n + m + (n + m) / 1000 + 1024)) $(( n / 2048 + m / 200 + 64 ))
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
