#!/bin/sh
# replay_readers.sh - the reader what-ifs: --reader-threads N, --prefetch K.
#
# A trace made with iotape import: two reader threads (tids 10, 11) read 8
# data set files of 1..8 x 4 KiB in turn, 2 epochs, while a trainer (tid
# 12) writes a log line every 5 ms.  --reader-threads N keeps every file's
# bytes (the JSON's per-file list), N new threads do the data reads, the
# report states the model; --prefetch says so.  A job file with one slow
# reader (1 KiB transfers) and a varying 3 ms compute: --prefetch 4 raises
# AU over --prefetch 1 (by 0.02 at least).  Bad values: exit 2, one line; a
# trace with no data set reader: exit 1, one line.  Then, recorded (root,
# BPF): a replay of the job file and of the trace with N = 1 and N = 4 read,
# per epoch, the same bytes of each data set file as without, from N
# threads.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

reader_trace_csv "$T/tr.csv"
ok "$IOTAPE" import -o "$T/tr.tape" "$T/tr.csv"

# per file: replayed bytes = recorded bytes; the data reads' threads
cat >"$T/files.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
files = {f['path']: (f['recorded_bytes'], f['replayed_bytes']) for f in d['replay']['files']
         if f['path'].startswith('data/')}
bad = [p for p, (a, b) in files.items() if a != b]
readers = sorted(j['jobname'] for j in d['jobs'] if j['read']['io_bytes'] and
                 int(j['jobname'].split('-')[-1]) > 12)
print(len(files), sum(a for a, b in files.values()), 'bad' if bad else 'ok', len(readers))
PY
for n in 1 4; do
	rm -rf "$T/d"
	ok "$IOTAPE" replay --timing afap --reader-threads $n --output-format json -o "$T/r$n.json" \
		-d "$T/d" "$T/tr.tape"
	got=$(python3 "$T/files.py" "$T/r$n.json") || fail "files.py"
	[ "$got" = "8 294912 ok $n" ] || fail "--reader-threads $n: files, bytes, per file, readers: $got"
	m=$(jq_py "$T/r$n.json" "d['replay']['reader_whatif']['model']") || fail "no model"
	case $m in "$n reader thread"*"(recorded 2)"*) ;; *) fail "model: $m" ;; esac
done
rm -rf "$T/d"
ok "$IOTAPE" replay --timing afap --prefetch 2 -o "$T/p.txt" -d "$T/d" "$T/tr.tape"
grep -q "reader what-if: prefetch 2 batches (a reader's file waits for the trainer's step 2" \
	"$T/p.txt" || fail "the text report does not state the prefetch model: $(grep what-if "$T/p.txt")"

# bad values, and a trace without readers
for a in "--reader-threads 0" "--prefetch 0" "--reader-threads x" "--prefetch 2x"; do
	err_line 2 "iotape replay: " "${a%% *}" "$IOTAPE" replay $a -d "$T/d" "$T/tr.tape"
done
printf '%s\n%s\n%s\n%s\n' "$HDR" "1000,1,12,openat,/out/log.txt,-1,0,0,5,10,0x241," \
	"2000,1,12,write,/out/log.txt,5,0,100,100,10,0," "3000,1,12,close,/out/log.txt,5,0,0,0,10,0," \
	>"$T/w.csv" || fail "printf"
ok "$IOTAPE" import -o "$T/w.tape" "$T/w.csv"
rm -rf "$T/d"
err_line 1 "iotape replay: " "no thread reads the data set" "$IOTAPE" replay --reader-threads 2 \
	-d "$T/d" "$T/w.tape"

