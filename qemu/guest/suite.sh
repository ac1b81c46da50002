# shellcheck shell=sh
# Guest test "suite": IMA as a user checks it, one KTAP case per behaviour,
# written to ttyS1 (its own channel: kernel messages go to ttyS0) and to
# /out/ktap. The host wraps it with its own checks of the log (qemu/verify.sh
# --ktap) and parses the whole with kunit.py parse.
# Every case has its own files on the test disk (qemu/mkdisk.sh suite), whose
# sha256 the host computed into /mnt/manifest. Cases run in this order: the
# custom policy replaces tcb, so it comes last but for the check at rest.
# Sourced by /init with `set -e`; the log, PCRs and dmesg go to /out.

# shellcheck source=qemu/guest/ktap.sh
. /tests/ktap.sh
ima=/sys/kernel/security/ima
log=$ima/ascii_runtime_measurements
# The sha256 the host computed for a file, as "sha256:<hex>".
expected() {
	d=$(awk -v p="$1" '$2 == p {print $1}' /mnt/manifest)
	[ -n "$d" ] || fail "$1 is not in the manifest"
	echo "$d"
}
# entries PATH [DIGEST]: how many log entries name PATH (with DIGEST).
entries() {
	awk -v p="$1" -v d="${2:-}" '$5 == p && (d == "" || $4 == d) {n++} END {print n + 0}' "$log"
}
# Violation entries: the template hash is all zeros.
violation_entries() { awk -v p="$1" '$5 == p && $2 ~ /^0+$/ {n++} END {print n + 0}' "$log"; }
violations() { cat "$ima/violations"; }
# expect_one_violation FILE CAUSE COUNTER_BEFORE: one more violation, an
# all-zero entry for FILE, and the kernel's audit message with its cause.
expect_one_violation() {
	expect_eq "violations counter" "$(violations)" $(($3 + 1))
	expect_eq "violation entries for $1" "$(violation_entries "$1")" 1
	dmesg | grep -q "cause=$2 .*name=\"$1\"" ||
		fail "no $2 audit message for $1 in the kernel log"
}

# --- what gets measured (tcb) ---

case_root_read_measured_once() {
	for f in /mnt/data/file1 /mnt/data/file2 /mnt/data/file3; do
		d=$(expected "$f")
		cat "$f" >/dev/null
		cat "$f" >/dev/null
		expect_eq "entries for $f with $d" "$(entries "$f" "$d")" 1
		expect_eq "entries for $f" "$(entries "$f")" 1
	done
}
case_other_uid_read_not_measured() {
	f=/mnt/uid/other
	imatool asuid 1000 cat "$f" >/dev/null || fail "uid 1000 cannot read $f"
	expect_eq "entries for $f after a read by uid 1000" "$(entries "$f")" 0
	# The control: the same file, read by root, is measured.
	cat "$f" >/dev/null
	expect_eq "entries for $f after a read by root" "$(entries "$f" "$(expected "$f")")" 1
}
case_tmpfs_not_measured() {
	mkdir -p /tmp/suite-tmpfs
	mount -t tmpfs tmpfs /tmp/suite-tmpfs
	echo "a file on tmpfs" >/tmp/suite-tmpfs/file
	cat /tmp/suite-tmpfs/file >/dev/null
	n=$(entries /tmp/suite-tmpfs/file)
	umount /tmp/suite-tmpfs
	expect_eq "entries for a file root read on tmpfs" "$n" 0
}
case_bprm_check_script() {
	# Run by uid 1000, whose reads tcb does not measure: only BPRM_CHECK can.
	f=/mnt/exec/script.sh
	imatool asuid 1000 "$f" >/dev/null || fail "uid 1000 cannot run $f"
	expect_eq "entries for $f" "$(entries "$f" "$(expected "$f")")" 1
}
case_bprm_check_elf() {
	f=/mnt/exec/busybox
	imatool asuid 1000 "$f" true || fail "uid 1000 cannot run $f"
	expect_eq "entries for $f" "$(entries "$f" "$(expected "$f")")" 1
}
case_mmap_check() {
	f=/mnt/mmap/lib.so
	expect_eq "entries for $f before the mapping" "$(entries "$f")" 0
	imatool asuid 1000 imatool mmapx "$f" || fail "uid 1000 cannot map $f"
	expect_eq "entries for $f after mmap(PROT_EXEC)" "$(entries "$f" "$(expected "$f")")" 1
}

# --- re-measurement ---

case_remeasured_after_change() {
	f=/mnt/change/file
	cat "$f" >/dev/null
	expect_eq "entries for $f before the change" "$(entries "$f" "$(expected "$f")")" 1
	echo "changed by the guest" >>"$f"
	cat "$f" >/dev/null
	expect_eq "entries for $f with the new content" "$(entries "$f" "$(expected "$f+changed")")" 1
	expect_eq "entries for $f in all" "$(entries "$f")" 2
}
case_unchanged_not_remeasured() {
	f=/mnt/same/file
	for _ in 1 2 3; do cat "$f" >/dev/null; done
	exec 3<"$f"
	exec 3<&-
	expect_eq "entries for $f after four reads" "$(entries "$f")" 1
}

