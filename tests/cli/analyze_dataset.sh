#!/bin/sh
# analyze_dataset.sh - `iotape analyze` tells the data set from the code
# (iotape-analyze(1), DATA SET) and counts its epochs and its checkpoints
# whatever their size, on traces made from CSV (tests/helpers/mktape: a
# file table with the sizes, and the syscalls):
#   shards      1,000 Python imports, then 8 tar shards read whole twice by
#               2 workers: a data set of 8 files, 2 epochs, its file order
#               that of the shards (name order: 0), not the imports'
#   onefile     200 imports, then one 64 MiB file read twice through one
#               open at shuffled offsets: 2 epochs (its bytes covered twice)
#   ckpt        a 124 KiB torch.save per epoch (3), one with fsync and
#               rename, beside a log appended to: 3 checkpoints of 126976 B
. "$(dirname "$0")/lib.sh"
[ -x "$TESTBIN/mktape" ] || skip "no $TESTBIN/mktape (run make tests)"

jq_py() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
# expect JSON EXPR VALUE: EXPR (Python over d) prints VALUE
expect() {
	v=$(jq_py "$1" "$2") || fail "$1: cannot evaluate $2"
	[ "$v" = "$3" ] || fail "$(basename "$1"): $2 is $v, want $3"
}

FH='ts_ns,file_id,path,dev,inode,size,mode'
SH='ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id'

# imports N: N modules read once, in a scrambled order (file ids 1000+)
imports() {
	awk -v n="$1" -v what="$2" 'BEGIN {
		for (k = 0; k < n; k++) {
			i = (k * 337) % n; id = 1000 + i
			p = sprintf("/usr/lib/python3.11/m%04d.py", i)
			if (what == "file") { printf "1,%d,%s,1,%d,4096,33188\n", id, p, id; continue }
			t = 1000 + k * 3000
			printf "%d,100,100,openat,%s,-100,0,0,3,1000,%d\n", t, p, id
			printf "%d,100,100,read,%s,3,0,4096,4096,1000,%d\n", t + 1000, p, id
			printf "%d,100,100,close,%s,3,0,0,0,1000,%d\n", t + 2000, p, id
		}
	}'
}

# ---------------------------------------------------------------- shards
S=2359808	# 2.25 MiB + 512: a tar shard
{ echo "$FH"; imports 1000 file
  i=0; while [ $i -lt 8 ]; do
	echo "1,$((i + 1)),/data/shards/shard_00$i.tar,1,$((i + 1)),$S,33188"; i=$((i + 1))
  done; } >"$T/shards.file.csv"
{ echo "$SH"; imports 1000 sys
  awk -v S=$S 'BEGIN {
	t = 1000000000
	for (ep = 0; ep < 2; ep++)
		for (i = 0; i < 8; i++) {	# worker i % 2, the shards in name order
			pid = 200 + 2 * ep + i % 2; id = i + 1
			p = sprintf("/data/shards/shard_00%d.tar", i)
			printf "%.0f,%d,%d,openat,%s,-100,0,0,7,1000,%d\n", t += 1000, pid, pid, p, id
			for (off = 0; off <= S; off += 1048576) {
				n = S - off < 1048576 ? S - off : 1048576
				printf "%.0f,%d,%d,read,%s,7,%d,1048576,%d,1000,%d\n", t += 1000000, pid, pid, p, off, n, id
			}
			printf "%.0f,%d,%d,close,%s,7,0,0,0,1000,%d\n", t += 1000, pid, pid, p, id
		}
  }'; } >"$T/shards.sys.csv"
"$TESTBIN/mktape" "$T/shards.tape" file="$T/shards.file.csv" syscall="$T/shards.sys.csv" ||
	fail "mktape shards failed"
ok "$IOTAPE" analyze --json "$T/shards.tape"
mv "$T/out" "$T/shards.json"
expect "$T/shards.json" "d['epochs']['count']" 2
expect "$T/shards.json" "[e['files'] for e in d['epochs']['epochs']]" "[8, 8]"
expect "$T/shards.json" "[e['bytes'] for e in d['epochs']['epochs']]" "[$((8 * S)), $((8 * S))]"
expect "$T/shards.json" "d['dataset']['files']" 8
expect "$T/shards.json" "d['dataset']['rule']" read_again
expect "$T/shards.json" "d['dataset']['directory']" /data/shards
expect "$T/shards.json" "d['pattern']['file_order_randomness']" 0.0
expect "$T/shards.json" "d['dataset']['pattern']['read_randomness']" 0.0
expect "$T/shards.json" "sum(f['dataset'] for f in d['files'] if f['path'].endswith('.py'))" 0
ok "$IOTAPE" analyze "$T/shards.tape"
grep -q '^  2 epochs; ' "$T/out" || fail "shards text: $(grep -A1 '^EPOCHS' "$T/out")"
grep -q '^  files  *8 (8 read again), ' "$T/out" || fail "shards text: $(grep -A4 '^DATA SET' "$T/out")"

