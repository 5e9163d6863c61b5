#!/bin/sh
# info: exact event counts, text and JSON, for an imported trace.
. "$(dirname "$0")/lib.sh"

{
	echo 'ts_ns,op,path,size'
	echo '1000000,openat,/data/a,0'
	i=1
	while [ $i -le 6 ]; do
		echo "$((1000000 + i * 1000)),read,/data/a,4096"
		i=$((i + 1))
	done
	echo '2500000,close,/data/a,0'
} >"$T/in.csv"
ok "$IOTAPE" import -o "$T/t.tape" "$T/in.csv"
size=$(wc -c <"$T/t.tape")

# text
ok "$IOTAPE" info "$T/t.tape"
grep -q "^format  *1\.1$" "$T/out" || fail "text: format"
grep -q '^events  *8$' "$T/out" || fail "text: events"
grep -q "^file size .*($size bytes)" "$T/out" || fail "text: file size"
grep -q '^lost events  *0$' "$T/out" || fail "text: lost"
grep -q '^duration  *1\.5ms' "$T/out" || fail "text: duration"
grep -q '^index  *from the footer' "$T/out" || fail "text: index"
grep -q '^syscall  *8  *1 ' "$T/out" || fail "text: syscall row"
grep -q '^block  *0  *0 ' "$T/out" || fail "text: block row"
grep -q '^  source  *import:csv$' "$T/out" || fail "text: meta source"
grep -q '^  clock  *unknown$' "$T/out" || fail "text: meta clock"

# json: top-level keys are indented by two spaces, table keys by six
ok "$IOTAPE" info --json "$T/t.tape"
j=$T/out
for k in file format_version file_bytes events lost_events lost \
	bytes_per_event t_min_ns t_max_ns duration_ns recovered \
	trailing_bytes unknown_blocks tables meta; do
	grep -q "^  \"$k\": " "$j" || fail "json: no key $k"
done
grep -qx '  "format_version": "1.1",' "$j" || fail "json: format_version"
grep -qx '  "events": 8,' "$j" || fail "json: events"
grep -qx "  \"file_bytes\": $size," "$j" || fail "json: file_bytes"
grep -qx '  "lost_events": 0,' "$j" || fail "json: lost_events"
grep -qx '  "duration_ns": 1500000,' "$j" || fail "json: duration_ns"
grep -qx '  "t_min_ns": 1000000,' "$j" || fail "json: t_min_ns"
grep -qx '  "recovered": null,' "$j" || fail "json: recovered"
bpe=$(sed -n 's/^  "bytes_per_event": \(.*\),$/\1/p' "$j")
awk -v b="$bpe" -v s="$size" 'BEGIN { d = b - s / 8; exit !(d < 0.001 && d > -0.001) }' ||
	fail "json: bytes_per_event $bpe, want $size/8"
# "syscall": { "events": 8, "blocks": 1, ... }, the others empty
sed -n '/^    "syscall": {/,/^    }/p' "$j" >"$T/sys"
grep -qx '      "events": 8,' "$T/sys" || fail "json: tables.syscall.events"
grep -qx '      "blocks": 1,' "$T/sys" || fail "json: tables.syscall.blocks"
grep -qx '      "t_max_ns": 2500000,' "$T/sys" || fail "json: tables.syscall.t_max_ns"
for t in block cache process file sample; do
	sed -n "/^    \"$t\": {/,/^    }/p" "$j" | grep -qx '      "events": 0,' ||
		fail "json: tables.$t.events"
done
sed -n '/^  "meta": {/,/^  }/p' "$j" | grep -qx '    "source": "import:csv",' ||
	fail "json: meta.source"

# lost-event counters: meta keys lost.<table>, summed in lost_events
ok "$IOTAPE" import -m lost.syscall=12 -m lost.block=3 -m lost.block=5 \
	-m start_wall_ns=1700000000123456789 -m hostname=gpu-node-1 \
	-o "$T/lost.tape" "$T/in.csv"
ok "$IOTAPE" info --json "$T/lost.tape"
grep -qx '  "lost_events": 17,' "$j" || fail "json: lost_events with counters"
sed -n '/^  "lost": {/,/^  }/p' "$j" >"$T/lost"
grep -qx '    "syscall": 12,' "$T/lost" || fail "json: lost.syscall"
grep -q '^    "block": 5$' "$T/lost" || fail "json: lost.block (later value wins)"
sed -n '/^    "syscall": {/,/^    }/p' "$j" | grep -qx '      "lost": 12' ||
	fail "json: tables.syscall.lost"
sed -n '/^  "meta": {/,/^  }/p' "$j" | grep -q '^    "lost.syscall": "12",' ||
	fail "json: meta lost.syscall"
ok "$IOTAPE" info "$T/lost.tape"
grep -q '^lost events  *17$' "$T/out" || fail "text: lost events"
grep -q '^syscall  *8  *1 .* 12$' "$T/out" || fail "text: syscall lost column"
grep -q '^started  *2023-11-14 22:13:20.123 UTC$' "$T/out" || fail "text: started"
grep -q '^  hostname  *gpu-node-1$' "$T/out" || fail "text: hostname"
err_line 2 "iotape import: " "KEY=VALUE" "$IOTAPE" import -m nokey -o "$T/x.tape" "$T/in.csv"
exit 0
