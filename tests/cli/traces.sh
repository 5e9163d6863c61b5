#!/bin/sh
# SPDX-License-Identifier: MIT
# traces.sh - the committed traces (traces/*.iotape) still read, are whole,
# lost nothing, and still say what their job did.
#
# Every trace: `iotape info --json` works, lost_events is 0, nothing was
# recovered or damaged; `iotape analyze --json` works with no warnings.
# Then, per workload of traces/workloads/ (see traces/README.md), the
# high-level facts of the job as the analysis must show them:
#   image_folder  the data set: the 800 JPEGs (read again, under
#                 /tmp/wl1/images), 2 epochs of 800 files each; each JPEG
#                 visited twice, shuffled (file order 0.990); epoch 1
#                 starts with its first JPEG (5.40 s); data set hit ratio
#                 0.5 (each page missed once, hit once); 2 checkpoints of
#                 >= 8 MiB, written whole; 4 DataLoader workers read
#   memmap        the data set: features.npy and labels.npy (/tmp/wl2);
#                 features.npy: all 16,385 pages missed once and reached
#                 through the mapping (fault and map_pages events), almost
#                 nothing of it by read(); so epochs.count and the file
#                 order are null (the reads cannot count its epochs) and
#                 "unavailable" says why
#   shards        the data set: the 128 tar shards (/tmp/wl3), 2 epochs of
#                 128 files, file order 0.962; each shard read whole,
#                 twice, front to back (read_randomness 0) in 1 MiB reads;
#                 each page accessed twice, missed once (hit ratio 0.5)
#   checkpoint    no data set (no file read but code and system files);
#                 6 checkpoints of >= 80 MiB, each written whole with its
#                 fsync, and the bytes reached the disk
# and in every trace no code or system file (.py, .pyc, .so, site- and
# dist-packages, locale, ld.so.cache, /proc, /sys, /dev, /usr) is data.
# Reads committed files only: no root, no BPF, a few seconds.
. "$(dirname "$0")/lib.sh"
PY=${PY:-/usr/bin/python3}
[ -x "$PY" ] || skip "no $PY"
n=0 nbad=0
for tr in "$TOP"/traces/*.iotape; do
	[ -f "$tr" ] || continue
	n=$((n + 1))
	name=$(basename "$tr" .iotape)
	ok "$IOTAPE" info --json "$tr"
	cp "$T/out" "$T/$name.info.json"
	ok "$IOTAPE" analyze --json "$tr"
	cp "$T/out" "$T/$name.json"
	if [ "$name" = memmap ]; then
		# cache events on features.npy by kind (the analysis counts pages, not faults)
		"$IOTAPE" dump -t cache "$tr" >"$T/cache.txt" || fail "$name: dump -t cache failed"
		fid=$("$PY" -c 'import json, sys
print(next((f["file_id"] for f in json.load(open(sys.argv[1]))["files"]
            if f["path"].endswith("/features.npy")), "none"))' "$T/$name.json")
		grep " file_id=$fid " "$T/cache.txt" | sed -n 's/.* kind=\([a-z_]*\) .*/\1/p' |
			sort | uniq -c >"$T/$name.kinds"
	fi
	"$PY" - "$name" "$T/$name.info.json" "$T/$name.json" "$T/$name.kinds" <<'EOF' || { nbad=$((nbad + 1)); continue; }
import json, os, re, sys
name, info, ana, kinds = sys.argv[1:5]
i = json.load(open(info))
j = json.load(open(ana))
bad = []

def check(what, cond):
    if not cond:
        bad.append(what)

MiB = 1 << 20
check("lost_events 0 (got %s)" % i["lost_events"], i["lost_events"] == 0)
check("events > 0", i["events"] > 0)
check("not recovered (%s)" % i["recovered"], i["recovered"] is None)
check("no damaged metadata", i["damaged_meta_chunks"] == 0 and i["unknown_blocks"] == 0)
check("analyze warnings %s" % j["warnings"], j["warnings"] == [])
for t in ("syscall", "cache", "block", "process", "file", "sample"):
    check("table %s recorded" % t, i["tables"].get(t, {}).get("events", 0) > 0)
