#!/bin/sh
# record_attach.sh - -p PID attaches to a running process and follows the
# children it starts afterwards (fork + exec); --duration stops recording.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
f="$T/f.dat"
head -c 8192 /dev/urandom > "$f"
sh -c "while :; do cat $f > /dev/null; sleep 0.1; done" &
sh_pid=$!
sleep 0.3
start=$(date +%s.%N)
"$IOTAPE" record -q -p $sh_pid --duration 2 -o "$T/t.iotape"
rc=$?
end=$(date +%s.%N)
kill $sh_pid
t_eq "exit status with -p and --duration" 0 $rc
t_check "--duration 2 stopped after 2..4 s" awk -v a=$start -v b=$end 'BEGIN { exit !(b - a >= 2 && b - a < 4) }'
t_dump "$T/t.iotape"
t_expect 1 "attached process row" "process " " pid=$sh_pid tid=$sh_pid "
t_expect_ge 10 "children started after attach" "process " " ppid=$sh_pid " "argv=\"cat $f\""
# every cat child read the file: 8192 bytes each (then EOF)
n=$(t_count "process " " ppid=$sh_pid " "argv=\"cat $f\"")
t_check "reads of $f by the children" [ "$(t_count "syscall " "op=read path=\"$f\"" "size=" "ret=8192 ")" -ge $((n - 1)) ]
t_expect 0 "no reads of $f by the attached shell itself" "syscall " " pid=$sh_pid " "op=read path=\"$f\""
t_done
