#!/bin/sh
# replay_job.sh - a job file (iotape-job(5)) replayed does what it says.
#
# 40 files of 3000 bytes in 2 subfolders, 2 readers, batches of 4, 2
# epochs, 20 ms of compute a step, a checkpoint per epoch of 64 KiB in 2
# files, fsynced and renamed from .tmp.  The replay's JSON: the ops the
# job implies (84 opens and closes, 80 sample reads and 80 reads at EOF,
# 4 writes, fsyncs and renames), none failed, none counted as not issued
# (the trainer's step placeholders), and with -n 1 the trainer's compute
# 20 steps x 20 ms within 2%.  Then, recorded (root, BPF): each file read
# whole once per epoch, each epoch's order a permutation, the two epochs'
# orders differ, the same seed gives the same, --seed 2 another; the
# checkpoint files written, fsynced and renamed.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

cat >"$T/job.ini" <<'INI'
; the test job
[job]
format = 1
name = replay_job
[dataset]
data_folder = data
num_files = 40
num_subfolders = 2
record_length = 3000
file_prefix = f_
file_suffix = .bin
[reader]
read_threads = 2
batch_size = 4
transfer_size = 0
[train]
epochs = 2
computation_time = 0.02
seed = 1
[checkpoint]
checkpoint_folder = ck
epochs_between_checkpoints = 1
size = 64k
files = 2
fsync = on
rename = on
INI

# (-n: a warning that the data set is small against the memory)
run "$IOTAPE" replay -n 1 --output-format json -o "$T/r.json" -d "$T/d" "$T/job.ini"
[ "$rc" = 0 ] || fail "replay of the job exited $rc: $(cat "$T/err")"
[ "$(jq_py "$T/r.json" "sorted((k, v) for k, v in d['replay']['ops_expected'].items() if v)")" = \
  "[('close', 84), ('fsync', 4), ('open', 84), ('read', 160), ('rename', 4), ('write', 4)]" ] ||
	fail "ops expected: $(jq_py "$T/r.json" "d['replay']['ops_expected']")"
[ "$(jq_py "$T/r.json" "d['replay']['ops_expected'] == d['replay']['ops_done']")" = True ] ||
	fail "ops done: $(jq_py "$T/r.json" "d['replay']['ops_done']")"
[ "$(jq_py "$T/r.json" "sum(d['replay']['ops_not_issued'].values()), d['replay']['ops_failed']")" = "0 0" ] ||
	fail "ops not issued or failed: $(jq_py "$T/r.json" "d['replay']['ops_not_issued']")"
c=$(jq_py "$T/r.json" "d['scale']['per_accelerator'][0]['compute_ns']") || fail "no compute_ns"
[ "$(jq_py "$T/r.json" "abs($c - 20 * 20e6) <= 0.02 * 20 * 20e6")" = True ] ||
	fail "trainer compute $c ns, want 20 steps x 20 ms"
[ "$(jq_py "$T/r.json" "d['scale']['read_bytes'], d['scale']['write_bytes']")" = "240000 131072" ] ||
	fail "bytes: $(jq_py "$T/r.json" "d['scale']['read_bytes'], d['scale']['write_bytes']")"
# the layout: 40 files of 3000 bytes, 20 in each subfolder; the checkpoints
n0=$(find "$T/d/data/sub_0" -name 'f_*.bin' -size 3000c | wc -l) || fail "find"
n1=$(find "$T/d/data/sub_1" -name 'f_*.bin' -size 3000c | wc -l) || fail "find"
[ "$n0 $n1" = "20 20" ] || fail "data files: $n0 and $n1 of 3000 bytes, want 20 and 20"
[ -f "$T/d/data/sub_0/f_00.bin" ] && [ -f "$T/d/data/sub_1/f_39.bin" ] || fail "file names"
for k in 1_0 1_1 2_0 2_1; do
	[ "$(stat -c %s "$T/d/ck/ckpt_$k.pt")" = 32768 ] || fail "ck/ckpt_$k.pt: not 32 KiB"
	[ -e "$T/d/ck/ckpt_$k.pt.tmp" ] && fail "ck/ckpt_$k.pt.tmp left"
