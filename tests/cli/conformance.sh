#!/bin/sh
# conformance.sh - every output of a real tool in tests/data/conformance/
# (made on this machine by its generate.sh: strace in four option sets,
# fio's write_iolog, the kernel's blk tracer through blkparse) imports,
# and its bytes per file are the ones the tool itself reported:
#   strace: the return values of the reads, writes and copies on each file
#     of the workload; replayed, the files it left (each one's size, and
#     no other) are those stat saw after the real run; the sizes its stats
#     printed make the model's record length;
#   fio: the read and write io_bytes of each job in fio's JSON report
#     (a job, a file); replayed, the same bytes, and each file the size it
#     had after fio;
#   blkparse: the KiB blkparse's summary says were completed, read and
#     written, and one request per D line; the block table is not
#     replayed (replay says there is nothing to replay).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring
C=$TOP/tests/data/conformance
[ -d "$C/strace" ] && [ -d "$C/fio" ] && [ -d "$C/blkparse" ] || fail "no corpus in $C"

cat >"$T/check.py" <<'EOT'
import json, os, re, sys

def analyze_files(path):
    """path -> (read_bytes, write_bytes) from iotape analyze --json"""
    return {f["path"]: (f["read_bytes"], f["write_bytes"])
            for f in json.load(open(path))["files"]}

def strace_bytes(path, under):
    """The bytes strace says each call moved, per file under `under`."""
    io = re.compile(r'\s(read|pread64|readv|preadv|preadv2|write|pwrite64|'
                    r'writev|pwritev|pwritev2)\(\d+<([^>]*)>.*\) = (\d+)')
    cp = re.compile(r'\s(copy_file_range|sendfile)\((\d+)<([^>]*)>, [^,]*, (\d+)<([^>]*)>.*\) = (\d+)')
    got = {}
    for line in open(path, errors="replace"):
        if "<unfinished ...>" in line or "resumed>" in line:
            m = re.search(r'(read|write|pread64|pwrite64|copy_file_range|sendfile)\(\d+<' +
                          re.escape(under), line)
            if m:
                sys.exit("%s: a split call on the workload's files: %s" % (path, line))
            continue
        m = io.search(line)
        if m:
            call, f, n = m.group(1), m.group(2), int(m.group(3))
            if f.startswith(under):
                r, w = got.get(f, (0, 0))
                got[f] = (r + n, w) if "read" in call else (r, w + n)
            continue
        m = cp.search(line)
        if m:
            n = int(m.group(6))
            # copy_file_range(in, off, out, ...); sendfile(out, in, ...)
            src, dst = (m.group(3), m.group(5)) if m.group(1) == "copy_file_range" \
                else (m.group(5), m.group(3))
            if src.startswith(under):
                r, w = got.get(src, (0, 0)); got[src] = (r + n, w)
            if dst.startswith(under):
                r, w = got.get(dst, (0, 0)); got[dst] = (r, w + n)
    return got

def dir_sizes(d, prefix):
    """'PATH SIZE' lines of the regular files under d/prefix, as the
    recorded paths"""
    out = []
    root = os.path.join(d, prefix.lstrip("/"))
    for dp, dn, fn in os.walk(root):
        for f in fn:
            p = os.path.join(dp, f)
            out.append("/%s %d" % (os.path.relpath(p, d), os.path.getsize(p)))
    return sorted(out)

def blk_summary(path):
    """Reads and writes completed (KiB) summed over blkparse's per-CPU
    sections, and the number of D lines"""
    kib = [0, 0]
    d = 0
    cpu = False
    for line in open(path):
        if re.match(r'^CPU\d+ \(', line):
            cpu = True
        elif re.match(r'^(Total|Throughput|Events)', line):
            cpu = False
        if cpu:
            m = re.search(r'Reads Completed:\s+[\d,]+,\s+(\d+)KiB\s+Writes Completed:\s+[\d,]+,\s+(\d+)KiB', line)
            if m:
                kib[0] += int(m.group(1)); kib[1] += int(m.group(2))
        elif re.match(r'^\s*\d+,\d+\s+\d+\s+\d+\s+[\d.]+\s+\d+\s+D\s', line):
            d += 1
    return kib, d

what = sys.argv[1]
if what == "strace":
    trace, analysis, under = sys.argv[2:5]
    want = strace_bytes(trace, under)
    if not want:
        sys.exit("%s: no I/O on files under %s" % (trace, under))
    got = {p: v for p, v in analyze_files(analysis).items() if p.startswith(under)}
    got = {p: v for p, v in got.items() if v != (0, 0)}
    if got != want:
        sys.exit("%s: bytes (read, written) per file: imported %r, strace %r" % (trace, got, want))
