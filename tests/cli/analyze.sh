#!/bin/sh
# analyze: numbers of `iotape analyze` on imported traces, text and JSON,
# null and "not available" for each missing layer, exit statuses.
. "$(dirname "$0")/lib.sh"

# one file read sequentially in 1 MiB requests, then once more after reopening
{
	echo 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns'
	echo '1000000000,10,10,openat,/data/a,-100,0,0,3,1000'
	i=0
	while [ $i -lt 16 ]; do
		echo "$((1001000000 + i * 1000000)),10,10,read,/data/a,3,$((i * 1048576)),1048576,1048576,$(((i + 1) * 1000))"
		i=$((i + 1))
	done
	echo '1020000000,10,10,close,/data/a,3,0,0,0,500'
} >"$T/seq.csv"
ok "$IOTAPE" import -o "$T/seq.tape" "$T/seq.csv"

ok "$IOTAPE" analyze --json "$T/seq.tape"
j=$T/out
grep -qx '  "schema": "iotape-analyze/1",' "$j" || fail "json: schema"
for k in window summary dataset other_files pattern cache block latency timeline epochs \
	checkpoints staging compute files processes resources unavailable; do
	grep -q "^  \"$k\": " "$j" || fail "json: no key $k"
done
grep -q '^  "pattern": {"read_randomness":0.0,' "$j" || fail "json: read_randomness 0"
grep -q '"read_ops":16,"read_bytes":16777216,' "$j" || fail "json: summary reads"
# /data/a, read once: the data set (every file read, none read again)
grep -q '^  "dataset": {"rule":"read_once","directory":null,"files_read_again":0,"bytes":0,"files":1,"read_ops":16,' \
	"$j" || fail "json: dataset: $(grep '"dataset"' "$j")"
grep -qx '  "cache": null,' "$j" || fail "json: cache must be null without cache events"
grep -qx '  "block": null,' "$j" || fail "json: block must be null without block events"
grep -q '"metric":"cache","reason":"the trace has no page-cache events' "$j" ||
	fail "json: unavailable lacks cache"
# no sample layer: resources null, and said so (not zeros)
grep -qx '  "resources": null,' "$j" || fail "json: resources must be null without samples"
grep -q '"metric":"resources","reason":"the trace has no sample events"' "$j" ||
	fail "json: unavailable lacks resources"
# exact nearest-rank percentiles of 1..16 us
grep -q '"read":{"count":16,"min":1000,"mean":8500.0,"p50":8000,"p90":15000,"p99":16000,"p99.9":16000,"max":16000,"exact":true}' "$j" ||
	fail "json: read latency percentiles"
grep -q '"hit_ratio":null' "$j" || fail "json: per-file hit_ratio null"

ok "$IOTAPE" analyze "$T/seq.tape"
grep -q '^  read randomness  *0\.000 ' "$T/out" || fail "text: read randomness"
grep -q '^  hit ratio: not available: the trace has no page-cache events' "$T/out" ||
	fail "text: cache not available"
grep -q '^  1 epoch;' "$T/out" || fail "text: epochs"
grep -q '^  rule  *every file read (none read again) ' "$T/out" || fail "text: data set rule"
grep -q '^  not available: the trace has no block events' "$T/out" || fail "text: block not available"
grep -q '^  CPU time, RSS, page cache size, GPU: not available: the trace has no sample events' \
	"$T/out" || fail "text: resources not available"

# a window with nothing in it still works
ok "$IOTAPE" analyze --from 1h "$T/seq.tape"

# usage and errors
ok "$IOTAPE" analyze -h
grep -q 'iotape analyze' "$T/out" || fail "-h: usage"
err_line 2 "iotape analyze: " "--top" "$IOTAPE" analyze --top x "$T/seq.tape"
err_line 2 "iotape analyze: " "--from" "$IOTAPE" analyze --from 5x "$T/seq.tape"
err_line 2 "iotape analyze: " "unknown option '--bogus'" "$IOTAPE" analyze --bogus "$T/seq.tape"
err_line 2 "iotape analyze: " "missing TRACE" "$IOTAPE" analyze
err_line 2 "iotape analyze: " "2 arguments" "$IOTAPE" analyze "$T/seq.tape" "$T/seq.tape"
err_line 2 "iotape analyze: " "'3' is not one of 1|2" "$IOTAPE" analyze --threads 3 "$T/seq.tape"
err_line 2 "iotape analyze: " "--pid" "$IOTAPE" analyze --pid -1 "$T/seq.tape"
err_line 2 "iotape analyze: " "--to must be after --from" "$IOTAPE" analyze --from 2s --to 1s "$T/seq.tape"
err_line 2 "iotape analyze: " "'--json' takes no argument" "$IOTAPE" analyze --json=1 "$T/seq.tape"
err_line 2 "iotape analyze: " "'--top' needs an argument" "$IOTAPE" analyze "$T/seq.tape" --top
err_line 1 "iotape analyze: " "nonexistent.tape" "$IOTAPE" analyze "$T/nonexistent.tape"
[ -s "$T/out" ] && fail "missing trace: printed on stdout"
if [ -w /dev/full ]; then
	"$IOTAPE" analyze "$T/seq.tape" >/dev/full 2>"$T/err"
	[ $? -eq 1 ] || fail "a full stdout must exit 1"
fi
exit 0
