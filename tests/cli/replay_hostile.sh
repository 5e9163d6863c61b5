#!/bin/sh
# Traces from elsewhere cannot reach outside DIR: ".." is refused with one
# line, absolute paths are mapped under DIR, symlinks planted under DIR that
# lead out are refused (openat2 RESOLVE_BENEATH), a non-empty unmarked DIR
# needs --force, a truncated or garbage trace gives one line or replays its
# complete blocks.  After each case nothing outside DIR has changed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

O=$T/outside
mkdir -p "$O/sub" && echo secret >"$O/s" && echo keep >"$O/sub/k"
snapshot "$O" >"$T/outside.before"
unchanged() {	# what: the outside tree and the list of $T are as before
	snapshot "$O" >"$T/outside.after"
	cmp -s "$T/outside.before" "$T/outside.after" ||
		fail "$1: outside DIR changed: $(diff "$T/outside.before" "$T/outside.after")"
	return 0
}
csv() {	# NAME: stdin rows after the header -> $T/NAME.tape
	{ echo "$HDR"; cat; } >"$T/$1.csv"
	ok "$IOTAPE" import -f -o "$T/$1.tape" "$T/$1.csv"
}

# ".." anywhere: refused before DIR is touched
csv dotdot <<EOF2
1000,1,1,openat,/data/../../outside/s,-1,0,0,3,10,0x2,
2000,1,1,write,/data/../../outside/s,3,0,6,6,10,0,
EOF2
err_line 1 "iotape replay: " "has a '..' component: refused" \
	"$IOTAPE" replay -d "$T/d1" "$T/dotdot.tape"
[ ! -e "$T/d1" ] || fail "..: DIR created for a refused trace"
csv dotdot2 <<EOF2
1000,1,1,rename,/a,-1,0,0,0,10,0,/x/..
EOF2
err_line 1 "iotape replay: " "'..'" "$IOTAPE" replay -d "$T/d1" "$T/dotdot2.tape"
csv marker <<EOF2
1000,1,1,unlink,/.iotape-replay,-1,0,0,0,10,0,
EOF2
err_line 1 "iotape replay: " "names no file under DIR" "$IOTAPE" replay -d "$T/d1" "$T/marker.tape"
unchanged ".."

# absolute paths name files under DIR: write, truncate, rename, unlink there
csv abs <<EOF2
1000,1,1,openat,$O/s,-1,0,0,3,10,0x241,
2000,1,1,write,$O/s,3,0,6,6,10,0,
3000,1,1,close,$O/s,3,0,0,0,10,0,
4000,1,1,rename,$O/s,-1,0,0,0,10,0,$O/sub/k
5000,1,1,unlink,$O/sub/k,-1,0,0,0,10,0,
6000,1,1,mkdir,/etc,-1,0,0,0,10,0,
7000,1,1,openat,/proc/self/root$O/s,-1,0,0,4,10,0x241,
EOF2
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/abs.json" -d "$T/d2" "$T/abs.tape"
[ "$(jq_py "$T/abs.json" "d['replay']['ops_failed']")" = 0 ] || fail "abs: ops failed"
[ -d "$T/d2/etc" ] && [ -d "$T/d2$O/sub" ] && [ ! -e "$T/d2$O/s" ] && [ ! -e "$T/d2$O/sub/k" ] ||
	fail "abs: not mapped under DIR"
# /proc/self/root/...: on a pseudo file system, not replayed at all
[ "$(jq_py "$T/abs.json" "d['replay']['recorded_memory_fs']['where']")" = "{'/proc': 1}" ] ||
	fail "abs: /proc/self/root not left out: $(jq_py "$T/abs.json" "d['replay']['recorded_memory_fs']")"
[ ! -e "$T/d2/proc" ] || fail "abs: /proc mapped under DIR"
unchanged "absolute paths"

# a directory symlink under DIR that leads out: prepare refuses
mkdir -p "$T/d3" && : >"$T/d3/.iotape-replay" && ln -s ../outside "$T/d3/data"
csv symdir <<EOF2
1000,1,1,openat,/data/s,-1,0,0,3,10,0x2,
2000,1,1,read,/data/s,3,0,6,6,10,0,
3000,1,1,write,/data/s,3,0,6,6,10,0,
EOF2
err_line 1 "iotape replay: " "a symlink leads out of DIR, refused" \
	"$IOTAPE" replay -d "$T/d3" "$T/symdir.tape"
