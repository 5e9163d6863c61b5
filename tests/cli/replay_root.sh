#!/bin/sh
# replay_root.sh - a job that opens "/" is replayed (issue #27, item 1).
#
# Every Open MPI process opens "/" (hwloc: openat("/", O_PATH|O_DIRECTORY));
# Python's os.listdir("/") and os.stat("/") name it too.  "/" is DIR
# itself: prepare makes nothing for it, the replay opens, stats and lists
# DIR where the job did the root, and no trace is refused for it.  A
# recording of the replay shows the open of DIR itself.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"

head -c 8192 /dev/urandom >"$T/data.bin" || fail "data.bin"
"$IOTAPE" record -q -o "$T/a.tape" -- /usr/bin/python3 -c '
import os, sys
os.close(os.open("/", os.O_PATH | os.O_DIRECTORY))
os.stat("/")
os.listdir("/")
with open(sys.argv[1], "rb") as f:
    f.read()' "$T/data.bin" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
ok "$IOTAPE" dump -t syscall "$T/a.tape"
grep -q ' openat / .*flags=0x290000' "$T/out" || fail "no O_PATH open of /: $(grep ' / ' "$T/out")"

# the issue's repro: --prepare-only refused the trace
ok "$IOTAPE" replay --prepare-only -d "$T/p" "$T/a.tape"
[ -d "$T/p" ] && [ ! -L "$T/p" ] || fail "prepare replaced DIR"
[ "$(stat -c %s "$T/p$T/data.bin")" = 8192 ] || fail "data.bin not prepared"

"$IOTAPE" record -q -o "$T/rec.tape" -- "$IOTAPE" replay --timing afap \
	--output-format json -o "$T/r.json" -d "$T/r" "$T/a.tape" 2>"$T/rp.err" ||
	fail "replay under record: $(cat "$T/rp.err")"
r() { jq_py "$T/r.json" "d['replay']$1"; }
[ "$(r "['ops_failed']")" = 0 ] || fail "failed: $(r "['failed']")"
[ "$(r "['ops_done']['open'] == d['replay']['ops_expected']['open']")" = True ] ||
	fail "opens: $(r "['ops_done']") of $(r "['ops_expected']")"
[ "$(jq_py "$T/r.json" "[f['path'] for f in d['replay']['files'] if f['path'] == '.']")" = "['.']" ] ||
	fail "DIR itself is not a file of the replay"
b=$(jq_py "$T/r.json" "[f['replayed_bytes'] for f in d['replay']['files'] if f['path'].endswith('/data.bin')]")
[ "$b" = "[8192]" ] || fail "data.bin bytes: $b"
# the replay opened DIR (O_DIRECTORY, through io_uring) and listed it
ok "$IOTAPE" dump -t syscall "$T/rec.tape"
grep -q "uring_openat $T/r ret=" "$T/out" || fail "the replay did not open DIR: $(grep uring_openat "$T/out" | head -5)"
grep -q "getdents64 $T/r fd=" "$T/out" || fail "the replay did not list DIR"
exit 0
