#!/bin/sh
# replay_memlimit_exit.sh - a --mem-limit replay leaves no cgroup behind,
# however it ends: an error after entering it (prepare, the report file),
# SIGINT, SIGTERM, SIGHUP, and also SIGKILL and the OOM killer, which no
# cleanup in the process survives (a watcher outside the cgroup removes
# it); the leftover of a replay that died with its watcher is removed by
# the next --mem-limit replay.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (cgroups)"
need_uring
trap 'cg_cleanup; rm -rf "$T"' EXIT

# 2 reads 3 s apart (original timing): time to send a signal
printf '%s\n%s\n%s\n%s\n' "$HDR" "1000,1,1,openat,/data/a,-1,0,0,3,10,0," \
	"2000,1,1,pread64,/data/a,3,0,4096,4096,10,0," \
	"3000002000,1,1,pread64,/data/a,3,0,4096,4096,10,0," >"$T/slow.csv"
ok "$IOTAPE" import -o "$T/slow.tape" "$T/slow.csv"

# errors after the cgroup is entered: the report file, prepare
err_line 1 "iotape replay: " "$T/no/r.txt: No such file or directory" \
	with_pid "$IOTAPE" replay --mem-limit 16m --timing afap -o "$T/no/r.txt" -d "$T/d1" "$T/slow.tape"
[ -z "$(cg_of "$(cat "$T/pid")")" ] || fail "report file error: cgroup left: $(cg_of "$(cat "$T/pid")")"
mkdir "$T/d2" && echo x >"$T/d2/data"	# a file where prepare needs a directory
run with_pid "$IOTAPE" replay --mem-limit 16m -f -d "$T/d2" "$T/slow.tape"
[ "$rc" -eq 1 ] || fail "prepare over a file: exited $rc: $(cat "$T/err")"
[ -z "$(cg_of "$(cat "$T/pid")")" ] || fail "prepare error: cgroup left: $(cg_of "$(cat "$T/pid")")"

# signals during the run; KILL runs no cleanup in iotape
for sig in INT TERM HUP KILL; do
	with_pid "$IOTAPE" replay --timing original --mem-limit 16m -d "$T/d3" "$T/slow.tape" \
		>"$T/out" 2>&1 &
	i=0
	while [ $i -lt 50 ] && { [ ! -s "$T/pid" ] || [ -z "$(cg_of "$(cat "$T/pid")")" ]; }; do
		sleep 0.1
		i=$((i + 1))
	done
	pid=$(cat "$T/pid")
	cg=$(cg_of "$pid")
	[ -n "$cg" ] || fail "SIG$sig: no cgroup while replaying: $(cat "$T/out")"
	kill -"$sig" "$pid"
	wait $!
	[ $? -ne 0 ] || fail "SIG$sig: the replay exited 0"
	cg_gone "$pid" "SIG$sig"
	rm -f "$T/pid"
done

# the OOM killer: 500,000 reads queued at once (the engine queues a loop
# of up to 64 MiB of ops before it starts) in 8 MiB
awk -v hdr="$HDR" 'BEGIN { print hdr; print "1000,1,1,openat,/data/a,-1,0,0,3,10,0,"
	for (i = 0; i < 500000; i++)
		printf "%d,1,1,pread64,/data/a,3,%d,4096,4096,10,0,\n", 2000 + i * 10, (i % 16) * 4096
}' >"$T/big.csv"
ok "$IOTAPE" import -o "$T/big.tape" "$T/big.csv"
run with_pid "$IOTAPE" replay --timing afap --mem-limit 8m -d "$T/d4" "$T/big.tape"
case $rc in
0 | 137) ;;	# fits (a leaner engine), or killed
*) fail "8 MiB: exited $rc: $(cat "$T/err")" ;;
esac
cg_gone "$(cat "$T/pid")" "OOM kill (exit $rc)"

# a leftover of a dead replay (its watcher killed too) next to ours goes
parent=${cg%/*}
dead=$(sh -c 'echo $$')
[ -d "$parent/iotape-replay.$dead" ] || mkdir "$parent/iotape-replay.$dead" ||
	fail "cannot make a cgroup in $parent"
ok "$IOTAPE" replay --timing afap --mem-limit 16m -d "$T/d5" "$T/slow.tape"
if [ -d "$parent/iotape-replay.$dead" ]; then
	rmdir "$parent/iotape-replay.$dead"
	fail "the leftover iotape-replay.$dead (a dead pid) was not removed"
fi
exit 0
