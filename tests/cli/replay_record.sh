#!/bin/sh
# replay_record.sh - record a replay: each replay thread issues exactly the
# recorded thread's ops, in the recorded order.
#
# An imported trace (3 threads in 2 processes; interleaved reads of two
# files, writes, fsyncs, a rename and an unlink) is replayed under
# `iotape record`.  From `iotape dump` of that recording, each replay
# thread's sequence of (kind, file, offset, size) - opens, reads, writes,
# syncs and closes through io_uring, unlink and rename by syscall - must be
# one recorded thread's sequence exactly, and every recorded thread must
# have its replay thread.  Then the same for a trace with page faults:
# their reads come in the faulting thread, between its syscalls.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring

awk -v hdr="$HDR" 'BEGIN { print hdr; srand(7)
	# thread 100: two files read interleaved, sizes and offsets random
	print "1000,10,100,openat,/data/a.bin,-1,0,0,3,10,0,"
	print "1100,10,100,openat,/data/b.bin,-1,0,0,4,10,0,"
	t = 2000
	for (i = 0; i < 40; i++) {
		fd = 3 + i % 2; f = fd == 3 ? "a" : "b"
		off = int(rand() * 256) * 4096; sz = (1 + int(rand() * 8)) * 4096
		printf "%d,10,100,pread64,/data/%s.bin,%d,%d,%d,%d,10,0,\n", t, f, fd, off, sz, sz
		t += 100
	}
	print "7000,10,100,close,/data/a.bin,3,0,0,0,10,0,"
	print "7100,10,100,close,/data/b.bin,4,0,0,0,10,0,"
	# thread 101 (same process): one file, sequential reads of odd sizes
	print "1500,10,101,openat,/data/c.bin,-1,0,0,5,10,0,"
	for (i = 0; i < 20; i++)
		printf "%d,10,101,pread64,/data/c.bin,5,%d,%d,%d,10,0,\n", 2050 + i * 100, i * 10000, 10000, 10000
	print "6000,10,101,close,/data/c.bin,5,0,0,0,10,0,"
	# thread 200 (another process): a checkpoint written, synced, renamed
	print "1200,20,200,openat,/ck/tmp.pt,-1,0,0,3,10,0x241,"
	for (i = 0; i < 10; i++)
		printf "%d,20,200,write,/ck/tmp.pt,3,%d,65536,65536,10,0,\n", 2100 + i * 100, i * 65536
	print "3500,20,200,fsync,/ck/tmp.pt,3,0,0,0,10,0,"
	print "3600,20,200,close,/ck/tmp.pt,3,0,0,0,10,0,"
	print "3700,20,200,rename,/ck/tmp.pt,-1,0,0,0,10,0,/ck/e1.pt"
	print "3800,20,200,unlink,/data/old.bin,-1,0,0,0,10,0,"
}' >"$T/j.csv"
ok "$IOTAPE" import -o "$T/j.tape" "$T/j.csv"
mkdir "$T/ck" 2>/dev/null
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/j.tape"
mkdir -p "$T/d/ck"
"$IOTAPE" record -q -o "$T/rec.tape" -- "$IOTAPE" replay --no-prepare --timing afap \
	--output-format json -o "$T/r.json" -d "$T/d" "$T/j.tape" 2>"$T/rec.err" ||
	fail "record of the replay failed: $(cat "$T/rec.err")"
[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] || fail "replay ops failed"
ok "$IOTAPE" dump -t syscall -F csv -o "$T/rec.csv" "$T/rec.tape"

# per thread: "kind path offset size" lines in time order, threads sorted
cat >"$T/cmp.py" <<'PY'
import csv, sys
KIND = {'openat': 'open', 'uring_openat': 'open', 'pread64': 'read', 'read': 'read',
        'uring_read': 'read', 'write': 'write', 'pwrite64': 'write', 'uring_write': 'write',
        'fsync': 'sync', 'fdatasync': 'sync', 'uring_fsync': 'sync', 'close': 'close',
        'uring_close': 'close', 'rename': 'rename', 'renameat': 'rename', 'renameat2': 'rename',
        'unlink': 'unlink', 'unlinkat': 'unlink'}
