#!/bin/sh
# record_block.sh - O_DIRECT reads of N bytes appear as block read requests of
# the reading process totalling N bytes.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
f="$T/f.dat"
dd if=/dev/urandom of="$f" bs=64k count=16 status=none && sync
# dd's own binary and libraries must come from the page cache, or their
# reads (after someone dropped the caches) count as the process's too
dd if="$f" of=/dev/null bs=64k count=1 status=none
"$IOTAPE" record -q -e syscall,block -o "$T/t.iotape" -- \
	dd if="$f" of=/dev/null bs=64k iflag=direct status=none || exit 1
t_dump "$T/t.iotape"
p=$(grep '^process ' "$T/dump" | grep -F "argv=\"dd if=$f" | sed -n '1s/.* pid=\([0-9]*\) .*/\1/p')
t_check "dd process" [ -n "$p" ]
t_eq "O_DIRECT read bytes (syscalls)" 1048576 "$(t_sum ret "syscall " " pid=$p " "op=read " "path=\"$f\"")"
t_eq "block read bytes of the process" 1048576 "$(t_sum bytes "block " " pid=$p " "rwbs=R")"
# dev columns: the kernel's major << 20 | minor, the file's file system in
# the file table, its disk in the block table
t_eq "file.dev" "$(t_devno "$f")" "$(t_field dev "file " "path=\"$f\"")"
t_eq "block.dev" "$(t_disk "$f")" "$(t_field dev "block " " pid=$p " "rwbs=R")"

# writeback runs in a flusher thread, not the traced process: requests are
# kept because their pages belong to a file the process opened
w="$T/w.dat"
"$IOTAPE" record -q -e syscall,block -o "$T/w.iotape" -- sh -c "dd if=/dev/zero of=$w bs=1M count=4 status=none; sync" || exit 1
t_dump "$T/w.iotape"
ino=$(t_field inode "file " "path=\"$w\"")
t_check "file row for $w" [ -n "$ino" ]
t_eq "written back bytes of the file" 4194304 "$(t_sum bytes "block " "rwbs=W" " inode=$ino ")"
t_done
