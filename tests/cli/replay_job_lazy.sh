#!/bin/sh
# replay_job_lazy.sh - a bounded run of a job file (--runtime, one
# accelerator) waits for no file it does not read: its data set is made as
# the run reaches it, in the order it reads it, instead of all before it.
# A job of 2000 files read in name order, a step of 50 ms each, run for
# 1 s: where the last file should be stands a directory, which a prepare
# refuses ("not a regular file", exit 1, with or without --runtime when every
# file is prepared first: without --runtime, and with -n 2); the bounded
# run never reads it and exits 0, nothing failed, having read its first
# files, each made with its size.  So does one through a memory map.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

cat >"$T/job.ini" <<'INI'
[job]
format = 1
[dataset]
data_folder = data
num_files = 2000
record_length = 4k
[reader]
batch_size = 1
read_threads = 1
file_shuffle = off
[train]
computation_time = 0.05
INI
# DIR, its marker, and a directory where the last file goes
ok "$IOTAPE" replay --prepare-only -d "$T/d" --set dataset.num_files=1 "$T/job.ini"
mkdir "$T/d/data/img_1999.jpg" || fail "mkdir"

err_line 1 "iotape replay: " "preparing 'data/img_1999.jpg': not a regular file" \
	"$IOTAPE" replay -d "$T/d" "$T/job.ini"
err_line 1 "iotape replay: " "img_1999.jpg': not a regular file" \
	"$IOTAPE" replay -n 2 --runtime 1 -d "$T/d" "$T/job.ini"

run "$IOTAPE" replay --runtime 1 --output-format json -o "$T/r.json" -d "$T/d" "$T/job.ini"
[ "$rc" = 0 ] || fail "the bounded run exited $rc: $(cat "$T/err")"
[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] || fail "ops failed: $(jq_py "$T/r.json" "d['replay']")"
n=$(jq_py "$T/r.json" "d['replay']['ops_done']['open']") || fail "no opens"
[ "$n" -ge 2 ] && [ "$n" -lt 1999 ] || fail "the bounded run opened $n files"
# the files it read are there, whole
i=0
while [ "$i" -lt "$n" ]; do
	f=$(printf '%s/d/data/img_%04d.jpg' "$T" "$i")
	[ "$(stat -c %s "$f")" = 4096 ] || fail "$f: not made with its size"
	i=$((i + 1))
done
[ -d "$T/d/data/img_1999.jpg" ] || fail "the directory in the way is gone"

# through a memory map (the layout walks the readers' faults before the
# run: it must not wait for files there)
run "$IOTAPE" replay --runtime 1 --set reader.mmap=on --output-format json -o "$T/m.json" \
	-d "$T/m" "$T/job.ini"
[ "$rc" = 0 ] || fail "the bounded run through a map exited $rc: $(cat "$T/err")"
[ "$(jq_py "$T/m.json" "d['replay']['ops_failed'] == 0 and d['replay']['ops_done']['read'] > 0")" = True ] ||
	fail "through a map: $(jq_py "$T/m.json" "d['replay']")"
exit 0
