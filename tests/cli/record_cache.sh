#!/bin/sh
# record_cache.sh - after dropping caches, a file read twice shows its pages
# inserted (misses) on the first pass and only accessed (hits) on the second.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
f="$T/f.dat"
dd if=/dev/urandom of="$f" bs=64k count=16 status=none && sync
echo 3 > /proc/sys/vm/drop_caches || skip "cannot drop caches"
"$IOTAPE" record -q -e syscall,cache -o "$T/t.iotape" -- sh -c \
	"dd if=$f of=/dev/null bs=64k status=none; dd if=$f of=/dev/null bs=64k status=none" || exit 1
t_dump "$T/t.iotape"
ino=$(t_field inode "file " "path=\"$f\"")
p1=$(grep '^process ' "$T/dump" | grep -F "argv=\"dd if=$f" | sed -n '1s/.* pid=\([0-9]*\) .*/\1/p')
p2=$(grep '^process ' "$T/dump" | grep -F "argv=\"dd if=$f" | sed -n '2s/.* pid=\([0-9]*\) .*/\1/p')
t_check "file row for $f" [ -n "$ino" ]
dev=$(t_devno "$f")
t_eq "file.dev is major << 20 | minor" "$dev" "$(t_field dev "file " "path=\"$f\"")"
t_eq "cache.dev of the file's rows is file.dev" "$(t_count "cache " " inode=$ino ")" "$(t_count "cache " " inode=$ino " " dev=$dev ")"
t_check "two dd processes" [ -n "$p1" -a -n "$p2" ]
t_eq "pass 1: pages inserted (misses)" 256 "$(t_sum count "cache " " pid=$p1 " "kind=insert " " inode=$ino ")"
t_eq "pass 2: no page inserted" 0 "$(t_sum count "cache " " pid=$p2 " "kind=insert " " inode=$ino ")"
t_eq "pass 2: pages accessed" 256 "$(t_sum count "cache " " pid=$p2 " "kind=access " " inode=$ino ")"
t_expect_ge 1 "pass 1: pages accessed" "cache " " pid=$p1 " "kind=access " " inode=$ino "
t_eq "pass 1 read 1 MiB" 1048576 "$(t_sum ret "syscall " " pid=$p1 " "op=read " "path=\"$f\"")"
# a read's access rides with the read and carries its start time: every
# access row of pass 2 has the ts_ns of one of pass 2's reads of the file
t_grep "syscall " " pid=$p2 " "op=read " "path=\"$f\"" | sed 's/.* ts_ns=\([0-9]*\) .*/\1/' | sort -u >"$T/rts"
t_grep "cache " " pid=$p2 " "kind=access " " inode=$ino " | sed 's/.* ts_ns=\([0-9]*\) .*/\1/' | sort -u >"$T/ats"
t_check "pass 2 has access rows" [ -s "$T/ats" ]
t_eq "pass 2: access times that are no read's start" 0 "$(comm -23 "$T/ats" "$T/rts" | wc -l)"
t_done
