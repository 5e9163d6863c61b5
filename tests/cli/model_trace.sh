#!/bin/sh
# iotape model TRACE: on the bundled traces, each value written equals what
# `iotape analyze --json` of the same trace says (the expectations computed
# here from its JSON), but for what analyze does not print (the steps of the
# epochs, the threads' data reads; model_check.sh checks their effect),
# which is checked against bounds from it; -o refuses an existing file without -f; a damaged
# trace is one error line, exit 1, and no file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/model_lib.sh"

for t in image_folder shards checkpoint memmap; do
	tr=$TOP/traces/$t.iotape
	ok "$IOTAPE" model "$tr" -o "$T/$t.ini"
	ok "$IOTAPE" analyze --json "$tr"
	cp "$T/out" "$T/$t.json"
	python3 - "$T/$t.json" "$T/$t.ini" <<'PY' || fail "$t: the job file is not what analyze says"
import configparser, json, math, os, sys
a = json.load(open(sys.argv[1]))
c = configparser.ConfigParser(inline_comment_prefixes=(';',), interpolation=None)
c.read(sys.argv[2])
got = {(s, k): v for s in c.sections() for k, v in c.items(s)}
want = {("job", "format"): "1", ("source", "trace"): a["window"]["trace"],
        ("source", "duration_s"): "%.3f" % a["summary"]["duration_s"],
        ("source", "events"): str(a["summary"]["trace_events"]["syscall"])}
ds = [f for f in a["files"] if f["dataset"] and f["path_known"]]
mm = a["dataset"]["mmap"] if a["dataset"] else None
if mm:	# read through mmap: the files faulted in, a sample a page
    ds = [f for f in ds if f["mapped_pages"]]
    assert mm["files"] == len(ds), ("mmap files", mm, len(ds))
dsdir = ckdir = None
if not ds:
    want["dataset", "num_files"] = "0"
else:
    dsdir = os.path.commonpath([os.path.dirname(f["path"]) for f in ds])
    assert mm or a["dataset"]["files"] == len(ds)
    want["dataset", "num_files"] = str(len(ds))
    subs = {f["path"][len(dsdir) + 1:].split("/")[0] for f in ds if "/" in f["path"][len(dsdir) + 1:]}
    want["dataset", "num_subfolders"] = str(len(subs))
    names = [os.path.basename(f["path"]) for f in ds]
    pre = os.path.commonprefix(names).rstrip("0123456789")
    if pre and all("." not in n[:len(pre)] or n.rfind(".") >= len(pre) for n in names):
        want["dataset", "file_prefix"] = pre
    ext = {os.path.splitext(n)[1] for n in names}
    if len(ext) == 1 and ext != {""}:
        want["dataset", "file_suffix"] = ext.pop()
    # a file's size: the file table's, or where larger its extent
    sz = [max(f["size"] or 0, f["extent"]) for f in ds]
    m = sum(sz) / len(sz)
    S = max(1, round(m / 4096)) if mm else 1
    if mm:
        want["dataset", "num_samples_per_file"] = str(S)
    want["dataset", "record_length"] = "%.0f" % (m / S)
    want["dataset", "record_length_stdev"] = "%.0f" % (math.sqrt(max(0, sum(s * s for s in sz) / len(sz) - m * m)) / S)
    want["dataset", "record_length_min"] = "%.0f" % (min(sz) / S)
    want["dataset", "record_length_max"] = "%.0f" % (max(sz) / S)
    p = a["dataset"]["pattern"]
    r = p["file_order_randomness"]
    if mm:
        want["reader", "mmap"] = "on"
        want["reader", "read_threads"] = str(mm["reader_threads"])
        want["reader", "transfer_size"] = str(mm["window_bytes"])
        want["reader", "sample_shuffle"] = "on" if mm["read_randomness"] >= 0.5 else "off"
    elif r is not None:
        want["reader", "file_shuffle"] = "on" if r >= 0.5 else "off"
    st = p["streams"]
    if mm:
        pass
    elif st["total"] and st["single"] == st["total"]:
        want["reader", "transfer_size"] = "0"
    elif st["total"]:	# the largest read: in the largest size class read
        big = [h for h in p["request_size_histogram"] if h["reads"]][-1]
        ts = int(got.get(("reader", "transfer_size"), "-1"))
        assert big["min"] <= ts <= big["max"], ("transfer_size", ts, big)
        want["reader", "transfer_size"] = str(ts)
    # readers: at most the job's threads
    rt = int(got.get(("reader", "read_threads"), "0"))
    nrd = len(a["compute"]["threads"])
    assert 1 <= rt <= nrd, ("read_threads", rt, nrd)
    want["reader", "read_threads"] = str(rt)
    zero = sum(h["reads"] for h in p["request_size_histogram"] if h["max"] == 0)
    if mm:
        pass
    elif st["total"] and zero >= st["total"]:
        want["reader", "read_eof"] = "on"
    elif st["total"] and not zero:
        want["reader", "read_eof"] = "off"
ep = mm["epochs"] if mm else a["epochs"]["count"]
if ep is not None:
    want["train", "epochs"] = str(ep)
tr = a["au"]["thread"] if a["au"] else None
if tr and mm:
    # a data set read through a map: the trainer's steps between the first
    # and the last fault epoch (analyze's are over the whole window)
    ct = float(got["train", "computation_time"])
    assert 0 < ct <= tr["work_s"], ("compute", ct, tr["work_s"])
    want["train", "computation_time"] = got["train", "computation_time"]
    want["train", "computation_time_stdev"] = got["train", "computation_time_stdev"]
    if float(got["train", "computation_time_stdev"]) > 0:
        want["train", "computation_time_distribution"] = "lognormal"
    if ("reader", "batch_size") in got:
        want["reader", "batch_size"] = got["reader", "batch_size"]
