#!/bin/sh
# import -F darshan-dxt: darshan-dxt-parser's text (printed below with
# darshan-dxt-logutils.c's formats: "%8s%8d%7s%9d%16d%16d%12.4f%12.4f")
# becomes, per (file, rank) record, an open at the first segment, a
# pread64/pwrite64 per segment in time order and a close at the last end,
# pid = tid = rank + 1; MPI-IO records of a file with POSIX records are
# skipped, of other files imported; bad lines name their line number.
. "$(dirname "$0")/lib.sh"

cat >"$T/dxt.txt" <<'EOT'
# darshan log version: 3.41
# compression method: ZLIB
# exe: ./ior -a POSIX
# uid: 1000
# jobid: 4242
# start_time: 1700000000
# start_time_asci: Tue Nov 14 22:13:20 2023
# end_time: 1700000010
# end_time_asci: Tue Nov 14 22:13:30 2023
# nprocs: 2
# run time: 11
# metadata: lib_ver = 3.4.4

# log file regions
# -------------------------------------------------------
# header: 744 bytes (uncompressed)

# mounted file systems (mount point and fs type)
# -------------------------------------------------------
# mount entry:	/scratch	lustre

# ***************************************************
# DXT_POSIX module data
# ***************************************************

# DXT, file_id: 111, file_name: /data/out.bin
# DXT, rank: 0, hostname: nid001
# DXT, write_count: 2, read_count: 1
# DXT, mnt_pt: /data, fs_type: ext4
# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)
 X_POSIX       0  write        0               0         1048576      0.5000      0.5123
 X_POSIX       0  write        1         1048576         1048576      0.6000      0.6100
 X_POSIX       0   read        0               0            4096      0.7000      0.7001

# DXT, file_id: 111, file_name: /data/out.bin
# DXT, rank: 1, hostname: nid002
# DXT, write_count: 0, read_count: 1
# DXT, mnt_pt: /data, fs_type: ext4
# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)
 X_POSIX       1   read        0         1048576           65536      0.5500      0.5600

# ***************************************************
# DXT_MPIIO module data
# ***************************************************

# DXT, file_id: 111, file_name: /data/out.bin
# DXT, rank: 0, hostname: nid001
# DXT, write_count: 1, read_count: 0
# DXT, mnt_pt: /data, fs_type: ext4
# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)
 X_MPIIO       0  write        0               0         2097152      0.4900      0.6200

# DXT, file_id: 222, file_name: /data/only_mpiio.h5
# DXT, rank: 1, hostname: nid002
# DXT, write_count: 0, read_count: 1
# DXT, mnt_pt: /data, fs_type: ext4
# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)
 X_MPIIO       1   read        0               0             100      1.2500      1.5000
EOT
# By hand: seconds x 1e9; rank 0's writes are printed before its read and
# are earlier anyway; rank 0 wrote and read: O_RDWR|O_CREAT (0x42), the
# others only read: O_RDONLY; rank 1 (pid 2) gets fd 3 too (fds are per
# pid);
# the MPI-IO write of /data/out.bin is skipped (POSIX records exist); the
# MPI-IO-only file is imported (file id 2).
cat >"$T/want.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
500000000,1,1,open,/data/out.bin,-1,0,0,3,0,1,0x42,,-1,0,0
500000000,1,1,pwrite64,/data/out.bin,3,0,1048576,1048576,12300000,1,0x0,,-1,0,0
600000000,1,1,pwrite64,/data/out.bin,3,1048576,1048576,1048576,10000000,1,0x0,,-1,0,0
700000000,1,1,pread64,/data/out.bin,3,0,4096,4096,100000,1,0x0,,-1,0,0
700100000,1,1,close,/data/out.bin,3,0,0,0,0,1,0x0,,-1,0,0
550000000,2,2,open,/data/out.bin,-1,0,0,3,0,1,0x0,,-1,0,0
550000000,2,2,pread64,/data/out.bin,3,1048576,65536,65536,10000000,1,0x0,,-1,0,0
560000000,2,2,close,/data/out.bin,3,0,0,0,0,1,0x0,,-1,0,0
1250000000,2,2,open,/data/only_mpiio.h5,-1,0,0,3,0,2,0x0,,-1,0,0
1250000000,2,2,pread64,/data/only_mpiio.h5,3,0,100,100,250000000,2,0x0,,-1,0,0
1500000000,2,2,close,/data/only_mpiio.h5,3,0,0,0,0,2,0x0,,-1,0,0
EOT
ok "$IOTAPE" import -F darshan-dxt -o "$T/x.tape" "$T/dxt.txt"
ok "$IOTAPE" dump -F csv -o "$T/got.csv" "$T/x.tape"
same "$T/want.csv" "$T/got.csv"
ok "$IOTAPE" info "$T/x.tape"
for kv in "source *import:darshan-dxt" "not_recorded *block, cache" \
	"clock *darshan: seconds since the job's start"; do
	grep -q "$kv" "$T/out" || fail "info lacks '$kv': $(cat "$T/out")"
