#!/bin/sh
# model_extent.sh - `iotape model TRACE` sizes the data set's files by the
# end of their furthest read or write where the file table gives less (a
# file the job created is listed with size 0, its size at the open) or
# nothing (an import: strace, fio iolog), so the job file it writes runs
# and `export --format fio-job` works (iotape-model(1), FROM A TRACE):
#   fio     real fio (--write_iolog) reading a 1 MiB file at random twice,
#           2 ms of think time after each read (the model's compute),
#           imported: record_length 1048576, 2 epochs; the fio job file
#           exported (filesize=1048576) is model --fio's and parses
#   strace  real strace of a job that writes 40 files of 32 KiB + i KiB
#           and reads them whole twice, imported: record_length and its
#           stdev, min and max those of the 40 sizes, 2 epochs; its fio job
#           file (filesize=32768-72704) parses
#   record  the same job recorded (its files in the file table with size
#           0): the same values, and the job file replays (--runtime 3)
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/model_lib.sh"
command -v fio >/dev/null || skip "no fio"
PY=${PY:-/usr/bin/python3}
export IOTAPE_DIR="$T/jd"	# the fio job files name it
mkdir "$IOTAPE_DIR" || fail "mkdir $IOTAPE_DIR"

# sizes INI MEAN STDEV MIN MAX: the four record_length values
sizes() {
	want "$1" dataset record_length "$2"
	want "$1" dataset record_length_stdev "$3"
	want "$1" dataset record_length_min "$4"
	want "$1" dataset record_length_max "$5"
}
# fio_job TRACE FILESIZE: export -F fio-job works, equals model --fio, has
# filesize=FILESIZE, and fio parses it
fio_job() {
	ok "$IOTAPE" model --fio "$1"
	cp "$T/out" "$T/model.fio" || fail cp
	rm -f "$T/job.fio"
	ok "$IOTAPE" export -F fio-job -o "$T/job.fio" "$1"
	same "$T/model.fio" "$T/job.fio"
	grep -qx "filesize=$2" "$T/job.fio" ||
		fail "$1: fio job file: $(grep filesize "$T/job.fio"), want filesize=$2"
	fio --parse-only "$T/job.fio" >"$T/fio.out" 2>&1 || fail "fio --parse-only: $(cat "$T/fio.out")"
}

# ------------------------------------------------------------------- fio
fio --name=r --rw=randread --size=1m --bs=64k --loops=2 --thinktime=2ms --filename="$T/r.dat" \
	--write_iolog="$T/r.iolog" --output-format=json --output="$T/r.json" >"$T/fio.out" 2>&1 ||
	fail "fio randread: $(cat "$T/fio.out")"
ok "$IOTAPE" import -F fio-iolog -o "$T/r.tape" "$T/r.iolog"
ok "$IOTAPE" model -o "$T/r.ini" "$T/r.tape"
sizes "$T/r.ini" 1048576 0 1048576 1048576
want "$T/r.ini" dataset num_files 1
want "$T/r.ini" train epochs 2
fio_job "$T/r.tape" 1048576

# ---------------------------------------------------------------- strace
cat >"$T/mk.py" <<'EOF' || fail "writing mk.py"
import os, random, sys
d = sys.argv[1]
os.makedirs(d)
rng = random.Random(3)
for i in range(40):
    with open(os.path.join(d, "s_%03d.bin" % i), "wb") as f:
        f.write(rng.randbytes(32768 + 1024 * i))
n = 0
for e in range(2):
    order = list(range(40))
    rng.shuffle(order)
    for i in order:
        with open(os.path.join(d, "s_%03d.bin" % i), "rb") as f:
            n += len(f.read())
print(n)
EOF
# 40 sizes 32768 + 1024 i: mean 52736, population stdev 1024 sqrt(1599/12)
command -v strace >/dev/null || skip "no strace"
strace -o /dev/null true 2>"$T/err" || skip "strace cannot trace here: $(cat "$T/err")"
strace -f -tt -T -y -o "$T/mk.strace" "$PY" "$T/mk.py" "$T/s" >"$T/job.out" 2>"$T/job.err" ||
	fail "strace of mk.py: $(cat "$T/job.err")"
[ "$(cat "$T/job.out")" = $((2 * (40 * 32768 + 1024 * 780))) ] || fail "mk.py read $(cat "$T/job.out")"
ok "$IOTAPE" import -F strace -o "$T/s.tape" "$T/mk.strace"
ok "$IOTAPE" model -o "$T/s.ini" "$T/s.tape"
sizes "$T/s.ini" 52736 11820 32768 72704
want "$T/s.ini" dataset num_files 40
want "$T/s.ini" train epochs 2
fio_job "$T/s.tape" 32768-72704

# ---------------------------------------------------------------- record
rec_need_bpf
"$IOTAPE" record -q -o "$T/c.iotape" -- "$PY" "$T/mk.py" "$T/c" >"$T/job.out" 2>"$T/job.err" ||
	fail "record mk.py: $(cat "$T/job.err")"
# the file table lists the files as the job opened them to write: empty
ok "$IOTAPE" dump -F csv --table file -o "$T/c.files.csv" "$T/c.iotape"
n=$(awk -F, -v d="$T/c/" 'index($3, d) == 1 && $6 == 0' "$T/c.files.csv" | wc -l)
[ "$n" -ge 40 ] || fail "the file table lists $n of the 40 files with size 0"
ok "$IOTAPE" model -o "$T/c.ini" "$T/c.iotape"
sizes "$T/c.ini" 52736 11820 32768 72704
want "$T/c.ini" dataset num_files 40
want "$T/c.ini" train epochs 2
mkdir "$T/rd" || fail mkdir
run "$IOTAPE" replay "$T/c.ini" -d "$T/rd" --runtime 3
[ "$rc" -eq 0 ] || fail "replay of the model: exit $rc: $(cat "$T/err")"
n=$(find "$T/rd" -name 's_*.bin' -size +31k | wc -l)
[ "$n" = 40 ] || fail "the replay made $n files of 32 KiB or more, want 40"
exit 0
