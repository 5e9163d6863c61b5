#!/bin/sh
# dump --format csv | import | dump --format csv is byte-identical, for
# every table: hand-written CSVs in dump's canonical form with awkward
# strings (comma, quote, CR/LF, leading/trailing space, non-UTF-8 bytes, a
# 4 KiB path), negative values, 2^64-1, enumeration values without a
# name, file system magics with and without one, and the ops access,
# faccessat, readlink and readlinkat.
. "$(dirname "$0")/lib.sh"

max=18446744073709551615
long=/$(head -c 4095 /dev/zero | tr '\0' 'p')

# syscall: ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,
# fd2,file_id2,offset2 (the output side of the copies: -1,0,0 for other ops)
{
	echo 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2'
	echo '100,4242,4243,openat,/data/train/shard-00001.tar,-1,0,0,7,1500,1,0x80000,,-1,0,0'
	echo '200,4242,4243,pread64,/data/train/shard-00001.tar,7,4096,131072,131072,12345,1,0x0,,-1,0,0'
	echo '300,4242,4244,openat,"/data/a,b ""quoted""'
	echo 'and a newline",-1,0,0,-2,800,0,0x0,,-1,0,0'
	echo '400,1,1,rename,/tmp/a,-1,0,0,0,1,2,0x0,/tmp/b c,-1,0,0'
	echo "500,4294967295,4294967295,unknown,,-9223372036854775808,$max,$max,9223372036854775807,$max,$max,0xffffffffffffffff,,-1,0,0"
	echo '600,7,7,200,"  leading space",3,0,0,-5,0,0,0x1," trailing ",-1,0,0'
	printf '700,7,7,read,"cr\rinside",3,0,1,1,0,0,0x0,,-1,0,0\n'
	printf '800,7,7,write,bytes \377\376 not utf-8,3,0,1,-28,0,0,0x0,,-1,0,0\n'
	echo "900,7,7,read,$long,4,8192,4096,0,3,9,0x0,,-1,0,0"
	echo '1000,7,7,close,,4,0,0,0,0,0,0x0,,-1,0,0'
	echo '1000,8,9,uring_read,"tab	",5,0,65536,65536,0,0,0x0,,-1,0,0'
	echo '1100,7,7,sendfile,/data/in,3,0,1048576,1048576,10,1,0x0,/data/out,4,2,65536'
	echo "1200,7,7,copy_file_range,/data/in,3,$max,$max,9223372036854775807,0,$max,0x0,/x,-9223372036854775808,$max,$max"
	echo '1300,7,7,splice,,5,0,4096,-32,0,0,0x0,,-1,0,0'
} >"$T/syscall.csv"
roundtrip "$T/syscall.csv" syscall
# the 4 KiB path survives whole
ok "$IOTAPE" dump -F csv "$T/rt.syscall.tape"
grep -qF ",$long," "$T/out" || fail "4 KiB path lost"

# block: ts_ns,pid,tid,dev,rwbs,sector,bytes,dur_ns,inode,error
cat >"$T/block.csv" <<EOT
ts_ns,pid,tid,dev,rwbs,sector,bytes,dur_ns,inode,error
1000,0,0,8388608,R,2048,131072,90000,1234,0
1100,12,12,271581184,WS,$max,4096,1,0,-5
1200,0,0,8388609,N,0,0,0,0,0
1300,4294967295,1,1,FDWRASMU,1,1,1,$max,-9223372036854775808
1400,1,1,2,RA,0,0,0,0,0
1500,1,1,3,0x100,0,0,0,0,9223372036854775807
1600,1,1,4,0xffffffffffffffff,0,0,0,0,0
EOT
roundtrip "$T/block.csv" block

# cache: ts_ns,pid,tid,kind,dev,inode,file_id,index,count
cat >"$T/cache.csv" <<EOT
ts_ns,pid,tid,kind,dev,inode,file_id,index,count
5,100,101,access,8388608,77,1,0,32
6,100,101,insert,8388608,77,1,32,16
7,0,0,evict,8388608,77,1,0,1
8,100,102,fault,8388608,78,2,$max,1
9,100,102,map_pages,8388608,78,2,10,16
10,1,1,0,0,0,0,0,0
11,1,1,99,$max,$max,$max,$max,$max
EOT
roundtrip "$T/cache.csv" cache

