#!/bin/sh
# checkpoints.sh - one checkpoint rule (analyze/ana_ckpt.c) for analyze,
# replay --burst-buffer and whatif, on small whole-file checkpoints like an
# HDF5 job's torch.save of 37 KiB each epoch (iotape-analyze(1),
# Checkpoints: not big, but whole-file writes that repeat in their
# directory).
#
# The job: replay_lib.sh's reader trace (2 readers, a trainer writing a
# log) and the trainer writing /out/ckpt/epoch_0.pt and epoch_1.pt whole
# (37,888 B in 5 writes), 1.5 s apart, and /out/results.json whole once.
# analyze: 2 checkpoints of one file each (results.json, written once, is
# none); replay --burst-buffer FAST --drain: the same 2, each of its file,
# drained to DIR (the job's copy on FAST), results.json not under FAST; whatif --fast: "checkpoints"
# 2 and a burst-buffer what-if (it used to count only checkpoints of 1 MiB
# or more, and said "no checkpoints in the trace").  The trace without the
# second epoch's file: no checkpoint for any of the three.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring
[ -d /dev/shm ] || skip "no /dev/shm (the fast tier)"

reader_trace_csv "$T/tr.csv"
# ck_rows N: the trainer's N checkpoint files and results.json, as rows
ck_rows() {
	awk -v n="$1" 'BEGIN {
		for (c = 0; c < n; c++) {
			t = 220000000 + c * 1500000000; f = "/out/ckpt/epoch_" c ".pt"
			printf "%d,1,12,openat,%s,-1,0,0,20,10,0x241,\n", t, f
			for (w = 0; w < 5; w++)
				printf "%d,1,12,write,%s,20,%d,%d,%d,10,0,\n", t + 1000 + w * 1000, f,
					w * 8192, w < 4 ? 8192 : 5120, w < 4 ? 8192 : 5120
			printf "%d,1,12,close,%s,20,0,0,0,10,0,\n", t + 7000, f
		}
		t = 2000000000
		printf "%d,1,12,openat,/out/results.json,-1,0,0,21,10,0x241,\n", t
		printf "%d,1,12,write,/out/results.json,21,0,300,300,10,0,\n", t + 1000
		printf "%d,1,12,close,/out/results.json,21,0,0,0,10,0,\n", t + 2000
	}' || fail "awk"
}
for n in 2 1; do
	{ head -n 1 "$T/tr.csv" && { tail -n +2 "$T/tr.csv" && ck_rows $n; } | sort -t, -k1,1n; } \
		>"$T/ck$n.csv" || fail "csv"
	ok "$IOTAPE" import -o "$T/ck$n.tape" "$T/ck$n.csv"
done

# analyze
ok "$IOTAPE" analyze --json "$T/ck2.tape"
cp "$T/out" "$T/ana.json" || fail "cp"
ok "$IOTAPE" analyze --json "$T/ck1.tape"
cp "$T/out" "$T/ana1.json" || fail "cp"
/usr/bin/python3 - "$T/ana.json" "$T/ana1.json" >"$T/py.out" 2>&1 <<'PY' || fail "analyze: $(cat "$T/py.out")"
import json, sys
c = json.load(open(sys.argv[1]))['checkpoints']
assert c['count'] == 2 and [x['files'] for x in c['checkpoints']] == [1, 1], c
assert [x['bytes'] for x in c['checkpoints']] == [37888, 37888], c
assert all(x['whole_files'] for x in c['checkpoints']), c
c = json.load(open(sys.argv[2]))['checkpoints']
assert c['count'] == 0, c
PY

# replay --burst-buffer --drain: the same checkpoints, each of its file
FAST=
trap 'rm -rf "$T"; [ -n "$FAST" ] && rm -rf "$FAST"' EXIT
FAST=$(mktemp -d /dev/shm/iotape-ckpt-test.XXXXXX) || fail "mktemp in /dev/shm"
ok "$IOTAPE" replay -d "$T/r" --burst-buffer "$FAST" --drain --output-format json \
	-o "$T/rep.json" "$T/ck2.tape"
/usr/bin/python3 - "$T/rep.json" >"$T/py.out" 2>&1 <<'PY' || fail "replay --burst-buffer: $(cat "$T/py.out")"
import json, sys
r = json.load(open(sys.argv[1]))
bb = r['burst_buffer']
assert [(c['checkpoint'], c['files'], c['bytes']) for c in bb['checkpoints']] == \
    [(1, 1, 37888), (2, 1, 37888)], bb['checkpoints']
assert r['replay']['ops_failed'] == 0, r['replay']['ops_failed']
PY
for c in 0 1; do
	[ "$(stat -c %s "$T/r/out/ckpt/epoch_$c.pt")" = 37888 ] || fail "epoch_$c.pt not drained to DIR"
	cmp -s "$FAST/out/ckpt/epoch_$c.pt" "$T/r/out/ckpt/epoch_$c.pt" ||
		fail "epoch_$c.pt under --dir differs from FAST_DIR's (or is not there)"
done
[ ! -e "$FAST/out/results.json" ] || fail "results.json placed on FAST: not a checkpoint"
[ -f "$T/r/out/results.json" ] || fail "results.json not written under DIR"
err_line 1 "iotape replay: " "has no checkpoints" \
	"$IOTAPE" replay -d "$T/r1" --burst-buffer "$FAST" "$T/ck1.tape"

# whatif: the burst-buffer what-if, of the same 2 checkpoints
rm -rf "$FAST"/* "$FAST/.iotape-replay" || fail "rm"
run "$IOTAPE" whatif -d "$T/w" --fast "$FAST" --runtime 10s --output-format json \
	-o "$T/w.json" "$T/ck2.tape"
[ "$rc" -eq 0 ] || fail "whatif exited $rc: $(cat "$T/err")"
/usr/bin/python3 - "$T/w.json" >"$T/py.out" 2>&1 <<'PY' || fail "whatif: $(cat "$T/py.out")"
import json, sys
w = json.load(open(sys.argv[1]))
assert w['checkpoints'] == 2, w['checkpoints']
names = [r['name'] for r in w['whatifs']]
assert 'burst-buffer' in names, names
bb = [r for r in w['whatifs'] if r['name'] == 'burst-buffer'][0]
assert bb['ok'] and bb['checkpoint_time_s'] is not None, bb
PY
rm -rf "$FAST"/* "$FAST/.iotape-replay" || fail "rm"
run "$IOTAPE" whatif -d "$T/w1" --fast "$FAST" --runtime 10s "$T/ck1.tape"
[ "$rc" -eq 0 ] || fail "whatif (no checkpoints) exited $rc: $(cat "$T/err")"
grep -q '^(no checkpoints in the trace: no burst-buffer what-if)$' "$T/out" ||
	fail "whatif without checkpoints: $(cat "$T/out")"
exit 0
