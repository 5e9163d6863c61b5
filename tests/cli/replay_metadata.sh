#!/bin/sh
# replay_metadata.sh - metadata is part of the workload (issue #15, item 5).
#
# A job stats files by path (one there, one missing, one in a directory
# that is missing, one that failed when recorded but is there in the
# replay), checks access to one (R_OK|X_OK) and to a missing one, reads a
# link that is not one (EINVAL) and one that is, fstats an fd, lists a
# directory with getdents64 and reads, and deletes a prepared file.  Its
# replay, recorded, must issue exactly those statx, faccessat, readlinkat
# and getdents64 calls under DIR, on the same paths, failing where the
# job's failed (but the readlink of a real link: prepare makes no links,
# it is skipped); its report counts them per kind (and the one that did
# not fail again as metadata_unlike); --no-metadata leaves them all out.
# A replay right after prepare restores nothing (no stat of its own); the
# next one, into the DIR the first changed, puts the deleted file back.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring

cat >"$T/j.csv" <<EOT
$HDR
1000,1,1,newfstatat,/data/a,-100,0,0,0,10,0x100,
2000,1,1,newfstatat,/data/missing,-100,0,0,-2,10,0,
3000,1,1,statx,/nodir/x,-100,0,0,-2,10,0,
4000,1,1,newstat,/data/b,-100,0,0,-2,10,0,
4100,1,1,access,/data/a,-1,0,0,0,10,0x5,
4200,1,1,faccessat,/data/none,-100,0,0,-2,10,0x4,
4300,1,1,readlink,/data/a,-1,0,64,-22,10,0,
4400,1,1,readlink,/data/link,-1,0,64,10,10,0,
5000,1,1,openat,/data,-100,0,0,3,10,0x10000,
6000,1,1,getdents64,/data,3,0,32768,120,10,0,
7000,1,1,getdents64,/data,3,0,32768,0,10,0,
8000,1,1,close,/data,3,0,0,0,10,0,
9000,1,1,openat,/data/a,-100,0,0,4,10,0,
10000,1,1,newfstat,/data/a,4,0,0,0,10,0,
11000,1,1,read,/data/a,4,0,4096,4096,10,0,
12000,1,1,close,/data/a,4,0,0,0,10,0,
13000,1,1,openat,/data/b,-100,0,0,5,10,0,
14000,1,1,pread64,/data/b,5,8192,4096,4096,10,0,
15000,1,1,close,/data/b,5,0,0,0,10,0,
16000,1,1,unlink,/data/b,-1,0,0,0,10,0,
EOT
ok "$IOTAPE" import -o "$T/j.tape" "$T/j.csv"

# recorded replay: the statx and getdents64 rows under DIR, as "op path ret"
rec_replay() {	# NAME [replay options]
	name=$1; shift
	"$IOTAPE" record -q -f -o "$T/$name.tape" -- "$IOTAPE" replay --no-prepare --timing afap \
		--output-format json -o "$T/$name.json" "$@" -d "$T/d" "$T/j.tape" 2>"$T/rec.err" ||
		fail "record of the replay failed: $(cat "$T/rec.err")"
	ok "$IOTAPE" dump -t syscall -F csv -o "$T/$name.csv" "$T/$name.tape"
	awk -F, -v d="$T/d/" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		index($c["path"], d) == 1 && $c["op"] ~ /stat|getdents|access|readlink/ &&
		    $c["path"] != d ".iotape-replay" {
			print $c["op"], substr($c["path"], length(d) + 1), $c["ret"] }' \
		"$T/$name.csv" >"$T/$name.meta"
}

ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/j.tape"
[ "$(stat -c %s "$T/d/data/b")" = 12288 ] || fail "data/b not prepared with its size"
rec_replay r1
cat >"$T/want" <<'EOT'
statx data/a 0
statx data/missing -2
statx nodir/x -2
statx data/b 0
faccessat data/a 0
faccessat data/none -2
readlinkat data/a -22
getdents64 data 120
getdents64 data 0
statx data/a 0
EOT
# getdents64 returns what the replay's DIR holds: only its count is the job's
sed 's/^\(getdents64 data\) [1-9][0-9]*$/\1 120/' "$T/r1.meta" >"$T/r1.got" || fail "sed"
same "$T/want" "$T/r1.got"
r() { jq_py "$T/$1.json" "d['replay']$2"; }
[ "$(r r1 "['ops_done']['stat']")" = 5 ] || fail "stat done: $(r r1 "['ops_done']")"
[ "$(r r1 "['ops_expected']['stat']")" = 5 ] || fail "stat expected: $(r r1 "['ops_expected']")"
[ "$(r r1 "['ops_done']['getdents']")" = 2 ] || fail "getdents done: $(r r1 "['ops_done']")"
[ "$(r r1 "['ops_done']['access']")" = 2 ] || fail "access done: $(r r1 "['ops_done']")"
[ "$(r r1 "['ops_done']['readlink']")" = 1 ] || fail "readlink done: $(r r1 "['ops_done']")"
[ "$(r r1 "['recorded_skipped']")" = 1 ] || fail "skipped (the readlink of a link): $(r r1 "['recorded_skipped']")"
[ "$(r r1 "['metadata_unlike']")" = 1 ] || fail "metadata_unlike: $(r r1 "['metadata_unlike']")"
[ "$(r r1 "['ops_failed']")" = 0 ] || fail "failed: $(r r1 "['failed']")"
[ ! -e "$T/d/data/b" ] || fail "data/b not deleted as the job did"
# the fidelity check of the metadata ops
ok "$IOTAPE" compare --map "$T/d" --json "$T/j.tape" "$T/r1.tape"
[ "$(jq_py "$T/out" "[c['ok'] for c in d['fidelity']['checks'] if c['name'] == 'metadata_ops']")" = "[True]" ] ||
	fail "metadata_ops: $(jq_py "$T/out" "d['summary']['metadata_ops']")"

# the DIR the first replay changed: data/b is put back before the clock
# starts (written under prepare's temporary name and renamed to data/b,
# not the job's ops), and read again
rec_replay r2
[ "$(r r2 "['ops_failed']")" = 0 ] || fail "second replay: failed: $(r r2 "['failed']")"
sed 's/^\(getdents64 data\) [1-9][0-9]*$/\1 120/' "$T/r2.meta" >"$T/r2.s" || fail "sed"
grep -Ev '^newfstat(at)? data/b 0$' "$T/r2.s" >"$T/r2.got"
same "$T/want" "$T/r2.got"
grep -c ",renameat2\?,$T/d/data/.iotape-prep,.*,$T/d/data/b," "$T/r2.csv" >"$T/n" ||
	fail "second replay: no restore of data/b: $(grep rename "$T/r2.csv")"
[ "$(cat "$T/n")" = 1 ] || fail "second replay: $(cat "$T/n") restores of data/b"
[ "$(stat -c %s "$T/d/data/a")" = 4096 ] || fail "data/a size"

# --no-metadata: none of them, counted as skipped
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/j.tape"
rec_replay r3 --no-metadata
[ ! -s "$T/r3.meta" ] || fail "--no-metadata: $(cat "$T/r3.meta")"
[ "$(r r3 "['ops_expected']['stat']")" = 0 ] || fail "--no-metadata: $(r r3 "['ops_expected']")"
[ "$(r r3 "['recorded_skipped']")" = 11 ] || fail "--no-metadata skipped: $(r r3 "['recorded_skipped']")"
exit 0
