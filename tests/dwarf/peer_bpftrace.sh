# SPDX-License-Identifier: GPL-2.0-only
# peer_bpftrace.sh - sourced by realcode.sh: what bpftrace 0.17 can read
# at the function entries of a specs file, beside perf-run.
#
# bpftrace 0.17 reads a uprobe's parameters by name (args->NAME, with
# libdw) only in C functions: for a C++ function it finds no DWARF
# parameters and offers arg0..arg5, the registers.  Counted per function
# entry ("p FUNC" without a line) of SPECS, by its demangled name as func
# prints it:
#   attached   `uprobe:BIN:"FUNC" { exit(); }` attaches (bpftrace's own
#              demangled-name matching)
#   named      parameters `bpftrace -lv` lists for it (readable by name)
# and perf-run's named parameters (`perf-run -lv`) beside them.
#
#   bpftrace_count LABEL BIN SPECS    appends "LABEL|funcs|attached|bt|pr"
#   bpftrace_report                   one line per LABEL
# Needs: out, PERF_RUN.

bpftrace_count() {  # LABEL BIN SPECS
	local label=$1 bin=$2 f nf=0 na=0 nb=0 np=0
	command -v bpftrace >/dev/null || return 0
	while read -r f; do
		nf=$((nf + 1))
		timeout 30 bpftrace -e "uprobe:$bin:\"$f\" { exit(); }" -c /bin/true 2>&1 |
			grep -q '^Attaching' && na=$((na + 1))
		nb=$((nb + $(timeout 30 bpftrace -lv "uprobe:$bin:\"$f\"" 2>/dev/null | grep -c '^    ')))
		np=$((np + $("$PERF_RUN" -lv "uprobe:$bin:\"$f\"" 2>/dev/null | grep -c '^    ')))
	done < <(sed -n 's/^p \([^:]*\(::[^:]*\)*\)$/\1/p' "$3")
	echo "$label|$nf|$na|$nb|$np" >> "$out/bpftrace.txt"
}

bpftrace_report() {
	[ -s "$out/bpftrace.txt" ] || return 0
	awk -F'|' '{ f[$1] += $2; a[$1] += $3; b[$1] += $4; p[$1] += $5
		     if (!($1 in s)) { s[$1] = 1; o[++n] = $1 } }
		END { for (i = 1; i <= n; i++) { l = o[i]
			printf "bpftrace 0.17 %s: %d function entries, attached by demangled name %d, parameters named %d (perf-run %d)\n",
				l, f[l], a[l], b[l], p[l] } }' "$out/bpftrace.txt"
}
