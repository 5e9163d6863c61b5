#!/bin/sh
# Copies (sendfile, copy_file_range, splice) are a read of ret bytes at
# (file_id, offset) and a write of them at (file_id2, offset2): analyze
# counts both sides everywhere it counts reads and writes, and replay
# reproduces both.  A side that was not recorded (fd2 -1, file_id2 0: traces
# before the output columns) is left out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"

# in.bin is copied to out.bin: sendfile 64 KiB at 0 -> 0, copy_file_range
# 32 KiB at 64 KiB -> 64 KiB (fd2's position, import's default), then a
# splice of 4 KiB whose output side is unknown
cat >"$T/c.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,fd2
1000,10,10,openat,/c/in.bin,-100,0,0,3,100,0x0,-1
2000,10,10,openat,/c/out.bin,-100,0,0,4,100,0x241,-1
3000,10,10,sendfile,/c/in.bin,3,0,65536,65536,1000,0x0,4
4000,10,10,copy_file_range,/c/in.bin,3,65536,32768,32768,1000,0x0,4
5000,10,10,splice,/c/in.bin,3,98304,4096,4096,1000,0x0,-1
6000,10,10,close,/c/in.bin,3,0,0,0,100,0x0,-1
7000,10,10,close,/c/out.bin,4,0,0,0,100,0x0,-1
EOT
ok "$IOTAPE" import -o "$T/c.tape" "$T/c.csv"
ok "$IOTAPE" dump "$T/c.tape"
grep -q ' copy_file_range /c/in.bin fd=3 off=65536 size=32768 ret=32768 dur=1.0us file_id=1 -> /c/out.bin fd2=4 file_id2=2 off2=65536$' "$T/out" ||
	fail "import: copy_file_range row: $(grep copy_file_range "$T/out")"

# analyze: totals, files, request sizes, the read pattern of the input
ok "$IOTAPE" analyze --json "$T/c.tape"
cp "$T/out" "$T/a.json"
s="d['summary']"
[ "$(jq_py "$T/a.json" "($s['read_ops'], $s['read_bytes'], $s['write_ops'], $s['write_bytes'])")" = \
	"(3, 102400, 2, 98304)" ] || fail "analyze totals: $(jq_py "$T/a.json" "$s")"
[ "$(jq_py "$T/a.json" "($s['files_read'], $s['files_written'])")" = "(1, 1)" ] ||
	fail "analyze: files read/written"
[ "$(jq_py "$T/a.json" "sorted((f['path'], f['read_ops'], f['read_bytes'], f['write_ops'], f['write_bytes']) for f in d['files'])")" = \
	"[('/c/in.bin', 3, 102400, 0, 0), ('/c/out.bin', 0, 0, 2, 98304)]" ] ||
	fail "analyze files: $(jq_py "$T/a.json" "d['files']")"
[ "$(jq_py "$T/a.json" "[(h['min'], h['reads'], h['writes']) for h in d['pattern']['request_size_histogram']]")" = \
	"[(4096, 1, 0), (32768, 1, 1), (65536, 1, 1)]" ] ||
	fail "analyze request sizes: $(jq_py "$T/a.json" "d['pattern']['request_size_histogram']")"
[ "$(jq_py "$T/a.json" "(d['pattern']['sequential_read_fraction'], d['pattern']['consecutive_reads'])")" = \
	"(1.0, 2)" ] || fail "analyze: the copies' reads are one sequential stream"

# replay: two reads and a write per copy side, the output created and
# written to its size
need_uring
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$T/d" "$T/c.tape"
r="d['replay']"
[ "$(jq_py "$T/r.json" "($r['ops_done']['read'], $r['ops_done']['write'], $r['ops_expected']['read'], $r['ops_expected']['write'], $r['ops_failed'])")" = \
	"(3, 2, 3, 2, 0)" ] || fail "replay ops: $(jq_py "$T/r.json" "$r['ops_done']")"
[ "$(jq_py "$T/r.json" "sorted((f['path'], f['replayed_bytes'], f['recorded_bytes']) for f in $r['files'])")" = \
	"[('c/in.bin', 102400, 102400), ('c/out.bin', 98304, 98304)]" ] ||
	fail "replay bytes: $(jq_py "$T/r.json" "$r['files']")"
[ "$(stat -c %s "$T/d/c/in.bin")" = 102400 ] || fail "in.bin not prepared to its read extent"
[ "$(stat -c %s "$T/d/c/out.bin")" = 98304 ] || fail "out.bin not written by the copies"
exit 0
