# SPDX-License-Identifier: GPL-2.0-only
# chroot_mounts.sh - sourced by the suites that run perf-run inside a
# Debian root (tests/suites/deb.sh, pkg_chroot.sh): the host's /proc,
# /sys, tracefs, bpffs and /dev bound into ROOT, and unbound in reverse
# by chroot_unmount (call it from the suite's EXIT trap).
chroot_mounted=()

chroot_mount() {  # ROOT
	local m
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	for m in /proc /sys /sys/kernel/tracing /sys/fs/bpf /dev; do
		[[ -d $m ]] && mountpoint -q "$m" || continue
		mkdir -p "$1$m"
		mount --bind "$m" "$1$m" && chroot_mounted+=("$1$m")
	done
}

chroot_unmount() {
	local i
	for ((i = ${#chroot_mounted[@]} - 1; i >= 0; i--)); do
		umount "${chroot_mounted[i]}" 2>/dev/null || umount -l "${chroot_mounted[i]}"
	done
	chroot_mounted=()
}
