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

# --columns: every column of the one syscall block, its bytes adding up to
# the block's payload less the column directory
ok "$IOTAPE" info --columns "$T/t.tape"
sed -n '/^columns/,/^meta/p' "$T/out" >"$T/cols"
grep -q '^  syscall$' "$T/cols" || fail "columns: no syscall table"
for c in ts_ns dur_ns pid tid op path fd offset size ret file_id flags path2; do
	grep -q "^    $c  " "$T/cols" || fail "columns: no column $c"
done
grep -q '^  block$' "$T/cols" && fail "columns: the empty block table is listed"
ok "$IOTAPE" info --columns --json "$T/t.tape"
/usr/bin/python3 - "$T/out" <<'PY' || fail "columns: json"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tables"]["syscall"]
c = t["columns"]
assert len(c) == 13, c.keys()
assert all(v["blocks"] == 1 for v in c.values())
# one block: chunk header 48, directory 4 + 8 per column, then the columns
assert sum(v["bytes"] for v in c.values()) == t["bytes"] - 48 - 4 - 8 * 13, t
assert all(v["encodings"] and sum(v["encodings"].values()) == 1 for v in c.values())
assert c["ts_ns"]["bytes_per_event"] == c["ts_ns"]["bytes"] / 8
assert d["tables"]["block"]["columns"] == {}
PY
ok "$IOTAPE" info --json "$T/t.tape"
grep -q '"columns"' "$T/out" && fail "json: columns without --columns"
# a damaged block: one error line, exit 1
cp "$T/t.tape" "$T/bad.tape"
# the middle of the payload of the first BLOCK chunk (type 2)
off=$(/usr/bin/python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(); o = 32
while d[o:o + 4] == b"ITCK":
    stored = struct.unpack_from("<I", d, o + 12)[0]
    if d[o + 4] == 2:
        print(o + 48 + stored // 2); break
    o += 48 + stored' "$T/bad.tape")
[ -n "$off" ] || fail "no block chunk in $T/bad.tape"
printf '\377\377\377\377' | dd of="$T/bad.tape" bs=1 seek="$off" conv=notrunc 2>/dev/null
err_line 1 "iotape info: " "bad.tape" "$IOTAPE" info --columns "$T/bad.tape"

# a trace whose name is not UTF-8: "file" is there, the byte as U+FFFD
# (jansson's json_string refused it, and the key was left out)
cp "$T/t.tape" "$T/$(printf 'x\377.tape')"
ok "$IOTAPE" info --json "$T/$(printf 'x\377.tape')"
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
sys.exit(d.get("file") != sys.argv[2] + "/x\ufffd.tape")' "$T/out" "$T" ||
	fail "json: file of a name that is not UTF-8: $(grep file "$T/out")"
exit 0
