#!/bin/sh
# A trace built with iotape import is replayed: the replay's own counters
# give exactly the recorded number of ops per kind and bytes per file;
# prepare creates each read file with its size and incompressible data,
# skips right-sized files the second time, and --sparse makes holes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# 3 threads in 2 processes: a reader per process over its own files, a
# checkpoint writer; one more read file appears only in the file table.
awk -v hdr="$HDR" 'BEGIN { print hdr
	for (t = 0; t < 2; t++) {
		tid = 100 + t; pid = 10 + t
		printf "%d,%d,%d,openat,/data/train/s%d.bin,-1,0,0,3,500,0,\n", 1000 + t, pid, tid, t
		for (i = 0; i < 200; i++)
			printf "%d,%d,%d,pread64,/data/train/s%d.bin,3,%d,%d,%d,900,0,\n", 2000 + i * 1000 + t, pid, tid, t, i * 8192, 4096 * (1 + t), 4096 * (1 + t)
		printf "%d,%d,%d,read,/data/train/s%d.bin,3,%d,65536,1000,900,0,\n", 300000 + t, pid, tid, t, 200 * 8192
		printf "%d,%d,%d,close,/data/train/s%d.bin,3,0,0,0,100,0,\n", 400000 + t, pid, tid, t
	}
	printf "500000,10,102,mkdir,/ckpt,-1,0,0,0,100,0,\n"
	printf "500100,10,102,openat,/ckpt/tmp.pt,-1,0,0,5,100,0x241,\n"
	for (i = 0; i < 16; i++)
		printf "%d,10,102,write,/ckpt/tmp.pt,5,%d,131072,131072,900,0,\n", 501000 + i * 1000, i * 131072
	printf "600000,10,102,fsync,/ckpt/tmp.pt,5,0,0,0,100,0,\n"
	printf "600100,10,102,fdatasync,/ckpt/tmp.pt,5,0,0,0,100,0,\n"
	printf "600200,10,102,close,/ckpt/tmp.pt,5,0,0,0,100,0,\n"
	printf "600300,10,102,rename,/ckpt/tmp.pt,-1,0,0,0,100,0,/ckpt/epoch1.pt\n"
	printf "600400,10,102,unlink,/data/old.bin,-1,0,0,0,100,0,\n"
	printf "600500,10,102,stat,/data/train/s0.bin,-1,0,0,0,100,0,\n"
	printf "600600,10,102,fadvise64,/data/train/s0.bin,-1,0,0,0,100,0,\n"
}' | sed 's/,stat,/,newstat,/' >"$T/job.csv"
ok "$IOTAPE" import -o "$T/job.tape" "$T/job.csv"
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$T/d" "$T/job.tape"

