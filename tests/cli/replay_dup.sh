#!/bin/sh
# replay_dup.sh - a dup'd fd is replayed as a dup: each fd its own stream
# (issue #27, item 4).
#
# numpy's np.load reads the header through the fd it opened, then reads
# the file through a dup of it (fcntl F_DUPFD_CLOEXEC).  The replay folded
# the dup into its fd: one stream where the job had two, and compare
# --check failed read_randomness (data set A 0.333, B 0.500), every byte
# equal.  Two processes (two ranks) np.load 8 .npy files each in a
# shuffled order; the replay, recorded, must issue one dup per dup of a
# data set fd and pass every check but the timing ones (afap).  The
# shell's own dups (2>&1 onto a log file, a dup2 of /dev/null) ride along.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring
PY=/usr/bin/python3
"$PY" -c "import numpy" 2>/dev/null || skip "needs $PY with numpy"

mkdir "$T/data" || fail "mkdir"
"$PY" -c '
import sys
import numpy as np
for i in range(16):
    np.save("%s/s%02d.npy" % (sys.argv[1], i), np.arange(20000 + 1000 * i, dtype=np.float32))
' "$T/data" || fail "making the data set"
cat >"$T/job.py" <<'PY'
import os, random, sys
import numpy as np
d, rank = sys.argv[1], int(sys.argv[2])
names = sorted(os.listdir(d))[rank::2]
random.Random(rank).shuffle(names)
for n in names:
    np.load(os.path.join(d, n))
print("rank", rank, "done")
PY
"$IOTAPE" record -q -o "$T/a.tape" -- sh -c \
	"$PY $T/job.py $T/data 0 >$T/r0.log 2>&1 & $PY $T/job.py $T/data 1 >$T/r1.log 2>&1; wait" \
	2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
ok "$IOTAPE" dump -t syscall -o "$T/a.txt" "$T/a.tape"
grep -c "fcntl_dupfd $T/data/s" "$T/a.txt" >"$T/n" || fail "no dup of a data file in the job"
[ "$(cat "$T/n")" = 16 ] || fail "the job made $(cat "$T/n") dups of data files, want 16"

ok "$IOTAPE" replay --prepare-only -d "$T/r" "$T/a.tape"
"$IOTAPE" record -q -o "$T/b.tape" -- "$IOTAPE" replay --no-prepare --timing afap \
	--output-format json -o "$T/r.json" -d "$T/r" "$T/a.tape" 2>"$T/rp.err" ||
	fail "replay under record: $(cat "$T/rp.err")"
[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 0 ] || fail "failed: $(jq_py "$T/r.json" "d['replay']['failed']")"
[ "$(jq_py "$T/r.json" "d['replay']['ops_done']['dup'] == d['replay']['ops_expected']['dup'] >= 16")" = True ] ||
	fail "dups: $(jq_py "$T/r.json" "d['replay']['ops_done']")"
ok "$IOTAPE" dump -t syscall -o "$T/b.txt" "$T/b.tape"
grep -c "fcntl_dupfd $T/r$T/data/s" "$T/b.txt" >"$T/n" || fail "the replay made no dup of a data file"
[ "$(cat "$T/n")" = 16 ] || fail "the replay made $(cat "$T/n") dups of data files, want 16"

run "$IOTAPE" compare --map "$T/r" --check --json "$T/a.tape" "$T/b.tape"
[ -s "$T/out" ] || fail "compare: $(cat "$T/err")"
bad=$(jq_py "$T/out" "[c['name'] + ': ' + c['detail'] for c in d['fidelity']['checks'] if not c['ok'] and c['name'] not in ('compute_gap', 'duration')]")
[ "$bad" = "[]" ] || fail "compare --check: $bad"
jq_py "$T/out" "[c['detail'] for c in d['fidelity']['checks'] if c['name'] == 'read_randomness']" >"$T/rr" ||
	fail "no read_randomness"
grep -q "data set A 0\.[0-9]*, B " "$T/rr" || fail "no data set randomness: $(cat "$T/rr")"
exit 0