# process: ts_ns,pid,tid,ppid,comm,end_ns,exit_code,argv
{
	echo 'ts_ns,pid,tid,ppid,comm,end_ns,exit_code,argv'
	echo '1,4242,4242,1,python3,99999,0,python3 train.py --epochs 3'
	echo '2,4243,4243,4242,"pt,worker",0,-9223372036854775808,"sh -c ""echo hi""'
	echo 'second line"'
	echo "3,4294967295,4294967295,4294967295,,$max,9223372036854775807,"
	echo '4,5,6,5,"""",7,-1,"a,b,c"'
} >"$T/process.csv"
roundtrip "$T/process.csv" process

# file: ts_ns,file_id,path,dev,inode,size,mode,fstype (a file system's
# magic in hex: ext4, tmpfs, proc, one without a name, unknown 0)
cat >"$T/file.csv" <<EOT
ts_ns,file_id,path,dev,inode,size,mode,fstype
10,1,/data/train/shard-00001.tar,8388608,131,1073741824,33188,0xef53
20,2,"/data/with,comma",8388608,132,0,16877,0x0
30,$max,$long,$max,$max,$max,$max,0xffffffffffffffff
40,0,,0,0,0,0,0x0
50,3,/dev/shm/batch,27,5,4096,33152,0x1021994
60,4,/proc/self/stat,21,6,0,33060,0x9fa0
70,5,/mnt/x,9,7,0,33188,0x12345678
EOT
roundtrip "$T/file.csv" file
ok "$IOTAPE" dump -t file "$T/rt.file.tape"
grep -q ' path=/data/train/shard-00001.tar .* fstype=ext4$' "$T/out" || fail "text: fstype ext4"
grep -q ' path=/dev/shm/batch .* fstype=tmpfs$' "$T/out" || fail "text: fstype tmpfs"
grep -q ' path=/proc/self/stat .* fstype=proc$' "$T/out" || fail "text: fstype proc"
grep -q ' path=/mnt/x .* fstype=0x12345678$' "$T/out" || fail "text: fstype without a name"
grep -q 'with,comma.*fstype' "$T/out" && fail "text: fstype 0 shown"
ok "$IOTAPE" dump -F jsonl -t file "$T/rt.file.tape"
grep -q '"path":"/dev/shm/batch",.*"fstype":16914836}' "$T/out" || fail "jsonl: fstype"
# the column by name, and left out: 0 (what older traces read as)
printf 'ts_ns,file_id,path,fstype\n1,1,/a,tmpfs\n2,2,/b,xfs\n' >"$T/fsname.csv"
ok "$IOTAPE" import -t file -o "$T/fsname.tape" "$T/fsname.csv"
ok "$IOTAPE" dump -F csv -t file "$T/fsname.tape"
grep -qx '1,1,/a,0,0,0,0,0x1021994' "$T/out" || fail "import: fstype by name"
grep -qx '2,2,/b,0,0,0,0,0x58465342' "$T/out" || fail "import: fstype xfs"
printf 'ts_ns,file_id,path\n1,1,/a\n' >"$T/fsnone.csv"
ok "$IOTAPE" import -t file -o "$T/fsnone.tape" "$T/fsnone.csv"
ok "$IOTAPE" dump -F csv -t file "$T/fsnone.tape"
grep -qx '1,1,/a,0,0,0,0,0x0' "$T/out" || fail "import: no fstype column"
ok "$IOTAPE" info "$T/fsnone.tape"
grep -q '^fstype  *not recorded' "$T/out" || fail "info: no fstype"
ok "$IOTAPE" info "$T/fsname.tape"
grep -q '^fstype  *in 1 of 1 file blocks$' "$T/out" || fail "info: fstype"
printf 'ts_ns,file_id,fstype\n1,1,nosuchfs\n' >"$T/fsbad.csv"
err_line 1 "iotape import: " "unknown file system type 'nosuchfs'" \
	"$IOTAPE" import -t file -o "$T/fsbad.tape" "$T/fsbad.csv"

