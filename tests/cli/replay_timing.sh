#!/bin/sh
# Timing modes.  original: each op issued at its absolute recorded time,
# issue error p99 <= 1 ms on 10k ops over 2 s (or within 1 ms of this
# machine's own timer error for the same pattern).  think: --compute-scale 0
# runs like afap; with a 10 ms recorded gap before each op the wall time
# is at least the recorded compute time, and --speed 2 halves it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# 10k 4 KiB preads over 2 s, 4 threads, one file (and fd) each: no thread
# waits for another (with one fd for all, each read would wait for the
# other threads' last read on it, and a stall would drain out slowly
# through that chain)
awk -v hdr="$HDR" 'BEGIN { print hdr; srand(1)
	for (t = 0; t < 4; t++)
		printf "%d,1,%d,openat,/ds/f%d,-1,0,0,%d,1000,0,\n", 1000 + t, 100 + t, t, 3 + t
	for (i = 0; i < 10000; i++) {
		t = i % 4
		printf "%d,1,%d,pread64,/ds/f%d,%d,%d,4096,4096,5000,0,\n", 100000 + i * 200000, 100 + t, t, 3 + t, int(rand() * 256) * 4096
	}}' >"$T/tm.csv"
ok "$IOTAPE" import -o "$T/tm.tape" "$T/tm.csv"
# A loaded machine, or a host that stalls this VM, can delay every
# thread's wake-up by milliseconds: the machine's own error for the same
# pattern (tests/helpers/jitter: 4 threads, 10k targets 200 us apart) is
# measured before each run (with a 4 KiB read of the trace's files at each
# target, as the replay's reads), and a run passes when the replay's issue error
# p99 is within 1 ms, or within 1 ms of what the machine itself managed;
# the best of 3 runs counts, and each run's figures are printed.
ok=
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/tm.tape"
for try in 1 2 3; do
	jit=$("$TESTBIN/jitter" 4 10000 200000 "$T/d/ds/f3") || fail "jitter helper failed"
	ok "$IOTAPE" replay --no-prepare --timing original --output-format json -o "$T/o.json" -d "$T/d" "$T/tm.tape"
	p99=$(jq_py "$T/o.json" "d['replay']['timing_error_ns']['percentile']['99.000000']")
	wall=$(jq_py "$T/o.json" "d['replay']['replayed_duration_ns']")
	echo "original run $try: issue error p99 $p99 ns (the machine's own: $jit ns), wall $wall ns" >&2
	if [ "$p99" -le 1000000 ] || [ "$p99" -le $((jit + 1000000)) ]; then
		ok=1
		break
	fi
done
[ -n "$ok" ] || fail "original timing: issue error p99 over 1 ms, and over the machine's own error + 1 ms, in 3 runs"
[ "$wall" -ge 1900000000 ] && [ "$wall" -le 2100000000 ] || fail "original timing: wall $wall ns for a 2 s trace"
[ "$(jq_py "$T/o.json" "d['replay']['ops_done']['read']")" = 10000 ] || fail "original: reads"

# think with compute scale 0 = afap (both far below the recorded 2 s)
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/a.json" -d "$T/d" "$T/tm.tape"
ok "$IOTAPE" replay --compute-scale 0 --output-format json -o "$T/t0.json" -d "$T/d" "$T/tm.tape"
a=$(jq_py "$T/a.json" "d['replay']['replayed_duration_ns']")
t0=$(jq_py "$T/t0.json" "d['replay']['replayed_duration_ns']")
echo "afap $a ns, think --compute-scale 0 $t0 ns" >&2
[ "$t0" -le $((a * 3 + 100000000)) ] || fail "think --compute-scale 0 took $t0 ns, afap $a ns"
[ "$(jq_py "$T/t0.json" "d['replay']['compute_ns']")" = 0 ] || fail "compute-scale 0 has compute time"
[ "$(jq_py "$T/t0.json" "d['replay']['ops_done']['read']")" = 10000 ] || fail "think: reads"

# 10 ms recorded gap before each of 50 reads (each 0.1 ms long)
awk -v hdr="$HDR" 'BEGIN { print hdr
	print "0,1,1,openat,/g,-1,0,0,3,0,0,"
	for (i = 0; i < 50; i++)
		printf "%d,1,1,pread64,/g,3,0,4096,4096,100000,0,\n", 10000000 + i * 10100000 }' >"$T/gap.csv"
ok "$IOTAPE" import -o "$T/gap.tape" "$T/gap.csv"
ok "$IOTAPE" replay --output-format json -o "$T/g.json" -d "$T/d" "$T/gap.tape"
w=$(jq_py "$T/g.json" "d['replay']['replayed_duration_ns']")
c=$(jq_py "$T/g.json" "d['replay']['compute_ns']")
au=$(jq_py "$T/g.json" "d['replay']['accelerator_utilization']")
echo "think: wall $w ns, compute $c ns, AU $au" >&2
[ "$c" -ge 500000000 ] || fail "think: compute $c ns < the 50 x 10 ms recorded"
[ "$w" -ge "$c" ] || fail "think: wall $w ns < compute $c ns"
[ "$w" -le $((c + 300000000)) ] || fail "think: wall $w ns, far above compute $c ns"
ok "$IOTAPE" replay --speed 2 --output-format json -o "$T/g2.json" -d "$T/d" "$T/gap.tape"
w2=$(jq_py "$T/g2.json" "d['replay']['replayed_duration_ns']")
[ "$w2" -ge $((c / 2)) ] && [ "$w2" -lt "$c" ] || fail "--speed 2: wall $w2 ns, compute at speed 1 $c ns"
ok "$IOTAPE" replay --compute-scale 0.5 --output-format json -o "$T/g5.json" -d "$T/d" "$T/gap.tape"
c5=$(jq_py "$T/g5.json" "d['replay']['compute_ns']")
[ "$c5" -ge $((c / 2 - 1000)) ] && [ "$c5" -le $((c / 2 + 1000)) ] || fail "--compute-scale 0.5: compute $c5 ns"
exit 0
