#!/bin/sh
# replay_absent.sh - what the job made by an op the replay does not issue.
# A DataLoader worker makes a directory, binds a socket in it (bind is not
# an op the replay has), stats and unlinks the socket, lists the directory
# through an open without O_DIRECTORY (os.scandir) and removes it.  The
# replay must leave the directory to the job's mkdir (before: prepare made
# it, the mkdir found it there, "existed"), and the stat and the unlink of
# the socket fail in the replay as expected (ops_absent), not as failures.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

cat >"$T/j.csv" <<EOT
$HDR
1000,1,1,mkdir,/tmp/pymp-x,-1,0,0,0,10,0x1c0,
2000,1,1,newfstatat,/tmp/pymp-x/listener,-100,0,0,-2,10,0x100,
3000,1,1,newfstatat,/tmp/pymp-x/listener,-100,0,0,0,10,0x100,
4000,1,1,unlink,/tmp/pymp-x/listener,-1,0,0,0,10,0,
5000,1,1,openat,/tmp/pymp-x,-100,0,0,3,10,0x80000,
6000,1,1,getdents64,/tmp/pymp-x,3,0,32768,48,10,0,
7000,1,1,close,/tmp/pymp-x,3,0,0,0,10,0,
8000,1,1,unlinkat,/tmp/pymp-x,-100,0,0,0,10,0x200,
EOT
ok "$IOTAPE" import -o "$T/j.tape" "$T/j.csv"
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/j.tape"
[ ! -e "$T/d/tmp/pymp-x" ] || fail "prepare made the directory the job makes"
ok "$IOTAPE" replay --no-prepare --timing afap --output-format json -o "$T/r.json" -d "$T/d" "$T/j.tape"
r() { jq_py "$T/r.json" "d['replay']$1"; }
[ "$(r "['mkdir_existed']")" = 0 ] || fail "mkdir existed: $(r "['mkdir_existed']")"
[ "$(r "['ops_absent']")" = 2 ] || fail "ops_absent: $(r "['ops_absent']")"
[ "$(r "['ops_failed']")" = 0 ] || fail "failed: $(r "['failed']")"
[ "$(r "['ops_done']['unlink']")" = 2 ] && [ "$(r "['ops_done']['stat']")" = 2 ] ||
	fail "done: $(r "['ops_done']")"
[ ! -e "$T/d/tmp/pymp-x" ] || fail "the directory is still there"
ok "$IOTAPE" replay --timing afap -d "$T/d2" "$T/j.tape"
grep -q "^  ops on what the job made by ops not replayed (a socket's bind), failed as expected: 2$" "$T/out" ||
	fail "text: $(cat "$T/out")"
exit 0
