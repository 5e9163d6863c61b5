#!/bin/sh
# anonymize.sh - `iotape anonymize`: no name of IN left in OUT, every
# number kept.
#
# On the bundled traces: analyze --json of IN and OUT equal but for names
# (and file_order_*, measured against name order, which the hashes hide:
# man page, LIMITS), compare --check --key passes, replay of OUT does the
# same I/O per file as of IN; no path component (6+ bytes) of IN in OUT's
# raw bytes, none (3+ bytes) among the names OUT's dump shows, no argv or
# cmdline.  On a hand-made trace: the exact hashes (BLAKE2b by Python's
# hashlib, not libsodium), --keep-ext and --keep-dirs, same key same names,
# other key other names.  Bad input: one error line, no OUT left behind.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip "no /usr/bin/python3 (JSON and hash checks)"

head -c 32 /dev/urandom >"$T/k1" || fail "no key"
head -c 32 /dev/urandom >"$T/k2" || fail "no key"

# ------------------------------------------------ a hand-made trace
cat >"$T/t.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,path2
1000,1,1,openat,/data/imagenet/train/n01440764/img_0001.JPEG,-1,0,0,3,10,0,
2000,1,1,read,/data/imagenet/train/n01440764/img_0001.JPEG,3,0,4096,4096,10,0,
3000,1,1,openat,/data/imagenet/val/img_0001.JPEG,-1,0,0,4,10,0,
4000,1,1,openat,/home/alicesecret/project/model.tar.gz,-1,0,0,5,10,0,
5000,1,1,rename,/home/alicesecret/project/model.tar.gz,-1,0,0,0,10,0,/home/alicesecret/project/.hidden
6000,1,1,openat,/usr/lib/python3.11/site-packages/torch/__init__.py,-1,0,0,6,10,0,
7000,1,1,openat,/lib/x86_64-linux-gnu/libc.so.6,-1,0,0,7,10,0,
EOT
ok "$IOTAPE" import -m hostname=sekrit-node-17 -m cmdline="python3 train.py --token xyzzy42" \
	-m cgroup=/user.slice/alicesecret -o "$T/t.iotape" "$T/t.csv"

# anon KEY OUT ARGS...: anonymize t.iotape, its syscall paths into OUT.paths
anon() {
	key=$1 out=$2
	shift 2
	ok "$IOTAPE" anonymize -q --key "$key" "$@" -o "$T/$out" "$T/t.iotape"
	ok "$IOTAPE" dump --format csv -t syscall -o "$T/$out.csv" "$T/$out"
	cut -d, -f5,13 "$T/$out.csv" >"$T/$out.paths" || fail "cut"
}
anon "$T/k1" a.iotape
anon "$T/k1" b.iotape
anon "$T/k2" c.iotape
anon "$T/k1" e.iotape --keep-ext --keep-dirs 2
same "$T/a.iotape.paths" "$T/b.iotape.paths"
cmp -s "$T/a.iotape.paths" "$T/c.iotape.paths" && fail "two keys gave the same names"

# The exact names: each component is BLAKE2b-64 (personal
# "iotape/anon/path", keyed) of the path up to it, in hex; generic
# components and code extensions stay; --keep-ext keeps .JPEG and .gz.
cat >"$T/expect.py" <<'EOT'
import hashlib, sys
key = open(sys.argv[1], "rb").read()
keep_ext = sys.argv[2] == "1"
keep = int(sys.argv[3])
def h(prefix):
    return hashlib.blake2b(prefix.encode(), digest_size=8, key=key,
                           person=b"iotape/anon/path").hexdigest()
def anon(p, sfx):
    parts, out = p.split("/"), []
    for i, c in enumerate(parts):
        if not c:
            out.append(c); continue
        idx = len([x for x in parts[:i] if x])
        if idx < keep or c in sfx.get("keep", ()):
            out.append(c); continue
        out.append(h("/".join(parts[:i + 1])) + sfx.get(c, ""))
    return "/".join(out)
