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
e2fsprogs            mkfs.ext4 -d and debugfs for the guest disk (debugfs in the guest too)
busybox-static       the guest's userland
keyutils             keyctl in the guest: EVM's HMAC key
attr                 getfattr, setfattr in the guest: EVM's and IMA's labels
qemu-system-x86      booting the guest
swtpm                the guest's software TPM
swtpm-tools          swtpm_setup
ima-evm-utils        evmctl: replay the IMA log against the PCRs
shellcheck           linting the project's scripts
dwarves              pahole: struct layouts
gdb                  each LSM's share of the inode blob, from a vmlinux (scripts/lsm-shares.sh)
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
libc-bin
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

# A kernel from the system's own suites is installed with apt like the tools
# (apt checks it against the signed index); one from another suite is only
# downloaded, by fetch_kernel_deb below.
if [ -z "$KERNEL_APT_SUITE" ]; then
	have=$(dpkg-query -W -f '${Version}' "$KERNEL_PKG" 2>/dev/null || true)
	[ "$have" = "$KERNEL_PKG_VERSION" ] || missing+=("$KERNEL_PKG=$KERNEL_PKG_VERSION")
fi

# The Debian mirror the system already uses (deb822 or one-line sources).
system_mirror() {
	local m
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ && $2 ~ /\/debian\/?$/ {print $2; exit}')
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}')
	echo "${m:-http://deb.debian.org/debian}"
}

# fetch_kernel_deb: the pinned linux-source .deb from KERNEL_APT_SUITE, with
# a private apt configuration under build/apt/ (the system's sources and
# package state are never touched); its sha256 checked against the pin, the
# source tarball unpacked to where scripts/tree.sh reads it. Every step
# writes to a temporary name first: a failure leaves nothing half-made.
fetch_kernel_deb() {
	local tarball d deb sum avail log
	tarball=$(kernel_tarball)
	[ -f "$tarball" ] && return 0
	d=$BUILD_ROOT/apt/$KERNEL_APT_SUITE
	log=$BUILD_ROOT/logs/apt-$KERNEL_APT_SUITE.log
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/deb" "$(dirname "$log")"
	echo "deb $(system_mirror) $KERNEL_APT_SUITE main" >"$d/sources.list"
	local apt_opts=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o Debug::NoLocking=1)
	say "deps: fetching $KERNEL_PKG $KERNEL_PKG_VERSION from $KERNEL_APT_SUITE (private apt config $d)"
	if ! apt-get "${apt_opts[@]}" update -q >"$log" 2>&1; then
		tail -n 5 "$log" >&2
		die "apt-get update of $KERNEL_APT_SUITE failed: no network to the Debian archive? (log: $log)"
	fi
	rm -rf "$d/deb" && mkdir -p "$d/deb"
	if ! (cd "$d/deb" && apt-get "${apt_opts[@]}" download "$KERNEL_PKG=$KERNEL_PKG_VERSION") >>"$log" 2>&1; then
		rm -rf "$d/deb"
		avail=$(apt-cache "${apt_opts[@]}" madison "$KERNEL_PKG" 2>/dev/null | awk '{print $3}' | paste -sd' ')
		die "the pinned $KERNEL_PKG $KERNEL_PKG_VERSION is not in $KERNEL_APT_SUITE (available there: ${avail:-none}); move the pin in $PIN_FILE (log: $log)"
	fi
	deb=$(find "$d/deb" -name '*.deb' | head -n 1)
	sum=$(sha256sum "$deb" | cut -d' ' -f1)
	if [ "$sum" != "$KERNEL_DEB_SHA256" ]; then
		rm -rf "$d/deb"
		die "$(basename "$deb") from $KERNEL_APT_SUITE has sha256 $sum, the pin ($PIN_FILE) says $KERNEL_DEB_SHA256: refusing it (deleted)"
	fi
	mkdir -p "$(dirname "$tarball")"
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$KERNEL_PKG.tar.xz" >"$tarball.tmp"; then
		rm -f "$tarball.tmp"
		die "$(basename "$deb") holds no ./usr/src/$KERNEL_PKG.tar.xz"
	fi
	mv "$tarball.tmp" "$tarball"
	rm -rf "$d/deb"	# 160 MB: the tarball is what is kept
	say "deps: $KERNEL_PKG $KERNEL_PKG_VERSION (sha256 $sum, as pinned) unpacked to $tarball"
}

if [ ${#missing[@]} -eq 0 ]; then
	[ -z "$KERNEL_APT_SUITE" ] || fetch_kernel_deb
	say "deps: $KERNEL_PKG $KERNEL_PKG_VERSION and all tool packages are there"
	exit 0
fi
if [ "${1:-}" = --check ]; then
	printf 'missing: %s\n' "${missing[*]}"; exit 1
fi
[ "$(id -u)" = 0 ] || die "missing Debian packages: ${missing[*]}; install them as root (apt-get install ...)"

say "deps: installing ${missing[*]}"
log=$BUILD_ROOT/logs/apt.log
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
		if [ -z "$KERNEL_APT_SUITE" ] && ! apt-cache madison "$KERNEL_PKG" 2>/dev/null | grep -qF " $KERNEL_PKG_VERSION "; then
			avail=$(apt-cache madison "$KERNEL_PKG" 2>/dev/null | awk '{print $3}' | paste -sd' ')
			die "the pinned $KERNEL_PKG $KERNEL_PKG_VERSION is no longer in the archive (available: ${avail:-none}); move the pin in $PIN_FILE and run 'make export'"
		fi
		die "apt-get install ${missing[*]} failed (log: $log)"
	fi
fi
say "deps: installed ${missing[*]}"
[ -z "$KERNEL_APT_SUITE" ] || fetch_kernel_deb
