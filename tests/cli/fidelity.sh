#!/bin/sh
# fidelity.sh - record -> replay -> record: a replay of a real PyTorch job,
# recorded in turn, does what the job did (iotape-compare(1), CHECKS).
#
# The smallest bundled workload (traces/workloads/image_folder.py: 800
# JPEGs, 2 DataLoader workers per epoch, 2 epochs, a checkpoint per epoch)
# is recorded with the page cache dropped; replayed under a fresh DIR with
# think timing, the cache dropped again, while `iotape record` records the
# replay; `iotape compare --map DIR --check` must pass: read and write ops
# and bytes equal in total and per file, read randomness within 0.02,
# request sizes identical, compute gap within 5 %, duration within 10 %.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
PY=/usr/bin/python3
"$PY" -c "import torch, torchvision" 2>/dev/null || skip "needs $PY with torch and torchvision"
. "$TOP/tests/cli/replay_lib.sh"
need_uring

wl=$TOP/traces/workloads/image_folder.py
"$PY" "$wl" "$T/data" --epochs 0 >/dev/null || fail "making the data set failed"
drop() { sync; echo 3 >/proc/sys/vm/drop_caches || fail "cannot drop caches"; }

drop
"$IOTAPE" record -q -o "$T/a.iotape" -- "$PY" "$wl" "$T/data" >"$T/job.out" 2>&1 ||
	fail "recording the job failed: $(tail -n 3 "$T/job.out")"
# The compute gap and the duration are the timing checks: another job on
# the machine (a second test, a sanitizer build) can push them past their
# bounds (seen: -5.9 % and -7.4 % against 5 %, each once in some twenty
# runs).  Only those may fail the first replay; a second one must then pass
# every check.
for try in 1 2; do
	# prepared (again): DIR as prepare left it, so that the replay
	# restores nothing and adds no stat of its own
	ok "$IOTAPE" replay --prepare-only -d "$T/r" "$T/a.iotape"
	drop
	"$IOTAPE" record -q -f -o "$T/b.iotape" -- "$IOTAPE" replay --no-prepare --timing think \
		-d "$T/r" "$T/a.iotape" >"$T/replay.out" 2>&1 ||
		fail "recording the replay failed: $(tail -n 3 "$T/replay.out")"
	run "$IOTAPE" compare --map "$T/r" --check "$T/a.iotape" "$T/b.iotape"
	sed -n '/^SUMMARY/,/^$/p;/^COMPUTE/,/threads with/p;/^FILES$/,$p' "$T/out"
	[ "$rc" -eq 0 ] && break
	[ "$try" -eq 1 ] || fail "compare --check exited $rc: $(cat "$T/err")"
	failed=$(grep '^  FAIL ' "$T/out" | awk '{print $2}' | sort -u | tr '\n' ' ')
	case $failed in
	"compute_gap " | "duration " | "compute_gap duration ") ;;
	*) fail "compare --check exited $rc (failed: $failed): $(cat "$T/err")" ;;
	esac
	echo "timing check(s) $failed failed on the first replay; replaying again" >&2
done

ok "$IOTAPE" compare --json --map "$T/r" "$T/a.iotape" "$T/b.iotape"
mv "$T/out" "$T/c.json"
# the data set: every JPEG read by the job and by the replay, the same bytes
n=$(jq_py "$T/c.json" "sum(1 for f in d['files'] if '/images/' in f['path'] and f['read_bytes']['a'] > 0 and f['read_bytes']['a'] == f['read_bytes']['b'])")
[ "$n" = 800 ] || fail "JPEGs read alike: $n, want 800"
# both checkpoints, whole (torch.save: 8 MiB and more each)
n=$(jq_py "$T/c.json" "sum(1 for f in d['files'] if '/ckpt/epoch_' in f['path'] and f['write_bytes']['a'] > 8000000 and f['write_bytes']['a'] == f['write_bytes']['b'])")
[ "$n" = 2 ] || fail "checkpoints written alike: $n, want 2"
# the replay issued every read through io_uring, and the recorder saw each
r=$(jq_py "$T/c.json" "d['summary']['read_ops']['a']")
u=$(jq_py "$T/c.json" "d['kinds']['uring_read']['ops']['b']")
[ "$r" -gt 1000 ] && [ "$r" = "$u" ] || fail "reads: $r in the job, $u uring_read in the replay"
exit 0