ext = {"img_0001.JPEG": ".JPEG", "model.tar.gz": ".gz"} if keep_ext else {}
ext.update({"__init__.py": ".py", "libc.so.6": ".so.6",
            "keep": ("usr", "lib", "python3.11", "site-packages")})
rows = [("/data/imagenet/train/n01440764/img_0001.JPEG", ""),
        ("/data/imagenet/train/n01440764/img_0001.JPEG", ""),
        ("/data/imagenet/val/img_0001.JPEG", ""),
        ("/home/alicesecret/project/model.tar.gz", ""),
        ("/home/alicesecret/project/model.tar.gz", "/home/alicesecret/project/.hidden"),
        ("/usr/lib/python3.11/site-packages/torch/__init__.py", ""),
        ("/lib/x86_64-linux-gnu/libc.so.6", "")]
print("path,path2")
for p, q in rows:
    print(anon(p, ext) + "," + (anon(q, ext) if q else ""))
EOT
$PY "$T/expect.py" "$T/k1" 0 0 >"$T/a.expect" || fail "expect.py"
same "$T/a.expect" "$T/a.iotape.paths"
$PY "$T/expect.py" "$T/k1" 1 2 >"$T/e.expect" || fail "expect.py"
same "$T/e.expect" "$T/e.iotape.paths"
grep -q '^/data/imagenet/[0-9a-f]\{16\}/[0-9a-f]\{16\}/[0-9a-f]\{16\}\.JPEG,$' "$T/e.iotape.paths" ||
	fail "--keep-ext --keep-dirs 2: $(cat "$T/e.iotape.paths")"

# metadata: hostname hashed (BLAKE2b personal "iotape/anon/name"), the
# command line and cgroup gone, what was done said
ok "$IOTAPE" info "$T/a.iotape"
cp "$T/out" "$T/a.info"
host=$($PY -c 'import hashlib,sys; print(hashlib.blake2b(b"sekrit-node-17", digest_size=8,
	key=open(sys.argv[1],"rb").read(), person=b"iotape/anon/name").hexdigest())' "$T/k1") ||
	fail "hostname hash"
kid=$($PY -c 'import hashlib,sys; print(hashlib.blake2b(open(sys.argv[1],"rb").read(),
	digest_size=8, person=b"iotape/anon/kid_").hexdigest())' "$T/k1") || fail "key id"
for l in "hostname        $host" "anon.key_id     $kid" "anon.method     keyed-blake2b-64/1" \
	"anon.removed    cmdline,cgroup" "anon.replaced   hostname" "clock           unknown"; do
	grep -qF -- "$l" "$T/a.info" || fail "info lacks '$l': $(cat "$T/a.info")"
done
for s in sekrit alicesecret xyzzy42 imagenet n01440764 img_0001 JPEG model.tar; do
	grep -qF -- "$s" "$T/a.info" && fail "info of OUT shows '$s'"
	grep -qaF -- "$s" "$T/a.iotape" && fail "OUT's bytes hold '$s'"
	grep -qF -- "$s" "$T/a.iotape.csv" && fail "OUT's dump holds '$s'"
done

# a key file of 64 hex digits is the same key as its 32 bytes
od -An -tx1 -v "$T/k1" >"$T/k1.od" || fail "od $T/k1"
tr -d ' \n' <"$T/k1.od" >"$T/k1.hex" && echo >>"$T/k1.hex" || fail "writing $T/k1.hex"
anon "$T/k1.hex" h.iotape
same "$T/a.iotape.paths" "$T/h.iotape.paths"
# --new-key writes a key (mode 0600) that --key then reads
ok "$IOTAPE" anonymize -q --new-key "$T/new.key" -o "$T/n1.iotape" "$T/t.iotape"
[ "$(stat -c %a "$T/new.key")" = 600 ] || fail "new key mode $(stat -c %a "$T/new.key")"
[ "$(wc -c <"$T/new.key")" -eq 65 ] || fail "new key is not 64 hex digits and a newline"
anon "$T/new.key" n2.iotape
ok "$IOTAPE" dump --format csv -t syscall -o "$T/n1.csv" "$T/n1.iotape"
same "$T/n1.csv" "$T/n2.iotape.csv"
# no key: random, so two runs differ
ok "$IOTAPE" anonymize -q -o "$T/r1.iotape" "$T/t.iotape"
ok "$IOTAPE" anonymize -q -o "$T/r2.iotape" "$T/t.iotape"
ok "$IOTAPE" dump --format csv -t syscall -o "$T/r1.csv" "$T/r1.iotape"
ok "$IOTAPE" dump --format csv -t syscall -o "$T/r2.csv" "$T/r2.iotape"
cmp -s "$T/r1.csv" "$T/r2.csv" && fail "two runs without --key gave the same names"

