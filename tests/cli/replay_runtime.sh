#!/bin/sh
# replay --runtime T ends the run at T (fio's runtime), also where a thread
# is in a long compute gap when T comes: the shards trace (29.4 s recorded,
# ~17 s replayed with think timing, its threads' compute gaps seconds
# long) replayed with --runtime 1 under think and original timing ends
# about 1 s after its start (each run timed with date +%s%N: the bound is
# generous, a loaded machine's), its report says the bound was reached,
# and fewer ops were done than a whole run's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

tape=$TOP/traces/shards.iotape
[ -r "$tape" ] || fail "no $tape"
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$tape"

ms() { echo $(($(date +%s%N) / 1000000)); }
for timing in think original; do
	t0=$(ms)
	ok "$IOTAPE" replay --timing $timing --runtime 1 --output-format json -o "$T/rt.json" \
		-d "$T/d" "$tape"
	took=$(($(ms) - t0))
	[ "$took" -lt 5000 ] || fail "--runtime 1 ($timing): the replay took $took ms"
	j() { jq_py "$T/rt.json" "$1"; }
	r=$(j "d['replay']['replayed_duration_ns']") || fail "$timing: no replayed_duration_ns"
	[ "$(j "1e9 <= d['replay']['replayed_duration_ns'] < 2.5e9")" = True ] ||
		fail "--runtime 1 ($timing): replayed for $r ns"
	[ "$(j "d['scale']['runtime_limit_ns']")" = 1000000000 ] || fail "$timing: limit not reported"
	[ "$(j "0 < sum(d['replay']['ops_done'].values()) < sum(d['replay']['ops_expected'].values())")" = True ] ||
		fail "--runtime 1 ($timing): ops done $(j "d['replay']['ops_done']")"
	[ "$(j "d['replay']['ops_failed']")" = 0 ] ||
		fail "--runtime 1 ($timing): ops failed"
done

# the text report says the bound was reached
t0=$(ms)
ok "$IOTAPE" replay --runtime 1 -d "$T/d" "$tape"
took=$(($(ms) - t0))
[ "$took" -lt 5000 ] || fail "--runtime 1 (text): the replay took $took ms"
grep -q '^  runtime bound: 1.000s (reached: the ops after it were not taken)$' "$T/out" ||
	fail "--runtime text: $(grep runtime "$T/out")"
exit 0
