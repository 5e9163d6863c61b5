#!/bin/sh
# replay_burst.sh - --burst-buffer FAST_DIR --drain: the checkpoints analyze
# finds are written under FAST_DIR (tmpfs), and each, once closed, is
# copied in the background to its place under --dir (a loop device whose
# writes the cgroup throttles to 16 MiB/s: the slow tier).
#
# The job: a data file read at 0 s and 7 s; three checkpoints of 8 MiB in
# 1 MiB writes, fsynced, at 1, 3 and 5 s (the second of two files of 4
# MiB); replayed with --compute-scale 0.1, they come 0.2 s apart, and a
# drain takes 8 MiB / 16 MiB/s = 0.5 s, so the second and the third begin
# while the drain of the one before runs.  Tolerances (a loaded 2-core
# machine): the job sees a checkpoint in under a quarter of the slow
# tier's 0.5 s (tmpfs: ~10 ms); a drain takes 0.5x to 3x of 0.5 s (the
# throttle lets a little through at first; a busy machine is slower).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
. "$(dirname "$0")/throttle_lib.sh"
need_uring
[ -d /dev/shm ] || skip "no /dev/shm (the fast tier)"
thr_setup 96

FAST=
trap '[ -n "$FAST" ] && rm -rf "$FAST"; thr_cleanup' EXIT
FAST=$(mktemp -d /dev/shm/iotape-bb.XXXXXX) || fail "mktemp in /dev/shm"
[ "$(stat -f -c %T "$FAST")" = tmpfs ] || skip "/dev/shm is not a tmpfs"

awk -v hdr="$HDR" 'BEGIN { print hdr
	print "1000,1,1,openat,/data/x.bin,-1,0,0,3,10,0x0,"
	print "2000,1,1,read,/data/x.bin,3,0,65536,65536,10,0x0,"
	print "3000,1,1,close,/data/x.bin,3,0,0,0,10,0x0,"
	split("m0.pt m1.pt m2.pt", name, " ")
	for (k = 0; k < 3; k++) {
		t = 1000000000 + k * 2000000000
		nf = k == 1 ? 2 : 1
		for (j = 0; j < nf; j++) {
			f = j ? "/ck/o1.pt" : "/ck/" name[k + 1]
			printf "%.0f,1,1,openat,%s,-1,0,0,4,10,0x241,\n", t++, f
			for (i = 0; i < 8 / nf; i++)
				printf "%.0f,1,1,write,%s,4,%d,1048576,1048576,10,0x0,\n", t++, f, i * 1048576
			printf "%.0f,1,1,fsync,%s,4,0,0,0,10,0x0,\n", t++, f
			printf "%.0f,1,1,close,%s,4,0,0,0,10,0x0,\n", t++, f
		}
	}
	print "7000000000,1,1,openat,/data/x.bin,-1,0,0,3,10,0x0,"
	print "7000001000,1,1,read,/data/x.bin,3,0,65536,65536,10,0x0,"
	print "7000002000,1,1,close,/data/x.bin,3,0,0,0,10,0x0,"
}' >"$T/c.csv" || fail "awk"
ok "$IOTAPE" import -o "$T/c.tape" "$T/c.csv"
# a job with no checkpoint: reads only
printf '%s\n1000,1,1,openat,/a,-1,0,0,3,10,0x0,\n2000,1,1,read,/a,3,0,4096,4096,10,0x0,\n' \
	"$HDR" >"$T/n.csv"
ok "$IOTAPE" import -o "$T/n.tape" "$T/n.csv"

# bad input: one line, nothing made
: >"$T/plain"
err_line 1 "iotape replay:" "--burst-buffer $T/none: No such file or directory" \
	"$IOTAPE" replay -d "$T/r" --burst-buffer "$T/none" "$T/c.tape"
err_line 1 "iotape replay:" "--burst-buffer $T/plain: not a directory" \
	"$IOTAPE" replay -d "$T/r" --burst-buffer "$T/plain" "$T/c.tape"
err_line 2 "iotape replay:" "--drain needs --burst-buffer" \
	"$IOTAPE" replay -d "$T/r" --drain "$T/c.tape"
