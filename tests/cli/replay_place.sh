#!/bin/sh
# replay_place.sh - --place GLOB=DIR: the files GLOB matches are prepared and
# replayed under DIR, the others under --dir, and nothing lands outside
# either; bad --place arguments stop with one line before anything is
# prepared; the report splits the I/O per placement.
. "$TOP/tests/cli/lib.sh"
. "$TOP/tests/cli/replay_lib.sh"
need_uring

# a data set of two files (one named like a checkpoint), a checkpoint
# directory the job makes, a checkpoint and a log written in it
cat >"$T/d.csv" <<CSV
$HDR
1000,1,1,openat,/data/a.bin,-1,0,0,3,10,0x0,
2000,1,1,read,/data/a.bin,3,0,65536,65536,10,0x0,
3000,1,1,close,/data/a.bin,3,0,0,0,10,0x0,
4000,1,1,openat,/data/b.pt,-1,0,0,3,10,0x0,
5000,1,1,read,/data/b.pt,3,0,8192,8192,10,0x0,
6000,1,1,close,/data/b.pt,3,0,0,0,10,0x0,
7000,1,1,mkdir,/ckpt,-1,0,0,0,10,0x1ed,
8000,1,1,openat,/ckpt/m.pt,-1,0,0,3,10,0x241,
9000,1,1,write,/ckpt/m.pt,3,0,16384,16384,10,0x0,
10000,1,1,close,/ckpt/m.pt,3,0,0,0,10,0x0,
11000,1,1,openat,/ckpt/log.txt,-1,0,0,3,10,0x241,
12000,1,1,write,/ckpt/log.txt,3,0,100,100,10,0x0,
13000,1,1,close,/ckpt/log.txt,3,0,0,0,10,0x0,
CSV
ok "$IOTAPE" import -o "$T/d.tape" "$T/d.csv"

# files SRC: the regular files under SRC, relative, sorted (no marker)
files() {
	(cd "$1" && find . -type f ! -name .iotape-replay | sed 's|^\./||' | sort) ||
		fail "listing $1"
}

# bad input: one line, nothing prepared
mkdir "$T/fast" || fail "mkdir"
: >"$T/plain"
err_line 2 "iotape replay:" "is not GLOB=DIR" "$IOTAPE" replay -d "$T/r" --place '*.pt' "$T/d.tape"
err_line 2 "iotape replay:" "is not GLOB=DIR" "$IOTAPE" replay -d "$T/r" --place '=x' "$T/d.tape"
err_line 1 "iotape replay:" "No such file or directory" "$IOTAPE" replay -d "$T/r" \
	--place "*.pt=$T/none" "$T/d.tape"
err_line 1 "iotape replay:" "not a directory" "$IOTAPE" replay -d "$T/r" \
	--place "*.pt=$T/plain" "$T/d.tape"
[ ! -e "$T/r" ] || fail "a refused --place prepared --dir: $(find "$T/r")"
[ -z "$(ls -A "$T/fast")" ] || fail "a refused --place wrote under DIR"

# '*.pt' (no '/': on the base name) wherever the file is
ok "$IOTAPE" replay --timing afap --output-format json -d "$T/r" --place "*.pt=$T/fast" "$T/d.tape"
[ "$(files "$T/fast" | tr '\n' ' ')" = "ckpt/m.pt data/b.pt " ] ||
	fail "under the placement: $(files "$T/fast")"
[ "$(files "$T/r" | tr '\n' ' ')" = "ckpt/log.txt data/a.bin " ] ||
	fail "under --dir: $(files "$T/r")"
[ -d "$T/r/ckpt" ] || fail "the job's mkdir of ckpt did not happen under --dir"
# the report: placement 1 read data/b.pt and wrote ckpt/m.pt
[ "$(jq_py "$T/out" "[(p['placement'], p['files'], p['read']['io_bytes'], p['write']['io_bytes']) for p in d['placements']]")" = \
	"[(0, 2, 65536, 100), (1, 2, 8192, 16384)]" ] || fail "placements: $(jq_py "$T/out" "d['placements']")"
[ "$(jq_py "$T/out" "d['placements'][1]['dir']")" = "$T/fast" ] || fail "placement dir"
# the text report too
ok "$IOTAPE" replay --timing afap -d "$T/r" --place "*.pt=$T/fast" "$T/d.tape"
grep -q "^Placement 1 ($T/fast): 2 files" "$T/out" || fail "text report: $(cat "$T/out")"

