#!/bin/sh
# python_reader: python/iotape (ctypes over libtape.so) reads every table of
# every bundled trace to exactly the values `iotape dump --format csv`
# prints (compared with pandas.read_csv of the dump, column by column);
# chunks() of a small n concatenate to the same; read_arrays() agrees, on
# one decoding thread and on three, and pickled; a
# trace cut short reads as dump reads it; damaged, hostile (the fuzz corpus)
# and missing files raise iotape.TraceError, never crash the interpreter.
# Needs /usr/bin/python3 with numpy and pandas (Debian's python3-pandas):
# exit 77 without them.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY (apt-get install python3-pandas)"
"$PY" -c 'import numpy, pandas' 2>"$T/err" ||
	skip "python3 without numpy/pandas: $(tail -n 1 "$T/err") (apt-get install python3-pandas)"
: "${TESTBIN:=$TOP/.output/tests}"
lib=${TESTBIN%/tests}/libtape.so.0
[ -f "$lib" ] || fail "no $lib (make builds it)"
export IOTAPE_LIBTAPE="$lib" PYTHONPATH="$TOP/python" PYTHONDONTWRITEBYTECODE=1
# A sanitized build's libtape.so needs the sanitizer runtimes first.
if ldd "$lib" | grep -q libasan; then
	asan=$(ldd "$lib" | awk '/libasan|libubsan/ { printf "%s ", $3 }')
	export LD_PRELOAD="$asan" ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi

cat >"$T/check.py" <<'EOF'
import pickle
import sys
import numpy as np
import pandas as pd
import iotape

HEX = ("flags", "fstype")      # columns the CSV writes in hex (TAPE_TXT_HEX, FSTYPE)

def from_csv(path):
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False,
                       encoding="utf-8", encoding_errors="surrogateescape")

def compare(what, df, csv):
    if list(df.columns) != list(csv.columns):
        sys.exit("%s: columns %s, dump has %s" % (what, list(df.columns), list(csv.columns)))
    if len(df) != len(csv):
        sys.exit("%s: %d rows, dump has %d" % (what, len(df), len(csv)))
    for c in df.columns:
        got = df[c]
        want = csv[c]
        if got.dtype == object or isinstance(got.dtype, pd.CategoricalDtype):
            g = got.astype(object).to_numpy()
            w = want.to_numpy()
        else:
            w = np.array([int(x, 16) if c in HEX else int(x) for x in want], dtype=got.dtype)
            g = got.to_numpy()
        if not np.array_equal(g, w):
            i = int(np.flatnonzero(g != w)[0])
            sys.exit("%s: column %s row %d: %r, dump has %r" % (what, c, i, g[i], w[i]))

def check(trace, layer, csvpath, n):
    what = "%s %s" % (trace, layer)
    csv = from_csv(csvpath)
    df = iotape.read(trace, layer=layer)
    compare(what, df, csv)
    # in pieces of n rows: the same rows, every piece but the last full
    parts = list(iotape.chunks(trace, n=n, layer=layer))
    if any(len(p) != n for p in parts[:-1]) or (parts and not 1 <= len(parts[-1]) <= n):
        sys.exit("%s: chunks of %d: sizes %s" % (what, n, [len(p) for p in parts]))
    # (as object columns: pandas cannot hash the categories of a non-UTF-8
    # path, decoded with surrogateescape, which concat of categoricals does)
    parts = [p.astype({c: object for c in p.columns
                       if isinstance(p[c].dtype, pd.CategoricalDtype)}) for p in parts]
    whole = pd.concat(parts, ignore_index=True) if parts else df.iloc[:0]
    compare(what + " chunks(n=%d)" % n, whole, csv)
    # arrays: the stored values; strings by id
    a = iotape.read_arrays(trace, layer=layer)
    for c in df.columns:
        v = a[c]
        if isinstance(df[c].dtype, pd.CategoricalDtype) and v.dtype == np.uint32 and \
                c not in ("pid", "tid", "ppid"):
            if c in ("op", "kind", "metric"):
                continue            # numbers, named in the DataFrame
            if not np.array_equal(a.text(c), df[c].astype(object).to_numpy()):
                sys.exit("%s: read_arrays column %s differs" % (what, c))
        elif c == "rwbs":
            continue
        elif not np.array_equal(v, df[c].to_numpy()):
            sys.exit("%s: read_arrays column %s differs" % (what, c))
    # one decoding thread and three: the same arrays, the same string ids
    for th in (1, 3):
        b = iotape.read_arrays(trace, layer=layer, threads=th)
        if any(not np.array_equal(a[c], b[c]) for c in a) or \
                not np.array_equal(a.strings, b.strings):
            sys.exit("%s: read_arrays(threads=%d) differs" % (what, th))
    # pickled (multiprocessing): the same arrays and strings, the library's
    # string table left behind
    p = pickle.loads(pickle.dumps(a))
    if any(not np.array_equal(a[c], p[c]) for c in a) or p.layer != layer or \
            not np.array_equal(a.strings, p.strings):
        sys.exit("%s: read_arrays pickled differs" % what)
    # a subset, in another order
    cols = list(df.columns)[::-3]
    sub = iotape.read(trace, columns=cols, layer=layer)
    compare(what + " columns=%s" % cols, sub, csv[cols])
    return len(df)

