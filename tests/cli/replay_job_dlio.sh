#!/bin/sh
# replay_job_dlio.sh - the job-file keys that carry DLIO's semantics
# (iotape-job(5)) do what DLIO does, seen in the replay's JSON report (the
# ops expected and done, bytes) and in DIR (the files made):
#  - checkpoint_after_epoch: 5 epochs, after epoch 5, every 2: one
#    checkpoint, ckpt_5.pt (DLIO's unet3d: not one after epochs 2 and 4);
#  - steps_between_checkpoints counts the steps of each epoch (DLIO resets
#    its count at each epoch): 5 steps an epoch, every 2: after steps 2, 4,
#    7 and 9 of the run;
#  - num_checkpoints_write 3, num_checkpoints_read 2 (checkpoints only):
#    5 steps, 3 checkpoints written then 2 read; with 0 written, the 2 read
#    are prepared before the run;
#  - drop_last: 10 samples in batches of 4, 2 steps, 8 files read;
#  - steps_per_epoch with a data set (DLIO's total_training_steps): the
#    first steps of each epoch only, and the files no step reads are not
#    prepared;
#  - generate: the job writes the data set (6 files, 2 writers), reads
#    nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# ops JSON: "OPS" sorted (kind, count) of the expected ops, which must
# equal those done, none failed
ops() {
	[ "$(jq_py "$1" "d['replay']['ops_expected'] == d['replay']['ops_done'] and d['replay']['ops_failed'] == 0")" = True ] ||
		fail "$1: ops done $(jq_py "$1" "d['replay']['ops_done'], d['replay']['ops_failed']"), expected $(jq_py "$1" "d['replay']['ops_expected']")"
	jq_py "$1" "sorted((k, v) for k, v in d['replay']['ops_expected'].items() if v)"
}

head='[job]
format = 1
[dataset]
data_folder = data
record_length = 1000
[train]
computation_time = 0'

# checkpoint_after_epoch
printf '%s\n' "$head" '[dataset]' 'num_files = 8' '[reader]' 'batch_size = 2' \
	'[train]' 'epochs = 5' '[checkpoint]' 'checkpoint_after_epoch = 5' \
	'epochs_between_checkpoints = 2' 'size = 4k' >"$T/after.ini" || fail "write after.ini"
ok "$IOTAPE" replay --output-format json -o "$T/after.json" -d "$T/after" "$T/after.ini"
[ "$(ops "$T/after.json")" = "[('close', 41), ('fsync', 1), ('open', 41), ('read', 80), ('write', 1)]" ] ||
	fail "after: ops $(ops "$T/after.json")"
[ "$(ls "$T/after/checkpoints")" = ckpt_5.pt ] || fail "after: checkpoints $(ls "$T/after/checkpoints")"

# steps_between_checkpoints, counted in each epoch
printf '%s\n' "$head" '[dataset]' 'num_files = 10' '[reader]' 'batch_size = 2' \
	'[train]' 'epochs = 2' '[checkpoint]' 'steps_between_checkpoints = 2' 'size = 4k' \
	>"$T/steps.ini" || fail "write steps.ini"
ok "$IOTAPE" replay --output-format json -o "$T/steps.json" -d "$T/steps" "$T/steps.ini"
[ "$(ls "$T/steps/checkpoints" | tr '\n' ' ')" = "ckpt_step2.pt ckpt_step4.pt ckpt_step7.pt ckpt_step9.pt " ] ||
	fail "steps: checkpoints $(ls "$T/steps/checkpoints")"
[ "$(jq_py "$T/steps.json" "d['replay']['ops_expected']['write']")" = 4 ] || fail "steps: not 4 writes"

# num_checkpoints_write, num_checkpoints_read
ck='[job]
format = 1
[dataset]
num_files = 0
[train]
computation_time = 0.01
[checkpoint]
size = 64k
files = 2
num_checkpoints_read = 2'
printf '%s\n' "$ck" 'num_checkpoints_write = 3' >"$T/wr.ini" || fail "write wr.ini"
ok "$IOTAPE" replay --output-format json -o "$T/wr.json" -d "$T/wr" "$T/wr.ini"
[ "$(ops "$T/wr.json")" = "[('close', 10), ('fsync', 6), ('open', 10), ('read', 4), ('write', 6)]" ] ||
	fail "write 3, read 2: ops $(ops "$T/wr.json")"
