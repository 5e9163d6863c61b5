#!/bin/sh
# merge_mpi.sh - replay --mpi of a merged trace under mpirun -np 2: rank r
# replays host r's part, so each rank reads and writes its host's bytes
# (host 0 reads 2 x 409600 and writes 100; host 1 reads 4096 and writes
# 300); a merged trace of 2 hosts under 3 ranks is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
. "$(dirname "$0")/mpi_lib.sh"

job_csv "$T/a.csv" log
printf '%s\n' "$HDR" "100,1,1,openat,/data/h1.bin,-1,0,0,3,10,0," \
	"200,1,1,pread64,/data/h1.bin,3,0,4096,4096,10,0," "300,1,1,close,/data/h1.bin,3,0,0,0,10,0," \
	"400,1,1,openat,/out/h1.txt,-1,0,0,3,10,0x241," "500,1,1,write,/out/h1.txt,3,0,300,300,10,0," \
	"600,1,1,close,/out/h1.txt,3,0,0,0,10,0," >"$T/b.csv"
ok "$IOTAPE" import -m start_wall_ns=1000 -m start_mono_ns=0 -o "$T/a.tape" "$T/a.csv"
ok "$IOTAPE" import -m start_wall_ns=1000 -m start_mono_ns=0 -o "$T/b.tape" "$T/b.csv"
ok "$IOTAPE" merge -q -o "$T/m.tape" "$T/a.tape" "$T/b.tape"

mpi 2 replay --mpi --timing afap --output-format json -o "$T/r.json" -d "$T/d%r" "$T/m.tape"
[ "$rc" = 0 ] || fail "mpirun replay --mpi exited $rc: $(cat "$T/err")"
j() { jq_py "$T/r.json" "$1"; }
[ "$(j "[(h['rank'], h['read_bytes'], h['write_bytes']) for h in d['scale']['per_host']]")" = \
  "[(0, 819200, 100), (1, 4096, 300)]" ] || fail "per rank: $(j "d['scale']['per_host']")"
[ "$(j "d['replay']['ops_failed']")" = 0 ] || fail "failed ops"
# rank 1 is accelerator 1: its files under DIR/.iotape-copy-1, as without a merge
(cd "$T" && find d0 d1 -name '*.bin') >"$T/bins.find" || fail "find under d0 d1"
sort "$T/bins.find" >"$T/bins" || fail "sort"
printf '%s\n' d0/data/s0.bin d0/data/s1.bin d1/.iotape-copy-1/data/h1.bin >"$T/want"
cmp -s "$T/want" "$T/bins" || fail "a rank made another host's files: $(cd "$T" && find d0 d1)"

mpi 3 replay --mpi --timing afap -d "$T/e%r" "$T/m.tape"
[ "$rc" = 2 ] || fail "3 ranks for 2 hosts: exited $rc: $(cat "$T/err")"
grep -q 'merged trace of 2 hosts: run it with 2 ranks' "$T/err" || fail "3 ranks: $(cat "$T/err")"
exit 0
