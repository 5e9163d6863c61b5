#!/bin/sh
# Bad input is reported as one "iotape import: FILE:LINE: what" line, exit
# 1, and leaves no trace behind; an existing trace is never replaced
# without -f.
. "$(dirname "$0")/lib.sh"

no_tmp() {
	for f in "$T"/*.tmp.*; do
		[ -e "$f" ] && fail "temporary file left behind: $f"
	done
	return 0
}

# bad_csv LINE PATTERN [IMPORT ARGS...] < CSV
bad_csv() {
	line=$1 pattern=$2
	shift 2
	cat >"$T/bad.csv"
	rm -f "$T/bad.tape"
	err_line 1 "iotape import: $T/bad.csv:$line: " "$pattern" \
		"$IOTAPE" import "$@" -o "$T/bad.tape" "$T/bad.csv"
	[ -e "$T/bad.tape" ] && fail "$T/bad.tape left behind ($pattern)"
	no_tmp
	return 0
}

# the line number counts the newlines inside quoted fields
bad_csv 4 "'12x' is not a number" <<'EOT'
ts_ns,op,path,size
1,openat,"/a
b",0
2,openat,/c,12x
EOT
bad_csv 1 "unknown column 'colour'" <<'EOT'
ts_ns,op,colour
EOT
bad_csv 1 "no ts_ns column" <<'EOT'
op,path
EOT
bad_csv 1 "no op column" <<'EOT'
ts_ns,path
EOT
bad_csv 1 "appears twice" <<'EOT'
ts_ns,op,ts_ns
EOT
bad_csv 3 "3 fields, the header has 4" <<'EOT'
ts_ns,op,path,size
1,openat,/a,0
2,openat,/b
EOT
bad_csv 2 "unknown op 'frobnicate'" <<'EOT'
ts_ns,op,path
1,frobnicate,/a
EOT
bad_csv 2 "openat needs a path" <<'EOT'
ts_ns,op
1,openat
EOT
bad_csv 2 "pid: 4294967296 is out of range" <<'EOT'
ts_ns,pid,op,path
1,4294967296,openat,/a
EOT
bad_csv 2 "ts_ns: 18446744073709551616 is out of range" <<'EOT'
ts_ns,op,path
18446744073709551616,openat,/a
EOT
bad_csv 2 "size: -1 is out of range" <<'EOT'
ts_ns,op,path,size
1,openat,/a,-1
EOT
bad_csv 2 "ret: 9223372036854775808 is out of range" <<'EOT'
ts_ns,op,path,ret
1,openat,/a,9223372036854775808
EOT
bad_csv 2 "column ret: '' is not a number" <<'EOT'
ts_ns,op,path,ret
1,openat,/a,
EOT
bad_csv 2 "quoted field never ends" <<'EOT'
ts_ns,op,path
1,openat,"/a
EOT
bad_csv 2 "after the closing quote" <<'EOT'
ts_ns,op,path
1,openat,"/a"x
EOT
bad_csv 1 "no header" </dev/null
bad_csv 3 "unknown RWBS flags 'Q'" -t block <<'EOT'
ts_ns,rwbs
1,R
2,Q
EOT
bad_csv 1 "unknown column 'op' for table sample" -t sample <<'EOT'
ts_ns,op
EOT
printf 'ts_ns,op,path\n1,openat,/a\0b\n' | bad_csv 2 "NUL byte"

# blank lines (and none at the end) are fine; hex and CRLF too
printf 'ts_ns,op,path,size\r\n\r\n0x10,openat,/a,0x0\r\n\n20,read,/a,0x10' >"$T/ok.csv"
ok "$IOTAPE" import -o "$T/ok.tape" "$T/ok.csv"
ok "$IOTAPE" dump -F csv "$T/ok.tape"
[ "$(sed -n 3p "$T/out")" = "20,1,1,read,/a,3,0,16,16,0,1,0x0,,-1,0,0" ] || fail "hex/CRLF: $(cat "$T/out")"

# an existing output is refused without -f and left untouched
printf 'precious\n' >"$T/exists.tape"
err_line 1 "iotape import: " "exists" "$IOTAPE" import -o "$T/exists.tape" "$T/ok.csv"
[ "$(cat "$T/exists.tape")" = precious ] || fail "existing file changed"
# a failing -f import leaves it untouched too
printf 'ts_ns,op\n1,bogus\n' >"$T/bogus.csv"
run "$IOTAPE" import -f -o "$T/exists.tape" "$T/bogus.csv"
[ "$rc" -eq 1 ] || fail "bad import with -f exited $rc"
[ "$(cat "$T/exists.tape")" = precious ] || fail "failed -f import changed the file"
no_tmp
ok "$IOTAPE" import -f -o "$T/exists.tape" "$T/ok.csv"
ok "$IOTAPE" dump -F csv "$T/exists.tape"
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "-f did not replace the trace"

# a spreadsheet's UTF-8 byte order mark before the header
printf '\357\273\277ts_ns,op,path\n1,openat,/a\n' >"$T/bom.csv"
ok "$IOTAPE" import -o "$T/bom.tape" "$T/bom.csv"

# stdin
ok "$IOTAPE" import -o "$T/stdin.tape" - <"$T/ok.csv"
exit 0
