#!/bin/sh
# replay_flags.sh - open flags (issue #15, items 1 and 3).
#  - A trace without open flags (a CSV without the column, as iotape-import(1)
#    documents it): the opens are inferred from what the job did with the
#    descriptor (written: write access; read too: read-write; first write
#    at 0 of a file the trace had not read: created and truncated), said in
#    the report, and every write is replayed (before: each failed EBADF
#    and the report said "0 failed").
#  - A file the job made with O_CREAT|O_EXCL is removed before each loop,
#    so a second loop (or replay) does not fail EEXIST.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# -- inference: no flags column
{
	echo 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns'
	echo '1000,1,1,openat,/out/log.txt,-1,0,0,3,10'
	for i in 0 1 2 3; do echo "$((2000 + i * 10)),1,1,write,/out/log.txt,3,$((i * 100)),100,100,10"; done
	echo '3000,1,1,close,/out/log.txt,3,0,0,0,10'
	echo '4000,1,1,openat,/data/a,-1,0,0,4,10'
	echo '4100,1,1,read,/data/a,4,0,50,50,10'
	echo '4200,1,1,write,/data/a,4,50,50,50,10'
	echo '4300,1,1,close,/data/a,4,0,0,0,10'
	echo '5000,1,1,openat,/data/b,-1,0,0,5,10'
	echo '5100,1,1,read,/data/b,5,0,70,70,10'
	echo '5200,1,1,close,/data/b,5,0,0,0,10'
} >"$T/inf.csv"
ok "$IOTAPE" import -o "$T/inf.tape" "$T/inf.csv"
ok "$IOTAPE" replay --prepare-only -d "$T/p" "$T/inf.tape"
[ ! -e "$T/p/out/log.txt" ] || fail "a file the job creates was prepared"
[ "$(stat -c %s "$T/p/data/a")" = 50 ] && [ "$(stat -c %s "$T/p/data/b")" = 70 ] ||
	fail "read files not prepared to their read extents"
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/inf.json" -d "$T/i" "$T/inf.tape"
r() { jq_py "$T/inf.json" "d['replay']$1"; }
[ "$(r "['ops_done']['write']")" = 5 ] || fail "inference: writes done $(r "['ops_done']")"
[ "$(r "['ops_failed']")" = 0 ] || fail "inference: ops failed $(r "['failed']")"
[ "$(r "['opens_inferred']")" = 2 ] || fail "inference: opens_inferred $(r "['opens_inferred']")"
[ "$(stat -c %s "$T/i/out/log.txt")" = 400 ] || fail "out/log.txt is not the 4 writes"
[ "$(stat -c %s "$T/i/data/a")" = 100 ] || fail "data/a not written after its read"
ok "$IOTAPE" replay --timing afap -d "$T/i2" "$T/inf.tape"
grep -q "^  open flags inferred from the writes (the trace has none): 2 opens$" "$T/out" ||
	fail "text report: $(cat "$T/out")"
grep -q "^  failed in the replay: none$" "$T/out" || fail "text report: failures"

# -- O_EXCL: removed before every loop, so two loops both create it
excl=$(python3 -c 'import os; print(hex(os.O_WRONLY | os.O_CREAT | os.O_EXCL))')
{
	echo 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags'
	echo "1000,1,1,openat,/lock/pid,-1,0,0,3,10,$excl"
	echo '2000,1,1,write,/lock/pid,3,0,6,6,10,0'
	echo '3000,1,1,close,/lock/pid,3,0,0,0,10,0'
} >"$T/x.csv"
ok "$IOTAPE" import -o "$T/x.tape" "$T/x.csv"
ok "$IOTAPE" replay --loops 2 --timing afap --output-format json -o "$T/x.json" -d "$T/x" "$T/x.tape"
[ "$(jq_py "$T/x.json" "d['replay']['ops_done']['open']")" = 2 ] || fail "O_EXCL: the second loop's open"
ok "$IOTAPE" replay --no-prepare --timing afap -d "$T/x" "$T/x.tape"	# and another replay

exit 0
