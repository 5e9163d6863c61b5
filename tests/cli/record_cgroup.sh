#!/bin/sh
# record_cgroup.sh - --cgroup traces the processes of a cgroup v2, of the
# cgroups below it (a pod's containers), and the children they start; not
# others.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
root=
for r in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ "$(stat -f -c %T $r 2>/dev/null)" = cgroup2fs ] && root=$r && break
done
[ -n "$root" ] || skip "no cgroup v2 hierarchy"
cg=$root/iotape-test-$$
mkdir "$cg" || skip "cannot create a cgroup"
mkdir "$cg/inner" || { rmdir "$cg"; skip "cannot create a nested cgroup"; }
f="$T/f.dat"; g="$T/g.dat"; h="$T/h.dat"
head -c 4096 /dev/urandom > "$f"; cp "$f" "$g"; cp "$f" "$h"
sh -c "echo \$\$ > $cg/cgroup.procs; while :; do cat $f > /dev/null; sleep 0.1; done" &
in=$!
sh -c "echo \$\$ > $cg/inner/cgroup.procs; while :; do cat $h > /dev/null; sleep 0.1; done" &
nested=$!
sh -c "while :; do cat $g > /dev/null; sleep 0.1; done" &
out=$!
sleep 0.3
"$IOTAPE" record -q --cgroup "$cg" --duration 1.5 -o "$T/t.iotape"
rc=$?
kill $in $nested $out
sleep 0.2
rmdir "$cg/inner" "$cg"
t_eq "exit status" 0 $rc
t_dump "$T/t.iotape"
t_expect_ge 5 "reads by processes of the cgroup" "syscall " "op=read path=\"$f\""
t_expect_ge 5 "reads by processes of a cgroup below it" "syscall " "op=read path=\"$h\""
t_expect 0 "no reads by processes outside" "syscall " "op=read path=\"$g\""
t_expect_ge 5 "cat children in the process table" "process " "argv=\"cat $f\""
t_done
