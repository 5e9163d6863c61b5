#!/bin/sh
# iotape model --from-dlio: DLIO's keys map to the job file's, the keys
# with no meaning are named in one warning line; bad YAML, a wrong type or
# a negative size: one error line with FILE:LINE, exit 2, no file written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/model_lib.sh"

cat >"$T/w.yaml" <<'Y'
model:
  name: unet3d
  type: cnn
framework: pytorch
workflow:
  generate_data: False
  train: True
  checkpoint: True
dataset:
  data_folder: data/unet3d/
  format: npz
  num_files_train: 168
  num_subfolders_train: 4
  num_samples_per_file: 2
  record_length_bytes: 114660.07
  record_length_bytes_stdev: 68341808
  record_length_bytes_resize: 2097152
  file_prefix: img
reader:
  data_loader: pytorch
  batch_size: 7
  read_threads: 4
  transfer_size: 262144
  file_shuffle: seed
  sample_shuffle: off
  prefetch_size: 3
  odirect: True
train:
  epochs: 5
  computation_time: 0.323
  computation_time_stdev: 0.01
checkpoint:
  checkpoint_folder: checkpoints/unet3d
  checkpoint_after_epoch: 5
  epochs_between_checkpoints: 2
  model_size: 499153191
metric:
  au: 0.90
Y
f=$T/w.ini
run "$IOTAPE" model --from-dlio "$T/w.yaml" -o "$f"
[ "$rc" -eq 0 ] || fail "--from-dlio exited $rc: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "want one warning line: $(cat "$T/err")"
for k in model.type framework workflow.generate_data dataset.record_length_bytes_resize \
	reader.data_loader checkpoint.checkpoint_after_epoch metric.au; do
	grep -qF "$k" "$T/err" || fail "the warning does not name $k: $(cat "$T/err")"
done
grep -q "^iotape model: warning: " "$T/err" || fail "warning: $(cat "$T/err")"
grep -qF num_files_train "$T/err" && fail "a mapped key in the warning: $(cat "$T/err")"
want "$f" job name unet3d
want "$f" dataset data_folder data/unet3d/
want "$f" dataset num_files 168
want "$f" dataset num_subfolders 4
want "$f" dataset num_samples_per_file 2
want "$f" dataset record_length 114660
want "$f" dataset record_length_stdev 68341808
want "$f" dataset file_prefix img
want "$f" dataset file_suffix .npz
want "$f" reader batch_size 7
want "$f" reader read_threads 4
want "$f" reader transfer_size 262144
want "$f" reader file_shuffle on
want "$f" reader sample_shuffle off
want "$f" reader prefetch_size 3
want "$f" reader odirect on
want "$f" train epochs 5
want "$f" train computation_time 0.323
want "$f" train computation_time_stdev 0.01
want "$f" checkpoint checkpoint_folder checkpoints/unet3d
want "$f" checkpoint epochs_between_checkpoints 2
want "$f" checkpoint size 499153191
grep -q 'record_length = 114660 .*; DLIO dataset.record_length_bytes: 114660.07' "$f" ||
	fail "record_length does not say where it comes from: $(grep record_length "$f")"

# no workflow.checkpoint: no [checkpoint] (its keys in the warning);
# workflow.train: False: checkpoints only (num_files = 0)
cat >"$T/nock.yaml" <<'Y'
model: resnet50
dataset:
  num_files_train: 1024
  record_length: 150528
train:
  epoch: 3
  computation_time: 0.1
checkpoint:
  checkpoint_folder: ck
Y
run "$IOTAPE" model -d "$T/nock.yaml"
[ "$rc" -eq 0 ] || fail "nock: exited $rc"
cp "$T/out" "$T/nock.ini"
want "$T/nock.ini" checkpoint checkpoint_folder -
want "$T/nock.ini" job name resnet50
want "$T/nock.ini" train epochs 3
want "$T/nock.ini" dataset record_length 150528
grep -qF "workflow.checkpoint" "$T/err" || fail "nock: checkpoint keys not named: $(cat "$T/err")"
printf 'workflow:\n  train: False\n  checkpoint: True\ncheckpoint:\n  model_size: 16777216\n' >"$T/ck.yaml"
ok "$IOTAPE" model -d "$T/ck.yaml"
cp "$T/out" "$T/ck.ini"
want "$T/ck.ini" dataset num_files 0
want "$T/ck.ini" checkpoint size 16777216

# errors: FILE:LINE, exit 2, nothing written
bad() {	# NAME LINE PATTERN: YAML in $T/NAME.yaml
	rm -f "$T/bad.ini"
	err_line 2 "iotape model: $T/$1.yaml:$2: " "$3" "$IOTAPE" model -d "$T/$1.yaml" -o "$T/bad.ini"
	[ -e "$T/bad.ini" ] && fail "$1: wrote $T/bad.ini"
	[ -s "$T/out" ] && fail "$1: wrote to stdout"
	return 0
}
printf 'dataset:\n  num_files_train: 4\n  x: [1,\n' >"$T/syntax.yaml"
bad syntax 4 ""
printf 'dataset:\n  num_files_train: 4\nreader:\n  batch_size: 1\n bad: 2\n' >"$T/indent.yaml"
run "$IOTAPE" model -d "$T/indent.yaml"
[ "$rc" -eq 2 ] || fail "indent: exited $rc"
printf 'dataset:\n  data_folder: d\n  num_files_train: abc\n' >"$T/type.yaml"
bad type 3 "dataset.num_files_train: 'abc'"
printf 'dataset:\n  num_files_train: 3\n  record_length_bytes: -4096\n' >"$T/neg.yaml"
bad neg 3 "dataset.record_length_bytes: '-4096'"
printf 'train:\n  computation_time: -1\n' >"$T/negt.yaml"
bad negt 2 "train.computation_time: '-1'"
printf 'reader:\n  file_shuffle: sometimes\n' >"$T/shuf.yaml"
bad shuf 2 "file_shuffle"
printf -- '- a\n- b\n' >"$T/list.yaml"
bad list 1 "not a DLIO workload"
err_line 1 "iotape model: " "$T/none.yaml" "$IOTAPE" model -d "$T/none.yaml"
exit 0
