#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# spdx.sh - part of `make check`: every source file of the tree (*.c, *.h,
# *.cc, *.sh, *.py, *.bt; tracked or new, not ignored) names its licence
# with an `SPDX-License-Identifier:` line in its first 5 lines.  Prints
# each file that lacks one, then a count, and fails if there is any.
# Not checked, with the reason: tests/errors/ (golden diagnostic inputs:
# their .err files name line:column, and the cases about the start or the
# end of a file would change with a line more) and fuzz/corpus/ (fuzzer
# seeds, data read byte for byte).  debian/copyright's `Files: *` covers
# them.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $(git rev-parse --show-toplevel 2>/dev/null) == "$PWD" ]]; then   # not a tarball unpacked inside another tree
	list() { git ls-files -z --cached --others --exclude-standard; }
else    # an unpacked `make dist` tarball (debian/ holds no source of this kind, only build output)
	list() { find . \( -path ./build -o -path ./debian \) -prune -o -type f -print0 | sed -z 's|^\./||'; }
fi

missing=0 total=0
while IFS= read -r -d '' f; do
	case $f in
	tests/errors/* | fuzz/corpus/*) continue ;;
	*.c | *.h | *.cc | *.sh | *.py | *.bt) ;;
	*) continue ;;
	esac
	[[ -f $f ]] || continue     # deleted, not yet committed
	((++total))
	if ! head -n 5 -- "$f" | grep -q 'SPDX-License-Identifier: '; then
		echo "spdx: $f has no SPDX-License-Identifier line in its first 5 lines"
		((++missing))
	fi
done < <(list)

if ((missing)); then
	echo "spdx: $missing of $total source files lack an SPDX line; add" \
	     "'SPDX-License-Identifier: GPL-2.0-only' in a comment near the top"
	exit 1
fi
echo "spdx: all $total source files carry an SPDX line"
