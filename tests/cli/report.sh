#!/bin/sh
# report.sh - `iotape report`: the page of each bundled trace is one
# self-contained file of at most 2 MiB that real headless Chromium loads
# without console messages, with every section's plot drawn, a screenshot
# that is not blank, and figures equal to `iotape analyze --json`'s.  Bad
# input (a missing trace, a truncated one, an output that exists) gives
# one error line, exit 1, and leaves the output as it was: no partial page,
# no temporary file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"

for t in "$TOP"/traces/*.iotape; do
	n=$(basename "$t" .iotape)
	ok "$IOTAPE" report -o "$T/$n.html" "$t"
	[ -s "$T/out" ] && fail "report $n wrote to stdout: $(head -c 200 "$T/out")"
	ok "$IOTAPE" analyze --json "$t"
	mv "$T/out" "$T/$n.json" || fail "mv"
	page_check "$T/$n.html" "$T/$n.json"
done

# REPORT_PNG=FILE: keep a screenshot of image_folder's page there (the
# README's doc/report.png: REPORT_PNG=$PWD/doc/report.png sh tests/cli/report.sh)
if [ -n "${REPORT_PNG:-}" ]; then
	(cd "$TOP" && "$IOTAPE" report -o "$T/shot.html" traces/image_folder.iotape) ||
		fail "report for the screenshot failed"
	chrome --screenshot="$T/shot.png" --window-size=1200,1900 "file://$T/shot.html" >/dev/null ||
		fail "chromium --screenshot failed: $(tail -n 3 "$T/chrome.err")"
	"$PY" -c 'import sys; from PIL import Image
Image.open(sys.argv[1]).convert("RGB").quantize(colors=256).save(sys.argv[2], optimize=True)' \
		"$T/shot.png" "$REPORT_PNG" || fail "writing $REPORT_PNG"
fi

# the default output: TRACE's name with .html, in the current directory
mkdir "$T/cwd" || fail "mkdir"
(cd "$T/cwd" && "$IOTAPE" report "$TOP/traces/checkpoint.iotape" >"$T/out" 2>"$T/err") ||
	fail "report without -o: $(cat "$T/err")"
[ -s "$T/cwd/checkpoint.html" ] || fail "report without -o: no checkpoint.html: $(ls "$T/cwd")"
# '-': standard output, the same page
ok "$IOTAPE" report -o - "$TOP/traces/checkpoint.iotape"
same "$T/cwd/checkpoint.html" "$T/out"

# an existing output is refused without -f, and kept
echo keep >"$T/old.html" || fail "write"
err_line 1 "iotape report: " "exists (use -f" "$IOTAPE" report -o "$T/old.html" "$TOP/traces/checkpoint.iotape"
[ "$(cat "$T/old.html")" = keep ] || fail "an existing output was changed without -f"
ok "$IOTAPE" report -f -o "$T/old.html" "$TOP/traces/checkpoint.iotape"
same "$T/cwd/checkpoint.html" "$T/old.html"

# a missing trace
echo keep >"$T/old.html" || fail "write"
err_line 1 "iotape report: " "$T/nope.iotape" "$IOTAPE" report -f -o "$T/old.html" "$T/nope.iotape"
[ "$(cat "$T/old.html")" = keep ] || fail "a failed report replaced its output"
err_line 1 "iotape report: " "$T/nope.iotape" "$IOTAPE" report -o "$T/new.html" "$T/nope.iotape"
[ -e "$T/new.html" ] && fail "a failed report left $T/new.html"

# a truncated trace: cut in the middle
t=$TOP/traces/image_folder.iotape
size=$(wc -c <"$t") || fail "wc"
head -c $((size / 2)) "$t" >"$T/cut.iotape" || fail "head"
err_line 1 "iotape report: " "truncated" "$IOTAPE" report -o "$T/new.html" "$T/cut.iotape"
[ -e "$T/new.html" ] && fail "a report of a truncated trace left $T/new.html"
err_line 1 "iotape report: " "truncated" "$IOTAPE" report -f -o "$T/old.html" "$T/cut.iotape"
[ "$(cat "$T/old.html")" = keep ] || fail "a failed report replaced its output"
# cut inside the header: not a trace at all
head -c 20 "$t" >"$T/stub.iotape" || fail "head"
err_line 1 "iotape report: " "$T/stub.iotape" "$IOTAPE" report -o "$T/new.html" "$T/stub.iotape"
[ -e "$T/new.html" ] && fail "a report of a stub left $T/new.html"
# no temporary file left anywhere
ls -a "$T" | grep -q 'iotape-report' && fail "temporary files left: $(ls -a "$T")"

# usage
err_line 2 "iotape report: " "missing TRACE" "$IOTAPE" report
err_line 2 "iotape report: " "two traces" "$IOTAPE" report --compare "$t"
err_line 2 "iotape report: " "--compare" "$IOTAPE" report --map /tmp "$t"
exit 0
