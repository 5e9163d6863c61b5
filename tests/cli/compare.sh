#!/bin/sh
# compare.sh - `iotape compare`: --map takes DIR off B's paths and leaves
# out the replayer's own I/O (the trace it reads, its marker file); the
# checks pass on a faithful B and name exactly what differs otherwise;
# a real trace compared with itself passes with its exact counts; the data
# set is A's on both sides, its epochs null where analyze says so, and the
# page cache counts only the files on both sides (not A's libraries'
# page faults).
. "$(dirname "$0")/lib.sh"

jq_py() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# A: the job.  One thread reads /data/a in three 4 KiB reads 8-10 us
# apart (compute gaps 1 + 7 + 9 + 9 = 26 us), another writes /data/b.
cat >"$T/a.csv" <<'EOT'
ts_ns,tid,op,path,offset,size,dur_ns
0,1,openat,/data/a,0,0,1000
2000,1,read,/data/a,0,4096,1000
10000,1,read,/data/a,4096,4096,1000
20000,1,read,/data/a,8192,4096,1000
30000,1,openat,/data/b,0,0,1000
40000,2,write,/data/b,0,100,1000
EOT
# B: what recording `iotape replay -d /r` of A looks like: the replayer
# reads the trace and writes its marker (thread 7), then the job's ops
# under /r as io_uring ops, each waited for in io_uring_enter.
cat >"$T/b.csv" <<'EOT'
ts_ns,tid,op,path,fd,offset,size,dur_ns
0,7,openat,/home/u/job.iotape,-100,0,0,200
200,7,read,/home/u/job.iotape,3,0,65536,300
500,7,openat,/r/.iotape-replay,-100,0,0,200
700,7,write,/r/.iotape-replay,4,0,10,300
1000,8,openat,/r/data/a,-100,0,0,1000
3000,8,io_uring_enter,,9,0,1,1000
3000,8,uring_read,/r/data/a,5,0,4096,1000
11000,8,io_uring_enter,,9,0,1,1000
11000,8,uring_read,/r/data/a,5,4096,4096,1000
21000,8,io_uring_enter,,9,0,1,1000
21000,8,uring_read,/r/data/a,5,8192,4096,1000
31000,8,openat,/r/data/b,-100,0,0,1000
41000,9,io_uring_enter,,9,0,1,1000
41000,9,uring_write,/r/data/b,6,0,100,1000
EOT
# C: B with one byte short in the last read of /r/data/a.
sed 's/^21000,8,uring_read,\/r\/data\/a,5,8192,4096/21000,8,uring_read,\/r\/data\/a,5,8192,4095/' \
	"$T/b.csv" >"$T/c.csv"
grep -q ',8192,4095,' "$T/c.csv" || fail "c.csv not made"
for x in a b c; do
	ok "$IOTAPE" import -o "$T/$x.tape" "$T/$x.csv"
done

# faithful: every check passes
ok "$IOTAPE" compare --map /r --check "$T/a.tape" "$T/b.tape"
grep -q '^  PASSED: 0 of 10 checks failed$' "$T/out" || fail "a/b --check: $(cat "$T/out")"
grep -q '^  2 compared, 2 equal in ops and bytes, 0 differ$' "$T/out" || fail "a/b files: $(cat "$T/out")"
grep -Eq '^  compute gap \(all threads\) +26\.0us +26\.0us +=$' "$T/out" ||
	fail "a/b compute gap: $(grep 'compute gap' "$T/out")"
grep -Eq '^  duration +41\.0us +42\.0us +\+2\.4%$' "$T/out" ||
	fail "a/b duration: $(grep 'duration' "$T/out")"

ok "$IOTAPE" compare --json --map /r "$T/a.tape" "$T/b.tape"
mv "$T/out" "$T/ab.json"
for e in "d['schema']=='iotape-compare/1'" "d['traces']['map']=='/r'" \
	 "d['summary']['read_bytes']['a']==12288" "d['summary']['read_bytes']['b']==12288" \
	 "d['summary']['write_ops']['b']==1" "d['kinds']['read']['ops']['a']==3" \
	 "d['kinds']['uring_read']['ops']['b']==3" "d['kinds']['uring_write']['bytes']['b']==100" \
	 "[f['path'] for f in d['files']]==['data/a','data/b']" \
	 "d['compute']['gap_s']['b']==2.6e-05" "len(d['compute']['threads'])==2" \
	 "d['pattern']['read_randomness']['a']==0.0" "d['fidelity']['passed'] is True" \
	 "len(d['fidelity']['checks'])==10" "d['dataset']['files']['a']==1" \
	 "d['dataset']['files']['b']==1" "d['dataset']['read_bytes']['b']==12288" \
	 "d['other_files']['files']['a']==1" "[f['dataset'] for f in d['files']]==[True,False]"; do
	[ "$(jq_py "$T/ab.json" "$e")" = True ] || fail "a/b json: $e"
