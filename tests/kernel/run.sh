#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - `make test-kernel`: the kprobe/kretprobe/fentry cases of
# tests/kernel/*.test on a kernel that has kprobes.  The host kernel has
# none, so this boots Debian's linux-image kernels under qemu-system-x86
# with TCG (KVM does not boot a stock guest here), with a busybox
# initramfs (tests/kernel/init) that mounts the host's root read-only over
# 9p and runs tests/kernel/guest.sh from this tree, with the host's build
# of perf-run and its libraries.  The guest's console is the report.
#
# Two guests when /boot has them: the newest kernel (6.12: kprobe_multi
# links, CONFIG_FPROBE) and the newest one without CONFIG_FPROBE (6.1: one
# kprobe per function), so both attach paths run.  Each guest's counts
# are added up; a kernel that cannot boot is one skip, with the reason.
#
#   BUILD         build directory (default build)
#   KERNEL_TEST_TIMEOUT  seconds for each guest's run (default 900; about
#                        130 s on an idle 2-core machine, 250 s on a busy one)
#   KERNEL_TEST_PKGS     Debian packages it needs (from mk/test-kernel.mk);
#                        a kernel's linux-source of the same version is
#                        unpacked once into $BUILD/kernel/src (for -L)
#   KERNEL_TESTS         only these .test files (one word, comma-separated)
#   KERNEL_VERSIONS      only these /boot kernels (comma-separated releases)
#   KERNEL_GUEST_SCRIPT  a script of the tree the guest runs instead of the
#                        cases (tests/bench/kmulti.sh: the kprobe bench)
#   KERNEL_TEST_SMP      the guest's CPUs (default 2)
#
# Last line: `N passed, N failed, N skipped`.  Skips, with the reason, when
# qemu or a kprobe-capable kernel cannot be had.
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
TIMEOUT=${KERNEL_TEST_TIMEOUT:-900}
PKGS=${KERNEL_TEST_PKGS:-qemu-system-x86 linux-image-amd64 busybox-static}
WORK=$BUILD/kernel
TREE=$PWD

skip() {
	echo "SKIP kernel probes under qemu: $*"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}