# ------------------------------------------------ free text, python*, merged
# free text set with import -m under a key anonymize keeps: removed unless
# of the form this version writes; those of the form stay
printf '%s\n' 'ts_ns,pid,op,path,size' 100,10,openat,/usr/lib/python3.11/os.py,0 \
	200,10,openat,/usr/lib/python_secret/x.py,0 300,10,openat,/venv/lib/python3/site-packages/m.py,0 \
	400,10,openat,/opt/lib/python,0 >"$T/ft.csv"
ok "$IOTAPE" import -m source='alice lab, rack 7' -m kernel="bob's box" -m clock=wallsecret \
	-m page_size=4096x -m iotape_version=v-secret -m layers=syscall,secretlayer \
	-m lost.syscall=leaked -m start_wall_ns=1000000000000 -o "$T/ft.iotape" "$T/ft.csv"
ok "$IOTAPE" anonymize -q --key "$T/k1" -o "$T/ft.anon" "$T/ft.iotape"
ok "$IOTAPE" info "$T/ft.anon"
cp "$T/out" "$T/ft.info"
for s in alice rack bob wallsecret 4096x v-secret secretlayer leaked python_secret; do
	grep -qF -- "$s" "$T/ft.info" && fail "info of OUT shows '$s': $(cat "$T/ft.info")"
	grep -qaF -- "$s" "$T/ft.anon" && fail "OUT's bytes hold '$s'"
done
grep -qE '^  anon.removed +source,iotape_version,clock,kernel,page_size,layers,lost.syscall$' "$T/ft.info" ||
	fail "anon.removed: $(cat "$T/ft.info")"
grep -qE '^  start_wall_ns +1000000000000$' "$T/ft.info" || fail "start_wall_ns not kept: $(cat "$T/ft.info")"
# of the form: a kernel release, the importer's source and clock, this version
ok "$IOTAPE" import -m kernel=6.1.0-28-amd64 -m layers=syscall,cache -o "$T/ok.iotape" "$T/ft.csv"
ok "$IOTAPE" anonymize -q --key "$T/k1" -o "$T/ok.anon" "$T/ok.iotape"
ok "$IOTAPE" info "$T/ok.anon"
for kv in 'kernel +6.1.0-28-amd64' 'layers +syscall,cache' 'source +import:csv' 'clock +unknown' \
	'anon.removed +'; do
	grep -Eq "^  $kv\$" "$T/out" || fail "info: no '$kv': $(cat "$T/out")"
