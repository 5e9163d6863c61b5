#!/bin/sh
# record_cli.sh - options, refusals and exit statuses of the recorder.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
cd "$T" || exit 1
echo keep > exists.iotape
"$IOTAPE" record -q -o exists.iotape -- true 2>err
t_eq "refuses to overwrite: status" 1 $?
t_check "refuses to overwrite: message" grep -q "exists.iotape exists; use -f to overwrite" err
t_eq "refuses to overwrite: file kept" keep "$(cat exists.iotape)"
"$IOTAPE" record -q -f -o exists.iotape -- true
t_eq "-f overwrites" 0 $?
"$TB/tdump" exists.iotape >/dev/null
t_eq "-f result readable" 0 $?

"$IOTAPE" record -q -o a.iotape -- sh -c 'exit 7'
t_eq "command exit status" 7 $?
"$IOTAPE" record -q -o b.iotape -- sh -c 'kill -9 $$'
t_eq "command killed by SIGKILL" 137 $?
"$IOTAPE" record -q -o c.iotape -- /nonexistent/cmd 2>err
t_eq "command not found" 127 $?
t_eq "command not found: one line" "iotape record: /nonexistent/cmd: No such file or directory" "$(cat err)"
t_check "default output name" sh -c "'$IOTAPE' record -q -- true && [ -f iotape.iotape ]"

"$IOTAPE" record -q -e syscall,bogus -o d.iotape -- true 2>err
t_eq "bad layer: status" 2 $?
t_check "bad layer: message" grep -q "unknown layer 'bogus'" err
err_line 2 "iotape record: " "--buffer" "$IOTAPE" record --buffer 0 -- true
err_line 2 "iotape record: " "--duration" "$IOTAPE" record --duration x -- true
err_line 2 "iotape record: " "bad pid 'x'" "$IOTAPE" record -p x
err_line 2 "iotape record: " "not a cgroup v2 directory" "$IOTAPE" record --cgroup /nonexistent
# refused before anything is recorded or run: an empty cgroup (it was the
# root: every process of the machine), an empty output (-f wrote a
# temporary file, ran the whole command and failed at its rename), and -f
# onto a directory (the same, at the end)
err_line 2 "iotape record: " "--cgroup: an empty PATH" "$IOTAPE" record -q --cgroup '' --duration 0.2 -o cg.iotape
[ ! -e cg.iotape ] || fail "record --cgroup '' recorded"
err_line 2 "iotape record: " "--output: an empty TRACE" "$IOTAPE" record -q -f -o '' -- touch ran1
[ ! -e ran1 ] || fail "record -f -o '' ran the command"
mkdir adir || fail "mkdir"
err_line 1 "iotape record: " "adir: Is a directory" "$IOTAPE" record -q -f -o adir -- touch ran2
[ ! -e ran2 ] || fail "record -f -o DIR ran the command"
[ "$(ls -d adir*)" = adir ] && [ -z "$(ls -A adir)" ] || fail "record -f -o DIR left: $(ls -d adir*)"
err_line 2 "iotape record: " "unknown option" "$IOTAPE" record --bogus -- true
err_line 2 "iotape record: " "give a COMMAND" "$IOTAPE" record -o g.iotape
err_line 1 "iotape record: " "-p 999999999: no such process" "$IOTAPE" record -q -o p.iotape -p 999999999
[ -e p.iotape ] && fail "a failed start left p.iotape"

# options end at the command: its own options are not the recorder's
"$IOTAPE" record -q -o opts.iotape -- sh -c 'exit 5' -o x
t_eq "command options passed on" 5 $?
"$IOTAPE" record -q -o opts2.iotape sh -c 'exit 6' -e bogus
t_eq "command without --" 6 $?
t_dump opts2.iotape
t_expect 1 "cmdline meta" "meta cmdline=sh -c exit 6 -e bogus "

"$IOTAPE" record -q -e cache -o e.iotape -- cat /etc/passwd >/dev/null
t_dump e.iotape
t_expect 0 "-e cache: no syscall rows" "syscall "
t_expect_ge 1 "-e cache: cache rows" "cache "
t_expect 0 "-e cache: no samples" "sample "
"$IOTAPE" record -q -e syscall -o f.iotape -- cat /etc/passwd >/dev/null
t_dump f.iotape
t_expect 0 "-e syscall: no cache rows" "cache "
t_expect_ge 1 "-e syscall: reads" "syscall " "op=read path=\"/etc/passwd\""
t_expect 1 "-e syscall: layers meta" "meta layers=syscall "

# metadata keys of iotape-format(5)
"$IOTAPE" record -q -o m.iotape -- cat /etc/hostname >/dev/null
t_dump m.iotape
t_expect 1 "hostname" "meta hostname=$(uname -n) "
t_expect 1 "kernel" "meta kernel=$(uname -r) "
t_expect 1 "cmdline" "meta cmdline=cat /etc/hostname "
t_expect 1 "clock" "meta clock=monotonic "
t_expect 1 "page_size" "meta page_size=$(getconf PAGESIZE) "
t_expect 1 "source" "meta source=record "
t_expect 1 "iotape_version" "meta iotape_version=$("$IOTAPE" --version | sed 's/iotape version \([^ ]*\).*/\1/') "
for k in start_wall_ns start_mono_ns lost.syscall lost.cache lost.block lost.process; do
	t_expect 1 "meta $k" "meta $k="
done
t_expect 0 "no prototype keys" "meta host="
t_expect 0 "no prototype keys" "meta command="
t_expect 0 "no prototype keys" "meta start_ns="
t_expect 0 "no prototype keys" "meta lost="
t_expect 0 "lost.* only of tables" "meta lost.mmap"
t_expect 0 "lost.* only of tables" "meta lost.proc="
wall=$(t_field start_wall_ns "meta start_wall_ns=")
now=$(date +%s%N)
t_check "start_wall_ns is the wall clock ($wall, now $now)" [ $((now - wall)) -ge 0 -a $((now - wall)) -lt 60000000000 ]
mono=$(t_field start_mono_ns "meta start_mono_ns=")
first=$(awk '$1 == "syscall" { for (i = 2; i <= NF; i++) if ($i ~ /^ts_ns=/) { print substr($i, 7); exit } }' "$T/dump")
t_check "start_mono_ns ($mono) <= first event ($first)" [ "$mono" -le "$first" ]
"$IOTAPE" info m.iotape >info.out
t_check "info sums the lost.* keys" grep -q "^lost events  *0$" info.out

if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$IOTAPE" record -q -o np.iotape -- true 2>err
	t_eq "unprivileged: status" 1 $?
	t_eq "unprivileged: one line" 1 "$(wc -l < err)"
	t_check "unprivileged: names the capabilities" grep -q "CAP_BPF" err
fi
"$IOTAPE" record -q -o g.iotape 2>err
t_eq "no command: usage status" 2 $?
t_done