done

# without --map, B's paths and the replayer's own I/O count: all differ,
# and A's data set (/data/a) is not in B
err_line 1 "iotape compare: " \
	"fidelity check failed: read_ops, read_bytes, write_ops, write_bytes, files, read_randomness, request_sizes" \
	"$IOTAPE" compare --check "$T/a.tape" "$T/b.tape"
grep -q '^  6 compared, 0 equal in ops and bytes, 6 differ$' "$T/out" || fail "a/b unmapped: $(cat "$T/out")"

# one byte short: the totals, that file and the size classes fail
err_line 1 "iotape compare: " "fidelity check failed: read_bytes, files, request_sizes" \
	"$IOTAPE" compare --map /r/ --check "$T/a.tape" "$T/c.tape"
grep -q '^  FAIL read_bytes       A 12288, B 12287 (must be equal)$' "$T/out" || fail "a/c: $(cat "$T/out")"
grep -q '^  read 3/3 ops 12288/12287 B  write 0/0 ops 0/0 B  data/a$' "$T/out" ||
	fail "a/c: data/a not listed as differing: $(cat "$T/out")"
# without --check the same comparison exits 0
ok "$IOTAPE" compare --map /r "$T/a.tape" "$T/c.tape"
grep -q '^CHECK' "$T/out" && fail "CHECK printed without --check"

# metadata ops, per kind: A stats a file, fails to stat another (counted:
# the replay makes it fail again), lists a directory; its stats of /proc
# and of / are not the replay's.  B: the replayer stats its trace and its
# marker (not the job's), then the job's 2 statx and 1 getdents64 under /r.
cat >"$T/ma.csv" <<'EOT'
ts_ns,tid,op,path,fd,size,ret,dur_ns
0,1,newfstatat,/data/a,-100,0,0,1000
2000,1,newfstatat,/data/none,-100,0,-2,1000
4000,1,openat,/data,-100,0,3,1000
6000,1,getdents64,/data,3,32768,48,1000
7000,1,newfstatat,/proc/self/stat,-100,0,0,1000
8000,1,newfstatat,/,-100,0,0,1000
9000,1,openat,/data/a,-100,0,4,1000
10000,1,read,/data/a,4,4096,4096,1000
EOT
cat >"$T/mb.csv" <<'EOT'
ts_ns,tid,op,path,fd,size,ret,dur_ns
0,7,newfstatat,/home/u/job.iotape,-100,0,0,100
100,7,newfstatat,/r/.iotape-replay,-100,0,0,100
1000,8,statx,/r/data/a,-100,0,0,1000
3000,8,statx,/r/data/none,-100,0,-2,1000
5000,8,openat,/r/data,-100,0,5,1000
7000,8,getdents64,/r/data,5,32768,48,1000
9000,8,openat,/r/data/a,-100,0,6,1000
10000,8,io_uring_enter,,9,0,1,1000
10000,8,uring_read,/r/data/a,6,4096,4096,1000
EOT
grep -v '^3000,8,statx' "$T/mb.csv" >"$T/mc.csv"
# replayed with --no-metadata: no statx, no getdents64
grep -Ev ',(statx|getdents64),' "$T/mb.csv" | sed 's/^5000,8,openat/4000,8,openat/' >"$T/mn.csv"
for x in ma mb mc mn; do
	ok "$IOTAPE" import -o "$T/$x.tape" "$T/$x.csv"
done
ok "$IOTAPE" compare --map /r --check "$T/ma.tape" "$T/mb.tape"
grep -q '^  ok   metadata_ops     stat A 2, B 2; getdents A 1, B 1 (must be equal)$' "$T/out" ||
	fail "ma/mb: $(grep metadata_ops "$T/out")"
grep -Eq '^  stat ops +2 +2 +=$' "$T/out" || fail "ma/mb summary: $(cat "$T/out")"
err_line 1 "iotape compare: " "fidelity check failed: metadata_ops" \
	"$IOTAPE" compare --map /r --check "$T/ma.tape" "$T/mc.tape"
