# SPDX-License-Identifier: GPL-2.0-only
# kmod.sh - sourced: kmod_split SPEC sets pspec and mopt for perf probe,
# the way perf probe takes a point in a loaded module: MOD:POINT (perf-run's
# kprobe:MOD:POINT) is `-m DEBUGINFO POINT`, the module's debuginfo found
# under /usr/lib/debug/lib/modules/RELEASE (perf 6.1 looks for it only
# beside the compressed .ko in /lib/modules); any other SPEC is itself.
kmod_split() {
	pspec=$1 mopt=()
	if [[ $1 =~ ^([A-Za-z0-9_-]+):([^0-9].*)$ && -d /sys/module/${BASH_REMATCH[1]//-/_}/sections ]]; then
		pspec=${BASH_REMATCH[2]}
		mopt=(-m "$(find "/usr/lib/debug/lib/modules/$(uname -r)" -name "${BASH_REMATCH[1]}.ko" | head -1)")
	fi
}
