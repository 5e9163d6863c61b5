#!/bin/sh
# iotape export --format perfetto: for each bundled trace the JSON parses,
# holds exactly one complete event per syscall row of `iotape dump` (a few
# compared field by field: name, ts, dur, pid, tid, offset, bytes), one per
# block request, process and thread names, counters whose read bandwidth
# integrates to the trace's read bytes.  -o writes the same bytes as
# stdout; bad input: one error line, exit 1 or 2, no output file left.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"

for t in "$TOP"/traces/*.iotape; do
	n=$(basename "$t" .iotape)
	ok "$IOTAPE" export -F perfetto -o "$T/$n.json" "$t"
	[ -s "$T/out" ] && fail "$n: -o wrote to stdout"
	ok "$IOTAPE" export --format perfetto "$t"
	same "$T/$n.json" "$T/out"
	ok "$IOTAPE" dump -F csv -o "$T/$n.sys.csv" "$t"
	ok "$IOTAPE" dump -F csv -t block -o "$T/$n.blk.csv" "$t"
	ok "$IOTAPE" dump -F csv -t process -o "$T/$n.proc.csv" "$t"
	python3 - "$T/$n.json" "$T/$n.sys.csv" "$T/$n.blk.csv" "$T/$n.proc.csv" <<'PY' ||
import csv, json, sys
doc = json.load(open(sys.argv[1]))
t0 = doc["otherData"]["t0_ns"]
iv = doc["otherData"]["counter_interval_ns"]
ev = doc["traceEvents"]
sysx = [e for e in ev if e["ph"] == "X" and e["cat"] == "syscall"]
blkx = [e for e in ev if e["ph"] == "X" and e["cat"] == "block"]
rows = list(csv.DictReader(open(sys.argv[2])))
blks = list(csv.DictReader(open(sys.argv[3])))
procs = list(csv.DictReader(open(sys.argv[4])))
def die(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)
if len(sysx) != len(rows):
    die("%d syscall events, dump has %d rows" % (len(sysx), len(rows)))
if len(blkx) != len(blks):
    die("%d block events, dump has %d rows" % (len(blkx), len(blks)))
def ns(us):	# "123.456" (a float in JSON) -> exact ns
    return round(us * 1000)
# a few rows field by field: the events of each thread keep the order of
# the rows (one merge, each table in file order)
key = lambda e: (ns(e["ts"]) + t0, e["pid"], e["tid"], e["name"])
evs = {}
for e in sysx:
    evs.setdefault(key(e), []).append(e)
step = max(1, len(rows) // 50)
for r in rows[::step]:
    k = (int(r["ts_ns"]), int(r["pid"]), int(r["tid"]), r["op"])
    if k not in evs:
        die("no event for row %s" % r)
    e = evs[k][0]
    if ns(e["dur"]) != int(r["dur_ns"]):
        die("dur %s != %s" % (e["dur"], r["dur_ns"]))
    a = e["args"]
    if a["ret"] != int(r["ret"]) or a.get("path", "") != r["path"]:
        die("args %s != row %s" % (a, r))
    if r["op"] in ("read", "pread64", "write", "pwrite64"):
        if a["offset"] != int(r["offset"]) or a["bytes"] != int(r["size"]):
            die("offset/bytes %s != row %s" % (a, r))
# names
pn = {(e["pid"]) for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
tn = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
for p in procs:
    if (int(p["pid"]), int(p["tid"])) not in tn:
        die("no thread_name for %s/%s" % (p["pid"], p["tid"]))
    if p["pid"] == p["tid"] and int(p["pid"]) not in pn:
        die("no process_name for %s" % p["pid"])
if blks and not any(e["ph"] == "M" and e["name"] == "process_name" and
                   e["args"]["name"].startswith("block device") for e in ev):
    die("no block device track name")
# counters: the read bandwidth integrates to the bytes read
reads = ("read", "pread64", "readv", "preadv", "preadv2", "uring_read")
want = sum(int(r["ret"]) for r in rows if r["op"] in reads and int(r["ret"]) > 0)
pts = [(ns(e["ts"]), e["args"]["bytes/s"]) for e in ev
       if e["ph"] == "C" and e["name"] == "syscall read"]
if not pts:
    die("no read counter")
if any(b[0] <= a[0] for a, b in zip(pts, pts[1:])) or pts[-1][1] != 0:
    die("read counter: not increasing in time, or not ending at 0")
got = sum(pts[i][1] * (pts[i + 1][0] - pts[i][0]) / 1e9 for i in range(len(pts) - 1))
if abs(got - want) > 1 + want * 1e-9:
    die("read counter integrates to %.1f bytes, the trace read %d" % (got, want))
if not any(e["ph"] == "C" and e["name"] == "page cache hit ratio" for e in ev):
    die("no hit ratio counter")
for e in ev:
    if e["ph"] == "C" and e["name"] == "page cache hit ratio" and \
       not 0 <= e["args"]["ratio"] <= 1:
        die("hit ratio %s" % e)
print("%d syscalls, %d block, %d bytes read, interval %d ns" % (len(sysx), len(blkx), want, iv))
PY
		fail "$n: perfetto export is wrong"
done

# --interval; 0 is automatic
ok "$IOTAPE" export -F perfetto --interval 250ms -o "$T/iv.json" "$TOP/traces/shards.iotape"
grep -q '"counter_interval_ns":250000000' "$T/iv.json" || fail "--interval 250ms not used"
err_line 2 "iotape export: " "--interval" "$IOTAPE" export -F perfetto --interval 10ns \
	"$TOP/traces/shards.iotape"

# a path that is not UTF-8 stays valid JSON
printf 'ts_ns,op,path,size,ret\n1,openat,"/d/\377x""y\\z",0,3\n2,read,"/d/\377x""y\\z",10,10\n' >"$T/u.csv"
ok "$IOTAPE" import -o "$T/u.tape" "$T/u.csv"
ok "$IOTAPE" export -F perfetto -o "$T/u.json" "$T/u.tape"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
p=[e["args"]["path"] for e in d["traceEvents"] if e["ph"]=="X"]
assert p==["/d/\ufffdx\"y\\z"]*2, p' "$T/u.json" || fail "non-UTF-8 path"

# bad input: one line, no file left behind
err_line 2 "iotape export: " "--format" "$IOTAPE" export "$T/u.tape"
err_line 2 "iotape export: " "xml" "$IOTAPE" export -F xml "$T/u.tape"
err_line 2 "iotape export: " "--bogus" "$IOTAPE" export -F perfetto --bogus "$T/u.tape"
err_line 2 "iotape export: " "--dir" "$IOTAPE" export -F perfetto -d "$T" "$T/u.tape"
err_line 2 "iotape export: " "-o DIR" "$IOTAPE" export -F fio-iolog "$T/u.tape"
err_line 1 "iotape export: " "$T/none.tape" "$IOTAPE" export -F perfetto -o "$T/none.json" \
	"$T/none.tape"
[ -e "$T/none.json" ] && fail "a failed export left its output"
head -c 20 "$T/u.tape" >"$T/cut.tape"
err_line 1 "iotape export: " "$T/cut.tape" "$IOTAPE" export -F perfetto -o "$T/cut.json" \
	"$T/cut.tape"
ls "$T" | grep -q '^cut.json' && fail "a truncated trace left output: $(ls "$T")"
err_line 1 "iotape export: " "exists" "$IOTAPE" export -F perfetto -o "$T/u.json" "$T/u.tape"
ok "$IOTAPE" export -F perfetto -f -o "$T/u.json" "$T/u.tape"

# a damaged block: one error line, exit 1, no file
awk 'BEGIN { print "ts_ns,op,path,size,ret"; print "1,openat,/d/x,0,3"
	for (i = 0; i < 100000; i++) printf "%d,read,/d/x,4096,4096\n", 10 + i * 7 }' >"$T/big.csv"
ok "$IOTAPE" import -o "$T/big.tape" "$T/big.csv"
size=$(wc -c <"$T/big.tape")
printf '\377\376\375\374' | dd of="$T/big.tape" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
err_line 1 "iotape export: " "damaged" "$IOTAPE" export -F perfetto -o "$T/big.json" "$T/big.tape"
ls "$T" | grep -q '^big.json' && fail "a damaged trace left output: $(ls "$T")"
exit 0
