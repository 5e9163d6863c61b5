#!/bin/sh
# replay_mmap.sh - page faults on file mappings are replayed as reads.
#
# A trace made with the format library (tests/helpers/mktape: file,
# syscall and cache tables together): a fault is a read of its page, a
# fault-around window (map_pages) one read of the window, except when the
# thread's next event is a fault inside it (then the fault's page stands
# for both); faults on a file with no path, on a file mapped executable
# (a library) and on a file under /dev (shared memory) are counted, not
# replayed.  A write on a pipe (file table: a fifo) is not replayed either.
# The bundled traces/memmap.iotape (numpy memmap, no read() of the data)
# now reads its data file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
[ -x "$TESTBIN/mktape" ] || skip "no $TESTBIN/mktape (run make tests)"
need_uring

P=4096
cat >"$T/file.csv" <<EOF2
ts_ns,file_id,path,dev,inode,size,mode
1,1,/data/m.bin,1,11,1048576,33188
1,2,/data/n.bin,1,12,262144,33188
1,3,/data/lib.so,1,13,65536,33188
1,4,/dev/shm/torch_10_1_0,2,14,65536,33188
1,5,pipe:[77],0,77,0,4480
EOF2
cat >"$T/sys.csv" <<EOF2
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,file_id
1000,10,10,openat,/data/m.bin,-1,0,0,3,10,0,1
1100,10,10,mmap,/data/m.bin,3,0,1048576,140000000,10,0,1
1200,10,10,close,/data/m.bin,3,0,0,0,10,0,1
5000,10,10,openat,/data/n.bin,-1,0,0,4,10,0,2
6000,10,10,pread64,/data/n.bin,4,0,4096,4096,10,0,2
9000,10,10,close,/data/n.bin,4,0,0,0,10,0,2
9100,10,10,openat,/data/lib.so,-1,0,0,5,10,0,3
9200,10,10,mmap,/data/lib.so,5,0,65536,150000000,10,5,3
9300,10,10,close,/data/lib.so,5,0,0,0,10,0,3
9700,10,10,write,pipe:[77],7,0,5,5,10,0,5
EOF2
cat >"$T/cache.csv" <<EOF2
ts_ns,pid,tid,kind,dev,inode,file_id,index,count
2000,10,10,fault,1,11,1,5,1
2500,10,11,fault,1,11,1,0,1
2600,10,11,map_pages,1,99,0,0,16
2700,10,11,fault,1,12,2,10,1
2800,10,11,insert,1,12,2,10,4
3000,10,10,map_pages,1,11,1,16,16
4000,10,10,map_pages,1,11,1,32,16
4001,10,10,fault,1,11,1,40,1
7000,10,10,fault,1,11,1,100,1
9400,10,10,fault,1,13,3,0,1
9500,10,10,map_pages,1,13,3,1,15
9600,10,12,fault,2,14,4,0,1
EOF2
"$TESTBIN/mktape" "$T/f.tape" file="$T/file.csv" syscall="$T/sys.csv" cache="$T/cache.csv" ||
	fail "mktape failed"
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$T/d" "$T/f.tape"
r() { jq_py "$T/r.json" "d['replay']$1"; }
[ "$(r "['fault_reads_expected']")" = 6 ] || fail "planned fault reads $(r "['fault_reads_expected']"), want 6"
[ "$(r "['fault_reads']")" = 6 ] || fail "fault reads done $(r "['fault_reads']"), want 6"
[ "$(r "['fault_pages']")" = 21 ] || fail "fault pages $(r "['fault_pages']"), want 21"
[ "$(r "['faults_unmatched']")" = 1 ] || fail "unmatched faults $(r "['faults_unmatched']"), want 1"
[ "$(r "['faults_code']")" = 2 ] || fail "faults on a library $(r "['faults_code']"), want 2"
[ "$(r "['faults_shm']")" = 1 ] || fail "faults under /dev $(r "['faults_shm']"), want 1"
[ "$(r "['recorded_not_storage']")" = 1 ] || fail "ops on a pipe $(r "['recorded_not_storage']"), want 1"
[ ! -e "$T/d/pipe:[77]" ] || fail "the pipe became a file under DIR"
[ "$(r "['ops_done']['read']")" = 7 ] || fail "reads $(r "['ops_done']['read']"), want 7"
[ "$(r "['ops_failed']")" = 0 ] || fail "failed ops"
jq_py "$T/r.json" "'\n'.join('%s %d' % (f['path'], f['replayed_bytes']) for f in d['replay']['files'])" |
	sort >"$T/got"
printf 'data/lib.so 0\ndata/m.bin %d\ndata/n.bin %d\n' $((20 * P)) $((2 * P)) >"$T/want"
same "$T/want" "$T/got"
[ "$(stat -c %s "$T/d/data/m.bin")" = 1048576 ] || fail "m.bin not prepared with the file table's size"
ok "$IOTAPE" replay --timing afap -d "$T/d" "$T/f.tape"
grep -q '^  page faults: 6/6 reads (21 pages); not replayed: 1 on unknown files, 2 on programs and libraries, 1 under /dev$' "$T/out" ||
	fail "text report: $(grep faults "$T/out")"

# the bundled numpy-memmap job: its data file is read only through faults
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/m.json" -d "$T/mm" "$TOP/traces/memmap.iotape"
[ "$(jq_py "$T/m.json" "d['replay']['fault_reads'] == d['replay']['fault_reads_expected'] > 1000")" = True ] ||
	fail "memmap: fault reads $(jq_py "$T/m.json" "d['replay']['fault_reads']")"
[ "$(jq_py "$T/m.json" "d['replay']['ops_failed']")" = 0 ] || fail "memmap: failed ops"
b=$(jq_py "$T/m.json" "[f for f in d['replay']['files'] if f['path'] == 'tmp/wl2/features.npy'][0]")
[ "$(jq_py "$T/m.json" "[(f['replayed_bytes'] == f['recorded_bytes'] >= 67108864) for f in d['replay']['files'] if f['path'] == 'tmp/wl2/features.npy'][0]")" = True ] ||
	fail "memmap: features.npy $b"
exit 0
