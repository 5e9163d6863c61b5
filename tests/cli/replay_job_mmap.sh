#!/bin/sh
# replay_job_mmap.sh - reader.mmap (iotape-job(5)): a reader faults a fault
# window in at the first touch of an epoch, and never again in that epoch.
#
# One file of 8 samples of 40000 bytes (320000 bytes: windows of 64 KiB
# 0..4, the last 57856 bytes), 2 readers, batches of 2, in order, 2
# epochs.  Reader 1 reads batches 0 and 2 (samples 0, 1, 4, 5: windows
# 0-3), reader 2 batches 1 and 3 (samples 2, 3, 6, 7: windows 1-4; sample 3
# spans windows 1 and 2, sample 6 windows 3 and 4), each epoch anew: 16
# reads, 524288 and 508928 bytes.  The JSON report says so (ops expected
# = done, fault reads); recorded (root, BPF): exactly those 16 windows.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

cat >"$T/job.ini" <<'INI'
[job]
format = 1
[dataset]
data_folder = data
num_files = 1
record_length = 40000
num_samples_per_file = 8
[reader]
read_threads = 2
batch_size = 2
file_shuffle = off
mmap = on
[train]
epochs = 2
computation_time = 0.001
INI

run "$IOTAPE" replay --output-format json -o "$T/r.json" -d "$T/d" "$T/job.ini"
[ "$rc" = 0 ] || fail "replay of the job exited $rc: $(cat "$T/err")"
[ "$(stat -c %s "$T/d/data/img_0.jpg")" = 320000 ] || fail "the data file is not 320000 bytes"
[ "$(jq_py "$T/r.json" "sorted((k, v) for k, v in d['replay']['ops_expected'].items() if v)")" = \
  "[('close', 8), ('open', 8), ('read', 16)]" ] ||
	fail "ops expected: $(jq_py "$T/r.json" "d['replay']['ops_expected']")"
[ "$(jq_py "$T/r.json" "d['replay']['ops_expected'] == d['replay']['ops_done']")" = True ] ||
	fail "ops done: $(jq_py "$T/r.json" "d['replay']['ops_done']")"
[ "$(jq_py "$T/r.json" "d['replay']['fault_reads'], d['replay']['fault_reads_expected']")" = "16 16" ] ||
	fail "fault reads: $(jq_py "$T/r.json" "d['replay']['fault_reads']")"
[ "$(jq_py "$T/r.json" "sorted((j['tid'], j['read']['io_bytes'], j['read']['total_ios']) for j in d['jobs'])")" = \
  "[(1, 0, 0), (2, 524288, 8), (3, 508928, 8)]" ] ||
	fail "per reader: $(jq_py "$T/r.json" "[(j['tid'], j['read']['io_bytes']) for j in d['jobs']]")"

# a bad value is one line naming the key
printf '[reader]\nmmap = maybe\n' >"$T/bad.ini"
sed -n '1,/^\[reader\]/p' "$T/job.ini" | sed '$d' >"$T/bad2.ini"
cat "$T/bad.ini" >>"$T/bad2.ini"
printf '[train]\nepochs = 1\ncomputation_time = 0\n' >>"$T/bad2.ini"
err_line 2 "iotape replay: " "reader.mmap: 'maybe' is not on or off" "$IOTAPE" replay -d "$T/d2" "$T/bad2.ini"

[ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] ||
	skip "the replay checks passed; recording it needs root and BTF"
rm -rf "$T/d"
"$IOTAPE" record -q -e syscall -o "$T/a.tape" -- "$IOTAPE" replay --timing afap \
	-o "$T/a.out" -d "$T/d" "$T/job.ini" 2>"$T/rec.err" ||
	fail "record of the replay failed: $(cat "$T/rec.err")"
ok "$IOTAPE" dump -t syscall -F csv -o "$T/a.csv" "$T/a.tape"
python3 - "$T/d/data/img_0.jpg" "$T/a.csv" >"$T/chk" <<'PY' || fail "check script failed"
import csv, sys
reads = sorted((int(r['offset']), int(r['ret'])) for r in csv.DictReader(open(sys.argv[2]))
               if r['path'] == sys.argv[1] and r['op'] == 'uring_read')
K = 65536
want = sorted([(w * K, K) for w in (0, 1, 2, 3)] * 2 +
              [(w * K, K) for w in (1, 2, 3)] * 2 + [(4 * K, 320000 - 4 * K)] * 2)
print('ok' if reads == want else 'reads %s, want %s' % (reads, want))
PY
[ "$(cat "$T/chk")" = ok ] || fail "$(cat "$T/chk")"
exit 0
