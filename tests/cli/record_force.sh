#!/bin/sh
# record_force.sh - record -f keeps the old trace until the new one is
# complete: a recording that fails to start leaves it byte for byte and no
# temporary file; a killed one leaves it too, the partial trace in
# TRACE.tmp.XXXXXX; a finished one replaces it.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
cd "$T" || exit 1

# no_tmp DESCRIPTION: no temporary file is left next to old.iotape
no_tmp() {
	set -- "$1" old.iotape.tmp.*
	t_check "$1: no temporary file left ($2)" [ ! -e "$2" ]
}

"$IOTAPE" record -q -o old.iotape -- cat /etc/hostname >/dev/null || fail "cannot record"
cp old.iotape keep.iotape

"$IOTAPE" record -q -f -o old.iotape -- /nonexistent/cmd 2>err
t_eq "command not found: status" 127 $?
t_eq "command not found: one line" "iotape record: /nonexistent/cmd: No such file or directory" "$(cat err)"
t_check "command not found: old trace kept" cmp -s keep.iotape old.iotape
no_tmp "command not found"

err_line 1 "iotape record: " "-p 999999999: no such process" \
	"$IOTAPE" record -q -f -o old.iotape -p 999999999
t_check "no such process: old trace kept" cmp -s keep.iotape old.iotape
no_tmp "no such process"

if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$IOTAPE" record -q -f -o "$T/old.iotape" -- true 2>err
	t_eq "unprivileged: status" 1 $?
	t_check "unprivileged: old trace kept" cmp -s keep.iotape old.iotape
	no_tmp "unprivileged"
fi

# SIGKILL: the old trace stays, the partial one is the temporary file
head -c 1048576 /dev/urandom >f.dat
rec_signal KILL f.dat -f -o old.iotape
t_check "SIGKILL: old trace kept" cmp -s keep.iotape old.iotape
set -- old.iotape.tmp.*
t_eq "SIGKILL: one temporary file" 1 $#
case $1 in
old.iotape.tmp.??????) ;;
*) t_eq "SIGKILL: temporary file name" "old.iotape.tmp.XXXXXX" "$1" ;;
esac
if [ -f "$1" ]; then
	t_dump "$1"
	t_expect 1 "SIGKILL: partial trace recovered" "# recovered"
	t_expect_ge 1000 "SIGKILL: partial trace rows" "syscall " "op=pread64 "
	rm -f "$1"
fi

# a finished recording replaces the old trace, with a new trace's mode
umask 022
"$IOTAPE" record -q -f -o old.iotape -- sh -c 'exit 3'
t_eq "replaced: the command's status" 3 $?
cmp -s keep.iotape old.iotape && t_eq "replaced: differs from the old trace" "new" "old"
t_dump old.iotape
t_expect 1 "replaced: the new command line" "meta cmdline=sh -c exit 3 "
t_expect 0 "replaced: complete, no recovery" "# recovered"
t_eq "replaced: mode" 644 "$(stat -c %a old.iotape)"
no_tmp "replaced"

# -f without an old trace
"$IOTAPE" record -q -f -o new.iotape -- true
t_eq "-f, no old trace: status" 0 $?
t_check "-f, no old trace: written" sh -c "\"$TB/tdump\" new.iotape >/dev/null"
set -- new.iotape.tmp.*
t_check "-f, no old trace: no temporary file left" [ ! -e "$1" ]
t_done
