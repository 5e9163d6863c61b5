#!/bin/sh
# model_preset_runs.sh - every MLPerf Storage preset (iotape model
# --preset) runs: the job file it writes is replayed (iotape replay JOB -d
# DIR), scaled down with --set to a few seconds, and the replay recorded
# (iotape record); the recorded I/O is what the parameters say.
#
# unet3d, resnet50, cosmoflow: 8 files of S samples of 64 KiB (S = 2 for
# resnet50, 1 for the others), batches of 2, 2 epochs, 10 ms of compute a
# step, reads of 16 KiB and a 0-byte read at EOF: each file read whole once
# an epoch (S x 64 KiB x 2 bytes, 2 opens, a 0-byte read at its end each
# time), every other read 16 KiB, nothing written (unet3d's checkpoint
# comes after epoch 5).  llama3-8b with 0.02 s of compute, 3 checkpoints
# written and 2 read: 5 steps, the first out of AU, 3 x 2 files.  As
# preset but for its size (computation_time 5 s set to 0): 2 checkpoints
# of 4 MiB in 8 files written, then read, in 128 KiB requests, each file
# fsynced once, no other file read; its JSON report: the bytes and ops,
# and AU null (no compute, n/a).  --find-max refuses it; without
# [checkpoint] its num_files = 0 is one error line FILE:LINE.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# the refusals need no recording
ok "$IOTAPE" model -p llama3-8b -o "$T/llama3-8b.ini"
sed '/^\[checkpoint\]/,$d' "$T/llama3-8b.ini" >"$T/nock.ini" || fail "sed"
line=$(grep -n '^num_files = 0' "$T/nock.ini" | cut -d: -f1) || fail "no num_files in nock.ini"
err_line 2 "iotape replay: $T/nock.ini:$line: " 'num_files = 0 (no data set) needs a [checkpoint]' \
	"$IOTAPE" replay -d "$T/d" "$T/nock.ini"
err_line 2 "iotape replay: " '--find-max: the job has no compute' \
	"$IOTAPE" replay --find-max -d "$T/d" --set checkpoint.size=4m \
	--set train.computation_time=0 "$T/llama3-8b.ini"
[ -e "$T/d" ] && fail "a refused job made DIR"

# llama3-8b with compute: a step of computation_time before each
# checkpoint written or read, the first left out of AU
run "$IOTAPE" replay -n 1 --output-format json -o "$T/steps.json" -d "$T/d2" \
	--set checkpoint.size=64k --set train.computation_time=0.02 \
	--set checkpoint.num_checkpoints_write=3 --set checkpoint.num_checkpoints_read=2 \
	"$T/llama3-8b.ini"
[ "$rc" = 0 ] || fail "llama3-8b with steps exited $rc: $(cat "$T/err")"
a="d['scale']['per_accelerator'][0]"
[ "$(jq_py "$T/steps.json" "d['scale']['steps_per_loop'], $a['first_step_excluded'], $a['first_step_compute_ns']")" = \
  "5 True 20000000" ] || fail "llama3-8b steps: $(jq_py "$T/steps.json" "d['scale']")"
[ "$(jq_py "$T/steps.json" "abs($a['compute_ns'] - 5 * 20e6) <= 0.02 * 5 * 20e6 and 0 < $a['au'] <= 1")" = True ] ||
	fail "llama3-8b steps: compute $(jq_py "$T/steps.json" "$a['compute_ns'], $a['au']")"
find "$T/d2/checkpoints/llama_8b" -name 'ckpt_step[123]_[01].pt' -size 32768c >"$T/found" ||
	fail "find in $T/d2/checkpoints/llama_8b failed"
n=$(wc -l <"$T/found")
[ "$n" = 6 ] || fail "llama3-8b steps: $n checkpoint files of 32 KiB after steps 1 to 3, want 6"
[ "$(jq_py "$T/steps.json" "d['scale']['write_bytes'], d['scale']['read_bytes']")" = "196608 131072" ] ||
	fail "llama3-8b steps: $(jq_py "$T/steps.json" "d['scale']")"
