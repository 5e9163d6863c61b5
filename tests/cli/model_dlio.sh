#!/bin/sh
# iotape model --from-dlio: each DLIO-shaped workload of tests/data/dlio
# (files of our own, shaped like DLIO's and MLPerf Storage's configs) is
# the job DLIO runs of it, with DLIO's defaults and key semantics, one
# warning line per key it cannot honour; each job is replayed (sparse, as
# is) and does what DLIO does: the steps, the checkpoints (when, how many,
# how big: DLIO's sizing from the model keys, computed again here in
# Python), the files written.  An object store is one error line, exit 2;
# so are bad values (a list for a number, a folder outside DIR, a format
# with '/', 0 samples a file), YAML nested too deep, and bad YAML.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/model_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

D=$TOP/tests/data/dlio
[ -r "$D/pytorch_npz.yaml" ] || fail "no $D/pytorch_npz.yaml"

# imp NAME: import $D/NAME.yaml into $T/NAME.ini (warnings in $T/NAME.warn)
imp() {
	run "$IOTAPE" model --from-dlio "$D/$1.yaml" -o "$T/$1.ini"
	[ "$rc" = 0 ] || fail "$1: model exited $rc: $(cat "$T/err")"
	cp "$T/err" "$T/$1.warn"
	grep -v '^iotape model: warning: ' "$T/$1.warn" && fail "$1: not a warning line"
	return 0
}
# warns NAME PATTERN: one warning line of NAME.yaml has PATTERN
warns() {
	[ "$(grep -c -- "$2" "$T/$1.warn")" = 1 ] || fail "$1: no one warning line with '$2': $(cat "$T/$1.warn")"
}
# rep NAME ARGS...: replay NAME.ini (sparse) with ARGS, JSON in $T/NAME.json
rep() {
	n=$1
	shift
	run "$IOTAPE" replay --sparse --output-format json -o "$T/$n.json" -d "$T/$n.d" "$@" "$T/$n.ini"
	[ "$rc" = 0 ] || fail "$n: replay exited $rc: $(cat "$T/err")"
	[ "$(jq_py "$T/$n.json" "d['replay']['ops_expected'] == d['replay']['ops_done'] and d['replay']['ops_failed'] == 0")" = True ] ||
		fail "$n: ops done $(jq_py "$T/$n.json" "d['replay']['ops_done']"), expected $(jq_py "$T/$n.json" "d['replay']['ops_expected']")"
}
# js NAME EXPR: a Python expression over NAME's JSON report
js() {
	jq_py "$T/$1.json" "$2"
}

# --- PyTorch, npz: DLIO's layout, its generator's sizes, name order,
# prefetch per worker, computation_time {mean, stdev}, a checkpoint after
# epoch 3 only (after 3, every 2, 4 epochs) of DLIO's default model state
imp pytorch_npz
f=$T/pytorch_npz.ini
want "$f" job name seg3d
want "$f" dataset data_folder data/seg3d/train
want "$f" dataset num_files 12
want "$f" dataset num_subfolders 2
want "$f" dataset file_prefix img_
want "$f" dataset file_suffix _of_12.npz
want "$f" reader read_threads 2
want "$f" reader batch_size 3
want "$f" reader prefetch_size 2
want "$f" reader file_shuffle off
want "$f" reader sample_shuffle off
want "$f" reader drop_last on
want "$f" reader transfer_size 262144
want "$f" train epochs 4
want "$f" train computation_time 0.004
want "$f" train computation_time_stdev 0.001
want "$f" train seed 7
want "$f" checkpoint checkpoint_folder checkpoints/seg3d
want "$f" checkpoint checkpoint_after_epoch 3
want "$f" checkpoint epochs_between_checkpoints 2
want "$f" checkpoint size 10240
want "$f" checkpoint fsync off
warns pytorch_npz ':32: reader.file_shuffle: seed: no effect with DLIO.s PyTorch loader'
warns pytorch_npz ':33: reader.sample_shuffle: seed: no effect'
warns pytorch_npz ':8: model.model_size: not a key DLIO reads'
warns pytorch_npz ':48: metric.au: 0.90'
[ "$(wc -l <"$T/pytorch_npz.warn")" = 4 ] || fail "pytorch_npz: warnings $(cat "$T/pytorch_npz.warn")"
# DLIO's npz of 200 x 200 (sqrt 40000), each dimension normal with stdev
# 8000 / 2 / 200 = 20 and truncated: mean and stdev of d1 d2 + 498 bytes
python3 - "$(ini_get "$f" dataset record_length)" "$(ini_get "$f" dataset record_length_stdev)" <<'PY' || fail "pytorch_npz: record_length $(ini_get "$f" dataset record_length) +- $(ini_get "$f" dataset record_length_stdev)"
import random, sys
r = random.Random(1)
v = [max(int(r.gauss(200, 20)), 1) * max(int(r.gauss(200, 20)), 1) + 490 + 8 for _ in range(200000)]
m = sum(v) / len(v)
sd = (sum((x - m) ** 2 for x in v) / len(v)) ** 0.5
sys.exit(0 if abs(float(sys.argv[1]) - m) < 0.003 * m and abs(float(sys.argv[2]) - sd) < 0.02 * sd else 1)
PY
rep pytorch_npz
[ "$(js pytorch_npz "d['scale']['steps_per_loop'], d['replay']['ops_expected']['write']")" = "16 1" ] ||
	fail "pytorch_npz: $(js pytorch_npz "d['scale']")"
