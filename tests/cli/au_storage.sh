#!/bin/sh
# au_storage.sh - a storage-bound PyTorch job (traces/workloads/loader.py:
# one DataLoader worker reading 512 KiB files with 2 ms of decoding each, a
# trainer standing for an accelerator with 50 ms per step of 4 samples)
# on ext4 on a loop device throttled to 16 MiB/s of reads (cgroup blkio):
# 2 MiB a step take 125 ms, so the trainer waits for its batches (AU about
# 40%).  The job runs on the throttled storage and measures its AU; it is
# recorded on this machine's disk, where it does not wait; the recording is
# replayed on the throttled storage.  The replay's AU as DLIO computes it is
# the job's within 3 points, and the epoch's time (the AU window, from the
# end of the first step to the end of the last) the job's within 5%.
# Needs root, BTF, a loop device, cgroup block throttling, python3-torch.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/throttle_lib.sh"
. "$(dirname "$0")/au_lib.sh"

rec_need_bpf
au_need
need_args="--files 64 --size 524288 --epochs 1 --workers 1 --decode-ms 2 --compute-ms 50"
thr_setup 256
au_wrapper

# the job on the throttled storage, its page cache dropped
mkdir "$THR_MNT/s" || fail "mkdir"
"$PY" "$AU_JOB" "$THR_MNT/s" $need_args --epochs 0 || fail "making the data set"
sync && echo 3 >/proc/sys/vm/drop_caches || fail "drop_caches"
thr_limit $((16 << 20))
thr_exec "$T/job.sh" "$T/j.log" "$THR_MNT/s" $need_args --report "$T/j.json" ||
	fail "the job on the throttled storage: $(cat "$T/j.log")"
job=$(au_get "$T/j.json" 'd["au_mean"]')
jwin=$(au_get "$T/j.json" 'd["windows"][0][2] - d["windows"][0][1]')

# recorded on the unthrottled disk, replayed on the throttled storage
"$PY" "$AU_JOB" "$T/u" $need_args --epochs 0 || fail "making the data set"
"$IOTAPE" record -q -o "$T/a.iotape" -- "$T/job.sh" "$T/a.log" "$T/u" $need_args \
	--report "$T/a.json" || fail "the recorded job: $(cat "$T/a.log")"
fast=$(au_get "$T/a.json" 'd["au_mean"]')
au_get "$T/a.json" "1 if $fast > $job + 0.2 else 0" >"$T/fast"
echo "the job: AU $job on the throttled storage, $fast on this disk (recorded)"
[ "$(cat "$T/fast")" = 1 ] || fail "the job waits as much on this disk ($fast) as throttled ($job)"
# the data set on the throttled storage, what else the job read (python,
# torch) on this disk as in the job
mkdir "$THR_MNT/r" "$T/r" || fail "mkdir"
place="$T/u/*=$THR_MNT/r"
ok "$IOTAPE" replay --prepare-only -d "$T/r" --place "$place" "$T/a.iotape"
thr_exec "$IOTAPE" replay --no-prepare --drop-caches -d "$T/r" --place "$place" --output-format json \
	-o "$T/r.json" "$T/a.iotape" >"$T/r.out" 2>&1 || fail "replay: $(tail -n 3 "$T/r.out")"
rep=$(au_get "$T/r.json" 'd["scale"]["per_accelerator"][0]["au_dlio"]')
rwin=$(au_get "$T/r.json" 'd["scale"]["per_accelerator"][0]["au_windows_s"][0]')
au_near "replay on the throttled storage vs the job there" "$rep" "$job" 3
"$PY" -c "import sys; r, j = map(float, sys.argv[1:]); sys.exit(abs(r - j) > 0.05 * j)" \
	"$rwin" "$jwin" || fail "the epoch took $rwin s in the replay, $jwin s in the job (more than 5% apart)"
echo "epoch time: replay $rwin s, job $jwin s (within 5%)"
exit 0
