# shellcheck shell=sh
# Guest test "report": everything the memory and cost report needs from one
# boot, in order:
#   1. sweep: stat cumulative slices of /mnt/many (N = the sizes in
#      ima_slim.sweep=, whole folders of 1000), /proc/slabinfo and
#      /proc/sys/fs/inode-nr after each slice; nothing is opened;
#   2. measured: root reads every file of /mnt/meas (tcb measures each),
#      slabinfo and the measurement count before and after;
#   2b. verify (only when asked for, on a boot that gave EVM its key with
#      ima_slim.evm_key=1 under appraise_tcb in fix mode, where step 2
#      labelled the files): the same files read again from the disk, their
#      inodes evicted first, so that EVM checks each one's HMAC;
#   3. hot path: openbench times open+close, ima_slim.repeats= times per
#      case, each time ima_slim.passes= passes back to back, cases
#      interleaved (unmeasured files as uid 1000, O_RDONLY and O_RDWR;
#      measured files as root, O_RDONLY and O_RDWR: each open finds the
#      iint again);
#   4. object sizes: /sys/kernel/slab/*/object_size of the caches that matter;
#   5. mt (only when asked for): measured files opened and closed by one
#      openbench thread per CPU, O_RDONLY and O_RDWR interleaved,
#      ima_slim.repeats= times; where the kernel has CONFIG_LOCK_STAT,
#      /proc/lock_stat is cleared before each run and saved after it.
#   6. evict (only when asked for): with every measured file held open (so
#      its inode and IMA state stay), the first ima_slim.hot= files of the
#      sweep are statted into core and evicted by drop_caches, timed,
#      ima_slim.passes= times per repeat, ima_slim.repeats= repeats
#      (openbench evict);
#   7. evmcost (only when asked for, on a boot with EVM's key, after step
#      2 labelled the measured files): open+close of those files as root
#      (appraised and verified already: each open finds IMA's and EVM's
#      state) and the creation of ima_slim.created= new files in
#      /mnt/created (each labelled at its close), ima_slim.repeats= times
#      each, ima_slim.passes= passes per repeat;
# ima_slim.steps= picks some of them (default: sweep,measured,hot,sizes);
# a hot-path-only boot still reads the measured files first (no sweep).
# Progress goes to ttyS1 ("# report: ..."), results to /out.
# Sourced by /init with `set -e`.

param() { sed -n "s/.*ima_slim\.$1=\([0-9a-z,]*\).*/\1/p" /proc/cmdline; }
steps=",$(param steps),"
[ "$steps" != ",," ] || steps=,sweep,measured,hot,sizes,
step() { case $steps in *,"$1",*) return 0 ;; esac; return 1; }
sweep=$(param sweep | tr ',' ' ')
repeats=$(param repeats)
hot=$(param hot)
passes=$(param passes)
passes=${passes:-1}
if [ -z "$sweep" ] || [ -z "$repeats" ] || [ -z "$hot" ]; then
	echo "report: ima_slim.sweep=, .repeats= and .hot= are all needed"
	exit 2
fi
progress() { echo "# report: $* (guest $(cut -d' ' -f1 /proc/uptime)s)" >/dev/ttyS1 || true; }
measurements() {
	if [ -f /sys/kernel/security/ima/ascii_runtime_measurements ]; then
		grep -c '' /sys/kernel/security/ima/ascii_runtime_measurements || true
	else
		echo 0
	fi
}
snap() {	# snap NAME: the memory state now
	cat /proc/slabinfo >"/out/snap/$1.slabinfo"
	cat /proc/sys/fs/inode-nr >"/out/snap/$1.inode-nr"
	# Fold the CPUs' pending counts into /proc/meminfo first (SMP kernels):
	# its Slab also counts the kmallocs too large for a cache, which
	# /proc/slabinfo does not list.
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null || :
	grep -E '^(MemFree|Slab|SReclaimable|SUnreclaim):' /proc/meminfo >"/out/snap/$1.meminfo"
	measurements >"/out/snap/$1.measurements"
}
# With EVM's key (the EVM boots): the measured files go to root first,
# as appraise_tcb appraises only what root owns and mkfs.ext4 -d kept the
# host user's ownership; then the key, before any file of /out is made
# (one IMA labelled before EVM had a key has no HMAC, and appraise_tcb
# refuses it once EVM has one). A kernel without EVM (the reference) does
# the same work with no key.
if [ "$(param evm_key)" = 1 ]; then
	chown -R 0:0 /mnt/meas
	if [ -e /sys/kernel/security/evm ]; then
		load_evm_key || { echo "report: EVM refused its key"; exit 2; }
	fi
fi
mkdir -p /out/snap /out/hot
cat /sys/kernel/security/evm >/out/evm 2>/dev/null || echo none >/out/evm
uname -r >/out/release
# The LSMs that hold a share of every inode's security blob: the active ones.
cat /sys/kernel/security/lsm >/out/lsm 2>/dev/null || : >/out/lsm
grep -o 'ima_policy=[a-z_|]*' /proc/cmdline >/out/ima-policy || echo none >/out/ima-policy
# The TPM's PCR banks: IMA keeps one digest per bank in every list entry.
for b in /sys/class/tpm/tpm0/pcr-*; do if [ -d "$b" ]; then echo "${b##*/pcr-}"; fi; done >/out/tpm-banks
echo "$sweep" >/out/sweep
echo "$repeats" >/out/repeats

