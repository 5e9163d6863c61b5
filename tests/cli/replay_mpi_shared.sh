#!/bin/sh
# replay_mpi_shared.sh - iotape replay --mpi under mpirun -np 2 with one
# DIR for every rank (no %r: MLPerf Storage's one data set on shared
# storage): rank 0 prepares every accelerator's files, the other waits for
# it, each accelerator reads its own files.  Before, the two ranks raced on
# DIR's marker and lock.
#
# A job file (20 files of 64 KiB, a checkpoint) on 3 accelerators over two
# ranks: exit 0, nothing failed, rank 0's report holds both ranks and all
# 3 accelerators' reads; DIR holds the 3 copies of the data set (data/,
# .iotape-copy-1/, .iotape-copy-2/) and each accelerator's checkpoint.  A
# trace likewise, twice in a row in the same DIR.  When rank 0 cannot
# prepare (a directory where accelerator 2's file goes), the run fails
# with rank 0's error, and no rank has begun.  --find-max on one DIR.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
. "$(dirname "$0")/mpi_lib.sh"

cat >"$T/job.ini" <<'INI'
[job]
format = 1
[dataset]
data_folder = data
num_files = 20
record_length = 64k
[reader]
batch_size = 2
[train]
computation_time = 0.001
[checkpoint]
size = 64k
INI
mpi 2 replay --mpi -n 3 --output-format json -o "$T/r.json" -d "$T/d" "$T/job.ini"
[ "$rc" = 0 ] || fail "mpirun replay --mpi on one DIR exited $rc: $(cat "$T/err")"
j() { jq_py "$T/r.json" "$1"; }
[ "$(j "d['replay']['ops_failed'], d['scale']['ranks'], d['scale']['read_bytes']")" = "0 2 $((3 * 20 * 65536))" ] ||
	fail "the run: $(j "d['scale']")"
[ "$(j "[(h['rank'], h['accelerators']) for h in d['scale']['per_host']]")" = "[(0, 2), (1, 1)]" ] ||
	fail "per host: $(j "d['scale']['per_host']")"
for c in data .iotape-copy-1/data .iotape-copy-2/data; do
	[ "$(find "$T/d/$c" -name 'img_*.jpg' -size 65536c | wc -l)" = 20 ] || fail "$c: $(ls "$T/d/$c")"
done
for c in checkpoints .iotape-acc-1/checkpoints .iotape-acc-2/checkpoints; do
	[ -s "$T/d/$c/ckpt_1.pt" ] || fail "$c: no checkpoint"
done

# a trace, twice in the same DIR
job_csv "$T/s.csv" log
ok "$IOTAPE" import -o "$T/s.tape" "$T/s.csv"
for run in 1 2; do
	mpi 2 replay --mpi -n 2 --timing afap --output-format json -o "$T/t.json" -d "$T/e" "$T/s.tape"
	[ "$rc" = 0 ] || fail "trace, run $run: exited $rc: $(cat "$T/err")"
	[ "$(jq_py "$T/t.json" "d['replay']['ops_failed'], d['scale']['read_bytes']")" = "0 $((2 * 2 * 409600))" ] ||
		fail "trace, run $run: $(jq_py "$T/t.json" "d['scale']")"
done
[ "$(stat -c %s "$T/e/.iotape-copy-1/data/s1.bin")" = 409600 ] || fail "trace: accelerator 1's copy"

# rank 0 cannot prepare: its error, and no rank began
mkdir -p "$T/f/.iotape-copy-2/data/img_00.jpg" || fail "mkdir"
mpi 2 replay --mpi -n 3 -d "$T/f" --force "$T/job.ini"
[ "$rc" != 0 ] || fail "a prepare that fails: exit 0"
grep -q "^iotape replay: preparing '.iotape-copy-2/data/img_00.jpg': not a regular file" "$T/err" ||
	fail "no error line of rank 0's prepare: $(cat "$T/err")"
[ -n "$(find "$T/f" -name 'ckpt_*')" ] && fail "a run began: $(find "$T/f" -name 'ckpt_*')"

# --find-max on one DIR: a compute-bound job keeps every AU at 2 and 4
compute_csv "$T/m.csv" 4 5
ok "$IOTAPE" import -o "$T/m.tape" "$T/m.csv"
mpi 2 replay --mpi --find-max -n 4 --output-format json -o "$T/fm.json" -d "$T/g" "$T/m.tape"
[ "$rc" = 0 ] || fail "find-max --mpi on one DIR exited $rc: $(cat "$T/err")"
[ "$(jq_py "$T/fm.json" "d['find_max']['max_accelerators']")" = 4 ] || fail "find-max: $(jq_py "$T/fm.json" "d['find_max']")"
[ -f "$T/g/.iotape-copy-3/data/big.bin" ] || fail "find-max: accelerator 3's copy"
exit 0
