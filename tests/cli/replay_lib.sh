# tests/cli/replay_lib.sh - helpers for the replay tests (sourced after lib.sh).
#
# jq_py FILE EXPR: print a Python expression over the JSON in FILE (bound
# to d).  need_uring: skip when this kernel or sandbox refuses io_uring.

command -v python3 >/dev/null 2>&1 || skip "python3 not installed (JSON checks)"

jq_py() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

HDR='ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,path2'

need_uring() {
	printf '%s\n1000,1,1,openat,/u,-1,0,0,3,10,0,\n2000,1,1,read,/u,3,0,1,1,10,0,\n' "$HDR" >"$T/u.csv"
	"$IOTAPE" import -o "$T/u.tape" "$T/u.csv" || fail "import of the io_uring probe failed"
	"$IOTAPE" replay --timing afap -d "$T/u.d" "$T/u.tape" >"$T/u.out" 2>"$T/u.err"
	if [ $? -ne 0 ] || grep -q 'io_uring' "$T/u.err"; then
		skip "io_uring unavailable: $(cat "$T/u.err")"
	fi
	rm -rf "$T/u.d" "$T/u.csv" "$T/u.tape" "$T/u.out" "$T/u.err"
}

# snapshot DIR: names, sizes, modes and mtimes of everything under DIR
snapshot() {
	find "$1" -printf '%p %s %m %T@ %l\n' | sort
}

# with_pid CMD...: run CMD with its pid in $T/pid (a shell that execs it),
# for a replay's cgroup iotape-replay.PID; every such pid is added to
# $T/pids, for cg_cleanup, which removes what a failed test left.  cg_of PID: the cgroup of the
# replay with that pid, if any (only its own: other replays may be running
# on this machine).  cg_gone PID WHAT: fail unless it is gone within 5 s
# (a thread still leaving keeps it a moment: the watcher removes it then).
with_pid() {
	sh -c 'echo $$ >"$0"; echo $$ >>"$0s"; exec "$@"' "$T/pid" "$@"
}
cg_of() {
	find /sys/fs/cgroup -maxdepth 6 -type d -name "iotape-replay.$1" 2>/dev/null
}
cg_cleanup() {
	[ -f "$T/pids" ] || return 0
	for _p in $(cat "$T/pids"); do
		_c=$(cg_of "$_p")
		[ -n "$_c" ] && rmdir "$_c"
	done
	return 0
}
cg_gone() {
	_i=0
	while [ -n "$(cg_of "$1")" ]; do
		[ $_i -lt 50 ] || fail "$2: cgroup left behind: $(cg_of "$1")"
		sleep 0.1
		_i=$((_i + 1))
	done
}
