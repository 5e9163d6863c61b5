#!/bin/sh
# record_uring.sh - operations submitted through io_uring appear with their
# file, offset, size and result (tests/helpers/uring.c); an open through
# the ring with the path it opened (relative to a dirfd, made absolute),
# and a close with its fd.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
f="$T/u.dat"
"$IOTAPE" record -q -e syscall -o "$T/t.iotape" -- "$TB/uring" "$f" >"$T/fd"
rc=$?
[ $rc -eq 77 ] && skip "io_uring not available"
t_eq "exit status" 0 $rc
t_dump "$T/t.iotape"
P="path=\"$f\""
t_expect 1 "uring read @0" "op=uring_read $P" "offset=0 size=4096 ret=4096 "
t_expect 1 "uring read @8192" "op=uring_read $P" "offset=8192 size=4096 ret=4096 "
t_expect 1 "uring write @16384" "op=uring_write $P" "offset=16384 size=4096 ret=4096 "
t_expect 1 "uring fsync" "op=uring_fsync $P" "ret=0 "
t_expect_ge 1 "io_uring_enter submitting 4" "op=io_uring_enter " "size=4 ret=4 "
fd=$(cat "$T/fd")
t_check "fd of the ring's open ($fd)" [ -n "$fd" ]
t_expect 1 "uring openat of $f" "op=uring_openat $P" "ret=$fd "
t_expect 1 "uring read @0 through it" "op=uring_read $P" " fd=$fd offset=0 size=100 ret=100 "
t_expect 1 "uring close of it" "op=uring_close $P" " fd=$fd " " ret=0 "
t_done