[ -e "$T/d2/data" ] && fail "llama3-8b: a data set was prepared"

[ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] ||
	skip "the refusals passed; recording the presets' replays needs root and BTF"

# rec PRESET SET...: the preset's job file, replayed with the overrides
# under iotape record; the replay's JSON in $T/PRESET.json, its syscalls
# in $T/PRESET.csv
rec() {
	p=$1
	shift
	ok "$IOTAPE" model -p "$p" -o "$T/$p.ini" -f
	rm -rf "$T/d"
	"$IOTAPE" record -q -o "$T/$p.tape" -- "$IOTAPE" replay --output-format json \
		-o "$T/$p.json" -d "$T/d" "$@" "$T/$p.ini" 2>"$T/rec.err" ||
		fail "$p: the recorded replay failed: $(cat "$T/rec.err")"
	ok "$IOTAPE" dump -t syscall -F csv -o "$T/$p.csv" "$T/$p.tape"
}

cat >"$T/chk.py" <<'PY'
import csv, sys
path, top, kind = sys.argv[1:4]
rows = [r for r in csv.DictReader(open(path)) if r['path'].startswith(top)]
bad = []
def per_file(op, col='ret'):
    n = {}
    for r in rows:
        if r['op'] == op and int(r['ret']) >= 0:
            n[r['path'][len(top):]] = n.get(r['path'][len(top):], 0) + int(r[col])
    return n
def count(op):
    n = {}
    for r in rows:
        if r['op'] == op:
            n[r['path'][len(top):]] = n.get(r['path'][len(top):], 0) + 1
    return n
# the replay's own I/O (io_uring); preparing DIR may fail a mkdir or stat
failed = [(r['op'], r['path']) for r in rows if r['op'].startswith('uring_') and int(r['ret']) < 0]
if failed:
    bad.append('failed calls: %s' % failed[:5])
