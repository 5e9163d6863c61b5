#!/bin/sh
# record_workload.sh - the trace of tests/workload.c holds exactly its I/O:
# paths, offsets (with and without explicit offsets, dup, O_APPEND), sizes,
# pids and tids of the main thread, a thread and a forked child; its access
# and readlink calls; and each file's file system type.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
mkdir "$T/w"
"$IOTAPE" record -q -o "$T/t.iotape" -- "$TB/workload" "$T/w"
rc=$?
t_check "recorder exits with the command's status (3), got $rc" [ $rc -eq 3 ]
t_dump "$T/t.iotape"
D="$T/w"
pid=$(grep '^process ' "$T/dump" | grep -F "tid=" | grep -F "exit_code=3 " | sed 's/.* pid=\([0-9]*\) .*/\1/')
t_check "main process row with exit_code=3" [ -n "$pid" ]
tid=$(grep '^process ' "$T/dump" | grep -F " pid=$pid " | grep -v " tid=$pid " | sed 's/.* tid=\([0-9]*\) .*/\1/')
cpid=$(grep '^process ' "$T/dump" | grep -F " ppid=$pid " | sed 's/.* pid=\([0-9]*\) .*/\1/')
t_check "thread row" [ -n "$tid" ]
t_check "child process row" [ -n "$cpid" ]
P="pid=$pid tid=$pid "
DATA="path=\"$D/data.bin\""

t_expect 1 "mkdir resolved against cwd" "op=mkdir path=\"$D/sub\" " "ret=0 "
t_expect 1 "open data.bin" "$P" "op=openat $DATA" "flags=0x242 " "ret=3 "
for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	t_expect 1 "write #$i" "$P" "op=write $DATA" "offset=$((i * 4096)) " "size=4096 ret=4096 "
done
t_expect 16 "16 writes of data.bin" "op=write $DATA"
t_expect 1 "fsync" "$P" "op=fsync $DATA" "ret=0 "
t_expect 1 "lseek" "$P" "op=lseek $DATA" "offset=8192 " "ret=8192 "
t_expect 1 "read at f_pos 8192" "$P" "op=read $DATA fd=3 offset=8192 size=4096 ret=4096 "
t_expect 1 "read at f_pos 12288" "$P" "op=read $DATA fd=3 offset=12288 size=4096 ret=4096 "
t_expect 1 "pread64" "$P" "op=pread64 $DATA fd=3 offset=32768 size=4096 ret=4096 "
t_expect 1 "preadv 16 iovecs" "$P" "op=preadv $DATA fd=3 offset=40960 size=4096 ret=4096 "
t_expect 1 "dup" "$P" "op=dup $DATA fd=3 " "ret=4 "
t_expect 1 "read on dup shares f_pos" "$P" "op=read $DATA fd=4 offset=16384 size=4096 ret=4096 "
t_expect 1 "O_APPEND write 1" "$P" "op=write path=\"$D/log.txt\"" "offset=0 size=100 ret=100 "
t_expect 1 "O_APPEND write 2 lands at 100" "$P" "op=write path=\"$D/log.txt\"" "offset=100 size=100 ret=100 "
t_expect 1 "thread pread" "pid=$pid tid=$tid " "op=pread64 $DATA fd=3 offset=4096 size=4096 ret=4096 "
t_expect 1 "child open" "pid=$cpid tid=$cpid " "op=openat path=\"$D/child.bin\"" "ret=4 "
t_expect 1 "child read 1" "pid=$cpid tid=$cpid " "op=read path=\"$D/child.bin\" fd=4 offset=0 size=4096 ret=4096 "
t_expect 1 "child read 2" "pid=$cpid tid=$cpid " "op=read path=\"$D/child.bin\" fd=4 offset=4096 size=4096 ret=4096 "
t_expect 1 "mmap 64 KiB" "$P" "op=mmap $DATA fd=3 offset=0 size=65536 "
t_expect 1 "munmap of the file mapping" "$P" "op=munmap " "size=65536 ret=0 "
t_expect 1 "O_DIRECT open" "$P" "op=openat $DATA" "flags=0x4000 "
t_expect 1 "pread64 at 0 (O_DIRECT)" "$P" "op=pread64 $DATA" "offset=0 size=4096 ret=4096 "
t_expect 1 "open ../data.bin from sub" "$P" "op=openat $DATA" "flags=0x0 " "ret=3 "
t_expect 1 "open dir" "$P" "op=openat path=\"$D\"" "ret=3 "
t_expect 1 "openat(dirfd) resolved" "$P" "op=openat path=\"$D/child.bin\"" "ret=4 "
t_expect 1 "rename" "$P" "op=rename path=\"$D/log.txt\"" "path2=\"$D/log2.txt\""
t_expect 1 "unlink" "$P" "op=unlink path=\"$D/log2.txt\"" "ret=0 "
t_expect 1 "stat" "$P" "op=newfstatat $DATA fd=-1 " "ret=0 "
# copies: both sides, the output's file by file_id2 and path2; the input
# offset from *off_in or the position, the output from *off_out or the
# position (sendfile always writes at it)
SRC="path=\"$D/src.bin\"" DST="path2=\"$D/dst.bin\""
dstid=$(t_field file_id "file " "path=\"$D/dst.bin\"")
t_check "file row dst.bin" [ -n "$dstid" ]
t_expect 1 "sendfile" "$P" "op=sendfile $SRC fd=3 offset=8192 size=16384 ret=16384 " \
	"$DST fd2=4 file_id2=$dstid offset2=4096 "
