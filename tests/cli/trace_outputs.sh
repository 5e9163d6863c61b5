#!/bin/sh
# SPDX-License-Identifier: MIT
# trace_outputs.sh - what analyze, compare, report and model print for the
# committed traces (traces/*.iotape) stays what it was, byte for byte.
#
# tests/data/outputs/ holds, per trace NAME, the outputs of the commands
# below as iotape printed them when the file was last written (gzipped
# where large: gzip -9n, so the .gz bytes do not change with the time
# they were made; the HTML pages without their generator line, which
# names the version).  A change of any of these outputs is either a bug or
# a change of the analysis that must be made on purpose: then rewrite
# them with
#     IOTAPE_OUTPUTS_WRITE=1 sh tests/cli/trace_outputs.sh
# and say in the commit why they changed.  Reads committed files only.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || fail "cd $TOP"
D=tests/data/outputs
write=${IOTAPE_OUTPUTS_WRITE:-0}

# out NAME KIND GZ CMD...: CMD's standard output (it must exit 0, quietly)
# against $D/NAME.KIND (.gz when GZ is 1)
out() {
	name=$1 kind=$2 gz=$3
	shift 3
	ok "$@"
	# the page names the iotape version that wrote it: not compared
	case $kind in
	*.html) sed '/^<meta name="generator" content="iotape [^"]*">$/d' "$T/out" >"$T/o2" &&
		mv "$T/o2" "$T/out" || fail "sed $kind" ;;
	esac
	f=$D/$name.$kind
	if [ "$gz" = 1 ]; then
		f=$f.gz
		if [ "$write" = 1 ]; then
			gzip -9n <"$T/out" >"$f" || fail "gzip $f"
			return 0
		fi
		[ -f "$f" ] || fail "$f is missing"
		gzip -dc "$f" >"$T/want" || fail "gzip -dc $f"
	else
		if [ "$write" = 1 ]; then
			cp "$T/out" "$f" || fail "cp $f"
			return 0
		fi
		[ -f "$f" ] || fail "$f is missing"
		cp "$f" "$T/want" || fail "cp $f"
	fi
	cp "$T/out" "$T/got"
	cmp -s "$T/want" "$T/got" && return 0
	diff "$T/want" "$T/got" | head -n 30 >&2
	fail "$* differs from $f"
}

n=0
for tr in traces/*.iotape; do
	[ -f "$tr" ] || continue
	n=$((n + 1))
	name=$(basename "$tr" .iotape)
	out "$name" analyze.json 1 "$IOTAPE" analyze --json "$tr"
	# the passes on one thread give the same analysis
	out "$name" analyze.json 1 "$IOTAPE" analyze --json --threads 1 "$tr"
	out "$name" analyze.txt 0 "$IOTAPE" analyze "$tr"
	out "$name" analyze-all.txt 1 "$IOTAPE" analyze --per-file --per-process --top 0 "$tr"
	out "$name" compare.txt 0 "$IOTAPE" compare --check "$tr" "$tr"
	out "$name" compare.json 1 "$IOTAPE" compare --json "$tr" "$tr"
	out "$name" model.ini 0 "$IOTAPE" model "$tr"
	out "$name" report.html 1 "$IOTAPE" report -o - "$tr"
	out "$name" report-compare.html 1 "$IOTAPE" report -o - --compare "$tr" "$tr"
done
[ "$n" = 4 ] || fail "$n traces under traces/, want 4"
exit 0
