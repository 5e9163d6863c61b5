#!/bin/sh
# replay_fstype.sh - a file on a memory file system is not storage, by the
# file system type the recorder stores (issue #15, item 6), not only by
# its path: a job reads a file on a tmpfs mounted in the test directory
# (no /dev, /proc or /sys in its path) and one on the test directory's
# own file system.  The replay reads the second only, counts the first's
# ops as on "tmpfs", makes no file for it under DIR; compare leaves it
# out on both sides.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring

mkdir -p "$T/mem" "$T/disk" || fail "mkdir"
mount -t tmpfs -o size=4m iotape-test "$T/mem" || skip "cannot mount a tmpfs"
trap 'umount "$T/mem" 2>/dev/null; rm -rf "$T"' EXIT
[ "$(stat -f -c %T "$T/disk")" != tmpfs ] || skip "the test directory is on a tmpfs"
head -c 65536 /dev/zero >"$T/mem/m.bin" || fail "write m.bin"
head -c 65536 /dev/zero >"$T/disk/d.bin" || fail "write d.bin"
"$IOTAPE" record -q -o "$T/a.tape" -- python3 -c '
import os, sys
for p in sys.argv[1:]:
    with open(p, "rb") as f:
        while f.read(16384):
            pass' "$T/mem/m.bin" "$T/disk/d.bin" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
ok "$IOTAPE" dump -t file "$T/a.tape"
grep -q "path=$T/mem/m.bin .*fstype=tmpfs" "$T/out" || fail "m.bin: no fstype tmpfs: $(grep m.bin "$T/out")"
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$T/r" "$T/a.tape"
r() { jq_py "$T/r.json" "d['replay']$1"; }
[ "$(r "['recorded_memory_fs']['where'].get('tmpfs', 0) >= 3")" = True ] ||
	fail "tmpfs ops: $(r "['recorded_memory_fs']")"
[ ! -e "$T/r$T/mem/m.bin" ] || fail "the tmpfs file was made under DIR"
[ "$(stat -c %s "$T/r$T/disk/d.bin")" = 65536 ] || fail "d.bin not prepared"
[ "$(r "['ops_failed']")" = 0 ] || fail "failed: $(r "['failed']")"
b=$(jq_py "$T/r.json" "[f['replayed_bytes'] for f in d['replay']['files'] if f['path'].endswith('/d.bin')]")
[ "$b" = "[65536]" ] || fail "d.bin bytes: $b"
ok "$IOTAPE" compare --json "$T/a.tape" "$T/a.tape"
[ "$(jq_py "$T/out" "[f['path'] for f in d['files'] if f['path'].endswith('m.bin')]")" = "[]" ] ||
	fail "compare counted the tmpfs file"
exit 0