# sample: ts_ns,metric,subject,value (every metric, then no-name values)
{
	echo 'ts_ns,metric,subject,value'
	i=1
	for m in cpu_user_ns cpu_sys_ns rss_bytes pagecache_bytes \
		mem_available_bytes disk_read_bytes disk_write_bytes \
		disk_read_ios disk_write_ios disk_busy_ms gpu_util_pct gpu_mem_bytes; do
		echo "$i,$m,$i,$((i * 1000))"
		i=$((i + 1))
	done
	echo "100,0,0,0"
	echo "101,4294967295,$max,$max"
} >"$T/sample.csv"
roundtrip "$T/sample.csv" sample

# the other formats see the same events
ok "$IOTAPE" dump -F jsonl "$T/rt.syscall.tape"
[ "$(wc -l <"$T/out")" -eq 14 ] || fail "jsonl: $(wc -l <"$T/out") lines, want 14"
grep -q '"table":"syscall","ts_ns":500,"pid":4294967295' "$T/out" || fail "jsonl: row 500"
grep -q "\"offset\":\"$max\"" "$T/out" || fail "jsonl: 2^64-1 not a decimal string"
grep -q '"path2":"/data/out","fd2":4,"file_id2":2,"offset2":65536}' "$T/out" || fail "jsonl: output side"
grep -q '"path":"bytes \\ufffd\\ufffd not utf-8"\|"path":"bytes �� not utf-8"' "$T/out" ||
	fail "jsonl: non-UTF-8 path"
ok "$IOTAPE" dump "$T/rt.syscall.tape"
[ "$(wc -l <"$T/out")" -eq 14 ] || fail "text: $(wc -l <"$T/out") lines, want 14"
grep -q '^ *0\.000000100 .*4242/4243 pread64 /data/train/shard-00001.tar fd=7 off=4096 size=131072 ret=131072 dur=12.3us' "$T/out" ||
	fail "text: pread64 line: $(sed -n 2p "$T/out")"
grep -q 'ret=-2 (ENOENT)' "$T/out" || fail "text: errno name"
# the output side of a copy, and none on other ops
grep -q ' sendfile /data/in fd=3 off=0 size=1048576 ret=1048576 dur=10ns file_id=1 -> /data/out fd2=4 file_id2=2 off2=65536$' "$T/out" ||
	fail "text: sendfile line: $(grep sendfile "$T/out")"
grep -q ' splice fd=5 off=0 size=4096 ret=-32 (EPIPE) dur=0ns fd2=-1 off2=0$' "$T/out" ||
	fail "text: splice line: $(grep splice "$T/out")"
grep ' pread64 ' "$T/out" | grep -q 'fd2\|off2' && fail "text: output side on a pread64"
ok "$IOTAPE" dump -F jsonl -t block "$T/rt.block.tape"
grep -q '"rwbs":"WS"' "$T/out" || fail "jsonl: rwbs"

# the metadata ops of format 1.1, later (56 to 59): by name, and by
# number (what an older dump prints for them) back to the same rows
cat >"$T/meta.csv" <<EOT
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
1,7,7,access,/data/a,-1,0,0,0,600,0,0x6,,-1,0,0
2,7,7,faccessat,/data/b,-1,0,0,-13,500,0,0x20000000004,,-1,0,0
3,7,7,faccessat,/data/a,3,0,0,0,400,1,0x100000000000,,-1,0,0
4,7,7,readlink,/data/link,-1,0,64,8,300,0,0x0,,-1,0,0
5,7,7,readlinkat,/data/link,-1,0,4096,-22,200,0,0x0,,-1,0,0
EOT
roundtrip "$T/meta.csv" syscall
ok "$IOTAPE" dump "$T/rt.syscall.tape"
grep -q ' access /data/a ret=0 dur=600ns flags=0x6$' "$T/out" || fail "text: access line"
grep -q ' readlink /data/link size=64 ret=8 dur=300ns$' "$T/out" || fail "text: readlink line"
sed 's/,access,/,56,/; s/,faccessat,/,57,/; s/,readlink,/,58,/; s/,readlinkat,/,59,/' \
	"$T/meta.csv" >"$T/metanum.csv"
ok "$IOTAPE" import -o "$T/metanum.tape" "$T/metanum.csv"
ok "$IOTAPE" dump -F csv "$T/metanum.tape"
same "$T/meta.csv" "$T/out"
exit 0
