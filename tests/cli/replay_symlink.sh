#!/bin/sh
# replay_symlink.sh - the job's symlinks are made again under DIR, and a
# file read through one is the same file in the replay (issue #27, item 3).
#
# A file read through a symlink was counted by the recording under the
# link's target, and the replay made the link's path a regular file of
# its own: compare --check failed "files" (DLIO: 251 files, the time zone
# files read through /etc/localtime).  The recorder now names a file by
# its real path (the open keeps the path the job gave), and the replay
# makes the links that lead from one to the other, relative, under DIR:
# the issue's repro (d/alias -> real), a directory link (data ->
# mnt/nvme/data, one link for all the files under it), a file created
# through a link; the replay, recorded, passes every check of compare but
# the timing ones (afap), also with two accelerators.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring

cd "$T" || fail "cd"
mkdir d && head -c 4096 /dev/urandom >d/real && ln -s real d/alias || fail "d/alias"
mkdir -p mnt/nvme/data ck_real && ln -s mnt/nvme/data data && ln -s ck_real ck || fail "links"
for i in 0 1 2 3; do head -c 8192 /dev/urandom >mnt/nvme/data/f$i.bin || fail "f$i"; done

# the issue's repro
"$IOTAPE" record -q -o "$T/a.tape" -- sh -c 'cat d/real d/alias >/dev/null' 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
ok "$IOTAPE" dump "$T/a.tape"
grep -q "openat $T/d/alias ret=3 .*file_id=" "$T/out" || fail "the open of d/alias lost its path"
grep -q "file file_id=.* path=$T/d/real " "$T/out" || fail "no file row named d/real"
grep -q "file file_id=.* path=$T/d/alias " "$T/out" && fail "a file row named by the link"

# check TRACE [REPLAY OPTION]: prepared and replayed under record, compare
# --check passes every check but compute_gap and duration
check() {
	rm -rf "$T/r"
	ok "$IOTAPE" replay --prepare-only $2 -d "$T/r" "$1"
	"$IOTAPE" record -q -f -o "$T/b.tape" -- "$IOTAPE" replay --no-prepare --timing afap $2 \
		--output-format json -o "$T/r.json" -d "$T/r" "$1" 2>"$T/rp.err" ||
		fail "replay of $1 $2: $(cat "$T/rp.err")"
	[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] ||
		fail "$1 $2: failed: $(jq_py "$T/r.json" "d['replay']['failed']")"
	[ -n "$2" ] && return 0	# (accelerator 1's files are under other names)
	run "$IOTAPE" compare --map "$T/r" --check --json "$1" "$T/b.tape"
	[ -s "$T/out" ] || fail "compare: $(cat "$T/err")"
	bad=$(jq_py "$T/out" "[c['name'] + ': ' + c['detail'] for c in d['fidelity']['checks'] if not c['ok'] and c['name'] not in ('compute_gap', 'duration')]")
	[ "$bad" = "[]" ] || fail "$1: compare --check: $bad"
}
check "$T/a.tape"
[ "$(readlink "$T/r$T/d/alias")" = real ] || fail "d/alias is not the link it was: $(ls -l "$T/r$T/d")"
[ -f "$T/r$T/d/real" ] && [ ! -L "$T/r$T/d/real" ] && [ "$(stat -c %s "$T/r$T/d/real")" = 4096 ] ||
	fail "d/real not prepared"
# a second prepare keeps the link (and the file)
ok "$IOTAPE" replay --prepare-only -d "$T/r" "$T/a.tape"
[ "$(readlink "$T/r$T/d/alias")" = real ] || fail "the second prepare lost d/alias"

# a data set under a directory link, its files stat'ed through it, a file
# link beside them, a checkpoint written through a link and read back
ln -s f0.bin mnt/nvme/data/first.bin || fail "first.bin"
cat >"$T/job.py" <<'PY'
import os
for i in range(4):
    os.stat("data/f%d.bin" % i)
    with open("data/f%d.bin" % i, "rb") as f:
        f.read()
with open("data/first.bin", "rb") as f:
    f.read()
with open("ck/model.pt", "wb") as f:
    f.write(b"x" * 10000)
with open("ck/model.pt", "rb") as f:
    f.read()
os.stat("data")
os.lstat("data")
PY
"$IOTAPE" record -q -o "$T/j.tape" -- /usr/bin/python3 "$T/job.py" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
check "$T/j.tape"
[ "$(readlink "$T/r$T/data")" = mnt/nvme/data ] || fail "data is not one directory link: $(ls -l "$T/r$T")"
[ "$(readlink "$T/r$T/mnt/nvme/data/first.bin")" = f0.bin ] || fail "first.bin -> f0.bin"
[ -d "$T/r$T/mnt/nvme/data" ] && [ "$(stat -c %s "$T/r$T/mnt/nvme/data/f3.bin")" = 8192 ] ||
	fail "the data set is not under mnt/nvme/data"
[ "$(stat -c %s "$T/r$T/ck_real/model.pt")" = 10000 ] || fail "the checkpoint was not written through ck"
[ -e "$T/r$T/data/f0.bin" ] || fail "data/f0.bin does not lead to the file"
check "$T/j.tape" "-n 2"
exit 0
