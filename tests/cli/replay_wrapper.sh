#!/bin/sh
# replay_wrapper.sh - a job started through a shell wrapper, its output
# sent to a log file, is replayed; a replay error names the op (issue
# #27, item 2).
#
# The wrapper is what pyenv's shims do on every python3: a bash script
# whose `enable -f /nonexistent.so realpath 2>/dev/null` fails (a dlopen
# of a missing file, stderr to /dev/null and back: dups and dup2s of the
# log file's fd), then execs the interpreter.  The job reads a file and
# prints to its log, the log opened by the shell the recorder runs
# (`sh -c '... >train.log 2>&1'`) or inherited (`iotape record ... >log`).
# Each trace replays with no failed op, the data file's bytes read; so
# does one of python3 as PATH has it (a pyenv shim on some machines).  A
# trace the replay refuses is named by its op, process and path.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring
[ -x /usr/bin/python3 ] && [ -x /bin/bash ] || skip "needs /usr/bin/python3 and /bin/bash"

cd "$T" || fail "cd"
head -c 20000 /dev/urandom >data.bin || fail "data.bin"
printf '#!/bin/bash\nenable -f /nonexistent.so realpath 2>/dev/null || true\nexec /usr/bin/python3 "$@"\n' >shim &&
	chmod +x shim || fail "shim"
JOB='import sys; n = len(open("data.bin", "rb").read()); print("read", n); sys.stderr.write("done\n")'

# replayed TRACE: replays with nothing failed, data.bin's 20000 bytes read
replayed() {
	rm -rf "$T/r"
	ok "$IOTAPE" replay --prepare-only -d "$T/r" "$1"
	ok "$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$T/r" "$1"
	[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] ||
		fail "$1: failed: $(jq_py "$T/r.json" "d['replay']['failed']")"
	b=$(jq_py "$T/r.json" "[f['replayed_bytes'] for f in d['replay']['files'] if f['path'].endswith('/data.bin')]")
	[ "$b" = "[20000]" ] || fail "$1: data.bin bytes: $b"
}

"$IOTAPE" record -q -o "$T/a.tape" -- sh -c "./shim -c '$JOB' >train.log 2>&1" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
[ "$(cat train.log)" = "read 20000
done" ] || fail "the job's log: $(cat train.log)"
ok "$IOTAPE" dump -t syscall -o "$T/a.txt" "$T/a.tape"
grep -q "openat /nonexistent.so ret=-2" "$T/a.txt" || fail "the wrapper's enable -f is not in the trace"
grep -q "dup2 $T/train.log fd=" "$T/a.txt" || fail "no dup2 of the log in the trace"
replayed "$T/a.tape"

rm -f train.log
"$IOTAPE" record -q -o "$T/b.tape" -- ./shim -c "$JOB" >train.log 2>&1 ||
	fail "record: $(cat train.log)"
replayed "$T/b.tape"

if [ "$(command -v python3)" != /usr/bin/python3 ]; then	# a wrapper itself
	"$IOTAPE" record -q -o "$T/c.tape" -- python3 -c "$JOB" >train.log 2>&1 ||
		fail "record of $(command -v python3): $(cat train.log)"
	replayed "$T/c.tape"
fi

# an op the replay refuses is named: its op, process, thread and path
printf '%s\n%s\n%s\n' "$HDR" '1000,7,8,openat,/data/x,-1,0,0,3,10,0,' \
	'2000,7,9,rename,/data/x,-1,0,0,0,10,0,/data/../../x' >"$T/bad.csv" || fail "csv"
ok "$IOTAPE" import -o "$T/bad.tape" "$T/bad.csv"
err_line 1 "iotape replay: " "rename (pid 7, tid 9): path '/data/../../x' has a '..' component: refused" \
	"$IOTAPE" replay -d "$T/bad.d" "$T/bad.tape"
exit 0
