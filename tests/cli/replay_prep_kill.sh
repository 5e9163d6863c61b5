#!/bin/sh
# replay_prep_kill.sh - a prepare killed midway leaves no file of holes
# that the next prepare takes as done (issue #27, item 13).
#
# A prepare killed with -9 while it wrote a 512 MiB file left it full-size
# and mostly holes at its path; the next prepare kept it (its size was
# right) and marked DIR "as prepare made them", and the replay read zeros
# that never reached the storage.  Files are now written under a
# temporary name and renamed: the killed prepare leaves only the
# temporary; the next one removes it and writes the file whole.  A file of
# the right size that is mostly holes (what an older prepare left, or a
# --sparse one) is written again by a prepare that is not --sparse.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

MB=1048576
printf '%s\n%s\n%s\n' "$HDR" '1000,1,1,openat,/data/big.bin,-1,0,0,3,10,0,' \
	"2000,1,1,pread64,/data/big.bin,3,$((512 * MB - 4096)),4096,4096,10,0," >"$T/t.csv" || fail "csv"
ok "$IOTAPE" import -o "$T/t.tape" "$T/t.csv"
avail=$(df -k --output=avail "$T" | tail -n 1)
[ "$avail" -gt $((3 * 512 * 1024)) ] || skip "needs 1.5 GiB free under $T"
F="$T/d/data/big.bin"
# whole PATH: every 4 KiB block of PATH allocated (no holes)
whole() { [ $(($(stat -c '%b * %B' "$1"))) -ge $((512 * MB)) ]; }

# kill it while it writes (0.2 s in: prepare takes ~1 s or more here)
timeout -s KILL 0.2 "$IOTAPE" replay --prepare-only -d "$T/d" "$T/t.tape" 2>/dev/null
rc=$?
[ "$rc" = 137 ] || skip "prepare ended before it could be killed (exit $rc)"
if [ -e "$F" ]; then
	whole "$F" || fail "the killed prepare left $F with holes: $(stat -c '%s bytes, %b blocks' "$F")"
fi
grep -q '^prepared:' "$T/d/.iotape-replay" 2>/dev/null && fail "the killed prepare marked DIR prepared"
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/t.tape"
[ "$(stat -c %s "$F")" = $((512 * MB)) ] || fail "size"
whole "$F" || fail "the second prepare kept holes: $(stat -c '%s bytes, %b blocks' "$F")"
[ -e "$T/d/data/.iotape-prep" ] && fail "the temporary is still there"
grep -q '^prepared:' "$T/d/.iotape-replay" || fail "not marked prepared"

# a full-size file of holes at the path (an older prepare killed, or
# --sparse): written again
rm -f "$F" && truncate -s $((512 * MB)) "$F" || fail "truncate"
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/t.tape"
whole "$F" || fail "a file of holes was kept: $(stat -c '%s bytes, %b blocks' "$F")"
rm -rf "$T/s"
ok "$IOTAPE" replay --prepare-only --sparse -d "$T/s" "$T/t.tape"
[ "$(stat -c %b "$T/s/data/big.bin")" -lt 100 ] || fail "--sparse wrote data"
ok "$IOTAPE" replay --prepare-only --sparse -d "$T/s" "$T/t.tape"
[ "$(stat -c %b "$T/s/data/big.bin")" -lt 100 ] || fail "--sparse again wrote data"
ok "$IOTAPE" replay --prepare-only -d "$T/s" "$T/t.tape"
whole "$T/s/data/big.bin" || fail "a --sparse file was kept by a prepare with data"
exit 0