fail() {
	echo "FAIL kernel probes under qemu: $*"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

# Installs what is missing, as make deps does for the main packages.
install_pkgs() {
	local p st missing=()
	for p in $PKGS; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[[ $st == installed ]] || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	if ((EUID != 0)); then
		skip "missing packages ${missing[*]} (run as root to install them)"
	fi
	echo "test-kernel: installing ${missing[*]}"
	{ apt-get update && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "${missing[@]}"; } >"$WORK/apt.log" 2>&1 ||
		skip "apt-get install ${missing[*]} failed (see $WORK/apt.log)"
}

# The /boot kernels built with kprobes whose 9p modules are there, one a
# line, newest first.
usable_kernels() {
	local v
	for v in /boot/vmlinuz-*; do
		[[ -e $v ]] || continue
		v=${v#/boot/vmlinuz-}
		grep -qx 'CONFIG_KPROBES=y' "/boot/config-$v" 2>/dev/null || continue
		[[ -e /lib/modules/$v/kernel/fs/9p/9p.ko || -e /lib/modules/$v/kernel/fs/9p/9p.ko.xz ]] ||
			continue
		echo "$v"
	done | sort -rV
}

# The kernels to boot: KERNEL_VERSIONS if given, else the newest usable
# one and the newest without CONFIG_FPROBE (no kprobe_multi links) when
# that is another kernel, so the single-kprobe path is tested too.
pick_kernels() {
	local v newest= single=
	if [[ -n ${KERNEL_VERSIONS:-} ]]; then
		tr ',' '\n' <<<"$KERNEL_VERSIONS"
		return
	fi
	while read -r v; do
		[[ -n $newest ]] || newest=$v
		[[ -z $single ]] && ! grep -qx 'CONFIG_FPROBE=y' "/boot/config-$v" && single=$v
	done < <(usable_kernels)
	[[ -n $newest ]] && echo "$newest"
	[[ -n $single && $single != "$newest" ]] && echo "$single"
	return 0
}

# The modules the guest needs (virtio over PCI, 9p over virtio), each
# after what it depends on, as modprobe would load them: modules.dep gives
# the order, so a newer kernel whose 9pnet needs netfs (6.12) boots too.
# Prints paths relative to /lib/modules/KVER/; a module built into the
# kernel is in no line and is left out.
WANT_MODULES="virtio_pci 9pnet_virtio 9p"
module_order() {
	local dep=/lib/modules/$1/modules.dep w
	declare -A path=() deps=() seen=()
	local line m
	[[ -r $dep ]] || return 0
	while IFS= read -r line; do
		m=${line%%:*}
		path[$(module_name "$m")]=$m
		deps[$m]=${line#*:}
	done <"$dep"
	visit() {
		local m=$1 d list=()
		[[ -n ${seen[$m]:-} ]] && return
		seen[$m]=1
		read -ra list <<<"${deps[$m]}"
		# modprobe loads a module's list of dependencies from its end
		for ((d = ${#list[@]} - 1; d >= 0; d--)); do
			visit "${list[d]}"
		done
		echo "$m"
	}
	for w in $WANT_MODULES; do
		[[ -n ${path[$w]:-} ]] && visit "${path[$w]}"
	done
}

# kernel/fs/9p/9p.ko.xz -> 9p
module_name() {
	local b=${1##*/}
	echo "${b%%.ko*}"
}

# A busybox initramfs: /init, busybox and its applets, the modules.
make_initramfs() {
	local kver=$1 out=$2 root=$WORK/initramfs m src name
	rm -rf "$root"
	mkdir -p "$root"/{bin,dev,proc,sys,host,lib/modules}
	cp /bin/busybox "$root/bin/busybox"
	for m in sh mount insmod chroot poweroff cat echo uname sleep; do
		ln -s busybox "$root/bin/$m"
	done
	cp tests/kernel/init "$root/init"
	: >"$root/modules.order"
	for m in $(module_order "$kver"); do
		src=/lib/modules/$kver/$m
		name=$(module_name "$m")
		case $src in
		*.xz) xz -dc "$src" >"$root/lib/modules/$name.ko" ;;
		*.zst) zstd -qdc "$src" >"$root/lib/modules/$name.ko" ;;
		*) cp "$src" "$root/lib/modules/$name.ko" ;;
		esac || return 1
		echo "$name" >>"$root/modules.order"
	done
	(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$out"
}

mkdir -p "$WORK"
install_pkgs
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64"
# Not `| grep -q`: under pipefail, grep exiting early kills busybox with
# SIGPIPE and the pipeline fails at random (a CI run skipped the lane so).
[[ -x /bin/busybox ]] && /bin/busybox --list | grep -x insmod >/dev/null || skip "no static busybox"
((EUID == 0)) || skip "reading /boot/vmlinuz-* and loading BPF need root"
KVERS=$(pick_kernels)
[[ -n $KVERS ]] || skip "no kernel in /boot built with CONFIG_KPROBES=y and 9p modules"
[[ -x $BUILD/perf-run ]] || fail "$BUILD/perf-run is not built"
# A copy: a rebuild on the host while the guest runs must not change the
# binary under test half-way.
cp "$BUILD/perf-run" "$WORK/perf-run" || fail "cannot copy $BUILD/perf-run"

COUNTS='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
PASSED=0 FAILED=0 SKIPPED=0

# Adds one guest's `N passed, N failed, N skipped` line to the totals.
add_counts() {
	local -a w
	read -ra w <<<"$1"
	((PASSED += w[0], FAILED += w[2], SKIPPED += w[4]))
}

guest_skip() {
	echo "SKIP kernel probes under qemu on $1: $2"
	((SKIPPED++))
}

guest_fail() {
	echo "FAIL kernel probes under qemu on $1: $2"
	((FAILED++))
}

# Boots kernel $1 with this tree's tests and adds up what its runner says.
# GUEST_LABEL, GUEST_APPEND and GUEST_TESTS (noia32_guest) name the run,
# add to the kernel's command line and pick the case files.
run_guest() {
	local kver=$1 dir=$WORK/${GUEST_LABEL:-$1} st start last log
	local tests=${GUEST_TESTS:-${KERNEL_TESTS:-}}
	mkdir -p "$dir"
	[[ -r /boot/vmlinuz-$kver ]] || { guest_skip "$kver" "no /boot/vmlinuz-$kver"; return; }
	make_initramfs "$kver" "$dir/initramfs.cpio.gz" ||
		{ guest_fail "$kver" "cannot build the initramfs"; return; }
	log=$dir/console.log
	echo "test-kernel: booting $kver${GUEST_APPEND:+ ($GUEST_APPEND)} under qemu (TCG), at most ${TIMEOUT}s"
	start=$SECONDS
	# The guest's console is on stdio; -no-reboot with panic=-1 turns a
	# panic into an exit instead of a loop.  One host thread runs all the
	# vCPUs (thread=single): with one each (MTTCG), a 6.12 guest twice died
	# of an int3 in a static-key site of __schedule that another vCPU had
	# just patched back (its stale translation kept the int3).
	timeout -s KILL "$TIMEOUT" qemu-system-x86_64 \
		-machine q35 -accel tcg,thread=single -cpu max -smp "${KERNEL_TEST_SMP:-2}" -m 2048 \
		-display none -serial stdio -monitor none -no-reboot -nodefaults \
		-kernel "/boot/vmlinuz-$kver" -initrd "$dir/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 ${GUEST_APPEND:+$GUEST_APPEND }PR_TREE=$TREE PR_PERF_RUN=$WORK/perf-run${tests:+ PR_TESTS=$tests}${KERNEL_GUEST_SCRIPT:+ PR_SCRIPT=$KERNEL_GUEST_SCRIPT}" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		</dev/null 2>"$dir/qemu.err" | tr -d '\r' >"$log"
	st=${PIPESTATUS[0]}
	echo "test-kernel: guest $kver ran $((SECONDS - start))s (console: $log)"
	# The guest's runner prints PASS/FAIL/SKIP lines, failures in full,
	# and the counts last.
	sed -n '/^perf-run-guest: kernel/,$p' "$log" |
		grep -vE "$COUNTS|^perf-run-guest: exit|^\[ *[0-9]+\.[0-9]+\] " || true
	last=$(grep -E "$COUNTS" "$log" | tail -n 1)
	if ! grep -q '^perf-run-guest: kernel' "$log"; then
		# qemu could not start, or TCG never got the kernel to our init:
		# the machine cannot run the guest, not a perf-run failure.
		tail -n 5 "$dir/qemu.err" "$log" 2>/dev/null | sed 's/^/    | /'
		guest_skip "$kver" "the guest did not boot to its init (qemu exit $st; see $dir/qemu.err)"
		return
	fi
	if [[ -z $last ]]; then
		tail -n 30 "$log" "$dir/qemu.err" | sed 's/^/    | /'
		if ((st == 137)); then
			guest_fail "$kver" "the guest did not finish in ${TIMEOUT}s"
		else
			guest_fail "$kver" "the guest printed no result (qemu exit $st)"
		fi
		return
	fi
	echo "test-kernel: $kver: $last"
	add_counts "$last"
}

# A kernel that cannot exec i386 programs, as some CI machines have (IA32
# emulation off): the newest kernel once more, booted with
# ia32_emulation=false (6.7 and later), runs the i386 cases, which must
# skip saying why, and noia32.test, which checks that the kernel refuses
# them indeed.  Not when cases or a script were picked by hand.
noia32_guest() {
	local k=$1
	[[ -z ${KERNEL_TESTS:-}${KERNEL_GUEST_SCRIPT:-} ]] || return 0
	if ! grep -qx 'CONFIG_IA32_EMULATION=y' "/boot/config-$k" 2>/dev/null ||
	   ! dpkg --compare-versions "${k%%-*}" ge 6.7; then
		guest_skip "$k without IA32" "its kernel has no ia32_emulation= parameter (6.7+, CONFIG_IA32_EMULATION=y)"
		return
	fi
	GUEST_LABEL=$k-noia32 GUEST_APPEND=ia32_emulation=false \
		GUEST_TESTS=tests/kernel/noia32.test,tests/runtime/elf32.test run_guest "$k"
}

# The sources of kernel KVER for -L (perf probe -s, perf-run -s), from
# Debian's linux-source-MAJOR.MINOR when it is the same version as the
# kernel's image and the kernel's DWARF is there (-L needs both): unpacked once into $WORK/src/linux-source-MAJOR.MINOR
# (1.7 GB, about a minute), where tests/kernel/klines.test looks.
unpack_sources() {
	local kver=$1 mm src img dir
	mm=$(cut -d. -f1-2 <<<"$kver")
	src=$(dpkg-query -W -f='${Version}' "linux-source-$mm" 2>/dev/null) || return 0
	img=$(dpkg-query -W -f='${Version}' "linux-image-$kver" 2>/dev/null) || return 0
	dir=$WORK/src/linux-source-$mm
	[[ $src == "$img" && -r /usr/src/linux-source-$mm.tar.xz &&
		-r /usr/lib/debug/boot/vmlinux-$kver ]] || return 0
	[[ -e $dir/.unpacked-$src ]] && return 0
	echo "test-kernel: unpacking /usr/src/linux-source-$mm.tar.xz for -L (once)"
	rm -rf "$dir" && mkdir -p "$WORK/src" &&
		tar -xJf "/usr/src/linux-source-$mm.tar.xz" -C "$WORK/src" &&
		: >"$dir/.unpacked-$src" || echo "test-kernel: cannot unpack linux-source-$mm"
}

for KVER in $KVERS; do
	unpack_sources "$KVER"
	run_guest "$KVER"
done
noia32_guest "${KVERS%%$'\n'*}"
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
((FAILED == 0))
