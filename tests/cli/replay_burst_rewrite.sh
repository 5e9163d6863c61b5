#!/bin/sh
# replay_burst_rewrite.sh - --burst-buffer FAST_DIR --drain when the job
# writes a checkpoint file again (latest.pt each epoch) before or while the
# drain copies it: the newer version supersedes that copy (not an error),
# and --dir ends with the latest complete copy.  And the drain never writes
# through what sits at a checkpoint's name under --dir (a hard link planted
# at NAME.tmp): each copy is a new file renamed over the name.
#
# The job: latest.pt written three times, 16, 4 then 6 MiB, at 1, 3 and 5
# s; with --compute-scale 0.05 they come 0.1 s apart, and --dir is a loop
# device whose writes the cgroup throttles to 16 MiB/s, so the first copy
# (1 s) is under way when the second version is written, and the second
# (0.25 s) when the third is: both are superseded, the third is drained.
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
	split("16 4 6", mib, " ")
	for (k = 0; k < 3; k++) {
		t = 1000000000 + k * 2000000000
		printf "%.0f,1,1,openat,/ck/latest.pt,-1,0,0,4,10,0x241,\n", t++
		for (i = 0; i < mib[k + 1]; i++)
			printf "%.0f,1,1,write,/ck/latest.pt,4,%d,1048576,1048576,10,0x0,\n", t++, i * 1048576
		printf "%.0f,1,1,fsync,/ck/latest.pt,4,0,0,0,10,0x0,\n", t++
		printf "%.0f,1,1,close,/ck/latest.pt,4,0,0,0,10,0x0,\n", t++
	}
	print "7000000000,1,1,openat,/data/x.bin,-1,0,0,3,10,0x0,"
	print "7000001000,1,1,read,/data/x.bin,3,0,65536,65536,10,0x0,"
	print "7000002000,1,1,close,/data/x.bin,3,0,0,0,10,0x0,"
}' >"$T/c.csv" || fail "awk"
ok "$IOTAPE" import -o "$T/c.tape" "$T/c.csv"

sync
thr_limit 0 $((16 << 20))
R=$THR_MNT/r
thr_exec "$IOTAPE" replay --compute-scale 0.05 --output-format json -o "$T/bb.json" -d "$R" \
	--burst-buffer "$FAST" --drain "$T/c.tape" 2>"$T/bb.err" ||
	fail "replay exited $?: $(cat "$T/bb.err")"
[ -s "$T/bb.err" ] && fail "replay wrote to stderr: $(cat "$T/bb.err")"
thr_limit 0 0
q() { jq_py "$T/bb.json" "$1"; }
# the latest version, whole, under both
[ "$(stat -c %s "$FAST/ck/latest.pt")" = 6291456 ] || fail "FAST: $(stat -c %s "$FAST/ck/latest.pt") bytes"
cmp -s "$FAST/ck/latest.pt" "$R/ck/latest.pt" ||
	fail "--dir's latest.pt ($(stat -c %s "$R/ck/latest.pt") bytes) is not FAST_DIR's"
# the first two copies superseded, the third drained; no error
[ "$(q "[(c['checkpoint'], c['bytes'], c['drained_files'], c['superseded_files'], c['drain_error']) for c in d['burst_buffer']['checkpoints']]")" = \
	"[(1, 16777216, 0, 1, None), (2, 4194304, 0, 1, None), (3, 6291456, 1, 0, None)]" ] ||
	fail "checkpoints: $(q "d['burst_buffer']['checkpoints']")"
# nothing else under --dir's ck/ (no copy left at its own name)
[ "$(ls -A "$R/ck")" = latest.pt ] || fail "under --dir/ck: $(ls -A "$R/ck")"
# the text report says so
rm -rf "$R" "$FAST"/* "$FAST/.iotape-replay"
thr_limit 0 $((16 << 20))
thr_exec "$IOTAPE" replay --compute-scale 0.05 -o "$T/bb.txt" -d "$R" \
	--burst-buffer "$FAST" --drain "$T/c.tape" 2>"$T/bb.err" ||
	fail "text report: exited $?: $(cat "$T/bb.err")"
thr_limit 0 0
grep -q "^ *1 .*(1 superseded by a newer version before their copy ended)" "$T/bb.txt" ||
	fail "text report: $(cat "$T/bb.txt")"

# a hard link planted at the checkpoint's temporary name under --dir (and
# at its final one): replaced, the file it links to untouched
awk -v hdr="$HDR" 'BEGIN { print hdr
	t = 1000
	printf "%d,1,1,openat,/ck/m.pt.tmp,-1,0,0,4,10,0x241,\n", t++
	for (i = 0; i < 2; i++)
		printf "%d,1,1,write,/ck/m.pt.tmp,4,%d,1048576,1048576,10,0x0,\n", t++, i * 1048576
	printf "%d,1,1,close,/ck/m.pt.tmp,4,0,0,0,10,0x0,\n", t++
	printf "%d,1,1,rename,/ck/m.pt.tmp,-1,0,0,0,10,0x0,/ck/m.pt\n", t++
}' >"$T/h.csv" || fail "awk"
ok "$IOTAPE" import -o "$T/h.tape" "$T/h.csv"
rm -rf "$FAST"/* "$FAST/.iotape-replay"
ok "$IOTAPE" replay --timing afap -d "$T/h" --burst-buffer "$FAST" --drain "$T/h.tape"
[ "$(ls -A "$T/h/ck")" = m.pt ] || fail "first run, under --dir/ck: $(ls -A "$T/h/ck")"
echo precious >"$T/victim" && echo other >"$T/victim2" || fail "writing the victims"
ln "$T/victim" "$T/h/ck/m.pt.tmp" && ln -f "$T/victim2" "$T/h/ck/m.pt" || fail "ln"
ok "$IOTAPE" replay --timing afap -d "$T/h" --burst-buffer "$FAST" --drain "$T/h.tape"
[ "$(cat "$T/victim")" = precious ] || fail "written through the link at m.pt.tmp: $(wc -c <"$T/victim") bytes"
[ "$(cat "$T/victim2")" = other ] || fail "written through the link at m.pt: $(wc -c <"$T/victim2") bytes"
[ "$(stat -c %h "$T/victim")" = 1 ] && [ "$(stat -c %h "$T/victim2")" = 1 ] ||
	fail "the links are still there: $(stat -c '%n %h' "$T/victim" "$T/victim2")"
[ "$(ls -A "$T/h/ck")" = m.pt ] || fail "under --dir/ck: $(ls -A "$T/h/ck")"
cmp -s "$FAST/ck/m.pt" "$T/h/ck/m.pt" || fail "--dir's m.pt is not FAST_DIR's"
exit 0