done
grep -Eq '^  iotape_version +[0-9]' "$T/out" || fail "iotape_version not kept: $(cat "$T/out")"
# what every importer writes under source and clock is of the form kept:
# a trace of each (its first fuzz corpus input that imports) keeps both
"$IOTAPE" import -h >"$T/ih" || fail "import -h"
formats=$(sed -n 's/.*--format=FORMAT .*(\([^)]*\)).*/\1/p' "$T/ih" | tr '|' ' ')
[ -n "$formats" ] || fail "no formats in import -h"
for f in $formats; do
	done_f=
	for in in "$TOP/tests/fuzz/corpus/import_$f"/*; do
		rm -f "$T/imp.iotape"
		"$IOTAPE" import -F "$f" -o "$T/imp.iotape" "$in" >/dev/null 2>&1 || continue
		ok "$IOTAPE" anonymize -q --key "$T/k1" -o "$T/imp.anon" "$T/imp.iotape"
		ok "$IOTAPE" info --json "$T/imp.iotape"
		$PY -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; print(m["source"]); print(m["clock"])' \
			"$T/out" >"$T/imp.meta" || fail "$f: no source or clock in the import"
		ok "$IOTAPE" info --json "$T/imp.anon"
		$PY -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; print(m.get("source")); print(m.get("clock"))' \
			"$T/out" >"$T/anon.meta" || fail "$f: info --json"
		same "$T/imp.meta" "$T/anon.meta"
		rm -f "$T/imp.anon"
		done_f=1
		break
	done
	[ -n "$done_f" ] || fail "$f: no corpus input imports"
done

# lib/python3.11, lib/python3 and lib/python stay; lib/python_secret does not
ok "$IOTAPE" dump --format csv -t syscall -o "$T/ft.csv.out" "$T/ft.anon"
cut -d, -f5 "$T/ft.csv.out" >"$T/ft.paths" || fail "cut"
grep -qx '/usr/lib/python3.11/[0-9a-f]\{16\}\.py' "$T/ft.paths" &&
	grep -qx '/usr/lib/[0-9a-f]\{16\}/[0-9a-f]\{16\}\.py' "$T/ft.paths" &&
	grep -qx '/[0-9a-f]\{16\}/lib/python3/site-packages/[0-9a-f]\{16\}\.py' "$T/ft.paths" &&
	grep -qx '/[0-9a-f]\{16\}/lib/python' "$T/ft.paths" || fail "python dirs: $(cat "$T/ft.paths")"

# a merged trace keeps what makes it one: merge.hosts, each host's offset
# and window, its name hashed as its hostname is: analyze's HOSTS and
# split --by host work on OUT, whose parts are the anonymized inputs
printf '%s\n' 'ts_ns,pid,op,path,size' 100,10,openat,/d/a,0 200,10,read,/d/a,4096 >"$T/ma.csv"
printf '%s\n' 'ts_ns,pid,op,path,size' 50,10,openat,/d/b,0 60,10,read,/d/b,1000 >"$T/mb.csv"
ok "$IOTAPE" import -m hostname=nodeA -m start_wall_ns=1000000000000 -m start_mono_ns=100 \
	-m cmdline='train --secret-token' -o "$T/ma.tape" "$T/ma.csv"
ok "$IOTAPE" import -m hostname=nodeB -m start_wall_ns=1000000000500 -m start_mono_ns=40 \
	-o "$T/mb.tape" "$T/mb.csv"
run "$IOTAPE" merge -o "$T/mm.tape" "$T/ma.tape" "$T/mb.tape"
[ "$rc" = 0 ] || fail "merge exited $rc: $(cat "$T/err")"
ok "$IOTAPE" anonymize -q --key "$T/k1" -o "$T/mm.anon" "$T/mm.tape"
ok "$IOTAPE" info "$T/mm.anon"
cp "$T/out" "$T/mm.info"
hash() {
	$PY -c 'import hashlib,sys; print(hashlib.blake2b(sys.argv[2].encode(), digest_size=8,
		key=open(sys.argv[1],"rb").read(), person=b"iotape/anon/name").hexdigest())' "$T/k1" "$1" ||
		fail "hash"
}
ha=$(hash nodeA) hb=$(hash nodeB)
for kv in 'merge.hosts +2' "host.0.name +$ha" "host.1.name +$hb" "host.0.hostname +$ha" \
	'host.1.offset_ns +1000000000460' 'host.1.t_min +[0-9]+' 'source +merge' 'clock +realtime'; do
	grep -Eq "^  $kv\$" "$T/mm.info" || fail "merged: no '$kv': $(cat "$T/mm.info")"
done
for s in nodeA nodeB secret-token ma.tape mb.tape; do
	grep -qaF -- "$s" "$T/mm.anon" && fail "merged OUT's bytes hold '$s'"
done
ok "$IOTAPE" analyze "$T/mm.anon"
grep -q '^HOSTS' "$T/out" && grep -Eq "^  1 +$hb " "$T/out" || fail "analyze of OUT: no HOSTS: $(cat "$T/out")"
run "$IOTAPE" split --by host -o "$T/sp" "$T/mm.anon"
[ "$rc" = 0 ] || fail "split of OUT exited $rc: $(cat "$T/err")"
for h in 0 1; do
	[ -f "$T/sp-host$h.iotape" ] || fail "split of OUT: no host $h: $(ls "$T")"
done
ok "$IOTAPE" anonymize -q --key "$T/k1" -o "$T/mb.anon" "$T/mb.tape"
ok "$IOTAPE" dump --format csv -o "$T/mb.anon.csv" "$T/mb.anon"
ok "$IOTAPE" dump --format csv -o "$T/sp1.csv" "$T/sp-host1.iotape"
same "$T/mb.anon.csv" "$T/sp1.csv"

# ------------------------------------------------ bad input
# bad RC PATTERN ARGS...: one error line, and no OUT (nor temporary) left
bad() {
	want=$1 pattern=$2
	shift 2
	rm -f "$T/bad.iotape"
	err_line "$want" "iotape anonymize: " "$pattern" "$IOTAPE" anonymize -o "$T/bad.iotape" "$@"
	[ -e "$T/bad.iotape" ] && fail "OUT left behind ($pattern)"
	for f in "$T"/bad.iotape.tmp.*; do
		[ -e "$f" ] && fail "temporary file left behind: $f"
	done
	return 0
}
bad 1 "No such file or directory" --key "$T/nokey" "$T/t.iotape"
head -c 31 "$T/k1" >"$T/short"
bad 1 "not a key (31 bytes" --key "$T/short" "$T/t.iotape"
head -c 16 "$TOP/traces/image_folder.iotape" >"$T/trunc.iotape"
bad 1 "trunc.iotape" --key "$T/k1" "$T/trunc.iotape"
bad 2 "exclude each other" --key "$T/k1" --new-key "$T/nk" "$T/t.iotape"
[ -e "$T/nk" ] && fail "--new-key file made on a usage error"
touch "$T/exists.key"
bad 1 "exists.key: File exists" --new-key "$T/exists.key" "$T/t.iotape"
# a truncated trace whose blocks fail half way: no OUT, no new key left
sz=$(wc -c <"$TOP/traces/shards.iotape")
head -c $((sz / 2)) "$TOP/traces/shards.iotape" >"$T/half.iotape"
dd if=/dev/zero of="$T/half.iotape" bs=1 seek=$((sz / 4)) count=64 conv=notrunc 2>/dev/null
bad 1 "half.iotape" --new-key "$T/half.key" "$T/half.iotape"
[ -e "$T/half.key" ] && fail "--new-key file left behind after a failure"
# an existing OUT is kept without -f
cp "$T/a.iotape" "$T/bad.iotape"
err_line 1 "iotape anonymize: " "exists" "$IOTAPE" anonymize --key "$T/k1" -o "$T/bad.iotape" "$T/t.iotape"
same "$T/a.iotape" "$T/bad.iotape"

# a signal while OUT is written: OUT (or -f's temporary file) and the
# --new-key file are removed, an old OUT kept; exit status 128 + signal.
# A trace of 1M reads of 200k files: anonymize takes about a second.
awk 'BEGIN { print "ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns"
	for (i = 0; i < 1000000; i++)
		printf "%d,1,1,pread64,/scratch/job/part%d/shard_%07d.npy,3,0,4096,4096,10\n",
			10000 + i * 20, i % 100, i % 200000 }' >"$T/big.csv" || fail "awk"
ok "$IOTAPE" import -o "$T/big.iotape" "$T/big.csv"
rm -f "$T/big.csv"
# stop SIG GLOB ARGS...: anonymize ARGS (SIGINT not ignored, as it would be
# in a job started with & by a shell without job control), SIG once a file
# GLOB matches exists; its exit status in $src
made() {
	for f in $1; do
		[ -e "$f" ] && return 0
	done
	return 1
}
stop() {
	sig=$1 file=$2
	shift 2
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or exit 127' \
		"$IOTAPE" anonymize -q "$@" "$T/big.iotape" 2>"$T/stop.err" &
	apid=$!
	i=0
	until made "$file"; do
		[ $i -lt 1000 ] || { kill -KILL $apid; fail "$sig: $file never made"; }
		sleep 0.01
		i=$((i + 1))
	done
	sleep 0.05
	kill -"$sig" $apid || fail "kill -$sig"
	wait $apid
	src=$?
}
stop TERM "$T/sig.iotape" --new-key "$T/sig.key" -o "$T/sig.iotape"
[ "$src" = 143 ] || fail "SIGTERM: exit $src, want 143 (finished before it? $(cat "$T/stop.err"))"
[ ! -e "$T/sig.iotape" ] || fail "SIGTERM left OUT behind"
[ ! -e "$T/sig.key" ] || fail "SIGTERM left the --new-key file behind"
stop INT "$T/sig.iotape" --key "$T/k1" -o "$T/sig.iotape"
[ "$src" = 130 ] || fail "SIGINT: exit $src, want 130 ($(cat "$T/stop.err"))"
[ ! -e "$T/sig.iotape" ] || fail "SIGINT left OUT behind"
cp "$T/a.iotape" "$T/old.iotape" || fail "cp"
stop HUP "$T/old.iotape.tmp.*" --key "$T/k1" -f -o "$T/old.iotape"
[ "$src" = 129 ] || fail "SIGHUP: exit $src, want 129 ($(cat "$T/stop.err"))"
for f in "$T"/old.iotape.tmp.*; do
	[ -e "$f" ] && fail "SIGHUP left -f's temporary file: $f"
done
same "$T/a.iotape" "$T/old.iotape"

# ------------------------------------------------ the bundled traces
cat >"$T/check.py" <<'EOT'
import json, re, sys
mode = sys.argv[1]
NAMES = ("path", "directory", "comm", "argv", "trace")
PATHISH = re.compile(r"\S*/\S*")
def norm(x, k=""):
    if isinstance(x, dict):
        return {k2: norm(v, k2) for k2, v in x.items()
                if k2 not in ("file_order_randomness", "file_order_tau")}
    if isinstance(x, list):
        v = [norm(y, k) for y in x]
        if k == "files":	# ties are ordered by name: order by file id
            v.sort(key=lambda f: f.get("file_id", 0) if isinstance(f, dict) else 0)
        if k == "ranked":	# staging: ties by path, the names now blanked
            v.sort(key=lambda f: json.dumps(f, sort_keys=True))
        return v
    if isinstance(x, str):
        return "NAME" if k in NAMES else PATHISH.sub("PATH", x)
    return x
