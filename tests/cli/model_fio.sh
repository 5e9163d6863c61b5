#!/bin/sh
# iotape model --fio: the fio job file of a job file, a preset, a DLIO
# workload and a trace is read by real fio (--parse-only); the fio files of
# two small job files are run by fio on a temporary directory and fio's
# JSON report reads (and writes) the bytes the job predicts, exactly: each
# file there is a whole number of blocks of bs (rp_fio.c; the "bytes read
# per epoch" comment says so).  Bad input: one error line, exit 2.
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "no fio"
command -v python3 >/dev/null || skip "no python3"

export IOTAPE_DIR="$T/d"
mkdir "$IOTAPE_DIR" || fail "mkdir"

# parses FIO: fio --parse-only accepts it
parses() {
	fio --parse-only "$1" >"$T/fio.out" 2>&1 ||
		fail "fio --parse-only $1: $(cat "$T/fio.out")"
}

# 16 files of 64 KiB, 2 readers, 2 epochs, 16 KiB transfers
cat >"$T/job.ini" <<'EOF'
[job]
format = 1
name = small
[dataset]
data_folder = data
num_files = 16
record_length = 64k
[reader]
read_threads = 2
batch_size = 4
transfer_size = 16k
[train]
epochs = 2
computation_time = 0
EOF
ok "$IOTAPE" model --fio "$T/job.ini" -o "$T/job.fio"
[ -s "$T/out" ] && fail "-o: wrote to stdout"
parses "$T/job.fio"
ok "$IOTAPE" model --fio "$T/job.ini"
same "$T/job.fio" "$T/out"
# what the options come from
# derived OPTION PATTERN: the line before OPTION in the job file matches PATTERN
derived() {
	grep -B1 -x "$1" "$T/job.fio" >"$T/derived" || fail "$1: not in the job file"
	grep -q "$2" "$T/derived" || fail "$1: no derivation"
}
derived 'bs=16384' '^; reader.transfer_size'
derived 'numjobs=2' '^; reader.read_threads 2'
derived 'loops=2' '^; train.epochs'
grep -qx 'nrfiles=8' "$T/job.fio" || fail "not 8 files a reader"
grep -qx 'directory=${IOTAPE_DIR}' "$T/job.fio" || fail "no directory=\${IOTAPE_DIR}"
grep -q '^;  - reader.read_eof' "$T/job.fio" || fail "does not say read_eof is left out"
grep -q '^; bytes read per epoch: 1048576, as the job' "$T/job.fio" || fail "no bytes comment"

# fio_bytes JSON DIR: read bytes of the readers, then written and read
# bytes of the checkpoint jobs (fio's --output-format=json)
fio_bytes() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
jobs = d["jobs"]
rd = [j for j in jobs if not j["jobname"].startswith("checkpoint")]
ck = [j for j in jobs if j["jobname"].startswith("checkpoint")]
print(sum(j["read"]["io_bytes"] for j in rd), sum(j["write"]["io_bytes"] for j in ck),
      sum(j["read"]["io_bytes"] for j in ck), sum(j["error"] for j in jobs))
PY
}

# runfio FIO: run it on a fresh $IOTAPE_DIR, its report in $T/fio.json
runfio() {
	rm -rf "$IOTAPE_DIR" && mkdir "$IOTAPE_DIR" || fail "mkdir"
	fio --output-format=json --output="$T/fio.json" "$1" >"$T/fio.out" 2>&1 || {
		grep -qi 'io_uring' "$T/fio.out" && skip "fio's io_uring engine does not run here"
		fail "fio $1: $(tail -n 3 "$T/fio.out")"
	}
}

# a checkpoint-only preset, the others, a DLIO workload, a trace: parsed
for p in unet3d resnet50 cosmoflow llama3-8b; do
	ok "$IOTAPE" model --fio -p "$p" -o "$T/$p.fio"
	parses "$T/$p.fio"
done
grep -q '^\[readers\]' "$T/llama3-8b.fio" && fail "llama3-8b: readers of no data set"
grep -q '^\[checkpoint_read\]' "$T/llama3-8b.fio" || fail "llama3-8b: no read back"
[ "$(grep -cx 'loops=10' "$T/llama3-8b.fio")" = 2 ] || fail "llama3-8b: not 10 checkpoints written, 10 read"
grep -qx 'filesize=7026601472' "$T/llama3-8b.fio" || fail "llama3-8b: not a rank's 2 files of 105 GB / 8"
grep -q '^filesize=[0-9]*-[0-9]*$' "$T/unet3d.fio" || fail "unet3d: no size range (stdev)"
grep -q 'record_length_stdev: a normal spread' "$T/unet3d.fio" || fail "unet3d: stdev not said"
cat >"$T/w.yaml" <<'EOF'
model:
  name: tiny
dataset:
  data_folder: data/tiny
  num_files_train: 8
  record_length_bytes: 4096
reader:
  read_threads: 2
train:
  epochs: 1
  computation_time: 0.01
EOF
ok "$IOTAPE" model --fio --from-dlio "$T/w.yaml" -o "$T/w.fio"
parses "$T/w.fio"
grep -qx 'thinktime=20000' "$T/w.fio" || fail "dlio: thinktime is not 10 ms x 2 readers"
ok "$IOTAPE" model --fio "$TOP/traces/image_folder.iotape" -o "$T/tr.fio"
parses "$T/tr.fio"

