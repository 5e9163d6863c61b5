#!/bin/sh
# replay_sync_steps.sh - --sync-steps: accelerators wait for each other at
# every training step, as an all-reduce makes them.
#
# A job of one thread: ten steps of a 1 MiB read and 100 ms of compute.
# Two accelerators; accelerator 1's copy of the data set lives on a loop
# device throttled to 4 MiB/s (a bind mount of DIR/.iotape-copy-1 into
# it), accelerator 0's on the test's own file system.  With O_DIRECT reads
# accelerator 1 spends ~0.25 s a step reading, ~2.5 s in all against 1 s
# of compute (AU ~0.3).  Without --sync-steps only its AU drops; with it, accelerator
# 0 waits for it at each step and its AU drops to the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
. "$(dirname "$0")/throttle_lib.sh"
need_uring
thr_setup 64

BIND= BIND2=
trap '[ -n "$BIND" ] && umount "$BIND"; thr_cleanup' EXIT

awk -v hdr="$HDR" 'BEGIN { print hdr
	print "1000,1,10,openat,/data/train.bin,-1,0,0,3,10,0,"
	for (i = 0; i < 10; i++)
		printf "%d,1,10,pread64,/data/train.bin,3,%d,1048576,1048576,1000,0,\n", 2000 + i * 100000000, i * 1048576
	print "1000002000,1,10,close,/data/train.bin,3,0,0,0,10,0,"
}' >"$T/t.csv" || fail "awk"
ok "$IOTAPE" import -o "$T/t.tape" "$T/t.csv"

# DIR with accelerator 0's copy, then accelerator 1's under the mount
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/t.tape"
mkdir -p "$T/d/.iotape-copy-1" "$THR_MNT/c1" || fail "mkdir"
mount --bind "$THR_MNT/c1" "$T/d/.iotape-copy-1" || skip "cannot bind-mount into DIR"
BIND=$T/d/.iotape-copy-1
run "$IOTAPE" replay --prepare-only -n 2 -d "$T/d" "$T/t.tape"
[ "$rc" = 0 ] || fail "prepare of 2 accelerators: $(cat "$T/err")"
[ "$(stat -c %s "$THR_MNT/c1/data/train.bin")" = 10485760 ] || fail "copy 1 is not on the loop device"
sync
thr_limit $((4 << 20))

# ruN NAME ARGS: replay the two accelerators in the throttled cgroup
runN() {
	name=$1; shift
	thr_exec "$IOTAPE" replay --no-prepare --direct -n 2 --output-format json -o "$T/$name.json" \
		-d "$T/d" "$@" "$T/t.tape" 2>"$T/$name.err" ||
		fail "$name: exited $?: $(cat "$T/$name.err")"
}
au() { jq_py "$T/$1.json" "'%.3f' % d['scale']['per_accelerator'][$2]['au']"; }

runN free
runN sync --sync-steps
a0=$(au free 0) a1=$(au free 1) s0=$(au sync 0) s1=$(au sync 1)
echo "AU without --sync-steps: $a0 $a1; with: $s0 $s1"
[ "$(jq_py "$T/sync.json" "(d['scale']['sync_steps'], d['scale']['steps_per_loop'])")" = "(True, 10)" ] ||
	fail "sync: $(jq_py "$T/sync.json" "d['scale']")"
[ "$(jq_py "$T/free.json" "d['scale']['sync_steps']")" = False ] || fail "free: sync_steps"
# the slowed accelerator: 1 s of compute over 1 s + 10 x 0.25 s of reads
# (0.29), a little more as the throttle lets a burst through at first
# (measured 0.38-0.40); an unslowed one would be at 1
awk -v a="$a1" 'BEGIN { exit !(a > 0.2 && a < 0.5) }' || fail "slowed accelerator's AU $a1, want 0.29-0.45"
# without: accelerator 0 is not slowed
awk -v a="$a0" 'BEGIN { exit !(a >= 0.9) }' || fail "accelerator 0's AU $a0 without --sync-steps, want >= 0.9"
# with: both at the slow one's
awk -v a="$s0" -v b="$s1" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05 && b > 0.2 && b < 0.5) }' ||
	fail "with --sync-steps: AU $s0 and $s1, want both the slowed one's"
# the same across two MPI ranks: rank 0 runs accelerator 0, rank 1
# accelerator 1 (on the loop device); --sync-steps makes them meet at every
# step through MPI
if command -v mpirun >/dev/null 2>&1 && ! "$IOTAPE" replay --mpi -d "$T/x" "$T/none" 2>&1 |
		grep -q 'built without MPI'; then
	mpi_lsan
	ok "$IOTAPE" replay --prepare-only -d "$T/m0" "$T/t.tape"
	ok "$IOTAPE" replay --prepare-only -d "$T/m1" "$T/t.tape"
	mkdir -p "$T/m1/.iotape-copy-1" || fail "mkdir"
	mount --bind "$THR_MNT/c1" "$T/m1/.iotape-copy-1" || fail "bind mount m1"
	BIND2=$T/m1/.iotape-copy-1
	trap '[ -n "$BIND" ] && umount "$BIND"; [ -n "$BIND2" ] && umount "$BIND2"; thr_cleanup' EXIT
	for how in free sync; do
		[ $how = sync ] && flag=--sync-steps || flag=
		thr_exec timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none \
			-x ASAN_OPTIONS -x LSAN_OPTIONS -np 2 \
			"$IOTAPE" replay --mpi --no-prepare --direct -n 2 $flag --output-format json \
			-o "$T/mpi$how.json" -d "$T/m%r" "$T/t.tape" >"$T/mpi.out" 2>"$T/mpi.err" ||
			fail "mpirun $how: exited $?: $(cat "$T/mpi.err")"
	done
	m0=$(au mpifree 0) m1=$(au mpifree 1) n0=$(au mpisync 0) n1=$(au mpisync 1)
	echo "MPI: AU without --sync-steps: $m0 $m1; with: $n0 $n1"
	[ "$(jq_py "$T/mpisync.json" "[x['rank'] for x in d['scale']['per_accelerator']]")" = "[0, 1]" ] ||
		fail "MPI: accelerators not one a rank"
	awk -v a="$m0" -v b="$m1" 'BEGIN { exit !(a >= 0.9 && b > 0.2 && b < 0.5) }' ||
		fail "MPI without --sync-steps: AU $m0 and $m1, want >= 0.9 and the slowed one's"
	awk -v a="$n0" -v b="$n1" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05 && b > 0.2 && b < 0.5) }' ||
		fail "MPI with --sync-steps: AU $n0 and $n1, want both the slowed one's"
	umount "$BIND2" && BIND2=
fi
# the steps are not there in a trace without compute gaps
printf '%s\n1000,1,10,openat,/data/x,-1,0,0,3,10,0,\n1100,1,10,read,/data/x,3,0,10,10,10,0,\n' "$HDR" >"$T/n.csv"
ok "$IOTAPE" import -o "$T/n.tape" "$T/n.csv"
err_line 1 "iotape replay: " "--sync-steps: the trace shows no training steps" \
	"$IOTAPE" replay -n 2 --sync-steps -d "$T/n" "$T/n.tape"
exit 0