done
ok "$IOTAPE" analyze --json "$T/x.tape"
/usr/bin/python3 -c 'import json,sys
f = {x["path"]: (x["read_bytes"], x["write_bytes"], x["opens"]) for x in json.load(open(sys.argv[1]))["files"]}
want = {"/data/out.bin": (4096 + 65536, 2 * 1048576, 2), "/data/only_mpiio.h5": (100, 0, 1)}
sys.exit(0 if f == want else "files: %r" % (f,))' "$T/out" || fail "analyze --json bytes per file"

# Lustre OST columns after a segment are ignored
sed 's/^\( X_POSIX .*0\.7001\)$/\1  [  3]  [  4]/' "$T/dxt.txt" >"$T/ost.txt" || fail sed
grep -q '\[  4\]' "$T/ost.txt" || fail "sed: no OST columns"
ok "$IOTAPE" import -F darshan-dxt -o "$T/o.tape" "$T/ost.txt"
ok "$IOTAPE" dump -F csv -o "$T/o.csv" "$T/o.tape"
same "$T/want.csv" "$T/o.csv"

# darshan 3.5 (darshan-dxt-logutils.c since Nov 2025): "# DXT, number of
# threads", a Pthread-ID column after the segments (and after the Lustre
# OSTs, " [%d]" each), "N/A" for a module too old to keep it.  Rows printed
# with the parser's formats.  A rank's first thread is tid = pid, its
# second tid 2^31; the open is by the first segment's thread, the close by
# the last one's.  Records' spans that overlap in a rank get their own fds
# (b.bin is written while a.bin is open: fd 4), fd 3 is free again for
# c.bin after a.bin's close; open flags from what the record did;
# file names normalized (/job/sub/../m.h5 is /job/m.h5).
A=140245234423616 B=140245226030912
seg() {	# MODULE RANK write|read SEGMENT OFFSET LENGTH START END TAIL
	printf '%8s%8d%7s%9d%16d%16d%12.4f%12.4f  %s\n' "$@"
}
hdr() {	# FILE_ID NAME RANK THREADS W R [LUSTRE-COMPONENTS]
	printf '\n# DXT, file_id: %s, file_name: %s\n# DXT, rank: %s, hostname: nid1\n' "$1" "$2" "$3"
	printf '# DXT, number of threads: %s\n# DXT, write_count: %s, read_count: %s\n' "$4" "$5" "$6"
	printf '# DXT, mnt_pt: /job, fs_type: lustre\n'
	ost=
	if [ -n "${7-}" ]; then
		printf '# DXT, Lustre stripe components:\n#\t%s\n' "$7"
		ost='   [OST]'
	fi
	printf '# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)%s   Pthread-ID\n' "$ost"
}
{
	printf '# darshan log version: 3.41\n# nprocs: 2\n\n'
	printf '# ***************************************************\n# DXT_POSIX module data\n'
	printf '# ***************************************************\n'
	hdr 11 /job/a.bin 0 2 2 2 \
		'[Component 1] stripe_ext: 0 - EOF, stripe_size: 1048576, stripe_count: 2, OSTs: 3 4'
	seg X_POSIX 0 write 0 0 4096 0.1 0.1001 " [3]   $A"
	seg X_POSIX 0 write 1 4096 4096 0.3 0.3001 " [3]   $B"
	seg X_POSIX 0 read 0 0 4096 0.4 0.4001 " [3]   $A"
	seg X_POSIX 0 read 1 4096 4096 0.41 0.4101 " [3]   $B"
	hdr 12 /job/b.bin 0 1 1 0
	seg X_POSIX 0 write 0 0 4096 0.2 0.2001 " $A"
	hdr 13 /job/c.bin 0 1 0 1
	seg X_POSIX 0 read 0 0 512 0.5 0.5002 " $B"
	printf '\n# ***************************************************\n# DXT_MPIIO module data\n'
	printf '# ***************************************************\n'
	hdr 14 /job/sub/../m.h5 1 1 0 1
	seg X_MPIIO 1 read 0 0 100 1.25 1.5 " N/A"
} >"$T/v35.txt" || fail "writing v35.txt"
cat >"$T/want35.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
100000000,1,1,open,/job/a.bin,-1,0,0,3,0,1,0x42,,-1,0,0
100000000,1,1,pwrite64,/job/a.bin,3,0,4096,4096,100000,1,0x0,,-1,0,0
300000000,1,2147483648,pwrite64,/job/a.bin,3,4096,4096,4096,100000,1,0x0,,-1,0,0
400000000,1,1,pread64,/job/a.bin,3,0,4096,4096,100000,1,0x0,,-1,0,0
410000000,1,2147483648,pread64,/job/a.bin,3,4096,4096,4096,100000,1,0x0,,-1,0,0
410100000,1,2147483648,close,/job/a.bin,3,0,0,0,0,1,0x0,,-1,0,0
200000000,1,1,open,/job/b.bin,-1,0,0,4,0,2,0x41,,-1,0,0
200000000,1,1,pwrite64,/job/b.bin,4,0,4096,4096,100000,2,0x0,,-1,0,0
200100000,1,1,close,/job/b.bin,4,0,0,0,0,2,0x0,,-1,0,0
500000000,1,2147483648,open,/job/c.bin,-1,0,0,3,0,3,0x0,,-1,0,0
500000000,1,2147483648,pread64,/job/c.bin,3,0,512,512,200000,3,0x0,,-1,0,0
500200000,1,2147483648,close,/job/c.bin,3,0,0,0,0,3,0x0,,-1,0,0
1250000000,2,2,open,/job/m.h5,-1,0,0,3,0,4,0x0,,-1,0,0
1250000000,2,2,pread64,/job/m.h5,3,0,100,100,250000000,4,0x0,,-1,0,0
1500000000,2,2,close,/job/m.h5,3,0,0,0,0,4,0x0,,-1,0,0
EOT
rm -f "$T/v35.tape"
ok "$IOTAPE" import -F darshan-dxt -o "$T/v35.tape" "$T/v35.txt"
ok "$IOTAPE" dump -F csv -o "$T/got35.csv" "$T/v35.tape"
same "$T/want35.csv" "$T/got35.csv"

