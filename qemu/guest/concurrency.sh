# shellcheck shell=sh
# Guest test "concurrency": several shells open, read, write and close the
# same files on the ext4 disk at once, as root under the tcb policy, so
# IMA's measurement, violation and iint paths run concurrently. On the
# debug variant lockdep watches; the host fails the run on any splat.
# Sourced by /init with `set -e`; results in /out.

worker() {
	i=0
	while [ "$i" -lt 40 ]; do
		for f in /mnt/data/*; do
			cat "$f" >/dev/null			# measured read
			exec 3<"$f"; exec 3<&-			# open/close read-only
		done
		i=$((i + 1))
	done
}
writer() {	# opens files on a writable mount for write while others read
	i=0
	while [ "$i" -lt 40 ]; do
		for f in /out/c1 /out/c2; do
			echo "$i" >>"$f"
			cat "$f" >/dev/null
		done
		i=$((i + 1))
	done
}
worker & worker & writer & writer &
wait
echo 3 >/proc/sys/vm/drop_caches
cat /sys/kernel/security/ima/violations >/out/violations
dmesg >/out/dmesg
if grep -E 'WARNING:|BUG:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU' /out/dmesg; then
	echo "kernel splat during the concurrency test"
	exit 1
fi
case $(open_count_reports) in
0 | none) ;;
*)	echo "an inode was freed with open counts"
	exit 1 ;;
esac
echo "concurrency: no splat, open counts balanced"