def threads(path, prefix, uring):
    th = {}
    for r in csv.DictReader(open(path)):
        k = KIND.get(r['op'])
        if not k or (uring and k not in ('rename', 'unlink') and not r['op'].startswith('uring_')):
            continue
        p = r['path']
        if not p.startswith(prefix):
            continue
        p = p[len(prefix):]
        if int(r['ret']) < 0:
            continue
        data = k in ('read', 'write')
        line = '%s %s %s %s' % (k, p, r['offset'] if data else '-', r['size'] if data else '-')
        if k == 'rename':
            line += ' ' + r['path2'][len(prefix):]
        th.setdefault(r['tid'], []).append((int(r['ts_ns']), line))
    return sorted('\n'.join(l for _, l in sorted(v)) for v in th.values())
got = threads(sys.argv[2], sys.argv[3], True)
if sys.argv[1] == '-':	# print the replay's threads, longest first
    print('\n=====\n'.join(sorted(got, key=len, reverse=True)))
    sys.exit(0)
want = threads(sys.argv[1], '/', False)
print('threads %d %d' % (len(want), len(got)))
for i, w in enumerate(want):
    print('recorded thread %d: %d ops, %s' % (i, w.count('\n') + 1,
          'replayed exactly' if w in got else 'NOT replayed as recorded'))
    if w not in got:
        print('WANT\n' + w + '\nGOT\n' + '\n=====\n'.join(got))
PY
python3 "$T/cmp.py" "$T/j.csv" "$T/rec.csv" "$T/d/" >"$T/cmp" || fail "comparison script failed"
grep -q '^threads 3 3$' "$T/cmp" || fail "$(head -1 "$T/cmp"): want 3 recorded and 3 replay threads"
[ "$(grep -c 'replayed exactly$' "$T/cmp")" = 3 ] || fail "$(cat "$T/cmp")"
grep -q 'recorded thread .: 44 ops' "$T/cmp" && grep -q 'recorded thread .: 22 ops' "$T/cmp" &&
	grep -q 'recorded thread .: 15 ops' "$T/cmp" || fail "op counts: $(cat "$T/cmp")"
# page faults (a trace with a cache table, tests/helpers/mktape): each is
# a read in the faulting thread, between that thread's syscalls
[ -x "$TESTBIN/mktape" ] || fail "no $TESTBIN/mktape (run make tests)"
printf 'ts_ns,file_id,path,dev,inode,size,mode\n1,1,/m.bin,1,11,1048576,33188\n1,2,/n.bin,1,12,262144,33188\n' >"$T/f.csv"
printf '%s\n' ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags \
	1000,10,10,openat,/m.bin,-1,0,0,3,10,0 1200,10,10,close,/m.bin,3,0,0,0,10,0 \
	5000,10,10,openat,/n.bin,-1,0,0,4,10,0 6000,10,10,pread64,/n.bin,4,0,4096,4096,10,0 \
	9000,10,10,close,/n.bin,4,0,0,0,10,0 >"$T/s.csv"
printf '%s\n' ts_ns,pid,tid,kind,dev,inode,file_id,index,count \
	2000,10,10,fault,1,11,1,5,1 2500,10,11,fault,1,11,1,0,1 2700,10,11,fault,1,12,2,10,1 \
	3000,10,10,map_pages,1,11,1,16,16 4000,10,10,map_pages,1,11,1,32,16 \
	4001,10,10,fault,1,11,1,40,1 7000,10,10,fault,1,11,1,100,1 >"$T/c.csv"
"$TESTBIN/mktape" "$T/m.tape" file="$T/f.csv" syscall="$T/s.csv" cache="$T/c.csv" || fail "mktape failed"
ok "$IOTAPE" replay --prepare-only -d "$T/md" "$T/m.tape"
"$IOTAPE" record -q -o "$T/mrec.tape" -- "$IOTAPE" replay --no-prepare --timing afap -d "$T/md" "$T/m.tape" \
	>"$T/out" 2>"$T/rec.err" || fail "record of the fault replay failed: $(cat "$T/rec.err")"
ok "$IOTAPE" dump -t syscall -F csv -o "$T/mrec.csv" "$T/mrec.tape"
printf '%s\n' "open m.bin - -" "close m.bin - -" "read m.bin 20480 4096" "read m.bin 65536 65536" \
	"read m.bin 163840 4096" "open n.bin - -" "read n.bin 0 4096" "read m.bin 409600 4096" \
	"close n.bin - -" "=====" "read m.bin 0 4096" "read n.bin 40960 4096" >"$T/mwant"
python3 "$T/cmp.py" - "$T/mrec.csv" "$T/md/" >"$T/mgot" || fail "fault comparison failed"
same "$T/mwant" "$T/mgot"
exit 0