# bad input: one error line, exit 2 (a job file), 1 (the output)
sed 's|^data_folder = data|data_folder = da$ta|' "$T/job.ini" >"$T/bad.ini"
err_line 2 "iotape model: " "fio would not read '\$'" "$IOTAPE" model --fio "$T/bad.ini"
[ -s "$T/out" ] && fail "a bad job wrote to stdout"
sed 's|^num_files = 16|num_files = many|' "$T/job.ini" >"$T/bad2.ini"
err_line 2 "iotape model: " "bad2.ini:6: dataset.num_files" "$IOTAPE" model --fio "$T/bad2.ini"
sed '/^data_folder/d' "$T/job.ini" >"$T/bad3.ini"
err_line 2 "iotape model: " "missing required key dataset.data_folder" \
	"$IOTAPE" model --fio "$T/bad3.ini"
# checkpoints only, none made (1 epoch, one every 2): nothing to write
printf '[job]\nformat = 1\n[dataset]\nnum_files = 0\n[train]\nepochs = 1\ncomputation_time = 0\n[checkpoint]\nepochs_between_checkpoints = 2\n' >"$T/ck1.ini"
err_line 2 "iotape model: " "no fio job to write" "$IOTAPE" model --fio "$T/ck1.ini"
# the checkpoint trace's model: its 6 checkpoints (a step each)
ok "$IOTAPE" model --fio "$TOP/traces/checkpoint.iotape" -o "$T/cktr.fio"
parses "$T/cktr.fio"
grep -q '^loops=6$' "$T/cktr.fio" || fail "checkpoint trace: not 6 checkpoints"
# shards of 0 bytes (size 2, 4 files): nothing to write, said
printf '[checkpoint]\nsize = 2\nfiles = 4\n' | cat "$T/job.ini" - >"$T/ck0.ini"
ok "$IOTAPE" model --fio "$T/ck0.ini" -o "$T/ck0.fio"
parses "$T/ck0.fio"
grep -q '^; \[checkpoint\]: checkpoint.size / files is 0 bytes' "$T/ck0.fio" ||
	fail "ck0: 0-byte shards not said"
err_line 1 "iotape model: " "exists" "$IOTAPE" model --fio "$T/job.ini" -o "$T/job.fio"
ok "$IOTAPE" model --fio -f "$T/job.ini" -o "$T/job.fio"
same "$T/out" /dev/null

# run: 16 x 64 KiB x 2 epochs read
runfio "$T/job.fio"
set -- $(fio_bytes "$T/fio.json")
[ "$4" = 0 ] || fail "fio reports errors: $(cat "$T/fio.out")"
[ "$1" = $((16 * 65536 * 2)) ] || fail "fio read $1 bytes, the job reads $((16 * 65536 * 2))"
n=$(find "$IOTAPE_DIR/data" -type f -size 64k | wc -l)
[ "$n" = 16 ] || fail "fio made $n files of 64 KiB, want 16"

# 10 files of 4 samples of 16 KiB, 4 readers (jobs of 3 and 2 files), 3
# epochs, shuffled samples, compute; checkpoints every 2 steps (5 steps an
# epoch: after steps 2 and 4 of each, as DLIO counts them: 6 in the run)
# of 3 shards, read back
cat >"$T/job2.ini" <<'EOF'
[job]
format = 1
name = mixed
[dataset]
data_folder = data/m
num_files = 10
num_samples_per_file = 4
record_length = 16k
[reader]
read_threads = 4
batch_size = 8
transfer_size = 4k
sample_shuffle = on
[train]
epochs = 3
computation_time = 0.001
[checkpoint]
steps_between_checkpoints = 2
size = 768k
files = 3
transfer_size = 64k
rename = on
read_back = on
EOF
ok "$IOTAPE" model --fio "$T/job2.ini" -o "$T/job2.fio"
parses "$T/job2.fio"
grep -q '^\[readers_more\]' "$T/job2.fio" || fail "job2: 10 files, 4 readers: no second job"
grep -qx 'rw=randread' "$T/job2.fio" || fail "job2: sample_shuffle is not randread"
grep -qx 'thinktime=4000' "$T/job2.fio" || fail "job2: thinktime is not 1 ms x 4 readers"
grep -qx 'thinktime_blocks=32' "$T/job2.fio" || fail "job2: not 8 x 16 KiB / 4 KiB blocks a batch"
grep -q '^;  - checkpoint.rename' "$T/job2.fio" || fail "job2: rename not said"
runfio "$T/job2.fio"
set -- $(fio_bytes "$T/fio.json")
[ "$4" = 0 ] || fail "fio reports errors: $(cat "$T/fio.out")"
[ "$1" = $((10 * 4 * 16384 * 3)) ] || fail "job2: fio read $1 bytes, want $((10 * 4 * 16384 * 3))"
[ "$2" = $((6 * 768 * 1024)) ] || fail "job2: fio wrote $2 checkpoint bytes, want $((6 * 768 * 1024))"
[ "$3" = $((6 * 768 * 1024)) ] || fail "job2: fio read back $3 bytes, want $((6 * 768 * 1024))"
exit 0
