#!/usr/bin/env bash
# Install the Debian packages the project needs, and nothing that is there.
# Usage: scripts/deps.sh [--check]   (--check: only list what is missing)
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --help ]; then
	sed -n '2,3s/^# //p' "$0"; exit 0
fi

# package            why
PACKAGES="
build-essential      compiler, make (kernel builds)
flex                 kernel build (Kconfig, dtc)
bison                kernel build
bc                   kernel build (timeconst)
libelf-dev           kernel build (objtool)
libssl-dev           kernel build (sign-file, certs)
cpio                 guest initramfs
kmod                 kernel build (depmod)
rsync                kernel headers_install
python3              kunit.py, the report
python3-git          checkpatch.pl (spdxcheck.py)
python3-ply          checkpatch.pl (spdxcheck.py)
ccache               faster rebuilds of the variants
quilt                proving the series applies with quilt
b4                   proving b4 am reads the exported series
shfmt                parsing the scripts for scripts/commands.py
git                  the kernel trees and the series
jq                   results.json
e2fsprogs            mkfs.ext4 -d and debugfs for the guest disk
busybox-static       the guest's userland
qemu-system-x86      booting the guest
swtpm                the guest's software TPM
swtpm-tools          swtpm_setup
ima-evm-utils        evmctl: replay the IMA log against the PCRs
shellcheck           linting the project's scripts
dwarves              pahole: struct layouts
python3-matplotlib   the report's PNG plots (scripts/report.py render)
"

# What every Debian 12 machine has (Essential or required) and what
# build-essential brings: commands from these need no entry above.
# scripts/commands.py fails on a command that neither list provides.
# shellcheck disable=SC2034  # read by scripts/commands.py, not here
BASE_PACKAGES="
coreutils
bash
dash
grep
sed
mawk
findutils
diffutils
tar
gzip
xz-utils
util-linux
procps
debianutils
dpkg
apt
hostname
perl
make
gcc-12
binutils-x86-64-linux-gnu
"

missing=()
while read -r pkg _; do
	[ -n "$pkg" ] || continue
	dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done <<<"$PACKAGES"

# The kernel source is pinned to an exact Debian version (configs/kernel.pin).
have=$(dpkg-query -W -f '${Version}' "$KERNEL_PKG" 2>/dev/null || true)
[ "$have" = "$KERNEL_PKG_VERSION" ] || missing+=("$KERNEL_PKG=$KERNEL_PKG_VERSION")

if [ ${#missing[@]} -eq 0 ]; then
	say "deps: all ${KERNEL_PKG} and tool packages are installed"
	exit 0
fi
if [ "${1:-}" = --check ]; then
	printf 'missing: %s\n' "${missing[*]}"; exit 1
fi
[ "$(id -u)" = 0 ] || die "missing Debian packages: ${missing[*]}; install them as root (apt-get install ...)"

say "deps: installing ${missing[*]}"
log=$BUILD/logs/apt.log
mkdir -p "$(dirname "$log")"
export DEBIAN_FRONTEND=noninteractive
apt_install() { apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1; }
if ! apt_install; then
	# The package lists may be missing or stale on a fresh machine.
	if ! apt-get update -q >>"$log" 2>&1; then
		tail -n 5 "$log" >&2
		die "apt-get update failed: no network to the Debian archive? (log: $log)"
	fi
	if ! apt_install; then
		tail -n 10 "$log" >&2
		if ! apt-cache madison "$KERNEL_PKG" 2>/dev/null | grep -qF " $KERNEL_PKG_VERSION "; then
			avail=$(apt-cache madison "$KERNEL_PKG" 2>/dev/null | awk '{print $3}' | paste -sd' ')
			die "the pinned $KERNEL_PKG $KERNEL_PKG_VERSION is no longer in the archive (available: ${avail:-none}); move the pin in configs/kernel.pin and run 'make export'"
		fi
		die "apt-get install ${missing[*]} failed (log: $log)"
	fi
fi
say "deps: installed ${missing[*]}"
