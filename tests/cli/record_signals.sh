#!/bin/sh
# record_signals.sh - SIGINT mid-record gives a complete trace (footer index,
# no recovery); SIGKILL mid-record leaves a readable prefix (flushed blocks).
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
head -c 1048576 /dev/urandom > "$T/f.dat"

# a command started with & ignores SIGINT: the recorder closes the trace,
# waits 3 s, and leaves it running
rec_signal INT "$T/f.dat" -o "$T/int.iotape"
t_eq "exit status after SIGINT" 130 "$rec_rc"
t_dump "$T/int.iotape"
t_expect 0 "SIGINT: complete file, no recovery" "# recovered"
t_expect_ge 1000 "SIGINT: syscall rows" "syscall " "op=pread64 "
t_expect 1 "SIGINT: meta written at close" "meta end_mono_ns="

rec_signal KILL "$T/f.dat" -o "$T/kill.iotape"
t_dump "$T/kill.iotape"
t_expect 1 "SIGKILL: index rebuilt by scanning" "# recovered"
t_expect_ge 1000 "SIGKILL: syscall rows of the flushed prefix" "syscall " "op=pread64 "
t_expect 1 "SIGKILL: start metadata flushed first" "meta source=record "
t_done