grep -q '^  FAIL metadata_ops     stat A 2, B 1; getdents A 1, B 1 (must be equal)$' "$T/out" ||
	fail "ma/mc: $(grep metadata_ops "$T/out")"
# a replay run with --no-metadata: not checked
ok "$IOTAPE" compare --no-metadata --map /r --check --json "$T/ma.tape" "$T/mn.tape"
[ "$(jq_py "$T/out" "[c['name'] for c in d['fidelity']['checks'] if c['name'] == 'metadata_ops']")" = "[]" ] ||
	fail "--no-metadata: metadata_ops checked"

# a real job (tests' bundled recording) against itself: equal, and its
# pipes, sockets and devices, and its files on memory and pseudo file
# systems (26 reads of /proc and /sys, 128 writes of 996 bytes to
# DataLoader's /dev/shm), are left out on both sides
ok "$IOTAPE" compare --json --check "$TOP/traces/image_folder.iotape" "$TOP/traces/image_folder.iotape"
mv "$T/out" "$T/self.json"
for e in "d['summary']['read_ops']['a']==6052" "d['summary']['read_ops']['b']==6052" \
	 "d['summary']['write_bytes']['a']==16890429" "d['traces']['excluded_files_a']==343" \
	 "d['fidelity']['passed'] is True"; do
	[ "$(jq_py "$T/self.json" "$e")" = True ] || fail "self json: $e"
done

# a data set read through mmap: its epochs cannot be counted, on either
# side (as analyze says), not "1 / 1"
ok "$IOTAPE" compare --json --check "$TOP/traces/memmap.iotape" "$TOP/traces/memmap.iotape"
mv "$T/out" "$T/mm.json"
for e in "d['pattern']['epochs']['a'] is None" "d['pattern']['epochs']['b'] is None" \
	 "d['dataset']['epochs']['a'] is None" "d['dataset']['files']['a']==2" \
	 "d['pattern']['file_order_randomness']['a'] is None"; do
	[ "$(jq_py "$T/mm.json" "$e")" = True ] || fail "memmap json: $e"
done
ok "$IOTAPE" compare "$TOP/traces/memmap.iotape" "$TOP/traces/memmap.iotape"
grep -Eq '^  epochs +n/a +n/a +n/a$' "$T/out" || fail "memmap epochs: $(grep epochs "$T/out")"

# The page cache counts only the files compared on both sides, and not A's
# page faults on code.  A (mktape: file table, syscalls, cache events)
# reads /data/a.bin twice (2 of 4 pages missed), reads 832 B of a library
# (1 page, missed) whose other 15 pages it faults in, and faults in another
# library it only maps; B, its replay under /r, reads the same (the replay
# makes no page faults on libraries).  The hit ratios agree: data set 0.5,
# other files 0 (the header's page), all files 0.4.
if [ -x "$TESTBIN/mktape" ]; then
	cat >"$T/pa.file.csv" <<'EOT'
ts_ns,file_id,path,dev,inode,size,mode
1,1,/data/a.bin,1,11,8192,33188
1,2,/usr/lib/libx.so.1,1,12,65536,33188
1,3,/usr/lib/libonly.so.1,1,13,65536,33188
EOT
	cat >"$T/pa.sys.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,file_id
1000,10,10,openat,/usr/lib/libx.so.1,-100,0,0,3,1000,0,2
2000,10,10,read,/usr/lib/libx.so.1,3,0,832,832,1000,0,2
3000,10,10,mmap,/usr/lib/libx.so.1,3,0,65536,140000000,1000,8589934597,2
4000,10,10,close,/usr/lib/libx.so.1,3,0,0,0,1000,0,2
5000,10,10,openat,/usr/lib/libonly.so.1,-100,0,0,3,1000,0,3
6000,10,10,mmap,/usr/lib/libonly.so.1,3,0,65536,150000000,1000,8589934597,3
7000,10,10,close,/usr/lib/libonly.so.1,3,0,0,0,1000,0,3
10000,10,10,openat,/data/a.bin,-100,0,0,4,1000,0,1
11000,10,10,read,/data/a.bin,4,0,8192,8192,1000,0,1
12000,10,10,close,/data/a.bin,4,0,0,0,1000,0,1
20000,10,10,openat,/data/a.bin,-100,0,0,4,1000,0,1
21000,10,10,read,/data/a.bin,4,0,8192,8192,1000,0,1
22000,10,10,close,/data/a.bin,4,0,0,0,1000,0,1
EOT
	cat >"$T/pa.cache.csv" <<'EOT'