# darshan 3.1's X_MPIIO rows had no offset ("%8s%8d%7s%9d%16d%12.4f%12.4f"):
# read or write at the file position
{
	printf '# DXT_MPIIO module data\n\n# DXT, file_id: 9, file_name: /job/old.h5\n'
	printf '# DXT, rank: 0, hostname: nid1\n# DXT, write_count: 1, read_count: 1\n'
	printf '# DXT, mnt_pt: /job, fs_type: lustre\n'
	printf '# Module    Rank  Wt/Rd  Segment       Length    Start(s)      End(s)\n'
	printf '%8s%8d%7s%9d%16d%12.4f%12.4f\n' X_MPIIO 0 write 0 300 0.5 0.6 X_MPIIO 0 read 0 200 0.7 0.8
} >"$T/v31.txt" || fail "writing v31.txt"
cat >"$T/want31.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
500000000,1,1,open,/job/old.h5,-1,0,0,3,0,1,0x42,,-1,0,0
500000000,1,1,write,/job/old.h5,3,0,300,300,100000000,1,0x0,,-1,0,0
700000000,1,1,read,/job/old.h5,3,300,200,200,100000000,1,0x0,,-1,0,0
800000000,1,1,close,/job/old.h5,3,0,0,0,0,1,0x0,,-1,0,0
EOT
rm -f "$T/v31.tape"
ok "$IOTAPE" import -F darshan-dxt -o "$T/v31.tape" "$T/v31.txt"
ok "$IOTAPE" dump -F csv -o "$T/got31.csv" "$T/v31.tape"
same "$T/want31.csv" "$T/got31.csv"

bad() { import_bad darshan-dxt "$T/bad.txt" "$1" "$2"; }	# LINE-NUMBER PATTERN
# line_of PATTERN FILE: in $ln, the number of FILE's first line holding PATTERN
line_of() {
	grep -n -m 1 -- "$1" "$2" >"$T/line_of" || fail "no '$1' in $2"
	ln=$(cut -d: -f1 "$T/line_of")
}
line_of 'X_POSIX       0  write        1' "$T/dxt.txt"
segl=$ln
sed "${segl}s/0.6100/0.5100/" "$T/dxt.txt" >"$T/bad.txt" || fail sed
bad "$segl" "bad start or end time"
sed "${segl}s/ write / wrote /" "$T/dxt.txt" >"$T/bad.txt" || fail sed
bad "$segl" "'wrote': want write or read"
sed "${segl}s/X_POSIX       0/X_POSIX       7/" "$T/dxt.txt" >"$T/bad.txt" || fail sed
bad "$segl" "rank '7' is not the record's (0)"
sed "${segl}d" "$T/dxt.txt" >"$T/bad.txt" || fail sed
line_of 'file_id: 111' "$T/dxt.txt"
bad "$ln" "has 1 write and 1 read segments, its header says 2 and 1"
grep -v '^#' "$T/dxt.txt" >"$T/bad.txt"
line_of X_POSIX "$T/bad.txt"
bad "$ln" "a segment outside a record"
line_of "$B" "$T/v35.txt"
sed "${ln}s/$B\$/thread-7/" "$T/v35.txt" >"$T/bad.txt" || fail sed
bad "$ln" "Pthread-ID 'thread-7': want a number or N/A"
sed "${ln}s/$B\$/$B 9/" "$T/v35.txt" >"$T/bad.txt" || fail sed
bad "$ln" "want 'MODULE RANK write|read SEGMENT OFFSET LENGTH START END"
sed "s/^# DXT, rank: 1,/# DXT, rank: 2147483647,/" "$T/v35.txt" >"$T/bad.txt" || fail sed
line_of "rank: 2147483647" "$T/bad.txt"
bad "$ln" "bad rank"
exit 0
