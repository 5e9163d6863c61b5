#!/bin/sh
# replay_mpi_run.sh - iotape replay --mpi under mpirun -np 2 on this one
# machine, each rank with its own DIR (DIR's %r is the rank).
#
# Three accelerators over two ranks: rank 0 runs accelerators 0 and 1,
# rank 1 accelerator 2, each on its own copy of the data set, in its own
# DIR.  Rank 0's report holds both ranks: every job names its host and
# rank, the totals are the sums, the ops expected are all accelerators'.
# Then --find-max across both ranks, a usage error that every rank sees,
# and a rank whose DIR is unusable (the run must end, with its error).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
. "$(dirname "$0")/mpi_lib.sh"

job_csv "$T/s.csv" log
ok "$IOTAPE" import -o "$T/s.tape" "$T/s.csv"
rd=$((2 * 409600))

mpi 2 replay --mpi -n 3 --timing afap --output-format json -o "$T/r.json" -d "$T/d%r" "$T/s.tape"
[ "$rc" = 0 ] || fail "mpirun replay --mpi exited $rc: $(cat "$T/err")"
j() { jq_py "$T/r.json" "$1"; }
host=$(jq_py "$T/r.json" "d['jobs'][0]['host']")
[ -n "$host" ] || fail "no host in the jobs"
[ "$(j "sorted((x['accelerator'], x['rank'], x['host'] == '$host') for x in d['jobs'])")" = \
  "[(0, 0, True), (0, 0, True), (0, 0, True), (1, 0, True), (1, 0, True), (1, 0, True), (2, 1, True), (2, 1, True), (2, 1, True)]" ] ||
	fail "jobs: $(j "[(x['jobname'], x['rank'], x['host']) for x in d['jobs']]")"
[ "$(j "d['scale']['ranks']")" = 2 ] || fail "scale.ranks"
[ "$(j "d['scale']['read_bytes']")" = $((3 * rd)) ] || fail "total read $(j "d['scale']['read_bytes']")"
[ "$(j "d['scale']['write_bytes']")" = 300 ] || fail "total written $(j "d['scale']['write_bytes']")"
[ "$(j "[(h['rank'], h['accelerators'], h['read_bytes'], h['write_bytes']) for h in d['scale']['per_host']]")" = \
  "[(0, 2, $((2 * rd)), 200), (1, 1, $rd, 100)]" ] || fail "per host: $(j "d['scale']['per_host']")"
[ "$(j "sum(h['read_bytes'] for h in d['scale']['per_host']) == d['scale']['read_bytes'] == sum(x['read']['io_bytes'] for x in d['jobs'])")" = True ] ||
	fail "per host and per job totals differ from the total"
[ "$(j "d['replay']['ops_expected'] == d['replay']['ops_done'] and d['replay']['ops_expected']['open'] == 9")" = True ] ||
	fail "ops: expected $(j "d['replay']['ops_expected']"), done $(j "d['replay']['ops_done']")"
[ "$(j "d['replay']['ops_failed']")" = 0 ] || fail "failed ops"
# each rank's accelerators in its own DIR, under their global numbers
for f in d0/data/s0.bin d0/.iotape-copy-1/data/s1.bin d1/.iotape-copy-2/data/s0.bin; do
	[ "$(stat -c %s "$T/$f")" = 409600 ] || fail "$f not prepared"
done
for f in d0/out/log.txt d0/.iotape-acc-1/out/log.txt d1/.iotape-acc-2/out/log.txt; do
	[ "$(stat -c %s "$T/$f")" = 100 ] || fail "$f not written"
done
[ ! -e "$T/d1/data" ] && [ ! -e "$T/d0/.iotape-copy-2" ] || fail "a rank made another's files"
# text: one line per rank
mpi 2 replay --mpi -n 3 --timing afap -d "$T/d%r" "$T/s.tape"
[ "$rc" = 0 ] || fail "text: exited $rc: $(cat "$T/err")"
grep -qx "  rank 0 on $host: 2 accelerators, read 1.6 MiB, written 200 B, AU min 0.0%" "$T/out" &&
	grep -qx "  rank 1 on $host: 1 accelerator, read 800.0 KiB, written 100 B, AU min 0.0%" "$T/out" ||
	fail "text per rank: $(grep rank "$T/out")"

# --find-max across the ranks: a compute-bound job (a reader of 4 MiB, a
# trainer computing 0.5 s) keeps every AU; -n 4: trials 2 and 4
compute_csv "$T/m.csv" 4 5
ok "$IOTAPE" import -o "$T/m.tape" "$T/m.csv"
mpi 2 replay --mpi --find-max -n 4 --output-format json -o "$T/fm.json" -d "$T/f%r" "$T/m.tape"
[ "$rc" = 0 ] || fail "find-max --mpi exited $rc: $(cat "$T/err")"
[ "$(jq_py "$T/fm.json" "[(t['accelerators'], t['pass']) for t in d['find_max']['trials']]")" = "[(2, True), (4, True)]" ] ||
	fail "find-max --mpi trials: $(jq_py "$T/fm.json" "d['find_max']")"
[ "$(jq_py "$T/fm.json" "d['find_max']['max_accelerators']")" = 4 ] || fail "find-max --mpi max"
[ -f "$T/f1/.iotape-copy-3/data/big.bin" ] || fail "find-max: rank 1 did not run accelerator 3"

# fewer accelerators than ranks: refused, exit 2
mpi 2 replay --mpi -n 1 -d "$T/u%r" "$T/s.tape"
[ "$rc" = 2 ] || fail "-n 1 on 2 ranks exited $rc, want 2"
[ "$(grep -c '^iotape replay: --mpi: 1 accelerators for 2 ranks' "$T/err")" = 1 ] || fail "-n 1: $(cat "$T/err")"
# a rank that cannot run takes the run down, with its error
mkdir -p "$T/e0" && printf x >"$T/e1" || fail "setup"
mpi 2 replay --mpi -n 2 --timing afap -d "$T/e%r" "$T/s.tape"
[ "$rc" != 0 ] || fail "a rank without a DIR: exit 0"
grep -q "^iotape replay: .*e1" "$T/err" || fail "no error line for rank 1's DIR: $(cat "$T/err")"
exit 0