elif what == "sizes":
    d, prefix, sizes = sys.argv[2:5]
    want = sorted(l.strip() for l in open(sizes) if l.strip())
    got = dir_sizes(d, prefix)
    if got != want:
        sys.exit("%s: files after the replay %r, after the real run %r" % (d, got, want))
elif what == "fio":
    report, analysis, replay = sys.argv[2:5]
    jobs = json.load(open(report))["jobs"]
    want = sorted((j["read"]["io_bytes"], j["write"]["io_bytes"]) for j in jobs)
    files = analyze_files(analysis)
    got = sorted(files.values())
    if got != want:
        sys.exit("%s: bytes per file %r, fio's per job %r" % (report, got, want))
    t = json.load(open(replay))["replay"]["total"]
    r = (t["read"]["io_bytes"], t["write"]["io_bytes"])
    if r != (sum(x[0] for x in want), sum(x[1] for x in want)):
        sys.exit("%s: replayed %r bytes, fio's %r" % (report, r, want))
elif what == "blk":
    text, analysis = sys.argv[2:4]
    (rk, wk), d = blk_summary(text)
    b = json.load(open(analysis))["block"]
    got = (b["read_bytes"], b["write_bytes"], b["requests"])
    if got != (rk * 1024, wk * 1024, d):
        sys.exit("%s: imported (read, written, requests) %r; blkparse %d KiB, %d KiB, %d D lines"
                 % (text, got, rk, wk, d))
EOT

# replay_clean TRACE DIR: replays with no failed op, report in $T/r.json
replay_clean() {
	ok "$IOTAPE" replay --timing afap --output-format json -o "$T/r.json" -d "$2" "$1"
	[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] ||
		fail "$1: failed ops: $(jq_py "$T/r.json" "d['replay']['failed']")"
}

inputs=0
for f in "$C"/strace/*.txt; do
	b=$(basename "$f" .txt)
	rm -rf "$T/s.tape" "$T/d"
	ok "$IOTAPE" import -F strace -o "$T/s.tape" "$f"
	ok "$IOTAPE" analyze --json "$T/s.tape"
	cp "$T/out" "$T/a.json" || fail cp
	python3 "$T/check.py" strace "$f" "$T/a.json" /tmp/iotape-conf/run/ || fail "strace $b"
	replay_clean "$T/s.tape" "$T/d"
	python3 "$T/check.py" sizes "$T/d" /tmp/iotape-conf/run "$C/strace/$b.sizes" ||
		fail "strace $b: replay"
	case $b in f-*)
		# the workload's data set (a.bin, b.bin: 16 KiB each, work.sh)
		# has the sizes its stats printed: model and export take them
		ok "$IOTAPE" model "$T/s.tape"
		grep -q '^record_length = 16384 ' "$T/out" || fail "strace $b: model: $(grep record_length "$T/out")"
		ok "$IOTAPE" export --format fio-job -f -o "$T/s.fio" "$T/s.tape"
	esac
	inputs=$((inputs + 1))
done
for f in "$C"/fio/*.iolog; do
	b=$(basename "$f" .iolog)
	rm -rf "$T/f.tape" "$T/d"
	ok "$IOTAPE" import -F fio-iolog -o "$T/f.tape" "$f"
	ok "$IOTAPE" analyze --json "$T/f.tape"
	cp "$T/out" "$T/a.json" || fail cp
	replay_clean "$T/f.tape" "$T/d"
	python3 "$T/check.py" fio "$C/fio/$b.json" "$T/a.json" "$T/r.json" || fail "fio $b"
	# this log's files, as fio left them
	awk '$3 == "add" { print $2 }' "$f" | sort -u >"$T/names" || fail awk
	grep -F -f "$T/names" "$C/fio/sizes" >"$T/sizes" || fail "fio $b: no sizes"
	python3 "$T/check.py" sizes "$T/d" /tmp/iotape-conf/fio "$T/sizes" || fail "fio $b: replay"
	inputs=$((inputs + 1))
done
for f in "$C"/blkparse/*.txt; do
	b=$(basename "$f" .txt)
	rm -f "$T/b.tape"
	ok "$IOTAPE" import -F blkparse -o "$T/b.tape" "$f"
	ok "$IOTAPE" analyze --json "$T/b.tape"
	cp "$T/out" "$T/a.json" || fail cp
	python3 "$T/check.py" blk "$f" "$T/a.json" || fail "blkparse $b"
	err_line 1 "iotape replay: " "no file operations to replay" \
		"$IOTAPE" replay --timing afap -d "$T/d" "$T/b.tape"
	inputs=$((inputs + 1))
done
[ "$inputs" -ge 9 ] || fail "only $inputs inputs in $C"
exit 0
