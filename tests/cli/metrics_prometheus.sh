#!/bin/sh
# metrics_prometheus.sh - Debian's real prometheus scrapes `record --metrics`
# and `replay --metrics` (1 s interval): the record's read counter in
# Prometheus equals the bytes the workload read (from its trace), the
# replay's ops done equal planned and its AU gauges are in [0, 1], and
# every PromQL expression of contrib/grafana/iotape.json returns data
# ($job as .*, $__rate_interval as 1m) while both endpoints linger.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
PROM=${PROMETHEUS:-/usr/bin/prometheus}
[ -x "$PROM" ] || skip "no prometheus ($PROM; make deps installs it)"
rec_need_bpf
need_uring

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
PP=$(free_port) RP=$(free_port) YP=$(free_port)
[ -n "$PP" ] && [ -n "$RP" ] && [ -n "$YP" ] || fail "no free ports"
cat >"$T/prom.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: iotape-record
    static_configs: [{ targets: ["127.0.0.1:$RP"] }]
  - job_name: iotape-replay
    static_configs: [{ targets: ["127.0.0.1:$YP"] }]
YML
pids=
trap 'kill $pids 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
"$PROM" --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$PP" >"$T/prom.log" 2>&1 &
pids="$pids $!"

# q EXPR: the JSON result of an instant query
q() {
	curl -sS --max-time 5 -G "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1"
}
# qv EXPR: its one value ("" when none)
qv() {
	q "$1" | python3 -c 'import json,sys
r=json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "")'
}
# until_eq SECONDS EXPR VALUE: poll until the query gives VALUE
until_eq() {
	_end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt $_end ]; do
		[ "$(qv "$2" 2>/dev/null)" = "$3" ] && return 0
		sleep 0.5
	done
	fail "prometheus: $2 is '$(qv "$2")', want $3"
}
i=0; while ! curl -s "http://127.0.0.1:$PP/-/ready" >/dev/null 2>&1 && [ $i -lt 100 ]; do
	sleep 0.2; i=$((i + 1)); done
[ $i -lt 100 ] || fail "prometheus did not start: $(tail -n 5 "$T/prom.log")"

# record: preadbench reads 400 x 4096 bytes of a file
head -c 1048576 /dev/urandom >"$T/data" || fail "cannot make the data file"
"$IOTAPE" record -q -f -o "$T/t.iotape" --metrics "$RP" --metrics-linger 40 -- \
	"$TB/preadbench" "$T/data" 400 4096 >/dev/null 2>"$T/rec.err" &
recpid=$!
pids="$pids $recpid"
i=0; while [ ! -e "$T/t.iotape" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$T/t.iotape" ] || fail "the recording did not end: $(cat "$T/rec.err")"
t_dump "$T/t.iotape" syscall
pid=$(grep -F " op=pread64 path=\"$T/data\" " "$T/dump" | head -n 1 | sed 's/.* pid=\([0-9]*\) .*/\1/')
[ -n "$pid" ] || fail "no pread64 of the data file in the trace"
want=$(grep -E ' op=(read|pread64|readv|preadv|preadv2) ' "$T/dump" | grep -F " pid=$pid " |
	sed -n 's/.* ret=\([0-9][0-9]*\) .*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
data=$(grep -F " op=pread64 path=\"$T/data\" " "$T/dump" |
	sed -n 's/.* ret=\([0-9][0-9]*\) .*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$data" = 1638400 ] || fail "the trace's preads of the data file: $data, want 1638400"
until_eq 20 "iotape_read_bytes_total{job=\"iotape-record\",pid=\"$pid\",comm=\"preadbench\"}" "$want"

# replay: 2 accelerators, each reading 64 x 64 KiB with compute between
awk -v hdr="$HDR" 'BEGIN { print hdr
	printf "1000,7,7,openat,/data/a.bin,-1,0,0,3,500,0,\n"
	for (i = 0; i < 64; i++)
		printf "%d,7,7,pread64,/data/a.bin,3,%d,65536,65536,9000,0,\n", 2000000 + i * 3000000, i * 65536
	printf "200000000,7,7,close,/data/a.bin,3,0,0,0,100,0,\n"
}' >"$T/job.csv"
"$IOTAPE" import -o "$T/job.tape" "$T/job.csv" || fail "import failed"
"$IOTAPE" replay -n 2 -o "$T/r.txt" -d "$T/d" --metrics "$YP" --metrics-linger 40 "$T/job.tape" \
	2>"$T/rep.err" &
reppid=$!
pids="$pids $reppid"
i=0; while ! grep -q "AU min" "$T/r.txt" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "AU min" "$T/r.txt" || fail "the replay did not end: $(cat "$T/rep.err")"
planned=$(qv 'iotape_replay_operations_planned{job="iotape-replay"}')
until_eq 20 'iotape_replay_operations_planned{job="iotape-replay"}' 132
until_eq 20 'iotape_replay_operations_done_total{job="iotape-replay"}' 132
until_eq 20 'sum(iotape_read_bytes_total{job="iotape-replay"})' $((2 * 64 * 65536))
n=$(q 'iotape_accelerator_utilization_ratio{job="iotape-replay"} >= 0 <= 1' |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))')
[ "$n" = 2 ] || fail "AU gauges in [0,1]: $n of 2 ($(q 'iotape_accelerator_utilization_ratio'))"

# every expression of the dashboard returns data
python3 - "$TOP/contrib/grafana/iotape.json" "$PP" <<'PY' || fail "dashboard queries failed"
import json, sys, time, urllib.parse, urllib.request
d = json.load(open(sys.argv[1]))
url = "http://127.0.0.1:%s/api/v1/query?" % sys.argv[2]
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
assert len(exprs) >= 6, exprs
bad = []
for e in exprs:
    q = e.replace("$__rate_interval", "1m").replace("$job", ".*")
    ok = False
    for _ in range(20):	# rates need two samples in the window
        r = json.load(urllib.request.urlopen(url + urllib.parse.urlencode({"query": q}), timeout=5))
        if r["status"] == "success" and r["data"]["result"]:
            ok = True
            break
        time.sleep(0.5)
    if not ok:
        bad.append(q)
assert not bad, "no data for: " + "; ".join(bad)
print("%d dashboard expressions return data" % len(exprs), file=sys.stderr)
PY

kill -INT $recpid $reppid
wait $recpid; rc=$?
[ "$rc" -eq 0 ] || fail "record exited $rc: $(cat "$T/rec.err")"
wait $reppid; rc=$?
[ "$rc" -eq 0 ] || fail "replay exited $rc: $(cat "$T/rep.err")"
exit 0
