#!/bin/sh
# compare.sh - `iotape compare`: --map takes DIR off B's paths and leaves
# out the replayer's own I/O (the trace it reads, its marker file); the
# checks pass on a faithful B and name exactly what differs otherwise;
# a real trace compared with itself passes with its exact counts.
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
	 "len(d['fidelity']['checks'])==10"; do
	[ "$(jq_py "$T/ab.json" "$e")" = True ] || fail "a/b json: $e"
done

# without --map, B's paths and the replayer's own I/O count: all differ
err_line 1 "iotape compare: " \
	"fidelity check failed: read_ops, read_bytes, write_ops, write_bytes, files, request_sizes" \
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

# usage
err_line 2 "iotape compare: " "missing trace" "$IOTAPE" compare "$T/a.tape"
err_line 2 "iotape compare: " "too many arguments" "$IOTAPE" compare "$T/a.tape" "$T/b.tape" "$T/c.tape"
err_line 2 "iotape compare: " "--top" "$IOTAPE" compare --top x "$T/a.tape" "$T/b.tape"
err_line 1 "iotape compare: " "$T/none.tape" "$IOTAPE" compare "$T/a.tape" "$T/none.tape"
exit 0
