#!/bin/sh
# import -F dftracer: DFTracer's .pfw (JSON lines; "[" first, commas at
# line ends allowed) and .pfw.gz (gzip, one or many members): POSIX and
# STDIO complete events become syscalls with DFTracer's args (fname, or
# fhash resolved by the FH metadata events; fd, count, offset, ret,
# whence), app-level events are counted, not imported; bad lines name
# their line number and leave nothing.  The events follow DFTracer's
# docs/trace_format.rst and the args its POSIX/STDIO wrappers log.
. "$(dirname "$0")/lib.sh"

cat >"$T/a.pfw" <<'EOT'
[
{"id":1,"name":"HH","cat":"dftracer","pid":100,"tid":100,"ph":"M","args":{"name":"node1","value":51242}}
{"id":2,"name":"FH","cat":"dftracer","pid":100,"tid":100,"ph":"M","args":{"name":"/data/train/img_0.npz","value":7001}}
{"id":3,"name":"open64","cat":"POSIX","pid":100,"tid":101,"ts":1000,"dur":20,"ph":"X","args":{"hhash":51242,"fhash":7001,"flags":0,"ret":5,"level":1}}
{"id":4,"name":"read","cat":"POSIX","pid":100,"tid":101,"ts":1030,"dur":100,"ph":"X","args":{"fhash":7001,"fd":5,"count":4096,"ret":4096}}
{"id":5,"name":"read","cat":"POSIX","pid":100,"tid":101,"ts":1140,"dur":50,"ph":"X","args":{"fhash":7001,"fd":5,"count":4096,"ret":1000}}
{"id":6,"name":"TFReader.read_index","cat":"dlio_benchmark","pid":100,"tid":101,"ts":1000,"dur":500,"ph":"X","args":{"epoch":1}}
{"id":7,"name":"lseek64","cat":"POSIX","pid":100,"tid":101,"ts":1200,"dur":2,"ph":"X","args":{"fhash":7001,"fd":5,"offset":0,"whence":0,"ret":0}}
{"id":8,"name":"pread64","cat":"POSIX","pid":100,"tid":101,"ts":1210,"dur":30,"ph":"X","args":{"fhash":7001,"fd":5,"count":512,"offset":8192,"ret":512}}
{"id":9,"name":"close","cat":"POSIX","pid":100,"tid":101,"ts":1300,"dur":3,"ph":"X","args":{"fhash":7001,"fd":5,"ret":0}}
{"id":10,"name":"compute","cat":"ai_framework","pid":100,"tid":100,"ts":1400,"dur":10000,"ph":"X","args":{}}
{"id":11,"name":"fopen","cat":"STDIO","pid":200,"tid":200,"ts":20000,"dur":5,"ph":"X","args":{"fname":"/ckpt/model.pt","mode":"wb"}},
{"id":12,"name":"fwrite","cat":"STDIO","pid":200,"tid":200,"ts":20010,"dur":40,"ph":"X","args":{"fname":"/ckpt/model.pt","size":8,"count":100,"ret":100}},
{"id":13,"name":"fclose","cat":"STDIO","pid":200,"tid":200,"ts":20060,"dur":4,"ph":"X","args":{"fname":"/ckpt/model.pt"}},
{"id":14,"name":"__xstat64","cat":"POSIX","pid":200,"tid":200,"ts":20070,"dur":1,"ph":"X","args":{"fname":"/ckpt/model.pt"}},
{"id":15,"name":"opendir","cat":"POSIX","pid":200,"tid":200,"ts":20080,"dur":1,"ph":"X","args":{"fname":"/ckpt"}},
{"id":16,"name":"read","cat":"POSIX","pid":200,"tid":200,"ts":20090,"dur":1,"ph":"X","args":{"fd":9,"count":10,"ret":10}}
]
EOT
# By hand: ts and dur are microseconds (x 1000); the open's fd is its ret
# (5); read offsets follow the position (0, then 4096: the first read
# returned 4096); lseek's whence is flags, its offset the offset; fopen
# has no ret: the lowest free fd (3) in pid 200; fwrite's size and ret
# count items of size 8 (800 bytes); fclose finds fd 3 by the path;
# __xstat64 is newstat; opendir has no op (skipped); a read on fd 9,
# whose open is not in the trace, keeps the fd and no path.
cat >"$T/want.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
1000000,100,101,open,/data/train/img_0.npz,-1,0,0,5,20000,1,0x0,,-1,0,0
1030000,100,101,read,/data/train/img_0.npz,5,0,4096,4096,100000,1,0x0,,-1,0,0
1140000,100,101,read,/data/train/img_0.npz,5,4096,4096,1000,50000,1,0x0,,-1,0,0
1200000,100,101,lseek,/data/train/img_0.npz,5,0,0,0,2000,1,0x0,,-1,0,0
1210000,100,101,pread64,/data/train/img_0.npz,5,8192,512,512,30000,1,0x0,,-1,0,0
1300000,100,101,close,/data/train/img_0.npz,5,0,0,0,3000,1,0x0,,-1,0,0
20000000,200,200,open,/ckpt/model.pt,-1,0,0,3,5000,2,0x0,,-1,0,0
20010000,200,200,write,/ckpt/model.pt,3,0,800,800,40000,2,0x0,,-1,0,0
20060000,200,200,close,/ckpt/model.pt,3,0,0,0,4000,2,0x0,,-1,0,0
20070000,200,200,newstat,/ckpt/model.pt,-1,0,0,0,1000,2,0x0,,-1,0,0
20090000,200,200,read,,9,0,10,10,1000,0,0x0,,-1,0,0
EOT
check() {	# INPUT: imports to the rows of want.csv
	rm -f "$T/t.tape"
	ok "$IOTAPE" import -F dftracer -o "$T/t.tape" "$1"
	ok "$IOTAPE" dump -F csv -o "$T/got.csv" "$T/t.tape"
	same "$T/want.csv" "$T/got.csv"
}
check "$T/a.pfw"
ok "$IOTAPE" info "$T/t.tape"
for kv in "source *import:dftracer" "import.app_events *2" "import.skipped_events *1" \
	"not_recorded *block, cache" "clock *dftracer: microseconds"; do
	grep -q "$kv" "$T/out" || fail "info lacks '$kv': $(cat "$T/out")"
