#!/bin/sh
# iotape import -F fio-iolog: a hand-written log (version 2 then version 3
# in one file: two jobs; wait, trim, sync, a close of a file not open, an
# I/O on a file not open) imports to exactly import_fio/hand.csv; logs
# written by real fio (--write_iolog, version 3) import to the bytes per
# file fio reports (io_bytes); `iotape export -F fio-iolog` of the bundled
# traces imports back to the same bytes per file as the logs move.  Bad
# input: one "FILE:LINE: what" line, exit 1, nothing left behind.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/cli/import_fio

ok "$IOTAPE" import -F fio-iolog -o "$T/hand.tape" "$D/hand.iolog"
ok "$IOTAPE" dump --format csv -o "$T/hand.csv" "$T/hand.tape"
same "$D/hand.csv" "$T/hand.csv"
ok "$IOTAPE" info "$T/hand.tape"
grep -q "not_recorded.*durations, block, cache, process" "$T/out" ||
	fail "info lacks not_recorded: $(cat "$T/out")"

bad() {	# LINE-NUMBER PATTERN, the input on stdin
	cat >"$T/bad.iolog" || fail "writing $T/bad.iolog"
	import_bad fio-iolog "$T/bad.iolog" "$1" "$2"
}
bad 1 "not a fio iolog" <<'EOT'
/d/a read 0 4096
EOT
bad 3 "unknown action 'scribble'" <<'EOT'
fio version 2 iolog
/d/a open
/d/a scribble 0 1
EOT
bad 2 "'x12' is not a number" <<'EOT'
fio version 3 iolog
x12 /d/a open
EOT
bad 2 "read needs OFFSET LENGTH" <<'EOT'
fio version 3 iolog
1 /d/a read
EOT
bad 2 "length 99999999999999999999 is out of range" <<'EOT'
fio version 2 iolog
/d/a write 0 99999999999999999999
EOT

command -v fio >/dev/null || skip "no fio"
command -v python3 >/dev/null || skip "no python3"

# per-file bytes from analyze --json: "path read_bytes write_bytes"
files() {
	sorted "$2" python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    print(f["path"], f["read_bytes"], f["write_bytes"])
' "$1"
}
# logbytes OUT LOG...: bytes per file of the logs' read and write lines,
# the same way
logbytes() {
	out=$1
	shift
	sorted "$out" awk '/^fio version/ { v = $3; next }
	     { o = (v == 3) ? 1 : 0; a = $(2 + o); f = $(1 + o); n = $(4 + o) }
	     a == "read" { r[f] += n; s[f] = 1 } a == "write" { w[f] += n; s[f] = 1 }
	     END { for (f in s) printf "%s %d %d\n", f, r[f], w[f] }' "$@"
}

# real fio: random reads, then mixed reads and writes with fsyncs, 2 jobs
fio --name=r --rw=randread --size=256k --bs=4k --filename="$T/r.dat" \
	--write_iolog="$T/r.iolog" --output-format=json --output="$T/r.json" >"$T/fio.out" 2>&1 ||
	fail "fio randread: $(cat "$T/fio.out")"
fio --name=m --rw=randrw --size=128k --bs=8k --fsync=3 --numjobs=2 --filename="$T/m.dat" \
	--write_iolog="$T/m.iolog" --output-format=json --output="$T/m.json" >"$T/fio.out" 2>&1 ||
	fail "fio randrw: $(cat "$T/fio.out")"
for j in r m; do
	[ "$(head -n 1 "$T/$j.iolog")" = 'fio version 3 iolog' ] || fail "$j: not a version 3 log"
	ok "$IOTAPE" import -F fio-iolog -o "$T/$j.tape" "$T/$j.iolog"
	ok "$IOTAPE" analyze --json "$T/$j.tape"
	cp "$T/out" "$T/$j.a.json" || fail cp
	files "$T/$j.a.json" "$T/$j.got"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[2], sum(x["read"]["io_bytes"] for x in d["jobs"]),
      sum(x["write"]["io_bytes"] for x in d["jobs"]))
' "$T/$j.json" "$T/$j.dat" >"$T/$j.want" || fail "reading $j.json"
	same "$T/$j.want" "$T/$j.got"
done
# the fsyncs: one per 3 writes of each job, as fio logged them
ok "$IOTAPE" dump --format csv -o "$T/m.csv" "$T/m.tape"
want=$(grep -c ' sync ' "$T/m.iolog")
cut -d, -f4 "$T/m.csv" >"$T/m.ops" || fail "cut $T/m.csv"
got=$(grep -cx fsync "$T/m.ops")
[ "$want" -gt 0 ] && [ "$got" = "$want" ] || fail "fsync rows: $got, the log has $want"

# export -> import: the I/O the logs carry comes back
for t in "$TOP"/traces/*.iotape; do
	n=$(basename "$t" .iotape)
	ok "$IOTAPE" replay --prepare-only -d "$T/$n.d" "$t"
	ok "$IOTAPE" export -F fio-iolog --per process -d "$T/$n.d" -o "$T/$n.logs" "$t"
	logbytes "$T/$n.want" "$T/$n.logs"/*.iolog
	[ -s "$T/$n.want" ] || fail "$n: the logs move no bytes"
	cat "$T/$n.logs"/*.iolog >"$T/$n.all"
	ok "$IOTAPE" import -F fio-iolog -o "$T/$n.tape" "$T/$n.all"
	ok "$IOTAPE" analyze --json "$T/$n.tape"
	cp "$T/out" "$T/$n.json" || fail cp
	files "$T/$n.json" "$T/$n.got"
	same "$T/$n.want" "$T/$n.got"
done
exit 0
