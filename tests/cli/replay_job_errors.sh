#!/bin/sh
# replay_job_errors.sh - a bad job file (iotape-job(5)) is one error line
# "iotape replay: FILE:LINE: ...", exit 2, and DIR is not created: an
# unknown section, an unknown key, a value of the wrong type, a negative
# size, a missing required key, a key outside a section, a folder with
# "..", keys that disagree (num_checkpoints_write with a data set,
# num_files = 0 without [checkpoint], fewer samples than a batch with
# drop_last), an empty file; a bad --set or --seed names the option, and so
# does a check across keys of a key it gave; --set with a trace is a usage
# error.
. "$(dirname "$0")/lib.sh"

cd "$T" || fail "cd $T"
good='[job]
format = 1
[dataset]
data_folder = data
num_files = 4
record_length = 100
[train]
epochs = 1
computation_time = 0'

# bad LINE WANT TEXT...: a file of the good job and TEXT; one error line
# naming job.ini:LINE and WANT; exit 2; no DIR
bad() {
	line=$1 want=$2
	shift 2
	printf '%s\n' "$good" "$@" >job.ini || fail "cannot write job.ini"
	err_line 2 "iotape replay: job.ini:$line: " "$want" "$IOTAPE" replay -d "$T/d" job.ini
	[ -e "$T/d" ] && fail "job.ini:$line ($want): DIR was created"
	return 0
}
bad 10 'unknown section [foo]' '[foo]' 'x = 1'
bad 11 "unknown key 'bogus' in [reader]" '[reader]' 'bogus = 1'
bad 11 "reader.batch_size: 'abc' is not a whole number" '[reader]' 'batch_size = abc'
bad 11 "checkpoint.size: '-5' is not a size" '[checkpoint]' 'size = -5'
bad 11 "reader.read_threads: '0' is not a whole number from 1" '[reader]' 'read_threads = 0'
bad 11 "reader.file_shuffle: 'maybe' is not one of off|on|once" '[reader]' 'file_shuffle = maybe'
bad 11 "train.computation_time: 'x' is not a number of seconds" '[train]' 'computation_time = x'
bad 11 "dataset.data_folder: '../up' is not a relative path" '[dataset]' 'data_folder = ../up'
bad 12 'record_length_min is above record_length_max' '[dataset]' 'record_length_min = 50' \
	'record_length_max = 10'
bad 11 'are for a job of checkpoints only (dataset.num_files = 0)' '[checkpoint]' \
	'num_checkpoints_write = 2'
bad 12 'reader.drop_last: num_files x num_samples_per_file (4) is below batch_size (8)' \
	'[reader]' 'batch_size = 8' 'drop_last = on'
bad 11 "dataset.file_suffix: 'a/b' has a '/'" '[dataset]' 'file_suffix = a/b'
bad 11 "dataset.num_samples_per_file: '0' is not a whole number from 1" '[dataset]' \
	'num_samples_per_file = 0'
bad 11 "train.steps_per_epoch: '0' is not a whole number from 1" '[train]' 'steps_per_epoch = 0'
# num_files = 0 (no data set) only in a job of checkpoints
printf '[job]\nformat = 1\n[dataset]\nnum_files = 0\n[train]\nepochs = 1\ncomputation_time = 0\n' >job.ini
err_line 2 "iotape replay: job.ini:4: " 'dataset.num_files = 0 (no data set) needs a [checkpoint] section' \
	"$IOTAPE" replay -d "$T/d" job.ini
printf '[job]\nformat = 1\n[dataset]\ndata_folder = d\nnum_files = 4\n[train]\nepochs = 1\ncomputation_time = 0\n' >job.ini
err_line 2 "iotape replay: job.ini:3: " 'missing required key dataset.record_length' \
	"$IOTAPE" replay -d "$T/d" job.ini
printf '; no section\nformat = 1\n' >job.ini
err_line 2 "iotape replay: job.ini:2: " "'format' outside a section" "$IOTAPE" replay -d "$T/d" job.ini
printf '[job]\nformat = 1\n[dataset]\nnum_files = 0\n[train]\ncomputation_time = 0\n[checkpoint]\nnum_checkpoints_write = 1\nnum_checkpoints_read = 2\n' >job.ini
err_line 2 "iotape replay: job.ini:9: " 'checkpoint.num_checkpoints_read 2 is above num_checkpoints_write 1' \
	"$IOTAPE" replay -d "$T/d" job.ini
# an empty file, or one of comments only, is neither a job file nor a trace
: >job.ini
err_line 2 "iotape replay: job.ini: " 'an empty file: neither a job file' \
	"$IOTAPE" replay -d "$T/d" job.ini
printf '; nothing\n\n' >job.ini
err_line 2 "iotape replay: job.ini: " 'no section, no key: neither a job file' \
	"$IOTAPE" replay -d "$T/d" job.ini
printf '[job]\nformat = 2\n' >job.ini
err_line 2 "iotape replay: job.ini:2: " "job.format: '2' is not a whole number from 1 to 1" \
	"$IOTAPE" replay -d "$T/d" job.ini
[ -e "$T/d" ] && fail "DIR was created"

# overrides: checked as in the file, named by the option
printf '%s\n' "$good" >job.ini || fail "cannot write job.ini"
err_line 2 "iotape replay: --set train.epochs=x: " "train.epochs: 'x' is not a whole number" \
	"$IOTAPE" replay -d "$T/d" --set train.epochs=x job.ini
err_line 2 "iotape replay: --set train.nope=1: " "unknown key 'nope' in [train]" \
	"$IOTAPE" replay -d "$T/d" --set train.nope=1 job.ini
err_line 2 "iotape replay: --set nokey: " "not section.key=value" \
	"$IOTAPE" replay -d "$T/d" --set nokey job.ini
err_line 2 "iotape replay: --set x.y=1: " "unknown section [x]" \
	"$IOTAPE" replay -d "$T/d" --set x.y=1 job.ini
err_line 2 "iotape replay: --seed: " "train.seed: '-1' is not a whole number" \
	"$IOTAPE" replay -d "$T/d" --seed -1 job.ini
# a check across keys names the --set that gave the key, not a line
printf '%s\n' "$good" '[dataset]' 'record_length_min = 300' >job.ini || fail "cannot write job.ini"
err_line 2 "iotape replay: --set dataset.data_folder=../x: " "dataset.data_folder: '../x' is not a relative path" \
	"$IOTAPE" replay -d "$T/d" --set dataset.data_folder=../x job.ini
err_line 2 "iotape replay: --set dataset.record_length_max=200: " 'record_length_min is above record_length_max' \
	"$IOTAPE" replay -d "$T/d" --set dataset.record_length_max=200 job.ini
printf '%s\n' "$good" >job.ini || fail "cannot write job.ini"
[ -e "$T/d" ] && fail "DIR was created by a bad --set"

# --set with a trace
printf 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,path2\n1000,1,1,openat,/u,-1,0,0,3,10,0,\n' >t.csv
ok "$IOTAPE" import -o t.tape t.csv
err_line 2 "iotape replay: " "--set and --seed are for job files" \
	"$IOTAPE" replay -d "$T/d" --set train.epochs=1 t.tape
exit 0
