#!/bin/sh
# record_load.sh - a workload issuing 2M preads as fast as it can: nothing is
# lost with the default buffer; with a 16 KiB buffer, rows + reported loss add
# up exactly to the lossless count.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
N=${LOAD_N:-2000000}
head -c 65536 /dev/urandom > "$T/f.dat"
"$IOTAPE" record -q -e syscall -o "$T/a.iotape" -- "$TB/preadbench" "$T/f.dat" $N 1 2>"$T/a.err" || exit 1
echo "traced (default buffer): $(cat "$T/a.err")"
t_dump "$T/a.iotape"
t_eq "default buffer: pread64 rows" $N "$(t_count "syscall " "op=pread64 " "f.dat\"")"
t_eq "default buffer: lost" 0 "$(t_lost)"
total=$(t_count "syscall ")

"$IOTAPE" record -e syscall --buffer 0.015625 -o "$T/b.iotape" -- "$TB/preadbench" "$T/f.dat" $N 1 2>"$T/b.err" || exit 1
grep -v '^[0-9]* ops' "$T/b.err" | tr '\r' '\n' | tail -n 1
t_dump "$T/b.iotape"
rows=$(t_count "syscall ")
lost=$(t_field lost.syscall "meta lost.syscall=")
echo "16 KiB buffer: $rows rows + $lost lost = $((rows + lost)) (lossless run: $total)"
t_check "16 KiB buffer loses events under this load" [ "$lost" -gt 0 ]
t_eq "rows + lost = lossless count" "$total" "$((rows + lost))"
t_check "summary reports the loss" grep -q "lost (syscall $lost[,)]" "$T/b.err"
t_done
