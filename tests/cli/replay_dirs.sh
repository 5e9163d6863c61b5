#!/bin/sh
# replay_dirs.sh - a directory that the trace never opened O_DIRECTORY is
# still prepared as a directory when other traced paths live under it.
#
# Python's multiprocessing does exactly this: mkdir /tmp/pymp-X, bind a
# socket in it (not traced), unlink the socket, then open the directory
# with a plain os.open() to remove it.  A replay that prepared pymp-X as a
# regular file could not create its child.
. "$TOP/tests/cli/lib.sh"
. "$TOP/tests/cli/replay_lib.sh"
need_uring

cat >"$T/d.csv" <<CSV
$HDR
1000,1,1,mkdir,/tmp/pymp-x,-1,0,0,0,10,0x1c0,
2000,1,1,unlink,/tmp/pymp-x/listener,-1,0,0,0,10,0x0,
3000,1,1,openat,/tmp/pymp-x,-1,0,0,3,10,0x80000,
4000,1,1,close,/tmp/pymp-x,3,0,0,0,10,0x0,
5000,1,1,openat,/data/a.bin,-1,0,0,3,10,0x80000,
6000,1,1,read,/data/a.bin,3,0,4096,4096,10,0x0,
7000,1,1,close,/data/a.bin,3,0,0,0,10,0x0,
CSV
ok "$IOTAPE" import -o "$T/d.tape" "$T/d.csv"
ok "$IOTAPE" replay --timing afap --output-format json -d "$T/r" "$T/d.tape"
[ -d "$T/r/tmp/pymp-x" ] || fail "tmp/pymp-x was not prepared as a directory: $(ls -la "$T/r/tmp" 2>&1)"
[ ! -e "$T/r/tmp/pymp-x/listener" ] || fail "the unlinked socket is still there"
[ "$(jq_py "$T/out" "d['replay']['ops_done']['read']")" = 1 ] || fail "read not replayed: $(cat "$T/out")"
[ "$(stat -c %s "$T/r/data/a.bin")" -ge 4096 ] || fail "data/a.bin not prepared"
exit 0
