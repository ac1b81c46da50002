# shellcheck shell=sh
# Guest test "slab": bring the N files of /mnt/many into core without opening
# them (ls -lR lstat()s each one), so no policy rule measures anything, and
# record /proc/slabinfo and the in-core inode count before and after.
# Sourced by /init with `set -e`; results in /out.

sync
echo 3 >/proc/sys/vm/drop_caches	# start from a quiet slab
sleep 1
cat /proc/sys/fs/inode-nr >/out/inode-nr-before
cat /proc/slabinfo >/out/slabinfo-before
ls -lR /mnt/many >/dev/null
cat /proc/slabinfo >/out/slabinfo-after
cat /proc/sys/fs/inode-nr >/out/inode-nr-after
find /mnt/many -type f | wc -l >/out/files
cat /proc/meminfo >/out/meminfo-after
cp /sys/kernel/security/ima/ascii_runtime_measurements /out/ 2>/dev/null || true
