#!/bin/sh
# analyze_torch.sh - `iotape analyze` on a recorded PyTorch job
# (tests/torch_job.py: DataLoader, num_workers=2, non-persistent workers)
# over N small files: epochs.count is the number of passes the job made,
# every pass read every file once (checked in the trace itself: each
# epoch's two workers, the main process's children in start order, opened
# every file once between them), every worker is in processes[] with
# read_bytes > 0, and file_order_randomness is near 1 with shuffle=True,
# near 0 without.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
PY=${PY:-/usr/bin/python3}
"$PY" -c "import torch" 2>/dev/null || skip "python3-torch not installed"
N=200
t_samples "$T/data" $N

# jget JSON EXPR: a value of the analysis (EXPR in Python over j)
jget() {
	"$PY" -c 'import json, sys
j = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print("null" if v is None else v)' "$1" "$2"
}

# job E SHUFFLE_FLAG: record, analyze, check; SHUFFLE_FLAG is --shuffle or ""
job() {
	E=$1 sh=$2 tag=$1${2:+s}
	rm -rf "$T/dump"
	"$IOTAPE" record -q -o "$T/$tag.iotape" -- "$PY" "$TOP/tests/torch_job.py" \
		"$T/data" $N --epochs "$E" $sh >"$T/job" 2>"$T/job.err" ||
		{ echo "FAIL: job ($E epochs $sh) failed: $(cat "$T/job.err")"; T_FAILS=$((T_FAILS + 1)); return; }
	main=$(cut -d' ' -f1 "$T/job")
	t_eq "[$tag] job saw every sample every epoch" $((N * E)) "$(cut -d' ' -f2 "$T/job")"
	"$IOTAPE" analyze --json "$T/$tag.iotape" >"$T/$tag.json" ||
		{ echo "FAIL: [$tag] analyze failed"; T_FAILS=$((T_FAILS + 1)); return; }
	j=$T/$tag.json

	# the workers: processes whose parent is the job, by `iotape dump`
	"$IOTAPE" dump --table process -F csv -o "$T/proc.csv" "$T/$tag.iotape" ||
		{ echo "FAIL: [$tag] dump --table process"; T_FAILS=$((T_FAILS + 1)); return; }
	# ts_ns,pid,tid,ppid,...: main threads (pid == tid) of the job's children, by start
	awk -F, -v m="$main" 'NR > 1 && $2 == $3 && $4 == m { print $1, $2 }' "$T/proc.csv" |
		sort -n | cut -d' ' -f2 >"$T/workers"
	t_eq "[$tag] 2 workers per epoch (non-persistent) in the process table" \
		$((2 * E)) "$(wc -l <"$T/workers")"
	t_dump "$T/$tag.iotape" process
	t_eq "[$tag] tdump agrees on the workers" "$(cat "$T/workers" | sort)" \
		"$(grep -F " ppid=$main " "$T/dump" | sed 's/.* pid=\([0-9]*\) tid=\([0-9]*\) .*/\1 \2/' |
			awk '$1 == $2 { print $1 }' | sort)"
	for w in $(cat "$T/workers"); do
		rb=$(jget "$j" "sum(p['read_bytes'] for p in j['processes'] if p['pid'] == $w and p['ppid'] == $main)")
		t_check "[$tag] worker $w in processes[] with read_bytes > 0 (got $rb)" [ "$rb" -gt 0 ]
	done

	# each epoch's two workers opened (and read) every file once between them
	t_dump "$T/$tag.iotape" syscall
	e=0
	while [ $e -lt "$E" ]; do
		w1=$(sed -n "$((2 * e + 1))p" "$T/workers") w2=$(sed -n "$((2 * e + 2))p" "$T/workers")
		grep -F "op=openat path=\"$T/data/sample_" "$T/dump" | grep -F -v "ret=-" |
			grep -E " pid=($w1|$w2) " | sed 's/.*path="\([^"]*\)".*/\1/' | sort >"$T/opened"
		t_eq "[$tag] epoch $e: files opened by its workers" $N "$(wc -l <"$T/opened")"
		t_eq "[$tag] epoch $e: distinct files" $N "$(uniq <"$T/opened" | wc -l)"
		e=$((e + 1))
	done

	# the analysis
	t_eq "[$tag] epochs.count" "$E" "$(jget "$j" "j['epochs']['count']")"
	t_eq "[$tag] epochs listed" "$E" "$(jget "$j" "len(j['epochs']['epochs'])")"
	t_eq "[$tag] sample files with one visit, one open and 4096 B per epoch" $N \
		"$(jget "$j" "sum(1 for f in j['files'] if '/data/sample_' in f['path'] and f['visits'] == $E and f['opens'] == $E and f['read_bytes'] == 4096 * $E)")"
	# epoch 0 also holds the job's start-up files (imports); later ones the
	# samples and the few files each worker reads again
	t_eq "[$tag] every epoch holds >= N files and >= N x 4096 B" "$E" \
		"$(jget "$j" "sum(1 for e in j['epochs']['epochs'] if e['files'] >= $N and e['bytes'] >= 4096 * $N)")"
	t_eq "[$tag] epochs after the first hold N to N + 20 files" "$((E - 1))" \
		"$(jget "$j" "sum(1 for e in j['epochs']['epochs'][1:] if $N <= e['files'] <= $N + 20)")"
	r=$(jget "$j" "j['pattern']['file_order_randomness']")
	lo=$(jget "$j" "min(e['file_order_randomness'] for e in j['epochs']['epochs'])")
	hi=$(jget "$j" "max(e['file_order_randomness'] for e in j['epochs']['epochs'])")
	if [ -n "$sh" ]; then
		t_check "[$tag] shuffled: file_order_randomness $r >= 0.85" awk "BEGIN { exit !($r >= 0.85) }"
		t_check "[$tag] shuffled: every epoch's randomness >= 0.85 (min $lo)" awk "BEGIN { exit !($lo >= 0.85) }"
	else
		t_check "[$tag] in order: file_order_randomness $r <= 0.15" awk "BEGIN { exit !($r <= 0.15) }"
		t_check "[$tag] in order: every epoch's randomness <= 0.15 (max $hi)" awk "BEGIN { exit !($hi <= 0.15) }"
	fi
	echo "[$tag] epochs $(jget "$j" "j['epochs']['count']"), file_order_randomness $r" \
		"(epochs $lo..$hi), workers $(echo $(cat "$T/workers"))"
}

job 3 --shuffle
job 2 ""
t_done
