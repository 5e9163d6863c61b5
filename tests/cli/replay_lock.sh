#!/bin/sh
# replay_lock.sh - one replay at a time in a DIR (issue #27, item 14).
#
# A second replay into a DIR another replay is running in was accepted:
# both prepared and wrote the same files.  DIR is now locked (flock on
# DIR) for as long as a replay (or a prepare) has it: the second one is
# refused with one line naming the holder's pid and command line, and
# touches nothing; once the first ends, DIR is free again.  The same DIR
# given twice to one replay (--dir and a --place) is one lock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# reads 3 s apart: a replay in original timing lasts 3 s
printf '%s\n%s\n%s\n%s\n' "$HDR" '1000,1,1,openat,/data/a.bin,-1,0,0,3,10,0,' \
	'2000,1,1,pread64,/data/a.bin,3,0,4096,4096,10,0,' \
	'3000002000,1,1,pread64,/data/a.bin,3,4096,4096,4096,10,0,' >"$T/t.csv" || fail "csv"
ok "$IOTAPE" import -o "$T/t.tape" "$T/t.csv"
"$IOTAPE" replay -o "$T/first.out" -d "$T/d" "$T/t.tape" 2>"$T/first.err" &
first=$!
# wait until it holds DIR (its marker is there once it has)
i=0
while [ ! -e "$T/d/.iotape-replay" ]; do
	[ $i -lt 100 ] || fail "the first replay did not start"
	sleep 0.05
	i=$((i + 1))
done
snapshot "$T/d" >"$T/snap.before" || fail "snapshot"
err_line 1 "iotape replay: " "$T/d is being replayed by pid $first (" \
	"$IOTAPE" replay --timing afap -d "$T/d" "$T/t.tape"
grep -qF "(one replay at a time in a DIR)" "$T/err" || fail "why: $(cat "$T/err")"
grep -qF "replay -o $T/first.out -d $T/d $T/t.tape)" "$T/err" || fail "not the holder's command: $(cat "$T/err")"
err_line 1 "iotape replay: " "is being replayed by pid $first" \
	"$IOTAPE" replay --prepare-only -d "$T/d" "$T/t.tape"
# as a placement too
mkdir "$T/o" || fail "mkdir"
err_line 1 "iotape replay: " "is being replayed by pid $first" \
	"$IOTAPE" replay --timing afap -d "$T/o" --place "*.bin=$T/d" "$T/t.tape"
snapshot "$T/d" >"$T/snap.after" || fail "snapshot"
kill -0 $first 2>/dev/null || fail "the first replay ended before the checks (too fast to test)"
same "$T/snap.before" "$T/snap.after"
wait $first || fail "the first replay failed: $(cat "$T/first.err")"
# free again; the same DIR given twice is one lock
ok "$IOTAPE" replay --timing afap -o /dev/null -d "$T/d" "$T/t.tape"
ok "$IOTAPE" replay --timing afap -o /dev/null -d "$T/d" --place "*.bin=$T/d" "$T/t.tape"
exit 0
