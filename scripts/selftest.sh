#!/usr/bin/env bash
# The harness's own tests: parsers against golden logs in qemu/test_data/,
# and bad input that must fail with a message naming the cause.
# Usage: scripts/selftest.sh list | NAME    (exit 0: the test passed)
set -euo pipefail
. "$(dirname "$0")/common.sh"
. "$TOP/qemu/lib.sh"

data=$TOP/qemu/test_data
tmp=$BUILD/selftest
mkdir -p "$tmp"

# expect_fail CODE PATTERN CMD...: CMD exits CODE and says PATTERN.
expect_fail() {
	local code=$1 pattern=$2 rc=0 out
	shift 2
	out=$("$@" 2>&1) || rc=$?
	printf '%s\n' "$out" | tail -n 8
	[ "$rc" -eq "$code" ] || { echo "expected exit $code, got $rc: $*"; return 1; }
	grep -qE -- "$pattern" <<<"$out" || { echo "expected a message matching '$pattern'"; return 1; }
}

# A scratch git tree that looks like a kernel of the given version.
fake_kernel() {
	local dir=$1 ver=$2
	rm -rf "$dir" && mkdir -p "$dir"
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = 1\n' "${ver%.*}" "${ver#*.}" >"$dir/Makefile"
	git -C "$dir" init -q && git -C "$dir" add Makefile && git -C "$dir" commit -q -m fake
}

