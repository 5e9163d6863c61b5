#!/bin/sh
# python_xform: iotape.merge() and iotape.split() (python/iotape/xform.py,
# ctypes over libtape's tape_merge_* and tape_split) write what `iotape
# merge` and `iotape split` write: two bundled traces merged each way dump
# to the same events and metadata (the temporary paths aside), and their
# split by host gives back each input's events; split by process and by
# time match the command's parts file for file; a missing input, an
# existing output and a bad `by` raise, leaving nothing behind.
# Needs /usr/bin/python3 with numpy (python3-pandas pulls it in).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY (apt-get install python3-pandas)"
"$PY" -c 'import numpy' 2>"$T/err" || skip "python3 without numpy: $(tail -n 1 "$T/err")"
: "${TESTBIN:=$TOP/.output/tests}"
lib=${TESTBIN%/tests}/libtape.so.0
[ -f "$lib" ] || fail "no $lib (make builds it)"
export IOTAPE_LIBTAPE="$lib" PYTHONPATH="$TOP/python" PYTHONDONTWRITEBYTECODE=1
if ldd "$lib" | grep -q libasan; then
	asan=$(ldd "$lib" | awk '/libasan|libubsan/ { printf "%s ", $3 }')
	export LD_PRELOAD="$asan" ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi

a=$TOP/traces/image_folder.iotape b=$TOP/traces/checkpoint.iotape
mkdir "$T/c" "$T/p" || fail "mkdir"
ok "$IOTAPE" merge -q -o "$T/c/m.iotape" "$a" "$b"
ok "$IOTAPE" merge -q --align op=openat -o "$T/c/al.iotape" "$a" "$b"
cat >"$T/x.py" <<'PYEOF' || fail "x.py"
import sys, iotape
a, b, d = sys.argv[1:4]
r = iotape.merge([a, b], d + "/m.iotape")
ra = iotape.merge([a, b], d + "/al.iotape", align="op=openat")
assert ra["hosts"] == 2 and ra["events"] == r["events"], ra
assert r["hosts"] == 2 and r["events"] > 0, r
print("merge", r["events"], r["clock"])
s = iotape.split(d + "/m.iotape", d + "/h", by="host")
assert s["parts"] == 2, s
s = iotape.split(a, d + "/q", by="process")
print("process parts", s["parts"])
s = iotape.split(a, d + "/t", by="time", parts=3)
assert s["parts"] == 3, s
# errors: each raises, nothing is left
for call, exc in ((lambda: iotape.merge([a, d + "/none.iotape"], d + "/bad.iotape"), iotape.TraceError),
                  (lambda: iotape.merge([a, b], d + "/m.iotape"), iotape.TraceError),
                  (lambda: iotape.merge([a], d + "/one.iotape"), ValueError),
                  (lambda: iotape.split(a, d + "/z", by="rank"), ValueError),
                  (lambda: iotape.split(a, d + "/z", by="time"), ValueError)):
    try:
        call()
    except exc as e:
        print("raised:", e)
    else:
        sys.exit("did not raise")
PYEOF
"$PY" "$T/x.py" "$a" "$b" "$T/p" >"$T/py.out" 2>&1 || fail "python: $(cat "$T/py.out")"
grep -q '^merge ' "$T/py.out" || fail "no merge line: $(cat "$T/py.out")"
[ "$(grep -c '^raised:' "$T/py.out")" = 5 ] || fail "errors: $(cat "$T/py.out")"
for f in bad.iotape one.iotape; do
	[ -e "$T/p/$f" ] && fail "a failed merge left $f"
done
ls "$T/p" | grep -q '^z' && fail "a refused split left parts"
# the merged traces: the same events and metadata but for the inputs' paths
ok "$IOTAPE" dump "$T/c/m.iotape"
mv "$T/out" "$T/c.dump"
ok "$IOTAPE" dump "$T/p/m.iotape"
cmp -s "$T/c.dump" "$T/out" || fail "merge: python's trace differs from iotape merge's: $(diff "$T/c.dump" "$T/out" | head -5)"
ok "$IOTAPE" info "$T/c/m.iotape"
grep -v 'iotape-cli' "$T/out" >"$T/c.info"
ok "$IOTAPE" info "$T/p/m.iotape"
grep -v 'iotape-cli' "$T/out" >"$T/p.info"
cmp -s "$T/c.info" "$T/p.info" || fail "merge: info differs: $(diff "$T/c.info" "$T/p.info" | head -5)"
for f in al; do
	ok "$IOTAPE" dump "$T/c/$f.iotape"
	mv "$T/out" "$T/c.dump"
	ok "$IOTAPE" dump "$T/p/$f.iotape"
	cmp -s "$T/c.dump" "$T/out" || fail "merge --align: python's trace differs"
	ok "$IOTAPE" info "$T/p/$f.iotape"
	grep -q 'merge.align *op=openat' "$T/out" || fail "merge --align: no merge.align op=openat in: $(cat "$T/out")"
done
# split by host gives back each input's events
for h in 0 1; do
	[ $h = 0 ] && in=$a || in=$b
	ok "$IOTAPE" dump "$in"
	mv "$T/out" "$T/in.dump"
	ok "$IOTAPE" dump "$T/p/h-host$h.iotape"
	cmp -s "$T/in.dump" "$T/out" || fail "split by host: host $h is not its input"
done
# by process and by time: the command's parts, file for file
ok "$IOTAPE" split -q --by process -o "$T/c/q" "$a"
ok "$IOTAPE" split -q --by time --parts 3 -o "$T/c/t" "$a"
n=0
for f in "$T"/c/q-* "$T"/c/t-*; do
	g=$T/p/$(basename "$f")
	[ -f "$g" ] || fail "python's split has no $(basename "$g")"
	ok "$IOTAPE" dump "$f"
	mv "$T/out" "$T/f.dump"
	ok "$IOTAPE" dump "$g"
	cmp -s "$T/f.dump" "$T/out" || fail "split: $(basename "$f") differs"
	n=$((n + 1))
done
[ "$(ls "$T/p" | grep -c '^[qt]-')" = $n ] || fail "python's split made other parts than the command's"
echo "merge and split from python: the command's traces ($n parts compared)"