# --------------------------------------------------------------- onefile
{ echo "$FH"; imports 200 file; echo "1,1,/data/big.bin,1,1,67108864,33188"; } >"$T/one.file.csv"
{ echo "$SH"; imports 200 sys
  awk 'BEGIN {
	t = 1000000000; p = "/data/big.bin"
	printf "%.0f,100,100,openat,%s,-100,0,0,4,1000,1\n", t, p
	for (ep = 0; ep < 2; ep++)
		for (k = 0; k < 1024; k++) {	# a new shuffle each epoch
			r = (k * 389 + ep * 517) % 1024
			printf "%.0f,100,100,pread64,%s,4,%.0f,65536,65536,50000,1\n", t += 100000, p, r * 65536
		}
  }'; } >"$T/one.sys.csv"
"$TESTBIN/mktape" "$T/one.tape" file="$T/one.file.csv" syscall="$T/one.sys.csv" ||
	fail "mktape onefile failed"
ok "$IOTAPE" analyze --json "$T/one.tape"
mv "$T/out" "$T/one.json"
expect "$T/one.json" "d['epochs']['count']" 2
expect "$T/one.json" "[e['bytes'] for e in d['epochs']['epochs']]" "[67108864, 67108864]"
expect "$T/one.json" "d['dataset']['files']" 1
expect "$T/one.json" "d['dataset']['directory']" /data

# ------------------------------------------------------------------ ckpt
# torch.save of 124 KiB (126976 B in 7 writes) per epoch into ckpt/, the
# last one into a .tmp file fsynced and renamed; a log appended every
# 100 ms and never closed
{ echo "$SH"
  echo "0,100,101,openat,/job/train.log,-100,0,0,5,1000,50"
  awk 'BEGIN {
	for (i = 0; i < 300; i++)
		printf "%.0f,100,101,write,/job/train.log,5,%d,100,100,1000,50\n", 1000 + i * 100000000, i * 100
	split("1666 1854 18688 98304 5760 606 98", part, " ")
	for (c = 0; c < 3; c++) {
		t = (c + 1) * 9000000000; id = 10 + c
		p = sprintf("/job/ckpt/epoch_%d.pt%s", c, c == 2 ? ".tmp" : "")
		printf "%.0f,100,100,openat,%s,-100,0,0,9,1000,%d\n", t, p, id
		off = 0
		for (k = 1; k <= 7; k++) {
			printf "%.0f,100,100,%s,%s,9,%d,%d,%d,10000,%d\n", t += 20000, k % 2 ? "writev" : "write", p, off, part[k], part[k], id
			off += part[k]
		}
		if (c == 2)
			printf "%.0f,100,100,fsync,%s,9,0,0,0,1000000,%d\n", t += 20000, p, id
		printf "%.0f,100,100,close,%s,9,0,0,0,1000,%d\n", t += 2000000, p, id
		if (c == 2)
			printf "%.0f,100,100,rename,%s,-100,0,0,0,1000,0\n", t += 1000, p
	}
  }'; } >"$T/ckpt.sys.csv"
"$TESTBIN/mktape" "$T/ckpt.tape" syscall="$T/ckpt.sys.csv" || fail "mktape ckpt failed"
ok "$IOTAPE" analyze --json "$T/ckpt.tape"
mv "$T/out" "$T/ckpt.json"
expect "$T/ckpt.json" "d['checkpoints']['count']" 3
expect "$T/ckpt.json" "[c['bytes'] for c in d['checkpoints']['checkpoints']]" "[126976, 126976, 126976]"
expect "$T/ckpt.json" "[c['fsyncs'] for c in d['checkpoints']['checkpoints']]" "[0, 0, 1]"
expect "$T/ckpt.json" "[c['whole_files'] for c in d['checkpoints']['checkpoints']]" "[True, True, True]"
ok "$IOTAPE" analyze "$T/ckpt.tape"
grep -q '^  3 checkpoints ' "$T/out" || fail "ckpt text: $(grep -A1 '^CHECKPOINTS' "$T/out")"
exit 0
