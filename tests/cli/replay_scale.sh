#!/bin/sh
# replay_scale.sh - --scale-dataset K: K copies of the read-only files.
#
# Copy 0 is the trace's own layout, copy k (1..K-1) lives under
# DIR/.iotape-copy-k/; loop l reads copy l % K and --loops defaults to K,
# so each copy is read exactly once (K epochs over a dataset K times the
# recorded one).  Files the trace writes, creates, renames or unlinks are
# not copied, and every loop uses the one copy of them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# two readers over their own files, a writer, a temporary file
job_csv "$T/s.csv"
ok "$IOTAPE" import -o "$T/s.tape" "$T/s.csv"
per=$((2 * 50 * 8192))	# dataset bytes read per loop (tmp.bin is not dataset)

ok "$IOTAPE" replay --timing afap --scale-dataset 3 --output-format json -o "$T/r.json" -d "$T/d" "$T/s.tape"
r() { jq_py "$T/r.json" "d['replay']$1"; }
[ "$(r "['loops']")" = 3 ] || fail "--loops did not default to K"
[ "$(r "['scale_dataset']")" = 3 ] || fail "scale_dataset not reported"
[ "$(r "['dataset_bytes']")" = $per ] || fail "dataset_bytes $(r "['dataset_bytes']"), want $per"
[ "$(r "['copy_read_bytes']")" = "[$per, $per, $per]" ] || fail "bytes per copy $(r "['copy_read_bytes']")"
[ "$(r "['ops_failed']")" = 0 ] || fail "failed ops: $(r "['ops_failed']")"
[ "$(r "['ops_done']['unlink']")" = 3 ] || fail "unlink per loop"
for k in 1 2; do
	for t in 0 1; do
		[ "$(stat -c %s "$T/d/.iotape-copy-$k/data/s$t.bin")" = 409600 ] || fail "copy $k of s$t.bin"
	done
	[ ! -e "$T/d/.iotape-copy-$k/data/tmp.bin" ] && [ ! -e "$T/d/.iotape-copy-$k/out" ] ||
		fail "copy $k has files the trace modifies"
done
[ ! -e "$T/d/.iotape-copy-3" ] || fail "a fourth copy"
cmp -s "$T/d/data/s0.bin" "$T/d/.iotape-copy-1/data/s0.bin" && fail "copies have the same data"

# loops 4 over 2 copies: each copy twice; text report lists the copies
ok "$IOTAPE" replay --timing afap --scale-dataset 2 --loops 4 --output-format json -o "$T/r2.json" -d "$T/d" "$T/s.tape"
[ "$(jq_py "$T/r2.json" "d['replay']['copy_read_bytes']")" = "[$((2 * per)), $((2 * per))]" ] ||
	fail "2 copies x 4 loops: $(jq_py "$T/r2.json" "d['replay']['copy_read_bytes']")"
ok "$IOTAPE" replay --timing afap --scale-dataset 2 -d "$T/d" "$T/s.tape"
grep -q '^  dataset x2 (800.0 KiB read per copy per loop), read per copy: 800.0 KiB 800.0 KiB$' "$T/out" ||
	fail "text report: $(grep dataset "$T/out")"

# a trace path under a copy directory is refused
printf '%s\n1000,1,1,openat,/.iotape-copy-1/x,-1,0,0,3,10,0,\n' "$HDR" >"$T/bad.csv"
ok "$IOTAPE" import -o "$T/bad.tape" "$T/bad.csv"
err_line 1 "iotape replay: " "names no file under DIR" "$IOTAPE" replay -d "$T/b" "$T/bad.tape"
err_line 2 "iotape replay: " "--scale-dataset: '0' is not a number" "$IOTAPE" replay --scale-dataset 0 -d "$T/b" "$T/s.tape"
exit 0