if mode == "analyze":
    a, b = (norm(json.load(open(f))) for f in sys.argv[2:4])
    if a != b:
        for k in a:
            if a[k] != b.get(k):
                print("differs:", k, json.dumps(a[k])[:300], json.dumps(b.get(k))[:300])
        sys.exit(1)
elif mode == "replay":
    a, b = (json.load(open(f))["replay"] for f in sys.argv[2:4])
    for k in ("ops_expected", "ops_done", "ops_failed", "dataset_bytes"):
        if a[k] != b[k]:
            sys.exit("replay %s: %s vs %s" % (k, a[k], b[k]))
    for d in ("read", "write"):
        if a["total"][d]["io_bytes"] != b["total"][d]["io_bytes"]:
            sys.exit("replay %s bytes differ" % d)
    fa = sorted((f["recorded_bytes"], f["replayed_bytes"]) for f in a["files"])
    fb = sorted((f["recorded_bytes"], f["replayed_bytes"]) for f in b["files"])
    if fa != fb or any(r != p for r, p in fb):
        sys.exit("replay: bytes per file differ")
elif mode == "names":
    # argv 2: IN's dump, 3: OUT's dump, 4: OUT's raw bytes
    generic = {"proc", "sys", "dev", "run", "etc", "usr", "lib", "lib32", "lib64", "libx32",
               "bin", "sbin", "boot", "shm", "site-packages", "dist-packages", "__pycache__",
               "locale", "locale-archive"}
    field = re.compile(r" (?:path|path2|comm|argv)=(\S+)")
    def names(f):
        s = set()
        for line in open(f, errors="replace"):
            for v in field.findall(line):
                v = v.strip('"')
                for c in v.split("/"):
                    for part in (c, c.split(".")[0]):
                        if len(part) >= 3 and part not in generic and \
                           not part.startswith("python"):
                            s.add(part)
        return s
    a, b = names(sys.argv[2]), names(sys.argv[3])
    raw = open(sys.argv[4], "rb").read()
    common = sorted(x for x in a & b if not re.fullmatch(r"[0-9a-f]{16}", x))
    if common:
        sys.exit("OUT's dump shows names of IN: %s" % common[:10])
    inraw = sorted(x for x in a if len(x) >= 6 and x.encode() in raw)
    if inraw:
        sys.exit("OUT's bytes hold names of IN: %s" % inraw[:10])
