#!/bin/sh
# escape.sh - no error line can be split or reach the terminal: control
# bytes and backslashes in what a message quotes (a path in a trace, a
# trace's own name, an argument) are escaped as `iotape dump` escapes
# paths (\n, \x1b, \\), so each message stays one line and carries no
# escape sequence.  A trace path with a newline, "ESC[31m" and '..' used to
# come out of replay's refusal raw, over two lines, in red.
. "$(dirname "$0")/lib.sh"

ESC=$(printf '\033')
NL='
'
# one_line RC PATTERN CMD...: err_line, and no ESC byte on stderr
one_line() {
	err_line "$@"
	grep -q "$ESC" "$T/err" && fail "'$*': raw ESC on stderr: $(od -c "$T/err")"
	return 0
}

# a path in the trace: a quoted CSV field holds the newline
{
	echo 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,path2'
	printf '1000,1,1,openat,"/data/x\n%s[31mred\\b/../../etc/passwd",-1,0,0,3,10,0,\n' "$ESC"
	printf '2000,1,1,read,"/data/x\n%s[31mred\\b/../../etc/passwd",3,0,4096,4096,10,0,\n' "$ESC"
} >"$T/esc.csv"
ok "$IOTAPE" import -o "$T/esc.tape" "$T/esc.csv"
one_line 1 "iotape replay: " "path '/data/x\n\x1b[31mred\\\\b/../../etc/passwd' has a '..' component: refused" \
	"$IOTAPE" replay -d "$T/d" "$T/esc.tape"

# the trace's own name, missing and as a FIFO
bad="$T/t${NL}${ESC}[31m\\x.tape"
shown="$T/t\n\x1b[31m\\\\x.tape"
for c in info dump analyze; do
	one_line 1 "iotape $c: " "cannot open '$shown': No such file or directory" "$IOTAPE" $c "$bad"
done
one_line 1 "iotape replay: " "$shown" "$IOTAPE" replay -d "$T/d" "$bad"
one_line 1 "iotape compare: " "$shown" "$IOTAPE" compare "$T/esc.tape" "$bad"
mkfifo "$bad" || skip "mkfifo failed"
one_line 1 "iotape dump: " "$shown: Invalid argument: not a regular file (a FIFO)" \
	timeout 5 "$IOTAPE" dump "$bad"
rm -f "$bad"

# CSV input, options, commands
one_line 1 "iotape import: " "$shown: No such file or directory" \
	"$IOTAPE" import -o "$T/o.tape" "$bad"
one_line 2 "iotape info: " "unknown option '--x\n\x1b[31m'" "$IOTAPE" info "--x${NL}${ESC}[31m" "$T/esc.tape"
one_line 1 "iotape: " "'x\n\x1b[31m' is not an iotape command" "$IOTAPE" "x${NL}${ESC}[31m"

# convert's summary names its output on one line too
run "$IOTAPE" convert -o "$bad" "$T/esc.tape"
[ "$rc" -eq 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] || fail "convert summary: $(cat "$T/err")"
grep -qF "$shown: 2 events" "$T/err" || fail "convert summary: $(cat "$T/err")"
grep -q "$ESC" "$T/err" && fail "convert summary: raw ESC"
exit 0
