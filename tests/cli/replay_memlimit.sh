#!/bin/sh
# replay_memlimit.sh - --mem-limit runs the replay in a memory cgroup.
#
# A 64 MiB file is read twice, 1 MiB at a time, under a 16 MiB limit: the
# page cache cannot hold it, so both passes come from the storage (the
# replay's storage_read_bytes, /proc/self/io read_bytes, is at least
# 2 x 64 - 16 MiB), the cgroup's peak stays within the limit, and the
# cgroup is gone afterwards, also after Ctrl-C.  Without root: one error line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (cgroups)"
need_uring

MiB=1048576
awk -v hdr="$HDR" -v M=$MiB 'BEGIN { print hdr
	print "1000,1,1,openat,/data/big.bin,-1,0,0,3,10,0,"
	t = 2000
	for (p = 0; p < 2; p++)
		for (i = 0; i < 64; i++) {
			printf "%d,1,1,pread64,/data/big.bin,3,%d,%d,%d,10,0,\n", t, i * M, M, M
			t += 1000
		}
	printf "%d,1,1,close,/data/big.bin,3,0,0,0,10,0,\n", t
}' >"$T/big.csv"
ok "$IOTAPE" import -o "$T/big.tape" "$T/big.csv"

trap 'cg_cleanup; rm -rf "$T"' EXIT
# (each replay's own cgroup: a replay elsewhere on this machine may have
# one, and ours removes leftovers of dead replays)
ok with_pid "$IOTAPE" replay --timing afap --mem-limit 16m --output-format json -o "$T/m.json" -d "$T/d" "$T/big.tape"
[ "$(jq_py "$T/m.json" "d['replay']['ops_done']['read']")" = 128 ] || fail "reads: $(cat "$T/m.json")"
[ "$(jq_py "$T/m.json" "d['replay']['mem_limit']['limit']")" = $((16 * MiB)) ] || fail "limit not reported"
peak=$(jq_py "$T/m.json" "d['replay']['mem_limit']['peak']")
[ "$peak" -gt 0 ] && [ "$peak" -le $((16 * MiB)) ] || fail "cgroup peak $peak, limit 16 MiB"
rb=$(jq_py "$T/m.json" "d['replay']['storage_read_bytes']")
[ "$rb" -ge $((112 * MiB)) ] || fail "read $rb bytes from storage: the page cache held more than the limit"
cg_gone "$(cat "$T/pid")" "replay"

# text report line
ok "$IOTAPE" replay --timing afap --mem-limit 16M -d "$T/d" "$T/big.tape"
grep -q '^  memory limit: 16.0 MiB (cgroup v[12]), peak ' "$T/out" || fail "text report: $(cat "$T/out")"

# Ctrl-C in the middle (original timing, 3 s between the passes' reads)
awk -v hdr="$HDR" 'BEGIN { print hdr
	print "1000,1,1,openat,/data/big.bin,-1,0,0,3,10,0,"
	print "2000,1,1,pread64,/data/big.bin,3,0,4096,4096,10,0,"
	print "3000002000,1,1,pread64,/data/big.bin,3,0,4096,4096,10,0,"
}' >"$T/slow.csv"
ok "$IOTAPE" import -o "$T/slow.tape" "$T/slow.csv"
"$IOTAPE" replay --timing original --mem-limit 64m -d "$T/d" "$T/slow.tape" >"$T/out" 2>&1 &
pid=$!
sleep 1
[ -n "$(cg_of $pid)" ] || fail "no cgroup while replaying"
kill -INT $pid
wait $pid
st=$?
[ $st -ne 0 ] || fail "interrupted replay exited 0"
cg_gone $pid "SIGINT"

# usage and non-root errors
err_line 2 "iotape replay: " "--mem-limit: '12q' is not a size" "$IOTAPE" replay --mem-limit 12q -d "$T/d" "$T/big.tape"
if command -v setpriv >/dev/null 2>&1; then
	err_line 1 "iotape replay: " "--mem-limit needs root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTAPE" replay --mem-limit 16m -d "$T/d" "$T/big.tape"
fi
exit 0
