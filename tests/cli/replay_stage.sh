#!/bin/sh
# replay_stage.sh - staging: analyze's STAGING figures and replay
# --stage-hot's choice equal a hand computation on a trace of known reads;
# the files staged are prepared under FAST_DIR, the others under --dir, and
# nothing lands outside either; bad input stops with one line before
# anything is prepared.  (The time it buys: replay_stage_gain.sh.)
. "$TOP/tests/cli/lib.sh"
. "$TOP/tests/cli/replay_lib.sh"
need_uring

# Five files, no file table (an imported trace): each one's size is the
# end of its furthest read.  KiB:      size   read   read/size
#   /data/a.bin  4 reads of 64 at 0      64    256   4
#   /data/b.bin  3 reads of 40 at 0      40    120   3
#   /data/c.bin  3 reads of 8 at 0        8     24   3  (after b: path)
#   /data/d.bin  1 read of 16 at 0       16     16   1
#   /other/e.bin 1 read of 2 at 2         4      2   0.5
# all: 5 files, 132 KiB, 418 KiB read.
K=1024
awk -v hdr="$HDR" -v K=$K 'BEGIN { print hdr; ts = 1000
	n = split("/data/a.bin /data/b.bin /data/c.bin /data/d.bin /other/e.bin", p, " ")
	split("4 3 3 1 1", reads, " "); split("64 40 8 16 2", len, " "); split("0 0 0 0 2", off, " ")
	for (i = 1; i <= n; i++)
		for (r = 0; r < reads[i]; r++) {
			printf "%d,1,1,openat,%s,-1,0,0,3,10,0,\n", ts += 100, p[i]
			printf "%d,1,1,pread64,%s,3,%d,%d,%d,10,0,\n", ts += 100, p[i], off[i] * K, len[i] * K, len[i] * K
			printf "%d,1,1,close,%s,3,0,0,0,10,0,\n", ts += 100, p[i]
		}
}' >"$T/s.csv" || fail "awk"
ok "$IOTAPE" import -o "$T/s.tape" "$T/s.csv"

# analyze: the levels take files by bytes read (a 256, b 120, c 24, ...):
# 50% of 418 KiB = 209: a (64 KiB); 80% = 334.4: a, b (104 KiB, 376 read);
# 95% = 397.1: a, b, c (112 KiB, 400 read)
ok "$IOTAPE" analyze --json "$T/s.tape"
[ "$(jq_py "$T/out" "(d['staging']['files'], d['staging']['bytes'], d['staging']['read_bytes'], d['staging']['files_sized_by_reads'])")" = \
	"(5, $((132 * K)), $((418 * K)), 5)" ] || fail "staging totals: $(jq_py "$T/out" "d['staging']")"
[ "$(jq_py "$T/out" "[(l['fraction'], l['files'], l['bytes'], l['read_bytes']) for l in d['staging']['levels']]")" = \
	"[(0.5, 1, $((64 * K)), $((256 * K))), (0.8, 2, $((104 * K)), $((376 * K))), (0.95, 3, $((112 * K)), $((400 * K)))]" ] ||
	fail "staging levels: $(jq_py "$T/out" "d['staging']['levels']")"
[ "$(jq_py "$T/out" "' '.join(f['path'] for f in d['staging']['ranked'])")" = \
	"/data/a.bin /data/b.bin /data/c.bin /data/d.bin /other/e.bin" ] ||
	fail "staging rank: $(jq_py "$T/out" "d['staging']['ranked']")"
# the text: the same levels, and the ranked list with --per-file
ok "$IOTAPE" analyze --per-file "$T/s.tape"
grep -q '^  files read                 5, 132.0 KiB, 418.0 KiB read   (5 sized by their furthest read)$' "$T/out" ||
	fail "text: files read: $(grep 'files read' "$T/out")"
grep -q '^  80%                     2    104.0 KiB    376.0 KiB$' "$T/out" || fail "text: 80% level"
grep -q '^       0.500      2.0 KiB      4.0 KiB  /other/e.bin$' "$T/out" || fail "text: ranked e.bin"

