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

# job_csv FILE [log]: the CSV of a small job with known bytes: two readers
# (tids 10, 11) reading their own 400 KiB file (/data/s0.bin, s1.bin) in 50
# preads of 8 KiB, and a writer (tid 12) appending 100 bytes to
# /out/log.txt and, unless "log", writing 4 KiB to /data/tmp.bin, reading
# it back and unlinking it
job_csv() {
	awk -v hdr="$HDR" -v logonly="${2:-}" 'BEGIN { print hdr
		for (t = 0; t < 2; t++) {
			printf "%d,1,%d,openat,/data/s%d.bin,-1,0,0,%d,10,0,\n", 1000 + t, 10 + t, t, 3 + t
			for (i = 0; i < 50; i++)
				printf "%d,1,%d,pread64,/data/s%d.bin,%d,%d,8192,8192,10,0,\n", 2000 + i * 100 + t, 10 + t, t, 3 + t, i * 8192
			printf "%d,1,%d,close,/data/s%d.bin,%d,0,0,0,10,0,\n", 9000 + t, 10 + t, t, 3 + t
		}
		print "10000,1,12,openat,/out/log.txt,-1,0,0,5,10,0x241,"
		print "10100,1,12,write,/out/log.txt,5,0,100,100,10,0,"
		print "10200,1,12,close,/out/log.txt,5,0,0,0,10,0,"
		if (logonly == "log")
			exit
		print "10300,1,12,openat,/data/tmp.bin,-1,0,0,6,10,0x242,"
		print "10350,1,12,write,/data/tmp.bin,6,0,4096,4096,10,0,"
		print "10400,1,12,pread64,/data/tmp.bin,6,0,4096,4096,10,0,"
		print "10500,1,12,close,/data/tmp.bin,6,0,0,0,10,0,"
		print "10600,1,12,unlink,/data/tmp.bin,-1,0,0,0,10,0,"
	}' >"$1" || fail "awk"
}

# compute_csv FILE MIB STEPS: a compute-bound job: a reader (tid 10) reads
# MIB MiB of /data/big.bin back to back; a trainer (tid 11) makes STEPS
# small reads 100 ms apart, then closes its file 100 ms after the last:
# STEPS x 100 ms of compute
compute_csv() {
	awk -v hdr="$HDR" -v mib="$2" -v steps="$3" 'BEGIN { print hdr
		print "1000,1,10,openat,/data/big.bin,-1,0,0,3,10,0,"
		for (i = 0; i < mib; i++)
			printf "%d,1,10,pread64,/data/big.bin,3,%d,1048576,1048576,1000,0,\n", 2000 + i * 2000, i * 1048576
		printf "%d,1,10,close,/data/big.bin,3,0,0,0,10,0,\n", 3000 + mib * 2000
		print "1000,1,11,openat,/data/small.bin,-1,0,0,4,10,0,"
		for (i = 0; i < steps; i++)
			printf "%d,1,11,pread64,/data/small.bin,4,0,4096,4096,1000,0,\n", 2000 + i * 100000000
		printf "%d,1,11,close,/data/small.bin,4,0,0,0,10,0,\n", 3000 + steps * 100000000
	}' >"$1" || fail "awk"
}

# reader_trace_csv FILE: the CSV of a trace with a data set and two
# readers: two reader threads (tids 10, 11) read 8 data set files of 1..8
# x 4 KiB in turn (epoch e, file i at e*100 ms + i*5 ms by reader
# 10 + i % 2), 2 epochs, while a trainer (tid 12) writes a log line every
# 5 ms; 294,912 bytes of data set reads.
reader_trace_csv() {
	awk -v hdr="$HDR" 'BEGIN { print hdr
		print "1000,1,12,openat,/out/log.txt,-1,0,0,5,10,0x241,"
		for (s = 1; s <= 40; s++)
			printf "%d,1,12,write,/out/log.txt,5,0,100,100,10,0,\n", s * 5000000
		for (e = 0; e < 2; e++)
			for (i = 0; i < 8; i++) {
				t = e * 100000000 + i * 5000000 + 2000; tid = 10 + i % 2; fd = 10 + i
				printf "%d,1,%d,openat,/data/f%d.bin,-1,0,0,%d,10,0,\n", t, tid, i, fd
				for (k = 0; k <= i; k++)
					printf "%d,1,%d,pread64,/data/f%d.bin,%d,%d,4096,4096,10,0,\n", t + 100 + k * 100, tid, i, fd, k * 4096
				printf "%d,1,%d,close,/data/f%d.bin,%d,0,0,0,10,0,\n", t + 4000, tid, i, fd
			}
		print "210000000,1,12,close,/out/log.txt,5,0,0,0,10,0,"
	}' >"$1.unsorted" || fail "awk"
	sort -t, -k1,1n "$1.unsorted" >"$1" || fail "sort"
	rm -f "$1.unsorted"
}