# without prepare the open itself is refused (EXDEV): confined, counted
err_line 1 "iotape replay: " "(the first: open data/s: Invalid cross-device link)" \
	"$IOTAPE" replay --no-prepare --timing afap --output-format json -o "$T/sd.json" -d "$T/d3" "$T/symdir.tape"
[ "$(jq_py "$T/sd.json" "d['jobs'][0]['error']")" = 18 ] || fail "symlink dir: want EXDEV"
[ "$(jq_py "$T/sd.json" "d['replay']['ops_done']['write']")" = 0 ] || fail "symlink dir: wrote"
unchanged "directory symlink"

# file symlinks (absolute and relative) to outside files; a rename into a
# symlinked directory; dangling symlink as an O_CREAT target
mkdir -p "$T/d4" && : >"$T/d4/.iotape-replay"
ln -s "$O/s" "$T/d4/abs" && ln -s ../outside/s "$T/d4/rel" && ln -s ../outside/sub "$T/d4/sub"
ln -s ../outside/new "$T/d4/dangling"
csv symfile <<EOF2
1000,1,1,openat,/abs,-1,0,0,3,10,0x241,
2000,1,1,write,/abs,3,0,6,6,10,0,
3000,1,1,openat,/rel,-1,0,0,4,10,0x2,
4000,1,1,write,/rel,4,0,6,6,10,0,
5000,1,1,openat,/dangling,-1,0,0,5,10,0x241,
6000,1,1,write,/dangling,5,0,6,6,10,0,
7000,1,1,openat,/tmp.pt,-1,0,0,6,10,0x241,
8000,1,1,close,/tmp.pt,6,0,0,0,10,0,
9000,1,1,rename,/tmp.pt,-1,0,0,0,10,0,/sub/k
10000,1,1,unlink,/sub/k,-1,0,0,0,10,0,
11000,1,1,mkdir,/sub/newdir,-1,0,0,0,10,0,
EOF2
ok "$IOTAPE" replay --no-prepare --ignore-errors --timing afap --output-format json -o "$T/sf.json" -d "$T/d4" "$T/symfile.tape"
[ "$(jq_py "$T/sf.json" "d['replay']['ops_done']['write']")" = 0 ] || fail "symlink files: wrote through a link"
# 6 refused ops (3 opens, the unlink, the rename, the mkdir: EXDEV) and the
# 3 writes their opens did not give an fd to (EBADF, not issued)
[ "$(jq_py "$T/sf.json" "sorted((k, v['count'], v['first_errno']) for k, v in d['replay']['failed'].items())")" = \
  "[('mkdir', 1, 18), ('open', 3, 18), ('rename', 1, 18), ('unlink', 1, 18), ('write', 3, 9)]" ] ||
	fail "symlink files: want 6 refused ops and 3 writes not issued: $(jq_py "$T/sf.json" "d['replay']['failed']")"
[ ! -e "$O/new" ] || fail "dangling symlink followed"
# with prepare: /rel is a read-write open of an existing file: refused
err_line 1 "iotape replay: " "a symlink leads out of DIR, refused" \
	"$IOTAPE" replay -d "$T/d4" "$T/symfile.tape"
unchanged "file symlinks"

# DIR not empty and not ours: refused unless --force
mkdir -p "$T/d5" && echo mine >"$T/d5/notes.txt"
err_line 1 "iotape replay: " "is not empty and was not prepared by iotape" \
	"$IOTAPE" replay -d "$T/d5" "$T/abs.tape"
[ ! -e "$T/d5/.iotape-replay" ] || fail "marker written into a refused DIR"
ok "$IOTAPE" replay --force --timing afap -d "$T/d5" "$T/abs.tape"
[ "$(cat "$T/d5/notes.txt")" = mine ] || fail "--force touched an unrelated file"
unchanged "--force"

# truncated trace: replays its complete blocks (or one error line)
awk -v hdr="$HDR" 'BEGIN { print hdr; print "1,1,1,openat,/t/x,-1,0,0,3,1,0,"
	for (i = 0; i < 100000; i++) printf "%d,1,1,pread64,/t/x,3,%d,512,512,1,0,\n", 10 + i * 7, (i % 64) * 512 }' >"$T/big.csv"
ok "$IOTAPE" import -o "$T/big.tape" "$T/big.csv"
size=$(wc -c <"$T/big.tape")
head -c $((size * 2 / 3)) "$T/big.tape" >"$T/cut.tape"
run "$IOTAPE" replay --timing afap --output-format json -o "$T/cut.json" -d "$T/d6" "$T/cut.tape"
if [ "$rc" -eq 0 ]; then
	n=$(jq_py "$T/cut.json" "d['replay']['ops_done']['read']")
	[ "$n" -gt 0 ] && [ "$n" -lt 100000 ] || fail "cut trace: $n reads replayed"