err_line 2 "iotape replay:" "--burst-buffer and --mpi exclude each other" \
	"$IOTAPE" replay -d "$T/r" --burst-buffer "$FAST" --mpi "$T/c.tape"
err_line 2 "iotape replay:" "--burst-buffer and --find-max exclude each other" \
	"$IOTAPE" replay -d "$T/r" --burst-buffer "$FAST" --find-max "$T/c.tape"
err_line 2 "iotape replay:" "--burst-buffer and --accelerators exclude each other" \
	"$IOTAPE" replay -d "$T/r" --burst-buffer "$FAST" -n 2 "$T/c.tape"
printf '[job]\nformat = 1\n[dataset]\ndata_folder = data\nnum_files = 2\nrecord_length = 4096\n[reader]\nread_threads = 1\nbatch_size = 1\n[train]\nepochs = 1\ncomputation_time = 0\n' >"$T/job.ini"
err_line 2 "iotape replay:" "--burst-buffer and a job file exclude each other" \
	"$IOTAPE" replay -d "$T/r" --burst-buffer "$FAST" "$T/job.ini"
# a trace without checkpoints: refused (the what-if has nothing to move)
err_line 1 "iotape replay:" "has no checkpoints" \
	"$IOTAPE" replay -d "$T/r" --burst-buffer "$FAST" --drain "$T/n.tape"
[ ! -e "$T/r" ] || fail "a refused --burst-buffer made --dir: $(find "$T/r")"
[ -z "$(ls -A "$FAST")" ] || fail "a refused --burst-buffer wrote under FAST_DIR: $(ls -A "$FAST")"

# the throttled run: the job's I/O and the drains in the cgroup
sync
thr_limit 0 $((16 << 20))
R=$THR_MNT/r
thr_exec "$IOTAPE" replay --compute-scale 0.1 --output-format json -o "$T/bb.json" -d "$R" \
	--burst-buffer "$FAST" --drain "$T/c.tape" 2>"$T/bb.err" ||
	fail "burst buffer replay exited $?: $(cat "$T/bb.err")"
[ -s "$T/bb.err" ] && fail "burst buffer replay wrote to stderr: $(cat "$T/bb.err")"
q() { jq_py "$T/bb.json" "$1"; }

# each checkpoint file complete under --dir, as the job wrote it under FAST
for f in m0.pt m1.pt o1.pt m2.pt; do
	want=8388608
	case $f in m1.pt|o1.pt) want=4194304 ;; esac
	[ "$(stat -c %s "$FAST/ck/$f")" = $want ] || fail "FAST/ck/$f: $(stat -c %s "$FAST/ck/$f") bytes"
	[ -f "$R/ck/$f" ] || fail "ck/$f was not drained to --dir"
	cmp -s "$FAST/ck/$f" "$R/ck/$f" || fail "ck/$f under --dir differs from FAST_DIR's"
done
[ -f "$R/data/x.bin" ] && [ ! -e "$FAST/data" ] || fail "the data file is not (only) under --dir"

# per checkpoint: bytes and files; every file drained
[ "$(q "[(c['checkpoint'], c['bytes'], c['files'], c['drained_files']) for c in d['burst_buffer']['checkpoints']]")" = \
	"[(1, 8388608, 1, 1), (2, 8388608, 2, 2), (3, 8388608, 1, 1)]" ] ||
	fail "checkpoints: $(q "d['burst_buffer']['checkpoints']")"
# the job saw the fast tier; the drains, the slow one
q "'\n'.join('%.4f %.4f' % (c['seen_s'], c['drain_s']) for c in d['burst_buffer']['checkpoints'])" >"$T/times" ||
	fail "times"
echo "checkpoint seen by the job, drain (s); predicted: tmpfs, 0.500 (8 MiB at 16 MiB/s):"
cat "$T/times"
awk '{ if ($1 >= 0.125) { print "job saw " $1 " s"; exit 1 }
       if ($2 < 0.25 || $2 > 1.5) { print "drain " $2 " s"; exit 1 } }' "$T/times" >"$T/bad" ||
	fail "outside the tolerances: $(cat "$T/bad")"
