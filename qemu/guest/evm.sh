# shellcheck shell=sh
# Guest test "evm": EVM as a user checks it, with an HMAC key loaded and
# IMA appraising every file root owns (booted with ima_policy=appraise_tcb,
# enforcing), one KTAP case per behaviour on ttyS1 and /out/ktap.
# The test disk (qemu/mkdisk.sh evm) has a folder per case and two files
# the host made without labels; every labelled file is made here, after
# the key. The disk is attached with snapshot=on, so the cases that change
# it behind the kernel's back (debugfs on the unmounted disk) lose nothing.
# Sourced by /init with `set -e`; dmesg goes to /out.

# shellcheck source=qemu/guest/ktap.sh
. /tests/ktap.sh
evmfs=/sys/kernel/security/evm

# xattr_hex FILE NAME: the xattr's value in hex, nothing if there is none.
xattr_hex() {
	getfattr --absolute-names -e hex -n "$2" "$1" 2>/dev/null | sed -n "s/^$2=0x//p"
}
# The security.ima IMA writes for content CONTENT: an ima-ng digest (type
# 0x04), sha256 (hash algorithm 0x04), the digest.
ima_label_of() { echo "0404$(printf '%s' "$1" | sha256sum | cut -c1-64)"; }
# expect_refused FILE CAUSE: root may not read FILE, and the kernel's audit
# message gives CAUSE.
expect_refused() {
	if cat "$1" >/dev/null 2>/tmp/err; then fail "$1 was read: expected it refused ($2)"; fi
	grep -q 'Permission denied' /tmp/err || fail "reading $1: $(cat /tmp/err), expected Permission denied"
	dmesg | grep -q "cause=$2 .*name=\"$1\"" || fail "no $2 audit message for $1 in the kernel log"
}
expect_readable() { cat "$1" >/dev/null || fail "$1 is refused: expected it read ($2)"; }
# expect_labelled FILE CONTENT: IMA's hash of CONTENT and an EVM HMAC.
expect_labelled() {
	expect_eq "security.ima of $1" "$(xattr_hex "$1" security.ima)" "$(ima_label_of "$2")"
	# Type 0x02 (HMAC), then HMAC-SHA1: 21 bytes.
	evm=$(xattr_hex "$1" security.evm)
	case $evm in
	02????????????????????????????????????????) ;;
	*) fail "security.evm of $1 is '$evm', expected an HMAC (02 and 20 bytes)" ;;
	esac
}
# make_labelled FILE CONTENT: a new file; IMA labels it at its last close,
# EVM adds the HMAC of the labels.
make_labelled() {
	printf '%s' "$2" >"$1"
	expect_labelled "$1" "$2"
}
# offline DEBUGFS_REQUEST...: change the test disk behind the kernel's back:
# unmount it, edit it with debugfs, mount it again (every inode read anew).
# debugfs exits 0 when a request fails: anything it says beyond its
# version banner is taken for an error.
offline() {
	cd /
	umount /mnt || fail "cannot unmount /mnt (busy?)"
	for r in "$@"; do
		debugfs -w -R "$r" /dev/vda >/tmp/debugfs.log 2>&1 || fail "debugfs -R '$r' failed: $(cat /tmp/debugfs.log)"
		! grep -v '^debugfs [0-9]' /tmp/debugfs.log | grep -q . || fail "debugfs -R '$r': $(cat /tmp/debugfs.log)"
	done
	mount -t ext4 /dev/vda /mnt || fail "cannot mount /mnt again"
}

# The host's files are the host user's: IMA appraises only what root owns.
chown -R 0:0 /mnt
# A dozen refusals, each an audit message the cases look for: printk's
# rate limit (10 in 5 s) must not drop one.
echo 0 >/proc/sys/kernel/printk_ratelimit || true

# Before the key: a regular file made with mknod(2), which EVM marks new.
imatool mkreg /mnt/new/before-key || echo "cannot make /mnt/new/before-key"

# The key comes before ktap_run makes /out/ktap: under appraise_tcb a file
# IMA labelled before EVM had a key has no HMAC, and is refused when opened
# once EVM has one. (/out/guest.log, which init holds open throughout, is
# labelled at its last close, after the key.) The first case checks how
# loading the key went.
cat "$evmfs" >/tmp/evm-before-key
load_evm_key 2>/tmp/key.log || echo "loading the key failed" >>/tmp/key.log