# files SRC: in $T/ls.d/files, the regular files under SRC, relative, sorted
# (no marker), on one line; $T/ls.d is there before stage's snapshots of $T
mkdir "$T/ls.d" || fail "mkdir"
files() {
	(cd "$1" && find . -type f ! -name .iotape-replay) >"$T/ls.d/find" || fail "listing $1"
	sed 's|^\./||' "$T/ls.d/find" >"$T/ls.d/rel" || fail "sed"
	sort "$T/ls.d/rel" >"$T/ls.d/sorted" || fail "sort"
	tr '\n' ' ' <"$T/ls.d/sorted" >"$T/ls.d/files" || fail "tr"
}

# stage SIZE IN_FAST IN_DIR: --stage-hot with --stage-size SIZE puts
# exactly IN_FAST under FAST_DIR and IN_DIR under --dir, and nothing else
# appears in $T
stage() {
	rm -rf "$T/r" "$T/fast" "$T/rep.json"
	mkdir "$T/fast" || fail "mkdir"
	: >"$T/after"
	ls "$T" >"$T/before"
	ok "$IOTAPE" replay --timing afap --output-format json -o "$T/rep.json" -d "$T/r" \
		--stage-hot "$T/fast" --stage-size "$1" "$T/s.tape"
	files "$T/fast"
	[ "$(cat "$T/ls.d/files")" = "$2" ] || fail "$1: under FAST_DIR: $(cat "$T/ls.d/files")"
	files "$T/r"
	[ "$(cat "$T/ls.d/files")" = "$3" ] || fail "$1: under --dir: $(cat "$T/ls.d/files")"
	ls "$T" >"$T/after" || fail "ls $T"
	comm -13 "$T/before" "$T/after" >"$T/ls.d/new" || fail "comm"
	[ "$(tr '\n' ' ' <"$T/ls.d/new")" = "r rep.json " ] || fail "$1: new in $T: $(cat "$T/ls.d/new")"
	jq_py "$T/rep.json" "' '.join(f['path'] for f in d['staging']['staged'])" >"$T/staged"
}

# 100k: a (64, 36 left), b (40) passed over, c (8, 28 left), d (16, 12
# left), e (4, 8 left): 92 KiB, 256 + 24 + 16 + 2 = 298 KiB of 418 read
stage 100k "data/a.bin data/c.bin data/d.bin other/e.bin " "data/b.bin "
[ "$(cat "$T/staged")" = "data/a.bin data/c.bin data/d.bin other/e.bin" ] || fail "100k: staged $(cat "$T/staged")"
[ "$(jq_py "$T/rep.json" "(d['staging']['files'], d['staging']['bytes'], d['staging']['read_bytes'], d['staging']['stage_size'], round(d['staging']['read_fraction'], 6))")" = \
	"(4, $((92 * K)), $((298 * K)), $((100 * K)), $(awk 'BEGIN { printf "%.6f", 298 / 418 }'))" ] ||
	fail "100k: staging: $(jq_py "$T/rep.json" "d['staging']")"
[ "$(jq_py "$T/rep.json" "(d['staging']['files_read']['files'], d['staging']['files_read']['read_bytes'])")" = \
	"(5, $((418 * K)))" ] || fail "100k: files read: $(jq_py "$T/rep.json" "d['staging']['files_read']")"
# the replay read 298 KiB under FAST_DIR, b's 120 under --dir
[ "$(jq_py "$T/rep.json" "[(p['placement'], p['files'], p['read']['io_bytes']) for p in d['placements']]")" = \
	"[(0, 1, $((120 * K))), (1, 4, $((298 * K)))]" ] || fail "100k: placements: $(jq_py "$T/rep.json" "d['placements']")"
# 110k: a (46 left), b (6 left), c and d passed over, e (2 left)
stage 110k "data/a.bin data/b.bin other/e.bin " "data/c.bin data/d.bin "
# the exact sum of all: everything staged; one byte less: e passed over
stage 132k "data/a.bin data/b.bin data/c.bin data/d.bin other/e.bin " ""
stage $((132 * K - 1)) "data/a.bin data/b.bin data/c.bin data/d.bin " "other/e.bin "
# smaller than every file: none
stage 1k "" "data/a.bin data/b.bin data/c.bin data/d.bin other/e.bin "
[ "$(jq_py "$T/rep.json" "(d['staging']['files'], d['staging']['bytes'], d['staging']['staged'])")" = "(0, 0, [])" ] ||
	fail "1k: $(jq_py "$T/rep.json" "d['staging']")"

