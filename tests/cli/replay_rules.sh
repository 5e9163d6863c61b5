#!/bin/sh
# SPDX-License-Identifier: MIT
# replay_rules.sh - the replay's training steps and data set are the
# analysis's (one step rule, iotape-analyze(1) ACCELERATOR; one data-set
# rule, DATA SET; issue #29).
#
# On the bundled traces (two trainers fed through pipes, a step per batch;
# two that step at each gap of 1 ms of work), the replay's
# scale.steps_per_loop and step_thread are analyze's au.thread.steps and
# au.thread.tid.  With --sync-steps on two accelerators the replay runs
# and says the same steps.  Before the rule was one, the replay counted
# its own gaps: 234 steps on image_folder where analyze counts 50.
# The data set: where it is read by read calls (image_folder's 800 JPEGs,
# shards' 128 tar files) the replay's replay.dataset_bytes and
# scale.prepared_dataset_bytes are analyze's dataset.read_bytes and
# dataset.bytes; checkpoint has none (analyze: no data set), where the
# replay took every prepared, only-read file (17.5 MB of code and system
# files) before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

for t in image_folder shards memmap checkpoint; do
	"$IOTAPE" analyze --json "$TOP/traces/$t.iotape" >"$T/$t.a.json" 2>"$T/err" ||
		fail "$t: analyze: $(cat "$T/err")"
	want=$(jq_py "$T/$t.a.json" "d['au']['thread']['steps'], d['au']['thread']['tid']")
	[ -n "$want" ] || fail "$t: analyze says no training thread"
	run "$IOTAPE" replay --timing afap -d "$T/d.$t" --output-format json -o "$T/$t.r.json" \
		"$TOP/traces/$t.iotape"
	[ "$rc" = 0 ] || fail "$t: replay exit $rc: $(tail -n 3 "$T/err")"
	got=$(jq_py "$T/$t.r.json" "d['scale']['steps_per_loop'], d['scale']['step_thread']")
	[ "$got" = "$want" ] || fail "$t: the replay's steps and trainer $got, analyze's $want"
done
for t in image_folder shards; do
	want=$(jq_py "$T/$t.a.json" "d['dataset']['read_bytes'], d['dataset']['bytes']")
	got=$(jq_py "$T/$t.r.json" "d['replay']['dataset_bytes'], d['scale']['prepared_dataset_bytes']")
	[ "$got" = "$want" ] || fail "$t: the replay's data set $got (read, prepared), analyze's $want"
done
[ "$(jq_py "$T/checkpoint.r.json" "d['replay']['dataset_bytes'], d['scale']['prepared_dataset_bytes']")" = "0 0" ] ||
	fail "checkpoint: the replay finds a data set where analyze finds none"
[ "$(jq_py "$T/image_folder.a.json" "d['au']['thread']['steps']")" = 50 ] ||
	fail "image_folder: analyze's steps are no longer 50"

run "$IOTAPE" replay --timing afap -n 2 --sync-steps -d "$T/s" --output-format json \
	-o "$T/s.json" "$TOP/traces/image_folder.iotape"
[ "$rc" = 0 ] || fail "--sync-steps -n 2: exit $rc: $(tail -n 3 "$T/err")"
[ "$(jq_py "$T/s.json" "d['scale']['sync_steps'], d['scale']['steps_per_loop']")" = "True 50" ] ||
	fail "--sync-steps -n 2: $(jq_py "$T/s.json" "d['scale']")"
exit 0