elif tr and tr["steps"] and not (not ds and a["checkpoints"]["checkpoints"]):
    # the training thread's (analyze's au.thread) work per step: the
    # mean of its steps' work, their stdev; batch_size: the data set's
    # files per epoch over its steps in the epochs
    ct = float(got["train", "computation_time"])
    assert abs(ct - tr["step_mean_s"]) <= 5e-6, ("compute", ct, tr["step_mean_s"])
    want["train", "computation_time"] = got["train", "computation_time"]
    sd = float(got["train", "computation_time_stdev"])
    assert abs(sd - tr["step_stdev_s"]) <= 5e-6, ("stdev", sd, tr["step_stdev_s"])
    want["train", "computation_time_stdev"] = got["train", "computation_time_stdev"]
    if sd > 0:
        want["train", "computation_time_distribution"] = "lognormal"
    if ("reader", "batch_size") in got:
        n = sum(e["steps"] for e in a["au"]["epochs"])
        b = int(got["reader", "batch_size"])
        assert b == max(1, round(len(ds) * S * ep / n)), ("batch_size", b, len(ds), ep, n)
        want["reader", "batch_size"] = str(b)
elif tr and not ds and a["checkpoints"]["checkpoints"]:
    # checkpoints only: a step per checkpoint, all the work over them
    # (model's analysis counts as gaps the calls the replay does not
    # issue, analyze as I/O: within 1%)
    nck = len(a["checkpoints"]["checkpoints"])
    ct = float(got["train", "computation_time"])
    assert abs(ct * nck - tr["work_s"]) <= 0.01 * tr["work_s"], ("compute", ct, tr["work_s"], nck)
    want["train", "computation_time"] = got["train", "computation_time"]
ck = a["checkpoints"]["checkpoints"]
if ck:
    want["checkpoint", "size"] = "%.0f" % (sum(x["bytes"] for x in ck) / len(ck))
    if len({x["files"] for x in ck}) == 1:
        want["checkpoint", "files"] = str(ck[0]["files"])
    syn = sum(1 for x in ck if x["fsyncs"])
    if syn in (0, len(ck)):
        want["checkpoint", "fsync"] = "on" if syn else "off"
    # transfer: a write's size weighted by bytes, between the mean write
    # and a whole checkpoint
    ts = int(got["checkpoint", "transfer_size"])
    B, W = sum(x["bytes"] for x in ck), sum(x["write_ops"] for x in ck)
    assert B / W - 1 <= ts <= max(x["bytes"] for x in ck), ("ckpt transfer", ts, B, W)
    want["checkpoint", "transfer_size"] = str(ts)
    if ("checkpoint", "rename") in got:
        want["checkpoint", "rename"] = "on"
    if not ds:	# checkpoints only: a step per checkpoint
        want["train", "epochs"] = "1"
        want["train", "steps_per_epoch"] = str(len(ck))
        want["checkpoint", "steps_between_checkpoints"] = "1"
    if ep and ep % len(ck) == 0:
        want["checkpoint", "epochs_between_checkpoints"] = str(ep // len(ck))
    w = [f["path"] for f in a["files"] if f["write_bytes"] and f["path_known"]]
    ckdir = os.path.dirname(sorted(w, key=lambda p: -[f["write_bytes"] for f in a["files"] if f["path"] == p][0])[0])
# the folders under their common root
if dsdir and ckdir:
    root = os.path.commonpath([dsdir, ckdir])
    if root in (dsdir, ckdir):
        root = os.path.dirname(root)
else:
    root = os.path.dirname(dsdir or ckdir or "/")
if dsdir:
    want["dataset", "data_folder"] = os.path.relpath(dsdir, root)
if ckdir:
    want["checkpoint", "checkpoint_folder"] = os.path.relpath(ckdir, root)
bad = 0
for k in sorted(set(want) | set(got)):
    if want.get(k) != got.get(k):
        print("[%s] %s = %r, analyze says %r" % (k[0], k[1], got.get(k), want.get(k)))
        bad = 1
sys.exit(bad)
PY
	# every value says what it was measured from
	grep '^[a-z_]* = ' "$T/$t.ini" | grep -v '^format = ' | grep -qv ' ; ' &&
		fail "$t: a value without its comment"
done
want "$T/image_folder.ini" dataset num_files 800
want "$T/checkpoint.ini" dataset num_files 0

# -o: an existing file is refused (and kept) without -f
echo keep >"$T/exists.ini"
err_line 1 "iotape model: " "exists (use -f" "$IOTAPE" model "$TOP/traces/shards.iotape" -o "$T/exists.ini"
[ "$(cat "$T/exists.ini")" = keep ] || fail "-o without -f changed the file"
ok "$IOTAPE" model "$TOP/traces/shards.iotape" -o "$T/exists.ini" -f
want "$T/exists.ini" dataset num_files 128

# a truncated trace and garbage: one error line, exit 1, no file
head -c 3000 "$TOP/traces/image_folder.iotape" >"$T/trunc.iotape"
head -c 5000 /dev/urandom >"$T/garbage.iotape"
for b in trunc garbage; do
	err_line 1 "iotape model: " "$b.iotape" "$IOTAPE" model "$T/$b.iotape" -o "$T/$b.ini"
	[ -e "$T/$b.ini" ] && fail "$b: a job file was written"
done
err_line 2 "iotape model: " "one of --preset" "$IOTAPE" model "$TOP/traces/shards.iotape" -p unet3d
exit 0