# --- violations ---

case_violation_open_writers() {
	f=/mnt/viol/ow
	v0=$(violations)
	exec 3>>"$f"		# a writer...
	cat "$f" >/dev/null	# ...while root reads it: the read may not see what is measured
	exec 3>&-
	expect_one_violation "$f" open_writers "$v0"
}
case_violation_tomtou() {
	f=/mnt/viol/tomtou
	v0=$(violations)
	exec 4<"$f"		# measured and open for read...
	exec 5>>"$f"		# ...then opened for write: time of measure, time of use
	exec 5>&-
	exec 4<&-
	expect_one_violation "$f" ToMToU "$v0"
}
# Since 6.15 (and in 6.12.y) IMA limits repeated records: open_writers is
# recorded once per inode until its last writer closes (IMA_EMITTED_OPENWRITERS),
# and a ToMToU once per measured read open (IMA_MAY_EMIT_TOMTOU is armed by
# the read, consumed by the first write open that follows).
case_violation_open_writers_once() {
	f=/mnt/viol/ow_once
	v0=$(violations)
	exec 3>>"$f"
	for _ in 1 2 3; do cat "$f" >/dev/null; done	# three reads, one writer
	expect_eq "violations counter after three reads under one writer" "$(violations)" $((v0 + 1))
	exec 3>&-		# the last writer closes: the next one counts again
	exec 3>>"$f"
	cat "$f" >/dev/null
	exec 3>&-
	expect_eq "violations counter after a second writer" "$(violations)" $((v0 + 2))
	expect_eq "violation entries for $f" "$(violation_entries "$f")" 2
}
case_violation_tomtou_once() {
	f=/mnt/viol/tomtou_once
	v0=$(violations)
	exec 4<"$f"		# a measured read arms ToMToU...
	exec 5>>"$f"		# ...the first write open records it...
	exec 5>&-
	exec 5>>"$f"		# ...and a second one, same reader, does not
	exec 5>&-
	expect_eq "violations counter after two write opens under one reader" "$(violations)" $((v0 + 1))
	exec 6<"$f"		# a new measured read arms it again
	exec 5>>"$f"
	exec 5>&-
	exec 6<&-
	exec 4<&-
	expect_eq "violations counter after a second reader" "$(violations)" $((v0 + 2))
	expect_eq "violation entries for $f" "$(violation_entries "$f")" 2
}
case_no_violation_after_close() {
	f=/mnt/viol/clean
	v0=$(violations)
	echo "appended" >>"$f"	# written and closed...
	cat "$f" >/dev/null	# ...then read: nothing is open for write
	exec 4<"$f"
	exec 4<&-
	echo "appended again" >>"$f"	# no reader is open either
	expect_eq "violations counter" "$(violations)" "$v0"
	expect_eq "violation entries for $f" "$(violation_entries "$f")" 0
}

# --- a custom policy (replaces tcb: keep it last) ---

case_custom_policy() {
	[ -w "$ima/policy" ] || skip "$ima/policy is not writable (CONFIG_IMA_WRITE_POLICY?)"
	chown 1234 /mnt/policy/owner1234
	rule="measure func=FILE_CHECK mask=MAY_READ uid=0 fowner=1234"
	echo "$rule" >"$ima/policy" || fail "the kernel refused the rule '$rule'"
	# Read back in the kernel's own words (ima_policy_show), one rule a line.
	cat "$ima/policy" >/tmp/policy
	grep -q 'func=FILE_CHECK.*fowner=1234' /tmp/policy ||
		fail "the policy does not read back with the new rule: $(cat /tmp/policy)"
	cat /mnt/policy/owner0 /mnt/policy/owner1234 >/dev/null
	expect_eq "entries for a file owned by uid 0" "$(entries /mnt/policy/owner0)" 0
	expect_eq "entries for a file owned by uid 1234" \
		"$(entries /mnt/policy/owner1234 "$(expected /mnt/policy/owner1234)")" 1
}

# --- at rest ---

case_counters_at_rest() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# Every inode freed so far was checked; a report is a kernel message.
	reports=$(open_count_reports)
	if [ "$reports" = none ]; then
		skip "this kernel has no free-time open-count check (the series adds it)"
	else
		expect_eq "reports of an inode freed with open counts" "$reports" 0
	fi
}

cases="root_read_measured_once other_uid_read_not_measured tmpfs_not_measured
bprm_check_script bprm_check_elf mmap_check remeasured_after_change
unchanged_not_remeasured violation_open_writers violation_tomtou
violation_open_writers_once violation_tomtou_once no_violation_after_close custom_policy counters_at_rest no_kernel_warning"

ktap_run ima_guest "$cases"

save_ima_state
dmesg >/out/dmesg
