#!/bin/sh
# A trace cut short (the recorder crashed) still reads: info says the index
# was rebuilt, dump prints the complete blocks, a prefix of the full dump,
# and warns once.  A damaged block mid-file: dump prints the events before
# it, then one error line, and exits 1.
. "$(dirname "$0")/lib.sh"

# 100001 events: several blocks of the default 32768 rows
awk 'BEGIN { print "ts_ns,op,path,size"; print "1,openat,/d/x,0"
	for (i = 0; i < 100000; i++) printf "%d,read,/d/x,4096\n", 10 + i * 7 }' >"$T/in.csv"
ok "$IOTAPE" import -o "$T/full.tape" "$T/in.csv"
ok "$IOTAPE" dump -F csv -o "$T/full.csv" "$T/full.tape"
[ "$(wc -l <"$T/full.csv")" -eq 100002 ] || fail "full dump: $(wc -l <"$T/full.csv") lines"
size=$(wc -c <"$T/full.tape")

# cut at 2/3: the footer and the last block(s) are gone
head -c $((size * 2 / 3)) "$T/full.tape" >"$T/cut.tape"
ok "$IOTAPE" info "$T/cut.tape"
grep -q '^index  *rebuilt by scanning' "$T/out" || fail "info: no rebuilt index: $(cat "$T/out")"
grep -q '^trailing  *[1-9][0-9]* bytes ignored' "$T/out" || fail "info: trailing bytes"
ok "$IOTAPE" info --json "$T/cut.tape"
grep -q '^  "recovered": "' "$T/out" || fail "info --json: recovered is not a reason"

"$IOTAPE" dump -F csv -o "$T/cut.csv" "$T/cut.tape" 2>"$T/err" || fail "dump of a cut trace failed"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "dump: want one warning line: $(cat "$T/err")"
grep -q '^iotape dump: warning: .*index rebuilt' "$T/err" || fail "dump warning: $(cat "$T/err")"
n=$(wc -l <"$T/cut.csv")
if [ "$n" -le 1 ] || [ "$n" -ge 100002 ]; then fail "dump of cut trace: $n lines"; fi
head -n "$n" "$T/full.csv" | cmp -s - "$T/cut.csv" || fail "dump of cut trace is not a prefix"

# damage bytes in the middle of the file: the block there fails its checksum
cp "$T/full.tape" "$T/bad.tape"
printf '\377\376\375\374' | dd of="$T/bad.tape" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
err_line 1 "iotape dump: $T/bad.tape" "damaged" "$IOTAPE" dump -F csv -o "$T/bad.csv" "$T/bad.tape"
n=$(wc -l <"$T/bad.csv")
if [ "$n" -le 1 ] || [ "$n" -ge 100002 ]; then fail "dump of damaged trace: $n lines"; fi
head -n "$n" "$T/full.csv" | cmp -s - "$T/bad.csv" || fail "dump of damaged trace is not a prefix"
err_line 1 "iotape dump: " "damaged" "$IOTAPE" dump "$T/bad.tape"
exit 0
