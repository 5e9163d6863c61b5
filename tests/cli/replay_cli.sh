#!/bin/sh
# iotape replay's command line: usage errors are one line and exit 2,
# runtime errors one line and exit 1; -h agrees with `iotape help replay`.
. "$(dirname "$0")/lib.sh"

ok "$IOTAPE" replay -h
grep -q '^usage: iotape replay -d DIR ' "$T/out" || fail "-h: $(head -n 1 "$T/out")"
printf 'ts_ns,op,path,size\n1,openat,/a,0\n2,read,/a,10\n' >"$T/a.csv"
ok "$IOTAPE" import -o "$T/a.tape" "$T/a.csv"

err_line 2 "iotape replay: " "missing TRACE" "$IOTAPE" replay -d "$T/d"
err_line 2 "iotape replay: " "--dir is required" "$IOTAPE" replay "$T/a.tape"
err_line 2 "iotape replay: " "expected one TRACE" "$IOTAPE" replay -d "$T/d" "$T/a.tape" "$T/a.tape"
err_line 2 "iotape replay: " "timing" "$IOTAPE" replay --timing fast -d "$T/d" "$T/a.tape"
err_line 2 "iotape replay: " "--speed: '0'" "$IOTAPE" replay --speed 0 -d "$T/d" "$T/a.tape"
err_line 2 "iotape replay: " "--speed: 'x'" "$IOTAPE" replay --speed x -d "$T/d" "$T/a.tape"
err_line 2 "iotape replay: " "--compute-scale: '-1'" "$IOTAPE" replay --compute-scale -1 -d "$T/d" "$T/a.tape"
err_line 2 "iotape replay: " "--iodepth: '0'" "$IOTAPE" replay --iodepth 0 -d "$T/d" "$T/a.tape"
err_line 2 "iotape replay: " "--loops: '1x'" "$IOTAPE" replay --loops 1x -d "$T/d" "$T/a.tape"
err_line 2 "iotape replay: " "exclude each other" "$IOTAPE" replay --prepare-only --no-prepare -d "$T/d" "$T/a.tape"
err_line 2 "iotape replay: " "output-format" "$IOTAPE" replay --output-format xml -d "$T/d" "$T/a.tape"
[ ! -e "$T/d" ] || fail "a usage error created DIR"

err_line 1 "iotape replay: " "$T/none.tape" "$IOTAPE" replay -d "$T/d" "$T/none.tape"
: >"$T/file"
err_line 1 "iotape replay: " "$T/file" "$IOTAPE" replay -d "$T/file" "$T/a.tape"
if [ "$(id -u)" != 0 ]; then
	err_line 1 "iotape replay: " "needs root" "$IOTAPE" replay --drop-caches -d "$T/d" "$T/a.tape"
fi
err_line 1 "iotape replay: " "$T/no/such/report" \
	"$IOTAPE" replay --timing afap -o "$T/no/such/report" -d "$T/d" "$T/a.tape"
if [ -w /dev/full ]; then
	run "$IOTAPE" replay --timing afap -d "$T/d" "$T/a.tape"
	"$IOTAPE" replay --timing afap -d "$T/d" "$T/a.tape" >/dev/full 2>"$T/err" &&
		fail "a full stdout is not an error"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "full stdout: $(cat "$T/err")"
fi
exit 0
