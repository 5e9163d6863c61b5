#!/bin/sh
# record_torch.sh - a real PyTorch job (DataLoader, num_workers=2) over small
# files: every file is opened and read whole by a worker process, and the
# workers are in the process table as children of the job.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
PY=${PY:-/usr/bin/python3}
"$PY" -c "import torch" 2>/dev/null || skip "python3-torch not installed"
N=200
t_samples "$T/data" $N
"$IOTAPE" record -q -o "$T/t.iotape" -- "$PY" "$TOP/tests/torch_job.py" "$T/data" $N > "$T/out" || { echo "FAIL: job failed"; exit 1; }
main=$(cut -d' ' -f1 "$T/out")
t_eq "job saw every sample" $N "$(cut -d' ' -f2 "$T/out")"
t_dump "$T/t.iotape"
workers=$(grep '^process ' "$T/dump" | grep -F " ppid=$main " | sed 's/.* pid=\([0-9]*\) tid=\([0-9]*\) .*/\1 \2/' | awk '$1 == $2 { print $1 }' | sort -u)
nw=$(echo "$workers" | grep -c .)
t_check "two or more worker processes forked by the job (got $nw)" [ "$nw" -ge 2 ]
opened=0; readok=0; byworker=0
i=0
while [ $i -lt $N ]; do
	p="path=\"$T/data/$(printf 'sample_%04d.bin' $i)\""
	row=$(grep -F "op=openat $p" "$T/dump" | grep -F -v "ret=-" | head -n 1)
	[ -n "$row" ] && opened=$((opened + 1))
	pid=$(echo "$row" | sed 's/.* pid=\([0-9]*\) .*/\1/')
	echo "$workers" | grep -qx "$pid" && byworker=$((byworker + 1))
	b=$(grep -F "op=read $p" "$T/dump" | grep -F " pid=$pid " | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ret=/) { split($i, a, "="); s += a[2] } } END { print s + 0 }')
	[ "$b" = 4096 ] && readok=$((readok + 1))
	i=$((i + 1))
done
t_eq "files opened" $N $opened
t_eq "files opened by a worker" $N $byworker
t_eq "files read whole (4096 B) by the process that opened them" $N $readok
t_eq "nothing lost" 0 "$(t_lost)"
echo "workers: $(echo $workers); syscall rows: $(t_count "syscall ")"
t_done
