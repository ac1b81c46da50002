#!/usr/bin/env bash
# Run the series' KUnit suites with tools/testing/kunit/kunit.py on UML.
# Usage: scripts/kunit.sh [--build-only] [--smp] [VARIANT]  (default: fixed)
#   --build-only: kunit.py build, no run (CI builds ahead with it).
#   --smp: the same suites on x86_64 under QEMU with two CPUs and KASAN
#   (kunit/smp.kunitconfig), in build/VARIANT/kunit-smp/.
#   --kunitconfig: the tree's security/integrity/ima/.kunitconfig plus the
#   project's kunit/.kunitconfig. Build dir, test.log and results.json:
#   build/VARIANT/uml/ (the same layout for every variant, so ccache shares objects
#   between variants). Fails on a failed case and on a kernel splat.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,10s/^# //p' "$0"; exit 0; fi
build_only='' smp=''
while [ $# -gt 0 ]; do
	case $1 in
	--build-only) build_only=1 ;;
	--smp) smp=1 ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
	shift
done
variant=${1:-fixed}
lock_variant "$variant"
src=$("$TOP/scripts/variant.sh" "$variant")
lock_tree "$(tree_key "$variant")" -s
tree_ready "$variant"
out=$(variant_dir "$variant")
mkdir -p "$out/logs"
[ -f "$src/security/integrity/ima/.kunitconfig" ] ||
	die "$variant has no security/integrity/ima/.kunitconfig: the series adds it"

# One build dir and log name per machine: UML, or x86_64 with two CPUs.
if [ -n "$smp" ]; then
	name=kunit-smp mode=(--smp --timeout=900) where="x86_64, 2 CPUs under QEMU"
else
	name=uml mode=() where=UML
fi
build_dir=$out/$name
if [ -n "$build_only" ]; then
	say "kunit: building $variant for $where (build dir $build_dir)"
	kunit_py build "$src" "$build_dir" "${mode[@]:0:1}" >"$out/logs/kunit-build-$name.log" 2>&1 ||
		die "kunit.py build failed on $variant (log: $out/logs/kunit-build-$name.log)"
	exit 0
fi
say "kunit: $variant on $where (build dir $build_dir)"
log=$out/logs/kunit${smp:+-smp}.log json=$out/kunit${smp:+-smp}-results.json
rc=0
kunit_py run "$src" "$build_dir" "${mode[@]}" --json="$json" 2>&1 | tee "$log" || rc=$?
[ "$rc" -eq 0 ] || die "kunit.py run on $where failed on $variant (log: $log)"
if [ -n "$smp" ]; then
	for opt in SMP KASAN; do
		grep -q "^CONFIG_$opt=y" "$build_dir/.config" || die "$build_dir/.config lost CONFIG_$opt"
	done
fi
# A splat does not fail a KUnit case by itself: read the raw console from
# the first KTAP line on. (Before it, 6.12's UML warns once that virt-pci has
# no device ID: a property of kunit.py's UML config, not of IMA.) Plain
# WARN_ON reports are left to the cases: some provoke the imbalance warning
# on purpose and assert its counter. Their first line is "WARNING: CPU: n
# PID: n at ..." in 6.12 and "WARNING: file:line at func, CPU#n: comm/pid"
# in 7.3. Lockdep, RCU, sleep-in-atomic, list corruption, BUG and Oops
# always fail.
if sed -n '/KTAP version/,$p' "$build_dir/test.log" |
	grep -nE 'WARNING:|BUG:|Oops|list_(add|del) corruption' |
	grep -vE 'WARNING: (CPU: [0-9]+ PID: [0-9]+ at |[^ ]+:[0-9]+ at [^ ]+, CPU#[0-9]+: )' >&2; then
	die "kernel splat during the KUnit run (above; console: $build_dir/test.log)"
fi
