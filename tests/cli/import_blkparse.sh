#!/bin/sh
# import -F blkparse: blkparse's default text (the lines below are printed
# with blkparse_fmt.c's formats: "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s "
# then per action) becomes one block row per request, issue (D) to
# completion (C) by (dev, sector), pid from the D; the summary after the
# events is skipped; bad lines name their line number and leave nothing.
. "$(dirname "$0")/lib.sh"

cat >"$T/blk.txt" <<'EOT'
Input file trace.blktrace.0 added
  8,0    1        1     0.000000000  1234  Q   R 2048 + 8 [cat]
  8,0    1        2     0.000001500  1234  G   R 2048 + 8 [cat]
  8,0    1        3     0.000002000  1234  P   N [cat]
  8,0    1        4     0.000003000  1234  I   R 2048 + 8 [cat]
  8,0    1        5     0.000003500  1234  U   N [cat] 1
  8,0    1        6     0.000004000  1234  D   R 2048 + 8 [cat]
  8,0    0        1     0.000005000   777  D  WS 100 + 16 [kworker/0:1H]
  8,0    1        7     0.000104000     0  C   R 2048 + 8 [0]
  8,16   0        2     1.000000000    42  D FWFS [jbd2/sda1-8]
  8,0    0        3     1.500000000     0  C  WS 100 + 16 [-5]
  8,0    0        4     1.600000000     0  m   N cfq1234 insert_request
  8,16   0        5     1.700000000     0  C FWFS 0 [0]
259,3    1        8     2.000000000    99  D  RA 12345678 + 256 [python3]
  8,0    1        9     2.000000100     0  C   R 999 + 8 [0]
CPU0 (8,0):
 Reads Queued:           1,        4KiB	 Writes Queued:           0,        0KiB

Throughput (R/W): 0KiB/s / 0KiB/s
Events (8,0): 9 entries
Skips: 0 forward (0 -   0.0%)
EOT
# By hand: dev = major << 20 | minor (8,0 = 8388608; 8,16 = 8388624;
# 259,3 = 271581187); bytes = blocks * 512; dur = C - D.  The flush (D
# of no data, "FWFS": flush, write, FUA, sync) completes at sector 0;
# the readahead D never completes (dur 0, written at the end); the C at
# sector 999 has no D (skipped).
cat >"$T/want.csv" <<'EOT'
ts_ns,pid,tid,dev,rwbs,sector,bytes,dur_ns,inode,error
4000,1234,1234,8388608,R,2048,4096,100000,0,0
5000,777,777,8388608,WS,100,8192,1499995000,0,-5
1000000000,42,42,8388624,FWSU,0,0,700000000,0,0
2000000000,99,99,271581187,RA,12345678,131072,0,0,0
EOT
ok "$IOTAPE" import -F blkparse -o "$T/b.tape" "$T/blk.txt"
ok "$IOTAPE" dump -F csv -t block -o "$T/got.csv" "$T/b.tape"
same "$T/want.csv" "$T/got.csv"
ok "$IOTAPE" dump -F csv -t syscall -o "$T/sys.csv" "$T/b.tape"
[ "$(wc -l <"$T/sys.csv")" -eq 1 ] || fail "syscall rows from blkparse: $(cat "$T/sys.csv")"
ok "$IOTAPE" info "$T/b.tape"
grep -q "source *import:blkparse" "$T/out" || fail "info: no source: $(cat "$T/out")"
grep -q "not_recorded *syscall, cache" "$T/out" || fail "info: no not_recorded: $(cat "$T/out")"
grep -q "clock *blkparse: seconds since the trace's first event" "$T/out" ||
	fail "info: no clock: $(cat "$T/out")"

# analyze sees the requests: reads 4096 + 131072 bytes, one write of 8192
ok "$IOTAPE" analyze --json "$T/b.tape"
cp "$T/out" "$T/a.json" || fail cp
/usr/bin/python3 -c 'import json,sys
b = json.load(open(sys.argv[1]))["block"]
got = (b["requests"], b["read_bytes"], b["write_bytes"], b["flushes"], b["errors"])
sys.exit(0 if got == (4, 135168, 8192, 1, 1) else "block: %r" % (got,))' "$T/a.json" ||
	fail "analyze --json block figures"

# gzip'd input gives the same rows; stdin too
gzip -c "$T/blk.txt" >"$T/blk.txt.gz" || fail gzip
ok "$IOTAPE" import -F blkparse -o "$T/z.tape" "$T/blk.txt.gz"
ok "$IOTAPE" dump -F csv -t block -o "$T/z.csv" "$T/z.tape"
same "$T/want.csv" "$T/z.csv"
"$IOTAPE" import -F blkparse -o "$T/s.tape" - <"$T/blk.txt" || fail "import from stdin"
ok "$IOTAPE" dump -F csv -t block -o "$T/s.csv" "$T/s.tape"
same "$T/want.csv" "$T/s.csv"

# bad input: one line "FILE:LINE: what", exit 1, no trace left
bad() { import_bad blkparse "$T/bad.txt" "$1" "$2"; }	# LINE-NUMBER PATTERN
head -n 3 "$T/blk.txt" >"$T/bad.txt"
echo '  8,0    1        9     0.00000100  1234  D   R 8 + 8 [cat]' >>"$T/bad.txt"
bad 4 "bad time"
head -n 8 "$T/blk.txt" >"$T/bad.txt"
echo '  8,0    1        7     0.000104000     0  C   R 2048 + 8 [EIO]' >>"$T/bad.txt"
bad 9 "bad completion status"
head -n 2 "$T/blk.txt" >"$T/bad.txt"
echo '  8,0    1        7     0.000104000     0  D   Q 2048 + 8 [x]' >>"$T/bad.txt"
bad 3 "bad RWBS 'Q'"
printf '1234 12:00:00.000000 openat(AT_FDCWD, "/x", O_RDONLY) = 3\n' >"$T/bad.txt"
bad 1 "bad device"
printf 'hello\n' >"$T/bad.txt"
bad 1 "not a blkparse event line"
# a cut gzip file: the line where the data stops (the first lines may
# have come through)
head -c 100 "$T/blk.txt.gz" >"$T/bad.txt"
err_line 1 "iotape import: $T/bad.txt:" "gzip data ends early" \
	"$IOTAPE" import -F blkparse -o "$T/x.tape" "$T/bad.txt"
[ -e "$T/x.tape" ] && fail "x.tape left behind by a cut gzip file"
exit 0