files = j["files"]
ep, ck, ds = j["epochs"], j["checkpoints"], j["dataset"]
code = re.compile(r"(\.py|\.pyc|\.so(\.[0-9.]+)?)$|/(site|dist)-packages/|/locale/|"
                  r"ld\.so\.cache|^/(proc|sys|dev|usr|etc|lib)/")
bad_ds = [f["path"] for f in files if f["dataset"] and code.search(f["path"])]
check("no code or system file in the data set (%s)" % bad_ds[:3], not bad_ds)

def near(x, want):
    return x is not None and abs(x - want) < 0.0005

if name == "image_folder":
    jpg = [f for f in files if "/images/class_" in f["path"] and f["path"].endswith(".jpg")]
    check("800 JPEGs in files[] (got %d)" % len(jpg), len(jpg) == 800)
    check("every JPEG visited twice", all(f["visits"] == 2 for f in jpg))
    check("data set: the 800 JPEGs (%s files, %s)" % (ds["files"], ds["directory"]),
          ds["files"] == 800 and all(f["dataset"] for f in jpg) and
          ds["rule"] == "read_again" and ds["directory"] == "/tmp/wl1/images")
    check("epochs.count 2 (got %s)" % ep["count"], ep["count"] == 2 and ds["epochs"] == 2)
    check("epochs of 800 files (%s)" % [e["files"] for e in ep["epochs"]],
          [e["files"] for e in ep["epochs"]] == [800, 800])
    check("data set file order 0.990 (%s)" % ds["pattern"]["file_order_randomness"],
          near(ds["pattern"]["file_order_randomness"], 0.990) and
          j["pattern"]["file_order_randomness"] == ds["pattern"]["file_order_randomness"])
    check("data set hit ratio 0.5 (%s)" % ds["cache"]["hit_ratio"], ds["cache"]["hit_ratio"] == 0.5)
    check("epoch 1 shuffled (file_order_randomness %s)" % ep["epochs"][-1]["file_order_randomness"],
          (ep["epochs"][-1]["file_order_randomness"] or 0) > 0.5)
    # its first JPEG read (5.40 s), not the start-up files read twice (0.03 s)
    check("epoch 1 starts at 5.40 s (got %s)" % ep["epochs"][1]["start_s"],
          abs(ep["epochs"][1]["start_s"] - 5.4019) < 0.001)
    check("2 checkpoints (got %s)" % ck["count"], ck["count"] == 2)
    check("checkpoints of >= 8 MiB, written whole",
          all(c["bytes"] >= 8 * MiB and c["whole_files"] for c in ck["checkpoints"]))
    readers = [p for p in j["processes"] if p["read_bytes"] > 0]
    check(">= 5 processes read (main + 2 workers x 2 epochs; got %d)" % len(readers),
          len(readers) >= 5)
    check("page cache missed (caches were dropped)", (j["cache"]["pages_missed"] or 0) > 0)
elif name == "memmap":
    f = next((f for f in files if f["path"].endswith("/features.npy")), None)
    if f is None:
        print("FAIL: %s: no features.npy in files[]" % name)
        sys.exit(1)
    pages = (f["size"] + 4095) // 4096
    check("features.npy: every page missed once (%s of %d)" % (f["pages_missed"], pages),
          f["pages_missed"] == pages)
    check("features.npy: pages reached at least twice (2 epochs; %s)" % f["pages_accessed"],
          f["pages_accessed"] >= 2 * pages)
    check("features.npy: hit ratio between 0.5 and 1 (%s)" % f["hit_ratio"],
          f["hit_ratio"] is not None and 0.5 <= f["hit_ratio"] < 1)
    check("features.npy: < 1 MiB of it by read() (%d)" % f["read_bytes"], f["read_bytes"] < MiB)
    # reads see one pass of start-up files: the count is null, with the reason
    un = [u for u in j["unavailable"] if u["metric"] == "epochs.count"]
    check("epochs.count null, read through mmap (%s, %s)" % (ep["count"], un),
          ep["count"] is None and un and "features.npy" in un[0]["reason"])
    check("data set: features.npy and labels.npy (%s)" % [f["path"] for f in files if f["dataset"]],
          sorted(os.path.basename(f["path"]) for f in files if f["dataset"]) ==
          ["features.npy", "labels.npy"] and ds["directory"] == "/tmp/wl2")
    check("data set epochs and file order null (%s, %s)" % (ds["epochs"], ds["pattern"]["file_order_randomness"]),
          ds["epochs"] is None and ds["pattern"]["file_order_randomness"] is None)
    k = {}
    for line in open(kinds):
        c, kind = line.split()
        k[kind] = int(c)
    check("features.npy: fault events (%s)" % k, k.get("fault", 0) > 0)
    check("features.npy: map_pages events (%s)" % k, k.get("map_pages", 0) > 0)
    check("features.npy: insert events (%s)" % k, k.get("insert", 0) > 0)