# a job file: prefetch absorbs a slow reader's variation
cat >"$T/pf.ini" <<'INI'
[job]
format = 1
name = prefetch
[dataset]
data_folder = data
num_files = 64
record_length = 128k
record_length_stdev = 96k
record_length_min = 4k
record_length_max = 512k
[reader]
read_threads = 1
batch_size = 2
transfer_size = 1k
[train]
epochs = 2
computation_time = 0.003
computation_time_stdev = 0.003
seed = 1
INI
for k in 1 4; do
	rm -rf "$T/d"
	ok "$IOTAPE" replay --prefetch $k --output-format json -o "$T/j$k.json" -d "$T/d" "$T/pf.ini"
	[ "$(jq_py "$T/j$k.json" "d['replay']['reader_whatif']['prefetch'], d['replay']['reader_whatif']['recorded_prefetch']")" = "$k 2" ] ||
		fail "--prefetch $k: $(jq_py "$T/j$k.json" "d['replay']['reader_whatif']")"
done
a1=$(jq_py "$T/j1.json" "d['scale']['au_min']") && a4=$(jq_py "$T/j4.json" "d['scale']['au_min']") ||
	fail "no AU"
[ "$(python3 -c "print($a4 >= $a1 + 0.02)")" = True ] || fail "AU with --prefetch 4 $a4, 1 $a1"
echo "AU: --prefetch 1 $a1, --prefetch 4 $a4"

[ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] ||
	skip "the replay checks passed; recording it needs root and BTF"

# Recorded: per epoch, the bytes each data set file gave (a read counts in
# the epoch of its thread's latest open of the file: the file's k-th open is
# epoch k), and the threads that read data.
cat >"$T/epochs.py" <<'PY'
import csv, sys
top = sys.argv[2]
rows = sorted((r for r in csv.DictReader(open(sys.argv[1])) if r['path'].startswith(top + 'data/')),
              key=lambda r: int(r['ts_ns']))
opens, cur, ep, tids = {}, {}, {}, set()
for r in rows:
    p = r['path'][len(top):]
    if r['op'] == 'uring_openat':
        opens[p] = opens.get(p, 0) + 1
        cur[(r['tid'], p)] = opens[p]
    elif r['op'] == 'uring_read' and int(r['ret']) > 0:
        e = ep.setdefault(cur.get((r['tid'], p), 0), {})
        e[p] = e.get(p, 0) + int(r['ret'])
        tids.add(r['tid'])
print(repr(sorted((k, sorted(v.items())) for k, v in ep.items())))
print(len(tids))
PY
# rec NAME SOURCE ARGS...: record a replay, its epochs in $T/NAME.ep
rec() {
	name=$1 input=$2
	shift 2
	rm -rf "$T/d"
	"$IOTAPE" record -q -f -e syscall -o "$T/$name.tape" -- "$IOTAPE" replay --timing afap \
		-o "$T/$name.out" -d "$T/d" "$@" "$input" 2>"$T/rec.err" ||
		fail "record of the replay ($name) failed: $(cat "$T/rec.err")"
	ok "$IOTAPE" dump -t syscall -F csv -o "$T/$name.csv" "$T/$name.tape"
	python3 "$T/epochs.py" "$T/$name.csv" "$T/d/" >"$T/$name.ep" || fail "epochs.py $name"
}
sed 's/^epochs = 2/epochs = 2\nseed = 3/; s/^computation_time_stdev.*//; s/^computation_time = .*/computation_time = 0.001/' \
	"$T/pf.ini" >"$T/j.ini" || fail "sed"
for src in j.ini tr.tape; do
	rec base "$T/$src"
	[ "$(head -n 1 "$T/base.ep" | wc -c)" -gt 100 ] || fail "$src: no data reads recorded"
	for n in 1 4; do
		rec n$n "$T/$src" --reader-threads $n
		[ "$(head -n 1 "$T/n$n.ep")" = "$(head -n 1 "$T/base.ep")" ] ||
			fail "$src --reader-threads $n: per epoch and file bytes differ"
		[ "$(tail -n 1 "$T/n$n.ep")" = $n ] ||
			fail "$src --reader-threads $n: $(tail -n 1 "$T/n$n.ep") threads read data"
	done
done
