#!/bin/sh
# replay_meta_ops.sh - the replay adds no metadata ops of its own (issue
# #15, items 4 and 7).
#
# A job makes 2 directories, creates 200 files in them and in 2 directories
# that were there before it, renames 20 and unlinks 40.  Recorded, its
# replay must make exactly the job's 2 mkdirs (before: a mkdirat, failing
# EEXIST, and an openat2 of the parent before every create), open each
# directory at most once (O_PATH, kept: at most one openat2 per directory,
# not one per create, unlink or rename), and create, rename and unlink
# through those fds.  A second loop finds the 2 directories there: reported
# as "existed", not hidden.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring

creat=$(python3 -c 'import os; print(hex(os.O_WRONLY | os.O_CREAT | os.O_TRUNC))')
awk -v hdr="$HDR" -v cr="$creat" 'BEGIN { print hdr; t = 1000
	print "1000,1,1,mkdir,/out/new1,-1,0,0,0,10,0,"
	print "1010,1,1,mkdir,/out/new2,-1,0,0,0,10,0,"
	t = 2000
	for (i = 0; i < 200; i++) {
		d = i % 4 == 0 ? "out/new1" : i % 4 == 1 ? "out/new2" : i % 4 == 2 ? "out/old1" : "old2"
		p = sprintf("/%s/f%03d", d, i)
		printf "%d,1,1,openat,%s,-1,0,0,3,10,%s,\n", t, p, cr
		printf "%d,1,1,write,%s,3,0,100,100,10,0,\n", t + 1, p
		printf "%d,1,1,close,%s,3,0,0,0,10,0,\n", t + 2, p
		t += 10
		if (i < 20) {
			printf "%d,1,1,rename,%s,-1,0,0,0,10,0,%s.done\n", t, p, p; t += 10
		} else if (i < 60) {
			printf "%d,1,1,unlink,%s,-1,0,0,0,10,0,\n", t, p; t += 10
		}
	}}' >"$T/j.csv"
ok "$IOTAPE" import -o "$T/j.tape" "$T/j.csv"
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/j.tape"
[ -d "$T/d/out/old1" ] && [ -d "$T/d/old2" ] || fail "prepare did not make the directories the job did not"
[ ! -e "$T/d/out/new1" ] && [ ! -e "$T/d/out/new2" ] || fail "prepare made the job's own directories"
"$IOTAPE" record -q -o "$T/rec.tape" -- "$IOTAPE" replay --no-prepare --timing afap \
	--output-format json -o "$T/r.json" -d "$T/d" "$T/j.tape" 2>"$T/rec.err" ||
	fail "record of the replay failed: $(cat "$T/rec.err")"
[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] || fail "ops failed: $(jq_py "$T/r.json" "d['replay']['failed']")"
ok "$IOTAPE" dump -t syscall -F csv -o "$T/rec.csv" "$T/rec.tape"
# the replay's ops on DIR, by op: every recorded row whose path is under DIR
awk -F, -v d="$T/d/" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	index($c["path"], d) == 1 { n[$c["op"]]++ }
	END { for (o in n) print o, n[o] }' "$T/rec.csv" | sort >"$T/ops"
n() { awk -v o="$1" '$1 == o { print $2; f = 1 } END { if (!f) print 0 }' "$T/ops"; }
echo "the replay's ops under DIR: $(tr '\n' ' ' <"$T/ops")" >&2
[ $(($(n mkdir) + $(n mkdirat))) = 2 ] || fail "mkdirs: want the job's 2: $(cat "$T/ops")"
opens=$(($(n openat) + $(n openat2) + $(n uring_openat)))
# 200 creates, the 4 directories once, DIR and its marker: at most 210
[ "$opens" -ge 200 ] && [ "$opens" -le 210 ] || fail "opens: want the job's 200 and a few: $(cat "$T/ops")"
[ $(($(n rename) + $(n renameat) + $(n renameat2))) = 20 ] || fail "renames: $(cat "$T/ops")"
[ $(($(n unlink) + $(n unlinkat))) = 40 ] || fail "unlinks: $(cat "$T/ops")"
[ -f "$T/d/out/new1/f000.done" ] && [ ! -e "$T/d/out/new1/f000" ] && [ -f "$T/d/old2/f199" ] &&
	[ ! -e "$T/d/out/new1/f020" ] || fail "the files are not where the job left them"

# a second loop: the job's mkdirs find their directories
ok "$IOTAPE" replay --loops 2 --timing afap -d "$T/d3" "$T/j.tape"
grep -q " mkdir 4/4 (2 existed)" "$T/out" || fail "existed: $(grep ops: "$T/out")"
exit 0