# a glob with a '/' is on the whole path: only ckpt/'s checkpoint
rm -rf "$T/r" "$T/fast"/* "$T/fast/.iotape-replay"
ok "$IOTAPE" replay --timing afap -d "$T/r" --place "ckpt/*.pt=$T/fast" "$T/d.tape"
[ "$(files "$T/fast" | tr '\n' ' ')" = "ckpt/m.pt " ] || fail "ckpt/*.pt: $(files "$T/fast")"
[ "$(files "$T/r" | tr '\n' ' ')" = "ckpt/log.txt data/a.bin data/b.pt " ] ||
	fail "ckpt/*.pt, --dir: $(files "$T/r")"

# a glob written as the path was recorded ('/' first) is the same glob
rm -rf "$T/r" "$T/fast"/* "$T/fast/.iotape-replay"
ok "$IOTAPE" replay --timing afap -d "$T/r" --place "/ckpt/*.pt=$T/fast" "$T/d.tape"
[ "$(files "$T/fast" | tr '\n' ' ')" = "ckpt/m.pt " ] || fail "/ckpt/*.pt: $(files "$T/fast")"
rm -rf "$T/r" "$T/fast"/* "$T/fast/.iotape-replay"
ok "$IOTAPE" replay --timing afap --output-format json -d "$T/r" --place "/ckpt/*=$T/fast" "$T/d.tape"
[ "$(files "$T/fast" | tr '\n' ' ')" = "ckpt/log.txt ckpt/m.pt " ] || fail "/ckpt/*: $(files "$T/fast")"
[ "$(jq_py "$T/out" "[p['files'] for p in d['placements']]")" = "[2, 2]" ] ||
	fail "/ckpt/*: placements $(jq_py "$T/out" "d['placements']")"
# a --place that places nothing: one warning line each, and the replay
# goes on (a glob that matches no path; one whose files an earlier took)
rm -rf "$T/r" "$T/fast"/* "$T/fast/.iotape-replay"
mkdir "$T/fb" "$T/fc" || fail "mkdir"
run "$IOTAPE" replay --timing afap -d "$T/r" --place "*.pt=$T/fast" --place "/nope/*=$T/fb" \
	--place "ckpt/m.pt=$T/fc" "$T/d.tape"
[ "$rc" = 0 ] || fail "placements that place nothing: exit $rc: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" = 2 ] || fail "placements that place nothing: $(cat "$T/err")"
head -n 1 "$T/err" | grep -qxF "iotape replay: warning: --place /nope/*=$T/fb matches no file of the trace (a path as recorded: /data/a.bin)" ||
	fail "no-match warning: $(cat "$T/err")"
tail -n 1 "$T/err" | grep -qxF "iotape replay: warning: --place ckpt/m.pt=$T/fc places no file: those it matches are placed by an earlier --place" ||
	fail "taken warning: $(cat "$T/err")"
[ "$(files "$T/fast" | tr '\n' ' ')" = "ckpt/m.pt data/b.pt " ] || fail "with warnings: $(files "$T/fast")"
[ -z "$(files "$T/fb")$(files "$T/fc")" ] || fail "files under the empty placements"

# the bundled checkpoint trace: every .pt under the placement, none under --dir
rm -rf "$T/r"
mkdir "$T/fast2" || fail "mkdir"
ok "$IOTAPE" replay --timing afap --output-format json -d "$T/r" --place "*.pt=$T/fast2" \
	"$TOP/traces/checkpoint.iotape"
files "$T/r" >"$T/in_dir"
files "$T/fast2" >"$T/in_fast"
[ -s "$T/in_fast" ] || fail "no checkpoint file under the placement"
! grep -q '\.pt$' "$T/in_dir" || fail ".pt files under --dir: $(grep '\.pt$' "$T/in_dir")"
! grep -qv '\.pt$' "$T/in_fast" || fail "other files under the placement: $(grep -v '\.pt$' "$T/in_fast")"
# what is there is what the layout names (files the job unlinked or renamed
# away excepted), each under the one DIR its name says
jq_py "$T/out" "'\n'.join(sorted(f['path'] for f in d['replay']['files']))" >"$T/layout"
cat "$T/in_dir" "$T/in_fast" | sort >"$T/both"
extra=$(comm -23 "$T/both" "$T/layout")
[ -z "$extra" ] || fail "files outside the layout: $extra"
[ "$(jq_py "$T/out" "len(d['placements'])")" = 2 ] || fail "placements in the report"
# the job writes ckpt_N.pt.tmp and renames it to ckpt_N.pt: with '*.pt' the
# rename moves each into the placement (the same file system here); with
# '*.pt*' the writes themselves go there, all of them
rm -rf "$T/r" "$T/fast2"/* "$T/fast2/.iotape-replay"
ok "$IOTAPE" replay --timing afap --output-format json -d "$T/r" --place "*.pt*=$T/fast2" \
	"$TOP/traces/checkpoint.iotape"
want=$(jq_py "$T/out" "sum(f['replayed_bytes'] for f in d['replay']['files'] if '.pt' in f['path'])")
[ "$want" -gt 0 ] || fail "no checkpoint bytes in the trace"
got=$(jq_py "$T/out" "d['placements'][1]['write']['io_bytes'] + d['placements'][1]['read']['io_bytes']")
[ "$got" = "$want" ] || fail "placement 1 moved $got bytes, not $want"
files "$T/r" >"$T/ls.r"
! grep -q '\.pt' "$T/ls.r" || fail "checkpoint files under --dir"

# a job file's paths are placed the same way: its checkpoints under ck/
cat >"$T/job.ini" <<'INI'
[job]
format = 1
[dataset]
data_folder = data
num_files = 8
record_length = 3000
[reader]
read_threads = 1
batch_size = 2
[train]
epochs = 1
computation_time = 0
[checkpoint]
checkpoint_folder = ck
epochs_between_checkpoints = 1
size = 64k
files = 2
INI
mkdir "$T/fast3" || fail "mkdir"
ok "$IOTAPE" replay --timing afap --output-format json -d "$T/j" --place "ck/*=$T/fast3" "$T/job.ini"
[ -n "$(files "$T/fast3")" ] || fail "no checkpoint of the job file under the placement"
files "$T/fast3" >"$T/ls.fast3"
files "$T/j" >"$T/ls.j"
! grep -qv '^ck/' "$T/ls.fast3" || fail "job file: not only ck/ placed: $(cat "$T/ls.fast3")"
! grep -q '^ck/' "$T/ls.j" || fail "job file: ck/ under --dir: $(cat "$T/ls.j")"
[ "$(jq_py "$T/out" "(d['placements'][0]['write']['io_bytes'], d['placements'][1]['read']['io_bytes'], d['placements'][1]['write']['io_bytes'] > 0)")" = \
	"(0, 0, True)" ] || fail "job file placements: $(jq_py "$T/out" "d['placements']")"
exit 0
