#!/bin/sh
# merge.sh - iotape merge and iotape split on hand-made traces whose every
# event and clock is known: the merged clock (each input's recorded
# wall-clock start, or --align), the host folded into the ids, analyze's
# totals (the sums of the inputs') and per-host parts (each input's own
# analysis), split --by host giving the inputs back event for event and
# key for key, split --by process and --by time exactly, and bad input
# (one error line, non-zero, nothing left behind).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"

H='ts_ns,pid,op,path,size'
# node A: pid 10 reads /d/a 3 x 4096, writes 100 bytes; the common event
# (openat of /d/start) at ts 700
printf '%s\n' "$H" 100,10,openat,/d/a,0 200,10,read,/d/a,4096 300,10,read,/d/a,4096 \
	400,10,read,/d/a,4096 500,10,close,/d/a,0 600,10,openat,/o/a,0 650,10,write,/o/a,100 \
	700,10,openat,/d/start,0 >"$T/a.csv"
# node B: pid 10 too (pids collide across hosts), and pid 11
printf '%s\n' "$H" 50,10,openat,/d/b,0 60,10,read,/d/b,1000 70,10,read,/d/b,1000 \
	80,11,openat,/o/b,0 90,11,write,/o/b,50 95,11,write,/o/b,50 120,10,openat,/d/start,0 \
	>"$T/b.csv"
ok "$IOTAPE" import -m hostname=nodeA -m start_wall_ns=1000000000000 -m start_mono_ns=100 \
	-o "$T/a.tape" "$T/a.csv"
ok "$IOTAPE" import -m hostname=nodeB -m start_wall_ns=1000000000500 -m start_mono_ns=40 \
	-o "$T/b.tape" "$T/b.csv"

# --- the merge: times on CLOCK_REALTIME, wall + ts - mono ------------------
run "$IOTAPE" merge -o "$T/m.tape" "$T/a.tape" "$T/b.tape"
[ "$rc" = 0 ] || fail "merge exited $rc: $(cat "$T/err")"
[ "$(cat "$T/err")" = "$T/m.tape: 2 hosts, 15 events, clock realtime" ] || fail "summary: $(cat "$T/err")"
ok "$IOTAPE" dump -F csv -o "$T/m.csv" "$T/m.tape"
cut -d, -f1-4 "$T/m.csv" >"$T/m4.csv" || fail cut
# B's ts 50 is wall 1000000000500 + 50 - 40; B's pid 10 is 1 << 22 | 10;
# equal times in input order (550)
cat >"$T/want.csv" <<'E'
ts_ns,pid,tid,op
1000000000000,10,10,openat
1000000000100,10,10,read
1000000000200,10,10,read
1000000000300,10,10,read
1000000000400,10,10,close
1000000000500,10,10,openat
1000000000510,4194314,4194314,openat
1000000000520,4194314,4194314,read
1000000000530,4194314,4194314,read
1000000000540,4194315,4194315,openat
1000000000550,10,10,write
1000000000550,4194315,4194315,write
1000000000555,4194315,4194315,write
1000000000580,4194314,4194314,openat
1000000000600,10,10,openat
E
same "$T/want.csv" "$T/m4.csv"
ok "$IOTAPE" info "$T/m.tape"
for kv in 'merge.hosts +2' 'clock +realtime' 'start_wall_ns +1000000000000' \
	'host.0.name +nodeA' 'host.1.name +nodeB' 'host.1.offset_ns +1000000000460' \
	'host.1.start_mono_ns +40' 'host.1.t_min +1000000000510' 'host.1.t_max +1000000000580'; do
	grep -Eq "^  $kv\$" "$T/out" || fail "info: no '$kv': $(cat "$T/out")"
done

# --- analyze: totals are the sums, each host part is its input's analysis --
for x in a b m; do
	ok "$IOTAPE" analyze --json "$T/$x.tape"
	cp "$T/out" "$T/$x.json"