ts_ns,pid,tid,kind,dev,inode,file_id,index,count
2000,10,10,insert,1,12,2,0,1
2001,10,10,access,1,12,2,0,1
3500,10,10,insert,1,12,2,1,15
3501,10,10,map_pages,1,12,2,1,15
6500,10,10,insert,1,13,3,0,16
6501,10,10,map_pages,1,13,3,0,16
11000,10,10,insert,1,11,1,0,2
11001,10,10,access,1,11,1,0,2
21001,10,10,access,1,11,1,0,2
EOT
	cat >"$T/pb.file.csv" <<'EOT'
ts_ns,file_id,path,dev,inode,size,mode
1,1,/r/data/a.bin,1,21,8192,33188
1,2,/r/usr/lib/libx.so.1,1,22,65536,33188
EOT
	cat >"$T/pb.sys.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,file_id
1000,20,21,openat,/r/usr/lib/libx.so.1,-100,0,0,3,1000,0,2
2000,20,21,uring_read,/r/usr/lib/libx.so.1,3,0,832,832,1000,0,2
4000,20,21,close,/r/usr/lib/libx.so.1,3,0,0,0,1000,0,2
10000,20,21,openat,/r/data/a.bin,-100,0,0,4,1000,0,1
11000,20,21,uring_read,/r/data/a.bin,4,0,8192,8192,1000,0,1
12000,20,21,close,/r/data/a.bin,4,0,0,0,1000,0,1
20000,20,21,openat,/r/data/a.bin,-100,0,0,4,1000,0,1
21000,20,21,uring_read,/r/data/a.bin,4,0,8192,8192,1000,0,1
22000,20,21,close,/r/data/a.bin,4,0,0,0,1000,0,1
EOT
	cat >"$T/pb.cache.csv" <<'EOT'
ts_ns,pid,tid,kind,dev,inode,file_id,index,count
2000,20,21,insert,1,22,2,0,1
2001,20,21,access,1,22,2,0,1
11000,20,21,insert,1,21,1,0,2
11001,20,21,access,1,21,1,0,2
21001,20,21,access,1,21,1,0,2
EOT
	for x in pa pb; do
		"$TESTBIN/mktape" "$T/$x.tape" file="$T/$x.file.csv" syscall="$T/$x.sys.csv" \
			cache="$T/$x.cache.csv" || fail "mktape $x failed"
	done
	ok "$IOTAPE" compare --json --map /r "$T/pa.tape" "$T/pb.tape"
	mv "$T/out" "$T/pc.json"
	for e in "d['dataset']['cache']['hit_ratio']['a']==0.5" \
		 "d['dataset']['cache']['hit_ratio']['b']==0.5" \
		 "d['dataset']['cache']['pages_accessed']['a']==4" \
		 "d['cache']['pages_accessed']['a']==4+1" "d['cache']['pages_accessed']['b']==4+1" \
		 "d['cache']['hit_ratio']['a']==0.4" "d['cache']['hit_ratio']['b']==0.4" \
		 "d['other_files']['cache']['pages_missed']['a']==1" \
		 "d['dataset']['epochs']['a']==2" "d['dataset']['epochs']['b']==2"; do
		[ "$(jq_py "$T/pc.json" "$e")" = True ] || fail "page cache json: $e ($(jq_py "$T/pc.json" "d['cache'], d['dataset']['cache']"))"
	done
	ok "$IOTAPE" compare --map /r "$T/pa.tape" "$T/pb.tape"
	grep -Eq '^  hit ratio, data set +0\.500 +0\.500 +\+0\.000$' "$T/out" &&
		grep -Eq '^  hit ratio, all files +0\.400 +0\.400 +\+0\.000$' "$T/out" ||
		fail "page cache text: $(grep -A9 '^PAGE CACHE' "$T/out")"
fi

# usage
err_line 2 "iotape compare: " "missing trace" "$IOTAPE" compare "$T/a.tape"
err_line 2 "iotape compare: " "too many arguments" "$IOTAPE" compare "$T/a.tape" "$T/b.tape" "$T/c.tape"
err_line 2 "iotape compare: " "--top" "$IOTAPE" compare --top x "$T/a.tape" "$T/b.tape"
err_line 1 "iotape compare: " "$T/none.tape" "$IOTAPE" compare "$T/a.tape" "$T/none.tape"
exit 0
