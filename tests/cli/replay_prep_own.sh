#!/bin/sh
# replay_prep_own.sh - prepare makes only what was there before the job
# (issue #27, item 5).
#
# A Python job (/usr/bin/python3) makes out/1/1 with os.makedirs, writes a
# 1 MiB checkpoint there and reads it back through a second open without
# O_CREAT, reads its input in.bin, writes out/m.bin and maps it.  Recorded
# by iotape record and by real strace (imported): prepare makes in.bin
# only (its size), nothing under out/, and the replay's mkdirs find no
# directory there (mkdir_existed 0), nor its stats files they should not.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"

cat >"$T/job.py" <<'PY'
import mmap, os, sys
d = sys.argv[1]
os.makedirs(d + "/out/1/1")
with open(d + "/out/1/1/ckpt.bin", "wb") as f:
    f.write(os.urandom(1 << 20))
with open(d + "/out/1/1/ckpt.bin", "rb") as f:
    f.read()
with open(d + "/in.bin", "rb") as f:
    f.read()
with open(d + "/out/m.bin", "wb") as f:
    f.write(b"x" * 65536)
with open(d + "/out/m.bin", "rb") as f:
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    m[:].count(b"x")
    m.close()
os.listdir(d + "/out/1")
PY

# check TRACE W: W is the job's directory in the trace
check() {
	rm -rf "$T/p" "$T/r"
	ok "$IOTAPE" replay --prepare-only -d "$T/p" "$1"
	[ "$(stat -c %s "$T/p$2/in.bin")" = 300000 ] || fail "$1: in.bin not prepared"
	[ -e "$T/p$2/out" ] && fail "$1: prepare made the job's own out/: $(find "$T/p$2/out")"
	ok "$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$T/r" "$1"
	r() { jq_py "$T/r.json" "d['replay']$1"; }
	[ "$(r "['ops_failed']")" = 0 ] || fail "$1: failed: $(r "['failed']")"
	[ "$(r "['mkdir_existed']")" = 0 ] || fail "$1: mkdirs found their directory: $(r "['mkdir_existed']")"
	[ "$(r "['metadata_unlike']")" = 0 ] || fail "$1: metadata ops unlike the recording's: $(r "['metadata_unlike']")"
	[ "$(r "['ops_done']['mkdir']")" = 3 ] || fail "$1: mkdirs: $(r "['ops_done']")"
	[ "$(stat -c %s "$T/r$2/out/1/1/ckpt.bin")" = 1048576 ] || fail "$1: the job's checkpoint"
	[ "$(jq_py "$T/r.json" "d['replay']['dataset_bytes']")" -ge 300000 ] || fail "$1: dataset bytes"
}

if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	mkdir "$T/w" && head -c 300000 /dev/urandom >"$T/w/in.bin" || fail "in.bin"
	"$IOTAPE" record -q -o "$T/a.tape" -- /usr/bin/python3 "$T/job.py" "$T/w" 2>"$T/rec.err" ||
		fail "record: $(cat "$T/rec.err")"
	check "$T/a.tape" "$T/w"
	did=1
fi
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	mkdir "$T/s" && head -c 300000 /dev/urandom >"$T/s/in.bin" || fail "in.bin"
	strace -f -tt -T -y -o "$T/s.strace" /usr/bin/python3 "$T/job.py" "$T/s" 2>"$T/err" ||
		fail "strace: $(cat "$T/err")"
	ok "$IOTAPE" import -F strace -o "$T/s.tape" "$T/s.strace"
	check "$T/s.tape" "$T/s"
	did=1
fi
[ -n "$did" ] || skip "neither iotape record (root, BTF) nor strace can trace here"
exit 0
