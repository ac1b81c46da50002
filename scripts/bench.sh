#!/usr/bin/env bash
# Memory benchmark: per variant, boot the guest "slab" test (N files on an
# ext4 disk made on the host, only stat'ed in the guest) and turn the slabinfo
# snapshots into bytes per in-core inode, and IMA overhead = variant - noima.
# Usage: scripts/bench.sh [VARIANT...]   (default: noima vanilla baseline fixed)
#   SLAB_FILES=N (default 100000). Results: build/report/slab.{md,json}.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then sed -n '2,6s/^# //p' "$0"; exit 0; fi
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(noima vanilla baseline fixed)
export SLAB_FILES=${SLAB_FILES:-100000}
runs=()
for v in "${variants[@]}"; do
	"$TOP/scripts/build.sh" "$v" build
	say "bench: $v, slab test with $SLAB_FILES files"
	"$TOP/qemu/run.sh" "$v" slab --timeout 900
	runs+=("$BUILD/runs/$v-slab")
done
/usr/bin/python3 "$TOP/scripts/slab.py" --out "$BUILD/report" --files "$SLAB_FILES" "${runs[@]}"
say "bench: $BUILD/report/slab.md, $BUILD/report/slab.json"