else
	[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] || fail "cut trace: exit $rc: $(cat "$T/err")"
fi
head -c 100 "$T/big.tape" >"$T/stub.tape"
err_line 1 "iotape replay: " "stub.tape" "$IOTAPE" replay -d "$T/d7" "$T/stub.tape"
printf 'not a trace at all\n' >"$T/junk.tape"
err_line 1 "iotape replay: " "junk.tape" "$IOTAPE" replay -d "$T/d7" "$T/junk.tape"
unchanged "truncated"

# a hard link planted in DIR to an outside file: never written through
# (prepare resizes what it reads; the job truncates what it creates)
mkdir -p "$T/d9" && : >"$T/d9/.iotape-replay"
ln "$O/s" "$T/d9/h" || fail "ln"
csv hlread <<EOF2
1000,1,1,openat,/h,-1,0,0,3,10,0,
2000,1,1,read,/h,3,0,4096,4096,10,0,
EOF2
err_line 1 "iotape replay: " "preparing 'h': has more than one link (a hard link may lead out of DIR), refused" \
	"$IOTAPE" replay -d "$T/d9" "$T/hlread.tape"
csv hltrunc <<EOF2
1000,1,1,openat,/h,-1,0,0,3,10,0x241,
2000,1,1,write,/h,3,0,6,6,10,0,
EOF2
err_line 1 "iotape replay: " "preparing 'h': has more than one link" \
	"$IOTAPE" replay -d "$T/d9" "$T/hltrunc.tape"
unchanged "hard link"
rm -f "$T/d9/h"

# sizes: a read ending past 2^63 is refused when the trace is read (it
# wrapped the prepared size), a file table size past it too, and a
# dataset larger than the free space of DIR's file system is refused
# before anything is written, naming both
csv wrap <<EOF2
1000,1,1,openat,/w,-1,0,0,3,10,0,
2000,1,1,pread64,/w,3,18446744073709547520,4096,4096,10,0,
EOF2
err_line 1 "iotape replay: " "a read of 4096 bytes at offset 18446744073709547520 of 'w' ends past the largest file size: refused" \
	"$IOTAPE" replay -d "$T/d10" "$T/wrap.tape"
[ ! -e "$T/d10" ] || fail "wrap: DIR made for a refused trace"
free=$(df -B1 --output=avail "$T" | tail -n 1)
csv huge <<EOF2
1000,1,1,openat,/big,-1,0,0,3,10,0,
2000,1,1,pread64,/big,3,$((free + 1048576)),4096,4096,10,0,
EOF2
run "$IOTAPE" replay -d "$T/d11" "$T/huge.tape"
[ "$rc" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "huge: exit $rc: $(cat "$T/err")"
grep -q "^iotape replay: preparing 1 files needs .* ($((free + 1048576 + 4096)) bytes), and DIR's file system has .* free: refused" "$T/err" ||
	fail "huge: $(cat "$T/err")"
[ ! -e "$T/d11/big" ] || fail "huge: the file was made"
ok "$IOTAPE" replay --prepare-only --sparse -d "$T/d12" "$T/huge.tape"	# holes fit
unchanged "sizes"

# many tiny files (REPLAY_FILES, default 20000): prepared and read, nothing else
nf=${REPLAY_FILES:-20000}
awk -v hdr="$HDR" -v n="$nf" 'BEGIN { print hdr
	for (i = 0; i < n; i++) {
		t = 10 + i * 4
		printf "%d,1,1,openat,/many/%d/%d.jpg,-1,0,0,3,1,0,\n", t, i % 100, i
		printf "%d,1,1,read,/many/%d/%d.jpg,3,0,100,100,1,0,\n", t + 1, i % 100, i
		printf "%d,1,1,close,/many/%d/%d.jpg,3,0,0,0,1,0,\n", t + 2, i % 100, i
	}}' >"$T/many.csv"
ok "$IOTAPE" import -o "$T/many.tape" "$T/many.csv"
ok "$IOTAPE" replay --timing afap --output-format json -o "$T/many.json" -d "$T/d8" "$T/many.tape"
[ "$(jq_py "$T/many.json" "d['replay']['ops_done']['read']")" = "$nf" ] || fail "many files: reads"
[ "$(find "$T/d8/many" -type f | wc -l)" = "$nf" ] || fail "many files: files prepared"
unchanged "many files"
exit 0
