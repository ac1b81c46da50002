# shellcheck shell=sh
# Guest test "boot": root reads and executes files on the ext4 disk, so the
# tcb policy measures them; then the measurement list and the PCRs go to
# /out for the host to verify. Sourced by /init with `set -e`.
# Nothing below the reads may be measured, or the log and the PCRs drift:
# busybox and this script live on the initramfs, which tcb does not measure.

for f in /mnt/data/*; do
	cat "$f" >/dev/null		# FILE_CHECK, MAY_READ, uid 0
done
/mnt/bin/hello.sh >/out/hello.out	# BPRM_CHECK of a script
/mnt/bin/busybox true			# BPRM_CHECK of an ELF binary

save_ima_state
