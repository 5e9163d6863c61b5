#!/bin/sh
# replay_memfs.sh - ops on memory and pseudo file systems are not replayed
# (issue #15, item 6): DataLoader's shared memory under /dev/shm, reads of
# /proc and /sys are memory and kernel state, not storage.  They become no
# file under DIR, are counted per place in the report (text and JSON), and
# the ops on an fd opened there (rows without a path) are left out too;
# the job's other I/O is replayed as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

creat=$(python3 -c 'import os; print(hex(os.O_RDWR | os.O_CREAT | os.O_TRUNC))')
{
	echo "$HDR"
	echo "1000,1,1,openat,/dev/shm/torch_1_2,-1,0,0,3,10,$creat,"
	echo "1100,1,1,write,,3,0,4096,4096,10,0,"	# no path: by its fd
	echo "1200,1,1,close,/dev/shm/torch_1_2,3,0,0,0,10,0,"
	echo "1300,1,1,unlink,/dev/shm/torch_1_2,-1,0,0,0,10,0,"
	echo "2000,1,1,openat,/proc/self/status,-1,0,0,3,10,0,"
	echo "2100,1,1,read,/proc/self/status,3,0,4096,1200,10,0,"
	echo "2200,1,1,close,/proc/self/status,3,0,0,0,10,0,"
	echo "3000,1,1,openat,/sys/devices/system/cpu/online,-1,0,0,3,10,0,"
	echo "3100,1,1,read,/sys/devices/system/cpu/online,3,0,4096,4,10,0,"
	echo "3200,1,1,close,/sys/devices/system/cpu/online,3,0,0,0,10,0,"
	echo "4000,1,1,openat,/data/x.bin,-1,0,0,3,10,0,"
	echo "4100,1,1,read,/data/x.bin,3,0,8192,8192,10,0,"
	echo "4200,1,1,close,/data/x.bin,3,0,0,0,10,0,"
} >"$T/m.csv"
ok "$IOTAPE" import -o "$T/m.tape" "$T/m.csv"
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/m.json" -d "$T/d" "$T/m.tape"
r() { jq_py "$T/m.json" "d['replay']$1"; }
[ "$(r "['recorded_memory_fs']['ops']")" = 10 ] || fail "memory fs ops: $(r "['recorded_memory_fs']")"
[ "$(r "['recorded_memory_fs']['where']")" = "{'/dev/shm': 4, '/proc': 3, '/sys': 3}" ] ||
	fail "memory fs places: $(r "['recorded_memory_fs']['where']")"
[ "$(r "['ops_done']")" = "{'open': 1, 'close': 1, 'read': 1, 'write': 0, 'fsync': 0, 'fdatasync': 0, 'unlink': 0, 'rename': 0, 'mkdir': 0, 'dup': 0, 'stat': 0, 'getdents': 0, 'access': 0, 'readlink': 0}" ] ||
	fail "ops: $(r "['ops_done']")"
[ "$(r "['ops_failed']")" = 0 ] || fail "failed: $(r "['failed']")"
[ ! -e "$T/d/dev" ] && [ ! -e "$T/d/proc" ] && [ ! -e "$T/d/sys" ] || fail "a memory fs path under DIR"
[ -f "$T/d/data/x.bin" ] || fail "data/x.bin not prepared"
ok "$IOTAPE" replay --timing afap -d "$T/d" "$T/m.tape"
grep -q "^  not replayed, on memory and pseudo file systems: 10 ops (/dev/shm 4, /proc 3, /sys 3)$" "$T/out" ||
	fail "text report: $(grep 'not replayed' "$T/out")"
exit 0
