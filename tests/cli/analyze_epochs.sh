#!/bin/sh
# analyze_epochs.sh - `iotape analyze` counts the passes a job makes over
# the records (byte ranges) of its data set, in container files as in small
# files (iotape-analyze(1), Epochs), on:
#   csv     a trace imported from CSV (no file table: no sizes): one 16 MiB
#           file read twice through one open at shuffled 64 KiB offsets:
#           2 epochs of 16 MiB each
#   strace  real strace -f -tt -T -y of tests/epoch_job.py, imported (no
#           sizes either): one file read twice with os.pread at shuffled
#           offsets (2 epochs of 4 MiB each); 6 tar files opened by tarfile
#           (three opens each to guess the compression) and 6 HDF5 files
#           read record by record in one order across the files (2 epochs)
#   record  tests/epoch_job.py recorded: 6 HDF5 files through h5py (whose
#           sieve buffer reads each file's bytes about 3 times an epoch),
#           kept open or opened per record, 6 npz and 6 tar files kept
#           open, records in one shuffled order across the files, for 2
#           and 3 epochs: as many epochs, each holding the 6 files
. "$(dirname "$0")/record_lib.sh"
[ -x "$TESTBIN/mktape" ] || skip "no $TESTBIN/mktape (run make tests)"
PY=${PY:-/usr/bin/python3}
JOB=$TOP/tests/epoch_job.py

# epochs JSON E FILES [BYTES]: E epochs counted and listed, each holding
# the data set's FILES files (and BYTES bytes), no partial pass
epochs() {
	python3 - "$@" <<'PY' || fail "$(basename "$1"): not $2 epochs of $3 files"
import json, sys
d = json.load(open(sys.argv[1]))
e, n = int(sys.argv[2]), int(sys.argv[3])
ep = d["epochs"]
got = (ep["count"], ep["partial_passes"], [x["files"] for x in ep["epochs"]], d["dataset"]["files"])
want = (e, 0, [n] * e, n)
if len(sys.argv) > 4:
    got += ([x["bytes"] for x in ep["epochs"]],)
    want += ([int(sys.argv[4])] * e,)
if got != want:
    sys.exit("%s: (count, partial_passes, files per epoch, data set files%s) %s, want %s" %
             (sys.argv[1], ", bytes" if len(sys.argv) > 4 else "", got, want))
PY
}

# ------------------------------------------------------------------- csv
SH='ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id'
{ echo "$SH"
  awk 'BEGIN {
	t = 1000000000; p = "/data/records.bin"
	printf "%.0f,100,100,openat,%s,-100,0,0,4,1000,1\n", t, p
	for (ep = 0; ep < 2; ep++)
		for (k = 0; k < 256; k++) {	# a new shuffle each epoch
			r = (k * 97 + ep * 61) % 256
			printf "%.0f,100,100,pread64,%s,4,%.0f,65536,65536,50000,1\n", t += 100000, p, r * 65536
		}
	printf "%.0f,100,100,close,%s,4,0,0,0,1000,1\n", t += 1000, p
  }'; } >"$T/csv.sys.csv" || fail "writing csv.sys.csv"
"$TESTBIN/mktape" "$T/csv.tape" syscall="$T/csv.sys.csv" || fail "mktape csv failed"
ok "$IOTAPE" analyze --json "$T/csv.tape"
mv "$T/out" "$T/csv.json" || fail mv
epochs "$T/csv.json" 2 1 16777216
ok "$IOTAPE" analyze "$T/csv.tape"
grep -q '^  2 epochs; ' "$T/out" || fail "csv text: $(grep -A1 '^EPOCHS' "$T/out")"

# ---------------------------------------------------------------- strace
"$PY" -c "import numpy" 2>/dev/null || skip "no numpy for $PY"
command -v strace >/dev/null || skip "no strace"
strace -o /dev/null true 2>"$T/err" || skip "strace cannot trace here: $(cat "$T/err")"
have_h5=1
"$PY" -c "import h5py" 2>/dev/null || have_h5=0

# job KIND: tests/epoch_job.py KIND's data set in $T/KIND
job_make() {
	"$PY" "$JOB" "$1" "$T/$1" make >"$T/make.out" 2>&1 ||
		fail "epoch_job.py $1 make: $(cat "$T/make.out")"
}
# ran KIND E: the job's output says it read every record every epoch
ran() {
	want=$((E * 6 * 64 * 16384))
	[ "$1" = one ] && want=$((E * 64 * 65536))
	[ "$(cat "$T/job.out")" = "$want" ] || fail "$1: the job read $(cat "$T/job.out") bytes, want $want"
}

kinds="one tar"
[ $have_h5 = 1 ] && kinds="$kinds h5"
for k in $kinds; do
	job_make $k
	E=2
	strace -f -tt -T -y -o "$T/$k.strace" "$PY" "$JOB" $k "$T/$k" train --epochs $E \
		>"$T/job.out" 2>"$T/job.err" || fail "strace of $k: $(cat "$T/job.err")"
	ran $k
	ok "$IOTAPE" import -F strace -o "$T/$k.s.tape" "$T/$k.strace"
	ok "$IOTAPE" analyze --json "$T/$k.s.tape"
	mv "$T/out" "$T/$k.s.json" || fail mv
	if [ $k = one ]; then
		epochs "$T/$k.s.json" $E 1 4194304
	else
		epochs "$T/$k.s.json" $E 6
	fi
done

# ---------------------------------------------------------------- record
rec_need_bpf
job_make npz
kinds="npz tar"
[ $have_h5 = 1 ] && kinds="h5 h5open $kinds"
for k in $kinds; do
	d=$T/$k
	[ $k = h5open ] && d=$T/h5	# the same files, opened per record
	for E in 2 3; do
		"$IOTAPE" record -q -o "$T/$k.$E.iotape" -- "$PY" "$JOB" $k "$d" train \
			--epochs $E >"$T/job.out" 2>"$T/job.err" ||
			fail "record $k ($E epochs): $(cat "$T/job.err")"
		ran $k
		ok "$IOTAPE" analyze --json "$T/$k.$E.iotape"
		mv "$T/out" "$T/$k.$E.json" || fail mv
		epochs "$T/$k.$E.json" $E 6
	done
done
[ $have_h5 = 1 ] || skip "no h5py for $PY (apt-get install python3-h5py): HDF5 jobs not run"
exit 0