done

[ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] ||
	skip "the replay checks passed; recording it needs root and BTF"

# rec SEED NAME: record a replay of the job with that seed, its syscalls in
# $T/NAME.csv
rec() {
	rm -rf "$T/d"
	"$IOTAPE" record -q -o "$T/$2.tape" -- "$IOTAPE" replay --timing afap --seed "$1" \
		-o "$T/$2.out" -d "$T/d" "$T/job.ini" 2>"$T/rec.err" ||
		fail "record of the replay failed: $(cat "$T/rec.err")"
	ok "$IOTAPE" dump -t syscall -F csv -o "$T/$2.csv" "$T/$2.tape"
}
rec 1 a
rec 1 b
rec 2 c
cat >"$T/chk.py" <<'PY'
import csv, sys
def load(path, top):
    rows = [r for r in csv.DictReader(open(path)) if r['path'].startswith(top)]
    rows.sort(key=lambda r: int(r['ts_ns']))
    return rows
def orders(path, top):
    """per file: bytes read; per reader thread: its files in open order;
    the epochs' orders (a file's first open: epoch 1, second: epoch 2)"""
    rows = load(path, top)
    rd, seen, ep, per = {}, {}, [[], []], {}
    for r in rows:
        p = r['path'][len(top):]
        if not p.startswith('data/'):
            continue
        if r['op'] == 'uring_read' and int(r['ret']) >= 0:
            rd[p] = rd.get(p, 0) + int(r['ret'])
        if r['op'] == 'uring_openat':
            k = seen.get(p, 0)
            seen[p] = k + 1
            if k < 2:
                ep[k].append(p)
            per.setdefault(r['tid'], []).append(p)
    return rd, seen, ep, sorted(per.values())
top = sys.argv[1]
a, b, c = (orders(f, top) for f in sys.argv[2:5])
rd, seen, ep, per = a
bad = []
if len(rd) != 40 or set(rd.values()) != {6000}:
    bad.append('bytes read per file: %s' % sorted(set(rd.values())))
if set(seen.values()) != {2}:
    bad.append('opens per file: %s' % sorted(set(seen.values())))
for e in ep:
    if sorted(e) != sorted(rd):
        bad.append('an epoch is not a permutation of the files')
if ep[0] == ep[1]:
    bad.append('both epochs read in one order')
if ep[0] == sorted(ep[0]):
    bad.append('epoch 1 in name order')
if len(per) != 2:
    bad.append('%d reader threads, want 2' % len(per))
if per != b[3]:
    bad.append('the same seed gave another order')
if per == c[3]:
    bad.append('--seed 2 gave the same order')
# checkpoints: written to .tmp, fsynced, renamed
rows = load(sys.argv[2], top)
w, f, rn = {}, set(), set()
for r in rows:
    p = r['path'][len(top):]
    if r['op'] == 'uring_write':
        w[p] = w.get(p, 0) + int(r['ret'])
    elif r['op'] == 'uring_fsync':
        f.add(p)
    elif r['op'].startswith('rename') and not p.endswith('/.iotape-prep') and p != '.iotape-prep':
        rn.add((p, r['path2'][len(top):]))	# (not prepare's: written, then renamed)
want = ['ck/ckpt_%s.pt' % k for k in ('1_0', '1_1', '2_0', '2_1')]
if w != {p + '.tmp': 32768 for p in want}:
    bad.append('checkpoint writes: %s' % w)
if f != {p + '.tmp' for p in want}:
    bad.append('fsyncs: %s' % sorted(f))
if rn != {(p + '.tmp', p) for p in want}:
    bad.append('renames: %s' % sorted(rn))
print('\n'.join(bad) if bad else 'ok')
PY
python3 "$T/chk.py" "$T/d/" "$T/a.csv" "$T/b.csv" "$T/c.csv" >"$T/chk" || fail "check script failed"
[ "$(cat "$T/chk")" = ok ] || fail "$(cat "$T/chk")"
exit 0
