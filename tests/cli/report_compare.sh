#!/bin/sh
# report_compare.sh - `iotape report --compare A B`: the fidelity checks
# at the top are exactly `compare --check`'s (names, verdicts), every
# section shows A and B side by side, each side's figures equal its own
# `analyze --json`'s, and the page passes the same browser checks as a
# single report's.  The page is made whether the checks pass or fail
# (exit 0): it is a report, `compare --check` is the test.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"

# checks_of COMPARE_OUTPUT: "NAME ok|FAIL" lines of compare --check's text
checks_of() {
	sed -n 's/^  \(ok\|FAIL\)  *\([a-z_]*\) .*/\2 \1/p' "$1" | sed 's/ ok$/ 1/; s/ FAIL$/ 0/'
}

a=$TOP/traces/image_folder.iotape
ok "$IOTAPE" analyze --json "$a"
mv "$T/out" "$T/a.json" || fail "mv"

# a trace and itself: every check passes
ok "$IOTAPE" report --compare -o "$T/same.html" "$a" "$a"
page_check "$T/same.html" "$T/a.json" "$T/a.json"
ok "$IOTAPE" compare --check "$a" "$a"
checks_of "$T/out" >"$T/want" || fail "checks_of"
[ "$(wc -l <"$T/want")" -ge 8 ] || fail "compare --check printed $(wc -l <"$T/want") checks: $(cat "$T/out")"
same "$T/want" "$T/page.dom.checks"
grep -q 'id="check-verdict">PASSED: 0 of' "$T/same.html" || fail "same: no PASSED verdict"

# two different jobs: checks fail, and the page says which
b=$TOP/traces/shards.iotape
ok "$IOTAPE" analyze --json "$b"
mv "$T/out" "$T/b.json" || fail "mv"
ok "$IOTAPE" report --compare -o "$T/diff.html" "$a" "$b"
page_check "$T/diff.html" "$T/a.json" "$T/b.json"
run "$IOTAPE" compare --check "$a" "$b"
[ "$rc" -eq 1 ] || fail "compare --check of two jobs exited $rc"
checks_of "$T/out" >"$T/want" || fail "checks_of"
same "$T/want" "$T/page.dom.checks"
grep -q 'id="check-verdict">FAILED: [1-9]' "$T/diff.html" || fail "diff: no FAILED verdict"

# --map: B is a replay of A under /r (the small traces of compare.sh)
cat >"$T/a.csv" <<'EOT'
ts_ns,tid,op,path,offset,size,dur_ns
0,1,openat,/data/a,0,0,1000
2000,1,read,/data/a,0,4096,1000
10000,1,read,/data/a,4096,4096,1000
20000,1,read,/data/a,8192,4096,1000
EOT
cat >"$T/b.csv" <<'EOT'
ts_ns,tid,op,path,fd,offset,size,dur_ns
0,7,openat,/home/u/job.iotape,-100,0,0,200
1000,8,openat,/r/data/a,-100,0,0,1000
3000,8,io_uring_enter,,9,0,1,1000
3000,8,uring_read,/r/data/a,5,0,4096,1000
11000,8,io_uring_enter,,9,0,1,1000
11000,8,uring_read,/r/data/a,5,4096,4096,1000
21000,8,io_uring_enter,,9,0,1,1000
21000,8,uring_read,/r/data/a,5,8192,4096,1000
EOT
ok "$IOTAPE" import -o "$T/a.tape" "$T/a.csv"
ok "$IOTAPE" import -o "$T/b.tape" "$T/b.csv"
ok "$IOTAPE" compare --map /r --check "$T/a.tape" "$T/b.tape"
checks_of "$T/out" >"$T/want" || fail "checks_of"
ok "$IOTAPE" report --compare --map /r -o "$T/map.html" "$T/a.tape" "$T/b.tape"
sed -n 's/.*<tr class="check" data-check="\([a-z_]*\)" data-ok="\([01]\)".*/\1 \2/p' \
	"$T/map.html" >"$T/got" || fail "sed"
same "$T/want" "$T/got"
grep -q 'id="check-verdict">PASSED' "$T/map.html" || fail "--map: no PASSED verdict"

# errors: B missing, no partial page
err_line 1 "iotape report: " "$T/nope.iotape" "$IOTAPE" report --compare -o "$T/x.html" "$a" "$T/nope.iotape"
[ -e "$T/x.html" ] && fail "a failed --compare left $T/x.html"
exit 0
