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

# strace -f writing to a terminal: "strace: Process N attached" cuts the
# line it lands in ("vfork(" ... " <unfinished ...>" on the next line);
# renameat2's two dirfd-relative names each made absolute with their own
# dirfd (mv c.bin sub/c.bin); a path argument as the program wrote it
# normalized ("/w/run/sub/../x" is "/w/run/x", "../y" in /w/run "/w/y")
cat >"$T/att.strace" <<'EOT'
10:00:00.000001 renameat2(AT_FDCWD</w/run>, "c.bin", AT_FDCWD</w/run>, "sub/c.bin", RENAME_NOREPLACE) = 0 <0.000066>
10:00:00.000002 vfork(strace: Process 101 attached
 <unfinished ...>
[pid   101] 10:00:00.000003 openat(AT_FDCWD</w/run>, "x", O_RDONLY) = 3</w/run/x> <0.000010>
[pid   100] 10:00:00.000004 <... vfork resumed>) = 101 <0.000003>
[pid   101] 10:00:00.000005 read(3</w/run/x>, "ab", 4096) = 2 <0.000001>
[pid   101] 10:00:00.000006 newfstatat(AT_FDCWD</w/run>, "/w/run/sub/../x", {st_mode=S_IFREG|0644, st_size=2, ...}, 0) = 0 <0.000001>
[pid   101] 10:00:00.000007 newfstatat(AT_FDCWD</w/run>, "../y", 0x7ffd0, 0) = -1 ENOENT (No such file or directory) <0.000001>
[pid   101] 10:00:00.000008 statx(AT_FDCWD</w/run>, "big", AT_STATX_SYNC_AS_STAT, STATX_ALL, {stx_mask=STATX_ALL|STATX_MNT_ID, stx_blksize=4096, stx_attributes=0, stx_nlink=1, stx_uid=0, stx_gid=0, stx_mode=S_IFREG|0640, stx_ino=99, stx_size=146600628, ...}) = 0 <0.000002>
[pid   101] 10:00:00.000009 fstat(3</w/run/x>, {st_mode=S_IFREG|0644, st_size=5, ...}) = 0 <0.000001>
[pid   101] 10:00:00.000010 stat("/w/run/v", {st_dev=makedev(0x103, 0x2), st_ino=77, st_mode=S_IFDIR|S_ISGID|0755, st_nlink=2, st_uid=0, st_gid=0, st_blksize=4096, st_blocks=8, st_size=4096, st_atime=1700000000 /* 2023-11-14T22:13:20+0000 */, ...}) = 0 <0.000001>
strace: Process 102 attached
EOT
cat >"$T/att.want" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
36000000001000,1,1,renameat2,/w/run/c.bin,-100,0,0,0,66000,1,0x1,/w/run/sub/c.bin,-1,0,0
36000000003000,101,101,openat,/w/run/x,-100,0,0,3,10000,2,0x0,,-1,0,0
36000000005000,101,101,read,/w/run/x,3,0,4096,2,1000,2,0x0,,-1,0,0
36000000006000,101,101,newfstatat,/w/run/x,-100,0,0,0,1000,2,0x0,,-1,0,0
36000000007000,101,101,newfstatat,/w/y,-100,0,0,-2,1000,3,0x0,,-1,0,0
36000000008000,101,101,statx,/w/run/big,-100,0,0,0,2000,4,0x0,,-1,0,0
36000000009000,101,101,newfstat,/w/run/x,3,0,0,0,1000,2,0x0,,-1,0,0
36000000010000,101,101,newstat,/w/run/v,-1,0,0,0,1000,5,0x0,,-1,0,0
EOT
ok "$IOTAPE" import -F strace -o "$T/att.tape" "$T/att.strace"
ok "$IOTAPE" dump --format csv -o "$T/att.csv" "$T/att.tape"
same "$T/att.want" "$T/att.csv"
ok "$IOTAPE" dump --format csv --table process -o "$T/att.p.csv" "$T/att.tape"
grep -q '^36000000003000,101,101,1,' "$T/att.p.csv" || fail "pid 101 is not pid 1's child: $(cat "$T/att.p.csv")"
# the file table from what the stats saw, each file's first: size, mode
# (S_IFREG|0644 = 33188, S_IFREG|0640 = 33184, S_IFDIR|S_ISGID|0755 =
# 17901), and -v's st_dev (0x103 << 20 | 2) and st_ino
cat >"$T/att.files" <<'EOT'
ts_ns,file_id,path,dev,inode,size,mode,fstype
36000000006000,2,/w/run/x,0,0,2,33188,0x0
36000000008000,4,/w/run/big,0,99,146600628,33184,0x0
36000000010000,5,/w/run/v,271581186,77,4096,17901,0x0
EOT
ok "$IOTAPE" dump --format csv --table file -o "$T/att.f.csv" "$T/att.tape"
same "$T/att.files" "$T/att.f.csv"

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