t_lint() {	# every shell script of the project is shellcheck-clean
	(cd "$TOP" && shellcheck -x scripts/*.sh qemu/*.sh qemu/guest/*.sh kunit/qemu/* .ci/run &&
		shellcheck -s sh qemu/guest/init)
}
t_console_status() {	# the console parser tells a finished, a panicked and a hung guest apart
	[ "$(console_status "$data/console-finished.log")" = "finished 0" ] &&
	[ "$(console_status "$data/console-panic.log")" = panic ] &&
	[ "$(console_status "$data/console-hung.log")" = incomplete ]
}
t_evmctl_verdict() {	# evmctl is judged by its words: exit 0 with nothing compared is a failure
	[ "$(evmctl_verdict "$data/evmctl-matched.log")" = pass ] &&
	[ "$(evmctl_verdict "$data/evmctl-mismatch.log")" = fail ] &&
	[ "$(evmctl_verdict "$data/evmctl-no-pcrs.log")" = fail ]
}
t_verify_golden() {	# a real guest's log replays to its PCR 10 and lists the files read
	rm -rf "$tmp/golden" && cp -r "$data/boot-vanilla" "$tmp/golden"
	"$TOP/qemu/verify.sh" "$tmp/golden" "$tmp/golden/expected-measurements.txt"
}
t_verify_corrupted_log() {	# one flipped bit in a file digest breaks the PCR 10 replay
	rm -rf "$tmp/corrupt" && cp -r "$data/boot-vanilla" "$tmp/corrupt"
	local log=$tmp/corrupt/binary_runtime_measurements off byte
	# Five bytes from the end: inside the last record's file name, which is
	# template data that evmctl hashes again for the replay.
	off=$(( $(stat -c %s "$log") - 5 ))
	byte=$(od -An -tu1 -j "$off" -N1 "$log" | tr -d ' ')
	printf '%b' "\\x$(printf '%02x' $((byte ^ 1)))" | dd of="$log" bs=1 seek="$off" conv=notrunc status=none
	cmp -s "$log" "$data/boot-vanilla/binary_runtime_measurements" && { echo "the log did not change"; return 1; }
	expect_fail 1 'does not replay' "$TOP/qemu/verify.sh" "$tmp/corrupt"
}
t_verify_no_tpm() {	# no PCR values means no TPM: a failure, not a pass
	rm -rf "$tmp/notpm" && cp -r "$data/boot-vanilla" "$tmp/notpm"
	rm -f "$tmp/notpm"/pcrs-*.txt
	expect_fail 1 'saw no TPM' "$TOP/qemu/verify.sh" "$tmp/notpm"
}
t_verify_missing_file() {	# a file root read but the log lacks is a failure
	rm -rf "$tmp/missing" && cp -r "$data/boot-vanilla" "$tmp/missing"
	echo "sha256:$(printf '%064d' 0) /mnt/data/never-read" >>"$tmp/missing/expected-measurements.txt"
	expect_fail 1 'never-read .* measured 0 times' "$TOP/qemu/verify.sh" "$tmp/missing" "$tmp/missing/expected-measurements.txt"
}
t_suite_golden() {	# a real guest's KTAP and log, wrapped and parsed by kunit.py: every case passes
	rm -rf "$tmp/suite" && cp -r "$data/suite-vanilla" "$tmp/suite"
	"$TOP/qemu/suite.sh" "$tmp/suite" >/dev/null &&
	[ "$(jq '[.. | objects | select(has("test_cases")) | .test_cases[]] | length' "$tmp/suite/suite.json")" -ge 19 ]
}
t_suite_case_failed() {	# one case the guest reported as failed fails the suite
	rm -rf "$tmp/suite-fail" && cp -r "$data/suite-vanilla" "$tmp/suite-fail"
	sed -i 's/^    ok \([0-9]*\) violation_tomtou$/    # FAIL: planted\n    not ok \1 violation_tomtou/; s/^ok 1 ima_guest$/not ok 1 ima_guest/' \
		"$tmp/suite-fail/ktap.log"
	grep -q 'not ok [0-9]* violation_tomtou' "$tmp/suite-fail/ktap.log" || { echo "could not plant the failure"; return 1; }
	expect_fail 1 'FAILED.*violation_tomtou' "$TOP/qemu/suite.sh" "$tmp/suite-fail"
}
t_suite_guest_stopped() {	# a guest that stopped halfway leaves its suite short: a failure, not a pass
	rm -rf "$tmp/suite-short" && cp -r "$data/suite-vanilla" "$tmp/suite-short"
	head -n 8 "$data/suite-vanilla/ktap.log" >"$tmp/suite-short/ktap.log"
	expect_fail 1 'ima_guest' "$TOP/qemu/suite.sh" "$tmp/suite-short"
}
t_evm_golden() {	# a real guest's EVM suite, wrapped and parsed by kunit.py: every case passes
	rm -rf "$tmp/evm" && cp -r "$data/evm-vanilla" "$tmp/evm"
	"$TOP/qemu/suite.sh" "$tmp/evm" evm >/dev/null &&
	[ "$(jq '[.. | objects | select(has("test_cases")) | .test_cases[]] | length' "$tmp/evm/suite.json")" -eq 12 ]
}
t_evm_case_failed() {	# one EVM case the guest reported as failed fails the suite
	rm -rf "$tmp/evm-fail" && cp -r "$data/evm-vanilla" "$tmp/evm-fail"
	sed -i 's/^    ok \([0-9]*\) offline_evm_change_refused$/    # FAIL: planted\n    not ok \1 offline_evm_change_refused/; s/^ok 1 evm_guest$/not ok 1 evm_guest/' \
		"$tmp/evm-fail/ktap.log"
	grep -q 'not ok [0-9]* offline_evm_change_refused' "$tmp/evm-fail/ktap.log" || { echo "could not plant the failure"; return 1; }
	expect_fail 1 'FAILED.*offline_evm_change_refused' "$TOP/qemu/suite.sh" "$tmp/evm-fail" evm
}
t_kernel_src_dirty() {	# a dirty KERNEL_SRC is refused and left alone
	fake_kernel "$tmp/ksrc-dirty" "$KERNEL_SERIES"
	echo change >>"$tmp/ksrc-dirty/Makefile"
	expect_fail 2 'is dirty' env KERNEL_SRC="$tmp/ksrc-dirty" BUILD="$tmp/b" "$TOP/scripts/tree.sh"
	if git -C "$tmp/ksrc-dirty" diff --quiet; then echo "the user's change is gone"; return 1; fi
}
t_kernel_src_wrong_version() {	# a tree of another version than the selected kernel is refused
	fake_kernel "$tmp/ksrc-old" 6.6
	expect_fail 2 "is Linux 6.6, not $KERNEL_SERIES" env KERNEL_SRC="$tmp/ksrc-old" BUILD="$tmp/b" "$TOP/scripts/tree.sh"
	# The other series' kernel: refused, naming the KERNEL= that takes it.
	local other=6.12 want="KERNEL=6.12"
	[ "$KERNEL_ID" = mainline ] || { other=$(sed -n 's/^KERNEL_SERIES=//p' "$TOP/configs/kernel.pin"); want=KERNEL=mainline; }
	fake_kernel "$tmp/ksrc-other" "$other"
	expect_fail 2 "is Linux $other, not $KERNEL_SERIES.*use $want" \
		env KERNEL_SRC="$tmp/ksrc-other" BUILD="$tmp/b" "$TOP/scripts/tree.sh"
}
t_kernel_unknown() {	# a KERNEL= that names no pin is refused, listing the pins
	expect_fail 2 'KERNEL=6.13 names no pin: known are mainline .*6.12 \(stable/6.12' \
		env KERNEL=6.13 "$TOP/scripts/tree.sh"
}
# pin_copy NAME SED: a copy of the project whose mainline pin is edited by
# SED, with a build folder of its own; prints the copy's path.
pin_copy() {
	local copy=$tmp/$1
	rm -rf "$copy" && mkdir -p "$copy"
	cp -r "$TOP/scripts" "$TOP/configs" "$TOP/stable" "$copy/"
	sed -i -e "$2" "$copy/configs/kernel.pin"
	cmp -s "$TOP/configs/kernel.pin" "$copy/configs/kernel.pin" && { echo "sed '$2' changed nothing" >&2; return 1; }
	echo "$copy"
}
# nothing_half_made COPY: no tarball and no download left in the copy's build/apt.
nothing_half_made() {
	local left
	left=$(find "$1/build/apt" \( -name '*.deb' -o -name '*.tar.xz*' \) 2>/dev/null)
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}
t_pin_sha256_mismatch() {	# a download whose sha256 is not the pin's is refused and deleted
	local copy
	copy=$(pin_copy pin-sha "s/^KERNEL_DEB_SHA256=.*/KERNEL_DEB_SHA256=$(printf '%064d' 0)/")
	expect_fail 2 'has sha256 [0-9a-f]{64}, the pin .* says 0{64}: refusing it \(deleted\)' \
		env -u KERNEL -u IMA_SLIM_RESOLVED BUILD="$copy/build" "$copy/scripts/deps.sh"
	nothing_half_made "$copy"
}
t_pin_not_in_archive() {	# a pinned version the archive no longer has is named, with what it has
	local copy
	copy=$(pin_copy pin-gone 's/^KERNEL_PKG_VERSION=.*/KERNEL_PKG_VERSION=7.3.0-0~gone1/')
	expect_fail 2 'linux-source-7.3 7.3.0-0~gone1 is not in trixie-backports \(available there: [0-9]' \
		env -u KERNEL -u IMA_SLIM_RESOLVED BUILD="$copy/build" "$copy/scripts/deps.sh"
	nothing_half_made "$copy"
}
t_kernel_src_not_git() {	# a folder that is not a git tree is refused
	rm -rf "$tmp/ksrc-plain" && mkdir -p "$tmp/ksrc-plain"
	expect_fail 2 'not a git tree' env KERNEL_SRC="$tmp/ksrc-plain" BUILD="$tmp/b" "$TOP/scripts/tree.sh"
	expect_fail 2 'does not exist' env KERNEL_SRC="$tmp/nowhere" BUILD="$tmp/b" "$TOP/scripts/tree.sh"
}
t_broken_patch() {	# a patch that does not apply is named, with the file it fails on
	local copy=$tmp/repo p
	# A copy of the project; its variant worktree is kept between runs
	# (removing 90,000 files takes longer than resetting them).
	mkdir -p "$copy/build"
	rm -rf "$copy/scripts" "$copy/configs" "$copy/stable" "$copy/patches" "$copy/series"
	cp -r "$TOP/scripts" "$TOP/configs" "$TOP/stable" "$TOP/patches" "$TOP/series" "$copy/"
	"$TOP/scripts/tree.sh" >/dev/null	# the pristine tree the copy shares
	# The same pristine tree, no second extraction.
	mkdir -p "$(dirname "$copy/build${BUILD#"$BUILD_ROOT"}/src")"
	ln -sfn "$BUILD/src" "$copy/build${BUILD#"$BUILD_ROOT"}/src"
	p=$(series_patches | head -n 1)
	[ -n "$p" ] || { echo "the series is empty"; return 1; }
	# Break the first context or removed line of a hunk, so it cannot apply.
	awk '/^diff / {h=0} /^@@/ {h=1; print; next} h && !done && /^[- ]/ {sub(/^./, "&BROKEN "); done=1} {print}' \
		"$SERIES_DIR/patches/$p" >"$copy${SERIES_DIR#"$TOP"}/patches/$p"
	cmp -s "$SERIES_DIR/patches/$p" "$copy${SERIES_DIR#"$TOP"}/patches/$p" && { echo "could not break $p"; return 1; }
	# A variant of its own: its branch must not collide with build/fixed's.
	expect_fail 2 "patch 1/[0-9]+ patches/$p does not apply" \
		env -u IMA_SLIM_RESOLVED BUILD="$copy/build" EXTRA_VARIANTS="selftest all guest" "$copy/scripts/variant.sh" selftest
}
# A report folder rendered from the golden results.json (a real smoke run).
# report_copy DIR [FIXTURE]: a rendered copy of a saved real run's results
# (qemu/test_data/FIXTURE, default report-smoke) in $tmp/DIR.
report_copy() {
	rm -rf "$tmp/${1:?}" && mkdir -p "$tmp/$1"
	cp "$data/${2:-report-smoke}/results.json" "$tmp/$1/"
	/usr/bin/python3 "$TOP/scripts/report.py" render "$tmp/$1" 2>&1
}
# report_edit DIR PYTHON: change DIR/results.json with a Python statement on r.
report_edit() {
	/usr/bin/python3 - "$1/results.json" "$2" <<-'EOF'
	import json, sys
	path, stmt = sys.argv[1], sys.argv[2]
	r = json.load(open(path))
	exec(stmt)
	json.dump(r, open(path, "w"), indent=1, sort_keys=True)
	EOF
}
# report_golden FIXTURE [HEADING...]: a saved real run renders to a report
# that checks out and has each section HEADING (a line's start).
report_golden() {
	local f=$1 h
	shift
	report_copy report-golden "$f"
	/usr/bin/python3 "$TOP/scripts/report.py" check "$tmp/report-golden"
	for h in "$@"; do
		grep -q "^$h" "$tmp/report-golden/report.md" || { echo "report.md has no section '$h'"; return 1; }
	done
}
t_report_check_golden() {	# a real run's results.json renders to a report that checks out
	report_golden report-smoke
}
# report_damaged PYTHON_EDIT PATTERN [FIXTURE]: the check fails on an edited
# copy of a saved report (default report-smoke), with a message matching PATTERN.
report_damaged() {
	local d=$tmp/report-bad
	report_copy report-bad "${3:-report-smoke}" >/dev/null
	report_edit "$d" "$1"
	expect_fail 1 "$2" /usr/bin/python3 "$TOP/scripts/report.py" check "$d"
}
t_report_check_corrupted() {	# each kind of damage to the report is caught and named
	local d=$tmp/report-bad
	# A cache's bytes no longer add up to the total at one N.
	report_damaged 'c = r["variants"]["fixed"]["unmeasured"]["points"][-1]["caches"]; c[sorted(c)[0]]["slab_bytes"] += 4096' \
		"fixed: N=[0-9]+: the caches' slab_bytes add up to"
	# A variant that was asked for is missing.
	report_damaged 'del r["variants"]["baseline"]' 'variant baseline was asked for but is missing'
	# The sweep's N are not those asked for.
	report_damaged 'r["parameters"]["sweep"][-1] += 1000' 'the points are N = '
	# The inodes did not come into core.
	report_damaged 'r["variants"]["vanilla"]["unmeasured"]["points"][0]["incore_inodes"] = 10' \
		'vanilla: N=[0-9]+: only 10 inodes came into core'
	# A headline key is gone.
	report_damaged 'del r["variants"]["fixed"]["open_close_ratio_vs_vanilla"]' \
		"lacks or garbles a field: KeyError: 'open_close_ratio_vs_vanilla'"
	# The headline overhead was changed by hand.
	report_damaged 'r["variants"]["fixed"]["ima_overhead_bytes_per_inode"]["unmeasured"] = 0.5' \
		'fixed: ima_overhead_bytes_per_inode does not match'
	# report.md edited after rendering.
	report_copy report-bad >/dev/null
	echo "| fixed | 0.0 | (added by hand) |" >>"$d/report.md"
	expect_fail 1 'report.md is not what results.json says' /usr/bin/python3 "$TOP/scripts/report.py" check "$d"
	# A truncated results.json.
	report_copy report-bad >/dev/null
	head -c 2000 "$data/report-smoke/results.json" >"$d/results.json"
	expect_fail 1 'results.json is not JSON' /usr/bin/python3 "$TOP/scripts/report.py" check "$d"
}
t_report_eviction() {	# the eviction section of a real run checks out, and damage to it is named
	local f=report-evict
	report_golden "$f" '## Cost of freeing unmeasured inodes'
	# A drop freed fewer inodes than were statted into core.
	report_damaged 'r["variants"]["fixed"]["eviction"]["runs"][0][0]["evicted"] = 5' \
		"fixed: eviction: a drop freed 5 inodes, fewer than the [0-9]+ statted" "$f"
	# A repeat's figure is not its fastest drop.
	report_damaged 'r["variants"]["vanilla"]["eviction"]["ns_per_inode"][0] *= 1.5' \
		"vanilla: eviction: a repeat is not its fastest drop" "$f"
	# The ratio to vanilla, or IMA's share, changed by hand.
	report_damaged 'r["variants"]["fixed"]["eviction"]["ratio_vs_vanilla"] = 1.5' \
		"fixed: eviction: the ratio to vanilla does not follow" "$f"
	report_damaged 'r["variants"]["fixed"]["eviction"]["ima_ns_per_inode"] = 0' \
		"fixed: eviction: IMA's share does not follow" "$f"
	# One variant lost its eviction figures while the others have them.
	report_damaged 'del r["variants"]["baseline"]["eviction"]' \
		"baseline: no eviction figures" "$f"
}
t_report_two_cpus() {	# the two-CPU section of a real run checks out, and damage to it is named
	local f=report-two-cpus
	report_golden "$f" '## Two CPUs' '## Against the cost targets'
	# A repeat's figure is not its fastest pass.
	report_damaged 'r["two_cpus"]["fixed-smp"]["modes"]["rdonly"]["opens_per_s"][0] *= 1.5' \
		"fixed-smp: rdonly: a repeat's throughput is not its fastest pass" "$f"
	# A ratio to vanilla changed by hand.
	report_damaged 'r["two_cpus"]["fixed-smp"]["modes"]["rdwr"]["throughput_vs_vanilla"] = 1.5' \
		"fixed-smp: rdwr: the ratio to vanilla-smp does not follow" "$f"
	# The lock statistics of a CONFIG_LOCK_STAT kernel are gone.
	report_damaged 'del r["two_cpus"]["fixed-lockstat"]["modes"]["rdonly"]["lock_stat"]' \
		"fixed-lockstat: rdonly: lock statistics missing" "$f"
	# A per-1,000 figure that does not follow from the classes.
	report_damaged 'r["two_cpus"]["rwlock-lockstat"]["modes"]["rdwr"]["lock_stat"]["repeats"][0]["per_1000_opens"]["acq_bounces"] += 1' \
		"rwlock-lockstat: rdwr: acq_bounces per 1,000 opens does not follow" "$f"
}
t_report_steps() {	# the rbtree against the hash table, from a real run: rendered whole, and checked
	local f=report-steps r
	report_golden "$f" '## What each lookup structure costs' '## Against the cost targets'
	r=$tmp/report-golden/report.md
	for row in 'bytes per measured file' 'open+close, measured files, O_RDWR' \
		'evicting an unmeasured inode' "two CPUs: lookup structure's lock"; do
		grep -q "^| $row" "$r" || { echo "the lookup-structure table has no row '$row'"; return 1; }
	done
	grep -q "^| fixed-lockstat: the lookup structure's lock (\`rhashtable_bucket\`)" "$r" ||
		{ echo "no target row for the hash table's bucket lock"; return 1; }
	# A lock figure of the hash table's variant that does not follow from its classes.
	report_damaged 'r["two_cpus"]["fixed-lockstat"]["modes"]["rdonly"]["lock_stat"]["repeats"][0]["per_1000_opens"]["acquisitions"] += 1' \
		"fixed-lockstat: rdonly: acquisitions per 1,000 opens does not follow" "$f"
}
t_report_distro() {	# the distribution-stack section of a real run checks out, and damage to it is named
	local f=report-distro
	report_golden "$f" "## A distribution's LSM stack"
	# The guest's blob is a pointer larger than the LSMs' shares add up to.
	report_damaged 'r["distro_stack"]["fixed-distro"]["policies"]["none"]["object_sizes"]["lsm_inode_cache"]["object_size"] += 8' \
		"fixed-distro: the LSMs' shares add up to [0-9]+ B, lsm_inode_cache objects are [0-9]+ B" "$f"
	# An LSM's share edited by hand: the layout no longer follows from it.
	report_damaged 'r["distro_stack"]["vanilla-distro"]["lsm_shares_requested"]["lsms"]["evm"] += 8' \
		"vanilla-distro: the blob's layout does not follow from the LSMs' shares" "$f"
	# A boot without a policy that measured files anyway.
	report_damaged 'r["distro_stack"]["vanilla-distro"]["policies"]["none"]["measured"]["measurements_added"] = 5' \
		"vanilla-distro \\(none\\): 5 measurements added, expected 0" "$f"
	# A headline figure changed by hand.
	report_damaged 'r["distro_stack"]["fixed-distro"]["policies"]["none"]["overhead_bytes_per_inode"]["unmeasured"] = 0.5' \
		"fixed-distro \\(none\\): the overhead per unmeasured inode is not fixed-distro" "$f"
	# The reference is gone.
	report_damaged 'del r["distro_stack"]["noima-distro"]' "variant noima-distro was asked for but is missing" "$f"
}
t_report_distro_evm() {	# the EVM boots of the distribution stack check out, and damage to them is named
	local f=report-distro-evm
	report_golden "$f" "## Against the targets of EVM's state on demand"
	# A variant whose first read left files without EVM's HMAC: EVM then
	# verified fewer files than the figure is divided by.
	report_damaged 'r["distro_stack"]["evm-lazy-distro"]["policies"]["evm"]["evm_labelled_files"] -= 1' \
		"evm-lazy-distro \\(evm\\): [0-9]+ of the files read carry an HMAC" "$f"
	# An EVM boot in which EVM had no key.
	report_damaged 'r["distro_stack"]["fixed-distro"]["policies"]["evm"]["evm_initialised"] = "0"' \
		"fixed-distro \\(evm\\): EVM reads '0', expected '1'" "$f"
	# A verified-file figure changed by hand.
	report_damaged 'r["distro_stack"]["fixed-distro"]["policies"]["evm"]["overhead_bytes_per_inode"]["verified"] -= 100' \
		"fixed-distro \\(evm\\): the overhead per verified file is not" "$f"
	# An instruction count that is not its repeat's fastest pass.
	report_damaged 'r["distro_stack"]["fixed-distro"]["evm_cost"]["create"]["ns_per_op"][0] += 1' \
		"fixed-distro: create: a repeat's figure is not its fastest pass" "$f"
	# A ratio against the wrong reference.
	report_damaged 'r["distro_stack"]["evm-lazy-distro"]["evm_cost"]["existing-rdonly"]["instructions_ratio_vs_vanilla"] = 1.5' \
		"evm-lazy-distro: existing-rdonly: the ratio to vanilla-distro does not follow" "$f"
}
t_build_warnings() {	# a warning in a file the series changes is found, one elsewhere is not
	printf '%s\n' '  CC      security/integrity/ima/ima_iint.o' \
		"../src/security/integrity/ima/ima_iint.c:335:30: warning: format '%lu' expects argument of type 'long unsigned int' [-Wformat=]" \
		"../src/fs/inode.c:10:5: warning: unused variable 'x' [-Wunused-variable]" \
		"../src/security/integrity/ima/ima_main.c:1:1: note: in expansion of macro" >"$tmp/build.log"
	[ "$(series_warnings "$tmp/build.log" security/integrity/ima/ima_iint.c security/integrity/ima/ima_main.c)" = \
		"../src/security/integrity/ima/ima_iint.c:335:30: warning: format '%lu' expects argument of type 'long unsigned int' [-Wformat=]" ] &&
	[ -z "$(series_warnings "$tmp/build.log" fs/namei.c)" ] &&
	[ -z "$(series_warnings "$tmp/build.log")" ]
}
t_report_bad_input() {	# sizes that cannot work are refused before anything is built
	expect_fail 2 'growing multiples of 1000' env REPORT_SWEEP=5000,2500 "$TOP/scripts/report.sh" --smoke noima
	expect_fail 2 'larger than the one before' env REPORT_SWEEP=20000,5000 "$TOP/scripts/report.sh" --smoke noima
	expect_fail 2 'at least two sizes' env REPORT_SWEEP=20000 "$TOP/scripts/report.sh" --smoke noima
	expect_fail 2 'REPORT_REPEATS=x is not a positive whole number' env REPORT_REPEATS=x "$TOP/scripts/report.sh" --smoke noima
	expect_fail 2 "unknown variant 'nosuch'" "$TOP/scripts/report.sh" --smoke nosuch
	expect_fail 1 'does not exist: run scripts/report.sh first' /usr/bin/python3 "$TOP/scripts/report.py" check "$tmp/no-report"
}
t_swtpm_fails_to_start() {	# a swtpm that will not start is an infrastructure error, named
	mkdir -p "$tmp/shim-dead"
	printf '#!/bin/sh\necho "swtpm: simulated failure" >&2\nexit 1\n' >"$tmp/shim-dead/swtpm"
	chmod +x "$tmp/shim-dead/swtpm"
	expect_fail 2 'swtpm did not start' env PATH="$tmp/shim-dead:$PATH" BUILD="$BUILD" "$TOP/qemu/run.sh" vanilla boot
}
t_swtpm_killed() {	# a swtpm killed under a running guest is named as the cause
	mkdir -p "$tmp/shim-kill"
	# Start the real swtpm, then kill it while the guest boots.
	cat >"$tmp/shim-kill/swtpm" <<-SHIM
	#!/bin/sh
	$(command -v swtpm) "\$@" & pid=\$!
	sleep 1; kill -9 \$pid; wait \$pid; exit 137
	SHIM
	chmod +x "$tmp/shim-kill/swtpm"
	expect_fail 2 'lost its TPM' env PATH="$tmp/shim-kill:$PATH" "$TOP/qemu/run.sh" vanilla boot --timeout 90
}
t_guest_timeout() {	# a guest that does not finish in time is stopped, with the console tail
	expect_fail 2 'did not finish within 5s' "$TOP/qemu/run.sh" vanilla hang --timeout 5
}
t_guest_panic() {	# a guest whose kernel panics is reported as such, with the console tail
	expect_fail 2 'panicked' env GUEST_CMDLINE="rdinit=/nonexistent root=/dev/nonexistent" "$TOP/qemu/run.sh" vanilla boot --timeout 120
}

t_stress_splats() {	# a kernel report in the console fails a stress run; a clean console does not
	local chk=$TOP/scripts/stress_check.py
	/usr/bin/python3 "$chk" splats "$data/console-finished.log" || { echo "a clean console was judged bad"; return 1; }
	# A real WARN from the debug kernel (scripts/stress-demo.sh, unbalanced open counts).
	expect_fail 1 'WARNING: .*ima' /usr/bin/python3 "$chk" splats "$data/console-splat.log"
}
t_stress_kcsan() {	# a KCSAN race in IMA code fails; races elsewhere are listed, not failed, and are no splat
	local chk=$TOP/scripts/stress_check.py log=$tmp/console-kcsan-elsewhere.log
	expect_fail 1 'in IMA: .*data-race in ima_iint_search' /usr/bin/python3 "$chk" kcsan "$data/console-kcsan.log"
	/usr/bin/python3 "$chk" splats "$data/console-kcsan.log" >/dev/null ||
		{ echo "KCSAN reports were counted as splats"; return 1; }
	# The same console without the IMA race: one report, with IMA only deeper on the stack.
	awk '/BUG: KCSAN: data-race in ima_/ {skip=1} skip && /====================/ {skip=0; next} !skip' \
		"$data/console-kcsan.log" >"$log"
	/usr/bin/python3 "$chk" kcsan "$log" >"$log.out" ||
		{ echo "a race outside IMA code failed the check"; return 1; }
	grep -q '^1 KCSAN report(s) .*, 0 in IMA code$' "$log.out" ||
		{ echo "a race outside IMA code was judged as IMA's"; return 1; }
	# A console of a kernel without KCSAN: the check is skipped, not passed.
	mkdir -p "$tmp/kcsan-run/out"
	cp "$data/console-finished.log" "$tmp/kcsan-run/console.log"
	# (The run's other checks fail on this empty folder; only kcsan's line counts.)
	/usr/bin/python3 "$chk" run "$tmp/kcsan-run" >"$tmp/kcsan-run/check.txt" 2>&1 || true
	grep -q '^SKIP kcsan: not a KCSAN kernel$' "$tmp/kcsan-run/check.txt" ||
		{ echo "a kernel without KCSAN did not skip the kcsan check"; return 1; }
	# KCSAN built in but never enabled (no CONFIG_KCSAN_EARLY_ENABLE): it
	# reports nothing, and that fails rather than passes.
	{ echo '[    0.412001] kcsan: strict mode configured'; cat "$data/console-finished.log"; } \
		>"$tmp/kcsan-run/console.log"
	/usr/bin/python3 "$chk" run "$tmp/kcsan-run" >"$tmp/kcsan-run/check.txt" 2>&1 || true
	grep -q '^FAIL kcsan: KCSAN is built in but never enabled' "$tmp/kcsan-run/check.txt" ||
		{ echo "a KCSAN kernel that never enabled KCSAN passed the kcsan check"; return 1; }
}
t_stress_escapes() {	# a content root read that is missing from the IMA log fails the stress check
	local g=$tmp/stress name path digest p chk=$TOP/scripts/stress_check.py
	rm -rf "$g" && cp -r "$data/stress-fixed" "$g"
	/usr/bin/python3 "$chk" run "$g" >/dev/null || { echo "the golden stress run does not pass"; return 1; }
	# A locked-set content whose measurement is gone escaped measurement...
	read -r name _ path < <(grep -m1 ' locked ' "$g/out/stress.index")
	digest=$(awk -v n="$name" '$2 == n {print $1}' "$g/out/stress.sha256")
	grep -v " sha256:$digest $path\$" "$g/out/ascii_runtime_measurements" >"$g/log" &&
		mv "$g/log" "$g/out/ascii_runtime_measurements"
	expect_fail 1 "FAIL escapes: .* 1 escaped.*|escaped: locked $path" /usr/bin/python3 "$chk" run "$g"
	# ...and a violation on its path does not excuse it: only the racy set's may.
	echo "10 $(printf '%040d' 0) ima-ng sha256:$(printf '%064d' 0) $path" >>"$g/out/ascii_runtime_measurements"
	expect_fail 1 "escaped: locked $path" /usr/bin/python3 "$chk" run "$g"
	# A racy content excused by a violation escapes once the violation is gone.
	rm -rf "$g" && cp -r "$data/stress-fixed" "$g"
	path=
	while read -r name _ p; do	# a racy content the log has no measurement of
		digest=$(awk -v n="$name" '$2 == n {print $1}' "$g/out/stress.sha256")
		grep -q " sha256:$digest $p\$" "$g/out/ascii_runtime_measurements" || { path=$p; break; }
	done < <(grep ' racy ' "$g/out/stress.index")
	[ -n "$path" ] || { echo "the golden run has no racy content excused by a violation"; return 1; }
	awk -v p="$path" '!($2 ~ /^0+$/ && $5 == p)' "$g/out/ascii_runtime_measurements" >"$g/log" &&
		mv "$g/log" "$g/out/ascii_runtime_measurements"
	expect_fail 1 "escaped: racy $path" /usr/bin/python3 "$chk" run "$g"
}
t_stress_bad_input() {	# the stress scripts refuse bad arguments and a missing run, by name
	expect_fail 2 'needs a whole number' "$TOP/scripts/stress.sh" --seconds soon
	expect_fail 2 'unknown argument' "$TOP/scripts/stress.sh" --fast
	expect_fail 2 'not a finished guest run' /usr/bin/python3 "$TOP/scripts/stress_check.py" run "$tmp/no-such-run"
	expect_fail 2 'needs a whole number' "$TOP/scripts/stress-demo.sh" --seconds 1
}
t_deps_missing() {	# a missing Debian package is named; without root, nothing is installed
	local shim=$tmp/shim-deps real
	real=$(command -v dpkg-query)
	mkdir -p "$shim"
	# dpkg-query that says swtpm is not installed; everything else is real.
	# shellcheck disable=SC2016  # $a and $@ belong to the shim
	printf '#!/bin/sh\nfor a; do [ "$a" = swtpm ] && exit 1; done\nexec %s "$@"\n' "$real" >"$shim/dpkg-query"
	printf '#!/bin/sh\necho 1000\n' >"$shim/id"	# not root: deps.sh must not install
	chmod +x "$shim/dpkg-query" "$shim/id"
	expect_fail 1 '^missing: swtpm$' env PATH="$shim:$PATH" "$TOP/scripts/deps.sh" --check
	expect_fail 2 'missing Debian packages: swtpm; install them as root' \
		env PATH="$shim:$PATH" "$TOP/scripts/deps.sh"
}
t_commands_packaged() {	# every command the host scripts run comes from a package deps.sh installs
	/usr/bin/python3 "$TOP/scripts/commands.py"
}
t_commands_unlisted() {	# a command whose package deps.sh lacks (b4, as once) is named
	local deps=$tmp/deps-without-b4.sh
	grep -v '^b4 ' "$TOP/scripts/deps.sh" >"$deps"
	expect_fail 1 'UNLISTED b4: run at scripts/series.sh:.*from Debian package b4' \
		/usr/bin/python3 "$TOP/scripts/commands.py" --deps "$deps"
}
t_readme_stale_command() {	# the README's old git am line (it stops at the cover letter) fails its check
	local copy=$tmp/README-stale.md
	sed 's|^QUILT_PATCHES=.*quilt push -a$|git am /path/to/ima-slim/patches/0*.patch|' \
		"$TOP/README.md" >"$copy"
	grep -qx 'git am /path/to/ima-slim/patches/0\*.patch' "$copy" || { echo "sed did not apply"; return 1; }
	local b=apply-quilt
	[ "$KERNEL_ID" = mainline ] || b=apply-quilt-$KERNEL_ID
	expect_fail 2 "README block '$b' failed" env README_FILE="$copy" "$TOP/scripts/readme.sh" "$b"
}
t_tool_missing() {	# a tool missing from PATH is named, with the way to get it
	local farm=$tmp/path-without-qemu d f
	rm -rf "$farm" && mkdir -p "$farm"
	# Every command of PATH except qemu-system-x86_64.
	IFS=: read -r -a dirs <<<"$PATH"
	for d in "${dirs[@]}"; do
		for f in "$d"/*; do
			[ -x "$f" ] && [ ! -e "$farm/${f##*/}" ] && ln -s "$f" "$farm/"
		done
	done
	rm -f "$farm/qemu-system-x86_64"
	expect_fail 2 "qemu-system-x86_64 is missing: run 'make deps'" env PATH="$farm" "$TOP/qemu/run.sh" vanilla boot
}
t_host_disk_full() {	# a disk image that cannot be written (no space) stops mkdisk, naming it
	# ulimit -f stands in for a full file system: writes past it fail.
	# shellcheck disable=SC2016  # $0 and $1 belong to bash -c
	expect_fail 2 'mkfs.ext4 failed for .*disk full' \
		bash -c 'ulimit -f 4096; exec "$0" boot "$1"' "$TOP/qemu/mkdisk.sh" "$tmp/fullhost"
}
t_results_disk_full() {	# a guest that fills its results disk is reported as such
	expect_fail 2 'results disk .* is full' "$TOP/qemu/run.sh" vanilla fill --timeout 120
}

case ${1:-} in
list) declare -F | awk '$3 ~ /^t_/ {sub(/^t_/, "", $3); print $3}' ;;
--help | "") sed -n '2,4s/^# //p' "$0" ;;
*) declare -F "t_$1" >/dev/null || die "no such selftest: $1"; "t_$1" ;;
esac
