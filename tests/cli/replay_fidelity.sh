#!/bin/sh
# replay_fidelity.sh - think timing reproduces a real job's wall time.
#
# traces/image_folder.iotape is a real PyTorch job (main process and two
# DataLoader workers per epoch, 2 epochs).  Replayed with the recorded
# compute as delays, its wall time must be within 10% of the recording's,
# and every open/read/write the plan expects must be done.  Before the
# think delays started at the end of the thread's previous I/O, the waits
# for other threads added to them and this replay took 3x the recording.
. "$TOP/tests/cli/lib.sh"
. "$TOP/tests/cli/replay_lib.sh"
need_uring

ok "$IOTAPE" replay --output-format json -d "$T/r" "$TOP/traces/image_folder.iotape"
rec=$(jq_py "$T/out" "d['replay']['recorded_duration_ns']")
got=$(jq_py "$T/out" "d['replay']['replayed_duration_ns']")
[ -n "$rec" ] && [ "$rec" -gt 1000000000 ] || fail "recorded duration '$rec'"
awk -v r="$rec" -v g="$got" 'BEGIN { d = (g - r) / r; if (d < 0) d = -d; exit !(d <= 0.10) }' ||
	fail "replayed ${got} ns against ${rec} ns recorded: more than 10% apart"
for k in open read write; do
	e=$(jq_py "$T/out" "d['replay']['ops_expected']['$k']")
	n=$(jq_py "$T/out" "d['replay']['ops_done']['$k']")
	[ "$e" -gt 0 ] && [ "$e" = "$n" ] || fail "$k: $n of $e done"
done
echo "recorded $rec ns, replayed $got ns"
exit 0