t_expect 1 "copy_file_range with offsets" "$P" \
	"op=copy_file_range $SRC fd=3 offset=0 size=8192 ret=8192 " \
	"$DST fd2=4 file_id2=$dstid offset2=32768 "
t_expect 1 "copy_file_range at the positions" "$P" \
	"op=copy_file_range $SRC fd=3 offset=12288 size=4096 ret=4096 " \
	"$DST fd2=4 file_id2=$dstid offset2=20480 "
t_expect 1 "copies: one sendfile" "op=sendfile "
t_expect 2 "copies: two copy_file_range" "op=copy_file_range "
t_expect 0 "an output side only on copies" "op=read " "fd2=4 "
# reads and writes in the workload's directory: exactly the ones above
t_expect 20 "all writes under $D" "op=write path=\"$D/"
t_expect 5 "all reads under $D (main 2, dup 1, child 2)" "op=read path=\"$D/"
t_expect 3 "all pread64 under $D (main, thread, O_DIRECT)" "op=pread64 path=\"$D/"
t_expect 1 "file row data.bin" "file " "$DATA"
t_expect 1 "file row child.bin" "file " "path=\"$D/child.bin\""
# metadata calls: the path resolved (cwd, dirfd; the fd itself with
# AT_EMPTY_PATH), ret, flags (access: the mode; faccessat: mode | flags <<
# 32, AT_EACCESS 0x200, AT_EMPTY_PATH 0x1000), readlink's buffer as size
dataid=$(t_field file_id "file " "$DATA")
t_expect 1 "access" "$P" "op=access $DATA fd=-1 offset=0 size=0 ret=0 " "flags=0x6 "
t_expect 1 "access ENOENT" "$P" "op=access path=\"$D/nosuch\" fd=-1 offset=0 size=0 ret=-2 " \
	"flags=0x0 "
t_expect 1 "faccessat(dirfd) resolved, EACCES" "$P" \
	"op=faccessat path=\"$D/child.bin\" fd=-1 offset=0 size=0 ret=-13 " "flags=0x1 "
t_expect 1 "faccessat2 AT_EACCESS" "$P" "op=faccessat $DATA fd=-1 offset=0 size=0 ret=0 " \
	"flags=0x20000000004 "
t_expect 1 "faccessat2 AT_EMPTY_PATH: the fd's file" "$P" \
	"op=faccessat $DATA fd=3 offset=0 size=0 ret=0 " "file_id=$dataid flags=0x100000000000 "
t_expect 2 "access rows under $D" "op=access path=\"$D/"
t_expect 3 "faccessat rows under $D" "op=faccessat path=\"$D/"
t_expect 1 "readlink" "$P" "op=readlink path=\"$D/link\" fd=-1 offset=0 size=64 ret=8 " \
	"flags=0x0 "
t_expect 1 "readlinkat(dirfd) resolved" "$P" \
	"op=readlinkat path=\"$D/link\" fd=-1 offset=0 size=32 ret=8 " "flags=0x0 "
t_expect 1 "readlink of a file: EINVAL" "$P" "op=readlink $DATA fd=-1 offset=0 size=64 ret=-22 "
t_expect 3 "readlink rows under $D" "op=readlink" "path=\"$D/"
# file systems: the test directory's (as stat -f says), tmpfs for
# /dev/shm, proc for /proc; every file row has one (stdio too)
SHM="path=\"/dev/shm/iotape-wl-$pid\""
t_expect 1 "write of the /dev/shm file" "$P" "op=write $SHM fd=3 offset=0 size=4096 ret=4096 "
t_expect 1 "read of the /dev/shm file" "$P" "op=pread64 $SHM fd=3 offset=0 size=4096 ret=4096 "
t_expect 1 "read of /proc/self/stat" "$P" "op=read path=\"/proc/self/stat\" fd=3 offset=0 size=4096 "
t_expect 1 "data.bin on the test directory's file system" "file " "$DATA" \
	"fstype=0x$(stat -f -c %t "$D") "
t_expect 1 "/dev/shm file on tmpfs" "file " "$SHM" "fstype=0x1021994 "
t_expect 1 "/proc/self/stat on proc" "file " "path=\"/proc/self/stat\"" "fstype=0x9fa0 "
t_expect 0 "no file row without its file system" "file " "fstype=0x0 "
"$IOTAPE" dump -t file "$T/t.iotape" >"$T/files"
t_check "dump names them: tmpfs" grep -q "/dev/shm/iotape-wl-$pid .* fstype=tmpfs$" "$T/files"
t_check "dump names them: proc" grep -q "/proc/self/stat .* fstype=proc$" "$T/files"
"$IOTAPE" info "$T/t.iotape" >"$T/info"
t_check "info: fstype recorded" grep -q '^fstype  *in [1-9]' "$T/info"
# mmap layer: the touched pages are mapped by faults or fault-around
t_expect_ge 1 "page faults/map_pages on data.bin" "cache " "$P" "kind=map_pages"
# block layer: the O_DIRECT read is a 4096-byte read request of the process
t_expect_ge 1 "O_DIRECT read request" "block " "$P" "rwbs=RS " "bytes=4096 "
t_expect 1 "lost.syscall=0 in meta" "meta lost.syscall=0 "
t_eq "nothing lost" 0 "$(t_lost)"
t_done