# the second and the third began while the drain of the one before ran
[ "$(q "[c['drain_running_at_start'] for c in d['burst_buffer']['checkpoints']]")" = \
	"[False, True, True]" ] || fail "drain running at start: $(q "d['burst_buffer']['checkpoints']")"
# the replay waited for the drains (1.5 s of them, the job's ~0.7 s)
awk -v w="$(q "d['burst_buffer']['wait_s']")" 'BEGIN { exit !(w > 0.2) }' ||
	fail "wait_s $(q "d['burst_buffer']['wait_s']")"
# AU: without the burst buffer (the drains' 1.5 s in the job) well below
au=$(q "d['burst_buffer']['au']") auwo=$(q "d['burst_buffer']['au_without_estimate']")
echo "AU with the burst buffer $au, without (estimate) $auwo"
awk -v a="$au" -v b="$auwo" 'BEGIN { exit !(a > 0.5 && b < 0.75 * a) }' ||
	fail "AU $au, without $auwo"

# the text report says the same, and that the replay waited
rm -rf "$R" "$FAST"/* "$FAST/.iotape-replay"
thr_exec "$IOTAPE" replay --compute-scale 0.1 -o "$T/bb.txt" -d "$R" \
	--burst-buffer "$FAST" --drain "$T/c.tape" 2>"$T/bb.err" ||
	fail "text report: exited $?: $(cat "$T/bb.err")"
grep -q "^Burst buffer ($FAST): 3 checkpoints, 24.0 MiB, drained to --dir in the background" "$T/bb.txt" ||
	fail "text report: $(cat "$T/bb.txt")"
grep -q "the replay waited .* after the job's end for the drains to end" "$T/bb.txt" ||
	fail "text report: no wait: $(cat "$T/bb.txt")"
grep -q "without it (estimated" "$T/bb.txt" || fail "text report: no AU without"
thr_limit 0 0

# without --drain: placed under FAST only, nothing copied
rm -rf "$R" "$FAST"/* "$FAST/.iotape-replay"
ok "$IOTAPE" replay --timing afap --output-format json -d "$T/nd" --burst-buffer "$FAST" "$T/c.tape"
[ ! -e "$T/nd/ck" ] || fail "without --drain: ck/ under --dir: $(ls "$T/nd/ck")"
[ "$(jq_py "$T/out" "(d['burst_buffer']['drain'], len(d['burst_buffer']['checkpoints']), d['burst_buffer']['au_without_estimate'])")" = \
	"(False, 3, None)" ] || fail "without --drain: $(jq_py "$T/out" "d['burst_buffer']")"

# the bundled trace: checkpoints written as ckpt_N.pt.tmp, renamed to
# ckpt_N.pt, the one two before unlinked: both names live under FAST, and
# --dir ends with the two the job kept, equal to FAST's
rm -rf "$FAST"/* "$FAST/.iotape-replay"
ok "$IOTAPE" replay --timing afap --output-format json -d "$T/ck" --burst-buffer "$FAST" --drain \
	"$TOP/traces/checkpoint.iotape"
(cd "$FAST" && find . -name 'ckpt_*') >"$T/fast.find" || fail "find under $FAST"
(cd "$T/ck" && find . -name 'ckpt_*') >"$T/dir.find" || fail "find under $T/ck"
sort "$T/fast.find" >"$T/fast.ls" && sort "$T/dir.find" >"$T/dir.ls" || fail "sort"
[ "$(tr '\n' ' ' <"$T/fast.ls")" = "./tmp/wl4/ckpt_00050.pt ./tmp/wl4/ckpt_00060.pt " ] ||
	fail "under FAST: $(cat "$T/fast.ls")"
same "$T/fast.ls" "$T/dir.ls"
for f in $(cat "$T/fast.ls"); do
	cmp -s "$FAST/$f" "$T/ck/$f" || fail "$f under --dir differs from FAST_DIR's"
done
[ "$(jq_py "$T/out" "(len(d['burst_buffer']['checkpoints']), d['burst_buffer']['bytes'])")" = \
	"(6, 529234590)" ] || fail "bundled trace: $(jq_py "$T/out" "d['burst_buffer']")"
exit 0
