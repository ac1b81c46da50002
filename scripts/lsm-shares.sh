#!/usr/bin/env bash
# Each LSM's share of the inode security blob, read out of a kernel's
# vmlinux (built with debug info) by gdb, without booting it: for every
# DEFINE_LSM / DEFINE_EARLY_LSM entry, its name and the lbs_inode of its
# struct lsm_blob_sizes, the bytes it asks every inode's blob for. At boot
# the kernel gives the blob an rcu_head when any LSM asks for inode bytes,
# then each active LSM its share aligned to a pointer (security/lsm_init.c
# in 7.x, security/security.c in 6.12); the guest tells which LSMs are
# active (/sys/kernel/security/lsm) and what the blob came to
# (/sys/kernel/slab/lsm_inode_cache/object_size).
# Usage: scripts/lsm-shares.sh VMLINUX
#   Prints "rcu_head BYTES", "pointer BYTES", then "LSM BYTES" per LSM.
# Exit: 0 done, 2 no vmlinux, no gdb, or no debug info in it.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ] || [ $# -ne 1 ]; then sed -n '2,14s/^# //p' "$0"; [ $# -eq 1 ]; exit; fi
vmlinux=$1
[ -f "$vmlinux" ] || die "no such vmlinux: $vmlinux"
command -v gdb >/dev/null || die "gdb is not installed (make deps installs it)"
g() { gdb -batch -nx -ex 'set print pretty off' "$@" "$vmlinux" 2>&1; }
# 7.x names an LSM through its lsm_id; 6.12 has the name in lsm_info.
if g -ex 'ptype struct lsm_info' | grep -q 'struct lsm_id \*id;'; then
	name_of=.id-\>name
else
	name_of=.name
fi
# gdb numbers its answers "$1 = ...", "$2 = ...": keep the values.
value() { sed -n 's/^[$][0-9]* = \([0-9]*\)$/\1/p'; }
# rcu_head is a #define of callback_head (include/linux/types.h): gdb
# knows only the latter.
mapfile -t sizes < <(g -ex 'print sizeof(struct callback_head)' -ex 'print sizeof(void *)' | value)
[ ${#sizes[@]} -eq 2 ] ||
	die "$vmlinux: gdb cannot read struct sizes (built without CONFIG_DEBUG_INFO?)"
printf 'rcu_head %s\npointer %s\n' "${sizes[@]}"
for table in early_lsm_info lsm_info; do
	n=$(g -ex "print (int)(__end_$table - __start_$table)" | value)
	[ -n "$n" ] || die "$vmlinux: no __start_$table in its symbols"
	args=()
	for ((i = 0; i < n; i++)); do
		e="__start_${table}[$i]"
		args+=(-ex "printf \"%s %d\\n\", $e$name_of, $e.blobs ? $e.blobs->lbs_inode : 0")
	done
	[ ${#args[@]} -eq 0 ] || g "${args[@]}"
done
