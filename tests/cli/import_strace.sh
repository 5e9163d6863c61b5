#!/bin/sh
# iotape import -F strace: a hand-written strace -f -tt -T -y output
# (unfinished and resumed calls of two threads joined, a [pid N] prefix
# that names the unprefixed first process, midnight, escapes in -y paths,
# errors, clone, execve and exits) imports to exactly the rows in
# import_strace/join*.csv; then real strace on tests/helpers/workload
# (-y and -yy): the bytes read and written per file that `analyze --json`
# reports are the workload's (workload.c), and the op counts equal the
# calls strace printed.  Bad input: one "FILE:LINE: what" line, exit 1,
# nothing left behind.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/cli/import_strace

ok "$IOTAPE" import -F strace -o "$T/join.tape" "$D/join.strace"
ok "$IOTAPE" dump --format csv -o "$T/join.csv" "$T/join.tape"
same "$D/join.csv" "$T/join.csv"
ok "$IOTAPE" dump --format csv --table process -o "$T/join.process.csv" "$T/join.tape"
same "$D/join.process.csv" "$T/join.process.csv"
ok "$IOTAPE" info "$T/join.tape"
grep -q "not_recorded.*block, cache" "$T/out" || fail "info lacks not_recorded: $(cat "$T/out")"
grep -q "source.*import:strace" "$T/out" || fail "info lacks source: $(cat "$T/out")"

# bad input
bad() {	# LINE-NUMBER PATTERN, the input on stdin
	cat >"$T/bad.strace" || fail "writing $T/bad.strace"
	import_bad strace "$T/bad.strace" "$1" "$2"
}
bad 2 "not a strace line" <<'EOT'
10:00:00.000001 close(3) = 0
this is not strace
EOT
bad 1 "')' is missing" <<'EOT'
10:00:00.000001 read(3, "abc", 3 = 3
EOT
bad 1 "no '= RET'" <<'EOT'
10:00:00.000001 close(3)
EOT
bad 1 "not HH:MM:SS" <<'EOT'
99:00:00.000001 close(3) = 0
EOT
bad 3 "quoted string never ends" <<'EOT'
10:00:00.000001 close(3) = 0

10:00:00.000002 openat(AT_FDCWD, "/a, O_RDONLY) = 3
EOT
: >"$T/empty.strace"
err_line 1 "iotape import: $T/empty.strace: " "empty input" \
	"$IOTAPE" import -F strace -o "$T/empty.tape" "$T/empty.strace"
[ -e "$T/empty.tape" ] && fail "empty.tape left behind"

command -v strace >/dev/null || skip "no strace"
[ -x "$TESTBIN/workload" ] || skip "no $TESTBIN/workload (make tests)"
strace -o /dev/null true 2>"$T/err" || skip "strace cannot trace here: $(cat "$T/err")"

# per-file bytes from analyze --json, as "path read_bytes write_bytes"
files() {
	sorted "$2" python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    print(f["path"].rsplit("/", 1)[1], f["read_bytes"], f["write_bytes"])
' "$1"
}
# workload.c: data.bin written 16 x 4096, read 7 x 4096 (2 reads, pread,
# preadv, the dup's read, the thread's pread, O_DIRECT); child.bin
# written 2 x 4096 by the parent, read 2 x 4096 by the child; log.txt 2 x
# 100; src.bin the input of the three copies (16384 + 8192 + 4096),
# dst.bin their output; the tmpfs file 4096 each way
cat >"$T/want" <<'EOT'
child.bin 8192 8192
data.bin 28672 65536
dst.bin 0 28672
log.txt 0 200
src.bin 28672 0
EOT

for y in -y -yy; do
	rm -rf "$T/wd" && mkdir "$T/wd" || fail "mkdir"
	strace -f -tt -T $y -o "$T/w.strace" "$TESTBIN/workload" "$T/wd" 2>"$T/err"
	rc=$?
	[ $rc -eq 3 ] || fail "strace workload exited $rc: $(cat "$T/err")"
	rm -f "$T/w.tape"
	ok "$IOTAPE" import -F strace -o "$T/w.tape" "$T/w.strace"
	ok "$IOTAPE" analyze --json "$T/w.tape"
	cp "$T/out" "$T/w.json" || fail "cp"
	files "$T/w.json" "$T/got"
	grep -E '^(child|data|dst|log|src)\.bin|^log\.txt' "$T/got" >"$T/got.wd" || fail "no workload files: $(cat "$T/got")"
	same "$T/want" "$T/got.wd"
	# one row per call strace printed (a start line, complete or not)
	ok "$IOTAPE" dump --format csv -o "$T/w.csv" "$T/w.tape"
	cut -d, -f4 "$T/w.csv" >"$T/w.ops" || fail "cut $T/w.csv"
	for op in openat read pread64 preadv write pwrite64 lseek fsync close dup sendfile copy_file_range; do
		# strace pads the pid to 5 columns: "1234  10:00:00.000001 op("
		want=$(grep -c "^[0-9][0-9]* *[0-9:.]* $op(" "$T/w.strace")
		got=$(grep -cx "$op" "$T/w.ops")
		[ "$want" = "$got" ] || fail "$y: $op: $got rows, strace printed $want"
	done
	ok "$IOTAPE" dump --format csv --table process -o "$T/p.csv" "$T/w.tape"
	# argv as strace printed it: strings cut at 32 bytes (-s 32) and "..."
	wl=$TESTBIN/workload
	[ ${#wl} -gt 32 ] && wl="$(printf %.32s "$wl")..."
	grep -F ",3,$wl $T/wd" "$T/p.csv" >"$T/p3.csv"
	grep -q ",workload,[0-9]*,3," "$T/p3.csv" || fail "$y: no workload row with exit 3 and argv '$wl $T/wd': $(cat "$T/p.csv")"
	[ "$(wc -l <"$T/p.csv")" -eq 4 ] || fail "$y: want 3 threads: $(cat "$T/p.csv")"
done
exit 0