# the text: one line before the report; -v lists the files in rank order
rm -rf "$T/r" "$T/fast"/* "$T/fast/.iotape-replay"
ok "$IOTAPE" replay --timing afap -v -d "$T/r" --stage-hot "$T/fast" --stage-size 100k "$T/s.tape"
[ "$(sed -n 1p "$T/out")" = "Staging: 4 of 5 files read, 92.0 KiB of --stage-size 100.0 KiB, under $T/fast: 71.3% of the 418.0 KiB read (by bytes read per byte, iotape-analyze(1) STAGING)" ] ||
	fail "text: $(sed -n 1p "$T/out")"
grep '^  staged ' "$T/out" >"$T/staged.txt" || fail "-v: no staged lines: $(cat "$T/out")"
awk '{ print $2, $NF }' "$T/staged.txt" >"$T/list" || fail "awk"
printf '%s\n' "4.000 data/a.bin" "3.000 data/c.bin" "1.000 data/d.bin" "0.500 other/e.bin" | same - "$T/list" ||
	fail "-v list: $(cat "$T/list")"
grep -q "^Placement 1 ($T/fast): 4 files" "$T/out" || fail "text: no placement 1"

# bad input: one line, nothing prepared
: >"$T/plain"
rm -rf "$T/r" "$T/fast"/* "$T/fast/.iotape-replay"
err_line 2 "iotape replay:" "needs --stage-size" "$IOTAPE" replay -d "$T/r" --stage-hot "$T/fast" "$T/s.tape"
err_line 2 "iotape replay:" "is for --stage-hot" "$IOTAPE" replay -d "$T/r" --stage-size 1m "$T/s.tape"
err_line 2 "iotape replay:" "is for --stage-hot" "$IOTAPE" replay -d "$T/r" -v "$T/s.tape"
for bad in 0 12x -1 1.5 '' 1m2 1k0; do
	err_line 2 "iotape replay:" "--stage-size: '$bad' is not a size" "$IOTAPE" replay -d "$T/r" \
		--stage-hot "$T/fast" --stage-size "$bad" "$T/s.tape"
done
err_line 1 "iotape replay:" "--stage-hot $T/none: No such file or directory" "$IOTAPE" replay -d "$T/r" \
	--stage-hot "$T/none" --stage-size 1m "$T/s.tape"
err_line 1 "iotape replay:" "--stage-hot $T/plain: not a directory" "$IOTAPE" replay -d "$T/r" \
	--stage-hot "$T/plain" --stage-size 1m "$T/s.tape"
err_line 2 "iotape replay:" "--stage-hot and --place exclude each other" "$IOTAPE" replay -d "$T/r" \
	--stage-hot "$T/fast" --stage-size 1m --place "*.bin=$T/fast" "$T/s.tape"
err_line 2 "iotape replay:" "--stage-hot and --find-max exclude each other" "$IOTAPE" replay -d "$T/r" \
	--stage-hot "$T/fast" --stage-size 1m --find-max "$T/s.tape"
err_line 2 "iotape replay:" "--stage-hot and -n above 1 exclude each other" "$IOTAPE" replay -d "$T/r" \
	--stage-hot "$T/fast" --stage-size 1m -n 2 "$T/s.tape"
err_line 2 "iotape replay:" "--stage-hot and --scale-dataset exclude each other" "$IOTAPE" replay \
	-d "$T/r" --stage-hot "$T/fast" --stage-size 1m --scale-dataset 2 "$T/s.tape"
printf '[job]\nformat = 1\n[dataset]\ndata_folder = data\nnum_files = 2\nrecord_length = 4096\n[reader]\nread_threads = 1\nbatch_size = 1\n[train]\nepochs = 1\ncomputation_time = 0\n' >"$T/job.ini"
err_line 2 "iotape replay:" "the job file $T/job.ini has none" "$IOTAPE" replay -d "$T/r" \
	--stage-hot "$T/fast" --stage-size 1m "$T/job.ini"
[ ! -e "$T/r" ] || fail "a refused --stage-hot prepared --dir: $(find "$T/r")"
[ -z "$(ls -A "$T/fast")" ] || fail "a refused --stage-hot wrote under FAST_DIR"
exit 0
