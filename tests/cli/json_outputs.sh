#!/bin/sh
# json_outputs.sh - the replay's JSON on the bundled traces (traces/*.iotape,
# --timing afap; also two accelerators, --stage-hot and --burst-buffer) is
# byte for byte tests/data/outputs/replay/*.json.gz once what a run's timing
# decides is masked: every key, its place and every count and byte stay.
# What is masked (its value written "~"; a latency keeps only its count N):
# times, latencies, rates, AU, CPU and context-switch counts, and the bytes
# the storage read (page cache), by the key's name (json_mask.py, which
# json_outputs_whatif.sh uses for whatif's JSON).  A redesign of the
# replay's layers (issue #29) must leave it as it is.  Regenerate after an intended change:
#   IOTAPE_OUTPUTS_WRITE=1 sh tests/cli/json_outputs.sh
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
want=$TOP/tests/data/outputs/replay
mask=$TOP/tests/cli/json_mask.py

n=0
# check NAME TRACE [OPTION...]: the masked JSON of one replay
check() {
	name=$1 tr=$TOP/traces/$2.iotape
	shift 2
	rm -rf "$T/d" "$T/f"
	mkdir "$T/f" || fail "mkdir"
	"$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$T/d" "$@" "$tr" \
		>"$T/r.out" 2>&1 || fail "replay $name: $(tail -n 3 "$T/r.out")"
	"$PY" "$mask" "$T/r.json" "$T/d" DIR "$T/f" FAST >"$T/$name.json" ||
		fail "masking $name"
	if [ -n "${IOTAPE_OUTPUTS_WRITE:-}" ]; then
		gzip -n -9 <"$T/$name.json" >"$want/$name.json.gz" || fail "gzip"
	fi
	[ -f "$want/$name.json.gz" ] || fail "no $want/$name.json.gz (IOTAPE_OUTPUTS_WRITE=1 writes it)"
	gzip -dc "$want/$name.json.gz" >"$T/want.json" || fail "gzip -d $want/$name.json.gz"
	cmp -s "$T/want.json" "$T/$name.json" ||
		fail "replay $name: the JSON differs from $want/$name.json.gz: $(diff "$T/want.json" "$T/$name.json" | head -n 12)"
	n=$((n + 1))
}
for t in image_folder checkpoint memmap shards; do
	check "$t" "$t"
done
check image_folder-n2 image_folder -n 2
check image_folder-stage image_folder --stage-hot "$T/f" --stage-size 4m
check checkpoint-burst checkpoint --burst-buffer "$T/f"
echo "$n replays' JSON as tests/data/outputs/replay/ holds it (timings masked)"
