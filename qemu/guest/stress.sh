# shellcheck shell=sh
# Guest test "stress": /bin/stress (qemu/guest/src/stress.c) hammers IMA
# from many threads on the ext4 disk for ima_slim.stress_seconds, then,
# if ima_slim.failslab_seconds is set and the kernel has failslab, again
# with every allocation from ima_iint_cache failing at random. The guest
# only collects: the host (scripts/stress.sh) judges the console, the
# IMA log, the recorded contents and the counters. Sourced by /init with
# `set -e`; results in /out. Nothing here reads a file on ext4 as root
# after the stress: the stress's own copies live on the initramfs, which
# the tcb policy does not measure.

param() {	# param NAME DEFAULT: ima_slim.NAME=VALUE from the command line
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^ima_slim\.$1=//p" | tail -n 1)
	echo "${v:-$2}"
}
secs=$(param stress_seconds 60)
fail_secs=$(param failslab_seconds 0)
ima=/sys/kernel/security/ima
dbg=/sys/kernel/debug
# /sys/kernel/debug exists only in a kernel with debugfs.
[ ! -d "$dbg" ] || mount -t debugfs debugfs "$dbg" 2>/dev/null || true
kmsg() { echo "ima-slim: $*" >/dev/kmsg; echo "$*"; }

leak=$dbg/kmemleak
# Scan only when asked, and forget what boot left behind: only what the
# stress leaves counts. (kmemleak=off on the command line refuses writes.)
if [ -w "$leak" ] && echo scan=off 2>/dev/null >"$leak"; then
	echo scan >"$leak"
	echo clear >"$leak"
else
	leak=
fi

# run_stress NAME SECONDS: one stress phase on its own folder of ext4.
run_stress() {
	mkdir -p "/mnt/$1" "/tmp/$1"
	kmsg "stress phase $1: ${2}s on $(grep -c ^processor /proc/cpuinfo) CPU(s)"
	rc=0
	stress --dir "/mnt/$1" --record "/tmp/$1" --seconds "$2" >"/out/$1.counts" || rc=$?
	echo "$rc" >"/out/$1.status"	# the host judges it
	kmsg "stress phase $1: ended with status $rc"
	# The digests of what root read, hashed here, off the measured path.
	(cd "/tmp/$1" && find . -name '[0-9]*' | sed 's|^\./||' | xargs -r sha256sum) >"/out/$1.sha256"
	cp "/tmp/$1/index" "/out/$1.index"
	rm -rf "/tmp/$1"
}

run_stress stress "$secs"

knob=/sys/kernel/slab/ima_iint_cache/failslab fs=$dbg/failslab
if [ "$fail_secs" -gt 0 ]; then
	if [ -w "$knob" ] && [ -d "$fs" ]; then
		# Only ima_iint_cache fails, sleeping allocations too (iints are
		# GFP_NOFS), one in five at random, counted by "times".
		echo 1 >"$knob"
		echo Y >"$fs/cache-filter"
		echo N >"$fs/ignore-gfp-wait"
		echo 0 >"$fs/verbose"
		echo 1 >"$fs/interval"
		budget=1000000
		echo "$budget" >"$fs/times"
		echo 20 >"$fs/probability"
		run_stress failslab "$fail_secs"
		echo 0 >"$fs/probability"
		echo 0 >"$knob"
		echo $((budget - $(cat "$fs/times"))) >/out/failslab.injected
	else
		echo "no failslab in this kernel: phase skipped"
		echo skipped >/out/failslab.injected
	fi
fi

# Every inode of the test disk is freed now (the open-count check runs on
# each), then the disk comes back for /init to unmount.
umount /mnt
echo 3 >/proc/sys/vm/drop_caches
mount -t ext4 /dev/vda /mnt

if [ -n "$leak" ]; then
	kmsg "kmemleak scan"
	sleep 6	# kmemleak reports objects older than 5 s
	echo scan >"$leak"
	cat "$leak" >/out/kmemleak.txt
fi
cp "$ima/binary_runtime_measurements" "$ima/ascii_runtime_measurements" /out/
cat "$ima/violations" >/out/violations
# The free-time open-count check reports by a kernel message (no ABI).
open_count_reports >/out/open_count_reports
for bank in sha256 sha1; do
	[ -d "/sys/class/tpm/tpm0/pcr-$bank" ] || continue
	for i in 0 1 2 3 4 5 6 7 8 9 10; do
		printf 'PCR-%02d: %s\n' "$i" "$(cat "/sys/class/tpm/tpm0/pcr-$bank/$i")"
	done >"/out/pcrs-$bank.txt"
done
dmesg >/out/dmesg
echo "stress: collected"
