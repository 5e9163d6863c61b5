#!/bin/sh
# iotape model --preset: each MLPerf Storage workload's published values
# (anchors.md, DLIO/MLPerf Storage configs), for H100 and A100; --list;
# -o refuses an existing file without -f.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/model_lib.sh"

ok "$IOTAPE" model --list
for p in unet3d resnet50 cosmoflow llama3-8b; do
	grep -q "^$p " "$T/out" || fail "--list lacks $p"
done

# preset accel files records stdev batch compute epochs threads
check() {
	f=$T/$1.$2.ini
	ok "$IOTAPE" model --preset "$1" --accelerator "$2" -o "$f"
	[ -s "$T/out" ] && fail "-o: wrote to stdout"
	case $(head -n 1 "$f") in '; iotape job file, format 1'*) ;; *) fail "$f: no format comment" ;; esac
	want "$f" job format 1
	want "$f" job name "$1"
	want "$f" dataset num_files "$3"
	want "$f" dataset record_length "$4"
	want "$f" dataset record_length_stdev "$5"
	want "$f" reader batch_size "$6"
	want "$f" train computation_time "$7"
	want "$f" train epochs 5
	want "$f" reader read_threads "$8"
	want "$f" checkpoint size -
	grep -q 'computation_time.*; train.computation_time ('"$(echo "$2" | tr a-z A-Z)"')' "$f" ||
		fail "$f: computation_time does not say its source"
}
check unet3d h100 168 146600628 68341808 7 0.323 4
check unet3d a100 168 146600628 68341808 7 0.636 4
check resnet50 h100 1024 114660 - 400 0.224 8
check resnet50 a100 1024 114660 - 400 0.435 8
check cosmoflow h100 524288 2828486 71311 1 0.00350 4
check cosmoflow a100 524288 2828486 71311 1 0.00551 4
want "$T/resnet50.h100.ini" dataset num_samples_per_file 1251
want "$T/unet3d.h100.ini" dataset file_suffix .npz

# the default accelerator is the H100; stdout without -o
ok "$IOTAPE" model -p unet3d
cp "$T/out" "$T/def.ini"
want "$T/def.ini" train computation_time 0.323

# llama3-8b: checkpoint-only, 105 GB in shards, fsync, read back
f=$T/llama.ini
ok "$IOTAPE" model -p llama3-8b -o "$f"
want "$f" dataset num_files 0
want "$f" dataset record_length -
want "$f" checkpoint size 105000000000
want "$f" checkpoint files 8
want "$f" checkpoint fsync on
want "$f" checkpoint read_back on
want "$f" train epochs 2
want "$f" checkpoint epochs_between_checkpoints 1
grep -q 'MLPerf Storage v2.0' "$f" || fail "$f: does not name its source"

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
err_line 2 "iotape model: " "--accelerator" "$IOTAPE" model -p unet3d -a v100
exit 0