# 1. The unmeasured sweep.
sync
echo 3 >/proc/sys/vm/drop_caches	# start from a quiet slab
sleep 1
snap sweep-0
done_dirs=0
step sweep || sweep=
for n in $sweep; do
	dirs=$((n / 1000))
	[ "$dirs" -gt "$done_dirs" ] || { echo "report: sweep sizes must grow ($n)"; exit 2; }
	[ -d "/mnt/many/$(printf 'd%03d' $((dirs - 1)))" ] ||
		{ echo "report: the disk holds fewer than $n files"; exit 2; }
	progress "sweep: stat up to N=$n"
	list=$(seq "$done_dirs" $((dirs - 1)) | while read -r i; do printf '/mnt/many/d%03d ' "$i"; done)
	# shellcheck disable=SC2086  # one argument per folder
	openbench stat $list >>/out/sweep-statted
	done_dirs=$dirs
	snap "sweep-$n"
done

# 2. Measured files: each read once by root, so tcb measures each.
meas_dirs=$(find /mnt/meas -mindepth 1 -maxdepth 1 -type d | sort)
progress "measured: root reads the files of /mnt/meas"
snap meas-before
# shellcheck disable=SC2086
openbench read $meas_dirs >/out/meas-read
snap meas-after

# 2b. The same files, each verified by EVM as it comes back from the disk.
#     First, how many of them the first read labelled with an HMAC.
if [ "$(param evm_key)" = 1 ]; then
	# shellcheck disable=SC2086
	getfattr -R -n security.evm $meas_dirs 2>/dev/null | grep -c '^security.evm=' >/out/evm-labelled || true
fi
if step verify; then
	progress "verify: root reads the files of /mnt/meas again, from the disk"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	snap verify-before
	# shellcheck disable=SC2086
	openbench read $meas_dirs >/out/verify-read
	snap verify-after
fi

step hot || repeats=0
# 3. The hot path. Unmeasured: the first files of the sweep, in core
#    already, opened as uid 1000 (no rule matches). Measured: the files
#    of step 2, opened by root; they stay measured, so each open only
#    looks the iint up.
many_dirs=$(seq 0 $(( (hot - 1) / 1000 )) | while read -r i; do printf '/mnt/many/d%03d ' "$i"; done)
r=1
while [ "$r" -le "$repeats" ]; do
	progress "hot path: repeat $r of $repeats"
	# shellcheck disable=SC2086
	{
		openbench time -u 1000 -n "$hot" -r "$passes" $many_dirs >>/out/hot/unmeasured-rdonly
		openbench time -u 1000 -w -n "$hot" -r "$passes" $many_dirs >>/out/hot/unmeasured-rdwr
		openbench time -n "$hot" -r "$passes" $meas_dirs >>/out/hot/measured-rdonly
		openbench time -w -n "$hot" -r "$passes" $meas_dirs >>/out/hot/measured-rdwr
	}
	r=$((r + 1))
done
snap end

# 5. Every CPU at once on the measured files (a boot with -smp N).
if step mt; then
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	echo "$cpus" >/out/cpus
	mkdir -p /out/mt
	r=1
	while [ "$r" -le "$(param repeats)" ]; do
		progress "$cpus threads: repeat $r of $(param repeats)"
		for mode in rdonly rdwr; do
			w=
			[ "$mode" = rdonly ] || w=-w
			if [ -e /proc/lock_stat ]; then echo 0 >/proc/lock_stat; fi
			# shellcheck disable=SC2086
			openbench time $w -j "$cpus" -n "$hot" -r "$passes" $meas_dirs >>"/out/mt/measured-$mode"
			if [ -e /proc/lock_stat ]; then cat /proc/lock_stat >"/out/mt/lock_stat-$mode-$r"; fi
		done
		r=$((r + 1))
	done
fi

# 6. What freeing unmeasured inodes costs while the measured ones keep
#    their IMA state.
if step evict; then
	keep=$(for d in $meas_dirs; do printf -- '-k %s ' "$d"; done)
	r=1
	while [ "$r" -le "$(param repeats)" ]; do
		progress "evict: $hot unmeasured inodes at a time, measured files held open: repeat $r of $(param repeats)"
		# shellcheck disable=SC2086
		openbench evict -n "$hot" -r "$passes" $keep $many_dirs >>/out/evict
		r=$((r + 1))
	done
fi

# 7. With EVM's key: existing files opened, new files made.
if step evmcost; then
	mkdir -p /out/evmcost /mnt/created
	r=1
	while [ "$r" -le "$(param repeats)" ]; do
		progress "evmcost: labelled files opened, $(param created) files created: repeat $r of $(param repeats)"
		# shellcheck disable=SC2086
		openbench time -n "$hot" -r "$passes" $meas_dirs >>/out/evmcost/existing-rdonly
		openbench create -n "$(param created)" -r "$passes" /mnt/created >>/out/evmcost/create
		r=$((r + 1))
	done
fi

# 4. Object sizes, from the kernel itself (no DEBUG_INFO, so no pahole).
step sizes || exit 0
for c in ima_iint_cache radix_tree_node lsm_inode_cache ext4_inode_cache dentry; do
	[ -d "/sys/kernel/slab/$c" ] || continue
	echo "$c $(cat "/sys/kernel/slab/$c/object_size") $(cat "/sys/kernel/slab/$c/slab_size")"
done >/out/object-sizes
progress "done"
