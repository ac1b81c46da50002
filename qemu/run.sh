#!/usr/bin/env bash
# Boot one variant's kernel in QEMU (TCG) with its own swtpm, run a guest test
# and verify what the guest hands back on its disk (not on the console).
# Usage: qemu/run.sh VARIANT [TEST] [--timeout SECONDS]
#   TEST defaults to "boot". Logs and results: build/runs/VARIANT-TEST/
#   (RUN_NAME=NAME: build/runs/NAME/ instead; QEMU_ARGS="...": extra
#   QEMU options, e.g. "-icount shift=0" for instruction-counted time)
#   GUEST_MEM (1G), GUEST_SMP (1), GUEST_CMDLINE (extra kernel arguments),
#   IMA_POLICY (tcb: ima_policy=tcb; none: no built-in policy, as a
#   distribution boots; appraise_tcb: ima_policy=appraise_tcb, enforcing;
#   the default is tcb, and appraise_tcb for TEST evm).
#   (console.log: ttyS0, the kernel's console; ktap.log: ttyS1, where guest
#   tests write KTAP, away from kernel messages).
# Exit: 0 pass, 1 test failure, 2 harness or infrastructure error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/common.sh"
. "$here/lib.sh"

usage() { sed -n '2,14s/^# //p' "$0"; }
timeout_s=${BOOT_TIMEOUT:-300}
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--timeout) timeout_s=$2; shift ;;
	*) args+=("$1") ;;
	esac
	shift
done
[ ${#args[@]} -ge 1 ] || { usage >&2; exit 2; }
variant=${args[0]} test=${args[1]:-boot}
kernel=$(variant_dir "$variant")/bzImage
run=$BUILD/runs/${RUN_NAME:-$variant-$test}
for tool in qemu-system-x86_64 swtpm mkfs.ext4 debugfs; do
	command -v "$tool" >/dev/null || die "$tool is missing: run 'make deps'"
done
[ -f "$kernel" ] || die "$kernel does not exist: run 'make build V=$variant' first"

rm -rf "$run"
mkdir -p "$run/tpm"
# One initramfs per run: runs of different variants may go on at once.
initrd=$run/initramfs.cpio.gz
"$here/mkinitramfs.sh" "$initrd"
disk=$("$here/mkdisk.sh" "$test" "$run")

# One swtpm per run, on its own socket, state under the run folder; only
# this PID is ever killed.
swtpm_pid=
# shellcheck disable=SC2317  # called by the trap
cleanup() { [ -z "$swtpm_pid" ] || kill "$swtpm_pid" 2>/dev/null || true; }
trap cleanup EXIT
sock=$run/swtpm.sock
swtpm socket --tpm2 --tpmstate dir="$run/tpm" --ctrl type=unixio,path="$sock" \
	--flags not-need-init,startup-clear --log file="$run/swtpm.log",level=1 &
swtpm_pid=$!
for _ in $(seq 50); do
	[ -S "$sock" ] && break
	kill -0 "$swtpm_pid" 2>/dev/null || break
	sleep 0.2
done
if ! [ -S "$sock" ] || ! kill -0 "$swtpm_pid" 2>/dev/null; then
	tail -n 5 "$run/swtpm.log" >&2 2>/dev/null || true
	die "$variant: swtpm did not start (socket $sock; log $run/swtpm.log)"
fi

default_policy=tcb
[ "$test" != evm ] || default_policy=appraise_tcb
case ${IMA_POLICY:-$default_policy} in
tcb) policy=ima_policy=tcb ;;
appraise_tcb) policy=ima_policy=appraise_tcb ;;
none) policy= ;;
*) die "IMA_POLICY='$IMA_POLICY': give tcb, appraise_tcb or none" ;;
esac
cmdline="console=ttyS0 panic=-1 $policy slab_nomerge ima_slim.test=$test"
# Under TCG, a kernel with KASAN, kmemleak and lockdep takes longer than
# ACPI's 30 s loop limit to run QEMU's PCI routing method (_PRT): the disks
# then get no interrupt and the guest hangs. Route PCI interrupts without ACPI.
# KCSAN's instrumented kernel is as slow there.
case " $(variant_field "$variant" 3) " in *" debug "* | *" kcsan "*) cmdline+=" pci=noacpi" ;; esac
# Tell the guest whether this kernel checks the open counts when it frees an
# inode (the series' patch 8, the baseline's destroy check): its report is
# then a kernel message the guest can look for. The check has no ABI, so the
# host reads the message's format string out of the kernel image it built.
if grep -qaF 'freed with open counts' "$(dirname "$kernel")/obj/vmlinux" 2>/dev/null; then
	cmdline+=" ima_slim.free_check=1"
fi
cmdline+=" ${GUEST_CMDLINE:-}"
say "$variant: booting under QEMU (test $test, timeout ${timeout_s}s, console $run/console.log)"
t0=$(date +%s)
read -ra qemu_args <<<"${QEMU_ARGS:-}"
qemu-system-x86_64 "${qemu_args[@]}" -machine pc -m "${GUEST_MEM:-1G}" -smp "${GUEST_SMP:-1}" \
	-nodefaults -display none -no-reboot -monitor none \
	-serial "file:$run/console.log" -serial "file:$run/ktap.log" \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-drive "file=$disk,format=raw,if=virtio,snapshot=on" \
	-drive "file=$run/out.img,format=raw,if=virtio" \
	-chardev "socket,id=chrtpm,path=$sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0 >"$run/qemu.log" 2>&1 &