EOT

uring=1
printf 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,flags,path2\n1000,1,1,openat,/u,-1,0,0,3,10,0,\n' >"$T/u.csv"
ok "$IOTAPE" import -o "$T/u.tape" "$T/u.csv"
"$IOTAPE" replay --timing afap -d "$T/u.d" "$T/u.tape" >"$T/u.out" 2>&1 || uring=0

for t in image_folder shards checkpoint memmap; do
	in=$TOP/traces/$t.iotape out=$T/$t.iotape
	ok "$IOTAPE" anonymize -q --key "$T/k1" -o "$out" "$in"
	ok "$IOTAPE" analyze --json "$in"
	cp "$T/out" "$T/$t.a.json"
	ok "$IOTAPE" analyze --json "$out"
	cp "$T/out" "$T/$t.b.json"
	$PY "$T/check.py" analyze "$T/$t.a.json" "$T/$t.b.json" >"$T/diff" ||
		fail "$t: analyze --json differs: $(cat "$T/diff")"
	run "$IOTAPE" compare --check --key "$T/k1" "$in" "$out"
	[ "$rc" -eq 0 ] || fail "$t: compare --check --key: $(grep FAIL "$T/out") $(cat "$T/err")"
	ok "$IOTAPE" dump -o "$T/in.dump" "$in"
	ok "$IOTAPE" dump -o "$T/out.dump" "$out"
	$PY "$T/check.py" names "$T/in.dump" "$T/out.dump" "$out" >"$T/diff" 2>&1 ||
		fail "$t: $(cat "$T/diff")"
	ok "$IOTAPE" info "$out"
	"$IOTAPE" info --json "$in" >"$T/in.json" || fail "$t: info --json $in"
	for k in cmdline hostname; do
		$PY -c "import json,sys; print(json.load(open(sys.argv[1]))['meta'].get('$k', ''))" \
			"$T/in.json" >"$T/v" || fail "$t: $k of $T/in.json"
		v=$(cat "$T/v")
		[ ${#v} -ge 3 ] || continue
		grep -qF -- "$v" "$T/out" && fail "$t: info of OUT shows $k '$v'"
		grep -qaF -- "$v" "$out" && fail "$t: OUT's bytes hold $k '$v'"
		grep -qF -- "$v" "$T/out.dump" && fail "$t: OUT's dump holds $k '$v'"
	done
	# the argv of every process: none left
	grep -q ' argv=""' "$T/out.dump" || fail "$t: argv not emptied"
	grep ' argv=' "$T/out.dump" >"$T/argv" || fail "$t: grep argv"
	grep -qv ' argv=""$' "$T/argv" && fail "$t: an argv is left"
done

# replay: the same I/O per file (image_folder: reads, writes, metadata)
if [ "$uring" = 1 ]; then
	for s in a b; do
		tr=$TOP/traces/image_folder.iotape
		[ $s = b ] && tr=$T/image_folder.iotape
		ok "$IOTAPE" replay --timing afap --sparse --output-format json -o "$T/rp.$s.json" \
			-d "$T/rp.$s" "$tr"
		rm -rf "$T/rp.$s"
	done
	$PY "$T/check.py" replay "$T/rp.a.json" "$T/rp.b.json" >"$T/diff" 2>&1 ||
		fail "replay: $(cat "$T/diff")"
else
	echo "io_uring unavailable: replay equality not checked" >&2
fi
exit 0