[ "$(ls "$T/pytorch_npz.d/checkpoints/seg3d")" = ckpt_3.pt ] ||
	fail "pytorch_npz: checkpoints $(ls "$T/pytorch_npz.d/checkpoints/seg3d")"
[ "$(find "$T/pytorch_npz.d/data/seg3d/train/sub_1" -name 'img_*_of_12.npz' | wc -l)" = 6 ] ||
	fail "pytorch_npz: $(find "$T/pytorch_npz.d/data" -type f)"

# --- TensorFlow, TFRecord: DLIO's defaults (1 epoch, 1 reader, seed 123),
# the file order shuffled once, tf.data's 256 KiB reads, an absolute folder
# placed under DIR, a TFRecord record's framing and Example around the
# 100 x 100 bytes
imp tf_tfrecord
f=$T/tf_tfrecord.ini
want "$f" dataset data_folder mnt/lustre/cosmo/train
want "$f" train epochs 1
want "$f" reader read_threads 1
want "$f" train seed 123
want "$f" reader file_shuffle once
want "$f" reader sample_shuffle off
want "$f" reader transfer_size 262144
want "$f" dataset num_samples_per_file 4
want "$f" dataset record_length $((10000 + 51))
want "$f" checkpoint size -
warns tf_tfrecord ':15: dataset.data_folder: /mnt/lustre/cosmo/: an absolute path, placed under DIR as mnt/lustre/cosmo'
rep tf_tfrecord
[ "$(js tf_tfrecord "d['scale']['steps_per_loop'], d['scale']['read_bytes']")" = "12 $((12 * 5 * 10051))" ] ||
	fail "tf_tfrecord: 64 samples in batches of 5: $(js tf_tfrecord "d['scale']")"
[ -d "$T/tf_tfrecord.d/mnt/lustre/cosmo/train" ] || fail "tf_tfrecord: the folder is not under DIR"

