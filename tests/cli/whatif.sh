#!/bin/sh
# whatif.sh - iotape whatif: the baseline and the what-ifs that apply, one
# replay each, and a table made of their reports.
#
# On replay_lib.sh's reader trace (2 recorded reader threads, no
# checkpoints, no --fast): exactly baseline, readers-2x and readers-4x run;
# the kept reports (--keep) show each run had the options the what-if
# names (4 and 8 reader threads, recorded 2); the table's AU, job time and
# read bandwidth are those reports' (job time scaled by ops expected /
# done when a run was cut); the changes are against the baseline.  A run
# that fails (DIR neither empty nor prepared, no -f) makes a FAILED row and
# exit 1, its log kept.  Bad options: exit 2, one line.  With --fast and
# checkpoints: the staging and burst-buffer what-ifs (below).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

reader_trace_csv "$T/tr.csv"
ok "$IOTAPE" import -o "$T/tr.tape" "$T/tr.csv"

run "$IOTAPE" whatif -d "$T/d" --runtime 10s --keep --output-format json -o "$T/w.json" "$T/tr.tape"
[ "$rc" -eq 0 ] || fail "whatif exited $rc: $(cat "$T/err")"
work=$(sed -n 's/^whatif: the runs. reports and logs are in //p' "$T/err") || fail "sed"
[ -d "$work" ] || fail "--keep: no work directory named in: $(cat "$T/err")"
grep -c '^whatif: \[[1-3]/3\] ' "$T/err" >"$T/nprog" || fail "no progress lines: $(cat "$T/err")"
[ "$(cat "$T/nprog")" = 3 ] || fail "progress lines: $(cat "$T/err")"

cat >"$T/check.py" <<'PY'
import json, sys
w = json.load(open(sys.argv[1])); work = sys.argv[2]
names = [r['name'] for r in w['whatifs']]
assert names == ['baseline', 'readers-2x', 'readers-4x'], names
assert w['recorded_reader_threads'] == 2 and w['checkpoints'] == 0 and w['fast'] is None, w
assert w['loader_threads'] == 0, w
want = {'baseline': None, 'readers-2x': 4, 'readers-4x': 8}
base = None
for r in w['whatifs']:
    rep = json.load(open('%s/%s.json' % (work, r['name'])))
    rw = rep['replay']['reader_whatif']
    if want[r['name']] is None:
        assert rw is None, rw
        assert r['replay_options'] == [], r
    else:
        assert rw['reader_threads'] == want[r['name']] and rw['recorded_reader_threads'] == 2, rw
        assert r['replay_options'] == ['--reader-threads', str(want[r['name']])], r
    sc = rep['scale']
    done = sum(rep['replay']['ops_done'].values())
    exp = sum(rep['replay']['ops_expected'].values())
    t = sc['runtime_ns'] / 1e9 * (exp / done if done < exp else 1)
    assert r['ok'] and abs(r['au'] - sc['au_min']) < 1e-6, (r, sc['au_min'])
    assert abs(r['job_time_s'] - t) < 1e-5 * t, (r, t)
    assert r['job_time_estimated'] == (done < exp), r
    assert abs(r['read_bw_bytes'] - sc['read_bw_bytes']) < 1, r
    assert rep['replay']['ops_failed'] == 0
    if base is None:
        base = r
        assert 'job_time_change' not in r
    else:
        assert abs(r['job_time_change'] - (r['job_time_s'] - base['job_time_s']) / base['job_time_s']) < 1e-5
        assert abs(r['au_change'] - (r['au'] - base['au'])) < 1e-5
print('ok')
PY
/usr/bin/python3 "$T/check.py" "$T/w.json" "$work" >"$T/py.out" 2>&1 || fail "whatif JSON: $(cat "$T/py.out")"
rm -rf "$work"

# the text table: one row per run, in the same order
run "$IOTAPE" whatif -d "$T/d" --runtime 10s "$T/tr.tape"
[ "$rc" -eq 0 ] || fail "whatif (text) exited $rc: $(cat "$T/err")"
awk '$1 == "baseline" || $1 ~ /^readers-/ { print $1 }' "$T/out" >"$T/rows" || fail "awk"
printf 'baseline\nreaders-2x\nreaders-4x\n' >"$T/want"
same "$T/want" "$T/rows"
grep -q '^readers-4x  *8 reader threads (recorded 2) ' "$T/out" || fail "table: $(cat "$T/out")"

# With --fast and a checkpoint (the trainer writes /out/ckpt1.pt and
# ckpt2.pt, 2 MiB each in two 1 MiB writes, at 60 and 160 ms: one
# checkpoint of two files for analyze and for replay): stage-hot
# (its room the bytes of analyze's 80% staging level), burst-buffer (to
# FAST, drained) run as well; the baseline and the reader what-ifs time
# the checkpoints with DIR as its own burst buffer, undrained; each row's
# checkpoint time is its report's burst_buffer.seen_s.
cp "$T/tr.csv" "$T/ck.csv" || fail "cp"
for c in 1 2; do
	t=$((c * 100000000 - 40000000))
	echo "$t,1,12,openat,/out/ckpt$c.pt,-1,0,0,20,10,0x241," >>"$T/ck.csv"
	echo "$((t + 1000)),1,12,pwrite64,/out/ckpt$c.pt,20,0,1048576,1048576,10,0," >>"$T/ck.csv"
	echo "$((t + 2000)),1,12,pwrite64,/out/ckpt$c.pt,20,1048576,1048576,1048576,10,0," >>"$T/ck.csv"
	echo "$((t + 3000)),1,12,close,/out/ckpt$c.pt,20,0,0,0,10,0," >>"$T/ck.csv"
