#!/usr/bin/env bash
# The memory and cost report: build what is missing, boot each variant twice
# (the whole guest test "report" on wall-clock time, then its hot path and
# the eviction of unmeasured inodes on instruction-counted time, QEMU
# -icount), and write from those runs
# build/report/report.md, results.json and the PNG plots. A variant with two
# CPUs (configs/smp.config) is booted instead with -smp 2 under
# multi-threaded TCG, REPORT_SMP_ROUNDS times, taking turns with the other
# two-CPU variants: one openbench thread per CPU on the measured files. A
# variant with a distribution's LSM stack (configs/distro.config) is booted
# three times for memory only: with no IMA policy, as a distribution boots,
# with ima_policy=tcb, and with EVM given an HMAC key under
# ima_policy=appraise_tcb (fix mode: the files root reads are labelled, then
# read again from the disk and verified), and once more with the key on
# instruction-counted time (open+close of labelled files, creating files);
# each LSM's share of the inode blob is read out of its vmlinux
# (scripts/lsm-shares.sh). A variant with Landlock (configs/landlock.config),
# whose file blob IMA's share rides on, is booted once, instruction-counted:
# the open+close cases only.
# Usage: scripts/report.sh [--smoke] [--out DIR] [VARIANT...]
#   VARIANT: default noima vanilla baseline fixed (noima and vanilla are
#   always run: they are the references).
#   --smoke  a reduced run for `make test` (N = 5000,20000; 1000 measured
#            files; 3 repeats) into build/report-smoke, then its check
#   --out    where to write (default build/report, or build/report-smoke)
# Sizes (environment): REPORT_SWEEP=10000,50000,100000,200000 (multiples of
#   1000, growing, at least two), REPORT_MEASURED=10000, REPORT_HOT=10000 (files per timed
#   pass), REPORT_REPEATS=7 (wall clock), REPORT_ICOUNT_REPEATS=3,
#   REPORT_PASSES=3 (passes per repeat; a repeat counts its fastest),
#   REPORT_CREATED=500 (files created per pass with EVM's key),
#   REPORT_SMP_ROUNDS=3 (two-CPU boots per variant, taking turns; they share
#   the repeats), GUEST_MEM=2G. Exit: 0 made and consistent, 1 inconsistent,
#   2 broken.
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage() { sed -n '2,34s/^# //p' "$0"; }
smoke='' out=''
variants=()
while [ $# -gt 0 ]; do
	case $1 in
	--help) usage; exit 0 ;;
	--smoke) smoke=1 ;;
	--out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) variant_field "$1" 2 >/dev/null; variants+=("$1") ;;
	esac
	shift
done
if [ -n "$smoke" ]; then
	sweep=${REPORT_SWEEP:-5000,20000} measured=${REPORT_MEASURED:-1000}
	hot=${REPORT_HOT:-2000} repeats=${REPORT_REPEATS:-3} icount_repeats=${REPORT_ICOUNT_REPEATS:-2}
	passes=${REPORT_PASSES:-2} smp_rounds=${REPORT_SMP_ROUNDS:-1} created=${REPORT_CREATED:-200}
	out=${out:-$BUILD/report-smoke} name=report-smoke
else
	sweep=${REPORT_SWEEP:-10000,50000,100000,200000} measured=${REPORT_MEASURED:-10000}
	hot=${REPORT_HOT:-10000} repeats=${REPORT_REPEATS:-7} icount_repeats=${REPORT_ICOUNT_REPEATS:-3}
	passes=${REPORT_PASSES:-3} smp_rounds=${REPORT_SMP_ROUNDS:-3} created=${REPORT_CREATED:-500}
	out=${out:-$BUILD/report} name=report
fi
export GUEST_MEM=${GUEST_MEM:-2G}

# Bad sizes are refused here, before anything is built or booted.
[[ $sweep =~ ^[1-9][0-9]*000(,[1-9][0-9]*000)*$ ]] ||
	die "REPORT_SWEEP='$sweep': give growing multiples of 1000, comma-separated (e.g. 10000,50000)"