elif name == "shards":
    sh = [f for f in files if "/shard_" in f["path"] and f["path"].endswith(".tar")]
    check("128 shards in files[] (got %d)" % len(sh), len(sh) == 128)
    check("every shard visited twice", all(f["visits"] == 2 for f in sh))
    check("every shard read whole twice", all(f["read_bytes"] == 2 * f["size"] for f in sh))
    check("every shard read front to back (read_randomness 0)",
          all(f["read_randomness"] == 0 for f in sh))
    # read twice after drop_caches: each page accessed twice (not the pages
    # past the end that the last read() asked for) and missed once
    pages = [(f["size"] + 4095) // 4096 for f in sh]
    check("every shard: pages accessed = 2 x its pages",
          all(f["pages_accessed"] == 2 * p for f, p in zip(sh, pages)))
    check(">= 120 shards: hit ratio 0.5 (each page missed once)",
          sum(f["pages_missed"] == p and f["hit_ratio"] == 0.5 for f, p in zip(sh, pages)) >= 120)
    check("epochs.count 2 (got %s)" % ep["count"], ep["count"] == 2)
    check("data set: the 128 shards (%s files, %s)" % (ds["files"], ds["directory"]),
          ds["files"] == 128 and all(f["dataset"] for f in sh) and ds["directory"] == "/tmp/wl3")
    check("epochs of 128 files (%s)" % [e["files"] for e in ep["epochs"]],
          [e["files"] for e in ep["epochs"]] == [128, 128])
    check("data set file order 0.962 (%s)" % ds["pattern"]["file_order_randomness"],
          near(ds["pattern"]["file_order_randomness"], 0.962))
    check("data set read randomness 0 (%s)" % ds["pattern"]["read_randomness"],
          ds["pattern"]["read_randomness"] == 0.0)
    check("epoch 1 starts at 16.66 s, after epoch 0's shards (got %s)" % ep["epochs"][1]["start_s"],
          abs(ep["epochs"][1]["start_s"] - 16.6636) < 0.001)
    mib = [b for b in j["pattern"]["request_size_histogram"] if b["min"] == MiB]
    check(">= 512 reads of 1 MiB (2 per shard and epoch)", mib and mib[0]["reads"] >= 512)
    readers = [p for p in j["processes"] if p["read_bytes"] >= 32 * MiB]
    check("8 workers (4 per epoch) read >= 32 MiB each (got %d)" % len(readers), len(readers) == 8)
elif name == "checkpoint":
    check("6 checkpoints (got %s)" % ck["count"], ck["count"] == 6)
    check("checkpoints of >= 80 MiB, one file, fsynced, written whole",
          all(c["bytes"] >= 80 * MiB and c["files"] == 1 and c["fsyncs"] >= 1 and c["whole_files"]
              for c in ck["checkpoints"]))
    check("no data set (%s), no epochs (%s)" % (ds, ep["count"]), ds is None and ep["count"] is None)
    check("6 x >= 80 MiB written", j["summary"]["write_bytes"] >= 6 * 80 * MiB)
    check("the disk saw the writes (block write_bytes %s)" % j["block"]["write_bytes"],
          (j["block"]["write_bytes"] or 0) >= 6 * 80 * MiB)
else:
    print("%s: no workload-specific checks (add them to tests/cli/traces.sh)" % name)
for b in bad:
    print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
EOF
	echo "ok: $name ($(wc -c <"$tr") bytes)"
done
[ "$n" -ge 4 ] || fail "only $n traces in $TOP/traces"
[ "$nbad" -eq 0 ] || fail "$nbad of $n traces do not show what their job did"
