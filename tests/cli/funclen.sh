#!/bin/sh
# No function over MAX (120) lines (issue #29, item 6), counted from the
# first line of its signature that has a '(' (the line that names it, in
# this tree's style, as ctags counts) to its closing brace.
#
# Every C source of the tree is measured (the BPF programs, *.bpf.c, too);
# each offender is listed as "LINES FILE:LINE NAME" and fails the test,
# in every folder (tests/ and bench/ included; a new folder too).
#
# Functions are found in the tree's style (git, the kernel): the body's
# opening and closing braces alone in column 0, the signature above, starting
# in column 0.  The check proves itself on a planted long function.
#
#   sh tests/cli/funclen.sh [FILE...]    (tests/run runs it on the tree)
#   sh tests/cli/funclen.sh -l [FILE...] (every function's length, longest first)
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-funclen.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
cd "$TOP" || exit 1

MAX=${FUNCLEN_MAX:-120}

# measure FILE...: "LINES FILE:LINE NAME" per function
measure() {
	awk '
	FNR == 1 { sig = 0; infn = 0 }
	infn { if (/^\}/) { infn = 0; printf "%d %s:%d %s\n", FNR - start + 1, FILENAME, start, name }; next }
	/^\{/ && sig {
		infn = 1; start = sig; name = text; sig = 0
		gsub(/__attribute__[ \t]*\(\([^()]*(\([^()]*\))?[^()]*\)\)/, "", name)
		sub(/\(.*/, "", name); sub(/.*[ \t*]/, "", name)
		next
	}
	/^[;}#]/ || /^[ \t]*$/ { sig = 0; next }
	{
		if (!sig && /^[A-Za-z_]/ && !/^typedef/ && /\(/) { sig = FNR; text = $0 }
		else if (sig) text = text " " $0
		if (/;[ \t]*$/) sig = 0
	}' "$@"
}

# self-check: a planted function of MAX+1 lines, its signature on three
# lines behind an attribute, is found, named, counted and over; a short one
# after it is measured on its own and is not over
{
	echo 'static __attribute__((noinline)) int'
	echo 'planted(int a,'
	echo '	int b)'
	echo '{'
	i=5; while [ $i -lt $((MAX + 1)) ]; do echo '	a += b;'; i=$((i + 1)); done
	echo '}'
	echo 'static int short_one(void)'
	echo '{'
	echo '	return 0;'
	echo '}'
} >"$T/planted.c"
measure "$T/planted.c" >"$T/self" || { echo "FAIL: awk failed" >&2; exit 1; }
want="$((MAX + 1)) $T/planted.c:1 planted
4 $T/planted.c:$((MAX + 2)) short_one"
if [ "$(cat "$T/self")" != "$want" ]; then
	echo "FAIL: self-check: measured" >&2; cat "$T/self" >&2
	echo "wanted" >&2; echo "$want" >&2
	exit 1
fi
over=$(awk -v max="$MAX" '$1 > max { print $3 }' "$T/self")
[ "$over" = planted ] || { echo "FAIL: self-check: over $MAX: '$over', wanted 'planted'" >&2; exit 1; }

list=0
[ "${1-}" = -l ] && { list=1; shift; }
if [ $# -gt 0 ]; then
	files=$*
else
	git ls-files '*.c' >"$T/files" 2>/dev/null || find . -name '*.c' ! -path './.output/*' | sed 's,^\./,,' >"$T/files"
	files=$(cat "$T/files")
fi
[ -n "$files" ] || { echo "FAIL: no C sources found" >&2; exit 1; }
# shellcheck disable=SC2086
measure $files >"$T/all" || { echo "FAIL: awk failed" >&2; exit 1; }
[ -s "$T/all" ] || { echo "FAIL: no functions found in the sources" >&2; exit 1; }
if [ $list = 1 ]; then
	sort -k1,1nr "$T/all"
	exit 0
fi
awk -v max="$MAX" '$1 > max' "$T/all" | sort -k1,1nr >"$T/over"

bad=0
while read -r n where name; do
	echo "FAIL: $n lines (over $MAX): $where $name" >&2
	bad=$((bad + 1))
done <"$T/over"
echo "$(wc -l <"$T/all") functions measured, $bad over $MAX lines"
[ $bad -eq 0 ]