case_hmac_key_initialises_evm() {
	expect_eq "$evmfs before the key" "$(cat /tmp/evm-before-key)" 0
	! grep -q 'failed' /tmp/key.log || fail "keyctl or $evmfs: $(cat /tmp/key.log)"
	expect_eq "$evmfs after the key" "$(cat "$evmfs")" 1
}
case_unlabelled_file_refused() {
	expect_refused /mnt/unlabelled/read missing-hash
}
case_new_file_labelled() {
	make_labelled /mnt/new/file "made in the guest under the key"
	expect_readable /mnt/new/file "labelled at its last close"
}
case_mknod_file_from_before_key_is_new() {
	# A new file may get protected xattrs without an HMAC to check them
	# against, until its last writer closes; a file EVM did not see made
	# may not. mknod(2) marks a file new even with no key loaded.
	f=/mnt/new/before-key
	setfattr -n security.ima -v "0x$(ima_label_of "")" "$f" ||
		fail "root may not label $f, made new by mknod(2) before the key"
	expect_labelled "$f" ""
	expect_readable "$f" "labelled by root while new"
	g=/mnt/unlabelled/setxattr
	if setfattr -n security.ima -v "0x$(ima_label_of "")" "$g" 2>/tmp/err; then
		fail "root labelled $g, an unlabelled file EVM does not know as new"
	fi
	grep -q 'Operation not permitted' /tmp/err || fail "labelling $g: $(cat /tmp/err), expected EPERM"
}
case_metadata_change_updates_hmac() {
	f=/mnt/meta/file
	make_labelled "$f" "metadata changed by root"
	expect_readable "$f" "labelled"
	before=$(xattr_hex "$f" security.evm)
	chmod 0600 "$f"
	after=$(xattr_hex "$f" security.evm)
	[ "$after" != "$before" ] || fail "chmod left security.evm as it was: $after"
	expect_labelled "$f" "metadata changed by root"
	expect_readable "$f" "chmod through the kernel"
}
case_hmac_cannot_be_written() {
	f=/mnt/meta/forged
	make_labelled "$f" "an HMAC written by hand"
	evm=$(xattr_hex "$f" security.evm)
	if setfattr -n security.evm -v "0x02$(printf '%040d' 0)" "$f" 2>/tmp/err; then
		fail "root wrote an HMAC into security.evm"
	fi
	grep -q 'Operation not permitted' /tmp/err || fail "writing security.evm: $(cat /tmp/err), expected EPERM"
	expect_eq "security.evm of $f after the refused write" "$(xattr_hex "$f" security.evm)" "$evm"
	expect_readable "$f" "its own HMAC"
}
case_labels_verified_after_remount() {
	make_labelled /mnt/tamper/control "read again from the disk"
	offline
	expect_readable /mnt/tamper/control "verified from the disk"
}
# offline_copy_refused NAME XATTR: another labelled file's valid XATTR
# copied over a labelled file's own on the unmounted disk: refused.
offline_copy_refused() {
	make_labelled "/mnt/tamper/$1" "$2 replaced offline"
	make_labelled "/mnt/tamper/$1-donor" "a valid $2 of another file"
	donor=$(xattr_hex "/mnt/tamper/$1-donor" "$2")
	rm -f /tmp/value
	offline "ea_get -f /tmp/value /tamper/$1-donor $2" "ea_set -f /tmp/value /tamper/$1 $2"
	expect_eq "$2 of /mnt/tamper/$1 after the offline copy" "$(xattr_hex "/mnt/tamper/$1" "$2")" "$donor"
	expect_refused "/mnt/tamper/$1" invalid-HMAC
}
case_offline_ima_change_refused() { offline_copy_refused ima security.ima; }
case_offline_evm_change_refused() { offline_copy_refused evm security.evm; }
case_offline_mode_change_refused() {
	make_labelled /mnt/tamper/mode "mode changed offline"
	offline "sif /tamper/mode mode 0100666"
	expect_eq "mode of /mnt/tamper/mode" "$(stat -c %a /mnt/tamper/mode)" 666
	expect_refused /mnt/tamper/mode invalid-HMAC
}
case_overlay_lower_change_reverified() {
	# With only an HMAC key EVM does not check overlayfs files (it cannot
	# compute their HMAC); IMA appraises them, and must appraise again
	# when the lower file's metadata change.
	d=/mnt/ovl
	make_labelled "$d/lower/file" "read through overlayfs"
	mkdir -p /tmp/ovl
	mount -t overlay overlay -o "lowerdir=$d/lower,upperdir=$d/upper,workdir=$d/work" /tmp/ovl ||
		fail "cannot mount overlayfs over $d/lower"
	# Not in an `||` list: there, `set -e` would be off in the subshell.
	set +e
	(
		set -e
		expect_readable /tmp/ovl/file "the lower file's labels"
		# Through the kernel: EVM updates the lower file's HMAC; the
		# label is valid, the digest is another content's.
		setfattr -n security.ima -v "0x$(ima_label_of "other content")" "$d/lower/file" ||
			fail "root may not relabel the lower file $d/lower/file"
		expect_refused /tmp/ovl/file invalid-hash
	)
	rc=$?
	set -e
	umount /tmp/ovl
	[ "$rc" = 0 ] || exit "$rc"
}

cases="hmac_key_initialises_evm unlabelled_file_refused new_file_labelled
mknod_file_from_before_key_is_new metadata_change_updates_hmac hmac_cannot_be_written
labels_verified_after_remount offline_ima_change_refused offline_evm_change_refused
offline_mode_change_refused overlay_lower_change_reverified no_kernel_warning"

ktap_run evm_guest "$cases"

dmesg >/out/dmesg
