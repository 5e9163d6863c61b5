#!/bin/sh
# iotape model --preset: each MLPerf Storage v2.0 workload against the
# figures of its workload YAML (mlcommons/storage v2.0-branch,
# configs/dlio/workload/) and of the rules (Submission_guidelines.md,
# Tables 1-3, section 2.2), in the table below, not taken from iotape;
# --list; --check-rules prints them all and agrees; -o refuses an existing
# file without -f.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/model_lib.sh"

ok "$IOTAPE" model --list
for p in unet3d resnet50 cosmoflow llama3-8b llama3-70b llama3-405b llama3-1t; do
	grep -q "^$p " "$T/out" || fail "--list lacks $p"
done

# The training workloads (YAML: num_files_train, num_samples_per_file,
# batch_size, read_threads, computation_time for the H100 and A100,
# epochs 5), and what DLIO does with them: PyTorch (unet3d) reads in name
# order whatever file_shuffle says; tf.data (cosmoflow: file_shuffle seed)
# keeps epoch 1's order; resnet50 has no file_shuffle (DLIO: off).  unet3d
# must checkpoint (mlpstorage rules.py): after epoch 5 only
# (checkpoint_after_epoch 5, every 2 epochs, 5 epochs), of DLIO's default
# model state (10240 bytes: model.model_size is not a key DLIO reads).
#
# preset files samples batch threads h100 a100 shuffle
train() {
	for acc in h100 a100; do
		f=$T/$1.$acc.ini
		ok "$IOTAPE" model --preset "$1" --accelerator "$acc" -o "$f"
		[ -s "$T/out" ] && fail "-o: wrote to stdout"
		case $(head -n 1 "$f") in '; iotape job file, format 1'*) ;; *) fail "$f: no format comment" ;; esac
		want "$f" job format 1
		want "$f" job name "$1"
		want "$f" dataset num_files "$2"
		want "$f" dataset num_samples_per_file "$3"
		want "$f" reader batch_size "$4"
		want "$f" reader read_threads "$5"
		want "$f" train epochs 5
		want "$f" reader file_shuffle "$8"
		want "$f" reader drop_last on
		if [ "$acc" = h100 ]; then ct=$6; else ct=$7; fi
		[ "$(python3 -c "print(float('$(ini_get "$f" train computation_time)') == $ct)")" = True ] ||
			fail "$f: computation_time $(ini_get "$f" train computation_time), want $ct"
		grep -q "MLPerf Storage v2.0 configs/dlio/workload/$1_h100.yaml" "$f" ||
			fail "$f: does not name its YAML"
	done
}
train unet3d 168 1 7 4 0.323 0.636 off
train resnet50 1024 1251 400 8 0.224 0.435 off
train cosmoflow 524288 1 1 4 0.00350 0.00551 once
f=$T/unet3d.h100.ini
want "$f" checkpoint checkpoint_after_epoch 5
want "$f" checkpoint epochs_between_checkpoints 2
want "$f" checkpoint size 10240
want "$T/resnet50.h100.ini" checkpoint size -
want "$T/cosmoflow.h100.ini" checkpoint size -
# the files' sizes: DLIO's generator draws int(sqrt(record_length)) squared
# (a tfrecord's record adds its framing and Example); for resnet50
# 338 x 338 + 57 bytes a sample
want "$T/resnet50.h100.ini" dataset record_length 114301
want "$T/resnet50.h100.ini" dataset file_suffix _of_1024.tfrecord
want "$T/unet3d.h100.ini" dataset file_suffix _of_168.npz

# The checkpoint workloads (rules' Table 2: TP x PP x DP processes and the
# checkpoint's size; Table 3: 10 written, 10 read; 2.2.2: fsync; the YAMLs:
# 5 s between checkpoints).  The size is the job's size times its ranks,
# in GiB (DLIO's "GB"), within 1% of the table: 105, 912, 5290.  For 1T
# the table's 18 TB is mlpstorage config.py's LLM_SIZE_BY_RANK (2571 +
# 15426, "need to be updated"); DLIO's sizing of llama3_1t.yaml (128
# layers, hidden 25872, ffn 98304, 192 heads, 32 kv heads, TP 8, PP 64,
# ZeRO 1, 1024 ranks) is 16,564,174,094,592 bytes = 15426.6 GiB, which the
# preset writes and this table checks.
#
# preset ranks GiB
ckpt() {
	f=$T/$1.ini
	ok "$IOTAPE" model --preset "$1" -o "$f"
	want "$f" job ranks "$2"
	want "$f" dataset num_files 0
	want "$f" dataset record_length -
	want "$f" checkpoint num_checkpoints_write 10
	want "$f" checkpoint num_checkpoints_read 10
	want "$f" checkpoint fsync on
	want "$f" train computation_time 5
	s=$(ini_get "$f" checkpoint size)
	[ "$(python3 -c "print(abs($s * $2 / 2**30 - $3) <= 0.01 * $3)")" = True ] ||
		fail "$1: $2 ranks x $s bytes = $(python3 -c "print($s * $2 / 2**30)") GiB, want $3"
	grep -q 'MLPerf Storage v2.0' "$f" || fail "$f: does not name its source"
}
ckpt llama3-8b 8 105
ckpt llama3-70b 64 912
ckpt llama3-405b 512 5290
ckpt llama3-1t 1024 15426.6

# --check-rules: every preset's figures, each agreeing (1T's size marked
# as the YAML's)
ok "$IOTAPE" model --check-rules
for p in unet3d resnet50 cosmoflow llama3-8b llama3-70b llama3-405b llama3-1t; do
	grep -q "^$p " "$T/out" || fail "--check-rules lacks $p"
done
grep -q 'DIFFERS' "$T/out" && fail "--check-rules: $(grep -B2 DIFFERS "$T/out")"
[ "$(grep -c 'differs: the YAML' "$T/out")" = 1 ] || fail "--check-rules: not one known difference"

# the default accelerator is the H100; stdout without -o
ok "$IOTAPE" model -p unet3d
cp "$T/out" "$T/def.ini"
want "$T/def.ini" train computation_time 0.323

# -o: an existing file is refused (and kept) without -f
echo keep >"$T/exists.ini"
err_line 1 "iotape model: " "exists (use -f" "$IOTAPE" model -p cosmoflow -o "$T/exists.ini"
[ "$(cat "$T/exists.ini")" = keep ] || fail "-o without -f changed the file"
ok "$IOTAPE" model -p cosmoflow -o "$T/exists.ini" -f
want "$T/exists.ini" dataset num_files 524288

# bad command lines
err_line 2 "iotape model: " "no preset 'nope'" "$IOTAPE" model -p nope
err_line 2 "iotape model: " "one of --preset" "$IOTAPE" model
err_line 2 "iotape model: " "one of --preset" "$IOTAPE" model -p unet3d --list
err_line 2 "iotape model: " "one of --preset" "$IOTAPE" model -p unet3d --check-rules
err_line 2 "iotape model: " "--accelerator" "$IOTAPE" model -p unet3d -a v100
err_line 2 "iotape model: " "--ranks goes with --from-dlio" "$IOTAPE" model -p unet3d --ranks 2
exit 0
