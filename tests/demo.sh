#!/bin/sh
# tests/demo.sh - what `make demo` runs: the trace format end to end.
#
# Until the recorder lands (record/analyze/replay are later issues) the demo
# builds a small ML-like trace with `iotape import` — two DataLoader workers
# reading shuffled image files, then a checkpoint written and fsync'ed — and
# shows it with `iotape info` and `iotape dump`.  Everything happens in a
# temporary directory that is removed at the end.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
iotape="$top/iotape"
tmp=$(mktemp -d /tmp/iotape-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== 1. an ML-like I/O trace as CSV (2 workers, 16 shuffled images, 1 checkpoint)"
awk 'BEGIN {
	srand(42); print "ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns";
	n = 16; for (i = 0; i < n; i++) p[i] = i;
	for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
	ts = 1000000000;
	for (k = 0; k < n; k++) {
		pid = 101 + k % 2; f = sprintf("/data/train/img%03d.jpg", p[k]);
		sz = 60000 + int(rand() * 40000);
		printf "%d,%d,%d,openat,%s,-100,0,0,3,%d\n", ts, pid, pid, f, 9000; ts += 12000;
		printf "%d,%d,%d,read,%s,3,0,%d,%d,%d\n", ts, pid, pid, f, sz, sz, 40000 + int(rand() * 30000); ts += 90000;
		printf "%d,%d,%d,close,%s,3,0,0,0,2000\n", ts, pid, pid, f; ts += 800000;
	}
	for (c = 0; c < 4; c++) {
		printf "%d,100,100,pwrite64,/ckpt/model.pt,5,%d,4194304,4194304,2100000\n", ts, c * 4194304; ts += 2200000;
	}
	printf "%d,100,100,fsync,/ckpt/model.pt,5,0,0,0,31000000\n", ts;
}' > "$tmp/demo.csv"
head -n 4 "$tmp/demo.csv"
echo "   ... $(($(wc -l < "$tmp/demo.csv") - 1)) events"

echo
echo "== 2. iotape import --format csv demo.csv -o demo.iotape"
"$iotape" import --format csv "$tmp/demo.csv" -o "$tmp/demo.iotape"

echo
echo "== 3. iotape info demo.iotape"
"$iotape" info "$tmp/demo.iotape"

echo
echo "== 4. iotape dump demo.iotape (first 8 events)"
"$iotape" dump "$tmp/demo.iotape" | head -n 8

echo
echo "== 5. dump | import | dump is byte-identical"
"$iotape" dump --format csv "$tmp/demo.iotape" > "$tmp/a.csv"
"$iotape" import --format csv "$tmp/a.csv" -o "$tmp/b.iotape"
"$iotape" dump --format csv "$tmp/b.iotape" > "$tmp/b.csv"
cmp "$tmp/a.csv" "$tmp/b.csv" && echo "   identical ($(wc -c < "$tmp/a.csv") bytes of CSV, $(wc -c < "$tmp/demo.iotape") bytes of trace)"

echo
echo "record, analyze and replay arrive with the next issues (see README)."
