#!/bin/sh
# replay_flags_rec.sh - the open flags that change what the storage sees
# reach the storage (issue #15, item 3): a recording of the replay has each
# of the job's opens as an io_uring open with its O_DSYNC, O_SYNC,
# O_NOATIME, O_EXCL, O_APPEND and O_CREAT (the recorder reads them from
# the ring's open request: before, it stored none, and a replay that
# dropped O_DSYNC looked the same as one that kept it).
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring

cat >"$T/j.csv" <<EOT
$HDR
1000,1,1,openat,/out/dsync.log,-100,0,0,3,10,0x1041,
1100,1,1,write,/out/dsync.log,3,0,4096,4096,10,0,
1200,1,1,close,/out/dsync.log,3,0,0,0,10,0,
2000,1,1,openat,/data/a,-100,0,0,3,10,0x40000,
2100,1,1,read,/data/a,3,0,4096,4096,10,0,
2200,1,1,close,/data/a,3,0,0,0,10,0,
3000,1,1,openat,/out/lock,-100,0,0,3,10,0xc1,
3100,1,1,close,/out/lock,3,0,0,0,10,0,
4000,1,1,openat,/data/a,-100,0,0,3,10,0x401,
4100,1,1,write,/data/a,3,4096,100,100,10,0,
4200,1,1,close,/data/a,3,0,0,0,10,0,
5000,1,1,openat,/out/sync.db,-100,0,0,3,10,0x101042,
5100,1,1,write,/out/sync.db,3,0,512,512,10,0,
5200,1,1,close,/out/sync.db,3,0,0,0,10,0,
EOT
ok "$IOTAPE" import -o "$T/j.tape" "$T/j.csv"
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/j.tape"
"$IOTAPE" record -q -o "$T/rec.tape" -- "$IOTAPE" replay --no-prepare --timing afap \
	-d "$T/d" "$T/j.tape" >"$T/rep.out" 2>&1 || fail "record of the replay failed: $(cat "$T/rep.out")"
ok "$IOTAPE" dump -t syscall -F csv -o "$T/rec.csv" "$T/rec.tape"
# the replay's opens under DIR: path and flags, in order
awk -F, -v d="$T/d/" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	index($c["path"], d) == 1 && $c["op"] == "uring_openat" {
		print substr($c["path"], length(d) + 1), $c["flags"] }' "$T/rec.csv" >"$T/opens"
[ "$(grep -c . "$T/opens")" = 5 ] || fail "want 5 io_uring opens under DIR: $(cat "$T/opens")"
# each must carry the job's bits (the replay may add O_CLOEXEC, O_LARGEFILE)
python3 - "$T/opens" <<'PY' || fail "open flags lost: $(cat "$T/opens")"
import sys
want = [("out/dsync.log", 0x1041), ("data/a", 0x40000), ("out/lock", 0xc1),
        ("data/a", 0x401), ("out/sync.db", 0x101042)]
got = [l.split() for l in open(sys.argv[1])]
ok = len(got) == len(want) and all(
    p == wp and int(f, 0) & wf == wf for (p, f), (wp, wf) in zip(got, want))
sys.exit(0 if ok else 1)
PY
exit 0