qemu_pid=$!

# Watch the guest: a deadline, progress, and a swtpm that dies under it.
# QEMU stops swtpm itself when it shuts down, so a swtpm that is gone is only
# an error if QEMU does not follow it within a few seconds.
console_tail() { echo "--- last lines of $run/console.log ---" >&2; tail -n 25 "$run/console.log" >&2 || true; }
stop_qemu() { kill "$qemu_pid" 2>/dev/null || true; wait "$qemu_pid" 2>/dev/null || true; }
swtpm_gone=
while kill -0 "$qemu_pid" 2>/dev/null; do
	secs=$(( $(date +%s) - t0 ))
	if [ "$secs" -ge "$timeout_s" ]; then
		stop_qemu; console_tail
		die "$variant: the guest did not finish within ${timeout_s}s"
	fi
	if ! kill -0 "$swtpm_pid" 2>/dev/null; then
		swtpm_gone=${swtpm_gone:-$secs}
		if [ $((secs - swtpm_gone)) -ge 3 ]; then
			stop_qemu; console_tail
			die "$variant: swtpm (pid $swtpm_pid) died during the run: the guest lost its TPM"
		fi
	fi
	if [ "$secs" -gt 0 ] && [ $((secs % 30)) -eq 0 ] && [ "$secs" != "${said:-}" ]; then
		say "$variant: guest running (${secs}s)"; said=$secs	# once, though we poll twice a second
	fi
	sleep 0.5
done
rc=0
wait "$qemu_pid" || rc=$?
secs=$(( $(date +%s) - t0 ))
echo "$secs" >"$run/boot-seconds"

# QEMU tells swtpm to shut down as it exits, and swtpm then exits with 0.
# Any other end (killed, crashed) means the guest may have lost its TPM.
for _ in $(seq 20); do kill -0 "$swtpm_pid" 2>/dev/null || break; sleep 0.25; done
if ! kill -0 "$swtpm_pid" 2>/dev/null; then
	swtpm_rc=0
	wait "$swtpm_pid" || swtpm_rc=$?
	swtpm_pid=
	if [ "$swtpm_rc" -ne 0 ]; then
		console_tail
		tail -n 5 "$run/swtpm.log" >&2 2>/dev/null || true
		die "$variant: swtpm ended with status $swtpm_rc during the run (killed or crashed): the guest lost its TPM"
	fi
fi

status=$(console_status "$run/console.log")
case $status in
"finished "*) ;;
panic) console_tail; die "$variant: the guest kernel panicked after ${secs}s" ;;
*)
	tail -n 5 "$run/qemu.log" >&2 || true
	console_tail
	if [ -n "$swtpm_gone" ] || ! kill -0 "$swtpm_pid" 2>/dev/null; then
		die "$variant: swtpm (pid $swtpm_pid) died during the run: the guest lost its TPM"
	fi
	die "$variant: QEMU exited ($rc) before the guest finished"
	;;
esac
say "$variant: guest finished in ${secs}s"

# The results come back on the disk: rdump needs no root and no loop mount.
mkdir -p "$run/out"
debugfs -R "rdump / $run/out" "$run/out.img" >"$run/debugfs.log" 2>&1 ||
	die "$variant: cannot read the results off $run/out.img (see $run/debugfs.log)"
# A guest that fills its results disk loses results (or even its status):
# name that rather than the missing file.
disk_full() {
	local blocks free
	read -r blocks free < <(dumpe2fs -h "$run/out.img" 2>/dev/null |
		awk -F': *' '/^Block count/ {b=$2} /^Free blocks/ {f=$2} END {print b+0, f+0}')
	[ "$blocks" -gt 0 ] && [ $((free * 100 / blocks)) -lt 3 ] || return 1
	tail -n 5 "$run/out/guest.log" >&2 2>/dev/null || true
	die "$variant: the results disk $run/out.img is full ($free of $blocks blocks free): the guest could not write all its results"
}
[ -f "$run/out/status" ] || { disk_full || true; die "$variant: the guest left no status on its disk"; }
rc=0
if [ "$test" = suite ] || [ "$test" = evm ]; then
	# A suite's verdict is its KTAP, case by case, not the guest's status.
	"$here/suite.sh" "$run" "$test" || rc=$?
elif [ "$(cat "$run/out/status")" != 0 ]; then
	disk_full || true
	tail -n 20 "$run/out/guest.log" >&2
	echo "FAIL: $variant: the guest test '$test' failed (status $(cat "$run/out/status"))" >&2
	exit 1
fi
# The boot test's IMA log must verify; the report test hands back figures for
# the report, which checks them itself.
if [ "$test" = boot ]; then
	"$here/verify.sh" "$run/out" "$run/expected-measurements.txt" 2>&1 | tee "$run/verify.log" || rc=${PIPESTATUS[0]}
fi
jq -n --arg variant "$variant" --arg test "$test" --argjson boot_seconds "$secs" \
	--arg release "$(sed -n 's/^ima-slim: guest up, kernel \([^ ,]*\).*/\1/p' "$run/console.log")" \
	--argjson measurements "$( (grep -c "" "$run/out/ascii_runtime_measurements" 2>/dev/null) || echo 0)" \
	--arg verdict "$([ "$rc" -eq 0 ] && echo pass || echo fail)" \
	'{variant: $variant, test: $test, release: $release, boot_seconds: $boot_seconds,
	  measurements: $measurements, verdict: $verdict}' >"$run/result.json"
exit "$rc"