done
ok "$IOTAPE" analyze --json "$T/t.tape"
/usr/bin/python3 -c 'import json,sys
f = {x["path"]: (x["read_bytes"], x["write_bytes"], x["opens"]) for x in json.load(open(sys.argv[1]))["files"]}
want = {"/data/train/img_0.npz": (4096 + 1000 + 512, 0, 1), "/ckpt/model.pt": (0, 800, 1),
	"[pid 200 fd 9]": (10, 0, 0)}
sys.exit(0 if f == want else "files: %r" % (f,))' "$T/out" || fail "analyze --json bytes per file"

# gzip'd: one member, and two members (DFTracer compresses in chunks)
gzip -c "$T/a.pfw" >"$T/a.pfw.gz" || fail gzip
check "$T/a.pfw.gz"
head -c 900 "$T/a.pfw" >"$T/a1.pfw" && tail -c +901 "$T/a.pfw" >"$T/a2.pfw" || fail "cutting a.pfw"
{ gzip -c "$T/a1.pfw" && gzip -c "$T/a2.pfw"; } >"$T/b.pfw.gz" || fail gzip
check "$T/b.pfw.gz"

# The forms other DFTracer versions write: numbers as strings (the older
# writer; dftracer's dfanalyzer/test.pfw has "pid":"1338896", "ret":"131072"
# beside plain numbers), a comma left after the last arg (the writer's
# args it could not print: DLIO's "args":{"hhash":1,"step":1,}), "ph" as
# a number (the newer writer: 1 complete, 4 metadata), and paths as the
# program passed them ("/p/train/.." is "/p"; a relative "../x" stays
# under the replay's directory: "x").
cat >"$T/forms.pfw" <<'EOT'
[
 {"id":"0","name":"__lxstat","cat":"POSIX","pid":"1338896","tid":"2677792","ts":"1698080323775554","dur":"141","ph":"X","args":{"hostname":"corona237","fname":"/p/train/.."}}
{"id":"1","name":"open","cat":"POSIX","pid":"1338896","tid":"2677792","ts":"1698080323781412","dur":"3430","ph":"X","args":{"hostname":"corona237","ret":18,"flags":66,"fname":"/p/./train//f.bat","mode":420}}
{"id":"2","name":"write","cat":"POSIX","pid":"1338896","tid":"2677792","ts":"1698080323825066","dur":"106189","ph":"X","args":{"hostname":"corona237","ret":"3276800","count":"3276800","fname":"/p/train/f.bat","fd":18}}
{"id":"3","name":"close","cat":"POSIX","pid":"1338896","tid":"2677792","ts":"1698080323938978","dur":"73","ph":"X","args":{"hostname":"corona237","ret":0,"fname":"/p/train/f.bat","fd":18}}
{"id":4,"name":"train","cat":"dlio_benchmark","pid":0,"tid":2677792,"ts":1698080323940000,"dur":5,"ph":"X","args":{"hhash":9,"step":1,}}
{"id":5,"name":"read","cat":"POSIX","pid":1338896,"tid":2677792,"ts":1698080323950000,"dur":20,"ph":"X","args":{"hhash":9,"fname":"/p/train/f.bat","fd":18,"count":10,"ret":-1,}},
{"name":"FH","cat":"dftracer","type":1,"pid":7,"tid":7,"ph":4,"args":{"hhash":"a1","name":"../rel/x.npz","value":"h2"}}
{"id":6,"name":"stat","cat":"POSIX","type":3,"pid":7,"tid":7,"ts":1698080323960000,"dur":"4","ph":1,"args":{"hhash":"a1","fhash":"h2"}}
{"id":7,"name":"read","cat":"POSIX","type":3,"pid":7,"tid":7,"ts":1698080323970000,"dur":4,"ph":3,"args":{"hhash":"a1","fhash":"h2"}}
EOT
cat >"$T/want_forms.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
1698080323775554000,1338896,2677792,newlstat,/p,-1,0,0,0,141000,1,0x0,,-1,0,0
1698080323781412000,1338896,2677792,open,/p/train/f.bat,-1,0,0,18,3430000,2,0x42,,-1,0,0
1698080323825066000,1338896,2677792,write,/p/train/f.bat,18,0,3276800,3276800,106189000,2,0x0,,-1,0,0
1698080323938978000,1338896,2677792,close,/p/train/f.bat,18,0,0,0,73000,2,0x0,,-1,0,0
1698080323950000000,1338896,2677792,read,/p/train/f.bat,18,0,10,-1,20000,2,0x0,,-1,0,0
1698080323960000000,7,7,newstat,rel/x.npz,-1,0,0,0,4000,3,0x0,,-1,0,0
EOT
rm -f "$T/forms.tape"
ok "$IOTAPE" import -F dftracer -o "$T/forms.tape" "$T/forms.pfw"
ok "$IOTAPE" dump -F csv -o "$T/got_forms.csv" "$T/forms.tape"
same "$T/want_forms.csv" "$T/got_forms.csv"
ok "$IOTAPE" info "$T/forms.tape"
for kv in "import.app_events *1" "import.skipped_events *1"; do
	grep -q "$kv" "$T/out" || fail "info lacks '$kv': $(cat "$T/out")"
done

bad() { import_bad dftracer "$T/bad.pfw" "$1" "$2"; }	# LINE-NUMBER PATTERN
{ head -n 4 "$T/a.pfw"; echo '{"id":4,"name":"read","cat":"POSIX",'; } >"$T/bad.pfw"
bad 5 "bad JSON"
{ head -n 2 "$T/a.pfw"; echo '{"name":"read","cat":"POSIX","ts":"soon","ph":"X"}'; } >"$T/bad.pfw"
bad 3 '"ts" is not a number'
{ head -n 2 "$T/a.pfw"; echo '{"name":"read","cat":"POSIX","ts":1,"ph":"X","pid":-4}'; } >"$T/bad.pfw"
bad 3 '"pid" is not a 32-bit id'
{ head -n 2 "$T/a.pfw"; echo '{"name":"read","cat":"POSIX","ts":1,"ph":"X","args":{"fd":"three"}}'; } >"$T/bad.pfw"
bad 3 "args.fd is not an integer"
{ head -n 2 "$T/a.pfw"; echo '{"name":"read","cat":"POSIX","ts":"12:00","ph":"X"}'; } >"$T/bad.pfw"
bad 3 '"ts" is not a number'
echo '["read"]' >"$T/bad.pfw"
bad 1 "not a JSON object"
exit 0
