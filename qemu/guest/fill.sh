# shellcheck shell=sh
# Guest test "fill": writes zeros to the results disk /out until it is full,
# so that scripts/selftest.sh can check how the host reports a guest whose
# results disk ran out of space. Sourced by /init with `set -e`.
dd if=/dev/zero of=/out/fill bs=64k
