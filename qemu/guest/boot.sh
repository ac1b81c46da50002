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

ima=/sys/kernel/security/ima
cp "$ima/binary_runtime_measurements" /out/
cp "$ima/ascii_runtime_measurements" /out/
cat "$ima/violations" >/out/violations
# evmctl's PCR file format: one "PCR-NN: <hex>" line per PCR, in order.
for bank in sha256 sha1; do
	[ -d "/sys/class/tpm/tpm0/pcr-$bank" ] || continue
	for i in 0 1 2 3 4 5 6 7 8 9 10; do
		printf 'PCR-%02d: %s\n' "$i" "$(cat "/sys/class/tpm/tpm0/pcr-$bank/$i")"
	done >"/out/pcrs-$bank.txt"
done
ls /sys/class/tpm >/out/tpm-devices