done
py() { python3 -c "import json
a, b, m = (json.load(open('$T/' + x + '.json')) for x in 'abm')
$1"; }
r=$(py "
keys = ['read_ops', 'read_bytes', 'write_ops', 'write_bytes', 'files_read', 'files_written',
        'processes', 'threads', 'syscalls', 'failed_syscalls']
bad = [k for k in keys if m['summary'][k] != a['summary'][k] + b['summary'][k]]
print(bad or 'ok', m['summary']['read_bytes'], m['summary']['write_bytes'], m['summary']['processes'])")
[ "$r" = "ok 14288 200 3" ] || fail "totals are not the sums: $r"
r=$(py "
def part(x):
    s = dict(x['summary']); del s['trace_events']; return s
print([h['name'] for h in m['hosts']], m['hosts'][0]['summary'] == part(a), m['hosts'][1]['summary'] == part(b))")
[ "$r" = "['nodeA', 'nodeB'] True True" ] || fail "host parts differ from the inputs' analyses: $r $(py "print(m['hosts'])")"
ok "$IOTAPE" analyze "$T/m.tape"
grep -Eq '^  1 +nodeB +70ns +2 +2.0 KiB +2 +100 B +7$' "$T/out" || fail "text HOSTS: $(cat "$T/out")"

# --- split --by host: the inputs back, events and metadata ---------------
ok "$IOTAPE" split -q --by host -o "$T/s" "$T/m.tape"
for h in 0 1; do
	x=$([ $h = 0 ] && echo a || echo b)
	ok "$IOTAPE" dump -F csv -o "$T/in$h.csv" "$T/$x.tape"
	ok "$IOTAPE" dump -F csv -o "$T/s$h.csv" "$T/s-host$h.iotape"
	same "$T/in$h.csv" "$T/s$h.csv"
	ok "$IOTAPE" info "$T/$x.tape"
	sed -n '/^meta/,$p' "$T/out" >"$T/im$h" || fail sed
	ok "$IOTAPE" info "$T/s-host$h.iotape"
	sed -n '/^meta/,$p' "$T/out" >"$T/sm$h" || fail sed
	same "$T/im$h" "$T/sm$h"
	ok "$IOTAPE" analyze --json "$T/s-host$h.iotape"
	# equal but for the trace's name
	sed 's|"trace":"[^"]*"||' "$T/$x.json" >"$T/ja" || fail sed
	sed 's|"trace":"[^"]*"||' "$T/out" >"$T/jb" || fail sed
	same "$T/ja" "$T/jb"
done
ls "$T" >"$T/ls" || fail "ls $T"
[ "$(grep -c '^s-' "$T/ls")" = 2 ] || fail "split --by host: $(cat "$T/ls")"

# --- split --by process: one trace per (host, pid) -------------------------
ok "$IOTAPE" split -q --by process -o "$T/p" "$T/m.tape"
[ "$(cd "$T" && ls p-*)" = "$(printf 'p-pid10.iotape\np-pid4194314.iotape\np-pid4194315.iotape')" ] ||
	fail "split --by process: $(ls "$T")"
for pv in 10:8 4194314:4 4194315:3; do
	ok "$IOTAPE" dump -F csv -o "$T/p.csv" "$T/p-pid${pv%:*}.iotape"
	[ "$(grep -c ",${pv%:*},${pv%:*}," "$T/p.csv")" = "${pv#*:}" ] &&
	[ "$(wc -l <"$T/p.csv")" = $((${pv#*:} + 1)) ] || fail "pid ${pv%:*}: $(cat "$T/p.csv")"
done

# --- split --by time: [t0 + k D, t0 + (k + 1) D) ------------------------
# events at +0 100 200 300 400 500 550 600 (A) and +510 520 530 540 550 555
# 580 (B): --parts 3 of the 601 ns is 201 ns each, [0, 201) [201, 402)
# [402, 603); --every 250ns: [0, 250) [250, 500) [500, 750)
ok "$IOTAPE" split -q --by time --parts 3 -o "$T/t" "$T/m.tape"
n=""
for k in 0 1 2; do
	ok "$IOTAPE" dump -F csv -o "$T/t.csv" "$T/t-part$k.iotape"
	n="$n $(($(wc -l <"$T/t.csv") - 1))"
done
[ "$n" = " 3 2 10" ] || fail "split --parts 3: events per part$n"
ok "$IOTAPE" split -q --by time --every 250ns -o "$T/e" "$T/m.tape"
n=""
for k in 0 1 2; do
	ok "$IOTAPE" dump -F csv -o "$T/t.csv" "$T/e-part$k.iotape"
	n="$n $(($(wc -l <"$T/t.csv") - 1))"
done
[ "$n" = " 3 2 10" ] && [ ! -e "$T/e-part3.iotape" ] || fail "split --every 250ns: events per part$n"

# --- --align: the first openat of */start is the same instant ------------
ok "$IOTAPE" merge -q --align 'op=openat,path=*/start' -o "$T/al.tape" "$T/a.tape" "$T/b.tape"
ok "$IOTAPE" dump -F csv -o "$T/al.csv" "$T/al.tape"
# A's match: wall 1000000000000 + 700 - 100; B's rows move by it - 120
grep -c '^1000000000600,.*,openat,/d/start,' "$T/al.csv" >"$T/n" || true
[ "$(cat "$T/n")" = 2 ] || fail "--align: $(cat "$T/al.csv")"
grep -q '^1000000000530,4194314,4194314,openat,/d/b,' "$T/al.csv" || fail "--align B: $(cat "$T/al.csv")"
ok "$IOTAPE" info "$T/al.tape"
grep -Eq '^  merge.align +op=openat,path=\*/start$' "$T/out" || fail "no merge.align"

# --- bad input: one line, non-zero, nothing left ---------------------------
err_line 2 "iotape merge: " "one trace" "$IOTAPE" merge -o "$T/x.tape" "$T/a.tape"
[ ! -e "$T/x.tape" ] || fail "one input left a file"
cp "$T/m.tape" "$T/keep.tape"
err_line 1 "iotape merge: $T/m.tape: exists" "" "$IOTAPE" merge -o "$T/m.tape" "$T/a.tape" "$T/b.tape"
same "$T/keep.tape" "$T/m.tape"
head -c $(($(wc -c <"$T/b.tape") - 30)) "$T/b.tape" >"$T/cut.tape"
err_line 1 "iotape merge: $T/cut.tape: incomplete trace" "" \
	"$IOTAPE" merge -o "$T/x.tape" "$T/a.tape" "$T/cut.tape"
[ ! -e "$T/x.tape" ] || fail "truncated input left a file"
printf 'not a trace at all, not at all' >"$T/junk.tape"
err_line 1 "iotape merge: $T/junk.tape" "" "$IOTAPE" merge -o "$T/x.tape" "$T/a.tape" "$T/junk.tape"
[ ! -e "$T/x.tape" ] || fail "junk input left a file"
ok "$IOTAPE" import -o "$T/noclock.tape" "$T/a.csv"
err_line 1 "iotape merge: $T/noclock.tape: no recorded wall-clock start" "" \
	"$IOTAPE" merge -o "$T/x.tape" "$T/a.tape" "$T/noclock.tape"
[ ! -e "$T/x.tape" ] || fail "no clock left a file"
err_line 1 "iotape merge: $T/m.tape: already a merged trace" "" \
	"$IOTAPE" merge -o "$T/x.tape" "$T/a.tape" "$T/m.tape"
err_line 1 "iotape merge: $T/a.tape: no syscall matches" "" \
	"$IOTAPE" merge --align 'path=*/nowhere' -o "$T/x.tape" "$T/a.tape" "$T/noclock.tape"
err_line 2 "iotape merge: " "--align: 'nosuch' is not a column" \
	"$IOTAPE" merge --align 'nosuch=1' -o "$T/x.tape" "$T/a.tape" "$T/b.tape"
[ ! -e "$T/x.tape" ] || fail "a failed merge left a file"
# a pid past Linux's limit cannot take a host
printf '%s\n' "$H" 100,4194304,openat,/d/a,0 >"$T/big.csv"
ok "$IOTAPE" import -m start_wall_ns=1 -m start_mono_ns=1 -o "$T/big.tape" "$T/big.csv"
err_line 1 "iotape merge: $T/big.tape: syscall table: an id too large" "" \
	"$IOTAPE" merge -o "$T/x.tape" "$T/a.tape" "$T/big.tape"
[ ! -e "$T/x.tape" ] || fail "a failed merge left a file"

# split: an existing part stops it before any is written
: >"$T/q-host1.iotape"
err_line 1 "iotape split: $T/q-host1.iotape: exists" "" \
	"$IOTAPE" split --by host -o "$T/q" "$T/m.tape"
[ ! -e "$T/q-host0.iotape" ] && [ ! -s "$T/q-host1.iotape" ] || fail "split left parts"
err_line 1 "iotape split: $T/a.tape: not a merged trace" "" \
	"$IOTAPE" split --by host -o "$T/r" "$T/a.tape"
err_line 2 "iotape split: " "one of --every D and --parts N" \
	"$IOTAPE" split --by time -o "$T/r" "$T/m.tape"
err_line 1 "iotape split: $T/cut.tape: incomplete trace" "" \
	"$IOTAPE" split --by time --parts 2 -o "$T/r" "$T/cut.tape"
[ -z "$(cd "$T" && ls r-* 2>/dev/null)" ] || fail "a failed split left parts"
exit 0