# --- checkpoints only, a transformer: DLIO's sizing, again here, for its
# 4 ranks (tensor 2 x pipeline 2), ZeRO 1: 2 written, then 1 read, fsync
imp llama_ckpt
f=$T/llama_ckpt.ini
want "$f" job ranks 4
want "$f" dataset num_files 0
want "$f" train computation_time 0.01
want "$f" checkpoint num_checkpoints_write 2
want "$f" checkpoint num_checkpoints_read 1
want "$f" checkpoint fsync on
warns llama_ckpt ':33: checkpoint.fsync: True: fsync on'
# (base_checkpointing.py: layers of a pipeline stage, rank 0's with the
# embedding, the last's with lm_head and the final norm, the model's
# parameters over TP saved by data-parallel rank 0 a file a layer; the
# optimizer's 3 x parameters / (DP x MP) + 15 x hidden, fp32)
python3 - "$(ini_get "$f" checkpoint size)" "$(ini_get "$f" checkpoint files)" <<'PY' || fail "llama_ckpt: size $(ini_get "$f" checkpoint size) in $(ini_get "$f" checkpoint files) files"
import sys
L, h, ffn, heads, kv, V, TP, PP, ranks = 4, 256, 1024, 8, 2, 1000, 2, 2, 4
dkv = h // heads * kv
layer = [h, h * (h + 2 * dkv) // TP, h * h // TP, h, h * 2 * ffn // TP, h * ffn // TP]
nparam = V * h + (h + h * (h + 2 * dkv) + h * h + h + ffn * 2 * h + ffn * h) * L + h + V * h
tot = files = 0
for r in range(ranks):
    pp = (r // TP) % PP
    first, last = pp * L // PP + 1, (pp + 1) * L // PP
    if pp == 0: first = 0
    if pp == PP - 1: last = L + 2
    model = 0
    for li in range(first, last + 1):
        model += 2 * (h * V // TP if li in (0, L + 1) else h if li == L + 2 else sum(layer))
    files += last - first + 1 + 1
    tot += model + 4 * (3 * (nparam // ranks) + 15 * h)
ok = int(sys.argv[1]) == round(tot / ranks) and int(sys.argv[2]) == (files + ranks // 2) // ranks
sys.exit(0 if ok else 1)
PY
rep llama_ckpt
s=$(ini_get "$f" checkpoint size)
[ "$(js llama_ckpt "d['scale']['steps_per_loop'], d['scale']['write_bytes'], d['scale']['read_bytes'], d['replay']['ops_expected']['fsync']")" = \
  "3 $((2 * s)) $s 10" ] || fail "llama_ckpt: $(js llama_ckpt "d['scale']")"

# --- no dataset section, but training and checkpoints asked for (DLIO's
# llama_1t): checkpoints only; a model state of model_size_bytes
imp no_dataset
f=$T/no_dataset.ini
want "$f" dataset num_files 0
want "$f" checkpoint num_checkpoints_write 3
want "$f" checkpoint num_checkpoints_read 0
want "$f" checkpoint size 300000
want "$f" train computation_time 1
warns no_dataset ':12: workflow.train: True without a dataset section'
rep no_dataset --set train.computation_time=0.01
[ "$(js no_dataset "d['scale']['write_bytes'], d['scale']['read_bytes']")" = "900000 0" ] ||
	fail "no_dataset: $(js no_dataset "d['scale']")"

# --- generate_data alone: the job writes the data set (npy of 64 x 64 x 2
# bytes and its 128-byte header a file), nothing else
imp datagen
f=$T/datagen.ini
want "$f" dataset generate on
want "$f" dataset record_length $(((64 * 64 * 2 + 128) / 2))
rep datagen
[ "$(js datagen "d['scale']['write_bytes'], d['scale']['read_bytes']")" = "$((6 * (64 * 64 * 2 + 128))) 0" ] ||
	fail "datagen: $(js datagen "d['scale']")"
[ "$(find "$T/datagen.d/data/gen/train" -name '*_of_6.npy' -size $((64 * 64 * 2 + 128))c | wc -l)" = 6 ] ||
	fail "datagen: $(find "$T/datagen.d" -type f)"

# --- one indexed file of 2 * 10^9 samples (no per-sample limit) read
# through a map, 5 steps an epoch (total_training_steps), a checkpoint
# after steps 2 and 4 of each epoch; predefined layer parameters and
# optimizer groups (int8), 2 x 2 model parallelism, ZeRO 1: a rank writes
# 2 layers' (400 + 1200) / 2 bytes a file each, 3 x 3030 bytes of
# optimizer state and DLIO's default 10240-byte model state
imp indexed_steps
f=$T/indexed_steps.ini
want "$f" dataset num_samples_per_file 2000000000
want "$f" reader mmap on
want "$f" train steps_per_epoch 5
want "$f" checkpoint steps_between_checkpoints 2
want "$f" checkpoint size $((2 * 800 + 3 * 3030 + 10240))
want "$f" checkpoint files 4
want "$f" job ranks 4
rep indexed_steps
[ "$(js indexed_steps "d['scale']['steps_per_loop'], d['scale']['write_bytes']")" = "10 $((4 * (2 * 800 + 3 * 3030 + 10240)))" ] ||
	fail "indexed_steps: $(js indexed_steps "d['scale']")"
ls "$T/indexed_steps.d/checkpoints/megalite" >"$T/ck" || fail "ls"
[ "$(sed 's/_[0-9]*\.pt$//' "$T/ck" | sort -u | tr '\n' ' ')" = "ckpt_step2 ckpt_step4 ckpt_step7 ckpt_step9 " ] ||
	fail "indexed_steps: checkpoints $(cat "$T/ck")"

# --- workflow.checkpoint alone: DLIO's defaults write one after each
# epoch into checkpoints/; JPEG files of what Pillow writes for 200 x 200
# pixels of noise (about 0.555 bytes a pixel)
imp bare_checkpoint
f=$T/bare_checkpoint.ini
want "$f" dataset data_folder data/train
want "$f" checkpoint checkpoint_folder checkpoints
want "$f" checkpoint checkpoint_after_epoch 1
want "$f" checkpoint epochs_between_checkpoints 1
want "$f" checkpoint size 10240
r=$(ini_get "$f" dataset record_length)
[ "$r" -gt 21900 ] && [ "$r" -lt 22700 ] || fail "bare_checkpoint: a JPEG of 200 x 200 is $r bytes"
rep bare_checkpoint
[ "$(ls "$T/bare_checkpoint.d/checkpoints" | tr '\n' ' ')" = "ckpt_1.pt ckpt_2.pt " ] ||
	fail "bare_checkpoint: $(ls "$T/bare_checkpoint.d/checkpoints")"

# --- iotape replay runs a workload YAML as the job model writes of it
run "$IOTAPE" replay --sparse --output-format json -o "$T/direct.json" -d "$T/direct.d" \
	--set train.epochs=2 "$D/pytorch_npz.yaml"
[ "$rc" = 0 ] || fail "replay of the YAML exited $rc: $(cat "$T/err")"
[ "$(grep -c '^iotape replay: warning: ' "$T/err")" = 4 ] || fail "replay of the YAML: $(cat "$T/err")"
[ "$(js direct "d['scale']['steps_per_loop'], d['replay']['ops_expected']['write']")" = "8 0" ] ||
	fail "replay of the YAML, 2 epochs: $(js direct "d['scale']")"
err_line 2 "iotape replay: $D/s3.yaml:7: " "storage.storage_type: s3: " \
	"$IOTAPE" replay -d "$T/s3.d" "$D/s3.yaml"
[ -e "$T/s3.d" ] && fail "replay of s3.yaml made DIR"

# --- an object store: one error line, exit 2, nothing written
rm -f "$T/s3.ini"
err_line 2 "iotape model: $D/s3.yaml:7: " "storage.storage_type: s3: " \
	"$IOTAPE" model --from-dlio "$D/s3.yaml" -o "$T/s3.ini"
[ -e "$T/s3.ini" ] && fail "s3: wrote a job file"

# --- bad values: FILE:LINE, exit 2, nothing written
bad() {	# NAME LINE PATTERN: YAML in $T/NAME.yaml
	rm -f "$T/bad.ini"
	err_line 2 "iotape model: $T/$1.yaml:$2: " "$3" "$IOTAPE" model -d "$T/$1.yaml" -o "$T/bad.ini"
	[ -e "$T/bad.ini" ] && fail "$1: wrote $T/bad.ini"
	[ -s "$T/out" ] && fail "$1: wrote to stdout"
	return 0
}
printf 'dataset:\n  num_files_train: 4\n  x: [1,\n' >"$T/syntax.yaml"
bad syntax 4 ""
printf 'dataset:\n  data_folder: d\n  num_files_train: abc\n' >"$T/type.yaml"
bad type 3 "dataset.num_files_train: 'abc' is not a whole number"
printf 'dataset:\n  num_files_train: [1, 2]\n' >"$T/list.yaml"
bad list 2 "dataset.num_files_train: a list where a value goes"
printf 'train:\n  epochs:\n    a: 1\n' >"$T/map.yaml"
bad map 2 "train.epochs: a mapping where a value goes"
printf 'dataset:\n  data_folder: ../../etc\n' >"$T/up.yaml"
bad up 2 "dataset.data_folder: '../../etc' is not a folder under DIR"
printf 'dataset:\n  format: a/b\n' >"$T/fmt.yaml"
bad fmt 2 "dataset.format: 'a/b' is not a DLIO format"
printf 'dataset:\n  file_prefix: a/b\n' >"$T/pfx.yaml"
bad pfx 2 "dataset.file_prefix: 'a/b' has a '/'"
printf 'dataset:\n  num_samples_per_file: 0\n' >"$T/zero.yaml"
bad zero 2 "dataset.num_samples_per_file: 0: not 1 or more"
printf 'train:\n  computation_time: -x\n' >"$T/ct.yaml"
bad ct 2 "train.computation_time: '-x' is not a number of seconds"
printf 'reader:\n  file_shuffle: [a]\n' >"$T/shuf.yaml"
bad shuf 2 "reader.file_shuffle: a list where a value goes"
printf 'workflow:\n  train: False\n' >"$T/none.yaml"
bad none 2 "DLIO runs nothing"
printf -- '- a\n- b\n' >"$T/top.yaml"
bad top 1 "not a DLIO workload"
# 100,000 nested flow sequences: refused at the 33rd, at once
python3 -c "print('dataset: ' + '[' * 100000 + ']' * 100000)" >"$T/deep.yaml" || fail "python3"
bad deep 1 "nested deeper than 32 levels"
err_line 1 "iotape model: " "$T/nofile.yaml" "$IOTAPE" model -d "$T/nofile.yaml"
exit 0