# ops per kind: what the CSV says
for k in open:2+1 close:3 read:402 write:16 fsync:1 fdatasync:1 rename:1 unlink:1 mkdir:1 stat:1; do
	kind=${k%%:*}; want=$(( ${k#*:} ))
	got=$(jq_py "$T/r.json" "d['replay']['ops_done']['$kind']")
	exp=$(jq_py "$T/r.json" "d['replay']['ops_expected']['$kind']")
	[ "$got" = "$want" ] || fail "$kind: replayed $got, recorded $want"
	[ "$exp" = "$want" ] || fail "$kind: expected $exp, recorded $want"
done
[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] || fail "some ops failed: $(cat "$T/r.json")"
[ "$(jq_py "$T/r.json" "d['replay']['recorded_skipped']")" = 1 ] || fail "fadvise64 not counted as skipped"

# bytes per file: sum of the CSV's ret per path (reads and writes)
awk -F, 'NR > 1 && ($4 == "pread64" || $4 == "read" || $4 == "write") { b[substr($5, 2)] += $9 }
	END { for (p in b) print p, b[p] }' "$T/job.csv" | sort >"$T/want.bytes"
jq_py "$T/r.json" "'\n'.join('%s %d' % (f['path'], f['replayed_bytes']) for f in d['replay']['files'] if f['replayed_bytes'])" |
	sort >"$T/got.bytes"
same "$T/want.bytes" "$T/got.bytes"
jq_py "$T/r.json" "'\n'.join('%s %d' % (f['path'], f['recorded_bytes']) for f in d['replay']['files'] if f['recorded_bytes'])" |
	sort >"$T/rec.bytes"
same "$T/want.bytes" "$T/rec.bytes"

# fio-shaped totals per job
[ "$(jq_py "$T/r.json" "len(d['jobs'])")" = 3 ] || fail "want 3 jobs"
[ "$(jq_py "$T/r.json" "sum(j['read']['total_ios'] for j in d['jobs'])")" = 402 ] || fail "read total_ios"
[ "$(jq_py "$T/r.json" "sum(j['sync']['total_ios'] for j in d['jobs'])")" = 2 ] || fail "sync total_ios"
[ "$(jq_py "$T/r.json" "d['jobs'][0]['read']['clat_ns']['percentile']['99.000000'] > 0")" = True ] ||
	fail "no clat percentiles"
# fio's CPU and latency-bin keys: the bins of each job add up to 100%
[ "$(jq_py "$T/r.json" "all(abs(sum(sum(j[k].values()) for k in ('latency_ns', 'latency_us', 'latency_ms')) - 100) < 1e-6 for j in d['jobs'])")" = True ] ||
	fail "latency bins do not add up to 100%"
[ "$(jq_py "$T/r.json" "all(j['ctx'] >= 0 and j['usr_cpu'] + j['sys_cpu'] > 0 and 'majf' in j and 'minf' in j for j in d['jobs'])")" = True ] ||
	fail "usr_cpu/sys_cpu/ctx/majf/minf missing or zero"

# the dataset: sizes are the read extents, data does not compress
[ "$(stat -c %s "$T/d/data/train/s0.bin")" = $((200 * 8192 + 1000)) ] || fail "s0.bin size"
[ "$(stat -c %s "$T/d/data/train/s1.bin")" = $((200 * 8192 + 1000)) ] || fail "s1.bin size"
[ -f "$T/d/ckpt/epoch1.pt" ] && [ ! -e "$T/d/ckpt/tmp.pt" ] || fail "rename not replayed"
[ "$(stat -c %s "$T/d/ckpt/epoch1.pt")" = $((16 * 131072)) ] || fail "checkpoint size"
[ ! -e "$T/d/data/old.bin" ] || fail "unlink not replayed"
z=$(gzip -c "$T/d/data/train/s0.bin" | wc -c)
[ "$z" -ge $((200 * 8192)) ] || fail "prepared data compresses to $z bytes"

# again: right-sized files are kept (same mtime), the marker lets DIR be reused
m1=$(stat -c %Y.%y "$T/d/data/train/s0.bin")
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/job.tape"
[ "$(stat -c %Y.%y "$T/d/data/train/s0.bin")" = "$m1" ] || fail "right-sized file rewritten"

# --sparse: holes
ok "$IOTAPE" replay --sparse --prepare-only -d "$T/s" "$T/job.tape"
[ "$(stat -c %b "$T/s/data/train/s0.bin")" -lt 64 ] || fail "--sparse file has blocks"
[ ! -e "$T/s/ckpt" ] || fail "--prepare-only replayed ops"

# --no-prepare on an empty DIR: opens fail, every op that could not run is
# counted as failed with the first error, and the exit status says so
err_line 1 "iotape replay: " "ops failed in the replay (the first: open data/train/s" \
	"$IOTAPE" replay --no-prepare --timing afap --output-format json -o "$T/n.json" -d "$T/n" "$T/job.tape"
[ "$(jq_py "$T/n.json" "d['replay']['ops_done']['read']")" = 0 ] || fail "--no-prepare read a missing file"
[ "$(jq_py "$T/n.json" "d['replay']['failed']['read']['count']")" = \
  "$(jq_py "$T/n.json" "d['replay']['ops_expected']['read']")" ] || fail "--no-prepare: reads not counted failed"
[ "$(jq_py "$T/n.json" "d['replay']['failed']['open']['first_errno']")" = 2 ] || fail "--no-prepare: open errno"
[ "$(jq_py "$T/n.json" "d['replay']['ops_failed']")" -gt 0 ] || fail "--no-prepare: ops_failed 0"
ok "$IOTAPE" replay --no-prepare --ignore-errors --timing afap -o "$T/n.txt" -d "$T/n" "$T/job.tape"
grep -q "^  failed in the replay: [1-9][0-9]* ops: open [1-9]" "$T/n.txt" || fail "--no-prepare: text: $(grep failed "$T/n.txt")"
grep -q "failed in the replay: none" "$T/n.txt" && fail "text says none failed"

# --direct: the two 1000-byte reads are the only ops to align
rm -rf "$T/d"
ok "$IOTAPE" replay --direct --timing afap --output-format json -o "$T/dio.json" -d "$T/d" "$T/job.tape"
[ "$(jq_py "$T/dio.json" "d['replay']['direct_adjusted']")" = 2 ] || fail "--direct: adjusted $(jq_py "$T/dio.json" "d['replay']['direct_adjusted']")"
[ "$(jq_py "$T/dio.json" "d['replay']['ops_done']['read']")" = 402 ] || fail "--direct: reads"
[ "$(jq_py "$T/dio.json" "d['replay']['ops_failed']")" = 0 ] || fail "--direct: failed ops"
[ $(($(stat -c %s "$T/d/data/train/s0.bin") % 4096)) = 0 ] || fail "--direct: size not aligned"

# --loops 2 doubles everything; text report lists ops done/expected
ok "$IOTAPE" replay --loops 2 --timing afap -d "$T/d" "$T/job.tape"
grep -q ' read 804/804 ' "$T/out" || fail "--loops 2: $(grep ops: "$T/out")"
exit 0