done
head -n 1 "$T/ck.csv" >"$T/ck2.csv" && tail -n +2 "$T/ck.csv" >"$T/ck.rows" &&
	sort -t, -k1,1n "$T/ck.rows" >>"$T/ck2.csv" || fail "sort"
ok "$IOTAPE" import -o "$T/ck.tape" "$T/ck2.csv"
ok "$IOTAPE" analyze --json "$T/ck.tape"
cp "$T/out" "$T/ck.ana" || fail "cp"
fast=$(mktemp -d /dev/shm/iotape-whatif-test.XXXXXX) || fail "mktemp in /dev/shm"
trap 'rm -rf "$T" "$fast"' EXIT
run "$IOTAPE" whatif -d "$T/d2" --fast "$fast" --runtime 10s --keep --output-format json \
	-o "$T/w2.json" "$T/ck.tape"
[ "$rc" -eq 0 ] || fail "whatif --fast exited $rc: $(cat "$T/err")"
work=$(sed -n 's/^whatif: the runs. reports and logs are in //p' "$T/err") || fail "sed"
cat >"$T/check2.py" <<'PY'
import json, sys
w = json.load(open(sys.argv[1])); work, d, fast = sys.argv[2:5]
ana = json.load(open(sys.argv[5]))
names = [r['name'] for r in w['whatifs']]
assert names == ['baseline', 'stage-hot', 'burst-buffer', 'readers-2x', 'readers-4x'], names
assert w['checkpoints'] == ana['checkpoints']['count'] == 1 and w['fast'] == fast, w
room = [l['bytes'] for l in ana['staging']['levels'] if abs(l['fraction'] - 0.8) < 1e-9][0]
for r in w['whatifs']:
    rep = json.load(open('%s/%s.json' % (work, r['name'])))
    bb = rep.get('burst_buffer')
    assert r['ok'], r
    if r['name'] == 'stage-hot':
        assert rep['staging']['dir'] == fast and rep['staging']['stage_size'] == room, rep['staging']
        assert bb is None and r['checkpoint_time_s'] is None, r
        continue
    assert 'staging' not in rep
    if r['name'] == 'burst-buffer':
        assert bb['dir'] == fast and bb['drain'] is True, bb
    else:
        assert bb['dir'] == d and bb['drain'] is False, (r['name'], bb)
    assert len(bb['checkpoints']) == 1 and bb['checkpoints'][0]['files'] == 2, bb
    assert abs(r['checkpoint_time_s'] - bb['seen_s']) < 1e-9, (r, bb['seen_s'])
print('ok')
PY
/usr/bin/python3 "$T/check2.py" "$T/w2.json" "$work" "$T/d2" "$fast" "$T/ck.ana" >"$T/py.out" 2>&1 ||
	fail "whatif --fast JSON: $(cat "$T/py.out")"
rm -rf "$work"
# the checkpoints ended up under DIR, drained from FAST
for c in 1 2; do
	[ "$(stat -c %s "$T/d2/out/ckpt$c.pt")" = 2097152 ] || fail "ckpt$c.pt not drained to DIR"
done

# a run that fails: DIR neither empty nor prepared by iotape
mkdir "$T/busy" && echo x >"$T/busy/other" || fail "mkdir"
run "$IOTAPE" whatif -d "$T/busy" --runtime 5s "$T/tr.tape"
[ "$rc" -eq 1 ] || fail "whatif on a busy DIR exited $rc, want 1"
grep -q '^baseline .* FAILED: ' "$T/out" || fail "no FAILED row: $(cat "$T/out")"
grep -q 'runs failed or had failed operations: their logs are in ' "$T/err" ||
	fail "no failure line: $(cat "$T/err")"
kept=$(sed -n 's/^iotape whatif: .*their logs are in //p' "$T/err") || fail "sed"
[ -f "$kept/baseline.log" ] || fail "failed run's log not kept: $(cat "$T/err")"
rm -rf "$kept"

# bad options
err_line 2 "iotape whatif: " "missing -d DIR" "$IOTAPE" whatif "$T/tr.tape"
err_line 2 "iotape whatif: --fast $T/nosuch: " "No such file" \
	"$IOTAPE" whatif -d "$T/d" --fast "$T/nosuch" "$T/tr.tape"
err_line 2 "iotape whatif: " "--runtime" "$IOTAPE" whatif -d "$T/d" --runtime 0 "$T/tr.tape"
: >"$T/exists"
err_line 1 "iotape whatif: $T/exists: exists" "" "$IOTAPE" whatif -d "$T/d" -o "$T/exists" "$T/tr.tape"
err_line 2 "iotape whatif: " "--output: an empty FILE" "$IOTAPE" whatif -d "$T/d" -o '' "$T/tr.tape"
err_line 2 "iotape whatif: " "--dir: an empty DIR" "$IOTAPE" whatif -d '' "$T/tr.tape"
err_line 2 "iotape whatif: " "--fast: an empty FAST_DIR" "$IOTAPE" whatif -d "$T/d" --fast '' "$T/tr.tape"
# a FILE that cannot be made stops whatif before any run (one line: no
# progress line), and leaves no work directory behind
mkdir "$T/tmp" || fail "mkdir"
err_line 1 "iotape whatif: $T/nodir/w.txt: No such file or directory" "" \
	env TMPDIR="$T/tmp" "$IOTAPE" whatif -d "$T/d4" -o "$T/nodir/w.txt" "$T/tr.tape"
[ -z "$(ls -A "$T/tmp")" ] || fail "left in \$TMPDIR: $(ls -A "$T/tmp")"
[ ! -e "$T/d4" ] || fail "DIR made though whatif stopped before the runs"
exit 0
