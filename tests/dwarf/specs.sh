# SPDX-License-Identifier: GPL-2.0-only
# specs.sh - sourced by conformance.sh and values.sh: the .specs files
# name source lines by marker comments, so specs survive edits of the
# test programs.

# expand SPEC SRC: replaces each @TEXT@ in SPEC with the number of the
# line of SRC that holds /* TEXT */.
expand() {
	local spec=$1 src=$2 mark line
	while [[ $spec =~ @([^@]*)@ ]]; do
		mark=${BASH_REMATCH[1]}
		line=$(grep -n -F "/* $mark */" "$src" | head -1 | cut -d: -f1)
		spec=${spec/@$mark@/$line}
	done
	printf '%s' "$spec"
}
