#!/bin/sh
# metrics.sh - --metrics on record: the exposition (Prometheus text format
# 0.0.4) read with curl while the recording lingers: HELP and TYPE lines
# for every metric, histogram buckets cumulative with "+Inf" equal to
# _count, the workload's read bytes exactly; a port in use is one error
# line and exit 1 before anything runs; bad --metrics values are usage
# errors (2).
. "$(dirname "$0")/record_lib.sh"
command -v curl >/dev/null 2>&1 || skip "no curl"
command -v python3 >/dev/null 2>&1 || skip "no python3"

# usage errors need neither root nor BPF
for bad in x 70000 -1 "1.2.3:80" "[::1]80" "localhost:80"; do
	run "$IOTAPE" record --metrics "$bad" -- true
	[ "$rc" -eq 2 ] || fail "--metrics '$bad': exit $rc, want 2 ($(cat "$T/err"))"
done
run "$IOTAPE" record --metrics-linger 3 -- true
[ "$rc" -eq 2 ] || fail "--metrics-linger without --metrics: exit $rc, want 2"
run "$IOTAPE" replay -d "$T/rd" --metrics nope "$TOP/traces/shards.iotape"
[ "$rc" -eq 2 ] || fail "replay --metrics nope: exit $rc, want 2"

# a port in use: one line, exit 1, no trace, the command never ran
python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1)
open(sys.argv[1],"w").write(str(s.getsockname()[1])); time.sleep(20)' "$T/busy" &
holder=$!
trap 'kill $holder 2>/dev/null; rm -rf "$T"' EXIT
i=0; while [ ! -s "$T/busy" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
busy=$(cat "$T/busy")
[ -n "$busy" ] || fail "no port held for the port-in-use check"
err_line 1 "iotape replay: --metrics $busy:" "port $busy is in use" \
	"$IOTAPE" replay -d "$T/rd" --metrics "$busy" "$TOP/traces/shards.iotape"
[ -e "$T/rd" ] && fail "replay prepared DIR though its port was in use"

rec_need_bpf
err_line 1 "iotape record: --metrics 127.0.0.1:$busy:" "in use" \
	"$IOTAPE" record -q -o "$T/busy.iotape" --metrics "127.0.0.1:$busy" -- touch "$T/ran"
[ -e "$T/ran" ] && fail "the command ran though the port was in use"
[ -e "$T/busy.iotape" ] && fail "a trace was made though the port was in use"
kill $holder 2>/dev/null

# a recording of preadbench: 300 preads of 8192 bytes = 2457600 bytes of data
head -c 1048576 /dev/urandom >"$T/data" || fail "cannot make the data file"
"$IOTAPE" record -q -f -o "$T/t.iotape" --metrics 0 --metrics-linger 30 -- \
	"$TB/preadbench" "$T/data" 300 8192 >"$T/rec.out" 2>"$T/rec.err" &
recpid=$!
trap 'kill $recpid $holder 2>/dev/null; rm -rf "$T"' EXIT
i=0; while ! grep -q "/metrics" "$T/rec.err" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(sed -n 's|^iotape record: metrics at http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$T/rec.err")
[ -n "$port" ] || fail "no 'metrics at' line: $(cat "$T/rec.err")"
# the recording is over (lingering) once the trace is renamed into place
i=0; while [ ! -e "$T/t.iotape" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
curl -sS -D "$T/hdr" -o "$T/m" "http://127.0.0.1:$port/metrics" || fail "curl /metrics failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$T/hdr" || fail "content type: $(cat "$T/hdr")"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nothing")
[ "$code" = 404 ] || fail "GET /nothing: $code, want 404"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics")
[ "$code" = 405 ] || fail "POST /metrics: $code, want 405"

t_dump "$T/t.iotape" syscall
pid=$(grep -F 'op=pread64' "$T/dump" | head -n 1 | sed 's/.* pid=\([0-9]*\) .*/\1/')
[ -n "$pid" ] || fail "no pread64 in the trace"
# every successful read-class call of the process, from the trace
want=$(grep -E ' op=(read|pread64|readv|preadv|preadv2) ' "$T/dump" | grep -F " pid=$pid " |
	sed -n 's/.* ret=\([0-9][0-9]*\) .*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
data=$(grep -F " op=pread64 path=\"$T/data\" " "$T/dump" | grep -F " pid=$pid " |
	sed -n 's/.* ret=\([0-9][0-9]*\) .*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$data" = 2457600 ] || fail "the trace's preads: $data bytes, want 2457600"

python3 - "$T/m" "$pid" "$want" <<'PY' || fail "exposition check failed"
import re, sys
text = open(sys.argv[1]).read()
pid, want = sys.argv[2], int(sys.argv[3])
helps, types, samples = {}, {}, []
for ln in text.splitlines():
    if ln.startswith("# HELP "):
        n = ln.split()[2]; helps[n] = 1
    elif ln.startswith("# TYPE "):
        _, _, n, t = ln.split(); types[n] = t
    elif ln and not ln.startswith("#"):
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', ln)
        assert m, "bad sample line: " + ln
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        samples.append((m.group(1), labels, float(m.group(4))))
for n in types:
    assert n in helps, "no HELP for " + n
    assert n.startswith("iotape_"), n
for n, t in types.items():
    if t == "counter":
        assert n.endswith("_total"), "counter not named _total: " + n
def family(s):
    for suf in ("_bucket", "_sum", "_count"):
        if s.endswith(suf) and types.get(s[: -len(suf)]) == "histogram":
            return s[: -len(suf)]
    return s
for s, l, v in samples:
    assert family(s) in types, "sample without TYPE: " + s
# histograms: cumulative buckets, +Inf == _count
hist = {}
for s, l, v in samples:
    f = family(s)
    if types.get(f) != "histogram":
        continue
    key = (f, tuple(sorted((k, x) for k, x in l.items() if k != "le")))
    h = hist.setdefault(key, {"b": [], "count": None})
    if s.endswith("_bucket"):
        h["b"].append((float("inf") if l["le"] == "+Inf" else float(l["le"]), v))
    elif s.endswith("_count"):
        h["count"] = v
assert hist, "no histogram"
for key, h in hist.items():
    b = h["b"]
    assert b and b[-1][0] == float("inf"), "no +Inf bucket last: %r" % (key,)
    assert all(b[i][0] < b[i + 1][0] for i in range(len(b) - 1)), "le not increasing %r" % (key,)
    assert all(b[i][1] <= b[i + 1][1] for i in range(len(b) - 1)), "buckets not cumulative %r" % (key,)
    assert b[-1][1] == h["count"], "+Inf %s != _count %s for %r" % (b[-1][1], h["count"], key)
got = [v for s, l, v in samples if s == "iotape_read_bytes_total" and l.get("pid") == pid]
assert got == [want], "iotape_read_bytes_total{pid=%s}: %r, want %d" % (pid, got, want)
comm = [l.get("comm") for s, l, v in samples if s == "iotape_read_bytes_total" and l.get("pid") == pid]
assert comm == ["preadbench"], "comm label %r" % comm
reads = [v for s, l, v in samples if s == "iotape_operations_total" and l.get("pid") == pid and l.get("op") == "read"]
assert reads and reads[0] >= 300, "read ops %r" % reads
size = [v for s, l, v in samples if s == "iotape_request_size_bytes_bucket" and l.get("op") == "read" and l.get("le") == "8192"]
assert size and size[0] >= 300, "8 KiB reads not in the le=8192 bucket: %r" % size
ev = [v for s, l, v in samples if s == "iotape_events_total" and l.get("table") == "syscall"]
assert ev and ev[0] > 300, "events_total{table=syscall} %r" % ev
assert any(s == "iotape_events_lost_total" for s, l, v in samples), "no events_lost_total"
PY
kill -INT $recpid
wait $recpid
rc=$?
[ "$rc" -eq 0 ] || fail "record exited $rc after the linger was cut short: $(cat "$T/rec.err")"
exit 0