prev=0
for n in ${sweep//,/ }; do
	[ "$n" -gt "$prev" ] || die "REPORT_SWEEP='$sweep': each size must be larger than the one before"
	prev=$n
done
max_n=$prev
# Overhead against N is a least-squares line: one size gives no slope.
[[ $sweep == *,* ]] || die "REPORT_SWEEP='$sweep': give at least two sizes, the report fits a line through them"
for pair in "REPORT_MEASURED=$measured" "REPORT_HOT=$hot" "REPORT_REPEATS=$repeats" \
	"REPORT_ICOUNT_REPEATS=$icount_repeats" "REPORT_PASSES=$passes" "REPORT_SMP_ROUNDS=$smp_rounds" \
	"REPORT_CREATED=$created"; do
	[[ ${pair#*=} =~ ^[1-9][0-9]*$ ]] || die "$pair is not a positive whole number"
done
if ! [[ $hot =~ 000$ ]] || [ "$hot" -gt "$max_n" ]; then
	die "REPORT_HOT=$hot must be a multiple of 1000 and at most the largest N ($max_n)"
fi
[[ $GUEST_MEM =~ ^[1-9][0-9]*[MG]$ ]] || die "GUEST_MEM='$GUEST_MEM': give e.g. 2G or 1536M"

# The references first; then the rest in the order given.
[ ${#variants[@]} -gt 0 ] || variants=(noima vanilla baseline fixed)
ordered=(noima vanilla)
for v in "${variants[@]}"; do
	case " ${ordered[*]} " in *" $v "*) ;; *) ordered+=("$v") ;; esac
done
variants=("${ordered[@]}")

# Everything is written to OUT.partial and moves to OUT only once the runs
# are done: a failed run leaves the last report in place.
final=$out out=$out.partial
raw=$out/raw
rm -rf "$out"
mkdir -p "$raw"
started=$(date -u +%FT%TZ)
say "report: variants ${variants[*]}; N = $sweep; $measured measured files; hot path $hot files x $passes passes x $repeats repeats (+ $icount_repeats instruction-counted); guest memory $GUEST_MEM; into $out"

for v in "${variants[@]}"; do
	say "report: $v: build"
	"$TOP/scripts/build.sh" "$v" build
done

# boot VARIANT CLOCK STEPS REPEATS: one guest run, its progress relayed from
# ttyS1 as it comes, its results copied under raw/VARIANT/CLOCK.
boot() {
	local v=$1 clock=$2 steps=$3 reps=$4 run rc=0 seen=0 lines pid t0 qemu_args=
	local run_name=$name-$v-$clock smp=1 policy=tcb extra=
	run=$BUILD/runs/$run_name
	case $clock in
	icount) qemu_args="-icount shift=0,sleep=off" ;;
	# Each vCPU on its own host thread: the two really run at once.
	smp-*) qemu_args="-accel tcg,thread=multi" smp=2 ;;
	policy-none) policy=none ;;
	# EVM with its key, IMA appraising what root owns: fix mode, so that
	# the first read labels the report's files (security.ima, and EVM's
	# HMAC of it) and the second is verified.
	policy-evm) policy=appraise_tcb extra="ima_appraise=fix ima_slim.evm_key=1" ;;
	# The guests with Landlock: only what a file blob changes, counted.
	blob-icount) qemu_args="-icount shift=0,sleep=off" ;;
	evm-icount) policy=appraise_tcb qemu_args="-icount shift=0,sleep=off"
		extra="ima_appraise=fix ima_slim.evm_key=1 ima_slim.created=$created" ;;
	esac
	t0=$(date -u +%FT%TZ)
	say "report: $v: boot ($clock clock; steps $steps)"
	rm -f "$run/ktap.log"	# the last run's progress is not this one's
	RUN_NAME=$run_name QEMU_ARGS=$qemu_args GUEST_SMP=$smp IMA_POLICY=$policy REPORT_FILES=$max_n REPORT_MEASURED=$measured \
		GUEST_CMDLINE="ima_slim.steps=$steps ima_slim.sweep=$sweep ima_slim.repeats=$reps ima_slim.passes=$passes ima_slim.hot=$hot $extra ${GUEST_CMDLINE:-}" \
		"$TOP/qemu/run.sh" "$v" report --timeout "${REPORT_TIMEOUT:-1800}" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ -f "$run/ktap.log" ]; then
			lines=$(grep -c '' "$run/ktap.log" || true)
			if [ "$lines" -gt "$seen" ]; then
				sed -n "$((seen + 1)),${lines}p" "$run/ktap.log" | sed -n 's/^# report: //p' |
					while IFS= read -r l; do say "report: $v ($clock): $l"; done
				seen=$lines
			fi
		fi
		sleep 1
	done
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { echo "error: report: $v: the $clock-clock boot failed (exit $rc; see $run/)" >&2; exit 2; }
	mkdir -p "$raw/$v"
	cp -r "$run/out" "$raw/$v/$clock"
	jq -n --arg started "$t0" --arg finished "$(date -u +%FT%TZ)" --arg qemu_args "$qemu_args" \
		--argjson boot_seconds "$(cat "$run/boot-seconds")" --arg run "$run" \
		'{started: $started, finished: $finished, boot_seconds: $boot_seconds,
		  qemu_args: $qemu_args, run_dir: $run}' >"$raw/$v/$clock/boot.json"
}