[ "$(jq_py "$T/wr.json" "d['scale']['steps_per_loop'], d['scale']['read_bytes'], d['scale']['write_bytes']")" = \
  "5 131072 196608" ] || fail "write 3, read 2: $(jq_py "$T/wr.json" "d['scale']")"
[ "$(ls "$T/wr/checkpoints" | tr '\n' ' ')" = \
  "ckpt_step1_0.pt ckpt_step1_1.pt ckpt_step2_0.pt ckpt_step2_1.pt ckpt_step3_0.pt ckpt_step3_1.pt " ] ||
	fail "write 3, read 2: checkpoints $(ls "$T/wr/checkpoints")"
printf '%s\n' "$ck" 'num_checkpoints_write = 0' >"$T/rd.ini" || fail "write rd.ini"
ok "$IOTAPE" replay --prepare-only -d "$T/rd" "$T/rd.ini"
[ "$(find "$T/rd/checkpoints" -type f -size 32768c | wc -l)" = 4 ] ||
	fail "read only: the 2 checkpoints are not prepared: $(ls -l "$T/rd/checkpoints")"
ok "$IOTAPE" replay --no-prepare --output-format json -o "$T/rd.json" -d "$T/rd" "$T/rd.ini"
[ "$(ops "$T/rd.json")" = "[('close', 4), ('open', 4), ('read', 4)]" ] ||
	fail "read only: ops $(ops "$T/rd.json")"

# drop_last
printf '%s\n' "$head" '[dataset]' 'num_files = 10' '[reader]' 'batch_size = 4' \
	'drop_last = on' 'file_shuffle = off' >"$T/drop.ini" || fail "write drop.ini"
ok "$IOTAPE" replay --set train.computation_time=0.002 --output-format json -o "$T/drop.json" -d "$T/drop" "$T/drop.ini"
[ "$(jq_py "$T/drop.json" "d['scale']['steps_per_loop'], d['scale']['read_bytes']")" = "2 8000" ] ||
	fail "drop_last: $(jq_py "$T/drop.json" "d['scale']")"

# steps_per_epoch caps an epoch; unread files are not prepared
printf '%s\n' "$head" '[dataset]' 'num_files = 10' '[reader]' 'batch_size = 2' \
	'file_shuffle = off' '[train]' 'epochs = 2' 'steps_per_epoch = 2' >"$T/cap.ini" ||
	fail "write cap.ini"
ok "$IOTAPE" replay --set train.computation_time=0.002 --output-format json -o "$T/cap.json" -d "$T/cap" "$T/cap.ini"
[ "$(jq_py "$T/cap.json" "d['scale']['steps_per_loop'], d['scale']['read_bytes']")" = "4 8000" ] ||
	fail "steps_per_epoch: $(jq_py "$T/cap.json" "d['scale']")"
[ "$(ls "$T/cap/data" | tr '\n' ' ')" = "img_0.jpg img_1.jpg img_2.jpg img_3.jpg " ] ||
	fail "steps_per_epoch: prepared $(ls "$T/cap/data")"

# generate: the data set written, nothing read
printf '%s\n' "$head" '[dataset]' 'num_files = 6' 'num_subfolders = 2' 'generate = on' \
	'[reader]' 'read_threads = 2' 'transfer_size = 512' >"$T/gen.ini" || fail "write gen.ini"
ok "$IOTAPE" replay --output-format json -o "$T/gen.json" -d "$T/gen" "$T/gen.ini"
[ "$(ops "$T/gen.json")" = "[('close', 6), ('open', 6), ('write', 12)]" ] ||
	fail "generate: ops $(ops "$T/gen.json")"
[ "$(find "$T/gen/data" -type f -size 1000c | wc -l)" = 6 ] ||
	fail "generate: files $(find "$T/gen/data" -type f -printf '%p %s\n')"
[ "$(jq_py "$T/gen.json" "d['scale']['read_bytes'], d['scale']['write_bytes']")" = "0 6000" ] ||
	fail "generate: $(jq_py "$T/gen.json" "d['scale']")"
exit 0
