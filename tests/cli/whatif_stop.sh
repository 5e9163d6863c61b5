#!/bin/sh
# whatif_stop.sh - iotape whatif stopped by a signal: SIGTERM, SIGINT or
# SIGHUP ends the replay under way (run in whatif's own process: no child)
# at once (not at --runtime), nothing more runs, the runs' work directory
# (in $TMPDIR) and the -o FILE made before the runs are removed, and
# whatif exits with 128 + the signal after one line.  A signal whatif
# started with ignored (nohup's) stays ignored.
#
# The job: one read, then another 100 s later: each replay sleeps in the
# gap, bounded by --runtime 60s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

printf '%s\n%s\n%s\n%s\n%s\n' "$HDR" \
	'1000,1,1,openat,/data/a,-1,0,0,3,10,0x0,' \
	'2000,1,1,read,/data/a,3,0,4096,4096,10,0x0,' \
	'100000000000,1,1,read,/data/a,3,4096,4096,4096,10,0x0,' \
	'100000001000,1,1,close,/data/a,3,0,0,0,10,0x0,' >"$T/s.csv"
ok "$IOTAPE" import -o "$T/s.tape" "$T/s.csv"

# started PID: wait until whatif PID says its first run started (its
# progress line), then for the replay to be in the job's 100 s gap; no
# child process runs it
started() {
	i=0
	until grep -q '^whatif: \[1/' "$T/w.err" 2>/dev/null; do
		[ $i -lt 200 ] || { kill -KILL "$1"; fail "no replay started: $(cat "$T/w.err")"; }
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.5	# the replay is in the job's 100 s gap
	kill -0 "$1" 2>/dev/null || fail "whatif ended: $(cat "$T/w.err")"
	[ -z "$(pgrep -P "$1")" ] || fail "the replay runs in a child process: $(pgrep -a -P "$1")"
}

# stop SIG: whatif in the background (SIGINT not ignored, as it would be
# for a job started with & by a shell without job control), signalled once
# its first replay is running; sets $wrc
stop() {
	rm -rf "$T/d" "$T/tmp" "$T/w.txt"
	mkdir "$T/tmp" || fail "mkdir"
	TMPDIR=$T/tmp perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or exit 127' \
		"$IOTAPE" whatif -d "$T/d" --runtime 60s -o "$T/w.txt" "$T/s.tape" \
		>"$T/w.out" 2>"$T/w.err" &
	wpid=$!
	started $wpid
	[ -n "$(ls -A "$T/tmp")" ] || fail "$1: no work directory in \$TMPDIR"
	[ -f "$T/w.txt" ] || fail "$1: -o FILE not made before the runs"
	t0=$(date +%s)
	kill -"$1" $wpid || fail "kill -$1"
	wait $wpid
	wrc=$?
	[ $(($(date +%s) - t0)) -lt 20 ] || fail "$1: whatif took $(($(date +%s) - t0)) s to stop"
	[ -z "$(ls -A "$T/tmp")" ] || fail "$1: left in \$TMPDIR: $(ls -A "$T/tmp")"
	[ ! -e "$T/w.txt" ] || fail "$1: the -o FILE was left"
	[ ! -s "$T/w.out" ] || fail "$1: a table on stdout: $(cat "$T/w.out")"
	# its progress line and the one line of the stop
	grep -vc '^whatif: \[1/[0-9]\] ' "$T/w.err" >"$T/n" ; [ "$(cat "$T/n")" = 1 ] ||
		fail "$1: stderr: $(cat "$T/w.err")"
	tail -n 1 "$T/w.err" | grep -qxF "iotape whatif: stopped by SIG$1; the run under way was stopped too" ||
		fail "$1: stderr: $(cat "$T/w.err")"
}
stop TERM
[ "$wrc" = 143 ] || fail "SIGTERM: exit $wrc, want 143"
stop INT
[ "$wrc" = 130 ] || fail "SIGINT: exit $wrc, want 130"
stop HUP
[ "$wrc" = 129 ] || fail "SIGHUP: exit $wrc, want 129"

# --keep: the work directory is kept, and named
rm -rf "$T/d" "$T/tmp"
mkdir "$T/tmp" || fail "mkdir"
TMPDIR=$T/tmp "$IOTAPE" whatif -d "$T/d" --runtime 60s --keep "$T/s.tape" >"$T/w.out" 2>"$T/w.err" &
wpid=$!
started $wpid
kill -TERM $wpid
wait $wpid
wrc=$?
[ "$wrc" = 143 ] || fail "--keep: exit $wrc"
work=$(ls -d "$T"/tmp/iotape-whatif.*) || fail "--keep: no work directory left"
tail -n 1 "$T/w.err" | grep -qxF "iotape whatif: stopped by SIGTERM: the runs' reports and logs are in $work" ||
	fail "--keep: $(cat "$T/w.err")"
[ -f "$work/baseline.log" ] || fail "--keep: no log of the stopped run"

# nohup: SIGHUP ignored when whatif starts stays ignored: the run goes on
# (stopped then by SIGTERM)
rm -rf "$T/d" "$T/tmp"
mkdir "$T/tmp" || fail "mkdir"
TMPDIR=$T/tmp perl -e '$SIG{HUP} = "IGNORE"; exec @ARGV or exit 127' \
	"$IOTAPE" whatif -d "$T/d" --runtime 60s "$T/s.tape" >"$T/w.out" 2>"$T/w.err" &
wpid=$!
started $wpid
kill -HUP $wpid
sleep 0.5
kill -0 $wpid 2>/dev/null || fail "nohup: SIGHUP ended whatif: $(cat "$T/w.err")"
kill -TERM $wpid
wait $wpid
wrc=$?
[ "$wrc" = 143 ] || fail "nohup: then SIGTERM: exit $wrc, want 143"
exit 0
