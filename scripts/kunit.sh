#!/usr/bin/env bash
# Run the series' KUnit suites with tools/testing/kunit/kunit.py on UML.
# Usage: scripts/kunit.sh [--build-only] [VARIANT]      (default: fixed)
#   --build-only: kunit.py build, no run (CI builds ahead with it).
#   --kunitconfig: the tree's security/integrity/ima/.kunitconfig plus the
#   project's kunit/.kunitconfig. Build dir, test.log and results.json:
#   build/VARIANT/uml/ (the same layout for every variant, so ccache shares objects
#   between variants). Fails on a failed case and on a kernel splat.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,8s/^# //p' "$0"; exit 0; fi
build_only=
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
variant=${1:-fixed}
lock_variant "$variant"
src=$("$TOP/scripts/variant.sh" "$variant")
lock_tree "$(tree_key "$variant")" -s
tree_ready "$variant"
out=$(variant_dir "$variant")
mkdir -p "$out/logs"
[ -f "$src/security/integrity/ima/.kunitconfig" ] ||
	die "$variant has no security/integrity/ima/.kunitconfig: the series adds it"

cc=gcc
if command -v ccache >/dev/null; then cc="ccache gcc"; export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=true; fi
if [ -n "$build_only" ]; then
	say "kunit: building $variant for UML (build dir $out/uml)"
	(cd "$src" && /usr/bin/python3 tools/testing/kunit/kunit.py build \
		--kunitconfig=security/integrity/ima --kunitconfig="$TOP/kunit/.kunitconfig" \
		--build_dir="$out/uml" --jobs="$(nproc)" --make_options "CC=$cc") >"$out/logs/kunit-build.log" 2>&1 ||
		die "kunit.py build failed on $variant (log: $out/logs/kunit-build.log)"
	exit 0
fi
say "kunit: $variant on UML (build dir $out/uml)"
rc=0
(cd "$src" && /usr/bin/python3 tools/testing/kunit/kunit.py run \
	--kunitconfig=security/integrity/ima --kunitconfig="$TOP/kunit/.kunitconfig" \
	--build_dir="$out/uml" --jobs="$(nproc)" --make_options "CC=$cc" \
	--json="$out/kunit-results.json") 2>&1 | tee "$out/logs/kunit.log" || rc=$?
[ "$rc" -eq 0 ] || die "kunit.py run failed on $variant (log: $out/logs/kunit.log)"
# A splat does not fail a KUnit case by itself: read the raw console from
# the first KTAP line on. (Before it, 6.12's UML warns once that virt-pci has
# no device ID: a property of kunit.py's UML config, not of IMA.) Plain
# WARN_ON reports are left to the cases: some provoke the imbalance warning
# on purpose and assert its counter. Their first line is "WARNING: CPU: n
# PID: n at ..." in 6.12 and "WARNING: file:line at func, CPU#n: comm/pid"
# in 7.3. Lockdep, RCU, sleep-in-atomic, list corruption, BUG and Oops
# always fail.
if sed -n '/KTAP version/,$p' "$out/uml/test.log" |
	grep -nE 'WARNING:|BUG:|Oops|list_(add|del) corruption' |
	grep -vE 'WARNING: (CPU: [0-9]+ PID: [0-9]+ at |[^ ]+:[0-9]+ at [^ ]+, CPU#[0-9]+: )' >&2; then
	die "kernel splat during the KUnit run (above; console: $out/uml/test.log)"
fi