rd, opens = per_file('uring_read'), count('uring_openat')
reads = [r for r in rows if r['op'] == 'uring_read']
writes = [r for r in rows if r['op'] == 'uring_write']
if kind == 'data':
    folder, nfiles, samples, rl, epochs, ts = sys.argv[4], *map(int, sys.argv[5:10])
    if set(rd) != set(opens) or not all(p.startswith(folder + '/') for p in rd):
        bad.append('files read outside %s/ or not opened: %s' % (folder, sorted(set(rd) ^ set(opens))))
    if len(rd) != nfiles:
        bad.append('%d files read, want %d' % (len(rd), nfiles))
    if set(rd.values()) != {samples * rl * epochs}:
        bad.append('bytes read per file %s, want %d' % (sorted(set(rd.values())), samples * rl * epochs))
    if sum(rd.values()) != nfiles * samples * rl * epochs:
        bad.append('bytes read in all %d, want %d' % (sum(rd.values()), nfiles * samples * rl * epochs))
    if set(opens.values()) != {epochs}:
        bad.append('opens per file %s, want %d' % (sorted(set(opens.values())), epochs))
    sizes = sorted(set(int(r['size']) for r in reads if int(r['ret']) > 0))
    if sizes != [ts]:
        bad.append('read request sizes %s, want %d' % (sizes, ts))
    if sum(1 for r in reads if int(r['ret']) > 0) != nfiles * epochs * samples * rl // ts:
        bad.append('%d reads of data, want %d' % (sum(1 for r in reads if int(r['ret']) > 0),
                                                   nfiles * epochs * samples * rl // ts))
    if sum(1 for r in reads if int(r['ret']) == 0) != nfiles * epochs:
        bad.append('%d reads at EOF, want %d' % (sum(1 for r in reads if int(r['ret']) == 0), nfiles * epochs))
    if writes:
        bad.append('%d writes, want none' % len(writes))
else:
    folder, nck, files, size, ts = sys.argv[4], *map(int, sys.argv[5:9])
    wr, fs = per_file('uring_write'), count('uring_fsync')
    want = ['%s/ckpt_step%d_%d.pt' % (folder, c, h) for c in range(1, nck + 1) for h in range(files)]
    if sorted(wr) != sorted(want):
        bad.append('files written %s, want %s' % (sorted(wr), sorted(want)))
    for c in range(1, nck + 1):
        got = sum(v for p, v in wr.items() if p.startswith('%s/ckpt_step%d_' % (folder, c)))
        if got != size:
            bad.append('checkpoint %d: %d bytes written, want %d' % (c, got, size))
    sizes = sorted(set(int(r['size']) for r in writes))
    if sizes != [ts]:
        bad.append('write request sizes %s, want %d' % (sizes, ts))
    if fs != {p: 1 for p in want}:
        bad.append('fsyncs %s, want one per file' % fs)
    if rd != wr:
        bad.append('read back %s, written %s' % (rd, wr))
    if sum(rd.values()) != nck * size:
        bad.append('bytes read back %d, want %d' % (sum(rd.values()), nck * size))
print('\n'.join(bad) if bad else 'ok')
PY

# check PRESET ARGS...: the recorded I/O of the preset's run
check() {
	p=$1
	shift
	python3 "$T/chk.py" "$T/$p.csv" "$T/d/" "$@" >"$T/chk" || fail "$p: the check script failed"
	[ "$(cat "$T/chk")" = ok ] || fail "$p: $(cat "$T/chk")"
}

# the data presets: 8 files, batches of 2, 2 epochs, reads of 16 KiB
for p in unet3d resnet50 cosmoflow; do
	s=1
	[ $p = resnet50 ] && s=2
	rec $p --set dataset.num_files=8 --set dataset.num_samples_per_file=$s \
		--set dataset.record_length=64k --set dataset.record_length_stdev=0 \
		--set reader.batch_size=2 --set reader.transfer_size=16k --set train.epochs=2 \
		--set train.computation_time=0.01 --set reader.read_eof=on
	check $p data "data/$p/train" 8 $s 65536 2 16384
	[ "$(jq_py "$T/$p.json" "d['scale']['read_bytes'], d['scale']['write_bytes']")" = \
	  "$((8 * s * 65536 * 2)) 0" ] ||
		fail "$p: JSON bytes $(jq_py "$T/$p.json" "d['scale']['read_bytes'], d['scale']['write_bytes']")"
done

# llama3-8b: 2 checkpoints of 4 MiB in 8 files, 128 KiB writes, then read
rec llama3-8b --set checkpoint.size=4m --set checkpoint.transfer_size=128k \
	--set checkpoint.files=8 --set checkpoint.num_checkpoints_write=2 \
	--set checkpoint.num_checkpoints_read=2 --set train.computation_time=0
check llama3-8b ckpt checkpoints/llama_8b 2 8 4194304 131072
j() { jq_py "$T/llama3-8b.json" "$1"; }
[ "$(j "d['scale']['write_bytes'], d['scale']['read_bytes'], d['scale']['prepared_dataset_bytes']")" = \
  "8388608 8388608 0" ] ||
	fail "llama3-8b JSON bytes: $(j "d['scale']['write_bytes'], d['scale']['read_bytes']")"
[ "$(j "[d['replay']['ops_expected'][k] for k in ('write', 'fsync', 'read', 'open')]")" = \
  "[64, 16, 64, 32]" ] || fail "llama3-8b JSON ops expected: $(j "d['replay']['ops_expected']")"
[ "$(j "d['replay']['ops_expected'] == d['replay']['ops_done'] and d['replay']['ops_failed'] == 0")" = True ] ||
	fail "llama3-8b JSON ops done: $(j "d['replay']['ops_done']")"
[ "$(j "d['jobs'][0]['write']['io_bytes'], d['jobs'][0]['write']['total_ios'], len(d['jobs'])")" = \
  "8388608 64 1" ] || fail "llama3-8b JSON job: $(j "[x['write'] for x in d['jobs']]")"
[ "$(j "d['scale']['au_min'], d['scale']['pass'], d['scale']['per_accelerator'][0]['au'], d['replay']['accelerator_utilization']")" = \
  "None None None None" ] || fail "llama3-8b: AU of a job with no compute: $(j "d['scale']")"
exit 0