smp_variants=()
for v in "${variants[@]}"; do
	d=$(variant_dir "$v")
	frags=" $(variant_field "$v" 3) "
	if [[ $frags == *" smp "* ]]; then
		smp_variants+=("$v")	# booted below, in rounds
	elif [[ $frags == *" distro "* ]]; then
		boot "$v" policy-none sweep,measured,sizes "$repeats"
		boot "$v" policy-tcb sweep,measured,sizes "$repeats"
		boot "$v" policy-evm sweep,measured,verify,sizes "$repeats"
		# What EVM's key costs an open and a creation, in instructions
		# (the reference has no EVM to give a key to).
		[[ $frags == *" noima "* ]] || boot "$v" evm-icount measured,evmcost "$icount_repeats"
		"$TOP/scripts/lsm-shares.sh" "$d/obj/vmlinux" >"$raw/$v/lsm-shares"
	elif [[ $frags == *" landlock "* ]]; then
		boot "$v" blob-icount measured,hot "$icount_repeats"
	else
		boot "$v" wall sweep,measured,hot,sizes "$repeats"
		boot "$v" icount measured,hot,evict "$icount_repeats"
	fi
done
# Two CPUs: the wall clock of a busy host drifts over minutes, so the
# variants take turns, one boot each per round, rather than one after the
# other; each boot runs an equal share of the repeats.
for r in $(seq 1 "$smp_rounds"); do
	for v in ${smp_variants[@]+"${smp_variants[@]}"}; do
		boot "$v" "smp-$r" measured,mt "$(( (repeats + smp_rounds - 1) / smp_rounds ))"
	done
done
for v in "${variants[@]}"; do
	d=$(variant_dir "$v")
	jq -n --arg variant "$v" --arg release "$(cat "$d/obj/include/config/kernel.release")" \
		--arg config_sha256 "$(sha256sum "$d/obj/.config" | cut -d' ' -f1)" \
		--arg ima "$(grep -q '^CONFIG_IMA=y' "$d/obj/.config" && echo y || echo n)" \
		--arg lock_stat "$(grep -q '^CONFIG_LOCK_STAT=y' "$d/obj/.config" && echo y || echo n)" \
		--arg head "$(git -C "$d/src" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
		'{variant: $variant, release: $release, config_sha256: $config_sha256, ima: $ima,
		  lock_stat: $lock_stat, head: $head}' \
		>"$raw/$v/variant.json"
done

say "report: analysing"
jq -n --arg started "$started" --arg finished "$(date -u +%FT%TZ)" --arg sweep "$sweep" \
	--argjson measured "$measured" --argjson hot "$hot" --argjson repeats "$repeats" \
	--argjson icount_repeats "$icount_repeats" --argjson passes "$passes" --argjson smp_rounds "$smp_rounds" --arg mem "$GUEST_MEM" --arg tree "$(tree_id)" \
	--argjson created "$created" \
	--argjson smoke "$([ -n "$smoke" ] && echo true || echo false)" --arg variants "${variants[*]}" \
	'{started: $started, finished: $finished, kernel_tree: $tree, smoke: $smoke,
	  variants: ($variants | split(" ")), sweep: ($sweep | split(",") | map(tonumber)),
	  measured_files: $measured, hot_files: $hot, repeats: $repeats,
	  icount_repeats: $icount_repeats, passes: $passes, smp_rounds: $smp_rounds, guest_mem: $mem,
	  created_files: $created}' >"$raw/parameters.json"
/usr/bin/python3 "$TOP/scripts/report.py" collect "$out"
/usr/bin/python3 "$TOP/scripts/report.py" render "$out"
rm -rf "$final"
mv "$out" "$final"
rc=0
/usr/bin/python3 "$TOP/scripts/report.py" check "$final" || rc=$?
say "report: $final/report.md, results.json and the plots $final/*.png"
exit "$rc"
