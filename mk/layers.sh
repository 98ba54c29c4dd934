#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# layers.sh - the layering rules of docs/ARCHITECTURE.md ("Conventions"),
# checked by `make check` after a build; prints each offence, exits 1 if any.
#  1. no cycle in the symbol graph of the modules' objects in build/obj (nm:
#     undefined in A, defined in B) outside the codegen and sema families,
#     each one node (cg_*.o and codegen.o; sema.o and sema_*.o: a statement
#     needs expressions and calls, which need statements);
#  2. a private header (compiler/dwarf_X.h behind the dwarf.h facade,
#     codegen_int.h, any X_int.h) is included only by its family;
#  3. runtime/ includes only runtime/, lib/ and compiler/program.h; lib/ only
#     lib/; compiler/ nothing from runtime/;
#  4. a project header is spelled "dir/x.h" from the top (-I.), never "../".
# Run from the top of the tree.  BUILD: the build folder (build).

# ---- TEMPORARY EXCEPTIONS (issue 28): delete each line once its reason is
# gone: the cycles with the three one-function moves, the includes with lib/.
# "cycle A B ...: why" allows exactly that strongly connected component;
# "include FILE HEADER: why" allows that one include.  A line no longer
# needed is said (not an error) so that it can be deleted.
TEMP='
'
# ---- end of the temporary exceptions ----

B=${BUILD:-build}
# The modules' objects (not the tests'), without stale ones of removed sources.
objs=$(cd "$B/obj" 2>/dev/null && find compiler runtime perf-plugin lib -name '*.o' 2>/dev/null |
	sort | while read -r o; do [ -f "$OLDPWD/${o%.o}.c" ] && echo "$B/obj/$o"; done)
[ -n "$objs" ] || { echo "layers: no objects in $B/obj: build first (make all)" >&2; exit 1; }
srcs=$(find compiler runtime perf-plugin lib tests fuzz -name '*.[ch]' 2>/dev/null | sort)
{ echo "$TEMP"; echo "%%"; find compiler runtime perf-plugin lib tests fuzz -name '*.h' 2>/dev/null
  echo "%%"; nm -A $objs; echo "%%"; grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $srcs
} | awk -v B="$B/obj/" '
function bad(s) { print "layers: " s; nbad++ }
function node(f) { sub(/:.*/, "", f); f = substr(f, length(B) + 1); sub(/\.o$/, "", f)
	if (f ~ /^compiler\/(cg_[a-z0-9_]*|codegen)$/) return "compiler/codegen+cg_*"
	return f ~ /^compiler\/sema(_[a-z0-9_]*)?$/ ? "compiler/sema+sema_*" : f }
function visit(v,   i, w, k, c) {   # Tarjan: strongly connected components
	idx[v] = low[v] = ++cnt; stk[++sp] = v; on[v] = 1
	for (i = 1; i <= nadj[v]; i++) { w = adj[v, i]
		if (!(w in idx)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
		else if (on[w] && idx[w] < low[v]) low[v] = idx[w] }
	if (low[v] != idx[v]) return
	do { w = stk[sp--]; on[w] = 0; c = c " " w; k++ } while (w != v)
	if (k > 1) allowed(c, k) || bad("cycle outside the codegen and sema families:" c)
}
function allowed(c, k,   j, n, m) {
	for (j = 1; j <= ncyc; j++) { if (cycn[j] != k) continue
		n = split(c, m, " "); while (n && index(cyc[j], " " m[n] " ")) n--
		if (!n) { used["c" j] = 1; return 1 } }
	return 0 }
/^%%$/ { part++; next }
part == 0 && $1 == "cycle" { sub(/:.*/, ""); $1 = ""; cyc[++ncyc] = $0 " "; cycn[ncyc] = NF - 1 }
part == 0 && $1 == "include" { sub(/:$/, "", $3); inc[$2 " " $3] = 1 }
part == 1 { hdr[$0] = 1 }
part == 2 && $(NF-1) == "U" { use[node($1), $NF] = 1 }
part == 2 && $(NF-1) ~ /^[A-TV-Z]$/ { def[$NF] = node($1) }
part == 3 { split($0, q, "\""); p = q[2]; split($0, a, ":"); f = a[1]; where = f ":" a[2]
	d = f; sub(/\/[^\/]*$/, "", d)
	r = d "/" p; while (sub(/[^\/]+\/\.\.\//, "", r)) ;
	if (!(r in hdr)) { if (!(p in hdr)) next; r = p }
	if (p ~ /^\.\.\//) bad(where ": spell it \"" r "\" (from the top, -I.)")
	fam = r ~ /^compiler\/dwarf_/ ? "compiler/dwarf" : r ~ /_int\.h$/ ? substr(r, 1, length(r) - 6) : ""
	if (fam != "" && index(f, fam) != 1 && !(r == "compiler/codegen_int.h" && f ~ /^compiler\/cg_/))
		bad(where ": private header " r " included outside its family")
	top = f; sub(/\/.*/, "", top); to = r; sub(/\/.*/, "", to)
	if ((top == "runtime" && to != "runtime" && to != "lib" && r != "compiler/program.h") ||
	    (top == "lib" && to != "lib") || (top == "compiler" && to == "runtime"))
		if ((f " " r) in inc) used["i" f " " r] = 1
		else bad(where ": " top "/ includes " r " (" top "/ may include " \
		  (top == "runtime" ? "runtime/, lib/ and compiler/program.h)" : top == "lib" ? "lib/ only)" : "no runtime/ header)"))
}
END {
	for (k in use) { split(k, e, SUBSEP); t = def[e[2]]
		if (t != "" && t != e[1] && !((e[1], t) in seen)) { seen[e[1], t] = 1; adj[e[1], ++nadj[e[1]]] = t } }
	for (k in use) { split(k, e, SUBSEP); if (!(e[1] in idx)) visit(e[1]) }
	for (j = 1; j <= ncyc; j++) if (!used["c" j]) print "layers: note: no cycle" cyc[j] "any more: delete its temporary exception"
	for (k in inc) if (!used["i" k]) print "layers: note: no include " k " any more: delete its temporary exception"
	exit nbad ? 1 : 0
}'
