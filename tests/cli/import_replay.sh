#!/bin/sh
# import_replay.sh - imported DXT and DFTracer traces replay, byte for byte.
#
# DXT: darshan-dxt-parser prints record after record, not in time order;
# a rank that writes b.bin while a.bin is open had both on one fd (the
# replay closed a.bin's under it: EBADF, a.bin ended at 4,096 B of its
# 8,192), and a file written then read back was opened write-only (EBADF
# on the reads).  A rank that only reads what another wrote keeps its
# read-only open.  DFTracer: the older writer's string numbers, DLIO's
# trailing commas and a stat of "DIR/.." (which made replay refuse the
# whole trace) replay too.  Each file's size and the bytes read and
# written are the inputs' own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# replay_ok TRACE DIR READ WRITTEN: replays with no failed op, READ and
# WRITTEN bytes in all
replay_ok() {
	ok "$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$2" "$1"
	[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] ||
		fail "$1: failed ops: $(jq_py "$T/r.json" "d['replay']['failed']")"
	got=$(jq_py "$T/r.json" "d['replay']['total']['read']['io_bytes'], d['replay']['total']['write']['io_bytes']")
	[ "$got" = "$3 $4" ] || fail "$1: read, written: $got, want $3 $4"
}
# size_is FILE BYTES
size_is() {
	[ -f "$1" ] || fail "$1 is not there"
	[ "$(stat -c %s "$1")" = "$2" ] || fail "$1: $(stat -c %s "$1") bytes, want $2"
}

seg() {	# darshan 3.5's row: MODULE RANK write|read SEGMENT OFFSET LENGTH START END PTHREAD
	printf '%8s%8d%7s%9d%16d%16d%12.4f%12.4f   %4s\n' "$@"
}
hdr() {	# FILE_ID NAME RANK WRITES READS
	printf '\n# DXT, file_id: %s, file_name: %s\n# DXT, rank: %s, hostname: nid1\n' "$1" "$2" "$3"
	printf '# DXT, number of threads: 1\n# DXT, write_count: %s, read_count: %s\n' "$4" "$5"
	printf '# DXT, mnt_pt: /, fs_type: ext4\n'
	printf '# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)   Pthread-ID\n'
}
P=140245234423616
{
	printf '# darshan log version: 3.41\n# nprocs: 2\n\n# DXT_POSIX module data\n'
	hdr 1 /run/a.bin 0 2 2
	seg X_POSIX 0 write 0 0 4096 0.1 0.1001 $P
	seg X_POSIX 0 write 1 4096 4096 0.3 0.3001 $P
	seg X_POSIX 0 read 0 0 4096 0.4 0.4001 $P
	seg X_POSIX 0 read 1 4096 4096 0.41 0.4101 $P
	hdr 2 /run/b.bin 0 1 0
	seg X_POSIX 0 write 0 0 4096 0.2 0.2001 $P
	hdr 3 /run/c.bin 0 1 0
	seg X_POSIX 0 write 0 0 6000 0.05 0.0501 $P
	hdr 3 /run/c.bin 1 0 1
	seg X_POSIX 1 read 0 0 6000 0.6 0.6001 $((P + 1))
} >"$T/dxt.txt" || fail "writing dxt.txt"
ok "$IOTAPE" import -F darshan-dxt -o "$T/dxt.tape" "$T/dxt.txt"
replay_ok "$T/dxt.tape" "$T/d1" $((8192 + 6000)) $((8192 + 4096 + 6000))
size_is "$T/d1/run/a.bin" 8192
size_is "$T/d1/run/b.bin" 4096
size_is "$T/d1/run/c.bin" 6000

# DFTracer: dfanalyzer/test.pfw's form (string numbers, a leading space),
# DLIO's trailing commas, a stat of the data directory's "..".
cat >"$T/old.pfw" <<'EOT'
[
 {"id":"0","name":"__lxstat","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323775554","dur":"141","ph":"X","args":{"hostname":"n1","fname":"/scratch/data"}}
{"id":"1","name":"__xstat","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323775600","dur":"50","ph":"X","args":{"hostname":"n1","fname":"/scratch/data/train/.."}}
{"id":"2","name":"open","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323781412","dur":"3430","ph":"X","args":{"hostname":"n1","ret":18,"flags":66,"fname":"/scratch/data/f.bat","mode":420}}
{"id":"3","name":"write","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323825066","dur":"1061","ph":"X","args":{"hostname":"n1","ret":"12288","count":"12288","fname":"/scratch/data/f.bat","fd":18}}
{"id":"4","name":"close","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323838978","dur":"73","ph":"X","args":{"hostname":"n1","ret":0,"fname":"/scratch/data/f.bat","fd":18}}
{"id":"5","name":"open","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323850328","dur":"148","ph":"X","args":{"hostname":"n1","ret":18,"fname":"/scratch/data/f.bat","flags":0}}
{"id":"6","name":"read","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323850514","dur":"115","ph":"X","args":{"hostname":"n1","ret":"8192","count":"8192","fname":"/scratch/data/f.bat","fd":18,}}
{"id":7,"name":"TorchFramework.compute","cat":"ai_framework","pid":0,"tid":4243,"ts":1698080323851000,"dur":5000,"ph":"X","args":{"hhash":9,"step":1,}}
{"id":"8","name":"read","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323858000","dur":"115","ph":"X","args":{"hostname":"n1","ret":"4096","count":"8192","fname":"/scratch/data/f.bat","fd":18,}}
{"id":"9","name":"close","cat":"POSIX","pid":"4242","tid":"4243","ts":"1698080323909458","dur":"18","ph":"X","args":{"hostname":"n1","ret":0,"fname":"/scratch/data/f.bat","fd":18}}
EOT
ok "$IOTAPE" import -F dftracer -o "$T/old.tape" "$T/old.pfw"
replay_ok "$T/old.tape" "$T/d2" 12288 12288
size_is "$T/d2/scratch/data/f.bat" 12288
[ "$(jq_py "$T/r.json" "d['replay']['ops_done']['stat']")" = 2 ] ||
	fail "stats: $(jq_py "$T/r.json" "d['replay']['ops_done']")"
exit 0