if __name__ == "__main__":
    trace, layer, csvpath, n = sys.argv[1:5]
    print(check(trace, layer, csvpath, int(n)))
EOF

layers="syscall block cache process file sample"
for t in "$TOP"/traces/*.iotape; do
	for l in $layers; do
		"$IOTAPE" dump --format csv --table "$l" -o "$T/d.csv" "$t" 2>"$T/err" ||
			fail "dump $t $l: $(cat "$T/err")"
		rows=$("$PY" "$T/check.py" "$t" "$l" "$T/d.csv" 1000 2>"$T/err") ||
			fail "python reader, $t $l: $(cat "$T/err")"
		[ "$rows" -eq "$(($(wc -l <"$T/d.csv") - 1))" ] || [ "$l" = process ] || [ "$l" = file ] ||
			fail "$t $l: $rows rows"	# (strings with newlines make more lines)
	done
done

# Awkward values through import: strings that need quoting, bytes that are
# not UTF-8, the extremes of every integer width; small chunks across them.
printf 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2\n' >"$T/odd.csv"
printf '1,4294967295,0,read,"a,b ""c""\nd",-9223372036854775808,18446744073709551615,0,-1,0,0,0xffffffffffffffff,,-1,0,0\n' >>"$T/odd.csv"
printf '2,1,1,999,/x/\351t\351,9223372036854775807,0,1,9223372036854775807,5,0,0x0, lead,-1,0,0\n' >>"$T/odd.csv"
printf '3,1,1,sendfile,,3,10,20,20,5,7,0x0,,4,8,30\n' >>"$T/odd.csv"
printf '18446744073709551615,2,2,openat,/x/\351t\351,-100,0,0,3,1,9,0x80000,,-1,0,0\n' >>"$T/odd.csv"
ok "$IOTAPE" import -o "$T/odd.iotape" "$T/odd.csv"
"$IOTAPE" dump --format csv -o "$T/odd.dump" "$T/odd.iotape" 2>"$T/err" || fail "dump odd: $(cat "$T/err")"
"$PY" "$T/check.py" "$T/odd.iotape" syscall "$T/odd.dump" 1 >"$T/out" 2>"$T/err" ||
	fail "python reader, odd values: $(cat "$T/err")"
[ "$(cat "$T/out")" = 4 ] || fail "odd values: $(cat "$T/out") rows"

# A trace cut short (a recorder killed): read as dump reads it, by scanning.
src=$TOP/traces/image_folder.iotape
size=$(wc -c <"$src")
head -c $((size / 2)) "$src" >"$T/cut.iotape" || fail "head"
"$IOTAPE" dump --format csv -o "$T/cut.csv" "$T/cut.iotape" 2>"$T/err" || fail "dump cut: $(cat "$T/err")"
grep -q "index rebuilt by scanning" "$T/err" || fail "dump of the cut trace: no recovery warning"
"$PY" "$T/check.py" "$T/cut.iotape" syscall "$T/cut.csv" 777 >/dev/null 2>"$T/err" ||
	fail "python reader, cut trace: $(cat "$T/err")"

# Damage: a byte in the payload of a syscall block in the middle (chunk
# headers as iotape-format(5) lays them out: "ITCK", type 2, table 1 at
# byte 6, stored size at 12, payload after the 48 bytes).  dump stops with
# an error; the reader raises TraceError (EBADMSG) naming the block, and
# chunks() gives the pieces before it first.
"$PY" - "$src" "$T/bad.iotape" <<'PYEOF' || fail "damaging the trace"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
blocks, off = [], 32
while b[off:off + 4] == b"ITCK":
    typ, table = b[off + 4], struct.unpack_from("<H", b, off + 6)[0]
    stored = struct.unpack_from("<I", b, off + 12)[0]
    if typ == 2 and table == 1:
        blocks.append((off, stored))
    off += 48 + stored
off, stored = blocks[len(blocks) // 2]
b[off + 48 + stored // 2] ^= 0xff
open(sys.argv[2], "wb").write(b)
PYEOF
"$IOTAPE" dump --format csv -o "$T/bad.csv" "$T/bad.iotape" 2>/dev/null && fail "dump of a damaged trace exited 0"
cat >"$T/bad.py" <<'EOF'
import errno, sys
import iotape
trace = sys.argv[1]
def expect_error(f, *a, **k):
    try:
        f(*a, **k)
    except iotape.TraceError as e:
        return e
    sys.exit("%s%r: no TraceError" % (f.__name__, a))
bad = [expect_error(iotape.read, trace, layer=l) for l in ("syscall",)]
e = bad[0]
if e.errno != errno.EBADMSG or "at offset" not in str(e) or e.filename != trace:
    sys.exit("damaged: %r" % (e,))
got = 0
try:
    for df in iotape.chunks(trace, n=500):
        got += len(df)
except iotape.TraceError:
    pass
else:
    sys.exit("chunks: no TraceError")
if got == 0:
    sys.exit("chunks: no rows before the damage")
for th in (1, 3):   # the same rows before the damage on any number of threads
    n = 0
    try:
        for a in iotape.chunks(trace, n=100000, arrays=True, threads=th):
            n += len(a["ts_ns"])
    except iotape.TraceError as e:
        if e.errno != errno.EBADMSG:
            sys.exit("threads=%d: %r" % (th, e))
    else:
        sys.exit("threads=%d: no TraceError" % th)
    if n != got:
        sys.exit("threads=%d: %d rows before the damage, not %d" % (th, n, got))
e = expect_error(iotape.read, trace + ".missing")
if e.errno != errno.ENOENT:
    sys.exit("missing: %r" % (e,))
e = expect_error(iotape.read_arrays, "/")
if e.errno != errno.EINVAL:
    sys.exit("directory: %r" % (e,))
for bad in (lambda: iotape.read(trace, layer="nope"), lambda: iotape.read(trace, columns=["nope"]),
            lambda: list(iotape.chunks(trace, n=0)), lambda: iotape.read(trace, threads=0),
            lambda: iotape.read_arrays(trace, threads=65)):
    try:
        bad()
    except ValueError:
        pass
    else:
        sys.exit("bad argument accepted")
print(got)
EOF
"$PY" "$T/bad.py" "$T/bad.iotape" >"$T/out" 2>"$T/err" || fail "damaged trace: $(cat "$T/err")"

# Hostile files: every input of the reader's fuzz corpus, every table, by
# read() and by chunks(): rows or TraceError, nothing else.
cat >"$T/hostile.py" <<'EOF'
import os, sys
import iotape
d = sys.argv[1]
n = 0
for f in sorted(os.listdir(d)):
    for layer in iotape.LAYERS:
        for how in ("read", "chunks"):
            try:
                if how == "read":
                    iotape.read(os.path.join(d, f), layer=layer)
                else:
                    for _ in iotape.chunks(os.path.join(d, f), n=333, layer=layer):
                        pass
            except iotape.TraceError:
                n += 1
print(n)
EOF
"$PY" "$T/hostile.py" "$TOP/tests/fuzz/corpus/reader" >"$T/out" 2>"$T/err" ||
	fail "hostile files: $(cat "$T/err")"
[ "$(cat "$T/out")" -gt 0 ] || fail "hostile files: not one raised TraceError"

# Without the library: a clear ImportError naming what was tried.
IOTAPE_LIBTAPE=$T/none.so "$PY" -c 'import iotape; iotape.read("x")' >"$T/out" 2>"$T/err" &&
	fail "no library: exited 0"
grep -q "ImportError: iotape: cannot load libtape.so.0" "$T/err" || fail "no library: $(cat "$T/err")"
exit 0
