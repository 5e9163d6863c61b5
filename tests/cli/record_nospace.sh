#!/bin/sh
# record_nospace.sh - a trace that cannot be written (a full file system)
# stops the recording with exit 1 and one line that says why and that the
# command, left running, still runs, with its pid (it used to be left
# running without a word).  The output is a 256 KiB tmpfs; the command,
# preadbench, reads for ever.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
head -c 1048576 /dev/urandom >"$T/f.dat"
mkdir "$T/small"
mount -t tmpfs -o size=256k iotape-test "$T/small" || skip "cannot mount a tmpfs"
cmdpid=
trap '[ -n "$cmdpid" ] && kill -KILL $cmdpid 2>/dev/null; umount "$T/small"; rm -rf "$T"' EXIT

# the command says its pid before it becomes preadbench (same pid)
run timeout 60 "$IOTAPE" record -q -o "$T/small/t.iotape" -- \
	sh -c 'echo $$ >"$1"; exec "$2" "$3" 1000000000 4096' sh "$T/pid" "$TB/preadbench" "$T/f.dat"
cmdpid=$(cat "$T/pid")
[ -n "$cmdpid" ] || fail "the command did not start: $(cat "$T/err")"
[ "$rc" -eq 1 ] || fail "exited $rc, want 1: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "want one line: $(cat "$T/err")"
grep -qF "iotape record: $T/small/t.iotape: " "$T/err" || fail "no trace named: $(cat "$T/err")"
grep -qF "No space left on device: recording stopped; sh (pid $cmdpid) is still running; not waiting for it" \
	"$T/err" || fail "no reason, command or pid $cmdpid: $(cat "$T/err")"
kill -0 "$cmdpid" 2>/dev/null || fail "the command (pid $cmdpid) is not running"
exit 0
