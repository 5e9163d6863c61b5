#!/bin/sh
# tests/data/conformance/generate.sh - make the conformance corpus again
# from the real tools (strace, fio, the kernel's blk tracer and blkparse).
# Run as root from this directory: sh generate.sh.  It works under
# /tmp/iotape-conf (the paths the outputs name), on a loop device of its
# own; it runs only while the ftrace tracer is nop, and leaves it nop
# with the bin and context-info options at their defaults.  The outputs
# differ run to run (times, pids, random data): the tests check them
# against what each tool reported, not against fixed numbers.  See
# README.md.
set -e
C=$(pwd)
W=/tmp/iotape-conf
[ "$(id -u)" = 0 ] || { echo "generate.sh: run as root" >&2; exit 1; }
O=$W/out	# the outputs, copied here at the end: nothing names this checkout
rm -rf "$W"	# (and fio appends to an iolog that is there)
mkdir -p "$W" "$O/strace" "$O/fio" "$O/blkparse"
cp work.sh "$W/work.sh"
cd "$W"

# sizes DIR OUT: "PATH SIZE" of every regular file under DIR, sorted
sizes() { find "$1" -type f -printf '%p %s\n' | LC_ALL=C sort >"$2"; }

# ---- strace: the same workload under four option sets
ENV="env -i PATH=/usr/bin:/bin"
run_strace() {	# NAME STRACE-OPTIONS...
	name=$1; shift
	rm -rf "$W/run" && mkdir "$W/run"
	$ENV strace "$@" sh "$W/work.sh"
	sizes "$W/run" "$O/strace/$name.sizes"
}
run_strace f-tt-T-y -f -tt -T -y -o "$O/strace/f-tt-T-y.txt"
run_strace f-tt-T-yy -f -tt -T -yy -o "$O/strace/f-tt-T-yy.txt"
# to stderr, as from a terminal: "[pid N]" prefixes
run_strace f-ttt-T-y -f -ttt -T -y 2>"$O/strace/f-ttt-T-y.txt"
# one process, no -f, no -T: lines without a pid, no durations
rm -rf "$W/run" && mkdir "$W/run"
$ENV strace -tt -y -o "$O/strace/tt-y.txt" dd if=/dev/zero of="$W/run/d.bin" bs=4096 count=3 status=none
sizes "$W/run" "$O/strace/tt-y.sizes"

# ---- fio: write_iolog of three jobs (fio 3.33 writes version 3 logs)
mkdir -p "$W/fio"
fio --output-format=json --output="$O/fio/seqw.json" --name=seqw --directory="$W/fio" \
	--ioengine=psync --size=64k --bs=4k --rw=write --fsync=4 --write_iolog="$O/fio/seqw.iolog" >/dev/null
fio --output-format=json --output="$O/fio/randrw.json" --name=randrw --directory="$W/fio" \
	--ioengine=psync --size=64k --bs=8k --rw=randrw --randseed=42 --write_iolog="$O/fio/randrw.iolog" >/dev/null
# two jobs (numjobs=2) log to one file, one after the other
fio --output-format=json --output="$O/fio/numjobs2.json" --name=nj --directory="$W/fio" \
	--ioengine=libaio --direct=1 --iodepth=4 --size=32k --bs=4k --rw=randread --randseed=7 \
	--numjobs=2 --write_iolog="$O/fio/numjobs2.iolog" >/dev/null
sizes "$W/fio" "$O/fio/sizes"

# ---- blkparse: the kernel's blk tracer (blktrace itself gets EPERM under
# lockdown) on a loop device, its binary trace_pipe read by blkparse -i -
T=/sys/kernel/tracing
truncate -s 16M "$W/loop.img"
dev=$(losetup -f --show "$W/loop.img")
n=${dev#/dev/}
old_tracer=$(cat $T/current_tracer)
[ "$old_tracer" = nop ] || { echo "generate.sh: ftrace is in use ($old_tracer)" >&2; exit 1; }
catpid=
restore() {
	if [ -n "$catpid" ]; then
		kill "$catpid" 2>/dev/null || true
		wait "$catpid" 2>/dev/null || true
	fi
	catpid=
	echo nop >$T/current_tracer
	echo nobin >$T/trace_options
	echo context-info >$T/trace_options
	echo 0 >/sys/block/$n/trace/enable
}
cleanup() {
	restore
	umount "$W/mnt" 2>/dev/null || true
	losetup -d "$dev"
}
trap cleanup EXIT
blk() {	# NAME CMD...: the blk tracer's events on $dev while CMD runs
	name=$1; shift
	echo 1 >/sys/block/$n/trace/enable
	echo bin >$T/trace_options
	echo nocontext-info >$T/trace_options	# records only, as blkparse reads them
	echo blk >$T/current_tracer
	cat $T/trace_pipe >"$W/$name.bin" & catpid=$!
	sleep 0.3
	"$@"
	sleep 0.5
	restore
	blkparse -i - <"$W/$name.bin" >"$O/blkparse/$name.txt"
}
blk direct sh -c "dd if=/dev/zero of=$dev bs=4k count=4 oflag=direct status=none &&
	dd if=$dev of=/dev/null bs=8k count=2 iflag=direct status=none"
mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$dev"
mkdir -p "$W/mnt"
blk ext4 sh -c "mount -o nodiscard $dev $W/mnt &&
	dd if=/dev/zero of=$W/mnt/f.bin bs=64k count=4 conv=fsync status=none &&
	dd if=$W/mnt/f.bin of=/dev/null bs=32k iflag=direct status=none && umount $W/mnt"
trap - EXIT
cleanup
rm -rf "$C/strace" "$C/fio" "$C/blkparse"
cp -r "$O/strace" "$O/fio" "$O/blkparse" "$C/"
