#!/bin/sh
# record_missing.sh - a tracepoint the kernel lacks turns off its program with
# one message, and the rest records (IOTAPE_PRETEND_MISSING simulates it).
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
IOTAPE_PRETEND_MISSING=mm_filemap_get_pages,block_rq_issue "$IOTAPE" record -o "$T/t.iotape" -- cat /etc/passwd >/dev/null 2>"$T/err"
t_eq "exit status" 0 $?
t_eq "one line per missing tracepoint" 1 "$(grep -c 'tracepoint filemap:mm_filemap_get_pages not in this kernel' "$T/err")"
t_eq "block_rq_issue named" 1 "$(grep -c 'tracepoint block:block_rq_issue not in this kernel' "$T/err")"
t_dump "$T/t.iotape"
t_expect 0 "no page-cache access rows" "cache " "kind=access "
t_expect_ge 1 "syscalls still recorded" "syscall " "op=read path=\"/etc/passwd\""
t_done
