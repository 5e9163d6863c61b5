#!/bin/sh
# iotape export --format fio-iolog|fio-job, run by real fio: for each
# bundled trace, the iologs (per process, and per thread for one trace)
# replayed by `fio --read_iolog` against the directory `iotape replay
# --prepare-only` made read exactly the trace's read bytes on storage files
# (successful reads of absolute paths outside /proc, /sys and /dev: what
# the replay makes; pipes and sockets have no such path), with no fio
# error.  The fio-job file of a trace parses (fio --parse-only) and equals
# `iotape model --fio`'s.
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "no fio"
command -v python3 >/dev/null || skip "no python3"

# the fio-job files name ${IOTAPE_DIR}
export IOTAPE_DIR="$T/jd"
mkdir "$IOTAPE_DIR" || fail "mkdir"

# storage_reads CSV: read bytes of the syscall rows on storage files
storage_reads() {
	python3 - "$1" <<'PY'
import csv, sys
reads = ("read", "pread64", "readv", "preadv", "preadv2", "uring_read")
n = 0
for r in csv.DictReader(open(sys.argv[1])):
    p = r["path"]
    if r["op"] in reads and int(r["ret"]) > 0 and p.startswith("/") and \
       not p.startswith(("/proc/", "/sys/", "/dev/")):
        n += int(r["ret"])
print(n)
PY
}

# fio_reads JSON: read bytes over the jobs; fails on a job's error
fio_reads() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [j["jobname"] for j in d["jobs"] if j["error"]]
if bad:
    sys.exit("fio jobs failed: %s" % bad)
print(sum(j["read"]["io_bytes"] for j in d["jobs"]))
PY
}

for t in "$TOP"/traces/*.iotape; do
	n=$(basename "$t" .iotape)
	ok "$IOTAPE" replay --prepare-only -d "$T/$n.d" "$t"
	per=process
	[ "$n" = shards ] && per=thread
	ok "$IOTAPE" export -F fio-iolog --per $per -d "$T/$n.d" -o "$T/$n.logs" "$t"
	[ -s "$T/$n.logs/replay.fio" ] || fail "$n: no replay.fio"
	for l in "$T/$n.logs"/*.iolog; do
		[ "$(head -n 1 "$l")" = 'fio version 3 iolog' ] || fail "$n: $l: no v3 header"
		# every file the log names is under the prepared directory
		awk 'NR > 1 { print $2 }' "$l" | sort -u | while read -r f; do
			case $f in "$T/$n.d"/*) ;; *) echo "$f" ;; esac
		done | grep -q . && fail "$n: $l names files outside $T/$n.d"
	done
	ok "$IOTAPE" dump -F csv -o "$T/$n.csv" "$t"
	want=$(storage_reads "$T/$n.csv") || fail "$n: reading the dump"
	# one log run alone, with --read_iolog
	first=$(ls "$T/$n.logs"/*.iolog | head -n 1)
	fio --name=one --read_iolog="$first" --replay_no_stall=1 --output-format=json \
		--output="$T/$n.one.json" >"$T/fio.out" 2>&1 ||
		fail "$n: fio --read_iolog=$first: $(cat "$T/fio.out")"
	fio_reads "$T/$n.one.json" >/dev/null || fail "$n: fio --read_iolog failed"
	# all of them: the job file
	fio --replay_no_stall=1 --output-format=json --output="$T/$n.json" \
		"$T/$n.logs/replay.fio" >"$T/fio.out" 2>&1 ||
		fail "$n: fio replay.fio: $(cat "$T/fio.out")"
	got=$(fio_reads "$T/$n.json") || fail "$n: $got"
	echo "$n: fio read $got bytes, the trace $want"
	[ "$got" = "$want" ] || fail "$n: fio read $got bytes, the trace read $want"

	# fio-job: what model --fio writes, or its error (a trace without a
	# model, as a synthetic one without compute steps may be)
	run "$IOTAPE" model --fio "$t"
	if [ "$rc" -ne 0 ]; then
		msg=$(sed 's/^iotape model: //' "$T/err")
		err_line "$rc" "iotape export: " "$msg" "$IOTAPE" export -F fio-job -o "$T/$n.fio" "$t"
		[ -e "$T/$n.fio" ] && fail "$n: a failed fio-job export left its file"
		continue
	fi
	cp "$T/out" "$T/$n.model.fio"
	ok "$IOTAPE" export -F fio-job -o "$T/$n.fio" "$t"
	same "$T/$n.model.fio" "$T/$n.fio"
	fio --parse-only "$T/$n.fio" >"$T/fio.out" 2>&1 ||
		fail "$n: fio --parse-only: $(cat "$T/fio.out")"
done

# a short real run of one fio-job file
fio --runtime=2 --time_based=0 --output-format=json --output="$T/job.json" \
	"$T/image_folder.fio" >"$T/fio.out" 2>&1 || fail "fio image_folder.fio: $(cat "$T/fio.out")"
fio_reads "$T/job.json" >/dev/null || fail "fio-job run failed"

# errors: the directory must exist; -o exists; -f replaces an earlier export only
t=$TOP/traces/checkpoint.iotape
err_line 1 "iotape export: " "$T/nodir" "$IOTAPE" export -F fio-iolog -d "$T/nodir" -o "$T/x" "$t"
[ -e "$T/x" ] && fail "a failed export left $T/x"
err_line 1 "iotape export: " "exists" "$IOTAPE" export -F fio-iolog -d "$T/checkpoint.d" \
	-o "$T/checkpoint.logs" "$t"
ok "$IOTAPE" export -F fio-iolog -f -d "$T/checkpoint.d" -o "$T/checkpoint.logs" "$t"
err_line 1 "iotape export: " "not an export" "$IOTAPE" export -F fio-iolog -f \
	-d "$T/checkpoint.d" -o "$T/checkpoint.d" "$t"
ls "$T" | grep -q '\.tmp\.' && fail "temporary files left: $(ls "$T")"
exit 0
